/*
 * test_geotiff.c: the GeoTIFF writer (src/geotiff.h), read back with
 * tests/tiff_read.h, a reader written from the specifications.
 *
 * - the encoder: a small raster read back tag by tag (sizes, sample
 *   format, layout, pixel scale, tiepoint, GeoKeys, nodata, GDAL's band
 *   descriptions) and value by value (NaN written as nodata, north row
 *   first as given); several strips; every refusal naming its member;
 *   the atomic file write;
 * - the CRS's keys: a WKT's own EPSG code, WGS 84 / UTM derived from an
 *   ESRI .prj (west_crs_epsg, tested in test_terrain.c), a transverse
 *   Mercator that has no code (user-defined keys with its five
 *   parameters), no CRS at all;
 * - the wind: a solved field over a hill on UTM 33N, every pixel equal to
 *   the point query at its column centre (the numbers the API answers),
 *   the corner and pixel size with strides 1 and 4, nodata above the top.
 */
#include "model_fixture.h"
#include "tiff_read.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "geotiff.h"
#include "query.h"

static char err[WEST_ERRLEN];

/* GeoKeys */
#define GK_MODEL 1024
#define GK_RASTER 1025
#define GK_CITATION 1026
#define GK_GEOGRAPHIC 2048
#define GK_PROJECTED 3072
#define GK_PROJECTION 3074
#define GK_COORD_TRANS 3075
#define GK_LINEAR_UNITS 3076

/* The default terrain's .prj (data/default.prj): ESRI WKT, no EPSG code. */
static const char UTM33_ESRI[] =
	"PROJCS[\"WGS_1984_UTM_Zone_33N\",GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\","
	"SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],PRIMEM[\"Greenwich\",0.0],"
	"UNIT[\"Degree\",0.0174532925199433]],PROJECTION[\"Transverse_Mercator\"],"
	"PARAMETER[\"False_Easting\",500000.0],PARAMETER[\"False_Northing\",0.0],"
	"PARAMETER[\"Central_Meridian\",15.0],PARAMETER[\"Scale_Factor\",0.9996],"
	"PARAMETER[\"Latitude_Of_Origin\",0.0],UNIT[\"Meter\",1.0]]";

/* WGS 84 / UTM zone 21S as ESRI writes it: no EPSG code either. */
static const char UTM21S_ESRI[] =
	"PROJCS[\"WGS_1984_UTM_Zone_21S\",GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\","
	"SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],PRIMEM[\"Greenwich\",0.0],"
	"UNIT[\"Degree\",0.0174532925199433]],PROJECTION[\"Transverse_Mercator\"],"
	"PARAMETER[\"False_Easting\",500000.0],PARAMETER[\"False_Northing\",10000000.0],"
	"PARAMETER[\"Central_Meridian\",-57.0],PARAMETER[\"Scale_Factor\",0.9996],"
	"PARAMETER[\"Latitude_Of_Origin\",0.0],UNIT[\"Meter\",1.0]]";

/* ETRS89 / UTM zone 33N as OGC WKT1 with its authority (EPSG 25833). */
static const char ETRS89_UTM33[] =
	"PROJCS[\"ETRS89 / UTM zone 33N\",GEOGCS[\"ETRS89\",DATUM[\"European_Terrestrial_"
	"Reference_System_1989\",SPHEROID[\"GRS 1980\",6378137,298.257222101,"
	"AUTHORITY[\"EPSG\",\"7019\"]],AUTHORITY[\"EPSG\",\"6258\"]],PRIMEM[\"Greenwich\",0],"
	"UNIT[\"degree\",0.0174532925199433],AUTHORITY[\"EPSG\",\"4258\"]],"
	"PROJECTION[\"Transverse_Mercator\"],PARAMETER[\"latitude_of_origin\",0],"
	"PARAMETER[\"central_meridian\",15],PARAMETER[\"scale_factor\",0.9996],"
	"PARAMETER[\"false_easting\",500000],PARAMETER[\"false_northing\",0],"
	"UNIT[\"metre\",1],AUTHORITY[\"EPSG\",\"25833\"]]";

