/*
 * kernels.h: every compute kernel, as a pair with one prototype: the plain-C
 * CPU reference `west_<op>_cpu` (kernels/<op>.c, OpenMP allowed) and the
 * CUDA launcher `west_<op>_cuda` (kernels/<op>.cu, built with --with-cuda).
 * The launcher takes device pointers (struct west_kgrid itself, the
 * station count and scalars stay in host memory), queues its kernels on the
 * calling thread's default stream (nvcc --default-stream per-thread: the
 * compute thread's stream is cudaStreamPerThread), checks the launch, and
 * returns without synchronizing; a failure is logged with the CUDA error
 * string and returned as WEST_ERR_CUDA.  The exceptions are the launchers
 * that return numbers in host memory and so wait for them:
 * west_divergence_norms_cuda, west_pot_rhs_cuda and west_pot_dot_cuda.
 * tests/test_backends.c compares each launcher with its reference element
 * by element, through the backends' kernel tables (src/model.h).
 *
 * Arithmetic: the CPU references are built with -ffp-contract=off and the
 * kernels with nvcc --fmad=false, so both round every operation in the
 * same order (IEEE-754 binary32, division correctly rounded); the only
 * differences left are sinf, cosf and the power law (powf on the CPU,
 * exp2f and log2f on the GPU: kernel_util.h), a few ulp.
 *
 * The WEST steps (docs/design.md section 3, docs/model.md) share two views:
 * struct west_kgrid, what a kernel needs of the grid (grid.h layouts; its
 * pointers are host memory for _cpu and device memory for _cuda), and
 * struct west_kstation, one observation reduced to what the kernels use
 * (positions relative to the grid's lower-left corner, so float keeps
 * centimetres).  Velocities are float32 m/s on the faces of the Arakawa-C
 * grid: u (nx+1)*ny*nz, v nx*(ny+1)*nz, w nx*ny*(nz+1).
 */
#ifndef WEST_KERNELS_H
#define WEST_KERNELS_H

#include <stddef.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * smoke: y[i] = fmaf(a, x[i], y[i]) for i < n (float32).  The build's and the
 * device's smoke test: the CUDA backend's probe runs it on a few elements
 * and refuses the device when the result differs from the reference.
 */
enum west_status west_smoke_cpu(size_t n, float a, const float *x, float *y);
__typeof__(west_smoke_cpu) west_smoke_cuda;

struct west_kgrid {
	size_t nx, ny, nz;
	float dx, dy;              /* m */
	const float *zc;           /* nz: level-centre heights above the base (m) */
	const float *rdz;          /* nz: 1 / thickness of level k (1/m) */
	const float *rdzf;         /* nz + 1: 1 / distance between the centres
				      either side of z-face k; the top face
				      counts a mirrored ghost cell (1/m) */
	const float *ground;       /* nx * ny: each column's ground height above
				      the base (m), j * nx + i */
	const unsigned char *land; /* nx * ny * nz, 1 = land */
	const float *tx, *ty, *tz; /* face transparencies in [0, 1] */
	size_t jg;                 /* the global row of row 0 (below) */
	size_t jlo, jhi;           /* rows at the bottom, at the top, that are
				      not the view's own (below) */
};

struct west_kstation {
	float x, y;        /* m east / north of the grid's lower-left corner */
	float height;      /* measurement height above the station's ground (m) */
	float speed;       /* m/s */
	float direction;   /* degrees from, clockwise from north */
	float mix;         /* height above ground (m) up to which the power law
			      carries the speed; above it the speed holds
			      (docs/model.md, step 2); >= height */
};

