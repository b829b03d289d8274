/*
 * fuzz_edr.c: libFuzzer target for the OGC API - EDR query parameter
 * parsers of service/edr.h, called directly on one string: coords as a
 * WKT POINT (west_edr_parse_point) and POLYGON (west_edr_parse_polygon,
 * then west_polygon_contains), bbox, z (west_edr_parse_z, at most
 * WEST_EDR_MAX_Z levels), parameter-name, datetime (against a fixed valid
 * time) and crs (against a UTM 33N CRS with its WKT).  The input is the
 * parameter's value, as libmicrohttpd hands it over: NUL-terminated (a
 * NUL inside the input ends it).  Each accepted value is checked against
 * what edr.h promises; fuzz_http.c drives the same parsers through real
 * requests.
 */
#include "fuzz_common.h"

#include "edr.h"

#define VALID_TIME 1795435200LL /* 2026-11-23T12:00:00Z */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void point(const char *s)
{
	char err[WEST_ERRLEN];
	double x = NAN, y = NAN;

	if (west_edr_parse_point(s, &x, &y, err, sizeof err) == WEST_OK)
		FUZZ_ASSERT(isfinite(x) && isfinite(y), "POINT(%g %g)", x, y);
}

static void polygon(const char *s)
{
	char err[WEST_ERRLEN];
	struct west_polygon p;

	if (west_edr_parse_polygon(s, &p, err, sizeof err) == WEST_OK) {
		FUZZ_ASSERT(p.n >= 4 && p.n <= WEST_EDR_MAX_VERTICES, "%zu vertices", p.n);
		FUZZ_ASSERT(p.x[0] == p.x[p.n - 1] && p.y[0] == p.y[p.n - 1], "not closed");
		for (size_t k = 0; k < p.n; k++)
			FUZZ_ASSERT(isfinite(p.x[k]) && isfinite(p.y[k]), "vertex %zu", k);
		(void)west_polygon_contains(&p, p.x[0], p.y[1]);
	} else {
		FUZZ_ASSERT(p.n == 0 && !p.x && !p.y, "a refused polygon is not zeroed");
	}
	west_polygon_free(&p);
}

static void bbox(const char *s)
{
	char err[WEST_ERRLEN];
	double b[4];

	if (west_edr_parse_bbox(s, b, err, sizeof err) == WEST_OK)
		FUZZ_ASSERT(b[0] < b[2] && b[1] < b[3] && isfinite(b[0]) && isfinite(b[2]) &&
			    isfinite(b[1]) && isfinite(b[3]), "bbox %g,%g,%g,%g",
			    b[0], b[1], b[2], b[3]);
}

static void levels(const char *s)
{
	static double z[WEST_EDR_MAX_Z];
	char err[WEST_ERRLEN];
	size_t n = 0;

	if (west_edr_parse_z(s, z, WEST_EDR_MAX_Z, &n, err, sizeof err) != WEST_OK)
		return;
	FUZZ_ASSERT(n >= 1 && n <= WEST_EDR_MAX_Z, "%zu levels", n);
	for (size_t k = 0; k < n; k++)
		FUZZ_ASSERT(isfinite(z[k]), "z[%zu] = %g", k, z[k]);
	for (size_t k = 1; k < n; k++)
		FUZZ_ASSERT((z[k] > z[k - 1]) == (z[1] > z[0]) && z[k] != z[k - 1],
			    "z not strictly monotonic at %zu", k);
}

static void parameters(const char *s)
{
	char err[WEST_ERRLEN];
	unsigned mask = 0;

	if (west_edr_parse_parameters(s, &mask, err, sizeof err) == WEST_OK)
		FUZZ_ASSERT(mask && !(mask & ~(unsigned)WEST_EDR_ALL), "mask %u", mask);
}

static void datetime(const char *s)
{
	char err[WEST_ERRLEN];
	int covers = -1;

	if (west_edr_datetime_covers(s, VALID_TIME, &covers, err, sizeof err) == WEST_OK)
		FUZZ_ASSERT(covers == 0 || covers == 1, "covers %d", covers);
}

static void crs(const char *s)
{
	static struct west_crs c = { .grid_mapping_name = "transverse_mercator",
				     .has_tm = 1, .lon0 = 15.0, .k0 = 0.9996,
				     .false_easting = 500000.0, .wkt = FUZZ_UTM33_WKT };
	char err[WEST_ERRLEN];
	enum west_edr_crs which = 0;

	if (west_edr_parse_crs(&c, s, &which, err, sizeof err) == WEST_OK)
		FUZZ_ASSERT(which == WEST_EDR_CRS84 || which == WEST_EDR_NATIVE, "crs %d",
			    (int)which);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	fuzz_init();
	s = fuzz_strndup(data, size);
	point(s);
	polygon(s);
	bbox(s);
	levels(s);
	parameters(s);
	datetime(s);
	crs(s);
	free(s);
	return 0;
}
