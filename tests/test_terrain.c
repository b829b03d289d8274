/*
 * test_terrain.c: the DEM readers, NODATA filling and resampling
 * (src/terrain.h).
 *
 * Good paths load the committed terrains in data/ (found through
 * WEST_SRCDIR, which the build sets to the source directory) and small
 * files written here by hand.  Every bad input has its own test, which
 * checks the status, that the message names the file and the line (ESRI
 * ASCII) or the variable (NetCDF), and that the DEM is left zeroed.  Test
 * files go to a fresh mkdtemp directory per test, removed afterwards
 * (tests/terrain_test_util.h, shared with test_terrain_gdal.c); NetCDF
 * test files are made with the NetCDF API (NetCDF-4 format, so the
 * HDF5 signature path of west_dem_load is covered; data/hill.nc covers the
 * classic one).
 */
#include <criterion/criterion.h>

#include <limits.h>
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "log_capture.h"
#include "nc_header.h"
#include "terrain.h"
#include "terrain_test_util.h"

#ifndef WEST_SRCDIR
#define WEST_SRCDIR "."
#endif

/* A 6-line header (rows start on line 7) over NC columns and NR rows. */
#define HDR(nc, nr) "ncols " #nc "\nnrows " #nr "\nxllcorner 1000\n" \
	"yllcorner 2000\ncellsize 10\nNODATA_value -9999\n"

static void make_tmpdir(void)
{
	terrain_tmpdir_make("test_terrain");
}

TestSuite(asc, .init = make_tmpdir, .fini = terrain_tmpdir_remove);
TestSuite(asc_bad, .init = make_tmpdir, .fini = terrain_tmpdir_remove);
TestSuite(nc, .init = make_tmpdir, .fini = terrain_tmpdir_remove);
TestSuite(nc_bad, .init = make_tmpdir, .fini = terrain_tmpdir_remove);
TestSuite(dem, .init = make_tmpdir, .fini = terrain_tmpdir_remove);
TestSuite(dispatch, .init = make_tmpdir, .fini = terrain_tmpdir_remove);

static const char *data_path(const char *name)
{
	static char paths[4][PATH_MAX];
	static int next;
	char *p = paths[next++ % 4];

	snprintf(p, PATH_MAX, "%s/data/%s", WEST_SRCDIR, name);
	return p;
}

static const char *write_file(const char *name, const char *text)
{
	const char *path = tmp_path(name);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "cannot create %s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	return path;
}

static enum west_status load(const char *path, enum west_nodata_rule rule,
			     unsigned long long max_cells, struct west_dem *dem)
{
	struct west_dem_opts o = { .nodata = rule, .max_cells = max_cells };

	err[0] = '\0';
	return west_dem_load(dem, path, &o, err, sizeof err);
}

/*
 * A failed load: status `want`, the message names `path`, then `where`
 * (":LINE:" or "'variable'"; NULL: nothing more) and `problem`; the DEM
 * is zeroed.
 */
static void expect_fail(enum west_status s, enum west_status want,
			const struct west_dem *dem, const char *path,
			const char *where, const char *problem)
{
	char at[PATH_MAX + 64];

	cr_assert_eq(s, want, "status %s, want %s (message: %s)",
		     west_status_str(s), west_status_str(want), err);
	snprintf(at, sizeof at, "%s%s", path, where && where[0] == ':' ? where : "");
	cr_assert_not_null(strstr(err, at), "message '%s' does not name '%s'", err, at);
	if (where && where[0] != ':')
		cr_assert_not_null(strstr(err, where), "message '%s' does not name %s", err, where);
	cr_assert_not_null(strstr(err, problem), "message '%s' lacks '%s'", err, problem);
	cr_assert_null(dem->z, "the DEM keeps heights after a failure");
	cr_assert(dem->nx == 0 && dem->ny == 0 && dem->crs.wkt == NULL,
		  "the DEM is not zeroed after a failure");
}

static float at(const struct west_dem *d, size_t i, size_t j)
{
	return d->z[j * d->nx + i];
}

/* ---- ESRI ASCII: good files ---- */

Test(asc, flat_is_constant_base)
{
	struct west_dem d;

	expect_ok(load(data_path("flat.asc"), WEST_NODATA_REFUSE, 0, &d), "flat.asc");
	cr_assert_eq(d.nx, 32);
	cr_assert_eq(d.ny, 24);
	cr_assert_eq(d.dx, 50.0);
	cr_assert_eq(d.dy, 50.0);
	cr_assert_eq(d.x0, 500000.0);
	cr_assert_eq(d.y0, 4650000.0);
	for (size_t k = 0; k < d.nx * d.ny; k++)
		cr_assert_eq(d.z[k], 200.0f, "cell %zu is %g", k, d.z[k]);
	cr_assert_null(d.crs.wkt, "flat.asc has no .prj");
	west_dem_free(&d);
}

Test(asc, hill_peaks_at_centre)
{
	struct west_dem d;
	float lo, hi;

	expect_ok(load(data_path("hill.asc"), WEST_NODATA_REFUSE, 0, &d), "hill.asc");
	cr_assert(d.nx == 32 && d.ny == 32);
	west_dem_range(&d, &lo, &hi);
	/* the four centre cells are 25 m from the peak on each axis */
	for (size_t i = 15; i <= 16; i++)
		for (size_t j = 15; j <= 16; j++)
			cr_assert_eq(at(&d, i, j), hi, "centre cell (%zu,%zu) = %g, max %g",
				     i, j, at(&d, i, j), hi);
	cr_assert(fabsf(hi - 350.0f) < 1.0f, "peak %g, want about base + height = 350", hi);
	cr_assert(lo > 200.0f && lo < 210.0f, "corner %g, want a little above base 200", lo);
	cr_assert_eq(at(&d, 0, 0), lo);
	west_dem_free(&d);
}

Test(asc, ridge_runs_north_south)
{
	struct west_dem d;

	expect_ok(load(data_path("ridge.asc"), WEST_NODATA_REFUSE, 0, &d), "ridge.asc");
	cr_assert(d.nx == 40 && d.ny == 24);
	for (size_t j = 0; j < d.ny; j++)
		for (size_t i = 0; i < d.nx; i++)
			cr_assert_eq(at(&d, i, j), at(&d, i, 0), "ridge varies along y at (%zu,%zu)", i, j);
	cr_assert(fabsf(at(&d, 19, 0) - 400.0f) < 2.0f, "crest %g, want about 400", at(&d, 19, 0));
	cr_assert(at(&d, 0, 0) < 201.0f, "west edge %g, want about 200", at(&d, 0, 0));
	west_dem_free(&d);
}

Test(asc, valley_has_flat_floor)
{
	struct west_dem d;

	expect_ok(load(data_path("valley.asc"), WEST_NODATA_REFUSE, 0, &d), "valley.asc");
	cr_assert(d.nx == 40 && d.ny == 24);
	for (size_t i = 16; i < 24; i++)
		cr_assert_eq(at(&d, i, 5), 200.0f, "floor cell %zu is %g", i, at(&d, i, 5));
	cr_assert_eq(at(&d, 0, 5), 393.75f, "west edge %g", at(&d, 0, 5));
	cr_assert_eq(at(&d, 39, 5), 393.75f, "east edge %g", at(&d, 39, 5));
	west_dem_free(&d);
}

Test(asc, default_has_prj_and_slopes_south)
{
	struct west_dem d;

	expect_ok(load(data_path("default.asc"), WEST_NODATA_REFUSE, 0, &d), "default.asc");
	cr_assert(d.nx == 96 && d.ny == 80 && d.dx == 100.0 && d.dy == 100.0);
	cr_assert_not_null(d.crs.wkt, "default.prj was not read");
	cr_assert_eq(strncmp(d.crs.wkt, "PROJCS[\"WGS_1984_UTM_Zone_33N\"", 30), 0,
		     "wkt is '%.40s'", d.crs.wkt);
	cr_assert(d.crs.has_tm, "the .prj's Transverse_Mercator parameters were not read");
	cr_assert_str_eq(d.crs.grid_mapping_name, "transverse_mercator");
	cr_assert(d.crs.lon0 == 15.0 && d.crs.k0 == 0.9996 && d.crs.false_easting == 500000.0);
	/* 2 % over the 7900 m between the south and north row centres */
	float rise = at(&d, 48, 79) - at(&d, 48, 0);
	cr_assert(fabsf(rise - 158.0f) < 0.5f, "north-south rise %g m, want 158", rise);
	cr_assert(at(&d, 24, 40) > at(&d, 48, 40) + 250.0f, "no ridge west of the valley");
	cr_assert(at(&d, 72, 40) > at(&d, 48, 40) + 250.0f, "no ridge east of the valley");
	west_dem_free(&d);
}

Test(asc, north_row_first_is_flipped)
{
	struct west_dem d;
	const char *p = write_file("t.asc", "ncols 3\nnrows 2\nxllcorner 100\nyllcorner 200\n"
				   "cellsize 10\n1 2 3\n4 5 6\n");
	static const float want[6] = { 4, 5, 6, 1, 2, 3 }; /* south row first */

	expect_ok(load(p, WEST_NODATA_REFUSE, 0, &d), p);
	cr_assert(d.nx == 3 && d.ny == 2);
	for (int k = 0; k < 6; k++)
		cr_assert_eq(d.z[k], want[k], "z[%d] = %g, want %g", k, d.z[k], want[k]);
	cr_assert(d.x0 == 100.0 && d.y0 == 200.0 && d.dx == 10.0 && d.dy == 10.0);
	cr_assert_null(d.crs.wkt);
	west_dem_free(&d);
}

