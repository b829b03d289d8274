/*
 * terrain_nc.c: the CF NetCDF raster reader (terrain.h), for files as
 * `gdal_translate -of netCDF` writes them, classic or NetCDF-4.
 *
 * Axes: the 1D variables with standard_name projection_x_coordinate /
 * projection_y_coordinate, else the variables named x and y (lon/lat are
 * found too, only to be refused with a hint).  Their values are cell
 * centres in metres, evenly spaced to 1e-6 of the spacing, the cells'
 * outer edges finite doubles; x increases, y
 * may run either way (GDAL writes south to north; north-first files are
 * flipped so that j = 0 is the south row).  The elevation variable is on
 * (y, x) exactly.  Raw values equal to _FillValue (or the type's default
 * fill), or to missing_value, are NODATA; the others are unpacked with
 * scale_factor and add_offset and checked like every DEM value.  Cells in
 * messages are named by the file's dimension names and 0-based indices
 * ("y=3, x=5"), as ncdump shows them.  The grid_mapping variable named by
 * the elevation variable fills struct west_crs; it is read before anything
 * of the raster's size, and refused when it is latitude_longitude or its
 * WKT is not in metres (west_dem_check_crs), as are lon/lat axes without
 * units: nothing here converts degrees or feet.  Before nc_open, a classic
 * file's header is checked against the file's size and max_cells
 * (nc_header.h), since libnetcdf allocates what a header declares.
 */
#include "terrain.h"
#include "terrain_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <netcdf.h>

#include "log.h"
#include "nc_header.h"
#include "proj.h"
#include "snapshot.h"   /* west_netcdf_lock */

struct nc_raster {
	const char *path;
	int ncid;
	int xvar, yvar, zvar;
	int xdim, ydim;
	size_t nx, ny;
	char xname[NC_MAX_NAME + 1], yname[NC_MAX_NAME + 1];
	char xdname[NC_MAX_NAME + 1], ydname[NC_MAX_NAME + 1];
	char zname[NC_MAX_NAME + 1];
};

/* A failed library call on variable `var` (NULL: the file). */
static enum west_status nc_fail(const struct nc_raster *r, const char *var, int rc,
				char *err, size_t errlen)
{
	if (var)
		return west_fail(err, errlen, WEST_ERR_NETCDF, "%s: variable '%s': %s",
				 r->path, var, nc_strerror(rc));
	return west_fail(err, errlen, WEST_ERR_NETCDF, "%s: %s", r->path, nc_strerror(rc));
}

/*
 * A text attribute as a new string: 1 found, 0 absent, or a negative
 * NetCDF error.  Accepts NC_CHAR and NC_STRING (the first string).
 */
static int att_text(int ncid, int varid, const char *name, char **out)
{
	nc_type type;
	size_t len;
	int rc = nc_inq_att(ncid, varid, name, &type, &len);

	*out = NULL;
	if (rc == NC_ENOTATT)
		return 0;
	if (rc != NC_NOERR)
		return rc;
	if (type == NC_CHAR) {
		*out = calloc(len + 1, 1);
		if (!*out)
			return NC_ENOMEM;
		rc = len ? nc_get_att_text(ncid, varid, name, *out) : NC_NOERR;
	} else if (type == NC_STRING && len > 0) {
		char **v = calloc(len, sizeof *v);
		if (!v)
			return NC_ENOMEM;
		rc = nc_get_att_string(ncid, varid, name, v);
		if (rc == NC_NOERR) {
			*out = strdup(v[0] ? v[0] : "");
			nc_free_string(len, v);
		}
		free(v);
		if (rc == NC_NOERR && !*out)
			rc = NC_ENOMEM;
	} else {
		return 0; /* not text: treated as absent */
	}
	if (rc != NC_NOERR) {
		free(*out);
		*out = NULL;
		return rc;
	}
	return 1;
}

