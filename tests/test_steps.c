/*
 * test_steps.c: known-answer unit tests of the CPU reference of each WEST
 * step kernel (kernels.h): stability, extrapolate, initialize, land,
 * interpolate, speed_zero, transparency, divmin_sweep, divergence_norms and
 * divremoval, on small grids built by hand (struct west_kgrid over our own
 * arrays) or from the Gaussian-hill fixture (model_fixture.h).
 *
 * Every expected value is worked out here independently of the kernel, in
 * double where arithmetic is involved.  Tolerances (stated at each test):
 * exact (==) where the contract says "exactly" or the arithmetic is exact
 * in float; otherwise a few float32 ulps (rtol 1e-6 .. 1e-5).  Random
 * fields use rand_r with fixed seeds, so every run sees the same numbers.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_util.h"
#include "kernels.h"
#include "model_fixture.h"

/* ---- helpers -------------------------------------------------------------- */

/* A hand-built grid: the kernels' view over arrays owned here. */
struct hg {
	struct west_kgrid kg;
	float *zc, *rdz, *rdzf, *ground;
	unsigned char *land;
	float *tx, *ty, *tz;
	size_t nc, nxf, nyf, nzf;   /* cells, x-, y-, z-faces */
};

/*
 * nx * ny * nz cells of dx * dy, level thicknesses dz[k] from height 0:
 * zc = level centres, rdz = 1/thickness, rdzf[k] = 1/centre distance
 * across z-face k (ground face: 1/dz[0]; top face: 1/dz[nz-1], a mirrored
 * ghost cell), as west_levels_init does.  Ground 0 under every column; no
 * land; transparencies unset.
 */
static void hg_init(struct hg *h, size_t nx, size_t ny, size_t nz, float dx,
		    float dy, const float *dz)
{
	double zf = 0.0;

	memset(h, 0, sizeof *h);
	h->nc = nx * ny * nz;
	h->nxf = (nx + 1) * ny * nz;
	h->nyf = nx * (ny + 1) * nz;
	h->nzf = nx * ny * (nz + 1);
	h->zc = malloc(nz * sizeof *h->zc);
	h->rdz = malloc(nz * sizeof *h->rdz);
	h->rdzf = malloc((nz + 1) * sizeof *h->rdzf);
	h->land = calloc(h->nc, 1);
	h->ground = calloc(nx * ny, sizeof *h->ground);
	h->tx = malloc(h->nxf * sizeof *h->tx);
	h->ty = malloc(h->nyf * sizeof *h->ty);
	h->tz = malloc(h->nzf * sizeof *h->tz);
	cr_assert(h->zc && h->rdz && h->rdzf && h->ground && h->land && h->tx &&
		  h->ty && h->tz);
	for (size_t k = 0; k < nz; k++) {
		h->zc[k] = (float)(zf + 0.5 * dz[k]);
		h->rdz[k] = (float)(1.0 / dz[k]);
		zf += dz[k];
	}
	h->rdzf[0] = (float)(1.0 / dz[0]);
	for (size_t k = 1; k < nz; k++)
		h->rdzf[k] = (float)(2.0 / ((double)dz[k - 1] + dz[k]));
	h->rdzf[nz] = (float)(1.0 / dz[nz - 1]);
	h->kg = (struct west_kgrid){
		.nx = nx, .ny = ny, .nz = nz, .dx = dx, .dy = dy,
		.zc = h->zc, .rdz = h->rdz, .rdzf = h->rdzf, .ground = h->ground,
		.land = h->land,
		.tx = h->tx, .ty = h->ty, .tz = h->tz,
	};
}

/* Uniform levels of dz. */
static void hg_init_uniform(struct hg *h, size_t nx, size_t ny, size_t nz,
			    float dx, float dy, float dz)
{
	float *d = malloc(nz * sizeof *d);
	cr_assert_not_null(d);
	for (size_t k = 0; k < nz; k++)
		d[k] = dz;
	hg_init(h, nx, ny, nz, dx, dy, d);
	free(d);
}

static void hg_set_land(struct hg *h, size_t i, size_t j, size_t k)
{
	h->land[west_kc(h->kg.nx, h->kg.ny, i, j, k)] = 1;
}

/* Staircase transparencies from the land mask (the step-7 kernel, tested
 * below). */
static void hg_transparency(struct hg *h)
{
	cr_assert_eq(west_transparency_cpu(&h->kg, 0, h->tx, h->ty, h->tz), WEST_OK);
}

static void hg_free(struct hg *h)
{
	free(h->zc), free(h->rdz), free(h->rdzf), free(h->ground), free(h->land);
	free(h->tx), free(h->ty), free(h->tz);
	memset(h, 0, sizeof *h);
}

static float *falloc(size_t n)
{
	float *p = malloc(n * sizeof *p);
	cr_assert_not_null(p);
	return p;
}

static float *fdup(const float *a, size_t n)
{
	float *p = falloc(n);
	memcpy(p, a, n * sizeof *p);
	return p;
}

static void fill(float *a, size_t n, float x)
{
	for (size_t i = 0; i < n; i++)
		a[i] = x;
}

/* Uniform random values in [-amp, amp] from *seed. */
static void fill_random(float *a, size_t n, float amp, unsigned *seed)
{
	for (size_t i = 0; i < n; i++)
		a[i] = amp * (2.0f * (float)rand_r(seed) / (float)RAND_MAX - 1.0f);
}

/* Divergence of cell (i, j, k) recomputed in double from the floats (1/s). */
static double ddiv(const struct west_kgrid *g, const float *u, const float *v,
		   const float *w, size_t i, size_t j, size_t k)
{
	size_t nx = g->nx, ny = g->ny;
	size_t xw = west_kx(nx, ny, i, j, k), ys = west_ky(nx, ny, i, j, k);
	size_t zb = west_kc(nx, ny, i, j, k);
	return ((double)u[xw + 1] - u[xw]) / g->dx +
	       ((double)v[ys + nx] - v[ys]) / g->dy +
	       ((double)w[zb + nx * ny] - w[zb]) * g->rdz[k];
}

/* Sum of the magnitudes of the six face terms of the divergence (1/s):
 * the scale of the float rounding in a cell's divergence. */
static double dscale(const struct west_kgrid *g, const float *u, const float *v,
		     const float *w, size_t i, size_t j, size_t k)
{
	size_t nx = g->nx, ny = g->ny;
	size_t xw = west_kx(nx, ny, i, j, k), ys = west_ky(nx, ny, i, j, k);
	size_t zb = west_kc(nx, ny, i, j, k);
	return (fabs(u[xw + 1]) + fabs(u[xw])) / g->dx +
	       (fabs(v[ys + nx]) + fabs(v[ys])) / g->dy +
	       (fabs(w[zb + nx * ny]) + fabs(w[zb])) * g->rdz[k];
}

static int colour_of(size_t i, size_t j, size_t k)
{
	return (int)((i + j + k) & 1);
}

/* ---- 1. stability ---------------------------------------------------------- */

/*
 * One row of 9 columns of 100 m; class A (0) at the centre of column 1,
 * class F (5) at the centre of column 7.  IDW value per column centre
 * (distances in 100 m: d_A, d_F): col 0 (1, 7) 0.1; col 1 at A: 0;
 * col 2 (1, 5) 5/26 = 0.19; col 3 (2, 4) 1.0; col 4 (3, 3) 2.5 exactly;
 * col 5 4.0; col 6 4.81; col 7 at F: 5; col 8 4.9.  Rounded (halves up,
 * to the more stable class): 0 0 0 1 3 4 5 5 5.  Exact comparison
 * (classes are integers).  Column 4 fails for round-down or round-half-even
 * (2), columns 2/6 for any wrong weighting power.
 */
Test(stability, equidistant_half_rounds_to_more_stable)
{
	float dz = 10.0f;
	struct hg h;
	hg_init(&h, 9, 1, 1, 100.0f, 100.0f, &dz);
	struct west_kstation st[2] = {
		{ .x = 150.0f, .y = 50.0f, .height = 10, .speed = 1 },
		{ .x = 750.0f, .y = 50.0f, .height = 10, .speed = 1 },
	};
	float stab[2] = { 0.0f, 5.0f };
	unsigned char cls[9], want[9] = { 0, 0, 0, 1, 3, 4, 5, 5, 5 };

	memset(cls, 0xee, sizeof cls);
	cr_assert_eq(west_stability_cpu(&h.kg, 2, st, stab, cls), WEST_OK);
	for (size_t i = 0; i < 9; i++)
		cr_expect_eq(cls[i], want[i], "column %zu: class %u, want %u", i,
			     cls[i], want[i]);
	hg_free(&h);
}

/*
 * A station 0.5 mm from the centre of column (1, 0) (class A, 0) next to one
 * 1.2 mm away on the other side (class F, 5): the 1 mm rule gives exactly
 * 0; plain IDW (or a smaller threshold) would give (0 * 4e6 + 5 * 6.9e5) /
 * 4.7e6 = 0.74 -> 1.  A third station exactly at the centre of column
 * (2, 1) (class E, 4) gives 4 (d = 0: without the rule the weight is
 * infinite and the value NaN).  Exact.
 */
Test(stability, station_within_1mm_gives_its_class)
{
	float dz = 10.0f;
	struct hg h;
	hg_init(&h, 3, 2, 1, 100.0f, 100.0f, &dz);
	/* column (1, 0) centre (150, 50); column (2, 1) centre (250, 150) */
	struct west_kstation st[3] = {
		{ .x = 150.0f, .y = 50.0005f, .height = 10, .speed = 1 },
		{ .x = 150.0f, .y = 49.9988f, .height = 10, .speed = 1 },
		{ .x = 250.0f, .y = 150.0f, .height = 10, .speed = 1 },
	};
	float stab[3] = { 0.0f, 5.0f, 4.0f };
	unsigned char cls[6];

	cr_assert_eq(west_stability_cpu(&h.kg, 3, st, stab, cls), WEST_OK);
	cr_expect_eq(cls[0 * 3 + 1], 0, "0.5 mm station: class %u, want 0", cls[1]);
	cr_expect_eq(cls[1 * 3 + 2], 4, "station at the centre: class %u, want 4",
		     cls[1 * 3 + 2]);
	hg_free(&h);
}

