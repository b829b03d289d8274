/*
 * terrain_gdal.c: rasters read through GDAL (terrain.h, west_dem_load_gdal),
 * built with configure --with-gdal: GeoTIFF first, and any raster GDAL
 * opens, in any CRS.  west_dem_load sends here what is not ESRI ASCII or
 * NetCDF; those two keep their own readers.
 *
 * The model's grid needs a transverse Mercator on WGS 84 in metres: lon/lat
 * queries, station positions and the meridian convergence go through
 * proj.c, which computes that projection only.  So:
 *  - A raster already in such a CRS (WGS 84 / UTM, EPSG:326NN and 327NN, or
 *    any transverse Mercator on WGS 84 in metres) is read as it is, unless
 *    opts->epsg names another one.  `resolution` is then applied by
 *    west_dem_resample (bilinear), as for the other readers.
 *  - Any other CRS (geographic degrees, Lambert, Albers, another datum or
 *    ellipsoid, US feet, ...) is warped, with GDAL's warper as gdalwarp
 *    runs it (GDALWarp into a MEM dataset), to opts->epsg or, when that is
 *    0, to WGS 84 / UTM in the zone of the raster's centre (6-degree zones
 *    without the Norway and Svalbard exceptions; 326NN north of the
 *    equator, 327NN south).  The output covers the largest north-up
 *    rectangle inside the raster's outline, so that no cell lies outside
 *    the data, with cell edges on multiples of the cell size (gdalwarp
 *    -tap).  The cell size is opts->resolution (the warp targets it
 *    directly: one interpolation, not two), else the shorter side of the
 *    raster's centre pixel in metres, so that neither axis is downsampled
 *    (GDAL's suggested size keeps the number of pixels, which downsamples
 *    one axis of a geographic raster, and GDAL's bilinear kernel then
 *    widens and errs by several times more).  Resampling: bilinear, or
 *    average when the cells are larger than that native size
 *    (downsampling).  Coordinates are transformed within a thousandth of a
 *    cell of the exact transformation (gdalwarp -et 0.001; GDAL's default
 *    0.125 would move a cell by up to 3 m at 25 m; exact costs 5 times as
 *    much: 4.3 against 0.9 s for a 1-degree tile of 1 arc-second), and
 *    overviews are not used (-ovr NONE).
 * opts->epsg must itself be a transverse Mercator on WGS 84 in metres, or
 * the DEM is refused.  The DEM carries the target CRS: its WKT (WKT1 as
 * GDAL exports it, without a vertical part) and the five parameters of
 * has_tm.
 *
 * Heights: band 1 (a warning when there are more), with the band's scale
 * and offset applied, as metres.  The vertical unit is the band's unit type
 * (GDALGetRasterUnitType) or the vertical CRS of a compound CRS: metres,
 * feet (0.3048 m) and US survey feet (1200/3937 m) are known and feet are
 * converted; another unit, or the two sources disagreeing, refuses the
 * DEM; neither given means metres.  NODATA: the band's NODATA value, and NaN
 * always, are holes for west_dem_nodata_finish (opts->nodata: refuse or
 * fill); in a warp, an output cell whose source cells are all NODATA is a
 * hole too.  Heights must be within [-12000, 10000] m after conversion.
 *
 * Everything is checked before a pixel is read: the file opens as a raster,
 * has a geotransform without rotation whose extent is finite, a CRS, a
 * real data type, a known vertical unit, and a size within opts->max_cells
 * (the file's, and a warp's output).  Every message starts with the path; GDAL's own reason
 * follows where it gave one.  GDAL's warnings go to the log.
 *
 * Threads: GDAL's drivers are registered once (pthread_once); a load uses
 * only its own datasets, and pushes GDAL's error handler for the calling
 * thread only.
 */
#include "terrain.h"
#include "terrain_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>
#include <gdal_alg.h>
#include <gdal_utils.h>
#include <ogr_srs_api.h>

#include "log.h"

#define EDGE_POINTS 65 /* points per edge when the outline is transformed */

/* The open raster and what was learnt from it before reading. */
struct gd_raster {
	const char *path;
	GDALDatasetH ds;
	GDALRasterBandH band;
	size_t nx, ny;                /* pixels, lines */
	double gt[6];                 /* the geotransform, without rotation */
	OGRSpatialReferenceH srs;     /* the file's CRS, owned by ds */
	double scale, offset;         /* raw value * scale + offset */
	int has_nodata;
	double nodata;
	double vfactor;               /* metres per vertical unit */
};

/* The DEM's CRS and, for a warp, its grid. */
struct gd_target {
	OGRSpatialReferenceH srs;     /* owned */
	struct west_crs crs;          /* the TM parameters; wkt set last */
	long epsg;                    /* the code warped to; 0: the file's own CRS */
	int warp;
	size_t nx, ny;                /* the warp's output */
	double x0, y0, res;
	double native;                /* the raster's shorter pixel side (m) */
	int average;                  /* resampling: average, else bilinear */
};

/* Where the values come from and how they become metres. */
struct gd_read {
	GDALRasterBandH band;
	int has_nodata, north_first;
	double nodata, scale, offset, vfactor;
	const struct gd_target *warped; /* NULL: the file's own pixels */
};

static pthread_once_t registered = PTHREAD_ONCE_INIT;

static void register_gdal(void)
{
	GDALAllRegister();
}

