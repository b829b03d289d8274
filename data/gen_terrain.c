/*
 * gen_terrain.c: writes the synthetic terrains that westd's tests and demo
 * use (data/regen runs it for every committed file; data/README.md lists
 * them).  Standalone: libc, libm and netcdf only.
 *
 *   gen_terrain KIND [--nx N] [--ny N] [--cell M] [--x0 M] [--y0 M]
 *               [--base M] [--height M] [--prj FILE] [--netcdf OUT.nc]
 *
 * KIND (W, H: domain width and height; u, v: a cell centre's distance from
 * the west and south edges, m):
 *   flat          base everywhere
 *   hill          Gaussian hill of `height` at the centre, sigma W/5
 *   ridge         north-south Gaussian ridge through the middle, sigma W/10
 *   valley        north-south valley: flat floor W/5 wide in the middle,
 *                 sides rising linearly by `height` to the west and east edges
 *   valley-ridge  a valley between two north-south Gaussian ridges (at W/4
 *                 and 3W/4, sigma W/16, `height` high) on a plane that falls
 *                 2 % towards the south (the default demo terrain)
 *
 * Heights are rounded to the centimetre, so that the ESRI ASCII form
 * (printed "%.2f") and the NetCDF form (float) hold the same numbers.
 * Output is a pure function of the arguments.  Without --netcdf the grid
 * goes to stdout as ESRI ASCII (corner origin, NODATA_value -9999, north
 * row first); --prj also writes the ESRI WKT of WGS 84 / UTM zone 33N.
 * With --netcdf it writes a classic-format CF-1.5 raster laid out as
 * `gdal_translate -of netCDF` does: x, y at cell centres (y from south to
 * north), Band1(y, x) float, and a transverse_mercator grid mapping.
 * Bad arguments print the usage and exit 2; failed writes exit 1.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netcdf.h>

static const char esri_wkt[] =
	"PROJCS[\"WGS_1984_UTM_Zone_33N\",GEOGCS[\"GCS_WGS_1984\","
	"DATUM[\"D_WGS_1984\",SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],"
	"PRIMEM[\"Greenwich\",0.0],UNIT[\"Degree\",0.0174532925199433]],"
	"PROJECTION[\"Transverse_Mercator\"],PARAMETER[\"False_Easting\",500000.0],"
	"PARAMETER[\"False_Northing\",0.0],PARAMETER[\"Central_Meridian\",15.0],"
	"PARAMETER[\"Scale_Factor\",0.9996],PARAMETER[\"Latitude_Of_Origin\",0.0],"
	"UNIT[\"Meter\",1.0]]";

/* EPSG:32633 as GDAL exports it into crs_wkt and spatial_ref. */
static const char ogc_wkt[] =
	"PROJCS[\"WGS 84 / UTM zone 33N\",GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\","
	"SPHEROID[\"WGS 84\",6378137,298.257223563,AUTHORITY[\"EPSG\",\"7030\"]],"
	"AUTHORITY[\"EPSG\",\"6326\"]],PRIMEM[\"Greenwich\",0,AUTHORITY[\"EPSG\",\"8901\"]],"
	"UNIT[\"degree\",0.0174532925199433,AUTHORITY[\"EPSG\",\"9122\"]],"
	"AUTHORITY[\"EPSG\",\"4326\"]],PROJECTION[\"Transverse_Mercator\"],"
	"PARAMETER[\"latitude_of_origin\",0],PARAMETER[\"central_meridian\",15],"
	"PARAMETER[\"scale_factor\",0.9996],PARAMETER[\"false_easting\",500000],"
	"PARAMETER[\"false_northing\",0],UNIT[\"metre\",1,AUTHORITY[\"EPSG\",\"9001\"]],"
	"AXIS[\"Easting\",EAST],AXIS[\"Northing\",NORTH],AUTHORITY[\"EPSG\",\"32633\"]]";

struct gen {
	const char *kind, *prj, *netcdf;
	long nx, ny;
	double cell, x0, y0, base, height;
	double w, h; /* domain width and height (m) */
	double (*shape)(const struct gen *, double, double);
};

static double gauss(double d, double sigma)
{
	return exp(-0.5 * d * d / (sigma * sigma));
}

static double flat(const struct gen *g, double u, double v)
{
	(void)u, (void)v;
	return g->base;
}

static double hill(const struct gen *g, double u, double v)
{
	double s = g->w / 5.0;
	return g->base + g->height * gauss(u - g->w / 2.0, s) * gauss(v - g->h / 2.0, s);
}

static double ridge(const struct gen *g, double u, double v)
{
	(void)v;
	return g->base + g->height * gauss(u - g->w / 2.0, g->w / 10.0);
}

static double valley(const struct gen *g, double u, double v)
{
	double side = fabs(u - g->w / 2.0) - g->w / 10.0;
	(void)v;
	return g->base + (side > 0.0 ? g->height * side / (0.4 * g->w) : 0.0);
}

static double valley_ridge(const struct gen *g, double u, double v)
{
	double s = g->w / 16.0;
	return g->base + 0.02 * v +
	       g->height * (gauss(u - g->w / 4.0, s) + gauss(u - 0.75 * g->w, s));
}

