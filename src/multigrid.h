/*
 * multigrid.h: the hierarchy of the potential-form solvers (kernels.h,
 * struct west_plevel; docs/model.md, "Solvers").
 *
 * Level 0 is the model grid.  Each coarser level merges 2 cells along the
 * directions whose coupling is within a factor of about 2 of the strongest
 * one and keeps the others (semi-coarsening: the grids become isotropic
 * before they coarsen everywhere, so a point smoother stays a smoother):
 * with h_x = dx, h_y = dy, h_z = the thinnest level / sqrt(eta), and only
 * the directions with at least 2 cells taking part, direction d is
 * coarsened when h_d <= WEST_MG_ANISO * min h.  The last coarse cell of a
 * direction with an odd count takes one fine cell.  Coarsening stops at
 * WEST_MG_COARSEST_CELLS cells, WEST_MG_MAX_LEVELS levels, or when no
 * direction has 2 cells.
 *
 * Terrain on coarse levels: a coarse face's open area is the sum of the
 * open areas of the fine faces it covers (area times transparency), and
 * its conductance is that area over the distance between the coarse
 * centres either side, times eta on z-faces.  Across an open boundary the
 * distance runs to where level 0 takes e = 0, its ghost centre half a
 * level-0 cell beyond the face (half the coarse boundary cell plus half
 * level 0's), so every level solves for the same boundary; a ghost one
 * coarse cell out, as until December 2026, moved it out level by level
 * and cost the V-cycle most of its contraction.  A coarse
 * cell all of whose fine cells are land has only closed faces and drops
 * out.  The open areas are exact sums, so a coarse level sees every
 * channel through the terrain that its fine level sees.
 *
 * All arrays of a hierarchy live in one block of memory (`base`, `bytes`),
 * so a backend copies it to its device with one copy and rebases the
 * pointers (west_mg_rebase); but for level 0's cut table, which only the
 * CPU's vector kernels read, in a block of its own (`cut`).
 */
#ifndef WEST_MULTIGRID_H
#define WEST_MULTIGRID_H

#include <stddef.h>

#include "grid.h"
#include "kernels.h"
#include "status.h"

#define WEST_MG_MAX_LEVELS 24
#define WEST_MG_COARSEST_CELLS 64
#define WEST_MG_ANISO 1.5

struct west_mg {
	int nlevels;
	struct west_plevel lv[WEST_MG_MAX_LEVELS];
	float *p, *q;          /* conjugate gradients: 2 * lv[0].ncol each */
	float *x;              /* the same: the potential summed since it was
				  last applied to the field (solvers.c) */
	int coarse_sweeps;     /* the coarsest level's west_pot_coarse count */
	double eta;            /* the eta its z conductances were built with */
	void *base;            /* the block holding every array */
	size_t bytes;
	void *cut;             /* level 0's cut table (west_mg_cuts_on), or NULL */
	size_t cut_bytes;
};

/*
 * Build the hierarchy of grid g for eta in host memory.  Level 0's tx and
 * ty point at g's transparencies (cut cells read them), so g must outlive
 * it.
 */
enum west_status west_mg_build(struct west_mg *mg, const struct west_grid *g,
			       double eta, char *err, size_t errlen);

struct west_kernel_ops;

/*
 * The same in the memory of kernel table ops (model.h): the level shapes
 * on the host, the block by ops->alloc (free it with ops->free), zeroed,
 * level 0's kf and vol uploaded, and the rest computed there by
 * ops->mg_codes and ops->mg_coarse from kg's transparencies (kg: g's
 * kernel view with its arrays in that memory; level 0's tx and ty point
 * at kg's).  The result is west_mg_build's byte for byte.  Level 0's cut
 * table too, where ops has one (west_mg_cuts_on).
 */
enum west_status west_mg_build_on(const struct west_kernel_ops *ops, struct west_mg *mg,
				  const struct west_grid *g, const struct west_kgrid *kg,
				  double eta, char *err, size_t errlen);

/*
 * Level 0's cut table (kernels.h, west_mg_cuts_cpu) in a block of ops's
 * memory of its own (mg->cut; level 0's cutrow and tcut into it), where
 * ops has mg_cuts (the CPU, whose vector kernels read it); nothing
 * elsewhere.  Level 0's codes, tx and ty must be in place, and mg have no
 * table yet.  Free it with ops->free, or west_mg_free with the host's
 * hierarchy.
 */
enum west_status west_mg_cuts_on(const struct west_kernel_ops *ops, struct west_mg *mg,
				 char *err, size_t errlen);

/* The shapes of g's hierarchy for eta (levels' nx, ny, nz, fx, fy, fz,
 * ncol), no arrays: what partitions are cut by (parts.h). */
enum west_status west_mg_plan(struct west_mg *plan, const struct west_grid *g, double eta,
			      char *err, size_t errlen);

/*
 * A partition's hierarchy (parts.h): g is the partition's slab, a grid of
 * its own rows, halo and padding rows, placed so that each of the first
 * nlev - 1 coarsenings pairs the slab's rows as the whole grid's
 * hierarchy pairs them; plan is that whole hierarchy (its shapes, one
 * built for the whole grid and this eta), whose factors the first nlev
 * levels take instead of the coarsening rule; kg->jg, the slab's first
 * global row, tells whether it lies on the south and north boundaries.
 * Otherwise as west_mg_build_on; the levels' jlo and jhi are the caller's
 * to set.
 */
enum west_status west_mg_build_part(const struct west_kernel_ops *ops, struct west_mg *mg,
				    const struct west_grid *g, const struct west_kgrid *kg,
				    double eta, const struct west_mg *plan, int nlev,
				    char *err, size_t errlen);

/* Puts the conductances of a tail's first level into l->g (the backend's
 * memory) before the coarser levels are summed from them. */
typedef enum west_status (*west_mg_first_fn)(void *ctx, const struct west_plevel *l,
					     char *err, size_t errlen);

/*
 * The levels `from` (>= 1) onward of the whole grid g's hierarchy for eta,
 * whole, in the memory of ops: the partitions' levels below `from` are
 * cut into slabs, and this tail is where they gather (parts.h).  Its
 * first level is a coarse one; first fills its conductances (from the
 * partitions' own rows) and the rest are summed from them as
 * west_mg_build_on sums them, so the tail's levels are the whole
 * hierarchy's levels from `from` byte for byte.
 */
enum west_status west_mg_build_tail(const struct west_kernel_ops *ops, struct west_mg *mg,
				    const struct west_grid *g, double eta, int from,
				    west_mg_first_fn first, void *ctx, char *err, size_t errlen);

/* out = host's hierarchy with its pointers moved into the block at base
 * (a copy of host->base's bytes, e.g. in device memory).  Level 0's tx and
 * ty are not in the block: the caller points them at its copy of the
 * grid's transparencies; nor is the cut table, which out has not (build
 * it there with west_mg_cuts_on). */
void west_mg_rebase(struct west_mg *out, const struct west_mg *host, void *base);

/* Free a host hierarchy (its block and cut table) and zero it. */
void west_mg_free(struct west_mg *mg);

/* One line describing the levels ("800x800x20 400x400x20 ..."). */
void west_mg_describe(const struct west_mg *mg, char *buf, size_t len);

#endif
