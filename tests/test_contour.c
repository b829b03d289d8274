/*
 * test_contour.c: src/contour.c, filled contours by marching squares,
 * against answers worked out by hand (contour.h gives the rules: the
 * field 0 on the domain's edge, vertices interpolated linearly, saddles by
 * the cell's mean, exteriors counter-clockwise and holes clockwise).
 *
 * Unless a test says otherwise the columns are 1 m apart from (0, 0), so
 * column (i, j) is centred on (i + 0.5, j + 0.5).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contour.h"
#include "proj.h"

static struct west_field2d field(size_t nx, size_t ny, const float *v)
{
	struct west_field2d f = { nx, ny, 0.0, 0.0, 1.0, 1.0, v };
	return f;
}

static struct west_contour build(const struct west_field2d *f, double level)
{
	struct west_contour c;
	char err[WEST_ERRLEN];
	cr_assert_eq(west_contour_build(f, level, &c, err, sizeof err), WEST_OK, "%s", err);
	return c;
}

/* r is the closed ring through the n points want (x, y pairs), in that
 * order, starting anywhere: exactly, to 1e-12. */
static void expect_ring(const struct west_ring *r, const double *want, size_t n,
			const char *what)
{
	size_t s;

	cr_assert_eq(r->n, n + 1, "%s: %zu vertices, want %zu and the closing one", what,
		     r->n, n);
	cr_expect(r->xy[0] == r->xy[2 * n] && r->xy[1] == r->xy[2 * n + 1], "%s: not closed",
		  what);
	for (s = 0; s < n; s++)
		if (fabs(r->xy[0] - want[2 * s]) < 1e-12 && fabs(r->xy[1] - want[2 * s + 1]) < 1e-12)
			break;
	cr_assert_lt(s, n, "%s: (%g, %g) is not a vertex wanted", what, r->xy[0], r->xy[1]);
	for (size_t k = 0; k < n; k++) {
		size_t q = (s + k) % n;
		cr_expect(fabs(r->xy[2 * k] - want[2 * q]) < 1e-12 &&
			  fabs(r->xy[2 * k + 1] - want[2 * q + 1]) < 1e-12,
			  "%s: vertex %zu is (%g, %g), want (%g, %g)", what, k, r->xy[2 * k],
			  r->xy[2 * k + 1], want[2 * q], want[2 * q + 1]);
	}
}

Test(contour, single_cell_above_the_level_is_a_diamond)
{
	float v[9] = { 0, 0, 0, 0, 1, 0, 0, 0, 0 };
	struct west_field2d f = field(3, 3, v);
	struct west_contour c = build(&f, 0.5);
	/* half way from the centre (1.5, 1.5) to each neighbour, counter-clockwise */
	const double want[] = { 1.5, 1.0, 2.0, 1.5, 1.5, 2.0, 1.0, 1.5 };

	cr_assert_eq(c.npolys, 1);
	cr_assert_eq(c.polys[0].nrings, 1);
	expect_ring(&c.polys[0].rings[0], want, 4, "diamond");
	cr_expect_float_eq(west_ring_area(&c.polys[0].rings[0]), 0.5, 1e-12);
	cr_expect_eq(c.level, 0.5);
	west_contour_free(&c);
	cr_expect_eq(c.npolys, 0);
	cr_expect_null(c.polys);
}

Test(contour, interpolates_linearly_from_the_low_end)
{
	float v[9] = { 0, 0, 0, 0, 4, 1, 0, 0, 0 };
	struct west_field2d f = field(3, 3, v);
	struct west_contour c = build(&f, 2.0);
	/* centre 4: to 0 on three sides, half way (2 of 4); to the east
	 * neighbour 1: (2 - 1) / (4 - 1), a third of the way from it */
	const double want[] = { 1.5, 1.0, 2.5 - 1.0 / 3.0, 1.5, 1.5, 2.0, 1.0, 1.5 };

	cr_assert_eq(c.npolys, 1);
	expect_ring(&c.polys[0].rings[0], want, 4, "skewed diamond");
	west_contour_free(&c);
}

