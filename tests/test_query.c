/*
 * test_query.c: point, profile and slice queries (src/query.h) on fields
 * filled here with known functions over the model fixture's grids
 * (model_fixture.h: a flat plain, or a Gaussian hill at the domain centre).
 *
 * A field is "linear" when each face holds a + b x + c y + d h at its own
 * position (x, y grid-local, h above the base; grid.h gives the positions);
 * trilinear interpolation must give that function back exactly, up to the
 * float32 storage of the faces (tolerance 1e-4 relative, at least 1e-4 m/s
 * absolute), and beyond a component's outermost positions the function at
 * the nearest position along each axis (query.c's clamping rule, restated
 * here independently in clamped()).  On hill grids the faces touching land
 * and the ground are zeroed, as in a solved field, and the blend takes the
 * open faces only.  Below the lowest air cell's centre the wind is that
 * level's, carried down by the power law of the column's class (u, v) and
 * linearly (w); a fresh field's exponents are 0, so there u and v hold
 * their lowest values and near_ground tests the exponents.  Point queries
 * are the reference for profiles and slices: those must equal them
 * exactly.
 * Random points come from a fixed-seed generator, so every run is the same.
 *
 * The hill grid (hill()): 23 x 21 columns of 100 m, 10 levels of 10 m over
 * a plain at 100 m (the base), a 57 m hill, so the centre column (11, 10)
 * has ground 157 m and its cells 0..5 (centres 5..55 m) are land.
 */
#include "model_fixture.h"
#include "query.h"
#include "proj.h"

#include <stdint.h>

static struct west_grid g;
static struct west_field f;
static char err[WEST_ERRLEN];

static void teardown(void)
{
	west_field_free(&f);
	west_grid_free(&g);
}

TestSuite(query, .fini = teardown);

/* ---- grids and fields ----------------------------------------------------- */

#define HILL_I 11
#define HILL_J 10

static void alloc_field(void)
{
	cr_assert_eq(west_field_init(&f, &g, err, sizeof err), WEST_OK, "%s", err);
}

/* g with c's grid options: over dem, or (dem NULL) from the file path. */
static void grid_from_config(const struct west_config *c, const struct west_dem *dem,
			     const char *path)
{
	struct west_grid_opts go;

	west_grid_opts_from_config(&go, c);
	if (dem)
		cr_assert_eq(west_grid_init(&g, dem, &go, err, sizeof err), WEST_OK, "%s", err);
	else
		cr_assert_eq(west_grid_load(&g, path, &go, err, sizeof err), WEST_OK, "%s", err);
}

static void hill(void)
{
	fix_grid_staircase(&g, 23, 21, 100.0, 10, 10.0, 57.0, 300.0);
	alloc_field();
	cr_assert_float_eq(g.terrain[HILL_J * g.nx + HILL_I], 157.0f, 1e-4);
	cr_assert_float_eq(g.base, 100.0, 1e-9);
}

/* A flat plain (at FIX_PLAIN = the base) with stretched levels. */
static void flat_stretched(void)
{
	static const double lv[] = { 0, 10, 25, 45, 70, 100, 140, 200 };
	struct west_config *c = malloc(sizeof *c);

	cr_assert_not_null(c);
	west_config_defaults(c);
	c->nlevels = sizeof lv / sizeof lv[0];
	memcpy(c->levels, lv, sizeof lv);
	fix_grid_conf(&g, 10, 7, 100.0, c, 0.0, 1.0);
	free(c);
	alloc_field();
}

/* a + b x + c y + d h */
struct lin {
	double a, b, c, d;
};

static double lin_at(const struct lin *l, double x, double y, double h)
{
	return l->a + l->b * x + l->c * y + l->d * h;
}

static double zc(size_t k)
{
	return 0.5 * (g.zf[k] + g.zf[k + 1]);
}

static int land_cell(const size_t p[3])
{
	if (p[0] >= g.nx || p[1] >= g.ny || p[2] >= g.nz)
		return 0;
	return g.land[west_grid_cell(&g, p[0], p[1], p[2])];
}

/* Face (i, j, k) of component c (0 x, 1 y, 2 z) touches land or the ground. */
static int touches_land(int c, size_t i, size_t j, size_t k)
{
	size_t p[3] = { i, j, k };
	int hit;

	if (c == 2 && k == 0)
		return 1;
	hit = land_cell(p);
	if (p[c] > 0) {
		p[c]--;
		hit |= land_cell(p);
	}
	return hit;
}

/* Each component c at its faces (px * py * pz, grid.h) from l[c]. */
static void fill(const struct lin l[3], int zero_land)
{
	float *val[3] = { f.u, f.v, f.w };

	for (int c = 0; c < 3; c++) {
		size_t px = g.nx + (c == 0), py = g.ny + (c == 1), pz = g.nz + (c == 2);
		for (size_t k = 0; k < pz; k++)
			for (size_t j = 0; j < py; j++)
				for (size_t i = 0; i < px; i++) {
					double x = ((double)i + (c == 0 ? 0.0 : 0.5)) * g.dx;
					double y = ((double)j + (c == 1 ? 0.0 : 0.5)) * g.dy;
					double h = c == 2 ? g.zf[k] : zc(k);
					int zero = zero_land && touches_land(c, i, j, k);
					val[c][i + px * (j + py * k)] =
						zero ? 0.0f : (float)lin_at(&l[c], x, y, h);
				}
	}
}

