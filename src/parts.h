/*
 * parts.h: one field over several devices (docs/design.md section 5).
 *
 * The grid is cut into slabs of whole rows along y, one partition per
 * device.  A partition holds its own rows [a, b) as a grid of its own
 * (west_grid_slab), with one halo row above and, below, padding rows that
 * end in a halo row: local row 0 is global row jg, chosen so that every
 * coarsening of the hierarchy pairs the slab's rows as it pairs the whole
 * grid's.  The kernels see the slab through their views (kernels.h: jg
 * for positions, jlo and jhi for the rows they update); halo rows are read,
 * never written, and are refreshed by the exchanges below.
 *
 * The multigrid hierarchy stays cut while every slab keeps at least
 * min_rows rows and min_cells cells on a level; the first level where it
 * does not (lp) is held whole by the first partition's device (the tail,
 * west_mg_build_tail): the partitions restrict into their rows of level
 * lp, those rows are gathered into the tail, the tail runs the rest of
 * the V-cycle, and its correction is scattered back with the halo rows.
 *
 * Every sum the solvers take is per row and added in the whole grid's row
 * order (kernels.h, west_pot_dot), so partitions of one backend give the
 * one-device field bit for bit (tests/test_parts.c).
 *
 * The driver (model.c, solvers.c) runs over a set: one partition (the
 * one-device solve, west_model_solve) or several (west_model_solve_parts).
 * The partitions of a set compute on one backend: on the CPU, or on GPUs
 * (each partition on its own device, dev, which may be shared: each
 * partition's calls are made with its device bound, ops->bind).  Their
 * rows move by the table's strided copies (copy2d, peer copies between
 * GPUs), queued like kernels on the sending device's stream, between two
 * joins (ops->join) when the set spans several GPUs, so that a copy
 * starts after the kernels of both sides before it and the kernels after
 * it wait for it; the velocity form's shared faces are merged in host
 * memory.  Under mpirun with N > 1 ranks (ranks.h) a set
 * has N partitions, one per rank, on the CPU backend or each on its
 * rank's GPU: a rank holds the arrays of its own partition only, rows
 * move between ranks by MPI messages straight from and into the host
 * arrays (CPU) or through page-locked host buffers (GPU: `staged`), the
 * tail lives on rank 0, and every rank gets every partition's row sums
 * and norms, so that all take the same decisions and rank 0 gets the
 * same field.
 */

/* Each partition of ps held by this process, its device bound (the
 * calling thread's current one, for the calls in the loop's body) on a
 * backend of devices. */
#define WEST_EACH_PART(ps, p) \
	for (struct west_part *p = (ps)->part; p < (ps)->part + (ps)->n; p++) \
		if (p->rank == (ps)->me && west_part_bind(ps, p))
#ifndef WEST_PARTS_H
#define WEST_PARTS_H

#include <stddef.h>

#include "field.h"
#include "grid.h"
#include "model.h"
#include "multigrid.h"
#include "obs.h"
#include "status.h"

/* Where the hierarchy stops being cut (docs/design.md section 5). */
#define WEST_PARTS_MIN_ROWS 4
#define WEST_PARTS_MIN_CELLS 32768

struct west_part {
	const struct west_kernel_ops *ops;
	int rank;                   /* the MPI rank holding it (ranks.h; 0) */
	int dev;                    /* its device (ops->bind; CUDA's number) */
	struct west_work wk;        /* its arrays in ops memory; wk.kg its view */
	struct west_kgrid cols;     /* steps 1 and 2: the whole grid's columns */
	size_t a[WEST_MG_MAX_LEVELS], b[WEST_MG_MAX_LEVELS]; /* own rows by level */
	size_t jg[WEST_MG_MAX_LEVELS];   /* the level's row of local row 0 */
	/* what a built set owns (parts.c) */
	struct west_grid slab;
	struct west_levels levels;
	struct west_mg mg;
	void *mem[12];              /* the slab's arrays and field */
	int nmem;
	size_t bytes;               /* mem's bytes (mg's are mg.bytes) */
	void *smem[4];              /* the solve's station arrays */
};

