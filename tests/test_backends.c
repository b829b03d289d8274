/*
 * test_backends.c: every kernel of every built backend against the CPU
 * reference, in the manner of ggml's test-backend-ops.  A backend's kernel
 * table (struct west_kernel_ops, src/model.h: west_backend_find(name)->
 * kernels) runs each kernel on the backend's own memory, reached through
 * the table's memory operations alone (no CUDA runtime call here), and its
 * outputs are compared element by element with the west_<op>_cpu
 * reference (kernels/kernels.h) called directly on host copies of the same
 * inputs.  Each Criterion test is <backend>::<case>.
 *
 * Backends: BACKENDS below, by registry name (src/backend.c).  cpu is
 * mostly the reference itself: its cases compare its table with direct
 * calls of the same functions, trivially equal, but for the vectorized
 * colour pass, operator and restriction (kernels/potential_simd.c) and the
 * plume's particles (kernels/plume_simd.c), a real comparison; and they
 * run this harness (allocation, poisoning, copies, comparisons) in every
 * build, so a fault in it shows without a GPU.  Every other backend is a
 * real comparison; one that is not built or not usable here skips each
 * case with the reason
 * ("cuda backend test skipped: no CUDA device: ...").
 *
 * Cases: KERNEL_CASES below, one per kernel slot of the table (the sweep
 * twice, xpby and zero together), one more (<name>_views) for each kernel
 * that honours a view's own rows, and one for the memory operations.  Each
 * runs on the three hills of backend_fixture.h (37 x 29 columns of 40 m
 * with a 90 m Gaussian hill and land: 11 levels of 15 m with cut cells, 10
 * stretched levels with cut cells, 11 levels of 15 m with staircase faces)
 * and 5 stations of mixed classes, one exactly on the centre of an x-face
 * and one exactly on a column centre (the IDW "at" branch).
 *
 * Inputs, steps: each step's inputs are the CPU's outputs of the step
 * before (uploaded), so every step is checked on its own.  Every output
 * buffer is filled with 0xFF bytes before the kernel runs (NaN as a float,
 * 255 as a byte), so an element the kernel does not write fails; in-place
 * kernels get the same input on both sides.  Two inputs are made here:
 * speed zero gets a w without zeros (the initialized w is all 0 and would
 * hide an unzeroed face), and divergence removal (from the CPU's field
 * after 25 iterations) gets a w that is NaN on every face it computes and
 * 0 on the faces touching land or the ground, which must stay 0.
 *
 * Inputs, potential kernels: each hill's hierarchy is built on the host
 * (west_mg_build; eta 0.7 on the cut-cell hills, 5 on the staircase one,
 * which coarsens another way); every e and b of every level, and the
 * conjugate-gradient vectors p, q and x, get deterministic pseudo-random
 * values on the cells (0 on the slots without a cell), and the whole block
 * goes to the backend in one upload (west_mg_rebase points a second struct
 * west_mg into it).  Each kernel runs on the backend's copy and its
 * reference on the host's, and the whole block comes back and must equal
 * the host's byte for byte: the outputs, and every array the operation
 * must not touch.  Within a case the operations are chained (each starts
 * from the state the last one left, equal on both sides), and a mismatch
 * names the array and element.
 *
 * Bounds, |cpu - backend| <= atol + rtol |cpu|.  The CPU references are
 * built with -ffp-contract=off and the CUDA kernels with --fmad=false, and
 * both evaluate the per-element bodies of kernel_util.h and
 * potential_util.h: every operation is IEEE binary32 round-to-nearest,
 * division correctly rounded, in the same order on both sides, and no two
 * cells of one colour share a face, so the order of the cells within a
 * pass does not matter (kernels.h).  What is left: sinf, cosf and the
 * power law (powf on the CPU, exp2f and log2f on the GPU; a few ulp), and
 * sums of many terms in another order.
 *  - stability, land, transparency, speed zero: exact.  Classes and masks
 *    are integers from identical arithmetic (land from zcalt in double by
 *    grid.c's west_grid_land_altitudes; on the cut-cell hills the
 *    thresholds of cut faces, and equal to the grid's own mask and
 *    transparencies as well; the cut faces' fractions are the same float
 *    arithmetic); speed zero multiplies each face by its transparency.
 *  - extrapolate: exact.  pst[s] = pexp[class]: a table look-up.
 *  - initialize: station components within rtol 1e-5, atol 1e-6 m/s (one
 *    ulp of an 8 m/s speed: a component near 0, wind from 180 or 270
 *    degrees, has no relative accuracy to speak of), because of sinf and
 *    cosf; w exactly 0.
 *  - interpolate: the same bound, because of the power law (the station
 *    profiles).
 *  - divergence norms: max |D| exact (each D in float in the same order,
 *    |D| exact); the sum of D^2 within 2 n 2^-53 of it (n cells): each D^2
 *    of a float D is exact in double, only the order of the n additions
 *    differs, and recursive summation of n non-negative terms is within
 *    (n - 1) 2^-53 of the sum in any order.  On the step 6 field and after
 *    25 iterations.
 *  - divergence removal: rtol 1e-5, atol nz * 1e-6 m/s: w is integrated up
 *    the column, and a kernel that sums in another order (a scan) may round
 *    each of the nz additions differently, by up to an ulp of a partial
 *    sum (< 1e-6 m/s below 8 m/s).
 *  - the red-black sweep: bit for bit after 25 iterations, masked and
 *    compact, omega 1.25 eta 1 and omega 1.78 eta 0.5; masked and compact
 *    must also agree bit for bit on the backend.
 *  - pot_smooth (levels 0, 1 and the coarsest, both colours, omega 1 and
 *    1.6), pot_smooth0 (the same, against the reference's pot_zero and
 *    pot_smooth, every slot of e non-zero before), pot_restrict (every level to the next), pot_prolong (every level
 *    back), pot_coarse (the coarsest level with the hierarchy's sweeps, and
 *    level 1, more slots than the GPU's one block has threads, with 3),
 *    pot_matvec (p to q on level 0, e to b on the others), pot_apply (the
 *    faces, and the block untouched), pot_xpby, pot_zero, pot_axpy and
 *    pot_resid (its largest |D| too, exactly: a maximum): the block bit
 *    for bit.
 *  - pot_rhs: the block bit for bit; its norms as the divergence norms'
 *    (max exact, the sum within 1e-12, well above 2 n 2^-53 at n ~ 10^4);
 *    and against the norms kernel's on the same backend, max exact and
 *    the sum within 2 n 2^-53 as above.  (The CUDA kernels reduce both in
 *    one fixed order and agree exactly; the CPU's OpenMP loops split the
 *    two sums among their threads differently: on 16 threads the sums
 *    differed in the last bits.)
 *  - pot_dot: each row's sum within 1e-12 of that row's sum |x_i y_i|
 *    (and pot_dot_queued, where there is one, pot_dot's bits),
 *    and the rows' totals within 1e-12 of the whole sum |x y|.  A row is
 *    summed in double in another order: each product of two floats is
 *    exact in double and each addition is off by at most 2^-53 of a partial
 *    sum, so n terms in any order stay within n 2^-53 sum |x y| (1.2e-10 at
 *    2^20 terms); the errors of random sign grow as sqrt(n) 2^-53 (1.1e-13
 *    at 2^20), which 1e-12 holds with a factor 9; one lost element or row
 *    moves a sum by ~1e-6 of it or more.  p.q of level 0, e.b of every
 *    level, and a level of 8195 rows of 601 columns (rows longer than the
 *    GPU's block, more rows than it sums in one launch).
 *  - views (kernels.h: own rows jlo <= j < ny - jhi; the cases *_views,
 *    with halo rows at both ends, jlo = 2, jhi = 1, and at the top only,
 *    jlo = 0, jhi = 3): the sweep, the divergence norms, pot_rhs (the
 *    grid's and level 0's own rows), pot_smooth, pot_smooth0, pot_matvec, pot_restrict
 *    (the coarse level's own rows), pot_resid and pot_dot on views, each against the
 *    reference on the same view with the bounds above (the halo rows of
 *    the block and the field, which the reference leaves, compared too);
 *    levels with too few rows for a view are passed over.
 *  - mg_build: the hierarchy built by the backend's mg_codes and mg_coarse
 *    (west_mg_build_on) is the host's build byte for byte: integer codes,
 *    and the conductances' sums in double in one order on both sides; a
 *    cut table beside it exactly where the backend has mg_cuts (its layout:
 *    test_potential.c), which every hierarchy here is given on such a
 *    backend, so the CPU's vector kernels run on cut cells.
 *  - memory: what goes up comes down unchanged; a fill sets every byte.
 *  - plume_advance: the particles in double through the same bodies
 *    (plume_util.h), so they differ by the last bits of the libraries'
 *    log, sin, cos, exp, expm1, pow, cbrt: positions within 1e-6 m,
 *    normalized velocities within 1e-6, states and draws equal,
 *    for all but 1 in 1000 particles (one whose rounding falls across a
 *    branch point); the integer accumulators (the same in any order)
 *    within 1e-3 in 99 % of the columns; tests/test_plume.c's
 *    cuda_matches_cpu derives them.  The cpu backend's kernel is the
 *    vector one (kernels/plume_simd.c), whose libmvec functions are within
 *    4 ulp where CUDA's are within 2: there 1 in 100 particles may differ
 *    (test_plume.c's simd_matches_reference_* measure it).
 *
 * Adding a backend: its name in BACKENDS.  Adding a kernel: its slot in
 * the table (model.h), a check_<name> function here and X(be, <name>) in
 * KERNEL_CASES (docs/design.md section 11).
 *
 * Every case frees what it allocated, host and backend, through the
 * table's free, checked (compute-sanitizer's leak check may run this).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "backend_fixture.h"
#include "kernel_util.h"
#include "kernels.h"
#include "multigrid.h"

#define RTOL 1e-5        /* fp32 pointwise steps (docs/design.md section 4) */
#define ATOL_V 1e-6      /* m/s: one ulp of 8 m/s */
#define NSWEEP 25        /* red-black iterations of the sweep cases */