static const struct lin LIN[3] = {
	{ 2.0, 0.003, -0.002, 0.01 },
	{ -1.0, 0.001, 0.004, -0.005 },
	{ 0.3, -0.0005, 0.0002, 0.002 },
};

/* l[c] at (x, y, h) moved onto component c's positions: faces along its
 * own axis (0 .. L), centres along the others (half a cell in). */
static double clamped(const struct lin *l, int c, double x, double y, double h)
{
	double hx = c == 0 ? 0.0 : 0.5 * g.dx, hy = c == 1 ? 0.0 : 0.5 * g.dy;
	double zlo = c == 2 ? g.zf[1] : zc(0);   /* the ground face is closed */
	double zhi = c == 2 ? g.zf[g.nz] : zc(g.nz - 1);
	double scale = 1.0;

	if (c == 2 && h < zc(0))   /* w: linear to 0 at the ground */
		scale = h / zc(0);
	x = fmin(fmax(x, hx), (double)g.nx * g.dx - hx);
	y = fmin(fmax(y, hy), (double)g.ny * g.dy - hy);
	h = fmin(fmax(h, zlo), zhi);
	return scale * lin_at(l, x, y, h);
}

/* ---- queries -------------------------------------------------------------- */

static uint64_t rng = 12345;

static double uniform(double lo, double hi)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

/* Point query at grid-local (x, y): must succeed. */
static struct west_point q(double x, double y, double z, enum west_zref r)
{
	struct west_point p;

	cr_assert_eq(west_query_point(&g, &f, g.x0 + x, g.y0 + y, z, r, &p, err,
				      sizeof err), WEST_OK,
		     "(%g, %g, %g): %s", x, y, z, err);
	return p;
}

/* Point query in CRS coordinates: must fail with WEST_ERR_INVALID. */
static void q_fails(double x, double y, double z, enum west_zref r)
{
	struct west_point p;

	err[0] = 0;
	cr_assert_eq(west_query_point(&g, &f, x, y, z, r, &p, err, sizeof err),
		     WEST_ERR_INVALID, "(%g, %g, %g) was accepted", x, y, z);
}

static void assert_close(double got, double want, const char *what)
{
	double tol = 1e-4 * fmax(1.0, fabs(want));
	cr_assert(fabs(got - want) <= tol, "%s: got %.9g, want %.9g", what, got, want);
}

/* Both points equal in every field (the same query twice). */
static void assert_same(const struct west_point *a, const struct west_point *b)
{
	cr_assert_eq(a->u, b->u);
	cr_assert_eq(a->v, b->v);
	cr_assert_eq(a->w, b->w);
	cr_assert_eq(a->speed, b->speed);
	cr_assert_eq(a->direction, b->direction);
	cr_assert_eq(a->z_msl, b->z_msl);
	cr_assert_eq(a->ground, b->ground);
}

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- speed and direction -------------------------------------------------- */

static void check_dir(float u, float v, float want)
{
	float s, d;

	west_query_speed_direction(u, v, &s, &d);
	cr_assert_float_eq(d, want, 1e-4, "(%g, %g): direction %g, want %g", u, v, d, want);
	cr_assert_float_eq(s, hypotf(u, v), 1e-6);
}

Test(query, direction_convention)
{
	check_dir(0.0f, -1.0f, 0.0f);     /* from the north, blowing south */
	check_dir(-1.0f, 0.0f, 90.0f);    /* from the east */
	check_dir(0.0f, 1.0f, 180.0f);    /* from the south */
	check_dir(1.0f, 0.0f, 270.0f);    /* from the west */
	check_dir(-2.0f, -2.0f, 45.0f);   /* north-east */
	check_dir(2.0f, -2.0f, 315.0f);   /* north-west */
	check_dir(0.0f, 0.0f, 0.0f);      /* calm */
	check_dir(-0.0f, 0.0f, 0.0f);
}

Test(query, direction_stays_below_360)
{
	float s, d;

	/* just west of north: 359.99999 degrees rounds to 360.0f in float */
	west_query_speed_direction(1e-7f, -1.0f, &s, &d);
	cr_assert(d >= 0.0f && d < 360.0f, "direction %.9g", d);
	cr_assert(d == 0.0f || d > 359.99f, "direction %.9g", d);
	west_query_speed_direction(-1e-7f, -1.0f, &s, &d);
	cr_assert(d >= 0.0f && d < 1e-3f, "direction %.9g", d);
}

/* ---- uniform and linear fields -------------------------------------------- */

