/*
 * terrain.h: digital elevation models (DEM) as libwest reads them.
 *
 * A DEM is a regular raster of ground altitudes (m above the datum) in a
 * projected CRS whose units are metres.  Layout: z[j * nx + i], i = 0 the
 * westernmost column, j = 0 the SOUTHERNMOST row (files that store the
 * north row first are flipped on load).  (x0, y0) is the outer lower-left
 * corner of cell (0, 0), so cell (i, j) has its centre at
 * (x0 + (i + 0.5) dx, y0 + (j + 0.5) dy).
 *
 * Readers:
 *  - ESRI ASCII grid (.asc): header ncols, nrows, xllcorner|xllcenter,
 *    yllcorner|yllcenter, cellsize (or dx and dy), optional NODATA_value,
 *    keys in any case; then nrows lines of ncols numbers, north row first.
 *    A FILE.prj beside FILE.asc, when present, is kept as the CRS WKT;
 *    one that is geographic (degrees) or in another linear unit than the
 *    metre (feet) refuses the DEM, before the raster is allocated.
 *  - CF NetCDF raster as `gdal_translate -of netCDF` writes it: 1D
 *    coordinate variables x and y (or any pair with standard_name
 *    projection_x/y_coordinate), evenly spaced, in metres, either order;
 *    one 2D (y, x) elevation variable (named by opts->variable, else the one
 *    2D variable on those dimensions, preferring standard_name
 *    surface_altitude or height); _FillValue / missing_value are NODATA;
 *    scale_factor / add_offset applied; the grid_mapping variable kept.
 *    lon/lat axes, grid_mapping latitude_longitude, or a crs_wkt /
 *    spatial_ref not in metres refuse the DEM.
 *  - With GDAL (configure --with-gdal): GeoTIFF and any other raster GDAL
 *    opens, band 1, in any CRS (terrain_gdal.c).  A raster in a transverse
 *    Mercator on WGS 84 in metres is read as it is; any other CRS is warped
 *    to WGS 84 / UTM (the zone of the raster's centre, or opts->epsg) over
 *    the largest north-up rectangle inside the raster, at opts->resolution
 *    (0: the shorter side of its pixels in metres).  Heights in feet are
 *    converted.
 *    Without GDAL such a file is refused with WEST_ERR_UNSUPPORTED and the
 *    way to convert it or rebuild.
 *
 * Dispatch (west_dem_load): NetCDF by its magic bytes; ESRI ASCII by the
 * .asc name or a first word that is a header key; anything else to GDAL
 * (without GDAL: text to the ESRI ASCII reader, for its messages, binary
 * refused as above).
 *
 * Load rules (every failure names the file and line or variable, and
 * nothing is returned): counts must match the header exactly; values must
 * be finite numbers within [-12000, 10000] m; sizes are checked against
 * opts->max_cells and the machine's memory before anything is allocated;
 * NODATA cells are refused, or with WEST_NODATA_FILL filled (see
 * west_dem_fill_nodata) with a warning in the log.
 *
 * Ownership: loaders and west_dem_resample overwrite *dem without freeing
 * what it held, and leave it zeroed on failure; opts may be NULL (refuse
 * NODATA, automatic variable, no cell limit).
 */
#ifndef WEST_TERRAIN_H
#define WEST_TERRAIN_H

#include <stddef.h>

#include "status.h"

/* A DEM's NODATA cells (config nodata): refused, or filled. */
enum west_nodata_rule { WEST_NODATA_REFUSE, WEST_NODATA_FILL };

/* The grid mapping as CF describes it; empty name when the file has none. */
struct west_crs {
	char grid_mapping_name[64]; /* e.g. "transverse_mercator" */
	char *wkt;                  /* crs_wkt / spatial_ref / .prj, or NULL */
	int has_tm;                 /* the five parameters below are set, in range
				     * (west_tm_params_ok, proj.h), on WGS 84's
				     * ellipsoid: longitudes and latitudes */
	int tm_other_ellipsoid;     /* the same on another ellipsoid: no
				     * longitude and latitude, but the meridian
				     * convergence, which the ellipsoid changes by
				     * far less than 0.01 degree */
	double lon0;                /* longitude_of_central_meridian (deg) */
	double lat0;                /* latitude_of_projection_origin (deg) */
	double k0;                  /* scale_factor_at_central_meridian */
	double false_easting, false_northing; /* m */
};

struct west_dem {
	size_t nx, ny;    /* columns (west to east), rows (south to north) */
	double dx, dy;    /* cell size (m) */
	double x0, y0;    /* outer lower-left corner (m) */
	float *z;         /* altitude (m), z[j * nx + i] */
	struct west_crs crs;
};