/* GDAL's warnings to the log, naming the file; errors are read back with
 * CPLGetLastErrorMsg by the caller. */
static void on_gdal_error(CPLErr cls, CPLErrorNum no, const char *msg)
{
	const char *path = CPLGetErrorHandlerUserData();

	(void)no;
	if (cls == CE_Warning)
		west_log(WEST_LOG_WARNING, "%s: GDAL: %s", path ? path : "terrain", msg);
}

/* GDAL's last message, or a placeholder. */
static const char *gdal_why(void)
{
	const char *m = CPLGetLastErrorMsg();

	return m && *m ? m : "no reason given";
}

static const char *srs_name(OGRSpatialReferenceH srs)
{
	const char *n = srs ? OSRGetName(srs) : NULL;

	return n && *n ? n : "unnamed";
}

static enum west_status open_raster(struct gd_raster *r, char *err, size_t errlen)
{
	int nbands;

	CPLErrorReset();
	r->ds = GDALOpenEx(r->path, GDAL_OF_RASTER | GDAL_OF_READONLY, NULL, NULL, NULL);
	if (!r->ds)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: not a raster that GDAL can read (%s)", r->path, gdal_why());
	nbands = GDALGetRasterCount(r->ds);
	if (nbands < 1)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: has no raster band", r->path);
	if (nbands > 1)
		west_log(WEST_LOG_WARNING, "%s: %d bands; band 1 is read as the heights",
			 r->path, nbands);
	r->band = GDALGetRasterBand(r->ds, 1);
	r->nx = (size_t)GDALGetRasterXSize(r->ds);
	r->ny = (size_t)GDALGetRasterYSize(r->ds);
	return WEST_OK;
}

static enum west_status check_geotransform(struct gd_raster *r, char *err, size_t errlen)
{
	const double *g = r->gt;

	if (GDALGetGeoTransform(r->ds, r->gt) != CE_None) {
		if (GDALGetGCPCount(r->ds) > 0)
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "%s: georeferenced by %d ground control points, not a geotransform; warp it to a grid first (gdalwarp -t_srs EPSG:326NN FILE OUT.tif)",
					 r->path, GDALGetGCPCount(r->ds));
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: not georeferenced (no geotransform), so westd cannot place it; give it one (gdal_edit.py -a_ullr ... -a_srs EPSG:NNNN FILE)",
				 r->path);
	}
	if (g[2] != 0.0 || g[4] != 0.0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: the geotransform is rotated or sheared (terms %g and %g); warp it to a north-up grid first (gdalwarp -t_srs EPSG:326NN FILE OUT.tif)",
				 r->path, g[2], g[4]);
	if (!(g[1] > 0.0) || !isfinite(g[1]) || g[5] == 0.0 || !isfinite(g[5]) ||
	    !isfinite(g[0]) || !isfinite(g[3]))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: the geotransform (origin %g, %g; pixel %g x %g) is not usable: the pixel width must be positive (x increasing to the east)",
				 r->path, g[0], g[3], g[1], g[5]);
	/* the far corner too: finite origin and pixel, yet no finite extent */
	if (!isfinite(g[0] + g[1] * (double)r->nx) || !isfinite(g[3] + g[5] * (double)r->ny))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: the geotransform (origin %g, %g; pixel %g x %g) puts the far corner of %zu x %zu pixels beyond any finite coordinate",
				 r->path, g[0], g[3], g[1], g[5], r->nx, r->ny);
	return WEST_OK;
}

/*
 * A geographic CRS, or the base geographic CRS of a projected one,
 * identified by the EPSG code of a CRS that is not geographic (a GeoTIFF
 * whose GeographicTypeGeoKey is 4978, WGS 84 geocentric, say) is refused
 * before any transformation: PROJ before 9.3.1 dereferences a null pointer
 * creating an operation from it (PROJ pull request 3945; Debian 12 has
 * 9.1.1, whose gdalinfo crashes on such a file too).  Found by
 * tests/fuzz/fuzz_dem_gdal (corpus dem_gdal/geographic_id_geocentric.tif,
 * and for the base of a UTM CRS dem_gdal/utm_base_id_geocentric.tif).
 */
static enum west_status geographic_id(const struct gd_raster *r, char *err, size_t errlen)
{
	const char *auth = OSRGetAuthorityName(r->srs, "GEOGCS");
	const char *code = OSRGetAuthorityCode(r->srs, "GEOGCS");
	OGRSpatialReferenceH id;
	char *end = NULL;
	long n;
	int geographic;

	int projected = OSRIsProjected(r->srs);
	const char *base = projected ? OSRGetAttrValue(r->srs, "GEOGCS", 0) : NULL;

	if (!(OSRIsGeographic(r->srs) || projected) || !auth || strcasecmp(auth, "EPSG") != 0 ||
	    !code)
		return WEST_OK;
	errno = 0;
	n = strtol(code, &end, 10);
	if (errno || end == code || *end || n <= 0 || n > 0x7fffffff)
		return WEST_OK; /* not a number: PROJ cannot look it up either */
	id = OSRNewSpatialReference(NULL);
	if (!id)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "%s: cannot allocate a CRS", r->path);
	CPLErrorReset();
	geographic = OSRImportFromEPSG(id, (int)n) == OGRERR_NONE && OSRIsGeographic(id);
	if (!geographic) {
		enum west_status s = west_fail(err, errlen, WEST_ERR_INVALID,
			"%s: %s geographic CRS '%s' is identified as EPSG:%ld, which is %s%s%s%s; give it a consistent CRS (gdal_edit.py -a_srs EPSG:NNNN FILE)",
			r->path, projected ? "the base" : "its", base ? base : srs_name(r->srs), n,
			OSRIsGeocentric(id) ? "a geocentric CRS" : "not a geographic CRS",
			OSRGetName(id) ? " (" : "", OSRGetName(id) ? OSRGetName(id) : "",
			OSRGetName(id) ? ")" : "");
		OSRRelease(id);
		return s;
	}
	OSRRelease(id);
	return WEST_OK;
}