/* The hierarchy's eta on each hill (backend_fixture.h's order). */
static const double hill_eta[NHILLS] = { 0.7, 0.7, 5.0 };

/* ---- the backend under test, its memory and the host's ------------------- */

static struct {
	const char *name;
	const struct west_kernel_ops *k;
	void *p[128];      /* its allocations in the running case */
	size_t n;
} be;

static struct {
	void *p[256];
	size_t n;
} hpool;

/* The backend `name`, or skip the test saying why it cannot run here. */
/*
 * The backend of the registry name, or a variant of one: cuda_index64 is
 * cuda with its potential kernels' 64-bit indices on every level
 * (WEST_CUDA_INDEX64; the test hills' levels all take the 32-bit ones
 * otherwise).  Each test runs in its own process, so the switch stays in it.
 */
static void use_backend(const char *name)
{
	char why[WEST_ERRLEN] = "";
	int wide = strcmp(name, "cuda_index64") == 0;

	if (wide)
		name = "cuda";
	if (west_backend_probe(name, why, sizeof why) != WEST_OK)
		cr_skip_test("%s backend test skipped: %s", name, why);
#ifdef WEST_HAVE_CUDA
	west_pot_cuda_wide(wide);
#endif
	be.name = name;
	be.k = west_backend_find(name)->kernels;
	cr_assert_not_null(be.k, "the %s backend has no kernel table", name);
}

/* A new host buffer, 0xFF in every byte (so a download that writes
 * nothing shows). */
static void *hbuf(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);
	cr_assert_not_null(p, "malloc(%zu)", bytes);
	cr_assert_lt(hpool.n, sizeof hpool.p / sizeof hpool.p[0], "host pool full");
	hpool.p[hpool.n++] = p;
	return memset(p, 0xFF, bytes);
}

static void *hdup(const void *src, size_t bytes)
{
	return memcpy(hbuf(bytes), src, bytes);
}

/* A memory operation's status, with its message. */
static void mem_ok(enum west_status st, const char *op, const char *err)
{
	cr_assert_eq(st, WEST_OK, "%s: %s: %s: %s", context, op, west_status_str(st), err);
}

/* A new buffer in the backend's memory, 0xFF in every byte: NaN as a
 * float, 255 as a byte. */
static void *be_alloc(size_t bytes)
{
	char err[WEST_ERRLEN] = "";
	void *p = NULL;

	cr_assert_lt(be.n, sizeof be.p / sizeof be.p[0], "backend pool full");
	mem_ok(be.k->alloc(&p, bytes, err, sizeof err), "alloc", err);
	be.p[be.n++] = p;
	mem_ok(be.k->fill(p, 0xFF, bytes, err, sizeof err), "fill", err);
	return p;
}

static void *be_upload(const void *host, size_t bytes)
{
	char err[WEST_ERRLEN] = "";
	void *p = be_alloc(bytes);

	mem_ok(be.k->upload(p, host, bytes, err, sizeof err), "upload", err);
	return p;
}

static void be_download(void *host, const void *p, size_t bytes)
{
	char err[WEST_ERRLEN] = "";
	mem_ok(be.k->download(host, p, bytes, err, sizeof err), "download", err);
}

/* A kernel's status, then the backend's once its queued work has run. */
static void launched(const char *what, enum west_status st)
{
	cr_assert_eq(st, WEST_OK, "%s: %s: %s", context, what, west_status_str(st));
	if (be.k->sync)
		cr_assert_eq(be.k->sync(), WEST_OK, "%s: %s: the backend failed after it (its log has why)",
			     context, what);
}

static void free_all(void)
{
	char err[WEST_ERRLEN] = "";

	for (size_t i = 0; i < be.n; i++)
		cr_expect_eq(be.k->free(be.p[i], err, sizeof err), WEST_OK, "%s: free: %s",
			     context, err);
	for (size_t i = 0; i < hpool.n; i++)
		free(hpool.p[i]);
	be.n = hpool.n = 0;
}

/* ---- the case: a hill, the CPU's chain of steps, a hierarchy --------------- */

/* Face velocities (or transparencies) in host memory. */
struct faces {
	float *u, *v, *w;
};

/*
 * A hill with stations, the kernels' host view of it, the CPU's output of
 * every step (each step's input for the kernel under test), and the
 * hierarchy on the host with random vectors.
 */
struct tcase {
	const char *name;
	struct west_grid g;
	struct west_levels lv;
	struct west_kgrid kg;
	struct west_obs_set obs;
	struct west_kstation st[NST];
	float stab[NST];
	const float *pexp;
	size_t ns, ncol, nc, nxf, nyf, nzf;
	double *zcalt;              /* level-centre altitudes (m), as grid.c */
	unsigned char *cls, *land;  /* steps 1 and 4 */
	float *pst;                 /* step 2 */
	float *us, *vs, *w0;        /* step 3 */
	float *ui, *vi;             /* step 5 */
	float *u, *v, *w;           /* step 6: the sweep's start */
	float *tx, *ty, *tz;        /* step 7 */
	struct west_mg h;           /* the hierarchy, random e, b, p, q */
};

/* The stations on their points, as the kernels compute those points. */
static void check_at_stations(const struct tcase *c)
{
	float xf = (float)10 * c->kg.dx, yc = ((float)7 + 0.5f) * c->kg.dy;
	float xc = ((float)25 + 0.5f) * c->kg.dx, yc2 = ((float)5 + 0.5f) * c->kg.dy;

	cr_assert(c->st[ST_FACE].x == xf && c->st[ST_FACE].y == yc,
		  "station face at %.9g %.9g, x-face centre %.9g %.9g",
		  (double)c->st[ST_FACE].x, (double)c->st[ST_FACE].y, (double)xf, (double)yc);
	cr_assert(c->st[ST_COL].x == xc && c->st[ST_COL].y == yc2,
		  "station col at %.9g %.9g, column centre %.9g %.9g",
		  (double)c->st[ST_COL].x, (double)c->st[ST_COL].y, (double)xc, (double)yc2);
}

/* Steps 1-7 on the CPU: every intermediate kept. */
static void cpu_chain(struct tcase *c)
{
	const struct west_kgrid *kg = &c->kg;
	size_t pb = c->ns * sizeof(float);

	c->cls = hbuf(c->ncol);
	c->pst = hbuf(pb);
	c->us = hbuf(pb);
	c->vs = hbuf(pb);
	c->w0 = hbuf(c->nzf * sizeof(float));
	c->zcalt = hbuf(c->g.nz * sizeof(double));
	c->land = hbuf(c->nc);
	c->ui = hbuf(c->nxf * sizeof(float));
	c->vi = hbuf(c->nyf * sizeof(float));
	c->tx = hbuf(c->nxf * sizeof(float));
	c->ty = hbuf(c->nyf * sizeof(float));
	c->tz = hbuf(c->nzf * sizeof(float));
	west_grid_land_altitudes(&c->g, c->zcalt);   /* grid.c's own rule */
	cr_assert_eq(west_stability_cpu(kg, c->ns, c->st, c->stab, c->cls), WEST_OK);
	cr_assert_eq(west_extrapolate_cpu(kg, c->ns, c->st, c->cls, c->pexp, c->pst), WEST_OK);
	cr_assert_eq(west_initialize_cpu(kg, c->ns, c->st, c->us, c->vs, c->w0), WEST_OK);
	cr_assert_eq(west_land_cpu(kg->nx, kg->ny, kg->nz, c->g.terrain, c->zcalt, c->land), WEST_OK);
	cr_assert_eq(west_interpolate_cpu(kg, c->ns, c->st, c->pst, c->us, c->vs, c->ui, c->vi), WEST_OK);
	c->u = hdup(c->ui, c->nxf * sizeof(float));
	c->v = hdup(c->vi, c->nyf * sizeof(float));
	c->w = hdup(c->w0, c->nzf * sizeof(float));
	cr_assert_eq(west_speed_zero_cpu(kg, c->u, c->v, c->w), WEST_OK);
	cr_assert_eq(west_transparency_cpu(kg, c->g.cut, c->tx, c->ty, c->tz), WEST_OK);
}

/* Uniform in [-1, 1) (xorshift64*). */
static double rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) * 0x1p-52 - 1.0;
}

/* Cell (i, j, k)'s slot in a level's per-colour arrays (kernels.h). */
static size_t slot(const struct west_plevel *l, size_t i, size_t j, size_t k)
{
	return ((i + j + k) & 1) * l->ncol + (i >> 1) + l->hx * (j + l->ny * k);
}

/* x = scale * random on l's cells, 0 on the slots without a cell. */
static void fill_level(const struct west_plevel *l, float *x, uint64_t seed, double scale)
{
	uint64_t s = seed;
	memset(x, 0, 2 * l->ncol * sizeof *x);
	for (size_t k = 0; k < l->nz; k++)
		for (size_t j = 0; j < l->ny; j++)
			for (size_t i = 0; i < l->nx; i++)
				x[slot(l, i, j, k)] = (float)(scale * rnd(&s));
}

/* Random e, b on every level and p, q on level 0's layout. */
static void fill_block(struct west_mg *h)
{
	for (int L = 0; L < h->nlevels; L++) {
		const struct west_plevel *l = &h->lv[L];
		fill_level(l, l->e, 101 + 2 * (uint64_t)L, 20.0);
		fill_level(l, l->b, 102 + 2 * (uint64_t)L, 1000.0);
	}
	fill_level(&h->lv[0], h->p, 7, 10.0);
	fill_level(&h->lv[0], h->q, 8, 10.0);
	fill_level(&h->lv[0], h->x, 9, 10.0);
}

/* The own rows of the view cases (kernels.h): halo rows at both ends, and
 * at the top only. */
