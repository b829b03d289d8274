/*
 * test_obs.c: observation sets (src/obs.h), the JSON and WindNinja CSV
 * readers, the stability rules, and the transverse Mercator projection
 * (src/proj.h).
 *
 * Most tests check against a grid built by hand with the extent and CRS of
 * data/default.asc (96 x 80 cells of 100 m from (500000, 4650000), WGS 84 /
 * UTM zone 33N), so x in [500000, 509600] and y in [4650000, 4658000].
 * Every refused input has its own test, which checks the status, that the
 * set is left empty, and that the message names the record and the field.
 * The shipped files in data/obs/ and the examples in docs/api.md are loaded
 * against the grid that west_grid_load builds from data/default.asc.
 *
 * Reference numbers: projections from pyproj 3.4.1 (PROJ 9.1.1), solar
 * elevations from NOAA's solar calculator spreadsheet algorithm (Meeus),
 * independent of the NOAA general formulas under test; the commands are
 * given beside the numbers.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "grid.h"
#include "log.h"
#include "log_capture.h"
#include "obs.h"
#include "proj.h"

#ifndef WEST_SRCDIR
#define WEST_SRCDIR "."
#endif

#define T0 1795348800LL /* 2026-11-22T12:00:00Z */

static struct west_grid grid;
static struct west_obs_opts opts;
static struct west_obs_set set;
static char err[WEST_ERRLEN];
static char doc[8192];

static void utm33n(struct west_crs *crs)
{
	memset(crs, 0, sizeof *crs);
	snprintf(crs->grid_mapping_name, sizeof crs->grid_mapping_name,
		 "transverse_mercator");
	crs->has_tm = 1;
	crs->lon0 = 15.0, crs->lat0 = 0.0, crs->k0 = 0.9996;
	crs->false_easting = 500000.0, crs->false_northing = 0.0;
}

static void setup(void)
{
	memset(&grid, 0, sizeof grid);
	grid.nx = 96, grid.ny = 80, grid.nz = 1;
	grid.dx = grid.dy = 100.0;
	grid.x0 = 500000.0, grid.y0 = 4650000.0;
	utm33n(&grid.crs);
	opts.grid = &grid;
	opts.max_stations = 100;
	opts.allow_outside = 0;
	memset(&set, 0, sizeof set);
	err[0] = '\0';
}

static void teardown(void)
{
	west_obs_set_free(&set);
}

TestSuite(obs_json, .init = setup, .fini = teardown);
TestSuite(obs_csv, .init = setup, .fini = teardown);
TestSuite(obs_rules, .init = setup, .fini = teardown);
TestSuite(obs_proj, .init = setup, .fini = teardown);
TestSuite(obs_load, .init = setup, .fini = teardown);
TestSuite(obs_times, .init = setup, .fini = teardown);

/* ---- helpers --------------------------------------------------------- */

#define POS "\"x\": 504850, \"y\": 4652050"
#define MEAS "\"height\": 10, \"speed\": 5, \"direction\": 270"
#define TIME "\"time\": \"2026-11-22T12:00:00Z\""

/* A document of one station with id T1 and the given other fields. */
static const char *one(const char *fields)
{
	snprintf(doc, sizeof doc, "{\"observations\": [{\"id\": \"T1\", %s}]}", fields);
	return doc;
}

static void check_refused(enum west_status s, const char *a, const char *b)
{
	cr_assert_eq(s, WEST_ERR_INVALID, "status %d, message: %s", s, err);
	cr_assert_eq(set.n, 0);
	cr_assert_null(set.obs);
	cr_assert_not_null(strstr(err, a), "message \"%s\" lacks \"%s\"", err, a);
	cr_assert_not_null(strstr(err, b), "message \"%s\" lacks \"%s\"", err, b);
}

static void json_ok(const char *text)
{
	enum west_status s = west_obs_parse_json(text, strlen(text), &opts, &set,
						 err, sizeof err);
	cr_assert_eq(s, WEST_OK, "%s", err);
}

static void json_bad(const char *text, const char *a, const char *b)
{
	check_refused(west_obs_parse_json(text, strlen(text), &opts, &set, err, sizeof err),
		      a, b);
}

#define HDR_LINE "Station_Name,Coord_Sys(PROJCS,GEOGCS),Datum(WGS84,NAD83,NAD27)," \
	"Lat/YCoord,Lon/XCoord,Height,Height_Units(meters,feet),Speed," \
	"Speed_Units(mph,kph,mps,kts),Direction(degrees),Temperature," \
	"Temperature_Units(F,C),Cloud_Cover(%),Radius_of_Influence," \
	"Radius_of_Influence_Units(miles,feet,meters,km),date_time"
#define HDR HDR_LINE "\n"
#define ROW(name) name ",PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,10,C,50,-1,miles," \
	"2026-11-22T12:00:00Z\n"

static void csv_ok(const char *text)
{
	enum west_status s = west_obs_parse_csv(text, strlen(text), &opts, &set,
						err, sizeof err);
	cr_assert_eq(s, WEST_OK, "%s", err);
}

static void csv_bad(const char *text, const char *a, const char *b)
{
	check_refused(west_obs_parse_csv(text, strlen(text), &opts, &set, err, sizeof err),
		      a, b);
}

static int rel_eq(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) || (isnan(a) && isnan(b));
}

static void sets_equal(const struct west_obs_set *a, const struct west_obs_set *b)
{
	cr_assert_eq(a->n, b->n);
	cr_assert_eq(a->valid_time, b->valid_time);
	for (size_t i = 0; i < a->n; i++) {
		const struct west_obs *p = &a->obs[i], *q = &b->obs[i];
		cr_assert_str_eq(p->id, q->id);
		cr_assert(rel_eq(p->x, q->x) && rel_eq(p->y, q->y), "%s position", p->id);
		cr_assert(rel_eq(p->height, q->height), "%s height %.17g %.17g",
			  p->id, p->height, q->height);
		cr_assert(rel_eq(p->speed, q->speed), "%s speed %.17g %.17g",
			  p->id, p->speed, q->speed);
		cr_assert(rel_eq(p->direction, q->direction), "%s direction", p->id);
		cr_assert_eq(p->time, q->time, "%s time", p->id);
		cr_assert_eq(p->stability, q->stability, "%s stability", p->id);
		cr_assert(rel_eq(p->inv_L, q->inv_L) && rel_eq(p->z0, q->z0), "%s", p->id);
		cr_assert_eq(p->outside, q->outside, "%s outside", p->id);
	}
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---- JSON: good input ------------------------------------------------ */

Test(obs_json, one_station_all_fields)
{
	json_ok(one(POS ", " MEAS ", " TIME ", \"stability\": \"e\", \"z0\": 0.5"));
	cr_assert_eq(set.n, 1);
	cr_assert_str_eq(set.obs[0].id, "T1");
	cr_assert_float_eq(set.obs[0].x, 504850.0, 0.0);
	cr_assert_float_eq(set.obs[0].y, 4652050.0, 0.0);
	cr_assert_float_eq(set.obs[0].height, 10.0, 0.0);
	cr_assert_float_eq(set.obs[0].speed, 5.0, 0.0);
	cr_assert_float_eq(set.obs[0].direction, 270.0, 0.0);
	cr_assert_eq(set.obs[0].time, T0);
	cr_assert_eq(set.obs[0].stability, WEST_STAB_E, "lower case class");
	cr_assert(isnan(set.obs[0].inv_L));
	cr_assert_float_eq(set.obs[0].z0, 0.5, 0.0);
	cr_assert_eq(set.obs[0].outside, 0);
	cr_assert_eq(set.valid_time, T0);
}

Test(obs_json, default_class_is_d_and_valid_time_is_latest)
{
	const char *t = "{\"observations\": ["
		"{\"id\": \"A\", " POS ", " MEAS ", \"time\": \"2026-11-22T11:00:00Z\"},"
		"{\"id\": \"B\", " POS ", " MEAS ", \"time\": \"2026-11-22T13:30:00+01:00\"},"
		"{\"id\": \"C\", " POS ", " MEAS ", \"time\": \"2026-11-22T11:59:59.75Z\"}]}";

	json_ok(t);
	cr_assert_eq(set.n, 3);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(set.obs[i].stability, WEST_STAB_D);
		cr_assert(isnan(set.obs[i].inv_L) && isnan(set.obs[i].z0));
	}
	cr_assert_eq(set.obs[1].time, T0 + 1800);
	cr_assert_eq(set.valid_time, T0 + 1800);
}

Test(obs_json, inv_L_gives_the_golder_class)
{
	/* z0 = 0.1 m: F line 0.071, E line 0.022; 0.05 is nearer F. */
	json_ok(one(POS ", " MEAS ", " TIME ", \"inv_L\": 0.05"));
	cr_assert_eq(set.obs[0].stability, WEST_STAB_F);
	cr_assert_float_eq(set.obs[0].inv_L, 0.05, 0.0);
	cr_assert(isnan(set.obs[0].z0), "z0 not given: NaN");
	west_obs_set_free(&set);
	/* z0 = 1 m: F line 0.035, E line 0.004; 0.015 is nearer E. */
	json_ok(one(POS ", " MEAS ", " TIME ", \"inv_L\": 0.015, \"z0\": 1"));
	cr_assert_eq(set.obs[0].stability, WEST_STAB_E);
	cr_assert_float_eq(set.obs[0].z0, 1.0, 0.0);
}

/* pyproj: Transformer.from_crs("EPSG:4326", "EPSG:32633", always_xy=True)
 *   .transform(15.0682874, 42.0609885) -> 505649.996716 4656549.999790 */
Test(obs_json, lon_lat_projected_onto_the_grid)
{
	json_ok(one("\"lon\": 15.0682874, \"lat\": 42.0609885, " MEAS ", " TIME));
	cr_assert_float_eq(set.obs[0].x, 505649.996716, 1e-3);
	cr_assert_float_eq(set.obs[0].y, 4656549.999790, 1e-3);
}

Test(obs_json, outside_accepted_with_allow_outside_and_a_warning)
{
	opts.allow_outside = 1;
	log_capture();
	json_ok(one("\"x\": 499000, \"y\": 4652050, " MEAS ", " TIME));
	cr_assert_eq(set.obs[0].outside, 1);
	cr_assert_not_null(strstr(log_text(), "station \"T1\" at (499000.00, 4652050.00)"),
			   "%s", log_buf);
	cr_assert_not_null(strstr(log_buf, "warning"), "%s", log_buf);
}