/*
 * Views of part of a grid (docs/design.md section 5: a partition is a
 * slab of whole rows, with halo rows).  A kgrid may be a view of rows
 * jg .. jg + ny - 1 of a larger grid, its arrays those rows' (the layouts
 * above with this ny).  jg enters positions only: step 1 takes each
 * column's centre, step 5 each face's centre, at the global row j + jg,
 * as the whole grid computes them for that row, so a view's columns and
 * faces get the whole grid's bits (but step 5's y-faces on a view's
 * first and last face rows, whose ground is the mean of a row the view
 * lacks: those take the edge rule, as at the grid's own edge).  Step 2
 * finds a station's column in cls from the station's y, so steps 1 and 2
 * take a view of the whole grid's columns (jg = 0): the driver runs them
 * on the whole 2D grid.  Everything else works in the view's own indices:
 * a cell's colour is (i + j + k) & 1 of its row j in the view, which is
 * the whole grid's colour when jg is even and the other one when jg is
 * odd (a driver passes colour ^ (jg & 1) to a colour pass then).
 *
 * jlo, jhi: the view's own rows are jlo <= j < ny - jhi (jlo + jhi <=
 * ny); the others are halo or padding rows, read and never updated.  The
 * sweep, the divergence norms and west_pot_rhs_cpu work on the own rows
 * only (the norms and b of their cells; a sweep moves the faces of its
 * own cells, so the y-faces between the own rows and the halo too);
 * every other kernel of a kgrid on every row (the potential kernels take
 * the own rows of their level: struct west_plevel below).  All three 0 (a
 * zero-initialized view) is the whole grid: the kernels as they were, bit
 * for bit.
 */

/* Red-black ordering of the sweep (docs/design.md section 3). */
enum west_kindexing { WEST_KINDEX_MASKED, WEST_KINDEX_COMPACT };

/*
 * 1. stability: cls[j*nx+i] = the stations' Pasquill-Gifford classes
 * (stab[s], 0..5 = A..F) weighted by inverse distance squared to the column
 * centre, rounded to the nearest class (halves to the more stable); a
 * station within 1 mm of the centre gives its own class.  ns >= 1.
 */
enum west_status west_stability_cpu(const struct west_kgrid *g, size_t ns,
				    const struct west_kstation *st,
				    const float *stab, unsigned char *cls);

/*
 * 2. extrapolate: pst[s] = pexp[class of station s's column], the
 * power-law exponent of its profile (pexp: 6 exponents, A..F; the column
 * class from step 1).  The profile itself, west_profile_factor
 * (kernel_util.h), is evaluated by step 5 at each face's own height above
 * its ground: S_s(h) = speed_s (min(max(h, WEST_H_MIN), mix_s) / height_s)^p.
 */
#define WEST_H_MIN 1.0f
enum west_status west_extrapolate_cpu(const struct west_kgrid *g, size_t ns,
				      const struct west_kstation *st,
				      const unsigned char *cls, const float *pexp,
				      float *pst);

/*
 * 3. initialize: us[s], vs[s] = -speed sin(dir), -speed cos(dir), station
 * s's components at its measurement height (dir in radians from the
 * station's degrees), and w = 0 on every z-face.
 */
enum west_status west_initialize_cpu(const struct west_kgrid *g, size_t ns,
				     const struct west_kstation *st,
				     float *us, float *vs, float *w);

/*
 * 4. land: land[c] = 1 when the land threshold of level k, zcalt[k] (an
 * altitude: the level's centre for staircase faces, a tenth of the level
 * below its top for cut cells; grid.h), is below the column's ground
 * altitude terrain_alt[j*nx+i].  (Altitudes in double: the grid builder's
 * exact rule.)
 */
enum west_status west_land_cpu(size_t nx, size_t ny, size_t nz,
			       const float *terrain_alt, const double *zcalt,
			       unsigned char *land);

/*
 * 5. interpolate: u on each x-face and v on each y-face is the
 * inverse-distance-squared mean, taken at the face centre, of the
 * stations' components carried by their profiles (step 2) to the face's
 * own height above ground gf, the mean ground of the one or two columns
 * the face borders: h = the middle of the part of level k above gf,
 * max(zc[k] - gf, (zf[k+1] - gf) / 2); sum_s w_s us[s] f_s(h) / sum_s w_s
 * (a station within 1 mm of the face centre gives its own value).
 */