Test(asc, center_keys_any_case_dx_dy)
{
	struct west_dem d;
	const char *p = write_file("c.asc", "NCOLS 2\r\nNRows 2\r\nXLLCENTER 105\r\n"
				   "yllCenter 210\r\nDX 10\r\ndy 20\r\n\r\n1 2\r\n3 4\r\n\r\n");

	expect_ok(load(p, WEST_NODATA_REFUSE, 0, &d), p);
	cr_assert(d.x0 == 100.0 && d.y0 == 200.0, "corner (%g, %g), want (100, 200)", d.x0, d.y0);
	cr_assert(d.dx == 10.0 && d.dy == 20.0);
	cr_assert(at(&d, 0, 0) == 3.0f && at(&d, 1, 1) == 2.0f);
	west_dem_free(&d);
}

Test(asc, range_limits_are_accepted)
{
	struct west_dem d;
	const char *p = write_file("r.asc", HDR(2, 1) "-12000 10000\n");
	float lo, hi;

	expect_ok(load(p, WEST_NODATA_REFUSE, 0, &d), p);
	west_dem_range(&d, &lo, &hi);
	cr_assert(lo == -12000.0f && hi == 10000.0f, "range %g..%g", lo, hi);
	west_dem_free(&d);
}

Test(asc, prj_beside_is_read)
{
	struct west_dem d;
	const char *p = write_file("w.asc", HDR(1, 1) "5\n");

	write_file("w.prj", "LOCAL_CS[\"test\"]\n\n");
	expect_ok(load(p, WEST_NODATA_REFUSE, 0, &d), p);
	cr_assert_str_eq(d.crs.wkt, "LOCAL_CS[\"test\"]");
	cr_assert_eq(d.crs.has_tm, 0);
	west_dem_free(&d);
}

/* A .prj Transverse_Mercator with a scale factor of 0 gives no has_tm (the
 * projection would divide by it). */
Test(asc, prj_tm_out_of_range_is_no_tm)
{
	struct west_dem d;
	const char *p = write_file("k.asc", HDR(1, 1) "5\n");

	write_file("k.prj", "PROJCS[\"t\",PROJECTION[\"Transverse_Mercator\"],"
		   "PARAMETER[\"False_Easting\",500000.0],PARAMETER[\"False_Northing\",0.0],"
		   "PARAMETER[\"Central_Meridian\",15.0],PARAMETER[\"Scale_Factor\",0],"
		   "PARAMETER[\"Latitude_Of_Origin\",0.0],UNIT[\"Meter\",1.0]]");
	expect_ok(load(p, WEST_NODATA_REFUSE, 0, &d), p);
	cr_assert_eq(d.crs.has_tm, 0, "has_tm with scale factor %g", d.crs.k0);
	cr_assert_not_null(d.crs.wkt);
	west_dem_free(&d);
}

#define TM_UTM33 "PROJECTION[\"Transverse_Mercator\"],PARAMETER[\"latitude_of_origin\",0]," \
	"PARAMETER[\"central_meridian\",15],PARAMETER[\"scale_factor\",0.9996]," \
	"PARAMETER[\"false_easting\",500000],PARAMETER[\"false_northing\",0]"
/* The .prj gdal_translate writes for EPSG:27700 (OSGB 1936, Airy 1830) */
#define PRJ_BNG "PROJCS[\"British_National_Grid\",GEOGCS[\"GCS_OSGB_1936\"," \
	"DATUM[\"D_OSGB_1936\",SPHEROID[\"Airy_1830\",6377563.396,299.3249646]]," \
	"PRIMEM[\"Greenwich\",0.0],UNIT[\"Degree\",0.0174532925199433]]," \
	"PROJECTION[\"Transverse_Mercator\"],PARAMETER[\"False_Easting\",400000.0]," \
	"PARAMETER[\"False_Northing\",-100000.0],PARAMETER[\"Central_Meridian\",-2.0]," \
	"PARAMETER[\"Scale_Factor\",0.9996012717],PARAMETER[\"Latitude_Of_Origin\",49.0]," \
	"UNIT[\"Meter\",1.0]]"

/* A .prj transverse Mercator on another ellipsoid than WGS 84's or GRS
 * 1980's loads without has_tm (WKT1 SPHEROID or WKT2 ELLIPSOID). */
Test(asc, prj_tm_on_another_ellipsoid_is_no_tm)
{
	static const struct {
		const char *prj;
		int has_tm;
	} cases[] = {
		{ PRJ_BNG, 0 },
		{ "PROJCS[\"ED50 / UTM zone 33N\",GEOGCS[\"ED50\",DATUM[\"European_Datum_1950\","
		  "SPHEROID[\"International 1924\",6378388,297]],PRIMEM[\"Greenwich\",0],"
		  "UNIT[\"degree\",0.0174532925199433]]," TM_UTM33 ",UNIT[\"metre\",1]]", 0 },
		{ "PROJCRS[\"OSGB36 / British National Grid\",BASEGEOGCRS[\"OSGB36\","
		  "DATUM[\"Ordnance Survey of Great Britain 1936\",ELLIPSOID[\"Airy 1830\","
		  "6377563.396,299.3249646,LENGTHUNIT[\"metre\",1]]]]," TM_UTM33 "]", 0 },
		{ "PROJCS[\"NAD_1983_UTM_Zone_33N\",GEOGCS[\"GCS_North_American_1983\","
		  "DATUM[\"D_North_American_1983\",SPHEROID[\"GRS_1980\",6378137.0,"
		  "298.257222101]],PRIMEM[\"Greenwich\",0.0],UNIT[\"Degree\","
		  "0.0174532925199433]]," TM_UTM33 ",UNIT[\"Meter\",1.0]]", 1 },
		{ "PROJCS[\"t\"," TM_UTM33 ",UNIT[\"Meter\",1.0]]", 1 },  /* none named */
	};

	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		struct west_dem d;
		const char *p = write_file("e.asc", HDR(1, 1) "5\n");

		write_file("e.prj", cases[c].prj);
		expect_ok(load(p, WEST_NODATA_REFUSE, 0, &d), p);
		cr_assert_eq(d.crs.has_tm, cases[c].has_tm, "case %zu: has_tm %d", c,
			     d.crs.has_tm);
		cr_assert_not_null(d.crs.wkt);
		west_dem_free(&d);
	}
}

/* ---- ESRI ASCII: one test per bad input ---- */

Test(asc_bad, truncated)
{
	struct west_dem d;
	const char *p = write_file("b.asc", HDR(3, 4) "1 2 3\n4 5 6\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":8:",
		    "file ends after 2 of 4 rows");
}

Test(asc_bad, non_numeric_value)
{
	struct west_dem d;
	const char *p = write_file("b.asc", HDR(3, 2) "1 2 3\n4 5 abc\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":8:",
		    "value 3 'abc' is not a number");
}

Test(asc_bad, too_few_values)
{
	struct west_dem d;
	const char *p = write_file("b.asc", HDR(3, 2) "1 2 3\n4 5\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":8:",
		    "row 2 has 2 values, expected 3");
}

Test(asc_bad, too_many_values)
{
	struct west_dem d;
	const char *p = write_file("b.asc", HDR(3, 2) "1 2 3 4\n4 5 6\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":7:",
		    "row 1 has 4 values, expected 3");
}

Test(asc_bad, extra_rows)
{
	struct west_dem d;
	const char *p = write_file("b.asc", HDR(3, 2) "1 2 3\n4 5 6\n\n7 8 9\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":10:",
		    "extra data after the last of 2 rows");
}

Test(asc_bad, negative_cellsize)
{
	struct west_dem d;
	const char *p = write_file("b.asc", "ncols 1\nnrows 1\nxllcorner 0\nyllcorner 0\n"
				   "cellsize -10\n1\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":5:",
		    "cellsize '-10' must be positive");
}

Test(asc_bad, zero_cellsize)
{
	struct west_dem d;
	const char *p = write_file("b.asc", "ncols 1\nnrows 1\nxllcorner 0\nyllcorner 0\n"
				   "cellsize 0\n1\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":5:",
		    "cellsize '0' must be positive");
}

/* Each key finite, the grid's far edge (x0 + ncols cellsize) not: refused
 * naming the key, as the GDAL reader refuses such a geotransform (found
 * by tests/fuzz/fuzz_dem_asc). */
Test(asc_bad, extent_beyond_finite_coordinates)
{
	struct west_dem d;
	const char *p = write_file("b.asc", "ncols 3\nnrows 1\nxllcorner 1e308\nyllcorner 0\n"
				   "cellsize 1e308\n1 2 3\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":3:",
		    "xllcorner 1e+308, cellsize 1e+308 and ncols 3 put an edge of the grid "
		    "beyond any finite coordinate");
	p = write_file("b.asc", "ncols 1\nnrows 2\nxllcorner 0\nyllcorner 1e300\n"
		       "dx 10\ndy 1e308\n1\n2\n");
	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":4:",
		    "yllcorner 1e+300, dy 1e+308 and nrows 2");
	/* a centre half a cell inside the largest double: the corner is not */
	p = write_file("b.asc", "ncols 1\nnrows 1\nxllcenter -1.7e308\nyllcorner 0\n"
		       "cellsize 1e308\n1\n");
	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":3:",
		    "xllcenter -1.7e+308, cellsize 1e+308 and ncols 1");
	/* large and finite is a grid */
	p = write_file("b.asc", "ncols 2\nnrows 1\nxllcorner 1e300\nyllcorner -1e300\n"
		       "cellsize 1e299\n1 2\n");
	expect_ok(load(p, WEST_NODATA_REFUSE, 0, &d), p);
	cr_expect(isfinite(d.x0 + (double)d.nx * d.dx), "far edge %g", d.x0 + 2 * d.dx);
	west_dem_free(&d);
}

Test(asc_bad, missing_header_key)
{
	struct west_dem d;
	const char *p = write_file("b.asc", "ncols 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n1\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, NULL,
		    ": header has no nrows");
}