static const size_t view_rows[][2] = { { 2, 1 }, { 0, 3 } };
#define NVIEWS (sizeof view_rows / sizeof view_rows[0])

/* Grid view g with the own rows of view r. */
static struct west_kgrid kview(const struct west_kgrid *g, size_t r)
{
	struct west_kgrid v = *g;
	v.jlo = view_rows[r][0], v.jhi = view_rows[r][1];
	return v;
}

/* Level l with the own rows of view r; 0 when it has too few rows. */
static int lview(struct west_plevel *v, const struct west_plevel *l, size_t r)
{
	*v = *l;
	v->jlo = view_rows[r][0], v->jhi = view_rows[r][1];
	return l->ny > v->jlo + v->jhi;
}

static void case_init(struct tcase *c, int which)
{
	static char ctx[160];
	char err[WEST_ERRLEN] = "";

	memset(c, 0, sizeof *c);
	c->name = hill_grid(&c->g, which);
	snprintf(ctx, sizeof ctx, "%s backend, %s", be.name, c->name);
	context = ctx;
	cr_assert_eq(west_levels_init(&c->lv, &c->g, err, sizeof err), WEST_OK, "%s", err);
	west_kgrid_init(&c->kg, &c->g, &c->lv);
	five_stations(&c->obs);
	c->ns = c->obs.n;
	west_model_stations(&c->g, &c->obs, WEST_LAND_RURAL, c->st, c->stab);
	check_at_stations(c);
	c->pexp = west_power_exponents(WEST_LAND_RURAL);
	c->ncol = c->g.nx * c->g.ny;
	c->nc = west_grid_ncells(&c->g);
	c->nxf = west_grid_nxfaces(&c->g);
	c->nyf = west_grid_nyfaces(&c->g);
	c->nzf = west_grid_nzfaces(&c->g);
	cpu_chain(c);
	cr_assert_eq(west_mg_build(&c->h, &c->g, hill_eta[which], err, sizeof err), WEST_OK,
		     "%s", err);
	cr_assert_geq(c->h.nlevels, 3, "%s: a few levels", context);
	fill_block(&c->h);
}

static void case_free(struct tcase *c)
{
	west_mg_free(&c->h);
	west_obs_set_free(&c->obs);
	west_levels_free(&c->lv);
	west_grid_free(&c->g);
}

/* check() on every hill with backend `name`, freeing everything after each. */
static void run_case(const char *name, void (*check)(struct tcase *c))
{
	use_backend(name);
	for (int which = 0; which < NHILLS; which++) {
		struct tcase c;
		case_init(&c, which);
		check(&c);
		case_free(&c);
		free_all();
	}
}

/* ---- the case's arrays in the backend's memory ------------------------------ */

/* The kernels' grid view with its arrays in the backend's memory. */
static struct west_kgrid be_kgrid(const struct tcase *c)
{
	struct west_kgrid d = c->kg;
	size_t nz = c->kg.nz;

	d.zc = be_upload(c->kg.zc, nz * sizeof(float));
	d.rdz = be_upload(c->kg.rdz, nz * sizeof(float));
	d.rdzf = be_upload(c->kg.rdzf, (nz + 1) * sizeof(float));
	d.ground = be_upload(c->kg.ground, c->ncol * sizeof(float));
	d.land = be_upload(c->kg.land, c->nc);
	d.tx = be_upload(c->kg.tx, c->nxf * sizeof(float));
	d.ty = be_upload(c->kg.ty, c->nyf * sizeof(float));
	d.tz = be_upload(c->kg.tz, c->nzf * sizeof(float));
	return d;
}

static const struct west_kstation *be_stations(const struct tcase *c)
{
	return be_upload(c->st, c->ns * sizeof c->st[0]);
}

/* The hierarchy in the backend's memory: the host block in one upload,
 * level 0's tx and ty (not in the block) at dk's, and its cut table (not
 * in the block either) built there by the backend's mg_cuts where it has
 * one (the CPU's vector kernels read it; without it they would run the
 * references). */
static struct west_mg be_hierarchy(const struct tcase *c, const struct west_kgrid *dk)
{
	struct west_mg d;
	char err[WEST_ERRLEN] = "";

	west_mg_rebase(&d, &c->h, be_upload(c->h.base, c->h.bytes));
	d.lv[0].tx = dk->tx, d.lv[0].ty = dk->ty;
	launched("mg_cuts", west_mg_cuts_on(be.k, &d, err, sizeof err));
	if (d.cut) {
		cr_assert_lt(be.n, sizeof be.p / sizeof be.p[0], "backend pool full");
		be.p[be.n++] = d.cut;   /* freed with the case's */
	}
	cr_assert(!be.k->mg_cuts || d.lv[0].cutrow, "%s: level 0's cut table", context);
	return d;
}

/* Faces in the backend's memory, and back. */
static struct faces be_faces(const struct tcase *c, const struct faces *f)
{
	return (struct faces){ be_upload(f->u, c->nxf * sizeof(float)),
			       be_upload(f->v, c->nyf * sizeof(float)),
			       be_upload(f->w, c->nzf * sizeof(float)) };
}

static struct faces be_faces_get(const struct tcase *c, const struct faces *d)
{
	struct faces f = { hbuf(c->nxf * sizeof(float)), hbuf(c->nyf * sizeof(float)),
			   hbuf(c->nzf * sizeof(float)) };
	be_download(f.u, d->u, c->nxf * sizeof(float));
	be_download(f.v, d->v, c->nyf * sizeof(float));
	be_download(f.w, d->w, c->nzf * sizeof(float));
	return f;
}

/* A copy of faces (u, v, w) on the host, in the case's pool. */
static struct faces faces_dup(const struct tcase *c, const float *u, const float *v,
			      const float *w)
{
	return (struct faces){
		hdup(u, c->nxf * sizeof(float)), hdup(v, c->nyf * sizeof(float)),
		hdup(w, c->nzf * sizeof(float)),
	};
}

static void expect_same_faces(const struct tcase *c, const char *what,
			      const struct faces *a, const struct faces *b)
{
	char name[96];
	snprintf(name, sizeof name, "%s, u", what);
	expect_identical(name, a->u, b->u, c->nxf, sizeof(float));
	snprintf(name, sizeof name, "%s, v", what);
	expect_identical(name, a->v, b->v, c->nyf, sizeof(float));
	snprintf(name, sizeof name, "%s, w", what);
	expect_identical(name, a->w, b->w, c->nzf, sizeof(float));
}

/* ---- memory ----------------------------------------------------------------- */

/* The step 6 u faces up and down again; a fill of all but their first
 * and last bytes, at an odd address; a part downloaded; free(NULL). */
static void check_memory(struct tcase *c)
{
	size_t n = c->nxf * sizeof(float);
	unsigned char *d = be_upload(c->u, n), *got = hbuf(n), *ref = hdup(c->u, n);
	unsigned char *part = hbuf(n - 2);
	char err[WEST_ERRLEN] = "";

	be_download(got, d, n);
	expect_identical("upload then download", ref, got, c->nxf, sizeof(float));
	memset(ref + 1, 0x5A, n - 2);
	mem_ok(be.k->fill(d + 1, 0x5A, n - 2, err, sizeof err), "fill", err);
	be_download(got, d, n);
	expect_identical("fill 0x5A, all but the first and last bytes", ref, got, n, 1);
	be_download(part, d + 1, n - 2);
	expect_identical("download from an odd address", ref + 1, part, n - 2, 1);
	mem_ok(be.k->free(NULL, err, sizeof err), "free(NULL)", err);
}

/* ---- the steps, each from the CPU's output of the step before --------------- */

static void check_stability(struct tcase *c)
{
	struct west_kgrid dk = be_kgrid(c);
	unsigned char *d = be_alloc(c->ncol), *got = hbuf(c->ncol);

	launched("stability", be.k->stability(&dk, c->ns, be_stations(c),
					      be_upload(c->stab, c->ns * sizeof(float)), d));
	be_download(got, d, c->ncol);
	expect_identical("stability classes", c->cls, got, c->ncol, 1);
	cr_expect_eq(c->cls[5 * c->g.nx + 25], WEST_STAB_F, "the column under station col");
}

static void check_extrapolate(struct tcase *c)
{
	struct west_kgrid dk = be_kgrid(c);
	size_t pb = c->ns * sizeof(float);
	float *d = be_alloc(pb), *got = hbuf(pb);

	launched("extrapolate",
		 be.k->extrapolate(&dk, c->ns, be_stations(c), be_upload(c->cls, c->ncol),
				   be_upload(c->pexp, WEST_NSTAB * sizeof(float)), d));
	be_download(got, d, pb);
	expect_identical("profile exponents", c->pst, got, c->ns, sizeof(float));
}

static void check_initialize(struct tcase *c)
{
	struct west_kgrid dk = be_kgrid(c);
	size_t pb = c->ns * sizeof(float), wb = c->nzf * sizeof(float);
	float *dus = be_alloc(pb), *dvs = be_alloc(pb), *dw = be_alloc(wb);
	struct faces got = { hbuf(pb), hbuf(pb), hbuf(wb) };

	launched("initialize", be.k->initialize(&dk, c->ns, be_stations(c), dus, dvs, dw));
	be_download(got.u, dus, pb);
	be_download(got.v, dvs, pb);
	be_download(got.w, dw, wb);
	expect_close("station u", c->us, got.u, c->ns, ATOL_V, RTOL);
	expect_close("station v", c->vs, got.v, c->ns, ATOL_V, RTOL);
	expect_close("w = 0", c->w0, got.w, c->nzf, 0, 0);
}

static void check_land(struct tcase *c)
{
	const struct west_grid *g = &c->g;
	unsigned char *d = be_alloc(c->nc), *got = hbuf(c->nc);

	launched("land", be.k->land(g->nx, g->ny, g->nz,
				    be_upload(g->terrain, c->ncol * sizeof(float)),
				    be_upload(c->zcalt, g->nz * sizeof(double)), d));
	be_download(got, d, c->nc);
	expect_identical("land vs the CPU", c->land, got, c->nc, 1);
	expect_identical("land vs the grid's", g->land, got, c->nc, 1);
}