enum west_status west_interpolate_cpu(const struct west_kgrid *g, size_t ns,
				      const struct west_kstation *st,
				      const float *pst, const float *us,
				      const float *vs, float *u, float *v);

/* 6. speed zero: every face's velocity times its transparency (g->tx,
 * ty, tz), so 0 on every face touching a land cell and w on the ground,
 * and on a cut face the flux per unit face area (docs/model.md). */
enum west_status west_speed_zero_cpu(const struct west_kgrid *g, float *u,
				     float *v, float *w);

/*
 * 7. transparency: tx, ty, tz from g's land mask (grid.h rules): 0 on a
 * face touching land and on the ground; on an open face 1, except with cut
 * (cut cells) on an open x- or y-face, where it is the fraction of the
 * level's height above the face's ground (the mean ground of the one or
 * two columns the face borders, g->ground), at most 1.  z-faces are 0 or
 * 1.  g's tx, ty, tz are not read.
 */
enum west_status west_transparency_cpu(const struct west_kgrid *g, int cut,
				       float *tx, float *ty, float *tz);

/*
 * 8. divergence minimization, one colour pass of the velocity-form
 * red-black SOR: every cell of g's own rows with (i + j + k) & 1 ==
 * colour and S > 0 moves its six faces so that its divergence becomes
 * (1 - omega) D.  masked and compact visit the same cells with the same
 * arithmetic (bit-identical).
 */
enum west_status west_divmin_sweep_cpu(const struct west_kgrid *g, float omega,
				       float eta, int colour,
				       enum west_kindexing indexing,
				       float *u, float *v, float *w);

/*
 * Divergence norms over the fluid cells of g's own rows: norms[0] =
 * max |D| (1/s), norms[1] = sum of D^2; each cell's D as the sweep
 * computes it (float), accumulated in double.  (The convergence check of
 * step 8 and the diagnostics.)
 */
enum west_status west_divergence_norms_cpu(const struct west_kgrid *g,
					   const float *u, const float *v,
					   const float *w, double *norms);

/*
 * 9. divergence removal: in every column, w is integrated upward from the
 * ground (w = 0 there) so that each fluid cell's divergence is zero:
 * w_top = w_bottom - dz (du/dx + dv/dy); faces touching land stay 0.
 */
enum west_status west_divremoval_cpu(const struct west_kgrid *g,
				     const float *u, const float *v, float *w);

/*
 * 8, potential form (docs/design.md section 3, docs/model.md): the correction
 * e of the velocity potential solves A e = b on the cells, where
 *   (A e)_c = sum_f G_f (e_c - e_nb(f))    over the six faces f of cell c,
 * G_f the face's conductance (m: open area over the distance between the
 * centres either side; eta times that on z-faces; 0 on closed faces), a
 * neighbour beyond an open boundary (sides, top) counts as e = 0, and
 * b = V_c D_c (m^3/s: the cell's volume times its divergence).  Then
 * u += T grad e makes b - A e the new V D: the iteration of the velocity
 * form, in fewer bytes.
 *
 * A level of the multigrid hierarchy stores its cells per colour
 * (colour (i + j + k) & 1): the cells of colour c are slots
 * c * ncol + (i >> 1) + hx * (j + ny * k), hx = (nx + 1) / 2, so a colour
 * pass reads and writes its own colour contiguously and its neighbours
 * (the other colour) from contiguous rows.  Slots with no cell (the last
 * of a row of odd length) hold zero.  Level 0, the model grid, keeps a
 * one-byte code per cell (bit f set when face f is open: transparency > 0;
 * bit WEST_PF_CUT set when a side face is open by a fraction, a cut cell)
 * and the conductance of a wholly open face by level k (kf[6 k + f]); a
 * cut cell's side faces take kf times their transparency, read from the
 * grid's tx and ty (the CPU's vector kernels read them from the cut
 * table, cutrow and tcut below, where they lie in the order the passes
 * take them).  Coarser levels keep six conductances per cell
 * (g[f * 2 ncol + slot]).
 */
