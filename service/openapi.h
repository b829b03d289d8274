/*
 * openapi.h: the OpenAPI 3.0 document of westd's API (GET /api), made from
 * the route table (routes.c) and the descriptions in it: every route, its
 * methods, its query parameters and their descriptions come from the
 * table, so a new route is in the document the moment it is routed;
 * a route or parameter without a description is marked x-undocumented
 * and west_openapi_missing (tests/test_westd.c) finds it.
 */
#ifndef WEST_OPENAPI_H
#define WEST_OPENAPI_H
#include <jansson.h>
#include <stddef.h>

#include "http.h"

#define WEST_OPENAPI_TYPE "application/vnd.oai.openapi+json;version=3.0"

/* The document (new reference), servers[0] base ("http://HOST"). */
json_t *west_openapi(const struct west_route_def *routes, size_t n, const char *base);

/* The number of routes and route parameters without a description, their
 * names into buf ("", when none) as "PATH" or "PATH?NAME", comma-separated. */
size_t west_openapi_missing(const struct west_route_def *routes, size_t n, char *buf,
			    size_t size);

/* A self-contained HTML page of doc (malloc'd, *len its length; NULL when
 * out of memory): nothing fetched from elsewhere. */
char *west_openapi_html(const json_t *doc, size_t *len);

#endif