static struct west_crs utm(double lon0, double fn, const char *wkt)
{
	return (struct west_crs){ .grid_mapping_name = "transverse_mercator",
				  .wkt = (char *)wkt, .has_tm = 1, .lon0 = lon0,
				  .lat0 = 0, .k0 = 0.9996, .false_easting = 500000,
				  .false_northing = fn };
}

/* ------------------------------------------------------------ encoder */

/* 3 x 2 pixels, 2 bands: value = 100 b + 10 row + col, NaN at (1, 2). */
static float small_vals[2][6];
static struct west_geotiff_band small_bands[2];

static struct west_geotiff small_raster(const struct west_crs *crs)
{
	static const char *const meta[] = { "HEIGHT=10 m above ground", "NOTE=a<b&c", NULL };

	for (int b = 0; b < 2; b++)
		for (int r = 0; r < 2; r++)
			for (int c = 0; c < 3; c++)
				small_vals[b][r * 3 + c] = (float)(100 * b + 10 * r + c) + 0.25f;
	small_vals[1][1 * 3 + 2] = NAN;
	small_bands[0] = (struct west_geotiff_band){ "wind_speed", "m/s", small_vals[0] };
	small_bands[1] = (struct west_geotiff_band){ "direction \"from\"", NULL, small_vals[1] };
	return (struct west_geotiff){ .nx = 3, .ny = 2, .nbands = 2, .bands = small_bands,
				      .x_ul = 500000, .y_ul = 4658000, .dx = 100, .dy = 50,
				      .crs = crs, .nodata = -9999.0f, .metadata = meta,
				      .software = "westd test" };
}

static void encode(const struct west_geotiff *t, struct tiff_file *tf, unsigned char **buf)
{
	size_t len;

	cr_assert_eq(west_geotiff_encode(t, buf, &len, err, sizeof err), WEST_OK, "%s", err);
	tiff_parse(tf, *buf, len);
}