enum { WEST_PF_W, WEST_PF_E, WEST_PF_S, WEST_PF_N, WEST_PF_B, WEST_PF_T, WEST_PF_CUT };

struct west_plevel {
	size_t nx, ny, nz;          /* cells */
	size_t hx, ncol;            /* (nx + 1) / 2; hx * ny * nz slots per colour */
	unsigned fx, fy, fz;        /* cells per coarse cell of the next level
				       along x, y, z (1 or 2; 0 on the last) */
	const unsigned char *code;  /* level 0: 2 * ncol open-face bits; else NULL */
	const float *kf;            /* level 0: 6 * nz open-face conductances (m) */
	const float *vol;           /* level 0: nz cell volumes (m^3) */
	const float *tx, *ty;       /* level 0: the grid's x- and y-face
				       transparencies (grid.h layouts), read
				       for cut cells; not in the block */
	/* level 0 on the CPU, or NULL (west_mg_cuts_cpu, multigrid.h's
	 * west_mg_cuts_on; not in the block): each row's first cut cell
	 * (row = slot / hx), and the side faces' transparencies of the cut
	 * cells in slot order, face f (W, E, S, N) of cut cell n at
	 * tcut[f * cutstride + n] */
	const size_t *cutrow;
	const float *tcut;
	size_t cutstride;
	const float *g;             /* coarser levels: 6 * 2 * ncol conductances (m) */
	float *e, *b;               /* 2 * ncol: correction (m^2/s), right-hand side */
	size_t jlo, jhi;            /* rows at the bottom, at the top, that are
				       not the level's own (below) */
};

/*
 * A level of a view (a partition's multigrid level; views: above enum
 * west_kindexing) has own rows jlo <= j < ny - jhi, as its kgrid's: the
 * colour pass and the operator update their cells only (e, y elsewhere
 * untouched), the restriction the coarse level's own rows (each from its
 * fine rows, as ever), the dot product sums them; the other potential
 * kernels work on every row.  0 and 0: every row, as before.
 */

/* b = vol D(u) on level 0's open cells (code != 0), 0 elsewhere, and in
 * the same pass the divergence norms of u as west_divergence_norms_cpu
 * gives them (norms: host memory; the CUDA launcher waits for them); on
 * g's own rows (b of the other rows untouched). */
enum west_status west_pot_rhs_cpu(const struct west_kgrid *g,
				  const struct west_plevel *l0, const float *u,
				  const float *v, const float *w, double *norms);

/* u += alpha T grad x on every face (x a level-0 vector, 0 beyond open
 * boundaries; closed faces stay): x-face U += alpha rdx (x_c - x_west),
 * z-face W += alpha eta rdzf (x_c - x_below). */
enum west_status west_pot_apply_cpu(const struct west_kgrid *g,
				    const struct west_plevel *l0, float eta,
				    float alpha, const float *x, float *u,
				    float *v, float *w);

/* One colour pass of SOR on A e = b: every open cell of the colour in
 * l's own rows gets e += omega (b - A e) / diag. */
enum west_status west_pot_smooth_cpu(const struct west_plevel *l, float omega,
				     int colour);

/* e = 0 (every slot of both colours, every row), then one colour pass as
 * west_pot_smooth_cpu's: the bits of west_pot_zero_cpu(2 ncol, e) and that
 * pass, without reading e (the first pass of a V-cycle's level). */
enum west_status west_pot_smooth0_cpu(const struct west_plevel *l, float omega,
				      int colour);

/* The coarse level's b: the sum of the fine residuals b - A e over the
 * fine cells of each coarse cell (fine's fx, fy, fz), on the coarse
 * level's own rows. */
enum west_status west_pot_restrict_cpu(const struct west_plevel *fine,
				       const struct west_plevel *coarse);

/* fine e += the coarse e of the cell holding it, on open fine cells. */
enum west_status west_pot_prolong_cpu(const struct west_plevel *coarse,
				      const struct west_plevel *fine);

