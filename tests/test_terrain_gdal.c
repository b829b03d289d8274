/*
 * test_terrain_gdal.c: rasters read through GDAL (src/terrain_gdal.c),
 * built only with configure --with-gdal.  tests/test_terrain.c covers the
 * other readers, and the refusal of a GeoTIFF in a build without GDAL.
 *
 * Every GeoTIFF is made here with the GDAL C API into a fresh mkdtemp
 * directory per test (removed afterwards): nothing is committed.  Their
 * heights are either data/hill.asc's (read by the ESRI ASCII reader) or the
 * same Gaussian hill evaluated at each pixel's centre, whose position in
 * WGS 84 / UTM zone 33N comes from src/proj.c, so that a warp by GDAL and
 * PROJ is checked against libwest's own projection.  Each bad input has its
 * own test, which checks the status, that the message names the file and
 * the problem, and that the DEM is left zeroed.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gdal.h>
#include <ogr_srs_api.h>

#include "log.h"
#include "log_capture.h"
#include "proj.h"
#include "terrain.h"
#include "terrain_test_util.h"

#ifndef WEST_SRCDIR
#define WEST_SRCDIR "."
#endif

static void make_tmpdir(void)
{
	terrain_tmpdir_make("test_terrain_gdal");
	GDALAllRegister();
}

static void remove_tmpdir(void)
{
	terrain_tmpdir_remove();
	log_release();
}

TestSuite(gdal, .init = make_tmpdir, .fini = remove_tmpdir);
TestSuite(gdal_warp, .init = make_tmpdir, .fini = remove_tmpdir);
TestSuite(gdal_units, .init = make_tmpdir, .fini = remove_tmpdir);
TestSuite(gdal_bad, .init = make_tmpdir, .fini = remove_tmpdir);

/* ---- making GeoTIFFs ---- */

/* A GeoTIFF: what make_tif writes. */
struct tif {
	int nx, ny;
	int bands;               /* 0: 1; bands 2.. hold 20000 (no height) */
	double gt[6];            /* all zero: no geotransform */
	const char *srs;         /* for OSRSetFromUserInput; NULL: no CRS */
	GDALDataType type;       /* GDT_Unknown (0): Float32 */
	const char *unit;        /* band unit type, or NULL */
	int has_nodata;
	double nodata;
	/* the value of pixel i of line `line` (line 0 first in the file) */
	double (*value)(const struct tif *t, int i, int line);
	const void *arg;
};

static const char *make_tif(const char *name, const struct tif *t)
{
	const char *path = tmp_path(name);
	GDALDriverH drv = GDALGetDriverByName("GTiff");
	GDALDatasetH ds;
	GDALRasterBandH b;
	double *row = malloc((size_t)t->nx * sizeof *row);
	int has_gt = 0;

	cr_assert_not_null(drv, "GDAL has no GTiff driver");
	cr_assert_not_null(row);
	ds = GDALCreate(drv, path, t->nx, t->ny, t->bands > 1 ? t->bands : 1,
			t->type ? t->type : GDT_Float32, NULL);
	cr_assert_not_null(ds, "cannot create %s: %s", path, CPLGetLastErrorMsg());
	for (int k = 0; k < 6; k++)
		has_gt |= t->gt[k] != 0.0;
	if (has_gt)
		cr_assert_eq(GDALSetGeoTransform(ds, (double *)t->gt), CE_None);
	if (t->srs) {
		OGRSpatialReferenceH s = OSRNewSpatialReference(NULL);
		cr_assert_eq(OSRSetFromUserInput(s, t->srs), OGRERR_NONE, "srs %s", t->srs);
		cr_assert_eq(GDALSetSpatialRef(ds, s), CE_None);
		OSRRelease(s);
	}
	b = GDALGetRasterBand(ds, 1);
	if (t->unit)
		GDALSetRasterUnitType(b, t->unit);
	if (t->has_nodata)
		GDALSetRasterNoDataValue(b, t->nodata);
	for (int line = 0; line < t->ny; line++) {
		for (int i = 0; i < t->nx; i++)
			row[i] = t->value(t, i, line);
		cr_assert_eq(GDALRasterIO(b, GF_Write, 0, line, t->nx, 1, row, t->nx, 1,
					  GDT_Float64, 0, 0), CE_None);
	}
	for (int k = 2; k <= t->bands; k++)
		cr_assert_eq(GDALFillRaster(GDALGetRasterBand(ds, k), 20000.0, 0.0), CE_None);
	free(row);
	GDALClose(ds);
	return path;
}

/* ---- the heights ---- */

static double gauss(double d, double sigma)
{
	return exp(-0.5 * d * d / (sigma * sigma));
}

/* data/hill.asc's shape (data/gen_terrain.c) at UTM 33N x, y (m). */
static double hill_at(double x, double y)
{
	return 200.0 + 150.0 * gauss(x - 500800.0, 320.0) * gauss(y - 4650800.0, 320.0);
}

static const struct west_crs utm33 = {
	.grid_mapping_name = "transverse_mercator", .has_tm = 1,
	.lon0 = 15.0, .lat0 = 0.0, .k0 = 0.9996, .false_easting = 500000.0,
};

