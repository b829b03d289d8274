/*
 * edr.h: the OGC API - EDR subset of westd (docs/design.md section 6) without
 * the HTTP: parsing the query parameters, and building the JSON documents
 * (jansson) that the routes answer with.  Standards followed: OGC API -
 * EDR 1.1 (19-086r6) for the landing page, conformance, collections and
 * the query parameters; OGC CoverageJSON 1.0 (21-069r2) for the answers.
 *
 * Coordinates (coords, bbox) are in CRS84, longitude and latitude in
 * degrees on WGS 84 (EDR's default, /req/core/crs84), when the grid's CRS
 * is a transverse Mercator libwest inverts (proj.h), and otherwise, or
 * when the crs parameter names it, in the grid's projected CRS (metres,
 * easting and northing; terrain.h).  A CRS84 position is converted to the
 * grid and answered at its longitude and latitude; a CRS84 polygon or box
 * is converted to the grid (each edge densified) and answered on the
 * grid's own columns, in the grid's CRS: a regular grid in one CRS is not
 * one in the other, and resampling it would invent values.  Heights: z is
 * metres above the local ground (WEST_ZREF_AGL) or altitude above mean sea
 * level (WEST_ZREF_MSL), as query.h defines them.
 *
 * Documents: base is the absolute URL prefix of the service, without a
 * trailing slash (e.g. "http://127.0.0.1:8080"); every link's href is base
 * followed by a path starting with "/".  Every function returning json_t *
 * returns a new reference, or NULL when out of memory; the caller dumps it
 * (JSON_REAL_PRECISION(9) prints a float's value exactly).  Text taken
 * from the terrain files (WKT, names) that is not UTF-8 has its non-ASCII
 * bytes replaced by '?', so that every document can be dumped.
 *
 * The collection "wind" (west_edr_collection) describes:
 *   extent.spatial        the outer domain, x0 .. x0 + nx dx by y0 .. y0 +
 *                         ny dy.  In CRS84 (crs: the OGC CRS84 URI) when
 *                         the grid's CRS is a transverse Mercator that
 *                         libwest inverts (west_tm_inverse): the lon/lat
 *                         box of points along the four edges (the bounds
 *                         of a projected rectangle); else in the native
 *                         CRS as extent.spatial_native.
 *   extent.spatial_native always: the domain in the grid's CRS, crs its
 *                         WKT (or a sentence when the terrain had none).
 *   extent.vertical       heights above the ground, ["0", top -
 *                         terrain_min]: from the ground up to the largest
 *                         height above ground any column reaches (the top
 *                         face over the lowest terrain), as strings (the
 *                         EDR 1.0 schema); vrs "height above ground, m".
 *   extent.temporal       [[valid_time, valid_time]] when f is not NULL.
 *   crs                   the CRS84 URI first when coordinates may be
 *                         given in it (the default), then the native CRS's
 *                         identifier: an EPSG URI when west_crs_epsg knows
 *                         its code (the WKT's top-level EPSG authority, or
 *                         WGS 84 / UTM recognised from the parameters),
 *                         else the WKT's name, else the CF
 *                         grid_mapping_name, else "native".
 *   data_queries          position, area, cube (CoverageJSON only).
 *   parameter_names       u, v, w, speed, direction as CoverageJSON
 *                         Parameter objects (the same objects the
 *                         answers carry).
 *
 * CoverageJSON answers (application/vnd.cov+json):
 *   - domain axes x, y (a CRS84 position: its longitude and latitude,
 *     referencing a GeographicCRS with the CRS84 id; otherwise metres in
 *     the grid CRS, referencing a ProjectedCRS, id the EPSG URI when known,
 *     description the WKT or a sentence), z (m, AGL or MSL as asked), t
 *     (the field's valid time, one value); z references a VerticalCRS
 *     ("height above ground" or "altitude above mean sea level", up, m), t
 *     a TemporalRS (Gregorian);
 *   - Point: every axis one value, ranges 0-dimensional (no shape, no
 *     axisNames, one value);
 *   - VerticalProfile: ranges axisNames ["z"], shape [nz];
 *   - Grid: ranges axisNames ["z", "y", "x"], shape [nz, ny, nx], the
 *     last varying fastest; z, y and x are always listed, even with one
 *     value (allowed; the shape then stays three-dimensional for clients),
 *     t never (one value, left out as the specification recommends);
 *   - values are floats (the query's float32 results), null where there
 *     is no value: in terrain, below the ground, above the top, outside an
 *     area's polygon;
 *   - parameterGroups holds the vector "wind velocity" [u, v] only when
 *     both u and v were asked for.
 *
 * Every function is read-only on the grid and field: many threads may
 * answer queries on one published field at once.
 */