/* The first value of a numeric attribute: 1 found, 0 absent, or an error. */
static int att_number(int ncid, int varid, const char *name, double *v)
{
	nc_type type;
	size_t len;
	double *buf;
	int rc = nc_inq_att(ncid, varid, name, &type, &len);

	if (rc == NC_ENOTATT)
		return 0;
	if (rc != NC_NOERR)
		return rc;
	if (type == NC_CHAR || type == NC_STRING || len == 0)
		return 0;
	buf = malloc(len * sizeof *buf);
	if (!buf)
		return NC_ENOMEM;
	rc = nc_get_att_double(ncid, varid, name, buf);
	if (rc == NC_NOERR || rc == NC_ERANGE)
		*v = buf[0];
	free(buf);
	return rc == NC_NOERR ? 1 : rc;
}

/* Does the text attribute `name` of varid equal `want` (any case)? */
static int att_is(int ncid, int varid, const char *name, const char *want)
{
	char *s;
	int match = att_text(ncid, varid, name, &s) == 1 && s && strcasecmp(s, want) == 0;

	free(s);
	return match;
}

/*
 * How well a 1D variable fits as the `axis` ('x' or 'y') coordinate: 3 by
 * its projection standard_name, 2 by its name, 1 as a geographic axis
 * (found only to be refused), 0 not at all.
 */
static int axis_rank(int ncid, int varid, const char *name, char axis)
{
	static const char *const proj[2] = { "projection_x_coordinate", "projection_y_coordinate" };
	static const char *const geo_std[2] = { "longitude", "latitude" };
	static const char *const geo_name[2] = { "lon", "lat" };
	int a = axis == 'y';

	if (att_is(ncid, varid, "standard_name", proj[a]))
		return 3;
	if (name[0] == axis && name[1] == '\0')
		return 2;
	if (att_is(ncid, varid, "standard_name", geo_std[a]) ||
	    strcasecmp(name, geo_name[a]) == 0 || strcasecmp(name, geo_std[a]) == 0)
		return 1;
	return 0;
}

/* The best-ranked 1D x and y variables, with their dimensions. */
static enum west_status find_axes(struct nc_raster *r, char *err, size_t errlen)
{
	int nvars, rank[2] = { 0, 0 }, *var[2] = { &r->xvar, &r->yvar };
	int rc = nc_inq_nvars(r->ncid, &nvars);

	if (rc != NC_NOERR)
		return nc_fail(r, NULL, rc, err, errlen);
	for (int v = 0; v < nvars; v++) {
		char name[NC_MAX_NAME + 1];
		int ndims;
		if (nc_inq_var(r->ncid, v, name, NULL, &ndims, NULL, NULL) != NC_NOERR || ndims != 1)
			continue;
		for (int a = 0; a < 2; a++) {
			int k = axis_rank(r->ncid, v, name, "xy"[a]);
			if (k > rank[a]) {
				rank[a] = k;
				*var[a] = v;
			}
		}
	}
	if (!rank[0] || !rank[1])
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: no x/y coordinate variables (1D x and y, or standard_name projection_x_coordinate and projection_y_coordinate)",
				 r->path);
	for (int a = 0; a < 2; a++) {
		char name[NC_MAX_NAME + 1];
		if (rank[a] == 1 && nc_inq_varname(r->ncid, *var[a], name) == NC_NOERR)
			return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
					 "%s: variable '%s' is a %s (degrees), not a projected coordinate in metres; reproject to a metric CRS such as UTM (gdalwarp -t_srs EPSG:326NN)",
					 r->path, name, a ? "latitude" : "longitude");
	}
	nc_inq_var(r->ncid, r->xvar, r->xname, NULL, NULL, &r->xdim, NULL);
	nc_inq_var(r->ncid, r->yvar, r->yname, NULL, NULL, &r->ydim, NULL);
	nc_inq_dim(r->ncid, r->xdim, r->xdname, &r->nx);
	nc_inq_dim(r->ncid, r->ydim, r->ydname, &r->ny);
	if (r->xdim == r->ydim)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: variables '%s' and '%s' share one dimension; not a raster",
				 r->path, r->xname, r->yname);
	return WEST_OK;
}

