/*
 * test_westd.c: end-to-end tests of the real westd (tests/westd_fixture.h):
 * each endpoint's happy path and documented errors, the map page's HTTP
 * side (content negotiation at /, its files, its config), ingest bursts,
 * readers during recomputes, reload, restart and crash recovery, the one
 * meaning of a field's age (from its valid time) and the metrics as
 * promtool reads them (skipped without promtool), and the OpenAPI document
 * at /api against the route table itself (westd_routes, from libwestd.a).
 *
 * Every test starts its own daemon (fix_start) in its own temp directory;
 * the suite's fini kills it and removes the directory.  Points used: the
 * station VAL01 at (504850, 4652050) of the default terrain (UTM 33N), in
 * the air at 10 m above the ground.
 */
#include "westd_fixture.h"

#include <ctype.h>
#include <poll.h>

#include "api.h"       /* westd_routes: the route table the daemon serves */
#include "geotiff.h"   /* WEST_GEOTIFF_NODATA */
#include "openapi.h"
#include "proj.h"
#include "tiff_read.h"

static struct westd_proc w;

static void teardown(void)
{
	fix_cleanup(&w);
}

TestSuite(westd, .fini = teardown, .timeout = 240);

#define PX "504850"
#define PY "4652050"
#define POINT_Q "/v1/field/point?x=" PX "&y=" PY "&z=10"
#define PROFILE_Q "/v1/field/profile?x=" PX "&y=" PY
/* EDR coordinates in the grid's CRS (data/default.prj: WGS 84 / UTM 33N);
 * without it they are CRS84 longitude, latitude */
#define NATIVE "&crs=EPSG:32633"

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	cr_assert(json_is_number(v), "%s is not a number", key);
	return json_number_value(v);
}

static long long integer(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	cr_assert(json_is_integer(v), "%s is not an integer", key);
	return (long long)json_integer_value(v);
}

/* The wind (u, v, w, version) at the test point, asserted to answer. */
struct wind {
	double u, v, w;
	long long version;
};

static struct wind point_wind(void)
{
	json_t *j = fix_get_json(&w, POINT_Q);
	struct wind r = { num(j, "u"), num(j, "v"), num(j, "w"), integer(j, "version") };
	json_decref(j);
	return r;
}

/* The served field is still version v with the wind `before`. */
static void expect_unchanged(const struct wind *before, const char *after_what)
{
	struct wind now = point_wind();
	cr_expect_eq(now.version, before->version, "after %s: version %lld, was %lld",
		     after_what, now.version, before->version);
	cr_expect(now.u == before->u && now.v == before->v && now.w == before->w,
		  "after %s: the wind changed", after_what);
	cr_expect_eq(fix_version(&w), (unsigned long long)before->version, "after %s",
		     after_what);
}

/* The observation history (GET /v1/observations "history"), a new ref. */
static json_t *history(void)
{
	json_t *j = fix_get_json(&w, "/v1/observations");
	json_t *h = json_incref(json_object_get(j, "history"));
	cr_assert(json_is_array(h), "history is not an array");
	json_decref(j);
	return h;
}

/* ======================================================== happy paths */

Test(westd, serves_a_field_after_a_post)
{
	const char *sets[] = { "max_field_age=3600", NULL };   /* the default */
	struct http_resp r;
	unsigned long long v;

	fix_start(&w, sets);
	fix_get(&w, "/readyz", &r);
	cr_expect_eq(r.status, 503, "no field yet: %s", r.body);
	fix_resp_free(&r);
	char *body = fix_obs_body_at(-1, -1, (long long)time(NULL));   /* the sample, now */
	fix_post_ok(&w, body, NULL, NULL, &v);
	free(body);
	fix_wait_version(&w, v);
	cr_expect_eq(v, 1);
	fix_get(&w, POINT_Q, &r);
	cr_assert_eq(r.status, 200, "%s", r.body);
	json_t *j = fix_json(&r);
	cr_expect_eq(json_integer_value(json_object_get(j, "version")), 1);
	cr_expect_gt(json_real_value(json_object_get(j, "speed")), 0.5);
	json_decref(j);
	fix_resp_free(&r);
	fix_get(&w, "/readyz", &r);
	cr_expect_eq(r.status, 200, "%s", r.body);
	fix_resp_free(&r);
	cr_expect_eq(fix_stop(&w), 0);
}

Test(westd, status_and_field_metadata)
{
	fix_start(&w, NULL);
	json_t *s = fix_get_json(&w, "/v1/status");
	cr_expect_str_eq(json_string_value(json_object_get(s, "service")), "westd");
	cr_expect(json_is_null(json_object_get(s, "field")), "a field before any POST");
	cr_expect(json_is_false(json_object_get(s, "ready")));
	json_decref(s);
	fix_post_and_wait(&w);

	s = fix_get_json(&w, "/v1/status");
	json_t *g = json_object_get(s, "grid"), *f = json_object_get(s, "field");
	cr_expect_eq(integer(g, "nx"), 96);
	cr_expect_eq(integer(g, "ny"), 80);
	cr_expect_eq(integer(g, "nz"), 30);
	cr_expect_eq(num(g, "dx"), 100.0);
	cr_expect_eq(num(g, "x0"), 500000.0);
	cr_expect_eq(num(g, "y0"), 4650000.0);
	cr_expect_eq(integer(f, "version"), 1);
	cr_expect_eq(integer(f, "observation_set"), 1);
	cr_expect_eq(integer(f, "stations"), 3);
	cr_expect_str_eq(json_string_value(json_object_get(f, "valid_time")),
			 "2026-11-22T12:00:00Z");
	cr_expect(json_is_true(json_object_get(s, "ready")));
	cr_expect_str_eq(json_string_value(json_object_get(
		json_object_get(s, "backend"), "name")), "cpu");
	cr_expect_eq(integer(json_object_get(s, "queue"), "solved"), 1);
	json_t *ls = json_object_get(s, "last_solve");
	cr_expect_str_eq(json_string_value(json_object_get(ls, "solver")), "multigrid");
	cr_expect(json_is_true(json_object_get(ls, "converged")));
	cr_expect(integer(ls, "iterations") >= 1 && integer(ls, "iterations") <= 100,
		  "multigrid iterations %lld", (long long)integer(ls, "iterations"));
	json_decref(s);

	json_t *fd = fix_get_json(&w, "/v1/field");
	cr_expect_eq(integer(fd, "version"), 1);
	cr_expect_eq(integer(json_object_get(fd, "grid"), "nx"), 96);
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(fd, "grid"),
							   "grid_mapping")),
			 "transverse_mercator");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(fd, "solve"),
							   "backend")), "cpu");
	json_decref(fd);
}

/* ETag "v1", If-None-Match, ?version pinning. */
/* devices = cpu,cpu: the daemon solves in two slabs of rows, says so in
 * /v1/status and /metrics, and serves the one-device field's wind. */
Test(westd, devices_in_slabs_serve_the_one_device_field)
{
	const char *slabs[] = { "devices=cpu,cpu", NULL };
	struct wind one = { 0 };

	for (int run = 0; run < 2; run++) {
		fix_start(&w, run ? slabs : NULL);
		fix_post_and_wait(&w);
		json_t *s = fix_get_json(&w, "/v1/status");
		cr_expect_eq(integer(json_object_get(s, "backend"), "partitions"), run ? 2 : 1);
		json_t *last = json_object_get(s, "last_solve"), *sl = json_object_get(last, "slabs");
		cr_expect(json_is_true(json_object_get(last, "converged")));
		cr_expect_eq(json_array_size(sl), run ? 2 : 1, "last_solve.slabs");
		cr_expect_eq(integer(json_array_get(sl, 0), "rank"), 0);
		cr_expect_str_eq(json_string_value(json_object_get(json_array_get(sl, 0), "backend")),
				 "cpu");
		cr_expect_str_eq(json_string_value(json_object_get(json_array_get(sl, 0), "device")),
				 "cpu");
		cr_expect(json_is_real(json_object_get(last, "exchange_share")));
		json_decref(s);
		struct http_resp r;
		fix_get(&w, "/metrics", &r);
		cr_expect(strstr(r.body, run ? "\nwestd_partitions 2\n" : "\nwestd_partitions 1\n"),
			  "westd_partitions in /metrics");
		cr_expect(strstr(r.body, run ? "\nwestd_partition_cells{slab=\"1\",backend=\"cpu\","
					      "device=\"cpu\",rank=\"0\"} " :
					      "\nwestd_partition_cells{slab=\"0\",backend=\"cpu\","
					      "device=\"cpu\",rank=\"0\"} "),
			  "westd_partition_cells in /metrics");
		cr_expect(strstr(r.body, "\nwestd_solve_exchange_share "),
			  "westd_solve_exchange_share in /metrics");
		fix_resp_free(&r);
		struct wind now = point_wind();
		if (!run)
			one = now;
		else
			cr_expect(now.u == one.u && now.v == one.v && now.w == one.w,
				  "two slabs: (%.9g, %.9g, %.9g), one device (%.9g, %.9g, %.9g)",
				  now.u, now.v, now.w, one.u, one.v, one.w);
		cr_expect_eq(fix_stop(&w), 0);
	}
}

Test(westd, field_etag_and_version_pin)
{
	struct http_resp r;
	const char *inm1[] = { "If-None-Match: \"v1\"", NULL };
	const char *inm0[] = { "If-None-Match: \"v7\", W/\"v9\"", NULL };

	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	fix_get(&w, "/v1/field", &r);
	cr_expect_eq(r.status, 200);
	cr_expect_str_eq(r.etag, "\"v1\"");
	fix_resp_free(&r);
	fix_http(&w, "GET", POINT_Q, NULL, 0, inm1, &r);
	cr_expect_eq(r.status, 304, "%s", r.body);
	cr_expect_eq(r.len, 0);
	fix_resp_free(&r);
	fix_http(&w, "GET", "/v1/field", NULL, 0, inm0, &r);
	cr_expect_eq(r.status, 200);
	fix_resp_free(&r);

	char *body = fix_obs_body(9.0, -1);
	unsigned long long v2;
	fix_post_ok(&w, body, NULL, NULL, &v2);
	free(body);
	fix_wait_version(&w, v2);
	json_t *a = fix_get_json(&w, POINT_Q "&version=1"),
	       *b = fix_get_json(&w, POINT_Q), *c = fix_get_json(&w, POINT_Q "&version=2");
	cr_expect_eq(integer(a, "version"), 1);
	cr_expect_eq(integer(b, "version"), 2);
	cr_expect_neq(num(a, "speed"), num(b, "speed"));
	cr_expect_eq(num(c, "speed"), num(b, "speed"));
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

Test(westd, point_profile_slice)
{
	fix_start(&w, NULL);
	fix_post_and_wait(&w);

	json_t *p = fix_get_json(&w, POINT_Q);
	double sp = num(p, "speed"), dir = num(p, "direction");
	cr_expect_gt(sp, 0.0);
	cr_expect(dir >= 0 && dir < 360, "direction %g", dir);
	cr_expect_eq(num(p, "z_agl"), 10.0);
	cr_expect(fabs(num(p, "z_msl") - num(p, "ground") - 10.0) < 1e-3);
	double u = num(p, "u"), v = num(p, "v");
	cr_expect(fabs(u * u + v * v - sp * sp) < 1e-3 * sp * sp, "speed is not |(u, v)|");
	json_decref(p);

	/* MSL: the same point by its altitude */
	p = fix_get_json(&w, POINT_Q);
	char q[256];
	snprintf(q, sizeof q, "/v1/field/point?x=" PX "&y=" PY "&z=%.9g&zref=msl",
		 num(p, "z_msl"));
	json_t *m = fix_get_json(&w, q);
	cr_expect(fabs(num(m, "speed") - num(p, "speed")) < 1e-4);
	json_decref(m);
	json_decref(p);

	json_t *pr = fix_get_json(&w, PROFILE_Q), *lv = json_object_get(pr, "levels");
	cr_assert_gt(json_array_size(lv), 5);
	cr_expect_eq(integer(pr, "version"), 1);
	for (size_t k = 1; k < json_array_size(lv); k++)
		cr_expect_gt(num(json_array_get(lv, k), "z_agl"),
			     num(json_array_get(lv, k - 1), "z_agl"), "level %zu", k);
	cr_expect_gt(num(json_array_get(lv, 0), "speed"), 0.0);
	json_decref(pr);

	const size_t strides[] = { 1, 7, 16 };
	for (size_t i = 0; i < 3; i++) {
		snprintf(q, sizeof q, "/v1/field/slice?z=10&stride=%zu", strides[i]);
		json_t *s = fix_get_json(&w, q);
		size_t nx = (96 + strides[i] - 1) / strides[i], ny = (80 + strides[i] - 1) / strides[i];
		cr_expect_eq(json_array_size(json_object_get(s, "x")), nx, "stride %zu", strides[i]);
		cr_expect_eq(json_array_size(json_object_get(s, "y")), ny, "stride %zu", strides[i]);
		const char *comp[] = { "u", "v", "w" };
		for (int c = 0; c < 3; c++) {
			json_t *rows = json_object_get(s, comp[c]);
			cr_expect_eq(json_array_size(rows), ny);
			cr_expect_eq(json_array_size(json_array_get(rows, 0)), nx);
			cr_expect_eq(json_array_size(json_array_get(rows, ny - 1)), nx);
		}
		cr_expect_eq(integer(s, "stride"), (long long)strides[i]);
		json_decref(s);
	}
}

/* The JSON slice's value of component c at column (i, j) (its rows run
 * south to north), as the float it was printed from. */
static float slice_value(json_t *s, const char *c, size_t i, size_t j)
{
	json_t *v = json_array_get(json_array_get(json_object_get(s, c), j), i);
	cr_assert(json_is_number(v), "%s[%zu][%zu] is not a number", c, j, i);
	return (float)json_number_value(v);
}

/* format=geotiff: the slice as a GeoTIFF (src/geotiff.h), an attachment
 * named by the version and the height; bands speed, direction, u, v equal
 * to the JSON slice's and the point's (9 significant digits print a float
 * exactly), the north row first; the slice's rules for z, zref, stride
 * and the field's ETag; a format it does not have is 400. */
Test(westd, slice_as_geotiff)
{
	struct http_resp r;
	struct tiff_file tf;

	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	fix_get(&w, "/v1/field/slice?z=10&format=geotiff", &r);
	cr_assert_eq(r.status, 200, "%s", r.body);
	cr_expect_str_eq(r.ctype, "image/tiff");
	cr_expect_str_eq(r.disposition, "attachment; filename=\"westd-v1-10m.tif\"");
	cr_expect_str_eq(r.etag, "\"v1\"");
	tiff_parse(&tf, (const unsigned char *)r.body, r.len);
	cr_assert_eq(tiff_uint(&tf, 256, 0), 96);
	cr_assert_eq(tiff_uint(&tf, 257, 0), 80);
	cr_assert_eq(tiff_uint(&tf, 277, 0), 4);
	cr_expect_eq(tiff_double(&tf, 33922, 3), 500000.0, "the grid's x0");
	cr_expect_eq(tiff_double(&tf, 33922, 4), 4658000.0, "y0 + ny dy");
	cr_expect_eq(tiff_double(&tf, 33550, 0), 100.0);
	cr_expect_eq(tiff_double(&tf, 33550, 1), 100.0);
	cr_expect_eq(tiff_geokey_short(&tf, 3072), 32633, "EPSG of WGS_1984_UTM_Zone_33N");
	cr_expect(strstr(tiff_ascii(&tf, 42112), "<Item name=\"FIELD_VERSION\">1</Item>"));

	/* the point at the station, column (48, 20), is the file's row 59 */
	json_t *p = fix_get_json(&w, POINT_Q);
	cr_expect_eq(tiff_sample(&tf, 59, 48, 0), (float)num(p, "speed"));
	cr_expect_eq(tiff_sample(&tf, 59, 48, 1), (float)num(p, "direction"));
	cr_expect_eq(tiff_sample(&tf, 59, 48, 2), (float)num(p, "u"));
	cr_expect_eq(tiff_sample(&tf, 59, 48, 3), (float)num(p, "v"));
	json_decref(p);
	json_t *s = fix_get_json(&w, "/v1/field/slice?z=10");
	for (size_t j = 0; j < 80; j += 13)
		for (size_t i = 0; i < 96; i += 19) {
			cr_expect_eq(tiff_sample(&tf, (uint32_t)(79 - j), (uint32_t)i, 2),
				     slice_value(s, "u", i, j), "u at (%zu, %zu)", i, j);
			cr_expect_eq(tiff_sample(&tf, (uint32_t)(79 - j), (uint32_t)i, 3),
				     slice_value(s, "v", i, j), "v at (%zu, %zu)", i, j);
		}
	json_decref(s);
	fix_resp_free(&r);

	/* an altitude and a stride: pixels of 800 m on the sampled columns */
	fix_get(&w, "/v1/field/slice?z=1500&zref=msl&stride=8&format=geotiff", &r);
	cr_assert_eq(r.status, 200, "%s", r.body);
	cr_expect_str_eq(r.disposition, "attachment; filename=\"westd-v1-1500m-msl.tif\"");
	tiff_parse(&tf, (const unsigned char *)r.body, r.len);
	cr_expect(tiff_uint(&tf, 256, 0) == 12 && tiff_uint(&tf, 257, 0) == 10);
	cr_expect_eq(tiff_double(&tf, 33550, 0), 800.0);
	cr_expect_eq(tiff_double(&tf, 33922, 3), 500000.0 + 50 - 400, "centred on column 0");
	/* 1500 m MSL is above the top (801 m): nodata, as the JSON's nulls */
	cr_expect_eq(tiff_sample(&tf, 0, 0, 0), WEST_GEOTIFF_NODATA);
	fix_resp_free(&r);

	/* below the ground everywhere: every pixel nodata, as every value null */
	fix_get(&w, "/v1/field/slice?z=-5&format=geotiff&stride=40", &r);
	cr_assert_eq(r.status, 200, "%s", r.body);
	tiff_parse(&tf, (const unsigned char *)r.body, r.len);
	for (uint32_t row = 0; row < 2; row++)
		for (uint32_t b = 0; b < 4; b++)
			cr_expect_eq(tiff_sample(&tf, row, 2, b), WEST_GEOTIFF_NODATA);
	fix_resp_free(&r);

	/* the slice's refusals, the format's, the ETag, HEAD */
	fix_get(&w, "/v1/field/slice?z=10&format=png", &r);
	fix_problem(&r, 400, "bad-parameter", "format: 'png' is not json or geotiff");
	fix_get(&w, "/v1/field/slice?format=geotiff", &r);
	fix_problem(&r, 400, "missing-parameter", "z");
	fix_get(&w, "/v1/field/slice?z=ten&format=geotiff", &r);
	fix_problem(&r, 400, "bad-parameter", "z");
	fix_get(&w, "/v1/field/slice?z=10&zref=sky&format=geotiff", &r);
	fix_problem(&r, 400, "bad-parameter", "zref");
	fix_get(&w, "/v1/field/slice?z=10&stride=0&format=geotiff", &r);
	fix_problem(&r, 400, "bad-parameter", "stride");
	fix_get(&w, "/v1/field/slice?z=10&format=json&stride=40", &r);
	cr_expect_eq(r.status, 200);
	cr_expect_str_eq(r.ctype, "application/json");
	fix_resp_free(&r);
	const char *inm[] = { "If-None-Match: \"v1\"", NULL };
	fix_http(&w, "GET", "/v1/field/slice?z=10&format=geotiff", NULL, 0, inm, &r);
	cr_expect_eq(r.status, 304);
	fix_resp_free(&r);
	fix_http(&w, "HEAD", "/v1/field/slice?z=10&format=geotiff", NULL, 0, NULL, &r);
	cr_expect_eq(r.status, 200);
	cr_expect_str_eq(r.ctype, "image/tiff");
	cr_expect_eq(r.len, 0);
	cr_expect_gt(strtoul(r.clen, NULL, 10), 4 * 96 * 80 * 4);
	fix_resp_free(&r);
}

/* lon/lat: the answer's (x, y) is the projected location; the x/y point
 * there answers the same wind. */
Test(westd, lonlat_point_equals_xy_point)
{
	char q[256];

	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	json_t *a = fix_get_json(&w, "/v1/field/point?lon=15.05&lat=42.02&z=10");
	double x = num(a, "x"), y = num(a, "y");
	/* UTM 33N: 15.05 E is ~4.1 km east of the central meridian (500 km) */
	cr_expect(x > 504000 && x < 504300, "x %.3f", x);
	cr_expect(y > 4651000 && y < 4653000, "y %.3f", y);
	snprintf(q, sizeof q, "/v1/field/point?x=%.17g&y=%.17g&z=10", x, y);
	json_t *b = fix_get_json(&w, q);
	/* the answer's x, y are rounded to 9 digits (mm): values agree to 1e-4 */
	cr_expect(fabs(num(a, "u") - num(b, "u")) < 1e-4 * num(a, "speed"), "u");
	cr_expect(fabs(num(a, "v") - num(b, "v")) < 1e-4 * num(a, "speed"), "v");
	cr_expect(fabs(num(a, "speed") - num(b, "speed")) < 1e-4 * num(a, "speed"), "speed");
	cr_expect_eq(num(a, "z_agl"), num(b, "z_agl"));
	json_decref(a);
	json_decref(b);
}

Test(westd, observations_current_and_history)
{
	fix_start(&w, NULL);
	json_t *o = fix_get_json(&w, "/v1/observations");
	cr_expect(json_is_null(json_object_get(o, "current")));
	cr_expect_eq(json_array_size(json_object_get(o, "history")), 0);
	json_decref(o);

	fix_post_and_wait(&w);
	char *body = fix_obs_body(8.5, -1);
	unsigned long long id2, v2;
	fix_post_ok(&w, body, NULL, &id2, &v2);
	free(body);
	cr_expect_eq(id2, 2);
	fix_wait_version(&w, v2);

	o = fix_get_json(&w, "/v1/observations");
	json_t *cur = json_object_get(o, "current"), *obs = json_object_get(cur, "observations");
	cr_expect_eq(integer(cur, "id"), 2);
	cr_expect_eq(integer(cur, "field_version"), 2);
	cr_assert_eq(json_array_size(obs), 3);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(obs, 0), "id")),
			 "VAL01");
	cr_expect(fabs(num(json_array_get(obs, 0), "speed") - 8.5) < 1e-9);
	json_t *h = json_object_get(o, "history");
	cr_assert_eq(json_array_size(h), 2);
	json_t *h0 = json_array_get(h, 0), *h1 = json_array_get(h, 1);
	cr_expect_eq(integer(h0, "id"), 2, "newest first");
	cr_expect_eq(integer(h1, "id"), 1);
	cr_expect_str_eq(json_string_value(json_object_get(h0, "status")), "solved");
	cr_expect_str_eq(json_string_value(json_object_get(h1, "status")), "solved");
	cr_expect_str_eq(json_string_value(json_object_get(h0, "source")), "http");
	cr_expect_eq(integer(h0, "field_version"), 2);
	cr_expect_eq(integer(h0, "stations"), 3);
	cr_expect(json_is_string(json_object_get(h0, "received_at")));
	json_decref(o);
}

