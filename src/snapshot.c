/*
 * snapshot.c: CF-1.10 NetCDF-4 snapshots of a solved field (snapshot.h
 * gives the file layout; docs/design.md section 7), and the reader.
 *
 * Values: x_wind, y_wind and upward_air_velocity are cell-centre means of
 * the two opposite faces (west_field_centre), float, m s-1, written as
 * NC_FILL_FLOAT (9.96921e36f, the _FillValue attribute) in land cells and
 * read back as NaN.  Coordinates are cell centres: x0 + (i + 0.5) dx,
 * y0 + (j + 0.5) dy, and z the ALTITUDE base + (zf[k] + zf[k+1]) / 2 (m,
 * standard_name altitude, positive up), with the grid base kept in
 * z:base_altitude.  time holds the field's valid time as a double.
 *
 * Longitude and latitude: when the CRS is transverse Mercator (has_tm),
 * the CF auxiliary coordinates lat(y, x) and lon(y, x) of the column
 * centres (WGS 84, by proj.h's inverse), named in the coordinates
 * attribute of every variable on (.., y, x), so that CF tools can place
 * the grid and rotate x_wind and y_wind to true north.
 *
 * CRS: written when the grid's CRS has a grid_mapping_name (CF requires
 * one): the scalar int variable crs with grid_mapping_name, the five
 * transverse_mercator parameters when has_tm (plus semi_major_axis and
 * inverse_flattening of WGS 84, the ellipsoid the whole project assumes),
 * and crs_wkt and spatial_ref when there is a WKT; the grid variables then
 * carry grid_mapping = "crs".  A CRS known only as a WKT that names no CF
 * mapping gets no crs variable and no grid_mapping attributes; its WKT is
 * kept in the global attribute west_crs_wkt (not CF, so nothing is lost).
 *
 * Storage (issue 17, docs/benchmarks.md "Snapshots"): the winds and lat,
 * lon are contiguous and not compressed (west_snapshot_opts_default);
 * west_snapshot_write_opts changes only those, for snapshot-bench.  At R64
 * (800 x 800 x 20) they are 164 MB of the file's 165 MB, and deflating
 * them (level 1, shuffle, as before) took 1.6 s of a 2.3 s write on the
 * 2-core development machine; a write now takes 0.43 s.  Quantization
 * shrinks the deflated file (BitRound to 8 bits: 33 MB) and speeds deflate
 * up a little (1.5 s), far from what leaving it out does, and without
 * deflate it saves nothing; so the winds keep their float bits.
 * Contiguous rather than chunked: each block of a level is one run of
 * bytes in the image (never filled first: NC_NOFILL), and a profile is nz
 * reads of 4 bytes.  Every other variable with
 * dimensions is deflated (level 1, shuffle), except station_id: NetCDF-4
 * cannot filter variable-length strings.  The scalar crs cannot be chunked
 * or filtered either.  land_mask uses chunks (nz, min(ny,16), min(nx,16)):
 * whole columns.  The station dimension and variables exist only when the
 * set has stations (a fixed NetCDF dimension cannot be 0 long).
 *
 * lat and lon of the last transverse Mercator grid are kept (one copy per
 * process, under a mutex) and reused while the grid is the same: at R64
 * (800 x 800 columns) the 640,000 inverse projections take 0.46 s, more
 * than the rest of a write now.  The first snapshot of a grid pays for
 * them; the memory (16 bytes a column, 10 MB at R64) stays until
 * west_snapshot_forget.  The winds at cell centres come from
 * west_field_centres (field.h), a row at a time, 8 cells at a time with
 * AVX2 (0.06 to 0.07 s at R64 on the GPU host, where a cell at a time took
 * 0.12 to 0.13 s and the per-cell west_field_centre 0.27 s here), without
 * OpenMP (the CPU backend's threads are the solver's), rows of one
 * level, about SNAP_BLOCK bytes, at a time into one small buffer, each
 * block then copied into the image (put_winds).
 *
 * Atomicity: NetCDF builds the whole file in memory (nc_create_mem,
 * nc_close_memio); only then does west_file_replace (fileio.h) write the
 * image to <dir>/.<name>.tmp.XXXXXX, fsync it, give it mode 0644, rename
 * it over <dir>/<name> and fsync <dir> (EINVAL from filesystems that
 * cannot sync a directory is ignored).  On any failure before the rename
 * the NetCDF handle is aborted, the temp file removed and the final path
 * untouched.  A failed directory fsync is reported although the new file
 * is already in place.
 *
 * Why in memory: with libnetcdf 4.9.0 a file that HDF5 cannot write to
 * disk (EFBIG, ENOSPC) cannot be closed or aborted safely: when H5Fclose
 * fails, nc4_close_netcdf4_file has already freed the file's metadata and
 * its open-object dump dereferences it (a crash seen with RLIMIT_FSIZE).
 * In memory HDF5 never meets a disk error, and a full disk is one failed
 * write(2) here.  The costs: the file is held in memory once (the winds
 * are copied into it, then nc_close_memio hands it back: 0.10 s and
 * 0.05 s of a 0.43 s R64 write), besides one float component of the field
 * while it is defined; and
 * libnetcdf creates in-memory files without HDF5 link creation order, so
 * netCDF-C opens a snapshot read-only (NC_WRITE gives NC_ECANTWRITE; make
 * an editable copy with nccopy) and lists its variables by name.  Readers
 * (ncdump, netCDF4-python, xarray, GDAL) see the same content.
 *
 * Threads: NetCDF-C (4.9) is not thread-safe; every NetCDF use in libwest
 * (snapshots written and read here, terrain loading, a release's NetCDF)
 * holds netcdf_lock (west_netcdf_lock) while it calls the library.
 *
 * Errors: WEST_ERR_NETCDF for a library call, WEST_ERR_IO for an OS call,
 * WEST_ERR_INVALID for a file that is not a snapshot; every message starts
 * with the path and names the failing call, variable or attribute.
 */
#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netcdf.h>
#include <netcdf_mem.h>

#include "fileio.h"
#include "nc_header.h"
#include "proj.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define SNAP_FILL NC_FILL_FLOAT   /* land cells in the wind variables */
#define SNAP_CHUNK 16             /* horizontal chunk edge (cells) */
#define SNAP_BLOCK (4u << 20)     /* bytes of winds computed and written at once */
#define SNAP_TIME_UNITS "seconds since 1970-01-01T00:00:00Z"
#define WGS84_A 6378137.0
#define WGS84_RF 298.257223563
#define SNAPSHOT_MODE 0644   /* readable by the dispersion models */

/* ----------------------------------------------------------- tables */

/* Wind variables: name (= standard_name), long_name. */
static const char *const wind_vars[3][2] = {
	{ "x_wind", "wind component along the grid x axis at the cell centre" },
	{ "y_wind", "wind component along the grid y axis at the cell centre" },
	{ "upward_air_velocity", "upward wind component at the cell centre" },
};

/* What every snapshot has; the reader refuses a file without one. */
static const char *const required_vars[] = {
	"x_wind", "y_wind", "upward_air_velocity", "time", "z", "y", "x",
	"surface_altitude", "land_mask", "stability_class",
};

static const signed char stab_values[WEST_NSTAB] = { 0, 1, 2, 3, 4, 5 };
static const char stab_meanings[] = "A B C D E F";

/* The double members of struct west_obs, one variable each. */
static const struct station_double {
	const char *name, *units, *standard_name, *long_name;
	size_t offset;
} station_doubles[] = {
	{ "station_x", "m", NULL, "station position along the grid x axis (projection_x_coordinate)",
	  offsetof(struct west_obs, x) },
	{ "station_y", "m", NULL, "station position along the grid y axis (projection_y_coordinate)",
	  offsetof(struct west_obs, y) },
	{ "station_height", "m", "height", "measurement height above the ground",
	  offsetof(struct west_obs, height) },
	{ "station_wind_speed", "m s-1", "wind_speed", "observed wind speed",
	  offsetof(struct west_obs, speed) },
	{ "station_wind_from_direction", "degree", "wind_from_direction",
	  "observed wind direction (from, clockwise from north)",
	  offsetof(struct west_obs, direction) },
};
#define NSTATION_DOUBLES (sizeof station_doubles / sizeof station_doubles[0])