/* Metres only: degrees get the reprojection hint. */
static enum west_status check_units(const struct nc_raster *r, int varid,
				    const char *name, char *err, size_t errlen)
{
	static const char *const metres[] = { "m", "metre", "metres", "meter", "meters" };
	char *u;
	int rc = att_text(r->ncid, varid, "units", &u);
	enum west_status s = WEST_OK;

	if (rc < 0)
		return nc_fail(r, name, rc, err, errlen);
	if (rc == 0 || !u)
		return WEST_OK; /* no units: taken as metres */
	if (strncasecmp(u, "degree", 6) == 0) {
		s = west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
			      "%s: variable '%s' is in %s; reproject to a metric CRS such as UTM (gdalwarp -t_srs EPSG:326NN)",
			      r->path, name, u);
	} else {
		s = west_fail(err, errlen, WEST_ERR_INVALID,
			      "%s: variable '%s' has units '%s'; expected m", r->path, name, u);
		for (size_t k = 0; k < sizeof metres / sizeof metres[0]; k++)
			if (strcasecmp(u, metres[k]) == 0)
				s = WEST_OK;
	}
	free(u);
	return s;
}

/* Evenly spaced coordinates: step within 1e-6 of (last - first) / (n - 1). */
static enum west_status check_spacing(const struct nc_raster *r, const char *name,
				      const double *c, size_t n, double *step,
				      char *err, size_t errlen)
{
	double d;

	for (size_t k = 0; k < n; k++)
		if (!isfinite(c[k]))
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "%s: variable '%s' value %zu is not finite", r->path, name, k);
	if (n < 2)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: variable '%s' has %zu value; need 2 to know the cell size",
				 r->path, name, n);
	d = (c[n - 1] - c[0]) / (double)(n - 1);
	if (d == 0.0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: variable '%s' does not change", r->path, name);
	for (size_t k = 0; k + 1 < n; k++)
		if (fabs(c[k + 1] - c[k] - d) > 1e-6 * fabs(d))
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "%s: variable '%s' is not evenly spaced: step %zu is %.9g, expected %.9g",
					 r->path, name, k, c[k + 1] - c[k], d);
	*step = d;
	return WEST_OK;
}

/* Read an axis: the centre of its first and last cell and the step. */
static enum west_status read_axis(const struct nc_raster *r, int varid, const char *name,
				  size_t n, double *first, double *last, double *step,
				  char *err, size_t errlen)
{
	double *c = malloc(n * sizeof *c);
	enum west_status s;
	int rc;

	if (!c)
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "%s: variable '%s': cannot allocate %zu values", r->path, name, n);
	rc = nc_get_var_double(r->ncid, varid, c);
	if (rc != NC_NOERR)
		s = nc_fail(r, name, rc, err, errlen);
	else
		s = check_spacing(r, name, c, n, step, err, errlen);
	*first = c[0];
	*last = c[n - 1];
	free(c);
	return s;
}

/* Refuse an axis whose cells' outer edges, half a step before its first
 * centre and half a step after its last, are not finite: centres that are
 * each finite can still be a step or an edge past the largest double. */
static enum west_status finite_axis(const struct nc_raster *r, const char *name,
				    double first, double last, double step, double edge,
				    size_t n, char *err, size_t errlen)
{
	if (isfinite(step) && isfinite(edge) && isfinite(edge + (double)n * fabs(step)))
		return WEST_OK;
	return west_fail(err, errlen, WEST_ERR_INVALID,
			 "%s: variable '%s' runs from %g to %g, %zu values %g apart: an edge "
			 "of the grid lies beyond any finite coordinate", r->path, name, first,
			 last, n, step);
}

/* Geometry from the axes; *flip when y runs north to south. */
static enum west_status read_geometry(const struct nc_raster *r, struct west_dem *dem,
				      int *flip, char *err, size_t errlen)
{
	double x0, x1, y0, y1, sx, sy;
	enum west_status s = check_units(r, r->xvar, r->xname, err, errlen);

	if (s == WEST_OK)
		s = check_units(r, r->yvar, r->yname, err, errlen);
	if (s == WEST_OK)
		s = read_axis(r, r->xvar, r->xname, r->nx, &x0, &x1, &sx, err, errlen);
	if (s == WEST_OK)
		s = read_axis(r, r->yvar, r->yname, r->ny, &y0, &y1, &sy, err, errlen);
	if (s != WEST_OK)
		return s;
	if (sx < 0.0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: variable '%s' decreases; x must increase from west to east",
				 r->path, r->xname);
	dem->nx = r->nx;
	dem->ny = r->ny;
	dem->dx = sx;
	dem->dy = fabs(sy);
	dem->x0 = x0 - 0.5 * dem->dx;
	dem->y0 = fmin(y0, y1) - 0.5 * dem->dy;
	*flip = sy < 0.0;
	s = finite_axis(r, r->xname, x0, x1, sx, dem->x0, dem->nx, err, errlen);
	if (s == WEST_OK)
		s = finite_axis(r, r->yname, y0, y1, sy, dem->y0, dem->ny, err, errlen);
	return s;
}

