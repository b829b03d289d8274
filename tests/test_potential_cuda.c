/*
 * test_potential_cuda.c: the CUDA launchers of the potential form
 * (kernels/potential.cu) against their CPU references (kernels/potential.c),
 * and a multigrid solve on the CUDA backend against the CPU backend.
 *
 * Kernels: a hierarchy is built on the host (west_mg_build, eta 0.7) for a
 * Gaussian hill with land (37 x 29 columns of 40 m, odd sizes, hill 90 m),
 * once with 11 uniform levels of 15 m and once with 10 stretched levels.
 * Every e and b of every level, and the conjugate-gradient vectors p and
 * q, get deterministic pseudo-random values on the cells (0 on the slots
 * without a cell), and the whole block goes to the device with one copy
 * (west_mg_rebase points a second struct west_mg into it).  Each launcher
 * then runs on the device copy and its reference on the host copy, with
 * the same inputs, and the whole block comes back and must equal the
 * host's byte for byte: the outputs, and every array the operation must
 * not touch.  The operations are chained (each starts from the state the
 * last one left, equal on both sides), and a mismatch names the array and
 * element.
 *
 * Bounds: 0 (memcmp) for every operation but the dot product.  The CPU
 * references are built with -ffp-contract=off and the kernels with
 * --fmad=false, both evaluate the per-cell bodies of potential_util.h
 * (same operations, same order, IEEE binary32 round-to-nearest, division
 * correctly rounded), and no two cells of a colour share a face, so the
 * order of the cells does not matter (kernels.h).  The dot product sums
 * in double in another order: within 1e-12 of sum |x_i y_i|.  Each
 * product of two floats is exact in double and each addition is off by
 * at most 2^-53 of a partial sum, so n terms in any order stay within
 * n 2^-53 sum |x y| (1.2e-10 at 2^20 terms); the errors of random sign
 * grow as sqrt(n) 2^-53 (1.1e-13 at 2^20), which 1e-12 holds with a
 * factor 9; one lost element or block moves the sum by ~1e-6 of it or
 * more.
 *
 * Solve: the CUDA backend against the CPU backend, solver multigrid,
 * tolerance 1e-5, on the same hill.  The two differ only where steps 2-3
 * call powf, sinf, cosf (a few ulp) and in the dot products' order (which
 * moves alpha and beta by ~1e-16 relative before they are rounded to
 * float), so: the same iteration count within 1, and every u, v, w within
 * 1e-4 U_ref.
 *
 * Every test calls gpu_skip_unless_usable() first: without CUDA in the
 * build, or without a usable device, each test exists and skips with the
 * reason.  The bodies are compiled only with WEST_HAVE_CUDA, and every
 * CUDA runtime call is checked.  Each test frees what it allocated, host
 * and device.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "kernels.h"
#include "model_fixture.h"
#include "multigrid.h"

#ifdef WEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#define ON_GPU(call) call
#else
#define ON_GPU(call) ((void)0)
#endif

#ifdef WEST_HAVE_CUDA

#define ETA 0.7
#define NCASES 2

static const double stretched[] = { 0, 6, 14, 24, 36, 50, 66, 85, 108, 135, 170 };

/* The case being checked, for every message. */
static const char *context = "";

/* ---- device memory of the running test ---------------------------------- */

static struct {
	void *p[32];
	size_t n;
} dpool;

static void ck(cudaError_t e, const char *call)
{
	cr_assert_eq(e, cudaSuccess, "%s: %s: %s", context, call, cudaGetErrorString(e));
}
#define CK(call) ck((call), #call)

/* A new device buffer, 0xFF in every byte (NaN as a float). */
static void *dev_alloc(size_t bytes)
{
	void *d = NULL;
	cr_assert_lt(dpool.n, sizeof dpool.p / sizeof dpool.p[0], "device pool full");
	CK(cudaMalloc(&d, bytes));
	dpool.p[dpool.n++] = d;
	CK(cudaMemset(d, 0xFF, bytes));
	return d;
}

static void *dev_upload(const void *host, size_t bytes)
{
	void *d = dev_alloc(bytes);
	CK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
	return d;
}

static void dev_download(void *host, const void *d, size_t bytes)
{
	CK(cudaMemcpy(host, d, bytes, cudaMemcpyDeviceToHost));
}

