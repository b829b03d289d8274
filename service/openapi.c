/*
 * openapi.c: the OpenAPI 3.0 document of the API (openapi.h), from the
 * route table and the descriptions below (docs/api.md says the same in
 * prose; keep the two together when a route changes).
 *
 * Paths, methods (a route's get and post handlers) and query parameters
 * (its params list) come from the table itself.  The descriptions are
 * looked up by path and parameter name; what has none is still in the
 * document, marked "x-undocumented": true, and tests/test_westd.c fails
 * on it.  Every operation lists 400 (a parameter the route does not take
 * is refused, so even a route with none can answer 400) and, unless the
 * route is open (health), 401 (a token and read_auth); the others are
 * per route.  Errors are application/problem+json (RFC 9457).
 */
#include "openapi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

#define JSON "application/json"
#define COVJSON "application/vnd.cov+json"
#define HTML "text/html; charset=utf-8"

/* ---------------------------------------------------------- descriptions */

struct route_doc {
	const char *path;        /* as in routes[] */
	const char *tag;
	const char *summary, *description;
	const char *types;       /* GET's answer media types, '|'-separated */
	const char *codes;       /* GET's statuses besides 400/401, space-separated */
};

/* The routes that take POST: their answer is JSON. */
static const struct post_doc {
	const char *path, *summary, *description;
	const char *body;        /* the request's media types, '|'-separated */
	const char *codes;
} post_docs[] = {
	{ "/v1/observations", "Post an observation set",
	  "One set, JSON or CSV (WindNinja station format), validated whole: nothing of a "
	  "bad set is applied. 202 with the version it will make; a set older than the "
	  "current field or outside obs_max_age/obs_max_future is 422.",
	  JSON "|text/csv", "202 413 415 422 503" },
};

