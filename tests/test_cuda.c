/*
 * test_cuda.c: the CUDA kernels and the CUDA backend against the CPU
 * reference (docs/design.md section 4), with the bounds derived here.
 *
 * Kernels (cuda_steps, cuda_sweep): every west_<op>_cuda launcher against
 * its west_<op>_cpu reference, element by element, on a Gaussian hill with
 * land (37 x 29 columns of 40 m, odd sizes, hill 90 m), once with 11
 * uniform levels of 15 m and once with 10 stretched levels, and 5 stations
 * of mixed classes, one exactly on the centre of an x-face and one exactly
 * on a column centre (the IDW "at" branch).  Each step's inputs are the
 * CPU's outputs of the step before (uploaded), so every step is checked on
 * its own.  Every output buffer is filled with 0xFF bytes before the
 * launch (NaN as a float, 255 as a byte), so an element the launcher does
 * not write fails; in-place kernels get the same input on both sides.
 * Two inputs are made here instead: speed zero gets a w without zeros (the
 * initialized w is all 0 and would hide an unzeroed face), and divergence
 * removal (from the CPU's field after 25 iterations) gets a w that is NaN
 * on every face it computes and 0 on the faces touching land or the
 * ground, which must stay 0.
 *
 * Bounds, |cpu - gpu| <= atol + rtol |cpu| (kernels.h: the references are
 * built with -ffp-contract=off and the kernels with --fmad=false, so both
 * round every operation in the same order; only powf, sinf and cosf
 * differ, by a few ulp):
 *  - stability, land, transparency, speed zero: exact.  Classes and masks
 *    are integers from identical arithmetic (land from zcalt in double by
 *    grid.c's west_grid_land_altitudes, the cut-cell thresholds of the
 *    fixture's default faces, and equal to the grid's own mask and
 *    transparencies as well; the cut faces' fractions are the same float
 *    arithmetic); speed zero multiplies each face by its transparency.
 *  - extrapolate, initialize, interpolate: rtol 1e-5 (fp32, docs/design.md
 *    section 4), atol 1e-6 m/s, one ulp of an 8 m/s speed: a component
 *    near 0 (wind from 180 or 270 degrees) has no relative accuracy to
 *    speak of.
 *    The initialized w must be exactly 0.
 *  - divergence norms: max |D| exactly (both compute each D in float in
 *    the same order, |D| is exact); the sum of D^2 within 2 n 2^-53 of it
 *    (n cells): each D^2 of a float D is exact in double, only the order of
 *    the n additions differs, and recursive summation of n non-negative
 *    terms is within (n - 1) 2^-53 of the sum in any order.
 *  - divergence removal: rtol 1e-5, atol nz * 1e-6 m/s: w is integrated up
 *    the column, and a launcher that sums in another order (a scan) may
 *    round each of the nz additions differently, by up to an ulp of a
 *    partial sum (< 1e-6 m/s below 8 m/s).
 *  - the red-black sweep: bit for bit (memcmp) after 25 iterations, masked
 *    and compact, omega 1.25 eta 1 and omega 1.78 eta 0.5.  The bound is 0:
 *    every operation is IEEE binary32 round-to-nearest, division
 *    correctly rounded, no contraction, in the same order on both sides,
 *    and cells of one colour share no face, so the order of the cells
 *    within a pass does not matter.  Masked and compact must also agree
 *    bit for bit on the GPU.
 *
 * Backend (cuda_backend): west_backend_cuda against west_backend_cpu on the
 * same grids, tolerance 0 (so both do exactly 200 iterations), check
 * interval 10.  Stability classes: exact.  Faces: the initial faces differ
 * by at most ~4 ulp relative (powf, sinf, cosf in steps 2-3); the sweep is
 * linear in the field and does not amplify a perturbation in the energy
 * norm (omega in (0, 2)), and each iteration's rounding adds at most a few
 * ulp of the field's scale, so after N iterations
 *     |cpu - gpu| <= E = 8 (1 + N) 2^-24 U,
 * U = max |face velocity| of the CPU field.  (The factor 8 per iteration
 * leaves room for the max norm, which the energy-norm argument does not
 * bound by 1.)  Divergence removal recomputes w from u and v up each
 * column: w at height z sums dz (du/dx + dv/dy) over the levels below, so
 * its bound is E_w = E (1 + 2 ztop (1/dx + 1/dy)).  The report's max|D|
 * (start, end, final) within rtol 1e-3 of the CPU's plus the change that
 * those face bounds allow in a cell's D, 4 (Eh (1/dx + 1/dy) + Ev / dzmin)
 * (each of the six faces moves by Eh or Ev, doubled for D's own rounding):
 * after divergence removal max|D| is rounding noise on both sides, which a
 * relative bound alone cannot hold.  The field handed to each CUDA run is
 * poisoned first (faces NaN, classes 255, valid time -1), so an element
 * the backend does not bring back fails.
 *
 * Every test calls gpu_skip_unless_usable() first: in a build without
 * CUDA, or without a usable device, every test still exists and skips with
 * the reason.  The bodies are compiled only with WEST_HAVE_CUDA.  Each
 * test frees all it allocated, host and device (compute-sanitizer's leak
 * check runs this program).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "kernel_util.h"
#include "kernels.h"
#include "model_fixture.h"

#ifdef WEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#define ON_GPU(call) call
#else
#define ON_GPU(call) ((void)0)
#endif

#ifdef WEST_HAVE_CUDA

#define RTOL 1e-5        /* fp32 pointwise steps (docs/design.md section 4) */
#define ATOL_V 1e-6      /* m/s: one ulp of 8 m/s */
#define NSWEEP 25        /* red-black iterations of the sweep tests */
#define NITER 200        /* iterations of the backend runs */