/* The coarsest level's solve: e = 0, then `sweeps` red-black iterations
 * (red, black) and `sweeps` back (black, red), omega 1: a fixed symmetric
 * operator (the GPU runs it in one block). */
enum west_status west_pot_coarse_cpu(const struct west_plevel *l, int sweeps);

/* y = A x on level l's own rows (x, y: 2 * ncol; y of the other rows
 * untouched). */
enum west_status west_pot_matvec_cpu(const struct west_plevel *l, const float *x,
				     float *y);

/*
 * The row sums of x . y on level l's layout (docs/design.md section 5,
 * "Reductions in a fixed order"): sums[j - l->jlo], for each own row j
 * (host memory, ny - jlo - jhi doubles), is the sum in double of
 * (double)x[s] * (double)y[s], s = c ncol + t + hx (j + ny k), over c = 0,
 * 1, then k = 0 .. nz - 1, then t = 0 .. hx - 1 (padding slots included),
 * added one at a time in that order: the same bits on any number of
 * threads.  A caller adds the rows in ascending j.  (The GPU sums each
 * row in another order: agrees to rounding.)
 */
enum west_status west_pot_dot_cpu(const struct west_plevel *l, const float *x,
				  const float *y, double *sums);

/* y = x + beta y for i < n. */
enum west_status west_pot_xpby_cpu(size_t n, const float *x, float beta, float *y);

/* y = y + alpha x for i < n. */
enum west_status west_pot_axpy_cpu(size_t n, float alpha, const float *x, float *y);

/*
 * The conjugate gradients' residual step on level 0's own rows: b -= alpha
 * q on the open cells (code != 0; b elsewhere untouched), and *max = the
 * largest |b / vol_k| over them: the largest |D| of the field that b is
 * the right-hand side of (west_pot_rhs_cpu: b = vol D), once the potential
 * that took alpha q off b is applied.  A maximum: the same bits in any
 * order (a NaN may be passed over; the caller's true check sees it).
 */
enum west_status west_pot_resid_cpu(const struct west_plevel *l0, float alpha,
				    const float *q, double *max);

/* x = 0 for i < n. */
enum west_status west_pot_zero_cpu(size_t n, float *x);

/*
 * Building the hierarchy (src/multigrid.c, multigrid.h's rules): the
 * geometry of a level (zf: its nz + 1 face heights above the base, m, in
 * the backend's memory), level 0's face codes from the grid's
 * transparencies, and a coarse level's six conductances per cell summed
 * from the fine level's open areas (in double, stored as float).
 */
struct west_mgeom {
	size_t nx, ny, nz;
	double dx, dy;     /* m */
	const double *zf;
	/* bound[f], f = W, E, S, N, T: from the centre of a cell on that open
	 * boundary across it to where e = 0, the ghost centre of level 0 (half
	 * a level-0 cell beyond the face: half this level's boundary cell plus
	 * half level 0's); bit f of edges set when the level's first (W, S) or
	 * last (E, N, T) cell along f lies on the model grid's boundary (not
	 * so on a slab's halo side: there the next centre as inside) */
	double bound[6];
	unsigned edges;
};

/* code of every cell of level l0 (l0's other arrays untouched) from g's
 * tx, ty, tz: bit f when face f is open, WEST_PF_CUT when a side face is
 * open by a fraction. */
enum west_status west_mg_codes_cpu(const struct west_kgrid *g, const struct west_plevel *l0);

/*
 * Level 0's cut table (struct west_plevel's cutrow, tcut; its cut cells:
 * code bit WEST_PF_CUT).  With tcut NULL, cutrow[r] = the cut cells of the
 * rows before row r (r = slot / hx, the rows of colour 0 then 1, each k
 * then j), r = 0 .. 2 ny nz (the last: all of them); then with tcut
 * (stride at least that), the W, E, S and N faces' transparencies (tx,
 * ty) of each cut cell in slot order, face f's of cut cell n at
 * tcut[f * stride + n].  The CPU's only: its vector kernels read a cut
 * cell's faces from there, in the order they pass them.
 */