Test(contour, block_is_an_octagon_ring)
{
	float v[16] = { 0 };
	v[1 * 4 + 1] = v[1 * 4 + 2] = v[2 * 4 + 1] = v[2 * 4 + 2] = 1;
	struct west_field2d f = field(4, 4, v);
	struct west_contour c = build(&f, 0.5);
	const double want[] = { 1.5, 1.0, 2.5, 1.0, 3.0, 1.5, 3.0, 2.5,
				2.5, 3.0, 1.5, 3.0, 1.0, 2.5, 1.0, 1.5 };

	cr_assert_eq(c.npolys, 1);
	cr_assert_eq(c.polys[0].nrings, 1);
	expect_ring(&c.polys[0].rings[0], want, 8, "octagon");
	cr_expect_float_eq(west_contour_area(&c), 4.0 - 4 * 0.125, 1e-12);
	west_contour_free(&c);
}

Test(contour, ring_with_a_hole)
{
	float v[49] = { 0 };
	for (int j = 1; j <= 5; j++)
		for (int i = 1; i <= 5; i++)
			v[j * 7 + i] = 1;
	v[3 * 7 + 3] = 0;
	struct west_field2d f = field(7, 7, v);
	struct west_contour c = build(&f, 0.5);
	/* the hole: half way from the low centre (3.5, 3.5), clockwise */
	const double hole[] = { 3.5, 3.0, 3.0, 3.5, 3.5, 4.0, 4.0, 3.5 };
	const struct west_ring *ex;

	cr_assert_eq(c.npolys, 1);
	cr_assert_eq(c.polys[0].nrings, 2, "an exterior and one hole");
	ex = &c.polys[0].rings[0];
	/* 5 x 5 columns: the square [1, 6]^2 less four corners of 1/8 each,
	 * 5 vertices on each side */
	cr_expect_eq(ex->n, 21);
	cr_expect_float_eq(west_ring_area(ex), 24.5, 1e-12);
	expect_ring(&c.polys[0].rings[1], hole, 4, "hole");
	cr_expect_float_eq(west_ring_area(&c.polys[0].rings[1]), -0.5, 1e-12,
			   "the hole runs clockwise");
	cr_expect_float_eq(west_contour_area(&c), 24.0, 1e-12);
	west_contour_free(&c);
}

Test(contour, island_in_a_hole_is_a_polygon_of_its_own)
{
	/* 9 x 9: a ring of 1 around a ring of 0 around a 1 at the centre */
	float v[81] = { 0 };
	for (int j = 1; j <= 7; j++)
		for (int i = 1; i <= 7; i++)
			v[j * 9 + i] = (i == 1 || i == 7 || j == 1 || j == 7 || (i == 4 && j == 4));
	struct west_field2d f = field(9, 9, v);
	struct west_contour c = build(&f, 0.5);
	size_t holes = 0, single = 0;

	cr_assert_eq(c.npolys, 2, "the outer ring and the island");
	for (size_t p = 0; p < 2; p++) {
		holes += c.polys[p].nrings - 1;
		single += c.polys[p].nrings == 1;
		cr_expect_gt(west_ring_area(&c.polys[p].rings[0]), 0);
	}
	cr_expect_eq(holes, 1);
	cr_expect_eq(single, 1);
	west_contour_free(&c);
}

/* Polygons of a 2 x 2 field whose one diagonal is 1, the other 0. */
static size_t saddle_polygons(int diagonal, double level)
{
	float v[4] = { diagonal, !diagonal, !diagonal, diagonal };
	struct west_field2d f = field(2, 2, v);
	struct west_contour c = build(&f, level);
	size_t n = c.npolys;

	for (size_t p = 0; p < n; p++) {
		cr_expect_eq(c.polys[p].nrings, 1);
		cr_expect_gt(west_ring_area(&c.polys[p].rings[0]), 0);
	}
	west_contour_free(&c);
	return n;
}