/* A launcher's status, then the device's once its kernels have run. */
static void launched(const char *what, enum west_status st)
{
	cr_assert_eq(st, WEST_OK, "%s: west_%s_cuda: %s", context, what, west_status_str(st));
	CK(cudaDeviceSynchronize());
}

static void dev_free_all(void)
{
	for (size_t i = 0; i < dpool.n; i++)
		CK(cudaFree(dpool.p[i]));
	dpool.n = 0;
}

/* ---- random values ------------------------------------------------------ */

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
static void fill(const struct west_plevel *l, float *x, uint64_t seed, double scale)
{
	uint64_t s = seed;
	memset(x, 0, 2 * l->ncol * sizeof *x);
	for (size_t k = 0; k < l->nz; k++)
		for (size_t j = 0; j < l->ny; j++)
			for (size_t i = 0; i < l->nx; i++)
				x[slot(l, i, j, k)] = (float)(scale * rnd(&s));
}

/* ---- the case: a hill, its hierarchy on both sides ------------------------ */

struct pcase {
	struct west_grid g;
	struct west_levels lv;
	struct west_kgrid kg, dkg;  /* host and device views of the grid */
	struct west_mg h, d;        /* the hierarchy: host block, device block */
	unsigned char *got;         /* the device block, downloaded */
	size_t nxf, nyf, nzf;
};

static struct west_kgrid dev_kgrid(const struct pcase *c)
{
	struct west_kgrid d = c->kg;
	size_t nz = c->g.nz;

	d.zc = dev_upload(c->kg.zc, nz * sizeof(float));
	d.rdz = dev_upload(c->kg.rdz, nz * sizeof(float));
	d.rdzf = dev_upload(c->kg.rdzf, (nz + 1) * sizeof(float));
	d.ground = dev_upload(c->kg.ground, c->g.nx * c->g.ny * sizeof(float));
	d.land = dev_upload(c->kg.land, west_grid_ncells(&c->g));
	d.tx = dev_upload(c->kg.tx, c->nxf * sizeof(float));
	d.ty = dev_upload(c->kg.ty, c->nyf * sizeof(float));
	d.tz = dev_upload(c->kg.tz, c->nzf * sizeof(float));
	return d;
}

/* Random e, b on every level and p, q on level 0's layout. */
static void fill_block(struct west_mg *h)
{
	for (int L = 0; L < h->nlevels; L++) {
		const struct west_plevel *l = &h->lv[L];
		fill(l, l->e, 101 + 2 * (uint64_t)L, 20.0);
		fill(l, l->b, 102 + 2 * (uint64_t)L, 1000.0);
	}
	fill(&h->lv[0], h->p, 7, 10.0);
	fill(&h->lv[0], h->q, 8, 10.0);
}