static const struct {
	const char *name;
	double (*fn)(const struct gen *, double, double);
} kinds[] = {
	{ "flat", flat }, { "hill", hill }, { "ridge", ridge },
	{ "valley", valley }, { "valley-ridge", valley_ridge },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: gen_terrain KIND [--nx N] [--ny N] [--cell M] [--x0 M] [--y0 M]\n"
		   "                   [--base M] [--height M] [--prj FILE] [--netcdf OUT.nc]\n"
		   "KIND: flat | hill | ridge | valley | valley-ridge\n"
		   "Writes an ESRI ASCII grid to stdout, or a CF NetCDF raster with --netcdf.\n"
		   "Defaults: --nx 96 --ny 80 --cell 100 --x0 500000 --y0 4650000 --base 200 --height 300\n");
}

static int parse_real(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return end != s && *end == '\0' && !errno && isfinite(*v);
}

static int parse_count(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return end != s && *end == '\0' && !errno && *v > 0 && *v <= 100000;
}

/* One "--name value" pair; 0 when the name is unknown or the value bad. */
static int parse_option(struct gen *g, const char *name, const char *val)
{
	static const char *const reals[] = { "--cell", "--x0", "--y0", "--base", "--height" };
	double *rv[] = { &g->cell, &g->x0, &g->y0, &g->base, &g->height };

	if (strcmp(name, "--nx") == 0)
		return parse_count(val, &g->nx);
	if (strcmp(name, "--ny") == 0)
		return parse_count(val, &g->ny);
	if (strcmp(name, "--prj") == 0)
		return (g->prj = val) != NULL;
	if (strcmp(name, "--netcdf") == 0)
		return (g->netcdf = val) != NULL;
	for (size_t k = 0; k < sizeof reals / sizeof reals[0]; k++)
		if (strcmp(name, reals[k]) == 0)
			return parse_real(val, rv[k]);
	return 0;
}

static int parse_args(struct gen *g, int argc, char **argv)
{
	*g = (struct gen){ .nx = 96, .ny = 80, .cell = 100.0, .x0 = 500000.0,
			   .y0 = 4650000.0, .base = 200.0, .height = 300.0 };
	for (int a = 1; a < argc; a++) {
		if (argv[a][0] != '-') {
			if (g->kind)
				return 0;
			g->kind = argv[a];
		} else if (a + 1 >= argc || !parse_option(g, argv[a], argv[a + 1])) {
			return 0;
		} else {
			a++;
		}
	}
	if (!g->kind)
		return 0;
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
		if (strcmp(g->kind, kinds[k].name) == 0)
			g->shape = kinds[k].fn;
	g->w = (double)g->nx * g->cell;
	g->h = (double)g->ny * g->cell;
	return g->shape && g->cell > 0.0 && g->nx * g->ny <= 100000000L;
}

/* Heights south row first, rounded to the centimetre; NULL: no memory. */
static float *make_heights(const struct gen *g)
{
	float *z = malloc((size_t)g->nx * (size_t)g->ny * sizeof *z);

	if (!z)
		return NULL;
	for (long j = 0; j < g->ny; j++)
		for (long i = 0; i < g->nx; i++) {
			double h = g->shape(g, (i + 0.5) * g->cell, (j + 0.5) * g->cell);
			z[j * g->nx + i] = (float)(round(h * 100.0) / 100.0);
		}
	return z;
}

static int write_asc(const struct gen *g, const float *z, FILE *f)
{
	fprintf(f, "ncols        %ld\nnrows        %ld\nxllcorner    %.12g\n"
		   "yllcorner    %.12g\ncellsize     %.12g\nNODATA_value -9999\n",
		g->nx, g->ny, g->x0, g->y0, g->cell);
	for (long j = g->ny - 1; j >= 0; j--)
		for (long i = 0; i < g->nx; i++)
			fprintf(f, "%.2f%c", z[j * g->nx + i], i + 1 < g->nx ? ' ' : '\n');
	return fflush(f) == 0 && !ferror(f);
}

static int write_prj(const char *path)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return 0;
	ok = fprintf(f, "%s\n", esri_wkt) > 0;
	return fclose(f) == 0 && ok;
}

static int nc_text(int ncid, int varid, const char *name, const char *text)
{
	return nc_put_att_text(ncid, varid, name, strlen(text), text);
}

static int nc_num(int ncid, int varid, const char *name, double v)
{
	return nc_put_att_double(ncid, varid, name, NC_DOUBLE, 1, &v);
}