/* A DEM's heights, pixel (i, line) with line 0 the north row. */
static double dem_value(const struct tif *t, int i, int line)
{
	const struct west_dem *d = t->arg;

	return d->z[(d->ny - 1 - (size_t)line) * d->nx + (size_t)i];
}

/* A DEM's heights in another unit: metres / metres_per_unit. */
struct scaled {
	const struct west_dem *dem;
	double metres_per_unit;
};

static double scaled_value(const struct tif *t, int i, int line)
{
	const struct scaled *s = t->arg;
	struct tif u = *t;

	u.arg = s->dem;
	return dem_value(&u, i, line) / s->metres_per_unit;
}

/* The hill at a geographic pixel's centre, projected by src/proj.c. */
static double geo_hill(const struct tif *t, int i, int line)
{
	double lon = t->gt[0] + (i + 0.5) * t->gt[1], lat = t->gt[3] + (line + 0.5) * t->gt[5];
	double x, y;
	char e[WEST_ERRLEN];

	cr_assert_eq(west_tm_forward(&utm33, lon, lat, &x, &y, e, sizeof e), WEST_OK, "%s", e);
	return hill_at(x, y);
}

static double constant(const struct tif *t, int i, int line)
{
	(void)i, (void)line;
	return *(const double *)t->arg;
}

static struct west_dem hill_asc(void)
{
	struct west_dem d;
	char p[PATH_MAX];

	snprintf(p, sizeof p, "%s/data/hill.asc", WEST_SRCDIR);
	cr_assert_eq(west_dem_load_asc(&d, p, NULL, err, sizeof err), WEST_OK, "%s", err);
	return d;
}

/* hill.asc as a GeoTIFF in UTM 33N (metres, Float32, north row first). */
static struct tif hill_tif(const struct west_dem *d)
{
	return (struct tif){
		.nx = (int)d->nx, .ny = (int)d->ny,
		.gt = { d->x0, d->dx, 0, d->y0 + (double)d->ny * d->dy, 0, -d->dy },
		.srs = "EPSG:32633", .value = dem_value, .arg = d,
	};
}

/* A geographic raster around the hill: 0.0001 degree pixels (8 x 11 m),
 * about 2 km each way. */
static struct tif geo_tif(void)
{
	double lon, lat;
	char e[WEST_ERRLEN];

	cr_assert_eq(west_tm_inverse(&utm33, 500800.0, 4650800.0, &lon, &lat, e, sizeof e),
		     WEST_OK, "%s", e);
	return (struct tif){
		.nx = 240, .ny = 180, .gt = { lon - 0.012, 0.0001, 0, lat + 0.009, 0, -0.0001 },
		.srs = "EPSG:4326", .value = geo_hill,
	};
}

/* A 4 x 3 raster of 10 m pixels in UTM 33N, every pixel *h: the bad-file
 * tests change one thing in it. */
static struct tif flat_tif(const double *h)
{
	return (struct tif){
		.nx = 4, .ny = 3, .gt = { 500000, 10, 0, 4650030, 0, -10 },
		.srs = "EPSG:32633", .value = constant, .arg = h,
	};
}

/* ---- loading and checking ---- */

static enum west_status load_opts(const char *path, const struct west_dem_opts *o,
				  struct west_dem *dem)
{
	err[0] = '\0';
	return west_dem_load(dem, path, o, err, sizeof err);
}

static enum west_status load(const char *path, struct west_dem *dem)
{
	return load_opts(path, NULL, dem);
}

/* A failed load: status `want`, the message names path and has `problem`. */
static void expect_fail(enum west_status s, enum west_status want,
			const struct west_dem *dem, const char *path, const char *problem)
{
	cr_assert_eq(s, want, "status %s, want %s (message: %s)",
		     west_status_str(s), west_status_str(want), err);
	cr_assert_not_null(strstr(err, path), "message '%s' does not name '%s'", err, path);
	cr_assert_not_null(strstr(err, problem), "message '%s' lacks '%s'", err, problem);
	cr_assert_null(dem->z, "the DEM keeps heights after a failure");
	cr_assert(dem->nx == 0 && dem->ny == 0 && dem->crs.wkt == NULL,
		  "the DEM is not zeroed after a failure");
}

/* t written as NAME, loaded with o (NULL: the defaults) and refused as
 * invalid with `problem`. */
static void expect_tif_refused(const char *name, const struct tif *t,
			       const struct west_dem_opts *o, const char *problem)
{
	const char *p = make_tif(name, t);
	struct west_dem g;

	expect_fail(load_opts(p, o, &g), WEST_ERR_INVALID, &g, p, problem);
}

static void expect_same(const struct west_dem *a, const struct west_dem *b, float tol)
{
	cr_assert(a->nx == b->nx && a->ny == b->ny, "%zux%zu vs %zux%zu",
		  a->nx, a->ny, b->nx, b->ny);
	cr_assert(a->dx == b->dx && a->dy == b->dy && a->x0 == b->x0 && a->y0 == b->y0,
		  "geometry (%.9g %.9g %g %g) vs (%.9g %.9g %g %g)",
		  a->x0, a->y0, a->dx, a->dy, b->x0, b->y0, b->dx, b->dy);
	for (size_t k = 0; k < a->nx * a->ny; k++)
		cr_assert(fabsf(a->z[k] - b->z[k]) <= tol, "cell %zu: %.6g vs %.6g",
			  k, a->z[k], b->z[k]);
}

