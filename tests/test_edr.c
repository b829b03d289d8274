/*
 * test_edr.c: the OGC API - EDR subset (service/edr.h): the query
 * parameter parsers, the landing, conformance and collection documents,
 * and the CoverageJSON answers.
 *
 * Parsers: each happy path, and each refusal with a message that names the
 * parameter and the problem; outputs untouched (polygons zeroed) on
 * failure.
 *
 * Answers are checked against the query functions they are built from:
 * every value must equal west_query_point (or west_query_profile) at the
 * same place, bit for bit after the float -> double -> float round trip,
 * and be null exactly where that query fails.  The grid is test_query.c's
 * hill: 23 x 21 columns of 100 m, 10 levels of 10 m over a plain at 100 m
 * (the base) with a 57 m Gaussian hill, so the centre column (11, 10) has
 * ground 157 m and its cells 0..5 are land.  The field holds a linear
 * function on every face, 0 on faces touching land and on the ground (as a
 * solved field has), so values differ from place to place.  The CRS, where
 * a test needs one, is WGS 84 / UTM zone 33N set by hand (the grid's
 * corner is on the central meridian's false easting).
 *
 * Nothing touches the file system; tests share no state across processes.
 */
#include "model_fixture.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "edr.h"
#include "proj.h"
#include "query.h"

#define BASE "http://127.0.0.1:8080"
#define VALID_TIME 1795435200LL   /* 2026-11-23T12:00:00Z */
#define VALID_ISO "2026-11-23T12:00:00Z"
#define HILL_I 11
#define HILL_J 10
#define UTM33_WKT "PROJCS[\"WGS_1984_UTM_Zone_33N\",GEOGCS[\"GCS_WGS_1984\"," \
	"DATUM[\"D_WGS_1984\",SPHEROID[\"WGS_1984\",6378137.0,298.257223563]]," \
	"PRIMEM[\"Greenwich\",0.0],UNIT[\"Degree\",0.0174532925199433]]," \
	"PROJECTION[\"Transverse_Mercator\"],PARAMETER[\"False_Easting\",500000.0]," \
	"PARAMETER[\"False_Northing\",0.0],PARAMETER[\"Central_Meridian\",15.0]," \
	"PARAMETER[\"Scale_Factor\",0.9996],PARAMETER[\"Latitude_Of_Origin\",0.0]," \
	"UNIT[\"Meter\",1.0]]"

static struct west_grid g;
static struct west_field f;
static char err[WEST_ERRLEN];
static json_t *doc;

/* ============================================================ helpers */

/* The member at a '/'-separated path of keys and array indices; NULL when
 * any step is missing. */
static json_t *at(json_t *j, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof buf, "%s", path);
	for (char *t = strtok_r(buf, "/", &save); t && j; t = strtok_r(NULL, "/", &save))
		j = json_is_array(j) ? json_array_get(j, strtoul(t, NULL, 10)) :
				       json_object_get(j, t);
	return j;
}

/* The string at path, "" when missing or not a string. */
static const char *str_at(json_t *j, const char *path)
{
	const char *s = json_string_value(at(j, path));
	return s ? s : "";
}

static size_t len_at(json_t *j, const char *path)
{
	json_t *a = at(j, path);
	cr_assert(json_is_array(a), "%s is not an array", path);
	return json_array_size(a);
}

static double num_at(json_t *j, const char *path)
{
	json_t *v = at(j, path);
	cr_assert(json_is_number(v), "%s is not a number", path);
	return json_number_value(v);
}

/* err holds every one of the NULL-terminated words. */
static void assert_err_has(const char *first, ...)
{
	va_list ap;

	va_start(ap, first);
	for (const char *w = first; w; w = va_arg(ap, const char *))
		cr_assert(strstr(err, w), "message '%s' lacks '%s'", err, w);
	va_end(ap);
}

/* ============================================================ fixture */

static int land_cell(size_t i, size_t j, size_t k)
{
	if (i >= g.nx || j >= g.ny || k >= g.nz)
		return 0;
	return g.land[west_grid_cell(&g, i, j, k)];
}

/* Face (i, j, k) of component c (0 x, 1 y, 2 z) touches land or the ground. */
static int touches_land(int c, size_t i, size_t j, size_t k)
{
	size_t p[3] = { i, j, k };
	int hit = land_cell(i, j, k);

	if (c == 2 && k == 0)
		return 1;
	if (p[c] > 0) {
		p[c]--;
		hit |= land_cell(p[0], p[1], p[2]);
	}
	return hit;
}

/* Component c at its faces: a + b x + c y + d h, zero touching land. */
static void fill(void)
{
	static const double co[3][4] = {
		{ 2.0, 0.003, -0.002, 0.01 },
		{ -1.0, 0.001, 0.004, -0.005 },
		{ 0.3, -0.0005, 0.0002, 0.002 },
	};
	float *val[3] = { f.u, f.v, f.w };

	for (int c = 0; c < 3; c++) {
		size_t px = g.nx + (c == 0), py = g.ny + (c == 1), pz = g.nz + (c == 2);
		for (size_t k = 0; k < pz; k++)
			for (size_t j = 0; j < py; j++)
				for (size_t i = 0; i < px; i++) {
					double x = ((double)i + (c == 0 ? 0.0 : 0.5)) * g.dx;
					double y = ((double)j + (c == 1 ? 0.0 : 0.5)) * g.dy;
					double h = c == 2 ? g.zf[k] : 0.5 * (g.zf[k] + g.zf[k + 1]);
					val[c][i + px * (j + py * k)] = touches_land(c, i, j, k) ? 0.0f :
						(float)(co[c][0] + co[c][1] * x + co[c][2] * y + co[c][3] * h);
				}
	}
}

static void setup(void)
{
	fix_grid_staircase(&g, 23, 21, 100.0, 10, 10.0, 57.0, 300.0);
	cr_assert_eq(west_field_init(&f, &g, err, sizeof err), WEST_OK, "%s", err);
	fill();
	f.valid_time = VALID_TIME;
	cr_assert_float_eq(g.terrain[HILL_J * g.nx + HILL_I], 157.0f, 1e-4);
	cr_assert(g.land[west_grid_cell(&g, HILL_I, HILL_J, 5)]);
	cr_assert(!g.land[west_grid_cell(&g, HILL_I, HILL_J, 6)]);
}

static void teardown(void)
{
	json_decref(doc);
	doc = NULL;
	west_field_free(&f);
	west_grid_free(&g);
}

/* WGS 84 / UTM 33N on the grid. */
static void set_utm(const char *wkt)
{
	g.crs.has_tm = 1;
	g.crs.lon0 = 15.0, g.crs.lat0 = 0.0, g.crs.k0 = 0.9996;
	g.crs.false_easting = 500000.0, g.crs.false_northing = 0.0;
	snprintf(g.crs.grid_mapping_name, sizeof g.crs.grid_mapping_name,
		 "transverse_mercator");
	free(g.crs.wkt);
	g.crs.wkt = wkt ? strdup(wkt) : NULL;
	cr_assert(!wkt || g.crs.wkt);
}

TestSuite(parse);
TestSuite(edr, .init = setup, .fini = teardown);

/* ============================================================ coords POINT */