/* A numeric variable on (y, x) exactly, not a geographic coordinate. */
static int on_yx(const struct nc_raster *r, int varid)
{
	int ndims, dims[NC_MAX_VAR_DIMS];
	nc_type type;

	if (nc_inq_var(r->ncid, varid, NULL, &type, &ndims, dims, NULL) != NC_NOERR)
		return 0;
	if (ndims != 2 || dims[0] != r->ydim || dims[1] != r->xdim)
		return 0;
	return type != NC_CHAR && type != NC_STRING && type < NC_VLEN;
}

static enum west_status find_named(struct nc_raster *r, const char *name,
				   char *err, size_t errlen)
{
	if (nc_inq_varid(r->ncid, name, &r->zvar) != NC_NOERR)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: variable '%s' not found", r->path, name);
	if (!on_yx(r, r->zvar))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: variable '%s' is not a numeric variable on (%s, %s)",
				 r->path, name, r->ydname, r->xdname);
	snprintf(r->zname, sizeof r->zname, "%s", name);
	return WEST_OK;
}

static int is_elevation_name(int ncid, int varid)
{
	return att_is(ncid, varid, "standard_name", "surface_altitude") ||
	       att_is(ncid, varid, "standard_name", "height");
}

/*
 * The elevation variable: opts->variable, else the one candidate on
 * (y, x), else the one candidate with an elevation standard_name.
 */
static enum west_status find_elevation(struct nc_raster *r, const char *want,
				       char *err, size_t errlen)
{
	char names[WEST_ERRLEN] = "";
	int nvars, ncand = 0, nelev = 0, cand = -1, elev = -1;

	if (want && *want)
		return find_named(r, want, err, errlen);
	nc_inq_nvars(r->ncid, &nvars);
	for (int v = 0; v < nvars; v++) {
		char name[NC_MAX_NAME + 1];
		if (!on_yx(r, v) || att_is(r->ncid, v, "standard_name", "latitude") ||
		    att_is(r->ncid, v, "standard_name", "longitude"))
			continue;
		nc_inq_varname(r->ncid, v, name);
		size_t used = strlen(names);
		snprintf(names + used, sizeof names - used, "%s'%s'", ncand ? ", " : "", name);
		cand = v, ncand++;
		if (is_elevation_name(r->ncid, v))
			elev = v, nelev++;
	}
	if (ncand == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: no 2D elevation variable on (%s, %s)",
				 r->path, r->ydname, r->xdname);
	if (ncand > 1 && nelev != 1)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: several elevation variables on (%s, %s): %s; set terrain_variable to one of them",
				 r->path, r->ydname, r->xdname, names);
	r->zvar = ncand == 1 ? cand : elev;
	nc_inq_varname(r->ncid, r->zvar, r->zname);
	return WEST_OK;
}

/* How raw values of the elevation variable are read. */
struct nc_packing {
	int has_fill, has_missing;
	double fill, missing, scale, offset;
};

/* NetCDF's default fill for a type, used when _FillValue is absent. */
static double default_fill(nc_type type)
{
	switch (type) {
	case NC_BYTE: return NC_FILL_BYTE;
	case NC_UBYTE: return NC_FILL_UBYTE;
	case NC_SHORT: return NC_FILL_SHORT;
	case NC_USHORT: return NC_FILL_USHORT;
	case NC_INT: return NC_FILL_INT;
	case NC_UINT: return NC_FILL_UINT;
	case NC_INT64: return (double)NC_FILL_INT64;
	case NC_UINT64: return (double)NC_FILL_UINT64;
	case NC_FLOAT: return NC_FILL_FLOAT;
	default: return NC_FILL_DOUBLE;
	}
}