/* has_tm with central meridian lon0 and false northing fn, WKT naming `name`. */
static void expect_tm(const struct west_dem *d, double lon0, double fn, const char *name)
{
	cr_assert(d->crs.has_tm, "has_tm not set");
	cr_assert_str_eq(d->crs.grid_mapping_name, "transverse_mercator");
	cr_assert_eq(d->crs.lon0, lon0);
	cr_assert_eq(d->crs.lat0, 0.0);
	cr_assert_eq(d->crs.k0, 0.9996);
	cr_assert_eq(d->crs.false_easting, 500000.0);
	cr_assert_eq(d->crs.false_northing, fn);
	cr_assert_not_null(d->crs.wkt);
	cr_assert_not_null(strstr(d->crs.wkt, name), "wkt '%.80s' lacks %s", d->crs.wkt, name);
}

/* Every cell within tol of the hill at its centre; the largest error. */
static double expect_hill(const struct west_dem *d, double tol)
{
	double worst = 0.0;

	for (size_t j = 0; j < d->ny; j++) {
		for (size_t i = 0; i < d->nx; i++) {
			double x = d->x0 + (i + 0.5) * d->dx, y = d->y0 + (j + 0.5) * d->dy;
			double e = fabs(d->z[j * d->nx + i] - hill_at(x, y));
			cr_assert(e <= tol, "cell (%zu, %zu) at (%.1f, %.1f): %.4f m, the hill %.4f m",
				  i, j, x, y, d->z[j * d->nx + i], hill_at(x, y));
			worst = fmax(worst, e);
		}
	}
	return worst;
}

/* ---- (a) a raster in UTM metres is read as it is ---- */

Test(gdal, utm_geotiff_equals_hill_asc)
{
	struct west_dem a = hill_asc(), g;
	struct tif t = hill_tif(&a);
	const char *p = make_tif("hill.tif", &t);

	expect_ok(load(p, &g), p);
	expect_same(&g, &a, 0.0f);
	expect_tm(&g, 15.0, 0.0, "UTM zone 33N");
	west_dem_free(&a);
	west_dem_free(&g);
}

/* A DEM's heights with line 0 the south row. */
static double dem_value_south_first(const struct tif *t, int i, int line)
{
	const struct west_dem *d = t->arg;

	return d->z[(size_t)line * d->nx + (size_t)i];
}

Test(gdal, south_up_raster_read_the_right_way_round)
{
	struct west_dem a = hill_asc(), g;
	struct tif t = hill_tif(&a);
	const char *p;

	/* line 0 is the south row: the origin is the lower-left corner */
	t.gt[3] = a.y0, t.gt[5] = a.dy, t.value = dem_value_south_first;
	p = make_tif("south_up.tif", &t);
	expect_ok(load(p, &g), p);
	expect_same(&g, &a, 0.0f);
	west_dem_free(&a);
	west_dem_free(&g);
}

Test(gdal, integer_heights_read_as_metres)
{
	struct west_dem a = hill_asc(), g;
	struct tif t = hill_tif(&a);
	const char *p;

	t.type = GDT_Int16;
	p = make_tif("int16.tif", &t);
	expect_ok(load(p, &g), p);
	expect_same(&g, &a, 0.5f); /* GDAL rounds to the nearest integer */
	west_dem_free(&a);
	west_dem_free(&g);
}

Test(gdal, resolution_left_to_the_resampler_without_a_warp)
{
	struct west_dem a = hill_asc(), g;
	struct tif t = hill_tif(&a);
	const char *p = make_tif("hill.tif", &t);
	struct west_dem_opts o = { .resolution = 100.0 };

	/* no warp: the file's cells, resampled later by grid.c like an .asc */
	expect_ok(load_opts(p, &o, &g), p);
	expect_same(&g, &a, 0.0f);
	west_dem_free(&a);
	west_dem_free(&g);
}

Test(gdal, no_sidecar_files_written)
{
	struct west_dem a = hill_asc(), g;
	struct tif t = hill_tif(&a), u = geo_tif();
	const char *p = make_tif("hill.tif", &t), *q = make_tif("geo.tif", &u);
	DIR *d;
	struct dirent *e;
	int n = 0;

	expect_ok(load(p, &g), p);
	west_dem_free(&g);
	expect_ok(load(q, &g), q);
	west_dem_free(&g);
	d = opendir(tmpdir);
	cr_assert_not_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			n++;
			cr_expect(strstr(e->d_name, ".aux.xml") == NULL, "%s was written", e->d_name);
		}
	closedir(d);
	cr_assert_eq(n, 2);
	west_dem_free(&a);
}

/* ---- (b) another CRS is warped to UTM ---- */