Test(asc_bad, header_value_not_integer)
{
	struct west_dem d;
	const char *p = write_file("b.asc", "ncols 2.5\nnrows 1\nxllcorner 0\nyllcorner 0\n"
				   "cellsize 1\n1 2\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":1:",
		    "ncols '2.5' is not a positive integer");
}

Test(asc_bad, unknown_header_key)
{
	struct west_dem d;
	const char *p = write_file("b.asc", "ncols 1\nnrows 1\nxllcorner 0\nyllcorner 0\n"
				   "cellsize 1\nzunits m\n1\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":6:",
		    "'zunits' is not an ESRI ASCII grid header key");
}

Test(asc_bad, nodata_refused)
{
	struct west_dem d;
	const char *p = write_file("b.asc", HDR(3, 2) "1 -9999 3\n4 5 -9999\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, NULL,
		    ": 2 NODATA cells (first at row 1, column 2); set nodata = fill");
}

Test(asc_bad, all_nodata_refused_with_fill)
{
	struct west_dem d;
	const char *p = write_file("b.asc", HDR(3, 2) "-9999 -9999 -9999\n-9999 -9999 -9999\n");

	expect_fail(load(p, WEST_NODATA_FILL, 0, &d), WEST_ERR_INVALID, &d, p, NULL,
		    ": all 6 cells are NODATA");
}

Test(asc_bad, too_large_refused_before_allocating)
{
	struct west_dem d;
	const char *p = write_file("b.asc", HDR(1000000, 1000000) "1 2 3\n");

	/* 4 TB of floats: more than the machine, and ASan would abort the attempt */
	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_NOMEM, &d, p, NULL,
		    "1000000 x 1000000 cells");
	expect_fail(load(p, WEST_NODATA_REFUSE, 1000, &d), WEST_ERR_INVALID, &d, p, NULL,
		    ": raster of 1000000 x 1000000 cells exceeds max_cells 1000");
}

Test(asc_bad, small_max_cells)
{
	struct west_dem d;
	const char *p = write_file("b.asc", HDR(3, 2) "1 2 3\n4 5 6\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 5, &d), WEST_ERR_INVALID, &d, p, NULL,
		    ": raster of 3 x 2 cells exceeds max_cells 5");
	expect_ok(load(p, WEST_NODATA_REFUSE, 6, &d), p);
	west_dem_free(&d);
}

Test(asc_bad, nan_value)
{
	struct west_dem d;
	const char *p = write_file("b.asc", HDR(3, 2) "1 nan 3\n4 5 6\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":7:",
		    "value 2 is not finite");
}

Test(asc_bad, inf_value)
{
	struct west_dem d;
	const char *p = write_file("b.asc", HDR(3, 2) "1 2 3\n4 5 -inf\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":8:",
		    "value 3 is not finite");
}

Test(asc_bad, out_of_range)
{
	struct west_dem d;
	const char *p = write_file("b.asc", HDR(3, 2) "1 2 3\n10001 5 6\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":8:",
		    "value 1 (10001 m) is outside [-12000, 10000] m");
}

Test(asc_bad, missing_file)
{
	struct west_dem d;
	const char *p = tmp_path("absent.asc");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_IO, &d, p, NULL,
		    ": cannot open: No such file or directory");
}

Test(asc_bad, empty_file)
{
	struct west_dem d;
	const char *p = write_file("b.asc", "");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, NULL,
		    ": file is empty");
}

/* ---- ESRI ASCII: a .prj whose CRS is not in metres ---- */

/* What gdalwarp -t_srs EPSG:4326 -of AAIGrid writes beside the grid. */
#define PRJ_4326 "GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\"," \
	"SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],PRIMEM[\"Greenwich\",0.0]," \
	"UNIT[\"Degree\",0.0174532925199433]]"
/* A grid in degrees: 1 x 1 arc-second cells near 15 E, 42 N. */
#define HDR_DEG "ncols 3\nnrows 2\nxllcorner 15.0\nyllcorner 42.0\n" \
	"cellsize 0.000277777778\n"
/* NAD83 / California zone 3 in US survey feet, ESRI WKT1 as GDAL writes it. */
#define PRJ_FTUS "PROJCS[\"NAD_1983_StatePlane_California_III_FIPS_0403_Feet\"," \
	"GEOGCS[\"GCS_North_American_1983\",DATUM[\"D_North_American_1983\"," \
	"SPHEROID[\"GRS_1980\",6378137.0,298.257222101]],PRIMEM[\"Greenwich\",0.0]," \
	"UNIT[\"Degree\",0.0174532925199433]],PROJECTION[\"Lambert_Conformal_Conic\"]," \
	"PARAMETER[\"False_Easting\",6561666.666666666],PARAMETER[\"False_Northing\",1640416.666666667]," \
	"PARAMETER[\"Central_Meridian\",-120.5],PARAMETER[\"Standard_Parallel_1\",37.06666666666667]," \
	"PARAMETER[\"Standard_Parallel_2\",38.43333333333333]," \
	"PARAMETER[\"Latitude_Of_Origin\",36.5],UNIT[\"Foot_US\",0.3048006096012192]]"

/* w.asc (header hdr, two rows of 3) with text as w.prj: the load refused
 * naming both files and problem. */
static void expect_prj_refused(const char *hdr, const char *prj, const char *problem)
{
	char grid[512];
	struct west_dem d;
	const char *p, *pp = tmp_path("w.prj");

	snprintf(grid, sizeof grid, "%s1 2 3\n4 5 6\n", hdr);
	p = write_file("w.asc", grid);
	write_file("w.prj", prj);
	err[0] = '\0';
	expect_fail(west_dem_load_asc(&d, p, NULL, err, sizeof err), WEST_ERR_UNSUPPORTED, &d,
		    p, NULL, problem);
	cr_assert_not_null(strstr(err, pp), "message '%s' does not name %s", err, pp);
}

/* w.asc with a 3 x 2 metre grid and text as w.prj loads. */
static void expect_prj_ok(const char *prj)
{
	struct west_dem d;
	const char *p = write_file("w.asc", HDR(3, 2) "1 2 3\n4 5 6\n");

	write_file("w.prj", prj);
	expect_ok(load(p, WEST_NODATA_REFUSE, 0, &d), p);
	cr_assert_not_null(d.crs.wkt);
	west_dem_free(&d);
}

Test(asc_bad, geographic_prj_refused)
{
	expect_prj_refused(HDR_DEG, PRJ_4326 "\n",
			   "the CRS is geographic (GEOGCS, in degrees), but westd reads x, y "
			   "and the cell size as metres; reproject to a metric CRS such as UTM "
			   "(gdalwarp -t_srs EPSG:326NN)");
}

Test(asc_bad, geographic_prj_other_forms_refused)
{
	/* OGC WKT1, WKT2, a compound CRS, the older ArcInfo form */
	expect_prj_refused(HDR_DEG, "GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\",SPHEROID[\"WGS 84\","
			   "6378137,298.257223563]],PRIMEM[\"Greenwich\",0],UNIT[\"degree\","
			   "0.0174532925199433],AUTHORITY[\"EPSG\",\"4326\"]]", "(GEOGCS, in degrees)");
	expect_prj_refused(HDR_DEG, "  geogcrs[\"WGS 84\",DATUM[\"World Geodetic System 1984\","
			   "ELLIPSOID[\"WGS 84\",6378137,298.257223563]],CS[ellipsoidal,2],"
			   "ANGLEUNIT[\"degree\",0.0174532925199433],ID[\"EPSG\",4326]]",
			   "(geogcrs, in degrees)");
	expect_prj_refused(HDR_DEG, "COMPD_CS[\"WGS 84 + EGM96 height\"," PRJ_4326
			   ",VERT_CS[\"EGM96 height\",UNIT[\"metre\",1]]]", "(GEOGCS, in degrees)");
	expect_prj_refused(HDR_DEG, "Projection    GEOGRAPHIC\nDatum         WGS84\n"
			   "Units         DD\nParameters\n", "(Projection GEOGRAPHIC, in degrees)");
}

Test(asc_bad, feet_prj_refused)
{
	expect_prj_refused(HDR(3, 2), PRJ_FTUS,
			   "the CRS is in Foot_US (0.3048006096 m), but westd reads x, y and "
			   "the cell size as metres; reproject to metres");
	/* WKT2: the unit in the axes */
	expect_prj_refused(HDR(3, 2), "PROJCRS[\"NAD83 / California zone 3 (ftUS)\","
			   "BASEGEOGCRS[\"NAD83\",ANGLEUNIT[\"degree\",0.0174532925199433]],"
			   "CONVERSION[\"SPCS83 California zone 3 (US Survey feet)\","
			   "PARAMETER[\"False easting\",6561666.667,LENGTHUNIT[\"metre\",1]]],"
			   "CS[Cartesian,2],AXIS[\"easting (X)\",east,ORDER[1],"
			   "LENGTHUNIT[\"US survey foot\",0.304800609601219]],"
			   "AXIS[\"northing (Y)\",north,ORDER[2],"
			   "LENGTHUNIT[\"US survey foot\",0.304800609601219]]]",
			   "the CRS is in US survey foot (0.3048006096 m)");
	expect_prj_refused(HDR(3, 2), "Projection    STATEPLANE\nFipszone 0403\n"
			   "Units         FEET\n", "the CRS is in Units FEET");
}

/* A refused .prj stops the load before the raster is allocated: a header
 * too large for max_cells gets the CRS message, not the size one. */