static enum west_status read_packing(const struct nc_raster *r, struct nc_packing *p,
				     char *err, size_t errlen)
{
	int no_fill = 0, rc;
	nc_type type = NC_DOUBLE;

	*p = (struct nc_packing){ .scale = 1.0 };
	rc = att_number(r->ncid, r->zvar, "_FillValue", &p->fill);
	if (rc == 0) {
		rc = nc_inq_var_fill(r->ncid, r->zvar, &no_fill, NULL);
		if (rc == NC_NOERR)
			rc = nc_inq_vartype(r->ncid, r->zvar, &type);
		p->fill = default_fill(type);
	}
	if (rc < 0)
		return nc_fail(r, r->zname, rc, err, errlen);
	p->has_fill = !no_fill;
	rc = att_number(r->ncid, r->zvar, "missing_value", &p->missing);
	p->has_missing = rc == 1;
	if (rc >= 0)
		rc = att_number(r->ncid, r->zvar, "scale_factor", &p->scale);
	if (rc >= 0)
		rc = att_number(r->ncid, r->zvar, "add_offset", &p->offset);
	return rc < 0 ? nc_fail(r, r->zname, rc, err, errlen) : WEST_OK;
}

static int raw_is_nodata(const struct nc_packing *p, double v)
{
	if (p->has_fill && (v == p->fill || (isnan(p->fill) && isnan(v))))
		return 1;
	return p->has_missing && (v == p->missing || (isnan(p->missing) && isnan(v)));
}

/* NODATA flags (1 = data, j-major like z) and the first hole in file order. */
struct nc_holes {
	unsigned char *valid;
	size_t n, row, col;
};

static enum west_status store_row(const struct nc_raster *r, const struct nc_packing *p,
				  const double *raw, size_t row, size_t j,
				  struct west_dem *dem, struct nc_holes *h,
				  char *err, size_t errlen)
{
	float *dst = dem->z + j * r->nx;
	unsigned char *valid = h->valid + j * r->nx;

	for (size_t i = 0; i < r->nx; i++) {
		double v = raw[i] * p->scale + p->offset;
		if (raw_is_nodata(p, raw[i])) {
			if (!h->n++)
				h->row = row, h->col = i;
			valid[i] = 0;
			dst[i] = 0.0f;
		} else if (west_dem_height_ok(v)) {
			dst[i] = (float)v;
		} else {
			return west_dem_height_fail(v, err, errlen,
						    "%s: variable '%s' value at %s=%zu, %s=%zu",
						    r->path, r->zname, r->ydname, row,
						    r->xdname, i);
		}
	}
	return WEST_OK;
}

/* Row by row, as doubles, into the south-first layout. */
static enum west_status read_heights(const struct nc_raster *r, struct west_dem *dem,
				     int flip, struct nc_holes *h, char *err, size_t errlen)
{
	struct nc_packing p;
	enum west_status s = read_packing(r, &p, err, errlen);
	double *raw;

	if (s != WEST_OK)
		return s;
	raw = malloc(r->nx * sizeof *raw);
	if (!raw)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "%s: cannot allocate a row", r->path);
	for (size_t row = 0; row < r->ny && s == WEST_OK; row++) {
		size_t start[2] = { row, 0 }, count[2] = { 1, r->nx };
		int rc = nc_get_vara_double(r->ncid, r->zvar, start, count, raw);
		if (rc != NC_NOERR)
			s = nc_fail(r, r->zname, rc, err, errlen);
		else
			s = store_row(r, &p, raw, row, flip ? r->ny - 1 - row : row,
				      dem, h, err, errlen);
	}
	free(raw);
	return s;
}

/* The heights and their NODATA flags, sized by the checked nx * ny. */
static enum west_status alloc_grid(const struct nc_raster *r, struct west_dem *dem,
				   struct nc_holes *h, char *err, size_t errlen)
{
	size_t n = r->nx * r->ny;

	dem->z = malloc(n * sizeof *dem->z);
	h->valid = malloc(n);
	if (!dem->z || !h->valid)
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "%s: cannot allocate %zu x %zu cells", r->path, r->nx, r->ny);
	memset(h->valid, 1, n);
	return WEST_OK;
}

