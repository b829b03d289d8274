/*
 * geotiff.h: GeoTIFF rasters written by libwest itself (no GDAL, no
 * libtiff), for GIS users: the wind at a height above the ground, one
 * pixel per column (`west run --geotiff`, GET /v1/field/slice?format=
 * geotiff; docs/design.md section 7).
 *
 * The file (geotiff.c gives the byte layout):
 *  - baseline TIFF 6.0, little-endian ("II"), one image (IFD), no
 *    compression, strips of whole rows (about 64 KiB each), the NORTH row
 *    first;
 *  - float32 samples (BitsPerSample 32, SampleFormat 3 IEEE float),
 *    pixel-interleaved (PlanarConfiguration 1: the baseline's, which
 *    every TIFF reader takes): SamplesPerPixel = bands,
 *    PhotometricInterpretation BlackIsZero, the bands after the first
 *    ExtraSamples "unspecified";
 *  - GeoTIFF 1.0 georeferencing: ModelPixelScaleTag (dx, dy, 0),
 *    ModelTiepointTag (pixel (0, 0) -> the OUTER upper-left corner of the
 *    raster), GeoKeyDirectoryTag with GTModelType Projected and
 *    GTRasterType PixelIsArea, and the CRS as below;
 *  - GDAL's private tags, which gdalinfo and QGIS read: GDAL_NODATA
 *    (42113, the nodata value as text) and GDAL_METADATA (42112, XML: the
 *    dataset's items, each band's description and unit).
 *
 * CRS (geotiff.c, crs_keys): when west_crs_epsg (terrain.h) finds an
 * EPSG code (the WKT's own, or WGS 84 / UTM recognised from a WKT on the
 * WGS 84 datum with UTM's transverse Mercator parameters),
 * ProjectedCSTypeGeoKey is that code; else a transverse Mercator (has_tm)
 * is written user-defined: ProjCoordTrans CT_TransverseMercator with its
 * five parameters, GeographicType 4326 (WGS 84, what proj.h computes on),
 * linear units metre; else only linear units metre: the raster is placed
 * but its CRS unknown to readers.  The CRS's name (west_crs_name) is the
 * citation (GTCitationGeoKey) whenever there is one.
 */
#ifndef WEST_GEOTIFF_H
#define WEST_GEOTIFF_H

#include <stddef.h>

#include "field.h"
#include "grid.h"
#include "query.h"
#include "status.h"
#include "terrain.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WEST_GEOTIFF_MAX_BANDS 16
#define WEST_GEOTIFF_NODATA -9999.0f  /* the wind raster's nodata value */

struct west_geotiff_band {
	const char *description;   /* GDAL band description (NULL: none) */
	const char *unit;          /* GDAL unit type (NULL: none) */
	const float *values;       /* nx * ny, [row * nx + col], row 0 the
				    * NORTHERNMOST; NaN is written as nodata */
};

struct west_geotiff {
	size_t nx, ny;             /* pixels: columns west to east, rows */
	size_t nbands;             /* 1 .. WEST_GEOTIFF_MAX_BANDS */
	const struct west_geotiff_band *bands;
	double x_ul, y_ul;         /* outer upper-left corner (CRS units, m) */
	double dx, dy;             /* pixel width and height (> 0) */
	const struct west_crs *crs;/* NULL: no CRS */
	float nodata;              /* finite; NaN samples are written as it */
	const char *const *metadata; /* dataset items "NAME=VALUE", NULL-
				      * terminated, or NULL */
	const char *software;      /* TIFF Software tag, or NULL */
};

/*
 * The file's bytes, malloc'd into *buf (*len bytes; the caller frees).
 * WEST_ERR_INVALID naming the member at fault for sizes of 0, too many
 * bands, a band without values, pixel sizes not finite and > 0, a corner
 * not finite, a nodata not finite, a metadata item without '=', or a file
 * of 4 GiB or more (classic TIFF offsets are 32-bit); WEST_ERR_NOMEM.
 */
enum west_status west_geotiff_encode(const struct west_geotiff *t, unsigned char **buf,
				     size_t *len, char *err, size_t errlen);

/* Encode and write to path atomically (fileio.h: temp file, fsync, mode
 * 0644, rename); errors as west_geotiff_encode's and west_file_replace's. */
enum west_status west_geotiff_write(const char *path, const struct west_geotiff *t,
				    char *err, size_t errlen);

/*
 * The wind of a slice (query.h, west_query_slice: every stride-th column
 * centre, z AGL or MSL) as a 4-band GeoTIFF, into *buf (*len bytes,
 * malloc'd):
 *   band 1 speed (m/s), 2 direction (degrees the wind blows FROM,
 *   clockwise from true north, [0, 360)), 3 u (eastward, m/s), 4 v
 *   (northward, m/s): the values the API answers, relative to true north
 *   when the grid's CRS is transverse Mercator (query.h), else to the
 *   grid's axes (the band descriptions say which);
 *   nodata WEST_GEOTIFF_NODATA where the point query has no answer (below
 *   the ground or above the top).
 * Pixels are stride dx by stride dy, centred on the sampled column
 * centres: with stride 1 the raster covers the domain exactly, its corner
 * (x0, y0 + ny dy).  Dataset metadata: HEIGHT ("10 m above ground" or
 * "... m above mean sea level"), VALID_TIME (UTC), then `extra`
 * ("NAME=VALUE", NULL-terminated, or NULL).  *valid (when not NULL) gets
 * the number of pixels with a value.  Errors: west_query_slice's, the
 * encoder's, WEST_ERR_NOMEM.
 */
enum west_status west_geotiff_wind(const struct west_grid *g, const struct west_field *f,
				   double z, enum west_zref zref, size_t stride,
				   const char *const *extra, unsigned char **buf,
				   size_t *len, size_t *valid, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