static enum west_status check_crs(struct gd_raster *r, char *err, size_t errlen)
{
	r->srs = GDALGetSpatialRef(r->ds);
	if (!r->srs)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: has a geotransform but no CRS, so westd cannot tell its units; set one (gdal_edit.py -a_srs EPSG:NNNN FILE)",
				 r->path);
	if (OSRIsLocal(r->srs))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: its CRS '%s' is a local (engineering) CRS, not placed on the earth; give it a real one (gdal_edit.py -a_srs EPSG:NNNN FILE)",
				 r->path, srs_name(r->srs));
	/* Earth-centred x, y, z are no raster's plane; and PROJ 9.1 overflows
	 * its stack (Extent::intersects recursing) when GDAL sets up a warp
	 * from one.  Found by tests/fuzz/fuzz_dem_gdal (corpus
	 * dem_gdal/geocentric_crs.tif). */
	if (OSRIsGeocentric(r->srs))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: its CRS '%s' is geocentric (earth-centred x, y, z), not a map projection or longitude and latitude; give it the raster's real CRS (gdal_edit.py -a_srs EPSG:NNNN FILE)",
				 r->path, srs_name(r->srs));
	return geographic_id(r, err, errlen);
}

/* Metres per unit for a vertical unit name; 0 when it is not known. */
static double unit_factor(const char *u)
{
	static const char *const metre[] = { "m", "metre", "metres", "meter", "meters", NULL };
	static const char *const foot[] = { "ft", "foot", "feet", "international foot", NULL };
	static const char *const usft[] = { "US survey foot", "US survey feet", "us-ft",
					    "ftUS", "US foot", "foot_us", NULL };

	for (int k = 0; metre[k]; k++)
		if (strcasecmp(u, metre[k]) == 0)
			return 1.0;
	for (int k = 0; foot[k]; k++)
		if (strcasecmp(u, foot[k]) == 0)
			return 0.3048;
	for (int k = 0; usft[k]; k++)
		if (strcasecmp(u, usft[k]) == 0)
			return 1200.0 / 3937.0;
	return 0.0;
}

/* The vertical unit: the band's unit type and the vertical CRS, if any. */
static enum west_status vertical_unit(struct gd_raster *r, char *err, size_t errlen)
{
	const char *u = GDALGetRasterUnitType(r->band);
	const char *vcs = OSRGetAttrValue(r->srs, "VERT_CS", 0);
	char *vname = NULL;
	double fu = 1.0, fv = vcs ? OSRGetTargetLinearUnits(r->srs, "VERT_CS", &vname) : 0.0;

	if (u && *u && !(fu = unit_factor(u)))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: band 1's unit '%s' is not metres or feet; convert the heights to metres (gdal_calc.py) and mark them (gdal_edit.py -units m FILE)",
				 r->path, u);
	if (vcs && !(fv > 0.0))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: the vertical CRS '%s' has no usable unit", r->path, vcs);
	if (vcs && u && *u && fabs(fu / fv - 1.0) > 1e-5)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: band 1's unit '%s' and the vertical CRS '%s' (in %s) disagree; fix one (gdal_edit.py -units or -a_srs)",
				 r->path, u, vcs, vname ? vname : "?");
	r->vfactor = vcs ? fv : fu;
	if (r->vfactor != 1.0)
		west_log(WEST_LOG_INFO, "%s: heights in %s (%.10g m), converted to metres",
			 r->path, vcs ? (vname ? vname : vcs) : u, r->vfactor);
	return WEST_OK;
}

static enum west_status check_band(struct gd_raster *r, char *err, size_t errlen)
{
	GDALDataType type = GDALGetRasterDataType(r->band);
	int ok = 0;

	if (GDALDataTypeIsComplex(type) || type == GDT_Unknown)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: band 1 is of type %s, not real numbers", r->path,
				 GDALGetDataTypeName(type) ? GDALGetDataTypeName(type) : "unknown");
	r->nodata = GDALGetRasterNoDataValue(r->band, &r->has_nodata);
	r->scale = GDALGetRasterScale(r->band, &ok);
	if (!ok || !isfinite(r->scale) || r->scale == 0.0)
		r->scale = 1.0;
	r->offset = GDALGetRasterOffset(r->band, &ok);
	if (!ok || !isfinite(r->offset))
		r->offset = 0.0;
	return vertical_unit(r, err, errlen);
}

/* A geographic CRS on WGS 84, longitude first. */
static OGRSpatialReferenceH new_wgs84(void)
{
	OGRSpatialReferenceH w = OSRNewSpatialReference(NULL);

	if (w && OSRSetWellKnownGeogCS(w, "WGS84") != OGRERR_NONE) {
		OSRRelease(w);
		return NULL;
	}
	if (w)
		OSRSetAxisMappingStrategy(w, OAMS_TRADITIONAL_GIS_ORDER);
	return w;
}