struct west_parts {
	int n;
	int lp;                     /* the first level held whole by the tail
				       (n > 1 with a hierarchy) */
	struct west_parts *tail;    /* a set of one: levels lp on, or NULL */
	void *graph;                /* a tail's V-cycle recorded (its part's
				       wk.vgraph points here: solvers.c), or
				       NULL */
	struct west_part part[WEST_MAX_PARTS];
	int ndev;                   /* the GPU partitions' distinct devices, */
	int devs[WEST_MAX_PARTS];   /* each once (0 or 1: one device) */
	const struct west_kernel_ops *gpu;   /* the first GPU partition's table
				       (joins, peers, side streams), or NULL */
	int cpu;                    /* CPU partitions beside GPU ones: each
				       join makes the host wait for the GPUs */
	int bind;                   /* 1: the partitions' devices are bound
				       before their calls (a set built on a
				       backend of devices, and its tail) */
	const struct west_grid *g;  /* the whole grid */
	double eta;                 /* the hierarchy's, or NaN when none */
	double w[WEST_MAX_PARTS];   /* the shares the rows were dealt out by, */
	size_t min_rows, min_cells; /* and the cut's thresholds */
	float *stage;               /* host: face rows (west_parts_merge_v) */
	int me;                     /* this process's rank: its partitions are
				       those of this rank, the others are
				       geometry only */
	double *sums;               /* per-row sums, g->ny: a built set's from
				       ops->host_alloc where it has one */
	int overlap;                /* the solve's exchange is overlap (model.h):
				       west_parts_overlaps */
	int side;                   /* copies posted on the side streams
				       (ops->post) that halo_wait ends */
	void *pending;              /* a rank's messages: those in flight and
				       the staging buffers (parts.c) */
	int staged;                 /* rows between ranks go through host
				       buffers: the arrays are device memory */
	void *comm;                 /* GPU ranks: the rows between devices by
				       the table's ranks_* (NCCL), or NULL */
	double exchange_seconds;    /* wall time in the exchanges below since
				       the solve began */
};

/* How a set is cut (tests make slabs small to cut many levels), the
 * partitions' shares of the rows (config weights; auto: equal, or over MPI
 * ranks each rank's measured speed) and their devices (config devices'
 * cuda:N; 0 on the CPU). */
struct west_parts_opts {
	size_t min_rows, min_cells;
	int dev[WEST_MAX_PARTS];
	int nweights;               /* 0: auto; else one weight per partition, */
	double weights[WEST_MAX_PARTS];   /* its share of the rows */
};

/* Bind p's device when ps binds (ps->bind); 1. */
static inline int west_part_bind(const struct west_parts *ps, const struct west_part *p)
{
	if (ps->bind && p->ops && p->ops->bind)
		p->ops->bind(p->dev);
	return 1;
}

/*
 * Cut g into n partitions, partition p computing with ops[p] (tables of
 * one backend: another is refused), with the multigrid hierarchy for eta when mg is set
 * (the potential solvers), by po (NULL: WEST_PARTS_MIN_ROWS and _CELLS).
 * Fails, saying why, when the grid has too few rows for n slabs.
 */
enum west_status west_parts_build(struct west_parts *ps, const struct west_grid *g,
				  int n, const struct west_kernel_ops *const *ops,
				  int mg, double eta, const struct west_parts_opts *po,
				  char *err, size_t errlen);
void west_parts_free(struct west_parts *ps);

/* Bytes a built set holds in its partitions' memory (the slabs' arrays
 * and fields, the hierarchy with the tail's; not the solve's station
 * arrays): all of them for WEST_PARTS_ALL, else those on device dev
 * (WEST_DEVICE_CPU: the CPU's beside GPUs). */
#define WEST_PARTS_ALL (-2)
size_t west_parts_bytes(const struct west_parts *ps, int dev);

/* A set of one over wk (not owned): the one-device solve. */
void west_parts_one(struct west_parts *ps, const struct west_kernel_ops *ops,
		    struct west_work *wk, double *sums);

/*
 * The stations of a solve into every partition: st and stab (host, ns),
 * pexp (host, 6), and room for the per-station arrays, in each
 * partition's memory.
 */
