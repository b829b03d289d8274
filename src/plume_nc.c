/*
 * plume_nc.c: a release plume's outputs as CF NetCDF (plume_nc.h gives
 * the layout).  Built in memory with nc_create_mem and handed back by
 * nc_close_memio, as snapshots are (snapshot.c says why), under the
 * process's NetCDF lock.  Every call is checked; the first failure is
 * kept and the rest skipped (struct pw's st).
 */
#include "plume_nc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netcdf.h>
#include <netcdf_mem.h>

#include "obs.h"
#include "proj.h"
#include "snapshot.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

struct pw {
	const struct west_grid *g;
	const struct west_plume_result *res;
	const struct west_plume_nc_meta *m;
	int ncid, dim_y, dim_x, has_crs, has_lonlat;
	int var_x, var_y, var_crs, var_lat, var_lon, var_conc, var_arr;
	enum west_status st;
	char *err;
	size_t errlen;
};

static int check(struct pw *w, int rc, const char *call, const char *what)
{
	if (rc == NC_NOERR)
		return 0;
	if (w->st == WEST_OK)
		w->st = west_fail(w->err, w->errlen, WEST_ERR_NETCDF, "release NetCDF: %s '%s': %s",
				  call, what, nc_strerror(rc));
	return -1;
}

static void text(struct pw *w, int var, const char *name, const char *v)
{
	if (w->st == WEST_OK)
		check(w, nc_put_att_text(w->ncid, var, name, strlen(v), v), "nc_put_att", name);
}

static void number(struct pw *w, int var, const char *name, double v)
{
	if (w->st == WEST_OK)
		check(w, nc_put_att_double(w->ncid, var, name, NC_DOUBLE, 1, &v), "nc_put_att", name);
}

static void integer(struct pw *w, int var, const char *name, long long v)
{
	if (w->st == WEST_OK)
		check(w, nc_put_att_longlong(w->ncid, var, name, NC_INT64, 1, &v), "nc_put_att",
		      name);
}

/* A variable (deflated when it has dimensions), -1 after a failure. */
static int var(struct pw *w, const char *name, nc_type type, int ndims)
{
	int dims[2] = { w->dim_y, w->dim_x }, v = -1;

	if (w->st != WEST_OK ||
	    check(w, nc_def_var(w->ncid, name, type, ndims, ndims == 1 && !strcmp(name, "x") ?
				&w->dim_x : dims, &v), "nc_def_var", name))
		return -1;
	if (ndims > 0)
		check(w, nc_def_var_deflate(w->ncid, v, 1, 1, 1), "nc_def_var_deflate", name);
	return v;
}

static void def_axes(struct pw *w)
{
	check(w, nc_def_dim(w->ncid, "y", w->g->ny, &w->dim_y), "nc_def_dim", "y");
	if (w->st == WEST_OK)
		check(w, nc_def_dim(w->ncid, "x", w->g->nx, &w->dim_x), "nc_def_dim", "x");
	w->var_y = var(w, "y", NC_DOUBLE, 1);
	text(w, w->var_y, "standard_name", "projection_y_coordinate");
	text(w, w->var_y, "long_name", "y coordinate of projection (column centre)");
	text(w, w->var_y, "units", "m");
	text(w, w->var_y, "axis", "Y");
	w->var_x = var(w, "x", NC_DOUBLE, 1);
	text(w, w->var_x, "standard_name", "projection_x_coordinate");
	text(w, w->var_x, "long_name", "x coordinate of projection (column centre)");
	text(w, w->var_x, "units", "m");
	text(w, w->var_x, "axis", "X");
}

static void def_crs(struct pw *w)
{
	const char *what = "crs";

	if (w->st == WEST_OK)
		check(w, west_nc_def_crs(w->ncid, &w->g->crs, &w->var_crs, &what),
		      "defining the CRS", what);
}

