/*
 * model.h: the WEST model driver (docs/design.md section 3, docs/model.md).
 *
 * A solve runs the nine steps in model order on one backend's memory: the
 * driver (west_model_solve) is written once over a table of kernels with
 * the kernels.h prototypes, the CPU references or the CUDA launchers, and a
 * struct west_work of arrays in that backend's memory.  Steps 4 (land) and
 * 7 (transparencies) depend on the terrain only: they run when the grid is
 * built (grid.c), again on the device when the CUDA backend uploads it,
 * and the report carries the backend's time for them.
 *
 * Divergence minimization (docs/model.md, "Solvers") runs the chosen
 * solver until the convergence test passes or its iteration limit is hit:
 *  - sor: velocity-form red-black iterations (a red then a black pass),
 *    `iterations` at most;
 *  - sor-potential: the same iteration on the potential (kernels.h) with
 *    per-colour storage, check_interval iterations at a time, each batch
 *    applied to the field;
 *  - multigrid: conjugate gradients on the potential, preconditioned by a
 *    V-cycle of the hierarchy wk->mg (multigrid.h), `cycles` at most; each
 *    iteration's step is applied to the field and the residual is the
 *    field's divergence itself, so nothing drifts.
 * The test, max|D| h / U_ref <= tolerance (h = min(dx, dy, dz), U_ref = the
 * largest observed speed), is evaluated on the field before the first
 * iteration, every check_interval iterations (sor solvers) or every
 * iteration (multigrid), and after the last one.  A tolerance of 0 never
 * stops early.
 */
#ifndef WEST_MODEL_H
#define WEST_MODEL_H

#include <stddef.h>

#include "config.h"
#include "field.h"
#include "grid.h"
#include "kernels.h"
#include "multigrid.h"
#include "obs.h"
#include "status.h"

/* The power-law exponents' table (config land_use). */
enum west_land_use { WEST_LAND_RURAL, WEST_LAND_URBAN };
/* Step 8's solver (config solver), and the velocity SOR's storage (config
 * indexing). */
enum west_solver { WEST_SOLVER_MULTIGRID, WEST_SOLVER_SOR, WEST_SOLVER_SOR_POTENTIAL };
enum west_indexing { WEST_INDEXING_MASKED, WEST_INDEXING_COMPACT };
/* How partitions on different MPI ranks exchange halo rows (config
 * exchange; parts.h): overlapped with the inner rows' smoothing, or not. */
enum west_exchange { WEST_EXCHANGE_OVERLAP, WEST_EXCHANGE_BLOCKING };

struct west_solve_opts {
	enum west_solver solver;
	long iterations;          /* most red-black iterations (sor solvers) */
	long cycles;              /* most multigrid iterations */
	double tolerance;         /* on max|D| h / U_ref; 0 = none */
	double omega, eta;
	enum west_indexing indexing;
	long check_interval;      /* iterations between convergence checks */
	enum west_land_use land_use;
	int partitions;           /* slabs of the grid (config devices: cpu or
				     cuda:N listed that many times); 0 or 1: one */
	int device[16];           /* slab p's CUDA device (config devices), or
				     WEST_DEVICE_CPU: a CPU slab (beside GPUs on
				     the CUDA backend) */
	int devices_auto;         /* config devices = auto: the backend's plan
				     may cut the grid over every GPU it sees */
	int nweights;             /* config weights: 0 (auto), or one per slab */
	double weights[16];
	enum west_exchange exchange;
};

void west_solve_opts_from_config(struct west_solve_opts *o,
				 const struct west_config *c);

/* Power-law exponents of Irwin (1979) by class A..F. */
const float *west_power_exponents(enum west_land_use use);

/* Called after each step with the report so far (step_seconds[step] set). */
typedef void (*west_progress_fn)(void *ctx, int step, const struct west_report *r);