Test(query, uniform_field_exact)
{
	const float U = 3.5f, V = -2.25f;
	const struct lin l[3] = { { U, 0, 0, 0 }, { V, 0, 0, 0 }, { 0, 0, 0, 0 } };
	float s, d;

	fix_grid(&g, 8, 6, 50.0, 5, 20.0, 0.0, 1.0);
	alloc_field();
	cr_assert_eq(g.land_cells, 0);
	fill(l, 0);
	west_query_speed_direction(U, V, &s, &d);
	for (int n = 0; n < 200; n++) {
		double x = uniform(0, 400), y = uniform(0, 300), z = uniform(0, 100);
		struct west_point p = q(n ? x : 400.0, n ? y : 300.0, z, WEST_ZREF_AGL);
		cr_assert_eq(p.u, U, "u %.9g at %g %g %g", p.u, x, y, z);
		cr_assert_eq(p.v, V, "v %.9g", p.v);
		cr_assert_eq(p.w, 0.0f, "w %.9g", p.w);
		cr_assert_eq(p.speed, s);
		cr_assert_eq(p.direction, d);
	}
	cr_assert_float_eq(s, 4.160829f, 1e-5);
	cr_assert_float_eq(d, 302.735226f, 1e-4);   /* from the west-north-west */
}

Test(query, linear_field_reproduced)
{
	flat_stretched();
	fill(LIN, 0);
	for (int n = 0; n < 500; n++) {
		/* inside every component's open positions (w's lowest is
		 * z-face 1, at 10 m): no clamping */
		double x = uniform(50, 950), y = uniform(50, 650), h = uniform(10, 170);
		struct west_point p = q(x, y, g.base + h, WEST_ZREF_MSL);
		assert_close(p.u, lin_at(&LIN[0], x, y, h), "u");
		assert_close(p.v, lin_at(&LIN[1], x, y, h), "v");
		assert_close(p.w, lin_at(&LIN[2], x, y, h), "w");
		cr_assert_float_eq(p.z_agl, h, 1e-9);
	}
}

Test(query, linear_field_clamped_at_edges)
{
	flat_stretched();
	fill(LIN, 0);
	for (int n = 0; n < 500; n++) {
		/* the whole domain, edges included; a third in the edge strips */
		double x = n % 3 ? uniform(0, 1000) : uniform(0, 50);
		double y = n % 3 == 1 ? uniform(650, 700) : uniform(0, 700);
		double h = n % 2 ? uniform(0, 200) : uniform(170, 200);
		struct west_point p = q(x, y, h, WEST_ZREF_AGL);
		assert_close(p.u, clamped(&LIN[0], 0, x, y, h), "u");
		assert_close(p.v, clamped(&LIN[1], 1, x, y, h), "v");
		assert_close(p.w, clamped(&LIN[2], 2, x, y, h), "w");
	}
	/* the clamping shows: at the ground u, v hold their level-0 values
	 * (h 5 m, exponent 0), w is 0; at a west edge v is v(50 m) */
	struct west_point p = q(0.0, 300.0, 0.0, WEST_ZREF_AGL);
	assert_close(p.u, lin_at(&LIN[0], 0, 300, 5), "u at the ground");
	cr_assert(fabs(p.u - lin_at(&LIN[0], 0, 300, 0)) > 0.04);
	assert_close(p.v, lin_at(&LIN[1], 50, 300, 5), "v at the west edge");
	cr_assert_eq(p.w, 0.0f, "w at the ground");
	p = q(1000.0, 700.0, 200.0, WEST_ZREF_AGL);   /* north-east top corner */
	assert_close(p.u, lin_at(&LIN[0], 1000, 650, 170), "u at the top corner");
	assert_close(p.v, lin_at(&LIN[1], 950, 700, 170), "v at the top corner");
	assert_close(p.w, lin_at(&LIN[2], 950, 650, 200), "w at the top corner");
}

/* Component c at the centre of air cell (i, j, k): the mean of its two
 * faces, or the open one alone. */
static double open_mean(int c, const float *val, size_t i, size_t j, size_t k)
{
	size_t px = g.nx + (c == 0), py = g.ny + (c == 1);
	size_t lo[3] = { i, j, k }, hi[3] = { i, j, k };
	double sum = 0.0;
	int n = 0;

	hi[c]++;
	if (!touches_land(c, lo[0], lo[1], lo[2]))
		sum += val[lo[0] + px * (lo[1] + py * lo[2])], n++;
	if (!touches_land(c, hi[0], hi[1], hi[2]))
		sum += val[hi[0] + px * (hi[1] + py * hi[2])], n++;
	return n ? sum / n : 0.0;
}

Test(query, cell_centre_is_open_face_mean)
{
	hill();
	fill(LIN, 1);
	size_t partial = 0;
	for (size_t k = 0; k < g.nz; k++)
		for (size_t j = 0; j < g.ny; j += 2)
			for (size_t i = 0; i < g.nx; i++) {
				float c[3];
				size_t k0;
				if (!west_field_centre(&f, &g, i, j, k, c))
					continue;
				const float *val[3] = { f.u, f.v, f.w };
				for (int a = 0; a < 3; a++) {
					double want = open_mean(a, val[a], i, j, k);
					size_t px = g.nx + (a == 0), py = g.ny + (a == 1);
					size_t lo = i + px * (j + py * k);
					size_t hi = a == 0 ? lo + 1 : a == 1 ? lo + px : lo + px * py;
					partial += fabs(want - 0.5 * (val[a][lo] + val[a][hi])) > 1e-3;
					cr_assert_float_eq(c[a], want, 1e-5, "centre %d at %zu %zu %zu",
							   a, i, j, k);
				}
				/* the point query there, where the centre is at or above
				 * the column's lowest resolved level (below it, the
				 * near_ground rule) */
				if (g.base + zc(k) < g.base + west_grid_lowest_level(&g, i, j, &k0))
					continue;
				struct west_point p = q(((double)i + 0.5) * g.dx,
							((double)j + 0.5) * g.dy,
							g.base + zc(k), WEST_ZREF_MSL);
				cr_assert_float_eq(p.u, c[0], 1e-5, "u at %zu %zu %zu", i, j, k);
				cr_assert_float_eq(p.v, c[1], 1e-5, "v at %zu %zu %zu", i, j, k);
				cr_assert_float_eq(p.w, c[2], 1e-5, "w at %zu %zu %zu", i, j, k);
			}
	/* cells beside the hill and on the ground have a closed face, where
	 * the plain face mean would count the closed face's 0 */
	cr_assert_gt(partial, 20);
}