enum west_status west_parts_stations(struct west_parts *ps, size_t ns,
				     const struct west_kstation *st, const float *stab,
				     const float *pexp, char *err, size_t errlen);

/* The partitions' own rows of the field into the whole grid's faces u,
 * v, w and classes cls: host arrays (on CUDA copy2d takes them too, at
 * full speed when page-locked), or arrays in the partitions' memory
 * (copy2d; complete on return). */
enum west_status west_parts_field(struct west_parts *ps, float *u, float *v, float *w,
				  unsigned char *cls, char *err, size_t errlen);

/*
 * A backend's solve of obs (at least one station) with opts (eta may be
 * auto) in opts->partitions slabs, each on ops and the device of
 * opts->device: *set is built (and logged, with the bytes each device
 * holds) when there is none or it was cut for another count, other
 * devices or, with a hierarchy, another eta, and kept for the next solve;
 * f gets the report, valid time, power exponents and the field (its host
 * arrays, west_parts_field).
 */
enum west_status west_parts_solve(struct west_parts **set, const struct west_grid *g,
				  const struct west_kernel_ops *ops,
				  const struct west_obs_set *obs,
				  const struct west_solve_opts *opts, struct west_field *f,
				  west_progress_fn progress, void *ctx, char *err, size_t errlen);
/*
 * *set built for opts (eta auto taken as 1, neutral) as west_parts_solve
 * would build it, before any solve: a backend builds its planned slabs
 * when the terrain goes up, so that the first field costs what a steady
 * one does (a solve whose eta differs then rebuilds the hierarchy only,
 * where the level shapes stay the same).
 */
enum west_status west_parts_prepare(struct west_parts **set, const struct west_grid *g,
				    const struct west_kernel_ops *ops,
				    const struct west_solve_opts *opts, char *err,
				    size_t errlen);
/* Free *set (built by west_parts_solve) and make it NULL. */
void west_parts_drop(struct west_parts **set);

/* ---- the exchanges the solvers call (solvers.c); no-ops for one partition */

/* The first partition this process holds. */
struct west_part *west_parts_mine(struct west_parts *ps);
/* ps->sums (one per row of the whole grid; each process filled its own
 * partitions' rows) complete on every rank. */
enum west_status west_parts_share_rows(struct west_parts *ps);
/* norms[p] (max |D| and sum D^2 of partition p; each process filled its
 * own) complete on every rank. */
enum west_status west_parts_share_norms(struct west_parts *ps,
					double norms[WEST_MAX_PARTS][2]);

/* Level L's e of colour c on each halo row, from its owner. */
enum west_status west_parts_halo_e(struct west_parts *ps, int L, int c);
/*
 * The same in two halves, for an exchange overlapped with computation:
 * _post posts the messages between ranks and, on GPUs, queues the copies
 * between partitions on the side streams (ops->post), or else moves the
 * rows that stay in this process; the own rows they send must not change
 * and the halo rows they fill must not be read until _wait, which waits
 * for them (on GPUs: orders what follows after them).  After a failed
 * _post, _wait still ends what was posted.
 */
enum west_status west_parts_halo_post(struct west_parts *ps, int L, int c);
enum west_status west_parts_halo_wait(struct west_parts *ps);
/* 1 when the solvers overlap the halo exchange of a colour pass with the
 * pass (ps->overlap): the rows the neighbours take first, then _post, the
 * other rows, _wait.  Partitions on MPI ranks and on GPUs do; CPU
 * partitions of one process copy when asked, so they never overlap. */
int west_parts_overlaps(const struct west_parts *ps);
/* Velocity form, after the pass of colour c: the y-faces two partitions
 * share, each taken from the side whose cell the pass moved. */
enum west_status west_parts_merge_v(struct west_parts *ps, int c);
/* Level lp's b of the partitions' own rows into the tail's first level;
 * the tail's e back into level lp's own and halo rows. */
enum west_status west_parts_gather(struct west_parts *ps);
enum west_status west_parts_scatter(struct west_parts *ps);

#endif