Test(contour, saddles_resolved_by_the_cell_mean)
{
	for (int d = 0; d < 2; d++) {
		/* the centre cell's mean is 0.5 */
		cr_expect_eq(saddle_polygons(d, 0.6), 2, "mean below the level: apart (%d)", d);
		cr_expect_eq(saddle_polygons(d, 0.4), 1, "mean above the level: joined (%d)", d);
		cr_expect_eq(saddle_polygons(d, 0.5), 1, "mean at the level: joined (%d)", d);
	}
}

Test(contour, saddle_apart_gives_two_diamonds)
{
	float v[4] = { 1, 0, 0, 1 };
	struct west_field2d f = field(2, 2, v);
	struct west_contour c = build(&f, 0.6);
	/* around (0.5, 0.5): 0.6 of the way from the edge (0) and from the
	 * low neighbours (1.5) */
	const double a[] = { 0.5, 0.3, 0.9, 0.5, 0.5, 0.9, 0.3, 0.5 };
	const double b[] = { 1.5, 1.1, 1.7, 1.5, 1.5, 1.7, 1.1, 1.5 };

	cr_assert_eq(c.npolys, 2);
	expect_ring(&c.polys[0].rings[0], a, 4, "south-west diamond");
	expect_ring(&c.polys[1].rings[0], b, 4, "north-east diamond");
	west_contour_free(&c);
}

Test(contour, level_above_the_maximum_is_empty)
{
	float v[6] = { 1, 2, 3, 4, 5, 6 };
	struct west_field2d f = field(3, 2, v);
	struct west_contour c = build(&f, 6.5);

	cr_expect_eq(c.npolys, 0);
	cr_expect_eq(west_contour_area(&c), 0.0);
	west_contour_free(&c);
	c = build(&f, 6.0);   /* at the maximum: a point, no area, no polygon */
	cr_expect_eq(c.npolys, 0);
	west_contour_free(&c);
	c = build(&f, 5.5);
	cr_expect_eq(c.npolys, 1);
	west_contour_free(&c);
}

Test(contour, closes_on_the_domain_edge)
{
	float v[6] = { 1, 1, 1, 1, 1, 1 };
	struct west_field2d f = { 3, 2, 1000.0, 2000.0, 10.0, 10.0, v };
	struct west_contour c = build(&f, 0.5);
	const struct west_ring *r;
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;

	cr_assert_eq(c.npolys, 1);
	r = &c.polys[0].rings[0];
	for (size_t k = 0; k < r->n; k++) {
		xmin = fmin(xmin, r->xy[2 * k]), xmax = fmax(xmax, r->xy[2 * k]);
		ymin = fmin(ymin, r->xy[2 * k + 1]), ymax = fmax(ymax, r->xy[2 * k + 1]);
	}
	/* half way from the edge (0) to the outer centres (1) */
	cr_expect_float_eq(xmin, 1002.5, 1e-9);
	cr_expect_float_eq(xmax, 1027.5, 1e-9);
	cr_expect_float_eq(ymin, 2002.5, 1e-9);
	cr_expect_float_eq(ymax, 2017.5, 1e-9);
	west_contour_free(&c);
}

Test(contour, bad_levels_are_refused)
{
	float v[1] = { 1 };
	struct west_field2d f = field(1, 1, v), empty = field(0, 0, v);
	struct west_contour c;
	char err[WEST_ERRLEN];

	cr_expect_eq(west_contour_build(&f, 0.0, &c, err, sizeof err), WEST_ERR_INVALID);
	cr_expect_str_eq(err, "contour level 0: not a number > 0");
	cr_expect_eq(west_contour_build(&f, -1.0, &c, err, sizeof err), WEST_ERR_INVALID);
	cr_expect_eq(west_contour_build(&f, NAN, &c, err, sizeof err), WEST_ERR_INVALID);
	cr_expect_eq(west_contour_build(&empty, 1.0, &c, err, sizeof err), WEST_ERR_INVALID);
	cr_expect_eq(c.npolys, 0);
}

Test(contour, nan_counts_as_zero)
{
	float v[9] = { 0, 0, 0, 0, 1, NAN, 0, 0, 0 };
	struct west_field2d f = field(3, 3, v);
	struct west_contour c = build(&f, 0.5);

	cr_assert_eq(c.npolys, 1);
	cr_expect_float_eq(west_contour_area(&c), 0.5, 1e-12);
	west_contour_free(&c);
}