/* struct west_report as global attributes. */
static const struct report_text {
	const char *name;
	size_t offset, size;
} report_texts[] = {
#define REPORT_TEXT(name, m) { name, offsetof(struct west_report, m), \
			       sizeof ((struct west_report *)0)->m }
	REPORT_TEXT("west_backend", backend),
	REPORT_TEXT("west_solver", solver),
	REPORT_TEXT("west_indexing", indexing),
#undef REPORT_TEXT
};

static const struct report_double {
	const char *name;
	size_t offset;
} report_doubles[] = {
	{ "west_omega", offsetof(struct west_report, omega) },
	{ "west_eta", offsetof(struct west_report, eta) },
	{ "west_tolerance", offsetof(struct west_report, tolerance) },
	{ "west_h", offsetof(struct west_report, h) },
	{ "west_u_ref", offsetof(struct west_report, u_ref) },
	{ "west_total_seconds", offsetof(struct west_report, total_seconds) },
	{ "west_start_max_div", offsetof(struct west_report, start.max_div) },
	{ "west_start_rel_max", offsetof(struct west_report, start.rel_max) },
	{ "west_start_rel_l2", offsetof(struct west_report, start.rel_l2) },
	{ "west_end_max_div", offsetof(struct west_report, end.max_div) },
	{ "west_end_rel_max", offsetof(struct west_report, end.rel_max) },
	{ "west_end_rel_l2", offsetof(struct west_report, end.rel_l2) },
	{ "west_final_max_div", offsetof(struct west_report, final.max_div) },
	{ "west_final_rel_max", offsetof(struct west_report, final.rel_max) },
	{ "west_final_rel_l2", offsetof(struct west_report, final.rel_l2) },
};

#define NELEMS(a) (sizeof (a) / sizeof (a)[0])

/* "west_seconds_<step key>" */
static void step_att_name(int step, char *buf, size_t size)
{
	snprintf(buf, size, "west_seconds_%s", west_step_key(step));
}

/* =========================================================== writer */

const struct west_snapshot_opts west_snapshot_opts_v1 = {
	.deflate = 1, .shuffle = 1, .layout = WEST_SNAPSHOT_COLUMNS, .chunk_xy = 16,
};
const struct west_snapshot_opts west_snapshot_opts_default = {
	.deflate = 0, .shuffle = 0, .layout = WEST_SNAPSHOT_CONTIGUOUS,
};

struct snap_writer {
	const char *path;             /* the final name */
	const struct west_snapshot_opts *o;
	struct west_snapshot_times *t; /* phase times, accumulated */
	const struct west_grid *g;
	const struct west_field *f;
	const struct west_obs_set *obs;
	NC_memio image;               /* the finished file (malloc'ed by NetCDF) */
	int ncid;                     /* -1 when closed */
	int has_crs;
	int dim_t, dim_z, dim_y, dim_x, dim_s;
	int var_t, var_z, var_y, var_x, var_crs, var_lat, var_lon;
	int has_lonlat;               /* the CRS is transverse Mercator */
	int var_wind[3], var_terrain, var_land, var_stab;
	int var_sid, var_stime, var_sstab, var_sdouble[NSTATION_DOUBLES];
	enum west_status st;          /* the first failure; later steps do nothing */
	char *err;
	size_t errlen;
};

/* Record a failed NetCDF call (the first failure wins); 0 when rc is OK. */
static int nc_check(struct snap_writer *w, int rc, const char *call, const char *what)
{
	if (rc == NC_NOERR)
		return 0;
	if (w->st == WEST_OK)
		w->st = west_fail(w->err, w->errlen, WEST_ERR_NETCDF, "%s: %s '%s': %s",
				  w->path, call, what, nc_strerror(rc));
	return -1;
}

/* A failed attribute write, named "var:att" as ncdump shows it. */
static void att_check(struct snap_writer *w, int var, const char *name, int rc)
{
	char vname[NC_MAX_NAME + 1] = "", what[2 * NC_MAX_NAME + 2];

	if (rc == NC_NOERR)
		return;
	if (var != NC_GLOBAL)
		nc_inq_varname(w->ncid, var, vname);
	snprintf(what, sizeof what, "%s:%s", vname, name);
	nc_check(w, rc, "nc_put_att", what);
}

static void put_text(struct snap_writer *w, int var, const char *name, const char *v)
{
	if (w->st == WEST_OK)
		att_check(w, var, name, nc_put_att_text(w->ncid, var, name, strlen(v), v));
}

static void put_double(struct snap_writer *w, int var, const char *name, double v)
{
	if (w->st == WEST_OK)
		att_check(w, var, name, nc_put_att_double(w->ncid, var, name, NC_DOUBLE, 1, &v));
}

static void put_int64(struct snap_writer *w, int var, const char *name, long long v)
{
	if (w->st == WEST_OK)
		att_check(w, var, name, nc_put_att_longlong(w->ncid, var, name, NC_INT64, 1, &v));
}

static void put_int(struct snap_writer *w, int var, const char *name, int v)
{
	if (w->st == WEST_OK)
		att_check(w, var, name, nc_put_att_int(w->ncid, var, name, NC_INT, 1, &v));
}

static void put_bytes(struct snap_writer *w, int var, const char *name,
		      const signed char *v, size_t n)
{
	if (w->st == WEST_OK)
		att_check(w, var, name, nc_put_att_schar(w->ncid, var, name, NC_BYTE, n, v));
}

/*
 * Define a variable, deflated (level 1, shuffle) unless it is a scalar or
 * a string, with `chunks` when not NULL.  Returns its id, -1 on failure.
 */
static int def_var(struct snap_writer *w, const char *name, nc_type type,
		   int ndims, const int *dims, const size_t *chunks)
{
	int var = -1;

	if (w->st != WEST_OK ||
	    nc_check(w, nc_def_var(w->ncid, name, type, ndims, dims, &var), "nc_def_var", name))
		return -1;
	if (ndims > 0 && type != NC_STRING)
		nc_check(w, nc_def_var_deflate(w->ncid, var, 1, 1, 1), "nc_def_var_deflate", name);
	if (chunks && w->st == WEST_OK)
		nc_check(w, nc_def_var_chunking(w->ncid, var, NC_CHUNKED, chunks),
			 "nc_def_var_chunking", name);
	return var;
}

/* A big variable (the winds, lat, lon), deflated as opts say.  Chunked by
 * `chunks`; when NULL, contiguous if not deflated, else chunked by the
 * library's default. */
static int def_big(struct snap_writer *w, const char *name, nc_type type,
		   int ndims, const int *dims, const size_t *chunks)
{
	const struct west_snapshot_opts *o = w->o;
	int var = -1;

	if (w->st != WEST_OK ||
	    nc_check(w, nc_def_var(w->ncid, name, type, ndims, dims, &var), "nc_def_var", name))
		return -1;
	if (o->deflate > 0)
		nc_check(w, nc_def_var_deflate(w->ncid, var, o->shuffle, 1, o->deflate),
			 "nc_def_var_deflate", name);
	if (w->st == WEST_OK && (chunks || o->deflate == 0))
		nc_check(w, nc_def_var_chunking(w->ncid, var, chunks ? NC_CHUNKED : NC_CONTIGUOUS,
						chunks), "nc_def_var_chunking", name);
	return var;
}

/* The attributes every variable on the grid shares. */
static void grid_atts(struct snap_writer *w, int var, const char *standard_name,
		      const char *long_name, const char *units)
{
	if (standard_name)
		put_text(w, var, "standard_name", standard_name);
	put_text(w, var, "long_name", long_name);
	if (units)
		put_text(w, var, "units", units);
	if (w->has_crs)
		put_text(w, var, "grid_mapping", "crs");
}

static void def_dims(struct snap_writer *w)
{
	const struct west_grid *g = w->g;

	nc_check(w, nc_def_dim(w->ncid, "time", 1, &w->dim_t), "nc_def_dim", "time");
	if (w->st == WEST_OK)
		nc_check(w, nc_def_dim(w->ncid, "z", g->nz, &w->dim_z), "nc_def_dim", "z");
	if (w->st == WEST_OK)
		nc_check(w, nc_def_dim(w->ncid, "y", g->ny, &w->dim_y), "nc_def_dim", "y");
	if (w->st == WEST_OK)
		nc_check(w, nc_def_dim(w->ncid, "x", g->nx, &w->dim_x), "nc_def_dim", "x");
	if (w->st == WEST_OK && w->obs->n > 0)
		nc_check(w, nc_def_dim(w->ncid, "station", w->obs->n, &w->dim_s),
			 "nc_def_dim", "station");
}