/* The grid mapping variable, with GDAL's attributes for UTM zone 33N. */
static int def_mapping(int ncid, const struct gen *g)
{
	char gt[160];
	int v, rc = nc_def_var(ncid, "transverse_mercator", NC_CHAR, 0, NULL, &v);

	snprintf(gt, sizeof gt, "%.17g %.17g 0 %.17g 0 %.17g ",
		 g->x0, g->cell, g->y0 + g->h, -g->cell);
	if (!rc) rc = nc_text(ncid, v, "grid_mapping_name", "transverse_mercator");
	if (!rc) rc = nc_num(ncid, v, "longitude_of_central_meridian", 15.0);
	if (!rc) rc = nc_num(ncid, v, "false_easting", 500000.0);
	if (!rc) rc = nc_num(ncid, v, "false_northing", 0.0);
	if (!rc) rc = nc_num(ncid, v, "latitude_of_projection_origin", 0.0);
	if (!rc) rc = nc_num(ncid, v, "scale_factor_at_central_meridian", 0.9996);
	if (!rc) rc = nc_text(ncid, v, "long_name", "CRS definition");
	if (!rc) rc = nc_num(ncid, v, "longitude_of_prime_meridian", 0.0);
	if (!rc) rc = nc_num(ncid, v, "semi_major_axis", 6378137.0);
	if (!rc) rc = nc_num(ncid, v, "inverse_flattening", 298.257223563);
	if (!rc) rc = nc_text(ncid, v, "spatial_ref", ogc_wkt);
	if (!rc) rc = nc_text(ncid, v, "crs_wkt", ogc_wkt);
	if (!rc) rc = nc_text(ncid, v, "GeoTransform", gt);
	return rc;
}

static int def_axis(int ncid, int dim, const char *name, char axis, int *v)
{
	char sn[32], ln[32];
	int rc = nc_def_var(ncid, name, NC_DOUBLE, 1, &dim, v);

	snprintf(sn, sizeof sn, "projection_%c_coordinate", axis);
	snprintf(ln, sizeof ln, "%c coordinate of projection", axis);
	if (!rc) rc = nc_text(ncid, *v, "standard_name", sn);
	if (!rc) rc = nc_text(ncid, *v, "long_name", ln);
	if (!rc) rc = nc_text(ncid, *v, "units", "m");
	return rc;
}

static int put_axis(int ncid, int v, long n, double origin, double cell)
{
	double *c = malloc((size_t)n * sizeof *c);
	int rc;

	if (!c)
		return NC_ENOMEM;
	for (long k = 0; k < n; k++)
		c[k] = origin + (k + 0.5) * cell;
	rc = nc_put_var_double(ncid, v, c);
	free(c);
	return rc;
}

static int write_nc_body(int ncid, const struct gen *g, const float *z)
{
	int dx, dy, vx, vy, vz, dims[2];
	float fill = -9999.0f;
	int rc = nc_def_dim(ncid, "x", (size_t)g->nx, &dx);

	if (!rc) rc = nc_def_dim(ncid, "y", (size_t)g->ny, &dy);
	if (!rc) rc = def_mapping(ncid, g);
	if (!rc) rc = def_axis(ncid, dx, "x", 'x', &vx);
	if (!rc) rc = def_axis(ncid, dy, "y", 'y', &vy);
	dims[0] = dy, dims[1] = dx;
	if (!rc) rc = nc_def_var(ncid, "Band1", NC_FLOAT, 2, dims, &vz);
	if (!rc) rc = nc_text(ncid, vz, "long_name", "GDAL Band Number 1");
	if (!rc) rc = nc_put_att_float(ncid, vz, "_FillValue", NC_FLOAT, 1, &fill);
	if (!rc) rc = nc_text(ncid, vz, "grid_mapping", "transverse_mercator");
	if (!rc) rc = nc_text(ncid, NC_GLOBAL, "Conventions", "CF-1.5");
	if (!rc) rc = nc_text(ncid, NC_GLOBAL, "GDAL_AREA_OR_POINT", "Area");
	if (!rc) rc = nc_text(ncid, NC_GLOBAL, "source", "westd data/gen_terrain");
	if (!rc) rc = nc_enddef(ncid);
	if (!rc) rc = put_axis(ncid, vx, g->nx, g->x0, g->cell);
	if (!rc) rc = put_axis(ncid, vy, g->ny, g->y0, g->cell);
	if (!rc) rc = nc_put_var_float(ncid, vz, z);
	return rc;
}

static int write_nc(const struct gen *g, const float *z)
{
	int ncid, rc = nc_create(g->netcdf, NC_CLOBBER, &ncid);

	if (!rc) {
		rc = write_nc_body(ncid, g, z);
		int rc2 = nc_close(ncid);
		if (!rc)
			rc = rc2;
	}
	if (rc)
		fprintf(stderr, "gen_terrain: %s: %s\n", g->netcdf, nc_strerror(rc));
	return rc == NC_NOERR;
}

int main(int argc, char **argv)
{
	struct gen g;
	float *z;
	int ok;

	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (!parse_args(&g, argc, argv)) {
		usage(stderr);
		return 2;
	}
	if (!(z = make_heights(&g))) {
		fprintf(stderr, "gen_terrain: out of memory\n");
		return 1;
	}
	ok = g.netcdf ? write_nc(&g, z) : write_asc(&g, z, stdout);
	if (ok && g.prj && !(ok = write_prj(g.prj)))
		fprintf(stderr, "gen_terrain: %s: %s\n", g.prj, strerror(errno));
	else if (!ok && !g.netcdf)
		fprintf(stderr, "gen_terrain: cannot write to stdout: %s\n", strerror(errno));
	free(z);
	return ok ? 0 : 1;
}