Test(geotiff, small_raster_reads_back)
{
	struct west_crs crs = utm(15, 0, UTM33_ESRI);
	struct west_geotiff t = small_raster(&crs);
	struct tiff_file tf;
	unsigned char *buf;
	char cit[80];

	encode(&t, &tf, &buf);
	cr_expect_eq(tiff_uint(&tf, 256, 0), 3);
	cr_expect_eq(tiff_uint(&tf, 257, 0), 2);
	for (uint32_t b = 0; b < 2; b++) {
		cr_expect_eq(tiff_uint(&tf, 258, b), 32, "BitsPerSample");
		cr_expect_eq(tiff_uint(&tf, 339, b), 3, "SampleFormat IEEE float");
	}
	cr_expect_eq(tiff_uint(&tf, 259, 0), 1, "no compression");
	cr_expect_eq(tiff_uint(&tf, 262, 0), 1, "BlackIsZero");
	cr_expect_eq(tiff_uint(&tf, 277, 0), 2, "SamplesPerPixel");
	cr_expect_eq(tiff_uint(&tf, 284, 0), 1, "chunky");
	cr_expect_eq(tiff_need(&tf, 338)->count, 1, "one extra sample");
	cr_expect_eq(tiff_uint(&tf, 338, 0), 0, "unspecified");
	cr_expect_str_eq(tiff_ascii(&tf, 305), "westd test");
	/* pixel scale and the outer upper-left corner */
	cr_expect_eq(tiff_double(&tf, 33550, 0), 100.0);
	cr_expect_eq(tiff_double(&tf, 33550, 1), 50.0);
	cr_expect_eq(tiff_double(&tf, 33550, 2), 0.0);
	static const double tie[6] = { 0, 0, 0, 500000, 4658000, 0 };
	for (uint32_t k = 0; k < 6; k++)
		cr_expect_eq(tiff_double(&tf, 33922, k), tie[k], "tiepoint %u", k);
	/* GeoKeys: version 1.1.0, projected, PixelIsArea, EPSG 32633 */
	const struct tiff_entry *d = tiff_need(&tf, 34735);
	cr_expect(tiff_rd16(d->val) == 1 && tiff_rd16(d->val + 2) == 1 &&
		  tiff_rd16(d->val + 4) == 0, "key directory version");
	cr_expect_eq(tiff_geokey_short(&tf, GK_MODEL), 1);
	cr_expect_eq(tiff_geokey_short(&tf, GK_RASTER), 1);
	cr_expect_eq(tiff_geokey_short(&tf, GK_PROJECTED), 32633);
	cr_expect_eq(tiff_geokey_short(&tf, GK_COORD_TRANS), -1, "user-defined keys too");
	cr_assert(tiff_geokey_ascii(&tf, GK_CITATION, cit, sizeof cit));
	cr_expect_str_eq(cit, "WGS_1984_UTM_Zone_33N");
	/* nodata and GDAL's metadata */
	cr_expect_str_eq(tiff_ascii(&tf, 42113), "-9999");
	const char *xml = tiff_ascii(&tf, 42112);
	cr_expect(strstr(xml, "<Item name=\"HEIGHT\">10 m above ground</Item>"), "%s", xml);
	cr_expect(strstr(xml, "<Item name=\"NOTE\">a&lt;b&amp;c</Item>"), "%s", xml);
	cr_expect(strstr(xml, "<Item name=\"DESCRIPTION\" sample=\"0\" role=\"description\">"
			 "wind_speed</Item>"), "%s", xml);
	cr_expect(strstr(xml, "<Item name=\"UNITTYPE\" sample=\"0\" role=\"unittype\">m/s"
			 "</Item>"), "%s", xml);
	cr_expect(strstr(xml, "sample=\"1\" role=\"description\">direction &quot;from&quot;"),
		  "%s", xml);
	cr_expect(!strstr(xml, "sample=\"1\" role=\"unittype\""), "band 2 has no unit");
	/* every value, the file's row 0 being the first row given */
	for (uint32_t b = 0; b < 2; b++)
		for (uint32_t r = 0; r < 2; r++)
			for (uint32_t c = 0; c < 3; c++) {
				float want = b == 1 && r == 1 && c == 2 ? -9999.0f :
					     (float)(100 * b + 10 * r + c) + 0.25f;
				cr_expect_eq(tiff_sample(&tf, r, c, b), want,
					     "band %u row %u col %u", b, r, c);
			}
	free(buf);
}

/* Rows of 16000 bytes: 4 rows per strip of 64 KiB, so 10 rows in 3. */
Test(geotiff, several_strips)
{
	enum { NX = 1000, NY = 10, NB = 4 };
	float *v = malloc(sizeof(float) * NX * NY * NB);
	struct west_geotiff_band b[NB];
	struct tiff_file tf;
	unsigned char *buf;

	cr_assert_not_null(v);
	for (size_t i = 0; i < (size_t)NX * NY * NB; i++)
		v[i] = (float)i;
	for (int k = 0; k < NB; k++)
		b[k] = (struct west_geotiff_band){ NULL, NULL, v + (size_t)k * NX * NY };
	struct west_geotiff t = { .nx = NX, .ny = NY, .nbands = NB, .bands = b, .x_ul = 0,
				  .y_ul = 0, .dx = 1, .dy = 1, .nodata = -1 };
	encode(&t, &tf, &buf);
	cr_expect_eq(tiff_uint(&tf, 278, 0), 4);
	cr_expect_eq(tiff_need(&tf, 273)->count, 3);
	cr_expect_eq(tiff_uint(&tf, 279, 2), 2 * NX * NB * 4, "the last strip has 2 rows");
	for (uint32_t r = 0; r < NY; r += 3)
		for (uint32_t k = 0; k < NB; k++)
			cr_expect_eq(tiff_sample(&tf, r, NX - 1, k),
				     (float)((size_t)k * NX * NY + (size_t)r * NX + NX - 1),
				     "row %u band %u", r, k);
	free(buf);
	free(v);
}

/* A refusal: WEST_ERR_INVALID, the message naming what. */
static void refused(const struct west_geotiff *t, const char *what)
{
	unsigned char *buf = (unsigned char *)"x";
	size_t len = 1;

	cr_expect_eq(west_geotiff_encode(t, &buf, &len, err, sizeof err), WEST_ERR_INVALID,
		     "%s was accepted", what);
	cr_expect(strstr(err, what), "'%s' does not name %s", err, what);
	cr_expect(buf == NULL && len == 0, "a refusal returned bytes");
}