/* Wait (at most 60 s) until /v1/snapshots lists version v; its entry. */
static json_t *wait_snapshot(unsigned long long v)
{
	for (double t0 = fix_now(); fix_now() - t0 < 60; usleep(50000)) {
		json_t *j = fix_get_json(&w, "/v1/snapshots"), *l = json_object_get(j, "snapshots");
		for (size_t i = 0; i < json_array_size(l); i++) {
			json_t *e = json_array_get(l, i);
			if ((unsigned long long)json_integer_value(json_object_get(e, "version")) == v) {
				json_incref(e);
				json_decref(j);
				return e;
			}
		}
		json_decref(j);
	}
	fix_dump_log(&w);
	cr_assert_fail("no snapshot of version %llu within 60 s", v);
	return NULL;
}

Test(westd, snapshots_list_and_download)
{
	struct http_resp r;

	fix_start(&w, NULL);
	json_t *j = fix_get_json(&w, "/v1/snapshots");
	cr_expect(json_is_true(json_object_get(j, "enabled")));
	cr_expect_eq(json_array_size(json_object_get(j, "snapshots")), 0);
	json_decref(j);
	fix_post_and_wait(&w);
	json_t *e = wait_snapshot(1);
	const char *name = json_string_value(json_object_get(e, "name"));
	const char *href = json_string_value(json_object_get(e, "href"));
	cr_assert_not_null(name);
	cr_assert_not_null(href);
	cr_expect_str_eq(name, "wind-v1-20261122T120000Z.nc");
	fix_get(&w, href, &r);
	cr_assert_eq(r.status, 200, "%s", href);
	cr_expect_str_eq(r.ctype, "application/x-netcdf");
	cr_assert_geq(r.len, 4);
	cr_expect_eq(memcmp(r.body, "\x89HDF", 4), 0, "not an HDF5 (NetCDF-4) file");
	cr_expect_eq((long long)r.len, integer(e, "bytes"));
	fix_resp_free(&r);
	fix_http(&w, "HEAD", href, NULL, 0, NULL, &r);
	cr_expect_eq(r.status, 200);
	cr_expect_eq(r.len, 0);
	fix_resp_free(&r);
	json_decref(e);
}

/* ================================================================= EDR */

Test(westd, edr_landing_conformance_collections)
{
	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	json_t *l = fix_get_json(&w, "/"), *links = json_object_get(l, "links");
	cr_assert_geq(json_array_size(links), 4);
	for (size_t i = 0; i < json_array_size(links); i++) {
		const char *href = json_string_value(json_object_get(json_array_get(links, i),
								   "href"));
		cr_assert_not_null(href);
		struct http_resp r;
		fix_get(&w, fix_url_path(href), &r);
		cr_expect_eq(r.status, 200, "link %s: %ld", href, r.status);
		fix_resp_free(&r);
	}
	json_decref(l);

	json_t *c = fix_get_json(&w, "/conformance"), *ct = json_object_get(c, "conformsTo");
	cr_expect_geq(json_array_size(ct), 3);
	int covjson = 0;
	for (size_t i = 0; i < json_array_size(ct); i++)
		covjson |= strstr(json_string_value(json_array_get(ct, i)), "ogcapi-edr-1") != NULL;
	cr_expect(covjson, "no EDR conformance class");
	json_decref(c);

	json_t *cs = fix_get_json(&w, "/collections"), *list = json_object_get(cs, "collections");
	int wind = 0;
	for (size_t i = 0; i < json_array_size(list); i++) {
		const char *id = json_string_value(json_object_get(json_array_get(list, i), "id"));
		wind |= id && !strcmp(id, "wind");
	}
	cr_expect(wind, "no collection \"wind\"");
	json_decref(cs);

	json_t *one = fix_get_json(&w, "/collections/wind");
	cr_expect_str_eq(json_string_value(json_object_get(one, "id")), "wind");
	cr_expect_not_null(json_object_get(json_object_get(one, "data_queries"), "position"));
	cr_expect_not_null(json_object_get(json_object_get(one, "extent"), "temporal"));
	json_decref(one);
}

/* The product of an NdArray's shape (1 without one) == its values. */
static size_t check_ndarray(json_t *a, const char *name)
{
	json_t *vals = json_object_get(a, "values"), *shape = json_object_get(a, "shape");
	size_t prod = 1;

	cr_expect_str_eq(json_string_value(json_object_get(a, "type")), "NdArray", "%s", name);
	cr_assert(json_is_array(vals), "%s: no values", name);
	for (size_t i = 0; i < json_array_size(shape); i++)
		prod *= (size_t)json_integer_value(json_array_get(shape, i));
	cr_expect_eq(prod, json_array_size(vals), "%s: shape product %zu, %zu values", name,
		     prod, json_array_size(vals));
	if (shape)
		cr_expect_eq(json_array_size(json_object_get(a, "axisNames")),
			     json_array_size(shape), "%s", name);
	return json_array_size(vals);
}

/* GET path as CoverageJSON: a Coverage of domainType type with ranges u
 * and v (and parameterGroups); the document. */
static json_t *coverage(const char *path, const char *type)
{
	struct http_resp r;
	fix_get(&w, path, &r);
	cr_assert_eq(r.status, 200, "%s: %ld %s", path, r.status, r.body ? r.body : "");
	cr_expect_str_eq(r.ctype, "application/vnd.cov+json");
	json_t *j = fix_json(&r);
	fix_resp_free(&r);
	json_t *dom = json_object_get(j, "domain"), *ax = json_object_get(dom, "axes");
	cr_expect_str_eq(json_string_value(json_object_get(j, "type")), "Coverage");
	cr_expect_str_eq(json_string_value(json_object_get(dom, "domainType")), type, "%s", path);
	const char *names[] = { "x", "y", "z", "t" };
	for (int i = 0; i < 4; i++)
		cr_expect_geq(json_array_size(json_object_get(json_object_get(ax, names[i]),
							      "values")), 1, "axis %s", names[i]);
	cr_expect(json_is_array(json_object_get(dom, "referencing")), "no domain.referencing");
	json_t *ranges = json_object_get(j, "ranges");
	cr_expect_eq(check_ndarray(json_object_get(ranges, "u"), "u"),
		     check_ndarray(json_object_get(ranges, "v"), "v"));
	cr_expect_not_null(json_object_get(json_object_get(j, "parameters"), "u"));
	cr_expect(json_is_array(json_object_get(j, "parameterGroups")), "no parameterGroups");
	return j;
}

/* path answers 200 CoverageJSON. */
static void expect_covjson_200(const char *path)
{
	struct http_resp r;

	fix_get(&w, path, &r);
	cr_expect_eq(r.status, 200, "%s: %ld %s", path, r.status, r.body);
	cr_expect_str_eq(r.ctype, "application/vnd.cov+json", "%s", path);
	fix_resp_free(&r);
}

static size_t axis_len(json_t *cov, const char *axis)
{
	return json_array_size(json_object_get(json_object_get(json_object_get(
		json_object_get(cov, "domain"), "axes"), axis), "values"));
}

Test(westd, edr_position_point_and_profile)
{
	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	json_t *pt = coverage("/collections/wind/position?coords=POINT(" PX "%20" PY
			      ")&z=10&parameter-name=u,v" NATIVE, "Point");
	json_t *u = json_object_get(json_object_get(pt, "ranges"), "u");
	cr_expect_eq(json_array_size(json_object_get(u, "values")), 1);
	cr_expect_null(json_object_get(u, "shape"), "a Point's ranges have no shape");
	json_t *native = fix_get_json(&w, POINT_Q);
	cr_expect(fabs(json_number_value(json_array_get(json_object_get(u, "values"), 0)) -
		       num(native, "u")) < 1e-5, "EDR u differs from /v1/field/point's");
	json_decref(native);
	json_decref(pt);

	json_t *pr = coverage("/collections/wind/position?coords=POINT(" PX "%20" PY ")" NATIVE,
			      "VerticalProfile");
	json_t *ru = json_object_get(json_object_get(pr, "ranges"), "u");
	size_t nz = axis_len(pr, "z");
	cr_expect_gt(nz, 5);
	cr_expect_eq(json_array_size(json_object_get(ru, "values")), nz);
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(ru, "axisNames"), 0)),
			 "z");
	json_decref(pr);

	json_t *p3 = coverage("/collections/wind/position?coords=POINT(" PX "%20" PY
			      ")&z=10,50,100" NATIVE, "VerticalProfile");
	cr_expect_eq(axis_len(p3, "z"), 3);
	json_decref(p3);
}

/* Count the nulls of the u range. */
static size_t nulls(json_t *cov)
{
	json_t *v = json_object_get(json_object_get(json_object_get(cov, "ranges"), "u"), "values");
	size_t n = 0;
	for (size_t i = 0; i < json_array_size(v); i++)
		n += json_is_null(json_array_get(v, i));
	return n;
}

Test(westd, edr_area_and_cube)
{
	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	/* 300 m above sea level: below the ground (201 to 658 m) in much of the
	 * domain, where the values are null */
	json_t *cube = coverage("/collections/wind/cube?bbox=500000,4650000,509600,4658000"
				"&z=300&zref=msl" NATIVE, "Grid");
	cr_expect_eq(axis_len(cube, "x"), 96);
	cr_expect_eq(axis_len(cube, "y"), 80);
	cr_expect_eq(axis_len(cube, "z"), 1);
	json_t *shape = json_object_get(json_object_get(json_object_get(cube, "ranges"), "u"),
					"shape");
	cr_expect_eq(json_integer_value(json_array_get(shape, 0)), 1);
	cr_expect_eq(json_integer_value(json_array_get(shape, 1)), 80);
	cr_expect_eq(json_integer_value(json_array_get(shape, 2)), 96);
	size_t n = nulls(cube);
	cr_expect_gt(n, 1000, "no null in land at 300 m MSL");
	cr_expect_lt(n, 96 * 80, "all null");
	json_decref(cube);

	/* a triangle: the columns outside it are null too */
	json_t *area = coverage("/collections/wind/area?coords=POLYGON((500000%204650000,"
				"504000%204650000,500000%204654000,500000%204650000))&z=10,100"
				NATIVE, "Grid");
	size_t nx = axis_len(area, "x"), ny = axis_len(area, "y");
	cr_expect_eq(axis_len(area, "z"), 2);
	cr_expect_eq(nx, 40);
	cr_expect_eq(ny, 40);
	json_t *u = json_object_get(json_object_get(json_object_get(area, "ranges"), "u"),
				    "values");
	size_t outside = 0, wrong = 0;
	for (size_t k = 0; k < 2; k++)
		for (size_t j = 0; j < ny; j++)
			for (size_t i = 0; i < nx; i++)
				if (i + j >= 40) {   /* centre beyond the hypotenuse */
					outside++;
					wrong += !json_is_null(json_array_get(u, (k * ny + j) * nx + i));
				}
	cr_expect_eq(outside, 2 * 780);
	cr_expect_eq(wrong, 0, "%zu values outside the polygon are not null", wrong);
	cr_expect_lt(nulls(area), 2 * nx * ny, "all null");
	json_decref(area);
}

/* ======================================================= the map page */

/* The Accept headers of Chromium and Firefox for a page. */
#define CHROMIUM_ACCEPT "text/html,application/xhtml+xml,application/xml;q=0.9," \
	"image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
#define FIREFOX_ACCEPT "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

/* GET path with this Accept header ("": none): 1 when the answer is the
 * map page, 0 when it is the JSON landing page (asserted to be one of
 * the two, with Vary: Accept). */
static int root_is_html(const char *path, const char *accept)
{
	char h[256];
	const char *hs[] = { h, NULL };
	struct http_resp r;
	int html;

	snprintf(h, sizeof h, "Accept:%s%s", accept[0] ? " " : "", accept);
	fix_http(&w, "GET", path, NULL, 0, hs, &r);
	cr_assert_eq(r.status, 200, "GET %s, Accept '%s': %ld %s", path, accept, r.status,
		     r.body ? r.body : "");
	cr_expect_str_eq(r.vary, "Accept", "GET %s, Accept '%s': Vary", path, accept);
	html = !strcmp(r.ctype, "text/html; charset=utf-8");
	if (html) {
		cr_expect_not_null(strstr(r.body, "<canvas id=\"wind\">"), "not the map page");
	} else {
		cr_expect_str_eq(r.ctype, "application/json", "GET %s, Accept '%s'", path, accept);
		json_t *j = fix_json(&r);
		cr_expect_str_eq(json_string_value(json_object_get(j, "title")), "westd");
		cr_expect(json_array_size(json_object_get(j, "links")) >= 4);
		json_decref(j);
	}
	fix_resp_free(&r);
	return html;
}

Test(westd, root_is_the_page_for_browsers_and_json_for_the_rest)
{
	static const char *const json[] = {
		"", "*/*", "application/json", "text/html, application/json",
		"text/html;q=0.5, application/json", "application/*, text/html;q=0.9",
		"application/geo+json, text/html;q=0.9, */*", "text/html;q=0, */*",
	};
	static const char *const html[] = {
		CHROMIUM_ACCEPT, FIREFOX_ACCEPT, "text/html", "TEXT/HTML; charset=utf-8",
		"application/json;q=0.5, text/*", "text/html, application/json;q=0.99",
		"  text/html ;q=1 , application/json ; q=0.2",
	};
	struct http_resp r;
	const char *hs[] = { "Accept: " CHROMIUM_ACCEPT, NULL };

	fix_start(&w, NULL);
	for (size_t i = 0; i < sizeof json / sizeof json[0]; i++)
		cr_expect(!root_is_html("/", json[i]), "Accept '%s' gave the page", json[i]);
	for (size_t i = 0; i < sizeof html / sizeof html[0]; i++)
		cr_expect(root_is_html("/", html[i]), "Accept '%s' gave JSON", html[i]);
	cr_expect(!root_is_html("/?f=json", CHROMIUM_ACCEPT), "?f=json gave the page");
	cr_expect(!root_is_html("/?f=application/json", FIREFOX_ACCEPT));
	cr_expect(root_is_html("/?f=html", "application/json"), "?f=html gave JSON");
	cr_expect(root_is_html("/?f=HTML", ""));
	fix_get(&w, "/?f=xml", &r);
	fix_problem(&r, 400, "bad-parameter", "f:");

	/* HEAD: the page's headers, its length, no body */
	struct http_resp g, h;
	fix_http(&w, "GET", "/", NULL, 0, hs, &g);
	fix_http(&w, "HEAD", "/", NULL, 0, hs, &h);
	cr_expect_eq(h.status, 200);
	cr_expect_eq(h.len, 0);
	cr_expect_str_eq(h.ctype, g.ctype);
	cr_expect_eq(strtoul(h.clen, NULL, 10), g.len);
	fix_resp_free(&g);
	fix_resp_free(&h);
}

/* The link of rel in the landing page's links (borrowed from l), or NULL. */
static json_t *landing_link(json_t *l, const char *rel)
{
	json_t *links = json_object_get(l, "links");

	for (size_t i = 0; i < json_array_size(links); i++) {
		json_t *k = json_array_get(links, i);
		const char *r = json_string_value(json_object_get(k, "rel"));
		if (r && !strcmp(r, rel))
			return k;
	}
	return NULL;
}

/* The parameter name of op (borrowed), or NULL. */
static json_t *op_param(json_t *op, const char *name)
{
	json_t *ps = json_object_get(op, "parameters");

	for (size_t i = 0; i < json_array_size(ps); i++) {
		const char *n = json_string_value(json_object_get(json_array_get(ps, i), "name"));
		if (n && !strcmp(n, name))
			return json_array_get(ps, i);
	}
	return NULL;
}