static const struct route_doc route_docs[] = {
	{ "/", "OGC API - EDR", "Landing page",
	  "JSON for API clients (no Accept, */*, application/json); the map page for a "
	  "client that rates text/html above application/json, or with f=html. "
	  "Vary: Accept.", JSON "|" HTML, "200" },
	{ "/api", "API", "This API description (OpenAPI 3.0)",
	  "The OpenAPI 3.0 document of every route, as " WEST_OPENAPI_TYPE " (or "
	  "application/json when the client asks for it); an HTML page of it with f=html or "
	  "an Accept that rates text/html above application/json.",
	  WEST_OPENAPI_TYPE "|" JSON "|" HTML, "200" },
	{ "/conformance", "OGC API - EDR", "Conformance classes implemented", NULL, JSON,
	  "200" },
	{ "/collections", "OGC API - EDR", "The collections: the one collection wind", NULL,
	  JSON, "200" },
	{ "/collections/wind", "OGC API - EDR", "The wind collection",
	  "Its extent (CRS84 and native bounding boxes, heights, the valid time), its "
	  "queries and parameters.", JSON, "200" },
	{ "/collections/wind/position", "OGC API - EDR", "Position query (CoverageJSON)",
	  "The wind at a point: a Point with one z, else a VerticalProfile. A point the "
	  "field does not cover is 400; a datetime without the field's valid time 404 "
	  "no-data-at-time; more than max_response_cells values 413.",
	  COVJSON, "200 304 404 413 503" },
	{ "/collections/wind/area", "OGC API - EDR", "Area query (CoverageJSON)",
	  "A Grid over the polygon's bounding box, null outside the polygon and in the "
	  "terrain.", COVJSON, "200 304 404 413 503" },
	{ "/collections/wind/cube", "OGC API - EDR", "Cube query (CoverageJSON)",
	  "A Grid over the box, null in the terrain.", COVJSON, "200 304 404 413 503" },
	{ "/v1/status", "native", "Daemon status",
	  "Version, backend, grid, the current field (null before the first), the last "
	  "solve's report, the queue, the snapshot writer, readiness and uptime.", JSON,
	  "200" },
	{ "/v1/field", "native", "The current field's metadata",
	  "Version, valid time, publish time, age, the observation set, the grid and the "
	  "solve report. ETag \"vN\"; If-None-Match gives 304.", JSON, "200 304 404 503" },
	{ "/v1/field/point", "native", "The wind at a point",
	  "Interpolated trilinearly; below the lowest resolved level by the column's power "
	  "law. A point outside the domain, below the ground or above the top is 422.",
	  JSON, "200 304 404 422 503" },
	{ "/v1/field/profile", "native", "The wind in a column",
	  "The column's levels in the air, low to high, at the level centres.", JSON,
	  "200 304 404 422 503" },
	{ "/v1/field/slice", "native", "The wind on a level",
	  "Every stride-th column centre at z above its ground (or altitude z), rows south "
	  "to north of values west to east; null below the ground or above the top.",
	  JSON, "200 304 404 413 503" },
	{ "/v1/observations", "native", "The current observation set and the history",
	  "The current field's set and the recent sets, newest first, each with its "
	  "status (pending, solved, superseded, failed).", JSON, "200" },
	{ "/v1/snapshots", "native", "The NetCDF snapshots", "Newest first.", JSON,
	  "200 503" },
	{ "/v1/snapshots/*", "native", "One NetCDF snapshot",
	  "Named wind-vVERSION-YYYYmmddTHHMMSSZ.nc; any other name is 404.",
	  "application/x-netcdf", "200 404" },
	{ "/v1/terrain", "native", "The ground under the field",
	  "Ground altitude (m MSL, to the centimetre) at every stride-th column centre. "
	  "ETag; If-None-Match gives 304.", JSON, "200 304 413" },
	{ "/ui", "map page", "Redirect to the map page", NULL, "text/plain; charset=utf-8",
	  "301" },
	{ "/ui/", "map page", "The live wind map (HTML)", NULL, HTML, "200 304" },
	{ "/ui/*", "map page", "The map page's files and settings",
	  "app.js, style.css, icon.svg (ETag, Cache-Control: no-cache), and config.json, "
	  "the page's settings from westd.conf.",
	  "text/javascript; charset=utf-8|text/css; charset=utf-8|image/svg+xml|" JSON,
	  "200 304 404" },
	{ "/livez", "health", "Liveness", "200 while the process answers; never needs the "
	  "token.", JSON, "200" },
	{ "/readyz", "health", "Readiness",
	  "200 when a field exists and its age (since its valid time) is at most "
	  "max_field_age, else 503 saying why; never needs the token.", JSON, "200 503" },
	{ "/metrics", "health", "Prometheus metrics", "Text format 0.0.4.",
	  "text/plain; version=0.0.4; charset=utf-8", "200" },
};

struct param_doc {
	const char *path;        /* NULL: any route taking name */
	const char *name, *type; /* "number", "integer", "string" */
	int required;
	const char *enums;       /* '|'-separated, or NULL */
	const char *description;
};