/* ---- 2. extrapolate -------------------------------------------------------- */

/* Irwin (1979) rural exponents, A..F. */
static const float pexp_rural[6] = { 0.07f, 0.07f, 0.10f, 0.15f, 0.35f, 0.55f };

/* 4 x 3 columns of 100 m; stretched levels 10, 20, 40, 80 m: zc = 5, 20, 50, 110. */
static void extrap_grid(struct hg *h)
{
	static const float dz[4] = { 10.0f, 20.0f, 40.0f, 80.0f };
	hg_init(h, 4, 3, 4, 100.0f, 100.0f, dz);
}

/*
 * Station at (150, 150) = column (1, 1): its exponent is its column's
 * class's, D (0.15) there and F (0.55) everywhere else, then F when that
 * column turns F.  Exact (a table look-up).
 */
Test(extrapolate, exponent_of_the_class_of_the_station_column)
{
	struct hg h;
	extrap_grid(&h);
	struct west_kstation st = { .x = 150.0f, .y = 150.0f, .height = 10.0f,
				    .speed = 4.0f, .mix = 500.0f };
	unsigned char cls[12];
	float pst = NAN;

	memset(cls, 5, sizeof cls);
	cls[1 * 4 + 1] = 3;
	cr_assert_eq(west_extrapolate_cpu(&h.kg, 1, &st, cls, pexp_rural, &pst), WEST_OK);
	cr_expect_eq(pst, 0.15f);
	cls[1 * 4 + 1] = 5;
	cr_assert_eq(west_extrapolate_cpu(&h.kg, 1, &st, cls, pexp_rural, &pst), WEST_OK);
	cr_expect_eq(pst, 0.55f);
	hg_free(&h);
}

/*
 * A station outside the grid takes the class of the clamped edge column:
 * (-50, 520) -> column (0, 2) class C (0.10), (1000, -10) -> column (3, 0)
 * class E (0.35); every other column F (0.55), so a wrong column shows.
 * Exact.
 */
Test(extrapolate, stations_outside_use_clamped_edge_column)
{
	struct hg h;
	extrap_grid(&h);
	struct west_kstation st[3] = {
		{ .x = 150.0f, .y = 150.0f, .height = 10, .speed = 3, .mix = 100 },
		{ .x = -50.0f, .y = 520.0f, .height = 20, .speed = 5, .mix = 100 },
		{ .x = 1000.0f, .y = -10.0f, .height = 5, .speed = 7, .mix = 100 },
	};
	const float p[3] = { 0.15f, 0.10f, 0.35f };
	unsigned char cls[12];
	float pst[3];

	memset(cls, 5, sizeof cls);
	cls[1 * 4 + 1] = 3;
	cls[2 * 4 + 0] = 2;
	cls[0 * 4 + 3] = 4;
	fill(pst, 3, NAN);
	cr_assert_eq(west_extrapolate_cpu(&h.kg, 3, st, cls, pexp_rural, pst), WEST_OK);
	for (size_t s = 0; s < 3; s++)
		cr_expect_eq(pst[s], p[s], "station %zu: p %g, want %g", s, pst[s], p[s]);
	hg_free(&h);
}

/*
 * The profile: (h / height)^p, h floored at WEST_H_MIN (1 m) and held at
 * the mixing height above it.  By hand, height 10 m, mix 200 m, p 0.15:
 * h 5 -> 0.5^0.15 = 0.90125, 0.2 -> 0.1^0.15 = 0.70795 (floored),
 * 10 -> 1, 200 -> 20^0.15 = 1.56731, 2000 -> the same (held).  rtol 1e-5
 * (powf).
 */
Test(extrapolate, profile_by_hand_floored_and_held)
{
	struct west_kstation st = { .height = 10.0f, .speed = 4.0f, .mix = 200.0f };
	const float h[5] = { 5.0f, 0.2f, 10.0f, 200.0f, 2000.0f };
	const double byhand[5] = { 0.90125, 0.70795, 1.0, 1.56731, 1.56731 };

	for (size_t n = 0; n < 5; n++) {
		double got = west_profile_factor(&st, 0.15f, h[n]);
		double want = pow(fmin(fmax(h[n], 1.0), 200.0) / 10.0, 0.15);
		cr_expect(fabs(got - want) <= 1e-6 * want, "h %g: %.9g, want %.9g",
			  h[n], got, want);
		cr_expect(fabs(got - byhand[n]) <= 1e-5 * byhand[n], "h %g: %.9g, by hand %.5g",
			  h[n], got, byhand[n]);
	}
}

/* ---- 3. initialize --------------------------------------------------------- */

/*
 * From the west (270): u = +S, v ~ 0; from the north (0): u ~ 0, v = -S;
 * from the east (90): u = -S, v ~ 0; from the south (180): v = +S; 225
 * (south-west): u = v = S / sqrt 2.  Tolerance |err| <= 1e-6 S (sinf/cosf
 * of a float angle: the zero component is ~4e-8 S).  w poisoned with NaN
 * must be 0 on every z-face.
 */
Test(initialize, directions_to_components_and_w_zero)
{
	float dz = 10.0f;
	struct hg h;
	hg_init(&h, 3, 2, 2, 50.0f, 50.0f, (const float[]){ dz, dz });
	const float dir[5] = { 270.0f, 0.0f, 90.0f, 180.0f, 225.0f };
	const double eu[5] = { 1, 0, -1, 0, M_SQRT1_2 }, ev[5] = { 0, -1, 0, 1, M_SQRT1_2 };
	struct west_kstation st[5];
	float us[5], vs[5], *w = falloc(h.nzf);

	for (size_t s = 0; s < 5; s++)
		st[s] = (struct west_kstation){ .x = 10.0f * (float)s, .y = 5,
						.height = 10, .speed = 2.0f + (float)s,
						.direction = dir[s], .mix = 100 };
	fill(us, 5, NAN), fill(vs, 5, NAN), fill(w, h.nzf, NAN);
	cr_assert_eq(west_initialize_cpu(&h.kg, 5, st, us, vs, w), WEST_OK);
	for (size_t s = 0; s < 5; s++) {
		double S = st[s].speed;
		cr_expect(fabs(us[s] - eu[s] * S) <= 1e-6 * S, "dir %g: u %.9g, want %.9g",
			  dir[s], us[s], eu[s] * S);
		cr_expect(fabs(vs[s] - ev[s] * S) <= 1e-6 * S, "dir %g: v %.9g, want %.9g",
			  dir[s], vs[s], ev[s] * S);
	}
	for (size_t c = 0; c < h.nzf; c++)
		cr_expect(w[c] == 0.0f, "w[%zu] = %g, want 0", c, w[c]);
	free(w);
	hg_free(&h);
}

/* ---- 4. land --------------------------------------------------------------- */

/*
 * 3 columns x 2 levels: level centres at 105 and 120 m altitude, terrain
 * 100, 105, 110 m.  Level 0: above (0), equal (0: strictly below only),
 * below (1); level 1 above everything.  Exact.
 */
Test(land, below_above_equal)
{
	const float terrain[3] = { 100.0f, 105.0f, 110.0f };
	const double zcalt[2] = { 105.0, 120.0 };
	unsigned char land[6], want[6] = { 0, 0, 1, 0, 0, 0 };

	memset(land, 7, sizeof land);
	cr_assert_eq(west_land_cpu(3, 1, 2, terrain, zcalt, land), WEST_OK);
	for (size_t c = 0; c < 6; c++)
		cr_expect_eq(land[c], want[c], "cell %zu: land %u, want %u", c,
			     land[c], want[c]);
}

/* The comparison is in double: a level centre 1e-9 m below the terrain
 * is land (float would round it to equal). */
Test(land, compares_in_double)
{
	const float terrain[2] = { 1000.0f, 1000.0f };
	const double zcalt[1] = { 1000.0 - 1e-9 };
	const double zcalt2[1] = { 1000.0 + 1e-9 };
	unsigned char land[2];

	cr_assert_eq(west_land_cpu(2, 1, 1, terrain, zcalt, land), WEST_OK);
	cr_expect(land[0] == 1 && land[1] == 1, "1 nm below: land %u %u", land[0], land[1]);
	cr_assert_eq(west_land_cpu(2, 1, 1, terrain, zcalt2, land), WEST_OK);
	cr_expect(land[0] == 0 && land[1] == 0, "1 nm above: land %u %u", land[0], land[1]);
}

/* ---- 5. interpolate -------------------------------------------------------- */

/* 4 x 4 columns of 100 m, 3 levels: x-face (i, j) centre (100 i, 100 j + 50),
 * y-face (i, j) centre (100 i + 50, 100 j). */
static void interp_grid(struct hg *h)
{
	hg_init_uniform(h, 4, 4, 3, 100.0f, 100.0f, 10.0f);
}

/*
 * Stations P (50, 100) and Q (150, 200) with exponent 0 (the profile is
 * 1): the x-face (1, 1) at (100, 150) and the y-face (1, 1) at (150, 100)
 * are both at equal distance from them (d^2 = 5000 and 10000, exact in
 * float), so u there is the mean of their us and v the mean of their vs,
 * on every level; every other face is an IDW mean inside the stations'
 * range (NaN poison fails it).  Means: rtol 1e-6.
 */