Test(westd, openapi_document_has_every_route)
{
	size_t n;
	const struct west_route_def *rt = westd_routes(&n);
	char missing[2048];
	const char *oapath;
	struct http_resp r;

	/* every route and parameter has its description in service/routes.c */
	cr_expect_eq(west_openapi_missing(rt, n, missing, sizeof missing), 0,
		     "routes or parameters without a description in service/routes.c: %s",
		     missing);

	fix_start(&w, NULL);
	fix_get(&w, "/api", &r);
	cr_assert_eq(r.status, 200, "GET /api: %ld %s", r.status, r.body ? r.body : "");
	cr_expect_str_eq(r.ctype, WEST_OPENAPI_TYPE);
	cr_expect_str_eq(r.vary, "Accept");
	json_t *doc = fix_json(&r), *paths = json_object_get(doc, "paths");
	fix_resp_free(&r);
	const char *v = json_string_value(json_object_get(doc, "openapi"));
	cr_assert(v && !strncmp(v, "3.0.", 4), "openapi: %s", v ? v : "(none)");
	cr_expect_not_null(json_string_value(json_object_get(json_object_get(doc, "info"),
							     "title")));
	cr_expect_not_null(json_string_value(json_object_get(json_object_get(doc, "info"),
							     "version")));
	cr_expect_not_null(json_object_get(json_object_get(json_object_get(doc, "components"),
							   "schemas"), "Problem"));
	cr_assert(json_is_object(paths));

	/* the table's routes are the document's paths, methods and parameters */
	cr_expect_eq(json_object_size(paths), n, "%zu paths for %zu routes",
		     json_object_size(paths), n);
	for (size_t i = 0; i < n; i++) {
		oapath = rt[i].path;
		json_t *item = json_object_get(paths, oapath);
		cr_assert_not_null(item, "route %s is not in paths as %s", rt[i].path, oapath);
		json_t *get = json_object_get(item, "get"), *post = json_object_get(item, "post");
		cr_expect_eq(get != NULL, rt[i].get != NULL, "%s: get", oapath);
		cr_expect_eq(post != NULL, rt[i].post != NULL, "%s: post", oapath);
		cr_expect_eq(json_object_size(item), (get != NULL) + (post != NULL), "%s", oapath);
		if (!get)
			continue;
		cr_expect_null(json_object_get(get, "x-undocumented"), "%s undocumented", oapath);
		cr_expect(json_is_object(json_object_get(get, "responses")), "%s", oapath);
		cr_expect_not_null(json_object_get(json_object_get(get, "responses"), "400"),
				   "%s: no 400", oapath);
		size_t np = 0;
		for (const struct west_param *const *p = rt[i].params; p && *p; p++, np++) {
			const char *name = (*p)->name;
			json_t *pd = op_param(get, name);
			cr_assert_not_null(pd, "%s: parameter %s missing", oapath, name);
			cr_expect_str_eq(json_string_value(json_object_get(pd, "in")), "query");
			cr_expect_not_null(json_string_value(json_object_get(pd, "description")),
					   "%s?%s: no description", oapath, name);
			cr_expect_not_null(json_object_get(json_object_get(pd, "schema"), "type"),
					   "%s?%s: no type", oapath, name);
		}
		np += strchr(oapath, '{') != NULL;   /* the path parameter */
		cr_expect_eq(json_array_size(json_object_get(get, "parameters")), np,
			     "%s: parameters beyond the route's", oapath);
	}

	/* the landing page links it */
	json_t *l = fix_get_json(&w, "/");
	json_t *desc = landing_link(l, "service-desc"), *html = landing_link(l, "service-doc");
	cr_assert_not_null(desc, "no service-desc link");
	cr_assert_not_null(html, "no service-doc link");
	cr_expect_str_eq(json_string_value(json_object_get(desc, "type")), WEST_OPENAPI_TYPE);
	cr_expect_str_eq(fix_url_path(json_string_value(json_object_get(desc, "href"))), "/api");
	cr_expect_str_eq(json_string_value(json_object_get(html, "type")), "text/html");
	fix_get(&w, fix_url_path(json_string_value(json_object_get(html, "href"))), &r);
	cr_assert_eq(r.status, 200);
	cr_expect_str_eq(r.ctype, "text/html; charset=utf-8");
	cr_expect_not_null(strstr(r.body, "<h1>westd API"));
	cr_expect_null(strstr(r.body, "src="), "the page fetches nothing");
	cr_expect_null(strstr(r.body, "://"), "the page links nowhere else");
	for (size_t i = 0; i < n; i++) {
		char want[200];
		snprintf(want, sizeof want, " %s</code>", rt[i].path);
		cr_expect_not_null(strstr(r.body, want), "the page lacks %s", rt[i].path);
	}
	fix_resp_free(&r);
	json_decref(l);
	json_decref(doc);

	/* negotiation: a browser gets the page, application/json gets that */
	const char *hb[] = { "Accept: " CHROMIUM_ACCEPT, NULL };
	const char *hj[] = { "Accept: application/json", NULL };
	fix_http(&w, "GET", "/api", NULL, 0, hb, &r);
	cr_expect_str_eq(r.ctype, "text/html; charset=utf-8");
	fix_resp_free(&r);
	fix_http(&w, "GET", "/api?f=json", NULL, 0, hb, &r);
	cr_expect_str_eq(r.ctype, WEST_OPENAPI_TYPE);
	fix_resp_free(&r);
	fix_http(&w, "GET", "/api", NULL, 0, hj, &r);
	cr_expect_str_eq(r.ctype, "application/json");
	json_decref(fix_json(&r));
	fix_resp_free(&r);
	fix_get(&w, "/api?f=yaml", &r);
	fix_problem(&r, 400, "bad-parameter", "f:");
}

/* The backquoted words of s[0 .. n) into out (at most max), "none" as no
 * word; their number. */
static size_t quoted_words(const char *s, size_t n, char out[][64], size_t max)
{
	size_t k = 0;

	for (const char *p = s, *e = s + n; p < e && k < max; p++) {
		const char *q;
		if (*p != '`' || !(q = memchr(p + 1, '`', (size_t)(e - p - 1))))
			continue;
		snprintf(out[k++], 64, "%.*s", (int)(q - p - 1), p + 1);
		p = q;
	}
	return k;
}

/* docs/api.md's table of query parameters names every route of the route
 * table (service/routes.c) once, with exactly the parameters it takes. */
Test(westd, docs_route_list_is_the_route_table)
{
	size_t n, len, seen_rows = 0;
	const struct west_route_def *rt = westd_routes(&n);
	char *doc = fix_slurp(WEST_SRCDIR "/docs/api.md", &len);
	int *seen = calloc(n, sizeof *seen);
	char routes[16][64], params[16][64];

	cr_assert_not_null(doc);
	cr_assert_not_null(seen);
	for (char *line = strstr(doc, "\n| `/"); line; line = strstr(line + 1, "\n| `/")) {
		char *row = line + 1, *end = strchr(row, '\n'), *bar1, *bar2;
		cr_assert_not_null(end);
		bar1 = strstr(row + 2, " | ");
		cr_assert(bar1 && bar1 < end, "row without columns: %.60s", row);
		bar2 = strstr(bar1 + 3, " | ");
		if (!bar2 || bar2 > end)
			bar2 = end;
		size_t nr = quoted_words(row, (size_t)(bar1 - row), routes, 16);
		size_t np = quoted_words(bar1, (size_t)(bar2 - bar1), params, 16);
		seen_rows++;
		for (size_t a = 0; a < nr; a++) {
			size_t i;
			for (i = 0; i < n && strcmp(rt[i].path, routes[a]); i++)
				;
			cr_assert(i < n, "docs/api.md lists %s, which is not a route", routes[a]);
			cr_expect_eq(seen[i], 0, "docs/api.md lists %s twice", routes[a]);
			seen[i] = 1;
			size_t k = 0;
			for (const struct west_param *const *p = rt[i].params; p && *p; p++, k++)
				cr_expect(k < np && !strcmp(params[k], (*p)->name),
					  "%s: docs/api.md's parameter %zu is '%s', the route's %s",
					  routes[a], k + 1, k < np ? params[k] : "(none)", (*p)->name);
			cr_expect_eq(k, np, "%s: docs/api.md lists %zu parameters, the route "
				     "takes %zu", routes[a], np, k);
		}
	}
	cr_assert_gt(seen_rows, 5, "the table was not found");
	for (size_t i = 0; i < n; i++)
		cr_expect(seen[i], "docs/api.md's table of query parameters lacks %s",
			  rt[i].path);
	free(seen);
	free(doc);
}

/* GET path: 200 with a Content-Type starting with ctype. */
static void expect_file(const char *path, const char *ctype)
{
	struct http_resp r;

	fix_get(&w, path, &r);
	cr_expect_eq(r.status, 200, "GET %s: %ld", path, r.status);
	cr_expect_eq(strncmp(r.ctype, ctype, strlen(ctype)), 0, "GET %s: Content-Type '%s'",
		     path, r.ctype);
	cr_expect(r.len > 100, "GET %s: %zu bytes", path, r.len);
	cr_expect(r.etag[0] == '"', "GET %s: no ETag", path);
	cr_expect_str_eq(r.cache, "no-cache", "GET %s", path);
	fix_resp_free(&r);
}

static json_t *ui_config(void)
{
	struct http_resp r;

	fix_get(&w, "/ui/config.json", &r);
	cr_assert_eq(r.status, 200, "%s", r.body);
	cr_expect_str_eq(r.ctype, "application/json");
	json_t *j = fix_json(&r);
	fix_resp_free(&r);
	return j;
}

Test(westd, ui_page_files_and_config)
{
	struct http_resp r;
	char etag[64], hdr[96];
	const char *hs[] = { hdr, NULL };
	int files = 0;

	fix_mkdir(&w);
	fix_write(&w, "westd.conf", "ui_age_warn = 60\nui_age_alert = 120\n", w.conf,
		  sizeof w.conf);
	fix_start_in(&w, 1, NULL);

	fix_get(&w, "/ui/", &r);
	cr_assert_eq(r.status, 200);
	cr_expect_str_eq(r.ctype, "text/html; charset=utf-8");
	cr_expect_str_eq(r.cache, "no-cache");
	cr_expect_not_null(strstr(r.csp, "default-src 'none'"), "CSP: '%s'", r.csp);
	cr_expect_not_null(strstr(r.csp, "connect-src 'self'"), "CSP: '%s'", r.csp);
	snprintf(etag, sizeof etag, "%s", r.etag);
	cr_assert(etag[0] == '"', "no ETag");
	/* every /ui/ file the page names is served, with its type */
	for (const char *p = r.body; (p = strstr(p, "=\"/ui/")); p++) {
		char path[128];
		size_t n = strcspn(p + 2, "\"");
		snprintf(path, sizeof path, "%.*s", (int)n, p + 2);
		expect_file(path, strstr(path, ".js") ? "text/javascript" :
			    strstr(path, ".css") ? "text/css" : "image/svg+xml");
		files++;
	}
	cr_expect_geq(files, 3, "the page names %d files under /ui/", files);
	fix_resp_free(&r);

	snprintf(hdr, sizeof hdr, "If-None-Match: %s", etag);
	fix_http(&w, "GET", "/ui/", NULL, 0, hs, &r);
	cr_expect_eq(r.status, 304, "If-None-Match %s: %ld", etag, r.status);
	cr_expect_eq(r.len, 0);
	fix_resp_free(&r);

	fix_get(&w, "/ui", &r);
	cr_expect_eq(r.status, 301);
	cr_expect_str_eq(r.location, "/ui/");
	fix_resp_free(&r);
	fix_get(&w, "/ui/nothing.js", &r);
	fix_problem(&r, 404, "not-found", "nothing.js");

	/* the age colours, from the config, and again after a reload */
	json_t *c = ui_config();
	cr_expect_eq(json_number_value(json_object_get(c, "age_warn")), 60.0);
	cr_expect_eq(json_number_value(json_object_get(c, "age_alert")), 120.0);
	cr_expect_eq(integer(c, "max_response_cells"), 1000000);
	json_decref(c);
	fix_write(&w, "westd.conf", "ui_age_warn = 300\nui_age_alert = 900\n", NULL, 0);
	kill(w.pid, SIGHUP);
	fix_wait_log(&w, "reloaded", 1);
	c = ui_config();
	cr_expect_eq(json_number_value(json_object_get(c, "age_warn")), 300.0);
	cr_expect_eq(json_number_value(json_object_get(c, "age_alert")), 900.0);
	json_decref(c);

	fix_get(&w, "/metrics", &r);
	cr_expect_not_null(strstr(r.body, "route=\"/ui/\""), "no /ui/ route in /metrics");
	cr_expect_not_null(strstr(r.body, "route=\"/ui/{file}\""));
	fix_resp_free(&r);
}

/* /v1/terrain's ground rows, asserted to be ny rows of nx numbers. */
static json_t *terrain_rows(json_t *t, size_t nx, size_t ny)
{
	json_t *g = json_object_get(t, "ground");
	cr_assert_eq(json_array_size(json_object_get(t, "x")), nx);
	cr_assert_eq(json_array_size(json_object_get(t, "y")), ny);
	cr_assert_eq(json_array_size(g), ny);
	for (size_t j = 0; j < ny; j++)
		cr_assert_eq(json_array_size(json_array_get(g, j)), nx, "row %zu", j);
	return g;
}

Test(westd, terrain)
{
	const char *const sets[] = { "max_response_cells=5000", NULL };
	struct http_resp r;
	char hdr[96];
	const char *hs[] = { hdr, NULL };

	fix_start(&w, sets);
	/* before the first field: the grid the next solve will use */
	fix_get(&w, "/v1/terrain", &r);
	fix_problem(&r, 413, "too-many-cells", "7680");
	json_t *s = fix_get_json(&w, "/v1/status"), *grid = json_object_get(s, "grid");
	double lo = num(grid, "terrain_min"), hi = num(grid, "terrain_max");
	json_t *t = fix_get_json(&w, "/v1/terrain?stride=2"), *g = terrain_rows(t, 48, 40);
	cr_expect_eq(integer(t, "stride"), 2);
	cr_expect_eq(json_number_value(json_array_get(json_object_get(t, "x"), 0)), 500050.0);
	cr_expect_eq(json_number_value(json_array_get(json_object_get(t, "x"), 1)), 500250.0);
	cr_expect_eq(json_number_value(json_array_get(json_object_get(t, "y"), 39)), 4657850.0);
	for (size_t j = 0; j < 40; j++)
		for (size_t i = 0; i < 48; i++) {
			double z = json_number_value(json_array_get(json_array_get(g, j), i));
			cr_assert(z >= lo - 0.01 && z <= hi + 0.01, "ground[%zu][%zu] = %g", j, i, z);
		}

	/* a column centre's ground is the point query's ground there */
	fix_post_and_wait(&w);
	json_t *p = fix_get_json(&w, "/v1/field/point?x=504050&y=4652050&z=10");
	double want = num(p, "ground");
	double got = json_number_value(json_array_get(json_array_get(g, 10), 20));
	cr_expect(fabs(got - want) <= 0.006, "ground %g, the point query says %g", got, want);
	json_decref(p);
	json_decref(t);
	json_decref(s);

	/* ETag and If-None-Match, like the field */
	fix_get(&w, "/v1/terrain?stride=10", &r);
	cr_assert_eq(r.status, 200);
	cr_expect(r.etag[0] == '"', "no ETag");
	snprintf(hdr, sizeof hdr, "If-None-Match: %s", r.etag);
	t = fix_json(&r);
	terrain_rows(t, 10, 8);
	json_decref(t);
	fix_resp_free(&r);
	fix_http(&w, "GET", "/v1/terrain?stride=10", NULL, 0, hs, &r);
	cr_expect_eq(r.status, 304);
	fix_resp_free(&r);
	fix_http(&w, "GET", "/v1/terrain?stride=20", NULL, 0, hs, &r);
	cr_expect_eq(r.status, 200, "another stride, another tag");
	fix_resp_free(&r);

	fix_get(&w, "/v1/terrain?stride=0", &r);
	fix_problem(&r, 400, "bad-parameter", "stride");
	fix_get(&w, "/v1/terrain?stride=1.5", &r);
	fix_problem(&r, 400, "bad-parameter", "stride");
	fix_get(&w, "/metrics", &r);
	cr_expect_not_null(strstr(r.body, "route=\"/v1/terrain\""));
	fix_resp_free(&r);
}

/* ====================================================== metrics, HEAD */

Test(westd, metrics)
{
	struct http_resp r;

	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	fix_get(&w, "/metrics", &r);
	cr_assert_eq(r.status, 200);
	cr_expect_eq(strncmp(r.ctype, "text/plain", 10), 0, "%s", r.ctype);
	cr_expect_not_null(strstr(r.body, "\nwestd_http_requests_total{"), "%s", r.body);
	cr_expect_not_null(strstr(r.body, "\nwestd_solve_duration_seconds_bucket{"));
	cr_expect_not_null(strstr(r.body, "# TYPE westd_http_requests_total counter"));
	cr_expect_not_null(strstr(r.body, "\nwestd_field_version 1\n"));
	cr_expect_not_null(strstr(r.body, "\nwestd_ready 1\n"));
	fix_resp_free(&r);
}

Test(westd, head_gives_headers_without_body)
{
	struct http_resp g, h;
	const char *paths[] = { "/conformance", "/livez", "/v1/snapshots" };

	fix_start(&w, NULL);
	for (int i = 0; i < 3; i++) {
		fix_get(&w, paths[i], &g);
		fix_http(&w, "HEAD", paths[i], NULL, 0, NULL, &h);
		cr_expect_eq(h.status, 200, "HEAD %s", paths[i]);
		cr_expect_eq(h.len, 0, "HEAD %s has a body", paths[i]);
		cr_expect_str_eq(h.ctype, g.ctype, "HEAD %s", paths[i]);
		/* RFC 9110 9.3.2 and http.c: the GET's Content-Length */
		cr_expect_eq(strtoul(h.clen, NULL, 10), g.len,
			     "HEAD %s: Content-Length %s, the GET's body has %zu bytes",
			     paths[i], h.clen, g.len);
		fix_resp_free(&g);
		fix_resp_free(&h);
	}
}

Test(westd, start_log_names_the_grid)
{
	fix_start(&w, NULL);
	fix_wait_log(&w, "serving on", 1);
	cr_expect_eq(fix_log_count(&w, "grid 96 x 80 x 30 cells of 100 x 100 m"), 1,
		     "the start-up log line misreports the grid");
}

/* ==================================================== documented errors */

#define TOKEN "s3cret-token"
static const char *const AUTH[] = { "Authorization: Bearer " TOKEN, NULL };

/* POST body with Content-Type ct (NULL: none) and the token. */
static void post_as(const char *ct, const char *body, size_t len, struct http_resp *r)
{
	char cth[128];
	const char *h[3] = { AUTH[0], NULL, NULL };
	if (ct) {
		snprintf(cth, sizeof cth, "Content-Type: %s", ct);
		h[1] = cth;
	}
	fix_http(&w, "POST", "/v1/observations", body, len, h, r);
}