static void check_interpolate(struct tcase *c)
{
	struct west_kgrid dk = be_kgrid(c);
	size_t pb = c->ns * sizeof(float);
	size_t xb = c->nxf * sizeof(float), yb = c->nyf * sizeof(float);
	float *du = be_alloc(xb), *dv = be_alloc(yb), *gu = hbuf(xb), *gv = hbuf(yb);

	launched("interpolate", be.k->interpolate(&dk, c->ns, be_stations(c),
						  be_upload(c->pst, pb), be_upload(c->us, pb),
						  be_upload(c->vs, pb), du, dv));
	be_download(gu, du, xb);
	be_download(gv, dv, yb);
	expect_close("u faces", c->ui, gu, c->nxf, ATOL_V, RTOL);
	expect_close("v faces", c->vi, gv, c->nyf, ATOL_V, RTOL);
	for (size_t k = 0; k < c->g.nz; k++) {   /* the "at" branch was taken */
		size_t i = west_kx(c->g.nx, c->g.ny, 10, 7, k);
		float h = west_face_height(&c->kg, 0.5f * (c->kg.ground[7 * c->g.nx + 9] +
							   c->kg.ground[7 * c->g.nx + 10]), k);
		cr_expect_eq(c->ui[i], c->us[ST_FACE] * west_profile_factor(&c->st[ST_FACE],
				c->pst[ST_FACE], h), "u at station face, level %zu", k);
	}
}

/*
 * In place, the same input on both sides: the CPU's interpolated faces,
 * and a w without zeros (the initialized w is all 0 and would hide a w
 * face the kernel does not zero).
 */
static void check_speed_zero(struct tcase *c)
{
	struct west_kgrid dk = be_kgrid(c);
	float *w = hbuf(c->nzf * sizeof(float));
	struct faces ref, got, d;

	for (size_t i = 0; i < c->nzf; i++)
		w[i] = 0.25f + (float)(i % 97) * 0.125f;
	ref = faces_dup(c, c->ui, c->vi, w);
	d = be_faces(c, &ref);
	cr_assert_eq(west_speed_zero_cpu(&c->kg, ref.u, ref.v, ref.w), WEST_OK);
	launched("speed_zero", be.k->speed_zero(&dk, d.u, d.v, d.w));
	got = be_faces_get(c, &d);
	expect_close("u", ref.u, got.u, c->nxf, 0, 0);
	expect_close("v", ref.v, got.v, c->nyf, 0, 0);
	expect_close("w", ref.w, got.w, c->nzf, 0, 0);
}

static void check_transparency(struct tcase *c)
{
	const struct west_grid *g = &c->g;
	struct west_kgrid dk = be_kgrid(c);
	struct faces d = { be_alloc(c->nxf * sizeof(float)), be_alloc(c->nyf * sizeof(float)),
			   be_alloc(c->nzf * sizeof(float)) }, got;

	launched("transparency", be.k->transparency(&dk, g->cut, d.u, d.v, d.w));
	got = be_faces_get(c, &d);
	expect_close("tx vs the CPU", c->tx, got.u, c->nxf, 0, 0);
	expect_close("ty vs the CPU", c->ty, got.v, c->nyf, 0, 0);
	expect_close("tz vs the CPU", c->tz, got.w, c->nzf, 0, 0);
	expect_close("tx vs the grid's", g->tx, got.u, c->nxf, 0, 0);
	expect_close("ty vs the grid's", g->ty, got.v, c->nyf, 0, 0);
	expect_close("tz vs the grid's", g->tz, got.w, c->nzf, 0, 0);
}

/* n red-black iterations (colour 0 then 1) of the CPU sweep from step 6,
 * on kg (the case's grid, or a view of it). */
static struct faces cpu_swept(const struct tcase *c, const struct west_kgrid *kg, int n,
			      float omega, float eta, enum west_kindexing ix)
{
	struct faces f = faces_dup(c, c->u, c->v, c->w);
	for (int it = 0; it < n; it++)
		for (int colour = 0; colour < 2; colour++)
			cr_assert_eq(west_divmin_sweep_cpu(kg, omega, eta, colour, ix,
							   f.u, f.v, f.w), WEST_OK);
	return f;
}

/* The same on the backend, from the same (uploaded) start. */
static struct faces be_swept(const struct tcase *c, const struct west_kgrid *dk, int n,
			     float omega, float eta, enum west_kindexing ix)
{
	struct faces start = { c->u, c->v, c->w }, d = be_faces(c, &start);

	for (int it = 0; it < n; it++)
		for (int colour = 0; colour < 2; colour++) {
			enum west_status st = be.k->sweep(dk, omega, eta, colour, ix, d.u, d.v, d.w);
			cr_assert_eq(st, WEST_OK, "%s: sweep: %s", context, west_status_str(st));
		}
	launched("sweep", WEST_OK);
	return be_faces_get(c, &d);
}

/* Both norms of field f on view kg (dk the backend's), the backend's
 * against the CPU's (bounds at the top). */
static void expect_norms(const struct tcase *c, const struct west_kgrid *kg,
			 const struct west_kgrid *dk, const char *what, const struct faces *f)
{
	double ref[2], got[2] = { NAN, NAN };
	double rtol = 2.0 * (double)c->nc * 0x1p-53;
	struct faces d = be_faces(c, f);

	cr_assert_eq(west_divergence_norms_cpu(kg, f->u, f->v, f->w, ref), WEST_OK);
	launched("norms", be.k->norms(dk, d.u, d.v, d.w, got));
	cr_expect_gt(ref[0], 0, "%s: %s: the field must have divergence", context, what);
	cr_expect_eq(got[0], ref[0], "%s: %s: max|D| cpu %.17g, got %.17g", context, what,
		     ref[0], got[0]);
	cr_expect_leq(fabs(got[1] - ref[1]), rtol * ref[1],
		      "%s: %s: sum D^2 cpu %.17g, got %.17g (rtol %.3g)", context, what,
		      ref[1], got[1], rtol);
}

static void check_divergence_norms(struct tcase *c)
{
	struct west_kgrid dk = be_kgrid(c);
	struct faces start = { c->u, c->v, c->w };
	struct faces swept = cpu_swept(c, &c->kg, NSWEEP, 1.25f, 1.0f, WEST_KINDEX_COMPACT);

	expect_norms(c, &c->kg, &dk, "step 6 field", &start);
	expect_norms(c, &c->kg, &dk, "after 25 iterations", &swept);
}

/* The same on each view: the norms of its own rows. */
static void check_divergence_norms_views(struct tcase *c)
{
	struct west_kgrid dk = be_kgrid(c);
	struct faces start = { c->u, c->v, c->w };
	char what[96];

	for (size_t r = 0; r < NVIEWS; r++) {
		struct west_kgrid kv = kview(&c->kg, r), dv = kview(&dk, r);
		struct faces swept = cpu_swept(c, &kv, NSWEEP, 1.25f, 1.0f, WEST_KINDEX_COMPACT);
		snprintf(what, sizeof what, "rows [%zu, %zu), step 6 field", kv.jlo,
			 kv.ny - kv.jhi);
		expect_norms(c, &kv, &dv, what, &start);
		snprintf(what, sizeof what, "rows [%zu, %zu), after 25 iterations", kv.jlo,
			 kv.ny - kv.jhi);
		expect_norms(c, &kv, &dv, what, &swept);
	}
}

/* z-face (i, j, k) touches land or is the ground: w stays 0 there. */
static int zface_fixed(const struct west_kgrid *kg, size_t i, size_t j, size_t k)
{
	return k == 0 ||
	       west_kland(kg->land, kg->nx, kg->ny, kg->nz, (long)i, (long)j, (long)k - 1) ||
	       west_kland(kg->land, kg->nx, kg->ny, kg->nz, (long)i, (long)j, (long)k);
}

/*
 * From the CPU's field after 25 iterations.  w is the output: every face
 * the removal computes enters as NaN; the faces touching land or the
 * ground enter with the 0 they have, and must keep it.
 */
static void check_divremoval(struct tcase *c)
{
	struct west_kgrid dk = be_kgrid(c);
	const struct west_kgrid *kg = &c->kg;
	struct faces s = cpu_swept(c, &c->kg, NSWEEP, 1.25f, 1.0f, WEST_KINDEX_COMPACT), d;
	size_t wb = c->nzf * sizeof(float);
	float *ref, *got = hbuf(wb);

	for (size_t k = 0; k <= kg->nz; k++)
		for (size_t j = 0; j < kg->ny; j++)
			for (size_t i = 0; i < kg->nx; i++)
				if (!zface_fixed(kg, i, j, k))
					s.w[west_kc(kg->nx, kg->ny, i, j, k)] = NAN;
	ref = hdup(s.w, wb);
	cr_assert_eq(west_divremoval_cpu(kg, s.u, s.v, ref), WEST_OK);
	d = be_faces(c, &s);
	launched("divremoval", be.k->divremoval(&dk, d.u, d.v, d.w));
	be_download(got, d.w, wb);
	expect_close("w", ref, got, c->nzf, (double)kg->nz * ATOL_V, RTOL);
}

/* NSWEEP iterations on view kg (dk the backend's), masked and compact,
 * CPU and backend: all four identical. */