Test(gdal_warp, geographic_warped_to_the_utm_zone_of_its_centre)
{
	struct tif t = geo_tif();
	const char *p = make_tif("geo.tif", &t);
	struct west_dem g;
	double worst;

	log_capture();
	expect_ok(load(p, &g), p);
	cr_assert_not_null(strstr(log_text(), "warped to EPSG:32633 (WGS 84 / UTM zone 33N), bilinear"),
			   "log: %s", log_buf);
	expect_tm(&g, 15.0, 0.0, "UTM zone 33N");
	cr_assert_not_null(strstr(g.crs.wkt, "\"32633\""), "wkt %s", g.crs.wkt);
	/* square cells of the pixels' shorter side (0.0001 degree of longitude
	 * at 42 N: 8.27 m), edges on its multiples */
	cr_assert(g.dx == g.dy && g.dx > 8.2 && g.dx < 8.3, "cell %g x %g m", g.dx, g.dy);
	cr_assert(fabs(g.x0 / g.dx - round(g.x0 / g.dx)) < 1e-6, "x0 %.6f", g.x0);
	/* the largest rectangle inside the 2 km x 2 km outline: nearly all of it */
	cr_assert(g.nx * g.dx > 1900.0 && g.nx * g.dx < 2000.0, "width %g m", g.nx * g.dx);
	cr_assert(g.ny * g.dy > 1900.0 && g.ny * g.dy < 2010.0, "height %g m", g.ny * g.dy);
	/* one bilinear interpolation of 8 x 11 m pixels: h'' (8.3^2 + 11.1^2) / 8
	 * <= 0.035 m */
	worst = expect_hill(&g, 0.05);
	cr_log_info("largest error %.4f m", worst);
	west_dem_free(&g);
}

/* A tall narrow raster, read in several pieces: the lines keep their order
 * (south first) across the pieces' edges. */
static double line_quarter(const struct tif *t, int i, int line)
{
	(void)t;
	return 0.25 * line + 0.125 * i;
}

Test(gdal, tall_raster_read_in_pieces)
{
	struct tif t = { .nx = 2, .ny = 40000, .gt = { 500000, 1, 0, 4690000, 0, -1 },
			 .srs = "EPSG:32633", .value = line_quarter };
	const char *p = make_tif("tall.tif", &t);
	struct west_dem g;

	expect_ok(load(p, &g), p);
	cr_assert(g.nx == 2 && g.ny == 40000 && g.y0 == 4650000.0, "%zu x %zu from %g",
		  g.nx, g.ny, g.y0);
	for (size_t j = 0; j < g.ny; j++)
		for (size_t i = 0; i < g.nx; i++)
			cr_assert_eq(g.z[j * g.nx + i], (float)line_quarter(&t, (int)i,
									  (int)(g.ny - 1 - j)),
				     "cell (%zu, %zu): %g", i, j, g.z[j * g.nx + i]);
	west_dem_free(&g);
}

/* The warp's output (a MEM dataset) read in pieces, not line by line,
 * which GDAL makes quadratic in its lines: this one took 12 s of CPU
 * (found by tests/fuzz/fuzz_dem_gdal, a timeout; corpus
 * dem_gdal/tall_warp_timeout.tif). */
Test(gdal_warp, tall_output_read_in_linear_time)
{
	double h = 100.0;
	struct tif t = { .nx = 8, .ny = 63239, .gt = { 15, 0.0005, 0, -42, 0, -0.0005 },
			 .srs = "EPSG:4326", .value = constant, .arg = &h };
	const char *p = make_tif("tall_geo.tif", &t);
	struct west_dem g;
	clock_t c0 = clock();
	double cpu;

	expect_ok(load(p, &g), p);
	cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
	cr_assert(g.ny > 100000 && g.nx >= 2, "%zu x %zu", g.nx, g.ny);
	cr_assert(cpu < 4.0, "%zu x %zu cells warped and read in %.1f s of CPU", g.nx, g.ny,
		  cpu);
	west_dem_free(&g);
}

/* Band 1 is the heights, warped or not: GDALWarp itself would warp every
 * band and refuse our one-band output (found by tests/fuzz/fuzz_dem_gdal;
 * corpus/dem_gdal/two_bands.tif). */
Test(gdal_warp, band_1_of_several_warped_alone)
{
	struct tif t = geo_tif();
	const char *p1 = make_tif("geo.tif", &t), *p3;
	struct west_dem g1, g3;

	t.bands = 3;
	p3 = make_tif("geo3.tif", &t);
	expect_ok(load(p1, &g1), p1);
	log_capture();
	expect_ok(load(p3, &g3), p3);
	cr_assert_not_null(strstr(log_text(), "3 bands; band 1 is read as the heights"),
			   "log: %s", log_buf);
	cr_assert_not_null(strstr(log_buf, "warped to EPSG:32633"), "log: %s", log_buf);
	expect_same(&g3, &g1, 0.0f);
	west_dem_free(&g1);
	west_dem_free(&g3);
}

Test(gdal, band_1_of_several_read_as_it_is)
{
	struct west_dem a = hill_asc(), g;
	struct tif t = hill_tif(&a);
	const char *p;

	t.bands = 2;
	p = make_tif("hill2.tif", &t);
	expect_ok(load(p, &g), p);
	expect_same(&g, &a, 0.0f);
	west_dem_free(&a);
	west_dem_free(&g);
}

Test(gdal_warp, coarser_resolution_averages_in_the_warp)
{
	struct tif t = geo_tif();
	const char *p = make_tif("geo.tif", &t);
	struct west_dem_opts o = { .resolution = 50.0 };
	struct west_dem g;

	log_capture();
	expect_ok(load_opts(p, &o, &g), p);
	cr_assert_not_null(strstr(log_text(), "average"), "log: %s", log_buf);
	cr_assert(g.dx == 50.0 && g.dy == 50.0);
	cr_assert(fmod(g.x0, 50.0) == 0.0 && fmod(g.y0, 50.0) == 0.0, "corner %g %g", g.x0, g.y0);
	cr_assert(g.nx == 39 || g.nx == 38, "nx %zu", g.nx);
	/* a cell's mean departs from its centre's value by h'' 50^2 / 12 <= 0.3 m */
	expect_hill(&g, 0.5);
	west_dem_free(&g);
}

