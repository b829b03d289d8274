/*
 * routes.c: every route westd serves, in one table (api.h, westd_routes):
 * its path, its handlers, whether it needs the token, the query
 * parameters it takes, and what the OpenAPI document says of it.  This is
 * the only place a path is written: the HTTP layer dispatches from the
 * table (http.c), the metrics label requests with its paths (metrics.h),
 * the OpenAPI document is made from it (openapi.c), and tests/test_westd.c
 * checks docs/api.md's route list against it.  Adding a route is one entry
 * here and its handler (docs/design.md section 11).
 *
 * A path is exact, or ends in one "{name}" segment that matches any rest
 * of the URL after the prefix (/v1/snapshots/{name}, /ui/{file}).  The
 * first entry that matches wins.  Parameters are shared objects where two
 * routes take the same one, so each is described once.
 */
#include "api.h"
#include "metrics.h"
#include "openapi.h"

#define JSON "application/json"
#define COVJSON "application/vnd.cov+json"
#define HTML "text/html; charset=utf-8"
#define GEOJSON_TYPE "application/geo+json"

/* ------------------------------------------------------------ parameters */

static const struct west_param
	arg_f_page = { "f", "string", 0, "json|html",
		   "json: the landing page; html: the map page. Without f, Accept decides." },
	arg_f_api = { "f", "string", 0, "json|html",
		  "json: the OpenAPI document; html: a page of it. Without f, Accept decides." },
	arg_f_json = { "f", "string", 0, "json", "Output format: json (the only one)." },
	arg_f_covjson = { "f", "string", 0, "CoverageJSON|covjson",
		      "Output format: CoverageJSON (the only one)." },
	arg_version = { "version", "integer", 0, NULL,
		    "Pin one of the 8 newest field versions (default: the current field); "
		    "404 version-not-held once it is gone." },
	arg_x = { "x", "number", 0, NULL,
	      "Easting in the terrain's projected CRS (m), with y; or give lon and lat." },
	arg_y = { "y", "number", 0, NULL, "Northing in the terrain's projected CRS (m), with x." },
	arg_lon = { "lon", "number", 0, NULL,
		"Longitude (degrees, WGS 84), with lat, instead of x and y; needs a terrain "
		"with a transverse Mercator CRS." },
	arg_lat = { "lat", "number", 0, NULL, "Latitude (degrees, WGS 84), with lon." },
	arg_zref = { "zref", "string", 0, "agl|msl",
		 "What z measures: agl height above the ground (default), msl altitude above "
		 "mean sea level." },
	arg_z_point = { "z", "number", 1, NULL,
		    "Height above the local ground (m, zref=agl) or altitude above mean sea "
		    "level (m, zref=msl)." },
	arg_z_slice = { "z", "number", 1, NULL,
		    "Height above each column's ground (m, zref=agl) or altitude (m, "
		    "zref=msl)." },
	arg_z_position = { "z", "string", 0, NULL,
		       "Heights: one value, a list 10,50,100, or a repeating interval R5/10/20 "
		       "(5 levels from 10 every 20); m above the ground unless zref=msl. "
		       "Without z, the column's levels." },
	arg_z_grid = { "z", "string", 0, NULL,
		   "Heights: one value, a list 10,50,100, or a repeating interval R5/10/20; m "
		   "above the ground unless zref=msl." },
	arg_format_slice = { "format", "string", 0, "json|geotiff",
			 "json (default): the JSON answer; geotiff: a GeoTIFF raster, "
			 "image/tiff, one pixel per sampled column, float32 bands speed, "
			 "direction, u, v." },
	arg_stride = { "stride", "integer", 0, NULL,
		   "Every stride-th column (default 1: every column); more than "
		   "max_response_cells values is 413." },
	arg_parameter_name = { "parameter-name", "string", 0, NULL,
			   "Comma-separated parameters among u, v, w, speed, direction "
			   "(default u,v,w)." },
	arg_datetime = { "datetime", "string", 0, NULL,
		     "An instant (2026-11-22T12:00:00Z), an interval start/end (.. or nothing "
		     "for an open end), or a comma list; one that does not include the field's "
		     "valid time is 404 no-data-at-time." },
	arg_crs = { "crs", "string", 0, NULL,
		"The CRS of coords or bbox: CRS84 (longitude, latitude in degrees, WGS 84; the "
		"default) or the grid's own CRS (x, y in metres), as the collection's crs lists "
		"them (EPSG:n names an EPSG URI there too); any other is 400." },
	arg_coords_point = { "coords", "string", 1, NULL,
			 "POINT(lon lat) in CRS84 (degrees), or POINT(x y) in metres with crs "
			 "naming the grid's CRS; in a URL the space is %20." },
	arg_coords_polygon = { "coords", "string", 1, NULL,
			   "POLYGON((lon lat, lon lat, ...)) in CRS84, or x y (m) with crs "
			   "naming the grid's CRS; closed. Answered on the grid's columns in the "
			   "grid's CRS." },
	arg_bbox = { "bbox", "string", 1, NULL,
		 "minlon,minlat,maxlon,maxlat in CRS84, or minx,miny,maxx,maxy (m) with crs "
		 "naming the grid's CRS." },
	arg_format_release = { "format", "string", 0, "covjson|netcdf",
			   "covjson (default): CoverageJSON; netcdf: a CF NetCDF-4 file "
			   "(application/x-netcdf) as an attachment release-ID.nc." },
	arg_crs_geojson = { "crs", "string", 0, NULL,
			"CRS84 (longitude, latitude on WGS 84, RFC 7946; the default) or the "
			"grid's own CRS as the wind collection's crs lists it (EPSG:n): x, y in "
			"metres, named in the answer's crs member. On a terrain without a "
			"transverse Mercator CRS only the grid's." },
	arg_levels = { "levels", "string", 0, NULL,
		   "Concentration levels (s/m^3), comma-separated, at most 16, each > 0: "
		   "1e-7,1e-6. Default: the maximum over 10^4, 10^3, 100 and 10." };

