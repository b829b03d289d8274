/*
 * test_plume.c: release plumes (src/plume.h, kernels/plume_util.h;
 * docs/model.md, "Release plumes"), on the CPU reference, and the CUDA
 * kernel against it where a GPU answers (tests/gpu.h skips otherwise).
 *
 * Fixtures (model_fixture.h): flat grids whose fields are set here (a
 * uniform wind along x, or calm), and a hill with a solved field (one
 * station, the CPU backend).  Every run uses a fixed seed, so every run
 * of this file gives the same numbers.
 *
 * Statistical bounds, each derived where it is used:
 *  - analytic_plume: the time-integrated concentration in a column of the
 *    near-ground layer, from a continuous release in a uniform wind U with
 *    homogeneous turbulence (sigma_u, sigma_v, sigma_w, one T_L), against
 *    the reflected Gaussian plume with Taylor's (1921) sigma_y(t) and
 *    sigma_z(t), t = x / U, averaged over the column and the layer.  The
 *    model's estimate at a column is a sum over the particles that pass
 *    through it (thousands at every distance tested: printed), so its
 *    relative standard error is about 1 / sqrt(count), at most 2.1 % here;
 *    the bound, 10 %, is 4.8 of those.  The model's own discretization
 *    (the damping integrated exactly, steps of T_L / 10) is well under 1 %.
 *  - plume_mass: the sum of conc dx dy layer (s) against the mean time a
 *    particle spends in the layer by the same Gaussian (integrated
 *    numerically), within 5 % (40,000 particles: a standard error near
 *    0.5 %).
 *  - well_mixed_*: particles spread evenly between the ground and the
 *    mixing height must stay even (Thomson 1987's well-mixed condition):
 *    a chi-square over 10 equal bins of height, below 27.88 (9 degrees of
 *    freedom, p = 0.001); a model without the drift term 1/2 d(sigma_w^2)/dz
 *    (1 + w^2/sigma_w^2) (in the normalized form the particles use,
 *    d sigma_w / dz) gathers particles where sigma_w is small: taken out,
 *    these runs gave chi-square 600 (B), 32 (D) and 1445 (F) (731, 49 and
 *    1304 on the 2 km domain used before, which some particles left by its
 *    sides, more of them in F once the stable meander widened its spread).
 *  - cuda_matches_cpu, simd_matches_reference_*: docs/model.md, "Release
 *    plumes", the CPU reference against the GPU and the CPU's vectors.
 *  - cuda_order_changes_nothing: the GPU's order of the particles
 *    (kernels.h, struct west_kparticles) leaves every output bit for bit.
 */
#include "model_fixture.h"
#include "gpu.h"
#include "plume.h"
#include "plume_util.h"
#include "query.h"

#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static struct west_grid g;
static struct west_field f;
static struct west_plume_result res;
static char err[WEST_ERRLEN];

static void teardown(void)
{
	west_plume_result_free(&res);
	west_field_free(&f);
	west_grid_free(&g);
}

TestSuite(plume, .fini = teardown);

/* ---- set-ups ----------------------------------------------------------- */

/* A flat grid, nx * ny columns of dx, nz levels of dz, its field a uniform
 * wind u along x (v = w = 0, the open faces only), every column of class
 * cls, power-law exponents 0 (the lowest level's wind down to the ground). */
static void flat(size_t nx, size_t ny, double dx, size_t nz, double dz, double u, int cls)
{
	fix_grid(&g, nx, ny, dx, nz, dz, 0.0, 1000.0);
	cr_assert_eq(west_field_init(&f, &g, err, sizeof err), WEST_OK, "%s", err);
	for (size_t i = 0; i < west_grid_nxfaces(&g); i++)
		f.u[i] = (float)(g.tx[i] * u);
	memset(f.v, 0, west_grid_nyfaces(&g) * sizeof *f.v);
	memset(f.w, 0, west_grid_nzfaces(&g) * sizeof *f.w);
	memset(f.stability, cls, g.nx * g.ny);
	memset(f.power_exponent, 0, sizeof f.power_exponent);
}

/* A 60 m hill (sigma 300 m) on 41 x 31 columns of 50 m, 20 levels of
 * 10 m, its field solved from one station (class cls). */
static void hill(int cls)
{
	struct west_obs_set obs = { 0 };
	struct west_solve_opts o;

	fix_grid(&g, 41, 31, 50.0, 20, 10.0, 60.0, 300.0);
	fix_obs(&obs, "s", 300.0, 400.0, 10.0, 4.0, 250.0, cls);
	fix_opts(&o, 400, 1e-4, 1.8, WEST_INDEXING_COMPACT);
	o.solver = WEST_SOLVER_MULTIGRID;
	fix_solve(&g, &obs, &o, &f);
	west_obs_set_free(&obs);
}

/* A release at grid-local (x, y). */
static struct west_release release_at(double x, double y, double height, double duration,
				      double seconds, long particles)
{
	struct west_release r = {
		.x = g.x0 + x, .y = g.y0 + y, .height = height, .duration = duration,
		.seconds = seconds, .particles = particles, .seed = 20261125,
		.start = 1795435200, .layer = WEST_RELEASE_LAYER,
	};
	return r;
}

static void run_on(const struct west_kernel_ops *k, const struct west_release *r,
		   const struct west_plume_opts *o, struct west_plume_result *out)
{
	enum west_status st = west_plume_run_opts(&g, &f, r, o, k, NULL, NULL, out, err,
						  sizeof err);
	cr_assert_eq(st, WEST_OK, "west_plume_run: %s: %s", west_status_str(st), err);
}

static void run(const struct west_release *r, const struct west_plume_opts *o)
{
	run_on(&west_kernels_cpu, r, o, &res);
}

/* The kernel's view of g and f in host memory, as the driver builds it
 * (plume.c), for the tests of the per-particle bodies. */
struct hostk {
	struct west_kplume k;
	double *zlow;
	struct west_kturb *turb;
	float *hmix;
};

static void hostk_init(struct hostk *h)
{
	size_t ncol = g.nx * g.ny;

	memset(h, 0, sizeof *h);
	h->zlow = calloc(ncol, sizeof *h->zlow);
	h->turb = calloc(ncol, sizeof *h->turb);
	h->hmix = calloc(ncol, sizeof *h->hmix);
	cr_assert(h->zlow && h->turb && h->hmix);
	for (size_t j = 0; j < g.ny; j++)
		for (size_t i = 0; i < g.nx; i++) {
			size_t k0;
			h->zlow[j * g.nx + i] = west_grid_lowest_level(&g, i, j, &k0);
			h->hmix[j * g.nx + i] = 500.0f;
		}
	h->k.wind = (struct west_kwind){ .nx = g.nx, .ny = g.ny, .nz = g.nz, .dx = g.dx,
					 .dy = g.dy, .zf = g.zf, .u = f.u, .v = f.v, .w = f.w,
					 .tx = g.tx, .ty = g.ty, .tz = g.tz };
	h->k.base = g.base;
	h->k.top = g.base + g.zf[g.nz];
	h->k.terrain = g.terrain;
	h->k.zlow = h->zlow;
	h->k.cls = f.stability;
	h->k.turb = h->turb;
	h->k.hmix = h->hmix;
	memcpy(h->k.pexp, f.power_exponent, sizeof h->k.pexp);
}