Test(asc_bad, prj_refused_before_the_grid)
{
	struct west_dem d;
	const char *p = write_file("w.asc", "ncols 100000\nnrows 100000\nxllcorner 15\n"
				   "yllcorner 42\ncellsize 0.0001\n1 2\n");

	struct west_dem_opts o = { .max_cells = 10 };

	write_file("w.prj", PRJ_4326);
	err[0] = '\0';
	expect_fail(west_dem_load_asc(&d, p, &o, err, sizeof err), WEST_ERR_UNSUPPORTED, &d, p,
		    NULL, "the CRS is geographic");
}

/* Through west_dem_load, a DEM not in metres is read by GDAL and warped
 * where GDAL is built; a CRS text GDAL cannot read, or a build without
 * GDAL, keeps the reader's refusal and says why. */
Test(asc_bad, not_in_metres_goes_to_gdal_or_says_how)
{
	struct west_dem d;
	const char *p = write_file("w.asc", HDR_DEG "1 2 3\n4 5 6\n");

	write_file("w.prj", PRJ_4326 "\n");
#ifdef WEST_HAVE_GDAL
	expect_ok(load(p, WEST_NODATA_REFUSE, 0, &d), p);
	cr_assert(d.crs.has_tm && d.crs.lon0 == 15.0, "warped to UTM 33N: lon0 %g", d.crs.lon0);
	west_dem_free(&d);
	/* a GEOGCS without a datum: geographic to westd, nothing to GDAL */
	write_file("w.prj", "GEOGCS[\"x\",UNIT[\"degree\",0.0174532925199433]]\n");
	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_UNSUPPORTED, &d, p, NULL,
		    "the CRS is geographic (GEOGCS, in degrees)");
	cr_assert_not_null(strstr(err, "GDAL could not reproject it either"), "%s", err);
#else
	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_UNSUPPORTED, &d, p, NULL,
		    "the CRS is geographic");
	cr_assert_not_null(strstr(err, "or build westd with GDAL"), "%s", err);
#endif
}

Test(asc, metre_prj_forms_accepted)
{
	expect_prj_ok("PROJCS[\"WGS 84 / UTM zone 33N\",GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\","
		      "SPHEROID[\"WGS 84\",6378137,298.257223563]],PRIMEM[\"Greenwich\",0],"
		      "UNIT[\"degree\",0.0174532925199433]],PROJECTION[\"Transverse_Mercator\"],"
		      "PARAMETER[\"central_meridian\",15],UNIT[\"metre\",1,AUTHORITY[\"EPSG\","
		      "\"9001\"]],AXIS[\"Easting\",EAST],AXIS[\"Northing\",NORTH]]");
	expect_prj_ok("PROJCRS[\"WGS 84 / UTM zone 33N\",BASEGEOGCRS[\"WGS 84\","
		      "ANGLEUNIT[\"degree\",0.0174532925199433]],CS[Cartesian,2],"
		      "AXIS[\"(E)\",east,ORDER[1],LENGTHUNIT[\"metre\",1]],"
		      "AXIS[\"(N)\",north,ORDER[2],LENGTHUNIT[\"metre\",1]]]");
	expect_prj_ok("COMPD_CS[\"UTM 33N + height\",PROJCS[\"UTM 33N\",UNIT[\"Meter\",1.0]],"
		      "VERT_CS[\"h\",UNIT[\"foot\",0.3048]]]");
	expect_prj_ok("Projection    UTM\nZone          33\nUnits         METERS\n");
}

/* ---- NODATA filling ---- */

/*
 * Holes (.) in the 3 x 3 grid below, north row first:
 *     10  .  20        pass 1: (1,2) = 15, (0,1) = 20, (2,1) = 20, (1,0) = 30
 *      .  .   .        pass 2: (2,0) = (30+20)/2 = 25,
 *     30  .   .                (1,1) = (20+20+30+15)/4 = 21.25
 * A pass uses only cells valid before it, so the order of visits does not
 * matter; filling in place would give other numbers.
 */
Test(asc, nodata_filled_by_the_rule)
{
	static const float want[9] = { 30, 30, 25, 20, 21.25f, 20, 10, 15, 20 };
	const char *p = write_file("f.asc", HDR(3, 3) "10 -9999 20\n-9999 -9999 -9999\n"
				   "30 -9999 -9999\n");
	struct west_dem d;
	char *logbuf = NULL;
	size_t loglen = 0;
	FILE *log = open_memstream(&logbuf, &loglen);

	west_log_set_stream(log);
	west_log_set_journal(0);
	enum west_status s = load(p, WEST_NODATA_FILL, 0, &d);
	west_log_set_stream(NULL);
	fclose(log);
	expect_ok(s, p);
	for (int k = 0; k < 9; k++)
		cr_assert_eq(d.z[k], want[k], "z[%d] = %g, want %g", k, d.z[k], want[k]);
	cr_assert_not_null(strstr(logbuf, "filled 6 NODATA cells from their neighbours"),
			   "log was '%s'", logbuf);
	cr_assert_not_null(strstr(logbuf, p), "log '%s' does not name the file", logbuf);
	free(logbuf);
	west_dem_free(&d);
}