Test(obs_json, grid_edges_are_inside)
{
	json_ok(one("\"x\": 509600, \"y\": 4650000, " MEAS ", " TIME));
	cr_assert_eq(set.obs[0].outside, 0);
}

/* ---- JSON: refused input --------------------------------------------- */

Test(obs_json, malformed_json_names_line_and_column)
{
	json_bad("{\"observations\": [\n  {\"id\": \"T1\",\n   \"x\": 1,, \"y\": 2}\n]}",
		 "JSON line 3, column", "");
}

Test(obs_json, nan_literal_is_malformed_json)
{
	json_bad(one(POS ", \"height\": 10, \"speed\": NaN, \"direction\": 270, " TIME),
		 "JSON line 1, column", "");
}

Test(obs_json, duplicate_key_refused)
{
	json_bad(one(POS ", " MEAS ", \"speed\": 3, " TIME), "JSON line", "duplicate");
}

Test(obs_json, top_level_must_be_an_object)
{
	json_bad("[1, 2]", "top level", "expected an object");
}

Test(obs_json, unknown_top_level_field)
{
	json_bad("{\"observations\": [], \"version\": 2}", "\"version\"",
		 "unknown top-level field");
}

Test(obs_json, observations_missing_or_not_an_array)
{
	json_bad("{}", "observations", "missing");
	json_bad("{\"observations\": {}}", "observations", "expected an array");
}

Test(obs_json, station_must_be_an_object)
{
	json_bad("{\"observations\": [17]}", "station 1", "expected an object");
}

Test(obs_json, unknown_station_field)
{
	json_bad(one(POS ", " MEAS ", " TIME ", \"spead\": 4"),
		 "station 1 (id \"T1\")", "\"spead\": unknown field");
}

Test(obs_json, missing_required_fields)
{
	static const char *const cases[][2] = {
		{ POS ", \"speed\": 5, \"direction\": 270, " TIME, "height: missing" },
		{ POS ", \"height\": 10, \"direction\": 270, " TIME, "speed: missing" },
		{ POS ", \"height\": 10, \"speed\": 5, " TIME, "direction: missing" },
		{ POS ", " MEAS, "time: missing" },
		{ MEAS ", " TIME, "position: missing" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		json_bad(one(cases[i][0]), "station 1 (id \"T1\")", cases[i][1]);
		west_obs_set_free(&set);
	}
	json_bad("{\"observations\": [{" POS ", " MEAS ", " TIME "}]}",
		 "station 1", "id: missing");
}

Test(obs_json, bad_ids)
{
	json_bad("{\"observations\": [{\"id\": 7}]}", "station 1", "id: expected a string");
	json_bad("{\"observations\": [{\"id\": \"\"}]}", "station 1", "id: \"\" must not be empty");
	json_bad("{\"observations\": [{\"id\": \"a\\tb\"}]}", "station 1", "printable");
	json_bad("{\"observations\": [{\"id\": \" a\"}]}", "station 1", "space");
	json_bad("{\"observations\": [{\"id\": \"0123456789012345678901234567890123456789"
		 "012345678901234567890123\"}]}", "station 1", "id: \"0123");
	cr_assert_not_null(strstr(err, "longer than 63 bytes"), "%s", err);
}

Test(obs_json, id_of_63_bytes_accepted)
{
	snprintf(doc, sizeof doc, "{\"observations\": [{\"id\": \"%063d\", " POS ", " MEAS
		 ", " TIME "}]}", 7);
	json_ok(doc);
	cr_assert_eq(strlen(set.obs[0].id), 63);
}

Test(obs_json, speed_negative)
{
	json_bad(one(POS ", \"height\": 10, \"speed\": -0.5, \"direction\": 270, " TIME),
		 "station 1 (id \"T1\")", "speed: -0.5 must be in [0, 100] m/s");
}

Test(obs_json, speed_above_100)
{
	json_bad(one(POS ", \"height\": 10, \"speed\": 100.5, \"direction\": 270, " TIME),
		 "station 1 (id \"T1\")", "speed: 100.5");
}

Test(obs_json, speed_not_a_number)
{
	json_bad(one(POS ", \"height\": 10, \"speed\": \"5\", \"direction\": 270, " TIME),
		 "station 1 (id \"T1\")", "speed: expected a number, got a string");
	json_bad(one(POS ", \"height\": 10, \"speed\": null, \"direction\": 270, " TIME),
		 "station 1 (id \"T1\")", "speed: expected a number, got null");
}

Test(obs_json, direction_outside_0_360)
{
	json_bad(one(POS ", \"height\": 10, \"speed\": 5, \"direction\": 360.5, " TIME),
		 "station 1 (id \"T1\")", "direction: 360.5 must be in [0, 360]");
	json_bad(one(POS ", \"height\": 10, \"speed\": 5, \"direction\": -1, " TIME),
		 "station 1 (id \"T1\")", "direction: -1");
}

Test(obs_json, height_not_positive)
{
	json_bad(one(POS ", \"height\": 0, \"speed\": 5, \"direction\": 270, " TIME),
		 "station 1 (id \"T1\")", "height: 0 must be");
	json_bad(one(POS ", \"height\": -3, \"speed\": 5, \"direction\": 270, " TIME),
		 "station 1 (id \"T1\")", "height: -3");
}

Test(obs_json, station_outside_the_grid)
{
	json_bad(one("\"x\": 504850, \"y\": 4658000.5, " MEAS ", " TIME),
		 "station 1 (id \"T1\")", "x/y: (504850.00, 4658000.50) m is outside the grid");
	cr_assert_not_null(strstr(err, "allow_outside"), "%s", err);
}

Test(obs_json, lon_lat_outside_the_grid)
{
	json_bad(one("\"lon\": 15.5, \"lat\": 42.0, " MEAS ", " TIME),
		 "station 1 (id \"T1\")", "lon/lat: (");
	cr_assert_not_null(strstr(err, "outside the grid"), "%s", err);
}

Test(obs_json, lon_lat_out_of_range)
{
	json_bad(one("\"lon\": 195, \"lat\": 42.0, " MEAS ", " TIME),
		 "station 1 (id \"T1\")", "lon/lat: longitude 195");
	json_bad(one("\"lon\": 15, \"lat\": 91, " MEAS ", " TIME),
		 "station 1 (id \"T1\")", "lon/lat: latitude 91");
}

Test(obs_json, lon_lat_without_transverse_mercator)
{
	grid.crs.has_tm = 0;
	json_bad(one("\"lon\": 15.06, \"lat\": 42.04, " MEAS ", " TIME),
		 "station 1 (id \"T1\"): lon/lat given but the terrain has no transverse "
		 "Mercator CRS; give x and y", "");
}

Test(obs_json, position_pairs)
{
	json_bad(one("\"x\": 504850, \"lon\": 15.06, \"lat\": 42.04, " MEAS ", " TIME),
		 "station 1 (id \"T1\")", "x/y and lon/lat: both given");
	json_bad(one("\"x\": 504850, " MEAS ", " TIME), "station 1 (id \"T1\")",
		 "y: missing (x is given)");
	json_bad(one("\"lat\": 42.04, " MEAS ", " TIME), "station 1 (id \"T1\")",
		 "lon: missing (lat is given)");
	json_bad(one("\"x\": \"504850\", \"y\": 4652050, " MEAS ", " TIME),
		 "station 1 (id \"T1\")", "x: expected a number");
}

Test(obs_json, unknown_stability_class)
{
	json_bad(one(POS ", " MEAS ", " TIME ", \"stability\": \"G\""),
		 "station 1 (id \"T1\")", "stability: unknown class \"G\"");
	json_bad(one(POS ", " MEAS ", " TIME ", \"stability\": \"DE\""),
		 "station 1 (id \"T1\")", "stability: unknown class \"DE\"");
	json_bad(one(POS ", " MEAS ", " TIME ", \"stability\": 4"),
		 "station 1 (id \"T1\")", "stability: expected a string");
}

Test(obs_json, stability_and_inv_L_both_given)
{
	json_bad(one(POS ", " MEAS ", " TIME ", \"stability\": \"D\", \"inv_L\": 0.01"),
		 "station 1 (id \"T1\")", "stability and inv_L: both given");
}

Test(obs_json, z0_out_of_range)
{
	json_bad(one(POS ", " MEAS ", " TIME ", \"inv_L\": 0.01, \"z0\": 0"),
		 "station 1 (id \"T1\")", "z0: 0 must be > 0 and < 10 m");
	json_bad(one(POS ", " MEAS ", " TIME ", \"z0\": 10"), "station 1 (id \"T1\")", "z0: 10");
}

Test(obs_json, duplicate_station_id)
{
	json_bad("{\"observations\": ["
		 "{\"id\": \"A\", " POS ", " MEAS ", " TIME "},"
		 "{\"id\": \"B\", " POS ", " MEAS ", " TIME "},"
		 "{\"id\": \"A\", " POS ", " MEAS ", " TIME "},"
		 "{\"id\": \"B\", " POS ", " MEAS ", " TIME "}]}",
		 "station 3 (id \"A\"): id:", "duplicate of station 1");
}

Test(obs_json, empty_set)
{
	json_bad("{\"observations\": []}", "no observations", "");
}

Test(obs_json, more_than_max_stations)
{
	opts.max_stations = 2;
	json_bad("{\"observations\": ["
		 "{\"id\": \"A\", " POS ", " MEAS ", " TIME "},"
		 "{\"id\": \"B\", " POS ", " MEAS ", " TIME "},"
		 "{\"id\": \"C\", " POS ", " MEAS ", " TIME "}]}",
		 "3 observations", "more than max_stations = 2");
}

Test(obs_json, bad_time)
{
	json_bad(one(POS ", " MEAS ", \"time\": \"2026-11-22 12:00:00\""),
		 "station 1 (id \"T1\")", "time: \"2026-11-22 12:00:00\" is not an ISO 8601");
	json_bad(one(POS ", " MEAS ", \"time\": 1795348800"),
		 "station 1 (id \"T1\")", "time: expected a string");
}

Test(obs_json, error_in_a_later_station_leaves_the_set_empty)
{
	json_bad("{\"observations\": ["
		 "{\"id\": \"A\", " POS ", " MEAS ", " TIME "},"
		 "{\"id\": \"B\", " POS ", \"height\": 10, \"speed\": 500, \"direction\": 1, "
		 TIME "}]}", "station 2 (id \"B\")", "speed: 500");
}

Test(obs_json, no_grid_refused)
{
	opts.grid = NULL;
	json_bad(one(POS ", " MEAS ", " TIME), "no grid", "");
}

/* ---- CSV: good input ------------------------------------------------- */

Test(obs_csv, one_row)
{
	csv_ok(HDR ROW("T1"));
	cr_assert_eq(set.n, 1);
	cr_assert_str_eq(set.obs[0].id, "T1");
	cr_assert_float_eq(set.obs[0].x, 504850.0, 0.0);
	cr_assert_float_eq(set.obs[0].y, 4652050.0, 0.0);
	cr_assert_float_eq(set.obs[0].speed, 5.0, 0.0);
	cr_assert_eq(set.obs[0].time, T0);
	cr_assert(isnan(set.obs[0].inv_L) && isnan(set.obs[0].z0));
	/* 12:00Z in late November at 42 N: sun about 25 degrees up, slight
	 * insolation; 5 m/s with 50 % cloud: D. */
	cr_assert_eq(set.obs[0].stability, WEST_STAB_D);
}

Test(obs_csv, bom_crlf_quotes_blank_lines_and_unit_case)
{
	const char *t = "\xEF\xBB\xBF  " HDR_LINE " \r\n\r\n"
		"\"T 1\", projcs ,\"wgs84\",4652050,504850,32.8084,FEET,9.7192,KTS,270,"
		"50,f,100,2,Km,\"2026-11-22T12:00:00Z\"\r\n  \r\n";

	csv_ok(t);
	cr_assert_eq(set.n, 1);
	cr_assert_str_eq(set.obs[0].id, "T 1");
	cr_assert_float_eq(set.obs[0].height, 32.8084 * 0.3048, 1e-12);
	cr_assert_float_eq(set.obs[0].speed, 9.7192 * 1852.0 / 3600.0, 1e-12);
}

Test(obs_csv, unit_conversions)
{
	csv_ok(HDR
	       "A,PROJCS,WGS84,4652050,504850,10,meters,10,mph,270,,,100,,,2026-11-22T12:00:00Z\n"
	       "B,PROJCS,WGS84,4652050,504850,10,meters,36,kph,270,,,100,,,2026-11-22T12:00:00Z\n"
	       "C,PROJCS,WGS84,4652050,504850,10,meters,10,kts,270,,,100,,,2026-11-22T12:00:00Z\n"
	       "D,PROJCS,WGS84,4652050,504850,100,feet,7,mps,270,,,100,,,2026-11-22T12:00:00Z\n");
	cr_assert_float_eq(set.obs[0].speed, 4.4704, 1e-12);
	cr_assert_float_eq(set.obs[1].speed, 10.0, 1e-12);
	cr_assert_float_eq(set.obs[2].speed, 5.144444444444445, 1e-12);
	cr_assert_float_eq(set.obs[3].height, 30.48, 1e-12);
	cr_assert_float_eq(set.obs[3].speed, 7.0, 0.0);
}

Test(obs_csv, geogcs_rows_projected)
{
	/* pyproj (see the JSON test): 15.0682874, 42.0609885 -> 505649.996716
	 * 4656549.999790; 15.039251, 42.0132671 -> 503249.999164 4651250.002522 */
	csv_ok(HDR
	       "N,GEOGCS,WGS84,42.0609885,15.0682874,10,meters,5,mps,270,,,100,,,2026-11-22T12:00:00Z\n"
	       "S,GEOGCS,NAD83,42.0132671,15.039251,10,meters,5,mps,270,,,100,,,2026-11-22T12:00:00Z\n");
	cr_assert_float_eq(set.obs[0].x, 505649.996716, 1e-3);
	cr_assert_float_eq(set.obs[0].y, 4656549.999790, 1e-3);
	cr_assert_float_eq(set.obs[1].x, 503249.999164, 1e-3);
	cr_assert_float_eq(set.obs[1].y, 4651250.002522, 1e-3);
}

Test(obs_csv, stability_from_sun_wind_and_cloud)
{
	/* 2026-06-21T11:00Z at 15.06 E, 42.04 N: sun about 71 degrees up
	 * (strong); 23:00Z: night. */
	csv_ok(HDR
	       "DAY,PROJCS,WGS84,4652050,504850,10,meters,1.5,mps,270,,,0,,,2026-06-21T11:00:00Z\n"
	       "DAYC,PROJCS,WGS84,4652050,504850,10,meters,1.5,mps,270,,,60,,,2026-06-21T11:00:00Z\n"
	       "NIGHT,PROJCS,WGS84,4652050,504850,10,meters,2.5,mps,270,,,0,,,2026-06-21T23:00:00Z\n"
	       "NIGHTC,PROJCS,WGS84,4652050,504850,10,meters,2.5,mps,270,,,75,,,2026-06-21T23:00:00Z\n"
	       "OVC,PROJCS,WGS84,4652050,504850,10,meters,1,mps,270,,,100,,,2026-06-21T23:00:00Z\n");
	cr_assert_eq(set.obs[0].stability, WEST_STAB_A);
	cr_assert_eq(set.obs[1].stability, WEST_STAB_B, "cloud lowers strong to moderate: A-B -> B");
	cr_assert_eq(set.obs[2].stability, WEST_STAB_F);
	cr_assert_eq(set.obs[3].stability, WEST_STAB_E);
	cr_assert_eq(set.obs[4].stability, WEST_STAB_D);
}

Test(obs_csv, projcs_without_tm_gives_d_with_one_warning)
{
	grid.crs.has_tm = 0;
	log_capture();
	csv_ok(HDR
	       "A,PROJCS,WGS84,4652050,504850,10,meters,1.5,mps,270,,,0,,,2026-06-21T11:00:00Z\n"
	       "B,PROJCS,WGS84,4652050,504850,10,meters,1.5,mps,270,,,0,,,2026-06-21T11:00:00Z\n");
	cr_assert_eq(set.obs[0].stability, WEST_STAB_D);
	cr_assert_eq(set.obs[1].stability, WEST_STAB_D);
	cr_assert_eq(count_lines(log_text()), 1, "%s", log_buf);
	cr_assert_not_null(strstr(log_buf, "2 PROJCS station(s)"), "%s", log_buf);
}

Test(obs_csv, outside_accepted_with_allow_outside)
{
	opts.allow_outside = 1;
	log_capture();
	csv_ok(HDR "A,PROJCS,WGS84,4640000,504850,10,meters,5,mps,270,,,100,,,2026-11-22T12:00:00Z\n");
	cr_assert_eq(set.obs[0].outside, 1);
	cr_assert_not_null(strstr(log_text(), "station \"A\""), "%s", log_buf);
}

/* ---- CSV: refused input ---------------------------------------------- */

Test(obs_csv, wrong_header_column)
{
	csv_bad("Station_Name,Coord_Sys(PROJCS,GEOGCS),Datum(WGS84,NAD83,NAD27),"
		"Lat/YCoord,Lon/X,Height\n" ROW("T1"),
		"line 1: header column 5 is \"Lon/X\"", "expected \"Lon/XCoord\"");
}

Test(obs_csv, header_of_more_or_fewer_columns)
{
	csv_bad(HDR_LINE ",extra\n" ROW("T1"), "line 1: header has 17 columns",
		"16 ending in date_time, or the older 15");
	csv_bad("Station_Name,Coord_Sys(PROJCS,GEOGCS),Datum(WGS84,NAD83,NAD27),"
		"Lat/YCoord,Lon/XCoord,Height,Height_Units(meters,feet),Speed,"
		"Speed_Units(mph,kph,mps,kts),Direction(degrees),Temperature,"
		"Temperature_Units(F,C),Cloud_Cover(%),Radius_of_Influence\n",
		"line 1: header has 14 columns", "the older 15");
}

Test(obs_csv, header_case_matters)
{
	snprintf(doc, sizeof doc, "station_name%s", HDR + strlen("Station_Name"));
	csv_bad(doc, "line 1: header column 1", "\"Station_Name\"");
}

Test(obs_csv, empty_text)
{
	csv_bad("\n  \n", "line 1", "no header");
}

Test(obs_csv, wrong_column_count)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,10,C,50,-1,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")", "15 columns, expected 16");
	csv_bad(HDR "\n" "T1,PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,10,C,50,-1,"
		"miles,2026-11-22T12:00:00Z,extra\n", "line 3 (station \"T1\")",
		"17 columns");
}