Test(geotiff, refusals_name_the_member)
{
	struct west_geotiff t = small_raster(NULL), bad;
	static const char *const nometa[] = { "HEIGHT 10 m", NULL };
	struct west_geotiff_band nov[2] = { small_bands[0], { "x", NULL, NULL } };

	bad = t, bad.nx = 0;
	refused(&bad, "0 x 2 pixels");
	bad = t, bad.nbands = 0;
	refused(&bad, "0 bands");
	bad = t, bad.nbands = WEST_GEOTIFF_MAX_BANDS + 1;
	refused(&bad, "17 bands");
	bad = t, bad.bands = nov;
	refused(&bad, "band 2 has no values");
	bad = t, bad.dx = 0;
	refused(&bad, "pixel size 0 x 50");
	bad = t, bad.dy = NAN;
	refused(&bad, "pixel size 100 x nan");
	bad = t, bad.y_ul = INFINITY;
	refused(&bad, "upper-left corner");
	bad = t, bad.nodata = NAN;
	refused(&bad, "nodata nan");
	bad = t, bad.metadata = nometa;
	refused(&bad, "'HEIGHT 10 m' is not NAME=VALUE");
	/* 40000 x 30000 float32: 4.5 GiB, refused before anything is read */
	bad = t, bad.nx = 40000, bad.ny = 30000, bad.nbands = 1;
	refused(&bad, "less than 4 GiB");
	/* the largest sides: their product overflows 64 bits, still refused */
	struct west_geotiff_band many[WEST_GEOTIFF_MAX_BANDS];
	for (size_t b = 0; b < WEST_GEOTIFF_MAX_BANDS; b++)
		many[b] = small_bands[0];
	bad = t, bad.nx = UINT32_MAX, bad.ny = UINT32_MAX, bad.bands = many;
	bad.nbands = WEST_GEOTIFF_MAX_BANDS;
	refused(&bad, "less than 4 GiB");
	/* just under 4 GiB of pixels, but with the tags over it */
	bad = t, bad.nx = 65535, bad.ny = 16384, bad.nbands = 1;
	refused(&bad, "less than 4 GiB");
}