Test(gdal_warp, southern_hemisphere_gets_a_327nn_zone)
{
	double h = 1234.5;
	struct tif t = { .nx = 50, .ny = 40, .gt = { -70.6, 0.001, 0, -33.4, 0, -0.001 },
			 .srs = "EPSG:4326", .value = constant, .arg = &h };
	const char *p = make_tif("santiago.tif", &t);
	struct west_dem g;

	expect_ok(load(p, &g), p);
	expect_tm(&g, -69.0, 10000000.0, "UTM zone 19S");
	for (size_t k = 0; k < g.nx * g.ny; k++)
		cr_assert(fabsf(g.z[k] - 1234.5f) < 1e-3f, "cell %zu: %g", k, g.z[k]);
	west_dem_free(&g);
}

Test(gdal_warp, feet_projection_warped_to_metres)
{
	/* NAD83 / California zone 3 in US survey feet, 30 ft pixels, near 37.8 N
	 * 120.5 W: UTM zone 10 */
	double h = 250.0;
	struct tif t = { .nx = 60, .ny = 50, .gt = { 6561000, 30, 0, 2100000, 0, -30 },
			 .srs = "EPSG:2227", .value = constant, .arg = &h };
	const char *p = make_tif("ftus.tif", &t);
	struct west_dem g;

	expect_ok(load(p, &g), p);
	expect_tm(&g, -123.0, 0.0, "UTM zone 10N");
	/* 30 ft = 9.144 m; the cells are metres now */
	cr_assert(g.dx > 8.5 && g.dx < 9.8, "cell %g m", g.dx);
	cr_assert(g.nx * g.dx > 500.0 && g.nx * g.dx < 60 * 9.2, "width %g m", g.nx * g.dx);
	for (size_t k = 0; k < g.nx * g.ny; k++)
		cr_assert(fabsf(g.z[k] - 250.0f) < 1e-3f, "cell %zu: %g", k, g.z[k]);
	west_dem_free(&g);
}

Test(gdal_warp, other_datum_warped_to_wgs84)
{
	/* NAD83 / UTM zone 11N: a transverse Mercator in metres, not on WGS 84 */
	double h = 900.0;
	struct tif t = { .nx = 40, .ny = 30, .gt = { 400000, 30, 0, 3800000, 0, -30 },
			 .srs = "EPSG:26911", .value = constant, .arg = &h };
	const char *p = make_tif("nad83.tif", &t);
	struct west_dem g;

	expect_ok(load(p, &g), p);
	expect_tm(&g, -117.0, 0.0, "WGS 84 / UTM zone 11N");
	cr_assert(fabs(g.dx - 30.0) < 0.5, "cell %g m", g.dx);
	west_dem_free(&g);
}

Test(gdal_warp, lonlat_queries_work_on_the_warped_crs)
{
	struct tif t = geo_tif();
	const char *p = make_tif("geo.tif", &t);
	struct west_dem g;
	double x, y, lon = t.gt[0] + 0.012, lat = t.gt[3] - 0.009;
	char e[WEST_ERRLEN];

	expect_ok(load(p, &g), p);
	/* the raster's centre goes to the hill's top, as proj.c places it */
	cr_assert_eq(west_tm_forward(&g.crs, lon, lat, &x, &y, e, sizeof e), WEST_OK, "%s", e);
	cr_assert(fabs(x - 500800.0) < 1e-3 && fabs(y - 4650800.0) < 1e-3, "(%f, %f)", x, y);
	west_dem_free(&g);
}

/* ---- (f) a configured EPSG code ---- */

Test(gdal_warp, configured_epsg_warps_to_that_zone)
{
	struct west_dem a = hill_asc(), g;
	struct tif t = hill_tif(&a);
	const char *p = make_tif("hill.tif", &t);
	struct west_dem_opts o = { .epsg = 32632 };
	float lo, hi;

	expect_ok(load_opts(p, &o, &g), p);
	expect_tm(&g, 9.0, 0.0, "UTM zone 32N");
	/* 6 degrees east of zone 32's meridian: x near 997 km */
	cr_assert(g.x0 > 990000.0 && g.x0 < 1000000.0, "x0 %f", g.x0);
	west_dem_range(&g, &lo, &hi);
	cr_assert(hi > 340.0f && hi <= 349.1f && lo > 200.0f, "range %g .. %g", lo, hi);
	west_dem_free(&a);
	west_dem_free(&g);
}

Test(gdal_warp, configured_epsg_of_the_file_reads_it_as_it_is)
{
	struct west_dem a = hill_asc(), g;
	struct tif t = hill_tif(&a);
	const char *p = make_tif("hill.tif", &t);
	struct west_dem_opts o = { .epsg = 32633 };

	expect_ok(load_opts(p, &o, &g), p);
	expect_same(&g, &a, 0.0f);
	west_dem_free(&a);
	west_dem_free(&g);
}

