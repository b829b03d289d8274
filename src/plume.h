/*
 * plume.h: release plumes through a solved wind field (issue 18): a
 * Lagrangian stochastic particle model run on one published field, and
 * what it gives back (docs/model.md, "Release plumes", says the model).
 *
 * Particles move with the mean wind, interpolated from the field's faces
 * as the point query does (query.h), plus a turbulent velocity from a
 * Langevin equation that satisfies Thomson's (1987) well-mixed condition
 * in Gaussian turbulence, its variances and Lagrangian time scales from
 * the column's stability class, the height and a mixing height
 * (docs/model.md names the parameterization and its sources).  They are
 * reflected at the ground (the terrain surface) and at the mixing height;
 * a particle that leaves the domain by its sides or top is counted and
 * dropped.  Random numbers come from a counter-based generator keyed by
 * (seed, particle, step), so the CPU reference and the CUDA kernel move
 * the same particles for the same seed.
 *
 * The run is plain C over a kernel table (model.h, struct west_kernel_ops:
 * its plume slot and its memory calls), so the one driver runs on the CPU
 * and on CUDA.  Nothing here knows HTTP or JSON.
 */
#ifndef WEST_PLUME_H
#define WEST_PLUME_H

#include <stddef.h>
#include <stdint.h>

#include "field.h"
#include "grid.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What to release: a unit mass, spread evenly over `particles` particles
 * released at a constant rate over `duration` seconds from `start`. */
struct west_release {
	double x, y;          /* release point in the grid's CRS (m) */
	double height;        /* release height above the local ground (m) */
	double duration;      /* release duration (s), > 0 */
	double seconds;       /* simulated time from start (s), >= duration */
	long particles;       /* > 0 */
	uint64_t seed;
	long long start;      /* s since 1970-01-01T00:00:00Z */
	double layer;         /* depth of the near-ground layer that
			       * concentration and arrival sample (m above
			       * the local ground), > 0 */
};

/* Defaults of the API's release (docs/api.md). */
#define WEST_RELEASE_HEIGHT 10.0
#define WEST_RELEASE_DURATION 600.0
#define WEST_RELEASE_SECONDS 3600.0
#define WEST_RELEASE_PARTICLES 100000L
#define WEST_RELEASE_LAYER 10.0

/* One point of the plume centroid's path: the mean position of the
 * particles in the domain at time t (s after start); n of them.  The
 * first point is the release itself (t 0, the release point and height,
 * n 1: particle 0 is released at 0); then one every
 * WEST_PLUME_PATH_SECONDS and one at the end, each left out when no
 * particle is in the domain then. */
struct west_plume_point {
	double t, x, y, z_agl;
	long n;
};

/*
 * A finished run.  The output grid is the field's columns: conc and
 * arrival are nx * ny, row-major from the grid's corner (x0, y0), entry
 * j * nx + i the column (i, j) of grid.h.
 */
struct west_plume_result {
	size_t nx, ny;
	double x0, y0, dx, dy;    /* as the grid's */
	double layer;             /* m: the sampled layer's depth */
	/* time-integrated concentration in the layer per unit mass
	 * released (s/m^3) */
	float *conc;
	/* first time a particle was in the layer over the column (s after
	 * start); NaN where none was */
	float *arrival;
	struct west_plume_point *path;   /* npath points, t increasing */
	size_t npath;
	double mixing_height;     /* m: at the release point (the columns' own
				     between their centres, as the particles
				     see it) */
	long particles;           /* released */
	long outside;             /* left the domain (sides or top) */
	double wall_seconds;      /* the run's wall time */
	long launches;            /* kernel launches (chunks) */
	double launch_max_seconds;   /* the longest launch's wall time */
};

/*
 * Called between chunks of simulated time with the simulated seconds done
 * (every particle has reached it; increasing, the last call with
 * r->seconds); a nonzero return stops the run: west_plume_run then fails
 * with WEST_ERR_INVALID and the message "cancelled".  Each chunk is one
 * kernel launch of bounded work (WEST_PLUME_CHUNK_WORK below) and is
 * finished when progress is called, so progress may use the same backend
 * (run a waiting solve) before it returns: the run keeps its own copies in
 * the backend's memory.
 */
typedef int (*west_plume_progress_fn)(void *ctx, double done_seconds);

struct west_kernel_ops;