Test(interpolate, equidistant_mean_every_face)
{
	struct hg h;
	interp_grid(&h);
	size_t nx = 4, ny = 4, nz = 3;
	struct west_kstation st[2] = {
		{ .x = 50.0f, .y = 100.0f, .height = 10, .speed = 1, .mix = 100 },
		{ .x = 150.0f, .y = 200.0f, .height = 10, .speed = 1, .mix = 100 },
	};
	const float pst[2] = { 0.0f, 0.0f }, us[2] = { 3.0f, 11.0f }, vs[2] = { 40.0f, 21.0f };
	float *u = falloc(h.nxf), *v = falloc(h.nyf);

	fill(u, h.nxf, NAN), fill(v, h.nyf, NAN);
	cr_assert_eq(west_interpolate_cpu(&h.kg, 2, st, pst, us, vs, u, v), WEST_OK);
	for (size_t k = 0; k < nz; k++) {
		double mu = 0.5 * ((double)us[0] + us[1]), mv = 0.5 * ((double)vs[0] + vs[1]);
		float gu = u[west_kx(nx, ny, 1, 1, k)], gv = v[west_ky(nx, ny, 1, 1, k)];
		cr_expect(fabs(gu - mu) <= 1e-6 * mu, "level %zu: u %.9g, want %.9g", k, gu, mu);
		cr_expect(fabs(gv - mv) <= 1e-6 * mv, "level %zu: v %.9g, want %.9g", k, gv, mv);
		for (size_t j = 0; j < ny; j++)
			for (size_t i = 0; i <= nx; i++) {
				float x = u[west_kx(nx, ny, i, j, k)];
				cr_expect(x >= us[0] * (1 - 1e-6f) && x <= us[1] * (1 + 1e-6f),
					  "u face (%zu,%zu,%zu) = %g out of range", i, j, k, x);
			}
		for (size_t j = 0; j <= ny; j++)
			for (size_t i = 0; i < nx; i++) {
				float x = v[west_ky(nx, ny, i, j, k)];
				cr_expect(x >= vs[1] * (1 - 1e-6f) && x <= vs[0] * (1 + 1e-6f),
					  "v face (%zu,%zu,%zu) = %g out of range", i, j, k, x);
			}
	}
	free(u), free(v);
	hg_free(&h);
}

/*
 * Heights count above each face's own ground: one station (exponent 0.5,
 * 10 m high, mixing height 40 m) over columns whose ground rises 0, 4, 8,
 * 12 m to the east (x) and 0, 2, 4, 6 m to the north (y).  x-face (i, j)
 * stands on the mean ground of columns i - 1 and i (one column at the west
 * and east edges), y-face (i, j) on that of rows j - 1 and j, so with
 * levels of 10 m (zc = 5, 15, 25 m) each face at height
 * h = max(zc - ground, (zc + 5 - ground) / 2) (the middle of the part of its
 * level above its ground) gets us (max(min(h, 40), 1) / 10)^0.5, which this
 * test computes in double.  rtol 1e-5 (powf).
 */
Test(interpolate, profile_at_each_face_height_above_its_own_ground)
{
	struct hg h;
	interp_grid(&h);
	size_t nx = 4, ny = 4, nz = 3;
	struct west_kstation st = { .x = 170.0f, .y = 230.0f, .height = 10, .speed = 1,
				    .mix = 40 };
	const float pst = 0.5f, us = 2.0f, vs = -3.0f;
	float *u = falloc(h.nxf), *v = falloc(h.nyf);

	for (size_t j = 0; j < ny; j++)
		for (size_t i = 0; i < nx; i++)
			h.ground[j * nx + i] = 4.0f * (float)i + 2.0f * (float)j;
	cr_assert_eq(west_interpolate_cpu(&h.kg, 1, &st, &pst, &us, &vs, u, v), WEST_OK);
	for (size_t k = 0; k < nz; k++)
		for (size_t j = 0; j <= ny; j++)
			for (size_t i = 0; i <= nx; i++) {
				if (j < ny) {
					size_t a = i ? i - 1 : 0, b = i < nx ? i : nx - 1;
					double gr = 0.5 * (h.ground[j * nx + a] + h.ground[j * nx + b]);
					double hf = fmax(h.zc[k] - gr, 0.5 * (h.zc[k] + 5.0 - gr));
					double hh = fmax(fmin(hf, 40.0), 1.0);
					double want = us * sqrt(hh / 10.0);
					float got = u[west_kx(nx, ny, i, j, k)];
					cr_expect(fabs(got - want) <= 1e-5 * fabs(want),
						  "u (%zu,%zu,%zu): %.9g, want %.9g", i, j, k, got, want);
				}
				if (i < nx) {
					size_t a = j ? j - 1 : 0, b = j < ny ? j : ny - 1;
					double gr = 0.5 * (h.ground[a * nx + i] + h.ground[b * nx + i]);
					double hf = fmax(h.zc[k] - gr, 0.5 * (h.zc[k] + 5.0 - gr));
					double hh = fmax(fmin(hf, 40.0), 1.0);
					double want = vs * sqrt(hh / 10.0);
					float got = v[west_ky(nx, ny, i, j, k)];
					cr_expect(fabs(got - want) <= 1e-5 * fabs(want),
						  "v (%zu,%zu,%zu): %.9g, want %.9g", i, j, k, got, want);
				}
			}
	/* the rule shows: the west edge face (0, 0, 0) is 5 m above its
	 * ground, the east edge face (4, 0, 0) below its column's 12 m (h
	 * floored at 1 m); at level 1 it stands 4 m up, the middle of the part
	 * of 10 .. 20 m above 12 m (the level centre would say 3 m) */
	cr_expect_neq(u[west_kx(nx, ny, 0, 0, 0)], u[west_kx(nx, ny, 4, 0, 0)]);
	cr_expect(fabs(u[west_kx(nx, ny, 4, 0, 1)] - us * sqrt(0.4)) <= 1e-5 * us,
		  "u (4,0,1) = %.9g", u[west_kx(nx, ny, 4, 0, 1)]);
	free(u), free(v);
	hg_free(&h);
}

/*
 * A station exactly at x-face (2, 1) = (200, 150) gives u there its us;
 * one exactly at y-face (1, 2) = (150, 200) gives v there its vs; one
 * 0.5 mm from x-face (3, 2) = (300, 250) gives u there its us exactly,
 * although another station sits 2 mm away on the other side (plain IDW:
 * (3 * 4e6 + 7 * 2.5e5) / 4.25e6 = 3.24, not 3).  Exponents 0.  Exact.
 */
Test(interpolate, station_at_face_gives_its_value)
{
	struct hg h;
	interp_grid(&h);
	size_t nx = 4, ny = 4, nz = 3;
	struct west_kstation st[4] = {
		{ .x = 200.0f, .y = 150.0f, .height = 10, .speed = 1, .mix = 100 },
		{ .x = 150.0f, .y = 200.0f, .height = 10, .speed = 1, .mix = 100 },
		{ .x = 300.0f, .y = 250.0005f, .height = 10, .speed = 1, .mix = 100 },
		{ .x = 300.0f, .y = 249.998f, .height = 10, .speed = 1, .mix = 100 },
	};
	const float pst[4] = { 0, 0, 0, 0 };
	const float us[4] = { 1.25f, 2.25f, 3.0f, 7.0f }, vs[4] = { -5.5f, -6.5f, -7.5f, -8.5f };
	float *u = falloc(h.nxf), *v = falloc(h.nyf);

	fill(u, h.nxf, NAN), fill(v, h.nyf, NAN);
	cr_assert_eq(west_interpolate_cpu(&h.kg, 4, st, pst, us, vs, u, v), WEST_OK);
	for (size_t k = 0; k < nz; k++) {
		cr_expect(u[west_kx(nx, ny, 2, 1, k)] == us[0], "level %zu: u at station %g",
			  k, u[west_kx(nx, ny, 2, 1, k)]);
		cr_expect(v[west_ky(nx, ny, 1, 2, k)] == vs[1], "level %zu: v at station %g",
			  k, v[west_ky(nx, ny, 1, 2, k)]);
		cr_expect(u[west_kx(nx, ny, 3, 2, k)] == us[2],
			  "level %zu: u 0.5 mm from a station %.9g, want %g", k,
			  u[west_kx(nx, ny, 3, 2, k)], us[2]);
	}
	free(u), free(v);
	hg_free(&h);
}

/*
 * Step 5's bodies take WEST_IDW_LEVELS heights at once, each station's
 * weight computed once for them: every height must get the bits it gets
 * alone (west_idw_value), away from the stations and at one of them (the
 * first within 1 mm wins), with and without profiles, for every n.
 */
Test(interpolate, heights_together_as_alone)
{
	const struct west_kstation st[3] = {
		{ .x = 100.0f, .y = 40.0f, .height = 10, .mix = 300 },
		{ .x = -70.0f, .y = 90.0f, .height = 6, .mix = 150 },
		{ .x = 10.0f, .y = 10.0f, .height = 2, .mix = 80 },
	};
	const float pst[3] = { 0.14f, 0.35f, 0.55f }, val[3] = { 4.5f, -2.25f, 1.75f };
	const float h[WEST_IDW_LEVELS] = { 0.4f, 7.0f, 95.0f, 1000.0f };
	const float pts[3][2] = { { 33.0f, -12.0f }, { 10.0f, 10.0005f }, { 100.0f, 40.0f } };

	for (int p = 0; p < 3; p++)
		for (int n = 1; n <= WEST_IDW_LEVELS; n++)
			for (int prof = 0; prof < 2; prof++) {
				float out[WEST_IDW_LEVELS];
				const float *ps = prof ? pst : NULL;
				west_idw_values(3, st, pts[p][0], pts[p][1], val, ps, h, n, out);
				for (int m = 0; m < n; m++) {
					float one = west_idw_value(3, st, pts[p][0], pts[p][1], val, ps,
								   h[m]);
					cr_expect(memcmp(&out[m], &one, sizeof one) == 0,
						  "point %d, n %d, profiles %d, height %g: %.9g "
						  "together, %.9g alone", p, n, prof, h[m], out[m], one);
				}
			}
}

/* ---- 6. speed zero and 7. transparency ------------------------------------ */

/* 3 x 3 x 3 cells of 10 m, one land cell in the middle, (1, 1, 1). */
static void one_land_grid(struct hg *h)
{
	hg_init_uniform(h, 3, 3, 3, 10.0f, 10.0f, 10.0f);
	hg_set_land(h, 1, 1, 1);
	hg_transparency(h);
}

/* Expected "touches land or ground" per face of one_land_grid: the 6 faces
 * of cell (1, 1, 1) and (z-faces) every ground face. */