/* On WGS 84: the datum (as GDAL compares them), ellipsoid, Greenwich. */
static int on_wgs84(OGRSpatialReferenceH srs)
{
	OGRSpatialReferenceH w = new_wgs84();
	OGRErr e1 = OGRERR_NONE, e2 = OGRERR_NONE;
	int same = w && OSRIsSameGeogCS(srs, w);

	if (w)
		OSRRelease(w);
	return same && fabs(OSRGetSemiMajor(srs, &e1) - 6378137.0) < 1e-6 &&
	       fabs(OSRGetInvFlattening(srs, &e2) - 298.257223563) < 1e-8 &&
	       e1 == OGRERR_NONE && e2 == OGRERR_NONE &&
	       OSRGetPrimeMeridian(srs, NULL) == 0.0;
}

/*
 * A transverse Mercator on WGS 84 in metres: fills crs (not its WKT) and
 * returns 1; 0 for any other CRS.
 */
static int tm_wgs84(OGRSpatialReferenceH srs, struct west_crs *crs)
{
	static const char *const names[5] = {
		SRS_PP_CENTRAL_MERIDIAN, SRS_PP_LATITUDE_OF_ORIGIN, SRS_PP_SCALE_FACTOR,
		SRS_PP_FALSE_EASTING, SRS_PP_FALSE_NORTHING,
	};
	const char *proj = OSRGetAttrValue(srs, "PROJECTION", 0);
	struct west_crs c = { .grid_mapping_name = "transverse_mercator", .has_tm = 1 };
	double *v[5] = { &c.lon0, &c.lat0, &c.k0, &c.false_easting, &c.false_northing };

	if (!OSRIsProjected(srs) || !proj || strcasecmp(proj, SRS_PT_TRANSVERSE_MERCATOR) != 0 ||
	    fabs(OSRGetLinearUnits(srs, NULL) - 1.0) > 1e-12 || !on_wgs84(srs))
		return 0;
	for (int k = 0; k < 5; k++) {
		OGRErr e = OGRERR_NONE;
		*v[k] = OSRGetNormProjParm(srs, names[k], k == 2 ? 1.0 : 0.0, &e);
		if (e != OGRERR_NONE || !isfinite(*v[k]))
			return 0;
	}
	*crs = c;
	return 1;
}

/* The configured or automatic EPSG code as the target; refused unless TM. */
static enum west_status epsg_target(const struct gd_raster *r, long epsg, int configured,
				    struct gd_target *t, char *err, size_t errlen)
{
	t->epsg = epsg;
	t->srs = OSRNewSpatialReference(NULL);
	CPLErrorReset();
	if (!t->srs || epsg > 0x7fffffff || OSRImportFromEPSG(t->srs, (int)epsg) != OGRERR_NONE)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: %s EPSG:%ld is not a CRS that GDAL knows (%s)", r->path,
				 configured ? "terrain_epsg" : "the UTM zone", epsg, gdal_why());
	OSRSetAxisMappingStrategy(t->srs, OAMS_TRADITIONAL_GIS_ORDER);
	if (!tm_wgs84(t->srs, &t->crs))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: %s EPSG:%ld (%s) is not a transverse Mercator on WGS 84 in metres, which the grid needs; give a WGS 84 / UTM zone (EPSG:326NN north, 327NN south), or 0 for the zone of the raster's centre",
				 r->path, configured ? "terrain_epsg" : "the UTM zone", epsg,
				 srs_name(t->srs));
	return WEST_OK;
}

/* WGS 84 / UTM of the zone of the raster's centre. */
static enum west_status centre_zone(const struct gd_raster *r, long *epsg,
				    char *err, size_t errlen)
{
	double x = r->gt[0] + r->gt[1] * (double)r->nx / 2.0;
	double y = r->gt[3] + r->gt[5] * (double)r->ny / 2.0, z = 0.0;
	OGRSpatialReferenceH w = new_wgs84();
	OGRCoordinateTransformationH ct = NULL;
	int ok, zone;

	CPLErrorReset();
	if (w)
		ct = OCTNewCoordinateTransformation(r->srs, w);
	ok = ct && OCTTransform(ct, 1, &x, &y, &z) && isfinite(x) && fabs(y) <= 90.0;
	if (ct)
		OCTDestroyCoordinateTransformation(ct);
	if (w)
		OSRRelease(w);
	if (!ok)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: its CRS '%s' cannot be transformed to WGS 84 longitude and latitude (%s)",
				 r->path, srs_name(r->srs), gdal_why());
	x = fmod(fmod(x + 180.0, 360.0) + 360.0, 360.0); /* longitude + 180 in [0, 360) */
	zone = (int)floor(x / 6.0) + 1;
	if (zone > 60)
		zone = 60;
	*epsg = (y >= 0.0 ? 32600 : 32700) + zone;
	return WEST_OK;
}

static int same_tm(const struct west_crs *a, const struct west_crs *b)
{
	return a->lon0 == b->lon0 && a->lat0 == b->lat0 && a->k0 == b->k0 &&
	       a->false_easting == b->false_easting && a->false_northing == b->false_northing;
}

/*
 * Read as it is when the file is a TM on WGS 84 in metres (and opts->epsg,
 * if given, is that same projection); else warp to opts->epsg or the
 * centre's UTM zone.
 */