/* Route-specific entries first: the first match wins. */
static const struct param_doc param_docs[] = {
	{ "/", "f", "string", 0, "json|html",
	  "json: the landing page; html: the map page. Without f, Accept decides." },
	{ "/api", "f", "string", 0, "json|html",
	  "json: the OpenAPI document; html: a page of it. Without f, Accept decides." },
	{ "/collections/wind/position", "coords", "string", 1, NULL,
	  "POINT(lon lat) in CRS84 (degrees), or POINT(x y) in metres with crs naming the "
	  "grid's CRS; in a URL the space is %20." },
	{ "/collections/wind/area", "coords", "string", 1, NULL,
	  "POLYGON((lon lat, lon lat, ...)) in CRS84, or x y (m) with crs naming the "
	  "grid's CRS; closed. Answered on the grid's columns in the grid's CRS." },
	{ "/collections/wind/position", "f", "string", 0, "CoverageJSON|covjson",
	  "Output format: CoverageJSON (the only one)." },
	{ "/collections/wind/area", "f", "string", 0, "CoverageJSON|covjson",
	  "Output format: CoverageJSON (the only one)." },
	{ "/collections/wind/cube", "f", "string", 0, "CoverageJSON|covjson",
	  "Output format: CoverageJSON (the only one)." },
	{ "/collections/wind/position", "z", "string", 0, NULL,
	  "Heights: one value, a list 10,50,100, or a repeating interval R5/10/20 (5 "
	  "levels from 10 every 20); m above the ground unless zref=msl. Without z, the "
	  "column's levels." },
	{ "/collections/wind/area", "z", "string", 0, NULL,
	  "Heights: one value, a list 10,50,100, or a repeating interval R5/10/20; m above "
	  "the ground unless zref=msl." },
	{ "/collections/wind/cube", "z", "string", 0, NULL,
	  "Heights: one value, a list 10,50,100, or a repeating interval R5/10/20; m above "
	  "the ground unless zref=msl." },
	{ "/v1/field/point", "z", "number", 1, NULL,
	  "Height above the local ground (m, zref=agl) or altitude above mean sea level "
	  "(m, zref=msl)." },
	{ "/v1/field/slice", "z", "number", 1, NULL,
	  "Height above each column's ground (m, zref=agl) or altitude (m, zref=msl)." },
	{ NULL, "f", "string", 0, "json", "Output format: json (the only one)." },
	{ NULL, "version", "integer", 0, NULL,
	  "Pin one of the 8 newest field versions (default: the current field); 404 "
	  "version-not-held once it is gone." },
	{ NULL, "x", "number", 0, NULL,
	  "Easting in the terrain's projected CRS (m), with y; or give lon and lat." },
	{ NULL, "y", "number", 0, NULL, "Northing in the terrain's projected CRS (m), with x." },
	{ NULL, "lon", "number", 0, NULL,
	  "Longitude (degrees, WGS 84), with lat, instead of x and y; needs a terrain with "
	  "a transverse Mercator CRS." },
	{ NULL, "lat", "number", 0, NULL, "Latitude (degrees, WGS 84), with lon." },
	{ NULL, "zref", "string", 0, "agl|msl",
	  "What z measures: agl height above the ground (default), msl altitude above mean "
	  "sea level." },
	{ NULL, "stride", "integer", 0, NULL,
	  "Every stride-th column (default 1: every column); more than max_response_cells "
	  "values is 413." },
	{ NULL, "parameter-name", "string", 0, NULL,
	  "Comma-separated parameters among u, v, w, speed, direction (default u,v,w)." },
	{ NULL, "datetime", "string", 0, NULL,
	  "An instant (2026-11-22T12:00:00Z), an interval start/end (.. or nothing for an "
	  "open end), or a comma list; one that does not include the field's valid time is "
	  "404 no-data-at-time." },
	{ NULL, "crs", "string", 0, NULL,
	  "The CRS of coords or bbox: CRS84 (longitude, latitude in degrees, WGS 84; the "
	  "default) or the grid's own CRS (x, y in metres), as the collection's crs lists "
	  "them (EPSG:n names an EPSG URI there too); any other is 400." },
	{ NULL, "bbox", "string", 1, NULL,
	  "minlon,minlat,maxlon,maxlat in CRS84, or minx,miny,maxx,maxy (m) with crs "
	  "naming the grid's CRS." },
};

/* The reason phrase and what an answer with status code means here. */
static const struct {
	const char *code, *description;
} status_docs[] = {
	{ "200", "OK" },
	{ "202", "Accepted: the set is stored and queued; field_version is the version it "
		 "will make (GET /v1/status follows it)" },
	{ "301", "Moved Permanently: Location /ui/" },
	{ "304", "Not Modified: If-None-Match matched the ETag; no body" },
	{ "400", "Bad Request: a parameter missing, malformed, out of range, given twice, "
		 "not supported (unknown-parameter), or a set that does not validate" },
	{ "401", "Unauthorized: a token is configured (api_token; read_auth for reads) and "
		 "the request lacks Authorization: Bearer TOKEN or has a wrong one" },
	{ "404", "Not Found: no such snapshot, version not held, or no data at datetime" },
	{ "413", "Content Too Large: the body over max_body_bytes, or the answer over "
		 "max_response_cells values" },
	{ "415", "Unsupported Media Type: neither application/json nor text/csv" },
	{ "422", "Unprocessable Content: the point is not in the air, or the set is out of "
		 "date" },
	{ "503", "Service Unavailable: no field yet, not ready, or not stored" },
};