static void sweep_on(const struct tcase *c, const struct west_kgrid *kg,
		     const struct west_kgrid *dk, float omega, float eta)
{
	struct faces ref = cpu_swept(c, kg, NSWEEP, omega, eta, WEST_KINDEX_MASKED);
	struct faces refc = cpu_swept(c, kg, NSWEEP, omega, eta, WEST_KINDEX_COMPACT);
	struct faces gm = be_swept(c, dk, NSWEEP, omega, eta, WEST_KINDEX_MASKED);
	struct faces gc = be_swept(c, dk, NSWEEP, omega, eta, WEST_KINDEX_COMPACT);
	char what[128];

	cr_expect_neq(memcmp(ref.u, c->u, c->nxf * sizeof(float)), 0,
		      "%s: the sweeps must move the field", context);
	snprintf(what, sizeof what, "rows [%zu, %zu), masked, cpu vs backend", kg->jlo,
		 kg->ny - kg->jhi);
	expect_same_faces(c, what, &ref, &gm);
	snprintf(what, sizeof what, "rows [%zu, %zu), compact, cpu vs backend", kg->jlo,
		 kg->ny - kg->jhi);
	expect_same_faces(c, what, &refc, &gc);
	snprintf(what, sizeof what, "rows [%zu, %zu), backend, masked vs compact", kg->jlo,
		 kg->ny - kg->jhi);
	expect_same_faces(c, what, &gm, &gc);
}

static void check_sweep(const struct tcase *c, float omega, float eta)
{
	struct west_kgrid dk = be_kgrid(c);
	sweep_on(c, &c->kg, &dk, omega, eta);
}

static void check_sweep_omega_1_25(struct tcase *c)
{
	check_sweep(c, 1.25f, 1.0f);
}

static void check_sweep_omega_1_78_eta_0_5(struct tcase *c)
{
	check_sweep(c, 1.78f, 0.5f);
}

/* Each view (its own rows only; the halo rows are never updated, so the
 * CPU's view leaves them as they were), omega 1.78 eta 0.5. */
static void check_sweep_views(struct tcase *c)
{
	struct west_kgrid dk = be_kgrid(c);
	for (size_t r = 0; r < NVIEWS; r++) {
		struct west_kgrid kv = kview(&c->kg, r), dv = kview(&dk, r);
		sweep_on(c, &kv, &dv, 1.78f, 0.5f);
	}
}

/* ---- the potential kernels, on the hierarchy's block ------------------------ */

/* Names the array of h holding byte `off` of its block, and the element. */
static void locate(const struct west_mg *h, size_t off, char *buf, size_t len)
{
	const char *base = h->base;
	snprintf(buf, len, "byte %zu (padding between arrays)", off);
	for (int L = 0; L < h->nlevels; L++) {
		const struct west_plevel *l = &h->lv[L];
		size_t n = 2 * l->ncol;
		const struct {
			const char *name;
			const void *p;
			size_t bytes, size;
		} a[] = {
			{ "code", l->code, n, 1 }, { "kf", l->kf, 6 * l->nz * sizeof(float), 4 },
			{ "vol", l->vol, l->nz * sizeof(float), 4 },
			{ "g", l->g, 6 * n * sizeof(float), 4 },
			{ "e", l->e, n * sizeof(float), 4 }, { "b", l->b, n * sizeof(float), 4 },
		};
		for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
			size_t at = (size_t)((const char *)a[i].p - base);
			if (a[i].p && off >= at && off < at + a[i].bytes) {
				snprintf(buf, len, "level %d %s[%zu]", L, a[i].name,
					 (off - at) / a[i].size);
				return;
			}
		}
	}
	size_t pq = 2 * h->lv[0].ncol * sizeof(float);
	size_t p = (size_t)((const char *)h->p - base), q = (size_t)((const char *)h->q - base);
	if (off >= p && off < p + pq)
		snprintf(buf, len, "p[%zu]", (off - p) / 4);
	else if (off >= q && off < q + pq)
		snprintf(buf, len, "q[%zu]", (off - q) / 4);
}

/* The backend's block d equal to the host's, byte for byte, after `what`. */
static void expect_same_block(const struct tcase *c, const struct west_mg *d,
			      const char *what)
{
	const unsigned char *ref = c->h.base;
	unsigned char *got = hbuf(c->h.bytes);
	size_t n = c->h.bytes, bad = 0, first = 0;
	char where[96] = "";

	be_download(got, d->base, n);
	for (size_t i = 0; i < n; i++)
		if (ref[i] != got[i] && !bad++)
			first = i;
	if (bad) {
		size_t at = first & ~(size_t)3;
		float x, y;
		memcpy(&x, ref + at, 4);
		memcpy(&y, got + at, 4);
		locate(&c->h, first, where, sizeof where);
		cr_assert_fail("%s: %s: %zu of %zu bytes differ; first at %s: cpu %.9g, got %.9g "
			       "(as floats)", context, what, bad, n, where, (double)x, (double)y);
	}
}

/* Colour passes on level 0 (codes and kf), level 1 and the coarsest level
 * (conductances), both colours, omega 1 and 1.6; they must move e.  On
 * view r of each level (its own rows), or the whole levels (r = NVIEWS);
 * a level with too few rows for the view is passed over.  zero: the first
 * pass from e = 0 (pot_smooth0) against the reference's zeroing and pass,
 * after every slot of those levels' e (the padding too) was made non-zero:
 * each must be set. */
static void pot_smooth_on(struct tcase *c, size_t r, int zero)
{
	int levels[3] = { 0, 1, c->h.nlevels - 1 };
	const float omegas[2] = { 1.0f, 1.6f };
	const char *name = zero ? "pot_smooth0" : "pot_smooth";
	char what[96];

	for (int n = 0; n < 3 && zero; n++) {
		const struct west_plevel *l = &c->h.lv[levels[n]];
		for (size_t s = 0; s < 2 * l->ncol; s++)
			l->e[s] = l->e[s] == 0.0f ? 3.5f : l->e[s];
	}
	struct west_kgrid dk = be_kgrid(c);
	struct west_mg d = be_hierarchy(c, &dk);
	unsigned char *before = hdup(c->h.base, c->h.bytes);
	for (int n = 0; n < 3; n++)
		for (int colour = 0; colour < 2; colour++)
			for (int o = 0; o < 2; o++) {
				int L = levels[n];
				struct west_plevel hl = c->h.lv[L], dl = d.lv[L];
				if (r < NVIEWS && (!lview(&hl, &c->h.lv[L], r) ||
						   !lview(&dl, &d.lv[L], r)))
					continue;
				if (zero)
					cr_assert_eq(west_pot_zero_cpu(2 * hl.ncol, hl.e), WEST_OK);
				cr_assert_eq(west_pot_smooth_cpu(&hl, omegas[o], colour), WEST_OK);
				launched(name, (zero ? be.k->pot_smooth0 : be.k->pot_smooth)(
						       &dl, omegas[o], colour));
				snprintf(what, sizeof what, "%s level %d rows [%zu, %zu) colour %d "
					 "omega %g", name, L, hl.jlo, hl.ny - hl.jhi, colour,
					 (double)omegas[o]);
				expect_same_block(c, &d, what);
			}
	cr_expect_neq(memcmp(before, c->h.base, c->h.bytes), 0, "%s: the passes moved nothing",
		      context);
}

static void check_pot_smooth(struct tcase *c)
{
	pot_smooth_on(c, NVIEWS, 0);
}

static void check_pot_smooth_views(struct tcase *c)
{
	for (size_t r = 0; r < NVIEWS; r++)
		pot_smooth_on(c, r, 0);
}

static void check_pot_smooth0(struct tcase *c)
{
	pot_smooth_on(c, NVIEWS, 1);
}

static void check_pot_smooth0_views(struct tcase *c)
{
	for (size_t r = 0; r < NVIEWS; r++)
		pot_smooth_on(c, r, 1);
}

/* Every level to the next; on view r of the coarse level (r < NVIEWS;
 * passed over where it has too few rows) or the whole. */
static void pot_restrict_on(struct tcase *c, size_t r)
{
	struct west_kgrid dk = be_kgrid(c);
	struct west_mg d = be_hierarchy(c, &dk);
	char what[96];
	int done = 0;

	for (int L = 0; L + 1 < c->h.nlevels; L++) {
		struct west_plevel hc = c->h.lv[L + 1], dc = d.lv[L + 1];
		if (r < NVIEWS && (!lview(&hc, &c->h.lv[L + 1], r) ||
				   !lview(&dc, &d.lv[L + 1], r)))
			continue;
		cr_assert_eq(west_pot_restrict_cpu(&c->h.lv[L], &hc), WEST_OK);
		launched("pot_restrict", be.k->pot_restrict(&d.lv[L], &dc));
		snprintf(what, sizeof what, "pot_restrict level %d to %d rows [%zu, %zu)", L,
			 L + 1, hc.jlo, hc.ny - hc.jhi);
		expect_same_block(c, &d, what);
		done++;
	}
	cr_expect_gt(done, 0, "%s: no coarse level has rows enough", context);
}

static void check_pot_restrict(struct tcase *c)
{
	pot_restrict_on(c, NVIEWS);
}

static void check_pot_restrict_views(struct tcase *c)
{
	for (size_t r = 0; r < NVIEWS; r++)
		pot_restrict_on(c, r);
}

static void check_pot_prolong(struct tcase *c)
{
	struct west_kgrid dk = be_kgrid(c);
	struct west_mg d = be_hierarchy(c, &dk);
	char what[64];

	for (int L = c->h.nlevels - 2; L >= 0; L--) {
		cr_assert_eq(west_pot_prolong_cpu(&c->h.lv[L + 1], &c->h.lv[L]), WEST_OK);
		launched("pot_prolong", be.k->pot_prolong(&d.lv[L + 1], &d.lv[L]));
		snprintf(what, sizeof what, "pot_prolong level %d to %d", L + 1, L);
		expect_same_block(c, &d, what);
	}
}

/* The coarsest level with the hierarchy's sweep count, level 1 (more
 * slots than the GPU's one block has threads) with 3, and level 0 (more
 * than the CUDA kernel keeps in shared memory, kernels/potential.cu) with
 * 1. */