static int def_axis(struct snap_writer *w, const char *name, int dim, const char *axis,
		    const char *standard_name, const char *long_name)
{
	int var = def_var(w, name, NC_DOUBLE, 1, &dim, NULL);

	put_text(w, var, "standard_name", standard_name);
	put_text(w, var, "long_name", long_name);
	put_text(w, var, "units", "m");
	put_text(w, var, "axis", axis);
	return var;
}

static void def_coords(struct snap_writer *w)
{
	w->var_t = def_var(w, "time", NC_DOUBLE, 1, &w->dim_t, NULL);
	put_text(w, w->var_t, "standard_name", "time");
	put_text(w, w->var_t, "long_name", "valid time of the field");
	put_text(w, w->var_t, "units", SNAP_TIME_UNITS);
	put_text(w, w->var_t, "calendar", "standard");
	put_text(w, w->var_t, "axis", "T");
	w->var_z = def_axis(w, "z", w->dim_z, "Z", "altitude",
			    "altitude of the cell centres above the datum");
	put_text(w, w->var_z, "positive", "up");
	put_double(w, w->var_z, "base_altitude", w->g->base);
	w->var_y = def_axis(w, "y", w->dim_y, "Y", "projection_y_coordinate",
			    "y coordinate of projection (cell centre)");
	w->var_x = def_axis(w, "x", w->dim_x, "X", "projection_x_coordinate",
			    "x coordinate of projection (cell centre)");
}

int west_nc_def_crs(int ncid, const struct west_crs *c, int *varid, const char **what)
{
	const struct {
		const char *name;
		double v;
	} tm[] = {
		{ "longitude_of_central_meridian", c->lon0 },
		{ "latitude_of_projection_origin", c->lat0 },
		{ "scale_factor_at_central_meridian", c->k0 },
		{ "false_easting", c->false_easting },
		{ "false_northing", c->false_northing },
		{ "semi_major_axis", WGS84_A },
		{ "inverse_flattening", WGS84_RF },
	};
	const char *names[2] = { "crs_wkt", "spatial_ref" };
	int rc;

	*varid = -1;
	*what = "crs";
	if (c->grid_mapping_name[0] == '\0') {
		*what = "west_crs_wkt";
		return c->wkt ? nc_put_att_text(ncid, NC_GLOBAL, "west_crs_wkt", strlen(c->wkt),
						c->wkt) : NC_NOERR;
	}
	if ((rc = nc_def_var(ncid, "crs", NC_INT, 0, NULL, varid)) != NC_NOERR)
		return rc;
	*what = "grid_mapping_name";
	if ((rc = nc_put_att_text(ncid, *varid, *what, strlen(c->grid_mapping_name),
				  c->grid_mapping_name)) != NC_NOERR)
		return rc;
	for (size_t k = 0; c->has_tm && k < sizeof tm / sizeof *tm; k++) {
		*what = tm[k].name;
		if ((rc = nc_put_att_double(ncid, *varid, *what, NC_DOUBLE, 1, &tm[k].v)) != NC_NOERR)
			return rc;
	}
	for (int k = 0; c->wkt && k < 2; k++) {
		*what = names[k];
		if ((rc = nc_put_att_text(ncid, *varid, *what, strlen(c->wkt), c->wkt)) != NC_NOERR)
			return rc;
	}
	return NC_NOERR;
}

/* The grid mapping variable, or the WKT alone as a global (prose above). */
static void def_crs(struct snap_writer *w)
{
	const char *what = "crs";

	if (w->st == WEST_OK)
		nc_check(w, west_nc_def_crs(w->ncid, &w->g->crs, &w->var_crs, &what),
			 "defining the CRS", what);
}

/* CF auxiliary coordinates lat(y, x) and lon(y, x) of the column centres,
 * when the grid's CRS is transverse Mercator (proj.h can invert it). */
static void def_lonlat(struct snap_writer *w)
{
	int dims[2] = { w->dim_y, w->dim_x };
	static const char *const names[2][4] = {
		{ "lat", "latitude", "latitude of the column centre (WGS 84)", "degrees_north" },
		{ "lon", "longitude", "longitude of the column centre (WGS 84)", "degrees_east" },
	};

	if (!w->has_lonlat)
		return;
	for (int c = 0; c < 2; c++) {
		int var = def_big(w, names[c][0], NC_DOUBLE, 2, dims, NULL);
		*(c ? &w->var_lon : &w->var_lat) = var;
		put_text(w, var, "standard_name", names[c][1]);
		put_text(w, var, "long_name", names[c][2]);
		put_text(w, var, "units", names[c][3]);
	}
}

/* The coordinates attribute of a variable on (.., y, x): its own, with
 * lat and lon where the file has them. */
static void put_coordinates(struct snap_writer *w, int var, const char *own)
{
	char buf[64];

	snprintf(buf, sizeof buf, "%s%s%s", own, own[0] ? " " : "",
		 w->has_lonlat ? "lat lon" : "");
	if (buf[0])
		put_text(w, var, "coordinates", buf);
}

/* Chunks of whole columns of a (z, y, x) variable, edge x edge of them at
 * most. */
static void chunk_columns(const struct west_grid *g, size_t edge, size_t chunks[3])
{
	chunks[0] = g->nz;
	chunks[1] = g->ny < edge ? g->ny : edge;
	chunks[2] = g->nx < edge ? g->nx : edge;
}

/* The winds' chunks (z, y, x) by opts; NULL when contiguous. */
static const size_t *wind_chunks(const struct snap_writer *w, size_t chunks[3])
{
	const struct west_grid *g = w->g;

	switch (w->o->layout) {
	case WEST_SNAPSHOT_COLUMNS:
		chunk_columns(g, w->o->chunk_xy, chunks);
		return chunks;
	case WEST_SNAPSHOT_PLANES:
		chunks[0] = 1, chunks[1] = g->ny, chunks[2] = g->nx;
		return chunks;
	default:
		return NULL;
	}
}

static void def_winds(struct snap_writer *w)
{
	int dims[4] = { w->dim_t, w->dim_z, w->dim_y, w->dim_x };
	size_t chunks[4] = { 1 };
	const size_t *use = wind_chunks(w, chunks + 1) ? chunks : NULL;
	float fill = SNAP_FILL;

	for (int c = 0; c < 3; c++) {
		int var = def_big(w, wind_vars[c][0], NC_FLOAT, 4, dims, use);
		w->var_wind[c] = var;
		/* Contiguous: written a block at a time (put_winds), so HDF5
		 * must not fill the whole variable with _FillValue when the
		 * first block comes (a write of the whole variable, as the
		 * chunked layouts' is, skips that fill); the attribute after
		 * this, or NetCDF leaves it out. */
		if (w->st == WEST_OK && w->o->layout == WEST_SNAPSHOT_CONTIGUOUS)
			nc_check(w, nc_def_var_fill(w->ncid, var, NC_NOFILL, NULL),
				 "nc_def_var_fill", wind_vars[c][0]);
		if (w->st == WEST_OK)
			att_check(w, var, "_FillValue",
				  nc_put_att_float(w->ncid, var, "_FillValue", NC_FLOAT, 1, &fill));
		if (w->st == WEST_OK && w->o->quantize)
			nc_check(w, nc_def_var_quantize(w->ncid, var, w->o->quantize, w->o->nsd),
				 "nc_def_var_quantize", wind_vars[c][0]);
		grid_atts(w, var, wind_vars[c][0], wind_vars[c][1], "m s-1");
		put_coordinates(w, var, "time z y x");
	}
}

static void def_surface(struct snap_writer *w)
{
	const struct west_grid *g = w->g;
	int dims[3] = { w->dim_z, w->dim_y, w->dim_x };
	size_t chunks[3];
	static const signed char land_values[2] = { 0, 1 };

	chunk_columns(g, SNAP_CHUNK, chunks);
	w->var_terrain = def_var(w, "surface_altitude", NC_FLOAT, 2, dims + 1, NULL);
	grid_atts(w, w->var_terrain, "surface_altitude", "terrain altitude of the column", "m");
	put_coordinates(w, w->var_terrain, "");
	w->var_land = def_var(w, "land_mask", NC_BYTE, 3, dims, chunks);
	grid_atts(w, w->var_land, NULL, g->cut ?
		  "land (less than a tenth of the cell above its column's ground; cut cells)" :
		  "land (cell centre below the terrain)", NULL);
	put_bytes(w, w->var_land, "flag_values", land_values, 2);
	put_text(w, w->var_land, "flag_meanings", "air land");
	put_coordinates(w, w->var_land, "");
	w->var_stab = def_var(w, "stability_class", NC_BYTE, 2, dims + 1, NULL);
	grid_atts(w, w->var_stab, NULL, "Pasquill-Gifford stability class", NULL);
	put_bytes(w, w->var_stab, "flag_values", stab_values, WEST_NSTAB);
	put_text(w, w->var_stab, "flag_meanings", stab_meanings);
	put_coordinates(w, w->var_stab, "");
}