static enum west_status choose_target(const struct gd_raster *r, const struct west_dem_opts *o,
				      struct gd_target *t, char *err, size_t errlen)
{
	struct west_crs own;
	int is_tm = tm_wgs84(r->srs, &own);
	long epsg = o->epsg;
	enum west_status s;

	if (is_tm && !epsg) {
		t->crs = own;
		t->srs = OSRClone(r->srs);
		if (!t->srs)
			return west_fail(err, errlen, WEST_ERR_NOMEM, "%s: cannot copy the CRS", r->path);
		OSRStripVertical(t->srs); /* the heights are metres from here on */
		return WEST_OK;
	}
	if (!epsg && (s = centre_zone(r, &epsg, err, errlen)) != WEST_OK)
		return s;
	s = epsg_target(r, epsg, o->epsg != 0, t, err, errlen);
	if (s != WEST_OK)
		return s;
	t->warp = !(is_tm && same_tm(&own, &t->crs));
	return WEST_OK;
}

/*
 * The largest north-up rectangle inside the raster's outline in the target
 * CRS: each edge sampled at EDGE_POINTS points, the west side east of every
 * point of the west edge, and so on.  box: xmin, ymin, xmax, ymax.
 */
static enum west_status inner_box(const struct gd_raster *r, void *tr, double box[4],
				  char *err, size_t errlen)
{
	double x[4][EDGE_POINTS], y[4][EDGE_POINTS], z[EDGE_POINTS], mean[4][2];
	int ok[EDGE_POINTS];

	for (int e = 0; e < 4; e++) { /* columns 0 and nx, lines 0 and ny */
		mean[e][0] = mean[e][1] = 0.0;
		for (int k = 0; k < EDGE_POINTS; k++) {
			double t = (double)k / (EDGE_POINTS - 1);
			x[e][k] = e < 2 ? (double)r->nx * (e == 1) : t * (double)r->nx;
			y[e][k] = e < 2 ? t * (double)r->ny : (double)r->ny * (e == 3);
			z[k] = 0.0;
		}
		if (!GDALGenImgProjTransform(tr, FALSE, EDGE_POINTS, x[e], y[e], z, ok))
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "%s: its outline cannot be transformed (%s)", r->path, gdal_why());
		for (int k = 0; k < EDGE_POINTS; k++) {
			if (!ok[k] || !isfinite(x[e][k]) || !isfinite(y[e][k]))
				return west_fail(err, errlen, WEST_ERR_INVALID,
						 "%s: a point of its outline cannot be transformed (%s)",
						 r->path, gdal_why());
			mean[e][0] += x[e][k] / EDGE_POINTS;
			mean[e][1] += y[e][k] / EDGE_POINTS;
		}
	}
	int west = mean[0][0] < mean[1][0] ? 0 : 1, south = mean[2][1] < mean[3][1] ? 2 : 3;
	box[0] = -INFINITY, box[1] = -INFINITY, box[2] = INFINITY, box[3] = INFINITY;
	for (int k = 0; k < EDGE_POINTS; k++) {
		box[0] = fmax(box[0], x[west][k]);
		box[2] = fmin(box[2], x[1 - west][k]);
		box[1] = fmax(box[1], y[south][k]);
		box[3] = fmin(box[3], y[5 - south][k]);
	}
	return WEST_OK;
}

/* A transformer from the raster's pixels to the target CRS's coordinates. */
static void *new_transformer(const struct gd_raster *r, const struct gd_target *t)
{
	char *wkt = NULL, **opt = NULL;
	void *tr = NULL;

	if (OSRExportToWkt(t->srs, &wkt) == OGRERR_NONE) {
		opt = CSLSetNameValue(NULL, "DST_SRS", wkt);
		tr = GDALCreateGenImgProjTransformer2(r->ds, NULL, opt);
	}
	CSLDestroy(opt);
	CPLFree(wkt);
	return tr;
}

/* Cells of t->res with edges on its multiples, inside box. */
static enum west_status fit_cells(const struct gd_raster *r, struct gd_target *t,
				  const double box[4], const struct west_dem_opts *o,
				  char *err, size_t errlen)
{
	char where[WEST_ERRLEN];
	enum west_status s;
	double fnx, fny;

	t->x0 = ceil(box[0] / t->res - 1e-9) * t->res;
	t->y0 = ceil(box[1] / t->res - 1e-9) * t->res;
	fnx = floor((box[2] - t->x0) / t->res + 1e-9);
	fny = floor((box[3] - t->y0) / t->res + 1e-9);
	if (!(fnx >= 1.0 && fny >= 1.0))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: warped to EPSG:%ld, the raster (%.1f x %.1f m inside its outline) holds no whole cell of %g m",
				 r->path, t->epsg, fmax(box[2] - box[0], 0.0),
				 fmax(box[3] - box[1], 0.0), t->res);
	if (fnx * fny > 1e15)
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "%s: warped to EPSG:%ld at %g m, %g x %g cells is too many",
				 r->path, t->epsg, t->res, fnx, fny);
	t->nx = (size_t)fnx;
	t->ny = (size_t)fny;
	snprintf(where, sizeof where, "%s (warped to EPSG:%ld at %g m)", r->path, t->epsg, t->res);
	s = west_dem_check_size(where, t->nx, t->ny, o, err, errlen);
	if (s != WEST_OK)
		return s;
	/* GDAL's MEM dataset, besides the heights and flags */
	return west_check_alloc(t->nx * t->ny, sizeof(float), where, err, errlen);
}

