/*
 * field.h: a solved wind field and the diagnostics of the solve that made it.
 *
 * The field holds the face velocities of the Arakawa-C grid (grid.h gives
 * the layouts): u on x-faces, v on y-faces, w on z-faces, in m/s, float32,
 * each the flux through the face per unit face area (the velocity times
 * the face's transparency: on a wholly open face the velocity itself).
 * Faces touching land and the ground are 0.  The per-column stability class
 * (step 1) is kept for dispersion models.  Cell-centre components (what
 * snapshots and the API publish) are the means of the winds on the two
 * opposite faces (flux over transparency), closed faces left out; land
 * cells have none.
 */
#ifndef WEST_FIELD_H
#define WEST_FIELD_H

#include <stddef.h>

#include "grid.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The WEST steps in model order (docs/design.md section 3). */
enum west_step {
	WEST_STEP_STABILITY,      /* stability interpolation */
	WEST_STEP_EXTRAPOLATE,    /* vertical extrapolation */
	WEST_STEP_INITIALIZE,     /* wind field initialization */
	WEST_STEP_LAND,           /* land addition */
	WEST_STEP_INTERPOLATE,    /* speed interpolation */
	WEST_STEP_SPEED_ZERO,     /* speed zero */
	WEST_STEP_TRANSPARENCY,   /* transparency calculation */
	WEST_STEP_DIVMIN,         /* divergence minimization */
	WEST_STEP_DIVREMOVAL,     /* divergence removal */
	WEST_NSTEPS
};

/* "stability interpolation", ...; NULL out of range. */
const char *west_step_name(int step);
/* The step's one name ("stability", "extrapolate", "initialize", "land",
 * "interpolate", "speed_zero", "transparency", "divmin", "divremoval"):
 * the same as its WEST_STEP_ value, its kernel file (kernels/NAME.c, .cu)
 * and its kernel table slot (step 8's kernels, the solvers', live in
 * divmin.c and potential.c); for JSON and attributes. */
const char *west_step_key(int step);

/* The two convergence measures of docs/design.md section 3, and max|D|
 * itself. */
struct west_convergence {
	double max_div;   /* max |D| over fluid cells (1/s) */
	double rel_max;   /* max |D| * h / U_ref */
	double rel_l2;    /* ||D||_2 / ||D_initial||_2 (1 at the start) */
};

/* The most partitions one field is solved in (parts.h); a report lists
 * every one. */
#define WEST_MAX_PARTS 16

/* One slab of a solve (parts.h): where it was computed and its rows. */
struct west_report_slab {
	char backend[16];        /* its kernels' backend: "cpu", "cuda" */
	char device[16];         /* its device: "cpu", "cuda:N" */
	int rank;                /* the MPI rank that held it (0: this process) */
	size_t j0, j1;           /* its own rows of the grid, j0 <= j < j1 */
	size_t cells;            /* its own cells, nx (j1 - j0) nz */
};

struct west_report {
	char backend[16];        /* "cpu", "cuda" */
	char solver[32];         /* "multigrid", "sor-velocity", "sor-potential" */
	char indexing[16];       /* "masked", "compact", "per-colour" */
	double omega, eta, tolerance;
	long iterations_max;     /* the limit */
	long iterations;         /* done: red-black iterations (sor solvers)
				  * or multigrid iterations */
	int converged;           /* tolerance met */
	double h, u_ref;         /* m, m/s: the scales of rel_max */
	struct west_convergence start;   /* before the first sweep */
	struct west_convergence end;     /* after the last sweep */
	struct west_convergence final;   /* after divergence removal */
	double step_seconds[WEST_NSTEPS];
	double total_seconds;           /* the whole run: the steps, and on a GPU
					 * the station upload and field download */
	int partitions;                 /* the slabs it was solved in (parts.h) */
	double exchange_seconds;        /* of the steps' time, the wall time spent
					 * in the partitions' exchanges (parts.h;
					 * 0 for one): on MPI ranks the waits for
					 * messages, in one process the copies'
					 * queueing (on a GPU not their run) */
	/* the first `partitions` are the slabs (one: the whole grid) */
	struct west_report_slab slab[WEST_MAX_PARTS];
};

struct west_field {
	size_t nx, ny, nz;
	float *u, *v, *w;           /* face velocities (m/s) */
	unsigned char *stability;   /* nx * ny, enum west_stability per column */
	float power_exponent[6];    /* by class A..F: the power law of step 2,
				     * which carries the lowest resolved level
				     * down to the ground (query.h) */
	long long valid_time;       /* s since 1970-01-01T00:00:00Z */
	struct west_report report;
	/* where the arrays live: NULL, each malloc'd (west_field_init); or a
	 * pool's buffer (fieldpool.h), u at its start, which west_field_free
	 * gives back; pinned: page-locked memory a device copies straight
	 * into */
	struct west_field_pool *pool;
	int pinned;
};

/* Allocate the arrays for grid g (contents undefined); zeroed on error. */
enum west_status west_field_init(struct west_field *f, const struct west_grid *g,
				 char *err, size_t errlen);
/* f of g's shape with no arrays: what an MPI rank other than 0 solves
 * into (its slab's field is in its partition set; rank 0 gathers the
 * whole, parts.h). */
void west_field_shape(struct west_field *f, const struct west_grid *g);

/* Free f's arrays, or give its buffer back to its pool; f zeroed. */
void west_field_free(struct west_field *f);

/*
 * Cell-centre velocity of cell (i, j, k): out = {u, v, w} (m/s), the means
 * of the winds on opposite open faces (above).  Returns 0 and leaves out
 * alone for a land cell.
 */
int west_field_centre(const struct west_field *f, const struct west_grid *g,
		      size_t i, size_t j, size_t k, float out[3]);

/*
 * One component (0 u, 1 v, 2 w) at the cell centres of rows r0 to r1 - 1
 * (row r: row j = r % ny of level k = r / ny; all: 0 to ny * nz) into
 * out[nx*(r1-r0)] (the cell layout of grid.h, from row r0), `fill` in
 * land cells: the values of west_field_centre bit for bit, a row at a
 * time.  No OpenMP: the snapshot writer calls it beside the worker's
 * threads, and in processes forked after OpenMP started (libgomp hangs
 * there).
 */
void west_field_centres(const struct west_field *f, const struct west_grid *g, int comp,
			size_t r0, size_t r1, float fill, float *out);

/* The report as a JSON object (jansson; a new reference), for the
 * command's --json, the API and the snapshot reader's users. */
struct json_t;
struct json_t *west_report_json(const struct west_report *r);
/* Of r's solve time, the share spent in the partitions' exchanges (0 when
 * it took no time). */
double west_report_exchange_share(const struct west_report *r);

#ifdef __cplusplus
}
#endif

#endif