static void hostk_free(struct hostk *h)
{
	free(h->zlow);
	free(h->turb);
	free(h->hmix);
}

/* Uniform in [0, 1) (xorshift64*). */
static double rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) * 0x1p-53;
}

static double phi(double x)
{
	return 0.5 * erfc(-x / sqrt(2.0));
}

/* ---- the generator ---------------------------------------------------------- */

/* Random123's known answers for Philox4x32-10 (its kat_vectors file). */
Test(plume, philox_known_answers)
{
	static const unsigned in[3][6] = {
		{ 0, 0, 0, 0, 0, 0 },
		{ 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu },
		{ 0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u },
	};
	static const unsigned want[3][4] = {
		{ 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u },
		{ 0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu },
		{ 0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u },
	};
	for (int c = 0; c < 3; c++) {
		unsigned out[4];
		west_philox4x32_10(in[c], in[c] + 4, out);
		for (int i = 0; i < 4; i++)
			cr_expect_eq(out[i], want[c][i], "vector %d word %d: %08x, want %08x", c, i,
				     out[i], want[c][i]);
	}
}

/* The Gaussians: mean 0 and variance 1 within 5 standard errors over
 * 3 * 200,000 draws, no two draws of one particle alike, and different
 * particles and seeds giving different numbers. */
Test(plume, normals)
{
	const int n = 200000;
	double s1[3] = { 0 }, s2[3] = { 0 }, g0[3], g1[3];

	for (int i = 0; i < n; i++) {
		double x[3];
		west_plume_normals(7, (size_t)i, 3, x);
		for (int c = 0; c < 3; c++)
			s1[c] += x[c], s2[c] += x[c] * x[c];
	}
	for (int c = 0; c < 3; c++) {
		double m = s1[c] / n, v = s2[c] / n - m * m;
		cr_expect_lt(fabs(m), 5.0 / sqrt(n), "component %d: mean %g", c, m);
		cr_expect_lt(fabs(v - 1.0), 5.0 * sqrt(2.0 / n), "component %d: variance %g", c, v);
	}
	west_plume_normals(7, 5, 0, g0);
	west_plume_normals(7, 5, 1, g1);
	cr_expect(g0[0] != g1[0], "draws 0 and 1 of a particle alike");
	west_plume_normals(7, 6, 0, g1);
	cr_expect(g0[0] != g1[0], "particles 5 and 6 alike");
	west_plume_normals(8, 5, 0, g1);
	cr_expect(g0[0] != g1[0], "seeds 7 and 8 alike");
}

/* ---- the profiles --------------------------------------------------------------- */

/* Each regime's d(sigma^2)/dz is the derivative of its sigma^2: against
 * centred differences (step 1e-3 m, error ~1e-9 relative on these smooth
 * branches) within 1e-5 relative, at heights away from the branch points;
 * constant, with derivative 0, where the height is clamped. */
Test(plume, profile_derivatives)
{
	struct west_kplume k = { .tl = 0 };
	const struct west_kturb cols[3] = {
		{ .ustar = 0.4f, .wstar = 0.0f, .inv_l = 0.0f },        /* neutral */
		{ .ustar = 0.3f, .wstar = 1.6f, .inv_l = -0.05f },      /* unstable */
		{ .ustar = 0.2f, .wstar = 0.0f, .inv_l = 0.04f },       /* stable */
	};
	const double h = 800.0, zs[] = { 3.0, 7.0, 15.0, 40.0, 100.0, 200.0, 500.0, 700.0 };

	for (int c = 0; c < 3; c++)
		for (size_t i = 0; i < sizeof zs / sizeof zs[0]; i++) {
			struct west_kprof a, lo, hi;
			double dz = 1e-3, z = zs[i];
			west_plume_profile(&k, &cols[c], h, z, &a);
			west_plume_profile(&k, &cols[c], h, z - dz, &lo);
			west_plume_profile(&k, &cols[c], h, z + dz, &hi);
			for (int m = 0; m < 3; m++) {
				double fd = (hi.s2[m] - lo.s2[m]) / (2 * dz);
				cr_expect(fabs(fd - a.ds2[m]) <= 1e-5 * fabs(a.ds2[m]) + 1e-12,
					  "regime %d, z %g, component %d: d(sigma^2)/dz %.9g, differences %.9g",
					  c, z, m, a.ds2[m], fd);
				cr_expect_gt(a.s2[m], 0.0);
				cr_expect_gt(a.tl[m], 0.0);
			}
		}
	for (int c = 0; c < 3; c++) {
		struct west_kprof a, b;
		west_plume_profile(&k, &cols[c], h, 0.2, &a);
		west_plume_profile(&k, &cols[c], h, WEST_PLUME_ZS, &b);
		cr_expect(a.s2[2] == b.s2[2] && a.ds2[2] == 0.0,
			  "regime %d: below %g m the profile holds", c, WEST_PLUME_ZS);
		west_plume_profile(&k, &cols[c], h, 0.99 * h, &a);
		cr_expect(a.ds2[2] == 0.0, "regime %d: above 0.96 h the profile holds", c);
	}
}