Test(westd, documented_errors_are_problem_json)
{
	const char *sets[] = { "api_token=" TOKEN, "max_body_bytes=2048",
			       "max_response_cells=10000", NULL };
	struct http_resp r;

	fix_start(&w, sets);
	fix_get(&w, "/v1/field", &r);
	fix_problem(&r, 503, "no-field", "POST");
	fix_get(&w, POINT_Q, &r);
	fix_problem(&r, 503, "no-field", NULL);
	fix_get(&w, "/readyz", &r);
	fix_problem(&r, 503, "not-ready", "no field");

	char *body = fix_obs_body(5.0, -1);
	fix_post_ok(&w, body, AUTH, NULL, NULL);
	fix_wait_version(&w, 1);

	/* 400 */
	post_as("application/json", "{\"observations\": [", 18, &r);
	fix_problem(&r, 400, "invalid-observations", "JSON");
	const char *typed = "{\"observations\":[{\"id\":\"A\",\"x\":504850,\"y\":4652050,"
			    "\"height\":10,\"speed\":\"fast\",\"direction\":250,"
			    "\"time\":\"2026-11-22T12:00:00Z\"}]}";
	post_as("application/json", typed, strlen(typed), &r);
	fix_problem(&r, 400, "invalid-observations", "speed");
	post_as("text/csv", "not,a,csv\n1,2\n", 14, &r);
	fix_problem(&r, 400, "invalid-observations", NULL);
	fix_get(&w, "/v1/field/point?x=" PX "&y=" PY, &r);
	fix_problem(&r, 400, "missing-parameter", "z");
	fix_get(&w, "/v1/field/point?x=abc&y=" PY "&z=10", &r);
	fix_problem(&r, 400, "bad-parameter", "x");
	fix_get(&w, "/v1/field/point?x=" PX "&y=" PY "&z=10&zref=sky", &r);
	fix_problem(&r, 400, "bad-parameter", "zref");
	fix_get(&w, "/v1/field/point?x=" PX "&y=" PY "&lon=15&lat=42&z=10", &r);
	fix_problem(&r, 400, "bad-parameter", "lon");
	fix_get(&w, "/v1/field/slice?z=10&stride=0", &r);
	fix_problem(&r, 400, "bad-parameter", "stride");
	fix_get(&w, "/collections/wind/position?coords=POINT(1)&z=10", &r);
	fix_problem(&r, 400, "bad-parameter", "coords");
	fix_get(&w, "/collections/wind/position?coords=POINT(0%200)&z=10", &r);
	fix_problem(&r, 400, "bad-parameter", "coords");
	fix_get(&w, "/collections/wind/cube?bbox=1,2,3&z=10", &r);
	fix_problem(&r, 400, "bad-parameter", "bbox");
	fix_get(&w, "/collections/wind/cube?z=10", &r);
	fix_problem(&r, 400, "missing-parameter", "bbox");
	fix_get(&w, "/collections/wind/position?coords=POINT(" PX "%20" PY
		")&parameter-name=gust" NATIVE, &r);
	fix_problem(&r, 400, "bad-parameter", "parameter-name");
	fix_get(&w, "/collections/wind/position?coords=POINT(" PX "%20" PY ")&f=xml" NATIVE, &r);
	fix_problem(&r, 400, "bad-parameter", "f");

	/* 401 */
	fix_post_json(&w, body, NULL, &r);
	cr_expect_str_eq(r.www_auth, "Bearer realm=\"westd\"");
	fix_problem(&r, 401, "unauthorized", "Bearer");
	const char *wrong[] = { "Authorization: Bearer nope", NULL };
	fix_post_json(&w, body, wrong, &r);
	cr_expect_neq(r.www_auth[0], '\0', "no WWW-Authenticate");
	fix_problem(&r, 401, "unauthorized", "Bearer");

	/* 404 */
	fix_get(&w, "/v2/nothing", &r);
	fix_problem(&r, 404, "not-found", "/v2/nothing");
	fix_get(&w, "/v1/snapshots/wind-v99-20261122T120000Z.nc", &r);
	fix_problem(&r, 404, "no-such-snapshot", "wind-v99");
	fix_get(&w, "/v1/field?version=42", &r);
	fix_problem(&r, 404, "version-not-held", "42");
	fix_get(&w, "/v1/field?version=1.5", &r);
	fix_problem(&r, 400, "bad-parameter", "1.5");

	/* 405 */
	fix_http(&w, "DELETE", "/v1/status", NULL, 0, NULL, &r);
	cr_expect_str_eq(r.allow, "GET, HEAD");
	fix_problem(&r, 405, "method-not-allowed", "DELETE");
	fix_http(&w, "PUT", "/v1/observations", "{}", 2, AUTH, &r);
	cr_expect_str_eq(r.allow, "GET, HEAD, POST");
	fix_problem(&r, 405, "method-not-allowed", NULL);

	/* 413 */
	char big[2049];
	memset(big, ' ', sizeof big);
	post_as("application/json", big, sizeof big, &r);
	fix_problem(&r, 413, "body-too-large", "max_body_bytes");
	fix_get(&w, "/v1/field/slice?z=10", &r);
	fix_problem(&r, 413, "too-many-cells", "max_response_cells = 10000");
	fix_get(&w, "/v1/field/slice?z=10&format=geotiff", &r);
	fix_problem(&r, 413, "too-many-cells", "30720 values (4 per column)");
	fix_get(&w, "/collections/wind/cube?bbox=500000,4650000,509600,4658000&z=10" NATIVE, &r);
	fix_problem(&r, 413, "too-many-cells", "max_response_cells = 10000");

	/* 415 */
	post_as("text/plain", body, strlen(body), &r);
	fix_problem(&r, 415, "unsupported-media-type", "text/plain");
	post_as(NULL, body, strlen(body), &r);
	fix_problem(&r, 415, "unsupported-media-type", NULL);

	/* 422 */
	fix_get(&w, "/v1/field/point?x=" PX "&y=" PY "&z=100&zref=msl", &r);
	fix_problem(&r, 422, "point-not-in-air", NULL);
	fix_get(&w, "/v1/field/point?x=1&y=2&z=10", &r);
	fix_problem(&r, 422, "point-not-in-air", "x");
	fix_get(&w, "/v1/field/profile?x=1&y=2", &r);
	fix_problem(&r, 422, "point-not-in-air", NULL);

	/* nothing above was applied */
	json_t *h = history();
	cr_expect_eq(json_array_size(h), 1, "a refused POST is in the history");
	json_decref(h);
	cr_expect_eq(fix_version(&w), 1);
	free(body);
}

/* A snapshot name with an encoded NUL is not the name before the NUL. */
Test(westd, snapshot_name_with_nul_is_404)
{
	struct http_resp r;

	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	json_decref(wait_snapshot(1));
	fix_get(&w, "/v1/snapshots/wind-v1-20261122T120000Z.nc", &r);
	cr_expect_eq(r.status, 200);
	fix_resp_free(&r);
	fix_get(&w, "/v1/snapshots/wind-v1-20261122T120000Z.nc%00.txt", &r);
	cr_expect_eq(r.status, 404, "got %ld for a name with a NUL in it", r.status);
	fix_resp_free(&r);
}

/* ================================================= refused parameters */

#define POS_Q "/collections/wind/position?coords=POINT(" PX "%20" PY ")&z=10" NATIVE

/* Every route refuses a query parameter it does not take, naming it and
 * what the route takes; nothing is answered as if it were not there. */
Test(westd, unknown_parameters_are_refused)
{
	static const char *const paths[] = {
		"/v1/status?", "/v1/field?", POINT_Q "&", PROFILE_Q "&",
		"/v1/field/slice?z=10&stride=40&", "/v1/observations?", "/v1/snapshots?",
		"/v1/snapshots/wind-v1-20261122T120000Z.nc?", "/v1/terrain?stride=40&",
		"/?", "/ui?", "/ui/?", "/ui/app.js?", "/ui/config.json?", "/conformance?",
		"/collections?", "/collections/wind?", POS_Q "&",
		"/collections/wind/area?coords=POLYGON((504000%204652000,504400%204652000,"
		"504400%204652400,504000%204652000))&z=10" NATIVE "&",
		"/collections/wind/cube?bbox=504000,4652000,504300,4652200&z=10" NATIVE "&",
		"/livez?", "/readyz?", "/metrics?",
	};
	char q[512];
	struct http_resp r;

	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		snprintf(q, sizeof q, "%sbogus=1", paths[i]);
		fix_get(&w, q, &r);
		fix_problem(&r, 400, "unknown-parameter", "'bogus' is not supported");
	}
	fix_get(&w, "/v1/status?bogus=1", &r);
	fix_problem(&r, 400, "unknown-parameter", "/v1/status takes no query parameters");
	fix_get(&w, POS_Q "&parameter_name=speed", &r);
	fix_problem(&r, 400, "unknown-parameter", "(did you mean parameter-name?)");
	fix_get(&w, POS_Q "&parameter_name=speed", &r);
	fix_problem(&r, 400, NULL, "takes coords, z, zref, parameter-name, datetime, crs, "
		    "f, version");
	fix_get(&w, PROFILE_Q "&z=10", &r);
	fix_problem(&r, 400, "unknown-parameter", "/v1/field/profile takes x, y, lon, lat, "
		    "version");
	fix_get(&w, "/v1/field/point?x=" PX "&y=" PY "&z=10&z=50", &r);
	fix_problem(&r, 400, "bad-parameter", "z is given more than once");
	fix_get(&w, "/collections?f=html", &r);
	fix_problem(&r, 400, "bad-parameter", "f: 'html'");
	/* no value is not "left out" (stride 1, the default set of parameters) */
	fix_get(&w, "/v1/terrain?stride", &r);
	fix_problem(&r, 400, "bad-parameter", "stride has no value");
	fix_get(&w, POS_Q "&parameter-name=", &r);
	fix_problem(&r, 400, "bad-parameter", "parameter-name has no value");
	fix_get(&w, "/v1/field?version=", &r);
	fix_problem(&r, 400, "bad-parameter", "version has no value");

	/* what the routes do take still answers (the map page's queries among
	 * them) */
	static const char *const good[] = {
		"/v1/field?version=1", POINT_Q "&zref=agl&version=1",
		"/v1/field/point?lon=15.06&lat=42.01&z=10", PROFILE_Q "&version=1",
		"/v1/field/slice?z=50&zref=agl&stride=40&version=1", "/v1/terrain?stride=40",
		"/v1/field/slice?z=50&zref=agl&stride=40&format=geotiff&version=1",
		"/?f=json", "/conformance?f=json", "/collections?f=json",
		"/collections/wind?f=application/json", "/v1/terrain?&stride=40&",
		"/v1/status?",
		POS_Q "&zref=agl&parameter-name=speed&f=CoverageJSON&version=1",
	};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		fix_get(&w, good[i], &r);
		cr_expect_eq(r.status, 200, "%s: %ld %s", good[i], r.status, r.body);
		fix_resp_free(&r);
	}
}

/* A problem's detail and instance quote the client's bytes; bytes that are
 * not UTF-8 (or a character cut by the quote's length) come back as '?', in
 * JSON that parses, never as a 500 (found by tests/fuzz/fuzz_http). */
Test(westd, problem_details_quote_non_utf8_as_question_marks)
{
	struct http_resp r;

	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	fix_get(&w, "/v1/field/profile?x=%B6", &r);
	fix_problem(&r, 400, "bad-parameter", "query parameter x: '?' is not a finite number");
	fix_get(&w, "/no%FF%C3route", &r);
	fix_problem(&r, 404, "not-found", "no resource at /no??route");
	/* 58 bytes, then a 3-byte character that %.60s cuts after its second byte */
	fix_get(&w, "/v1/field/profile?x=0123456789012345678901234567890123456789"
		 "012345678901234567%E2%82%AC", &r);
	fix_problem(&r, 400, "bad-parameter", "4567?" "?' is not a finite number");
	fix_get(&w, "/?f=%C3%A9t%C3", &r);
	fix_problem(&r, 400, "bad-parameter", "f: '\xc3\xa9t?' is not json or html");
}

/* GET target over a socket of its own, sent as it is (no client rewrites
 * it), into r as fix_http fills it (status 0: closed with no answer);
 * asserts that an answer or a close came within secs. */
static void raw_get(const char *target, double secs, struct http_resp *r)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)w.port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	size_t n = 0, cap = 65536, len = strlen(target) + 128;
	char *req = malloc(len), *buf = malloc(cap);
	int fd = socket(AF_INET, SOCK_STREAM, 0), open = 1;
	double t0 = fix_now();

	cr_assert(req && buf && fd >= 0);
	cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0, "%s", strerror(errno));
	len = (size_t)snprintf(req, len, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
			       "Connection: close\r\n\r\n", target);
	for (size_t off = 0; off < len;) {
		ssize_t k = send(fd, req + off, len - off, MSG_NOSIGNAL);
		if (k <= 0)
			break;   /* refused before the whole request was read */
		off += (size_t)k;
	}
	while (open) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)((secs - (fix_now() - t0)) * 1000);
		cr_assert(left > 0 && poll(&p, 1, left) == 1, "no answer within %.0f s to "
			  "GET %.80s... (%zu bytes)", secs, target, strlen(target));
		if (n + 1 >= cap)
			cr_assert_not_null(buf = realloc(buf, cap *= 2));
		ssize_t k = recv(fd, buf + n, cap - n - 1, 0);
		open = k > 0;
		n += k > 0 ? (size_t)k : 0;
	}
	close(fd);
	free(req);
	buf[n] = '\0';
	memset(r, 0, sizeof *r);
	if (sscanf(buf, "HTTP/1.%*d %ld", &r->status) != 1)
		r->status = 0;
	char *body = strstr(buf, "\r\n\r\n");
	for (char *l = buf; body && l < body; l = strstr(l, "\r\n") + 2)
		fix_header_value(l, (size_t)(strstr(l, "\r\n") - l), "Content-Type", r->ctype,
				 sizeof r->ctype);
	if (body) {
		r->len = n - (size_t)(body + 4 - buf);
		r->body = strdup(body + 4);
	}
	free(buf);
}

/* The query of tests/fuzz/corpus/http/FILE as fuzz_http sends it: its
 * bytes from the third to the first newline, those a request target may
 * not hold raw percent-encoded. */
static char *fuzz_query(const char *file)
{
	size_t len, n = 0;
	char path[512], *in, *q;

	snprintf(path, sizeof path, "%s/tests/fuzz/corpus/http/%s", WEST_SRCDIR, file);
	in = fix_slurp(path, &len);
	cr_assert_not_null(q = malloc(3 * len + 1));
	for (size_t i = 2; i < len && in[i] != '\n'; i++) {
		unsigned char c = (unsigned char)in[i];
		if (isalnum(c) || (c && strchr("-._~!$&'()*+,;=:@/?%", c)))
			q[n++] = (char)c;
		else
			n += (size_t)sprintf(q + n, "%%%02X", c);
	}
	q[n] = '\0';
	free(in);
	return q;
}

/* A target of len bytes: head, then x repeated, then tail. */
static char *target_of(const char *head, char x, const char *tail, size_t len)
{
	size_t h = strlen(head), t = strlen(tail);
	char *s = malloc(len + 1);

	cr_assert(s && len >= h + t);
	memcpy(s, head, h);
	memset(s + h, x, len - h - t);
	memcpy(s + len - t, tail, t + 1);
	return s;
}

/* A second westd on the address of a running one does not start: it exits
 * at once naming the address, and the first keeps every connection
 * (libmicrohttpd's default SO_REUSEADDR, never SO_REUSEPORT, which would
 * let both listen and share the connections). */
Test(westd, a_second_daemon_on_the_same_address_is_refused)
{
	char cmd[4096], log[600], want[128];
	int rc;

	fix_start(&w, NULL);
	snprintf(log, sizeof log, "%s/second.log", w.dir);
	snprintf(cmd, sizeof cmd, "timeout 60 %s --foreground --set terrain=%s "
		 "--set listen=127.0.0.1:%d --set state_dir=%s/state2 --set snapshot_dir=%s/snap2 "
		 "--set spool_dir=%s/spool2 --set backend=cpu > %s 2>&1", WESTD_BIN, FIX_TERRAIN,
		 w.port, w.dir, w.dir, w.dir, log);
	rc = system(cmd);
	cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) != 0 && WEXITSTATUS(rc) != 124,
		  "the second westd: status %d", rc);
	size_t len;
	char *text = fix_slurp(log, &len);
	snprintf(want, sizeof want, "cannot serve HTTP on 127.0.0.1:%d", w.port);
	cr_assert(text && strstr(text, want), "second westd's log: %s", text ? text : "(none)");
	free(text);
	for (int i = 0; i < 8; i++) {   /* every connection still reaches the first */
		struct http_resp r;
		fix_get(&w, "/livez", &r);
		cr_assert_eq(r.status, 200);
		fix_resp_free(&r);
	}
}

/* libmicrohttpd 0.9.75 stalls on a query whose per-piece argument records
 * overrun its connection's memory pool: no answer, no more reading, until
 * connection_timeout (30 s here).  westd refuses a target of more than
 * 8192 bytes (414) or a query of more than 128 '&'-separated pieces (400)
 * before the library parses it (service/http.c, "request targets"), and
 * answers every such request at once; a request line longer than the
 * library's pool gets its own 414.  Found by tests/fuzz/fuzz_http
 * (tests/fuzz/corpus/http/many_pieces_stall: 548 pieces, a stray '%'). */
Test(westd, long_queries_are_answered_at_once)
{
	char *q = fuzz_query("many_pieces_stall"), *t;
	char buf[1024];
	struct http_resp r;

	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	snprintf(buf, sizeof buf, "/collections/wind/position?%s", q);
	raw_get(buf, 5, &r);
	fix_problem(&r, 400, "bad-parameter", "more than 128 '&'-separated pieces");
	free(q);

	/* 128 pieces are taken, 129 are not */
	t = target_of(POINT_Q, '&', "", strlen(POINT_Q) + 125);
	raw_get(t, 5, &r);
	cr_expect_eq(r.status, 200, "128 pieces: %ld %s", r.status, r.body);
	fix_resp_free(&r);
	free(t);
	t = target_of(POINT_Q, '&', "", strlen(POINT_Q) + 126);
	raw_get(t, 5, &r);
	fix_problem(&r, 400, "bad-parameter", "more than 128 '&'-separated pieces");
	free(t);
	/* and a short query of thousands (which the library took to the end
	 * of its pool, then stalled) */
	t = target_of("/v1/status?", '&', "", 5000);
	raw_get(t, 5, &r);
	fix_problem(&r, 400, "bad-parameter", "pieces");
	free(t);

	/* 8192 bytes are taken (x with leading zeros), 8193 are not */
	t = target_of("/v1/field/point?x=", '0', PX "&y=" PY "&z=10", 8192);
	raw_get(t, 5, &r);
	cr_expect_eq(r.status, 200, "8192 bytes: %ld %s", r.status, r.body);
	fix_resp_free(&r);
	free(t);
	t = target_of("/v1/field/point?x=", '0', PX "&y=" PY "&z=10", 8193);
	raw_get(t, 5, &r);
	fix_problem(&r, 414, "uri-too-long", "longer than 8192 bytes");
	free(t);
	t = target_of("/collections/wind/position?", '&', "", 20000);
	raw_get(t, 5, &r);
	fix_problem(&r, 414, "uri-too-long", "longer than 8192 bytes");
	free(t);
	/* past the library's pool (32 KiB): its own 414, text/html */
	t = target_of("/v1/status?", '&', "", 40000);
	raw_get(t, 5, &r);
	cr_expect_eq(r.status, 414, "40000 bytes: %ld", r.status);
	fix_resp_free(&r);
	free(t);

	fix_get(&w, "/livez", &r);
	cr_expect_eq(r.status, 200);
	fix_resp_free(&r);
}

/* The u of a CoverageJSON answer's value i. */
static double cov_u(json_t *cov, size_t i)
{
	return json_number_value(json_array_get(json_object_get(json_object_get(
		json_object_get(cov, "ranges"), "u"), "values"), i));
}

/* crs: CRS84 (the default) or the CRS the collection advertises, nothing
 * else; datetime: the field's valid time must be in it, else there is no
 * data (404), never the field of another time. */