static int blocked_x(size_t i, size_t j, size_t k)
{
	return j == 1 && k == 1 && (i == 1 || i == 2);
}
static int blocked_y(size_t i, size_t j, size_t k)
{
	return i == 1 && k == 1 && (j == 1 || j == 2);
}
static int blocked_z(size_t i, size_t j, size_t k)
{
	return k == 0 || (i == 1 && j == 1 && (k == 1 || k == 2));
}

/*
 * Faces poisoned with distinct non-zero values; after speed zero exactly
 * the 6 faces of the land cell and the 9 ground w faces are 0, every other
 * face keeps its value bit for bit.  Exact.
 */
Test(speed_zero, exactly_land_faces_and_ground)
{
	struct hg h;
	one_land_grid(&h);
	size_t n = 3, zeros = 0;
	float *u = falloc(h.nxf), *v = falloc(h.nyf), *w = falloc(h.nzf);

	for (size_t c = 0; c < h.nxf; c++)
		u[c] = 1.5f + (float)c;
	for (size_t c = 0; c < h.nyf; c++)
		v[c] = -2.25f - (float)c;
	for (size_t c = 0; c < h.nzf; c++)
		w[c] = 0.125f + (float)c;
	float *u0 = fdup(u, h.nxf), *v0 = fdup(v, h.nyf), *w0 = fdup(w, h.nzf);
	cr_assert_eq(west_speed_zero_cpu(&h.kg, u, v, w), WEST_OK);
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < n; j++)
			for (size_t i = 0; i <= n; i++) {
				size_t c = west_kx(n, n, i, j, k);
				float want = blocked_x(i, j, k) ? 0.0f : u0[c];
				zeros += u[c] == 0.0f;
				cr_expect(u[c] == want, "u (%zu,%zu,%zu) = %g, want %g",
					  i, j, k, u[c], want);
			}
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j <= n; j++)
			for (size_t i = 0; i < n; i++) {
				size_t c = west_ky(n, n, i, j, k);
				float want = blocked_y(i, j, k) ? 0.0f : v0[c];
				zeros += v[c] == 0.0f;
				cr_expect(v[c] == want, "v (%zu,%zu,%zu) = %g, want %g",
					  i, j, k, v[c], want);
			}
	for (size_t k = 0; k <= n; k++)
		for (size_t j = 0; j < n; j++)
			for (size_t i = 0; i < n; i++) {
				size_t c = west_kc(n, n, i, j, k);
				float want = blocked_z(i, j, k) ? 0.0f : w0[c];
				zeros += w[c] == 0.0f;
				cr_expect(w[c] == want, "w (%zu,%zu,%zu) = %g, want %g",
					  i, j, k, w[c], want);
			}
	cr_expect_eq(zeros, 6 + 9, "%zu faces zeroed, want 15", zeros);
	free(u), free(v), free(w), free(u0), free(v0), free(w0);
	hg_free(&h);
}

/* Transparencies of one_land_grid (NaN poison first): 0 on the land cell's
 * 6 faces and the ground, 1 everywhere else, domain sides and top included. */
/*
 * Cut cells: 3 x 1 columns of 10 m levels (2), ground 0, 6 and 13 m above
 * the base; with the cut rule the 13 m column's level 0 is land (less than
 * a tenth of it above the ground), the others air.  By hand, x-faces of
 * level 0: west boundary 1, between 0 and 6 m (mean 3) 0.7, beside land
 * 0, 0; level 1: 1, 1 (17 m of 10), 1 (mean 9.5: 10.5 of 10), east
 * boundary over 13 m 0.7.  y-faces (boundaries, each over its column):
 * level 0 1, 0.4, 0; level 1 1, 1, 0.7.  z-faces: the ground 0, above the
 * land cell 0, else 1.  Staircase on the same land: every open face 1.
 * Tolerance 1e-6 (float).
 */
Test(transparency, cut_cells_by_hand)
{
	struct hg h;
	hg_init_uniform(&h, 3, 1, 2, 10.0f, 10.0f, 10.0f);
	h.ground[1] = 6.0f, h.ground[2] = 13.0f;
	hg_set_land(&h, 2, 0, 0);
	const float tx[2][4] = { { 1, 0.7f, 0, 0 }, { 1, 1, 1, 0.7f } };
	const float ty[2][3] = { { 1, 0.4f, 0 }, { 1, 1, 0.7f } };
	const float tz[3][3] = { { 0, 0, 0 }, { 1, 1, 0 }, { 1, 1, 1 } };

	for (int cut = 1; cut >= 0; cut--) {
		cr_assert_eq(west_transparency_cpu(&h.kg, cut, h.tx, h.ty, h.tz), WEST_OK);
		for (size_t k = 0; k < 2; k++) {
			for (size_t i = 0; i <= 3; i++) {
				float want = cut || tx[k][i] == 0 ? tx[k][i] : 1.0f;
				float got = h.tx[west_kx(3, 1, i, 0, k)];
				cr_expect(fabsf(got - want) <= 1e-6f, "cut %d: tx (%zu,0,%zu) = %.9g, want %g",
					  cut, i, k, got, want);
			}
			for (size_t j = 0; j <= 1; j++)
				for (size_t i = 0; i < 3; i++) {
					float want = cut || ty[k][i] == 0 ? ty[k][i] : 1.0f;
					float got = h.ty[west_ky(3, 1, i, j, k)];
					cr_expect(fabsf(got - want) <= 1e-6f,
						  "cut %d: ty (%zu,%zu,%zu) = %.9g, want %g",
						  cut, i, j, k, got, want);
				}
		}
		for (size_t k = 0; k <= 2; k++)
			for (size_t i = 0; i < 3; i++)
				cr_expect_eq(h.tz[west_kc(3, 1, i, 0, k)], tz[k][i],
					     "cut %d: tz (%zu,0,%zu)", cut, i, k);
	}
	hg_free(&h);
}

Test(transparency, one_land_cell)
{
	struct hg h;
	one_land_grid(&h);
	size_t n = 3;

	fill(h.tx, h.nxf, NAN), fill(h.ty, h.nyf, NAN), fill(h.tz, h.nzf, NAN);
	hg_transparency(&h);
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < n; j++)
			for (size_t i = 0; i <= n; i++) {
				float t = h.tx[west_kx(n, n, i, j, k)];
				cr_expect(t == (blocked_x(i, j, k) ? 0.0f : 1.0f),
					  "tx (%zu,%zu,%zu) = %g", i, j, k, t);
			}
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j <= n; j++)
			for (size_t i = 0; i < n; i++) {
				float t = h.ty[west_ky(n, n, i, j, k)];
				cr_expect(t == (blocked_y(i, j, k) ? 0.0f : 1.0f),
					  "ty (%zu,%zu,%zu) = %g", i, j, k, t);
			}
	for (size_t k = 0; k <= n; k++)
		for (size_t j = 0; j < n; j++)
			for (size_t i = 0; i < n; i++) {
				float t = h.tz[west_kc(n, n, i, j, k)];
				cr_expect(t == (blocked_z(i, j, k) ? 0.0f : 1.0f),
					  "tz (%zu,%zu,%zu) = %g", i, j, k, t);
			}
	hg_free(&h);
}

/* Land in the corner cell (0, 0, 0) of a 2 x 2 x 2 grid: its boundary faces
 * (x-face i = 0, y-face j = 0) are 0 as well as its interior ones, the other
 * boundary faces stay 1 (outside the domain is not land). */
Test(transparency, land_on_the_boundary)
{
	struct hg h;
	hg_init_uniform(&h, 2, 2, 2, 10.0f, 10.0f, 10.0f);
	hg_set_land(&h, 0, 0, 0);
	hg_transparency(&h);
	size_t n = 2;
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < n; j++)
			for (size_t i = 0; i <= n; i++) {
				int want = !(j == 0 && k == 0 && i <= 1);
				cr_expect(h.tx[west_kx(n, n, i, j, k)] == (float)want,
					  "tx (%zu,%zu,%zu)", i, j, k);
			}
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j <= n; j++)
			for (size_t i = 0; i < n; i++) {
				int want = !(i == 0 && k == 0 && j <= 1);
				cr_expect(h.ty[west_ky(n, n, i, j, k)] == (float)want,
					  "ty (%zu,%zu,%zu)", i, j, k);
			}
	for (size_t k = 0; k <= n; k++)
		for (size_t j = 0; j < n; j++)
			for (size_t i = 0; i < n; i++) {
				int want = !(k == 0 || (i == 0 && j == 0 && k == 1));
				cr_expect(h.tz[west_kc(n, n, i, j, k)] == (float)want,
					  "tz (%zu,%zu,%zu)", i, j, k);
			}
	hg_free(&h);
}

/* ---- 8. divergence minimization -------------------------------------------- */

/*
 * 7 x 5 x 4 cells, dx 10, dy 8 (unequal, so rdx/rdy swaps show), stretched
 * levels 4, 6, 9, 13 m (so rdz and rdzf differ), land at the bottom of
 * three columns, T from the land mask; a random field in [-5, 5] m/s with
 * the faces touching land (and ground w) zeroed by speed zero.
 */
struct sweep_case {
	struct hg h;
	float *u, *v, *w;
};

static void sweep_case_init(struct sweep_case *sc, unsigned seed)
{
	static const float dz[4] = { 4.0f, 6.0f, 9.0f, 13.0f };
	hg_init(&sc->h, 7, 5, 4, 10.0f, 8.0f, dz);
	hg_set_land(&sc->h, 2, 2, 0);
	hg_set_land(&sc->h, 3, 2, 0);
	hg_set_land(&sc->h, 3, 2, 1);
	hg_set_land(&sc->h, 2, 3, 0);
	hg_set_land(&sc->h, 6, 4, 0);   /* a corner column on the boundary */
	hg_transparency(&sc->h);
	sc->u = falloc(sc->h.nxf), sc->v = falloc(sc->h.nyf), sc->w = falloc(sc->h.nzf);
	fill_random(sc->u, sc->h.nxf, 5.0f, &seed);
	fill_random(sc->v, sc->h.nyf, 5.0f, &seed);
	fill_random(sc->w, sc->h.nzf, 5.0f, &seed);
	cr_assert_eq(west_speed_zero_cpu(&sc->h.kg, sc->u, sc->v, sc->w), WEST_OK);
}