#ifndef WEST_EDR_H
#define WEST_EDR_H

#include <stddef.h>

#include <jansson.h>

#include "field.h"
#include "grid.h"
#include "query.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* parameter-name bits. */
enum west_edr_param {
	WEST_EDR_U = 1,
	WEST_EDR_V = 2,
	WEST_EDR_W = 4,
	WEST_EDR_SPEED = 8,
	WEST_EDR_DIRECTION = 16,
	WEST_EDR_DEFAULT = WEST_EDR_U | WEST_EDR_V | WEST_EDR_W,
	WEST_EDR_ALL = 31,
};

#define WEST_EDR_MAX_VERTICES 10000 /* the most vertices a polygon may have */
#define WEST_EDR_MAX_Z 1000         /* a sensible cap for west_edr_parse_z */

/* One closed ring: n >= 4 vertices, x[0] == x[n-1], y[0] == y[n-1]. */
struct west_polygon {
	size_t n;
	double *x, *y;
};

/* ---- query parameters ----------------------------------------------------
 * Each returns WEST_ERR_INVALID with a message naming the parameter
 * ("coords", "bbox", "z", "parameter-name") and what is wrong; a message
 * quotes at most 40 bytes of the input, non-printable bytes as '?'.
 * Numbers are finite decimals (no inf, nan or hexadecimal); blanks are
 * allowed around every token.  Outputs are written only on success (the
 * z array excepted: a failed parse may leave values in it).
 */

/* coords "POINT(x y)" (keyword in any case).  MULTIPOINT, POINT Z and
 * anything but exactly two numbers are refused. */
enum west_status west_edr_parse_point(const char *wkt, double *x, double *y,
				      char *err, size_t errlen);

/* coords "POLYGON((x1 y1, x2 y2, ..., x1 y1))": one ring of at least 4
 * vertices, closed, at most WEST_EDR_MAX_VERTICES.  Holes (a second ring),
 * MULTIPOLYGON and POLYGON Z are refused.  On success *p owns new arrays
 * (west_polygon_free); on failure *p is zeroed. */
enum west_status west_edr_parse_polygon(const char *wkt, struct west_polygon *p,
					char *err, size_t errlen);
void west_polygon_free(struct west_polygon *p);

/* 1 when (x, y) is inside p by the even-odd rule, else 0.  A point on
 * the boundary may fall either way. */
int west_polygon_contains(const struct west_polygon *p, double x, double y);

/* bbox "minx,miny,maxx,maxy" into bbox[4]: exactly four numbers (a
 * six-number box with heights is refused), min < max on each axis. */
enum west_status west_edr_parse_bbox(const char *s, double bbox[4],
				     char *err, size_t errlen);

/*
 * z: a single value "10", a list "10,20,50", or "Rn/start/step": n levels
 * start, start + step, ... (EDR's repeat form; R in either case).  At
 * most max values into z (room for max), *n the count; more is refused
 * naming the cap.  The values must be strictly increasing or strictly
 * decreasing (a CoverageJSON axis is monotonic).  Intervals "min/max" are
 * refused (they name no levels).
 */
enum west_status west_edr_parse_z(const char *s, double *z, size_t max, size_t *n,
				  char *err, size_t errlen);

/* parameter-name: a comma list of u, v, w, speed, direction (exact
 * names); NULL or "" gives WEST_EDR_DEFAULT.  An unknown or empty name is
 * refused naming it and listing the known ones. */
enum west_status west_edr_parse_parameters(const char *s, unsigned *mask,
					   char *err, size_t errlen);

/* The CRS coordinates are given in. */
enum west_edr_crs {
	WEST_EDR_CRS84 = 1,   /* longitude, latitude (degrees, WGS 84) */
	WEST_EDR_NATIVE       /* the grid's projected CRS (m) */
};