enum west_status west_mg_cuts_cpu(const struct west_plevel *l0, size_t *cutrow,
				  float *tcut, size_t stride);

/* The conductances g of every cell of level cl (geometry ac) from the
 * level below, fl (geometry af, its fx, fy, fz). */
enum west_status west_mg_coarse_cpu(const struct west_plevel *fl, const struct west_mgeom *af,
				    const struct west_plevel *cl, const struct west_mgeom *ac);

/*
 * Release plumes (src/plume.h; docs/model.md, "Release plumes").
 *
 * struct west_kwind: what the wind at a point needs of a solved field
 * (grid.h layouts; zf in double, the grid's own): the faces' fluxes u, v,
 * w and their transparencies.  kernels/wind_util.h blends them as the
 * point query does (src/query.c calls the same bodies).
 */
struct west_kwind {
	size_t nx, ny, nz;
	double dx, dy;             /* m */
	const double *zf;          /* nz + 1 face heights above the base (m) */
	const float *u, *v, *w;    /* face fluxes per unit area (m/s) */
	const float *tx, *ty, *tz; /* face transparencies */
};

/* One column's surface layer (docs/model.md, "Release plumes"); its
 * mixing height is struct west_kplume's hmix. */
struct west_kturb {
	float ustar;   /* friction velocity (m/s), > 0 */
	float wstar;   /* convective velocity scale (m/s); 0 unless unstable */
	float inv_l;   /* 1 / Monin-Obukhov length (1/m): < 0 unstable */
};

/*
 * Everything plume_advance reads (pointers in the backend's memory).
 * Positions are grid-local (m east and north of the grid's outer corner)
 * and altitudes (m above sea level, as the grid's terrain); the ground
 * under a point is the terrain bilinear between column centres
 * (grid.h's west_grid_ground_at), and the mixing height above it is
 * hmix's, bilinear in the same way.  zlow[c] is column c's lowest resolved level
 * (west_grid_lowest_level: height above the base, < 0 for a column that
 * is land to the top), cls[c] its class (0..5 = A..F) and pexp[class]
 * the power-law exponents the field was solved with (field.h): the wind
 * below zlow is carried down by them, as the point query does.
 *
 * Particle p is released at time p * duration / np at (x, y) and height
 * `height` above the ground there (with uniform_z, at (p + 0.5) / np of
 * the mixing height there instead).  Homogeneous turbulence (tests and
 * validation): when tl > 0 every column and height has the standard
 * deviations sigma[0..2] (m/s) and the Lagrangian time scale tl (s) on
 * every component, with no gradients (turb is then not read).
 */
struct west_kplume {
	struct west_kwind wind;
	double base;                    /* altitude of z-face 0 (m) */
	double top;                     /* altitude of the top face (m) */
	double dzmin;                   /* the thinnest level (m) */
	const float *terrain;           /* nx * ny ground altitudes (m) */
	const double *zlow;             /* nx * ny, above */
	const unsigned char *cls;       /* nx * ny, above */
	const struct west_kturb *turb;  /* nx * ny */
	const float *hmix;              /* nx * ny mixing heights (m above the
					   ground), >= WEST_PLUME_HMIN */
	float pexp[6];
	double sigma[3], tl;            /* homogeneous turbulence when tl > 0 */
	size_t np;                      /* particles */
	unsigned long long seed;
	double x, y, height;            /* release point (grid-local m) and height (m) */
	double duration;                /* s, > 0 */
	int uniform_z;
	double layer;                   /* depth of the sampled layer (m) */
};

/*
 * The particles and the accumulators (backend memory).  state[p]: 0 not
 * released yet, 1 in the domain, 2 left it (sides, top, or a column that
 * is land to the top); t[p] the time (s after the start) it has reached;
 * n[p] the random draws made for it (the generator's counter).  conc[c]
 * adds up the time particles spent in column c's layer (in ticks of
 * 2^-20 s: integer sums, the same in any order), arrival[c] the earliest
 * tick one was there (~0 for none yet); sums, when asked, the particles
 * in the domain at t_end: their x, y and height above ground (in units of
 * 2^-12 m) and their count.  A zeroed particle block is the start.
 */