Test(westd, edr_crs_and_datetime)
{
	char q[512];
	struct http_resp r;
	double lon, lat;

	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	json_t *c = fix_get_json(&w, "/collections/wind");
	json_t *crs = json_object_get(c, "crs");
	cr_assert_str_eq(json_string_value(json_array_get(crs, 0)),
			 "http://www.opengis.net/def/crs/OGC/1.3/CRS84");
	cr_assert_str_eq(json_string_value(json_array_get(crs, 1)),
			 "http://www.opengis.net/def/crs/EPSG/0/32633");

	/* a position in lon/lat answers as at its x, y (the grid's CRS) */
	const struct west_crs utm33 = { .has_tm = 1, .lon0 = 15.0, .k0 = 0.9996,
					.false_easting = 500000.0 };
	cr_assert_eq(west_tm_inverse(&utm33, atof(PX), atof(PY), &lon, &lat, NULL, 0), WEST_OK);
	snprintf(q, sizeof q, "/collections/wind/position?coords=POINT(%.10f%%20%.10f)&z=10",
		 lon, lat);
	json_t *geo = coverage(q, "Point"), *grid = coverage(POS_Q, "Point");
	cr_expect(fabs(cov_u(geo, 0) - cov_u(grid, 0)) < 1e-4, "u %g (CRS84) != %g (grid)",
		  cov_u(geo, 0), cov_u(grid, 0));
	json_decref(geo);
	json_decref(grid);
	snprintf(q + strlen(q), sizeof q - strlen(q), "&crs=CRS84");
	expect_covjson_200(q);
	snprintf(q, sizeof q, "/collections/wind/position?coords=POINT(" PX "%%20" PY
		 ")&z=10&crs=%s", json_string_value(json_array_get(crs, 1)));
	expect_covjson_200(q);
	fix_get(&w, "/collections/wind/cube?bbox=504000,4652000,504300,4652200&z=10"
		"&crs=EPSG:4326", &r);
	fix_problem(&r, 400, "bad-parameter", "crs 'EPSG:4326' is not supported: crs=CRS84");
	fix_get(&w, "/collections/wind/cube?bbox=504000,4652000,504300,4652200&z=10"
		"&crs=WGS_1984_UTM_Zone_33N", &r);
	fix_problem(&r, 400, "bad-parameter", "crs=EPSG:32633");
	json_decref(c);

	/* a CRS84 box: the grid's columns whose centres are in it, in the
	 * grid's CRS; the same values as the grid box around them */
	json_t *cube = coverage("/collections/wind/cube?bbox=15.049,42.018,15.052,42.021&z=10",
				"Grid");
	json_t *sys = json_object_get(json_object_get(json_array_get(json_object_get(
		json_object_get(cube, "domain"), "referencing"), 0), "system"), "id");
	cr_expect_str_eq(json_string_value(sys), "http://www.opengis.net/def/crs/EPSG/0/32633");
	size_t nx = axis_len(cube, "x"), ny = axis_len(cube, "y");
	cr_expect(nx >= 2 && nx <= 4 && ny >= 3 && ny <= 5, "%zu x %zu columns", nx, ny);
	json_t *ax = json_object_get(json_object_get(json_object_get(cube, "domain"), "axes"), "x");
	json_t *ay = json_object_get(json_object_get(json_object_get(cube, "domain"), "axes"), "y");
	double x0 = json_number_value(json_array_get(json_object_get(ax, "values"), 0));
	double y0 = json_number_value(json_array_get(json_object_get(ay, "values"), 0));
	snprintf(q, sizeof q, "/collections/wind/cube?bbox=%.1f,%.1f,%.1f,%.1f&z=10" NATIVE,
		 x0 - 1, y0 - 1, x0 + (double)(nx - 1) * 100 + 1, y0 + (double)(ny - 1) * 100 + 1);
	json_t *same = coverage(q, "Grid");
	size_t inside = 0;
	for (size_t i = 0; i < nx * ny; i++) {
		json_t *v = json_array_get(json_object_get(json_object_get(json_object_get(
			cube, "ranges"), "u"), "values"), i);
		if (json_is_null(v))
			continue;   /* a corner of the envelope outside the lon/lat box */
		inside++;
		cr_expect(fabs(cov_u(cube, i) - cov_u(same, i)) < 1e-6, "value %zu", i);
	}
	cr_expect_gt(inside, nx * ny / 2);
	json_decref(same);
	json_decref(cube);

		/* the field is valid at 2026-11-22T12:00:00Z (data/obs/default.json) */
	fix_get(&w, POS_Q "&datetime=2020-01-01T00:00:00Z", &r);
	fix_problem(&r, 404, "no-data-at-time", "valid time 2026-11-22T12:00:00Z");
	fix_get(&w, POS_Q "&datetime=2026-11-22T12:00:01Z/..", &r);
	fix_problem(&r, 404, "no-data-at-time", NULL);
	fix_get(&w, "/collections/wind/cube?bbox=504000,4652000,504300,4652200&z=10"
		"&datetime=../2026-11-21T00:00:00Z", &r);
	fix_problem(&r, 404, "no-data-at-time", NULL);
	fix_get(&w, POS_Q "&datetime=yesterday", &r);
	fix_problem(&r, 400, "bad-parameter", "datetime 'yesterday'");
	fix_get(&w, POS_Q "&datetime=2026-11-23T00:00:00Z/2026-11-22T00:00:00Z", &r);
	fix_problem(&r, 400, "bad-parameter", "ends before it starts");
	expect_covjson_200(POS_Q "&datetime=2026-11-22T12:00:00Z");
	expect_covjson_200(POS_Q "&datetime=2026-11-22T00:00:00Z/2026-11-23T00:00:00Z");
	expect_covjson_200(POS_Q "&datetime=2026-11-22T11:00:00Z/..");
	expect_covjson_200(POS_Q "&datetime=2026-11-22T13:00:00%2B01:00");
}

/* A point given in lon/lat outside the domain is refused in degrees, with
 * the swap suggested when lat, lon would be inside; EDR coordinates that
 * read as degrees say so. */
Test(westd, lonlat_outside_the_domain_speaks_degrees)
{
	struct http_resp r;

	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	fix_get(&w, "/v1/field/point?lon=42.01&lat=15.06&z=10", &r);
	fix_problem(&r, 422, "point-not-in-air", "lon 42.01, lat 15.06 is outside the domain");
	fix_get(&w, "/v1/field/point?lon=42.01&lat=15.06&z=10", &r);
	fix_problem(&r, 422, NULL, "lon=15.06&lat=42.01 is inside");
	fix_get(&w, "/v1/field/profile?lon=42.01&lat=15.06", &r);
	fix_problem(&r, 422, "point-not-in-air", "lon=15.06&lat=42.01 is inside");
	/* outside either way: the domain in degrees, no swap, no metres */
	fix_get(&w, "/v1/field/point?lon=15.5&lat=42.01&z=10", &r);
	cr_assert_eq(r.status, 422);
	json_t *j = fix_json(&r);
	const char *det = json_string_value(json_object_get(j, "detail"));
	cr_assert_not_null(det);
	cr_expect(strstr(det, "lon 15.5, lat 42.01 is outside the domain (lon 15.0"), "%s", det);
	cr_expect(strstr(det, "WGS 84"), "%s", det);
	cr_expect(!strstr(det, "wrong way round"), "%s", det);
	cr_expect(!strstr(det, " m "), "metres in '%s'", det);
	json_decref(j);
	fix_resp_free(&r);

	/* EDR: CRS84 by default, in degrees; degrees given as grid x, y */
	fix_get(&w, "/collections/wind/position?coords=POINT(42.01%2015.06)&z=10", &r);
	fix_problem(&r, 400, "bad-parameter", "coords: lon 42.01, lat 15.06 is outside the "
		    "domain (lon 15.0");
	fix_get(&w, "/collections/wind/position?coords=POINT(42.01%2015.06)&z=10", &r);
	fix_problem(&r, 400, NULL, "POINT(15.06 42.01) is inside");
	expect_covjson_200("/collections/wind/position?coords=POINT(15.06%2042.01)&z=10");
	fix_get(&w, "/collections/wind/position?coords=POINT(" PX "%20" PY ")&z=10", &r);
	fix_problem(&r, 400, "bad-parameter", "add crs=http://www.opengis.net/def/crs/EPSG/0/32633 "
		    "to give metres");
	fix_get(&w, "/collections/wind/cube?bbox=504000,4652000,504300,4652200&z=10", &r);
	fix_problem(&r, 400, "bad-parameter", "bbox (CRS84): vertex 1 (lon 504000, lat 4652000)");
	fix_get(&w, "/collections/wind/position?coords=POINT(15.06%2042.01)&z=10" NATIVE, &r);
	fix_problem(&r, 400, "bad-parameter", "these look like degrees");
	fix_get(&w, "/collections/wind/position?coords=POINT(42.01%2015.06)&z=10" NATIVE, &r);
	fix_problem(&r, 400, "bad-parameter", "lon 15.06, lat 42.01 is x 5049");
	fix_get(&w, "/collections/wind/position?coords=POINT(0%200)&z=10" NATIVE, &r);
	fix_problem(&r, 400, "bad-parameter", "coords: x 0 m is outside");
}

/* ========================================================= bad input */

Test(westd, bad_input_keeps_the_field)
{
	const char *sets[] = { "api_token=" TOKEN, "max_body_bytes=2048", "connection_timeout=1",
			       NULL };
	struct http_resp r;

	fix_start(&w, sets);
	char *body = fix_obs_body(6.0, -1);
	fix_post_ok(&w, body, AUTH, NULL, NULL);
	fix_wait_version(&w, 1);
	struct wind before = point_wind();

	post_as("application/json", "{\"observations\": [{\"id\": ", 25, &r);
	fix_problem(&r, 400, NULL, NULL);
	expect_unchanged(&before, "malformed JSON");

	char *fast = strdup(body), *p = strstr(fast, "\"speed\":");
	cr_assert_not_null(p);
	memcpy(p + 8, "\"f\"", 3);    /* "speed":"f"... a string where a number goes */
	for (char *q = p + 11; *q && *q != ','; q++)
		*q = ' ';
	post_as("application/json", fast, strlen(fast), &r);
	fix_problem(&r, 400, "invalid-observations", "speed");
	expect_unchanged(&before, "speed as a string");
	free(fast);

	char *huge = malloc(2049);
	cr_assert_not_null(huge);
	memset(huge, ' ', 2049);
	memcpy(huge, body, strlen(body));  /* valid JSON, then blanks past the cap */
	post_as("application/json", huge, 2049, &r);
	fix_problem(&r, 413, "body-too-large", "2048");
	expect_unchanged(&before, "a body of max_body_bytes + 1");
	free(huge);

	/* a client that stalls mid-body is cut off after connection_timeout */
	int fd = fix_connect(&w);
	const char *req = "POST /v1/observations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
			  TOKEN "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{";
	cr_assert_eq(send(fd, req, strlen(req), MSG_NOSIGNAL), (ssize_t)strlen(req));
	sleep(3);
	char buf[512];
	ssize_t got;
	do
		got = recv(fd, buf, sizeof buf, 0);
	while (got > 0);
	cr_expect(got == 0 || errno == ECONNRESET, "the stalled connection is still open "
		  "(recv: %s)", got < 0 ? strerror(errno) : "data");
	close(fd);
	expect_unchanged(&before, "a stalled upload");

	const char *paths[] = { "/v1/snapshots/..%2Fstate%2Fobservations",
				"/v1/snapshots/../../etc/passwd",
				"/v1/snapshots/..%2F..%2F..%2Fetc%2Fpasswd",
				"/v1/snapshots/%2e%2e/state", "/v1/snapshots/.", NULL };
	for (int i = 0; paths[i]; i++) {
		fix_http_ex(&w, "GET", paths[i], NULL, 0, NULL, 1, &r);
		cr_expect(!r.body || !strstr(r.body, "root:"), "%s leaks a file", paths[i]);
		fix_problem(&r, 404, NULL, NULL);
		expect_unchanged(&before, paths[i]);
	}

	fix_get(&w, "/v1/observation", &r);
	fix_problem(&r, 404, "not-found", NULL);
	expect_unchanged(&before, "an unknown route");
	fix_http(&w, "DELETE", "/v1/observations", NULL, 0, AUTH, &r);
	fix_problem(&r, 405, "method-not-allowed", NULL);
	expect_unchanged(&before, "DELETE /v1/observations");

	char *other = fix_obs_body(12.0, 12.0);
	const char *wrong[] = { "Authorization: Bearer " TOKEN "x", NULL };
	const char *basic[] = { "Authorization: Basic czNjcmV0LXRva2Vu", NULL };
	fix_post_json(&w, other, NULL, &r);
	fix_problem(&r, 401, "unauthorized", NULL);
	expect_unchanged(&before, "a POST without a token");
	fix_post_json(&w, other, wrong, &r);
	fix_problem(&r, 401, "unauthorized", NULL);
	expect_unchanged(&before, "a POST with a wrong token");
	fix_post_json(&w, other, basic, &r);
	fix_problem(&r, 401, "unauthorized", NULL);
	expect_unchanged(&before, "a POST with Basic auth");
	free(other);

	json_t *h = history();
	cr_expect_eq(json_array_size(h), 1, "a refused request was recorded");
	json_decref(h);
	/* only the one accepted set was persisted */
	char dir[128];
	int files = 0;
	snprintf(dir, sizeof dir, "%s/state/observations", w.dir);
	DIR *d = opendir(dir);
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));)
		files += e->d_name[0] != '.';
	closedir(d);
	cr_expect_eq(files, 1, "%d sets saved", files);
	free(body);
}

/* ============================================================ bursts */

/* Wait (at most 60 s) until no record of the history is pending. */
static json_t *settled_history(void)
{
	for (double t0 = fix_now(); fix_now() - t0 < 60; usleep(50000)) {
		json_t *h = history();
		int pending = 0;
		for (size_t i = 0; i < json_array_size(h); i++)
			pending |= !strcmp(json_string_value(json_object_get(json_array_get(h, i),
									     "status")), "pending");
		if (!pending)
			return h;
		json_decref(h);
	}
	cr_assert_fail("a set stays pending in the history for 60 s");
	return NULL;
}

Test(westd, ingest_burst_of_100)
{
	enum { N = 100 };
	unsigned long long ids[N], version = 0;
	struct http_resp r;

	fix_start(&w, NULL);
	for (int i = 0; i < N; i++) {
		char *body = fix_obs_body(1 + i * 0.05, -1);
		fix_post_json(&w, body, NULL, &r);
		free(body);
		cr_assert_eq(r.status, 202, "POST %d: %ld %s", i, r.status, r.body ? r.body : "");
		json_t *j = fix_json(&r);
		ids[i] = (unsigned long long)integer(j, "id");
		version = (unsigned long long)integer(j, "field_version");
		json_decref(j);
		fix_resp_free(&r);
		if (i)
			cr_expect_gt(ids[i], ids[i - 1], "ids grow");
	}
	fix_wait_version(&w, version);
	fix_wait_idle(&w);

	json_t *o = fix_get_json(&w, "/v1/observations"), *cur = json_object_get(o, "current");
	cr_expect_eq((unsigned long long)integer(cur, "id"), ids[N - 1]);
	cr_expect_eq((unsigned long long)integer(cur, "field_version"), version);
	json_t *obs = json_object_get(cur, "observations");
	cr_assert_eq(json_array_size(obs), 3);
	cr_expect(fabs(num(json_array_get(obs, 0), "speed") - (1 + (N - 1) * 0.05)) < 1e-9,
		  "current speed %g", num(json_array_get(obs, 0), "speed"));
	cr_expect_eq(num(json_array_get(obs, 1), "speed"), 7.0);
	json_decref(o);
	json_t *s = fix_get_json(&w, "/v1/status"), *f = json_object_get(s, "field");
	cr_expect_eq((unsigned long long)integer(f, "observation_set"), ids[N - 1]);
	cr_expect_eq((unsigned long long)integer(f, "version"), version);
	cr_expect_eq(integer(json_object_get(s, "queue"), "failed"), 0);
	json_decref(s);

	json_t *h = settled_history();
	cr_expect_eq(json_array_size(h), N);
	for (int i = 0; i < N; i++) {
		const char *st = NULL;
		for (size_t k = 0; k < json_array_size(h); k++)
			if ((unsigned long long)json_integer_value(json_object_get(json_array_get(h, k),
										  "id")) == ids[i])
				st = json_string_value(json_object_get(json_array_get(h, k), "status"));
		cr_expect_not_null(st, "id %llu is not in the history", ids[i]);
		if (st)
			cr_expect(!strcmp(st, "solved") || !strcmp(st, "superseded"),
				  "id %llu: %s", ids[i], st);
	}
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(h, 0), "status")),
			 "solved", "the last set");
	json_decref(h);
}

/* ================================================ readers vs recomputes */

enum { NSETS = 50 };

/* Set id (1 = the first POST of the test) has all stations at this speed. */
static double set_speed(long long id)
{
	return 2.0 + 0.1 * (double)(id - 1);
}

struct poster {
	int done, bad;        /* bad: a POST not 202, or an unexpected id */
	char why[256];
};