/* crs into *which: NULL is the default, CRS84 when c is a transverse
 * Mercator (has_tm), else native; "CRS84", "OGC:CRS84" or the CRS84 URI is
 * CRS84 (refused without has_tm); the native identifier the collection
 * advertises, or "EPSG:n" for its EPSG code n, is native.  Anything else
 * is WEST_ERR_INVALID naming the values supported. */
enum west_status west_edr_parse_crs(const struct west_crs *c, const char *s,
				    enum west_edr_crs *which, char *err, size_t errlen);

/* The identifier of the grid's CRS that crs= takes (the collection's
 * second crs): an EPSG URI, else the WKT's name, the CF mapping name or
 * "native"; into buf. */
void west_edr_crs_id(const struct west_crs *c, char *buf, size_t size);

#define WEST_EDR_DENSIFY 8 /* pieces each CRS84 polygon edge is cut into */

/* A polygon (p, in place) or a box bbox = lon0, lat0, lon1, lat1 (into p,
 * a new ring) given in CRS84, as a ring in the grid's CRS: every edge cut
 * into WEST_EDR_DENSIFY pieces along the straight line in degrees, so the
 * ring keeps its shape under the projection.  A vertex the projection
 * refuses is WEST_ERR_INVALID naming it (and saying so when it is inside
 * the domain as the grid's x, y: metres given without crs). */
enum west_status west_edr_polygon_to_grid(const struct west_grid *g,
					  struct west_polygon *p,
					  char *err, size_t errlen);
enum west_status west_edr_bbox_to_grid(const struct west_grid *g, const double bbox[4],
				       struct west_polygon *p, char *err, size_t errlen);

/* Into buf: "lon A, lat B is outside the domain (lon .. , lat .., WGS 84)"
 * for a point given in degrees, followed by west_edr_swap_hint's sentence.
 * The hint: when lat, lon taken the other way round lands in the domain,
 * "; lon=..&lat=.. is inside: ..." (wkt 0) or "; POINT(.. ..) is inside:
 * ..." (wkt 1), else "". */
void west_edr_lonlat_outside(const struct west_grid *g, double lon, double lat,
			     int wkt, char *buf, size_t size);
void west_edr_swap_hint(const struct west_grid *g, double lon, double lat, int wkt,
			char *buf, size_t size);

/*
 * datetime (EDR 1.0 /req/core/datetime-response): an instant, an
 * interval "start/end" with ".." (or nothing) for an open end, or a comma
 * list of those; each date-time as observation times are written
 * (docs/api.md: "YYYY-MM-DDThh:mm:ssZ" or a numeric offset; fractions of
 * a second dropped).  *covers is 1 when one of them includes the instant
 * t (an interval its ends included), else 0.  A value that does not
 * parse, or an interval that ends before it starts, is WEST_ERR_INVALID.
 */
enum west_status west_edr_datetime_covers(const char *s, long long t, int *covers,
					  char *err, size_t errlen);

/* The lon/lat box (degrees, WGS 84) of the grid's domain, as the
 * collection's extent gives it: bb = lon0, lat0, lon1, lat1; 0 when the
 * grid has no transverse Mercator CRS that inverts. */
int west_edr_lonlat_bbox(const struct west_grid *g, double bb[4]);

/* ---- documents ------------------------------------------------------------ */

/* The landing page: title, description, links self ("/"), conformance
 * ("/conformance"), data ("/collections"), status ("/v1/status") and
 * alternate (the map page "/ui/", text/html). */
json_t *west_edr_landing(const char *base);

/* {"conformsTo": [...]}: OGC API - Common 1.0 core, collections and
 * OpenAPI 3.0, and EDR 1.1 core, collections, json, covjson, queries (the
 * EDR class covering position, area and cube) and oas30 (the API document
 * at /api). */
json_t *west_edr_conformance(void);

/* The "wind" collection (see the top of this file); f may be NULL (no
 * field yet: no temporal extent). */
json_t *west_edr_collection(const char *base, const struct west_grid *g,
			    const struct west_field *f);

/* {"links": [self], "collections": [the "wind" collection]}. */
json_t *west_edr_collections(const char *base, const struct west_grid *g,
			     const struct west_field *f);

/* ---- CoverageJSON answers ---------------------------------------------------
 * Common checks (WEST_ERR_INVALID): params a non-empty subset of
 * WEST_EDR_ALL, zref AGL or MSL, the z values finite and strictly
 * monotonic.  WEST_ERR_NOMEM when the document cannot be built.  *out is
 * set only on success.
 */