static void sweep_case_free(struct sweep_case *sc)
{
	free(sc->u), free(sc->v), free(sc->w);
	hg_free(&sc->h);
}

/* Every face with T = 0 is exactly 0. */
static void expect_blocked_faces_zero(const struct west_kgrid *g, const float *u,
				      const float *v, const float *w, const char *what)
{
	size_t nxf = (g->nx + 1) * g->ny * g->nz, nyf = g->nx * (g->ny + 1) * g->nz;
	size_t nzf = g->nx * g->ny * (g->nz + 1), bad = 0;
	for (size_t c = 0; c < nxf; c++)
		bad += g->tx[c] == 0.0f && u[c] != 0.0f;
	for (size_t c = 0; c < nyf; c++)
		bad += g->ty[c] == 0.0f && v[c] != 0.0f;
	for (size_t c = 0; c < nzf; c++)
		bad += g->tz[c] == 0.0f && w[c] != 0.0f;
	cr_expect_eq(bad, 0, "%s: %zu faces with T = 0 moved", what, bad);
}

/*
 * One colour pass on g from (u, v, w), checked against the update of
 * docs/design.md section 3, worked out in double from the field before:
 *  - every fluid cell of the colour ends with divergence (1 - omega) D
 *    (D before, recomputed in double): |D_after - (1 - omega) D| <=
 *    1e-4 |D| + 1e-6 scale, scale = the cell's sum of |face terms| (the
 *    float rounding floor of a divergence of float faces; about 1e-7 per
 *    face here);
 *  - each of its six faces moved by exactly +-p T r with p = omega D / S
 *    (S = (TX_w + TX_e)/dx^2 + (TY_s + TY_n)/dy^2 + eta rdz (TZ_b rdzf_b +
 *    TZ_t rdzf_t), r = 1/dx, 1/dy or eta rdzf): tolerance 1e-5 (|p| +
 *    omega scale / S) T r + 2.5e-7 (|before| + |after|) (float p and the
 *    float sum);
 *  - every face touching no fluid cell of the colour is bit-identical
 *    (the other colour is not updated; T = 0 faces never move).
 */
static void check_colour_pass(const struct west_kgrid *g, float omega, float eta,
			      int colour, const float *u0, const float *v0,
			      const float *w0, const float *u, const float *v,
			      const float *w)
{
	size_t nx = g->nx, ny = g->ny, nz = g->nz;
	size_t nxf = (nx + 1) * ny * nz, nyf = nx * (ny + 1) * nz, nzf = nx * ny * (nz + 1);
	unsigned char *mx = calloc(nxf, 1), *my = calloc(nyf, 1), *mz = calloc(nzf, 1);
	size_t cells = 0, bad_id = 0, bad_face = 0, bad_other = 0;
	double rdx = 1.0 / g->dx, rdy = 1.0 / g->dy;

	cr_assert(mx && my && mz);
	for (size_t k = 0; k < nz; k++)
		for (size_t j = 0; j < ny; j++)
			for (size_t i = 0; i < nx; i++) {
				if (colour_of(i, j, k) != colour ||
				    g->land[west_kc(nx, ny, i, j, k)])
					continue;
				size_t xw = west_kx(nx, ny, i, j, k), ys = west_ky(nx, ny, i, j, k);
				size_t zb = west_kc(nx, ny, i, j, k), zt = zb + nx * ny;
				double rzb = g->rdzf[k], rzt = g->rdzf[k + 1], rz = g->rdz[k];
				double S = (g->tx[xw] + g->tx[xw + 1]) * rdx * rdx +
					   (g->ty[ys] + g->ty[ys + nx]) * rdy * rdy +
					   eta * rz * (g->tz[zb] * rzb + g->tz[zt] * rzt);
				cr_assert(S > 0, "fluid cell (%zu,%zu,%zu) closed", i, j, k);
				double D0 = ddiv(g, u0, v0, w0, i, j, k);
				double D1 = ddiv(g, u, v, w, i, j, k);
				double sc = dscale(g, u0, v0, w0, i, j, k);
				double p = omega * D0 / S, pscale = omega * sc / S;
				cells++;
				if (!(fabs(D1 - (1.0 - omega) * D0) <=
				      1e-4 * fabs(D0) + 1e-6 * sc) && !bad_id++)
					cr_expect(0, "colour %d omega %g eta %g cell (%zu,%zu,%zu): "
						  "D %.9g -> %.9g, want %.9g", colour, omega, eta,
						  i, j, k, D0, D1, (1.0 - omega) * D0);
				struct { const float *a0, *a; unsigned char *m; size_t c;
					 double t, r, sign; } f[6] = {
					{ u0, u, mx, xw, g->tx[xw], rdx, 1 },
					{ u0, u, mx, xw + 1, g->tx[xw + 1], rdx, -1 },
					{ v0, v, my, ys, g->ty[ys], rdy, 1 },
					{ v0, v, my, ys + nx, g->ty[ys + nx], rdy, -1 },
					{ w0, w, mz, zb, g->tz[zb], eta * rzb, 1 },
					{ w0, w, mz, zt, g->tz[zt], eta * rzt, -1 },
				};
				for (int q = 0; q < 6; q++) {
					double b = f[q].a0[f[q].c], a = f[q].a[f[q].c];
					double want = f[q].sign * p * f[q].t * f[q].r;
					double tol = 1e-5 * (fabs(p) + pscale) * f[q].t * f[q].r +
						     2.5e-7 * (fabs(a) + fabs(b));
					f[q].m[f[q].c] = 1;
					if (f[q].t == 0.0 ? a != b : !(fabs(a - b - want) <= tol)) {
						if (!bad_face++)
							cr_expect(0, "colour %d omega %g eta %g cell "
								  "(%zu,%zu,%zu) face %d: moved %.9g, "
								  "want %.9g", colour, omega, eta,
								  i, j, k, q, a - b, want);
					}
				}
			}
	for (size_t c = 0; c < nxf; c++)
		bad_other += !mx[c] && memcmp(&u[c], &u0[c], sizeof *u);
	for (size_t c = 0; c < nyf; c++)
		bad_other += !my[c] && memcmp(&v[c], &v0[c], sizeof *v);
	for (size_t c = 0; c < nzf; c++)
		bad_other += !mz[c] && memcmp(&w[c], &w0[c], sizeof *w);
	cr_expect(cells > 0);
	cr_expect_eq(bad_id, 0, "colour %d omega %g eta %g: %zu of %zu cells miss "
		     "(1 - omega) D", colour, omega, eta, bad_id, cells);
	cr_expect_eq(bad_face, 0, "colour %d omega %g eta %g: %zu faces moved wrongly",
		     colour, omega, eta, bad_face);
	cr_expect_eq(bad_other, 0, "colour %d omega %g eta %g: %zu faces of no cell of "
		     "the colour moved", colour, omega, eta, bad_other);
	free(mx), free(my), free(mz);
}

Test(divmin_sweep, colour_pass_known_update)
{
	const float omegas[3] = { 1.0f, 1.25f, 1.9f }, etas[2] = { 1.0f, 4.0f };
	struct sweep_case sc;
	sweep_case_init(&sc, 20261122u);
	const struct west_kgrid *g = &sc.h.kg;

	for (int e = 0; e < 2; e++)
		for (int o = 0; o < 3; o++)
			for (int colour = 0; colour < 2; colour++) {
				float *u = fdup(sc.u, sc.h.nxf), *v = fdup(sc.v, sc.h.nyf);
				float *w = fdup(sc.w, sc.h.nzf);
				cr_assert_eq(west_divmin_sweep_cpu(g, omegas[o], etas[e], colour,
								   WEST_KINDEX_COMPACT, u, v, w),
					     WEST_OK);
				check_colour_pass(g, omegas[o], etas[e], colour, sc.u, sc.v,
						  sc.w, u, v, w);
				expect_blocked_faces_zero(g, u, v, w, "after one pass");
				free(u), free(v), free(w);
			}
	sweep_case_free(&sc);
}

/* The same after a few red-black iterations (the second colour sees the
 * first's result), on the Gaussian hill of the model fixture (its levels
 * from west_levels_init), masked indexing. */
Test(divmin_sweep, colour_pass_known_update_on_hill)
{
	struct west_grid gr;
	struct west_levels lv;
	struct west_kgrid g;
	char err[WEST_ERRLEN];
	unsigned seed = 4242u;

	fix_grid(&gr, 12, 10, 50.0, 8, 20.0, 70.0, 120.0);
	cr_assert_gt(gr.land_cells, 0);
	cr_assert_eq(west_levels_init(&lv, &gr, err, sizeof err), WEST_OK, "%s", err);
	west_kgrid_init(&g, &gr, &lv);
	size_t nxf = (g.nx + 1) * g.ny * g.nz, nyf = g.nx * (g.ny + 1) * g.nz;
	size_t nzf = g.nx * g.ny * (g.nz + 1);
	float *u = falloc(nxf), *v = falloc(nyf), *w = falloc(nzf);
	fill_random(u, nxf, 8.0f, &seed);
	fill_random(v, nyf, 8.0f, &seed);
	fill_random(w, nzf, 2.0f, &seed);
	cr_assert_eq(west_speed_zero_cpu(&g, u, v, w), WEST_OK);
	for (int it = 0; it < 3; it++)
		for (int colour = 0; colour < 2; colour++) {
			float *u0 = fdup(u, nxf), *v0 = fdup(v, nyf), *w0 = fdup(w, nzf);
			cr_assert_eq(west_divmin_sweep_cpu(&g, 1.25f, 1.0f, colour,
							   WEST_KINDEX_MASKED, u, v, w), WEST_OK);
			check_colour_pass(&g, 1.25f, 1.0f, colour, u0, v0, w0, u, v, w);
			free(u0), free(v0), free(w0);
		}
	expect_blocked_faces_zero(&g, u, v, w, "hill, after 3 iterations");
	free(u), free(v), free(w);
	west_levels_free(&lv);
	west_grid_free(&gr);
}