/* A variable on (y, x) with the attributes they all share. */
static int def_field(struct pw *w, const char *name, nc_type type, const char *standard_name,
		     const char *long_name, const char *units)
{
	int v = var(w, name, type, 2);

	if (standard_name)
		text(w, v, "standard_name", standard_name);
	text(w, v, "long_name", long_name);
	text(w, v, "units", units);
	if (!strcmp(name, "lat") || !strcmp(name, "lon"))
		return v;
	if (w->has_crs)
		text(w, v, "grid_mapping", "crs");
	if (w->has_lonlat)
		text(w, v, "coordinates", "lat lon");
	return v;
}

static void def_vars(struct pw *w)
{
	char ln[200];

	if (w->has_lonlat) {
		w->var_lat = def_field(w, "lat", NC_DOUBLE, "latitude",
				       "latitude of the column centre (WGS 84)", "degrees_north");
		w->var_lon = def_field(w, "lon", NC_DOUBLE, "longitude",
				       "longitude of the column centre (WGS 84)", "degrees_east");
	}
	snprintf(ln, sizeof ln, "time-integrated concentration from the ground to %g m above "
		 "it, per unit mass released", w->res->layer);
	w->var_conc = def_field(w, "concentration", NC_FLOAT, NULL, ln, "s m-3");
	w->var_arr = def_field(w, "arrival_time", NC_FLOAT, NULL,
			       "time after the release's start of the first particle in the "
			       "layer over the column", "s");
	if (w->st == WEST_OK) {
		float fill = NC_FILL_FLOAT;
		check(w, nc_put_att_float(w->ncid, w->var_arr, "_FillValue", NC_FLOAT, 1, &fill),
		      "nc_put_att", "arrival_time:_FillValue");
	}
}

static void def_globals(struct pw *w)
{
	const struct west_release *r = w->m->r;
	char buf[256], t[32];

	text(w, NC_GLOBAL, "Conventions", "CF-1.10");
	snprintf(buf, sizeof buf, "westd release plume %llu", w->m->id);
	text(w, NC_GLOBAL, "title", buf);
	text(w, NC_GLOBAL, "institution", "westd");
	snprintf(buf, sizeof buf, "westd " PACKAGE_VERSION ": Lagrangian particles through the "
		 "WEST wind field v%llu (a preview of relative concentration, not a dose "
		 "assessment)", w->m->field_version);
	text(w, NC_GLOBAL, "source", buf);
	integer(w, NC_GLOBAL, "release_id", (long long)w->m->id);
	number(w, NC_GLOBAL, "release_x", r->x);
	number(w, NC_GLOBAL, "release_y", r->y);
	if (isfinite(w->m->lon)) {
		number(w, NC_GLOBAL, "release_lon", w->m->lon);
		number(w, NC_GLOBAL, "release_lat", w->m->lat);
	}
	number(w, NC_GLOBAL, "release_height", r->height);
	number(w, NC_GLOBAL, "release_duration", r->duration);
	number(w, NC_GLOBAL, "release_simulated_seconds", r->seconds);
	integer(w, NC_GLOBAL, "release_particles", r->particles);
	integer(w, NC_GLOBAL, "release_seed", (long long)r->seed);
	west_obs_time_format(r->start, t, sizeof t);
	text(w, NC_GLOBAL, "release_start", t);
	number(w, NC_GLOBAL, "release_layer", w->res->layer);
	integer(w, NC_GLOBAL, "release_field_version", (long long)w->m->field_version);
	integer(w, NC_GLOBAL, "release_particles_outside", w->res->outside);
}

/* A double array put whole. */
static void put_doubles(struct pw *w, int v, const char *name, const double *a)
{
	if (w->st == WEST_OK)
		check(w, nc_put_var_double(w->ncid, v, a), "nc_put_var", name);
}