Test(dem, fill_nodata_direct)
{
	float z[4] = { 1, 0, 0, 7 };
	unsigned char valid[4] = { 1, 0, 0, 1 };
	struct west_dem d = { .nx = 4, .ny = 1, .dx = 1, .dy = 1, .z = z };
	size_t filled = 99;

	cr_assert_eq(west_dem_fill_nodata(&d, valid, &filled, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(filled, 2);
	cr_assert(z[1] == 1.0f && z[2] == 7.0f, "filled %g %g, want 1 7", z[1], z[2]);
	cr_assert(valid[1] == 1 && valid[2] == 1, "filled cells not marked valid");
}

Test(dem, fill_nodata_needs_one_valid_cell)
{
	float z[2] = { 0, 0 };
	unsigned char valid[2] = { 0, 0 };
	struct west_dem d = { .nx = 2, .ny = 1, .dx = 1, .dy = 1, .z = z };
	size_t filled = 99;

	cr_assert_eq(west_dem_fill_nodata(&d, valid, &filled, err, sizeof err), WEST_ERR_INVALID);
	cr_assert_eq(filled, 0);
	cr_assert_not_null(strstr(err, "NODATA"), "message '%s'", err);
}

/* ---- NetCDF ---- */

#define NC(call) do { int rc_ = (call); \
	cr_assert_eq(rc_, NC_NOERR, "%s: %s", #call, nc_strerror(rc_)); } while (0)

/* What make_nc writes: a raster on x, y (or the oddities a test asks for). */
struct ncspec {
	size_t nx, ny;
	int ydesc;             /* y from north to south */
	const char *xunits;    /* units of x; NULL: "m" */
	const double *xs;      /* x centres; NULL: 1005, 1015, ... */
	const float *z;        /* file-order values; NULL: 100 + i + 10 j (j from south) */
	const char *zname;     /* NULL: "Band1" */
	const char *zname2;    /* a second 2D variable, or NULL */
	int no_z;              /* only a 1D variable besides x and y */
	int packed;            /* Band1 as short with scale_factor 0.5, add_offset 100 */
	int mapping;           /* 1: a UTM 33N grid mapping "tm"; 2: the same less
				* false_northing; 3: latitude_longitude; 4: 1 with a
				* spatial_ref in US survey feet; 5: 1 with a NaN
				* central meridian; 6: 1 on the Airy 1830
				* ellipsoid (semi_major_axis, inverse_flattening);
				* 7: 1 with an OSGB 1936 spatial_ref; 8: 1 on GRS
				* 1980 (semi_major_axis, semi_minor_axis); 9: 1 on
				* a sphere (earth_radius) */
};

static void put_coords(int ncid, int vx, int vy, const struct ncspec *s)
{
	double xs[64], ys[64];

	for (size_t i = 0; i < s->nx; i++)
		xs[i] = s->xs ? s->xs[i] : 1005.0 + 10.0 * i;
	for (size_t r = 0; r < s->ny; r++)
		ys[r] = 2005.0 + 10.0 * (s->ydesc ? s->ny - 1 - r : r);
	NC(nc_put_var_double(ncid, vx, xs));
	NC(nc_put_var_double(ncid, vy, ys));
}

static void put_heights(int ncid, int vz, const struct ncspec *s)
{
	float z[64 * 64];

	for (size_t r = 0; r < s->ny; r++) {
		size_t j = s->ydesc ? s->ny - 1 - r : r;
		for (size_t i = 0; i < s->nx; i++)
			z[r * s->nx + i] = s->z ? s->z[r * s->nx + i] : 100.0f + i + 10.0f * j;
	}
	if (s->packed)
		for (size_t k = 0; k < s->nx * s->ny; k++)
			z[k] = (z[k] - 100.0f) * 2.0f; /* raw = (value - offset) / scale */
	NC(nc_put_var_float(ncid, vz, z));
}

static int def_coord(int ncid, const char *name, int dim, const char *units)
{
	char sn[32];
	int v;

	snprintf(sn, sizeof sn, "projection_%s_coordinate", name);
	NC(nc_def_var(ncid, name, NC_DOUBLE, 1, &dim, &v));
	NC(nc_put_att_text(ncid, v, "standard_name", strlen(sn), sn));
	NC(nc_put_att_text(ncid, v, "units", strlen(units), units));
	return v;
}

static int def_height(int ncid, const char *name, const int *dims, const struct ncspec *s)
{
	float fill = -9999.0f;
	double scale = 0.5, offset = 100.0;
	int v;

	NC(nc_def_var(ncid, name, s->packed ? NC_SHORT : NC_FLOAT, 2, dims, &v));
	if (s->packed) {
		NC(nc_put_att_double(ncid, v, "scale_factor", NC_DOUBLE, 1, &scale));
		NC(nc_put_att_double(ncid, v, "add_offset", NC_DOUBLE, 1, &offset));
	} else {
		NC(nc_put_att_float(ncid, v, "_FillValue", NC_FLOAT, 1, &fill));
	}
	return v;
}

/* The grid mapping variable "tm" and the attribute naming it on vz. */
static void def_mapping(int ncid, int vz, int mode)
{
	int complete = mode != 2;
	const char *gm = mode == 3 ? "latitude_longitude" : "transverse_mercator";
	const char *wkt = mode == 4 ? PRJ_FTUS : mode == 7 ? PRJ_BNG : "LOCAL_CS[\"t\"]";
	static const char *const names[5] = {
		"longitude_of_central_meridian", "latitude_of_projection_origin",
		"scale_factor_at_central_meridian", "false_easting", "false_northing",
	};
	double values[5] = { 15.0, 0.0, 0.9996, 500000.0, 0.0 };
	int v;

	if (mode == 5)
		values[0] = NAN;

	NC(nc_def_var(ncid, "tm", NC_CHAR, 0, NULL, &v));
	NC(nc_put_att_text(ncid, v, "grid_mapping_name", strlen(gm), gm));
	for (int k = 0; k < (complete ? 5 : 4); k++)
		NC(nc_put_att_double(ncid, v, names[k], NC_DOUBLE, 1, &values[k]));
	if (mode == 6 || mode == 8) {
		double a = mode == 6 ? 6377563.396 : 6378137.0;
		NC(nc_put_att_double(ncid, v, "semi_major_axis", NC_DOUBLE, 1, &a));
	}
	if (mode == 6) {
		double rf = 299.3249646;
		NC(nc_put_att_double(ncid, v, "inverse_flattening", NC_DOUBLE, 1, &rf));
	}
	if (mode == 8) {
		double b = 6356752.314140347;
		NC(nc_put_att_double(ncid, v, "semi_minor_axis", NC_DOUBLE, 1, &b));
	}
	if (mode == 9) {
		double r = 6371000.0;
		NC(nc_put_att_double(ncid, v, "earth_radius", NC_DOUBLE, 1, &r));
	}
	NC(nc_put_att_text(ncid, v, "spatial_ref", strlen(wkt), wkt));
	NC(nc_put_att_text(ncid, vz, "grid_mapping", 2, "tm"));
}

static const char *make_nc(const char *name, const struct ncspec *s)
{
	const char *path = tmp_path(name);
	int ncid, dx, dy, vx, vy, vz = -1, vz2 = -1, dims[2];

	cr_assert(s->nx <= 64 && s->ny <= 64);
	NC(nc_create(path, NC_CLOBBER | NC_NETCDF4, &ncid));
	NC(nc_def_dim(ncid, "x", s->nx, &dx));
	NC(nc_def_dim(ncid, "y", s->ny, &dy));
	vx = def_coord(ncid, "x", dx, s->xunits ? s->xunits : "m");
	vy = def_coord(ncid, "y", dy, "m");
	dims[0] = dy, dims[1] = dx;
	if (s->no_z)
		NC(nc_def_var(ncid, "h", NC_FLOAT, 1, &dx, &vz));
	else
		vz = def_height(ncid, s->zname ? s->zname : "Band1", dims, s);
	if (s->zname2)
		vz2 = def_height(ncid, s->zname2, dims, s);
	if (s->mapping)
		def_mapping(ncid, vz, s->mapping);
	NC(nc_enddef(ncid));
	put_coords(ncid, vx, vy, s);
	if (!s->no_z)
		put_heights(ncid, vz, s);
	if (vz2 >= 0)
		put_heights(ncid, vz2, s);
	NC(nc_close(ncid));
	return path;
}

Test(nc, hill_nc_equals_hill_asc)
{
	struct west_dem a, n;

	expect_ok(load(data_path("hill.asc"), WEST_NODATA_REFUSE, 0, &a), "hill.asc");
	expect_ok(load(data_path("hill.nc"), WEST_NODATA_REFUSE, 0, &n), "hill.nc");
	cr_assert(n.nx == a.nx && n.ny == a.ny, "%zux%zu vs %zux%zu", n.nx, n.ny, a.nx, a.ny);
	cr_assert(n.dx == a.dx && n.dy == a.dy && n.x0 == a.x0 && n.y0 == a.y0,
		  "geometry (%g %g %g %g) vs (%g %g %g %g)", n.x0, n.y0, n.dx, n.dy,
		  a.x0, a.y0, a.dx, a.dy);
	for (size_t k = 0; k < a.nx * a.ny; k++)
		cr_assert(fabsf(n.z[k] - a.z[k]) <= 0.005f, "cell %zu: %g vs %g", k, n.z[k], a.z[k]);
	west_dem_free(&a);
	west_dem_free(&n);
}

/* A transverse Mercator mapping whose parameters the projection cannot take
 * (a NaN central meridian, found by tests/fuzz/fuzz_dem_nc) gives no
 * has_tm: the terrain loads without longitude and latitude, as with a
 * mapping that lacks a parameter. */
Test(nc, tm_mapping_out_of_range_is_no_tm)
{
	struct ncspec s = { .nx = 3, .ny = 2, .mapping = 5 };
	const char *p = make_nc("nantm.nc", &s);
	struct west_dem d;

	expect_ok(load(p, WEST_NODATA_REFUSE, 0, &d), p);
	cr_assert_str_eq(d.crs.grid_mapping_name, "transverse_mercator");
	cr_assert_eq(d.crs.has_tm, 0, "has_tm with central meridian %g", d.crs.lon0);
	west_dem_free(&d);
}

Test(nc, hill_nc_crs)
{
	struct west_dem d;

	expect_ok(load(data_path("hill.nc"), WEST_NODATA_REFUSE, 0, &d), "hill.nc");
	cr_assert_str_eq(d.crs.grid_mapping_name, "transverse_mercator");
	cr_assert(d.crs.has_tm, "has_tm not set");
	cr_assert_eq(d.crs.lon0, 15.0);
	cr_assert_eq(d.crs.lat0, 0.0);
	cr_assert_eq(d.crs.k0, 0.9996);
	cr_assert_eq(d.crs.false_easting, 500000.0);
	cr_assert_eq(d.crs.false_northing, 0.0);
	cr_assert_not_null(d.crs.wkt);
	cr_assert_not_null(strstr(d.crs.wkt, "UTM zone 33N"), "wkt '%.60s'", d.crs.wkt);
	west_dem_free(&d);
}

Test(nc, y_decreasing_equals_y_increasing)
{
	struct ncspec up = { .nx = 4, .ny = 3 }, down = { .nx = 4, .ny = 3, .ydesc = 1 };
	const char *pu = make_nc("up.nc", &up), *pd = make_nc("down.nc", &down);
	struct west_dem u, d;

	expect_ok(load(pu, WEST_NODATA_REFUSE, 0, &u), pu);
	expect_ok(load(pd, WEST_NODATA_REFUSE, 0, &d), pd);
	cr_assert(u.nx == 4 && u.ny == 3 && d.nx == 4 && d.ny == 3);
	cr_assert(u.x0 == 1000.0 && u.y0 == 2000.0 && u.dx == 10.0 && u.dy == 10.0,
		  "up geometry %g %g %g %g", u.x0, u.y0, u.dx, u.dy);
	cr_assert(d.x0 == u.x0 && d.y0 == u.y0 && d.dx == u.dx && d.dy == u.dy,
		  "down geometry %g %g %g %g", d.x0, d.y0, d.dx, d.dy);
	for (size_t j = 0; j < 3; j++)
		for (size_t i = 0; i < 4; i++) {
			cr_assert_eq(at(&u, i, j), 100.0f + i + 10.0f * j, "up (%zu,%zu)", i, j);
			cr_assert_eq(at(&d, i, j), at(&u, i, j), "down (%zu,%zu)", i, j);
		}
	west_dem_free(&u);
	west_dem_free(&d);
}

Test(nc, scale_and_offset_applied)
{
	struct ncspec s = { .nx = 3, .ny = 2, .packed = 1 };
	const char *p = make_nc("packed.nc", &s);
	struct west_dem d;

	expect_ok(load(p, WEST_NODATA_REFUSE, 0, &d), p);
	for (size_t j = 0; j < 2; j++)
		for (size_t i = 0; i < 3; i++)
			cr_assert_eq(at(&d, i, j), 100.0f + i + 10.0f * j, "(%zu,%zu) = %g",
				     i, j, at(&d, i, j));
	west_dem_free(&d);
}

Test(nc, named_variable_chosen)
{
	struct ncspec s = { .nx = 3, .ny = 2, .zname = "a", .zname2 = "b" };
	const char *p = make_nc("two.nc", &s);
	struct west_dem_opts o = { .nodata = WEST_NODATA_REFUSE, .variable = "b" };
	struct west_dem d;

	expect_ok(west_dem_load(&d, p, &o, err, sizeof err), p);
	cr_assert(d.nx == 3 && d.ny == 2 && at(&d, 2, 1) == 112.0f);
	west_dem_free(&d);
}

Test(nc, fill_holes_filled)
{
	static const float z[6] = { 1, -9999, 3, 4, 5, 6 }; /* file row 0 = south */
	struct ncspec s = { .nx = 3, .ny = 2, .z = z };
	const char *p = make_nc("holes.nc", &s);
	struct west_dem d;

	west_log_set_level(WEST_LOG_ERR); /* the fill warning is tested for ASCII */
	expect_ok(load(p, WEST_NODATA_FILL, 0, &d), p);
	cr_assert_eq(at(&d, 1, 0), 3.0f, "filled %g, want (1+3+5)/3", at(&d, 1, 0));
	west_dem_free(&d);
}

Test(nc, grid_mapping_needs_all_five_numbers)
{
	struct ncspec full = { .nx = 3, .ny = 2, .mapping = 1 };
	struct ncspec part = { .nx = 3, .ny = 2, .mapping = 2 };
	const char *pf = make_nc("full.nc", &full), *pp = make_nc("part.nc", &part);
	struct west_dem d;

	expect_ok(load(pf, WEST_NODATA_REFUSE, 0, &d), pf);
	cr_assert(d.crs.has_tm && d.crs.k0 == 0.9996, "full mapping: has_tm %d", d.crs.has_tm);
	cr_assert_str_eq(d.crs.wkt, "LOCAL_CS[\"t\"]", "spatial_ref is the WKT without crs_wkt");
	west_dem_free(&d);
	expect_ok(load(pp, WEST_NODATA_REFUSE, 0, &d), pp);
	cr_assert_str_eq(d.crs.grid_mapping_name, "transverse_mercator");
	cr_assert_eq(d.crs.has_tm, 0, "has_tm set without false_northing");
	west_dem_free(&d);
}

/* A transverse Mercator on another ellipsoid than WGS 84's (or GRS 1980's,
 * 0.1 mm from it) gives no has_tm: proj.c projects on WGS 84, and would put
 * longitudes and latitudes tens to hundreds of metres off. */
Test(nc, tm_mapping_on_another_ellipsoid_is_no_tm)
{
	static const struct {
		int mapping, has_tm;
	} cases[] = { { 1, 1 }, { 6, 0 }, { 7, 0 }, { 8, 1 }, { 9, 0 } };

	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		struct ncspec s = { .nx = 3, .ny = 2, .mapping = cases[c].mapping };
		const char *p = make_nc("ell.nc", &s);
		struct west_dem d;

		expect_ok(load(p, WEST_NODATA_REFUSE, 0, &d), p);
		cr_assert_eq(d.crs.has_tm, cases[c].has_tm, "mapping %d: has_tm %d",
			     cases[c].mapping, d.crs.has_tm);
		west_dem_free(&d);
	}
}

/* ---- NetCDF: one test per bad input ---- */

Test(nc_bad, not_a_raster)
{
	struct ncspec s = { .nx = 3, .ny = 2, .no_z = 1 };
	const char *p = make_nc("b.nc", &s);
	struct west_dem d;

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, NULL,
		    ": no 2D elevation variable on (y, x)");
}

Test(nc_bad, uneven_coordinates)
{
	static const double xs[4] = { 1005, 1015, 1025, 1040 };
	struct ncspec s = { .nx = 4, .ny = 2, .xs = xs };
	const char *p = make_nc("b.nc", &s);
	struct west_dem d;

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, "'x'",
		    "is not evenly spaced");
}