/* Masked and compact indexing: bit-identical fields (memcmp) for each colour
 * and omega, after one pass and after 3 red-black iterations, odd nx. */
Test(divmin_sweep, masked_equals_compact_bitwise)
{
	const float omegas[3] = { 1.0f, 1.25f, 1.9f };
	struct sweep_case sc;
	sweep_case_init(&sc, 777u);
	size_t nxf = sc.h.nxf, nyf = sc.h.nyf, nzf = sc.h.nzf;

	for (int o = 0; o < 3; o++)
		for (int colour = 0; colour < 2; colour++) {
			float *ua = fdup(sc.u, nxf), *va = fdup(sc.v, nyf), *wa = fdup(sc.w, nzf);
			float *ub = fdup(sc.u, nxf), *vb = fdup(sc.v, nyf), *wb = fdup(sc.w, nzf);
			for (int pass = 0; pass < 7; pass++) {
				int c = pass == 0 ? colour : (colour + pass) & 1;
				west_divmin_sweep_cpu(&sc.h.kg, omegas[o], 1.0f, c,
						      WEST_KINDEX_MASKED, ua, va, wa);
				west_divmin_sweep_cpu(&sc.h.kg, omegas[o], 1.0f, c,
						      WEST_KINDEX_COMPACT, ub, vb, wb);
				int same = !memcmp(ua, ub, nxf * sizeof *ua) &&
					   !memcmp(va, vb, nyf * sizeof *va) &&
					   !memcmp(wa, wb, nzf * sizeof *wa);
				cr_expect(same, "omega %g first colour %d: masked and compact "
					  "differ after pass %d", omegas[o], colour, pass);
			}
			/* and the passes did something */
			cr_expect(memcmp(ua, sc.u, nxf * sizeof *ua) != 0);
			free(ua), free(va), free(wa), free(ub), free(vb), free(wb);
		}
	sweep_case_free(&sc);
}

/*
 * eta scales only the vertical part.  In a 4 x 3 x 2 grid with land at
 * (1, 1, 1), cell (1, 1, 0) (colour 0) has TZ = 0 below (ground) and above
 * (land): its S and its four horizontal faces after a colour-0 pass are
 * bit-identical for eta = 1 and eta = 4.  Cell (0, 0, 0) (colour 0) has an
 * open top face: its horizontal faces differ between the two (S has the
 * eta term), and its top w moved by eta p rdzf (checked in
 * check_colour_pass).
 */
Test(divmin_sweep, eta_scales_only_vertical)
{
	struct hg h;
	unsigned seed = 99u;
	hg_init(&h, 4, 3, 2, 10.0f, 10.0f, (const float[]){ 5.0f, 7.0f });
	hg_set_land(&h, 1, 1, 1);
	hg_transparency(&h);
	size_t nx = 4, ny = 3;
	float *u = falloc(h.nxf), *v = falloc(h.nyf), *w = falloc(h.nzf);
	fill_random(u, h.nxf, 5.0f, &seed);
	fill_random(v, h.nyf, 5.0f, &seed);
	fill_random(w, h.nzf, 5.0f, &seed);
	west_speed_zero_cpu(&h.kg, u, v, w);
	float *u1 = fdup(u, h.nxf), *v1 = fdup(v, h.nyf), *w1 = fdup(w, h.nzf);
	float *u4 = fdup(u, h.nxf), *v4 = fdup(v, h.nyf), *w4 = fdup(w, h.nzf);

	cr_assert_eq(h.tz[west_kc(nx, ny, 1, 1, 0)], 0.0f);
	cr_assert_eq(h.tz[west_kc(nx, ny, 1, 1, 1)], 0.0f);
	west_divmin_sweep_cpu(&h.kg, 1.25f, 1.0f, 0, WEST_KINDEX_MASKED, u1, v1, w1);
	west_divmin_sweep_cpu(&h.kg, 1.25f, 4.0f, 0, WEST_KINDEX_MASKED, u4, v4, w4);
	check_colour_pass(&h.kg, 1.25f, 1.0f, 0, u, v, w, u1, v1, w1);
	check_colour_pass(&h.kg, 1.25f, 4.0f, 0, u, v, w, u4, v4, w4);

	size_t xw = west_kx(nx, ny, 1, 1, 0), ys = west_ky(nx, ny, 1, 1, 0);
	cr_expect(u1[xw] == u4[xw] && u1[xw + 1] == u4[xw + 1] &&
		  v1[ys] == v4[ys] && v1[ys + nx] == v4[ys + nx],
		  "closed column: horizontal faces depend on eta");
	cr_expect(u1[xw] != u[xw], "closed column: cell not updated");
	xw = west_kx(nx, ny, 0, 0, 0), ys = west_ky(nx, ny, 0, 0, 0);
	cr_expect(u1[xw + 1] != u4[xw + 1] && v1[ys + nx] != v4[ys + nx],
		  "open column: horizontal faces independent of eta");
	free(u), free(v), free(w), free(u1), free(v1), free(w1);
	free(u4), free(v4), free(w4);
	hg_free(&h);
}

/* ---- divergence norms ------------------------------------------------------- */

/*
 * 4 x 3 x 2 cells, dx 10, dy 5, levels 2 and 4 m, all faces 0 but:
 * u = -3 on the west boundary face of (0, 0, 0) -> D = 0.3;
 * w = -2 on the top face of (3, 2, 1) -> D = -2 / 4 = -0.5;
 * w = 7 on the ground face of land cell (1, 1, 0) -> D = -3.5, ignored.
 * norms[0] = 0.5 (max |D|: the negative one), norms[1] = 0.09 + 0.25 = 0.34.
 * rtol 1e-6 (1/dx in float).
 */
Test(divergence_norms, known_divergence_two_cells)
{
	struct hg h;
	hg_init(&h, 4, 3, 2, 10.0f, 5.0f, (const float[]){ 2.0f, 4.0f });
	hg_set_land(&h, 1, 1, 0);
	hg_transparency(&h);
	size_t nx = 4, ny = 3;
	float *u = falloc(h.nxf), *v = falloc(h.nyf), *w = falloc(h.nzf);
	double norms[2] = { NAN, NAN };

	fill(u, h.nxf, 0.0f), fill(v, h.nyf, 0.0f), fill(w, h.nzf, 0.0f);
	cr_assert_eq(west_divergence_norms_cpu(&h.kg, u, v, w, norms), WEST_OK);
	cr_expect(norms[0] == 0.0 && norms[1] == 0.0, "zero field: %g %g",
		  norms[0], norms[1]);
	u[west_kx(nx, ny, 0, 0, 0)] = -3.0f;
	w[west_kc(nx, ny, 3, 2, 2)] = -2.0f;
	w[west_kc(nx, ny, 1, 1, 0)] = 7.0f;
	cr_assert_eq(west_divergence_norms_cpu(&h.kg, u, v, w, norms), WEST_OK);
	cr_expect(fabs(norms[0] - 0.5) <= 1e-6 * 0.5, "max |D| %.9g, want 0.5", norms[0]);
	cr_expect(fabs(norms[1] - 0.34) <= 1e-6 * 0.34, "sum D^2 %.9g, want 0.34",
		  norms[1]);
	free(u), free(v), free(w);
	hg_free(&h);
}

/* ---- 9. divergence removal -------------------------------------------------- */

/*
 * The sweep case's grid (stretched levels, land at the bottom of some
 * columns), random u, v in [-5, 5] zeroed on land faces, w poisoned with
 * NaN.  After removal: every fluid cell's divergence (double) is below
 * 1e-6 Umax / h (Umax = 5 m/s, h = min(dx, dy, dz) = 4 m; the float
 * rounding of w integrated over 4 levels is ~1e-7 Umax / h); w is 0 on
 * the ground and on every face touching land, finite everywhere; u and v
 * are not written (memcmp).
 */
Test(divremoval, zero_divergence_and_land_faces)
{
	struct sweep_case sc;
	sweep_case_init(&sc, 31337u);
	const struct west_kgrid *g = &sc.h.kg;
	size_t nx = g->nx, ny = g->ny, nz = g->nz, bad = 0;
	float *u0 = fdup(sc.u, sc.h.nxf), *v0 = fdup(sc.v, sc.h.nyf);
	double bound = 1e-6 * 5.0 / 4.0, worst = 0.0;

	fill(sc.w, sc.h.nzf, NAN);
	cr_assert_eq(west_divremoval_cpu(g, sc.u, sc.v, sc.w), WEST_OK);
	cr_expect(!memcmp(sc.u, u0, sc.h.nxf * sizeof *u0), "u modified");
	cr_expect(!memcmp(sc.v, v0, sc.h.nyf * sizeof *v0), "v modified");
	for (size_t c = 0; c < sc.h.nzf; c++)
		cr_expect(isfinite(sc.w[c]), "w[%zu] = %g", c, sc.w[c]);
	expect_blocked_faces_zero(g, sc.u, sc.v, sc.w, "divremoval");
	for (size_t k = 0; k < nz; k++)
		for (size_t j = 0; j < ny; j++)
			for (size_t i = 0; i < nx; i++) {
				if (sc.h.land[west_kc(nx, ny, i, j, k)])
					continue;
				double d = fabs(ddiv(g, sc.u, sc.v, sc.w, i, j, k));
				worst = fmax(worst, d);
				bad += !(d <= bound);
			}
	cr_expect_eq(bad, 0, "%zu fluid cells keep divergence; worst %.3g > %.3g",
		     bad, worst, bound);
	/* a divergent u field needs a non-zero w somewhere: the test is not empty */
	size_t moved = 0;
	for (size_t c = 0; c < sc.h.nzf; c++)
		moved += sc.w[c] != 0.0f;
	cr_expect_gt(moved, nx * ny);
	free(u0), free(v0);
	sweep_case_free(&sc);
}

/* ---- views of part of a grid (kernels.h: jg, jlo, jhi) ---------------------- */

/* The own rows tried: halo rows at both ends, and at the top only. */
static const size_t view_rows[][2] = { { 2, 1 }, { 0, 3 } };
#define NVIEWS (sizeof view_rows / sizeof view_rows[0])