/* Hanna (1982)'s values at hand-worked points, and the stable meander's floor. */
Test(plume, profile_values)
{
	struct west_kplume k = { .tl = 0 };
	struct west_kturb neu = { .ustar = 0.5f }, sta = { .ustar = 0.25f, .inv_l = 0.02f };
	struct west_kprof a;
	double us = (double)0.5f, e = exp(-2e-4 * 100.0 / us);

	/* neutral, z 100 m: sigma_w = 1.3 u* e^(-2fz/u*), T_L = 0.5 z / sigma_w / (1 + 15 f z / u*) */
	west_plume_profile(&k, &neu, 1000.0, 100.0, &a);
	cr_expect_float_eq(sqrt(a.s2[2]), 1.3 * us * e, 1e-12);
	cr_expect_float_eq(sqrt(a.s2[0]), 2.0 * us * pow(e, 1.5), 1e-12);
	cr_expect_float_eq(a.tl[2], 0.5 * 100.0 / (1.3 * us * e) / (1.0 + 1.5e-3 * 100.0 / us), 1e-9);
	/* stable, h 200 m, z 50 m: sigma_w = 1.3 u* 0.75; T_Lw = 0.1 h / sigma_w 0.25^0.8 */
	us = (double)0.25f;
	west_plume_profile(&k, &sta, 200.0, 50.0, &a);
	cr_expect_float_eq(sqrt(a.s2[2]), 1.3 * us * 0.75, 1e-12);
	cr_expect_float_eq(a.tl[2], 0.1 * 200.0 / (1.3 * us * 0.75) * pow(0.25, 0.8), 1e-9);
	/* its horizontal T_L, Hanna's 40 s and 18.7 s, held at the meander's */
	cr_expect(a.tl[0] == WEST_PLUME_TL_MEANDER && a.tl[1] == WEST_PLUME_TL_MEANDER,
		  "stable T_Lu %g s, T_Lv %g s: the meander's %g s expected", a.tl[0], a.tl[1],
		  WEST_PLUME_TL_MEANDER);
	cr_expect_float_eq(WEST_PLUME_TL_MEANDER, 617.28, 0.01);
	/* h 2000 m, u* 0.05, z 1000 m: Hanna's T_Lu = 0.15 h / (2 u* 0.5) 0.5^0.5,
	 * 4243 s, and T_Lv = 0.467 T_Lu are longer, and kept */
	sta.ustar = 0.05f;
	us = (double)0.05f;
	west_plume_profile(&k, &sta, 2000.0, 1000.0, &a);
	cr_expect_float_eq(a.tl[0], 0.15 * 2000.0 / (2.0 * us * 0.5) * sqrt(0.5), 1e-9);
	cr_expect_float_eq(a.tl[1], 0.467 * a.tl[0], 1e-12);
}

/* ---- the mean wind ------------------------------------------------------------ */

/* The wind the particles move with is west_query_point's: at 2000 random
 * points in the air over the hill (every height from the ground to the
 * top, so below the lowest resolved levels too), the kernel's body and the
 * query give the same u, v, w to the float the query returns (the grid has
 * no CRS, so the query's u, v are the grid's), and its ground is
 * west_grid_ground_at's, bit for bit. */
Test(plume, wind_matches_query)
{
	struct hostk h;
	uint64_t s = 99;
	int below = 0;

	hill(WEST_STAB_C);
	hostk_init(&h);
	cr_assert(!g.has_convergence);
	for (int n = 0; n < 2000; n++) {
		double xq = g.x0 + rnd(&s) * (double)g.nx * g.dx;
		double yq = g.y0 + rnd(&s) * (double)g.ny * g.dy;
		/* grid-local as the query takes them, so that both see one point */
		double x = xq - g.x0, y = yq - g.y0;
		double ground = west_grid_ground_at(&g, x, y), top = g.base + g.zf[g.nz];
		double z = ground + rnd(&s) * rnd(&s) * (top - ground), um[3];
		struct west_ppos q;
		struct west_point p;

		west_plume_where(&h.k, x, y, &q);
		cr_assert(q.ground == ground, "ground %.17g, grid's %.17g", q.ground, ground);
		if (h.zlow[q.col] < 0)
			continue;
		below += z - ground < h.zlow[q.col] + g.base - ground;
		west_plume_wind(&h.k, x, y, z, z - ground, &q, um);
		cr_assert_eq(west_query_point(&g, &f, xq, yq, z, WEST_ZREF_MSL, &p, err,
					      sizeof err), WEST_OK, "%s", err);
		cr_assert(p.u == (float)um[0] && p.v == (float)um[1] && p.w == (float)um[2],
			  "at %g, %g, %g m: kernel %.9g %.9g %.9g, query %.9g %.9g %.9g", x, y, z,
			  um[0], um[1], um[2], (double)p.u, (double)p.v, (double)p.w);
	}
	cr_expect_gt(below, 50, "only %d points below the lowest resolved level", below);
	hostk_free(&h);
}

/* ---- against the Gaussian plume ------------------------------------------------- */

#define AN_U 5.0
#define AN_H 20.0
#define AN_TL 20.0
static const double an_sigma[3] = { 0.2, 0.5, 0.3 };

/* Taylor (1921): sigma^2(t) = 2 sigma^2 T^2 (t / T - 1 + e^(-t/T)). */
static double taylor(double sigma, double t)
{
	return sigma * sqrt(2.0 * AN_TL * AN_TL * (t / AN_TL - 1.0 + exp(-t / AN_TL)));
}

/* The fraction of a reflected Gaussian (centre H, sigma sz) in [0, L]. */
static double in_layer(double sz, double L)
{
	return phi((L - AN_H) / sz) - phi(-AN_H / sz) + phi((L + AN_H) / sz) - phi(AN_H / sz);
}

/* The time-integrated concentration per unit mass averaged over a column
 * dx by dy centred on the plume's axis at distance d downwind, and over
 * the layer [0, L]: (1/U) Gy Gz, Simpson over x with 16 intervals. */
static double gaussian_column(double d, double dx, double dy, double L)
{
	double sum = 0.0;
	for (int i = 0; i <= 16; i++) {
		double x = d - 0.5 * dx + dx * i / 16.0, t = x / AN_U;
		double sy = taylor(an_sigma[1], t), sz = taylor(an_sigma[2], t);
		double fy = (phi(0.5 * dy / sy) - phi(-0.5 * dy / sy)) / dy;
		double fz = in_layer(sz, L) / L;
		sum += (i == 0 || i == 16 ? 1.0 : i % 2 ? 4.0 : 2.0) * fy * fz;
	}
	return sum / 48.0 / AN_U;
}

static void analytic_setup(struct west_release *r, struct west_plume_opts *o)
{
	flat(80, 40, 50.0, 40, 10.0, AN_U, WEST_STAB_D);
	*r = release_at(4.5 * 50.0, 20.5 * 50.0, AN_H, 100.0, 600.0, 40000);
	west_plume_opts_init(o);
	o->sigma_u = an_sigma[0], o->sigma_v = an_sigma[1], o->sigma_w = an_sigma[2];
	o->t_l = AN_TL;
	o->mixing_height = 5000.0;    /* above the top: no lid */
}

Test(plume, analytic_plume)
{
	struct west_release r;
	struct west_plume_opts o;
	const double dist[] = { 250.0, 500.0, 1000.0, 2000.0 };

	analytic_setup(&r, &o);
	run(&r, &o);
	cr_assert_eq(res.outside, 0, "%ld particles left the domain", res.outside);
	for (size_t n = 0; n < sizeof dist / sizeof dist[0]; n++) {
		size_t i = 4 + (size_t)(dist[n] / g.dx), j = 20;
		double model = res.conc[j * g.nx + i];
		double gauss = gaussian_column(dist[n], g.dx, g.dy, r.layer);
		double sy = taylor(an_sigma[1], dist[n] / AN_U), sz = taylor(an_sigma[2], dist[n] / AN_U);
		double passing = (double)r.particles * (2 * phi(0.5 * g.dy / sy) - 1) * in_layer(sz, r.layer);
		cr_log_info("%g m: model %.4g, Gaussian %.4g s/m^3 (ratio %.3f; about %.0f particles pass)",
			    dist[n], model, gauss, model / gauss, passing);
		cr_expect(passing > 2000, "too few particles at %g m for the bound", dist[n]);
		cr_expect(fabs(model / gauss - 1.0) < 0.10,
			  "%g m downwind: %.4g s/m^3 against the Gaussian plume's %.4g (ratio %.3f)",
			  dist[n], model, gauss, model / gauss);
	}
}