/* Case `which`: 0 eleven levels of 15 m, 1 stretched levels. */
static void case_init(struct pcase *c, int which)
{
	struct west_config *conf = malloc(sizeof *conf);
	char err[WEST_ERRLEN] = "";

	cr_assert_not_null(conf);
	memset(c, 0, sizeof *c);
	west_config_defaults(conf);
	if (which == 0) {
		context = "hill, 11 levels of 15 m";
		conf->nz = 11, conf->dz = 15;
	} else {
		context = "hill, 10 stretched levels";
		memcpy(conf->levels, stretched, sizeof stretched);
		conf->nlevels = sizeof stretched / sizeof stretched[0];
	}
	fix_grid_conf(&c->g, 37, 29, 40, conf, 90, 250);
	free(conf);
	cr_assert_gt(c->g.land_cells, 0, "%s: the hill must make land", context);
	c->nxf = west_grid_nxfaces(&c->g);
	c->nyf = west_grid_nyfaces(&c->g);
	c->nzf = west_grid_nzfaces(&c->g);
	cr_assert_eq(west_levels_init(&c->lv, &c->g, err, sizeof err), WEST_OK, "%s", err);
	west_kgrid_init(&c->kg, &c->g, &c->lv);
	cr_assert_eq(west_mg_build(&c->h, &c->g, ETA, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_geq(c->h.nlevels, 3, "%s: a few levels", context);
	fill_block(&c->h);
	west_mg_rebase(&c->d, &c->h, dev_upload(c->h.base, c->h.bytes));
	c->dkg = dev_kgrid(c);
	c->d.lv[0].tx = c->dkg.tx, c->d.lv[0].ty = c->dkg.ty;   /* not in the block */
	c->got = malloc(c->h.bytes);
	cr_assert_not_null(c->got);
}

static void case_free(struct pcase *c)
{
	free(c->got);
	west_mg_free(&c->h);
	west_levels_free(&c->lv);
	west_grid_free(&c->g);
	dev_free_all();
}

static void run_cases(void (*check)(struct pcase *c))
{
	for (int which = 0; which < NCASES; which++) {
		struct pcase c;
		case_init(&c, which);
		check(&c);
		case_free(&c);
	}
}

/* ---- comparing the blocks ------------------------------------------------- */

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

/* The device block equal to the host block, byte for byte, after `what`. */
static void expect_same_block(struct pcase *c, const char *what)
{
	const unsigned char *ref = c->h.base;
	size_t n = c->h.bytes, bad = 0, first = 0;
	char where[96] = "";

	dev_download(c->got, c->d.base, n);
	for (size_t i = 0; i < n; i++)
		if (ref[i] != c->got[i] && !bad++)
			first = i;
	if (bad) {
		size_t at = first & ~(size_t)3;
		float x, y;
		memcpy(&x, ref + at, 4);
		memcpy(&y, c->got + at, 4);
		locate(&c->h, first, where, sizeof where);
		cr_assert_fail("%s: %s: %zu of %zu bytes differ; first at %s: cpu %.9g, gpu %.9g "
			       "(as floats)", context, what, bad, n, where, (double)x, (double)y);
	}
}

/* ---- the kernels ---------------------------------------------------------- */

static void smooth_once(struct pcase *c, int L, float omega, int colour)
{
	char what[96];

	cr_assert_eq(west_pot_smooth_cpu(&c->h.lv[L], omega, colour), WEST_OK);
	launched("pot_smooth", west_pot_smooth_cuda(&c->d.lv[L], omega, colour));
	snprintf(what, sizeof what, "pot_smooth level %d colour %d omega %g", L, colour,
		 (double)omega);
	expect_same_block(c, what);
}

/* Colour passes on level 0 (codes and kf), level 1 and the coarsest level
 * (conductances), both colours, omega 1 and 1.6; they must move e. */
static void check_smooth(struct pcase *c)
{
	int levels[3] = { 0, 1, c->h.nlevels - 1 };
	unsigned char *before = malloc(c->h.bytes);

	cr_assert_not_null(before);
	memcpy(before, c->h.base, c->h.bytes);
	for (int n = 0; n < 3; n++)
		for (int colour = 0; colour < 2; colour++) {
			smooth_once(c, levels[n], 1.0f, colour);
			smooth_once(c, levels[n], 1.6f, colour);
		}
	cr_expect_neq(memcmp(before, c->h.base, c->h.bytes), 0, "%s: the passes moved nothing",
		      context);
	free(before);
}

static void check_restrict(struct pcase *c)
{
	char what[64];
	for (int L = 0; L + 1 < c->h.nlevels; L++) {
		cr_assert_eq(west_pot_restrict_cpu(&c->h.lv[L], &c->h.lv[L + 1]), WEST_OK);
		launched("pot_restrict", west_pot_restrict_cuda(&c->d.lv[L], &c->d.lv[L + 1]));
		snprintf(what, sizeof what, "pot_restrict level %d to %d", L, L + 1);
		expect_same_block(c, what);
	}
}

static void check_prolong(struct pcase *c)
{
	char what[64];
	for (int L = c->h.nlevels - 2; L >= 0; L--) {
		cr_assert_eq(west_pot_prolong_cpu(&c->h.lv[L + 1], &c->h.lv[L]), WEST_OK);
		launched("pot_prolong", west_pot_prolong_cuda(&c->d.lv[L + 1], &c->d.lv[L]));
		snprintf(what, sizeof what, "pot_prolong level %d to %d", L + 1, L);
		expect_same_block(c, what);
	}
}

/* The coarsest level with the hierarchy's sweep count, and level 1 (more
 * slots than the one block has threads) with 3. */
static void check_coarse(struct pcase *c)
{
	int last = c->h.nlevels - 1;

	cr_assert_eq(west_pot_coarse_cpu(&c->h.lv[last], c->h.coarse_sweeps), WEST_OK);
	launched("pot_coarse", west_pot_coarse_cuda(&c->d.lv[last], c->h.coarse_sweeps));
	expect_same_block(c, "pot_coarse, coarsest level");
	cr_assert_gt(2 * c->h.lv[1].ncol, 256);
	cr_assert_eq(west_pot_coarse_cpu(&c->h.lv[1], 3), WEST_OK);
	launched("pot_coarse", west_pot_coarse_cuda(&c->d.lv[1], 3));
	expect_same_block(c, "pot_coarse, level 1");
}

/* q = A p on level 0; b = A e on the coarser levels. */
static void check_matvec(struct pcase *c)
{
	char what[64];

	cr_assert_eq(west_pot_matvec_cpu(&c->h.lv[0], c->h.p, c->h.q), WEST_OK);
	launched("pot_matvec", west_pot_matvec_cuda(&c->d.lv[0], c->d.p, c->d.q));
	expect_same_block(c, "pot_matvec level 0");
	for (int L = 1; L < c->h.nlevels; L++) {
		const struct west_plevel *h = &c->h.lv[L], *d = &c->d.lv[L];
		cr_assert_eq(west_pot_matvec_cpu(h, h->e, h->b), WEST_OK);
		launched("pot_matvec", west_pot_matvec_cuda(d, d->e, d->b));
		snprintf(what, sizeof what, "pot_matvec level %d", L);
		expect_same_block(c, what);
	}
}

/* Face velocities on the host, |.| < 5 m/s, 0 on closed faces. */
struct faces {
	float *u, *v, *w;
};

static float *random_faces(const float *t, size_t n, uint64_t seed)
{
	float *f = malloc(n * sizeof *f);
	uint64_t s = seed;
	cr_assert_not_null(f);
	for (size_t i = 0; i < n; i++)
		f[i] = t[i] != 0.0f ? (float)(5 * rnd(&s)) : 0.0f;
	return f;
}

static struct faces faces_new(const struct pcase *c, uint64_t seed)
{
	return (struct faces){ random_faces(c->g.tx, c->nxf, seed),
			       random_faces(c->g.ty, c->nyf, seed + 1),
			       random_faces(c->g.tz, c->nzf, seed + 2) };
}

static void faces_free(struct faces *f)
{
	free(f->u), free(f->v), free(f->w);
}

/* Level 0's b from the same faces on both sides. */
static void check_rhs(struct pcase *c)
{
	struct faces f = faces_new(c, 201);
	float *du = dev_upload(f.u, c->nxf * sizeof(float));
	float *dv = dev_upload(f.v, c->nyf * sizeof(float));
	float *dw = dev_upload(f.w, c->nzf * sizeof(float));

	double hn[2], dn[2], plain[2];
	cr_assert_eq(west_pot_rhs_cpu(&c->kg, &c->h.lv[0], f.u, f.v, f.w, hn), WEST_OK);
	launched("pot_rhs", west_pot_rhs_cuda(&c->dkg, &c->d.lv[0], du, dv, dw, dn));
	expect_same_block(c, "pot_rhs");
	/* the norms of the same pass: the max exact, the sum to rounding, and
	 * both those of west_divergence_norms_cuda */
	launched("norms", west_divergence_norms_cuda(&c->dkg, du, dv, dw, plain));
	cr_expect_eq(dn[0], hn[0], "max |D|: GPU %.17g, CPU %.17g", dn[0], hn[0]);
	cr_expect_leq(fabs(dn[1] - hn[1]), 1e-12 * hn[1], "sum D^2: GPU %.17g, CPU %.17g",
		      dn[1], hn[1]);
	cr_expect_eq(dn[0], plain[0]);
	cr_expect_eq(dn[1], plain[1], "the rhs pass and the norms kernel sum alike");
	faces_free(&f);
}

static void expect_same_faces(const char *what, const float *ref, const float *dev, size_t n)
{
	float *got = malloc(n * sizeof *got);
	size_t bad = 0, first = 0;

	cr_assert_not_null(got);
	dev_download(got, dev, n * sizeof *got);
	for (size_t i = 0; i < n; i++)
		if (memcmp(&ref[i], &got[i], sizeof *got) != 0 && !bad++)
			first = i;
	cr_expect_eq(bad, 0, "%s: pot_apply: %s: %zu of %zu faces differ; first [%zu]: cpu %.9g, "
		     "gpu %.9g", context, what, bad, n, first, (double)ref[first],
		     (double)got[first]);
	free(got);
}

/* u += alpha T grad e (level 0's e) on the same faces: the faces bit for
 * bit, and the block untouched. */
static void check_apply(struct pcase *c)
{
	struct faces f = faces_new(c, 301);
	float *u0 = malloc(c->nxf * sizeof *u0);
	float *du = dev_upload(f.u, c->nxf * sizeof(float));
	float *dv = dev_upload(f.v, c->nyf * sizeof(float));
	float *dw = dev_upload(f.w, c->nzf * sizeof(float));

	cr_assert_not_null(u0);
	memcpy(u0, f.u, c->nxf * sizeof *u0);
	cr_assert_eq(west_pot_apply_cpu(&c->kg, &c->h.lv[0], (float)ETA, 0.75f, c->h.lv[0].e,
					 f.u, f.v, f.w), WEST_OK);
	launched("pot_apply", west_pot_apply_cuda(&c->dkg, &c->d.lv[0], (float)ETA, 0.75f,
						  c->d.lv[0].e, du, dv, dw));
	cr_expect_neq(memcmp(u0, f.u, c->nxf * sizeof *u0), 0, "%s: pot_apply moved no face",
		      context);
	expect_same_faces("u", f.u, du, c->nxf);
	expect_same_faces("v", f.v, dv, c->nyf);
	expect_same_faces("w", f.w, dw, c->nzf);
	expect_same_block(c, "pot_apply (block untouched)");
	free(u0);
	faces_free(&f);
}

/* q = p + beta q over n = 2 ncol, then q = 0 over n - 1 (the last stays). */
static void check_vectors(struct pcase *c)
{
	size_t n = 2 * c->h.lv[0].ncol;

	cr_assert_eq(west_pot_xpby_cpu(n, c->h.p, -0.625f, c->h.q), WEST_OK);
	launched("pot_xpby", west_pot_xpby_cuda(n, c->d.p, -0.625f, c->d.q));
	expect_same_block(c, "pot_xpby");
	cr_assert_eq(west_pot_zero_cpu(n - 1, c->h.q), WEST_OK);
	launched("pot_zero", west_pot_zero_cuda(n - 1, c->d.q));
	expect_same_block(c, "pot_zero");
}

/* Both dot products of n elements, within 1e-12 of sum |x y|. */
static void expect_dot(const char *what, size_t n, const float *x, const float *y,
		       const float *dx, const float *dy)
{
	double cpu = 0.0, gpu = 0.0, mag = 0.0;

	for (size_t i = 0; i < n; i++)
		mag += fabs((double)x[i] * y[i]);
	cr_assert_eq(west_pot_dot_cpu(n, x, y, &cpu), WEST_OK);
	cr_assert_eq(west_pot_dot_cuda(n, dx, dy, &gpu), WEST_OK, "%s: west_pot_dot_cuda",
		     context);
	CK(cudaDeviceSynchronize());
	cr_expect_leq(fabs(cpu - gpu), 1e-12 * mag, "%s: %s: cpu %.17g, gpu %.17g (sum |xy| %g)",
		      context, what, cpu, gpu, mag);
	cr_expect_gt(mag, 0.0);
}

/* p.q and e.b of level 0 (a few thousand elements: fewer than one block
 * per 256), and 2^20 + 3 elements (more than the 1024 x 256 threads of the
 * grid-stride reduction). */
static void check_dot(struct pcase *c)
{
	size_t n = 2 * c->h.lv[0].ncol, big = (1u << 20) + 3;
	float *x = malloc(big * sizeof *x), *y = malloc(big * sizeof *y);
	uint64_t s = 401;

	cr_assert(x && y);
	expect_dot("p.q", n, c->h.p, c->h.q, c->d.p, c->d.q);
	expect_dot("e.b", n, c->h.lv[0].e, c->h.lv[0].b, c->d.lv[0].e, c->d.lv[0].b);
	for (size_t i = 0; i < big; i++)
		x[i] = (float)(100 * rnd(&s)), y[i] = (float)rnd(&s);
	expect_dot("2^20 + 3 elements", big, x, y, dev_upload(x, big * sizeof *x),
		   dev_upload(y, big * sizeof *y));
	free(x), free(y);
}

/* ---- the solve -------------------------------------------------------------- */

static void be_solve(const struct west_backend *be, const struct west_grid *g,
		     const struct west_obs_set *obs, const struct west_solve_opts *o,
		     struct west_field *f)
{
	void *state = NULL;
	char err[WEST_ERRLEN] = "";

	cr_assert_eq(west_field_init(f, g, err, sizeof err), WEST_OK, "%s", err);
	memset(f->u, 0xFF, west_grid_nxfaces(g) * sizeof(float));   /* NaN: must be written */
	memset(f->v, 0xFF, west_grid_nyfaces(g) * sizeof(float));
	memset(f->w, 0xFF, west_grid_nzfaces(g) * sizeof(float));
	cr_assert_eq(be->init(&state, err, sizeof err), WEST_OK, "%s init: %s", be->name, err);
	cr_assert_eq(be->upload_terrain(state, g, err, sizeof err), WEST_OK, "%s: %s", be->name,
		     err);
	cr_assert_eq(be->run(state, obs, o, f, NULL, NULL, err, sizeof err), WEST_OK,
		     "%s: %s run: %s", context, be->name, err);
	be->free(state);
}

/* Largest |a - b| over n floats (a NaN counts as infinitely far). */
static double max_diff(const float *a, const float *b, size_t n)
{
	double m = 0.0;
	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)a[i] - b[i]);
		m = d <= m ? m : isnan(d) ? INFINITY : d;
	}
	return m;
}