/* The hill: 37 x 29 columns of 40 m, 90 m high, sigma 250 m. */
#define HX 37
#define HY 29
#define HDX 40.0
#define HILL 90.0
#define HSIGMA 250.0

static const double stretched[] = { 0, 6, 14, 24, 36, 50, 66, 85, 108, 135, 170 };

/* The case being checked, for every message. */
static const char *context = "";

/* ---- host and device buffers of the running test ---------------------------- */

static struct {
	void *p[256];
	size_t n;
} hpool;

static struct {
	void *p[128];
	size_t n;
} dpool;

static void *hbuf(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);
	cr_assert_not_null(p, "malloc(%zu)", bytes);
	cr_assert_lt(hpool.n, sizeof hpool.p / sizeof hpool.p[0], "host pool full");
	hpool.p[hpool.n++] = p;
	return p;
}

static void *hdup(const void *src, size_t bytes)
{
	return memcpy(hbuf(bytes), src, bytes);
}

static void dev_check(cudaError_t e, const char *call)
{
	cr_assert_eq(e, cudaSuccess, "%s: %s: %s", context, call, cudaGetErrorString(e));
}

/* 0xFF in every byte: NaN as a float, 255 as a byte. */
static void dev_poison(void *d, size_t bytes)
{
	dev_check(cudaMemset(d, 0xFF, bytes), "cudaMemset");
}

/* A new device buffer, poisoned. */
static void *dev_alloc(size_t bytes)
{
	void *d = NULL;
	cr_assert_lt(dpool.n, sizeof dpool.p / sizeof dpool.p[0], "device pool full");
	dev_check(cudaMalloc(&d, bytes), "cudaMalloc");
	dpool.p[dpool.n++] = d;
	dev_poison(d, bytes);
	return d;
}

static void *dev_upload(const void *host, size_t bytes)
{
	void *d = dev_alloc(bytes);
	dev_check(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
	return d;
}

static void dev_download(void *host, const void *d, size_t bytes)
{
	dev_check(cudaMemcpy(host, d, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to the host");
}

/* Wait for every queued kernel; a failed kernel shows here. */
static void dev_sync(const char *what)
{
	cudaError_t e = cudaDeviceSynchronize();
	cr_assert_eq(e, cudaSuccess, "%s: %s: %s", context, what, cudaGetErrorString(e));
}

/* A launcher's status, then the device's once its kernels have run. */
static void launched(const char *what, enum west_status st)
{
	cr_assert_eq(st, WEST_OK, "%s: west_%s_cuda: %s", context, what, west_status_str(st));
	dev_sync(what);
}

static void free_all(void)
{
	for (size_t i = 0; i < dpool.n; i++) {
		cudaError_t e = cudaFree(dpool.p[i]);
		cr_expect_eq(e, cudaSuccess, "cudaFree: %s", cudaGetErrorString(e));
	}
	for (size_t i = 0; i < hpool.n; i++)
		free(hpool.p[i]);
	dpool.n = hpool.n = 0;
}

/* ---- comparisons ------------------------------------------------------------ */

/*
 * Every element of got within atol + rtol |ref| of ref; a NaN (the poison
 * of an unwritten element) fails.  Returns the largest difference.
 */
static double expect_close(const char *name, const float *ref, const float *got,
			   size_t n, double atol, double rtol)
{
	size_t bad = 0, first = 0;
	double worst = 0;

	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)ref[i] - (double)got[i]);
		if (!(d <= atol + rtol * fabs((double)ref[i])) && !bad++)
			first = i;
		if (d > worst)
			worst = d;
	}
	cr_expect_eq(bad, 0,
		     "%s: %s: %zu of %zu elements beyond %g + %g |cpu| (largest finite difference %g); first [%zu]: cpu %.9g, gpu %.9g",
		     context, name, bad, n, atol, rtol, worst, first,
		     (double)ref[first], (double)got[first]);
	return worst;
}

/* got equal to ref bit for bit: n elements of `size` bytes (float or byte). */
static void expect_identical(const char *name, const void *ref, const void *got,
			     size_t n, size_t size)
{
	const unsigned char *a = ref, *b = got;
	size_t bad = 0, first = 0;
	char vals[128] = "";

	for (size_t i = 0; i < n; i++)
		if (memcmp(a + i * size, b + i * size, size) != 0 && !bad++)
			first = i;
	if (bad && size == sizeof(float)) {
		float x, y;
		memcpy(&x, a + first * size, size);
		memcpy(&y, b + first * size, size);
		snprintf(vals, sizeof vals, "cpu %.9g, gpu %.9g", (double)x, (double)y);
	} else if (bad) {
		snprintf(vals, sizeof vals, "cpu %u, gpu %u", a[first * size], b[first * size]);
	}
	cr_expect_eq(bad, 0, "%s: %s: %zu of %zu elements differ; first [%zu]: %s",
		     context, name, bad, n, first, vals);
}

static double max_abs(const float *a, size_t n)
{
	double m = 0;
	for (size_t i = 0; i < n; i++)
		m = fmax(m, fabs((double)a[i]));
	return m;
}

/* ---- the test cases --------------------------------------------------------- */