/*
 * The raster's pixel at its centre, in metres of the target CRS: the
 * shorter of its two sides (the warp's cell size when none is configured,
 * so that it never downsamples either axis).
 */
static enum west_status native_size(const struct gd_raster *r, void *tr, double *size,
				    char *err, size_t errlen)
{
	double cx = (double)(r->nx / 2), cy = (double)(r->ny / 2);
	double x[3] = { cx, cx + 1.0, cx }, y[3] = { cy, cy, cy + 1.0 }, z[3] = { 0, 0, 0 };
	int ok[3] = { 0, 0, 0 };

	if (!GDALGenImgProjTransform(tr, FALSE, 3, x, y, z, ok) || !ok[0] || !ok[1] || !ok[2])
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: its centre cannot be transformed (%s)", r->path, gdal_why());
	*size = fmin(hypot(x[1] - x[0], y[1] - y[0]), hypot(x[2] - x[0], y[2] - y[0]));
	if (!(*size > 0.0) || !isfinite(*size))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: its pixels have no size in the target CRS", r->path);
	return WEST_OK;
}

/* The warp's output grid, checked before anything of its size exists. */
static enum west_status warp_grid(const struct gd_raster *r, struct gd_target *t,
				  const struct west_dem_opts *o, char *err, size_t errlen)
{
	double box[4];
	enum west_status s;
	void *tr;

	CPLErrorReset();
	tr = new_transformer(r, t);
	if (!tr)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: its CRS '%s' cannot be transformed to EPSG:%ld (%s)",
				 r->path, srs_name(r->srs), t->epsg, gdal_why());
	s = inner_box(r, tr, box, err, errlen);
	if (s == WEST_OK)
		s = native_size(r, tr, &t->native, err, errlen);
	GDALDestroyGenImgProjTransformer(tr);
	if (s != WEST_OK)
		return s;
	t->res = o->resolution > 0.0 ? o->resolution : t->native;
	t->average = t->res > t->native * (1.0 + 1e-9);
	return fit_cells(r, t, box, o, err, errlen);
}

/* A MEM dataset of the output grid, every cell NaN (NODATA). */
static GDALDatasetH new_output(const struct gd_target *t)
{
	GDALDriverH mem = GDALGetDriverByName("MEM");
	double gt[6] = { t->x0, t->res, 0.0, t->y0 + (double)t->ny * t->res, 0.0, -t->res };
	GDALDatasetH out;
	GDALRasterBandH b;

	if (!mem || t->nx > 0x7fffffff || t->ny > 0x7fffffff)
		return NULL;
	out = GDALCreate(mem, "", (int)t->nx, (int)t->ny, 1, GDT_Float32, NULL);
	if (!out)
		return NULL;
	b = GDALGetRasterBand(out, 1);
	if (GDALSetGeoTransform(out, gt) != CE_None || GDALSetSpatialRef(out, t->srs) != CE_None ||
	    GDALSetRasterNoDataValue(b, NAN) != CE_None || GDALFillRaster(b, NAN, 0.0) != CE_None) {
		GDALClose(out);
		return NULL;
	}
	return out;
}

/*
 * Band 1 alone, as a VRT in memory over r->ds (gdal_translate -of VRT -b 1),
 * for a raster of several bands: GDALWarp warps every band of its source
 * (and takes a last band marked alpha as the mask), into the one band of
 * our output, which it refuses ("Destination dataset has 1 bands, but at
 * least 2 are needed"); gdalwarp -srcband is GDAL 3.7's, not 3.1's.
 */
static GDALDatasetH band1_only(const struct gd_raster *r)
{
	static const char *const argv[] = { "-of", "VRT", "-b", "1", NULL };
	GDALTranslateOptions *to = GDALTranslateOptionsNew((char **)argv, NULL);
	GDALDatasetH vrt = NULL;

	if (to)
		vrt = GDALTranslate("", r->ds, to, NULL);
	GDALTranslateOptionsFree(to);
	return vrt;
}

/* gdalwarp -r bilinear|average -et 0.001 -ovr NONE into out. */
static enum west_status run_warp(const struct gd_raster *r, const struct gd_target *t,
				 GDALDatasetH out, char *err, size_t errlen)
{
	char **argv = NULL;
	GDALWarpAppOptions *wo;
	GDALDatasetH src = r->ds, band1 = NULL, done = NULL;
	int usage = 0;

	CPLErrorReset();
	if (GDALGetRasterCount(r->ds) > 1 && !(src = band1 = band1_only(r)))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: cannot take band 1 alone for the warp (%s)", r->path,
				 gdal_why());
	argv = CSLAddString(argv, "-r");
	argv = CSLAddString(argv, t->average ? "average" : "bilinear");
	argv = CSLAddString(argv, "-et");
	argv = CSLAddString(argv, "0.001");
	argv = CSLAddString(argv, "-ovr");
	argv = CSLAddString(argv, "NONE");
	argv = CSLAddString(argv, "-wo");
	argv = CSLAddString(argv, "INIT_DEST=NO_DATA");
	wo = GDALWarpAppOptionsNew(argv, NULL);
	CSLDestroy(argv);
	if (wo)
		done = GDALWarp(NULL, out, 1, &src, wo, &usage);
	GDALWarpAppOptionsFree(wo);
	if (band1)
		GDALClose(band1);
	if (!done)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: warping to EPSG:%ld failed (%s)",
				 r->path, t->epsg, gdal_why());
	return WEST_OK;
}