/* ---- ground and the two height references --------------------------------- */

Test(query, ground_is_bilinear_between_column_centres)
{
	hill();
	fill(LIN, 1);
	size_t nx = g.nx;
	const float *t = g.terrain;
	struct west_point p = q(1150.0, 1050.0, 20.0, WEST_ZREF_AGL);
	cr_assert_float_eq(p.ground, 157.0, 1e-4);
	cr_assert_float_eq(p.z_msl, 177.0, 1e-4);
	/* the corner shared by columns (11, 10), (12, 10), (11, 11), (12, 11) */
	p = q(1200.0, 1100.0, 20.0, WEST_ZREF_AGL);
	double mean = 0.25 * ((double)t[10 * nx + 11] + t[10 * nx + 12] +
			      t[11 * nx + 11] + t[11 * nx + 12]);
	cr_assert_float_eq(p.ground, mean, 1e-9);
	/* within half a cell of the corner: column (0, 0) itself */
	p = q(10.0, 20.0, 5.0, WEST_ZREF_AGL);
	cr_assert_float_eq(p.ground, (double)t[0], 1e-9);
	cr_assert_float_eq(p.z_msl, (double)t[0] + 5.0, 1e-9);
}

Test(query, agl_equals_msl_at_ground_plus_z)
{
	int ok = 0;

	hill();
	fill(LIN, 1);
	for (int n = 0; n < 400; n++) {
		double x = uniform(0, 2300), y = uniform(0, 2100), z = uniform(0, 40);
		struct west_point a, m;
		if (west_query_point(&g, &f, g.x0 + x, g.y0 + y, z, WEST_ZREF_AGL, &a,
				     err, sizeof err) != WEST_OK)
			continue;   /* in a land cell on the slope */
		ok++;
		m = q(x, y, a.ground + z, WEST_ZREF_MSL);
		cr_assert_float_eq(m.z_agl, z, 1e-9);
		cr_assert_float_eq(m.z_msl, a.z_msl, 1e-9);
		cr_assert_float_eq(m.u, a.u, 1e-5);
		cr_assert_float_eq(m.v, a.v, 1e-5);
		cr_assert_float_eq(m.w, a.w, 1e-5);
		cr_assert_float_eq(m.speed, a.speed, 1e-5);
	}
	cr_assert_gt(ok, 300, "only %d of 400 points in the air", ok);
}

/* ---- errors --------------------------------------------------------------- */

Test(query, errors_name_the_parameter)
{
	hill();
	fill(LIN, 1);
	double L = (double)g.nx * g.dx, top = g.base + g.zf[g.nz];
	double xm = g.x0 + 500, ym = g.y0 + 500;   /* on the plain */

	q_fails(g.x0 - 0.5, ym, 10, WEST_ZREF_AGL);
	cr_assert(starts_with(err, "x ") && strstr(err, "outside the domain"), "%s", err);
	q_fails(g.x0 + L + 0.5, ym, 10, WEST_ZREF_AGL);
	cr_assert(starts_with(err, "x ") && strstr(err, "outside the domain"), "%s", err);
	q_fails(xm, g.y0 + 2100.5, 10, WEST_ZREF_AGL);
	cr_assert(starts_with(err, "y ") && strstr(err, "outside the domain"), "%s", err);
	q_fails(NAN, ym, 10, WEST_ZREF_AGL);
	cr_assert(starts_with(err, "x ") && strstr(err, "finite"), "%s", err);
	q_fails(xm, INFINITY, 10, WEST_ZREF_AGL);
	cr_assert(starts_with(err, "y ") && strstr(err, "finite"), "%s", err);
	q_fails(xm, ym, NAN, WEST_ZREF_MSL);
	cr_assert(starts_with(err, "z ") && strstr(err, "finite"), "%s", err);
	q_fails(xm, ym, 10, (enum west_zref)7);
	cr_assert(starts_with(err, "zref "), "%s", err);
	q_fails(xm, ym, -0.5, WEST_ZREF_AGL);
	cr_assert(starts_with(err, "z -0.5 m AGL") && strstr(err, "below the ground"),
		  "%s", err);
	q_fails(xm, ym, top + 0.5, WEST_ZREF_MSL);
	cr_assert(starts_with(err, "z ") && strstr(err, "above the grid top"), "%s", err);
	q_fails(xm, ym, 100.5, WEST_ZREF_AGL);
	cr_assert(starts_with(err, "z 100.5 m AGL") && strstr(err, "above the grid top"),
		  "%s", err);
}