static void check_solve(struct pcase *c)
{
	struct west_obs_set obs = { 0 };
	struct west_solve_opts o;
	struct west_field fc, fg;
	double w = (double)c->g.nx * c->g.dx, h = (double)c->g.ny * c->g.dy, U, du, dv, dw;

	fix_obs(&obs, "a", 0.15 * w, 0.3 * h, 10, 6, 250, WEST_STAB_D);
	fix_obs(&obs, "b", 0.8 * w, 0.55 * h, 10, 4, 280, WEST_STAB_C);
	fix_obs(&obs, "c", 0.45 * w, 0.9 * h, 15, 5, 230, WEST_STAB_E);
	fix_opts(&o, 0, 1e-5, 1.25, WEST_INDEXING_COMPACT);
	o.solver = WEST_SOLVER_MULTIGRID;
	o.eta = ETA;
	be_solve(&west_backend_cpu, &c->g, &obs, &o, &fc);
	be_solve(&west_backend_cuda, &c->g, &obs, &o, &fg);
	cr_expect_str_eq(fc.report.backend, "cpu");
	cr_expect_str_eq(fg.report.backend, "cuda");
	cr_expect_str_eq(fg.report.solver, "multigrid");
	cr_expect(fc.report.converged && fg.report.converged, "%s: converged cpu %d, gpu %d",
		  context, fc.report.converged, fg.report.converged);
	cr_expect_leq(labs(fg.report.iterations - fc.report.iterations), 1,
		      "%s: iterations cpu %ld, gpu %ld", context, fc.report.iterations,
		      fg.report.iterations);
	U = fc.report.u_ref;
	du = max_diff(fc.u, fg.u, c->nxf);
	dv = max_diff(fc.v, fg.v, c->nyf);
	dw = max_diff(fc.w, fg.w, c->nzf);
	cr_log_info("%s: multigrid cuda vs cpu: %ld and %ld iterations, max |du| %.3g, |dv| %.3g, "
		    "|dw| %.3g m/s (bound %.3g)", context, fg.report.iterations,
		    fc.report.iterations, du, dv, dw, 1e-4 * U);
	cr_expect_leq(du, 1e-4 * U, "%s: max |du| %g m/s", context, du);
	cr_expect_leq(dv, 1e-4 * U, "%s: max |dv| %g m/s", context, dv);
	cr_expect_leq(dw, 1e-4 * U, "%s: max |dw| %g m/s", context, dw);
	west_field_free(&fc);
	west_field_free(&fg);
	west_obs_set_free(&obs);
}

#endif /* WEST_HAVE_CUDA */

/* ---- the tests -------------------------------------------------------------- */

Test(cuda_potential, smooth_bit_identical)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(check_smooth));
}

Test(cuda_potential, restrict_bit_identical)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(check_restrict));
}

Test(cuda_potential, prolong_bit_identical)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(check_prolong));
}

Test(cuda_potential, coarse_bit_identical)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(check_coarse));
}

Test(cuda_potential, matvec_bit_identical)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(check_matvec));
}

Test(cuda_potential, rhs_bit_identical)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(check_rhs));
}

Test(cuda_potential, apply_bit_identical)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(check_apply));
}

Test(cuda_potential, xpby_and_zero_bit_identical)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(check_vectors));
}

Test(cuda_potential, dot_within_rounding)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(check_dot));
}

Test(cuda_potential, multigrid_solve_matches_cpu)
{
	gpu_skip_unless_usable();
	ON_GPU(run_cases(check_solve));
}