/* ------------------------------------------------------------- building */

void west_openapi_path(const char *route_path, char *buf, size_t size)
{
	size_t n = strlen(route_path);

	if (n >= 2 && route_path[n - 1] == '*' && route_path[n - 2] == '/')
		snprintf(buf, size, "%.*s{%s}", (int)(n - 1), route_path,
			 !strncmp(route_path, "/ui/", 4) ? "file" : "name");
	else
		snprintf(buf, size, "%s", route_path);
}

static const struct route_doc *find_route(const char *path)
{
	for (size_t i = 0; i < sizeof route_docs / sizeof route_docs[0]; i++)
		if (!strcmp(route_docs[i].path, path))
			return &route_docs[i];
	return NULL;
}

static const struct param_doc *find_param(const char *path, const char *name)
{
	for (size_t i = 0; i < sizeof param_docs / sizeof param_docs[0]; i++)
		if ((!param_docs[i].path || !strcmp(param_docs[i].path, path)) &&
		    !strcmp(param_docs[i].name, name))
			return &param_docs[i];
	return NULL;
}

static const struct post_doc *find_post(const char *path)
{
	for (size_t i = 0; i < sizeof post_docs / sizeof post_docs[0]; i++)
		if (!strcmp(post_docs[i].path, path))
			return &post_docs[i];
	return NULL;
}

static const char *status_description(const char *code)
{
	for (size_t i = 0; i < sizeof status_docs / sizeof status_docs[0]; i++)
		if (!strcmp(status_docs[i].code, code))
			return status_docs[i].description;
	return "";
}

/* {"TYPE": {}, ...} of a '|'-separated list. */
static json_t *content_json(const char *types)
{
	json_t *c = json_object();

	while (types && *types) {
		size_t n = strcspn(types, "|");
		char t[128];

		snprintf(t, sizeof t, "%.*s", (int)n, types);
		json_object_set_new(c, t, json_object());
		types += n + (types[n] == '|');
	}
	return c;
}

static json_t *problem_response(const char *code)
{
	return json_pack("{s:s, s:{s:{s:{s:s}}}}", "description", status_description(code),
			 "content", "application/problem+json", "schema", "$ref",
			 "#/components/schemas/Problem");
}

/* The responses object: codes (space-separated), 400, 401 unless open. */
static json_t *responses_json(const char *codes, const char *types, int open)
{
	json_t *rs = json_object();
	char code[8];

	for (const char *p = codes ? codes : "200"; *p;) {
		size_t n = strcspn(p, " ");

		snprintf(code, sizeof code, "%.*s", (int)n, p);
		if (code[0] == '2' || code[0] == '3') {
			json_t *o = json_pack("{s:s}", "description", status_description(code));
			if (code[0] == '2' || !strcmp(code, "301"))
				json_object_set_new(o, "content", content_json(
					code[0] == '2' ? types : "text/plain; charset=utf-8"));
			json_object_set_new(rs, code, o);
		} else {
			json_object_set_new(rs, code, problem_response(code));
		}
		p += n + (p[n] == ' ');
	}
	json_object_set_new(rs, "400", problem_response("400"));
	if (!open)
		json_object_set_new(rs, "401", problem_response("401"));
	return rs;
}

static json_t *param_json(const char *path, const char *name)
{
	const struct param_doc *d = find_param(path, name);
	json_t *schema, *o;

	if (!d)
		return json_pack("{s:s, s:s, s:{s:s}, s:b}", "name", name, "in", "query",
				 "schema", "type", "string", "x-undocumented", 1);
	schema = json_pack("{s:s}", "type", d->type);
	if (d->enums)
		json_object_set_new(schema, "enum", json_array());
	for (const char *p = d->enums; p && *p;) {
		size_t n = strcspn(p, "|");
		json_array_append_new(json_object_get(schema, "enum"), json_stringn(p, n));
		p += n + (p[n] == '|');
	}
	if (!strcmp(d->type, "integer"))
		json_object_set_new(schema, "minimum", json_integer(1));
	o = json_pack("{s:s, s:s, s:s, s:b, s:o}", "name", name, "in", "query",
		      "description", d->description, "required", d->required, "schema", schema);
	return o;
}