/* Finite, evenly spaced centres whose cells' far edge, half a step past
 * the last centre, is not finite (as the ESRI reader's
 * asc_bad/extent_beyond_finite_coordinates); nor a step that is not. */
Test(nc_bad, extent_beyond_finite_coordinates)
{
	static const double edge[2] = { 1.2e308, 1.7e308 }, step[3] = { -1.7e308, 0, 1.7e308 };
	struct ncspec s = { .nx = 2, .ny = 2, .xs = edge };
	const char *p = make_nc("b.nc", &s);
	struct west_dem d;

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, "'x'",
		    "runs from 1.2e+308 to 1.7e+308, 2 values 5e+307 apart: an edge of the "
		    "grid lies beyond any finite coordinate");
	s.nx = 3, s.xs = step;
	p = make_nc("b.nc", &s);
	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, "'x'",
		    "3 values inf apart");
}

Test(nc_bad, degrees)
{
	struct ncspec s = { .nx = 3, .ny = 2, .xunits = "degrees_east" };
	const char *p = make_nc("b.nc", &s);
	struct west_dem d;

	err[0] = '\0';
	expect_fail(west_dem_load_netcdf(&d, p, NULL, err, sizeof err), WEST_ERR_UNSUPPORTED, &d, p, NULL,
		    ": variable 'x' is in degrees_east; reproject to a metric CRS such as UTM");
}

/* lon/lat axes without units are degrees all the same */
Test(nc_bad, lon_lat_axes_without_units)
{
	const char *p = tmp_path("b.nc");
	int ncid, dx, dy, vx, vy, vz, dims[2];
	double xs[3] = { 15.0, 15.001, 15.002 }, ys[2] = { 42.0, 42.001 };
	float z[6] = { 1, 2, 3, 4, 5, 6 };
	struct west_dem d;

	NC(nc_create(p, NC_CLOBBER | NC_NETCDF4, &ncid));
	NC(nc_def_dim(ncid, "lon", 3, &dx));
	NC(nc_def_dim(ncid, "lat", 2, &dy));
	NC(nc_def_var(ncid, "lon", NC_DOUBLE, 1, &dx, &vx));
	NC(nc_def_var(ncid, "lat", NC_DOUBLE, 1, &dy, &vy));
	dims[0] = dy, dims[1] = dx;
	NC(nc_def_var(ncid, "Band1", NC_FLOAT, 2, dims, &vz));
	NC(nc_enddef(ncid));
	NC(nc_put_var_double(ncid, vx, xs));
	NC(nc_put_var_double(ncid, vy, ys));
	NC(nc_put_var_float(ncid, vz, z));
	NC(nc_close(ncid));
	err[0] = '\0';
	expect_fail(west_dem_load_netcdf(&d, p, NULL, err, sizeof err), WEST_ERR_UNSUPPORTED, &d, p, NULL,
		    ": variable 'lon' is a longitude (degrees), not a projected coordinate in "
		    "metres; reproject to a metric CRS such as UTM");
}

/* x, y said to be metres, but the grid mapping is in degrees */
Test(nc_bad, latitude_longitude_mapping)
{
	struct ncspec s = { .nx = 3, .ny = 2, .mapping = 3 };
	const char *p = make_nc("b.nc", &s);
	struct west_dem d;

	err[0] = '\0';
	expect_fail(west_dem_load_netcdf(&d, p, NULL, err, sizeof err), WEST_ERR_UNSUPPORTED, &d, p, "'Band1'",
		    "has grid_mapping latitude_longitude (degrees)");
}

Test(nc_bad, feet_crs_wkt)
{
	struct ncspec s = { .nx = 3, .ny = 2, .mapping = 4 };
	const char *p = make_nc("b.nc", &s);
	struct west_dem d;

	err[0] = '\0';
	expect_fail(west_dem_load_netcdf(&d, p, NULL, err, sizeof err), WEST_ERR_UNSUPPORTED, &d, p, "'Band1'",
		    "grid mapping WKT: the CRS is in Foot_US");
}

Test(nc_bad, nan_value)
{
	const float z[6] = { 1, 2, 3, 4, 5, NAN };
	struct ncspec s = { .nx = 3, .ny = 2, .z = z };
	const char *p = make_nc("b.nc", &s);
	struct west_dem d;

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, "'Band1'",
		    "value at y=1, x=2 is not finite");
}

Test(nc_bad, fill_holes_refused)
{
	static const float z[6] = { 1, -9999, 3, 4, 5, -9999 };
	struct ncspec s = { .nx = 3, .ny = 2, .z = z };
	const char *p = make_nc("b.nc", &s);
	struct west_dem d;

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, "'Band1'",
		    "2 NODATA cells (first at y=0, x=1); set nodata = fill");
}

/* Dimensions of 10^6 x 10^6 with no data written: a tiny NetCDF-4 file. */
Test(nc_bad, huge_dims_refused_before_allocating)
{
	const char *p = tmp_path("huge.nc");
	size_t chunk[2] = { 1024, 1024 };
	int ncid, dx, dy, v, dims[2];
	struct west_dem d;
	FILE *f;

	NC(nc_create(p, NC_CLOBBER | NC_NETCDF4, &ncid));
	NC(nc_def_dim(ncid, "x", 1000000, &dx));
	NC(nc_def_dim(ncid, "y", 1000000, &dy));
	def_coord(ncid, "x", dx, "m");
	def_coord(ncid, "y", dy, "m");
	dims[0] = dy, dims[1] = dx;
	NC(nc_def_var(ncid, "Band1", NC_FLOAT, 2, dims, &v));
	NC(nc_def_var_chunking(ncid, v, NC_CHUNKED, chunk));
	NC(nc_close(ncid));
	f = fopen(p, "rb");
	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	cr_assert_lt(ftell(f), 1 << 20, "the test file is not tiny");
	fclose(f);

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_NOMEM, &d, p, NULL,
		    ": raster of 1000000 x 1000000 cells");
	expect_fail(load(p, WEST_NODATA_REFUSE, 1000, &d), WEST_ERR_INVALID, &d, p, NULL,
		    ": raster of 1000000 x 1000000 cells exceeds max_cells 1000");
}

Test(nc_bad, named_variable_missing)
{
	struct ncspec s = { .nx = 3, .ny = 2 };
	const char *p = make_nc("b.nc", &s);
	struct west_dem_opts o = { .nodata = WEST_NODATA_REFUSE, .variable = "elevation" };
	struct west_dem d;

	expect_fail(west_dem_load(&d, p, &o, err, sizeof err), WEST_ERR_INVALID, &d, p,
		    "'elevation'", "not found");
}

Test(nc_bad, named_variable_not_on_yx)
{
	struct ncspec s = { .nx = 3, .ny = 2 };
	const char *p = make_nc("b.nc", &s);
	struct west_dem_opts o = { .nodata = WEST_NODATA_REFUSE, .variable = "x" };
	struct west_dem d;

	expect_fail(west_dem_load(&d, p, &o, err, sizeof err), WEST_ERR_INVALID, &d, p,
		    "'x'", "is not a numeric variable on (y, x)");
}

Test(nc_bad, two_candidates_without_a_name)
{
	struct ncspec s = { .nx = 3, .ny = 2, .zname = "a", .zname2 = "b" };
	const char *p = make_nc("b.nc", &s);
	struct west_dem d;

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, "'a', 'b'",
		    "several elevation variables on (y, x)");
}

