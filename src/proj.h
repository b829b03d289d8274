/*
 * proj.h: the transverse Mercator projection on the WGS 84 ellipsoid, the
 * one map projection libwest computes itself (stations given in
 * longitude/latitude onto a UTM-like grid, and back for the solar
 * elevation).  The parameters are those of struct west_crs (terrain.h):
 * central meridian lon0, latitude of origin lat0 (degrees), scale k0 on the
 * central meridian, false easting and northing (m).
 *
 * Angles in degrees, longitudes east and latitudes north positive; x, y in
 * metres.  Points farther than WEST_TM_MAX_DLON degrees of longitude from
 * the central meridian are refused (see proj.c).
 */
#ifndef WEST_PROJ_H
#define WEST_PROJ_H

#include <stddef.h>

#include "status.h"
#include "terrain.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WEST_TM_MAX_DLON 35.0 /* degrees from the central meridian */

/* 1 when the five transverse Mercator parameters of crs are ones the
 * projection takes (k0 > 0, |lat0| <= 90, all finite), has_tm aside: the
 * DEM readers set has_tm only then. */
int west_tm_params_ok(const struct west_crs *crs);

/* Why crs gives no longitude and latitude (!has_tm), for messages: "the
 * terrain has no transverse Mercator CRS" or why its one is not used. */
const char *west_crs_no_lonlat(const struct west_crs *crs);

/* lon, lat (degrees, WGS 84) -> x, y (m).  Needs crs->has_tm. */
enum west_status west_tm_forward(const struct west_crs *crs, double lon, double lat,
				 double *x, double *y, char *err, size_t errlen);

/* x, y (m) -> lon, lat (degrees, WGS 84), lon in [-180, 180]. */
enum west_status west_tm_inverse(const struct west_crs *crs, double x, double y,
				 double *lon, double *lat, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