/*
 * Run release r through field f on grid g with kernels k (their memory
 * calls hold the particles and a copy of what the kernel reads), into
 * out (allocated here; free with west_plume_result_free).  Fails with
 * WEST_ERR_INVALID naming the parameter when r is out of range (the
 * point outside the domain or in a column that is terrain to the top,
 * the height above the top, a non-finite or non-positive value), and
 * with the kernels' status when they fail.  Read-only on g and f, which
 * are read before the first chunk only (copied into k's memory).  The
 * message of a refusal starts with the field's name: "x ", "y ",
 * "x, y: ", "height ", "duration ", "seconds ", "particles ", "layer ".
 * On CUDA (west_kernels_cuda) the work goes on the calling thread's
 * per-thread default stream, like a solve's.
 */
enum west_status west_plume_run(const struct west_grid *g, const struct west_field *f,
				const struct west_release *r,
				const struct west_kernel_ops *k,
				west_plume_progress_fn progress, void *ctx,
				struct west_plume_result *out, char *err, size_t errlen);

/* Free out's arrays; out zeroed.  A zeroed result is a no-op. */
void west_plume_result_free(struct west_plume_result *out);

/* Hard limits of a release (memory, and the integer sums of kernels.h:
 * particles * seconds * 2^20 ticks stays below 2^64). */
#define WEST_PLUME_MAX_PARTICLES 10000000L
#define WEST_PLUME_MAX_SECONDS 604800.0   /* 7 days */

/*
 * The centroid's path has a point every WEST_PLUME_PATH_SECONDS of
 * simulated time (and at the end); each of those intervals is run in
 * chunks (kernel launches, `progress` called after each), so that a solve
 * may have the device between them (westd's runner waits for the solves
 * there: releases.h).  A particle's step is cut at the path points only
 * (a chunk's end lets it finish the step it is in: kernels.h,
 * plume_advance), so the particles do not depend on the chunks, and
 * their length is a matter of scheduling alone.  With a backend's
 * plume_launch_seconds (model.h; the GPU's WEST_PLUME_LAUNCH_GPU) each
 * launch aims at that wall time: the first covers WEST_PLUME_CHUNK_WORK
 * particle-seconds (at most a path interval), and each one sets the next
 * span from its pace (simulated over wall seconds), growing by a quarter
 * at most (a launch's work can jump: the pace is the past's) and
 * shrinking to a quarter at most, never below a 240th of a path interval
 * (where a launch's fixed cost is past the target).  Elsewhere (the CPU)
 * a launch is WEST_PLUME_CHUNK_WORK particle-seconds, each interval cut
 * evenly.
 * docs/benchmarks.md, "Release plumes beside the solves", measures both.
 */
#define WEST_PLUME_PATH_SECONDS 60.0
#define WEST_PLUME_CHUNK_WORK 1e6
#define WEST_PLUME_LAUNCH_GPU 1.5e-3

/*
 * Knobs of a run beyond the release, for tests and validation studies
 * (west_plume_run takes the defaults, west_plume_opts_init's).  NaN or 0
 * leaves a value to the model (docs/model.md, "Release plumes").
 */
struct west_plume_opts {
	double ustar;          /* m/s, > 0: every column's friction velocity;
				* NaN: from the field's wind */
	double mixing_height;  /* m above the ground, >= 20: every column's;
				* NaN: by class */
	/* homogeneous turbulence: with t_l > 0 every column and height has
	 * these standard deviations (m/s, >= 0) and this Lagrangian time
	 * scale (s) on every component, and no gradients; 0: the profiles */
	double sigma_u, sigma_v, sigma_w, t_l;
	/* particle p released at (p + 0.5) / particles of the mixing height
	 * above the ground instead of at r->height (the well-mixed test) */
	int uniform_z;
	/* when not NULL, 4 * particles doubles: at the end, each particle's
	 * x, y (the CRS, m), height above the ground (m) and state (0 not
	 * released, 1 in the domain, 2 left it) */
	double *positions;
	/* particle-seconds a kernel launch, each path interval cut evenly
	 * (at least 1; 0: the backend's rule, above): how finely the run is
	 * cut for the device's other work; the particles do not depend on it */
	double chunk_work;
	/* with chunk_work 0, the wall seconds a launch aims at (> 0; 0: the
	 * backend's plume_launch_seconds) */
	double launch_seconds;
	/* when not NULL, particles unsigned: the order the GPU takes the
	 * particles in after the last launch (kernels.h, struct
	 * west_kparticles); left alone where there is none (the CPU) */
	unsigned *order;
};

void west_plume_opts_init(struct west_plume_opts *o);

/* west_plume_run with o (NULL: the defaults); fails with WEST_ERR_INVALID
 * naming the option when one is out of range. */
enum west_status west_plume_run_opts(const struct west_grid *g, const struct west_field *f,
				     const struct west_release *r,
				     const struct west_plume_opts *o,
				     const struct west_kernel_ops *k,
				     west_plume_progress_fn progress, void *ctx,
				     struct west_plume_result *out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