enum { ST_FACE, ST_COL, NST = 5 };
enum { NCASES = 2 };

/*
 * A hill grid with stations, the kernels' host view of it, and the CPU's
 * output of every step (each step's input for the launcher under test).
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
	size_t ns, ncol, nc, nxf, nyf, nzf, nprof;
	double *zcalt;              /* level-centre altitudes (m), as grid.c */
	unsigned char *cls, *land;  /* steps 1 and 4 */
	float *pst;                 /* step 2 */
	float *us, *vs, *w0;        /* step 3 */
	float *ui, *vi;             /* step 5 */
	float *u, *v, *w;           /* step 6: the sweep's start */
	float *tx, *ty, *tz;        /* step 7 */
};

/* Face velocities in host memory. */
struct faces {
	float *u, *v, *w;
};

/*
 * Five stations (m from the grid's corner) of mixed classes: "face" exactly
 * on the centre of x-face (10, 7), "col" exactly on the centre of column
 * (25, 5); winds from 180 and 270 degrees put a component near 0.
 */
static void five_stations(struct west_obs_set *obs)
{
	fix_obs(obs, "face", 10 * HDX, 7.5 * HDX, 10, 6.0, 250, WEST_STAB_D);
	fix_obs(obs, "col", 25.5 * HDX, 5.5 * HDX, 15, 3.0, 200, WEST_STAB_F);
	fix_obs(obs, "nw", 130.5, 1000.25, 10, 4.5, 300, WEST_STAB_A);
	fix_obs(obs, "ne", 1390, 950, 20, 8.0, 270, WEST_STAB_C);
	fix_obs(obs, "top", 700, 640, 10, 5.0, 180, WEST_STAB_E);
}

/* n stations spread over grid g (deterministic), classes A..F in turn. */
static void spread_stations(struct west_obs_set *obs, size_t n, const struct west_grid *g)
{
	double w = (double)g->nx * g->dx, h = (double)g->ny * g->dy;

	for (size_t s = 0; s < n; s++) {
		char id[24];
		double x = w * fmod(0.5 + 0.6180339887 * (double)s, 1.0);
		double y = h * fmod(0.25 + 0.7548776662 * (double)s, 1.0);
		snprintf(id, sizeof id, "s%zu", s);
		fix_obs(obs, id, x, y, 10.0 + 5.0 * (double)(s % 3), 2.0 + (double)(s % 7),
			fmod(37.0 * (double)s + 10.0, 360.0), (int)(s % WEST_NSTAB));
	}
}

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
	size_t pb = c->nprof * sizeof(float);

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

/* Case `which`: 0 uniform levels of 15 m, 1 stretched levels. */
static void case_init(struct tcase *c, int which)
{
	struct west_config *conf = hbuf(sizeof *conf);
	char err[WEST_ERRLEN];

	memset(c, 0, sizeof *c);
	west_config_defaults(conf);
	if (which == 0) {
		c->name = "hill, 11 levels of 15 m";
		conf->nz = 11;
		conf->dz = 15;
	} else {
		c->name = "hill, 10 stretched levels";
		memcpy(conf->levels, stretched, sizeof stretched);
		conf->nlevels = sizeof stretched / sizeof stretched[0];
	}
	context = c->name;
	fix_grid_conf(&c->g, HX, HY, HDX, conf, HILL, HSIGMA);
	cr_assert_gt(c->g.land_cells, 0, "%s: the hill must make land", c->name);
	size_t cut = 0;
	for (size_t f = 0; f < west_grid_nxfaces(&c->g); f++)
		cut += c->g.tx[f] > 0.0f && c->g.tx[f] < 1.0f;
	cr_assert(c->g.cut && cut > 0, "%s: the hill must make cut cells", c->name);
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
	c->nprof = c->ns;
	cpu_chain(c);
}

static void case_free(struct tcase *c)
{
	west_obs_set_free(&c->obs);
	west_levels_free(&c->lv);
	west_grid_free(&c->g);
}

/* check() on each of the first n cases, freeing everything after each. */
static void run_cases(void (*check)(const struct tcase *c), int n)
{
	for (int which = 0; which < n; which++) {
		struct tcase c;
		case_init(&c, which);
		check(&c);
		case_free(&c);
		free_all();
	}
}

/* The kernels' grid view with its arrays in device memory. */
static struct west_kgrid dev_kgrid(const struct tcase *c)
{
	struct west_kgrid d = c->kg;
	size_t nz = c->kg.nz;

	d.zc = dev_upload(c->kg.zc, nz * sizeof(float));
	d.rdz = dev_upload(c->kg.rdz, nz * sizeof(float));
	d.rdzf = dev_upload(c->kg.rdzf, (nz + 1) * sizeof(float));
	d.ground = dev_upload(c->kg.ground, c->ncol * sizeof(float));
	d.land = dev_upload(c->kg.land, c->nc);
	d.tx = dev_upload(c->kg.tx, c->nxf * sizeof(float));
	d.ty = dev_upload(c->kg.ty, c->nyf * sizeof(float));
	d.tz = dev_upload(c->kg.tz, c->nzf * sizeof(float));
	return d;
}

static const struct west_kstation *dev_stations(const struct tcase *c)
{
	return dev_upload(c->st, c->ns * sizeof c->st[0]);
}

