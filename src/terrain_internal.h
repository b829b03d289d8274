/*
 * terrain_internal.h: what terrain.c shares with the readers terrain_asc.c
 * and terrain_nc.c; not part of libwest's API.
 *
 * Every reader follows one sequence: learn nx, ny from the header or the
 * dimensions, call west_dem_check_size BEFORE allocating anything of that
 * size, read values through west_dem_height_ok (failing with
 * west_dem_height_fail, which appends the problem to the reader's location
 * text), mark NODATA cells in a `valid` array (1 = data, 0 = hole; the
 * ASCII reader allocates it at the first hole) and finish with
 * west_dem_nodata_finish.  On any failure the reader calls west_dem_free,
 * which leaves the DEM zeroed.
 * Heights are metres above the datum.
 */
#ifndef WEST_TERRAIN_INTERNAL_H
#define WEST_TERRAIN_INTERNAL_H

#include <stddef.h>

#include "terrain.h"

#define WEST_DEM_ZMIN (-12000.0) /* m; below the deepest ocean trench */
#define WEST_DEM_ZMAX 10000.0    /* m; above the highest summit */

/* opts, or the defaults (refuse NODATA, auto variable, no cell limit). */
const struct west_dem_opts *west_dem_opts_or_default(const struct west_dem_opts *opts);

/*
 * Refuse an nx x ny raster before allocating it: not positive, more than
 * opts->max_cells cells (WEST_ERR_INVALID), or more than the machine holds
 * as floats plus one flag byte per cell (WEST_ERR_NOMEM).  Messages start
 * with `path`.
 */
enum west_status west_dem_check_size(const char *path, size_t nx, size_t ny,
				     const struct west_dem_opts *opts,
				     char *err, size_t errlen);

/* Finite and within [WEST_DEM_ZMIN, WEST_DEM_ZMAX]; NaN fails both tests. */
static inline int west_dem_height_ok(double v)
{
	return v >= WEST_DEM_ZMIN && v <= WEST_DEM_ZMAX;
}

/*
 * Message for a value that failed west_dem_height_ok: the location from
 * fmt, then "is not finite" or "(V m) is outside [-12000, 10000] m".
 * Returns WEST_ERR_INVALID.
 */
enum west_status west_dem_height_fail(double v, char *err, size_t errlen,
				      const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Apply opts->nodata to `nholes` holes flagged 0 in `valid` (NULL when
 * there are none).  `where` starts the messages ("FILE" or "FILE: variable
 * 'Band1'"), `first` locates the first hole ("row 2, column 7").  Refuse:
 * WEST_ERR_INVALID naming both.  Fill: west_dem_fill_nodata and a warning
 * in the log.  Frees `valid` in every case.
 */
enum west_status west_dem_nodata_finish(struct west_dem *dem, unsigned char *valid,
					size_t nholes, const char *where,
					const char *first,
					const struct west_dem_opts *opts,
					char *err, size_t errlen);

/*
 * Does `head`, the first n bytes of a file, start (after white space) with
 * an ESRI ASCII grid header key such as ncols?  (terrain_asc.c)
 */
int west_dem_asc_header(const char *head, size_t n);

/*
 * Refuse a CRS text (a .prj: WKT1, WKT2 or the older ArcInfo form) whose
 * x, y are not metres: geographic or geocentric, or a projection whose
 * linear unit is not 1 m (feet, US survey feet).  No reader converts units,
 * so such a DEM would be solved at the wrong size.  `where` starts the
 * message ("FILE.asc: FILE.prj"), which carries the reprojection hint.
 * Text that is not understood is accepted with a warning in the log.
 * WEST_ERR_UNSUPPORTED (the status every reader gives a CRS not in metres:
 * west_dem_load reads such a DEM through GDAL, warped, where it is built)
 * or WEST_OK (terrain_wkt.c).
 */
enum west_status west_dem_check_crs(const char *text, const char *where,
				    char *err, size_t errlen);

/*
 * The ellipsoid a transverse Mercator CRS projects on must be the one
 * proj.c projects on, WGS 84's, or GRS 1980's (0.1 mm from it; the datums
 * on it, NAD83 and ETRS89, lie 1 to 2 m from WGS 84), or longitudes and
 * latitudes land tens to hundreds of metres off (OSGB 1936 on Airy 1830,
 * ED50 on International 1924, NAD27 on Clarke 1866).
 * west_ellipsoid_is_wgs84: semi-major axis a (m) and inverse flattening rf.
 * west_wkt_ellipsoid_ok: 1 when the WKT names WGS 84's or GRS 1980's
 * ellipsoid, or none; 0 for another, with its name in name (terrain_wkt.c).
 */
int west_ellipsoid_is_wgs84(double a, double rf);
int west_wkt_ellipsoid_ok(const char *wkt, char *name, size_t size);

#endif