static void check_pot_coarse(struct tcase *c)
{
	struct west_kgrid dk = be_kgrid(c);
	struct west_mg d = be_hierarchy(c, &dk);
	int last = c->h.nlevels - 1;

	cr_assert_eq(west_pot_coarse_cpu(&c->h.lv[last], c->h.coarse_sweeps), WEST_OK);
	launched("pot_coarse", be.k->pot_coarse(&d.lv[last], c->h.coarse_sweeps));
	expect_same_block(c, &d, "pot_coarse, coarsest level");
	cr_assert_gt(2 * c->h.lv[1].ncol, 256);
	cr_assert_eq(west_pot_coarse_cpu(&c->h.lv[1], 3), WEST_OK);
	launched("pot_coarse", be.k->pot_coarse(&d.lv[1], 3));
	expect_same_block(c, &d, "pot_coarse, level 1");
	cr_assert_gt(2 * c->h.lv[0].ncol, 4096);
	cr_assert_eq(west_pot_coarse_cpu(&c->h.lv[0], 1), WEST_OK);
	launched("pot_coarse", be.k->pot_coarse(&d.lv[0], 1));
	expect_same_block(c, &d, "pot_coarse, level 0");
}

/* q = A p on level 0; b = A e on the coarser levels; on view r of each
 * (r < NVIEWS; a level with too few rows passed over) or the whole. */
static void pot_matvec_on(struct tcase *c, size_t r)
{
	struct west_kgrid dk = be_kgrid(c);
	struct west_mg d = be_hierarchy(c, &dk);
	char what[96];

	for (int L = 0; L < c->h.nlevels; L++) {
		struct west_plevel h = c->h.lv[L], l = d.lv[L];
		if (r < NVIEWS && (!lview(&h, &c->h.lv[L], r) || !lview(&l, &d.lv[L], r)))
			continue;
		if (L == 0) {
			cr_assert_eq(west_pot_matvec_cpu(&h, c->h.p, c->h.q), WEST_OK);
			launched("pot_matvec", be.k->pot_matvec(&l, d.p, d.q));
		} else {
			cr_assert_eq(west_pot_matvec_cpu(&h, h.e, h.b), WEST_OK);
			launched("pot_matvec", be.k->pot_matvec(&l, l.e, l.b));
		}
		snprintf(what, sizeof what, "pot_matvec level %d rows [%zu, %zu)", L, h.jlo,
			 h.ny - h.jhi);
		expect_same_block(c, &d, what);
	}
}

static void check_pot_matvec(struct tcase *c)
{
	pot_matvec_on(c, NVIEWS);
}

static void check_pot_matvec_views(struct tcase *c)
{
	for (size_t r = 0; r < NVIEWS; r++)
		pot_matvec_on(c, r);
}

/* n random face velocities, |.| < 5 m/s, 0 where t (the transparency) is. */
static float *random_faces(const float *t, size_t n, uint64_t seed)
{
	float *f = hbuf(n * sizeof *f);
	uint64_t s = seed;
	for (size_t i = 0; i < n; i++)
		f[i] = t[i] != 0.0f ? (float)(5 * rnd(&s)) : 0.0f;
	return f;
}

static struct faces faces_random(const struct tcase *c, uint64_t seed)
{
	return (struct faces){ random_faces(c->g.tx, c->nxf, seed),
			       random_faces(c->g.ty, c->nyf, seed + 1),
			       random_faces(c->g.tz, c->nzf, seed + 2) };
}

/* Level 0's b from the same faces on both sides; the norms of the same
 * pass (bounds at the top).  On view r of the grid and level 0 (r <
 * NVIEWS) or the whole. */
static void pot_rhs_on(struct tcase *c, size_t r)
{
	struct west_kgrid dk = be_kgrid(c);
	struct west_mg d = be_hierarchy(c, &dk);
	struct faces f = faces_random(c, 201), df = be_faces(c, &f);
	double hn[2], dn[2] = { NAN, NAN }, plain[2] = { NAN, NAN };
	double rtol = 2.0 * (double)c->nc * 0x1p-53;
	struct west_kgrid kv = c->kg, dv = dk;
	struct west_plevel hl = c->h.lv[0], dl = d.lv[0];
	char what[64];

	if (r < NVIEWS) {
		kv = kview(&c->kg, r), dv = kview(&dk, r);
		cr_assert(lview(&hl, &c->h.lv[0], r) && lview(&dl, &d.lv[0], r));
	}
	cr_assert_eq(west_pot_rhs_cpu(&kv, &hl, f.u, f.v, f.w, hn), WEST_OK);
	launched("pot_rhs", be.k->pot_rhs(&dv, &dl, df.u, df.v, df.w, dn));
	snprintf(what, sizeof what, "pot_rhs rows [%zu, %zu)", kv.jlo, kv.ny - kv.jhi);
	expect_same_block(c, &d, what);
	launched("norms", be.k->norms(&dv, df.u, df.v, df.w, plain));
	cr_expect_eq(dn[0], hn[0], "%s: max |D|: got %.17g, cpu %.17g", context, dn[0], hn[0]);
	cr_expect_leq(fabs(dn[1] - hn[1]), 1e-12 * hn[1], "%s: sum D^2: got %.17g, cpu %.17g",
		      context, dn[1], hn[1]);
	cr_expect_eq(dn[0], plain[0], "%s: max |D|: pot_rhs %.17g, norms %.17g", context, dn[0],
		     plain[0]);
	cr_expect_leq(fabs(dn[1] - plain[1]), rtol * plain[1],
		      "%s: sum D^2: pot_rhs %.17g, norms %.17g (rtol %.3g)", context, dn[1],
		      plain[1], rtol);
}

static void check_pot_rhs(struct tcase *c)
{
	pot_rhs_on(c, NVIEWS);
}

static void check_pot_rhs_views(struct tcase *c)
{
	for (size_t r = 0; r < NVIEWS; r++)
		pot_rhs_on(c, r);
}

/* u += alpha T grad e (level 0's e) on the same faces: the faces bit for
 * bit, and the block untouched. */
static void check_pot_apply(struct tcase *c)
{
	struct west_kgrid dk = be_kgrid(c);
	struct west_mg d = be_hierarchy(c, &dk);
	struct faces f = faces_random(c, 301), df = be_faces(c, &f);
	float *u0 = hdup(f.u, c->nxf * sizeof *u0), eta = (float)c->h.eta;

	cr_assert_eq(west_pot_apply_cpu(&c->kg, &c->h.lv[0], eta, 0.75f, c->h.lv[0].e,
					f.u, f.v, f.w), WEST_OK);
	launched("pot_apply", be.k->pot_apply(&dk, &d.lv[0], eta, 0.75f, d.lv[0].e,
					      df.u, df.v, df.w));
	cr_expect_neq(memcmp(u0, f.u, c->nxf * sizeof *u0), 0, "%s: pot_apply moved no face",
		      context);
	struct faces got = be_faces_get(c, &df);
	expect_same_faces(c, "pot_apply", &f, &got);
	expect_same_block(c, &d, "pot_apply (block untouched)");
}

/* The hierarchy built in the backend's memory by its mg_codes and
 * mg_coarse (west_mg_build_on) against the host's build of the same grid
 * and eta (the CPU references): the same layout, every byte equal. */
static void check_mg_build(struct tcase *c)
{
	struct west_kgrid dk = be_kgrid(c);
	struct west_mg h, d, moved;
	char err[WEST_ERRLEN] = "";
	unsigned char *got;

	cr_assert_eq(west_mg_build(&h, &c->g, c->h.eta, err, sizeof err), WEST_OK, "%s", err);
	launched("mg_build", west_mg_build_on(be.k, &d, &c->g, &dk, c->h.eta, err, sizeof err));
	cr_assert_eq(d.bytes, h.bytes, "%s: %zu bytes, host %zu", context, d.bytes, h.bytes);
	cr_assert_eq(d.nlevels, h.nlevels);
	cr_assert_eq(d.coarse_sweeps, h.coarse_sweeps);
	west_mg_rebase(&moved, &h, d.base);
	for (int L = 0; L < h.nlevels; L++)
		cr_assert(moved.lv[L].code == d.lv[L].code && moved.lv[L].g == d.lv[L].g &&
			  moved.lv[L].e == d.lv[L].e && moved.lv[L].nx == d.lv[L].nx &&
			  moved.lv[L].fz == d.lv[L].fz, "%s: level %d laid out otherwise", context, L);
	cr_assert(d.lv[0].tx == dk.tx && d.lv[0].ty == dk.ty, "%s: level 0's tx, ty", context);
	got = hbuf(h.bytes);
	be_download(got, d.base, h.bytes);
	for (size_t i = 0; i < h.bytes; i++)
		if (got[i] != ((unsigned char *)h.base)[i]) {
			char where[96] = "";
			locate(&h, i, where, sizeof where);
			cr_assert_fail("%s: mg_build: byte %zu of %zu differs, at %s", context, i,
				       h.bytes, where);
		}
	cr_assert_eq(be.k->free(d.base, err, sizeof err), WEST_OK, "%s", err);
	cr_assert(!d.cut == !be.k->mg_cuts, "%s: a cut table where the backend has one",
		  context);
	if (d.cut)
		cr_assert_eq(be.k->free(d.cut, err, sizeof err), WEST_OK, "%s", err);
	west_mg_free(&h);
}

/* q = p + beta q over n = 2 ncol, then q = 0 over n - 1 (the last stays). */
static void check_pot_xpby_zero(struct tcase *c)
{
	struct west_kgrid dk = be_kgrid(c);
	struct west_mg d = be_hierarchy(c, &dk);
	size_t n = 2 * c->h.lv[0].ncol;

	cr_assert_eq(west_pot_xpby_cpu(n, c->h.p, -0.625f, c->h.q), WEST_OK);
	launched("pot_xpby", be.k->pot_xpby(n, d.p, -0.625f, d.q));
	expect_same_block(c, &d, "pot_xpby");
	cr_assert_eq(west_pot_zero_cpu(n - 1, c->h.q), WEST_OK);
	launched("pot_zero", be.k->pot_zero(n - 1, d.q));
	expect_same_block(c, &d, "pot_zero");
}