/* A copy of faces (u, v, w) on the host, in the test's pool. */
static struct faces faces_dup(const struct tcase *c, const float *u, const float *v,
			      const float *w)
{
	return (struct faces){
		hdup(u, c->nxf * sizeof(float)), hdup(v, c->nyf * sizeof(float)),
		hdup(w, c->nzf * sizeof(float)),
	};
}

/* n red-black iterations (colour 0 then 1) of the CPU sweep from step 6. */
static struct faces cpu_swept(const struct tcase *c, int n, float omega, float eta,
			      enum west_kindexing ix)
{
	struct faces f = faces_dup(c, c->u, c->v, c->w);
	for (int it = 0; it < n; it++)
		for (int colour = 0; colour < 2; colour++)
			cr_assert_eq(west_divmin_sweep_cpu(&c->kg, omega, eta, colour, ix,
							   f.u, f.v, f.w), WEST_OK);
	return f;
}

/* The same on the GPU, from the same (uploaded) start. */
static struct faces gpu_swept(const struct tcase *c, const struct west_kgrid *dk, int n,
			      float omega, float eta, enum west_kindexing ix)
{
	struct faces f = faces_dup(c, c->u, c->v, c->w);
	float *du = dev_upload(f.u, c->nxf * sizeof(float));
	float *dv = dev_upload(f.v, c->nyf * sizeof(float));
	float *dw = dev_upload(f.w, c->nzf * sizeof(float));

	for (int it = 0; it < n; it++)
		for (int colour = 0; colour < 2; colour++) {
			enum west_status st = west_divmin_sweep_cuda(dk, omega, eta, colour, ix,
								     du, dv, dw);
			cr_assert_eq(st, WEST_OK, "%s: west_divmin_sweep_cuda: %s", context,
				     west_status_str(st));
		}
	dev_sync("divmin_sweep");
	dev_download(f.u, du, c->nxf * sizeof(float));
	dev_download(f.v, dv, c->nyf * sizeof(float));
	dev_download(f.w, dw, c->nzf * sizeof(float));
	return f;
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

/* ---- the steps, each from the CPU's output of the step before --------------- */

static void step_stability(const struct tcase *c)
{
	struct west_kgrid dk = dev_kgrid(c);
	unsigned char *d = dev_alloc(c->ncol), *got = hbuf(c->ncol);

	launched("stability", west_stability_cuda(&dk, c->ns, dev_stations(c),
						  dev_upload(c->stab, c->ns * sizeof(float)), d));
	dev_download(got, d, c->ncol);
	expect_identical("stability classes", c->cls, got, c->ncol, 1);
	cr_expect_eq(c->cls[5 * c->g.nx + 25], WEST_STAB_F, "the column under station col");
}

static void step_extrapolate(const struct tcase *c)
{
	struct west_kgrid dk = dev_kgrid(c);
	size_t pb = c->nprof * sizeof(float);
	float *d = dev_alloc(pb), *got = hbuf(pb);

	launched("extrapolate",
		 west_extrapolate_cuda(&dk, c->ns, dev_stations(c), dev_upload(c->cls, c->ncol),
				       dev_upload(c->pexp, WEST_NSTAB * sizeof(float)), d));
	dev_download(got, d, pb);
	expect_identical("profile exponents", c->pst, got, c->nprof, sizeof(float));
}

static void step_initialize(const struct tcase *c)
{
	struct west_kgrid dk = dev_kgrid(c);
	size_t pb = c->nprof * sizeof(float), wb = c->nzf * sizeof(float);
	float *dus = dev_alloc(pb), *dvs = dev_alloc(pb), *dw = dev_alloc(wb);
	struct faces got = { hbuf(pb), hbuf(pb), hbuf(wb) };

	launched("initialize", west_initialize_cuda(&dk, c->ns, dev_stations(c), dus, dvs, dw));
	dev_download(got.u, dus, pb);
	dev_download(got.v, dvs, pb);
	dev_download(got.w, dw, wb);
	expect_close("station u", c->us, got.u, c->nprof, ATOL_V, RTOL);
	expect_close("station v", c->vs, got.v, c->nprof, ATOL_V, RTOL);
	expect_close("w = 0", c->w0, got.w, c->nzf, 0, 0);
}

static void step_land(const struct tcase *c)
{
	const struct west_grid *g = &c->g;
	unsigned char *d = dev_alloc(c->nc), *got = hbuf(c->nc);

	launched("land", west_land_cuda(g->nx, g->ny, g->nz,
					dev_upload(g->terrain, c->ncol * sizeof(float)),
					dev_upload(c->zcalt, g->nz * sizeof(double)), d));
	dev_download(got, d, c->nc);
	expect_identical("land vs the CPU", c->land, got, c->nc, 1);
	expect_identical("land vs the grid's", g->land, got, c->nc, 1);
}

static void step_interpolate(const struct tcase *c)
{
	struct west_kgrid dk = dev_kgrid(c);
	size_t pb = c->nprof * sizeof(float);
	size_t xb = c->nxf * sizeof(float), yb = c->nyf * sizeof(float);
	float *du = dev_alloc(xb), *dv = dev_alloc(yb), *gu = hbuf(xb), *gv = hbuf(yb);

	launched("interpolate", west_interpolate_cuda(&dk, c->ns, dev_stations(c),
						      dev_upload(c->pst, pb),
						      dev_upload(c->us, pb),
						      dev_upload(c->vs, pb), du, dv));
	dev_download(gu, du, xb);
	dev_download(gv, dv, yb);
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
 * face the launcher does not zero).
 */
static void step_speed_zero(const struct tcase *c)
{
	struct west_kgrid dk = dev_kgrid(c);
	size_t xb = c->nxf * sizeof(float), yb = c->nyf * sizeof(float);
	size_t wb = c->nzf * sizeof(float);
	float *w = hbuf(wb);
	struct faces ref, got;

	for (size_t i = 0; i < c->nzf; i++)
		w[i] = 0.25f + (float)(i % 97) * 0.125f;
	ref = faces_dup(c, c->ui, c->vi, w);
	got = faces_dup(c, c->ui, c->vi, w);
	cr_assert_eq(west_speed_zero_cpu(&c->kg, ref.u, ref.v, ref.w), WEST_OK);
	float *du = dev_upload(got.u, xb), *dv = dev_upload(got.v, yb);
	float *dw = dev_upload(got.w, wb);
	launched("speed_zero", west_speed_zero_cuda(&dk, du, dv, dw));
	dev_download(got.u, du, xb);
	dev_download(got.v, dv, yb);
	dev_download(got.w, dw, wb);
	expect_close("u", ref.u, got.u, c->nxf, 0, 0);
	expect_close("v", ref.v, got.v, c->nyf, 0, 0);
	expect_close("w", ref.w, got.w, c->nzf, 0, 0);
}

static void step_transparency(const struct tcase *c)
{
	const struct west_grid *g = &c->g;
	size_t xb = c->nxf * sizeof(float), yb = c->nyf * sizeof(float);
	size_t zb = c->nzf * sizeof(float);
	float *dx = dev_alloc(xb), *dy = dev_alloc(yb), *dz = dev_alloc(zb);
	struct faces got = { hbuf(xb), hbuf(yb), hbuf(zb) };

	struct west_kgrid dk = dev_kgrid(c);
	launched("transparency", west_transparency_cuda(&dk, g->cut, dx, dy, dz));
	dev_download(got.u, dx, xb);
	dev_download(got.v, dy, yb);
	dev_download(got.w, dz, zb);
	expect_close("tx vs the CPU", c->tx, got.u, c->nxf, 0, 0);
	expect_close("ty vs the CPU", c->ty, got.v, c->nyf, 0, 0);
	expect_close("tz vs the CPU", c->tz, got.w, c->nzf, 0, 0);
	expect_close("tx vs the grid's", g->tx, got.u, c->nxf, 0, 0);
	expect_close("ty vs the grid's", g->ty, got.v, c->nyf, 0, 0);
	expect_close("tz vs the grid's", g->tz, got.w, c->nzf, 0, 0);
}

/* Both norms of field f, GPU against CPU (bounds at the top). */
static void expect_norms(const struct tcase *c, const struct west_kgrid *dk,
			 const char *what, const struct faces *f)
{
	double ref[2], got[2] = { NAN, NAN };
	double rtol = 2.0 * (double)c->nc * 0x1p-53;

	cr_assert_eq(west_divergence_norms_cpu(&c->kg, f->u, f->v, f->w, ref), WEST_OK);
	launched("divergence_norms",
		 west_divergence_norms_cuda(dk, dev_upload(f->u, c->nxf * sizeof(float)),
					    dev_upload(f->v, c->nyf * sizeof(float)),
					    dev_upload(f->w, c->nzf * sizeof(float)), got));
	cr_expect_gt(ref[0], 0, "%s: %s: the field must have divergence", context, what);
	cr_expect_eq(got[0], ref[0], "%s: %s: max|D| cpu %.17g, gpu %.17g", context, what,
		     ref[0], got[0]);
	cr_expect_leq(fabs(got[1] - ref[1]), rtol * ref[1],
		      "%s: %s: sum D^2 cpu %.17g, gpu %.17g (rtol %.3g)", context, what,
		      ref[1], got[1], rtol);
}

static void step_norms(const struct tcase *c)
{
	struct west_kgrid dk = dev_kgrid(c);
	struct faces start = { c->u, c->v, c->w };
	struct faces swept = cpu_swept(c, NSWEEP, 1.25f, 1.0f, WEST_KINDEX_COMPACT);

	expect_norms(c, &dk, "step 6 field", &start);
	expect_norms(c, &dk, "after 25 iterations", &swept);
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
static void step_divremoval(const struct tcase *c)
{
	struct west_kgrid dk = dev_kgrid(c);
	const struct west_kgrid *kg = &c->kg;
	struct faces s = cpu_swept(c, NSWEEP, 1.25f, 1.0f, WEST_KINDEX_COMPACT);
	size_t wb = c->nzf * sizeof(float);
	float *ref, *got = hbuf(wb), *dw;

	for (size_t k = 0; k <= kg->nz; k++)
		for (size_t j = 0; j < kg->ny; j++)
			for (size_t i = 0; i < kg->nx; i++)
				if (!zface_fixed(kg, i, j, k))
					s.w[west_kc(kg->nx, kg->ny, i, j, k)] = NAN;
	ref = hdup(s.w, wb);
	cr_assert_eq(west_divremoval_cpu(kg, s.u, s.v, ref), WEST_OK);
	dw = dev_upload(s.w, wb);
	launched("divremoval", west_divremoval_cuda(&dk, dev_upload(s.u, c->nxf * sizeof(float)),
						    dev_upload(s.v, c->nyf * sizeof(float)), dw));
	dev_download(got, dw, wb);
	expect_close("w", ref, got, c->nzf, (double)kg->nz * ATOL_V, RTOL);
}

/* ---- the sweep -------------------------------------------------------------- */

/* NSWEEP iterations, masked and compact, CPU and GPU: all four identical. */
static void check_sweep(const struct tcase *c, float omega, float eta)
{
	struct west_kgrid dk = dev_kgrid(c);
	struct faces ref = cpu_swept(c, NSWEEP, omega, eta, WEST_KINDEX_MASKED);
	struct faces refc = cpu_swept(c, NSWEEP, omega, eta, WEST_KINDEX_COMPACT);
	struct faces gm = gpu_swept(c, &dk, NSWEEP, omega, eta, WEST_KINDEX_MASKED);
	struct faces gc = gpu_swept(c, &dk, NSWEEP, omega, eta, WEST_KINDEX_COMPACT);

	cr_expect_neq(memcmp(ref.u, c->u, c->nxf * sizeof(float)), 0,
		      "%s: the sweeps must move the field", context);
	expect_same_faces(c, "masked, cpu vs gpu", &ref, &gm);
	expect_same_faces(c, "compact, cpu vs gpu", &refc, &gc);
	expect_same_faces(c, "gpu, masked vs compact", &gm, &gc);
}

static void sweep_125(const struct tcase *c)
{
	check_sweep(c, 1.25f, 1.0f);
}

static void sweep_178(const struct tcase *c)
{
	check_sweep(c, 1.78f, 0.5f);
}

/* ---- the backend ------------------------------------------------------------ */

static void be_upload(const struct west_backend *be, void *state, const struct west_grid *g)
{
	char err[WEST_ERRLEN] = "";
	cr_assert_eq(be->upload_terrain(state, g, err, sizeof err), WEST_OK,
		     "%s: %s upload_terrain: %s", context, be->name, err);
}

/* A new state of be, with g uploaded unless g is NULL. */
static void *be_open(const struct west_backend *be, const struct west_grid *g)
{
	void *state = NULL;
	char err[WEST_ERRLEN] = "";

	cr_assert_eq(be->init(&state, err, sizeof err), WEST_OK, "%s init: %s", be->name, err);
	if (g)
		be_upload(be, state, g);
	return state;
}

/* A run into f, made here for g and poisoned first. */
static void be_run(const struct west_backend *be, void *state, const struct west_grid *g,
		   const struct west_obs_set *obs, const struct west_solve_opts *o,
		   struct west_field *f)
{
	char err[WEST_ERRLEN] = "";

	cr_assert_not_null(be->run, "the %s backend has no run", be->name);
	cr_assert_eq(west_field_init(f, g, err, sizeof err), WEST_OK, "%s", err);
	memset(f->u, 0xFF, west_grid_nxfaces(g) * sizeof(float));
	memset(f->v, 0xFF, west_grid_nyfaces(g) * sizeof(float));
	memset(f->w, 0xFF, west_grid_nzfaces(g) * sizeof(float));
	memset(f->stability, 0xFF, g->nx * g->ny);
	f->valid_time = -1;
	cr_assert_eq(be->run(state, obs, o, f, NULL, NULL, err, sizeof err), WEST_OK,
		     "%s: %s run: %s", context, be->name, err);
}

/* One run on a fresh state of be. */
static void be_solve(const struct west_backend *be, const struct west_grid *g,
		     const struct west_obs_set *obs, const struct west_solve_opts *o,
		     struct west_field *f)
{
	void *state = be_open(be, g);
	be_run(be, state, g, obs, o, f);
	be->free(state);
}

/* The relative-plus-absolute bound on a reported max|D| (top of file). */
static void expect_div(const char *what, const struct west_grid *g, double cpu,
		       double gpu, double eh, double ev)
{
	double hz = INFINITY;
	for (size_t k = 0; k < g->nz; k++)
		hz = fmin(hz, g->zf[k + 1] - g->zf[k]);
	double atol = 4 * (eh * (1 / g->dx + 1 / g->dy) + ev / hz);
	cr_expect_leq(fabs(gpu - cpu), 1e-3 * cpu + atol,
		      "%s: %s max|D|: cpu %.9g, gpu %.9g 1/s (bound 1e-3 |cpu| + %.3g)",
		      context, what, cpu, gpu, atol);
}

/* A CUDA solve against the CPU's solve of the same problem (top of file). */
static void expect_solve_matches(const struct west_grid *g, const struct west_obs_set *obs,
				 const struct west_field *cpu, const struct west_field *gpu)
{
	const struct west_report *rc = &cpu->report, *rg = &gpu->report;
	size_t nxf = west_grid_nxfaces(g), nyf = west_grid_nyfaces(g);
	size_t nzf = west_grid_nzfaces(g);
	double U = fmax(fmax(max_abs(cpu->u, nxf), max_abs(cpu->v, nyf)), max_abs(cpu->w, nzf));
	double e0 = 8 * 0x1p-24 * U, e = (double)(1 + rc->iterations) * e0;
	double ew = e * (1 + 2 * g->zf[g->nz] * (1 / g->dx + 1 / g->dy));
	double du, dv, dw;

	cr_expect_str_eq(rc->backend, "cpu");
	cr_expect_str_eq(rg->backend, "cuda");
	expect_identical("stability", cpu->stability, gpu->stability, g->nx * g->ny, 1);
	du = expect_close("u", cpu->u, gpu->u, nxf, e, 0);
	dv = expect_close("v", cpu->v, gpu->v, nyf, e, 0);
	dw = expect_close("w", cpu->w, gpu->w, nzf, ew, 0);
	cr_log_info("%s: cuda vs cpu after %ld iterations: max |du| %.3g, |dv| %.3g, |dw| %.3g m/s"
		    " (bounds %.3g, %.3g m/s; U %.3g m/s)", context, rc->iterations, du, dv, dw,
		    e, ew, U);
	cr_expect_eq(gpu->valid_time, obs->valid_time, "%s: valid time", context);
	cr_expect_eq(rg->iterations, rc->iterations, "%s: iterations cpu %ld, gpu %ld", context,
		     rc->iterations, rg->iterations);
	cr_expect_eq(rg->converged, rc->converged, "%s: converged", context);
	expect_div("start", g, rc->start.max_div, rg->start.max_div, e0, e0);
	expect_div("end", g, rc->end.max_div, rg->end.max_div, e, e);
	expect_div("final", g, rc->final.max_div, rg->final.max_div, e, ew);
}

/* Two CUDA solves that must agree bit for bit. */
static void expect_same_field(const char *what, const struct west_grid *g,
			      const struct west_field *a, const struct west_field *b)
{
	char name[96];

	snprintf(name, sizeof name, "%s, u", what);
	expect_identical(name, a->u, b->u, west_grid_nxfaces(g), sizeof(float));
	snprintf(name, sizeof name, "%s, v", what);
	expect_identical(name, a->v, b->v, west_grid_nyfaces(g), sizeof(float));
	snprintf(name, sizeof name, "%s, w", what);
	expect_identical(name, a->w, b->w, west_grid_nzfaces(g), sizeof(float));
	snprintf(name, sizeof name, "%s, stability", what);
	expect_identical(name, a->stability, b->stability, g->nx * g->ny, 1);
	cr_expect_eq(a->report.iterations, b->report.iterations, "%s: %s: iterations",
		     context, what);
	cr_expect_eq(a->report.end.max_div, b->report.end.max_div, "%s: %s: end max|D|",
		     context, what);
	cr_expect_eq(a->valid_time, b->valid_time, "%s: %s: valid time", context, what);
}

static void solve_opts(struct west_solve_opts *o, enum west_indexing ix)
{
	fix_opts(o, NITER, 0, 1.25, ix);   /* tolerance 0: all NITER iterations */
}

/* (a, b) The CUDA run against the CPU run. */
static void backend_matches_cpu(const struct tcase *c)
{
	struct west_solve_opts o;
	struct west_field fc, fg;

	solve_opts(&o, WEST_INDEXING_COMPACT);
	be_solve(&west_backend_cpu, &c->g, &c->obs, &o, &fc);
	be_solve(&west_backend_cuda, &c->g, &c->obs, &o, &fg);
	cr_expect_eq(fc.report.iterations, NITER, "tolerance 0: every iteration is done");
	expect_solve_matches(&c->g, &c->obs, &fc, &fg);
	west_field_free(&fc);
	west_field_free(&fg);
}

/* (c) Two observation sets on one state = the same on two fresh states. */
static void backend_resident(const struct tcase *c)
{
	const struct west_backend *be = &west_backend_cuda;
	struct west_obs_set other = { 0 };
	struct west_solve_opts o;
	struct west_field a1, b1, a2, b2;
	void *state;

	spread_stations(&other, 3, &c->g);
	solve_opts(&o, WEST_INDEXING_COMPACT);
	state = be_open(be, &c->g);
	be_run(be, state, &c->g, &c->obs, &o, &a1);
	be_run(be, state, &c->g, &other, &o, &b1);
	be->free(state);
	be_solve(be, &c->g, &c->obs, &o, &a2);
	be_solve(be, &c->g, &other, &o, &b2);
	expect_same_field("first set, resident vs fresh", &c->g, &a1, &a2);
	expect_same_field("second set, resident vs fresh", &c->g, &b1, &b2);
	west_field_free(&a1);
	west_field_free(&b1);
	west_field_free(&a2);
	west_field_free(&b2);
	west_obs_set_free(&other);
}

/* (c) A second, larger terrain on the same state, against the CPU on it. */
static void backend_reupload(const struct tcase *c)
{
	const struct west_backend *be = &west_backend_cuda;
	struct west_grid g2;
	struct west_obs_set obs2 = { 0 };
	struct west_solve_opts o;
	struct west_field f1, f2, f2c;
	void *state;

	fix_grid(&g2, 41, 33, 30, 12, 12.5, 70, 180);   /* more cells than c->g */
	cr_assert_gt(west_grid_ncells(&g2), c->nc);
	spread_stations(&obs2, 7, &g2);
	solve_opts(&o, WEST_INDEXING_COMPACT);
	state = be_open(be, &c->g);
	be_run(be, state, &c->g, &c->obs, &o, &f1);
	be_upload(be, state, &g2);
	context = "second terrain, 41 x 33 x 12";
	be_run(be, state, &g2, &obs2, &o, &f2);
	be->free(state);
	be_solve(&west_backend_cpu, &g2, &obs2, &o, &f2c);
	expect_solve_matches(&g2, &obs2, &f2c, &f2);
	west_field_free(&f1);
	west_field_free(&f2);
	west_field_free(&f2c);
	west_obs_set_free(&obs2);
	west_grid_free(&g2);
}

/* (c) run before any upload_terrain: an error with a message. */
static void backend_no_terrain(const struct tcase *c)
{
	const struct west_backend *be = &west_backend_cuda;
	struct west_solve_opts o;
	struct west_field f;
	char err[WEST_ERRLEN] = "";
	void *state = be_open(be, NULL);
	enum west_status st;

	cr_assert_not_null(be->run, "the cuda backend has no run");
	solve_opts(&o, WEST_INDEXING_COMPACT);
	cr_assert_eq(west_field_init(&f, &c->g, err, sizeof err), WEST_OK, "%s", err);
	st = be->run(state, &c->obs, &o, &f, NULL, NULL, err, sizeof err);
	cr_expect_neq(st, WEST_OK, "run without terrain must fail");
	cr_expect_neq(err[0], '\0', "run without terrain must say why");
	cr_log_info("run before upload_terrain: %s: %s", west_status_str(st), err);
	be->free(state);
	west_field_free(&f);
}

/* (c) 3 stations, then 40 (capacity growth), then 3 again, on one state. */
static void backend_station_growth(const struct tcase *c)
{
	const struct west_backend *be = &west_backend_cuda;
	struct west_obs_set few = { 0 }, many = { 0 };
	struct west_solve_opts o;
	struct west_field f3, f40, f3b, f40c;
	void *state;

	spread_stations(&few, 3, &c->g);
	spread_stations(&many, 40, &c->g);
	solve_opts(&o, WEST_INDEXING_COMPACT);
	state = be_open(be, &c->g);
	be_run(be, state, &c->g, &few, &o, &f3);
	be_run(be, state, &c->g, &many, &o, &f40);
	be_run(be, state, &c->g, &few, &o, &f3b);
	be->free(state);
	be_solve(&west_backend_cpu, &c->g, &many, &o, &f40c);
	expect_solve_matches(&c->g, &many, &f40c, &f40);
	expect_same_field("3 stations, before and after 40", &c->g, &f3, &f3b);
	west_field_free(&f3);
	west_field_free(&f40);
	west_field_free(&f3b);
	west_field_free(&f40c);
	west_obs_set_free(&few);
	west_obs_set_free(&many);
}

/* (d) Resident bytes: at least u, v, w, tx, ty, tz (floats) and land per cell. */
static void backend_device_bytes(const struct tcase *c)
{
	const struct west_backend *be = &west_backend_cuda;
	struct west_solve_opts o;
	struct west_field f;
	void *state = be_open(be, &c->g);
	size_t up = be->device_bytes(state), ran;

	solve_opts(&o, WEST_INDEXING_COMPACT);
	be_run(be, state, &c->g, &c->obs, &o, &f);
	ran = be->device_bytes(state);
	cr_log_info("device bytes: %zu after upload (%.1f per cell), %zu after a run (%.1f per cell)",
		    up, (double)up / (double)c->nc, ran, (double)ran / (double)c->nc);
	cr_expect_gt(up, 0);
	cr_expect_geq(up, 25 * c->nc, "%zu bytes for %zu cells after upload", up, c->nc);
	cr_expect_geq(ran, 25 * c->nc, "%zu bytes for %zu cells after a run", ran, c->nc);
	be->free(state);
	west_field_free(&f);
}

/* (e) masked and compact through the backend: bit-identical fields. */
static void backend_masked_compact(const struct tcase *c)
{
	struct west_solve_opts o;
	struct west_field fm, fc;

	solve_opts(&o, WEST_INDEXING_MASKED);
	be_solve(&west_backend_cuda, &c->g, &c->obs, &o, &fm);
	solve_opts(&o, WEST_INDEXING_COMPACT);
	be_solve(&west_backend_cuda, &c->g, &c->obs, &o, &fc);
	cr_expect_str_eq(fm.report.indexing, "masked");
	cr_expect_str_eq(fc.report.indexing, "compact");
	expect_same_field("masked vs compact", &c->g, &fm, &fc);
	west_field_free(&fm);
	west_field_free(&fc);
}

#endif /* WEST_HAVE_CUDA */

/* ---- the tests -------------------------------------------------------------- */

Test(cuda_steps, stability)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(step_stability, NCASES));
}