Test(obs_csv, missing_fields)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")", "Speed: missing");
	csv_bad(HDR ",PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2", "Station_Name: missing");
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,,,,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")", "Cloud_Cover: missing");
	csv_bad(HDR "T1,PROJCS,WGS84,,504850,10,meters,5,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")", "Lat/YCoord: missing");
}

Test(obs_csv, not_a_number)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,5048x0,10,meters,5,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Lon/XCoord: \"5048x0\" is not a number");
}

Test(obs_csv, speed_nan_and_inf)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,nan,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Speed: \"nan\" is not a finite number");
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,inf,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")", "Speed: \"inf\"");
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,-Infinity,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")", "Speed: \"-Infinity\"");
}

Test(obs_csv, speed_negative)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,-1,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Speed: -1 mps = -1 m/s must be in [0, 100] m/s");
}

Test(obs_csv, speed_above_100_after_conversion)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,250,mph,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Speed: 250 mph = 111.76 m/s must be in [0, 100] m/s");
}

Test(obs_csv, direction_outside_0_360)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,5,mps,361,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Direction: 361 must be in [0, 360] degrees");
}

Test(obs_csv, height_not_positive)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,0,feet,5,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")", "Height: 0 feet = 0 m");
}

Test(obs_csv, station_outside_the_grid)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,510000,10,meters,5,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Lon/XCoord, Lat/YCoord: (510000.00, 4652050.00) m is outside the grid");
}

Test(obs_csv, duplicate_station_id)
{
	csv_bad(HDR ROW("A") ROW("B") "\n" ROW("A"), "line 5 (station \"A\")",
		"Station_Name: duplicate of line 2");
}

Test(obs_csv, bad_station_name)
{
	csv_bad(HDR ROW("0123456789012345678901234567890123456789012345678901234567890123"),
		"line 2 (station \"0123", "Station_Name:");
	cr_assert_not_null(strstr(err, "longer than 63 bytes"), "%s", err);
}