Test(nc_bad, text_file_is_not_netcdf)
{
	const char *p = write_file("b.nc", HDR(1, 1) "5\n");
	struct west_dem d;

	expect_fail(west_dem_load_netcdf(&d, p, NULL, err, sizeof err), WEST_ERR_INVALID, &d,
		    p, NULL, ": not a NetCDF file");
}

/* ---- dispatch: which reader a file goes to ---- */

/* ESRI ASCII by its first word, whatever the name; the NetCDF magic wins. */
Test(dispatch, esri_text_under_any_name)
{
	struct west_dem d;
	const char *p = write_file("grid.txt", "\n  nCols 2\nnrows 1\nxllcorner 0\nyllcorner 0\n"
				   "cellsize 10\n1 2\n");

	expect_ok(load(p, WEST_NODATA_REFUSE, 0, &d), p);
	cr_assert(d.nx == 2 && d.ny == 1 && d.z[1] == 2.0f);
	west_dem_free(&d);
	/* .asc goes to the ESRI ASCII reader even when it starts with junk */
	p = write_file("junk.asc", "II*\n");
	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":1:",
		    "'II*' is not an ESRI ASCII grid header key");
	/* NetCDF by its magic bytes */
	expect_ok(load(data_path("hill.nc"), WEST_NODATA_REFUSE, 0, &d), "hill.nc");
	west_dem_free(&d);
}

/* A little-endian TIFF header (a GeoTIFF's first bytes), then junk. */
static const char *write_tiff_header(const char *name)
{
	static const unsigned char tiff[16] = { 'I', 'I', 42, 0, 8, 0, 0, 0, 0, 0, 1, 2, 3 };

	return write_bytes(name, tiff, sizeof tiff);
}

#ifndef WEST_HAVE_GDAL
/* Without GDAL, a GeoTIFF is refused with the ways out. */
Test(dispatch, geotiff_without_gdal_says_how_to_convert)
{
	struct west_dem d;
	const char *p = write_tiff_header("dem.tif");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_UNSUPPORTED, &d, p, NULL,
		    ": a TIFF (GeoTIFF) file, but this westd was built without GDAL; "
		    "convert it to an ESRI ASCII grid (gdal_translate -of AAIGrid FILE OUT.asc");
	cr_assert_not_null(strstr(err, "configure --with-gdal=yes"), "%s", err);
	/* another binary file (SRTM's raw big-endian heights): the same ways out */
	p = write_bytes("dem.hgt", "\x01\x00\x02\x00", 4);
	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_UNSUPPORTED, &d, p, NULL,
		    ": not an ESRI ASCII grid or a NetCDF file, but this westd was built without GDAL");
}

/* Without GDAL, text goes to the ESRI ASCII reader as it always did. */
Test(dispatch, text_without_gdal_gets_the_esri_messages)
{
	struct west_dem d;
	const char *p = write_file("notes.txt", "elevation model\n");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, ":1:",
		    "'elevation' is not an ESRI ASCII grid header key");
}
#else
/* With GDAL, a TIFF goes to it (tests/test_terrain_gdal.c reads real ones). */
Test(dispatch, geotiff_with_gdal_goes_to_gdal)
{
	struct west_dem d;
	const char *p = write_tiff_header("dem.tif");

	expect_fail(load(p, WEST_NODATA_REFUSE, 0, &d), WEST_ERR_INVALID, &d, p, NULL,
		    ": not a raster that GDAL can read (");
}
#endif

/* terrain_epsg is for GDAL's rasters: an .asc is read in its own CRS. */
Test(dispatch, epsg_ignored_for_esri_ascii)
{
	struct west_dem d;
	struct west_dem_opts o = { .epsg = 32632 };

	log_capture();
	expect_ok(west_dem_load(&d, data_path("default.asc"), &o, err, sizeof err), "default.asc");
	cr_assert_not_null(strstr(log_text(), "terrain_epsg 32632 applies only to rasters read through GDAL"),
			   "log: %s", log_buf);
	cr_assert_eq(d.crs.lon0, 15.0);
	west_dem_free(&d);
}

/* ---- the classic header guard (nc_header.h) ---- */

/* A classic header built byte by byte: big-endian, names padded to 4. */
struct cdf {
	unsigned char b[512];
	size_t n;
	int version;
};

static void cdf_u32(struct cdf *c, unsigned long long v)
{
	for (int k = 3; k >= 0; k--)
		c->b[c->n++] = (unsigned char)(v >> (8 * k));
}

static void cdf_u64(struct cdf *c, unsigned long long v)
{
	cdf_u32(c, v >> 32);
	cdf_u32(c, v & 0xffffffffu);
}

/* A count: 64 bits in CDF-5, else 32. */
static void cdf_count(struct cdf *c, unsigned long long v)
{
	if (c->version == 5)
		cdf_u64(c, v);
	else
		cdf_u32(c, v);
}

static void cdf_name(struct cdf *c, const char *name)
{
	size_t n = strlen(name);

	cdf_count(c, n);
	memcpy(c->b + c->n, name, n);
	c->n += n;
	while (c->n % 4)
		c->b[c->n++] = 0;
}

/* "CDF" version, numrecs 0, one dimension `dim` of length len, no global
 * attributes, one NC_FLOAT variable z(dim) whose data begins right after
 * the header. */
static struct cdf cdf_one_var(int version, unsigned long long len)
{
	struct cdf c = { .version = version };

	memcpy(c.b, "CDF", 3);
	c.b[3] = (unsigned char)version;
	c.n = 4;
	cdf_count(&c, 0);                     /* numrecs */
	cdf_u32(&c, 0x0A); cdf_count(&c, 1);  /* NC_DIMENSION, 1 */
	cdf_name(&c, "x"); cdf_count(&c, len);
	cdf_u32(&c, 0); cdf_count(&c, 0);     /* no global attributes */
	cdf_u32(&c, 0x0B); cdf_count(&c, 1);  /* NC_VARIABLE, 1 */
	cdf_name(&c, "z"); cdf_count(&c, 1);  /* rank 1 */
	cdf_count(&c, 0);                     /* dimension 0 */
	cdf_u32(&c, 0); cdf_count(&c, 0);     /* no attributes */
	cdf_u32(&c, 5);                       /* NC_FLOAT */
	cdf_count(&c, 0xfffffffcu);           /* vsize */
	if (version == 1)
		cdf_u32(&c, c.n + 4);
	else
		cdf_u64(&c, c.n + 8);
	return c;
}

static const char *write_cdf(const char *name, const struct cdf *c)
{
	const char *path = tmp_path(name);
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "cannot create %s", path);
	cr_assert_eq(fwrite(c->b, 1, c->n, f), c->n);
	cr_assert_eq(fclose(f), 0);
	return path;
}

/* The refusal is the guard's (before nc_open: libnetcdf would allocate
 * what the header declares, 8 GB for z here), names the file, and says
 * what does not fit. */
static void expect_guard(const char *path, unsigned long long max_cells, const char *problem)
{
	struct west_dem d;
	struct west_dem_opts o = { .nodata = WEST_NODATA_REFUSE, .max_cells = max_cells };
	char want[PATH_MAX + 32];

	err[0] = '\0';
	expect_fail(west_dem_load(&d, path, &o, err, sizeof err), WEST_ERR_INVALID, &d, path,
		    NULL, problem);
	snprintf(want, sizeof want, "%s: NetCDF header: ", path);
	cr_assert_eq(strncmp(err, want, strlen(want)), 0, "not the guard's message: %s", err);
}

Test(nc_bad, classic_header_larger_than_its_file_is_refused_before_nc_open)
{
	struct cdf c = cdf_one_var(1, 0x7fffffff);
	const char *p = write_cdf("big.nc", &c);

	cr_assert_lt(c.n, 100, "the header is %zu bytes", c.n);
	expect_guard(p, 0, "variable 'z' has data up to byte 8589934668; the file has 80 bytes");
	expect_guard(p, 1000000, "variable 'z' has 2147483647 values, more than max_cells 1000000");
	c = cdf_one_var(2, 0x7fffffff);
	expect_guard(write_cdf("big2.nc", &c), 0, "variable 'z' has data up to byte");
	c = cdf_one_var(5, 1ull << 40);
	expect_guard(write_cdf("big5.nc", &c), 0, "variable 'z' has data up to byte");
}

Test(nc_bad, classic_header_counts_past_the_file_are_refused)
{
	struct cdf c = { .version = 1 };

	/* 2^31 - 1 global attributes in a 24-byte file */
	memcpy(c.b, "CDF\1", 4);
	c.n = 4;
	cdf_u32(&c, 0);
	cdf_u32(&c, 0); cdf_u32(&c, 0);
	cdf_u32(&c, 0x0C); cdf_u32(&c, 0x7fffffff);
	expect_guard(write_cdf("atts.nc", &c), 0, "an attribute name at byte 24 needs 4 bytes "
		     "past the end of the file");
	/* a dimension name of 2^31 bytes */
	c.n = 8;
	cdf_u32(&c, 0x0A); cdf_u32(&c, 1); cdf_u32(&c, 0x80000000u);
	expect_guard(write_cdf("name.nc", &c), 0, "a dimension name at byte 20 is 2147483648 "
		     "bytes long, more than NC_MAX_NAME");
	/* an attribute of 2^30 doubles */
	c.n = 8;
	cdf_u32(&c, 0); cdf_u32(&c, 0);
	cdf_u32(&c, 0x0C); cdf_u32(&c, 1); cdf_name(&c, "a"); cdf_u32(&c, 6);
	cdf_u32(&c, 0x40000000u);
	expect_guard(write_cdf("att.nc", &c), 0, "an attribute's values at byte 40 needs");
}