struct west_kparticles {
	double *x, *y, *z;              /* grid-local (m), altitude (m) */
	double *up, *vp, *wp;           /* turbulent velocity over its standard
					   deviation there (dimensionless) */
	double *t;
	unsigned *n;
	unsigned char *state;
	unsigned long long *conc, *arrival;   /* nx * ny */
	unsigned long long *sums;             /* 4 */
	/*
	 * The order the GPU takes the particles in (plume.cu), all NULL on
	 * the CPU: with `ordered`, thread t takes particle order[t], else
	 * particle t.  Each launch sorts the particles by the steps they took
	 * in it, most first, into order for the next: the steps a particle
	 * takes to a launch's end range from one high up to hundreds near the
	 * ground, and a warp takes as long as its slowest particle.  steps[p]
	 * and ids[p] = p (written by the first launch) are the sort's input
	 * (it leaves them as they are), keys its sorted keys (unused),
	 * scratch (scratch_bytes, west_plume_order_bytes_cuda) its memory.
	 * The particles' own data stay in place: nothing they compute
	 * depends on the order.
	 */
	unsigned *order, *ids;
	unsigned char *steps, *keys;
	void *scratch;
	size_t scratch_bytes;
	int ordered;
};
#define WEST_PLUME_TICK 1048576.0      /* ticks per second */
#define WEST_PLUME_HMIN 20.0           /* the least mixing height (m) */
#define WEST_PLUME_POS 4096.0          /* centroid sums' units per metre */

/*
 * plume_advance: one launch.  Every particle released before t_end
 * whose time is before t_end is advanced until its time reaches t_end (s
 * after the start), its last step ending at t_cut (>= t_end) at the
 * latest: released when its time comes, moved with the mean wind plus a
 * Langevin turbulent velocity in adaptive steps, reflected at the ground
 * and the mixing height, marked when it leaves, its time in the layer
 * added to conc and arrival.  A step is cut only at t_cut (the driver's
 * next path point), never at t_end, so the particles do not depend on
 * how the time to t_cut is split into launches (tests/test_plume.c,
 * chunks_change_nothing).  With centroid (t_cut == t_end), sums (zeroed
 * by the caller) gets the particles in the domain at t_end.
 * The per-particle body is west_plume_particle (kernels/plume_util.h):
 * docs/model.md gives the physics.  Particles are independent and the
 * accumulators integer, so the result does not depend on the order.
 */
enum west_status west_plume_advance_cpu(const struct west_kplume *k,
					const struct west_kparticles *s, double t_end,
					double t_cut, int centroid);
/* The same on vectors of doubles, a particle a lane (plume_simd.c): AVX2,
 * or the *_simd512 (AVX-512) where the processor has it and
 * west_pot_simd_width's last call did not say 256; the reference where
 * the build has no libmvec or the processor no AVX2.  The same particles
 * to the last bits of the vector library's log, sin, cos, exp, expm1, pow
 * and cbrt. */
__typeof__(west_plume_advance_cpu) west_plume_advance_simd, west_plume_advance_simd512;

/* Vectorized versions of the colour pass (and the first from e = 0), the
 * operator, the restriction, the prolongation, the field update and the
 * right-hand side (potential_simd.c), the CPU backend's: the same results
 * bit for bit but the right-hand side's sum of D^2, which OpenMP adds up
 * in its own order as the reference's (to rounding).  *_simd: AVX2, or
 * the *_simd512 (AVX-512) where the processor has it and
 * west_pot_simd_width's last call did not say 256 (the default: 512). */