/* A cut-cell hill (model_fixture.h, odd sizes) and the kernels' view of it. */
struct vgrid {
	struct west_grid g;
	struct west_levels lv;
	struct west_kgrid kg;
	size_t nxf, nyf, nzf;
};

static void vgrid_init(struct vgrid *v)
{
	char err[WEST_ERRLEN] = "";
	size_t cut = 0;

	fix_grid(&v->g, 19, 13, 50.0, 7, 20.0, 90.0, 160.0);
	cr_assert_gt(v->g.land_cells, 0, "the hill must make land");
	for (size_t f = 0; f < west_grid_nxfaces(&v->g); f++)
		cut += v->g.tx[f] > 0.0f && v->g.tx[f] < 1.0f;
	cr_assert(v->g.cut && cut > 0, "the hill must make cut cells");
	cr_assert_eq(west_levels_init(&v->lv, &v->g, err, sizeof err), WEST_OK, "%s", err);
	west_kgrid_init(&v->kg, &v->g, &v->lv);
	v->nxf = west_grid_nxfaces(&v->g);
	v->nyf = west_grid_nyfaces(&v->g);
	v->nzf = west_grid_nzfaces(&v->g);
}

static void vgrid_free(struct vgrid *v)
{
	west_levels_free(&v->lv);
	west_grid_free(&v->g);
}

/* Random faces in [-5, 5] m/s, times their transparencies (step 6). */
static void vgrid_faces(const struct vgrid *v, unsigned seed, float **u, float **vv, float **w)
{
	*u = falloc(v->nxf), *vv = falloc(v->nyf), *w = falloc(v->nzf);
	fill_random(*u, v->nxf, 5.0f, &seed);
	fill_random(*vv, v->nyf, 5.0f, &seed);
	fill_random(*w, v->nzf, 5.0f, &seed);
	cr_assert_eq(west_speed_zero_cpu(&v->kg, *u, *vv, *w), WEST_OK);
}

static uint32_t fbits(float x)
{
	uint32_t b;
	memcpy(&b, &x, sizeof b);
	return b;
}

/* A signalling NaN with a payload: arithmetic on it gives other bits. */
static float sentinel(void)
{
	uint32_t b = 0x7fa5a5a5u;
	float x;
	memcpy(&x, &b, sizeof x);
	return x;
}

/* Whether a face (axis 0, 1, 2: x, y, z) of row j touches a cell of the
 * own rows [jlo, ny - jhi): x- and z-faces of an own row, y-faces jlo ..
 * ny - jhi (the first and last are shared with the halo). */
static int own_face(const struct west_kgrid *g, int axis, size_t j)
{
	size_t lo = g->jlo, hi = g->ny - g->jhi;
	return axis == 1 ? j >= lo && j <= hi : j >= lo && j < hi;
}

/* faces[axis][n], bits for bits, n faces; the first difference named. */
static void expect_face_bits(const char *what, int axis, const float *got,
			     const float *want, size_t n)
{
	static const char *const names[3] = { "u", "v", "w" };
	for (size_t c = 0; c < n; c++)
		if (fbits(got[c]) != fbits(want[c]))
			cr_assert_fail("%s: %s[%zu] %.9g (0x%08x), want %.9g (0x%08x)", what,
				       names[axis], c, (double)got[c], fbits(got[c]),
				       (double)want[c], fbits(want[c]));
}

/*
 * One colour pass on a view with own rows [jlo, ny - jhi) of the hill,
 * masked and compact, against the pass on the whole grid from the same
 * field (the faces of halo rows that touch no own cell hold a sentinel in
 * the view's run instead): a face of an own cell of the colour has the
 * whole run's bits (the cell read the same six faces); every other face
 * keeps what it had, the sentinels too, and the y-faces between the own
 * rows and the halo that the whole run moved from a halo cell of the
 * colour (which the view must not update).  Exact: one pass moves each
 * face from at most one cell.  Some of those shared faces must differ
 * between the two runs, or the halo is not tested.
 */
static void check_sweep_view(const struct vgrid *v, size_t jlo, size_t jhi, int colour,
			     enum west_kindexing ix)
{
	struct west_kgrid kv = v->kg;
	size_t nx = v->g.nx, ny = v->g.ny, nz = v->g.nz, n[3] = { v->nxf, v->nyf, v->nzf };
	float *f0[3], *whole[3], *in[3], *got[3];
	unsigned char *touched[3];
	size_t shared_moved = 0;
	char what[96];

	kv.jlo = jlo, kv.jhi = jhi;
	vgrid_faces(v, 77u + (unsigned)colour, &f0[0], &f0[1], &f0[2]);
	for (int a = 0; a < 3; a++) {
		whole[a] = fdup(f0[a], n[a]);
		in[a] = fdup(f0[a], n[a]);
		touched[a] = calloc(n[a], 1);
		cr_assert_not_null(touched[a]);
	}
	/* halo-only faces to the sentinel; the faces each own cell of the
	 * colour moves */
	for (size_t k = 0; k <= nz; k++)
		for (size_t j = 0; j <= ny; j++)
			for (size_t i = 0; i <= nx; i++) {
				if (k < nz && j < ny && !own_face(&kv, 0, j))
					in[0][west_kx(nx, ny, i, j, k)] = sentinel();
				if (k < nz && i < nx && !own_face(&kv, 1, j))
					in[1][west_ky(nx, ny, i, j, k)] = sentinel();
				if (i < nx && j < ny && !own_face(&kv, 2, j))
					in[2][west_kc(nx, ny, i, j, k)] = sentinel();
				if (i == nx || j == ny || k == nz || !own_face(&kv, 0, j) ||
				    colour_of(i, j, k) != colour)
					continue;
				size_t xw = west_kx(nx, ny, i, j, k);
				size_t ys = west_ky(nx, ny, i, j, k), zb = west_kc(nx, ny, i, j, k);
				touched[0][xw] = touched[0][xw + 1] = 1;
				touched[1][ys] = touched[1][ys + nx] = 1;
				touched[2][zb] = touched[2][zb + nx * ny] = 1;
			}
	for (int a = 0; a < 3; a++)
		got[a] = fdup(in[a], n[a]);
	cr_assert_eq(west_divmin_sweep_cpu(&v->kg, 1.6f, 0.7f, colour, ix, whole[0], whole[1],
					   whole[2]), WEST_OK);
	cr_assert_eq(west_divmin_sweep_cpu(&kv, 1.6f, 0.7f, colour, ix, got[0], got[1], got[2]),
		     WEST_OK);
	for (int a = 0; a < 3; a++) {
		float *want = fdup(in[a], n[a]);
		for (size_t c = 0; c < n[a]; c++)
			if (touched[a][c])
				want[c] = whole[a][c];
		snprintf(what, sizeof what, "rows [%zu, %zu) of %zu, colour %d, %s", jlo,
			 ny - jhi, ny, colour, ix == WEST_KINDEX_MASKED ? "masked" : "compact");
		expect_face_bits(what, a, got[a], want, n[a]);
		free(want);
	}
	for (size_t k = 0; k < nz; k++)
		for (size_t i = 0; i < nx; i++)
			for (int e = 0; e < 2; e++) {
				size_t j = e ? ny - jhi : jlo, c = west_ky(nx, ny, i, j, k);
				shared_moved += (j > 0 && j < ny) && !touched[1][c] &&
						fbits(whole[1][c]) != fbits(f0[1][c]);
			}
	cr_expect_gt(shared_moved, 0, "%s: no face shared with the halo was moved from the "
		     "halo in the whole run", what);
	for (int a = 0; a < 3; a++)
		free(f0[a]), free(whole[a]), free(in[a]), free(got[a]), free(touched[a]);
}

Test(views, sweep_updates_the_own_rows_only)
{
	struct vgrid v;
	vgrid_init(&v);
	for (size_t r = 0; r < NVIEWS; r++)
		for (int colour = 0; colour < 2; colour++) {
			check_sweep_view(&v, view_rows[r][0], view_rows[r][1], colour,
					 WEST_KINDEX_MASKED);
			check_sweep_view(&v, view_rows[r][0], view_rows[r][1], colour,
					 WEST_KINDEX_COMPACT);
		}
	vgrid_free(&v);
}

/* Face velocities (m/s) for the faces that touch no own cell: large and
 * uneven, so that the cells there have large divergence. */
static float halo_face(size_t i, size_t j, size_t k)
{
	return 1e4f * (float)(1 + (i + 3 * j + 7 * k) % 5);
}

/* f (u, v, w) = halo_face on every face that touches no own cell of g. */
static void halo_faces(const struct west_kgrid *g, float *f[3])
{
	size_t nx = g->nx, ny = g->ny, nz = g->nz;
	for (size_t k = 0; k <= nz; k++)
		for (size_t j = 0; j <= ny; j++)
			for (size_t i = 0; i <= nx; i++) {
				if (k < nz && j < ny && !own_face(g, 0, j))
					f[0][west_kx(nx, ny, i, j, k)] = halo_face(i, j, k);
				if (k < nz && i < nx && !own_face(g, 1, j))
					f[1][west_ky(nx, ny, i, j, k)] = halo_face(i, j, k);
				if (i < nx && j < ny && !own_face(g, 2, j))
					f[2][west_kc(nx, ny, i, j, k)] = halo_face(i, j, k);
			}
}

/*
 * The divergence norms of a view: over the fluid cells of its own rows
 * only.  The faces that touch no own cell are 1e4 m/s and more, uneven
 * (a halo cell counted would dominate both norms).  max |D| exactly the largest |D| of
 * an own fluid cell, each D computed as the kernels do (west_cell_div,
 * float); the sum of D^2 within (n - 1) 2^-53 of the sum here (the same
 * exact terms, n of them, added in another order).
 */