static json_t *operation_json(const struct west_route_def *rt, const struct route_doc *d,
			      int post, const char *oapath)
{
	json_t *op = json_object(), *params = json_array();
	const struct post_doc *pd;
	char id[160], *q;

	snprintf(id, sizeof id, "%s%s", post ? "post" : "get", oapath);
	for (q = id; *q; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		      (*q >= '0' && *q <= '9')))
			*q = '_';
	json_object_set_new(op, "operationId", json_string(id));
	if (post && (pd = find_post(rt->path))) {
		json_object_set_new(op, "tags", json_pack("[s]", d ? d->tag : "native"));
		json_object_set_new(op, "summary", json_string(pd->summary));
		json_object_set_new(op, "description", json_string(pd->description));
		json_object_set_new(op, "requestBody", json_pack("{s:b, s:o}", "required", 1,
								 "content", content_json(pd->body)));
		json_object_set_new(op, "responses", responses_json(pd->codes, JSON, rt->open));
	} else if (!d || post) {
		json_object_set_new(op, "summary", json_string(rt->path));
		json_object_set_new(op, "x-undocumented", json_true());
		json_object_set_new(op, "responses", responses_json("200", JSON, rt->open));
	} else {
		json_object_set_new(op, "tags", json_pack("[s]", d->tag));
		json_object_set_new(op, "summary", json_string(d->summary));
		if (d->description)
			json_object_set_new(op, "description", json_string(d->description));
		json_object_set_new(op, "responses", responses_json(d->codes, d->types,
								    rt->open));
	}
	if (strchr(oapath, '{')) {
		const char *b = strchr(oapath, '{');
		json_array_append_new(params, json_pack("{s:s#, s:s, s:b, s:{s:s}}", "name",
			b + 1, (int)(strlen(b) - 2), "in", "path", "required", 1, "schema",
			"type", "string"));
	}
	if (!post)
		for (const char *const *p = rt->params; p && *p; p++)
			json_array_append_new(params, param_json(rt->path, *p));
	if (json_array_size(params))
		json_object_set_new(op, "parameters", params);
	else
		json_decref(params);
	if (rt->open)
		json_object_set_new(op, "security", json_array());
	return op;
}

json_t *west_openapi(const struct west_route_def *routes, size_t n, const char *base)
{
	json_t *paths = json_object();
	json_t *doc = json_pack(
		"{s:s, s:{s:s, s:s, s:s}, s:[{s:s}], s:[{}, {s:[]}], s:{s:{s:{s:s, s:[s,s,s,s], "
		"s:{s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}}}}, s:{s:{s:s, s:s, s:s}}}}",
		"openapi", "3.0.3",
		"info", "title", "westd", "version", PACKAGE_VERSION,
		"description", "Mass-consistent 3D wind field over terrain (WEST model): an "
		"OGC API - EDR subset (position, area, cube; CoverageJSON) and westd's native "
		"API under /v1. Errors are application/problem+json (RFC 9457). With api_token "
		"set, POST needs Authorization: Bearer TOKEN, and with read_auth every route "
		"but /livez and /readyz. docs/api.md describes every route.",
		"servers", "url", base,
		"security", "bearerAuth",
		"components", "schemas", "Problem", "type", "object", "required", "type", "title",
		"status", "detail", "properties", "type", "type", "string", "title", "type",
		"string", "status", "type", "integer", "detail", "type", "string", "instance",
		"type", "string",
		"securitySchemes", "bearerAuth", "type", "http", "scheme", "bearer",
		"description", "api_token (docs/operations.md)");

	if (!doc) {
		json_decref(paths);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct route_doc *d = find_route(routes[i].path);
		char oapath[160];
		json_t *item = json_object();

		west_openapi_path(routes[i].path, oapath, sizeof oapath);
		if (routes[i].get)
			json_object_set_new(item, "get",
					    operation_json(&routes[i], d, 0, oapath));
		if (routes[i].post)
			json_object_set_new(item, "post",
					    operation_json(&routes[i], d, 1, oapath));
		json_object_set_new(paths, oapath, item);
	}
	json_object_set_new(doc, "paths", paths);
	return doc;
}