Test(obs_csv, empty_set)
{
	csv_bad(HDR "\n\n", "no observations", "");
}

Test(obs_csv, more_than_max_stations)
{
	opts.max_stations = 2;
	csv_bad(HDR ROW("A") ROW("B") ROW("C"), "3 observations", "more than max_stations = 2");
}

Test(obs_csv, bad_time)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,,,50,,,"
		"11/22/2026 12:00\n", "line 2 (station \"T1\")",
		"date_time: \"11/22/2026 12:00\" is not an ISO 8601 UTC time");
}

Test(obs_csv, unknown_units)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,5,furlongs,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Speed_Units: unknown unit \"furlongs\" (expected mph, kph, mps or kts)");
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,yards,5,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")", "Height_Units: unknown unit");
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,10,K,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Temperature_Units: unknown unit");
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,,,50,3,leagues,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Radius_of_Influence_Units: unknown unit");
}

Test(obs_csv, units_missing_when_value_given)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,,5,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Height_Units: missing (Height is given");
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,12,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")", "Temperature_Units: missing");
}

Test(obs_csv, geogcs_without_transverse_mercator)
{
	grid.crs.has_tm = 0;
	csv_bad(HDR "T1,GEOGCS,WGS84,42.04,15.06,10,meters,5,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Coord_Sys: GEOGCS given but the terrain has no transverse Mercator CRS");
	grid.crs.tm_other_ellipsoid = 1;
	csv_bad(HDR "T1,GEOGCS,WGS84,42.04,15.06,10,meters,5,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Coord_Sys: GEOGCS given but the terrain's transverse Mercator CRS is on "
		"another ellipsoid than WGS 84's");
	grid.crs.tm_other_ellipsoid = 0;
}

Test(obs_csv, nad27_and_unknown_datum)
{
	csv_bad(HDR "T1,GEOGCS,NAD27,42.04,15.06,10,meters,5,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Datum: NAD27 is not supported; convert");
	csv_bad(HDR "T1,GEOGCS,ED50,42.04,15.06,10,meters,5,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")", "Datum: unknown datum \"ED50\"");
}

Test(obs_csv, unknown_coord_sys)
{
	csv_bad(HDR "T1,UTM,WGS84,4652050,504850,10,meters,5,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Coord_Sys: \"UTM\" is neither PROJCS nor GEOGCS");
}

Test(obs_csv, temperature_out_of_range)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,150,F,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Temperature: 150 F = 65.6 C is outside [-90, 60] C");
}

Test(obs_csv, cloud_cover_out_of_range)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,,,101,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Cloud_Cover: 101 is outside [0, 100] %");
}

Test(obs_csv, radius_of_influence)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,,,50,0,km,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Radius_of_Influence: 0 must be > 0, or -1");
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,,,50,5,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Radius_of_Influence_Units: missing");
}

Test(obs_csv, stray_quote)
{
	csv_bad(HDR "T1,PROJCS,WGS84,4652050,504850,10,me\"ters,5,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Height_Units: stray double quote");
}

Test(obs_csv, nul_byte)
{
	static const char t[] = HDR "T1,PROJCS\0,WGS84\n";

	check_refused(west_obs_parse_csv(t, sizeof t - 1, &opts, &set, err, sizeof err),
		      "line 2", "NUL byte");
}

Test(obs_csv, not_nul_terminated_input)
{
	char *t = malloc(strlen(HDR ROW("T1")));
	const char *src = HDR ROW("T1");

	cr_assert_not_null(t);
	memcpy(t, src, strlen(src)); /* no NUL at the end */
	cr_assert_eq(west_obs_parse_csv(t, strlen(src), &opts, &set, err, sizeof err),
		     WEST_OK, "%s", err);
	free(t);
}

/* ---- CSV: RFC 4180 and every WindNinja format ------------------------ */

/* The header as WindNinja's station fetch writes it: every column quoted. */
#define QHDR_LINE "\"Station_Name\",\"Coord_Sys(PROJCS,GEOGCS)\"," \
	"\"Datum(WGS84,NAD83,NAD27)\",\"Lat/YCoord\",\"Lon/XCoord\",\"Height\"," \
	"\"Height_Units(meters,feet)\",\"Speed\",\"Speed_Units(mph,kph,mps,kts)\"," \
	"\"Direction(degrees)\",\"Temperature\",\"Temperature_Units(F,C)\"," \
	"\"Cloud_Cover(%)\",\"Radius_of_Influence\"," \
	"\"Radius_of_Influence_Units(miles,feet,meters,km)\",\"date_time\""
/* The same with column 9 as files written before kts was added have it. */
#define QHDR_NOKTS_LINE "\"Station_Name\",\"Coord_Sys(PROJCS,GEOGCS)\"," \
	"\"Datum(WGS84,NAD83,NAD27)\",\"Lat/YCoord\",\"Lon/XCoord\",\"Height\"," \
	"\"Height_Units(meters,feet)\",\"Speed\",\"Speed_Units(mph,kph,mps)\"," \
	"\"Direction(degrees)\",\"Temperature\",\"Temperature_Units(F,C)\"," \
	"\"Cloud_Cover(%)\",\"Radius_of_Influence\"," \
	"\"Radius_of_Influence_Units(miles,feet,meters,km)\",\"date_time\""
/* The older 15 columns, as firelab/windninja's data/mackay_wx_stations.csv. */
#define OLD_HDR_LINE "\"Station_Name\",\"Coord_Sys(PROJCS,GEOGCS)\"," \
	"\"Datum(WGS84,NAD83,NAD27)\",\"Lat/YCoord\",\"Lon/XCoord\",\"Height\"," \
	"\"Height_Units(meters,feet)\",\"Speed\",\"Speed_Units(mph,kph,mps)\"," \
	"\"Direction(degrees)\",\"Temperature\",\"Temperature_Units(F,C)\"," \
	"\"Cloud_Cover(%)\",\"Radius_of_Influence\"," \
	"\"Radius_of_Influence_Units(miles,feet,meters,km)\""
/* A row without date_time: 15 fields. */
#define ROW15(name) name ",PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,10,C,50,-1,miles"

Test(obs_csv, quoted_header_as_windninja_writes_it)
{
	csv_ok(QHDR_LINE "\n" ROW("T1"));
	cr_assert_eq(set.n, 1);
	cr_assert_eq(set.obs[0].time, T0);
	west_obs_set_free(&set);
	csv_ok(QHDR_NOKTS_LINE "\r\n" ROW("T1"));
	cr_assert_eq(set.n, 1);
	cr_assert_float_eq(set.obs[0].speed, 5.0, 0.0);
}

Test(obs_csv, quoted_fields_hold_commas_and_doubled_quotes)
{
	csv_ok(HDR "\"RDG \"\"W\"\", upper\",\"PROJCS\",\"WGS84\",\"4652050\",\"504850\",10,"
	       "\"meters\",\" 5.5 \",mps,270,,,\"50\",\"\",,\"2026-11-22T12:00:00Z\"\n");
	cr_assert_eq(set.n, 1);
	cr_assert_str_eq(set.obs[0].id, "RDG \"W\", upper");
	cr_assert_float_eq(set.obs[0].speed, 5.5, 0.0);
	cr_assert_eq(set.obs[0].time, T0);
}

Test(obs_csv, quoted_field_over_two_lines_keeps_the_line_count)
{
	/* line 2's Temperature_Units runs over lines 2 and 3; B is on line 4 */
	csv_bad(HDR "A,PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,10,\"C\n\",50,-1,"
		"miles,2026-11-22T12:00:00Z\n"
		"B,PROJCS,WGS84,4652050,504850,10,meters,-5,mps,270,,,50,,,2026-11-22T12:00:00Z\n",
		"line 4 (station \"B\")", "Speed: -5 mps");
}

Test(obs_csv, unclosed_quote_names_its_line)
{
	csv_bad(HDR ROW("A") "B,PROJCS,\"WGS84,4652050,504850,10,meters,5,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n" ROW("C"), "line 3 (station \"B\")",
		"Datum: the double quote opened on line 3 is never closed");
	csv_bad(HDR "\n\"B,PROJCS\n", "line 3: Station_Name:",
		"the double quote opened on line 3 is never closed");
}

Test(obs_csv, text_after_a_closing_quote)
{
	csv_bad(HDR "T1,PROJCS,\"WGS84\"x,4652050,504850,10,meters,5,mps,270,,,50,,,"
		"2026-11-22T12:00:00Z\n", "line 2 (station \"T1\")",
		"Datum: text after the closing double quote");
	csv_bad("\n\"Station_Name\",\"Coord_Sys(PROJCS,GEOGCS)\"x\n", "line 2: header column 2",
		"text after the closing double quote");
}

Test(obs_csv, old_format_of_15_columns_takes_the_time_of_receipt)
{
	opts.received = T0 + 60;
	csv_ok(OLD_HDR_LINE "\r\n\"A\",\"PROJCS\",\"WGS84\",4652050,504850,10,\"meters\",5,"
	       "\"mps\",270,10,\"C\",50,-1,\"miles\"\r\n" ROW15("B") "\r\n\r\n");
	cr_assert_eq(set.n, 2);
	cr_assert_eq(set.obs[0].time, T0 + 60);
	cr_assert_eq(set.obs[1].time, T0 + 60);
	cr_assert_eq(set.valid_time, T0 + 60);
	cr_assert_eq(set.times.undated, 2);
	cr_assert_eq(set.times.received, T0 + 60);
	/* 15 columns with the kts header */
	west_obs_set_free(&set);
	snprintf(doc, sizeof doc, "%.*s\n" ROW15("A") "\n",
		 (int)(strlen(HDR_LINE) - strlen(",date_time")), HDR_LINE);
	csv_ok(doc);
	cr_assert_eq(set.obs[0].time, T0 + 60);
}

Test(obs_csv, row_of_16_under_the_15_column_header)
{
	csv_bad(OLD_HDR_LINE "\n" ROW("T1"), "line 2 (station \"T1\")",
		"16 columns, expected 15 (the header has no date_time)");
}

Test(obs_csv, current_data_rows_of_15_fields_take_the_time_of_receipt)
{
	/* the station fetch's "current data": rows without the date_time field */
	opts.received = T0 + 120;
	csv_ok(QHDR_LINE "\n" ROW15("A") "\n" ROW("B"));
	cr_assert_eq(set.n, 2);
	cr_assert_eq(set.obs[0].time, T0 + 120);
	cr_assert_eq(set.obs[1].time, T0);
	cr_assert_eq(set.times.undated, 1);
	cr_assert_eq(set.valid_time, T0 + 120);
}