Test(cuda_steps, extrapolate)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(step_extrapolate, NCASES));
}

Test(cuda_steps, initialize)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(step_initialize, NCASES));
}

Test(cuda_steps, land)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(step_land, NCASES));
}

Test(cuda_steps, interpolate)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(step_interpolate, NCASES));
}

Test(cuda_steps, speed_zero)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(step_speed_zero, NCASES));
}

Test(cuda_steps, transparency)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(step_transparency, NCASES));
}

Test(cuda_steps, divergence_norms)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(step_norms, NCASES));
}

Test(cuda_steps, divremoval)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(step_divremoval, NCASES));
}

Test(cuda_sweep, bit_identical_omega_1_25)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(sweep_125, NCASES));
}

Test(cuda_sweep, bit_identical_omega_1_78_eta_0_5)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(sweep_178, NCASES));
}

Test(cuda_backend, run_matches_cpu)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(backend_matches_cpu, NCASES));
}

Test(cuda_backend, resident_state_matches_fresh_states)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(backend_resident, 1));
}

Test(cuda_backend, second_terrain_upload)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(backend_reupload, 1));
}

Test(cuda_backend, run_before_upload_fails)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(backend_no_terrain, 1));
}

Test(cuda_backend, station_capacity_grows)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(backend_station_growth, 1));
}

Test(cuda_backend, device_bytes_per_cell)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(backend_device_bytes, 1));
}

Test(cuda_backend, masked_equals_compact)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(backend_masked_compact, NCASES));
}