__typeof__(west_pot_smooth_cpu) west_pot_smooth_simd, west_pot_smooth_simd512;
__typeof__(west_pot_smooth0_cpu) west_pot_smooth0_simd, west_pot_smooth0_simd512;
__typeof__(west_pot_restrict_cpu) west_pot_restrict_simd, west_pot_restrict_simd512;
__typeof__(west_pot_prolong_cpu) west_pot_prolong_simd, west_pot_prolong_simd512;
__typeof__(west_pot_matvec_cpu) west_pot_matvec_simd, west_pot_matvec_simd512;
__typeof__(west_pot_apply_cpu) west_pot_apply_simd, west_pot_apply_simd512;
__typeof__(west_pot_rhs_cpu) west_pot_rhs_simd, west_pot_rhs_simd512;
void west_pot_simd_width(int bits);
int west_pot_simd_bits(void);   /* the last width set (512 unless told) */

/* The largest ny and nz the CUDA launch shapes cover (cuda_launch.cuh). */
#define WEST_CUDA_MAX_NY (65535 * 4 - 1)
#define WEST_CUDA_MAX_NZ 65534

/*
 * The CUDA launchers, one per reference above, with its prototype by
 * construction (device pointers; norms and sums are host memory, written
 * after the device reduction finishes).
 */
__typeof__(west_stability_cpu) west_stability_cuda;
__typeof__(west_extrapolate_cpu) west_extrapolate_cuda;
__typeof__(west_initialize_cpu) west_initialize_cuda;
__typeof__(west_land_cpu) west_land_cuda;
__typeof__(west_interpolate_cpu) west_interpolate_cuda;
__typeof__(west_speed_zero_cpu) west_speed_zero_cuda;
__typeof__(west_transparency_cpu) west_transparency_cuda;
__typeof__(west_divmin_sweep_cpu) west_divmin_sweep_cuda;
__typeof__(west_divergence_norms_cpu) west_divergence_norms_cuda;
__typeof__(west_divremoval_cpu) west_divremoval_cuda;
__typeof__(west_pot_rhs_cpu) west_pot_rhs_cuda;
__typeof__(west_pot_apply_cpu) west_pot_apply_cuda;
__typeof__(west_pot_smooth_cpu) west_pot_smooth_cuda;
__typeof__(west_pot_smooth0_cpu) west_pot_smooth0_cuda;
__typeof__(west_pot_restrict_cpu) west_pot_restrict_cuda;
__typeof__(west_pot_prolong_cpu) west_pot_prolong_cuda;
__typeof__(west_pot_coarse_cpu) west_pot_coarse_cuda;
__typeof__(west_pot_matvec_cpu) west_pot_matvec_cuda;
__typeof__(west_pot_dot_cpu) west_pot_dot_cuda;
/* The same without waiting: into page-locked sums, complete once the
 * calling thread's stream is (the partitions of several GPUs queue theirs
 * and then wait for each: solvers.c). */
__typeof__(west_pot_dot_cpu) west_pot_dot_queued_cuda;
__typeof__(west_pot_xpby_cpu) west_pot_xpby_cuda;
__typeof__(west_pot_axpy_cpu) west_pot_axpy_cuda;
__typeof__(west_pot_resid_cpu) west_pot_resid_cuda;
__typeof__(west_pot_zero_cpu) west_pot_zero_cuda;
__typeof__(west_mg_codes_cpu) west_mg_codes_cuda;
__typeof__(west_mg_coarse_cpu) west_mg_coarse_cuda;
__typeof__(west_plume_advance_cpu) west_plume_advance_cuda;
/* The sort's scratch bytes for np particles (struct west_kparticles). */
size_t west_plume_order_bytes_cuda(size_t np);
/* 1: the potential launchers use their 64-bit kernels on every level;
 * 0 (the default): 32-bit ones where every index fits (kernels/potential.cu,
 * kernels/potential32.cu; the fields are the same bit for bit).  Set by the
 * CUDA backend from WEST_CUDA_INDEX64, and by the tests. */
void west_pot_cuda_wide(int on);

#ifdef __cplusplus
}
#endif

#endif