/*
 * Position at (x, y) (grid CRS, inside the domain, edges included, else
 * WEST_ERR_INVALID naming coords):
 *   nz_req == 1: domainType "Point" at z[0]; a point that the point query
 *                refuses (in terrain, below the ground, above the top) is
 *                WEST_ERR_INVALID with query.c's message;
 *   nz_req == 0: "VerticalProfile" at the centres of the column's levels
 *                that are in the air (west_query_profile); z holds their
 *                heights above the ground (AGL) or altitudes (MSL); an
 *                all-terrain column is WEST_ERR_INVALID;
 *   nz_req > 1:  "VerticalProfile" at z[0 .. nz_req-1]; points the query
 *                refuses are null.
 */
enum west_status west_covjson_position(const struct west_grid *g,
				       const struct west_field *f,
				       double x, double y,
				       const double *z, size_t nz_req,
				       enum west_zref zref, unsigned params,
				       json_t **out, char *err, size_t errlen);

/* The same at longitude lon, latitude lat (CRS84), answered with those as
 * the x and y axes: a grid without has_tm, a point the projection refuses,
 * or one outside the domain is WEST_ERR_INVALID, the last in degrees
 * (west_edr_lonlat_outside). */
enum west_status west_covjson_position_lonlat(const struct west_grid *g,
					      const struct west_field *f,
					      double lon, double lat,
					      const double *z, size_t nz_req,
					      enum west_zref zref, unsigned params,
					      json_t **out, char *err, size_t errlen);

/*
 * Cube (bbox given) or area (bbox NULL): domainType "Grid", in the grid's
 * CRS.
 *   x, y axes: the centres x0 + (i + 1/2) dx, y0 + (j + 1/2) dy of the
 *     columns whose centres lie in the box, edges included; the box is
 *     bbox[4] = {minx, miny, maxx, maxy}, or the polygon's bounding box
 *     when poly is given (then bbox only names the query "cube" in
 *     messages: a CRS84 box comes as the polygon west_edr_bbox_to_grid
 *     makes of it).  No column
 *     centre in the box: WEST_ERR_INVALID saying so.
 *   z axis: z[0 .. nz_req-1]; nz_req == 0: the grid's level centres zc[k] =
 *     (zf[k] + zf[k+1]) / 2: under AGL used as heights above each
 *     column's ground (a terrain-following default), under MSL as the
 *     altitudes base + zc[k] (the cell centres themselves).
 *   values: the point query at each (x, y, z), null where it fails, and
 *     null at columns whose centre is outside the polygon when poly is given.
 * Size cap: when nx * ny * nz * (number of parameters) exceeds max_cells
 * (the config's max_response_cells, whose count is cells times
 * parameters), WEST_ERR_UNSUPPORTED (the HTTP layer's 413) with err
 * "... = N cells, more than max_response_cells = M", before any value is
 * computed.
 */
enum west_status west_covjson_cube(const struct west_grid *g,
				   const struct west_field *f,
				   const double bbox[4],
				   const struct west_polygon *poly,
				   const double *z, size_t nz_req,
				   enum west_zref zref, unsigned params,
				   size_t max_cells, json_t **out,
				   char *err, size_t errlen);

/* One two-dimensional parameter on the grid's columns (a release's
 * outputs, releases.h): its name, the Parameter's description, unit (a
 * UCUM symbol and a label), the observed property's label, and nx * ny
 * values, entry j * nx + i (NaN: null). */
struct west_covjson_layer {
	const char *name, *description, *unit, *unit_label, *property;
	const float *v;
};

/*
 * A "Grid" coverage of n such parameters on every column of g: x, y the
 * column centres in the grid's CRS (a ProjectedCRS as above); z one value,
 * the middle of the layer z0 .. z1 m above the ground, with those bounds;
 * t one value, t1, with bounds t0, t1 (the span the values integrate
 * over); ranges axisNames ["z", "y", "x"], shape [1, ny, nx].
 * WEST_ERR_NOMEM when it cannot be built.
 */
enum west_status west_covjson_columns(const struct west_grid *g,
				      const struct west_covjson_layer *p, size_t n,
				      double z0, double z1, long long t0, long long t1,
				      json_t **out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