static void *post_sets(void *arg)
{
	struct poster *p = arg;
	for (int i = 0; i < NSETS && !p->bad; i++) {
		long long id = i + 2;
		char *body = fix_obs_body(set_speed(id), set_speed(id));
		struct http_resp r;
		fix_post_json(&w, body, NULL, &r);
		free(body);
		json_error_t e;
		json_t *j = r.status == 202 ? json_loadb(r.body, r.len, 0, &e) : NULL;
		if (!j || json_integer_value(json_object_get(j, "id")) != id) {
			p->bad = 1;
			snprintf(p->why, sizeof p->why, "POST %d: %ld %.200s", i, r.status,
				 r.body ? r.body : "");
		}
		/* one recompute per set: wait for its version (no asserts here) */
		long long v = json_integer_value(json_object_get(j, "field_version"));
		json_decref(j);
		fix_resp_free(&r);
		for (double t0 = fix_now(); !p->bad && fix_now() - t0 < 60; usleep(2000)) {
			fix_get(&w, "/v1/status", &r);
			json_t *s = r.status == 200 ? json_loadb(r.body, r.len, 0, &e) : NULL;
			long long now = json_integer_value(json_object_get(json_object_get(s, "field"),
									   "version"));
			json_decref(s);
			fix_resp_free(&r);
			if (now >= v)
				break;
		}
	}
	__atomic_store_n(&p->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* One profile read: checks that its values belong to its version's set
 * (seen[id]: the speed that set gave before; a set's speed rises with its
 * stations' speed, so the sets seen so far must stay in order), that the
 * version did not go back, and that a pinned re-read of the same version
 * has the same levels. */
static void read_once(long long *last, double *seen, int *pinned)
{
	json_t *a = fix_get_json(&w, PROFILE_Q);
	long long v = integer(a, "version"), id = integer(a, "observation_set");
	json_t *lv = json_object_get(a, "levels");
	double sp = num(json_array_get(lv, 2), "speed");

	cr_assert_geq(v, *last, "version went back from %lld to %lld", *last, v);
	*last = v;
	cr_assert(id >= 1 && id <= NSETS + 1, "set %lld", id);
	if (seen[id] == 0)
		seen[id] = sp;
	cr_assert(fabs(sp - seen[id]) <= 1e-6 * seen[id], "v%lld (set %lld): speed %.6f, "
		  "%.6f before: values of another set", v, id, sp, seen[id]);
	for (long long o = 1; o <= NSETS + 1; o++)
		cr_assert(!seen[o] || (o < id ? seen[o] < sp : o > id ? seen[o] > sp : 1),
			  "v%lld (set %lld): speed %.6f out of order with set %lld's %.6f: "
			  "values of another set", v, id, sp, o, seen[o]);
	char q[128];
	struct http_resp r;
	snprintf(q, sizeof q, PROFILE_Q "&version=%lld", v);
	fix_get(&w, q, &r);
	if (r.status == 200) {
		json_t *b = fix_json(&r);
		cr_assert(json_equal(lv, json_object_get(b, "levels")), "v%lld changed", v);
		cr_assert_eq(integer(b, "observation_set"), id);
		json_decref(b);
		(*pinned)++;
	} else {
		cr_assert_eq(r.status, 404, "pinned v%lld: %ld", v, r.status);  /* evicted */
	}
	fix_resp_free(&r);
	json_decref(a);
}

/* (Short solves, a multigrid cycle or 10 SOR iterations: the test is about
 * publishing, not convergence.) */
Test(westd, readers_never_see_mixed_versions)
{
	const char *sets[] = { "iterations=10", "cycles=1", "snapshot_dir=", NULL };
	struct poster p = { 0 };
	pthread_t t;
	long long last = 0;
	double seen[NSETS + 2] = { 0 };
	int pinned = 0, reads = 0;

	fix_start(&w, sets);
	char *body = fix_obs_body(set_speed(1), set_speed(1));
	fix_post_ok(&w, body, NULL, NULL, NULL);
	free(body);
	fix_wait_version(&w, 1);
	read_once(&last, seen, &pinned);
	cr_assert_eq(pthread_create(&t, NULL, post_sets, &p), 0);
	while (!__atomic_load_n(&p.done, __ATOMIC_SEQ_CST)) {
		read_once(&last, seen, &pinned);
		json_t *pt = fix_get_json(&w, POINT_Q);
		cr_assert_geq(integer(pt, "version"), last);
		json_decref(pt);
		reads++;
	}
	pthread_join(t, NULL);
	cr_assert_eq(p.bad, 0, "%s", p.why);
	fix_wait_idle(&w);
	read_once(&last, seen, &pinned);
	cr_expect_eq(last, NSETS + 1, "one version per set");
	json_t *pt = fix_get_json(&w, POINT_Q);
	cr_expect_eq(integer(pt, "observation_set"), NSETS + 1, "the last set is served");
	json_decref(pt);
	cr_expect_geq(pinned, 2);
	cr_log_info("%d reads during the recomputes, %d pinned re-reads, last v%lld", reads,
		    pinned, last);
}

/* ============================================================ reload */

/* 1 when GET /v1/field/slice?z=10 (23040 values) answers 200, 0 for 413. */
static int full_slice_ok(void)
{
	struct http_resp r;
	fix_get(&w, "/v1/field/slice?z=10", &r);
	int ok = r.status == 200;
	if (!ok)
		fix_problem(&r, 413, "too-many-cells", "max_response_cells = 1000");
	else
		fix_resp_free(&r);
	return ok;
}

Test(westd, sighup_reload)
{
	fix_mkdir(&w);
	fix_write(&w, "westd.conf", "# test config\nmax_response_cells = 100000\n", w.conf,
		  sizeof w.conf);
	fix_start_in(&w, 1, NULL);
	fix_post_and_wait(&w);
	struct wind before = point_wind();
	cr_expect(full_slice_ok());

	/* a syntax error: refused whole, the 1000 in it not applied */
	fix_write(&w, "westd.conf", "max_response_cells = 1000\nthis line is no key\n", NULL, 0);
	kill(w.pid, SIGHUP);
	fix_wait_log(&w, "reload refused", 1);
	cr_expect(full_slice_ok(), "the refused config's max_response_cells was applied");
	expect_unchanged(&before, "a refused reload");

	/* a key a reload cannot change */
	fix_write(&w, "westd.conf", "max_response_cells = 1000\nhttp_threads = 2\n", NULL, 0);
	kill(w.pid, SIGHUP);
	fix_wait_log(&w, "reload refused", 2);
	cr_expect_eq(fix_log_count(&w, "http_threads"), 1, "the refusal names the key");
	cr_expect(full_slice_ok());

	/* a good one */
	fix_write(&w, "westd.conf", "max_response_cells = 1000\n", NULL, 0);
	kill(w.pid, SIGHUP);
	fix_wait_log(&w, "reloaded", 1);
	cr_expect(!full_slice_ok(), "max_response_cells = 1000 did not take effect");
	json_t *s = fix_get_json(&w, "/v1/field/slice?z=10&stride=8");
	cr_expect_eq(json_array_size(json_object_get(s, "x")), 12);
	json_decref(s);
	expect_unchanged(&before, "a good reload");
	cr_expect_eq(fix_stop(&w), 0);
}

/* Copy the file src to w.dir/name. */
static void copy_to_dir(const char *src, const char *name)
{
	size_t n;
	char *text = fix_slurp(src, &n);

	fix_write(&w, name, text, NULL, 0);
	free(text);
}

/* A faulting terrain reader (a crash inside GDAL, PROJ or libnetcdf on a bad
 * file, terrain_child.c): the reload is refused, naming the signal, and
 * the running terrain and field stay; once the file reads, a reload
 * takes it. */
Test(westd, reload_with_a_crashing_terrain_reader_keeps_serving)
{
	char terrain[300], set[320], fault[300];
	const char *sets[] = { set, NULL };

	fix_mkdir(&w);
	snprintf(terrain, sizeof terrain, "%s/t.asc", w.dir);
	snprintf(set, sizeof set, "terrain=%s", terrain);
	snprintf(fault, sizeof fault, "%s/fault", w.dir);
	copy_to_dir(FIX_TERRAIN, "t.asc");
	copy_to_dir(WEST_SRCDIR "/data/default.prj", "t.prj");
	setenv("WEST_TERRAIN_CHILD_FAULT", fault, 1);
	fix_start_in(&w, 1, sets);
	unsetenv("WEST_TERRAIN_CHILD_FAULT");
	fix_post_and_wait(&w);
	struct wind before = point_wind();

	fix_write(&w, "fault", "", NULL, 0);   /* the next read crashes */
	copy_to_dir(WEST_SRCDIR "/data/hill.asc", "t.asc");
	kill(w.pid, SIGHUP);
	fix_wait_log(&w, "reload refused", 1);
	cr_expect_eq(fix_log_count(&w, "was killed by signal 11"), 1,
		     "the refusal names the reader's death");
	expect_unchanged(&before, "a reload whose terrain reader crashed");

	cr_assert_eq(unlink(fault), 0);
	kill(w.pid, SIGHUP);
	fix_wait_log(&w, "reloaded", 1);
	json_t *st = fix_get_json(&w, "/v1/status");
	json_t *grid = json_object_get(st, "grid");
	cr_expect_eq(integer(grid, "nx"), 32, "hill.asc's 32 columns after the reload");
	json_decref(st);
	cr_expect_eq(fix_stop(&w), 0);
}

/* ===================================================== terrain in a child */

/* west_dem_load_child through westd gives west_dem_load's DEM, bit for bit
 * (heights, grid, CRS and its WKT), and its refusals word for word. */
Test(terrain_child, same_dem_and_refusals_as_in_process)
{
	/* ESRI ASCII with its .prj, CF NetCDF, GeoTIFFs read as they are and
	 * warped (refused alike without GDAL), and a file that is no DEM */
	const char *files[] = { WEST_SRCDIR "/data/default.asc", WEST_SRCDIR "/data/hill.nc",
				WEST_SRCDIR "/tests/fuzz/corpus/dem_gdal/utm33.tif",
				WEST_SRCDIR "/tests/fuzz/corpus/dem_gdal/geographic.tif",
				WEST_SRCDIR "/data/obs/default.csv" };
	struct west_dem_opts o = { .nodata = WEST_NODATA_FILL, .max_cells = 1u << 20 };

	for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
		struct west_dem a, b;
		char ea[WEST_ERRLEN] = "", eb[WEST_ERRLEN] = "";
		enum west_status sa = west_dem_load(&a, files[f], &o, ea, sizeof ea);
		enum west_status sb = west_dem_load_child(&b, WESTD_BIN, files[f], &o, eb, sizeof eb);

		cr_assert_eq(sb, sa, "%s: %s against %s (%s)", files[f], west_status_str(sb),
			     west_status_str(sa), eb);
		if (sa) {
			cr_expect_str_eq(eb, ea, "%s", files[f]);
			continue;
		}
		cr_assert(a.nx == b.nx && a.ny == b.ny && a.dx == b.dx && a.dy == b.dy &&
			  a.x0 == b.x0 && a.y0 == b.y0, "%s: the grid", files[f]);
		cr_expect_eq(memcmp(a.z, b.z, a.nx * a.ny * sizeof *a.z), 0, "%s: heights", files[f]);
		cr_expect(a.crs.has_tm == b.crs.has_tm && a.crs.lon0 == b.crs.lon0 &&
			  a.crs.lat0 == b.crs.lat0 && a.crs.k0 == b.crs.k0 &&
			  a.crs.false_easting == b.crs.false_easting &&
			  a.crs.false_northing == b.crs.false_northing &&
			  a.crs.tm_other_ellipsoid == b.crs.tm_other_ellipsoid, "%s: CRS", files[f]);
		cr_expect_str_eq(b.crs.grid_mapping_name, a.crs.grid_mapping_name);
		cr_expect((a.crs.wkt == NULL) == (b.crs.wkt == NULL), "%s: WKT", files[f]);
		if (a.crs.wkt && b.crs.wkt)
			cr_expect_str_eq(b.crs.wkt, a.crs.wkt);
		west_dem_free(&a);
		west_dem_free(&b);
	}
}

/* A reader that dies, one that hangs, one that does not answer, one that
 * cannot start: each a refusal naming the file, the DEM left zeroed. */
Test(terrain_child, a_dead_or_silent_reader_is_a_refusal)
{
	const char *path = WEST_SRCDIR "/data/default.asc";
	char fault[] = "/tmp/westd-fault.XXXXXX", err[WEST_ERRLEN];
	struct west_dem d;
	int fd = mkstemp(fault);

	cr_assert_geq(fd, 0);
	close(fd);
	setenv("WEST_TERRAIN_CHILD_FAULT", fault, 1);
	cr_expect_eq(west_dem_load_child(&d, WESTD_BIN, path, NULL, err, sizeof err),
		     WEST_ERR_INVALID);
	unsetenv("WEST_TERRAIN_CHILD_FAULT");
	cr_expect(strstr(err, path) && strstr(err, "killed by signal 11"), "%s", err);
	cr_expect(d.z == NULL && d.nx == 0 && d.crs.wkt == NULL);

	/* one that hangs, stopped at the timeout */
	struct west_dem_opts slow = { .timeout = 0.5 };
	FILE *h = fopen(fault, "w");
	cr_assert_not_null(h);
	fputs("hang", h);
	fclose(h);
	setenv("WEST_TERRAIN_CHILD_FAULT", fault, 1);
	double t0 = fix_now();
	cr_expect_eq(west_dem_load_child(&d, WESTD_BIN, path, &slow, err, sizeof err),
		     WEST_ERR_INVALID);
	unsetenv("WEST_TERRAIN_CHILD_FAULT");
	cr_expect_lt(fix_now() - t0, 30.0, "the reader was not stopped");
	cr_expect(strstr(err, "did not finish within terrain_timeout = 0.5 s"), "%s", err);

	cr_expect_eq(west_dem_load_child(&d, "/bin/true", path, NULL, err, sizeof err),
		     WEST_ERR_IO);
	cr_expect(strstr(err, "gave no answer"), "%s", err);
	cr_expect_eq(west_dem_load_child(&d, "/bin/false", path, NULL, err, sizeof err),
		     WEST_ERR_IO);
	cr_expect(strstr(err, "exited with status 1"), "%s", err);
	cr_expect_eq(west_dem_load_child(&d, "/nonexistent/westd", path, NULL, err, sizeof err),
		     WEST_ERR_IO);
	cr_expect(strstr(err, "cannot start the terrain reader"), "%s", err);
	cr_expect(d.z == NULL && d.nx == 0);
	unlink(fault);
}

/* ====================================================== crash, restart */

/* ncdump -h path succeeds. */
static int nc_opens(const char *path)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "ncdump -h '%s' >/dev/null 2>&1", path);
	return system(cmd) == 0;
}