/* x += alpha p over level 0's slots, twice (the sum of two steps). */
static void check_pot_axpy(struct tcase *c)
{
	struct west_kgrid dk = be_kgrid(c);
	struct west_mg d = be_hierarchy(c, &dk);
	size_t n = 2 * c->h.lv[0].ncol;
	const float alphas[2] = { 0.8125f, -1.375f };

	for (int a = 0; a < 2; a++) {
		cr_assert_eq(west_pot_axpy_cpu(n, alphas[a], c->h.p, c->h.x), WEST_OK);
		launched("pot_axpy", be.k->pot_axpy(n, alphas[a], d.p, d.x));
		expect_same_block(c, &d, "pot_axpy");
	}
}

/* b -= alpha q on level 0's open cells of its own rows (view r < NVIEWS,
 * or the whole), and the largest |b / vol| exactly (a maximum). */
static void pot_resid_on(struct tcase *c, size_t r)
{
	struct west_kgrid dk = be_kgrid(c);
	struct west_mg d = be_hierarchy(c, &dk);
	struct west_plevel h = c->h.lv[0], l = d.lv[0];
	double mc = -1.0, md = -1.0;
	char what[96];

	if (r < NVIEWS && (!lview(&h, &c->h.lv[0], r) || !lview(&l, &d.lv[0], r)))
		return;
	cr_assert_eq(west_pot_resid_cpu(&h, 0.6875f, c->h.q, &mc), WEST_OK);
	launched("pot_resid", be.k->pot_resid(&l, 0.6875f, d.q, &md));
	snprintf(what, sizeof what, "pot_resid rows [%zu, %zu)", h.jlo, h.ny - h.jhi);
	expect_same_block(c, &d, what);
	cr_assert_gt(mc, 0.0, "%s: %s: no open cell", context, what);
	cr_assert_eq(memcmp(&mc, &md, sizeof mc), 0, "%s: %s: largest |D| %.9g, backend %.9g",
		     context, what, mc, md);
}

static void check_pot_resid(struct tcase *c)
{
	pot_resid_on(c, NVIEWS);
}

static void check_pot_resid_views(struct tcase *c)
{
	for (size_t r = 0; r < NVIEWS; r++)
		pot_resid_on(c, r);
}

/*
 * The row sums of x . y on level l (a view or the whole; dx, dy the
 * backend's copies), the backend's against the reference's: each row's
 * within 1e-12 of that row's sum |x y|, and their totals, each added in
 * row order, within 1e-12 of the whole sum |x y|; no sum written past the
 * view's rows (a sentinel after them stays).
 */
static void expect_dot(const char *what, const struct west_plevel *l, const float *x,
		       const float *y, const float *dx, const float *dy)
{
	size_t rows = l->ny - l->jlo - l->jhi;
	double *cpu = hbuf((rows + 1) * sizeof *cpu), *got = hbuf((rows + 1) * sizeof *got);
	double tc = 0.0, tg = 0.0, tmag = 0.0;

	cpu[rows] = got[rows] = -1.25;
	cr_assert_eq(west_pot_dot_cpu(l, x, y, cpu), WEST_OK);
	launched("pot_dot", be.k->pot_dot(l, dx, dy, got));
	cr_expect_eq(got[rows], -1.25, "%s: %s: a sum written past the view's %zu rows",
		     context, what, rows);
	for (size_t r = 0; r < rows; r++) {
		size_t j = l->jlo + r;
		double mag = 0.0;
		for (size_t c = 0; c < 2; c++)
			for (size_t k = 0; k < l->nz; k++)
				for (size_t t = 0; t < l->hx; t++) {
					size_t s = c * l->ncol + t + l->hx * (j + l->ny * k);
					mag += fabs((double)x[s] * y[s]);
				}
		if (!(fabs(cpu[r] - got[r]) <= 1e-12 * mag))
			cr_assert_fail("%s: %s: rows [%zu, %zu): row %zu: cpu %.17g, got %.17g "
				       "(sum |xy| %g)", context, what, l->jlo, l->ny - l->jhi, j,
				       cpu[r], got[r], mag);
		tc += cpu[r], tg += got[r], tmag += mag;
	}
	cr_expect_leq(fabs(tc - tg), 1e-12 * tmag, "%s: %s: rows [%zu, %zu): total cpu %.17g, "
		      "got %.17g (sum |xy| %g)", context, what, l->jlo, l->ny - l->jhi, tc, tg,
		      tmag);
	cr_expect_gt(tmag, 0.0);
	if (be.k->pot_dot_queued) {   /* into page-locked sums, after a sync: the same */
		double *q = be.k->host_alloc((rows + 1) * sizeof *q);
		cr_assert_not_null(q);
		q[rows] = -1.25;
		launched("pot_dot_queued", be.k->pot_dot_queued(l, dx, dy, q));
		launched("sync", be.k->sync());
		cr_expect_eq(memcmp(q, got, rows * sizeof *q), 0, "%s: %s: pot_dot_queued's sums "
			     "differ from pot_dot's", context, what);
		cr_expect_eq(q[rows], -1.25, "%s: %s: pot_dot_queued wrote past the view's rows",
			     context, what);
		be.k->host_free(q);
	}
}

/*
 * p.q of level 0, e.b of every level (a few to a few thousand slots a row:
 * rows shorter than a block of the GPU), and a level of 8195 rows of 601
 * columns (a row longer than a block's 256 threads, more rows than the
 * GPU's 8192 a launch) with random values in every slot; each on view r
 * (r < NVIEWS; a level with too few rows passed over) or the whole.
 */
static void pot_dot_on(struct tcase *c, size_t r)
{
	struct west_kgrid dk = be_kgrid(c);
	struct west_mg d = be_hierarchy(c, &dk);
	struct west_plevel big = { .nx = 601, .ny = 8195, .nz = 1, .hx = 301,
				   .ncol = (size_t)301 * 8195 }, l, bv = big;
	size_t n = 2 * big.ncol;
	float *x = hbuf(n * sizeof *x), *y = hbuf(n * sizeof *y);
	char what[64];
	uint64_t s = 401;

	for (int L = 0; L < c->h.nlevels; L++) {
		const struct west_plevel *h = &c->h.lv[L];
		l = *h;
		if (r < NVIEWS && !lview(&l, h, r))
			continue;
		if (L == 0)
			expect_dot("p.q", &l, c->h.p, c->h.q, d.p, d.q);
		snprintf(what, sizeof what, "e.b level %d", L);
		expect_dot(what, &l, h->e, h->b, d.lv[L].e, d.lv[L].b);
	}
	for (size_t i = 0; i < n; i++)
		x[i] = (float)(100 * rnd(&s)), y[i] = (float)rnd(&s);
	if (r < NVIEWS)
		cr_assert(lview(&bv, &big, r));
	expect_dot("8195 rows of 601", &bv, x, y, be_upload(x, n * sizeof *x),
		   be_upload(y, n * sizeof *y));
}

static void check_pot_dot(struct tcase *c)
{
	pot_dot_on(c, NVIEWS);
}

static void check_pot_dot_views(struct tcase *c)
{
	for (size_t r = 0; r < NVIEWS; r++)
		pot_dot_on(c, r);
}

/* ---- release plumes ---------------------------------------------------------- */

#define PL_N 2000        /* particles */

/* The particles and accumulators of a plume case in memory made by
 * alloc (the backend's or the host's), zeroed, arrival ~0 (none). */
static struct west_kparticles plume_block(size_t np, size_t ncol, int on_backend)
{
	size_t nd = 7 * np * sizeof(double), nacc = (2 * ncol + 4) * sizeof(unsigned long long);
	char err[WEST_ERRLEN] = "";
	double *d = on_backend ? be_alloc(nd) : hbuf(nd);
	unsigned *n = on_backend ? be_alloc(np * sizeof *n) : hbuf(np * sizeof *n);
	unsigned char *st = on_backend ? be_alloc(np) : hbuf(np);
	unsigned long long *acc = on_backend ? be_alloc(nacc) : hbuf(nacc);

	if (on_backend) {
		mem_ok(be.k->fill(st, 0, np, err, sizeof err), "fill", err);
		mem_ok(be.k->fill(acc, 0, ncol * sizeof *acc, err, sizeof err), "fill", err);
		mem_ok(be.k->fill(acc + 2 * ncol, 0, 4 * sizeof *acc, err, sizeof err), "fill", err);
	} else {
		memset(st, 0, np);
		memset(acc, 0, ncol * sizeof *acc);
		memset(acc + 2 * ncol, 0, 4 * sizeof *acc);
	}
	return (struct west_kparticles){ .x = d, .y = d + np, .z = d + 2 * np, .up = d + 3 * np,
					 .vp = d + 4 * np, .wp = d + 5 * np, .t = d + 6 * np,
					 .n = n, .state = st, .conc = acc, .arrival = acc + ncol,
					 .sums = acc + 2 * ncol };
}

/*
 * The backend's particles and accumulators against the reference's
 * (test_plume.c's cuda_matches_cpu derives the bounds): a particle
 * matches when its state and draw count are equal, its time within 1e-9 s
 * (the sum of its steps, to rounding; t_cut exactly at a path point while
 * it is in the domain), its position within 1e-6 m and its
 * normalized velocity within 1e-6; at most
 * PL_N / 1000 may not (a rounding difference across a branch point), on
 * the cpu backend PL_N / 100 (its vector library's larger last-bit
 * differences: measured 3 of 2000 here);
 * conc within 1e-3 relative plus 1e-3 of the largest and arrival within
 * 1 s (or both none) in all but 1 % of the columns; the centroid's count
 * within PL_N / 1000, its mean position within 1 m, and none where the
 * launch did not ask for it.
 */