Test(obs_csv, empty_date_time_takes_the_time_of_receipt)
{
	opts.received = T0 + 180;
	csv_ok(HDR "T1,PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,,,50,,,\n"
	       "T2,PROJCS,WGS84,4652050,504850,10,meters,5,mps,270,,,50,,,\"\"\n");
	cr_assert_eq(set.obs[0].time, T0 + 180);
	cr_assert_eq(set.obs[1].time, T0 + 180);
	cr_assert_eq(set.times.undated, 2);
}

Test(obs_csv, time_of_receipt_is_the_clock_by_default)
{
	long long before = (long long)time(NULL), after;

	csv_ok(HDR ROW15("T1") "\n");
	after = (long long)time(NULL);
	cr_assert(set.obs[0].time >= before && set.obs[0].time <= after, "%lld not in "
		  "[%lld, %lld]", set.obs[0].time, before, after);
	cr_assert_eq(set.times.received, set.obs[0].time);
}

/* ---- time series: one record per station ----------------------------- */

/* A row of station s at time t with speed v (m/s), 100 % cloud. */
#define TROW(s, v, t) s ",PROJCS,WGS84,4652050,504850,10,meters," v ",mps,270,,,100,,," \
	"2026-11-22T" t "Z\n"

Test(obs_times, newest_record_of_each_station)
{
	csv_ok(HDR TROW("A", "1", "11:00:00") TROW("B", "5", "10:00:00")
	       TROW("A", "3", "12:00:00") TROW("A", "2", "11:30:00") TROW("B", "6", "10:30:00"));
	cr_assert_eq(set.n, 2);
	cr_assert_str_eq(set.obs[0].id, "A", "in the order of the first records");
	cr_assert_float_eq(set.obs[0].speed, 3.0, 0.0);
	cr_assert_eq(set.obs[0].time, T0);
	cr_assert_str_eq(set.obs[1].id, "B");
	cr_assert_float_eq(set.obs[1].speed, 6.0, 0.0);
	cr_assert_eq(set.obs[1].time, T0 - 5400);
	cr_assert_eq(set.valid_time, T0);
	cr_assert_eq(set.times.pick, WEST_OBS_PICK_NEWEST);
	cr_assert_eq(set.times.records, 5);
	cr_assert_eq(set.times.stations, 2);
	cr_assert_eq(set.times.left_out, 0);
	cr_assert_eq(set.times.undated, 0);
	cr_assert_eq(set.times.oldest, T0 - 5400);
	cr_assert_eq(set.times.newest, T0);
}

Test(obs_times, nearest_within_the_window_leaves_others_out_with_a_warning)
{
	opts.pick = WEST_OBS_PICK_NEAREST;
	opts.time = T0 - 3600, opts.window = 1800;   /* 11:00 +- 30 min */
	log_capture();
	csv_ok(HDR TROW("A", "1", "10:00:00") TROW("A", "2", "11:10:00") TROW("A", "3", "12:00:00")
	       TROW("B", "4", "08:00:00") TROW("C", "5", "11:30:00") TROW("C", "6", "11:30:01"));
	cr_assert_eq(set.n, 2);
	cr_assert_str_eq(set.obs[0].id, "A");
	cr_assert_float_eq(set.obs[0].speed, 2.0, 0.0);
	cr_assert_str_eq(set.obs[1].id, "C", "1800 s away is inside the window");
	cr_assert_float_eq(set.obs[1].speed, 5.0, 0.0);
	cr_assert_eq(set.valid_time, T0 - 1800);
	cr_assert_eq(set.times.left_out, 1);
	cr_assert_eq(set.times.records, 6);
	cr_assert_eq(count_lines(log_text()), 1, "%s", log_buf);
	cr_assert_not_null(strstr(log_buf, "station \"B\" left out: no record within 1800 s "
				  "of 2026-11-22T11:00:00Z (the nearest is "
				  "2026-11-22T08:00:00Z)"), "%s", log_buf);
}

Test(obs_times, equally_near_records_take_the_earlier)
{
	opts.pick = WEST_OBS_PICK_NEAREST;
	opts.time = T0 - 2700, opts.window = 900;    /* 11:15, 11:00 and 11:30 both 900 s */
	csv_ok(HDR TROW("A", "2", "11:30:00") TROW("A", "1", "11:00:00"));
	cr_assert_eq(set.n, 1);
	cr_assert_float_eq(set.obs[0].speed, 1.0, 0.0);
	cr_assert_eq(set.obs[0].time, T0 - 3600);
}

Test(obs_times, no_station_in_the_window_is_an_error)
{
	opts.pick = WEST_OBS_PICK_NEAREST;
	opts.time = T0 - 6 * 3600, opts.window = 600;
	csv_bad(HDR TROW("A", "1", "11:00:00") TROW("B", "2", "12:00:00"),
		"no station has a record within 600 s of 2026-11-22T06:00:00Z",
		"(2 stations, records from 2026-11-22T11:00:00Z to 2026-11-22T12:00:00Z)");
}

Test(obs_times, one_station_at_one_time_twice_is_a_duplicate)
{
	csv_bad(HDR TROW("A", "1", "11:00:00") TROW("A", "2", "12:00:00")
		TROW("A", "3", "11:00:00"), "line 4 (station \"A\"): Station_Name: "
		"duplicate of line 2", "the same station at the same time, "
		"2026-11-22T11:00:00Z");
	/* two rows without a time both take the time of receipt */
	csv_bad(HDR ROW15("A") "\n" ROW15("A") "\n", "line 3 (station \"A\")",
		"duplicate of line 2");
}

Test(obs_times, max_stations_counts_stations_not_records)
{
	opts.max_stations = 1;
	csv_ok(HDR TROW("A", "1", "10:00:00") TROW("A", "2", "11:00:00") TROW("A", "3", "12:00:00"));
	cr_assert_eq(set.n, 1);
	cr_assert_eq(set.times.records, 3);
}

Test(obs_times, json_sets_go_through_the_same_pick)
{
	opts.pick = WEST_OBS_PICK_NEAREST;
	opts.time = T0, opts.window = 60;
	log_capture();
	json_ok("{\"observations\": ["
		"{\"id\": \"A\", " POS ", " MEAS ", \"time\": \"2026-11-22T12:00:30Z\"},"
		"{\"id\": \"B\", " POS ", " MEAS ", \"time\": \"2026-11-22T11:00:00Z\"}]}");
	cr_assert_eq(set.n, 1);
	cr_assert_str_eq(set.obs[0].id, "A");
	cr_assert_eq(set.times.left_out, 1);
	cr_assert_not_null(strstr(log_text(), "station \"B\" left out"), "%s", log_buf);
}

Test(obs_times, describe_and_json_say_which_times)
{
	char line[WEST_ERRLEN], *text;
	json_t *j;

	csv_ok(HDR TROW("A", "1", "11:00:00") TROW("B", "5", "10:30:00") TROW("A", "3", "12:00:00"));
	west_obs_times_describe(&set.times, line, sizeof line);
	cr_assert_str_eq(line, "2 stations, the newest record of each (3 records read): "
			 "2026-11-22T10:30:00Z to 2026-11-22T12:00:00Z");
	j = west_obs_times_json(&set.times);
	text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	cr_assert_str_eq(text, "{\"newest\":\"2026-11-22T12:00:00Z\",\"oldest\":"
			 "\"2026-11-22T10:30:00Z\",\"pick\":\"newest\",\"records\":3,"
			 "\"undated\":0}");
	free(text);
	json_decref(j);
	west_obs_set_free(&set);

	opts.pick = WEST_OBS_PICK_NEAREST;
	opts.time = T0, opts.window = 1800, opts.received = T0 + 60;
	log_capture();
	csv_ok(HDR TROW("A", "1", "11:00:00") ROW15("B") "\n");
	log_release();
	west_obs_times_describe(&set.times, line, sizeof line);
	cr_assert_str_eq(line, "1 station (1 left out), the record of each nearest "
			 "2026-11-22T12:00:00Z within 1800 s (2 records read): all at "
			 "2026-11-22T12:01:00Z; 1 without date_time, at the time of receipt "
			 "2026-11-22T12:01:00Z");
	j = west_obs_times_json(&set.times);
	text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	cr_assert_str_eq(text, "{\"left_out\":1,\"newest\":\"2026-11-22T12:01:00Z\","
			 "\"oldest\":\"2026-11-22T12:01:00Z\",\"pick\":\"nearest\","
			 "\"received\":\"2026-11-22T12:01:00Z\",\"records\":2,"
			 "\"time\":\"2026-11-22T12:00:00Z\",\"undated\":1,\"window\":1800}");
	free(text);
	json_decref(j);
}

/* ---- stability rules and time stamps --------------------------------- */

Test(obs_rules, golder_each_class_on_its_own_line)
{
	static const double a[] = { -0.096, -0.037, -0.002, 0.0, 0.004, 0.035 };
	static const double b[] = { 0.029, 0.029, 0.018, 0.0, -0.018, -0.036 };
	static const double z0[] = { 0.001, 0.01, 0.1, 0.5, 1.0 };

	for (size_t k = 0; k < sizeof z0 / sizeof *z0; k++)
		for (int c = 0; c < WEST_NSTAB; c++)
			cr_assert_eq(west_stability_golder(a[c] + b[c] * log10(z0[k]), z0[k]), c,
				     "class %s at z0 %g", west_stability_name(c), z0[k]);
}

Test(obs_rules, golder_boundaries_are_midpoints)
{
	/* z0 = 0.1: lines B -0.066, C -0.020; midpoint -0.043. */
	cr_assert_eq(west_stability_golder(-0.0431, 0.1), WEST_STAB_B);
	cr_assert_eq(west_stability_golder(-0.0429, 0.1), WEST_STAB_C);
	cr_assert_eq(west_stability_golder(-1.0, 0.1), WEST_STAB_A, "far unstable");
	cr_assert_eq(west_stability_golder(1.0, 0.1), WEST_STAB_F, "far stable");
	cr_assert_eq(west_stability_golder(0.0, 0.1), WEST_STAB_D);
}