/* A transverse Mercator on another ellipsoid than WGS 84's (its CF
 * semi_major_axis and inverse_flattening, or its WKT's) gives no has_tm,
 * with a warning (terrain_internal.h says why).  0, or an error. */
static int check_ellipsoid(const struct nc_raster *r, int gvar, struct west_crs *crs)
{
	double a = 6378137.0, rf = 298.257223563, b = 0.0, radius = 0.0;
	char name[64] = "";
	int rc = att_number(r->ncid, gvar, "semi_major_axis", &a);

	if (rc >= 0)
		rc = att_number(r->ncid, gvar, "inverse_flattening", &rf);
	if (rc >= 0 && (rc = att_number(r->ncid, gvar, "semi_minor_axis", &b)) == 1)
		rf = a > b ? a / (a - b) : 0.0;
	if (rc >= 0 && (rc = att_number(r->ncid, gvar, "earth_radius", &radius)) == 1)
		a = radius, rf = 0.0;  /* a sphere */
	if (rc < 0)
		return rc;
	if (!west_ellipsoid_is_wgs84(a, rf))
		snprintf(name, sizeof name, "semi-major axis %.3f m, inverse flattening %.9g",
			 a, rf);
	else if (west_wkt_ellipsoid_ok(crs->wkt, name, sizeof name))
		return 0;
	west_log(WEST_LOG_WARNING, "%s: transverse Mercator on the ellipsoid '%s', not "
		 "WGS 84's; no longitude and latitude for this terrain (x and y in the grid's "
		 "metres work, and directions are still turned to true north; reproject to "
		 "WGS 84 / UTM for longitude and latitude)", r->path, name);
	crs->has_tm = 0;
	crs->tm_other_ellipsoid = 1;
	return 0;
}

/* The grid mapping named by the elevation variable, when there is one. */
static int read_mapping(const struct nc_raster *r, int gvar, struct west_crs *crs)
{
	static const char *const tm[5] = {
		"longitude_of_central_meridian", "latitude_of_projection_origin",
		"scale_factor_at_central_meridian", "false_easting", "false_northing",
	};
	double *v[5] = { &crs->lon0, &crs->lat0, &crs->k0,
			 &crs->false_easting, &crs->false_northing };
	char *name;
	int rc = att_text(r->ncid, gvar, "grid_mapping_name", &name), found = 0;

	if (rc == 1)
		snprintf(crs->grid_mapping_name, sizeof crs->grid_mapping_name, "%s", name);
	free(name);
	for (int k = 0; k < 5 && rc >= 0; k++) {
		rc = att_number(r->ncid, gvar, tm[k], v[k]);
		found += rc == 1;
	}
	crs->has_tm = found == 5 &&
		      strcmp(crs->grid_mapping_name, "transverse_mercator") == 0;
	if (crs->has_tm && !west_tm_params_ok(crs)) {
		char gname[NC_MAX_NAME + 1] = "";
		nc_inq_varname(r->ncid, gvar, gname);
		west_log(WEST_LOG_WARNING, "%s: grid mapping '%s': transverse Mercator "
			 "parameters out of range (k0 %g, latitude of origin %g, central "
			 "meridian %g); no longitude and latitude for this terrain",
			 r->path, gname, crs->k0, crs->lat0, crs->lon0);
		crs->has_tm = 0;
	}
	if (rc >= 0)
		rc = att_text(r->ncid, gvar, "crs_wkt", &crs->wkt);
	if (rc == 0)
		rc = att_text(r->ncid, gvar, "spatial_ref", &crs->wkt);
	if (rc >= 0 && crs->has_tm)
		rc = check_ellipsoid(r, gvar, crs);
	return rc;
}

/* A grid mapping in degrees, or a crs_wkt that is not in metres, is refused:
 * the axes' values are read as metres. */
static enum west_status check_crs(const struct nc_raster *r, const struct west_crs *crs,
				  char *err, size_t errlen)
{
	char where[WEST_ERRLEN];

	if (strcasecmp(crs->grid_mapping_name, "latitude_longitude") == 0)
		return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
				 "%s: variable '%s' has grid_mapping latitude_longitude (degrees), not a projection in metres; reproject to a metric CRS such as UTM (gdalwarp -t_srs EPSG:326NN)",
				 r->path, r->zname);
	if (!crs->wkt)
		return WEST_OK;
	snprintf(where, sizeof where, "%s: variable '%s': grid mapping WKT", r->path, r->zname);
	return west_dem_check_crs(crs->wkt, where, err, errlen);
}