/*
 * The kernels one backend runs, and its memory: west_kernels_cpu (the
 * references, three of the potential kernels vectorized; backend_cpu.c),
 * west_kernels_cpu_ref (the references alone) or west_kernels_cuda (the
 * launchers, backend_cuda.c).  Each kernel slot is typed by __typeof__ of its CPU
 * reference, so a backend's kernel with another prototype does not
 * compile.  The driver calls every kernel slot but land and transparency
 * (steps 4 and 7 run with the terrain: grid.c, the CUDA backend's
 * upload), mg_codes, mg_coarse and mg_cuts (the hierarchy's build:
 * west_mg_build_on) and plume_advance (release plumes: west_plume_run,
 * plume.h); tests/test_backends.c runs every slot of every built
 * backend against the CPU reference.
 */
struct west_kernel_ops {
	const char *backend;   /* the report's backend name */
	__typeof__(west_stability_cpu) *stability;
	__typeof__(west_extrapolate_cpu) *extrapolate;
	__typeof__(west_initialize_cpu) *initialize;
	__typeof__(west_land_cpu) *land;
	__typeof__(west_interpolate_cpu) *interpolate;
	__typeof__(west_speed_zero_cpu) *speed_zero;
	__typeof__(west_transparency_cpu) *transparency;
	__typeof__(west_divmin_sweep_cpu) *sweep;
	__typeof__(west_divergence_norms_cpu) *norms;
	__typeof__(west_divremoval_cpu) *divremoval;
	__typeof__(west_pot_rhs_cpu) *pot_rhs;
	__typeof__(west_pot_apply_cpu) *pot_apply;
	__typeof__(west_pot_smooth_cpu) *pot_smooth;
	__typeof__(west_pot_smooth0_cpu) *pot_smooth0;
	__typeof__(west_pot_restrict_cpu) *pot_restrict;
	__typeof__(west_pot_prolong_cpu) *pot_prolong;
	__typeof__(west_pot_coarse_cpu) *pot_coarse;
	__typeof__(west_pot_matvec_cpu) *pot_matvec;
	__typeof__(west_pot_dot_cpu) *pot_dot;
	/* pot_dot into page-locked sums (host_alloc's), complete after sync
	 * (NULL where pot_dot is done when it returns: the CPU) */
	__typeof__(west_pot_dot_cpu) *pot_dot_queued;
	__typeof__(west_pot_xpby_cpu) *pot_xpby;
	__typeof__(west_pot_axpy_cpu) *pot_axpy;
	__typeof__(west_pot_resid_cpu) *pot_resid;
	__typeof__(west_pot_zero_cpu) *pot_zero;
	/* building the hierarchy (multigrid.c) */
	__typeof__(west_mg_codes_cpu) *mg_codes;
	__typeof__(west_mg_coarse_cpu) *mg_coarse;
	/* level 0's cut table (NULL where the kernels read tx and ty: CUDA) */
	__typeof__(west_mg_cuts_cpu) *mg_cuts;
	/* release plumes (plume.c's driver, not the solve's); plume_order_bytes
	 * (NULL on the CPU): the scratch of the particles' order (kernels.h,
	 * struct west_kparticles), which the driver allocates when it is set */
	__typeof__(west_plume_advance_cpu) *plume_advance;
	size_t (*plume_order_bytes)(size_t np);
	/* the wall seconds a release's launch aims at (plume.h), 0: launches
	 * of a fixed simulated time */
	double plume_launch_seconds;
	/* Wait for the queued kernels, so that step times are true (NULL
	 * where kernels finish before they return: the CPU). */
	enum west_status (*sync)(void);
	/*
	 * Recording (NULL where there is none: the CPU): between graph_begin
	 * and graph_end the kernels the calling thread queues are recorded,
	 * not run, into a graph (*graph; with graph NULL the recording is
	 * dropped) that graph_run queues again as a whole, with the same
	 * arguments, and graph_free frees.  The multigrid solver records its
	 * V-cycle (struct west_work's vgraph).
	 */
	enum west_status (*graph_begin)(void);
	enum west_status (*graph_end)(void **graph);
	enum west_status (*graph_run)(void *graph);
	void (*graph_free)(void *graph);
	/*
	 * The memory the kernels take pointers into (host memory for the
	 * CPU, device memory for CUDA).  Each call is complete when it
	 * returns, ordered after the kernels the calling thread queued
	 * (CUDA: its per-thread default stream), and fails with a message
	 * in err: alloc of bytes > 0 into *p (NULL on failure); upload
	 * bytes from host src to backend dst; download from backend src to
	 * host dst; fill every byte of dst with `byte`; free p (NULL is a
	 * no-op).
	 */
	enum west_status (*alloc)(void **p, size_t bytes, char *err, size_t errlen);
	enum west_status (*upload)(void *dst, const void *src, size_t bytes, char *err,
				   size_t errlen);
	enum west_status (*download)(void *dst, const void *src, size_t bytes, char *err,
				     size_t errlen);
	enum west_status (*fill)(void *dst, int byte, size_t bytes, char *err, size_t errlen);
	/* Within the backend's memory: `height` runs of `width` bytes, run r
	 * from src + r spitch to dst + r dpitch; ordered after the kernels
	 * queued before it, and before those queued after it, but (unlike the
	 * calls above) not waited for on CUDA. */
	enum west_status (*copy2d)(void *dst, size_t dpitch, const void *src, size_t spitch,
				   size_t width, size_t height, char *err, size_t errlen);
	enum west_status (*free)(void *p, char *err, size_t errlen);
	/*
	 * Several devices of one backend in one process (parts.h; NULL on
	 * the CPU, which is one): peers checks that each of the n devices
	 * dev exists and lets every two of them reach each other's memory
	 * (copy2d between them then works, and is direct where the
	 * hardware allows); bind makes dev the calling thread's device, that
	 * of every call above; join orders what the calling thread queues
	 * after it on any of the n devices after everything it queued
	 * before on all of them, without waiting.
	 */
	enum west_status (*peers)(const int *dev, int n, char *err, size_t errlen);
	enum west_status (*bind)(int dev);
	enum west_status (*join)(const int *dev, int n);
	/*
	 * Copies beside the kernels (NULL where copies are done when they
	 * return: the CPU): after post, the calling thread's copy2d calls go
	 * on a second stream of their device, which starts them once
	 * everything queued before post on the n devices dev is done, while
	 * the kernels queued after post run; after wait, what is queued on
	 * any of the n devices runs after those copies, and copy2d is back on
	 * the kernels' stream.
	 */
	enum west_status (*post)(const int *dev, int n);
	enum west_status (*wait)(const int *dev, int n);
	/* Host memory the tables' copies reach without staging (page-locked
	 * on CUDA; NULL: malloc's will do). */
	void *(*host_alloc)(size_t bytes);
	void (*host_free)(void *p);
	/*
	 * Rows between MPI ranks straight between the ranks' devices (NCCL,
	 * ranks_nccl.h; NULL where there is none, and ranks_open fails,
	 * saying why, where a rank cannot start it: parts.c then stages the
	 * rows through host memory).  ranks_open makes the ranks'
	 * communicator (every rank calls it, in the same order); ranks_rows
	 * queues after what the calling thread queued before the sending
	 * (send) or the receiving of `count` runs of n floats `pitch` apart at
	 * p to or from rank `peer`; the calls between ranks_group(c, 1, side)
	 * and ranks_group(c, 0, side) are one group (a send and a receive at
	 * once), which with side set goes on a second stream beside the
	 * thread's kernels until ranks_wait(c) joins it.
	 */
	enum west_status (*ranks_open)(void **comm, char *err, size_t errlen);
	void (*ranks_close)(void *comm);
	enum west_status (*ranks_group)(void *comm, int begin, int side);
	enum west_status (*ranks_rows)(void *comm, int send, float *p, size_t count, size_t n,
				       size_t pitch, int peer);
	enum west_status (*ranks_wait)(void *comm);
};
extern const struct west_kernel_ops west_kernels_cpu;    /* backend_cpu.c */
extern const struct west_kernel_ops west_kernels_cpu_ref;  /* its references alone */
#ifdef WEST_HAVE_CUDA
extern const struct west_kernel_ops west_kernels_cuda;   /* backend_cuda.c */
#endif

