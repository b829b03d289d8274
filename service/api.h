/*
 * api.h: westd's routes (api.c: the native /v1 API, health, metrics;
 * api_releases.c: release plumes; api_edr.c: OGC API - EDR; api_ui.c:
 * the map page) and the argument
 * helpers they share.  The
 * helpers answer the request (400) and return 0 when an argument is bad.
 */
#ifndef WEST_API_H
#define WEST_API_H
#include "http.h"
#include "query.h"

/* The route table for west_http_start (routes.c). */
const struct west_route_def *westd_routes(size_t *n);

/* api.c: the native routes, health and metrics (docs/api.md). */
void api_get_status(struct west_req *r);
void api_get_field(struct west_req *r);
void api_get_point(struct west_req *r);
void api_get_profile(struct west_req *r);
void api_get_slice(struct west_req *r);
void api_get_terrain(struct west_req *r);
void api_get_observations(struct west_req *r);
void api_post_observations(struct west_req *r);
void api_get_snapshots(struct west_req *r);
void api_get_snapshot(struct west_req *r);
void api_get_livez(struct west_req *r);
void api_get_readyz(struct west_req *r);
void api_get_metrics(struct west_req *r);

/* Query argument name as a finite number; absent: 1 when !required (v
 * untouched), else 400. */
int api_arg_double(struct west_req *r, const char *name, int required, double *v);
/* zref=agl|msl (default agl). */
int api_arg_zref(struct west_req *r, enum west_zref *zref);
/* The field to answer from (current, or ?version=), held; NULL when the
 * request was answered (503 no field, 404 version not held, 304). */
struct west_published *api_field(struct west_req *r);
/* lon/lat asked of a grid without them (crs.has_tm 0): answered 400
 * no-crs with the reason, 1; else 0. */
int api_no_lonlat(struct west_req *r, const struct west_grid *g);
/* The grid's description for JSON answers. */
json_t *api_grid_json(const struct west_grid *g);

/* api_releases.c: release plumes (docs/api.md "Releases") */
void api_post_release(struct west_req *r);
void api_get_releases(struct west_req *r);
void api_get_release(struct west_req *r);
void api_get_release_concentration(struct west_req *r);
void api_get_release_footprint(struct west_req *r);
void api_get_release_trajectory(struct west_req *r);

/* api_edr.c */
void api_edr_landing(struct west_req *r);
void api_edr_conformance(struct west_req *r);
void api_edr_collections(struct west_req *r);
void api_edr_collection(struct west_req *r);
void api_edr_position(struct west_req *r);
void api_edr_area(struct west_req *r);
void api_edr_cube(struct west_req *r);

/* GET /api: the OpenAPI document (openapi.h) of routes[], JSON or HTML. */
void api_openapi(struct west_req *r);

/* api_ui.c */
void api_ui_root(struct west_req *r);       /* /: JSON landing or the page */
void api_ui_redirect(struct west_req *r);   /* /ui -> /ui/ */
void api_ui_page(struct west_req *r);       /* /ui/ */
void api_ui_file(struct west_req *r);       /* /ui/{file}, /ui/config.json */
/* What / answers: *html 1 for the page, 0 for JSON, from ?f= (f, NULL when
 * absent) or else the Accept header (NULL when absent); 0 when f is
 * neither json nor html. */
int api_ui_wants_html(const char *f, const char *accept, int *html);
/* The q-value accept gives the media type type (RFC 9110 12.5.1: that of
 * the most specific matching range); 0 when none matches. */
double api_ui_accept_q(const char *accept, const char *type);

#endif