static enum west_status read_crs(const struct nc_raster *r, struct west_crs *crs,
				 char *err, size_t errlen)
{
	char *gm;
	int gvar, rc = att_text(r->ncid, r->zvar, "grid_mapping", &gm);

	if (rc == 1) {
		gm[strcspn(gm, ": \t")] = '\0'; /* CF's "crs: x y" form names it first */
		if (nc_inq_varid(r->ncid, gm, &gvar) == NC_NOERR)
			rc = read_mapping(r, gvar, crs);
		else
			west_log(WEST_LOG_WARNING, "%s: variable '%s' names grid_mapping '%s', which the file lacks",
				 r->path, r->zname, gm);
	}
	free(gm);
	if (rc < 0)
		return nc_fail(r, r->zname, rc, err, errlen);
	return check_crs(r, crs, err, errlen);
}

static enum west_status open_file(struct nc_raster *r, char *err, size_t errlen)
{
	int rc = nc_open(r->path, NC_NOWRITE, &r->ncid);

	if (rc == NC_NOERR)
		return WEST_OK;
	r->ncid = -1;
	if (rc > 0) /* a system error */
		return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot open: %s",
				 r->path, nc_strerror(rc));
	if (rc == NC_ENOTNC)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: not a NetCDF file (%s)",
				 r->path, nc_strerror(rc));
	return west_fail(err, errlen, WEST_ERR_NETCDF, "%s: cannot open as NetCDF: %s",
			 r->path, nc_strerror(rc));
}

static enum west_status finish_nodata(const struct nc_raster *r, struct west_dem *dem,
				      struct nc_holes *h, const struct west_dem_opts *opts,
				      char *err, size_t errlen)
{
	char where[WEST_ERRLEN], first[2 * NC_MAX_NAME + 64];
	unsigned char *valid = h->valid;

	h->valid = NULL; /* west_dem_nodata_finish frees it */
	snprintf(where, sizeof where, "%s: variable '%s'", r->path, r->zname);
	snprintf(first, sizeof first, "%s=%zu, %s=%zu", r->ydname, h->row, r->xdname, h->col);
	return west_dem_nodata_finish(dem, valid, h->n, where, first, opts, err, errlen);
}

enum west_status west_dem_load_netcdf(struct west_dem *dem, const char *path,
				      const struct west_dem_opts *opts,
				      char *err, size_t errlen)
{
	struct nc_raster r = { .path = path, .ncid = -1 };
	struct nc_holes h = { 0 };
	enum west_status s;
	int flip = 0;

	memset(dem, 0, sizeof *dem);
	opts = west_dem_opts_or_default(opts);
	/* a classic header is checked against the file before libnetcdf
	 * allocates what it declares (nc_header.h) */
	s = west_nc_header_check(path, opts->max_cells, err, errlen);
	west_netcdf_lock();
	if (s == WEST_OK)
		s = open_file(&r, err, errlen);
	if (s == WEST_OK)
		s = find_axes(&r, err, errlen);
	if (s == WEST_OK)
		s = find_elevation(&r, opts->variable, err, errlen);
	if (s == WEST_OK)
		s = read_crs(&r, &dem->crs, err, errlen);
	if (s == WEST_OK)
		s = west_dem_check_size(path, r.nx, r.ny, opts, err, errlen);
	if (s == WEST_OK)
		s = read_geometry(&r, dem, &flip, err, errlen);
	if (s == WEST_OK)
		s = alloc_grid(&r, dem, &h, err, errlen);
	if (s == WEST_OK)
		s = read_heights(&r, dem, flip, &h, err, errlen);
	if (s == WEST_OK)
		s = finish_nodata(&r, dem, &h, opts, err, errlen);
	free(h.valid);
	if (r.ncid >= 0)
		nc_close(r.ncid);
	west_netcdf_unlock();
	if (s != WEST_OK)
		west_dem_free(dem);
	return s;
}