/* Level arrays of struct west_kgrid for grid g (each nz or nz + 1 floats)
 * and the columns' ground heights above the base (nx * ny floats). */
struct west_levels {
	float *zc, *rdz, *rdzf, *ground;
};
enum west_status west_levels_init(struct west_levels *l, const struct west_grid *g,
				  char *err, size_t errlen);
void west_levels_free(struct west_levels *l);

/* The kernels' view of g (host pointers), with levels l. */
void west_kgrid_init(struct west_kgrid *kg, const struct west_grid *g,
		     const struct west_levels *l);

/*
 * Stations in kernel form: st[s] (position from the grid corner, the
 * direction from the grid's north: the observation's true direction less
 * the meridian convergence there (grid.h), and the mixing height of
 * west_mixing_height) and stab[s] (class as a float), for s < obs->n.
 */
void west_model_stations(const struct west_grid *g, const struct west_obs_set *obs,
			 enum west_land_use use, struct west_kstation *st,
			 float *stab);

/*
 * The height above ground (m) up to which station o's power-law profile
 * applies (docs/model.md, step 2): the mechanical mixing height
 * 2300 u*^(3/2) of Venkatram (1980), u* from the surface-layer profile at
 * the station (kappa S / (ln(z/z0) + 5 z / L) when stable, the log law
 * otherwise), 1/L the station's own or its class's (Golder 1972) and z0
 * its own or the land use's default; never below the measurement height.
 */