Test(parse, point_ok)
{
	double x = 0, y = 0;

	cr_assert_eq(west_edr_parse_point("POINT(500100 4650200.5)", &x, &y, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_eq(x, 500100.0);
	cr_assert_eq(y, 4650200.5);
	cr_assert_eq(west_edr_parse_point("  point (  1.5e3\t-2 )  ", &x, &y, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_eq(x, 1500.0);
	cr_assert_eq(y, -2.0);
}

static void point_fails(const char *s, const char *word)
{
	double x = 7, y = 8;

	err[0] = 0;
	cr_assert_eq(west_edr_parse_point(s, &x, &y, err, sizeof err), WEST_ERR_INVALID,
		     "'%s' was accepted", s ? s : "(null)");
	assert_err_has("coords", word, NULL);
	cr_assert_eq(x, 7.0);
	cr_assert_eq(y, 8.0);
}

Test(parse, point_refused)
{
	point_fails(NULL, "empty");
	point_fails("  ", "empty");
	point_fails("POINT(1)", "exactly two");
	point_fails("POINT(1 2 3)", "exactly two");
	point_fails("POINT(1,2)", "blanks");
	point_fails("POINT(nan 2)", "finite");
	point_fails("POINT(inf 2)", "finite");
	point_fails("POINT(1 0x10)", "finite");
	point_fails("POINT(1e999 2)", "finite");
	point_fails("POINT(1 2", "exactly two");
	point_fails("MULTIPOINT((1 2))", "MULTIPOINT");
	point_fails("POINT Z (1 2 3)", "POINT Z");
	point_fails("POINTZ(1 2 3)", "not a WKT POINT");
	point_fails("LINESTRING(1 2, 3 4)", "not a WKT POINT");
	point_fails("POINT(1 2) x", "after POINT");
}

Test(parse, message_quotes_safely)
{
	char long_bad[200];
	double x, y;

	memset(long_bad, 'A', sizeof long_bad - 1);
	long_bad[sizeof long_bad - 1] = 0;
	cr_assert_eq(west_edr_parse_point(long_bad, &x, &y, err, sizeof err), WEST_ERR_INVALID);
	cr_assert(strstr(err, "AAAA..."), "%s", err);
	cr_assert(strlen(err) < 160, "%s", err);
	cr_assert_eq(west_edr_parse_point("POINT(\x01\xff 2)", &x, &y, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_assert(strstr(err, "POINT(?? 2)"), "%s", err);
}

/* ============================================================ coords POLYGON */

Test(parse, polygon_ok)
{
	struct west_polygon p;

	cr_assert_eq(west_edr_parse_polygon("polygon (( 0 0, 10 0 ,10 10,0 10, 0 0 )) ", &p,
					    err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(p.n, 5);
	cr_assert_eq(p.x[2], 10.0);
	cr_assert_eq(p.y[3], 10.0);
	cr_assert_eq(p.x[4], 0.0);
	west_polygon_free(&p);
	cr_assert_eq(p.n, 0);
	cr_assert_null(p.x);
}

static void polygon_fails(const char *s, const char *word)
{
	struct west_polygon p = { 99, NULL, NULL };

	err[0] = 0;
	cr_assert_eq(west_edr_parse_polygon(s, &p, err, sizeof err), WEST_ERR_INVALID,
		     "'%.60s' was accepted", s ? s : "(null)");
	assert_err_has("coords", word, NULL);
	cr_assert_eq(p.n, 0);
	cr_assert_null(p.x);
	cr_assert_null(p.y);
}

Test(parse, polygon_refused)
{
	polygon_fails(NULL, "empty");
	polygon_fails("POLYGON((0 0, 1 0, 0 0))", "at least 4");
	polygon_fails("POLYGON((0 0, 1 0, 1 1, 0 1))", "not closed");
	polygon_fails("POLYGON((0 0, 4 0, 4 4, 0 0), (1 1, 2 1, 2 2, 1 1))", "holes");
	polygon_fails("MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)))", "MULTIPOLYGON");
	polygon_fails("POLYGON Z ((0 0 1, 1 0 1, 1 1 1, 0 0 1))", "POLYGON Z");
	polygon_fails("POLYGON((0 0 1, 1 0 1, 1 1 1, 0 0 1))", "vertex 1");
	polygon_fails("POLYGON((0 0, 1 nan, 1 1, 0 0))", "vertex 2");
	polygon_fails("POLYGON((0 0, 1 0, 1 1, 0 0)) extra", "nothing after");
	polygon_fails("POLYGON((0 0, 1 0, 1 1, 0 0)", "closing");
	polygon_fails("POLYGON(0 0, 1 0, 1 1, 0 0)", "not a WKT POLYGON");
}

Test(parse, polygon_vertex_cap)
{
	size_t n = WEST_EDR_MAX_VERTICES + 1, size = 32 + n * 12;
	char *s = malloc(size), *q = s;
	struct west_polygon p;

	cr_assert_not_null(s);
	q += sprintf(q, "POLYGON((");
	for (size_t i = 0; i + 1 < n; i++)
		q += sprintf(q, "%zu %zu,", i % 100, i / 100);
	sprintf(q, "0 0))");
	cr_assert_eq(west_edr_parse_polygon(s, &p, err, sizeof err), WEST_ERR_INVALID);
	assert_err_has("coords", "10000", NULL);
	cr_assert_null(p.x);
	/* exactly the cap is accepted */
	q = s + sprintf(s, "POLYGON((0 0,");
	for (size_t i = 1; i + 1 < WEST_EDR_MAX_VERTICES; i++)
		q += sprintf(q, "%zu 1,", i);
	sprintf(q, "0 0))");
	cr_assert_eq(west_edr_parse_polygon(s, &p, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(p.n, WEST_EDR_MAX_VERTICES);
	west_polygon_free(&p);
	free(s);
}

Test(parse, polygon_contains)
{
	struct west_polygon p;

	/* an L: the square 0..4 without its upper right quarter 2..4 x 2..4 */
	cr_assert_eq(west_edr_parse_polygon("POLYGON((0 0, 4 0, 4 2, 2 2, 2 4, 0 4, 0 0))",
					    &p, err, sizeof err), WEST_OK, "%s", err);
	cr_assert(west_polygon_contains(&p, 1, 1));
	cr_assert(west_polygon_contains(&p, 3, 1));
	cr_assert(west_polygon_contains(&p, 1, 3));
	cr_assert_not(west_polygon_contains(&p, 3, 3));
	cr_assert_not(west_polygon_contains(&p, -1, 1));
	cr_assert_not(west_polygon_contains(&p, 1, 5));
	cr_assert_not(west_polygon_contains(&p, 5, 1));
	west_polygon_free(&p);
}

/* ============================================================ bbox */

Test(parse, bbox_ok)
{
	double b[4] = { 0 };

	cr_assert_eq(west_edr_parse_bbox(" 1, 2 ,3.5,4e1 ", b, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(b[0], 1.0);
	cr_assert_eq(b[1], 2.0);
	cr_assert_eq(b[2], 3.5);
	cr_assert_eq(b[3], 40.0);
}

static void bbox_fails(const char *s, const char *word)
{
	double b[4] = { 9, 9, 9, 9 };

	err[0] = 0;
	cr_assert_eq(west_edr_parse_bbox(s, b, err, sizeof err), WEST_ERR_INVALID,
		     "'%s' was accepted", s ? s : "(null)");
	assert_err_has("bbox", word, NULL);
	cr_assert_eq(b[0], 9.0);
	cr_assert_eq(b[3], 9.0);
}

Test(parse, bbox_refused)
{
	bbox_fails(NULL, "empty");
	bbox_fails("1,2,3", "exactly 4");
	bbox_fails("1,2,3,4,5", "more than 4");
	bbox_fails("1,2,0,3,4,5", "more than 4");
	bbox_fails("3,2,1,4", "minx 3 is not less than maxx 1");
	bbox_fails("1,4,3,4", "miny 4 is not less than maxy 4");
	bbox_fails("1,nan,3,4", "miny is not a finite number");
	bbox_fails("1 2 3 4", "exactly 4");
	bbox_fails("1,2,3,4 x", "exactly 4");
}

/* ============================================================ z */

Test(parse, z_forms)
{
	double z[8];
	size_t n = 0;

	cr_assert_eq(west_edr_parse_z("10", z, 8, &n, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(n, 1);
	cr_assert_eq(z[0], 10.0);
	cr_assert_eq(west_edr_parse_z(" 10, 20 ,50", z, 8, &n, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(n, 3);
	cr_assert_eq(z[2], 50.0);
	cr_assert_eq(west_edr_parse_z("R4/100/-25.5", z, 8, &n, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(n, 4);
	cr_assert_eq(z[0], 100.0);
	cr_assert_eq(z[3], 100.0 - 3 * 25.5);
	cr_assert_eq(west_edr_parse_z("r8/0/5", z, 8, &n, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(n, 8);
	cr_assert_eq(z[7], 35.0);
}

static void z_fails(const char *s, size_t max, const char *word)
{
	double z[16];
	size_t n = 77;

	err[0] = 0;
	cr_assert_eq(west_edr_parse_z(s, z, max, &n, err, sizeof err), WEST_ERR_INVALID,
		     "'%s' was accepted", s ? s : "(null)");
	assert_err_has("z", word, NULL);
	cr_assert_eq(n, 77);
}

Test(parse, z_refused)
{
	z_fails(NULL, 16, "empty");
	z_fails("", 16, "empty");
	z_fails("1,2,3,4,5", 4, "more than 4 levels");
	z_fails("R5/0/10", 4, "give 1 to 4");
	z_fails("R0/0/10", 4, "give 1 to 4");
	z_fails("10/20", 16, "intervals");
	z_fails("10,30,20", 16, "strictly");
	z_fails("10,10", 16, "repeats");
	z_fails("R3/5/0", 16, "repeats");
	z_fails("10,nan", 16, "value 2 is not a finite number");
	z_fails("Rx/1/2", 16, "number of levels");
	z_fails("R3/1", 16, "Rn/start/step");
	z_fails("10 20", 16, "comma list");
}

/* ============================================================ parameter-name */

Test(parse, parameters)
{
	unsigned m = 0;

	cr_assert_eq(west_edr_parse_parameters(NULL, &m, err, sizeof err), WEST_OK);
	cr_assert_eq(m, WEST_EDR_U | WEST_EDR_V | WEST_EDR_W);
	m = 0;
	cr_assert_eq(west_edr_parse_parameters("", &m, err, sizeof err), WEST_OK);
	cr_assert_eq(m, WEST_EDR_DEFAULT);
	cr_assert_eq(west_edr_parse_parameters("speed,direction", &m, err, sizeof err), WEST_OK);
	cr_assert_eq(m, WEST_EDR_SPEED | WEST_EDR_DIRECTION);
	cr_assert_eq(west_edr_parse_parameters(" w , u,w", &m, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(m, WEST_EDR_U | WEST_EDR_W);
	cr_assert_eq(west_edr_parse_parameters("u,v,w,speed,direction", &m, err, sizeof err), WEST_OK);
	cr_assert_eq(m, WEST_EDR_ALL);
}

static void parameters_fail(const char *s, const char *word)
{
	unsigned m = 1234;

	err[0] = 0;
	cr_assert_eq(west_edr_parse_parameters(s, &m, err, sizeof err), WEST_ERR_INVALID,
		     "'%s' was accepted", s);
	assert_err_has("parameter-name", word, "u, v, w, speed, direction", NULL);
	cr_assert_eq(m, 1234);
}

Test(parse, parameters_refused)
{
	parameters_fail("temperature", "'temperature' is unknown");
	parameters_fail("u,Speed", "'Speed' is unknown");
	parameters_fail("u,,v", "empty name");
	parameters_fail("u,", "empty name");
	parameters_fail(" ", "empty name");
	parameters_fail("uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu", "uuu...' is unknown");
}

/* ============================================================ datetime */

/* covers(s) at VALID_TIME: 1 or 0, asserted to parse. */
static int covers(const char *s)
{
	int c = -1;

	cr_assert_eq(west_edr_datetime_covers(s, VALID_TIME, &c, err, sizeof err), WEST_OK,
		     "'%s' refused: %s", s, err);
	cr_assert(c == 0 || c == 1);
	return c;
}

Test(parse, datetime_instants_and_intervals)
{
	cr_assert(covers(VALID_ISO));
	cr_assert(covers("2026-11-23T13:00:00+01:00"), "an offset is converted to UTC");
	cr_assert(covers("2026-11-23T12:00:00.750Z"), "fractions of a second are dropped");
	cr_assert(!covers("2026-11-23T12:00:01Z"));
	cr_assert(!covers("2020-01-01T00:00:00Z"));
	cr_assert(covers("2026-11-23T00:00:00Z/2026-11-24T00:00:00Z"));
	cr_assert(covers(VALID_ISO "/" VALID_ISO), "an interval includes its ends");
	cr_assert(!covers("2026-11-24T00:00:00Z/2026-11-25T00:00:00Z"));
	cr_assert(covers("../" VALID_ISO));
	cr_assert(covers(VALID_ISO "/.."));
	cr_assert(covers("2026-11-23T00:00:00Z/"), "an empty end is open");
	cr_assert(!covers("2026-11-23T12:00:01Z/.."));
	cr_assert(!covers("../2026-11-23T11:59:59Z"));
	cr_assert(covers("2020-01-01T00:00:00Z," VALID_ISO), "one of a list is enough");
	cr_assert(!covers("2020-01-01T00:00:00Z,2020-01-02T00:00:00Z/2020-01-03T00:00:00Z"));
}

static void datetime_fail(const char *s, const char *word)
{
	int c = 7;

	err[0] = 0;
	cr_assert_eq(west_edr_datetime_covers(s, VALID_TIME, &c, err, sizeof err),
		     WEST_ERR_INVALID, "'%s' was accepted", s);
	assert_err_has("datetime", word, NULL);
	cr_assert_eq(c, 7, "*covers set on a refusal");
}

Test(parse, datetime_refused)
{
	datetime_fail("", "empty");
	datetime_fail("yesterday", "'yesterday' is not an instant");
	datetime_fail("2026-11-23", "not an instant");
	datetime_fail("2026-11-23T12:00:00", "not an instant");
	datetime_fail("..", "not an instant");
	datetime_fail(VALID_ISO ",", "not an instant");
	datetime_fail(VALID_ISO "/" VALID_ISO "/" VALID_ISO, "not an instant");
	datetime_fail("2026-11-24T00:00:00Z/2026-11-23T00:00:00Z", "ends before it starts");
}

/* ============================================================ crs */

#define CRS84 "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
#define EPSG32633 "http://www.opengis.net/def/crs/EPSG/0/32633"

static enum west_edr_crs crs_of(const char *s)
{
	enum west_edr_crs c = 0;

	cr_assert_eq(west_edr_parse_crs(&g.crs, s, &c, err, sizeof err), WEST_OK,
		     "crs %s: %s", s ? s : "(none)", err);
	return c;
}

/* CRS84 by default and when named; the grid's own CRS by its identifier
 * (an ESRI .prj of UTM 33N on WGS 84 is EPSG 32633) or EPSG:n; nothing
 * else. */
Test(parse, crs_crs84_or_the_grids)
{
	enum west_edr_crs c;

	set_utm(UTM33_WKT);
	cr_assert_eq(crs_of(NULL), WEST_EDR_CRS84);
	cr_assert_eq(crs_of("CRS84"), WEST_EDR_CRS84);
	cr_assert_eq(crs_of("OGC:CRS84"), WEST_EDR_CRS84);
	cr_assert_eq(crs_of(CRS84), WEST_EDR_CRS84);
	cr_assert_eq(crs_of(EPSG32633), WEST_EDR_NATIVE);
	cr_assert_eq(crs_of("EPSG:32633"), WEST_EDR_NATIVE);
	cr_assert_eq(crs_of("epsg:32633"), WEST_EDR_NATIVE);
	cr_assert_eq(west_edr_parse_crs(&g.crs, "EPSG:4326", &c, err, sizeof err),
		     WEST_ERR_INVALID);
	assert_err_has("crs 'EPSG:4326' is not supported", "crs=CRS84",
		       "crs=" EPSG32633, "crs=EPSG:32633", NULL);
	cr_assert_eq(west_edr_parse_crs(&g.crs, "WGS_1984_UTM_Zone_33N", &c, err, sizeof err),
		     WEST_ERR_INVALID, "the EPSG URI is the identifier now");
	/* no WKT: the grid mapping's name, no EPSG code */
	set_utm(NULL);
	cr_assert_eq(crs_of("transverse_mercator"), WEST_EDR_NATIVE);
	cr_assert_eq(west_edr_parse_crs(&g.crs, "EPSG:32633", &c, err, sizeof err),
		     WEST_ERR_INVALID);
	/* no transverse Mercator: the grid's CRS only, and by default */
	g.crs.has_tm = 0;
	cr_assert_eq(crs_of(NULL), WEST_EDR_NATIVE);
	cr_assert_eq(west_edr_parse_crs(&g.crs, "CRS84", &c, err, sizeof err),
		     WEST_ERR_INVALID);
	assert_err_has("crs 'CRS84' is not supported here", "crs=transverse_mercator", NULL);
}

/* A CRS84 box on the grid: the ring's vertices lie on the box's edges in
 * degrees, WEST_EDR_DENSIFY pieces per edge, closed. */
Test(parse, crs84_box_to_grid)
{
	const double bb[4] = { 15.001, 42.001, 15.02, 42.015 };
	struct west_polygon p;
	double lon, lat;

	set_utm(UTM33_WKT);
	cr_assert_eq(west_edr_bbox_to_grid(&g, bb, &p, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(p.n, 4 * WEST_EDR_DENSIFY + 1);
	cr_assert_eq(p.x[0], p.x[p.n - 1]);
	cr_assert_eq(p.y[0], p.y[p.n - 1]);
	for (size_t i = 0; i < p.n; i++) {
		cr_assert_eq(west_tm_inverse(&g.crs, p.x[i], p.y[i], &lon, &lat, err, sizeof err),
			     WEST_OK);
		int on_lon = fabs(lon - bb[0]) < 1e-9 || fabs(lon - bb[2]) < 1e-9;
		int on_lat = fabs(lat - bb[1]) < 1e-9 || fabs(lat - bb[3]) < 1e-9;
		cr_assert(on_lon || on_lat, "vertex %zu (%.9f, %.9f) is off the box", i, lon, lat);
	}
	cr_assert(p.x[WEST_EDR_DENSIFY] > p.x[0], "the second corner is east of the first");
	west_polygon_free(&p);
	/* a vertex the projection refuses is named */
	const double far[4] = { 100.0, 42.0, 101.0, 43.0 };
	cr_assert_eq(west_edr_bbox_to_grid(&g, far, &p, err, sizeof err), WEST_ERR_INVALID);
	assert_err_has("bbox (CRS84): vertex 1 (lon 100, lat 42)", NULL);
	free(g.crs.wkt);
	g.crs.wkt = NULL;
}

/* ============================================================ documents */

/* The link of rel (the first) in array links; fails when there is none. */
static json_t *link_of(json_t *links, const char *rel)
{
	size_t i;
	json_t *l;

	json_array_foreach(links, i, l)
		if (!strcmp(str_at(l, "rel"), rel))
			return l;
	cr_assert_fail("no link with rel %s", rel);
	return NULL;
}

static void assert_link(json_t *links, const char *rel, const char *path, const char *type)
{
	json_t *l = link_of(links, rel);
	char want[256];

	snprintf(want, sizeof want, BASE "%s", path);
	cr_assert_str_eq(str_at(l, "href"), want);
	cr_assert_str_eq(str_at(l, "type"), type);
	cr_assert(strlen(str_at(l, "title")) > 0);
}

Test(parse, landing)
{
	json_t *d = west_edr_landing(BASE);
	json_t *links = at(d, "links");
	size_t i;
	json_t *l;

	cr_assert_not_null(d);
	cr_assert(strlen(str_at(d, "title")) > 0);
	cr_assert(strlen(str_at(d, "description")) > 0);
	assert_link(links, "self", "/", "application/json");
	assert_link(links, "conformance", "/conformance", "application/json");
	assert_link(links, "data", "/collections", "application/json");
	assert_link(links, "status", "/v1/status", "application/json");
	assert_link(links, "alternate", "/ui/", "text/html");
	/* the API description (GET /api; test_westd.c follows them) */
	assert_link(links, "service-desc", "/api",
		    "application/vnd.oai.openapi+json;version=3.0");
	assert_link(links, "service-doc", "/api?f=html", "text/html");
	json_array_foreach(links, i, l)   /* each rel once */
		cr_assert_eq(link_of(links, str_at(l, "rel")), l, "rel %s twice",
			     str_at(l, "rel"));
	json_decref(d);
}

Test(parse, conformance)
{
	static const char *const want[] = {
		"http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/core",
		"http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/oas30",
		"http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/core",
		"http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/collections",
		"http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/covjson",
		"http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/queries",
		"http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/oas30",
	};
	json_t *d = west_edr_conformance();

	cr_assert_not_null(d);
	for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
		int found = 0;
		for (size_t i = 0; i < len_at(d, "conformsTo"); i++)
			found |= !strcmp(json_string_value(json_array_get(at(d, "conformsTo"), i)), want[w]);
		cr_assert(found, "%s missing", want[w]);
	}
	json_decref(d);
}

static void assert_data_query(const char *type)
{
	char path[128], want[192];

	snprintf(path, sizeof path, "data_queries/%s/link", type);
	json_t *l = at(doc, path);
	snprintf(want, sizeof want, BASE "/collections/wind/%s", type);
	cr_assert_str_eq(str_at(l, "href"), want);
	cr_assert_str_eq(str_at(l, "rel"), "data");
	cr_assert_str_eq(str_at(l, "variables/query_type"), type);
	cr_assert_str_eq(str_at(l, "variables/output_formats/0"), "CoverageJSON");
	cr_assert_str_eq(str_at(l, "variables/default_output_format"), "CoverageJSON");
	cr_assert_str_eq(str_at(l, "variables/crs_details/0/crs"), CRS84);
	cr_assert(strstr(str_at(l, "variables/crs_details/0/wkt"), "CRS84"));
	cr_assert_str_eq(str_at(l, "variables/crs_details/1/crs"), EPSG32633);
	cr_assert_str_eq(str_at(l, "variables/crs_details/1/wkt"), UTM33_WKT);
	/* the collection's links list the query too */
	size_t i;
	json_t *k;
	int found = 0;
	json_array_foreach(at(doc, "links"), i, k)
		found |= !strcmp(str_at(k, "href"), want) && !strcmp(str_at(k, "rel"), "data");
	cr_assert(found, "links lack %s", want);
}

static void assert_parameter(json_t *p, const char *name, const char *cf, const char *unit)
{
	char want[128];

	cr_assert_not_null(p, "parameter %s missing", name);
	snprintf(want, sizeof want, "http://vocab.nerc.ac.uk/standard_name/%s/", cf);
	cr_assert_str_eq(str_at(p, "type"), "Parameter");
	cr_assert_str_eq(str_at(p, "observedProperty/id"), want);
	cr_assert(strlen(str_at(p, "observedProperty/label/en")) > 0);
	cr_assert(strlen(str_at(p, "description/en")) > 0);
	cr_assert_str_eq(str_at(p, "unit/symbol/value"), unit);
	cr_assert_str_eq(str_at(p, "unit/symbol/type"), "http://www.opengis.net/def/uom/UCUM/");
}

static void assert_parameters(json_t *params)
{
	assert_parameter(at(params, "u"), "u", "eastward_wind", "m/s");
	assert_parameter(at(params, "v"), "v", "northward_wind", "m/s");
	assert_parameter(at(params, "w"), "w", "upward_air_velocity", "m/s");
	assert_parameter(at(params, "speed"), "speed", "wind_speed", "m/s");
	assert_parameter(at(params, "direction"), "direction", "wind_from_direction", "deg");
}

Test(edr, collection_utm)
{
	double lon, lat, top = g.base + g.zf[g.nz] - g.terrain_min;
	char want[32];

	set_utm(UTM33_WKT);
	doc = west_edr_collection(BASE, &g, &f);
	cr_assert_not_null(doc);
	cr_assert_str_eq(str_at(doc, "id"), "wind");
	cr_assert(strlen(str_at(doc, "title")) > 0);
	assert_link(at(doc, "links"), "self", "/collections/wind", "application/json");
	assert_data_query("position");
	assert_data_query("area");
	assert_data_query("cube");
	cr_assert_str_eq(str_at(doc, "data_queries/cube/link/variables/height_units/0"), "m");
	cr_assert_str_eq(str_at(doc, "crs/0"), CRS84);
	cr_assert_str_eq(str_at(doc, "crs/1"), EPSG32633);
	cr_assert_eq(len_at(doc, "crs"), 2);
	cr_assert_str_eq(str_at(doc, "output_formats/0"), "CoverageJSON");
	assert_parameters(at(doc, "parameter_names"));

	/* CRS84 box: holds every corner and the centre, and is tight */
	cr_assert_str_eq(str_at(doc, "extent/spatial/crs"), "http://www.opengis.net/def/crs/OGC/1.3/CRS84");
	for (int c = 0; c < 5; c++) {
		double x = g.x0 + (c == 4 ? 0.5 : c & 1) * g.nx * g.dx;
		double y = g.y0 + (c == 4 ? 0.5 : c >> 1) * g.ny * g.dy;
		cr_assert_eq(west_tm_inverse(&g.crs, x, y, &lon, &lat, err, sizeof err), WEST_OK);
		cr_assert(lon >= num_at(doc, "extent/spatial/bbox/0/0") && lon <= num_at(doc, "extent/spatial/bbox/0/2"));
		cr_assert(lat >= num_at(doc, "extent/spatial/bbox/0/1") && lat <= num_at(doc, "extent/spatial/bbox/0/3"));
	}
	cr_assert_float_eq(num_at(doc, "extent/spatial/bbox/0/0"), 15.0, 1e-9);
	cr_assert(num_at(doc, "extent/spatial/bbox/0/2") - 15.0 < 0.05);
	cr_assert(num_at(doc, "extent/spatial/bbox/0/3") - num_at(doc, "extent/spatial/bbox/0/1") < 0.05);

	/* native box, vertical and temporal extents */
	cr_assert_eq(num_at(doc, "extent/spatial_native/bbox/0/0"), g.x0);
	cr_assert_eq(num_at(doc, "extent/spatial_native/bbox/0/3"), g.y0 + g.ny * g.dy);
	cr_assert_str_eq(str_at(doc, "extent/spatial_native/crs"), UTM33_WKT);
	snprintf(want, sizeof want, "%.10g", top);
	cr_assert_str_eq(str_at(doc, "extent/vertical/interval/0/0"), "0");
	cr_assert_str_eq(str_at(doc, "extent/vertical/interval/0/1"), want);
	cr_assert_str_eq(str_at(doc, "extent/temporal/interval/0/0"), VALID_ISO);
	cr_assert_str_eq(str_at(doc, "extent/temporal/interval/0/1"), VALID_ISO);
}

/* The central meridian crosses the domain: the north edge's latitude
 * peaks there, between the corners; the CRS84 box must hold it. */
Test(edr, collection_utm_meridian_inside)
{
	double lon, lat, ytop = g.y0 + g.ny * g.dy;

	set_utm(UTM33_WKT);
	g.crs.false_easting = g.x0 + 1100.0;
	doc = west_edr_collection(BASE, &g, &f);
	cr_assert_not_null(doc);
	for (double x = g.x0; x <= g.x0 + g.nx * g.dx; x += 50.0) {
		cr_assert_eq(west_tm_inverse(&g.crs, x, ytop, &lon, &lat, err, sizeof err), WEST_OK);
		cr_assert(lat <= num_at(doc, "extent/spatial/bbox/0/3"), "x %g: lat %.12g above the box", x, lat);
		cr_assert(lon >= num_at(doc, "extent/spatial/bbox/0/0") && lon <= num_at(doc, "extent/spatial/bbox/0/2"));
	}
	cr_assert_eq(west_tm_inverse(&g.crs, g.crs.false_easting, ytop, &lon, &lat, err, sizeof err), WEST_OK);
	cr_assert_eq(num_at(doc, "extent/spatial/bbox/0/3"), lat, "the peak is the box's top");
}

Test(edr, collection_without_field_or_crs)
{
	doc = west_edr_collection(BASE, &g, NULL);
	cr_assert_not_null(doc);
	cr_assert_null(at(doc, "extent/temporal"));
	cr_assert_eq(num_at(doc, "extent/spatial/bbox/0/0"), g.x0);
	cr_assert_eq(num_at(doc, "extent/spatial/bbox/0/2"), g.x0 + g.nx * g.dx);
	cr_assert(strstr(str_at(doc, "extent/spatial/crs"), "no WKT"));
	cr_assert_str_eq(str_at(doc, "crs/0"), "native");
	cr_assert_str_eq(str_at(doc, "data_queries/position/link/variables/crs_details/0/crs"),
			 "native");
	cr_assert_eq(len_at(doc, "data_queries/position/link/variables/crs_details"), 1);
	cr_assert_eq(len_at(doc, "crs"), 1, "no CRS84 without a transverse Mercator");
	assert_parameters(at(doc, "parameter_names"));
}

Test(edr, collection_crs_ids)
{
	set_utm("PROJCS[\"WGS 84 / UTM zone 33N\",UNIT[\"metre\",1,AUTHORITY[\"EPSG\",\"9001\"]],"
		"AUTHORITY[\"EPSG\",\"32633\"]]");
	doc = west_edr_collection(BASE, &g, &f);
	cr_assert_str_eq(str_at(doc, "crs/1"), "http://www.opengis.net/def/crs/EPSG/0/32633");
	json_decref(doc);
	/* an EPSG authority that is not the top level's names nothing */
	set_utm("PROJCS[\"My grid\",UNIT[\"metre\",1,AUTHORITY[\"EPSG\",\"9001\"]],AXIS[\"E\",EAST]]");
	doc = west_edr_collection(BASE, &g, &f);
	cr_assert_str_eq(str_at(doc, "crs/1"), "My grid");
	json_decref(doc);
	set_utm("PROJCRS[\"WGS 84 / UTM zone 33N\",USAGE[ID[\"EPSG\",1]],ID[\"EPSG\",32633]] ");
	doc = west_edr_collection(BASE, &g, &f);
	cr_assert_str_eq(str_at(doc, "crs/1"), "http://www.opengis.net/def/crs/EPSG/0/32633");
	json_decref(doc);
	/* UTM recognised from an ESRI .prj only on WGS 84: NAD83 / UTM 33N has
	 * another code (and no ESRI name for it is recognised) */
	set_utm("PROJCS[\"NAD_1983_UTM_Zone_33N\",GEOGCS[\"GCS_North_American_1983\","
		"DATUM[\"D_North_American_1983\",SPHEROID[\"GRS_1980\",6378137.0,298.257222101]]],"
		"PROJECTION[\"Transverse_Mercator\"],UNIT[\"Meter\",1.0]]");
	doc = west_edr_collection(BASE, &g, &f);
	cr_assert_str_eq(str_at(doc, "crs/1"), "NAD_1983_UTM_Zone_33N");
}

Test(edr, collection_not_utf8)
{
	char *s;

	set_utm("PROJCS[\"Gau\xdf-Kr\xfcger\",UNIT[\"Meter\",1.0]]");
	doc = west_edr_collection(BASE, &g, &f);
	cr_assert_not_null(doc);
	s = json_dumps(doc, JSON_REAL_PRECISION(9));
	cr_assert_not_null(s);
	cr_assert(strstr(s, "Gau?-Kr?ger"));
	free(s);
}

Test(edr, collections)
{
	doc = west_edr_collections(BASE, &g, &f);
	cr_assert_not_null(doc);
	assert_link(at(doc, "links"), "self", "/collections", "application/json");
	cr_assert_eq(len_at(doc, "collections"), 1);
	cr_assert_str_eq(str_at(doc, "collections/0/id"), "wind");
}

/* ============================================================ CoverageJSON */

/* The value i of parameter name's range equals q's (fails == 1: null). */
static void assert_value(json_t *cov, const char *name, size_t i,
			 const struct west_point *q, int fails)
{
	char path[64];
	json_t *v;
	float want = 0;

	snprintf(path, sizeof path, "ranges/%s/values/%zu", name, i);
	v = at(cov, path);
	cr_assert_not_null(v, "%s missing", path);
	if (fails) {
		cr_assert(json_is_null(v), "%s: not null where the query fails", path);
		return;
	}
	if (!strcmp(name, "u")) want = q->u;
	if (!strcmp(name, "v")) want = q->v;
	if (!strcmp(name, "w")) want = q->w;
	if (!strcmp(name, "speed")) want = q->speed;
	if (!strcmp(name, "direction")) want = q->direction;
	cr_assert(json_is_real(v), "%s: not a number", path);
	cr_assert_eq((float)json_real_value(v), want, "%s: %.9g, query %.9g", path,
		     json_real_value(v), (double)want);
}

static void assert_referencing(json_t *cov, const char *zname)
{
	cr_assert_eq(len_at(cov, "domain/referencing"), 3);
	cr_assert_str_eq(str_at(cov, "domain/referencing/0/coordinates/0"), "x");
	cr_assert_str_eq(str_at(cov, "domain/referencing/0/coordinates/1"), "y");
	cr_assert_str_eq(str_at(cov, "domain/referencing/0/system/type"), "ProjectedCRS");
	cr_assert_str_eq(str_at(cov, "domain/referencing/1/coordinates/0"), "z");
	cr_assert_str_eq(str_at(cov, "domain/referencing/1/system/type"), "VerticalCRS");
	cr_assert_str_eq(str_at(cov, "domain/referencing/1/system/cs/csAxes/0/name/en"), zname);
	cr_assert_str_eq(str_at(cov, "domain/referencing/1/system/cs/csAxes/0/unit/symbol"), "m");
	cr_assert_str_eq(str_at(cov, "domain/referencing/2/system/type"), "TemporalRS");
	cr_assert_str_eq(str_at(cov, "domain/referencing/2/system/calendar"), "Gregorian");
	cr_assert_str_eq(str_at(cov, "domain/axes/t/values/0"), VALID_ISO);
	cr_assert_eq(len_at(cov, "domain/axes/t/values"), 1);
}

/* Grid-local x, y to CRS. */
static double X(double x) { return g.x0 + x; }
static double Y(double y) { return g.y0 + y; }

static const char *const NAMES[] = { "u", "v", "w", "speed", "direction" };

/* The range of name is an NdArray of floats; ndim 0: no shape or axes. */
static void assert_ndarray(json_t *cov, const char *name, const char *const *axes,
			   const size_t *shape, int ndim)
{
	char path[64];
	json_t *r;
	size_t count = 1;

	snprintf(path, sizeof path, "ranges/%s", name);
	r = at(cov, path);
	cr_assert_not_null(r, "%s missing", path);
	cr_assert_str_eq(str_at(r, "type"), "NdArray");
	cr_assert_str_eq(str_at(r, "dataType"), "float");
	if (ndim == 0) {
		cr_assert_null(at(r, "shape"));
		cr_assert_null(at(r, "axisNames"));
	} else {
		cr_assert_eq(len_at(r, "shape"), (size_t)ndim);
		cr_assert_eq(len_at(r, "axisNames"), (size_t)ndim);
	}
	for (int d = 0; d < ndim; d++) {
		char a[32];
		snprintf(a, sizeof a, "axisNames/%d", d);
		cr_assert_str_eq(str_at(r, a), axes[d]);
		snprintf(a, sizeof a, "shape/%d", d);
		cr_assert_eq((size_t)json_integer_value(at(r, a)), shape[d]);
		count *= shape[d];
	}
	cr_assert_eq(len_at(r, "values"), count, "%s: %zu values, shape says %zu",
		     name, len_at(r, "values"), count);
}

Test(edr, position_point)
{
	struct west_point q;
	double z = 25.0, x = X(730.0), y = Y(1215.0);

	cr_assert_eq(west_covjson_position(&g, &f, x, y, &z, 1, WEST_ZREF_AGL, WEST_EDR_ALL,
					   &doc, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_query_point(&g, &f, x, y, z, WEST_ZREF_AGL, &q, err, sizeof err), WEST_OK);
	cr_assert_str_eq(str_at(doc, "type"), "Coverage");
	cr_assert_str_eq(str_at(doc, "domain/type"), "Domain");
	cr_assert_str_eq(str_at(doc, "domain/domainType"), "Point");
	cr_assert_eq(num_at(doc, "domain/axes/x/values/0"), x);
	cr_assert_eq(num_at(doc, "domain/axes/y/values/0"), y);
	cr_assert_eq(num_at(doc, "domain/axes/z/values/0"), z);
	cr_assert_eq(len_at(doc, "domain/axes/x/values"), 1);
	cr_assert_eq(len_at(doc, "domain/axes/z/values"), 1);
	assert_referencing(doc, "height above ground");
	assert_parameters(at(doc, "parameters"));
	for (int i = 0; i < 5; i++) {
		assert_ndarray(doc, NAMES[i], NULL, NULL, 0);
		assert_value(doc, NAMES[i], 0, &q, 0);
	}
	cr_assert(q.speed > 0.1f, "the field is not calm here");
	cr_assert_str_eq(str_at(doc, "parameterGroups/0/type"), "ParameterGroup");
	cr_assert_str_eq(str_at(doc, "parameterGroups/0/members/0"), "u");
	cr_assert_str_eq(str_at(doc, "parameterGroups/0/members/1"), "v");
	cr_assert_eq(len_at(doc, "parameterGroups/0/members"), 2);
	cr_assert(strlen(str_at(doc, "parameterGroups/0/observedProperty/label/en")) > 0);
}

/* A position in CRS84: the same values as at its grid point, answered
 * at its longitude and latitude in a GeographicCRS; outside the domain in
 * degrees, with the swap suggested. */
Test(edr, position_lonlat)
{
	double lon, lat, z = 25.0, x = X(730.0), y = Y(1215.0);
	json_t *grid;

	set_utm(UTM33_WKT);
	cr_assert_eq(west_tm_inverse(&g.crs, x, y, &lon, &lat, err, sizeof err), WEST_OK);
	cr_assert_eq(west_covjson_position(&g, &f, x, y, &z, 1, WEST_ZREF_AGL, WEST_EDR_ALL,
					   &grid, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_covjson_position_lonlat(&g, &f, lon, lat, &z, 1, WEST_ZREF_AGL,
						  WEST_EDR_ALL, &doc, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_eq(num_at(doc, "domain/axes/x/values/0"), lon);
	cr_assert_eq(num_at(doc, "domain/axes/y/values/0"), lat);
	cr_assert_str_eq(str_at(doc, "domain/referencing/0/system/type"), "GeographicCRS");
	cr_assert_str_eq(str_at(doc, "domain/referencing/0/system/id"), CRS84);
	for (int i = 0; i < 5; i++) {
		char path[64];
		snprintf(path, sizeof path, "ranges/%s/values/0", NAMES[i]);
		cr_assert_float_eq(num_at(doc, path), num_at(grid, path), 1e-5, "%s", path);
	}
	json_decref(grid);
	json_decref(doc);
	doc = NULL;
	/* a profile too */
	cr_assert_eq(west_covjson_position_lonlat(&g, &f, lon, lat, NULL, 0, WEST_ZREF_AGL,
						  WEST_EDR_U, &doc, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_str_eq(str_at(doc, "domain/domainType"), "VerticalProfile");
	cr_assert_eq(num_at(doc, "domain/axes/x/values/0"), lon);
	json_decref(doc);
	doc = NULL;
	/* outside: degrees and the domain's box, the swap when it is inside */
	cr_assert_eq(west_covjson_position_lonlat(&g, &f, lat, lon, &z, 1, WEST_ZREF_AGL,
						  WEST_EDR_U, &doc, err, sizeof err),
		     WEST_ERR_INVALID);
	assert_err_has("coords: lon 42", "is outside the domain (lon 15.0", "WGS 84",
		       "is inside: were longitude and latitude given the wrong way round", NULL);
	cr_assert_eq(west_covjson_position_lonlat(&g, &f, 16.0, lat, &z, 1, WEST_ZREF_AGL,
						  WEST_EDR_U, &doc, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_assert(!strstr(err, "wrong way round"), "%s", err);
	/* no transverse Mercator: refused */
	g.crs.has_tm = 0;
	cr_assert_eq(west_covjson_position_lonlat(&g, &f, lon, lat, &z, 1, WEST_ZREF_AGL,
						  WEST_EDR_U, &doc, err, sizeof err),
		     WEST_ERR_INVALID);
	assert_err_has("no transverse Mercator", NULL);
	free(g.crs.wkt);
	g.crs.wkt = NULL;
}

Test(edr, position_point_msl_and_refusals)
{
	struct west_point q;
	char want[WEST_ERRLEN];
	double z = 160.0, xh = X((HILL_I + 0.5) * g.dx), yh = Y((HILL_J + 0.5) * g.dy);

	/* MSL, in the air above the hill top */
	z = 175.0;
	cr_assert_eq(west_covjson_position(&g, &f, xh, yh, &z, 1, WEST_ZREF_MSL, WEST_EDR_U,
					   &doc, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_query_point(&g, &f, xh, yh, z, WEST_ZREF_MSL, &q, err, sizeof err), WEST_OK);
	assert_value(doc, "u", 0, &q, 0);
	assert_referencing(doc, "altitude above mean sea level");
	cr_assert_null(at(doc, "ranges/v"));
	/* in the hill: the point query's own message */
	z = 130.0;
	cr_assert_eq(west_query_point(&g, &f, xh, yh, z, WEST_ZREF_MSL, &q, want, sizeof want),
		     WEST_ERR_INVALID);
	json_t *none = NULL;
	cr_assert_eq(west_covjson_position(&g, &f, xh, yh, &z, 1, WEST_ZREF_MSL, WEST_EDR_U,
					   &none, err, sizeof err), WEST_ERR_INVALID);
	cr_assert_str_eq(err, want);
	cr_assert_null(none);
	/* outside the domain, for every z form */
	for (size_t nz = 0; nz < 3; nz++) {
		double zs[2] = { 10, 20 };
		cr_assert_eq(west_covjson_position(&g, &f, X(-1.0), yh, zs, nz, WEST_ZREF_AGL,
						   WEST_EDR_U, &none, err, sizeof err), WEST_ERR_INVALID);
		assert_err_has("coords", "x", "outside the domain", NULL);
		cr_assert_eq(west_covjson_position(&g, &f, xh, Y(g.ny * g.dy + 0.5), zs, nz,
						   WEST_ZREF_AGL, WEST_EDR_U, &none, err, sizeof err),
			     WEST_ERR_INVALID);
		assert_err_has("coords", "y", "outside the domain", NULL);
	}
	cr_assert_null(none);
}

Test(edr, position_profile_levels)
{
	struct west_point pts[10];
	size_t n = 0;
	double xh = X((HILL_I + 0.5) * g.dx), yh = Y((HILL_J + 0.5) * g.dy);
	static const char *const ax[] = { "z" };

	cr_assert_eq(west_query_profile(&g, &f, xh, yh, pts, &n, err, sizeof err), WEST_OK);
	cr_assert_eq(n, 4, "levels 6..9 are in the air over the hill top");
	cr_assert_eq(west_covjson_position(&g, &f, xh, yh, NULL, 0, WEST_ZREF_AGL,
					   WEST_EDR_DEFAULT, &doc, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_str_eq(str_at(doc, "domain/domainType"), "VerticalProfile");
	cr_assert_eq(len_at(doc, "domain/axes/z/values"), n);
	for (size_t k = 0; k < n; k++) {
		char path[64];
		snprintf(path, sizeof path, "domain/axes/z/values/%zu", k);
		cr_assert_eq(num_at(doc, path), pts[k].z_agl);
		for (int i = 0; i < 3; i++)
			assert_value(doc, NAMES[i], k, &pts[k], 0);
	}
	cr_assert_float_eq(num_at(doc, "domain/axes/z/values/0"), 8.0, 1e-3);
	for (int i = 0; i < 3; i++)
		assert_ndarray(doc, NAMES[i], ax, &n, 1);
	cr_assert_null(at(doc, "ranges/speed"));
	json_decref(doc);
	/* MSL: the level centres' altitudes */
	cr_assert_eq(west_covjson_position(&g, &f, xh, yh, NULL, 0, WEST_ZREF_MSL,
					   WEST_EDR_DEFAULT, &doc, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(num_at(doc, "domain/axes/z/values/0"), pts[0].z_msl);
	cr_assert_float_eq(num_at(doc, "domain/axes/z/values/3"), 195.0, 1e-9);
}

Test(edr, position_profile_at_z)
{
	double z[] = { 120.0, 150.0, 160.0, 185.0, 250.0 };   /* MSL; ground 157 */
	double xh = X((HILL_I + 0.5) * g.dx), yh = Y((HILL_J + 0.5) * g.dy);
	size_t n = sizeof z / sizeof z[0], nulls = 0;
	static const char *const ax[] = { "z" };

	cr_assert_eq(west_covjson_position(&g, &f, xh, yh, z, n, WEST_ZREF_MSL, WEST_EDR_ALL,
					   &doc, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_str_eq(str_at(doc, "domain/domainType"), "VerticalProfile");
	cr_assert_eq(len_at(doc, "domain/axes/z/values"), n);
	for (size_t k = 0; k < n; k++) {
		struct west_point q;
		int fails = west_query_point(&g, &f, xh, yh, z[k], WEST_ZREF_MSL, &q, NULL, 0) != WEST_OK;
		nulls += fails;
		for (int i = 0; i < 5; i++)
			assert_value(doc, NAMES[i], k, &q, fails);
	}
	cr_assert_eq(nulls, 3, "below the ground (2) and above the top (1) are null");
	for (int i = 0; i < 5; i++)
		assert_ndarray(doc, NAMES[i], ax, &n, 1);
}

Test(edr, position_common_refusals)
{
	double z[] = { 10, 30, 20 }, bad = NAN, xh = X(500), yh = Y(500);
	json_t *none = NULL;

	cr_assert_eq(west_covjson_position(&g, &f, xh, yh, z, 3, WEST_ZREF_AGL, WEST_EDR_U,
					   &none, err, sizeof err), WEST_ERR_INVALID);
	assert_err_has("z", "strictly", NULL);
	cr_assert_eq(west_covjson_position(&g, &f, xh, yh, &bad, 1, WEST_ZREF_AGL, WEST_EDR_U,
					   &none, err, sizeof err), WEST_ERR_INVALID);
	assert_err_has("z", "finite", NULL);
	cr_assert_eq(west_covjson_position(&g, &f, xh, yh, z, 1, WEST_ZREF_AGL, 0,
					   &none, err, sizeof err), WEST_ERR_INVALID);
	assert_err_has("parameter-name", NULL);
	cr_assert_eq(west_covjson_position(&g, &f, xh, yh, z, 1, WEST_ZREF_AGL, 64,
					   &none, err, sizeof err), WEST_ERR_INVALID);
	assert_err_has("parameter-name", NULL);
	cr_assert_eq(west_covjson_position(&g, &f, xh, yh, z, 1, (enum west_zref)7, WEST_EDR_U,
					   &none, err, sizeof err), WEST_ERR_INVALID);
	assert_err_has("zref", NULL);
	cr_assert_null(none);
}

Test(edr, parameter_subsets)
{
	double z = 30.0, x = X(1000), y = Y(700);
	static const struct { unsigned mask; int group; } c[] = {
		{ WEST_EDR_SPEED | WEST_EDR_DIRECTION, 0 },
		{ WEST_EDR_U | WEST_EDR_W, 0 },
		{ WEST_EDR_V, 0 },
		{ WEST_EDR_U | WEST_EDR_V, 1 },
		{ WEST_EDR_U | WEST_EDR_V | WEST_EDR_SPEED, 1 },
	};

	for (size_t t = 0; t < sizeof c / sizeof c[0]; t++) {
		cr_assert_eq(west_covjson_position(&g, &f, x, y, &z, 1, WEST_ZREF_AGL, c[t].mask,
						   &doc, err, sizeof err), WEST_OK, "%s", err);
		for (int i = 0; i < 5; i++) {
			char path[64];
			int want = c[t].mask >> i & 1;
			snprintf(path, sizeof path, "ranges/%s", NAMES[i]);
			cr_assert_eq(at(doc, path) != NULL, want, "mask %#x: %s", c[t].mask, path);
			snprintf(path, sizeof path, "parameters/%s", NAMES[i]);
			cr_assert_eq(at(doc, path) != NULL, want, "mask %#x: %s", c[t].mask, path);
		}
		cr_assert_eq(at(doc, "parameterGroups") != NULL, c[t].group, "mask %#x", c[t].mask);
		json_decref(doc);
		doc = NULL;
	}
}

/* ---- cube and area -------------------------------------------------------- */

/* Checks the Grid answer in doc against point queries: axes from the
 * expected column range, shape == axis lengths == value count, each value
 * the query or null (null too outside poly).  Returns the nulls. */
static size_t check_grid(size_t i0, size_t ni, size_t j0, size_t nj, const double *z,
			 size_t nz, enum west_zref zref, unsigned mask,
			 const struct west_polygon *poly)
{
	static const char *const ax[] = { "z", "y", "x" };
	size_t shape[3] = { nz, nj, ni }, nulls = 0, o = 0;
	char path[64];

	cr_assert_str_eq(str_at(doc, "domain/domainType"), "Grid");
	cr_assert_eq(len_at(doc, "domain/axes/x/values"), ni);
	cr_assert_eq(len_at(doc, "domain/axes/y/values"), nj);
	cr_assert_eq(len_at(doc, "domain/axes/z/values"), nz);
	for (size_t i = 0; i < ni; i++) {
		snprintf(path, sizeof path, "domain/axes/x/values/%zu", i);
		cr_assert_eq(num_at(doc, path), g.x0 + ((double)(i0 + i) + 0.5) * g.dx);
	}
	for (size_t j = 0; j < nj; j++) {
		snprintf(path, sizeof path, "domain/axes/y/values/%zu", j);
		cr_assert_eq(num_at(doc, path), g.y0 + ((double)(j0 + j) + 0.5) * g.dy);
	}
	for (size_t k = 0; k < nz; k++) {
		snprintf(path, sizeof path, "domain/axes/z/values/%zu", k);
		cr_assert_eq(num_at(doc, path), z[k]);
	}
	for (int p = 0; p < 5; p++)
		if (mask >> p & 1)
			assert_ndarray(doc, NAMES[p], ax, shape, 3);
	for (size_t k = 0; k < nz; k++)
		for (size_t j = 0; j < nj; j++)
			for (size_t i = 0; i < ni; i++, o++) {
				struct west_point q;
				double x = g.x0 + ((double)(i0 + i) + 0.5) * g.dx;
				double y = g.y0 + ((double)(j0 + j) + 0.5) * g.dy;
				int fails = (poly && !west_polygon_contains(poly, x, y)) ||
					    west_query_point(&g, &f, x, y, z[k], zref, &q, NULL, 0);
				nulls += fails;
				for (int p = 0; p < 5; p++)
					if (mask >> p & 1)
						assert_value(doc, NAMES[p], o, &q, fails);
			}
	return nulls;
}

Test(edr, cube_msl)
{
	/* columns 8..14 x 7..13 around the hill; centres on the box's edges count */
	double bbox[4] = { X(850), Y(750), X(1450), Y(1350) };
	double z[] = { 125.0, 145.0, 190.0 };
	size_t nulls;

	cr_assert_eq(west_covjson_cube(&g, &f, bbox, NULL, z, 3, WEST_ZREF_MSL, WEST_EDR_ALL,
				       1000000, &doc, err, sizeof err), WEST_OK, "%s", err);
	nulls = check_grid(8, 7, 7, 7, z, 3, WEST_ZREF_MSL, WEST_EDR_ALL, NULL);
	cr_assert(nulls > 0 && nulls < 3 * 49, "%zu nulls: the hill holds some, not all", nulls);
	assert_referencing(doc, "altitude above mean sea level");
	cr_assert_not_null(at(doc, "parameterGroups"));
}

Test(edr, cube_default_levels)
{
	double bbox[4] = { X(1000), Y(900), X(1300), Y(1100) };   /* columns 10..12 x 9..10 */
	double zc[10], za[10];

	for (size_t k = 0; k < g.nz; k++) {
		zc[k] = 0.5 * (g.zf[k] + g.zf[k + 1]);
		za[k] = g.base + zc[k];
	}
	cr_assert_eq(west_covjson_cube(&g, &f, bbox, NULL, NULL, 0, WEST_ZREF_MSL,
				       WEST_EDR_DEFAULT, 1000000, &doc, err, sizeof err),
		     WEST_OK, "%s", err);
	check_grid(10, 3, 9, 2, za, g.nz, WEST_ZREF_MSL, WEST_EDR_DEFAULT, NULL);
	/* the hill's centre column (11, 10) is x index 1, y index 1: land
	 * up to level 5 is null */
	cr_assert(json_is_null(at(doc, "ranges/u/values/4")));           /* k 0 */
	cr_assert(json_is_null(at(doc, "ranges/w/values/34")));          /* k 5 */
	cr_assert(json_is_real(at(doc, "ranges/u/values/40")));          /* k 6 */
	json_decref(doc);
	cr_assert_eq(west_covjson_cube(&g, &f, bbox, NULL, NULL, 0, WEST_ZREF_AGL,
				       WEST_EDR_DEFAULT, 1000000, &doc, err, sizeof err),
		     WEST_OK, "%s", err);
	check_grid(10, 3, 9, 2, zc, g.nz, WEST_ZREF_AGL, WEST_EDR_DEFAULT, NULL);
	cr_assert(json_is_real(at(doc, "ranges/u/values/4")), "AGL 5 m is in the air");
}

Test(edr, cube_edges_and_single_values)
{
	/* one column exactly: its centre is both bbox edges' neighbour */
	double bbox[4] = { X(150), Y(1950), X(249.999), Y(2049) };
	double z = 40.0;

	cr_assert_eq(west_covjson_cube(&g, &f, bbox, NULL, &z, 1, WEST_ZREF_AGL, WEST_EDR_SPEED,
				       1000000, &doc, err, sizeof err), WEST_OK, "%s", err);
	check_grid(1, 1, 19, 1, &z, 1, WEST_ZREF_AGL, WEST_EDR_SPEED, NULL);
	cr_assert_null(at(doc, "parameterGroups"));
	json_decref(doc);
	/* the whole domain, edges included */
	double all[4] = { g.x0, g.y0, X(g.nx * g.dx), Y(g.ny * g.dy) };
	cr_assert_eq(west_covjson_cube(&g, &f, all, NULL, &z, 1, WEST_ZREF_AGL, WEST_EDR_U,
				       1000000, &doc, err, sizeof err), WEST_OK, "%s", err);
	check_grid(0, g.nx, 0, g.ny, &z, 1, WEST_ZREF_AGL, WEST_EDR_U, NULL);
}

/* Columns whose centres are inexact doubles (dx 0.3 m): a box whose edges
 * are two centres, as the answer's own axis gives them, holds exactly
 * those columns and the ones between, whatever the division rounds to. */
Test(edr, cube_inexact_centres)
{
	double z = 5.0, c[40];
	size_t checked = 0;

	west_field_free(&f);
	west_grid_free(&g);
	fix_grid(&g, 40, 3, 0.3, 3, 10.0, 0.0, 1.0);
	cr_assert_eq(west_field_init(&f, &g, err, sizeof err), WEST_OK, "%s", err);
	fill();
	for (size_t i = 0; i < 40; i++)
		c[i] = g.x0 + ((double)i + 0.5) * g.dx;
	for (size_t i0 = 0; i0 < 40; i0 += 3)
		for (size_t i1 = i0; i1 < 40; i1 += 2) {
			double bbox[4] = { c[i0], g.y0, c[i1], g.y0 + 0.2 };
			cr_assert_eq(west_covjson_cube(&g, &f, bbox, NULL, &z, 1, WEST_ZREF_AGL,
						       WEST_EDR_W, 1000000, &doc, err, sizeof err),
				     WEST_OK, "%s", err);
			cr_assert_eq(len_at(doc, "domain/axes/x/values"), i1 - i0 + 1,
				     "box %zu .. %zu", i0, i1);
			cr_assert_eq(num_at(doc, "domain/axes/x/values/0"), c[i0]);
			json_decref(doc);
			doc = NULL;
			checked++;
		}
	cr_assert(checked > 100);
}

Test(edr, cube_refusals)
{
	double z[] = { 10.0, 20.0 };
	double gap[4] = { X(101), Y(101), X(149), Y(149) };        /* between centres */
	double off[4] = { X(-500), Y(-500), X(-100), Y(-100) };
	double box[4] = { X(0), Y(0), X(500), Y(300) };            /* 5 x 3 columns */
	json_t *none = NULL;

	cr_assert_eq(west_covjson_cube(&g, &f, gap, NULL, z, 2, WEST_ZREF_AGL, WEST_EDR_U,
				       1000000, &none, err, sizeof err), WEST_ERR_INVALID);
	assert_err_has("bbox", "no column centre", NULL);
	cr_assert_eq(west_covjson_cube(&g, &f, off, NULL, z, 2, WEST_ZREF_AGL, WEST_EDR_U,
				       1000000, &none, err, sizeof err), WEST_ERR_INVALID);
	assert_err_has("bbox", "no column centre", NULL);
	/* 5 x 3 x 2 x 2 parameters = 60 */
	cr_assert_eq(west_covjson_cube(&g, &f, box, NULL, z, 2, WEST_ZREF_AGL,
				       WEST_EDR_U | WEST_EDR_V, 59, &none, err, sizeof err),
		     WEST_ERR_UNSUPPORTED);
	assert_err_has("60 cells", "max_response_cells = 59", NULL);
	cr_assert_null(none);
	cr_assert_eq(west_covjson_cube(&g, &f, box, NULL, z, 2, WEST_ZREF_AGL,
				       WEST_EDR_U | WEST_EDR_V, 60, &doc, err, sizeof err),
		     WEST_OK, "%s", err);
	check_grid(0, 5, 0, 3, z, 2, WEST_ZREF_AGL, WEST_EDR_U | WEST_EDR_V, NULL);
	/* the default levels count too */
	cr_assert_eq(west_covjson_cube(&g, &f, box, NULL, NULL, 0, WEST_ZREF_AGL, WEST_EDR_U,
				       149, &none, err, sizeof err), WEST_ERR_UNSUPPORTED);
	assert_err_has("150 cells", "max_response_cells = 149", NULL);
	cr_assert_null(none);
}

Test(edr, area_polygon)
{
	struct west_polygon p;
	double z[] = { 5.0, 30.0 };
	size_t nulls;

	/* a triangle over the hill; its bounding box 650 .. 1650 by 550 ..
	 * 1550 m holds the centres of columns 6..16 by 5..15 */
	cr_assert_eq(west_edr_parse_polygon("POLYGON((500650 4650550, 501650 4650550, "
					    "501150 4651550, 500650 4650550))", &p, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_eq(west_covjson_cube(&g, &f, NULL, &p, z, 2, WEST_ZREF_AGL, WEST_EDR_ALL,
				       1000000, &doc, err, sizeof err), WEST_OK, "%s", err);
	nulls = check_grid(6, 11, 5, 11, z, 2, WEST_ZREF_AGL, WEST_EDR_ALL, &p);
	cr_assert(nulls > 0 && nulls < 242, "%zu nulls", nulls);
	cr_assert(json_is_null(at(doc, "ranges/u/values/120")), "(16, 15) is outside the triangle");
	cr_assert(json_is_real(at(doc, "ranges/u/values/60")), "(11, 10) is inside, 5 m AGL");
	json_decref(doc);
	doc = NULL;
	/* the cap counts the polygon's bounding box */
	cr_assert_eq(west_covjson_cube(&g, &f, NULL, &p, z, 2, WEST_ZREF_AGL, WEST_EDR_U,
				       241, &doc, err, sizeof err), WEST_ERR_UNSUPPORTED);
	assert_err_has("area", "242 cells", "max_response_cells = 241", NULL);
	west_polygon_free(&p);
}

Test(edr, dump_round_trip)
{
	double bbox[4] = { X(0), Y(0), X(2300), Y(2100) };
	double z = 12.5;
	json_error_t je;
	json_t *back;
	char *s;
	size_t n = 0;

	cr_assert_eq(west_covjson_cube(&g, &f, bbox, NULL, &z, 1, WEST_ZREF_AGL, WEST_EDR_ALL,
				       1000000, &doc, err, sizeof err), WEST_OK, "%s", err);
	s = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(9));
	cr_assert_not_null(s);
	back = json_loads(s, 0, &je);
	cr_assert_not_null(back, "%s", je.text);
	for (int p = 0; p < 5; p++) {
		char path[64];
		snprintf(path, sizeof path, "ranges/%s/values", NAMES[p]);
		json_t *a = at(doc, path), *b = at(back, path);
		for (size_t i = 0; i < json_array_size(a); i++, n++) {
			json_t *va = json_array_get(a, i), *vb = json_array_get(b, i);
			if (json_is_null(va))
				cr_assert(json_is_null(vb));
			else
				cr_assert_eq((float)json_number_value(vb), (float)json_real_value(va));
		}
	}
	cr_assert_eq(n, 5 * 23 * 21);
	json_decref(back);
	free(s);
}