#define PARAMS(...) ((const struct west_param *const[]){ __VA_ARGS__, NULL })

/* The parameters of each group of routes (macros: a route table entry
 * needs constant expressions). */
#define P_FIELD PARAMS(&arg_version)
#define P_POINT PARAMS(&arg_x, &arg_y, &arg_lon, &arg_lat, &arg_z_point, &arg_zref, &arg_version)
#define P_PROFILE PARAMS(&arg_x, &arg_y, &arg_lon, &arg_lat, &arg_version)
#define P_SLICE PARAMS(&arg_z_slice, &arg_zref, &arg_stride, &arg_format_slice, &arg_version)
#define P_TERRAIN PARAMS(&arg_stride)
#define P_META PARAMS(&arg_f_json)
#define P_EDR(where, z) PARAMS(where, z, &arg_zref, &arg_parameter_name, &arg_datetime, &arg_crs, \
			       &arg_f_covjson, &arg_version)

/* ---------------------------------------------------------------- routes */

static const struct west_post_doc post_release_doc = {
	"Post a release plume",
	"A JSON object: lon and lat (or x and y), height (m above ground, default 10), "
	"duration (s, default 600), hours (simulated, default 1, at most "
	"max_release_hours), particles (default 100000, at most max_particles), seed "
	"(default random) and start (RFC 3339, default the field's valid time); any other "
	"member is 400. Run on the current field, one release at a time in posting order; "
	"202 with its id and href (and Location). 400 a malformed body, 422 a value out of "
	"range, 503 no field yet or releases_queue releases waiting.",
	JSON, "202 415 422 503"
};

static const struct west_post_doc post_observations_doc = {
	"Post an observation set",
	"One set, JSON or CSV (WindNinja station format), validated whole: nothing of a "
	"bad set is applied. Of a time series the newest record of each station is "
	"kept; a station file list is 400 (it names files). 202 with the version it "
	"will make and the times kept; a set older than the current field or outside "
	"obs_max_age/obs_max_future is 422.",
	JSON "|text/csv", "202 413 415 422 503"
};