Test(gdal_bad, configured_epsg_not_a_metric_tm)
{
	struct west_dem a = hill_asc(), g;
	struct tif t = hill_tif(&a);
	const char *p = make_tif("hill.tif", &t);
	static const struct { long epsg; const char *name; } bad[] = {
		{ 4326, "EPSG:4326 (WGS 84)" },
		{ 3857, "EPSG:3857 (WGS 84 / Pseudo-Mercator)" },
		{ 2227, "EPSG:2227 (NAD83 / California zone 3 (ftUS))" },
		{ 25833, "EPSG:25833 (ETRS89 / UTM zone 33N)" },
	};

	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		struct west_dem_opts o = { .epsg = bad[k].epsg };
		expect_fail(load_opts(p, &o, &g), WEST_ERR_INVALID, &g, p, bad[k].name);
		cr_assert_not_null(strstr(err, "is not a transverse Mercator on WGS 84 in metres"),
				   "%s", err);
	}
	struct west_dem_opts o = { .epsg = 999999 };
	expect_fail(load_opts(p, &o, &g), WEST_ERR_INVALID, &g, p,
		    "terrain_epsg EPSG:999999 is not a CRS that GDAL knows");
	west_dem_free(&a);
}

/* ---- (c) vertical units ---- */

static void expect_converted(const char *unit, double metres_per_unit)
{
	struct west_dem a = hill_asc(), g;
	struct scaled s = { &a, metres_per_unit };
	struct tif t = hill_tif(&a);
	const char *p;

	t.unit = unit, t.value = scaled_value, t.arg = &s;
	p = make_tif("feet.tif", &t);
	expect_ok(load(p, &g), p);
	expect_same(&g, &a, 1e-3f);
	west_dem_free(&a);
	west_dem_free(&g);
}

Test(gdal_units, feet_converted)
{
	expect_converted("ft", 0.3048);
	expect_converted("foot", 0.3048);
	expect_converted("US survey foot", 1200.0 / 3937.0);
	expect_converted("metre", 1.0);
	expect_converted("m", 1.0);
}

Test(gdal_units, vertical_crs_in_feet_converted_and_dropped)
{
	struct west_dem a = hill_asc(), g;
	struct scaled s = { &a, 1200.0 / 3937.0 };
	struct tif t = hill_tif(&a);
	const char *p;

	/* UTM 33N + NAVD88 height (ftUS): GDAL reports the unit from the vertical CRS */
	t.srs = "EPSG:32633+6360", t.value = scaled_value, t.arg = &s;
	p = make_tif("compound.tif", &t);
	expect_ok(load(p, &g), p);
	expect_same(&g, &a, 1e-3f);
	expect_tm(&g, 15.0, 0.0, "UTM zone 33N");
	cr_assert_null(strstr(g.crs.wkt, "NAVD88"), "the vertical CRS in feet was kept: %s",
		       g.crs.wkt);
	west_dem_free(&a);
	west_dem_free(&g);
}

Test(gdal_bad, unknown_vertical_unit)
{
	struct west_dem a = hill_asc();
	struct tif t = hill_tif(&a);

	t.unit = "furlong";
	expect_tif_refused("furlong.tif", &t, NULL,
			   "band 1's unit 'furlong' is not metres or feet");
	west_dem_free(&a);
}

Test(gdal_bad, vertical_units_disagree)
{
	struct west_dem a = hill_asc();
	struct tif t = hill_tif(&a);

	t.srs = "EPSG:32633+6360", t.unit = "m";
	expect_tif_refused("disagree.tif", &t, NULL,
			   "band 1's unit 'm' and the vertical CRS 'NAVD88 height (ftUS)'");
	west_dem_free(&a);
}

/* ---- (d) NODATA ---- */

/* hill.asc with NODATA -9999 at pixel 5, line 3 (and the neighbours' mean
 * expected there when filled). */
static double holed_value(const struct tif *t, int i, int line)
{
	if (i == 5 && line == 3)
		return -9999.0;
	return dem_value(t, i, line);
}

Test(gdal, nodata_refused_naming_the_pixel)
{
	struct west_dem a = hill_asc();
	struct tif t = hill_tif(&a);

	t.has_nodata = 1, t.nodata = -9999.0, t.value = holed_value;
	expect_tif_refused("hole.tif", &t, NULL,
			   "1 NODATA cell (first at pixel 5, line 3); set nodata = fill");
	west_dem_free(&a);
}

Test(gdal, nodata_filled_by_the_rule)
{
	struct west_dem a = hill_asc(), g;
	struct tif t = hill_tif(&a);
	struct west_dem_opts o = { .nodata = WEST_NODATA_FILL };
	const char *p;
	size_t j = a.ny - 1 - 3, i = 5, nx = a.nx;

	t.has_nodata = 1, t.nodata = -9999.0, t.value = holed_value;
	p = make_tif("hole.tif", &t);
	expect_ok(load_opts(p, &o, &g), p);
	float want = (float)(((double)a.z[j * nx + i - 1] + a.z[j * nx + i + 1] +
			      a.z[(j - 1) * nx + i] + a.z[(j + 1) * nx + i]) / 4.0);
	cr_assert(fabsf(g.z[j * nx + i] - want) < 1e-3f, "filled %g, want %g",
		  g.z[j * nx + i], want);
	west_dem_free(&a);
	west_dem_free(&g);
}

