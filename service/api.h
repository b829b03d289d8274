/*
 * api.h: westd's routes (api.c: the native /v1 API, health, metrics;
 * api_edr.c: OGC API - EDR) and the argument helpers they share.  The
 * helpers answer the request (400) and return 0 when an argument is bad.
 */
#ifndef WEST_API_H
#define WEST_API_H
#include "http.h"
#include "query.h"

/* The route table for west_http_start. */
const struct west_route_def *westd_routes(size_t *n);

/* Query argument name as a finite number; absent: 1 when !required (v
 * untouched), else 400. */
int api_arg_double(struct west_req *r, const char *name, int required, double *v);
/* zref=agl|msl (default agl). */
int api_arg_zref(struct west_req *r, enum west_zref *zref);
/* The field to answer from (current, or ?version=), held; NULL when the
 * request was answered (503 no field, 404 version not held, 304). */
struct west_published *api_field(struct west_req *r);
/* The grid's description for JSON answers. */
json_t *api_grid_json(const struct west_grid *g);

/* api_edr.c */
void api_edr_landing(struct west_req *r);
void api_edr_conformance(struct west_req *r);
void api_edr_collections(struct west_req *r);
void api_edr_collection(struct west_req *r);
void api_edr_position(struct west_req *r);
void api_edr_area(struct west_req *r);
void api_edr_cube(struct west_req *r);

#endif