/* Where cell (col, line) of the values is, for messages. */
static void cell_name(const struct gd_read *rd, size_t col, size_t line,
		      char *buf, size_t size)
{
	const struct gd_target *t = rd->warped;

	if (t)
		snprintf(buf, size, "x %.1f, y %.1f m (EPSG:%ld)",
			 t->x0 + ((double)col + 0.5) * t->res,
			 t->y0 + (double)t->ny * t->res - ((double)line + 0.5) * t->res, t->epsg);
	else
		snprintf(buf, size, "pixel %zu, line %zu", col, line);
}

static int is_hole(const struct gd_read *rd, double v)
{
	return isnan(v) || (rd->has_nodata && v == rd->nodata);
}

/* NODATA flags (1 = data) and the first hole, as for the other readers. */
struct gd_holes {
	unsigned char *valid;
	size_t n;
	char first[96];
};

/* One line of raw values into row j of the DEM. */
static enum west_status store_line(const char *path, const struct gd_read *rd,
				   const double *raw, size_t line, size_t j,
				   struct west_dem *dem, struct gd_holes *h,
				   char *err, size_t errlen)
{
	float *dst = dem->z + j * dem->nx;
	unsigned char *valid = h->valid + j * dem->nx;
	char at[96];

	for (size_t i = 0; i < dem->nx; i++) {
		double v = (raw[i] * rd->scale + rd->offset) * rd->vfactor;
		if (is_hole(rd, raw[i])) {
			if (!h->n++)
				cell_name(rd, i, line, h->first, sizeof h->first);
			valid[i] = 0;
			dst[i] = 0.0f;
		} else if (west_dem_height_ok(v)) {
			dst[i] = (float)v;
		} else {
			cell_name(rd, i, line, at, sizeof at);
			return west_dem_height_fail(v, err, errlen, "%s: band 1 at %s", path, at);
		}
	}
	return WEST_OK;
}

/*
 * Every line of rd's band, as doubles, into the south-first layout, read
 * READ_CELLS cells at a time (whole lines, at least one): line by line
 * would be quadratic in the lines of a MEM dataset (the warp's output),
 * whose every RasterIO first flushes the band's block cache, scanning all
 * its blocks, one per line (GDAL's MEMRasterBand::IRasterIO): 12 s for the
 * 3 x 118466 cells of a warped 8 x 63239 raster (1.4e10 block visits; found
 * by tests/fuzz/fuzz_dem_gdal, a timeout).
 */
#define READ_CELLS 65536

static enum west_status read_values(const char *path, const struct gd_read *rd,
				    struct west_dem *dem, struct gd_holes *h,
				    char *err, size_t errlen)
{
	size_t n = dem->nx * dem->ny, lines = READ_CELLS / dem->nx;
	enum west_status s = WEST_OK;
	double *raw;

	lines = lines < 1 ? 1 : lines > dem->ny ? dem->ny : lines;
	dem->z = malloc(n * sizeof *dem->z);
	h->valid = malloc(n);
	raw = malloc(lines * dem->nx * sizeof *raw);
	if (!dem->z || !h->valid || !raw) {
		free(raw);
		return west_fail(err, errlen, WEST_ERR_NOMEM, "%s: cannot allocate %zu x %zu cells",
				 path, dem->nx, dem->ny);
	}
	memset(h->valid, 1, n);
	for (size_t line = 0; line < dem->ny && s == WEST_OK; line += lines) {
		size_t k = dem->ny - line < lines ? dem->ny - line : lines;
		CPLErrorReset();
		if (GDALRasterIO(rd->band, GF_Read, 0, (int)line, (int)dem->nx, (int)k, raw,
				 (int)dem->nx, (int)k, GDT_Float64, 0, 0) != CE_None) {
			s = west_fail(err, errlen, WEST_ERR_IO, "%s: cannot read lines %zu to %zu (%s)",
				      path, line, line + k - 1, gdal_why());
			break;
		}
		for (size_t i = 0; i < k && s == WEST_OK; i++)
			s = store_line(path, rd, raw + i * dem->nx, line + i,
				       rd->north_first ? dem->ny - 1 - (line + i) : line + i,
				       dem, h, err, errlen);
	}
	free(raw);
	return s;
}

static enum west_status finish(const char *path, const struct gd_read *rd,
			       struct west_dem *dem, struct gd_holes *h,
			       const struct west_dem_opts *o, char *err, size_t errlen)
{
	char where[WEST_ERRLEN];
	unsigned char *valid = h->valid;

	h->valid = NULL; /* west_dem_nodata_finish frees it */
	if (rd->warped)
		snprintf(where, sizeof where, "%s (warped to EPSG:%ld)", path, rd->warped->epsg);
	else
		snprintf(where, sizeof where, "%s", path);
	return west_dem_nodata_finish(dem, valid, h->n, where, h->first, o, err, errlen);
}

static enum west_status read_dem(const char *path, const struct gd_read *rd,
				 struct west_dem *dem, const struct west_dem_opts *o,
				 char *err, size_t errlen)
{
	struct gd_holes h = { 0 };
	enum west_status s = read_values(path, rd, dem, &h, err, errlen);

	if (s == WEST_OK)
		s = finish(path, rd, dem, &h, o, err, errlen);
	free(h.valid);
	return s;
}