Test(obs_rules, turner_table)
{
	enum { A, B, C, D, E, F };
	static const int want[5][WEST_NINSOL] = {
		{ A, B, B, F, F }, { B, B, C, E, F }, { B, C, C, D, E },
		{ C, D, D, D, D }, { C, D, D, D, D },
	};
	static const double speed[5] = { 1.0, 2.5, 4.0, 5.5, 8.0 };

	for (int r = 0; r < 5; r++)
		for (int c = 0; c < WEST_NINSOL; c++)
			cr_assert_eq(west_stability_turner(speed[r], c), want[r][c],
				     "speed %g column %d", speed[r], c);
}

Test(obs_rules, turner_corners_and_row_edges)
{
	cr_assert_eq(west_stability_turner(0.0, WEST_INSOL_STRONG), WEST_STAB_A);
	cr_assert_eq(west_stability_turner(0.0, WEST_INSOL_NIGHT_CLEAR), WEST_STAB_F);
	cr_assert_eq(west_stability_turner(30.0, WEST_INSOL_STRONG), WEST_STAB_C);
	cr_assert_eq(west_stability_turner(30.0, WEST_INSOL_NIGHT_CLEAR), WEST_STAB_D);
	cr_assert_eq(west_stability_turner(1.99, WEST_INSOL_STRONG), WEST_STAB_A);
	cr_assert_eq(west_stability_turner(2.0, WEST_INSOL_STRONG), WEST_STAB_B, "A-B -> B");
	cr_assert_eq(west_stability_turner(3.0, WEST_INSOL_MODERATE), WEST_STAB_C, "B-C -> C");
	cr_assert_eq(west_stability_turner(5.0, WEST_INSOL_MODERATE), WEST_STAB_D, "C-D -> D");
	cr_assert_eq(west_stability_turner(5.99, WEST_INSOL_NIGHT_CLEAR), WEST_STAB_D);
	cr_assert_eq(west_stability_turner(4.99, WEST_INSOL_NIGHT_CLEAR), WEST_STAB_E);
	cr_assert_eq(west_stability_turner(6.0, WEST_INSOL_STRONG), WEST_STAB_C);
}

Test(obs_rules, insolation_from_elevation_and_cloud)
{
	cr_assert_eq(west_stability_insolation(60.1, 0), WEST_INSOL_STRONG);
	cr_assert_eq(west_stability_insolation(60.0, 0), WEST_INSOL_MODERATE);
	cr_assert_eq(west_stability_insolation(35.1, 0), WEST_INSOL_MODERATE);
	cr_assert_eq(west_stability_insolation(35.0, 0), WEST_INSOL_SLIGHT);
	cr_assert_eq(west_stability_insolation(0.1, 0), WEST_INSOL_SLIGHT);
	cr_assert_eq(west_stability_insolation(0.0, 0), WEST_INSOL_NIGHT_CLEAR);
	cr_assert_eq(west_stability_insolation(-10.0, 49.9), WEST_INSOL_NIGHT_CLEAR);
	cr_assert_eq(west_stability_insolation(-10.0, 50.0), WEST_INSOL_NIGHT_CLOUDY);
	cr_assert_eq(west_stability_insolation(70.0, 50.0), WEST_INSOL_MODERATE);
	cr_assert_eq(west_stability_insolation(50.0, 50.0), WEST_INSOL_SLIGHT);
	cr_assert_eq(west_stability_insolation(20.0, 90.0), WEST_INSOL_SLIGHT);
}

Test(obs_rules, overcast_is_neutral_day_and_night)
{
	cr_assert_eq(west_stability_pasquill(1.0, 70.0, 100.0), WEST_STAB_D);
	cr_assert_eq(west_stability_pasquill(1.0, -30.0, 100.0), WEST_STAB_D);
	cr_assert_eq(west_stability_pasquill(1.0, 70.0, 99.0), WEST_STAB_B);
	cr_assert_eq(west_stability_pasquill(1.0, -30.0, 0.0), WEST_STAB_F);
}

/*
 * Reference: the algorithm of NOAA's solar calculator spreadsheet
 * (NOAA_Solar_Calculations_day.xls, after Meeus), no refraction, coded in
 * Python for these numbers.  The general formulas under test ignore the
 * leap-year cycle; over 2024-2030 they stay within 0.57 degrees of it (most
 * near the equinoxes, where the declination moves 0.4 degrees a day), hence
 * the tolerance.
 */
Test(obs_rules, solar_elevation_against_noaa_spreadsheet)
{
	static const struct { double lon, lat; long long t; double e; } c[] = {
		{ 15.06, 42.04, 1795348800LL, 25.453 },   /* 2026-11-22T12:00Z */
		{ 0.0, 45.0, 1782043200LL, 68.435 },      /* 2026-06-21T12:00Z */
		{ 0.0, 45.0, 1797854400LL, 21.561 },      /* 2026-12-21T12:00Z */
		{ -105.0, 40.0, 1774033200LL, 50.037 },   /* 2026-03-20T19:00Z */
		{ 15.06, 42.04, 1795305600LL, -63.019 },  /* 2026-11-22T00:00Z */
		{ 139.7, 35.7, 1719804600LL, 74.060 },    /* 2024-07-01T03:30Z */
		{ -70.0, -33.0, 1736956800LL, 73.717 },   /* 2025-01-15T16:00Z */
	};

	for (size_t i = 0; i < sizeof c / sizeof *c; i++)
		cr_assert_float_eq(west_solar_elevation(c[i].lon, c[i].lat, c[i].t), c[i].e,
				   0.6, "case %zu: %g", i,
				   west_solar_elevation(c[i].lon, c[i].lat, c[i].t));
}

Test(obs_rules, stability_names)
{
	cr_assert_str_eq(west_stability_name(WEST_STAB_A), "A");
	cr_assert_str_eq(west_stability_name(WEST_STAB_F), "F");
	cr_assert_str_eq(west_stability_name(-1), "?");
	cr_assert_str_eq(west_stability_name(WEST_NSTAB), "?");
}

Test(obs_rules, max_speed)
{
	struct west_obs o[3] = { { .speed = 2.0 }, { .speed = 7.5 }, { .speed = 0.0 } };
	struct west_obs_set s = { .n = 3, .obs = o };
	struct west_obs_set empty = { 0 };

	cr_assert_float_eq(west_obs_max_speed(&s), 7.5, 0.0);
	cr_assert_float_eq(west_obs_max_speed(&empty), 0.0, 0.0);
	west_obs_set_free(&empty);
}

Test(obs_rules, time_stamps)
{
	static const char *const good[] = {
		"2026-11-22T12:00:00Z", "2026-11-22T12:00:00.000Z", "2026-11-22t12:00:00z",
		"2026-11-22T12:00:00+00:00", "2026-11-22T14:00:00+02:00",
		"2026-11-22T06:30:00-05:30", "2026-11-22T12:00:00.999999-00:00",
	};
	static const char *const bad[] = {
		"", "2026-11-22", "2026-11-22 12:00:00Z", "2026-11-22T12:00:00",
		"2026-11-22T12:00Z", "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
		"2026-11-22T24:00:00Z", "2026-11-22T12:60:00Z", "2026-11-22T12:00:00.Z",
		"2026-11-22T12:00:00+0200", "2026-11-22T12:00:00Zjunk", "26-11-22T12:00:00Z",
		"2026-11-22T12:00:00+24:00", "+2026-11-22T12:00:00Z",
	};
	long long t;
	char buf[32];

	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		cr_assert(west_obs_time_parse(good[i], &t), "%s", good[i]);
		cr_assert_eq(t, T0, "%s: %lld", good[i], t);
	}
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		cr_assert_not(west_obs_time_parse(bad[i], &t), "%s accepted", bad[i]);
	cr_assert(west_obs_time_parse("2024-02-29T00:00:00Z", &t), "leap day");
	west_obs_time_format(T0, buf, sizeof buf);
	cr_assert_str_eq(buf, "2026-11-22T12:00:00Z");
}

/* ---- transverse Mercator --------------------------------------------- */

/*
 * /usr/bin/python3 -c 'from pyproj import Transformer
 * t = Transformer.from_crs("EPSG:4326", "EPSG:32633", always_xy=True)
 * for p in [(15, 42), (12.5, 41.9), (17.3, 43.2), (21, -33), (9, 60)]:
 *     print(p, "%.6f %.6f" % t.transform(*p))'
 */
static const struct { double lon, lat, x, y; } tm_ref[] = {
	{ 15.0, 42.0, 500000.000000, 4649776.224819 },
	{ 12.5, 41.9, 292624.875254, 4641695.877909 },
	{ 17.3, 43.2, 686863.258040, 4785593.014253 },
	{ 21.0, -33.0, 1060914.394967, -3667318.285503 },
	{ 9.0, 60.0, 165640.332108, 6666593.572147 },
};

Test(obs_proj, forward_matches_pyproj_to_a_millimetre)
{
	for (size_t i = 0; i < sizeof tm_ref / sizeof *tm_ref; i++) {
		double x, y;
		cr_assert_eq(west_tm_forward(&grid.crs, tm_ref[i].lon, tm_ref[i].lat, &x, &y,
					     err, sizeof err), WEST_OK, "%s", err);
		cr_assert_float_eq(x, tm_ref[i].x, 1e-3, "point %zu: x %.6f", i, x);
		cr_assert_float_eq(y, tm_ref[i].y, 1e-3, "point %zu: y %.6f", i, y);
	}
}

/*
 * t = Transformer.from_crs("EPSG:32633", "EPSG:4326", always_xy=True)
 * t.transform(500000, 4650000) -> 15.0000000000 42.0020154683
 * t.transform(509600, 4658000) -> 15.1160519240 42.0740096547
 * t.transform(503150, 4652400) -> 15.0380494608 42.0236251161
 */
Test(obs_proj, inverse_matches_pyproj)
{
	static const double r[][4] = {
		{ 500000, 4650000, 15.0000000000, 42.0020154683 },
		{ 509600, 4658000, 15.1160519240, 42.0740096547 },
		{ 503150, 4652400, 15.0380494608, 42.0236251161 },
	};

	for (size_t i = 0; i < 3; i++) {
		double lon, lat;
		cr_assert_eq(west_tm_inverse(&grid.crs, r[i][0], r[i][1], &lon, &lat,
					     err, sizeof err), WEST_OK, "%s", err);
		cr_assert_float_eq(lon, r[i][2], 1e-9, "point %zu lon %.12f", i, lon);
		cr_assert_float_eq(lat, r[i][3], 1e-9, "point %zu lat %.12f", i, lat);
	}
}