static void def_stations(struct snap_writer *w)
{
	const int d = w->dim_s;

	if (w->obs->n == 0)
		return;
	w->var_sid = def_var(w, "station_id", NC_STRING, 1, &d, NULL);
	put_text(w, w->var_sid, "long_name", "station identifier");
	for (size_t k = 0; k < NSTATION_DOUBLES; k++) {
		const struct station_double *sd = &station_doubles[k];
		int var = def_var(w, sd->name, NC_DOUBLE, 1, &d, NULL);
		w->var_sdouble[k] = var;
		if (sd->standard_name)
			put_text(w, var, "standard_name", sd->standard_name);
		put_text(w, var, "long_name", sd->long_name);
		put_text(w, var, "units", sd->units);
	}
	w->var_stime = def_var(w, "station_time", NC_INT64, 1, &d, NULL);
	put_text(w, w->var_stime, "long_name", "observation valid time");
	put_text(w, w->var_stime, "units", SNAP_TIME_UNITS);
	put_text(w, w->var_stime, "calendar", "standard");
	w->var_sstab = def_var(w, "station_stability", NC_BYTE, 1, &d, NULL);
	put_text(w, w->var_sstab, "long_name", "Pasquill-Gifford stability class at the station");
	put_bytes(w, w->var_sstab, "flag_values", stab_values, WEST_NSTAB);
	put_text(w, w->var_sstab, "flag_meanings", stab_meanings);
}

static void def_globals(struct snap_writer *w)
{
	const char *backend = w->f->report.backend;
	char stamp[32] = "unknown time", history[128];
	time_t now = time(NULL);
	struct tm tm;

	if (gmtime_r(&now, &tm))
		strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(history, sizeof history, "%s westd: solved with %.*s", stamp,
		 (int)sizeof w->f->report.backend, backend[0] ? backend : "unknown backend");
	put_text(w, NC_GLOBAL, "Conventions", "CF-1.10");
	put_text(w, NC_GLOBAL, "title", "westd wind field");
	put_text(w, NC_GLOBAL, "institution", "westd");
	put_text(w, NC_GLOBAL, "source", "WEST diagnostic wind model (westd " PACKAGE_VERSION ")");
	put_text(w, NC_GLOBAL, "history", history);
}

static void def_report(struct snap_writer *w)
{
	const struct west_report *r = &w->f->report;
	const char *base = (const char *)r;
	char name[64], text[64];

	for (size_t k = 0; k < NELEMS(report_texts); k++) {
		snprintf(text, sizeof text, "%.*s", (int)report_texts[k].size,
			 base + report_texts[k].offset);
		put_text(w, NC_GLOBAL, report_texts[k].name, text);
	}
	for (size_t k = 0; k < NELEMS(report_doubles); k++)
		put_double(w, NC_GLOBAL, report_doubles[k].name,
			   *(const double *)(base + report_doubles[k].offset));
	put_int64(w, NC_GLOBAL, "west_iterations_max", r->iterations_max);
	put_int64(w, NC_GLOBAL, "west_iterations", r->iterations);
	put_int(w, NC_GLOBAL, "west_converged", r->converged);
	for (int s = 0; s < WEST_NSTEPS; s++) {
		step_att_name(s, name, sizeof name);
		put_double(w, NC_GLOBAL, name, r->step_seconds[s]);
	}
}

/* A scratch array of n items of `size`, or the failure recorded. */
static void *scratch(struct snap_writer *w, size_t n, size_t size, const char *what)
{
	void *p = w->st == WEST_OK ? malloc(n ? n * size : 1) : NULL;

	if (!p && w->st == WEST_OK)
		w->st = west_fail(w->err, w->errlen, WEST_ERR_NOMEM,
				  "%s: cannot allocate %zu values for '%s'", w->path, n, what);
	return p;
}

static void put_axis(struct snap_writer *w, int var, const char *name, size_t n,
		     double origin, double step)
{
	double *c = scratch(w, n, sizeof *c, name);

	if (!c)
		return;
	for (size_t i = 0; i < n; i++)
		c[i] = origin + ((double)i + 0.5) * step;
	nc_check(w, nc_put_var_double(w->ncid, var, c), "nc_put_var", name);
	free(c);
}

static void put_coords(struct snap_writer *w)
{
	const struct west_grid *g = w->g;
	double t = (double)w->f->valid_time;
	double *z;

	if (w->st == WEST_OK)
		nc_check(w, nc_put_var_double(w->ncid, w->var_t, &t), "nc_put_var", "time");
	put_axis(w, w->var_x, "x", g->nx, g->x0, g->dx);
	put_axis(w, w->var_y, "y", g->ny, g->y0, g->dy);
	z = scratch(w, g->nz, sizeof *z, "z");
	if (!z)
		return;
	for (size_t k = 0; k < g->nz; k++)
		z[k] = g->base + (g->zf[k] + g->zf[k + 1]) / 2.0;
	nc_check(w, nc_put_var_double(w->ncid, w->var_z, z), "nc_put_var", "z");
	free(z);
}

/*
 * lat and lon of the column centres of the last grid written, kept for the
 * next snapshot of the same grid (the daemon writes one per field): one
 * inverse transverse Mercator per column costs more than writing them.
 * The key holds everything they depend on; lonlat.lock guards it all.
 */
struct lonlat_key {
	size_t nx, ny;
	double x0, y0, dx, dy, lon0, lat0, k0, fe, fn;
};

static struct {
	pthread_mutex_t lock;
	struct lonlat_key key;
	double *lat;                  /* nx*ny lat then nx*ny lon; NULL: none */
} lonlat = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct lonlat_key lonlat_key_of(const struct west_grid *g)
{
	struct lonlat_key k;

	memset(&k, 0, sizeof k);   /* padding too: keys are compared whole */
	k.nx = g->nx, k.ny = g->ny, k.x0 = g->x0, k.y0 = g->y0, k.dx = g->dx, k.dy = g->dy;
	k.lon0 = g->crs.lon0, k.lat0 = g->crs.lat0, k.k0 = g->crs.k0;
	k.fe = g->crs.false_easting, k.fn = g->crs.false_northing;
	return k;
}

/* Column i of row j; 0, or -1 with the message in err. */
static int lonlat_at(const struct west_grid *g, size_t i, size_t j, double *lon, double *lat,
		     char *err, size_t errlen)
{
	double x = g->x0 + ((double)i + 0.5) * g->dx, y = g->y0 + ((double)j + 0.5) * g->dy;

	return west_tm_inverse(&g->crs, x, y, lon, lat, err, errlen) == WEST_OK ? 0 : -1;
}

/* Fill lat[0..n) and lon = lat + n; on failure the failing column is
 * named. */
static void lonlat_compute(struct snap_writer *w, double *lat)
{
	const struct west_grid *g = w->g;
	size_t n = g->nx * g->ny;
	double *lon = lat + n;
	char err[WEST_ERRLEN];

	for (size_t c = 0; c < n; c++)
		if (lonlat_at(g, c % g->nx, c / g->nx, &lon[c], &lat[c], err, sizeof err)) {
			w->st = west_fail(w->err, w->errlen, WEST_ERR_INVALID,
					  "%s: lat, lon of column (%zu, %zu): %s", w->path,
					  c % g->nx, c / g->nx, err);
			return;
		}
}

/* lonlat.lat for w's grid, computed unless it is the cached one (called
 * with lonlat.lock held); NULL after a failure. */
static const double *lonlat_get(struct snap_writer *w)
{
	struct lonlat_key key = lonlat_key_of(w->g);
	size_t n = w->g->nx * w->g->ny;
	double *lat;

	if (lonlat.lat && memcmp(&key, &lonlat.key, sizeof key) == 0)
		return lonlat.lat;
	free(lonlat.lat);
	lonlat.lat = NULL;
	lat = scratch(w, 2 * n, sizeof *lat, "lat");
	if (lat)
		lonlat_compute(w, lat);
	if (w->st != WEST_OK) {
		free(lat);
		return NULL;
	}
	lonlat.key = key;
	lonlat.lat = lat;
	return lat;
}