/* Every well-named snapshot on disk opens; the count of them. */
static int check_snapshot_files(const char *when)
{
	char dir[128], path[400];
	int n = 0;
	snprintf(dir, sizeof dir, "%s/snapshots", w.dir);
	DIR *d = opendir(dir);
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			cr_log_info("%s: temp leftover %s", when, e->d_name);
		if (!fix_snapshot_name(e->d_name))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		cr_expect(nc_opens(path), "%s: %s does not open (partial?)", when, e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

/* Wait until this run of the daemon has written the snapshot of v. */
static void wait_written(unsigned long long v)
{
	char prefix[32];
	snprintf(prefix, sizeof prefix, "wind-v%llu-", v);
	for (double t0 = fix_now(); fix_now() - t0 < 60; usleep(20000)) {
		json_t *s = fix_get_json(&w, "/v1/status");
		const char *last = json_string_value(json_object_get(json_object_get(s, "snapshots"),
								     "last"));
		int done = last && !strncmp(last, prefix, strlen(prefix));
		json_decref(s);
		if (done)
			return;
	}
	fix_dump_log(&w);
	cr_assert_fail("snapshot of v%llu not written within 60 s", v);
}

/* The inode of snapshots/wind-v<v>-20261122T120000Z.nc (0: none). */
static ino_t snapshot_inode(unsigned long long v)
{
	char path[256];
	struct stat sb;
	snprintf(path, sizeof path, "%s/snapshots/wind-v%llu-20261122T120000Z.nc", w.dir, v);
	return stat(path, &sb) ? 0 : sb.st_ino;
}

/* Wait (at most 30 s) until a temp file shows in the snapshot directory
 * (1), or a new file (not inode old: an older run's) holds the snapshot of
 * v (0). */
static int wait_write_begins(unsigned long long v, ino_t old)
{
	char dir[128];
	snprintf(dir, sizeof dir, "%s/snapshots", w.dir);
	for (double t0 = fix_now(); fix_now() - t0 < 30; usleep(500)) {
		DIR *d = opendir(dir);
		int found = 0;
		cr_assert_not_null(d);
		for (struct dirent *e; !found && (e = readdir(d));)
			found = e->d_name[0] == '.' && strcmp(e->d_name, ".") &&
				strcmp(e->d_name, "..");
		closedir(d);
		if (found)
			return 1;
		ino_t now = snapshot_inode(v);
		if (now && now != old)
			return 0;
	}
	fix_dump_log(&w);
	cr_assert_fail("no snapshot write of v%llu began within 30 s", v);
	return 0;
}

/* 0 temp files in the snapshot directory (names starting with '.'). */
static int temp_files(void)
{
	char dir[128];
	int n = 0;
	snprintf(dir, sizeof dir, "%s/snapshots", w.dir);
	DIR *d = opendir(dir);
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

Test(westd, kill9_during_snapshot_write)
{
	unsigned seed = 12345;
	int hit = 0;

	for (int round = 0; round < 4; round++) {
		fix_start_in(&w, round > 0, NULL);
		if (round == 0)
			fix_post_and_wait(&w);
		else
			fix_wait_version(&w, 1);          /* the resumed set */
		unsigned long long v = fix_version(&w);
		wait_written(v);
		char name[64], path[256];
		snprintf(name, sizeof name, "wind-v%llu-20261122T120000Z.nc", v);
		snprintf(path, sizeof path, "%s/snapshots/%s", w.dir, name);

		ino_t old = snapshot_inode(v + 1);
		char *body = fix_obs_body(3.0 + round, 3.0 + round);
		fix_post_ok(&w, body, NULL, NULL, NULL);
		free(body);
		/* kill once the next snapshot's write has begun, a little later */
		hit += wait_write_begins(v + 1, old);
		usleep((useconds_t)(rand_r(&seed) % 60) * 1000);
		kill(w.pid, SIGKILL);
		cr_assert_eq(waitpid(w.pid, NULL, 0), w.pid);
		w.pid = 0;

		cr_expect(nc_opens(path), "round %d: the previous snapshot %s is damaged",
			  round, name);
		int n = check_snapshot_files("after kill -9");
		cr_expect_geq(n, 1);
	}
	cr_log_info("%d of 4 kills came during a snapshot write", hit);
	/* a last start: the listing holds the well-named files only, and the
	 * crash's temp files are swept */
	fix_start_in(&w, 1, NULL);
	fix_wait_version(&w, 1);
	wait_written(fix_version(&w));
	cr_expect_eq(temp_files(), 0, "temp files left after a restart");
	int n = check_snapshot_files("after the restart");
	json_t *j = fix_get_json(&w, "/v1/snapshots"), *l = json_object_get(j, "snapshots");
	cr_expect_eq((int)json_array_size(l), n);
	for (size_t i = 0; i < json_array_size(l); i++) {
		const char *nm = json_string_value(json_object_get(json_array_get(l, i), "name"));
		cr_expect(nm && nm[0] != '.' && fix_snapshot_name(nm), "listed: %s", nm);
	}
	json_decref(j);
}

Test(westd, restart_resumes_the_newest_set)
{
	unsigned long long id_b, v_b, id_c;

	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	char *b = fix_obs_body(3.25, 3.25);
	fix_post_ok(&w, b, NULL, &id_b, &v_b);
	free(b);
	fix_wait_version(&w, v_b);
	struct wind served = point_wind();
	cr_expect_eq(fix_stop(&w), 0);

	fix_start_in(&w, 1, NULL);
	fix_wait_version(&w, 1);
	json_t *o = fix_get_json(&w, "/v1/observations"), *cur = json_object_get(o, "current");
	cr_expect_eq((unsigned long long)integer(cur, "id"), id_b);
	/* versions go on after the newest snapshot (v_b, flushed at stop) */
	cr_expect_eq((unsigned long long)integer(cur, "field_version"), v_b + 1);
	cr_expect(fabs(num(json_array_get(json_object_get(cur, "observations"), 0), "speed") -
		       3.25) < 1e-9);
	json_t *h = json_object_get(o, "history");
	int found = 0;
	for (size_t i = 0; i < json_array_size(h); i++)
		found |= (unsigned long long)json_integer_value(json_object_get(json_array_get(h, i),
									      "id")) == id_b;
	cr_expect(found, "the resumed set %llu is not in the history", id_b);
	json_decref(o);
	struct wind now = point_wind();
	cr_expect(fabs(now.u - served.u) < 1e-5 && fabs(now.v - served.v) < 1e-5,
		  "the resumed field differs from the one served before the stop");

	char *c = fix_obs_body(4.0, -1);
	fix_post_ok(&w, c, NULL, &id_c, NULL);
	free(c);
	cr_expect_eq(id_c, id_b + 1, "ids go on after a restart");
}

/* A set the daemon cannot save is answered 503 not-stored and never
 * applied, though it was solved while the save ran (service/worker.h's
 * held submits); the next set, saved, takes the version it would have had. */
Test(westd, an_unsaved_set_is_never_applied)
{
	char from[256], to[256];
	struct http_resp r;
	unsigned long long v;

	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	struct wind before = point_wind();
	snprintf(from, sizeof from, "%s/state/observations", w.dir);
	snprintf(to, sizeof to, "%s/state/observations.away", w.dir);
	cr_assert_eq(rename(from, to), 0, "%s: %s", from, strerror(errno));
	char *body = fix_obs_body(9.0, 9.0);
	fix_post_json(&w, body, NULL, &r);
	fix_problem(&r, 503, "not-stored", "nothing was applied");
	usleep(500000);   /* far longer than the solve it started */
	expect_unchanged(&before, "a set that could not be saved");
	cr_assert_eq(rename(to, from), 0, "%s: %s", to, strerror(errno));
	fix_post_ok(&w, body, NULL, NULL, &v);
	cr_expect_eq(v, (unsigned long long)before.version + 1, "the unsaved set took a version");
	fix_wait_version(&w, v);
	struct wind now = point_wind();
	cr_expect(now.u != before.u || now.v != before.v, "the saved set changed nothing");
	free(body);
}

/* ============================================================= spool */

static int exists(const char *rel)
{
	char path[256];
	struct stat sb;
	snprintf(path, sizeof path, "%s/%s", w.dir, rel);
	return stat(path, &sb) == 0;
}

static void wait_exists(const char *rel)
{
	for (double t0 = fix_now(); fix_now() - t0 < 30; usleep(20000))
		if (exists(rel))
			return;
	fix_dump_log(&w);
	cr_assert_fail("%s/%s did not appear within 30 s", w.dir, rel);
}

/* Write spool/name.tmp, then rename it to spool/name. */
static void spool_drop(const char *name, const char *text)
{
	char tmp[96], from[256], to[256];
	snprintf(tmp, sizeof tmp, "spool/%s.tmp", name);
	fix_write(&w, tmp, text, from, sizeof from);
	snprintf(to, sizeof to, "%s/spool/%s", w.dir, name);
	cr_assert_eq(rename(from, to), 0, "%s", strerror(errno));
}

Test(westd, spool_takes_good_and_refuses_bad)
{
	fix_start(&w, NULL);
	fix_post_and_wait(&w);

	char *good = fix_obs_body(5.5, -1);
	char tmp[256];
	fix_write(&w, "spool/good.json.tmp", good, tmp, sizeof tmp);
	usleep(1200000);       /* two scan intervals: a temp name is never taken */
	cr_expect(exists("spool/good.json.tmp"), "the temp file was touched");
	cr_expect_eq(fix_version(&w), 1);
	unlink(tmp);
	spool_drop("good.json", good);
	free(good);
	fix_wait_version(&w, 2);
	wait_exists("spool/done/good.json");
	cr_expect(!exists("spool/good.json"));
	json_t *h = settled_history(), *h0 = json_array_get(h, 0);
	cr_expect_str_eq(json_string_value(json_object_get(h0, "source")), "spool");
	cr_expect_str_eq(json_string_value(json_object_get(h0, "status")), "solved");
	json_decref(h);
	json_t *o = fix_get_json(&w, "/v1/observations");
	cr_expect(fabs(num(json_array_get(json_object_get(json_object_get(o, "current"),
							  "observations"), 0), "speed") - 5.5) < 1e-9);
	json_decref(o);

	spool_drop("bad.json", "{\"observations\":[{\"id\":\"A\",\"x\":504850,\"y\":4652050,"
		   "\"height\":10,\"speed\":\"fast\",\"direction\":250,"
		   "\"time\":\"2026-11-22T12:00:00Z\"}]}");
	wait_exists("spool/failed/bad.json.error");
	cr_expect(exists("spool/failed/bad.json"));
	cr_expect(!exists("spool/bad.json"));
	char path[256];
	size_t n;
	snprintf(path, sizeof path, "%s/spool/failed/bad.json.error", w.dir);
	char *why = fix_slurp(path, &n);
	cr_expect_not_null(strstr(why, "speed"), ".error: %s", why);
	free(why);

	spool_drop("bad2.csv", "this is not,a csv\n");
	wait_exists("spool/failed/bad2.csv.error");
	cr_expect_eq(fix_version(&w), 2, "a refused spool file changed the field");
	h = history();
	cr_expect_eq(json_array_size(h), 2, "a refused spool file is in the history");
	json_decref(h);
}

/* =========================================== WindNinja's station files */

#define TS_CSV WEST_SRCDIR "/data/obs/timeseries.csv"
#define LIST_DIR WEST_SRCDIR "/data/obs/stations"
#define MET_N "MET-N-UTC-2026-11-22_1000-2026-11-22_1200-0.csv"
#define MET_S "MET-S-UTC-2026-11-22_0928-2026-11-22_1128-1.csv"

static const char *str(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	cr_assert_not_null(v, "%s is not a string", key);
	return v;
}

/* A time series POSTed as it is (BOM, CRLF, quoted header): the newest
 * record of each station, and the answer and the log say which times. */
Test(westd, post_windninja_time_series_keeps_the_newest_and_says_so)
{
	struct http_resp r;

	fix_start(&w, NULL);
	fix_post_file(&w, TS_CSV, NULL, &r);
	cr_assert_eq(r.status, 202, "%s", r.body);
	json_t *j = fix_json(&r), *t = json_object_get(j, "times");
	cr_expect_eq(integer(j, "stations"), 3);
	cr_expect_str_eq(str(j, "valid_time"), "2026-11-22T12:00:00Z");
	cr_assert(json_is_object(t), "no times member: %s", r.body);
	cr_expect_str_eq(str(t, "pick"), "newest");
	cr_expect_eq(integer(t, "records"), 10);
	cr_expect_str_eq(str(t, "oldest"), "2026-11-22T08:59:00Z");
	cr_expect_str_eq(str(t, "newest"), "2026-11-22T12:00:00Z");
	cr_expect_eq(integer(t, "undated"), 0);
	cr_expect_null(json_object_get(t, "received"));
	json_decref(j);
	fix_resp_free(&r);
	fix_wait_version(&w, 1);
	j = fix_get_json(&w, "/v1/observations");
	json_t *obs = json_object_get(json_object_get(j, "current"), "observations");
	cr_assert_eq(json_array_size(obs), 3);
	cr_expect_str_eq(str(json_array_get(obs, 0), "id"), "MET-N");
	cr_expect(fabs(num(json_array_get(obs, 0), "speed") - 5.1) < 1e-9);
	cr_expect_str_eq(str(json_array_get(obs, 1), "time"), "2026-11-22T11:28:00Z");
	json_decref(j);
	cr_expect_eq(fix_log_count(&w, "observation set 1 (http): 3 stations, the newest "
				   "record of each (10 records read): 2026-11-22T08:59:00Z "
				   "to 2026-11-22T12:00:00Z"), 1);
}

/* Current data (rows without date_time) take the time of receipt. */
Test(westd, post_current_data_takes_the_time_of_receipt)
{
	struct http_resp r;
	long long t0 = (long long)time(NULL), got;

	fix_start(&w, NULL);
	fix_post_file(&w, WEST_SRCDIR "/data/obs/current.csv", NULL, &r);
	cr_assert_eq(r.status, 202, "%s", r.body);
	json_t *j = fix_json(&r), *t = json_object_get(j, "times");
	cr_assert(west_obs_time_parse(str(t, "received"), &got));
	cr_expect(got >= t0 && got <= (long long)time(NULL), "received %s", str(t, "received"));
	cr_expect_eq(integer(t, "undated"), 2);
	cr_expect_str_eq(str(j, "valid_time"), str(t, "received"));
	json_decref(j);
	fix_resp_free(&r);
	cr_expect_eq(fix_log_count(&w, "2 without date_time, at the time of receipt"), 1);
}

/* A list names files on the daemon's machine: never read for a request. */
Test(westd, post_station_file_list_is_refused)
{
	struct http_resp r;

	fix_start(&w, NULL);
	fix_post_file(&w, LIST_DIR "/default_stations_2.csv", NULL, &r);
	fix_problem(&r, 400, "station-file-list", "reads no file a request names");
	cr_expect_eq(fix_version(&w), 0);
	json_t *h = history();
	cr_expect_eq(json_array_size(h), 0, "a refused list is in the history");
	json_decref(h);
}

/* Copy data/obs/stations/NAME to w.dir/rel. */
static void copy_station_file(const char *name, const char *rel)
{
	char src[512];

	snprintf(src, sizeof src, "%s/%s", LIST_DIR, name);
	copy_to_dir(src, rel);
}

/* The spool takes a list; its files, in a sub-directory, stay where they are. */
Test(westd, spool_takes_a_station_file_list)
{
	char path[256];
	size_t n;

	fix_start(&w, NULL);
	snprintf(path, sizeof path, "%s/spool/wx", w.dir);
	cr_assert_eq(mkdir(path, 0700), 0, "%s", strerror(errno));
	copy_station_file(MET_N, "spool/wx/" MET_N);
	copy_station_file(MET_S, "spool/wx/" MET_S);
	spool_drop("stations.csv", "Station_File_List,\nwx/" MET_N "\nwx/" MET_S "\n");
	wait_exists("spool/done/stations.csv");
	fix_wait_version(&w, 1);
	cr_expect(exists("spool/wx/" MET_N) && exists("spool/wx/" MET_S),
		  "the listed files were moved");
	json_t *o = fix_get_json(&w, "/v1/observations");
	cr_expect_eq(json_array_size(json_object_get(json_object_get(o, "current"),
						     "observations")), 2);
	json_decref(o);
	cr_expect_eq(fix_log_count(&w, "observation set 1 (spool): 2 stations, the newest "
				   "record of each (8 records read)"), 1);

	spool_drop("missing.csv", "Station_File_List,\nwx/" MET_N "\nwx/nosuch.csv\n");
	wait_exists("spool/failed/missing.csv.error");
	snprintf(path, sizeof path, "%s/spool/failed/missing.csv.error", w.dir);
	char *why = fix_slurp(path, &n), want[256];
	snprintf(want, sizeof want, "line 3: %s/spool/wx/nosuch.csv: cannot open: No such "
		 "file or directory", w.dir);
	cr_expect_not_null(strstr(why, want), ".error: %s", why);
	free(why);
	cr_expect_eq(fix_version(&w), 1, "a refused list changed the field");
}

/* ====================================================== valid times */

/* POST a set of the sample stations at time t; the answer in r. */
static void post_at(long long t, struct http_resp *r)
{
	char *body = fix_obs_body_at(-1, -1, t);
	fix_post_json(&w, body, NULL, r);
	free(body);
}

/*
 * A set dated too far back, too far ahead, or older than the current
 * field is refused (422, logged, counted), over HTTP and in the spool, and
 * the field stays as it was; a set as new as the current one is taken.
 */
Test(westd, observations_out_of_date_are_refused)
{
	const char *sets[] = { "obs_max_age=3600", NULL };
	long long now = (long long)time(NULL);
	struct http_resp r;
	unsigned long long v;

	fix_start(&w, sets);
	fix_post_file(&w, FIX_OBS_JSON, NULL, &r);   /* 2026-11-22T12:00:00Z */
	fix_problem(&r, 422, "observations-out-of-date",
		    "valid time 2026-11-22T12:00:00Z is ");
	cr_expect_eq(fix_version(&w), 0, "the refused sample set made a field");

	char *body = fix_obs_body_at(-1, -1, now - 10);
	fix_post_ok(&w, body, NULL, NULL, &v);
	free(body);
	fix_wait_version(&w, v);
	struct wind before = point_wind();

	post_at(631152000LL, &r);                    /* 1990-01-01T00:00:00Z */
	fix_problem(&r, 422, "observations-out-of-date",
		    "valid time 1990-01-01T00:00:00Z is ");
	expect_unchanged(&before, "a set of 1990");
	post_at(4070908800LL, &r);                   /* 2099-01-01T00:00:00Z */
	fix_problem(&r, 422, "observations-out-of-date",
		    "s after now (");
	expect_unchanged(&before, "a set of 2099");
	post_at(now + 3600, &r);
	fix_problem(&r, 422, "observations-out-of-date", "more than obs_max_future = 600 s");
	expect_unchanged(&before, "a set an hour ahead");
	post_at(now - 7200, &r);
	fix_problem(&r, 422, "observations-out-of-date", "more than obs_max_age = 3600 s");
	expect_unchanged(&before, "a set two hours old");
	post_at(now - 1800, &r);                     /* within obs_max_age, older than v1 */
	fix_problem(&r, 422, "observations-out-of-date",
		    ", the valid time of observation set 1 (now ");
	expect_unchanged(&before, "a set older than the current field");

	json_t *h = history();
	cr_expect_eq(json_array_size(h), 1, "a refused set was recorded");
	json_decref(h);
	cr_expect_eq(fix_log_count(&w, "POST /v1/observations refused: valid time"), 6);
	fix_get(&w, "/metrics", &r);
	cr_expect_not_null(strstr(r.body, "westd_observations_rejected_total{source=\"http\","
				  "reason=\"out_of_date\"} 6\n"), "%s", r.body);
	fix_resp_free(&r);

	/* the spool refuses it too, into failed/ with the reason */
	body = fix_obs_body_at(-1, -1, 631152000LL);
	spool_drop("old.json", body);
	free(body);
	wait_exists("spool/failed/old.json.error");
	char path[256];
	size_t n;
	snprintf(path, sizeof path, "%s/spool/failed/old.json.error", w.dir);
	char *why = fix_slurp(path, &n);
	cr_expect_not_null(strstr(why, "valid time 1990-01-01T00:00:00Z is "), ".error: %s", why);
	cr_expect_not_null(strstr(why, "obs_max_age = 3600 s"), ".error: %s", why);
	free(why);
	cr_expect_eq(fix_log_count(&w, "old.json refused: valid time 1990"), 1);
	expect_unchanged(&before, "an old spool file");

	/* the same valid time as the current field is no older: taken */
	body = fix_obs_body_at(9.0, -1, now - 10);
	fix_post_ok(&w, body, NULL, NULL, &v);
	free(body);
	fix_wait_version(&w, v);
	cr_expect_eq(v, 2);
}

/* The check is against the newest set accepted, even while it still waits
 * for its solve: an older set must not supersede it in the queue. */
Test(westd, older_set_never_supersedes_a_pending_one)
{
	long long now = (long long)time(NULL);
	struct http_resp r;
	unsigned long long v1, v2;

	fix_start(&w, NULL);
	char *a = fix_obs_body_at(-1, -1, now), *b = fix_obs_body_at(11.0, 11.0, now - 60);
	fix_post_ok(&w, a, NULL, NULL, &v1);
	fix_post_json(&w, b, NULL, &r);        /* at once: set 1 pending or solving */
	fix_problem(&r, 422, "observations-out-of-date",
		    "the valid time of observation set 1");
	fix_wait_version(&w, v1);
	fix_wait_idle(&w);
	json_t *o = fix_get_json(&w, "/v1/observations");
	json_t *cur = json_object_get(o, "current");
	cr_expect_eq(integer(cur, "id"), 1, "the older set replaced the newer one");
	json_decref(o);
	free(b);
	/* a newer one is taken */
	b = fix_obs_body_at(11.0, 11.0, now + 1);
	fix_post_ok(&w, b, NULL, NULL, &v2);
	fix_wait_version(&w, v2);
	free(a);
	free(b);
}

/* ========================================================== readiness */

Test(westd, readyz_turns_503_when_the_field_is_old)
{
	/* Ages count from the valid time, so the test sets them by the
	 * sets' times and never waits for a clock: a field valid 100 s ago
	 * is old for max_field_age = 30 however fast it was solved, and one
	 * valid now is fresh unless its solve took 30 s (a sanitizer build
	 * on a busy machine takes a few). */
	const char *sets[] = { "max_field_age=30", NULL };
	struct http_resp r;
	unsigned long long v;

	fix_start(&w, sets);
	char *body = fix_obs_body_at(-1, -1, (long long)time(NULL) - 100);
	fix_post_ok(&w, body, NULL, NULL, &v);
	free(body);
	fix_wait_version(&w, v);
	fix_get(&w, "/readyz", &r);
	fix_problem(&r, 503, "not-ready", "max_field_age");
	fix_get(&w, "/livez", &r);
	cr_expect_eq(r.status, 200);
	fix_resp_free(&r);
	json_t *s = fix_get_json(&w, "/v1/status");
	cr_expect(json_is_false(json_object_get(s, "ready")));
	json_decref(s);
	fix_get(&w, "/metrics", &r);
	cr_expect_not_null(strstr(r.body, "\nwestd_ready 0\n"));
	fix_resp_free(&r);
	/* a new field, valid now, makes it ready */
	body = fix_obs_body_at(4.0, -1, (long long)time(NULL));
	fix_post_ok(&w, body, NULL, NULL, &v);
	free(body);
	fix_wait_version(&w, v);
	fix_get(&w, "/readyz", &r);
	cr_expect_eq(r.status, 200, "%s", r.body);
	fix_resp_free(&r);
	fix_get(&w, "/metrics", &r);
	cr_expect_not_null(strstr(r.body, "\nwestd_ready 1\n"));
	fix_resp_free(&r);
}

/* The valid time of data/obs/default.json, 2026-11-22T12:00:00Z. */
#define SAMPLE_VALID 1795348800LL

/* The value of the unlabelled sample name in Prometheus text; NaN when
 * absent. */
static double metric(const char *text, const char *name)
{
	char want[128];
	const char *p;

	snprintf(want, sizeof want, "\n%s ", name);
	p = strstr(text, want);
	return p ? strtod(p + strlen(want), NULL) : NAN;
}

/* age_seconds and published_seconds_ago of a field head (status's field,
 * /v1/field, a point): age from the valid time, publish time beside it. */
static void expect_head(json_t *f, long long valid, const char *where)
{
	long long now = (long long)time(NULL);
	long long age = integer(f, "age_seconds"), ago = integer(f, "published_seconds_ago");

	cr_expect(age >= now - valid - 2 && age <= now - valid + 1,
		  "%s: age_seconds %lld, want now - valid time = %lld", where, age, now - valid);
	cr_expect(ago >= 0 && ago <= 60, "%s: published_seconds_ago %lld", where, ago);
	cr_expect(json_is_string(json_object_get(f, "published_at")), "%s: published_at", where);
}

/*
 * One meaning of age (issue 19): the time since the field's valid time, in
 * every answer that carries it, in /readyz (max_field_age) and in the
 * metrics; the publish time is reported beside it.  The sample set, valid
 * 2026-11-22T12:00:00Z and published seconds ago, is days old: not ready
 * under the default max_field_age.  A set of 10 min ago is ready, 600 s old.
 */
Test(westd, age_counts_from_the_valid_time)
{
	const char *sets[] = { "max_field_age=3600", NULL };
	long long now = (long long)time(NULL);
	struct http_resp r;
	unsigned long long v;

	cr_assert_gt(now - SAMPLE_VALID, 3600, "the sample set is not old: clock?");
	fix_start(&w, sets);
	fix_post_and_wait(&w);

	json_t *s = fix_get_json(&w, "/v1/status");
	expect_head(json_object_get(s, "field"), SAMPLE_VALID, "/v1/status field");
	cr_expect(json_is_false(json_object_get(s, "ready")), "a days-old field is ready");
	cr_expect_not_null(strstr(json_string_value(json_object_get(s, "not_ready_because")),
				  "(valid time 2026-11-22T12:00:00Z), more than max_field_age"));
	json_decref(s);
	s = fix_get_json(&w, "/v1/field");
	expect_head(s, SAMPLE_VALID, "/v1/field");
	json_decref(s);
	s = fix_get_json(&w, POINT_Q);
	expect_head(s, SAMPLE_VALID, "/v1/field/point");
	json_decref(s);
	fix_get(&w, "/readyz", &r);
	fix_problem(&r, 503, "not-ready", "s old (valid time 2026-11-22T12:00:00Z), "
		    "more than max_field_age = 3600 s");
	fix_get(&w, "/metrics", &r);
	cr_assert_eq(r.status, 200);
	now = (long long)time(NULL);
	double age = metric(r.body, "westd_field_age_seconds");
	cr_expect(age >= (double)(now - SAMPLE_VALID - 2) && age <= (double)(now - SAMPLE_VALID),
		  "westd_field_age_seconds %g, want %lld", age, now - SAMPLE_VALID);
	cr_expect_eq(metric(r.body, "westd_field_valid_time_seconds"), (double)SAMPLE_VALID);
	double pub = metric(r.body, "westd_field_published_time_seconds");
	cr_expect(pub >= (double)(now - 60) && pub <= (double)now, "published %g", pub);
	cr_expect_eq(metric(r.body, "westd_ready"), 0.0);
	fix_resp_free(&r);

	/* a set of 10 min ago: 600 s old, within max_field_age, ready */
	char *body = fix_obs_body_at(-1, -1, now - 600);
	fix_post_ok(&w, body, NULL, NULL, &v);
	free(body);
	fix_wait_version(&w, v);
	s = fix_get_json(&w, "/v1/field");
	expect_head(s, now - 600, "/v1/field of a set of 10 min ago");
	json_decref(s);
	fix_get(&w, "/readyz", &r);
	cr_expect_eq(r.status, 200, "%s", r.body);
	fix_resp_free(&r);
	fix_get(&w, "/metrics", &r);
	cr_expect_eq(metric(r.body, "westd_field_valid_time_seconds"), (double)(now - 600));
	cr_expect_eq(metric(r.body, "westd_ready"), 1.0);
	fix_resp_free(&r);
}

/* ============================================================ promtool */

/* promtool (Debian: prometheus) on PATH, or $PROMTOOL; NULL: none. */
static const char *promtool(void)
{
	static char path[512];
	const char *env = getenv("PROMTOOL"), *dirs = getenv("PATH");

	if (env && env[0])
		return access(env, X_OK) ? NULL : env;
	for (const char *p = dirs ? dirs : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(path, sizeof path, "%.*s/promtool", (int)n, p);
		if (n && !access(path, X_OK))
			return path;
		p += n + (p[n] == ':');
	}
	return NULL;
}

/*
 * The real /metrics, with every family holding samples (a solve, a
 * snapshot, a refused set, requests), read by Prometheus' own linter:
 * `promtool check metrics` must print nothing and exit 0.  Skipped when
 * promtool is not installed (Debian 12: apt-get install prometheus).
 */
Test(westd, promtool_accepts_the_metrics)
{
	const char *tool = promtool();
	char cmd[1200], out[256];
	struct http_resp r;

	if (!tool)
		cr_skip_test("promtool is not installed (Debian: apt-get install prometheus)");
	fix_start(&w, NULL);
	fix_post_and_wait(&w);
	post_as("application/json", "{", 1, &r);
	fix_resp_free(&r);
	fix_get(&w, POINT_Q, &r);
	fix_resp_free(&r);
	json_decref(wait_snapshot(1));
	fix_get(&w, "/metrics", &r);
	cr_assert_eq(r.status, 200);
	cr_expect_not_null(strstr(r.body, "\nprocess_resident_memory_bytes "), "%s", r.body);
	cr_expect_not_null(strstr(r.body, "\nprocess_open_fds "));
	cr_expect_not_null(strstr(r.body, "\nwestd_field_valid_time_seconds 1795348800\n"));
	snprintf(out, sizeof out, "%s/promtool.out", w.dir);
	snprintf(cmd, sizeof cmd, "'%s' check metrics >'%s' 2>&1", tool, out);
	FILE *p = popen(cmd, "w");
	cr_assert_not_null(p);
	cr_assert_eq(fwrite(r.body, 1, r.len, p), r.len);
	int status = pclose(p);
	fix_resp_free(&r);
	size_t n;
	char *said = fix_slurp(out, &n);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0 && n == 0,
		  "promtool check metrics (status %d) says:\n%s", status, said);
	free(said);
}

/* ============================================================ releases */

/* Small releases, so that the CPU runs them in well under a second. */
#define REL_SETS "api_token=" TOKEN, "max_particles=20000", "max_release_hours=2"
#define REL_BODY "{\"lon\":15.0585,\"lat\":42.0205,\"particles\":2000,\"hours\":0.25," \
		 "\"duration\":300,\"seed\":7}"

/* POST body to /v1/releases as JSON with the token. */
static void post_release(const char *body, struct http_resp *r)
{
	const char *h[] = { "Content-Type: application/json", AUTH[0], NULL };
	fix_http(&w, "POST", "/v1/releases", body, strlen(body), h, r);
}

/* POST body, asserted 202 with a Location naming the href; the id. */
static long long post_release_ok(const char *body)
{
	struct http_resp r;
	post_release(body, &r);
	cr_assert_eq(r.status, 202, "POST /v1/releases: %ld %s", r.status, r.body ? r.body : "");
	json_t *j = fix_json(&r);
	long long id = integer(j, "id");
	const char *href = json_string_value(json_object_get(j, "href"));
	char path[64];
	cr_assert_not_null(href);
	snprintf(path, sizeof path, "/v1/releases/%lld", id);
	cr_expect_str_eq(r.location, href, "Location is the href");
	cr_expect_str_eq(fix_url_path(href), path);
	cr_expect_str_eq(json_string_value(json_object_get(j, "status")), "queued");
	json_decref(j);
	fix_resp_free(&r);
	return id;
}

/* Poll release id (60 s at most) until it is done; its status document. */
static json_t *wait_release(long long id)
{
	char path[64];
	snprintf(path, sizeof path, "/v1/releases/%lld", id);
	for (double t0 = fix_now(); fix_now() - t0 < 60; usleep(20000)) {
		json_t *j = fix_get_json(&w, path);
		const char *s = json_string_value(json_object_get(j, "status"));
		cr_assert_not_null(s);
		cr_assert(strcmp(s, "failed"), "release %lld failed: %s", id,
			  json_string_value(json_object_get(j, "error")));
		if (!strcmp(s, "done"))
			return j;
		json_decref(j);
	}
	fix_dump_log(&w);
	cr_assert_fail("release %lld was not done within 60 s", id);
	return NULL;
}

/* The sample observations posted with the token; waits for their field. */
static unsigned long long post_obs_and_wait(void)
{
	struct http_resp r;
	fix_post_file(&w, FIX_OBS_JSON, AUTH, &r);
	cr_assert_eq(r.status, 202, "POST: %ld %s", r.status, r.body ? r.body : "");
	json_t *j = fix_json(&r);
	unsigned long long v = (unsigned long long)integer(j, "field_version");
	json_decref(j);
	fix_resp_free(&r);
	fix_wait_version(&w, v);
	return v;
}

/* GET path with the release's id in it. */
static void get_release(long long id, const char *tail, struct http_resp *r)
{
	char path[160];
	snprintf(path, sizeof path, "/v1/releases/%lld%s", id, tail);
	fix_get(&w, path, r);
}

/* A GeoJSON position in the default terrain's lon/lat box. */
static void expect_position(json_t *p)
{
	cr_assert(json_is_array(p) && json_array_size(p) == 2, "not a position");
	double lon = json_number_value(json_array_get(p, 0));
	double lat = json_number_value(json_array_get(p, 1));
	cr_expect(lon > 14.99 && lon < 15.12 && lat > 42.0 && lat < 42.08, "%g, %g", lon, lat);
}

/* A MultiPolygon's rings: closed, at least 4 positions, in the box. */
static size_t check_multipolygon(json_t *g)
{
	json_t *polys = json_object_get(g, "coordinates");
	size_t rings = 0;
	cr_assert_str_eq(json_string_value(json_object_get(g, "type")), "MultiPolygon");
	cr_assert(json_is_array(polys));
	for (size_t p = 0; p < json_array_size(polys); p++)
		for (size_t k = 0; k < json_array_size(json_array_get(polys, p)); k++) {
			json_t *ring = json_array_get(json_array_get(polys, p), k);
			size_t n = json_array_size(ring);
			cr_assert_geq(n, 4);
			cr_expect(json_equal(json_array_get(ring, 0), json_array_get(ring, n - 1)),
				  "ring not closed");
			for (size_t v = 0; v < n; v++)
				expect_position(json_array_get(ring, v));
			rings++;
		}
	return rings;
}

Test(westd, release_runs_and_serves_its_outputs)
{
	const char *sets[] = { REL_SETS, NULL };
	unsigned long long v;
	struct http_resp r;
	long long id;

	fix_start(&w, sets);
	v = post_obs_and_wait();
	id = post_release_ok(REL_BODY);
	json_t *st = wait_release(id), *rel = json_object_get(st, "release");
	cr_expect_eq(integer(st, "id"), id);
	cr_expect_eq(integer(st, "field_version"), (long long)v);
	cr_expect_eq(integer(st, "particles"), 2000);
	cr_expect_geq(integer(st, "outside"), 0);
	cr_expect_eq(integer(rel, "seed"), 7, "the seed is echoed");
	cr_expect_eq(num(rel, "height"), 10.0, "height defaults to 10 m");
	cr_expect_eq(num(rel, "duration"), 300.0);
	cr_expect_eq(num(rel, "hours"), 0.25);
	cr_expect_str_eq(json_string_value(json_object_get(rel, "start")), "2026-11-22T12:00:00Z",
			 "start defaults to the field's valid time");
	cr_expect_gt(num(st, "max_concentration"), 0);
	cr_expect(num(st, "mixing_height") >= 20.0 && num(st, "mixing_height") <= 2000.0,
		  "mixing height %g m", num(st, "mixing_height"));
	cr_expect_eq(json_array_size(json_object_get(st, "links")), 5);
	json_decref(st);

	/* concentration: CoverageJSON, non-negative, a positive total */
	get_release(id, "/concentration", &r);
	cr_assert_eq(r.status, 200, "%s", r.body);
	cr_expect_str_eq(r.ctype, "application/vnd.cov+json");
	json_t *cov = fix_json(&r), *rg = json_object_get(json_object_get(cov, "ranges"),
							  "concentration");
	json_t *vals = json_object_get(rg, "values"), *shape = json_object_get(rg, "shape");
	double total = 0;
	cr_assert_eq(json_array_size(vals), 96 * 80);
	cr_expect_eq(json_integer_value(json_array_get(shape, 1)), 80);
	cr_expect_eq(json_integer_value(json_array_get(shape, 2)), 96);
	for (size_t k = 0; k < json_array_size(vals); k++) {
		double c = json_number_value(json_array_get(vals, k));
		cr_assert(json_is_number(json_array_get(vals, k)) && c >= 0, "value %zu: %g", k, c);
		total += c;
	}
	cr_expect_gt(total, 0);
	json_t *unit = json_object_get(json_object_get(json_object_get(
		json_object_get(cov, "parameters"), "concentration"), "unit"), "symbol");
	cr_expect_str_eq(json_string_value(json_object_get(unit, "value")), "s/m3");
	cr_expect_not_null(json_object_get(json_object_get(cov, "ranges"), "arrival"));
	json_decref(cov);
	fix_resp_free(&r);

	/* the same as CF NetCDF */
	get_release(id, "/concentration?format=netcdf", &r);
	cr_assert_eq(r.status, 200, "%s", r.body);
	cr_expect_str_eq(r.ctype, "application/x-netcdf");
	cr_expect(r.len > 8 && !memcmp(r.body, "\x89HDF", 4), "not NetCDF-4/HDF5");
	cr_expect_not_null(strstr(r.disposition, "release-"), "%s", r.disposition);
	fix_resp_free(&r);

	/* footprint: a FeatureCollection, one Feature per level */
	get_release(id, "/footprint", &r);
	cr_assert_eq(r.status, 200, "%s", r.body);
	cr_expect_str_eq(r.ctype, "application/geo+json");
	json_t *fc = fix_json(&r), *fs = json_object_get(fc, "features");
	cr_expect_str_eq(json_string_value(json_object_get(fc, "type")), "FeatureCollection");
	cr_assert_eq(json_array_size(fs), 4, "four default levels");
	for (size_t k = 0; k < 4; k++) {
		json_t *f = json_array_get(fs, k);
		cr_expect_str_eq(json_string_value(json_object_get(f, "type")), "Feature");
		cr_expect_gt(num(json_object_get(f, "properties"), "level"), 0);
		cr_expect_gt(check_multipolygon(json_object_get(f, "geometry")), 0,
			     "level %zu has no polygon", k);
	}
	json_decref(fc);
	fix_resp_free(&r);
	get_release(id, "/footprint?levels=1e-3,1e-9", &r);
	cr_assert_eq(r.status, 200, "%s", r.body);
	fc = fix_json(&r), fs = json_object_get(fc, "features");
	cr_assert_eq(json_array_size(fs), 2);
	cr_expect_eq(num(json_object_get(json_array_get(fs, 0), "properties"), "level"), 1e-9,
		     "levels in increasing order");
	cr_expect_eq(num(json_object_get(json_array_get(fs, 1), "properties"), "level"), 1e-3);
	json_decref(fc);
	fix_resp_free(&r);
	get_release(id, "/footprint?levels=1e-6,x", &r);
	fix_problem(&r, 400, "bad-parameter", "levels");
	get_release(id, "/footprint?level=1e-6", &r);
	fix_problem(&r, 400, "unknown-parameter", "levels");
	get_release(id, "/footprint?crs=EPSG:4326", &r);
	fix_problem(&r, 400, "bad-parameter", "crs");

	/* in the grid's CRS: metres in the domain, and the crs named */
	get_release(id, "/trajectory?crs=EPSG:32633", &r);
	cr_assert_eq(r.status, 200, "%s", r.body);
	json_t *nt = fix_json(&r), *p0 = json_array_get(json_object_get(json_object_get(nt,
		"geometry"), "coordinates"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(json_object_get(nt,
		"crs"), "properties"), "name")), "http://www.opengis.net/def/crs/EPSG/0/32633");
	cr_expect(json_number_value(json_array_get(p0, 0)) > 500000 &&
		  json_number_value(json_array_get(p0, 0)) < 509600 &&
		  json_number_value(json_array_get(p0, 1)) > 4650000 &&
		  json_number_value(json_array_get(p0, 1)) < 4658000, "not x, y in the domain");
	json_decref(nt);
	fix_resp_free(&r);

	/* trajectory: a LineString with a time per position */
	get_release(id, "/trajectory", &r);
	cr_assert_eq(r.status, 200, "%s", r.body);
	cr_expect_str_eq(r.ctype, "application/geo+json");
	json_t *tr = fix_json(&r), *g = json_object_get(tr, "geometry");
	json_t *c = json_object_get(g, "coordinates");
	cr_expect_str_eq(json_string_value(json_object_get(g, "type")), "LineString");
	cr_assert_geq(json_array_size(c), 2);
	for (size_t k = 0; k < json_array_size(c); k++)
		expect_position(json_array_get(c, k));
	cr_expect_eq(json_array_size(json_object_get(json_object_get(tr, "properties"), "times")),
		     json_array_size(c));
	json_decref(tr);
	fix_resp_free(&r);

	/* the list, newest first */
	json_t *list = fix_get_json(&w, "/v1/releases");
	cr_expect_eq(json_array_size(json_object_get(list, "releases")), 1);
	cr_expect_eq(integer(list, "max_particles"), 20000);
	json_decref(list);
}

/* POST body; the answer is a problem with this status, slug and detail. */
static void expect_refused(const char *body, long status, const char *slug, const char *detail)
{
	struct http_resp r;
	post_release(body, &r);
	fix_problem(&r, status, slug, detail);
}

Test(westd, release_bad_input_is_refused_naming_the_member)
{
	const char *sets[] = { REL_SETS, NULL };
	struct http_resp r;

	fix_start(&w, sets);
	expect_refused(REL_BODY, 503, "no-field", "POST /v1/observations");
	post_obs_and_wait();
	expect_refused("{\"x\":", 400, "invalid-release", "not JSON");
	expect_refused("[1, 2]", 400, "invalid-release", "an array");
	expect_refused("{\"height\":10}", 400, "invalid-release", "release point is missing");
	expect_refused("{\"lon\":15.0585,\"lat\":42.0205,\"x\":504850,\"y\":4652050}", 400,
		       "invalid-release", "not both");
	expect_refused("{\"lon\":15.0585}", 400, "invalid-release", "lat is missing");
	expect_refused("{\"x\":504850,\"y\":4652050,\"heigth\":5}", 400, "invalid-release",
		       "'heigth' (did you mean height?)");
	expect_refused("{\"x\":\"504850\",\"y\":4652050}", 400, "invalid-release",
		       "x: expected a number, got a string");
	expect_refused("{\"x\":504850,\"y\":4652050,\"particles\":10.5}", 400,
		       "invalid-release", "particles: expected a whole number");
	expect_refused("{\"x\":504850,\"y\":4652050,\"start\":\"noon\"}", 400,
		       "invalid-release", "start");
	expect_refused("{\"x\":504850,\"y\":4652050,\"particles\":20001}", 422,
		       "release-out-of-range", "particles: 20001 is not in [1, 20000]");
	expect_refused("{\"x\":504850,\"y\":4652050,\"hours\":3}", 422, "release-out-of-range",
		       "hours: 3 is not in (0, 2]");
	expect_refused("{\"x\":504850,\"y\":4652050,\"hours\":0.1,\"duration\":600}", 422,
		       "release-out-of-range", "duration");
	expect_refused("{\"x\":504850,\"y\":4652050,\"height\":5000}", 422,
		       "release-out-of-range", "height");
	expect_refused("{\"x\":504850,\"y\":4652050,\"height\":-1}", 422,
		       "release-out-of-range", "height");
	expect_refused("{\"x\":1,\"y\":4652050}", 422, "release-out-of-range",
		       "x 1 m is outside the domain");
	expect_refused("{\"lon\":16.5,\"lat\":42.02}", 422, "release-out-of-range", "lon");
	expect_refused("{\"x\":504850,\"y\":4652050,\"seed\":-1}", 422, "release-out-of-range",
		       "seed");

	/* the media type, the token */
	const char *csv[] = { "Content-Type: text/csv", AUTH[0], NULL };
	fix_http(&w, "POST", "/v1/releases", REL_BODY, strlen(REL_BODY), csv, &r);
	fix_problem(&r, 415, "unsupported-media-type", "application/json");
	const char *noauth[] = { "Content-Type: application/json", NULL };
	fix_http(&w, "POST", "/v1/releases", REL_BODY, strlen(REL_BODY), noauth, &r);
	fix_problem(&r, 401, "unauthorized", NULL);
	cr_expect_str_eq(r.www_auth, "Bearer realm=\"westd\"");

	/* unknown ids */
	fix_get(&w, "/v1/releases/999", &r);
	fix_problem(&r, 404, "no-such-release", "'999'");
	fix_get(&w, "/v1/releases/abc", &r);
	fix_problem(&r, 404, "no-such-release", "'abc'");
	fix_get(&w, "/v1/releases/999/footprint", &r);
	fix_problem(&r, 404, "no-such-release", NULL);
	fix_get(&w, "/v1/releases/1/elsewhere", &r);
	fix_problem(&r, 404, "no-such-release", NULL);
	fix_http(&w, "POST", "/v1/releases/1", "{}", 2, AUTH, &r);
	fix_problem(&r, 405, "method-not-allowed", NULL);

	/* nothing was queued by any of it */
	json_t *list = fix_get_json(&w, "/v1/releases");
	cr_expect_eq(json_array_size(json_object_get(list, "releases")), 0);
	json_decref(list);
}

Test(westd, release_outputs_wait_for_the_run_and_stop_cancels)
{
	const char *sets[] = { REL_SETS, NULL };
	const char *big = "{\"x\":504850,\"y\":4652050,\"particles\":20000,\"hours\":2}";
	struct http_resp r;
	long long id = 0;

	fix_start(&w, sets);
	post_obs_and_wait();
	post_release_ok(big);
	post_release_ok(big);
	id = post_release_ok(big);   /* behind two runs: most likely not done yet */
	/* an output answers 409 until the status says done, then 200 */
	get_release(id, "/concentration", &r);
	if (r.status == 409) {
		fix_problem(&r, 409, "release-not-done", "until its status is done");
	} else {
		cr_expect_eq(r.status, 200, "%ld %s", r.status, r.body);
		fix_resp_free(&r);
		json_t *j = fix_get_json(&w, "/v1/releases/3");
		cr_expect_str_eq(json_string_value(json_object_get(j, "status")), "done");
		json_decref(j);
	}
	/* SIGTERM with releases waiting and one running (once the runner has
	 * taken release 1: at once, later under a sanitizer): a clean stop */
	for (double t0 = fix_now(); fix_now() - t0 < 30; usleep(20000)) {
		json_t *j = fix_get_json(&w, "/v1/releases/1");
		const char *st = json_string_value(json_object_get(j, "status"));
		int started = st && strcmp(st, "queued");
		json_decref(j);
		if (started)
			break;
	}
	cr_expect_eq(fix_stop(&w), 0);
	cr_expect_geq(fix_log_count(&w, "release 1: running"), 1);
}

Test(westd, release_counts_in_status_and_metrics)
{
	const char *sets[] = { REL_SETS, NULL };
	struct http_resp r;

	fix_start(&w, sets);
	post_obs_and_wait();
	json_decref(wait_release(post_release_ok(REL_BODY)));
	json_t *st = fix_get_json(&w, "/v1/status"), *rs = json_object_get(st, "releases");
	cr_expect_eq(integer(rs, "done"), 1);
	cr_expect_eq(integer(rs, "posted_total"), 1);
	cr_expect_gt(integer(rs, "memory_bytes"), 96 * 80 * 8);
	json_decref(st);
	fix_get(&w, "/metrics", &r);
	cr_assert_eq(r.status, 200);
	cr_expect_not_null(strstr(r.body, "westd_release_runs_total{result=\"done\"} 1\n"), "%s",
			   r.body);
	cr_expect_not_null(strstr(r.body, "westd_releases{status=\"done\"} 1\n"));
	cr_expect_not_null(strstr(r.body, "westd_release_run_seconds_count 1\n"));
	fix_resp_free(&r);
}