struct west_dem_opts {
	enum west_nodata_rule nodata;
	const char *variable;   /* NetCDF elevation variable, NULL or "" = auto */
	unsigned long long max_cells; /* refuse rasters with more cells; 0 = no limit */
	long epsg;              /* GDAL: the CRS to warp to; 0 = the centre's UTM zone */
	double resolution;      /* GDAL warp: cell size (m); 0 = the raster's pixel */
	double timeout;         /* west_dem_load_child: s before the reader is
				 * stopped and the DEM refused; 0 = no limit */
};

/* Pick the reader (see Dispatch above). */
enum west_status west_dem_load(struct west_dem *dem, const char *path,
			       const struct west_dem_opts *opts,
			       char *err, size_t errlen);
enum west_status west_dem_load_asc(struct west_dem *dem, const char *path,
				   const struct west_dem_opts *opts,
				   char *err, size_t errlen);
enum west_status west_dem_load_netcdf(struct west_dem *dem, const char *path,
				      const struct west_dem_opts *opts,
				      char *err, size_t errlen);
/* Without GDAL: WEST_ERR_UNSUPPORTED, saying how to convert or rebuild. */
enum west_status west_dem_load_gdal(struct west_dem *dem, const char *path,
				    const struct west_dem_opts *opts,
				    char *err, size_t errlen);

/*
 * west_dem_load in a child process (terrain_child.c): exe is an executable
 * whose main hands `exe --terrain-child ...` to west_dem_child_main (westd
 * is), so that a crash inside GDAL, PROJ or libnetcdf on a bad file kills
 * the child, not the caller: the DEM is then refused, the signal named.
 * The same result, bit for bit, as west_dem_load.
 */
enum west_status west_dem_load_child(struct west_dem *dem, const char *exe, const char *path,
				     const struct west_dem_opts *opts, char *err, size_t errlen);
/* The child's side: argv[0] "--terrain-child", then its arguments; the
 * exit code (0 when the answer, a DEM or a refusal, was written). */
int west_dem_child_main(int argc, char **argv);
/* This program's own path (/proc/self/exe) into buf, for a main that
 * hands --terrain-child to west_dem_child_main; 0, or -1 with errno and
 * buf "". */
int west_dem_reader_self(char *buf, size_t len);

/*
 * NODATA fill rule, applied in passes: every hole with at least one valid
 * 4-neighbour (as of the previous pass) takes the mean of those neighbours;
 * repeat until no hole is left.  `valid` is nx*ny flags (nonzero = data),
 * all 1 on return.  Fails when no cell is valid.  Returns the number of
 * cells filled in *filled.
 */
enum west_status west_dem_fill_nodata(struct west_dem *dem, unsigned char *valid,
				      size_t *filled, char *err, size_t errlen);

/*
 * Resample to cell size `res` (m) by bilinear interpolation of the cell
 * centres, covering the same extent: nx' = floor(nx dx / res), likewise ny'.
 * out must be distinct from in; the CRS is copied.
 */
enum west_status west_dem_resample(const struct west_dem *in, double res,
				   struct west_dem *out, char *err, size_t errlen);

/* Lowest and highest altitude. */
void west_dem_range(const struct west_dem *dem, float *zmin, float *zmax);

void west_dem_free(struct west_dem *dem);
void west_crs_free(struct west_crs *crs);

/* The EPSG code of crs (terrain_wkt.c): the top-level AUTHORITY["EPSG",..]
 * (WKT1) or ID["EPSG",..] (WKT2) of its WKT; else, for a WKT whose datum
 * is WGS 84 and a transverse Mercator with UTM's parameters (k0 0.9996,
 * lat0 0, false easting 500 km, false northing 0 or 10000 km, lon0 a
 * zone's central meridian), WGS 84 / UTM's code, 326zz or 327zz (an ESRI
 * .prj names no authority); else 0. */
unsigned long west_crs_epsg(const struct west_crs *crs);

/* A short name for crs into buf (terrain_wkt.c): the WKT's first quoted
 * name ("WGS_1984_UTM_Zone_33N"), else the CF grid_mapping_name, else "";
 * bytes that are not printable ASCII become '?'.  1 when a name was
 * found. */
int west_crs_name(const struct west_crs *crs, char *buf, size_t size);
enum west_status west_crs_copy(struct west_crs *dst, const struct west_crs *src,
			       char *err, size_t errlen);

#endif