/* Every ring closed, exteriors counter-clockwise, holes clockwise and
 * smaller than their exterior. */
static void expect_well_formed(const struct west_contour *c)
{
	for (size_t p = 0; p < c->npolys; p++)
		for (size_t r = 0; r < c->polys[p].nrings; r++) {
			const struct west_ring *g = &c->polys[p].rings[r];
			double a = west_ring_area(g);
			cr_assert_geq(g->n, 4);
			cr_expect(g->xy[0] == g->xy[2 * g->n - 2] && g->xy[1] == g->xy[2 * g->n - 1]);
			for (size_t k = 0; k + 1 < g->n; k++)
				cr_expect(g->xy[2 * k] != g->xy[2 * k + 2] ||
					  g->xy[2 * k + 1] != g->xy[2 * k + 3], "repeated vertex");
			if (r == 0)
				cr_expect_gt(a, 0, "exterior %zu runs clockwise", p);
			else
				cr_expect(a < 0 && -a < west_ring_area(&c->polys[p].rings[0]),
					  "hole %zu of %zu: area %g", r, p, a);
		}
}

Test(contour, noisy_field_well_formed_and_area_falls_with_the_level)
{
	enum { NX = 40, NY = 30 };
	float *v = malloc(NX * NY * sizeof *v);
	unsigned s = 12345;
	double last = INFINITY;

	for (size_t k = 0; k < NX * NY; k++) {
		s = s * 1103515245u + 12345u;
		v[k] = (float)((s >> 8) % 1000) / 1000.0f;
	}
	struct west_field2d f = field(NX, NY, v);
	for (double level = 0.05; level < 1.0; level += 0.1) {
		struct west_contour c = build(&f, level);
		double a = west_contour_area(&c);
		expect_well_formed(&c);
		cr_expect_lt(a, last, "area %g at level %g, not below %g", a, level, last);
		last = a;
		west_contour_free(&c);
	}
	free(v);
}

static struct west_crs utm33n(void)
{
	struct west_crs c = { .grid_mapping_name = "transverse_mercator", .has_tm = 1,
			      .lon0 = 15.0, .lat0 = 0.0, .k0 = 0.9996,
			      .false_easting = 500000.0, .false_northing = 0.0 };
	return c;
}

Test(contour, to_lonlat_maps_every_vertex_and_keeps_the_orientation)
{
	float v[9] = { 0, 0, 0, 0, 1, 0, 0, 0, 0 };
	struct west_field2d f = { 3, 3, 504000.0, 4652000.0, 100.0, 100.0, v };
	struct west_contour c = build(&f, 0.5), d = build(&f, 0.5);
	struct west_crs crs = utm33n(), none = { .grid_mapping_name = "" };
	char err[WEST_ERRLEN];

	cr_assert_eq(west_contour_to_lonlat(&c, &crs, err, sizeof err), WEST_OK, "%s", err);
	const struct west_ring *r = &c.polys[0].rings[0], *q = &d.polys[0].rings[0];
	for (size_t k = 0; k < r->n; k++) {
		double lon, lat;
		cr_assert_eq(west_tm_inverse(&crs, q->xy[2 * k], q->xy[2 * k + 1], &lon, &lat, err,
					     sizeof err), WEST_OK);
		cr_expect_eq(r->xy[2 * k], lon);
		cr_expect_eq(r->xy[2 * k + 1], lat);
		cr_expect(lon > 15.0 && lon < 15.1 && lat > 42.0 && lat < 42.1, "%g %g", lon, lat);
	}
	cr_expect_gt(west_ring_area(r), 0, "still counter-clockwise in degrees");
	cr_expect_eq(west_contour_to_lonlat(&d, &none, err, sizeof err), WEST_ERR_UNSUPPORTED);
	cr_expect_not_null(strstr(err, "not transverse Mercator"), "%s", err);
	west_contour_free(&c);
	west_contour_free(&d);
}