void west_snapshot_forget(void)
{
	pthread_mutex_lock(&lonlat.lock);
	free(lonlat.lat);
	lonlat.lat = NULL;
	pthread_mutex_unlock(&lonlat.lock);
}

/* lat and lon of every column centre, by the inverse transverse Mercator. */
static void put_lonlat(struct snap_writer *w)
{
	size_t n = w->g->nx * w->g->ny;
	const double *lat;

	if (!w->has_lonlat || w->st != WEST_OK)
		return;
	pthread_mutex_lock(&lonlat.lock);
	lat = lonlat_get(w);
	if (lat)
		nc_check(w, nc_put_var_double(w->ncid, w->var_lat, lat), "nc_put_var", "lat");
	if (lat && w->st == WEST_OK)
		nc_check(w, nc_put_var_double(w->ncid, w->var_lon, lat + n), "nc_put_var", "lon");
	pthread_mutex_unlock(&lonlat.lock);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Levels k to k + nk - 1, rows j to j + nj - 1 of wind component c (a
 * block with nk > 1 holds whole levels: nj == ny), through buf. */
static void put_wind_block(struct snap_writer *w, int c, size_t k, size_t nk, size_t j,
			   size_t nj, float *buf)
{
	size_t start[4] = { 0, k, j, 0 }, count[4] = { 1, nk, nj, w->g->nx };
	size_t r0 = k * w->g->ny + j;   /* west_field_centres' rows */
	double t0 = now_s(), t1;

	west_field_centres(w->f, w->g, c, r0, r0 + nk * nj, SNAP_FILL, buf);
	t1 = now_s();
	nc_check(w, nc_put_vara_float(w->ncid, w->var_wind[c], start, count, buf),
		 "nc_put_vara", wind_vars[c][0]);
	w->t->centres += t1 - t0;
	w->t->winds += now_s() - t1;
}

/*
 * The winds at cell centres into the image.  Contiguous (what snapshots
 * are): rows of one level at a time, about SNAP_BLOCK bytes (a level's
 * rows are one run of the variable's bytes), through one buffer that stays
 * in the processor's caches, where a whole component at once would first
 * fill 4 B a cell (51 MB at R64) of fresh memory at every write.  Chunked
 * (the benchmark's other settings): the whole variable at once, as
 * before.
 */
static void put_winds(struct snap_writer *w)
{
	const size_t nx = w->g->nx, ny = w->g->ny, nz = w->g->nz;
	const int whole = w->o->layout != WEST_SNAPSHOT_CONTIGUOUS;
	size_t bytes = w->o->block_bytes ? w->o->block_bytes : SNAP_BLOCK;
	size_t nk = whole ? nz : 1, nj = bytes / (nx * sizeof(float));
	float *buf;

	nj = whole || nj > ny ? ny : nj < 1 ? 1 : nj;
	buf = scratch(w, nk * nj * nx, sizeof *buf, "x_wind");
	for (int c = 0; c < 3 && buf; c++)
		for (size_t k = 0; k < nz; k += nk)
			for (size_t j = 0; j < ny && w->st == WEST_OK; j += nj)
				put_wind_block(w, c, k, nk, j, nj < ny - j ? nj : ny - j, buf);
	free(buf);
}

static void put_surface(struct snap_writer *w)
{
	if (w->st == WEST_OK)
		nc_check(w, nc_put_var_float(w->ncid, w->var_terrain, w->g->terrain),
			 "nc_put_var", "surface_altitude");
	if (w->st == WEST_OK)
		nc_check(w, nc_put_var_uchar(w->ncid, w->var_land, w->g->land),
			 "nc_put_var", "land_mask");
	if (w->st == WEST_OK)
		nc_check(w, nc_put_var_uchar(w->ncid, w->var_stab, w->f->stability),
			 "nc_put_var", "stability_class");
}

/* station_id, station_time and station_stability. */
static void put_station_misc(struct snap_writer *w)
{
	const struct west_obs_set *o = w->obs;
	const char **ids = scratch(w, o->n, sizeof *ids, "station_id");
	long long *t = scratch(w, o->n, sizeof *t, "station_time");
	unsigned char *stab = scratch(w, o->n, 1, "station_stability");

	if (ids && t && stab) {
		for (size_t s = 0; s < o->n; s++) {
			ids[s] = o->obs[s].id;
			t[s] = o->obs[s].time;
			stab[s] = (unsigned char)o->obs[s].stability;
		}
		nc_check(w, nc_put_var_string(w->ncid, w->var_sid, ids), "nc_put_var", "station_id");
	}
	if (w->st == WEST_OK)
		nc_check(w, nc_put_var_longlong(w->ncid, w->var_stime, t),
			 "nc_put_var", "station_time");
	if (w->st == WEST_OK)
		nc_check(w, nc_put_var_uchar(w->ncid, w->var_sstab, stab),
			 "nc_put_var", "station_stability");
	free(ids);
	free(t);
	free(stab);
}

static void put_stations(struct snap_writer *w)
{
	const struct west_obs_set *o = w->obs;
	double *v;

	if (o->n == 0 || w->st != WEST_OK)
		return;
	v = scratch(w, o->n, sizeof *v, "station");
	for (size_t k = 0; k < NSTATION_DOUBLES && v && w->st == WEST_OK; k++) {
		for (size_t s = 0; s < o->n; s++)
			v[s] = *(const double *)((const char *)&o->obs[s] + station_doubles[k].offset);
		nc_check(w, nc_put_var_double(w->ncid, w->var_sdouble[k], v),
			 "nc_put_var", station_doubles[k].name);
	}
	free(v);
	put_station_misc(w);
}

/* Initial size of the in-memory image: a guess, NetCDF grows it. */
static size_t image_guess(const struct snap_writer *w)
{
	size_t n = west_grid_ncells(w->g) * sizeof(float);   /* one wind component */

	return n < (1u << 20) ? (1u << 20) : n;
}

/* Define and fill the file in memory; w->image holds it on success. */
static void build_image(struct snap_writer *w)
{
	double t0 = now_s();
	int rc = nc_create_mem(w->path, NC_NETCDF4, image_guess(w), &w->ncid);

	if (nc_check(w, rc, "nc_create_mem", w->path)) {
		w->ncid = -1;
		return;
	}
	def_dims(w);
	def_coords(w);
	def_crs(w);
	def_lonlat(w);
	def_winds(w);
	def_surface(w);
	def_stations(w);
	def_globals(w);
	def_report(w);
	if (w->st == WEST_OK)
		nc_check(w, nc_enddef(w->ncid), "nc_enddef", w->path);
	w->t->define = now_s() - t0;
	t0 = now_s();
	put_coords(w);
	put_lonlat(w);
	w->t->coords = now_s() - t0;
	put_winds(w);
	t0 = now_s();
	put_surface(w);
	put_stations(w);
	w->t->other = now_s() - t0;
	if (w->st != WEST_OK)
		return;
	t0 = now_s();
	rc = nc_close_memio(w->ncid, &w->image);
	if (rc == NC_NOERR)
		w->ncid = -1;
	nc_check(w, rc, "nc_close_memio", w->path);
	w->t->close = now_s() - t0;
}

/*
 * The image's length by its HDF5 superblock: the core driver hands back
 * its whole buffer, which runs up to an allocation increment past the
 * data (zeros).  The end-of-file address, relative to the base address,
 * is at byte 40 (superblock version 0), 44 (1) or 28 (2, 3) when
 * addresses are 8 bytes; any other layout keeps the whole buffer.
 */
size_t west_netcdf_image_length(const void *memory, size_t size)
{
	static const unsigned char sig[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
	const NC_memio mm = { size, (void *)memory, 0 }, *m = &mm;
	const unsigned char *p = m->memory;
	size_t base_at, eof_at;
	uint64_t base = 0, eof = 0;

	if (m->size < 64 || memcmp(p, sig, sizeof sig) != 0)
		return m->size;
	if ((p[8] == 0 || p[8] == 1) && p[13] == 8)
		base_at = p[8] ? 28 : 24, eof_at = base_at + 16;
	else if ((p[8] == 2 || p[8] == 3) && p[9] == 8)
		base_at = 12, eof_at = 28;
	else
		return m->size;
	for (int k = 7; k >= 0; k--) {
		base = base << 8 | p[base_at + (size_t)k];
		eof = eof << 8 | p[eof_at + (size_t)k];
	}
	return base == 0 && eof >= 64 && eof <= m->size ? (size_t)eof : m->size;
}

static pthread_mutex_t netcdf_lock = PTHREAD_MUTEX_INITIALIZER;

void west_netcdf_lock(void)
{
	pthread_mutex_lock(&netcdf_lock);
}

void west_netcdf_unlock(void)
{
	pthread_mutex_unlock(&netcdf_lock);
}

/* After a failure: abort NetCDF (the final path is left as it was). */
static void discard(struct snap_writer *w)
{
	if (w->ncid >= 0)
		nc_abort(w->ncid);
	w->ncid = -1;
}

static enum west_status check_args(const struct west_grid *g, const struct west_field *f,
				   const struct west_obs_set *obs, const char *path,
				   char *err, size_t errlen)
{
	if (f->nx != g->nx || f->ny != g->ny || f->nz != g->nz)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: field is %zu x %zu x %zu cells but the grid %zu x %zu x %zu",
				 path, f->nx, f->ny, f->nz, g->nx, g->ny, g->nz);
	if (!f->u || !f->v || !f->w || !f->stability)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: field has no data", path);
	if (obs->n > 0 && !obs->obs)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: observation set of %zu stations has no records", path, obs->n);
	return WEST_OK;
}

static enum west_status check_opts(const struct west_snapshot_opts *o, const char *path,
				   char *err, size_t errlen)
{
	if (o->layout == WEST_SNAPSHOT_CONTIGUOUS && o->deflate > 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: a contiguous variable cannot be deflated", path);
	if (o->layout == WEST_SNAPSHOT_COLUMNS && o->chunk_xy == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: chunks of 0 columns", path);
	return WEST_OK;
}

enum west_status west_snapshot_write(const char *path, const struct west_grid *g,
				     const struct west_field *f,
				     const struct west_obs_set *obs,
				     char *err, size_t errlen)
{
	return west_snapshot_write_opts(path, g, f, obs, &west_snapshot_opts_default, NULL,
					err, errlen);
}

enum west_status west_snapshot_write_opts(const char *path, const struct west_grid *g,
					  const struct west_field *f,
					  const struct west_obs_set *obs,
					  const struct west_snapshot_opts *o,
					  struct west_snapshot_times *times,
					  char *err, size_t errlen)
{
	static const struct west_obs_set none = { 0 };
	struct west_snapshot_times tt = { 0 };
	double t0 = now_s(), t1;
	struct snap_writer w = {
		.path = path, .o = o, .t = &tt, .g = g, .f = f, .obs = obs ? obs : &none,
		.ncid = -1, .var_crs = -1, .err = err, .errlen = errlen,
		.has_crs = g->crs.grid_mapping_name[0] != '\0',
		.has_lonlat = g->crs.has_tm,
	};

	w.st = check_args(g, f, w.obs, path, err, errlen);
	if (w.st == WEST_OK)
		w.st = check_opts(o, path, err, errlen);
	west_netcdf_lock();
	if (w.st == WEST_OK)
		build_image(&w);
	if (w.st != WEST_OK)
		discard(&w);
	west_netcdf_unlock();
	t1 = now_s();
	if (w.st == WEST_OK)
		w.st = west_file_replace(path, w.image.memory,
					 west_netcdf_image_length(w.image.memory, w.image.size),
					 SNAPSHOT_MODE, err, errlen);
	free(w.image.memory);
	tt.file = now_s() - t1;
	tt.total = now_s() - t0;
	if (times)
		*times = tt;
	return w.st;
}

/* =========================================================== reader */

struct snap_reader {
	const char *path;
	int ncid;
	struct west_snapshot *s;
	char *err;
	size_t errlen;
};

static enum west_status rd_fail(const struct snap_reader *r, const char *call,
				const char *what, int rc)
{
	return west_fail(r->err, r->errlen, WEST_ERR_NETCDF, "%s: %s '%s': %s",
			 r->path, call, what, nc_strerror(rc));
}

static enum west_status rd_open(struct snap_reader *r)
{
	/* a classic file's header first: libnetcdf allocates what it declares
	 * (nc_header.h); snapshots themselves are NetCDF-4 */
	enum west_status s = west_nc_header_check(r->path, 0, r->err, r->errlen);
	int rc = s == WEST_OK ? nc_open(r->path, NC_NOWRITE, &r->ncid) : NC_NOERR;

	if (s != WEST_OK) {
		r->ncid = -1;
		return s;
	}
	if (rc == NC_NOERR)
		return WEST_OK;
	r->ncid = -1;
	if (rc > 0) /* a system error */
		return west_fail(r->err, r->errlen, WEST_ERR_IO, "%s: cannot open: %s",
				 r->path, nc_strerror(rc));
	if (rc == NC_ENOTNC)
		return west_fail(r->err, r->errlen, WEST_ERR_INVALID,
				 "%s: not a NetCDF file (%s)", r->path, nc_strerror(rc));
	return rd_fail(r, "nc_open", r->path, rc);
}

/* The id of a required variable; a missing one means not a snapshot. */
static enum west_status rd_varid(const struct snap_reader *r, const char *name, int *var)
{
	int rc = nc_inq_varid(r->ncid, name, var);

	if (rc == NC_ENOTVAR)
		return west_fail(r->err, r->errlen, WEST_ERR_INVALID,
				 "%s: not a westd snapshot: variable '%s' is missing",
				 r->path, name);
	return rc == NC_NOERR ? WEST_OK : rd_fail(r, "nc_inq_varid", name, rc);
}

/* "(a, b, c)" of n lengths. */
static void shape_str(const size_t *len, int n, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int d = 0; d < n && used < size; d++)
		used += (size_t)snprintf(buf + used, size - used, "%s%zu", d ? ", " : "", len[d]);
}

/* Variable `name` must have exactly the dimension lengths want[0..ndims). */
static enum west_status rd_shape(const struct snap_reader *r, const char *name,
				 int ndims, const size_t *want, int *var)
{
	int dims[NC_MAX_VAR_DIMS], nd, rc;
	size_t len[NC_MAX_VAR_DIMS];
	char have_s[128], want_s[128];
	enum west_status st = rd_varid(r, name, var);

	if (st != WEST_OK)
		return st;
	rc = nc_inq_varndims(r->ncid, *var, &nd);
	if (rc == NC_NOERR)
		rc = nc_inq_vardimid(r->ncid, *var, dims);
	for (int d = 0; d < nd && rc == NC_NOERR; d++)
		rc = nc_inq_dimlen(r->ncid, dims[d], &len[d]);
	if (rc != NC_NOERR)
		return rd_fail(r, "nc_inq_var", name, rc);
	if (nd == ndims && memcmp(len, want, (size_t)nd * sizeof *len) == 0)
		return WEST_OK;
	shape_str(len, nd, have_s, sizeof have_s);
	shape_str(want, ndims, want_s, sizeof want_s);
	return west_fail(r->err, r->errlen, WEST_ERR_INVALID,
			 "%s: variable '%s' has shape (%s); the snapshot's x_wind needs (%s)",
			 r->path, name, have_s, want_s);
}

/* Attribute `name` of var; missing: WEST_ERR_INVALID naming "var:name". */
static enum west_status rd_att(const struct snap_reader *r, int var, const char *name,
			       int want_text, nc_type *type, size_t *len)
{
	char vname[NC_MAX_NAME + 1] = "";
	int rc = nc_inq_att(r->ncid, var, name, type, len);
	int text = rc == NC_NOERR && (*type == NC_CHAR || *type == NC_STRING);

	if (var != NC_GLOBAL)
		nc_inq_varname(r->ncid, var, vname);
	if (rc != NC_NOERR && rc != NC_ENOTATT)
		return rd_fail(r, "nc_inq_att", name, rc);
	if (rc == NC_ENOTATT)
		return west_fail(r->err, r->errlen, WEST_ERR_INVALID,
				 "%s: attribute '%s:%s' is missing", r->path, vname, name);
	if (text != want_text || (!text && *len != 1))
		return west_fail(r->err, r->errlen, WEST_ERR_INVALID,
				 "%s: attribute '%s:%s' is not %s", r->path, vname, name,
				 want_text ? "text" : "a single number");
	return WEST_OK;
}

static enum west_status rd_double(const struct snap_reader *r, int var, const char *name,
				  double *v)
{
	nc_type type;
	size_t len;
	enum west_status st = rd_att(r, var, name, 0, &type, &len);
	int rc = st == WEST_OK ? nc_get_att_double(r->ncid, var, name, v) : NC_NOERR;

	return st != WEST_OK ? st : rc != NC_NOERR ? rd_fail(r, "nc_get_att", name, rc) : WEST_OK;
}

static enum west_status rd_int64(const struct snap_reader *r, int var, const char *name,
				 long long *v)
{
	nc_type type;
	size_t len;
	enum west_status st = rd_att(r, var, name, 0, &type, &len);
	int rc = st == WEST_OK ? nc_get_att_longlong(r->ncid, var, name, v) : NC_NOERR;

	return st != WEST_OK ? st : rc != NC_NOERR ? rd_fail(r, "nc_get_att", name, rc) : WEST_OK;
}

/* A text attribute (NC_CHAR, or the first NC_STRING) into buf, truncated. */
static enum west_status rd_text(const struct snap_reader *r, int var, const char *name,
				char *buf, size_t size)
{
	nc_type type;
	size_t len;
	enum west_status st = rd_att(r, var, name, 1, &type, &len);
	char *tmp = NULL, **strs = NULL;
	int rc = NC_NOERR;

	if (st != WEST_OK)
		return st;
	if (type == NC_CHAR && (tmp = calloc(len + 1, 1)) != NULL)
		rc = len ? nc_get_att_text(r->ncid, var, name, tmp) : NC_NOERR;
	else if (type == NC_STRING && (strs = calloc(len ? len : 1, sizeof *strs)) != NULL)
		rc = nc_get_att_string(r->ncid, var, name, strs);
	else
		rc = NC_ENOMEM;
	if (rc == NC_NOERR)
		snprintf(buf, size, "%s", tmp ? tmp : len && strs[0] ? strs[0] : "");
	if (strs && rc == NC_NOERR)
		nc_free_string(len, strs);
	free(strs);
	free(tmp);
	return rc != NC_NOERR ? rd_fail(r, "nc_get_att", name, rc) : WEST_OK;
}

static enum west_status rd_alloc(const struct snap_reader *r, void **p, size_t n,
				 size_t size, const char *what)
{
	enum west_status st = west_check_alloc(n, size, what, r->err, r->errlen);

	if (st != WEST_OK)
		return st;
	*p = malloc(n ? n * size : 1);
	if (!*p)
		return west_fail(r->err, r->errlen, WEST_ERR_NOMEM,
				 "%s: cannot allocate %zu values for '%s'", r->path, n, what);
	return WEST_OK;
}

/* Sizes from x_wind (time, z, y, x); time must be 1 long. */
static enum west_status rd_sizes(struct snap_reader *r)
{
	struct west_snapshot *s = r->s;
	int var, dims[4], nd, rc;
	size_t len[4];
	enum west_status st = rd_varid(r, "x_wind", &var);

	if (st != WEST_OK)
		return st;
	rc = nc_inq_varndims(r->ncid, var, &nd);
	if (rc == NC_NOERR && nd != 4)
		return west_fail(r->err, r->errlen, WEST_ERR_INVALID,
				 "%s: variable 'x_wind' has %d dimensions; expected (time, z, y, x)",
				 r->path, nd);
	if (rc == NC_NOERR)
		rc = nc_inq_vardimid(r->ncid, var, dims);
	for (int d = 0; d < 4 && rc == NC_NOERR; d++)
		rc = nc_inq_dimlen(r->ncid, dims[d], &len[d]);
	if (rc != NC_NOERR)
		return rd_fail(r, "nc_inq_var", "x_wind", rc);
	if (len[0] != 1)
		return west_fail(r->err, r->errlen, WEST_ERR_INVALID,
				 "%s: variable 'x_wind' holds %zu times; a snapshot holds 1",
				 r->path, len[0]);
	s->nz = len[1], s->ny = len[2], s->nx = len[3];
	return WEST_OK;
}

static enum west_status rd_axis(struct snap_reader *r, const char *name, size_t n,
				double **out)
{
	int var;
	enum west_status st = rd_shape(r, name, 1, &n, &var);

	if (st == WEST_OK)
		st = rd_alloc(r, (void **)out, n, sizeof **out, name);
	if (st == WEST_OK) {
		int rc = nc_get_var_double(r->ncid, var, *out);
		if (rc != NC_NOERR)
			st = rd_fail(r, "nc_get_var", name, rc);
	}
	return st;
}

static enum west_status rd_coords(struct snap_reader *r)
{
	struct west_snapshot *s = r->s;
	size_t one = 1;
	double t;
	int var, rc;
	enum west_status st = rd_axis(r, "x", s->nx, &s->x);

	if (st == WEST_OK)
		st = rd_axis(r, "y", s->ny, &s->y);
	if (st == WEST_OK)
		st = rd_axis(r, "z", s->nz, &s->z);
	if (st == WEST_OK && (st = rd_varid(r, "z", &var)) == WEST_OK)
		st = rd_double(r, var, "base_altitude", &s->base_altitude);
	if (st == WEST_OK)
		st = rd_shape(r, "time", 1, &one, &var);
	if (st != WEST_OK)
		return st;
	rc = nc_get_var_double(r->ncid, var, &t);
	if (rc != NC_NOERR)
		return rd_fail(r, "nc_get_var", "time", rc);
	s->time = (long long)llround(t);
	return WEST_OK;
}

/* A wind variable, NaN where it holds its _FillValue. */
static enum west_status rd_wind(struct snap_reader *r, const char *name, float **out)
{
	const struct west_snapshot *s = r->s;
	size_t len[4] = { 1, s->nz, s->ny, s->nx }, n = s->nx * s->ny * s->nz;
	float fill = SNAP_FILL;
	int var, rc;
	enum west_status st = rd_shape(r, name, 4, len, &var);

	if (st == WEST_OK)
		st = rd_alloc(r, (void **)out, n, sizeof **out, name);
	if (st != WEST_OK)
		return st;
	rc = nc_get_var_float(r->ncid, var, *out);
	if (rc == NC_NOERR) {
		int f = nc_get_att_float(r->ncid, var, "_FillValue", &fill);
		rc = f == NC_ENOTATT ? NC_NOERR : f;
	}
	if (rc != NC_NOERR)
		return rd_fail(r, "nc_get_var", name, rc);
	for (size_t c = 0; c < n; c++)
		if ((*out)[c] == fill || (isnan(fill) && isnan((*out)[c])))
			(*out)[c] = NAN;
	return WEST_OK;
}

/* A byte variable of the given shape as unsigned char. */
static enum west_status rd_bytes(struct snap_reader *r, const char *name, int ndims,
				 const size_t *len, size_t n, unsigned char **out)
{
	int var, rc;
	enum west_status st = rd_shape(r, name, ndims, len, &var);

	if (st == WEST_OK)
		st = rd_alloc(r, (void **)out, n, 1, name);
	if (st != WEST_OK)
		return st;
	rc = nc_get_var_uchar(r->ncid, var, *out);
	return rc != NC_NOERR ? rd_fail(r, "nc_get_var", name, rc) : WEST_OK;
}

static enum west_status rd_grid(struct snap_reader *r)
{
	struct west_snapshot *s = r->s;
	size_t len[3] = { s->nz, s->ny, s->nx }, n2 = s->nx * s->ny;
	enum west_status st = west_check_alloc(n2 * s->nz, 3 * sizeof(float) + 1,
					       r->path, r->err, r->errlen);
	int var, rc;

	if (st == WEST_OK)
		st = rd_wind(r, "x_wind", &s->u);
	if (st == WEST_OK)
		st = rd_wind(r, "y_wind", &s->v);
	if (st == WEST_OK)
		st = rd_wind(r, "upward_air_velocity", &s->w);
	if (st == WEST_OK)
		st = rd_bytes(r, "land_mask", 3, len, n2 * s->nz, &s->land);
	if (st == WEST_OK)
		st = rd_bytes(r, "stability_class", 2, len + 1, n2, &s->stability);
	if (st == WEST_OK)
		st = rd_shape(r, "surface_altitude", 2, len + 1, &var);
	if (st == WEST_OK)
		st = rd_alloc(r, (void **)&s->terrain, n2, sizeof *s->terrain, "surface_altitude");
	if (st != WEST_OK)
		return st;
	rc = nc_get_var_float(r->ncid, var, s->terrain);
	return rc != NC_NOERR ? rd_fail(r, "nc_get_var", "surface_altitude", rc) : WEST_OK;
}

static enum west_status rd_station_doubles(struct snap_reader *r, size_t n)
{
	struct west_obs *o = r->s->obs.obs;
	double *v = NULL;
	enum west_status st = rd_alloc(r, (void **)&v, n, sizeof *v, "station");

	for (size_t k = 0; k < NSTATION_DOUBLES && st == WEST_OK; k++) {
		int var, rc;
		st = rd_shape(r, station_doubles[k].name, 1, &n, &var);
		rc = st == WEST_OK ? nc_get_var_double(r->ncid, var, v) : NC_NOERR;
		if (rc != NC_NOERR)
			st = rd_fail(r, "nc_get_var", station_doubles[k].name, rc);
		for (size_t s = 0; s < n && st == WEST_OK; s++)
			*(double *)((char *)&o[s] + station_doubles[k].offset) = v[s];
	}
	free(v);
	return st;
}

static enum west_status rd_station_ids(struct snap_reader *r, size_t n)
{
	struct west_obs *o = r->s->obs.obs;
	char **ids = NULL;
	int var, rc;
	enum west_status st = rd_shape(r, "station_id", 1, &n, &var);

	if (st == WEST_OK)
		st = rd_alloc(r, (void **)&ids, n, sizeof *ids, "station_id");
	if (st != WEST_OK)
		return st;
	rc = nc_get_var_string(r->ncid, var, ids);
	if (rc == NC_NOERR) {
		for (size_t s = 0; s < n; s++)
			snprintf(o[s].id, sizeof o[s].id, "%s", ids[s] ? ids[s] : "");
		nc_free_string(n, ids);
	}
	free(ids);
	return rc != NC_NOERR ? rd_fail(r, "nc_get_var", "station_id", rc) : WEST_OK;
}

/* station_time and station_stability; the set's valid time is the latest. */
static enum west_status rd_station_misc(struct snap_reader *r, size_t n)
{
	struct west_obs_set *set = &r->s->obs;
	long long *t = NULL;
	unsigned char *stab = NULL;
	int tvar, svar, rc = NC_NOERR;
	enum west_status st = rd_shape(r, "station_time", 1, &n, &tvar);

	if (st == WEST_OK)
		st = rd_shape(r, "station_stability", 1, &n, &svar);
	if (st == WEST_OK)
		st = rd_alloc(r, (void **)&t, n, sizeof *t, "station_time");
	if (st == WEST_OK)
		st = rd_alloc(r, (void **)&stab, n, 1, "station_stability");
	if (st == WEST_OK && (rc = nc_get_var_longlong(r->ncid, tvar, t)) != NC_NOERR)
		st = rd_fail(r, "nc_get_var", "station_time", rc);
	if (st == WEST_OK && (rc = nc_get_var_uchar(r->ncid, svar, stab)) != NC_NOERR)
		st = rd_fail(r, "nc_get_var", "station_stability", rc);
	for (size_t s = 0; s < n && st == WEST_OK; s++) {
		set->obs[s].time = t[s];
		set->obs[s].stability = stab[s];
		if (s == 0 || t[s] > set->valid_time)
			set->valid_time = t[s];
	}
	free(t);
	free(stab);
	return st;
}

/* The observations; no station dimension means an empty set. */
static enum west_status rd_stations(struct snap_reader *r)
{
	struct west_obs_set *set = &r->s->obs;
	int dim, rc = nc_inq_dimid(r->ncid, "station", &dim);
	size_t n;
	enum west_status st;

	if (rc == NC_EBADDIM)
		return WEST_OK;
	if (rc == NC_NOERR)
		rc = nc_inq_dimlen(r->ncid, dim, &n);
	if (rc != NC_NOERR)
		return rd_fail(r, "nc_inq_dim", "station", rc);
	st = west_check_alloc(n, sizeof *set->obs, "station", r->err, r->errlen);
	if (st != WEST_OK)
		return st;
	set->obs = calloc(n ? n : 1, sizeof *set->obs);
	if (!set->obs)
		return west_fail(r->err, r->errlen, WEST_ERR_NOMEM,
				 "%s: cannot allocate %zu stations", r->path, n);
	set->n = n;
	for (size_t s = 0; s < n; s++)
		set->obs[s].inv_L = set->obs[s].z0 = NAN;
	st = rd_station_ids(r, n);
	if (st == WEST_OK)
		st = rd_station_doubles(r, n);
	if (st == WEST_OK)
		st = rd_station_misc(r, n);
	return st;
}

static enum west_status rd_report(struct snap_reader *r)
{
	struct west_report *rep = &r->s->report;
	char *base = (char *)rep, name[64];
	long long v;
	enum west_status st = WEST_OK;

	for (size_t k = 0; k < NELEMS(report_texts) && st == WEST_OK; k++)
		st = rd_text(r, NC_GLOBAL, report_texts[k].name, base + report_texts[k].offset,
			     report_texts[k].size);
	for (size_t k = 0; k < NELEMS(report_doubles) && st == WEST_OK; k++)
		st = rd_double(r, NC_GLOBAL, report_doubles[k].name,
			       (double *)(base + report_doubles[k].offset));
	for (int s = 0; s < WEST_NSTEPS && st == WEST_OK; s++) {
		step_att_name(s, name, sizeof name);
		st = rd_double(r, NC_GLOBAL, name, &rep->step_seconds[s]);
	}
	if (st == WEST_OK && (st = rd_int64(r, NC_GLOBAL, "west_iterations_max", &v)) == WEST_OK)
		rep->iterations_max = (long)v;
	if (st == WEST_OK && (st = rd_int64(r, NC_GLOBAL, "west_iterations", &v)) == WEST_OK)
		rep->iterations = (long)v;
	if (st == WEST_OK && (st = rd_int64(r, NC_GLOBAL, "west_converged", &v)) == WEST_OK)
		rep->converged = (int)v;
	return st;
}

/* Conventions, and the grid_mapping_name that x_wind's grid_mapping names. */
static enum west_status rd_mapping(struct snap_reader *r)
{
	struct west_snapshot *s = r->s;
	char gm[NC_MAX_NAME + 1];
	int var, gvar, rc;
	enum west_status st = rd_text(r, NC_GLOBAL, "Conventions", s->conventions,
				      sizeof s->conventions);

	if (st == WEST_OK)
		st = rd_varid(r, "x_wind", &var);
	if (st != WEST_OK || nc_inq_att(r->ncid, var, "grid_mapping", NULL, NULL) == NC_ENOTATT)
		return st;
	st = rd_text(r, var, "grid_mapping", gm, sizeof gm);
	if (st != WEST_OK)
		return st;
	rc = nc_inq_varid(r->ncid, gm, &gvar);
	if (rc != NC_NOERR)
		return west_fail(r->err, r->errlen, WEST_ERR_INVALID,
				 "%s: variable 'x_wind' names grid_mapping '%s', which the file lacks",
				 r->path, gm);
	return rd_text(r, gvar, "grid_mapping_name", s->grid_mapping, sizeof s->grid_mapping);
}

enum west_status west_snapshot_read(const char *path, struct west_snapshot *s,
				    char *err, size_t errlen)
{
	struct snap_reader r = { .path = path, .ncid = -1, .s = s, .err = err, .errlen = errlen };
	enum west_status st;
	int var;

	memset(s, 0, sizeof *s);
	west_netcdf_lock();
	st = rd_open(&r);
	for (size_t k = 0; k < NELEMS(required_vars) && st == WEST_OK; k++)
		st = rd_varid(&r, required_vars[k], &var);
	if (st == WEST_OK)
		st = rd_sizes(&r);
	if (st == WEST_OK)
		st = rd_coords(&r);
	if (st == WEST_OK)
		st = rd_grid(&r);
	if (st == WEST_OK)
		st = rd_stations(&r);
	if (st == WEST_OK)
		st = rd_report(&r);
	if (st == WEST_OK)
		st = rd_mapping(&r);
	if (r.ncid >= 0)
		nc_close(r.ncid);
	west_netcdf_unlock();
	if (st != WEST_OK)
		west_snapshot_free(s);
	return st;
}

void west_snapshot_free(struct west_snapshot *s)
{
	free(s->x);
	free(s->y);
	free(s->z);
	free(s->u);
	free(s->v);
	free(s->w);
	free(s->terrain);
	free(s->land);
	free(s->stability);
	free(s->obs.obs);
	memset(s, 0, sizeof *s);
}