Test(views, divergence_norms_of_the_own_rows_only)
{
	struct vgrid v;
	vgrid_init(&v);
	size_t nx = v.g.nx, ny = v.g.ny, nz = v.g.nz;
	const struct west_sor o = west_sor_init(&v.kg, 1.0f, 1.0f);

	for (size_t r = 0; r < NVIEWS; r++) {
		struct west_kgrid kv = v.kg;
		float *f[3];
		double norms[2] = { NAN, NAN }, mx = 0.0, sum = 0.0, cells = 0.0;

		kv.jlo = view_rows[r][0], kv.jhi = view_rows[r][1];
		vgrid_faces(&v, 91u + (unsigned)r, &f[0], &f[1], &f[2]);
		halo_faces(&kv, f);
		for (size_t k = 0; k < nz; k++)
			for (size_t j = kv.jlo; j < ny - kv.jhi; j++)
				for (size_t i = 0; i < nx; i++) {
					if (v.g.land[west_kc(nx, ny, i, j, k)])
						continue;
					double d = west_cell_div(&kv, &o, f[0], f[1], f[2], i, j,
								 k);
					mx = fmax(mx, fabs(d));
					sum += d * d;
					cells++;
				}
		cr_assert_eq(west_divergence_norms_cpu(&kv, f[0], f[1], f[2], norms), WEST_OK);
		cr_expect_eq(norms[0], mx, "rows [%zu, %zu): max |D| %.17g, want %.17g", kv.jlo,
			     ny - kv.jhi, norms[0], mx);
		cr_expect_leq(fabs(norms[1] - sum), (cells - 1) * 0x1p-53 * sum,
			      "rows [%zu, %zu): sum D^2 %.17g, want %.17g", kv.jlo, ny - kv.jhi,
			      norms[1], sum);
		cr_expect_lt(mx, 10.0, "the own cells' D must not see the halo's faces");
		for (int a = 0; a < 3; a++)
			free(f[a]);
	}
	vgrid_free(&v);
}

/*
 * A view of rows [j0, j1) of a grid as a partition holds it: its own
 * kgrid over copies of those rows of the grid's arrays (ground, land, tx,
 * tz by rows; ty's faces j0 .. j1), jg = j0.
 */
struct slab {
	struct west_kgrid kg;
	float *ground, *tx, *ty, *tz;
	unsigned char *land;
};

static void slab_init(struct slab *s, const struct west_kgrid *g, size_t j0, size_t j1)
{
	size_t nx = g->nx, ny = g->ny, nz = g->nz, m = j1 - j0;

	s->ground = falloc(nx * m);
	s->tx = falloc((nx + 1) * m * nz);
	s->ty = falloc(nx * (m + 1) * nz);
	s->tz = falloc(nx * m * (nz + 1));
	s->land = malloc(nx * m * nz);
	cr_assert_not_null(s->land);
	memcpy(s->ground, g->ground + j0 * nx, nx * m * sizeof *s->ground);
	for (size_t k = 0; k <= nz; k++) {   /* each level's rows are contiguous */
		size_t cs = west_kc(nx, m, 0, 0, k), cg = west_kc(nx, ny, 0, j0, k);
		if (k < nz) {
			memcpy(s->tx + west_kx(nx, m, 0, 0, k), g->tx + west_kx(nx, ny, 0, j0, k),
			       (nx + 1) * m * sizeof(float));
			memcpy(s->ty + west_ky(nx, m, 0, 0, k), g->ty + west_ky(nx, ny, 0, j0, k),
			       nx * (m + 1) * sizeof(float));
			memcpy(s->land + cs, g->land + cg, nx * m);
		}
		memcpy(s->tz + cs, g->tz + cg, nx * m * sizeof(float));
	}
	s->kg = *g;
	s->kg.ny = m, s->kg.jg = j0;
	s->kg.ground = s->ground, s->kg.land = s->land;
	s->kg.tx = s->tx, s->kg.ty = s->ty, s->kg.tz = s->tz;
}

static void slab_free(struct slab *s)
{
	free(s->ground), free(s->tx), free(s->ty), free(s->tz), free(s->land);
}

/* The slabs tried: the bottom, the middle, the top of the hill's 13 rows. */
static const size_t slab_rows[][2] = { { 0, 5 }, { 3, 10 }, { 6, 13 } };
#define NSLABS (sizeof slab_rows / sizeof slab_rows[0])

/* Four stations of different classes spread over the hill. */
static void view_stations(struct west_kstation st[4], float stab[4])
{
	static const float xy[4][2] = { { 120, 80 }, { 830, 210 }, { 400, 540 }, { 700, 610 } };
	for (int s = 0; s < 4; s++) {
		st[s] = (struct west_kstation){
			.x = xy[s][0], .y = xy[s][1], .height = 10.0f, .speed = 3.0f + (float)s,
			.direction = 60.0f * (float)s, .mix = 300.0f,
		};
		stab[s] = (float)(s == 3 ? 5 : s);
	}
}

/*
 * Step 1 on a slab (jg = j0) gives the whole grid's classes of its
 * columns, and the classes must change along y (or the test would pass
 * without jg).  jg = 0 on the slab must differ where j0 > 0.
 */
Test(views, stability_of_a_slab_is_the_grids)
{
	struct vgrid v;
	struct west_kstation st[4];
	float stab[4];
	vgrid_init(&v);
	view_stations(st, stab);
	size_t nx = v.g.nx, ny = v.g.ny;
	unsigned char *cls = malloc(nx * ny), *part = malloc(nx * ny);
	size_t varies = 0;

	cr_assert(cls && part);
	cr_assert_eq(west_stability_cpu(&v.kg, 4, st, stab, cls), WEST_OK);
	for (size_t j = 1; j < ny; j++)
		varies += cls[j * nx] != cls[(j - 1) * nx];
	cr_assert_gt(varies, 1, "the classes must change along y");
	for (size_t s = 0; s < NSLABS; s++) {
		size_t j0 = slab_rows[s][0], j1 = slab_rows[s][1];
		struct slab sl;
		slab_init(&sl, &v.kg, j0, j1);
		memset(part, 0xff, nx * ny);
		cr_assert_eq(west_stability_cpu(&sl.kg, 4, st, stab, part), WEST_OK);
		for (size_t c = 0; c < nx * (j1 - j0); c++)
			cr_assert_eq(part[c], cls[j0 * nx + c], "rows [%zu, %zu): column (%zu, "
				     "%zu) class %d, the grid's %d", j0, j1, c % nx, j0 + c / nx,
				     part[c], cls[j0 * nx + c]);
		if (j0 > 0) {   /* without jg the slab is another place */
			sl.kg.jg = 0;
			cr_assert_eq(west_stability_cpu(&sl.kg, 4, st, stab, part), WEST_OK);
			cr_expect_neq(memcmp(part, cls + j0 * nx, nx * (j1 - j0)), 0,
				      "rows [%zu, %zu): jg = 0 gave the same classes", j0, j1);
		}
		slab_free(&sl);
	}
	free(cls), free(part);
	vgrid_free(&v);
}

/* Face (i, j, k) of slab [j0, j1): a, the grid's b, bit for bit. */
static void expect_slab_face(const char *what, size_t j0, size_t j1, size_t i, size_t j,
			     size_t k, float a, float b)
{
	cr_assert_eq(fbits(a), fbits(b), "rows [%zu, %zu): %s (%zu, %zu, %zu) %.9g, the grid's "
		     "%.9g", j0, j1, what, i, j0 + j, k, (double)a, (double)b);
}

/*
 * Step 5 on a slab (jg = j0) gives the whole grid's faces bit for bit:
 * every x-face of its rows, and its y-faces j0 < j < j1; its first and
 * last y-faces too where they are the grid's edges (elsewhere their ground
 * is the mean of a row the slab lacks: kernels.h).  The same arithmetic
 * on both sides (powf included), so exact.  jg = 0 on the slab must
 * differ where j0 > 0.
 */
Test(views, interpolate_on_a_slab_is_the_grids)
{
	struct vgrid v;
	struct west_kstation st[4];
	float stab[4], pst[4], us[4], vs[4];
	vgrid_init(&v);
	view_stations(st, stab);
	size_t nx = v.g.nx, ny = v.g.ny, nz = v.g.nz;
	float *u = falloc(v.nxf), *vv = falloc(v.nyf), *pu = falloc(v.nxf), *pv = falloc(v.nyf);

	for (int s = 0; s < 4; s++) {
		pst[s] = 0.07f + 0.1f * (float)s;
		west_initialize_at(&st[s], &us[s], &vs[s]);
	}
	cr_assert_eq(west_interpolate_cpu(&v.kg, 4, st, pst, us, vs, u, vv), WEST_OK);
	for (size_t s = 0; s < NSLABS; s++) {
		size_t j0 = slab_rows[s][0], j1 = slab_rows[s][1], m = j1 - j0;
		struct slab sl;
		slab_init(&sl, &v.kg, j0, j1);
		fill(pu, v.nxf, NAN), fill(pv, v.nyf, NAN);
		cr_assert_eq(west_interpolate_cpu(&sl.kg, 4, st, pst, us, vs, pu, pv), WEST_OK);
		for (size_t k = 0; k < nz; k++)
			for (size_t j = 0; j <= m; j++)
				for (size_t i = 0; i <= nx; i++) {
					int edge = (j == 0 && j0 > 0) || (j == m && j1 < ny);
					if (j < m)
						expect_slab_face("u", j0, j1, i, j, k,
								 pu[west_kx(nx, m, i, j, k)],
								 u[west_kx(nx, ny, i, j0 + j, k)]);
					if (i < nx && !edge)
						expect_slab_face("v", j0, j1, i, j, k,
								 pv[west_ky(nx, m, i, j, k)],
								 vv[west_ky(nx, ny, i, j0 + j, k)]);
				}
		if (j0 > 0) {   /* without jg the slab is another place */
			sl.kg.jg = 0;
			cr_assert_eq(west_interpolate_cpu(&sl.kg, 4, st, pst, us, vs, pu, pv),
				     WEST_OK);
			cr_expect_neq(memcmp(pu, u + west_kx(nx, ny, 0, j0, 0),
					     (nx + 1) * m * sizeof *pu), 0,
				      "rows [%zu, %zu): jg = 0 gave the same u", j0, j1);
		}
		slab_free(&sl);
	}
	free(u), free(vv), free(pu), free(pv);
	vgrid_free(&v);
}