Test(obs_proj, round_trip)
{
	struct west_crs crs = grid.crs;

	crs.lat0 = 40.0, crs.false_northing = 100000.0, crs.k0 = 1.0; /* not UTM */
	for (double lat = -80.0; lat <= 80.0; lat += 10.0)
		for (double dl = -30.0; dl <= 30.0; dl += 7.5) {
			double x, y, lon, la;
			cr_assert_eq(west_tm_forward(&crs, 15.0 + dl, lat, &x, &y, err,
						     sizeof err), WEST_OK, "%s", err);
			cr_assert_eq(west_tm_inverse(&crs, x, y, &lon, &la, err, sizeof err),
				     WEST_OK, "%s", err);
			cr_assert_float_eq(lon, 15.0 + dl, 1e-9, "%g %g", 15.0 + dl, lat);
			cr_assert_float_eq(la, lat, 1e-9, "%g %g", 15.0 + dl, lat);
		}
}

Test(obs_proj, origin_and_central_meridian)
{
	struct west_crs crs = grid.crs;
	double x, y;

	crs.lat0 = 42.0;
	cr_assert_eq(west_tm_forward(&crs, 15.0, 42.0, &x, &y, err, sizeof err), WEST_OK);
	cr_assert_float_eq(x, 500000.0, 1e-9);
	cr_assert_float_eq(y, 0.0, 1e-6);
}