static const struct west_route_def routes[] = {
	{ "/v1/status", api_get_status, NULL, 0, NULL, "native", "Daemon status",
	  "Version, backend, grid, the current field (null before the first), the last "
	  "solve's report, the queue, the snapshot writer, readiness and uptime.", JSON,
	  "200", NULL },
	{ "/v1/field", api_get_field, NULL, 0, P_FIELD, "native", "The current field's metadata",
	  "Version, valid time, publish time, age, the observation set, the grid and the "
	  "solve report. ETag \"vN\"; If-None-Match gives 304.", JSON, "200 304 404 503",
	  NULL },
	{ "/v1/field/point", api_get_point, NULL, 0, P_POINT, "native", "The wind at a point",
	  "Interpolated trilinearly; below the lowest resolved level by the column's power "
	  "law. A point outside the domain, below the ground or above the top is 422.",
	  JSON, "200 304 404 422 503", NULL },
	{ "/v1/field/profile", api_get_profile, NULL, 0, P_PROFILE, "native",
	  "The wind in a column",
	  "The column's levels in the air, low to high, at the level centres.", JSON,
	  "200 304 404 422 503", NULL },
	{ "/v1/field/slice", api_get_slice, NULL, 0, P_SLICE, "native", "The wind on a level",
	  "Every stride-th column centre at z above its ground (or altitude z), rows south "
	  "to north of values west to east; null below the ground or above the top. "
	  "format=geotiff: a GeoTIFF (float32 bands speed, direction, u, v; north row "
	  "first; nodata -9999) as an attachment westd-vVERSION-Zm.tif.",
	  JSON "|image/tiff", "200 304 404 413 503", NULL },
	{ "/v1/observations", api_get_observations, api_post_observations, 0, NULL, "native",
	  "The current observation set and the history",
	  "The current field's set and the recent sets, newest first, each with its "
	  "status (pending, solved, superseded, failed).", JSON, "200",
	  &post_observations_doc },
	{ "/v1/releases", api_get_releases, api_post_release, 0, NULL, "releases",
	  "The release plumes",
	  "The releases kept, newest first, each its status document, and the limits "
	  "max_particles and max_release_hours.", JSON, "200", &post_release_doc },
	{ "/v1/releases/{id}/concentration", api_get_release_concentration, NULL, 0,
	  PARAMS(&arg_format_release), "releases", "A release's concentration",
	  "The time-integrated concentration near the ground per unit mass released "
	  "(s/m^3) and the arrival time (s) on the grid's columns, CoverageJSON, or CF "
	  "NetCDF with format=netcdf. 409 until the release is done.",
	  COVJSON "|application/x-netcdf", "200 404 409 413", NULL },
	{ "/v1/releases/{id}/footprint", api_get_release_footprint, NULL, 0,
	  PARAMS(&arg_levels, &arg_crs_geojson), "releases", "A release's footprint (GeoJSON)",
	  "A FeatureCollection, one Feature per level (properties.level, s/m^3; area_m2), "
	  "each a MultiPolygon in WGS 84 (RFC 7946) of the ground where the concentration is "
	  "at or above it. 409 until the release is done.", GEOJSON_TYPE,
	  "200 404 409", NULL },
	{ "/v1/releases/{id}/trajectory", api_get_release_trajectory, NULL, 0,
	  PARAMS(&arg_crs_geojson),
	  "releases", "A release's trajectory (GeoJSON)",
	  "A Feature: the LineString of the plume centroid in WGS 84, properties.times "
	  "(RFC 3339) and seconds after the start, heights_agl, particles_in_domain. 409 "
	  "until the release is done.", GEOJSON_TYPE, "200 404 409", NULL },
	{ "/v1/releases/{id}", api_get_release, NULL, 0, NULL, "releases",
	  "A release's status",
	  "Its status (queued, running, done, failed), field_version, particles, outside, "
	  "the release as asked, progress, times, max_concentration, mixing_height, error and "
	  "links.",
	  JSON, "200 404", NULL },
	{ "/v1/snapshots", api_get_snapshots, NULL, 0, NULL, "native", "The NetCDF snapshots",
	  "Newest first.", JSON, "200 503", NULL },
	{ "/v1/snapshots/{name}", api_get_snapshot, NULL, 0, NULL, "native",
	  "One NetCDF snapshot",
	  "Named wind-vVERSION-YYYYmmddTHHMMSSZ.nc; any other name is 404.",
	  "application/x-netcdf", "200 404", NULL },
	{ "/v1/terrain", api_get_terrain, NULL, 0, P_TERRAIN, "native",
	  "The ground under the field",
	  "Ground altitude (m MSL, to the centimetre) at every stride-th column centre. "
	  "ETag; If-None-Match gives 304.", JSON, "200 304 413", NULL },
	{ "/", api_ui_root, NULL, 0, PARAMS(&arg_f_page), "OGC API - EDR", "Landing page",
	  "JSON for API clients (no Accept, */*, application/json); the map page for a "
	  "client that rates text/html above application/json, or with f=html. "
	  "Vary: Accept.", JSON "|" HTML, "200", NULL },
	{ "/api", api_openapi, NULL, 0, PARAMS(&arg_f_api), "API",
	  "This API description (OpenAPI 3.0)",
	  "The OpenAPI 3.0 document of every route, as " WEST_OPENAPI_TYPE " (or "
	  "application/json when asked); an HTML page of it with f=html or for "
	  "an Accept that rates text/html above application/json.",
	  WEST_OPENAPI_TYPE "|" JSON "|" HTML, "200", NULL },
	{ "/ui", api_ui_redirect, NULL, 0, NULL, "map page", "Redirect to the map page", NULL,
	  "text/plain; charset=utf-8", "301", NULL },
	{ "/ui/", api_ui_page, NULL, 0, NULL, "map page", "The live wind map (HTML)", NULL,
	  HTML, "200 304", NULL },
	{ "/ui/{file}", api_ui_file, NULL, 0, NULL, "map page",
	  "The map page's files and settings",
	  "app.js, style.css, icon.svg (ETag, Cache-Control: no-cache), and config.json, "
	  "the page's settings from westd.conf.",
	  "text/javascript; charset=utf-8|text/css; charset=utf-8|image/svg+xml|" JSON,
	  "200 304 404", NULL },
	{ "/conformance", api_edr_conformance, NULL, 0, P_META, "OGC API - EDR",
	  "Conformance classes implemented", NULL, JSON, "200", NULL },
	{ "/collections", api_edr_collections, NULL, 0, P_META, "OGC API - EDR",
	  "The collections: the one collection wind", NULL, JSON, "200", NULL },
	{ "/collections/wind", api_edr_collection, NULL, 0, P_META, "OGC API - EDR",
	  "The wind collection",
	  "Its extent (CRS84 and native bounding boxes, heights, the valid time), its "
	  "queries, parameters and CRSs.", JSON, "200", NULL },
	{ "/collections/wind/position", api_edr_position, NULL, 0, P_EDR(&arg_coords_point, &arg_z_position),
	  "OGC API - EDR", "Position query (CoverageJSON)",
	  "The wind at a point: a Point with one z, else a VerticalProfile. A point the "
	  "field does not cover is 400; a datetime without the field's valid time 404 "
	  "no-data-at-time; more than max_response_cells values 413.",
	  COVJSON, "200 304 404 413 503", NULL },
	{ "/collections/wind/area", api_edr_area, NULL, 0, P_EDR(&arg_coords_polygon, &arg_z_grid), "OGC API - EDR",
	  "Area query (CoverageJSON)",
	  "A Grid over the polygon's bounding box, null outside the polygon and in the "
	  "terrain.", COVJSON, "200 304 404 413 503", NULL },
	{ "/collections/wind/cube", api_edr_cube, NULL, 0, P_EDR(&arg_bbox, &arg_z_grid), "OGC API - EDR",
	  "Cube query (CoverageJSON)", "A Grid over the box, null in the terrain.", COVJSON,
	  "200 304 404 413 503", NULL },
	{ "/livez", api_get_livez, NULL, 1, NULL, "health", "Liveness",
	  "200 while the process answers; never needs the token.", JSON, "200", NULL },
	{ "/readyz", api_get_readyz, NULL, 1, NULL, "health", "Readiness",
	  "200 when a field exists and its age (since its valid time) is at most "
	  "max_field_age, else 503 saying why; never needs the token.", JSON, "200 503",
	  NULL },
	{ "/metrics", api_get_metrics, NULL, 0, NULL, "health", "Prometheus metrics",
	  "Text format 0.0.4.", WEST_METRICS_CONTENT_TYPE, "200", NULL },
};

_Static_assert(sizeof routes / sizeof routes[0] <= WEST_METRICS_MAXROUTES,
	       "more routes than the metrics have labels for");

const struct west_route_def *westd_routes(size_t *n)
{
	*n = sizeof routes / sizeof routes[0];
	return routes;
}