Test(gdal, nan_is_nodata)
{
	double h = NAN;
	struct tif t = flat_tif(&h);
	struct west_dem_opts o = { .nodata = WEST_NODATA_FILL };

	expect_tif_refused("nan.tif", &t, &o, "all 12 cells are NODATA");
}

Test(gdal, all_nodata_refused)
{
	double h = -9999.0;
	struct tif t = flat_tif(&h);
	struct west_dem_opts o = { .nodata = WEST_NODATA_FILL };

	t.has_nodata = 1, t.nodata = -9999.0;
	expect_tif_refused("empty.tif", &t, &o, "all 12 cells are NODATA");
}

/* The geographic hill with a block of NODATA in the middle. */
static double geo_holed(const struct tif *t, int i, int line)
{
	if (i >= 20 && i < 30 && line >= 20 && line < 30)
		return -32768.0;
	return geo_hill(t, i, line);
}

Test(gdal_warp, nodata_in_a_warp_follows_the_rule)
{
	struct tif t = geo_tif();
	struct west_dem g;
	struct west_dem_opts o = { .nodata = WEST_NODATA_FILL };
	const char *p;

	t.has_nodata = 1, t.nodata = -32768.0, t.value = geo_holed;
	p = make_tif("geo_hole.tif", &t);
	expect_fail(load(p, &g), WEST_ERR_INVALID, &g, p,
		    "(warped to EPSG:32633):");
	cr_assert_not_null(strstr(err, "NODATA cells (first at x "), "%s", err);
	cr_assert_not_null(strstr(err, " m (EPSG:32633)); set nodata = fill"), "%s", err);
	/* filled: the hole's cells (on the hill's flank, where it rises by 1 m
	 * across the hole) from their neighbours, the rest as before */
	expect_ok(load_opts(p, &o, &g), p);
	expect_hill(&g, 0.5);
	west_dem_free(&g);
}

/* ---- (e) bad files ---- */

/* The n bytes written as NAME are refused as not a raster. */
static void expect_not_a_raster(const char *name, const void *bytes, size_t n)
{
	const char *p = write_bytes(name, bytes, n);
	struct west_dem g;

	expect_fail(load(p, &g), WEST_ERR_INVALID, &g, p, ": not a raster that GDAL can read (");
}