/* Mass: sum of conc dx dy layer = the mean time a particle spends in the
 * layer, (1/D) int_0^D int_0^(S - t0) P(|Z(t)| < L) dt dt0, P by the
 * reflected Gaussian (no particle leaves: checked). */
Test(plume, plume_mass)
{
	struct west_release r;
	struct west_plume_opts o;
	double total = 0.0, want = 0.0, cum[601] = { 0 };

	analytic_setup(&r, &o);
	run(&r, &o);
	cr_assert_eq(res.outside, 0);
	for (size_t c = 0; c < g.nx * g.ny; c++)
		total += res.conc[c] * g.dx * g.dy * r.layer;
	/* cum[s] = int_0^s P dt (trapezoids of 1 s; P is smooth) */
	for (int s = 1; s <= 600; s++) {
		double p0 = s > 1 ? in_layer(taylor(an_sigma[2], s - 1.0), r.layer) : 0.0;
		cum[s] = cum[s - 1] + 0.5 * (p0 + in_layer(taylor(an_sigma[2], (double)s), r.layer));
	}
	for (int t0 = 0; t0 < 100; t0++)   /* release times, midpoint rule */
		want += 0.5 * (cum[600 - t0] + cum[599 - t0]) / 100.0;
	cr_log_info("time in the layer: model %.3f s, Gaussian %.3f s", total, want);
	cr_expect(fabs(total / want - 1.0) < 0.05, "mass in the layer: %.4g s against %.4g s",
		  total, want);
}

/* Release times p D / N and the path: at 60 s with D = 600 s and N = 1000,
 * particles 0 .. 99 are out and in the domain; the centroid moves at U
 * (within 2 %: a mean of hundreds of particles whose along-wind
 * turbulence is sigma_u = 0.2 m/s); arrival grows downwind. */
Test(plume, release_and_path)
{
	struct west_release r;
	struct west_plume_opts o;

	analytic_setup(&r, &o);
	r.particles = 1000;
	r.duration = 600.0;
	r.seconds = 600.0;
	run(&r, &o);
	cr_assert_geq(res.npath, 11);
	cr_expect(res.path[0].t == 0 && res.path[0].n == 1 && res.path[0].x == r.x);
	cr_expect(res.path[1].t == 60.0 && res.path[1].n == 100, "at %g s: %ld particles",
		  res.path[1].t, res.path[1].n);
	cr_expect(res.path[10].t == 600.0 && res.path[10].n == 1000);
	for (size_t i = 1; i < res.npath; i++) {
		/* particles released uniformly in [0, t]: mean age t / 2 */
		double t = res.path[i].t, age = 0.5 * (t + r.duration / r.particles);
		cr_expect(fabs(res.path[i].x - r.x - AN_U * age) < 0.02 * AN_U * age + 2.0,
			  "centroid at %g s: %g m downwind, want %g", t, res.path[i].x - r.x,
			  AN_U * age);
		cr_expect(res.path[i].t > res.path[i - 1].t);
	}
	size_t j = 20;
	double prev = -1.0;
	for (size_t i = 7; i < 60; i += 4) {
		float a = res.arrival[j * g.nx + i];
		cr_expect(!isnan(a), "column %zu: no arrival", i);
		cr_expect_gt(a, prev, "column %zu: arrival %g not after %g", i, (double)a, prev);
		prev = a;
	}
	cr_expect(isnan(res.arrival[0]), "a column the plume never reaches has an arrival");
}

/* ---- the well-mixed condition ------------------------------------------------------- */

/* Particles spread evenly from the ground to the mixing height h in calm
 * air with class cls's profiles (u* 0.4 m/s, h 300 m) stay even after
 * 15 minutes: chi-square over 10 bins below 27.88; none below the ground
 * or above h.  The domain is wide enough that (nearly) none leaves by the
 * sides: those that would are the low ones, where sigma_v is largest,
 * which would bias the count. */
static void well_mixed(int cls)
{
	struct west_plume_opts o;
	struct west_release r;
	const long n = 20000;
	double *pos = malloc(4 * (size_t)n * sizeof *pos), chi = 0.0;
	long bins[10] = { 0 }, in = 0;

	flat(80, 80, 50.0, 40, 10.0, 0.0, cls);   /* 4 km: none leaves by the sides */
	r = release_at(2000.0, 2000.0, 0.0, 1.0, 900.0, n);
	west_plume_opts_init(&o);
	o.ustar = 0.4;
	o.mixing_height = 300.0;
	o.uniform_z = 1;
	o.positions = pos;
	run(&r, &o);
	for (long p = 0; p < n; p++) {
		double z = pos[4 * p + 2];
		if (pos[4 * p + 3] != 1)
			continue;
		cr_assert(z >= 0.0 && z <= 300.0 + 1e-9, "particle %ld at %.12g m (h 300 m)", p, z);
		bins[z >= 300.0 ? 9 : (int)(z / 30.0)]++;
		in++;
	}
	cr_assert_gt(in, 0.95 * n, "only %ld particles stayed", in);
	for (int b = 0; b < 10; b++) {
		double e = in / 10.0;
		chi += (bins[b] - e) * (bins[b] - e) / e;
		cr_log_info("class %c, %3d-%3d m: %ld (%.3f of even)", 'A' + cls, 30 * b,
			    30 * b + 30, bins[b], bins[b] / e);
	}
	cr_expect_lt(chi, 27.88, "class %c: chi-square %.1f over 10 bins: not well mixed",
		     'A' + cls, chi);
	free(pos);
}

/* The result's mixing height is the release point's: set, or by class
 * (docs/model.md: neutral 0.3 u* / f, unstable 1000 m). */