double west_mixing_height(const struct west_obs *o, enum west_land_use use);

/* The default roughness length (m) of a land use: 0.1 rural, 1 urban. */
double west_default_z0(enum west_land_use use);

/*
 * The eta a solve uses: o->eta when it is a number; for auto (NaN) the
 * square of WindNinja's alpha = alpha_h / alpha_v for the stations' mean
 * class (rounded, a half to the more stable class): A 5, B 3.5, C 2,
 * D 1, E 0.5, F 0.2 (docs/model.md, "eta").
 */
double west_model_eta(const struct west_solve_opts *o, const struct west_obs_set *obs);

/* Every array a solve touches, in the backend's memory. */
struct west_work {
	struct west_kgrid kg;
	size_t ns;
	const struct west_kstation *st;
	const float *stab, *pexp;   /* ns; 6 */
	float *pst, *us, *vs;       /* ns each: profile exponents, components */
	unsigned char *cls;         /* nx * ny */
	float *u, *v, *w;           /* the field's faces */
	const struct west_mg *mg;   /* the potential solvers' hierarchy (its
				       arrays in the backend's memory) */
	/* Called as parts of the field become final, with the step that
	 * made them so: WEST_STEP_DIVMIN once step 8 is done (u and v: step
	 * 9 writes only w), WEST_STEP_DIVREMOVAL once step 9's kernel is
	 * (w; the last norms only read it).  The backend may start bringing
	 * them down then (NULL: none). */
	enum west_status (*final)(void *ctx, int step);
	void *final_ctx;
	void **vgraph;              /* where the backend keeps the multigrid
				       V-cycle recorded for mg (graph_begin),
				       *vgraph NULL until then; NULL: not
				       recorded */
	double land_seconds;        /* steps 4 and 7, run with the terrain */
	double transparency_seconds;
};

/*
 * Run steps 1-3, 5, 6, 8 and 9 with ops on wk; fill r (convergence, step
 * times, iterations; steps 4 and 7 from wk) and call progress (may be
 * NULL) after each step.  u_ref: the largest observed speed (m/s).
 */
enum west_status west_model_solve(const struct west_kernel_ops *ops,
				  struct west_work *wk, const struct west_grid *g,
				  const struct west_solve_opts *o, double u_ref,
				  struct west_report *r, west_progress_fn progress,
				  void *ctx, char *err, size_t errlen);

struct west_parts;

/* The same over a set of partitions (parts.h), their stations in place
 * (west_parts_stations); the field stays in the partitions
 * (west_parts_field brings it together). */
enum west_status west_model_solve_parts(struct west_parts *ps, const struct west_grid *g,
					const struct west_solve_opts *o, double u_ref,
					struct west_report *r, west_progress_fn progress,
					void *ctx, char *err, size_t errlen);

#endif