/* The file's own pixels: a TM on WGS 84 in metres already. */
static enum west_status load_direct(const struct gd_raster *r, struct west_dem *dem,
				    const struct west_dem_opts *o, char *err, size_t errlen)
{
	struct gd_read rd = {
		.band = r->band, .has_nodata = r->has_nodata, .nodata = r->nodata,
		.north_first = r->gt[5] < 0.0, .scale = r->scale, .offset = r->offset,
		.vfactor = r->vfactor,
	};

	dem->nx = r->nx;
	dem->ny = r->ny;
	dem->dx = r->gt[1];
	dem->dy = fabs(r->gt[5]);
	dem->x0 = r->gt[0];
	dem->y0 = r->gt[5] < 0.0 ? r->gt[3] + r->gt[5] * (double)r->ny : r->gt[3];
	return read_dem(r->path, &rd, dem, o, err, errlen);
}

static enum west_status load_warped(const struct gd_raster *r, const struct gd_target *t,
				    struct west_dem *dem, const struct west_dem_opts *o,
				    char *err, size_t errlen)
{
	struct gd_read rd = {
		.north_first = 1, .scale = r->scale, .offset = r->offset,
		.vfactor = r->vfactor, .warped = t,
	};
	GDALDatasetH out;
	enum west_status s;

	CPLErrorReset();
	out = new_output(t);
	if (!out)
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "%s: cannot make the %zu x %zu warp output (%s)",
				 r->path, t->nx, t->ny, gdal_why());
	s = run_warp(r, t, out, err, errlen);
	if (s == WEST_OK) {
		rd.band = GDALGetRasterBand(out, 1);
		dem->nx = t->nx;
		dem->ny = t->ny;
		dem->dx = dem->dy = t->res;
		dem->x0 = t->x0;
		dem->y0 = t->y0;
		s = read_dem(r->path, &rd, dem, o, err, errlen);
	}
	GDALClose(out);
	return s;
}

/* The target CRS's WKT into dem->crs. */
static enum west_status keep_crs(const struct gd_raster *r, const struct gd_target *t,
				 struct west_dem *dem, char *err, size_t errlen)
{
	char *wkt = NULL;

	dem->crs = t->crs;
	dem->crs.wkt = NULL;
	if (OSRExportToWkt(t->srs, &wkt) != OGRERR_NONE || !wkt) {
		CPLFree(wkt);
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: cannot write its CRS as WKT",
				 r->path);
	}
	dem->crs.wkt = strdup(wkt);
	CPLFree(wkt);
	if (!dem->crs.wkt)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "%s: cannot copy the WKT", r->path);
	return WEST_OK;
}

static void log_result(const struct gd_raster *r, const struct gd_target *t,
		       const struct west_dem *dem)
{
	if (t->warp)
		west_log(WEST_LOG_INFO, "%s: '%s' warped to EPSG:%ld (%s), %s, %zu x %zu cells of %g m",
			 r->path, srs_name(r->srs), t->epsg, srs_name(t->srs),
			 t->average ? "average" : "bilinear", dem->nx, dem->ny, dem->dx);
	else
		west_log(WEST_LOG_INFO, "%s: read through GDAL in its own CRS '%s', %zu x %zu cells",
			 r->path, srs_name(r->srs), dem->nx, dem->ny);
}

static enum west_status load(struct gd_raster *r, struct gd_target *t, struct west_dem *dem,
			     const struct west_dem_opts *o, char *err, size_t errlen)
{
	enum west_status s = open_raster(r, err, errlen);

	if (s == WEST_OK)
		s = check_geotransform(r, err, errlen);
	if (s == WEST_OK)
		s = check_crs(r, err, errlen);
	if (s == WEST_OK)
		s = check_band(r, err, errlen);
	if (s == WEST_OK)
		s = west_dem_check_size(r->path, r->nx, r->ny, o, err, errlen);
	if (s == WEST_OK)
		s = choose_target(r, o, t, err, errlen);
	if (s == WEST_OK && t->warp)
		s = warp_grid(r, t, o, err, errlen);
	if (s == WEST_OK)
		s = t->warp ? load_warped(r, t, dem, o, err, errlen)
			    : load_direct(r, dem, o, err, errlen);
	if (s == WEST_OK)
		s = keep_crs(r, t, dem, err, errlen);
	if (s == WEST_OK)
		log_result(r, t, dem);
	return s;
}

enum west_status west_dem_load_gdal(struct west_dem *dem, const char *path,
				    const struct west_dem_opts *opts,
				    char *err, size_t errlen)
{
	struct gd_raster r = { .path = path };
	struct gd_target t = { 0 };
	enum west_status s;
	FILE *f;

	memset(dem, 0, sizeof *dem);
	opts = west_dem_opts_or_default(opts);
	f = fopen(path, "rb");
	if (!f)
		return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot open: %s",
				 path, strerror(errno));
	fclose(f);
	pthread_once(&registered, register_gdal);
	CPLPushErrorHandlerEx(on_gdal_error, (void *)path);
	s = load(&r, &t, dem, opts, err, errlen);
	if (r.ds)
		GDALClose(r.ds);
	if (t.srs)
		OSRRelease(t.srs);
	CPLPopErrorHandler();
	if (s != WEST_OK)
		west_dem_free(dem);
	return s;
}