Test(geotiff, file_is_written_whole_or_not_at_all)
{
	struct west_geotiff t = small_raster(NULL);
	char dir[] = "/tmp/west-geotiff-XXXXXX", path[96];
	struct stat sb;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/w.tif", dir);
	cr_assert_eq(west_geotiff_write(path, &t, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(stat(path, &sb), 0);
	cr_expect_eq(sb.st_mode & 0777, 0644);
	size_t len;
	unsigned char *buf;
	cr_assert_eq(west_geotiff_encode(&t, &buf, &len, err, sizeof err), WEST_OK);
	cr_expect_eq((size_t)sb.st_size, len, "the file is the encoded bytes");
	free(buf);
	snprintf(path, sizeof path, "%s/nodir/w.tif", dir);
	cr_expect_eq(west_geotiff_write(path, &t, err, sizeof err), WEST_ERR_IO);
	cr_expect(strstr(err, "nodir/w.tif"), "%s", err);
	snprintf(path, sizeof path, "%s/w.tif", dir);
	unlink(path);
	rmdir(dir);
}

/* ---------------------------------------------------------------- CRS */

/* The GeoKeys written for crs. */
static void keys_for(const struct west_crs *crs, struct tiff_file *tf, unsigned char **buf)
{
	struct west_geotiff t = small_raster(crs);
	encode(&t, tf, buf);
	cr_expect_eq(tiff_geokey_short(tf, GK_MODEL), 1);
	cr_expect_eq(tiff_geokey_short(tf, GK_RASTER), 1);
}

Test(geotiff, keys_of_each_kind_of_crs)
{
	struct tiff_file tf;
	unsigned char *buf;
	char cit[80];

	/* the WKT's code */
	struct west_crs c = utm(15, 0, ETRS89_UTM33);
	keys_for(&c, &tf, &buf);
	cr_expect_eq(tiff_geokey_short(&tf, GK_PROJECTED), 25833);
	cr_assert(tiff_geokey_ascii(&tf, GK_CITATION, cit, sizeof cit));
	cr_expect_str_eq(cit, "ETRS89 / UTM zone 33N");
	free(buf);

	/* southern UTM from an ESRI .prj, which names no code */
	c = utm(-57, 10000000, UTM21S_ESRI);
	keys_for(&c, &tf, &buf);
	cr_expect_eq(tiff_geokey_short(&tf, GK_PROJECTED), 32721);
	cr_assert(tiff_geokey_ascii(&tf, GK_CITATION, cit, sizeof cit));
	cr_expect_str_eq(cit, "WGS_1984_UTM_Zone_21S");
	free(buf);

	/* UTM's parameters from a CF grid mapping without a WKT: no datum
	 * named, so no code (west_crs_epsg), but the projection itself */
	c = utm(15, 0, NULL);
	keys_for(&c, &tf, &buf);
	cr_expect_eq(tiff_geokey_short(&tf, GK_PROJECTED), 32767);
	cr_expect_eq(tiff_geokey_double(&tf, 3080), 15.0, "ProjNatOriginLong");
	cr_assert(tiff_geokey_ascii(&tf, GK_CITATION, cit, sizeof cit));
	cr_expect_str_eq(cit, "transverse_mercator");
	free(buf);

	/* user-defined transverse Mercator with its five parameters */
	c = utm(15.05, 1234.5, "PROJCS[\"custom|TM\",GEOGCS[\"x\",DATUM[\"D_WGS_1984\"]]]");
	c.lat0 = 41.5, c.k0 = 0.9999, c.false_easting = 250000;
	keys_for(&c, &tf, &buf);
	cr_expect_eq(tiff_geokey_short(&tf, GK_PROJECTED), 32767);
	cr_expect_eq(tiff_geokey_short(&tf, GK_PROJECTION), 32767);
	cr_expect_eq(tiff_geokey_short(&tf, GK_COORD_TRANS), 1, "CT_TransverseMercator");
	cr_expect_eq(tiff_geokey_short(&tf, GK_GEOGRAPHIC), 4326);
	cr_expect_eq(tiff_geokey_short(&tf, GK_LINEAR_UNITS), 9001);
	cr_expect_eq(tiff_geokey_double(&tf, 3080), 15.05, "ProjNatOriginLong");
	cr_expect_eq(tiff_geokey_double(&tf, 3081), 41.5, "ProjNatOriginLat");
	cr_expect_eq(tiff_geokey_double(&tf, 3082), 250000.0, "ProjFalseEasting");
	cr_expect_eq(tiff_geokey_double(&tf, 3083), 1234.5, "ProjFalseNorthing");
	cr_expect_eq(tiff_geokey_double(&tf, 3092), 0.9999, "ProjScaleAtNatOrigin");
	cr_assert(tiff_geokey_ascii(&tf, GK_CITATION, cit, sizeof cit));
	cr_expect_str_eq(cit, "custom/TM", "'|' ends a GeoTIFF ASCII key");
	free(buf);

	/* no CRS: placed, in metres, nothing more */
	keys_for(NULL, &tf, &buf);
	cr_expect_eq(tiff_geokey_short(&tf, GK_PROJECTED), -1);
	cr_expect_eq(tiff_geokey_short(&tf, GK_LINEAR_UNITS), 9001);
	cr_expect_eq(tiff_geokey_short(&tf, GK_GEOGRAPHIC), -1);
	free(buf);
}

/* --------------------------------------------------------------- wind */

static struct west_grid g;
static struct west_field f;

static void wind_teardown(void)
{
	west_field_free(&f);
	west_grid_free(&g);
}

/* 17 x 13 columns of 100 m over a 60 m hill on UTM 33N (the default
 * terrain's .prj), solved with two stations. */
static void wind_setup(void)
{
	struct west_dem dem = { .nx = 17, .ny = 13, .dx = 100, .dy = 100,
				.x0 = FIX_X0, .y0 = FIX_Y0, .crs = utm(15, 0, UTM33_ESRI) };
	struct west_config *c = malloc(sizeof *c);
	struct west_obs_set obs = { 0 };
	struct west_solve_opts o;

	cr_assert_not_null(c);
	west_config_defaults(c);
	c->nz = 12, c->dz = 15;
	dem.z = malloc(dem.nx * dem.ny * sizeof *dem.z);
	cr_assert_not_null(dem.z);
	for (size_t j = 0; j < dem.ny; j++)
		for (size_t i = 0; i < dem.nx; i++) {
			double x = ((double)i - 8) * 100, y = ((double)j - 6) * 100;
			dem.z[j * dem.nx + i] = (float)(FIX_PLAIN + 60 * exp(-(x * x + y * y) /
									   (2 * 300.0 * 300.0)));
		}
	struct west_grid_opts go;
	west_grid_opts_from_config(&go, c);
	cr_assert_eq(west_grid_init(&g, &dem, &go, err, sizeof err), WEST_OK, "%s", err);
	free(dem.z);
	free(c);
	cr_assert(g.has_convergence, "the grid should know true north");
	fix_obs(&obs, "A", 250, 350, 10, 6, 250, 3);
	fix_obs(&obs, "B", 1450, 950, 10, 4, 200, 3);
	fix_opts(&o, 200, 1e-4, 1.25, WEST_INDEXING_COMPACT);
	fix_solve(&g, &obs, &o, &f);
	west_obs_set_free(&obs);
}

TestSuite(wind, .init = wind_setup, .fini = wind_teardown);

static void wind_tiff(double z, enum west_zref zref, size_t stride, struct tiff_file *tf,
		      unsigned char **buf, size_t *valid)
{
	static const char *const extra[] = { "FIELD_VERSION=7", NULL };
	size_t len;

	cr_assert_eq(west_geotiff_wind(&g, &f, z, zref, stride, extra, buf, &len, valid, err,
				       sizeof err), WEST_OK, "%s", err);
	tiff_parse(tf, *buf, len);
}

Test(wind, every_pixel_is_the_point_query_at_its_column_centre)
{
	struct tiff_file tf;
	unsigned char *buf;
	size_t valid;

	wind_tiff(10, WEST_ZREF_AGL, 1, &tf, &buf, &valid);
	cr_expect_eq(valid, g.nx * g.ny);
	cr_assert_eq(tiff_uint(&tf, 256, 0), g.nx);
	cr_assert_eq(tiff_uint(&tf, 257, 0), g.ny);
	cr_assert_eq(tiff_uint(&tf, 277, 0), 4);
	cr_expect_eq(tiff_double(&tf, 33922, 3), g.x0, "corner x");
	cr_expect_eq(tiff_double(&tf, 33922, 4), g.y0 + (double)g.ny * g.dy, "corner y");
	cr_expect_eq(tiff_double(&tf, 33550, 0), g.dx);
	cr_expect_eq(tiff_double(&tf, 33550, 1), g.dy);
	cr_expect_eq(tiff_geokey_short(&tf, GK_PROJECTED), 32633);
	const char *xml = tiff_ascii(&tf, 42112);
	cr_expect(strstr(xml, ">eastward_wind<") && strstr(xml, ">northward_wind<") &&
		  strstr(xml, ">wind_from_direction<") && strstr(xml, ">wind_speed<"), "%s", xml);
	cr_expect(strstr(xml, "<Item name=\"HEIGHT\">10 m above ground</Item>"), "%s", xml);
	cr_expect(strstr(xml, "<Item name=\"VALID_TIME\">2026-11-23T12:00:00Z</Item>"), "%s",
		  xml);
	cr_expect(strstr(xml, "<Item name=\"FIELD_VERSION\">7</Item>"), "%s", xml);
	for (uint32_t r = 0; r < g.ny; r++)
		for (uint32_t i = 0; i < g.nx; i++) {
			size_t j = g.ny - 1 - r;   /* row 0 is the north row */
			struct west_point p;
			cr_assert_eq(west_query_point(&g, &f, g.x0 + ((double)i + 0.5) * g.dx,
						      g.y0 + ((double)j + 0.5) * g.dy, 10,
						      WEST_ZREF_AGL, &p, err, sizeof err),
				     WEST_OK, "%s", err);
			cr_expect_eq(tiff_sample(&tf, r, i, 0), p.speed, "speed at (%u, %zu)", i, j);
			cr_expect_eq(tiff_sample(&tf, r, i, 1), p.direction, "direction (%u, %zu)",
				     i, j);
			cr_expect_eq(tiff_sample(&tf, r, i, 2), p.u, "u at (%u, %zu)", i, j);
			cr_expect_eq(tiff_sample(&tf, r, i, 3), p.v, "v at (%u, %zu)", i, j);
		}
	free(buf);
}

Test(wind, stride_pixels_are_centred_on_the_sampled_columns)
{
	struct tiff_file tf;
	unsigned char *buf;

	wind_tiff(50, WEST_ZREF_AGL, 4, &tf, &buf, NULL);
	cr_assert_eq(tiff_uint(&tf, 256, 0), 5, "columns 0, 4, 8, 12, 16");
	cr_assert_eq(tiff_uint(&tf, 257, 0), 4, "rows 0, 4, 8, 12");
	cr_expect_eq(tiff_double(&tf, 33550, 0), 400.0);
	/* pixel (0, 0)'s centre is column (0, 12)'s: x0 + 50, y0 + 1250 */
	cr_expect_eq(tiff_double(&tf, 33922, 3) + 200, g.x0 + 50);
	cr_expect_eq(tiff_double(&tf, 33922, 4) - 200, g.y0 + 1250);
	struct west_point p;
	cr_assert_eq(west_query_point(&g, &f, g.x0 + 850, g.y0 + 450, 50, WEST_ZREF_AGL, &p,
				      err, sizeof err), WEST_OK);
	cr_expect_eq(tiff_sample(&tf, 2, 2, 0), p.speed, "column (8, 4)");
	free(buf);
}

Test(wind, nodata_where_the_slice_has_no_answer)
{
	struct tiff_file tf;
	unsigned char *buf;
	size_t valid = 1;

	wind_tiff(5000, WEST_ZREF_AGL, 1, &tf, &buf, &valid);
	cr_expect_eq(valid, 0);
	for (uint32_t b = 0; b < 4; b++)
		cr_expect_eq(tiff_sample(&tf, 3, 5, b), WEST_GEOTIFF_NODATA, "band %u", b);
	cr_expect(strstr(tiff_ascii(&tf, 42112), "5000 m above ground"));
	free(buf);
	/* an altitude that cuts the hill: nodata in it, values around it */
	wind_tiff(FIX_PLAIN + 40, WEST_ZREF_MSL, 1, &tf, &buf, &valid);
	cr_expect(valid > 0 && valid < g.nx * g.ny, "%zu of %zu", valid, g.nx * g.ny);
	cr_expect_eq(tiff_sample(&tf, 6, 8, 0), WEST_GEOTIFF_NODATA, "the hill top");
	cr_expect_neq(tiff_sample(&tf, 0, 0, 0), WEST_GEOTIFF_NODATA, "the corner");
	cr_expect(strstr(tiff_ascii(&tf, 42112), "140 m above mean sea level"));
	free(buf);
}

Test(wind, refusals_are_the_slice_s)
{
	unsigned char *buf;
	size_t len;

	cr_expect_eq(west_geotiff_wind(&g, &f, 10, WEST_ZREF_AGL, 0, NULL, &buf, &len, NULL,
				       err, sizeof err), WEST_ERR_INVALID);
	cr_expect(strstr(err, "stride 0"), "%s", err);
	cr_expect_eq(west_geotiff_wind(&g, &f, NAN, WEST_ZREF_AGL, 1, NULL, &buf, &len, NULL,
				       err, sizeof err), WEST_ERR_INVALID);
	cr_expect(strstr(err, "z nan"), "%s", err);
	cr_expect(buf == NULL && len == 0);
}