Test(obs_proj, refusals)
{
	struct west_crs none = { .has_tm = 0 };
	double x, y;

	cr_assert_eq(west_tm_forward(&none, 15, 42, &x, &y, err, sizeof err), WEST_ERR_INVALID);
	cr_assert_not_null(strstr(err, "no transverse Mercator"), "%s", err);
	cr_assert_eq(west_tm_forward(&grid.crs, 55, 42, &x, &y, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_assert_not_null(strstr(err, "central meridian"), "%s", err);
	cr_assert_eq(west_tm_forward(&grid.crs, 15, 90.5, &x, &y, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_assert_eq(west_tm_forward(&grid.crs, NAN, 42, &x, &y, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_assert_eq(west_tm_inverse(&grid.crs, INFINITY, 0, &x, &y, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_assert_eq(west_tm_inverse(&grid.crs, 500000.0 + 9e6, 0, &x, &y, err, sizeof err),
		     WEST_ERR_INVALID);
}

/* ---- files ----------------------------------------------------------- */

static struct west_grid dgrid; /* from data/default.asc */

static void load_default_grid(void)
{
	struct west_config conf;
	struct west_grid_opts go;

	west_config_defaults(&conf);
	west_grid_opts_from_config(&go, &conf);
	cr_assert_eq(west_grid_load(&dgrid, WEST_SRCDIR "/data/default.asc", &go,
				    err, sizeof err), WEST_OK, "%s", err);
	opts.grid = &dgrid;
}

static void load_ok(const char *path, struct west_obs_set *s)
{
	cr_assert_eq(west_obs_load(path, &opts, s, err, sizeof err), WEST_OK, "%s", err);
}

Test(obs_load, shipped_files_load_against_the_default_terrain)
{
	struct west_obs_set csv, ll;

	load_default_grid();
	cr_assert(dgrid.crs.has_tm, "default.prj gives UTM 33N");
	load_ok(WEST_SRCDIR "/data/obs/default.json", &set);
	load_ok(WEST_SRCDIR "/data/obs/default.csv", &csv);
	load_ok(WEST_SRCDIR "/data/obs/default_lonlat.csv", &ll);
	cr_assert_eq(set.n, 3);
	cr_assert_eq(set.valid_time, T0);
	for (size_t i = 0; i < set.n; i++) {
		cr_assert_eq(set.obs[i].stability, WEST_STAB_D);
		cr_assert(set.obs[i].speed >= 4.0 && set.obs[i].speed <= 7.0);
		cr_assert(set.obs[i].direction >= 225.0 && set.obs[i].direction <= 270.0);
	}
	cr_assert_float_eq(west_obs_max_speed(&set), 7.0, 0.0);
	cr_assert_eq(ll.n, 2);
	cr_assert_float_eq(ll.obs[0].x, 505649.996716, 1e-3);  /* pyproj, above */
	cr_assert_float_eq(ll.obs[0].y, 4656549.999790, 1e-3);
	cr_assert_float_eq(ll.obs[1].x, 503249.999164, 1e-3);
	cr_assert_float_eq(ll.obs[1].y, 4651250.002522, 1e-3);
	cr_assert_eq(ll.obs[0].stability, WEST_STAB_C, "3.5 m/s, slight insolation");
	cr_assert_float_eq(ll.obs[1].height, 33 * 0.3048, 1e-12);
	west_obs_set_free(&csv);
	west_obs_set_free(&ll);
	west_grid_free(&dgrid);
}

Test(obs_load, json_and_csv_give_the_same_set)
{
	struct west_obs_set csv;

	load_default_grid();
	load_ok(WEST_SRCDIR "/data/obs/default.json", &set);
	load_ok(WEST_SRCDIR "/data/obs/default.csv", &csv);
	sets_equal(&set, &csv);
	west_obs_set_free(&csv);
	west_grid_free(&dgrid);
}

/* The first ```LANG block after "## Observations" in docs/api.md. */
static char *doc_block(const char *lang)
{
	FILE *f = fopen(WEST_SRCDIR "/docs/api.md", "r");
	static char text[262144];
	char fence[32], *p, *e, *out;
	size_t n;

	cr_assert_not_null(f, "docs/api.md: %s", strerror(errno));
	n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = '\0';
	p = strstr(text, "\n## Observations\n");
	cr_assert_not_null(p, "docs/api.md has no \"## Observations\" section");
	snprintf(fence, sizeof fence, "\n```%s\n", lang);
	p = strstr(p, fence);
	cr_assert_not_null(p, "no %s example", lang);
	p += strlen(fence);
	e = strstr(p, "\n```");
	cr_assert_not_null(e);
	out = strndup(p, (size_t)(e - p) + 1);
	cr_assert_not_null(out);
	return out;
}

Test(obs_load, docs_json_example_parses_like_the_shipped_file)
{
	struct west_obs_set file;
	char *t = doc_block("json");

	load_default_grid();
	cr_assert_eq(west_obs_parse_json(t, strlen(t), &opts, &set, err, sizeof err),
		     WEST_OK, "docs/api.md JSON example: %s", err);
	load_ok(WEST_SRCDIR "/data/obs/default.json", &file);
	sets_equal(&set, &file);
	west_obs_set_free(&file);
	west_grid_free(&dgrid);
	free(t);
}

Test(obs_load, docs_csv_example_parses_like_the_shipped_file)
{
	struct west_obs_set file;
	char *t = doc_block("csv");

	load_default_grid();
	cr_assert_eq(west_obs_parse_csv(t, strlen(t), &opts, &set, err, sizeof err),
		     WEST_OK, "docs/api.md CSV example: %s", err);
	load_ok(WEST_SRCDIR "/data/obs/default.csv", &file);
	sets_equal(&set, &file);
	west_obs_set_free(&file);
	west_grid_free(&dgrid);
	free(t);
}

/* A file with `text` in a fresh temporary directory. */
static char tmpdir[64], tmppath[128];

static const char *write_tmp(const char *name, const char *text)
{
	FILE *f;

	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_obs.XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
	snprintf(tmppath, sizeof tmppath, "%s/%s", tmpdir, name);
	f = fopen(tmppath, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return tmppath;
}

static void remove_tmp(void)
{
	unlink(tmppath);
	rmdir(tmpdir);
}

Test(obs_load, missing_file_names_path_and_reason)
{
	cr_assert_eq(west_obs_load("/nonexistent/obs.json", &opts, &set, err, sizeof err),
		     WEST_ERR_IO);
	cr_assert_str_eq(err, "/nonexistent/obs.json: cannot open: No such file or directory");
	cr_assert_eq(set.n, 0);
}

Test(obs_load, extension_picks_the_reader_and_errors_name_the_path)
{
	const char *p = write_tmp("stations.CSV", HDR ROW("T1"));

	load_ok(p, &set);
	cr_assert_eq(set.n, 1);
	west_obs_set_free(&set);
	remove_tmp();
	p = write_tmp("stations.txt", HDR ROW("T1"));
	cr_assert_eq(west_obs_load(p, &opts, &set, err, sizeof err), WEST_ERR_INVALID);
	cr_assert(strncmp(err, p, strlen(p)) == 0 && strstr(err, ": JSON line 1"), "%s", err);
	remove_tmp();
	p = write_tmp("bad.json", one(POS ", " MEAS ", " TIME ", \"speed\": -1"));
	cr_assert_eq(west_obs_load(p, &opts, &set, err, sizeof err), WEST_ERR_INVALID);
	cr_assert(strncmp(err, p, strlen(p)) == 0, "%s", err);
	cr_assert_eq(set.n, 0);
	remove_tmp();
}

Test(obs_load, file_over_64_mib_refused)
{
	const char *p = write_tmp("big.json", "");

	cr_assert_eq(truncate(p, (64 << 20) + 1), 0);
	cr_assert_eq(west_obs_load(p, &opts, &set, err, sizeof err), WEST_ERR_INVALID);
	cr_assert_not_null(strstr(err, "larger than the 64 MiB limit"), "%s", err);
	cr_assert(strncmp(err, p, strlen(p)) == 0, "%s", err);
	remove_tmp();
}

/* ---- WindNinja's sample shapes (data/obs/) ---------------------------- */

Test(obs_load, windninja_time_series_sample_quoted_crlf_bom)
{
	/* BOM, CRLF, the quoted header with Speed_Units(mph,kph,mps); 10
	 * records of MET-N (10:00 to 12:00), MET-S (09:28 to 11:28), MET-E
	 * (08:00, 08:59) */
	load_ok(WEST_SRCDIR "/data/obs/timeseries.csv", &set);
	cr_assert_eq(set.n, 3);
	cr_assert_str_eq(set.obs[0].id, "MET-N");
	cr_assert_float_eq(set.obs[0].speed, 5.1, 1e-12);
	cr_assert_eq(set.obs[0].time, T0);
	cr_assert_float_eq(set.obs[1].speed, 3.2, 1e-12);
	cr_assert_eq(set.obs[1].time, T0 - 32 * 60);
	cr_assert_str_eq(set.obs[2].id, "MET-E");
	cr_assert_eq(set.obs[2].time, T0 - 3 * 3600 - 60);
	cr_assert_eq(set.times.records, 10);
	west_obs_set_free(&set);
	opts.pick = WEST_OBS_PICK_NEAREST;
	opts.time = T0 - 3600, opts.window = WEST_OBS_WINDOW_DEFAULT;
	log_capture();
	load_ok(WEST_SRCDIR "/data/obs/timeseries.csv", &set);
	cr_assert_not_null(strstr(log_text(), "station \"MET-E\" left out"), "%s", log_buf);
	cr_assert_eq(set.n, 2);
	cr_assert_float_eq(set.obs[0].speed, 4.1, 1e-12);
	cr_assert_float_eq(set.obs[1].speed, 3.2, 1e-12, "11:28 is 28 min away, 10:28 32");
}

Test(obs_load, windninja_old_and_current_samples_take_the_time_of_receipt)
{
	struct west_obs_set cur;

	opts.received = T0 + 3600;
	load_ok(WEST_SRCDIR "/data/obs/old_format.csv", &set);
	cr_assert_eq(set.n, 2);
	cr_assert_str_eq(set.obs[0].id, "Station 1");
	cr_assert_float_eq(set.obs[0].height, 20 * 0.3048, 1e-12);
	cr_assert_float_eq(set.obs[0].speed, 4.4704, 1e-12);
	cr_assert_eq(set.valid_time, T0 + 3600);
	cr_assert_eq(set.times.undated, 2);
	load_ok(WEST_SRCDIR "/data/obs/current.csv", &cur);
	cr_assert_eq(cur.n, 2);
	cr_assert_eq(cur.obs[1].time, T0 + 3600);
	cr_assert_eq(cur.times.undated, 2);
	west_obs_set_free(&cur);
}

Test(obs_load, windninja_station_file_list_sample)
{
	load_ok(WEST_SRCDIR "/data/obs/stations/default_stations_2.csv", &set);
	cr_assert_eq(set.n, 2);
	cr_assert_str_eq(set.obs[0].id, "MET-N");
	cr_assert_float_eq(set.obs[0].speed, 5.1, 1e-12);
	cr_assert_str_eq(set.obs[1].id, "MET-S");
	cr_assert_eq(set.obs[1].time, T0 - 32 * 60);
	cr_assert_eq(set.times.records, 8);
}

/* ---- station file lists ---------------------------------------------- */

static char ldir[64];

static void list_setup(void)
{
	setup();
	snprintf(ldir, sizeof ldir, "/tmp/test_obs_list.XXXXXX");
	cr_assert_not_null(mkdtemp(ldir));
}

static void list_teardown(void)
{
	char cmd[128];

	teardown();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", ldir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(obs_list, .init = list_setup, .fini = list_teardown);

/* ldir/name holding text ("sub/" made when the name has it); its path. */
static const char *put(const char *name, const char *text)
{
	static char path[8][256];
	static int k;
	char *p = path[k++ % 8];
	FILE *f;

	if (strchr(name, '/')) {
		snprintf(p, 256, "%s/%.*s", ldir, (int)(strchr(name, '/') - name), name);
		mkdir(p, 0700);
	}
	snprintf(p, 256, "%s/%s", ldir, name);
	f = fopen(p, "w");
	cr_assert_not_null(f, "%s: %s", p, strerror(errno));
	fputs(text, f);
	fclose(f);
	return p;
}

static void list_bad(const char *list, enum west_status want, const char *a, const char *b)
{
	enum west_status s = west_obs_load(list, &opts, &set, err, sizeof err);

	cr_assert_eq(s, want, "status %d: %s", s, err);
	cr_assert_eq(set.n, 0);
	cr_assert_not_null(strstr(err, a), "message \"%s\" lacks \"%s\"", err, a);
	cr_assert_not_null(strstr(err, b), "message \"%s\" lacks \"%s\"", err, b);
}

/* list_bad with the message "LIST: line LINE: LDIR/FILE: PROBLEM": an error
 * in the file the list names on that line. */
static void list_bad_at(const char *list, enum west_status want, int line, const char *file,
			const char *problem)
{
	char msg[512];

	snprintf(msg, sizeof msg, "%s: line %d: %s/%s: %s", list, line, ldir, file, problem);
	list_bad(list, want, msg, "");
}

Test(obs_list, pools_the_records_of_its_files)
{
	const char *list;

	put("a.csv", QHDR_LINE "\n" TROW("A", "1", "11:00:00"));
	put("sub/b.csv", QHDR_LINE "\n" TROW("A", "2", "12:00:00") TROW("B", "3", "10:00:00"));
	list = put("list.csv", "Station_File_List,\r\na.csv\r\n\r\nsub/b.csv\r\n");
	load_ok(list, &set);
	cr_assert_eq(set.n, 2);
	cr_assert_str_eq(set.obs[0].id, "A");
	cr_assert_float_eq(set.obs[0].speed, 2.0, 0.0, "A's newest record is in b.csv");
	cr_assert_str_eq(set.obs[1].id, "B");
	cr_assert_eq(set.times.records, 3);
}

Test(obs_list, relative_paths_against_the_list_absolute_as_they_are)
{
	char text[512];
	const char *abs = put("elsewhere.csv", HDR TROW("C", "4", "12:00:00"));

	put("a.csv", HDR TROW("A", "1", "11:00:00"));
	snprintf(text, sizeof text, "\"Station_File_List\"\n../a.csv\n\"%s\",\n", abs);
	load_ok(put("sub/list.csv", text), &set);
	cr_assert_eq(set.n, 2);
	cr_assert_str_eq(set.obs[0].id, "A");
	cr_assert_str_eq(set.obs[1].id, "C");
}

Test(obs_list, recent_list_of_current_data)
{
	opts.received = T0;
	put("a.csv", QHDR_LINE "\n" ROW15("A") "\n");
	put("b.csv", QHDR_LINE "\n" ROW15("B") "\n");
	load_ok(put("list.csv", "Recent_Station_File_List,\na.csv\nb.csv\n"), &set);
	cr_assert_eq(set.n, 2);
	cr_assert_eq(set.valid_time, T0);
	cr_assert_eq(set.times.undated, 2);
}

Test(obs_list, missing_file_names_it_and_the_list_line)
{
	put("a.csv", HDR TROW("A", "1", "11:00:00"));
	list_bad_at(put("list.csv", "Station_File_List,\na.csv\nnosuch.csv\n"), WEST_ERR_IO, 3,
		    "nosuch.csv", "cannot open: No such file or directory");
}

Test(obs_list, bad_record_names_the_list_line_the_file_and_the_record)
{
	put("a.csv", HDR TROW("A", "1", "11:00:00") TROW("B", "-5", "11:00:00"));
	list_bad_at(put("list.csv", "Station_File_List,\na.csv\n"), WEST_ERR_INVALID, 2, "a.csv",
		    "line 3 (station \"B\"): Speed: -5 mps");
}

Test(obs_list, one_station_at_one_time_in_two_files)
{
	char want[256];

	put("a.csv", HDR TROW("A", "1", "11:00:00"));
	put("b.csv", HDR TROW("B", "1", "11:00:00") TROW("A", "2", "11:00:00"));
	snprintf(want, sizeof want, "%s/b.csv: line 3 (station \"A\"): Station_Name: "
		 "duplicate of %s/a.csv: line 2 (station \"A\")", ldir, ldir);
	list_bad(put("list.csv", "Station_File_List,\na.csv\nb.csv\n"), WEST_ERR_INVALID,
		 want, "");
}

Test(obs_list, what_a_list_may_hold)
{
	put("a.csv", HDR TROW("A", "1", "11:00:00"));
	list_bad(put("l1.csv", "Station_File_List,\na.csv\nnotes.txt\n"), WEST_ERR_INVALID,
		 "line 3: \"notes.txt\" is not a station file (.csv)", "");
	list_bad(put("l2.csv", "Station_File_List,\na.csv,b.csv\n"), WEST_ERR_INVALID,
		 "line 2: \"b.csv\" after the file name: one file per line", "");
	list_bad(put("l3.csv", "Station_File_List,\n\n"), WEST_ERR_INVALID,
		 "the station file list names no files", "");
	list_bad(put("l4.csv", "Station_File_List,\nl3.csv\n"), WEST_ERR_INVALID,
		 "line 2: ", "l3.csv: line 1: a station file list (Station_File_List)");
	list_bad(put("l5.csv", "Station_File_List,\n\"a.csv\n"), WEST_ERR_INVALID,
		 "line 2: the double quote opened on line 2 is never closed", "");
}

Test(obs_list, files_count_together_against_the_limit)
{
	const char *text = "Station_File_List,\na.csv\nb.csv\n";

	put("a.csv", HDR TROW("A", "1", "11:00:00"));
	put("b.csv", HDR TROW("B", "1", "11:00:00"));
	cr_assert_eq(west_obs_parse_list(text, strlen(text), ldir, 2 * strlen(HDR) + 150,
					 &opts, &set, err, sizeof err), WEST_ERR_INVALID);
	cr_assert_not_null(strstr(err, "line 3: "), "%s", err);
	cr_assert_not_null(strstr(err, "the listed files hold more than"), "%s", err);
	cr_assert_eq(west_obs_parse_list(text, strlen(text), ldir, 2 * strlen(HDR) + 200,
					 &opts, &set, err, sizeof err), WEST_OK, "%s", err);
}

Test(obs_list, which_texts_are_lists)
{
	static const char *const lists[] = {
		"Station_File_List,\na.csv\n", "\xEF\xBB\xBF\r\n\"Station_File_List\"\r\n",
		"Recent_Station_File_List,\n", "  Station_File_List\n",
	};
	static const char *const others[] = {
		HDR ROW("T1"), "Station_File_Lists,\n", "station_file_list,\n", "", "{}",
	};

	for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
		cr_assert(west_obs_is_list(lists[i], strlen(lists[i])), "%s", lists[i]);
	for (size_t i = 0; i < sizeof others / sizeof *others; i++)
		cr_assert(!west_obs_is_list(others[i], strlen(others[i])), "%s", others[i]);
}

Test(obs_list, list_text_given_as_csv_is_refused)
{
	csv_bad("Station_File_List,\na.csv\n", "line 1: a station file list (Station_File_List)",
		"it names other files");
}