Test(plume, mixing_height_reported)
{
	const struct { int cls; double set, want; } cases[] = {
		{ WEST_STAB_D, NAN, 0.3 * 0.4 / 1e-4 },
		{ WEST_STAB_B, NAN, 1000.0 },
		{ WEST_STAB_F, 345.0, 345.0 },
	};

	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct west_release r;
		struct west_plume_opts o;

		flat(20, 20, 50.0, 10, 10.0, 2.0, cases[c].cls);
		r = release_at(500.0, 500.0, 10.0, 60.0, 60.0, 100);
		west_plume_opts_init(&o);
		o.ustar = 0.4;
		o.mixing_height = cases[c].set;
		run(&r, &o);
		cr_expect(fabs(res.mixing_height - cases[c].want) < 1e-3 * cases[c].want,
			  "class %c: mixing height %g m, want %g", "ABCDEF"[cases[c].cls],
			  res.mixing_height, cases[c].want);
		teardown();
	}
}

Test(plume, well_mixed_unstable)
{
	well_mixed(WEST_STAB_B);
}

Test(plume, well_mixed_neutral)
{
	well_mixed(WEST_STAB_D);
}

Test(plume, well_mixed_stable)
{
	well_mixed(WEST_STAB_F);
}

/* ---- reflection and leaving --------------------------------------------------------- */

/* Over the hill (a solved field, unstable), with a lid at 120 m: at the
 * end of runs of 2, 5 and 10 minutes no particle is below the ground or
 * above the lid, and the particles that left are the outside count. */
Test(plume, reflection_hill)
{
	const double secs[] = { 120.0, 300.0, 600.0 };
	const long n = 3000;
	double *pos = malloc(4 * (size_t)n * sizeof *pos);

	hill(WEST_STAB_B);
	for (size_t s = 0; s < sizeof secs / sizeof secs[0]; s++) {
		struct west_plume_opts o;
		struct west_release r = release_at(700.0, 650.0, 10.0, 60.0, secs[s], n);
		long left = 0;
		west_plume_opts_init(&o);
		o.mixing_height = 120.0;
		o.positions = pos;
		run(&r, &o);
		for (long p = 0; p < n; p++) {
			if (pos[4 * p + 3] == 2) {
				left++;
				continue;
			}
			cr_assert_eq(pos[4 * p + 3], 1);
			cr_assert(pos[4 * p + 2] >= 0.0 && pos[4 * p + 2] <= 120.0 + 1e-9,
				  "%g s: particle %ld at %.12g m above the ground", secs[s], p,
				  pos[4 * p + 2]);
		}
		cr_expect_eq(left, res.outside);
		west_plume_result_free(&res);
	}
	free(pos);
}

/* A wind of 10 m/s across 1 km: after 10 minutes every particle has left
 * by the east side and is counted; the path stops when none is left. */
Test(plume, outside_sides)
{
	struct west_release r;

	flat(20, 20, 50.0, 20, 10.0, 10.0, WEST_STAB_D);
	r = release_at(25.0, 500.0, 10.0, 60.0, 600.0, 2000);
	run(&r, NULL);
	cr_expect_eq(res.outside, r.particles, "%ld of %ld left", res.outside, r.particles);
	cr_expect_lt(res.npath, 5, "path points with no particle in the domain");
	for (size_t i = 0; i < res.npath; i++)
		cr_expect_gt(res.path[i].n, 0);
}

/* In calm air with strong homogeneous vertical turbulence and no lid,
 * particles released near the top leave through it and are counted. */
Test(plume, outside_top)
{
	struct west_plume_opts o;
	struct west_release r;
	const long n = 2000;
	double *pos = malloc(4 * (size_t)n * sizeof *pos);
	long left = 0;

	flat(20, 20, 50.0, 20, 10.0, 0.0, WEST_STAB_D);
	r = release_at(500.0, 500.0, 190.0, 10.0, 300.0, n);
	west_plume_opts_init(&o);
	o.sigma_u = o.sigma_v = 0.01;
	o.sigma_w = 1.0;
	o.t_l = 30.0;
	o.mixing_height = 1000.0;
	o.positions = pos;
	run(&r, &o);
	for (long p = 0; p < n; p++) {
		left += pos[4 * p + 3] == 2;
		cr_expect(pos[4 * p + 3] == 2 || pos[4 * p + 2] <= 200.0);
	}
	cr_expect_gt(left, n / 4, "only %ld of %ld left through the top", left, n);
	cr_expect_eq(left, res.outside);
	free(pos);
}

/* ---- refusals ------------------------------------------------------------------------- */

static void refused(const struct west_release *r, const struct west_plume_opts *o,
		    const char *name)
{
	struct west_plume_result out;
	enum west_status st = west_plume_run_opts(&g, &f, r, o, &west_kernels_cpu, NULL, NULL,
						  &out, err, sizeof err);

	cr_expect_eq(st, WEST_ERR_INVALID, "%s: accepted (%s)", name, west_status_str(st));
	cr_expect(strstr(err, name) == err, "%s: the message does not start with it: %s", name,
		  err);
	cr_expect_null(out.conc, "%s: a refused run left a result", name);
}

Test(plume, refusals)
{
	struct west_release r0, r;
	struct west_plume_opts o;

	/* a 99.5 m peak under a 100 m top: its column's top level is under
	 * the tenth of air a cut cell needs, so the column is land to the top */
	fix_grid(&g, 21, 21, 50.0, 10, 10.0, 99.5, 150.0);
	cr_assert_eq(west_field_init(&f, &g, err, sizeof err), WEST_OK);
	memset(f.u, 0, west_grid_nxfaces(&g) * sizeof *f.u);
	memset(f.v, 0, west_grid_nyfaces(&g) * sizeof *f.v);
	memset(f.w, 0, west_grid_nzfaces(&g) * sizeof *f.w);
	memset(f.stability, WEST_STAB_D, g.nx * g.ny);
	r0 = release_at(100.0, 100.0, 10.0, 60.0, 120.0, 100);
	west_plume_opts_init(&o);

	r = r0, r.x = g.x0 - 1.0;                refused(&r, NULL, "x ");
	r = r0, r.x = NAN;                       refused(&r, NULL, "x ");
	r = r0, r.y = g.y0 + 21 * 50.0 + 0.5;    refused(&r, NULL, "y ");
	r = r0, r.x = g.x0 + 525.0, r.y = g.y0 + 525.0;
	refused(&r, NULL, "x, y");
	r = r0, r.height = -1.0;                 refused(&r, NULL, "height");
	r = r0, r.height = INFINITY;             refused(&r, NULL, "height");
	r = r0, r.height = 150.0;                refused(&r, NULL, "height");
	r = r0, r.duration = 0.0;                refused(&r, NULL, "duration");
	r = r0, r.duration = NAN;                refused(&r, NULL, "duration");
	r = r0, r.seconds = 30.0;                refused(&r, NULL, "seconds");
	r = r0, r.seconds = -5.0;                refused(&r, NULL, "seconds");
	r = r0, r.seconds = 1e7, r.duration = 1.0;
	refused(&r, NULL, "seconds");
	r = r0, r.particles = 0;                 refused(&r, NULL, "particles");
	r = r0, r.particles = WEST_PLUME_MAX_PARTICLES + 1;
	refused(&r, NULL, "particles");
	r = r0, r.layer = 0.0;                   refused(&r, NULL, "layer");
	r = r0, r.layer = 200.0;                 refused(&r, NULL, "layer");
	o.ustar = -1.0;                          refused(&r0, &o, "ustar");
	west_plume_opts_init(&o), o.mixing_height = 5.0;
	refused(&r0, &o, "mixing_height");
	west_plume_opts_init(&o), o.t_l = 10.0, o.sigma_w = -1.0;
	refused(&r0, &o, "sigma_u");
	/* and the good one runs */
	run(&r0, NULL);
	cr_expect_eq(res.particles, 100);
}