static void put_axes_lonlat(struct pw *w)
{
	const struct west_grid *g = w->g;
	size_t n = g->nx * g->ny, big = n > g->nx + g->ny ? n : g->nx + g->ny;
	double *a = malloc(2 * big * sizeof *a);
	char err[WEST_ERRLEN];

	if (!a) {
		w->st = west_fail(w->err, w->errlen, WEST_ERR_NOMEM, "release NetCDF: out of memory");
		return;
	}
	for (size_t i = 0; i < g->nx; i++)
		a[i] = g->x0 + ((double)i + 0.5) * g->dx;
	put_doubles(w, w->var_x, "x", a);
	for (size_t j = 0; j < g->ny; j++)
		a[j] = g->y0 + ((double)j + 0.5) * g->dy;
	put_doubles(w, w->var_y, "y", a);
	for (size_t c = 0; w->has_lonlat && w->st == WEST_OK && c < n; c++)
		if (west_tm_inverse(&g->crs, g->x0 + ((double)(c % g->nx) + 0.5) * g->dx,
				    g->y0 + ((double)(c / g->nx) + 0.5) * g->dy, &a[n + c], &a[c],
				    err, sizeof err))
			w->st = west_fail(w->err, w->errlen, WEST_ERR_INVALID,
					  "release NetCDF: lat, lon of column %zu: %s", c, err);
	if (w->has_lonlat) {
		put_doubles(w, w->var_lat, "lat", a);
		put_doubles(w, w->var_lon, "lon", a + n);
	}
	free(a);
}

static void put_values(struct pw *w)
{
	size_t n = w->g->nx * w->g->ny;
	float *arr = malloc(n * sizeof *arr);

	if (w->st == WEST_OK)
		check(w, nc_put_var_float(w->ncid, w->var_conc, w->res->conc), "nc_put_var",
		      "concentration");
	if (!arr) {
		w->st = west_fail(w->err, w->errlen, WEST_ERR_NOMEM, "release NetCDF: out of memory");
		return;
	}
	for (size_t c = 0; c < n; c++)
		arr[c] = isfinite(w->res->arrival[c]) ? w->res->arrival[c] : NC_FILL_FLOAT;
	if (w->st == WEST_OK)
		check(w, nc_put_var_float(w->ncid, w->var_arr, arr), "nc_put_var", "arrival_time");
	free(arr);
}

enum west_status west_plume_nc_image(const struct west_grid *g,
				     const struct west_plume_result *res,
				     const struct west_plume_nc_meta *m,
				     void **buf, size_t *len, char *err, size_t errlen)
{
	struct pw w = { .g = g, .res = res, .m = m, .ncid = -1, .var_crs = -1, .err = err,
			.errlen = errlen, .has_crs = g->crs.grid_mapping_name[0] != '\0',
			.has_lonlat = g->crs.has_tm };
	NC_memio image = { 0 };

	*buf = NULL, *len = 0;
	if (res->nx != g->nx || res->ny != g->ny || !res->conc || !res->arrival)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "release NetCDF: the result (%zu x %zu columns) is not on the "
				 "grid's %zu x %zu", res->nx, res->ny, g->nx, g->ny);
	west_netcdf_lock();
	if (!check(&w, nc_create_mem("release.nc", NC_NETCDF4, 1 << 20, &w.ncid),
		   "nc_create_mem", "release.nc")) {
		def_axes(&w);
		def_crs(&w);
		def_vars(&w);
		def_globals(&w);
		if (w.st == WEST_OK)
			check(&w, nc_enddef(w.ncid), "nc_enddef", "release.nc");
		put_axes_lonlat(&w);
		put_values(&w);
		if (w.st == WEST_OK &&
		    !check(&w, nc_close_memio(w.ncid, &image), "nc_close_memio", "release.nc"))
			w.ncid = -1;
		if (w.ncid >= 0)
			nc_abort(w.ncid);
	}
	west_netcdf_unlock();
	if (w.st != WEST_OK) {
		free(image.memory);
		return w.st;
	}
	*buf = image.memory;
	*len = west_netcdf_image_length(image.memory, image.size);
	return WEST_OK;
}