size_t west_openapi_missing(const struct west_route_def *routes, size_t n, char *buf,
			    size_t size)
{
	size_t missing = 0, used = 0;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const struct route_doc *d = find_route(routes[i].path);
		int bad = !d || (routes[i].post && !find_post(routes[i].path));

		if (bad) {
			missing++;
			if (used < size)
				used += (size_t)snprintf(buf + used, size - used, "%s%s",
							 used ? ", " : "", routes[i].path);
		}
		for (const char *const *p = routes[i].params; p && *p; p++)
			if (!find_param(routes[i].path, *p)) {
				missing++;
				if (used < size)
					used += (size_t)snprintf(buf + used, size - used,
								 "%s%s?%s", used ? ", " : "",
								 routes[i].path, *p);
			}
	}
	return missing;
}

/* ----------------------------------------------------------------- HTML */

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void html_operation(FILE *f, const char *path, const char *method, const json_t *op)
{
	const json_t *params = json_object_get(op, "parameters"), *p, *r;
	const char *code;
	size_t i;

	fputs("<section><h3><code>", f);
	esc(f, method);
	fputc(' ', f);
	esc(f, path);
	fputs("</code></h3>\n<p><b>", f);
	esc(f, str(op, "summary"));
	fputs("</b>", f);
	if (str(op, "description")) {
		fputs(": ", f);
		esc(f, str(op, "description"));
	}
	fputs("</p>\n", f);
	if (params) {
		fputs("<table><tr><th>parameter</th><th>in</th><th>type</th><th>required</th>"
		      "<th>description</th></tr>\n", f);
		json_array_foreach(params, i, p) {
			const json_t *s = json_object_get(p, "schema"), *e = json_object_get(s, "enum"), *v;
			size_t k;

			fputs("<tr><td><code>", f);
			esc(f, str(p, "name"));
			fputs("</code></td><td>", f);
			esc(f, str(p, "in"));
			fputs("</td><td>", f);
			esc(f, str(s, "type"));
			json_array_foreach(e, k, v) {
				fputs(k ? ", " : ": ", f);
				esc(f, json_string_value(v));
			}
			fprintf(f, "</td><td>%s</td><td>",
				json_is_true(json_object_get(p, "required")) ? "yes" : "no");
			esc(f, str(p, "description"));
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	fputs("<ul>\n", f);
	json_object_foreach((json_t *)json_object_get(op, "responses"), code, r) {
		const char *type;
		json_t *v;

		fputs("<li><b>", f);
		esc(f, code);
		fputs("</b> ", f);
		esc(f, str(r, "description"));
		json_object_foreach((json_t *)json_object_get(r, "content"), type, v) {
			fputs(" <code>", f);
			esc(f, type);
			fputs("</code>", f);
		}
		fputs("</li>\n", f);
	}
	fputs("</ul></section>\n", f);
}

char *west_openapi_html(const json_t *doc, size_t *len)
{
	const json_t *info = json_object_get(doc, "info"), *item, *op;
	const char *path, *method;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
	esc(f, str(info, "title"));
	fputs(" API</title>\n<style>body{font-family:sans-serif;max-width:60em;margin:auto;"
	      "padding:0 1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
	      "padding:.2em .4em;text-align:left;vertical-align:top}code{font-size:95%}"
	      "section{border-top:1px solid #ddd}</style>\n</head><body>\n<h1>", f);
	esc(f, str(info, "title"));
	fputs(" API ", f);
	esc(f, str(info, "version"));
	fputs("</h1>\n<p>", f);
	esc(f, str(info, "description"));
	fputs("</p>\n<p>OpenAPI ", f);
	esc(f, str(doc, "openapi"));
	fputs(": <a href=\"/api?f=json\">the document as JSON</a>.</p>\n", f);
	json_object_foreach((json_t *)json_object_get(doc, "paths"), path, item)
		json_object_foreach((json_t *)item, method, op)
			html_operation(f, path, method, op);
	fputs("</body></html>\n", f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