static int stop_at_120(void *ctx, double done)
{
	double *last = ctx;
	cr_expect_gt(done, *last, "progress went from %g to %g s", *last, done);
	*last = done;
	return done >= 120.0;
}

/* The progress calls seen, and the last time; a time that does not rise
 * fails the test. */
struct calls {
	long n;
	double last;
};

static int count_calls(void *ctx, double done)
{
	struct calls *c = ctx;

	cr_expect_gt(done, c->last, "progress went from %g to %g s", c->last, done);
	c->n++;
	c->last = done;
	return 0;
}

/* progress sees the simulated time grow; a nonzero answer cancels; with
 * launches of WEST_PLUME_CHUNK_WORK particle-seconds (chunk_work) and
 * 200,000 particles an interval of 60 s is cut into 12; 4000 particles
 * over 180 s (three such launches) paced to 50 microseconds a launch take
 * more; either way progress comes once a launch, rising, the last at the
 * end. */
Test(plume, progress_and_cancel)
{
	struct west_release r;
	struct west_plume_result out;
	struct west_plume_opts o;
	struct calls calls = { 0, 0.0 };
	double last = 0.0;

	flat(20, 20, 50.0, 10, 10.0, 2.0, WEST_STAB_D);
	r = release_at(500.0, 500.0, 10.0, 60.0, 600.0, 100);
	cr_assert_eq(west_plume_run(&g, &f, &r, &west_kernels_cpu, stop_at_120, &last, &out, err,
				    sizeof err), WEST_ERR_INVALID);
	cr_expect_str_eq(err, "cancelled");
	cr_expect_null(out.conc);
	cr_expect_eq(last, 120.0);
	west_plume_opts_init(&o);
	for (int paced = 0; paced < 2; paced++) {
		o.chunk_work = paced ? 0 : WEST_PLUME_CHUNK_WORK;
		o.launch_seconds = paced ? 5e-5 : 0;
		r.particles = paced ? 4000 : 200000;
		r.seconds = paced ? 180.0 : 60.0;
		calls = (struct calls){ 0, 0.0 };
		cr_assert_eq(west_plume_run_opts(&g, &f, &r, &o, &west_kernels_cpu, count_calls,
						 &calls, &res, err, sizeof err), WEST_OK, "%s", err);
		if (paced)
			cr_expect_gt(calls.n, 3, "%ld paced launches", calls.n);
		else
			cr_expect_eq(calls.n, (long)ceil(200000 * 60.0 / WEST_PLUME_CHUNK_WORK));
		cr_expect_eq(res.launches, calls.n);
		cr_expect_eq(calls.last, r.seconds, "the last progress at %g s", calls.last);
		west_plume_result_free(&res);
	}
}

/* ---- determinism ---------------------------------------------------------------------- */

static int same_result(const struct west_plume_result *a, const struct west_plume_result *b)
{
	size_t ncol = a->nx * a->ny;
	return a->npath == b->npath && a->outside == b->outside &&
	       !memcmp(a->conc, b->conc, ncol * sizeof *a->conc) &&
	       !memcmp(a->arrival, b->arrival, ncol * sizeof *a->arrival) &&
	       !memcmp(a->path, b->path, a->npath * sizeof *a->path);
}

/* A pace no launch can meet (a nanosecond) shrinks the spans to their
 * floor, a 240th of a path interval (0.25 s), and no further: over 180 s
 * the first launch is the first interval (200 particles: 1e6
 * particle-seconds are more), the second's spans come down by quarters
 * (15, 3.75, 0.94 s) to the floor, the third is 240 launches: 405 in
 * all, at most 3 * 240 (with a floor of 1 ms, as until 2026-12-03, over
 * 100,000), and the same result as one launch an interval. */
Test(plume, pace_floor)
{
	struct west_release r;
	struct west_plume_result b;
	struct west_plume_opts o;

	flat(20, 20, 50.0, 10, 10.0, 2.0, WEST_STAB_D);
	r = release_at(500.0, 500.0, 10.0, 60.0, 180.0, 200);
	west_plume_opts_init(&o);
	o.chunk_work = 1e9;
	run_on(&west_kernels_cpu, &r, &o, &res);
	o.chunk_work = 0;
	o.launch_seconds = 1e-9;
	run_on(&west_kernels_cpu, &r, &o, &b);
	cr_expect_eq(b.launches, 1 + 4 + 160 + 240, "%ld launches", b.launches);
	cr_expect(same_result(&res, &b), "paced to the floor: another result");
	west_plume_result_free(&b);
}

/* The same seed gives the same result bit for bit on 1, 2 and 3 threads
 * (a solved field over the hill, unstable); another seed another. */
Test(plume, deterministic)
{
	struct west_release r;
	struct west_plume_result b;
	struct west_plume_opts o;
	const long n = 4000;
	double *p1 = malloc(4 * (size_t)n * sizeof *p1), *p2 = malloc(4 * (size_t)n * sizeof *p2);

	hill(WEST_STAB_B);
	r = release_at(600.0, 700.0, 15.0, 120.0, 420.0, n);
	west_plume_opts_init(&o);
	o.positions = p1;
#ifdef _OPENMP
	omp_set_num_threads(1);
#endif
	run(&r, &o);
	for (int threads = 2; threads <= 3; threads++) {
#ifdef _OPENMP
		omp_set_num_threads(threads);
#endif
		o.positions = p2;
		run_on(&west_kernels_cpu, &r, &o, &b);
		cr_expect(same_result(&res, &b), "%d threads: another result", threads);
		cr_expect(!memcmp(p1, p2, 4 * (size_t)n * sizeof *p1), "%d threads: other positions",
			  threads);
		west_plume_result_free(&b);
	}
	r.seed++;
	run_on(&west_kernels_cpu, &r, NULL, &b);
	cr_expect(!same_result(&res, &b), "another seed, the same result");
	west_plume_result_free(&b);
	free(p1);
	free(p2);
}