Test(query, edges_and_top_are_inside)
{
	hill();
	fill(LIN, 1);
	double L = (double)g.nx * g.dx, M = (double)g.ny * g.dy;
	double top = g.base + g.zf[g.nz];

	q(0.0, 0.0, 20.0, WEST_ZREF_AGL);
	q(L, M, 20.0, WEST_ZREF_AGL);
	q(L, 0.0, top, WEST_ZREF_MSL);
	/* on the ground (0.0003 m above the base here): w near its ground
	 * face's 0 */
	struct west_point p = q(0.0, M, 0.0, WEST_ZREF_AGL);
	cr_assert_eq(p.z_agl, 0.0);
	cr_assert(fabs(p.w) < 1e-4, "w %g", p.w);
}

Test(query, below_the_hill_and_in_terrain)
{
	hill();
	fill(LIN, 1);
	double xc = g.x0 + (HILL_I + 0.5) * g.dx, yc = g.y0 + (HILL_J + 0.5) * g.dy;

	/* just under the hill top: below the ground */
	q_fails(xc, yc, 156.5, WEST_ZREF_MSL);
	cr_assert(starts_with(err, "z 156.5 m MSL") && strstr(err, "below the ground")
		  && strstr(err, "157.00"), "%s", err);
	/* 1 m above the top, inside cell 5 (50 .. 60 m, centre 55 < 57: land)
	 * and 3 m above it, in cell 6 (centre 65 m, 8 m above the ground):
	 * both below the lowest resolved level, so its wind carried down */
	struct west_point top = q(xc - g.x0, yc - g.y0, 165.0, WEST_ZREF_MSL);
	struct west_point p1 = q(xc - g.x0, yc - g.y0, 1.0, WEST_ZREF_AGL);
	struct west_point p3 = q(xc - g.x0, yc - g.y0, 160.0, WEST_ZREF_MSL);
	cr_assert_float_eq(top.z_agl, 8.0, 1e-4);
	cr_assert_float_eq(p3.z_agl, 3.0, 1e-4);
	cr_assert(top.u != 0.0f && top.w != 0.0f);
	cr_assert_eq(p1.u, top.u);   /* exponent 0 in a fresh field */
	cr_assert_eq(p3.v, top.v);
	cr_assert_float_eq(p1.w, top.w / 8.0f, 1e-6);
	cr_assert_float_eq(p3.w, top.w * 3.0f / 8.0f, 1e-6);
}

/* The power law below the lowest resolved level: u, v times
 * (z / z_ref)^p with the exponent of the column's class, w linear, 0 at
 * the ground; above z_ref the blend as usual. */
Test(query, near_ground)
{
	static const float pexp[6] = { 0.07f, 0.07f, 0.10f, 0.15f, 0.35f, 0.55f };
	hill();
	fill(LIN, 1);
	memcpy(f.power_exponent, pexp, sizeof pexp);
	memset(f.stability, 5, g.nx * g.ny);   /* F */
	f.stability[HILL_J * g.nx + HILL_I] = 3;   /* D on the hill top */
	double x = (HILL_I + 0.5) * g.dx, y = (HILL_J + 0.5) * g.dy;
	struct west_point ref = q(x, y, 8.0, WEST_ZREF_AGL);
	for (double z = 0.0; z < 8.0; z += 0.5) {
		struct west_point p = q(x, y, z, WEST_ZREF_AGL);
		double s = pow(z / 8.0, 0.15);
		cr_assert_float_eq(p.u, ref.u * s, 1e-5 * fabs(ref.u) + 1e-7, "u at %g", z);
		cr_assert_float_eq(p.v, ref.v * s, 1e-5 * fabs(ref.v) + 1e-7, "v at %g", z);
		cr_assert_float_eq(p.w, ref.w * z / 8.0, 1e-6, "w at %g", z);
	}
	struct west_point g0 = q(x, y, 0.0, WEST_ZREF_AGL);
	cr_assert(g0.u == 0.0f && g0.v == 0.0f && g0.w == 0.0f);
	/* on the plain (class F): the lowest centre is about 5 m above the
	 * ground (the hill's tail lifts the ground a little) */
	double zr = g.base + zc(0) - q(50.0, 50.0, 0.0, WEST_ZREF_AGL).ground;
	struct west_point lo = q(50.0, 50.0, zr, WEST_ZREF_AGL);
	struct west_point p2 = q(50.0, 50.0, 2.0, WEST_ZREF_AGL);
	cr_assert(zr > 4.9 && zr <= 5.0, "z_ref %g", zr);
	cr_assert_float_eq(p2.u, lo.u * pow(2.0 / zr, 0.55), 1e-5 * fabs(lo.u));
	/* continuous at z_ref: just above it, the blend */
	struct west_point up = q(50.0, 50.0, zr + 0.001, WEST_ZREF_AGL);
	cr_assert_float_eq(up.u, lo.u, 1e-4);
}

/* ---- profiles ------------------------------------------------------------- */