/* A classic file cut short: its last variable's data is not all there. */
Test(nc_bad, truncated_classic_file)
{
	const char *src = data_path("hill.nc"), *p = tmp_path("cut.nc");
	FILE *in = fopen(src, "rb"), *out = fopen(p, "wb");
	char buf[65536];
	size_t n;

	cr_assert(in && out);
	n = fread(buf, 1, sizeof buf, in);
	cr_assert(n > 64 && n < sizeof buf, "hill.nc is %zu bytes", n);
	cr_assert_eq(fwrite(buf, 1, n - 4, out), n - 4);
	fclose(in);
	cr_assert_eq(fclose(out), 0);
	expect_guard(p, 0, "variable 'Band1' has data up to byte");
}

/* What libnetcdf writes passes the guard in every classic format:
 * record variables (one of bytes, unpadded, and several), scalars,
 * attributes of every type, no records at all. */
Test(nc, classic_files_pass_the_guard)
{
	static const int formats[] = { NC_CLASSIC_MODEL, NC_64BIT_OFFSET, NC_64BIT_DATA };
	static const signed char bytes[6] = { 1, 2, 3, 4, 5, 6 };
	static const double d[4] = { 1, 2, 3, 4 };
	static const size_t start[2] = { 0, 0 }, count[2] = { 2, 3 };

	for (size_t k = 0; k < 3; k++) {
		for (int records = 0; records < 2; records++) {
			char name[32];
			int ncid, t, x, dims[2], vb, vd, vs, vr;
			snprintf(name, sizeof name, "fmt%zu-%d.nc", k, records);
			const char *p = tmp_path(name);
			cr_assert_eq(nc_create(p, NC_CLOBBER | formats[k], &ncid), NC_NOERR);
			nc_def_dim(ncid, "time", NC_UNLIMITED, &t);
			nc_def_dim(ncid, "x", 3, &x);
			dims[0] = t, dims[1] = x;
			nc_def_var(ncid, "b", NC_BYTE, 2, dims, &vb);
			nc_def_var(ncid, "q", NC_DOUBLE, 1, &x, &vd);
			nc_def_var(ncid, "s", NC_INT, 0, NULL, &vs);
			if (records)
				nc_def_var(ncid, "r", NC_SHORT, 1, &t, &vr);
			nc_put_att_text(ncid, NC_GLOBAL, "title", 5, "hello");
			nc_put_att_double(ncid, vd, "valid", NC_DOUBLE, 4, d);
			nc_put_att_schar(ncid, vb, "flags", NC_BYTE, 3, bytes);
			cr_assert_eq(nc_enddef(ncid), NC_NOERR);
			nc_put_var_double(ncid, vd, d);
			if (records)
				nc_put_vara_schar(ncid, vb, start, count, bytes);
			cr_assert_eq(nc_close(ncid), NC_NOERR);
			err[0] = '\0';
			cr_expect_eq(west_nc_header_check(p, 100, err, sizeof err), WEST_OK,
				     "%s: %s", name, err);
		}
	}
}

/* ---- resampling ---- */

/* z = 100 + 3 i + 5 j on 8 x 6 cells of 10 m. */
static void make_ramp(struct west_dem *d, float *z)
{
	*d = (struct west_dem){ .nx = 8, .ny = 6, .dx = 10, .dy = 10,
				.x0 = 1000, .y0 = 2000, .z = z };
	for (size_t j = 0; j < 6; j++)
		for (size_t i = 0; i < 8; i++)
			z[j * 8 + i] = 100.0f + 3.0f * i + 5.0f * j;
}

/* The ramp's value at output centre k of size res, clamped to the input centres. */
static double ramp_axis(size_t k, double res, size_t n)
{
	double f = (k + 0.5) * res / 10.0 - 0.5;
	return f < 0 ? 0 : f > n - 1 ? n - 1 : f;
}

static void check_resampled(double res, size_t nx, size_t ny)
{
	float z[48];
	struct west_dem in, out;

	make_ramp(&in, z);
	in.crs.wkt = "LOCAL_CS[\"ramp\"]";
	cr_assert_eq(west_dem_resample(&in, res, &out, err, sizeof err), WEST_OK, "%s", err);
	cr_assert(out.nx == nx && out.ny == ny, "%zu x %zu, want %zu x %zu", out.nx, out.ny, nx, ny);
	cr_assert(out.dx == res && out.dy == res && out.x0 == 1000.0 && out.y0 == 2000.0);
	cr_assert(out.nx * out.dx == 80.0 && out.ny * out.dy == 60.0, "extent changed");
	for (size_t j = 0; j < ny; j++)
		for (size_t i = 0; i < nx; i++) {
			double want = 100.0 + 3.0 * ramp_axis(i, res, 8) + 5.0 * ramp_axis(j, res, 6);
			cr_assert(fabs(out.z[j * nx + i] - want) < 1e-4, "(%zu,%zu) = %g, want %g",
				  i, j, out.z[j * nx + i], want);
		}
	cr_assert(out.crs.wkt != in.crs.wkt && strcmp(out.crs.wkt, in.crs.wkt) == 0,
		  "the CRS was not copied");
	west_dem_free(&out);
}

Test(dem, resample_half_cell)
{
	check_resampled(5.0, 16, 12);
}

Test(dem, resample_double_cell)
{
	check_resampled(20.0, 4, 3);
}

Test(dem, resample_bad_resolution)
{
	float z[48];
	struct west_dem in, out;

	make_ramp(&in, z);
	cr_assert_eq(west_dem_resample(&in, 0.0, &out, err, sizeof err), WEST_ERR_INVALID);
	cr_assert_null(out.z);
	cr_assert_eq(west_dem_resample(&in, 100.0, &out, err, sizeof err), WEST_ERR_INVALID);
	cr_assert_not_null(strstr(err, "coarser"), "message '%s'", err);
	cr_assert_null(out.z);
}

/* ------------------------------------------------------------ EPSG code */

static unsigned long epsg_of(const char *wkt, double lon0, double fn, double k0)
{
	struct west_crs c = { .has_tm = 1, .lon0 = lon0, .lat0 = 0.0, .k0 = k0,
			      .false_easting = 500000.0, .false_northing = fn };
	c.wkt = (char *)wkt;
	return west_crs_epsg(&c);
}

#define ESRI_UTM(name, datum) "PROJCS[\"" name "\",GEOGCS[\"GCS_WGS_1984\",DATUM[\"" \
	datum "\",SPHEROID[\"WGS_1984\",6378137.0,298.257223563]]]," \
	"PROJECTION[\"Transverse_Mercator\"],UNIT[\"Meter\",1.0]]"

/* The top-level authority, else UTM on WGS 84 from the parameters. */
Test(crs, epsg_code)
{
	const char *esri = ESRI_UTM("WGS_1984_UTM_Zone_33N", "D_WGS_1984");

	cr_assert_eq(epsg_of(esri, 15.0, 0.0, 0.9996), 32633);
	cr_assert_eq(epsg_of(esri, -111.0, 0.0, 0.9996), 32612);
	cr_assert_eq(epsg_of(esri, -111.0, 10000000.0, 0.9996), 32712, "south");
	cr_assert_eq(epsg_of(esri, 16.0, 0.0, 0.9996), 0, "not a zone's meridian");
	cr_assert_eq(epsg_of(esri, 15.0, 0.0, 1.0), 0, "not UTM's scale");
	cr_assert_eq(epsg_of(esri, 15.0, 500.0, 0.9996), 0, "not UTM's false northing");
	cr_assert_eq(epsg_of(ESRI_UTM("x", "World Geodetic System 1984"), 15.0, 0.0, 0.9996),
		     32633);
	cr_assert_eq(epsg_of(ESRI_UTM("x", "D_North_American_1983"), 15.0, 0.0, 0.9996), 0,
		     "another datum");
	cr_assert_eq(epsg_of(NULL, 15.0, 0.0, 0.9996), 0, "no WKT: the datum is unknown");
	/* the authority wins, WKT1 and WKT2, the outer one only */
	cr_assert_eq(epsg_of("PROJCS[\"a\",UNIT[\"metre\",1,AUTHORITY[\"EPSG\",\"9001\"]],"
			     "AUTHORITY[\"EPSG\",\"2056\"]]", 15.0, 0.0, 0.9996), 2056);
	cr_assert_eq(epsg_of("PROJCRS[\"a\",USAGE[ID[\"EPSG\",1]],ID[\"EPSG\",32633]]",
			     0.0, 0.0, 1.0), 32633);
	cr_assert_eq(epsg_of("PROJCS[\"a\",UNIT[\"metre\",1,AUTHORITY[\"EPSG\",\"9001\"]]]",
			     0.0, 0.0, 1.0), 0);
}

/* The short name: the WKT's first quoted name, else the grid mapping. */
Test(crs, name)
{
	struct west_crs c = { .grid_mapping_name = "transverse_mercator" };
	char b[16];

	c.wkt = (char *)"PROJCS[\"WGS_1984_UTM_Zone_33N\",UNIT[\"Meter\",1.0]]";
	cr_assert_eq(west_crs_name(&c, b, sizeof b), 1);
	cr_assert_str_eq(b, "WGS_1984_UTM_Zo", "cut to the buffer");
	c.wkt = (char *)"PROJCS[\"Gau\xdf\",UNIT[\"Meter\",1.0]]";
	west_crs_name(&c, b, sizeof b);
	cr_assert_str_eq(b, "Gau?");
	c.wkt = (char *)"PROJCS[\"unclosed";
	west_crs_name(&c, b, sizeof b);
	cr_assert_str_eq(b, "transverse_merc");
	c.wkt = NULL;
	c.grid_mapping_name[0] = '\0';
	cr_assert_eq(west_crs_name(&c, b, sizeof b), 0);
	cr_assert_str_eq(b, "");
}