/*
 * A step is cut at the path points only (kernels.h, plume_advance), so how
 * a path interval is split into launches changes nothing: one launch an
 * interval, 7 uneven ones (an interval's 240 000 particle-seconds in
 * chunks of 34 286), 24 (chunks of 1e4, 2.5 s of the 4000 particles'
 * time, shorter than many of the steps aloft) and launches paced to 50
 * microseconds each (plume.h: their ends depend on the clock, and there
 * are more of them than 24 an interval) give the same positions, states,
 * conc, arrival and path bit for bit, in unstable and stable air, on the
 * reference and on the CPU backend's vectors.  Cutting the steps at every
 * launch's end (as until 2026-12-03) fails here.
 */
static void expect_chunks_change_nothing(const struct west_kernel_ops *k, int cls)
{
	const double works[4] = { 1e9, 240000.0 / 7.0, 1e4, 0 };
	const long n = 4000;
	struct west_release r;
	struct west_plume_result b;
	struct west_plume_opts o;
	double *p1 = malloc(4 * (size_t)n * sizeof *p1), *p2 = malloc(4 * (size_t)n * sizeof *p2);

	cr_assert(p1 && p2);
	hill(cls);
	r = release_at(600.0, 700.0, 15.0, 120.0, 420.0, n);
	west_plume_opts_init(&o);
	for (int w = 0; w < 4; w++) {
		o.chunk_work = works[w];
		o.launch_seconds = works[w] > 0 ? 0 : 5e-5;
		o.positions = w ? p2 : p1;
		run_on(k, &r, &o, w ? &b : &res);
		if (!w)
			continue;
		if (w == 3)
			cr_expect_gt(b.launches, 24 * 7, "%s, class %c: %ld paced launches",
				     k->backend, "ABCDEF"[cls], b.launches);
		cr_expect(same_result(&res, &b), "%s, class %c, chunks of %g: another result",
			  k->backend, "ABCDEF"[cls], works[w]);
		cr_expect(!memcmp(p1, p2, 4 * (size_t)n * sizeof *p1),
			  "%s, class %c, chunks of %g: other positions", k->backend, "ABCDEF"[cls],
			  works[w]);
		west_plume_result_free(&b);
	}
	o.chunk_work = 0.5;
	cr_expect_eq(west_plume_run_opts(&g, &f, &r, &o, k, NULL, NULL, &b, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_expect(strstr(err, "chunk_work") != NULL, "%s", err);
	o.chunk_work = 0;
	o.launch_seconds = -1;
	cr_expect_eq(west_plume_run_opts(&g, &f, &r, &o, k, NULL, NULL, &b, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_expect(strstr(err, "launch_seconds") != NULL, "%s", err);
	free(p1);
	free(p2);
	teardown();
}

Test(plume, chunks_change_nothing)
{
	expect_chunks_change_nothing(&west_kernels_cpu_ref, WEST_STAB_B);
	expect_chunks_change_nothing(&west_kernels_cpu_ref, WEST_STAB_F);
	expect_chunks_change_nothing(&west_kernels_cpu, WEST_STAB_F);
}

/* The same on the GPU (its particles in the order of their steps). */
Test(plume, cuda_chunks_change_nothing)
{
	gpu_skip_unless_usable();
#ifdef WEST_HAVE_CUDA
	expect_chunks_change_nothing(&west_kernels_cuda, WEST_STAB_B);
	expect_chunks_change_nothing(&west_kernels_cuda, WEST_STAB_F);
#endif
}

/* ---- other kernels against the reference ---------------------------------------------- */

/* CLASS_STRIPES for run_pair's class: the hill's columns in stripes of
 * B, D and F three columns wide across the wind (x), so that the
 * particles of one vector are in unstable, neutral and stable air at
 * once (the CPU's vectors take each regime where some lane is in it). */
#define CLASS_STRIPES (-1)

/* The release run twice (hill(cls), n particles, 600 s): on a into res
 * with the positions in pa (and its order, when not NULL), on b into *rb
 * with them in pb. */
static void run_pair(const struct west_kernel_ops *a, const struct west_kernel_ops *b, int cls,
		     long n, double *pa, double *pb, struct west_plume_result *rb, unsigned *order)
{
	static const unsigned char stripe[3] = { WEST_STAB_B, WEST_STAB_D, WEST_STAB_F };
	struct west_release r;
	struct west_plume_opts o;

	cr_assert(pa && pb);
	hill(cls == CLASS_STRIPES ? WEST_STAB_D : cls);
	if (cls == CLASS_STRIPES)
		for (size_t c = 0; c < g.nx * g.ny; c++)
			f.stability[c] = stripe[c % g.nx / 3 % 3];
	r = release_at(600.0, 700.0, 15.0, 120.0, 600.0, n);
	west_plume_opts_init(&o);
	o.positions = pa;
	o.order = order;
	run_on(a, &r, &o, &res);
	o.order = NULL;
	o.positions = pb;
	run_on(b, &r, &o, rb);
}

/*
 * The same release through kernel table b and the CPU reference a: both
 * run the same double-precision bodies, so a particle's path differs at
 * first only by the last bits of the libraries' log, sin, cos, exp, expm1,
 * pow and cbrt (1-2 ulp on the GPU, up to 4 in libmvec's vectors).  Those
 * differences are carried along and grow: each wind component is rounded
 * to float from a sum in double, so a position difference that crosses a
 * float rounding boundary changes the wind by an ulp (1e-7 relative), and
 * a particle whose difference falls across a branch point (a reflection,
 * a column edge, the step that ends a chunk) takes another path
 * thereafter.  Measured on the H100
 * (2026-11-25, 20000 particles, 10 minutes), every particle in the same
 * state: with chunks of 4e6 particle-seconds 16 % equal, 98.35 % within
 * 1e-6 m, 99.85 % within 1 mm, 99.99 % within 1 m; with chunks of 1e6
 * (more chunk ends) 99.43 % within 1 mm and 99.945 % within 1 m.  The
 * bounds: at most 5 % beyond 1e-6 m, 2 % beyond 1 mm, 0.5 % beyond 1 m,
 * 0.1 % in another state.  A kernel that computes anything else fails by
 * far: with the GPU's drift term 1 % too large every particle parted by
 * more than 1 mm, 71 % by more than 1 m, and 411 of 598 columns differed.
 * conc and arrival: the integer sums do not depend on the order of the
 * atomics, so they differ only through the particles that parted: conc
 * within 1e-3 relative plus 1e-3 of the largest, arrival within 1 s or
 * both NaN, in 99 % of the columns the plume touched.
 */
static void expect_same_particles(const struct west_kernel_ops *a, const struct west_kernel_ops *b,
				  int cls)
{
	struct west_plume_result rb;
	const long n = 20000;
	double *pa = malloc(4 * (size_t)n * sizeof *pa), *pb = malloc(4 * (size_t)n * sizeof *pb);
	long cols = 0, badc = 0;
	float cmax = 0.0f;

	run_pair(a, b, cls, n, pa, pb, &rb, NULL);
	long beyond[3] = { 0 }, states = 0;   /* beyond 1e-6 m, 1 mm, 1 m */
	for (long p = 0; p < n; p++) {
		double d = fmax(fabs(pa[4 * p] - pb[4 * p]), fabs(pa[4 * p + 1] - pb[4 * p + 1]));
		d = fmax(d, fabs(pa[4 * p + 2] - pb[4 * p + 2]));
		states += pa[4 * p + 3] != pb[4 * p + 3];
		beyond[0] += !(d <= 1e-6), beyond[1] += !(d <= 1e-3), beyond[2] += !(d <= 1.0);
	}
	cr_log_info("%s, class %c: of %ld particles: beyond 1e-6 m %ld, 1 mm %ld, 1 m %ld; "
		    "another state %ld",
		    b->backend, cls == CLASS_STRIPES ? 'S' : "ABCDEF"[cls], n, beyond[0],
		    beyond[1], beyond[2], states);
	cr_expect_leq(beyond[0], n / 20, "%ld of %ld particles beyond 1e-6 m", beyond[0], n);
	cr_expect_leq(beyond[1], n / 50, "%ld of %ld particles beyond 1 mm", beyond[1], n);
	cr_expect_leq(beyond[2], n / 200, "%ld of %ld particles beyond 1 m", beyond[2], n);
	cr_expect_leq(states, n / 1000, "%ld of %ld particles in another state", states, n);
	cr_expect_leq(labs(res.outside - rb.outside), n / 1000);
	for (size_t c = 0; c < g.nx * g.ny; c++)
		cmax = fmaxf(cmax, res.conc[c]);
	for (size_t c = 0; c < g.nx * g.ny; c++) {
		float ca = res.conc[c], cb = rb.conc[c], ta = res.arrival[c], tb = rb.arrival[c];
		if (ca == 0 && cb == 0)
			continue;
		cols++;
		int ok = fabsf(ca - cb) <= 1e-3f * fabsf(ca) + 1e-3f * cmax &&
			 ((isnan(ta) && isnan(tb)) || fabsf(ta - tb) <= 1.0f);
		badc += !ok;
	}
	cr_log_info("columns touched %ld, differing %ld", cols, badc);
	cr_expect_gt(cols, 20);
	cr_expect_leq(badc, cols / 100, "%ld of %ld columns differ", badc, cols);
	cr_expect_eq(res.npath, rb.npath);
	west_plume_result_free(&rb);
	free(pa);
	free(pb);
}

/*
 * The CPU backend's vector kernel (kernels/plume_simd.c, a particle a
 * lane) at both widths against the reference, in unstable, neutral and
 * stable air, and in stripes of the three (CLASS_STRIPES): the same bounds
 * as the GPU (expect_same_particles).
 * Skipped where it would be the reference itself (no libmvec in the
 * build, or no AVX2 or AVX-512 here).
 */
static void simd_against_reference(int bits)
{
	const int classes[] = { WEST_STAB_B, WEST_STAB_D, WEST_STAB_F, CLASS_STRIPES };

	west_pot_simd_width(bits);
	for (int c = 0; c < 4; c++) {
		expect_same_particles(&west_kernels_cpu_ref, &west_kernels_cpu, classes[c]);
		teardown();
	}
	west_pot_simd_width(512);
}

Test(plume, simd_matches_reference_avx2)
{
#if defined(__x86_64__) && defined(WEST_HAVE_MVEC)
	if (!__builtin_cpu_supports("avx2"))
		cr_skip_test("this processor has no AVX2");
	simd_against_reference(256);
#else
	cr_skip_test("the build has no libmvec: the CPU's plume kernel is the reference");
#endif
}

Test(plume, simd_matches_reference_avx512)
{
#if defined(__x86_64__) && defined(WEST_HAVE_MVEC)
	if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512dq"))
		cr_skip_test("this processor has no AVX-512F and DQ");
	simd_against_reference(512);
#else
	cr_skip_test("the build has no libmvec: the CPU's plume kernel is the reference");
#endif
}

/* The CUDA kernel against the CPU reference (expect_same_particles). */
Test(plume, cuda_matches_cpu)
{
	gpu_skip_unless_usable();
#ifdef WEST_HAVE_CUDA
	expect_same_particles(&west_kernels_cpu_ref, &west_kernels_cuda, WEST_STAB_B);
#endif
}

/*
 * The GPU takes the particles in the order of the steps they took in the
 * previous launch (kernels/plume.cu).  A particle's steps depend on its
 * index alone and the sums are integers, so the run equals, bit for bit,
 * one with the order left out (plume_order_bytes NULL: particle t in
 * thread t): positions, states, conc, arrival, the path and the counts.
 * A slot read wrongly (a particle taken twice, or none) changes them.  The
 * order left by the last launch is a permutation, and not index order (an
 * order not kept, or never sorted, fails here).
 */
Test(plume, cuda_order_changes_nothing)
{
	gpu_skip_unless_usable();
#ifdef WEST_HAVE_CUDA
	struct west_kernel_ops plain = west_kernels_cuda;
	struct west_plume_result b;
	const long n = 20000;
	double *pa = malloc(4 * (size_t)n * sizeof *pa), *pb = malloc(4 * (size_t)n * sizeof *pb);
	unsigned *order = calloc((size_t)n, sizeof *order);   /* all 0 if never written */
	char *seen = calloc((size_t)n, 1);
	long moved = 0;

	cr_assert(order && seen);
	plain.plume_order_bytes = NULL;
	run_pair(&west_kernels_cuda, &plain, WEST_STAB_B, n, pa, pb, &b, order);
	for (long t = 0; t < n; t++) {
		cr_assert(order[t] < (unsigned)n && !seen[order[t]], "order[%ld] = %u", t, order[t]);
		seen[order[t]] = 1;
		moved += order[t] != (unsigned)t;
	}
	cr_assert_gt(moved, n / 10, "only %ld of %ld particles out of index order", moved, n);
	free(order);
	free(seen);
	cr_assert_eq(memcmp(pa, pb, 4 * (size_t)n * sizeof *pa), 0, "positions differ");
	cr_assert_eq(memcmp(res.conc, b.conc, g.nx * g.ny * sizeof *res.conc), 0, "conc differs");
	cr_assert_eq(memcmp(res.arrival, b.arrival, g.nx * g.ny * sizeof *res.arrival), 0,
		     "arrival differs");
	cr_assert_eq(res.npath, b.npath);
	cr_assert_eq(memcmp(res.path, b.path, res.npath * sizeof *res.path), 0, "path differs");
	cr_assert(res.particles == b.particles && res.outside == b.outside);
	west_plume_result_free(&b);
	free(pa);
	free(pb);
#endif
}