Test(gdal_bad, garbage_is_not_a_raster)
{
	static const unsigned char junk[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

	expect_not_a_raster("junk.dem", junk, sizeof junk);
}

Test(gdal_bad, broken_tiff_is_not_a_raster)
{
	static const unsigned char tiff[12] = { 'I', 'I', 42, 0, 200, 0, 0, 0, 1, 2, 3, 4 };

	expect_not_a_raster("broken.tif", tiff, sizeof tiff);
}

Test(gdal_bad, text_that_is_not_esri_ascii)
{
	static const char text[] = "elevation model\n1 2 3\n";

	expect_not_a_raster("notes.txt", text, sizeof text - 1);
}

Test(gdal_bad, missing_file)
{
	struct west_dem g;
	const char *p = tmp_path("absent.tif");

	expect_fail(west_dem_load_gdal(&g, p, NULL, err, sizeof err), WEST_ERR_IO, &g, p,
		    ": cannot open: No such file or directory");
}

Test(gdal_bad, not_georeferenced)
{
	double h = 300.0;
	struct tif t = { .nx = 4, .ny = 3, .value = constant, .arg = &h };

	expect_tif_refused("plain.tif", &t, NULL,
			   ": not georeferenced (no geotransform), so westd cannot place it");
}

Test(gdal_bad, geotransform_without_crs)
{
	double h = 300.0;
	struct tif t = flat_tif(&h);

	t.srs = NULL;
	expect_tif_refused("nocrs.tif", &t, NULL,
			   ": has a geotransform but no CRS, so westd cannot tell its units");
}

Test(gdal_bad, rotated_geotransform)
{
	double h = 300.0;
	struct tif t = flat_tif(&h);

	t.gt[2] = 1, t.gt[4] = 1;
	expect_tif_refused("rotated.tif", &t, NULL,
			   ": the geotransform is rotated or sheared (terms 1 and 1); warp it");
}

/* Finite origin and pixel size, but the far corner overflows (-1e308 -
 * 4 x 1e308 is -inf, and 1e308 + 4 x 1e308 is inf): the DEM was read with
 * y0 = -inf before (found checking inputs against fuzz_dem_gdal's
 * invariants; corpus dem_gdal/extent_overflow_*.tif). */
Test(gdal_bad, extent_beyond_finite_coordinates)
{
	double h = 300.0;
	struct tif ty = { .nx = 4, .ny = 4, .gt = { 500000, 50, 0, -1e308, 0, -1e308 },
			  .srs = "EPSG:32633", .value = constant, .arg = &h };
	struct tif tx = { .nx = 4, .ny = 4, .gt = { 1e308, 1e308, 0, 4650000, 0, -50 },
			  .srs = "EPSG:32633", .value = constant, .arg = &h };

	expect_tif_refused("yinf.tif", &ty, NULL,
			   "pixel 50 x -1e+308) puts the far corner of 4 x 4 pixels beyond any finite coordinate");
	expect_tif_refused("xinf.tif", &tx, NULL,
			   "pixel 1e+308 x -50) puts the far corner of 4 x 4 pixels beyond any finite coordinate");
}

/* The fuzzers' reproducer corpus/dem_gdal/NAME refused as invalid, saying
 * `why`. */
static void expect_reproducer_refused(const char *name, const char *why)
{
	char p[PATH_MAX];
	struct west_dem g;

	snprintf(p, sizeof p, "%s/tests/fuzz/corpus/dem_gdal/%s", WEST_SRCDIR, name);
	expect_fail(load(p, &g), WEST_ERR_INVALID, &g, p, why);
}

/* A geographic CRS identified as a geocentric one (GeographicTypeGeoKey
 * 4342, EST97 geocentric): PROJ before 9.3.1 crashes transforming it (a
 * null pointer in createOperations; Debian 12's gdalinfo crashes on the
 * file too), so it is refused first.  Found by tests/fuzz/fuzz_dem_gdal, a
 * SEGV in libproj; the file is its reproducer (GDAL's writer does not
 * write such a key, so it is not made here). */
Test(gdal_bad, geographic_crs_with_a_geocentric_id)
{
	expect_reproducer_refused("geographic_id_geocentric.tif",
				  "is identified as EPSG:4342, which is a geocentric CRS (EST97)");
}

/* The same for the base geographic CRS of a projected one: 'WGS 84 / UTM
 * zone 33N' on a base 'IGS97' identified as EPSG:9001, the geocentric
 * IGS97.  Found by tests/fuzz/fuzz_dem_gdal (a SEGV in libproj, in
 * ObjectUsage::domains under proj_crs_create_bound_crs_to_WGS84, when GDAL
 * set up the warp to the configured zone); the file is its reproducer. */
Test(gdal_bad, projected_crs_on_a_geocentric_base_id)
{
	expect_reproducer_refused("utm_base_id_geocentric.tif", "the base geographic CRS 'IGS97' "
				  "is identified as EPSG:9001, which is a geocentric CRS");
}

/* A raster whose CRS is geocentric (IGS97, EPSG 9001: earth-centred x, y,
 * z): no map plane, and PROJ 9.1 overflows its stack when GDAL sets up a
 * warp from it, so it is refused first.  Found by tests/fuzz/fuzz_dem_gdal,
 * a stack overflow in libproj; the file is its reproducer. */
Test(gdal_bad, geocentric_crs)
{
	expect_reproducer_refused("geocentric_crs.tif",
				  "is geocentric (earth-centred x, y, z), not a map projection");
}

Test(gdal_bad, complex_values)
{
	double h = 300.0;
	struct tif t = flat_tif(&h);

	t.type = GDT_CFloat32;
	expect_tif_refused("complex.tif", &t, NULL,
			   ": band 1 is of type CFloat32, not real numbers");
}

Test(gdal_bad, out_of_range_height)
{
	double h = 12000.0;
	struct tif t = flat_tif(&h);

	expect_tif_refused("high.tif", &t, NULL,
			   ": band 1 at pixel 0, line 0 (12000 m) is outside [-12000, 10000] m");
}

Test(gdal_bad, huge_raster_refused_before_reading)
{
	const char *p = tmp_path("huge.tif");
	char *copt[] = { "SPARSE_OK=TRUE", "TILED=YES", "BLOCKXSIZE=1024", "BLOCKYSIZE=1024",
			 NULL };
	double gt[6] = { 500000, 1, 0, 4700000, 0, -1 };
	OGRSpatialReferenceH s = OSRNewSpatialReference(NULL);
	GDALDatasetH ds;
	struct west_dem g;
	struct west_dem_opts o = { .max_cells = 1000000 };
	struct timespec t0, t1;

	ds = GDALCreate(GDALGetDriverByName("GTiff"), p, 40000, 30000, 1, GDT_Float32, copt);
	cr_assert_not_null(ds);
	OSRImportFromEPSG(s, 32633);
	GDALSetGeoTransform(ds, gt);
	GDALSetSpatialRef(ds, s);
	OSRRelease(s);
	GDALClose(ds);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	expect_fail(load_opts(p, &o, &g), WEST_ERR_INVALID, &g, p,
		    ": raster of 40000 x 30000 cells exceeds max_cells 1000000");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_assert(t1.tv_sec - t0.tv_sec < 2, "the refusal took %ld s: pixels were read?",
		  (long)(t1.tv_sec - t0.tv_sec));
}

Test(gdal_bad, huge_warp_output_refused_before_warping)
{
	struct tif t = geo_tif();
	struct west_dem_opts o = { .resolution = 0.05, .max_cells = 100000000 };

	expect_tif_refused("geo.tif", &t, &o, " (warped to EPSG:32633 at 0.05 m): raster of ");
	cr_assert_not_null(strstr(err, "cells exceeds max_cells 100000000"), "%s", err);
}

Test(gdal_bad, local_crs)
{
	double h = 300.0;
	struct tif t = { .nx = 4, .ny = 3, .gt = { 0, 10, 0, 30, 0, -10 },
			 .srs = "LOCAL_CS[\"site grid\",UNIT[\"metre\",1]]",
			 .value = constant, .arg = &h };

	expect_tif_refused("local.tif", &t, NULL,
			   ": its CRS 'site grid' is a local (engineering) CRS");
}