/* Profile at grid-local (x, y): increasing, each entry the point query. */
static size_t check_profile(double x, double y)
{
	struct west_point pr[10];
	size_t n = 99;

	cr_assert_eq(g.nz, 10);
	cr_assert_eq(west_query_profile(&g, &f, g.x0 + x, g.y0 + y, pr, &n, err,
					sizeof err), WEST_OK, "%s", err);
	cr_assert(n >= 1 && n <= g.nz, "n %zu", n);
	for (size_t m = 0; m < n; m++) {
		struct west_point p = q(x, y, pr[m].z_msl, WEST_ZREF_MSL);
		double h = pr[m].z_msl - g.base;
		size_t k = (size_t)(h / 10.0);
		cr_assert_float_eq(h, zc(k), 1e-9, "entry %zu at %g m", m, h);
		cr_assert(m == 0 || pr[m].z_msl > pr[m - 1].z_msl);
		cr_assert_eq(pr[m].x, g.x0 + x);
		assert_same(&pr[m], &p);
	}
	return n;
}

Test(query, profile_hill_top_shorter_than_plain)
{
	hill();
	fill(LIN, 1);
	size_t top = check_profile((HILL_I + 0.5) * g.dx, (HILL_J + 0.5) * g.dy);
	size_t plain = check_profile(50.0, 50.0);
	size_t slope = check_profile(1433.0, 1271.0);

	cr_assert_eq(top, 4);      /* levels 6 .. 9 */
	cr_assert_eq(plain, 10);
	cr_assert(top < slope && slope < plain, "slope %zu", slope);
}

Test(query, profile_errors)
{
	struct west_point pr[6];
	size_t n = 99;

	fix_grid(&g, 23, 21, 100.0, 6, 10.0, 57.0, 300.0);   /* top 60 m */
	alloc_field();
	fill(LIN, 1);
	cr_assert_eq(west_query_profile(&g, &f, g.x0 - 1, g.y0 + 50, pr, &n, err,
					sizeof err), WEST_ERR_INVALID);
	cr_assert(starts_with(err, "x "), "%s", err);
	cr_assert_eq(n, 0);
	cr_assert_eq(west_query_profile(&g, &f, g.x0 + 50, NAN, pr, &n, err,
					sizeof err), WEST_ERR_INVALID);
	cr_assert(starts_with(err, "y "), "%s", err);
	/* the hill top column: every centre (5 .. 55 m) below 57 m */
	cr_assert_eq(west_query_profile(&g, &f, g.x0 + 1150, g.y0 + 1050, pr, &n,
					err, sizeof err), WEST_ERR_INVALID);
	cr_assert(strstr(err, "all terrain"), "%s", err);
	cr_assert_eq(n, 0);
}

/* ---- slices --------------------------------------------------------------- */

/*
 * Slice at z, stride s: its size, and each entry the point query at its
 * column centre (NaN where that fails).  Returns the count of NaN entries.
 */