static void expect_plume(const struct tcase *c, const char *what, const struct west_kparticles *h,
			 const struct west_kparticles *d, int centroid)
{
	size_t np = PL_N, ncol = c->ncol, bad = 0, badc = 0;
	double *x = hbuf(7 * np * sizeof *x);
	unsigned *n = hbuf(np * sizeof *n);
	unsigned char *st = hbuf(np);
	unsigned long long *acc = hbuf((2 * ncol + 4) * sizeof *acc), cmax = 0;

	be_download(x, d->x, 7 * np * sizeof *x);
	be_download(n, d->n, np * sizeof *n);
	be_download(st, d->state, np);
	be_download(acc, d->conc, (2 * ncol + 4) * sizeof *acc);
	for (size_t p = 0; p < np; p++) {
		double dp = 0.0, dv = 0.0;
		if (st[p] == 0 && h->state[p] == 0)
			continue;   /* not released yet: nothing else written */
		for (int a = 0; a < 3; a++) {
			dp = fmax(dp, fabs(x[a * np + p] - h->x[a * np + p]));
			dv = fmax(dv, fabs(x[(3 + a) * np + p] - h->x[(3 + a) * np + p]));
		}
		bad += st[p] != h->state[p] || n[p] != h->n[p] ||
		       !(fabs(x[6 * np + p] - h->t[p]) <= 1e-9) || !(dp <= 1e-6) || !(dv <= 1e-6);
	}
	size_t allow = strcmp(be.name, "cpu") ? np / 1000 : np / 100;
	cr_expect_leq(bad, allow, "%s: %s: %zu of %zu particles differ", context, what, bad, np);
	for (size_t i = 0; i < ncol; i++)
		cmax = h->conc[i] > cmax ? h->conc[i] : cmax;
	cr_expect_gt(cmax, 0, "%s: %s: no particle in the layer", context, what);
	for (size_t i = 0; i < ncol; i++) {
		double a = (double)h->conc[i], b = (double)acc[i];
		unsigned long long ta = h->arrival[i], tb = acc[ncol + i];
		int ok = fabs(a - b) <= 1e-3 * a + 1e-3 * (double)cmax &&
			 (ta == tb || (ta != ~0ULL && tb != ~0ULL &&
				       fabs((double)ta - (double)tb) <= WEST_PLUME_TICK));
		badc += !ok;
	}
	cr_expect_leq(badc, ncol / 100, "%s: %s: %zu of %zu columns differ", context, what, badc,
		      ncol);
	const unsigned long long *s = h->sums, *t = acc + 2 * ncol;
	cr_expect_leq(llabs((long long)s[3] - (long long)t[3]), (long long)(np / 1000),
		      "%s: %s: centroid of %llu particles, reference %llu", context, what, t[3], s[3]);
	if (centroid)
		cr_expect_gt(s[3], 0, "%s: %s: no centroid", context, what);
	else
		cr_expect(s[3] == 0 && t[3] == 0, "%s: %s: a centroid not asked for", context, what);
	for (int a = 0; a < 3 && s[3] && t[3]; a++)
		cr_expect_leq(fabs((double)s[a] / (double)s[3] - (double)t[a] / (double)t[3]),
			      WEST_PLUME_POS, "%s: %s: centroid axis %d", context, what, a);
}

/*
 * plume_advance on the case's step 6 field (a flux field, not divergence
 * free: any field will do), the grid's transparencies and the columns'
 * classes from step 1, with the three regimes side by side (the classes'
 * Golder 1/L at z0 0.1 m, u* and the mixing height varying by column):
 * 2000 particles from a point on the slope, three chunks (to 30 s with
 * its steps cut at 60 s, to 60 s, to 180 s, past the 120 s release), each
 * followed by the comparison.
 */
static void check_plume_advance(struct tcase *c)
{
	size_t ncol = c->ncol, k0;
	double *zlow = hbuf(ncol * sizeof *zlow);
	struct west_kturb *turb = hbuf(ncol * sizeof *turb);
	float *hmix = hbuf(ncol * sizeof *hmix);
	struct west_kplume hk, dk;
	struct west_kparticles hp, dp;
	const double ends[3] = { 30.0, 60.0, 180.0 }, cuts[3] = { 60.0, 60.0, 180.0 };

	for (size_t j = 0; j < c->g.ny; j++)
		for (size_t i = 0; i < c->g.nx; i++) {
			size_t col = j * c->g.nx + i;
			double il = west_golder_inv_l(c->cls[col] % WEST_NSTAB, 0.1);
			float us = 0.2f + 0.02f * (float)(i % 7);
			zlow[col] = west_grid_lowest_level(&c->g, i, j, &k0);
			turb[col] = (struct west_kturb){ .ustar = us, .inv_l = (float)il,
				.wstar = il < 0 ? (float)(us * cbrt(800.0 * -il / 0.4)) : 0.0f };
			hmix[col] = (float)(60.0 + 3.0 * (double)j);
		}
	hk = (struct west_kplume){
		.wind = { .nx = c->g.nx, .ny = c->g.ny, .nz = c->g.nz, .dx = c->g.dx, .dy = c->g.dy,
			  .zf = c->g.zf, .u = c->u, .v = c->v, .w = c->w, .tx = c->tx, .ty = c->ty,
			  .tz = c->tz },
		.base = c->g.base, .top = c->g.base + c->g.zf[c->g.nz], .dzmin = 1.0,
		.terrain = c->g.terrain, .zlow = zlow, .cls = c->cls, .turb = turb, .hmix = hmix,
		.np = PL_N, .seed = 0x123456789abcdefULL, .x = 450.0, .y = 500.0, .height = 8.0,
		.duration = 120.0, .layer = 10.0,
	};
	memcpy(hk.pexp, c->pexp, sizeof hk.pexp);
	for (size_t k = 0; k < c->g.nz; k++)
		hk.dzmin = fmin(hk.dzmin, c->g.zf[k + 1] - c->g.zf[k]);
	dk = hk;
	dk.wind.zf = be_upload(c->g.zf, (c->g.nz + 1) * sizeof(double));
	dk.wind.u = be_upload(c->u, c->nxf * sizeof(float));
	dk.wind.v = be_upload(c->v, c->nyf * sizeof(float));
	dk.wind.w = be_upload(c->w, c->nzf * sizeof(float));
	dk.wind.tx = be_upload(c->tx, c->nxf * sizeof(float));
	dk.wind.ty = be_upload(c->ty, c->nyf * sizeof(float));
	dk.wind.tz = be_upload(c->tz, c->nzf * sizeof(float));
	dk.terrain = be_upload(c->g.terrain, ncol * sizeof(float));
	dk.zlow = be_upload(zlow, ncol * sizeof *zlow);
	dk.cls = be_upload(c->cls, ncol);
	dk.turb = be_upload(turb, ncol * sizeof *turb);
	dk.hmix = be_upload(hmix, ncol * sizeof *hmix);
	hp = plume_block(PL_N, ncol, 0);
	dp = plume_block(PL_N, ncol, 1);
	for (int e = 0; e < 3; e++) {
		char what[48];
		char err[WEST_ERRLEN] = "";
		int centroid = ends[e] == cuts[e];
		cr_assert_eq(west_plume_advance_cpu(&hk, &hp, ends[e], cuts[e], centroid), WEST_OK);
		launched("plume_advance",
			 be.k->plume_advance(&dk, &dp, ends[e], cuts[e], centroid));
		snprintf(what, sizeof what, "plume to %g s", ends[e]);
		expect_plume(c, what, &hp, &dp, centroid);
		memset(hp.sums, 0, 4 * sizeof *hp.sums);
		mem_ok(be.k->fill(dp.sums, 0, 4 * sizeof *dp.sums, err, sizeof err), "fill", err);
	}
}

/* ---- the table -------------------------------------------------------------- */

/*
 * The backends, by registry name: cpu (the reference; see the top) and
 * every other, and the variants of use_backend.  A new backend is one more
 * X(name).
 */
#define BACKENDS(X) X(cpu) X(cuda) X(cuda_index64)

/*
 * The cases: X(backend, name) runs check_<name> on every hill with that
 * backend, as the Criterion test <backend>::<name>.  A new kernel is its
 * check_<name> above and one line here.
 */
#define KERNEL_CASES(X, b)                   \
	X(b, memory)                         \
	X(b, stability)                      \
	X(b, extrapolate)                    \
	X(b, initialize)                     \
	X(b, land)                           \
	X(b, interpolate)                    \
	X(b, speed_zero)                     \
	X(b, transparency)                   \
	X(b, divergence_norms)               \
	X(b, divremoval)                     \
	X(b, sweep_omega_1_25)               \
	X(b, sweep_omega_1_78_eta_0_5)       \
	X(b, sweep_views)                    \
	X(b, divergence_norms_views)         \
	X(b, pot_rhs)                        \
	X(b, pot_rhs_views)                  \
	X(b, pot_apply)                      \
	X(b, pot_smooth)                     \
	X(b, pot_smooth_views)               \
	X(b, pot_smooth0)                    \
	X(b, pot_smooth0_views)              \
	X(b, pot_restrict)                   \
	X(b, pot_restrict_views)             \
	X(b, pot_prolong)                    \
	X(b, pot_coarse)                     \
	X(b, pot_matvec)                     \
	X(b, pot_matvec_views)               \
	X(b, pot_xpby_zero)                  \
	X(b, pot_axpy)                       \
	X(b, pot_resid)                      \
	X(b, pot_resid_views)                \
	X(b, pot_dot)                        \
	X(b, pot_dot_views)                  \
	X(b, mg_build)                       \
	X(b, plume_advance)

#define CASE_TEST(backend, name)                                              \
	Test(backend, name)                                                   \
	{                                                                     \
		run_case(#backend, check_##name);                             \
	}
#define BACKEND_TESTS(backend) KERNEL_CASES(CASE_TEST, backend)

BACKENDS(BACKEND_TESTS)