static size_t check_slice(double z, enum west_zref r, size_t s,
			  size_t want_nx, size_t want_ny)
{
	size_t cap = g.nx * g.ny, mx = 0, my = 0, nan = 0;
	float *u = malloc(3 * cap * sizeof *u), *v = u + cap, *w = v + cap;

	cr_assert_not_null(u);
	cr_assert_eq(west_query_slice(&g, &f, z, r, s, u, v, w, &mx, &my, err,
				      sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(mx, want_nx);
	cr_assert_eq(my, want_ny);
	for (size_t jo = 0; jo < my; jo++)
		for (size_t io = 0; io < mx; io++) {
			size_t o = jo * mx + io;
			struct west_point p;
			double x = g.x0 + ((double)(io * s) + 0.5) * g.dx;
			double y = g.y0 + ((double)(jo * s) + 0.5) * g.dy;
			enum west_status st = west_query_point(&g, &f, x, y, z, r, &p,
							       err, sizeof err);
			if (st != WEST_OK) {
				cr_assert(isnan(u[o]) && isnan(v[o]) && isnan(w[o]),
					  "column %zu %zu: %s", io * s, jo * s, err);
				nan++;
				continue;
			}
			cr_assert_eq(u[o], p.u, "u at column %zu %zu", io * s, jo * s);
			cr_assert_eq(v[o], p.v);
			cr_assert_eq(w[o], p.w);
		}
	free(u);
	return nan;
}

Test(query, slice_low_msl_has_terrain_holes)
{
	hill();
	fill(LIN, 1);
	/* 130 m MSL: in terrain where the ground is above 130 m */
	size_t holes = check_slice(130.0, WEST_ZREF_MSL, 1, 23, 21), want = 0;

	for (size_t c = 0; c < g.nx * g.ny; c++)
		want += g.terrain[c] > 130.0f;
	cr_assert_gt(want, 0);
	cr_assert_eq(holes, want);
}

Test(query, slice_stride_and_agl)
{
	hill();
	fill(LIN, 1);
	cr_assert_eq(check_slice(20.0, WEST_ZREF_AGL, 3, 8, 7), 0);
	cr_assert_eq(check_slice(20.0, WEST_ZREF_AGL, 4, 6, 6), 0);
	cr_assert_eq(check_slice(20.0, WEST_ZREF_AGL, 100, 1, 1), 0);
	/* 1 m above the ground, in land cells on the hill's upper slopes:
	 * answered all the same */
	cr_assert_eq(check_slice(1.0, WEST_ZREF_AGL, 1, 23, 21), 0);
	/* above the top everywhere */
	cr_assert_eq(check_slice(101.0, WEST_ZREF_AGL, 2, 12, 11), 12 * 11);
}

Test(query, slice_errors)
{
	float u[4], v[4], w[4];
	size_t mx, my;

	hill();
	fill(LIN, 1);
	cr_assert_eq(west_query_slice(&g, &f, 10.0, WEST_ZREF_AGL, 0, u, v, w, &mx,
				      &my, err, sizeof err), WEST_ERR_INVALID);
	cr_assert(starts_with(err, "stride "), "%s", err);
	cr_assert_eq(west_query_slice(&g, &f, INFINITY, WEST_ZREF_AGL, 50, u, v, w,
				      &mx, &my, err, sizeof err), WEST_ERR_INVALID);
	cr_assert(starts_with(err, "z "), "%s", err);
}

/* ---- every bundled terrain ------------------------------------------------ */

/*
 * A console asks for the 2 m and 10 m wind everywhere: on every bundled
 * terrain, solved with one 5 m/s station, every column answers at its
 * centre and at a point off it (on the slopes the bilinear ground differs
 * from the column's), with a finite wind that is not calm.
 */
Test(query, every_column_of_every_bundled_terrain_answers_at_2_and_10_m)
{
	static const char *const dems[] = { "default.asc", "flat.asc", "hill.asc",
					    "ridge.asc", "valley.asc", "hill.nc" };
	struct west_solve_opts o;

	fix_opts(&o, 0, 1e-4, 1.25, WEST_INDEXING_COMPACT);
	o.solver = WEST_SOLVER_MULTIGRID;
	for (size_t d = 0; d < sizeof dems / sizeof dems[0]; d++) {
		struct west_config *c = malloc(sizeof *c);
		struct west_obs_set obs = { 0 };
		char path[512];

		cr_assert_not_null(c);
		west_config_defaults(c);
		snprintf(path, sizeof path, "%s/data/%s", WEST_SRCDIR, dems[d]);
		grid_from_config(c, NULL, path);
		free(c);
		fix_obs(&obs, "S", 0.3 * g.nx * g.dx - (g.x0 - FIX_X0),
			0.4 * g.ny * g.dy - (g.y0 - FIX_Y0), 10.0, 5.0, 250.0, 3);
		fix_solve(&g, &obs, &o, &f);
		for (size_t j = 0; j < g.ny; j++)
			for (size_t i = 0; i < g.nx; i++)
				for (int at = 0; at < 4; at++) {
					double x = ((double)i + (at & 1 ? 0.9 : 0.5)) * g.dx;
					double y = ((double)j + (at & 1 ? 0.15 : 0.5)) * g.dy;
					struct west_point p = q(x, y, at & 2 ? 10.0 : 2.0,
								WEST_ZREF_AGL);
					cr_assert(isfinite(p.u) && isfinite(p.v) && isfinite(p.w));
					cr_assert_gt(p.speed, 0.1f, "%s: column %zu %zu at %s m: %g m/s",
						     dems[d], i, j, at & 2 ? "10" : "2", p.speed);
				}
		free(obs.obs);
		teardown();
	}
}

/*
 * A narrow valley: a slot one column (50 m) wide and 60 m deep cut north to
 * south into a plateau that rises 1 in 2 to the east (a 45 degree wall
 * beside the slot on the west), 20 m levels; the wind from the west
 * crosses it.  Every column, the slot floor and the walls included,
 * answers at 2 m and 10 m above its ground with a finite wind that is not
 * calm, with cut cells and with staircase faces.
 */
Test(query, narrow_valley_answers_at_2_and_10_m)
{
	struct west_solve_opts o;

	fix_opts(&o, 0, 1e-4, 1.25, WEST_INDEXING_COMPACT);
	o.solver = WEST_SOLVER_MULTIGRID;
	for (int faces = 0; faces < 2; faces++) {
		struct west_config *c = malloc(sizeof *c);
		struct west_dem dem = { .nx = 24, .ny = 12, .dx = 50, .dy = 50,
					.x0 = FIX_X0, .y0 = FIX_Y0 };
		struct west_obs_set obs = { 0 };

		cr_assert_not_null(c);
		dem.z = malloc(dem.nx * dem.ny * sizeof *dem.z);
		cr_assert_not_null(dem.z);
		for (size_t j = 0; j < dem.ny; j++)
			for (size_t i = 0; i < dem.nx; i++)
				dem.z[j * dem.nx + i] = i == 11 ? 100.0f :
					i < 11 ? 160.0f : 160.0f + 25.0f * (float)(i - 12);
		west_config_defaults(c);
		c->nz = 20, c->dz = 20;
		c->terrain_faces = faces ? WEST_FACES_STAIRCASE : WEST_FACES_CUT;
		grid_from_config(c, &dem, NULL);
		free(dem.z);
		free(c);
		fix_obs(&obs, "W", 150, 300, 10.0, 6.0, 270.0, 3);
		fix_solve(&g, &obs, &o, &f);
		for (size_t j = 0; j < g.ny; j++)
			for (size_t i = 0; i < g.nx; i++)
				for (int at = 0; at < 2; at++) {
					struct west_point p = q(((double)i + 0.5) * g.dx,
								((double)j + 0.5) * g.dy,
								at ? 10.0 : 2.0, WEST_ZREF_AGL);
					cr_assert(isfinite(p.u) && isfinite(p.v) && isfinite(p.w));
					cr_assert_gt(p.speed, 0.1f, "%s: column %zu %zu at %s m: %g m/s",
						     faces ? "staircase" : "cut", i, j,
						     at ? "10" : "2", p.speed);
				}
		free(obs.obs);
		teardown();
	}
}

/* ---- true north ----------------------------------------------------------- */

/*
 * A flat grid 200 km east of its transverse Mercator central meridian
 * (x 700000 m with false easting 500000 m, lon0 15 E, near 42 N), where
 * grid north lies about 1.6 degrees clockwise of true north.  The
 * convergence the grid computes is the spherical-earth formula
 * atan(tan(dlon) sin(lat)) within 0.01 degree; a grid-relative westerly
 * (u 5, v 0 on every face) answers as a true wind from 270 + gamma; and a
 * station reporting a true westerly is read back as one (the model turns
 * its direction to the grid and the answer turns it back).
 */
/* g: the flat 20 x 16 grid of 100 m at x 700000 m of a transverse
 * Mercator with lon0 15 E (the test below says where), with the crs flags
 * given. */
static void tm_grid(int has_tm, int other_ellipsoid)
{
	struct west_config *c = malloc(sizeof *c);
	struct west_dem dem = { .nx = 20, .ny = 16, .dx = 100, .dy = 100,
				.x0 = 700000.0, .y0 = 4650000.0 };

	cr_assert_not_null(c);
	dem.z = calloc(dem.nx * dem.ny, sizeof *dem.z);
	cr_assert_not_null(dem.z);
	if (has_tm)
		snprintf(dem.crs.grid_mapping_name, sizeof dem.crs.grid_mapping_name,
			 "transverse_mercator");
	dem.crs.has_tm = has_tm, dem.crs.tm_other_ellipsoid = other_ellipsoid;
	dem.crs.lon0 = 15.0, dem.crs.k0 = 0.9996, dem.crs.false_easting = 500000.0;
	west_config_defaults(c);
	c->nz = 5, c->dz = 20;
	grid_from_config(c, &dem, NULL);
	free(dem.z);
	free(c);
}

/* A transverse Mercator on another ellipsoid (tm_other_ellipsoid, no
 * has_tm: no longitude and latitude) still gives the grid its meridian
 * convergence, the one WGS 84's ellipsoid gives with the same parameters;
 * a grid with neither has none. */
Test(query, convergence_on_another_ellipsoid)
{
	double gam[2];

	for (int other = 0; other < 2; other++) {
		tm_grid(!other, other);
		cr_assert(g.has_convergence, "other %d: no convergence", other);
		gam[other] = west_grid_convergence(&g, 1000, 800);
		west_grid_free(&g);
	}
	cr_assert(gam[1] > 0.025 && gam[1] == gam[0], "%g vs %g", gam[1], gam[0]);
	tm_grid(0, 0);
	cr_assert(!g.has_convergence);
	cr_assert_eq(west_grid_convergence(&g, 1000, 800), 0.0);
}

Test(query, winds_are_relative_to_true_north)
{
	struct west_obs_set obs = { 0 };
	struct west_solve_opts o;
	struct west_point p;

	tm_grid(1, 0);
	cr_assert(g.has_convergence);

	double x = 1000, y = 800, lon, lat;
	cr_assert_eq(west_tm_inverse(&g.crs, g.x0 + x, g.y0 + y, &lon, &lat, err, sizeof err),
		     WEST_OK, "%s", err);
	double want = atan(tan((lon - 15.0) * M_PI / 180) * sin(lat * M_PI / 180));
	double gam = west_grid_convergence(&g, x, y);
	cr_assert(gam > 0.025 && fabs(gam - want) < 0.01 * M_PI / 180,
		  "convergence %.5f deg, spherical %.5f deg", gam * 180 / M_PI, want * 180 / M_PI);

	alloc_field();
	for (size_t i = 0; i < west_grid_nxfaces(&g); i++)
		f.u[i] = 5.0f;
	memset(f.v, 0, west_grid_nyfaces(&g) * sizeof *f.v);
	memset(f.w, 0, west_grid_nzfaces(&g) * sizeof *f.w);
	p = q(x, y, 50.0, WEST_ZREF_AGL);
	cr_assert_float_eq(p.u, 5.0 * cos(gam), 1e-5);
	cr_assert_float_eq(p.v, -5.0 * sin(gam), 1e-5);
	cr_assert_float_eq(p.direction, 270.0 + gam * 180 / M_PI, 1e-3);
	west_field_free(&f);

	fix_opts(&o, 0, 1e-5, 1.25, WEST_INDEXING_COMPACT);
	o.solver = WEST_SOLVER_MULTIGRID;
	fix_obs(&obs, "S", x + (700000.0 - FIX_X0), y, 10.0, 6.0, 270.0, 3);
	fix_solve(&g, &obs, &o, &f);
	p = q(x, y, 10.0, WEST_ZREF_AGL);
	cr_assert_float_eq(p.direction, 270.0, 1e-3, "a true westerly reads %.4f", p.direction);
	cr_assert_float_eq(p.speed, 6.0, 1e-3);
	free(obs.obs);
}
