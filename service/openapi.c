/*
 * openapi.c: the OpenAPI 3.0 document of the API (openapi.h), from the
 * route table (routes.c; docs/api.md says the same in prose: keep the two
 * together when a route changes).
 *
 * Paths, methods (a route's get and post handlers), query parameters and
 * every description come from the table itself; a route or parameter
 * without one is still in the document, marked "x-undocumented": true,
 * and tests/test_westd.c fails on it.  Every operation lists 400 (a parameter the route does not take
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

/* ---------------------------------------------------------- statuses */

/* The reason phrase and what an answer with status code means here. */
static const struct {
	const char *code, *description;
} status_docs[] = {
	{ "200", "OK" },
	{ "202", "Accepted: queued. An observation set: stored, field_version is the version "
		 "it will make (GET /v1/status follows it); a release: Location and href name "
		 "its status" },
	{ "301", "Moved Permanently: Location /ui/" },
	{ "304", "Not Modified: If-None-Match matched the ETag; no body" },
	{ "400", "Bad Request: a parameter missing, malformed, out of range, given twice, "
		 "not supported (unknown-parameter), or a set that does not validate" },
	{ "401", "Unauthorized: a token is configured (api_token; read_auth for reads) and "
		 "the request lacks Authorization: Bearer TOKEN or has a wrong one" },
	{ "404", "Not Found: no such snapshot or release, version not held, or no data at "
		 "datetime" },
	{ "409", "Conflict: the release is not done (queued, running, or failed)" },
	{ "413", "Content Too Large: the body over max_body_bytes, or the answer over "
		 "max_response_cells values" },
	{ "414", "URI Too Long: a query over 8192 bytes (a query of more than 128 "
		 "'&'-separated pieces is a 400)" },
	{ "415", "Unsupported Media Type: neither application/json nor text/csv" },
	{ "422", "Unprocessable Content: the point is not in the air, the set is out of "
		 "date, or a release's value is out of range" },
	{ "503", "Service Unavailable: no field yet, not ready, not stored, or the release "
		 "queue is full" },
};

/* ------------------------------------------------------------- building */

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
	json_object_set_new(rs, "414", problem_response("414"));
	if (!open)
		json_object_set_new(rs, "401", problem_response("401"));
	return rs;
}

static json_t *param_json(const struct west_param *d)
{
	json_t *schema = json_pack("{s:s}", "type", d->type ? d->type : "string");

	if (d->enums)
		json_object_set_new(schema, "enum", json_array());
	for (const char *p = d->enums; p && *p;) {
		size_t n = strcspn(p, "|");
		json_array_append_new(json_object_get(schema, "enum"), json_stringn(p, n));
		p += n + (p[n] == '|');
	}
	if (d->type && !strcmp(d->type, "integer"))
		json_object_set_new(schema, "minimum", json_integer(1));
	if (!d->description)
		return json_pack("{s:s, s:s, s:o, s:b}", "name", d->name, "in", "query",
				 "schema", schema, "x-undocumented", 1);
	return json_pack("{s:s, s:s, s:s, s:b, s:o}", "name", d->name, "in", "query",
			 "description", d->description, "required", d->required,
			 "schema", schema);
}

/* The operation's summary and description, or its path marked
 * x-undocumented when it has none. */
static void describe(json_t *op, const char *path, const char *tag, const char *summary,
		     const char *description)
{
	if (!summary) {
		json_object_set_new(op, "summary", json_string(path));
		json_object_set_new(op, "x-undocumented", json_true());
		return;
	}
	json_object_set_new(op, "tags", json_pack("[s]", tag ? tag : "native"));
	json_object_set_new(op, "summary", json_string(summary));
	if (description)
		json_object_set_new(op, "description", json_string(description));
}

static json_t *operation_json(const struct west_route_def *rt, int post)
{
	json_t *op = json_object(), *params = json_array();
	const struct west_post_doc *pd = rt->post_doc;
	const char *brace = strchr(rt->path, '{');
	char id[160], *q;

	snprintf(id, sizeof id, "%s%s", post ? "post" : "get", rt->path);
	for (q = id; *q; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		      (*q >= '0' && *q <= '9')))
			*q = '_';
	json_object_set_new(op, "operationId", json_string(id));
	if (post) {
		describe(op, rt->path, rt->tag, pd ? pd->summary : NULL,
			 pd ? pd->description : NULL);
		if (pd)
			json_object_set_new(op, "requestBody", json_pack(
				"{s:b, s:o}", "required", 1, "content", content_json(pd->body)));
		json_object_set_new(op, "responses", responses_json(pd ? pd->codes : "200",
								    JSON, rt->open));
	} else {
		describe(op, rt->path, rt->tag, rt->summary, rt->description);
		json_object_set_new(op, "responses", responses_json(rt->codes,
								    rt->types ? rt->types : JSON,
								    rt->open));
	}
	if (brace)
		json_array_append_new(params, json_pack("{s:s#, s:s, s:b, s:{s:s}}", "name",
			brace + 1, (int)strcspn(brace + 1, "}"), "in", "path", "required", 1,
			"schema", "type", "string"));
	if (!post)
		for (const struct west_param *const *p = rt->params; p && *p; p++)
			json_array_append_new(params, param_json(*p));
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
		json_t *item = json_object();

		if (routes[i].get)
			json_object_set_new(item, "get", operation_json(&routes[i], 0));
		if (routes[i].post)
			json_object_set_new(item, "post", operation_json(&routes[i], 1));
		json_object_set_new(paths, routes[i].path, item);
	}
	json_object_set_new(doc, "paths", paths);
	return doc;
}

/* Append "what" to the comma-separated list in buf. */
static void note_missing(char *buf, size_t size, size_t *used, const char *path,
			 const char *param)
{
	if (*used < size)
		*used += (size_t)snprintf(buf + *used, size - *used, "%s%s%s%s",
					  *used ? ", " : "", path, param ? "?" : "",
					  param ? param : "");
}

size_t west_openapi_missing(const struct west_route_def *routes, size_t n, char *buf,
			    size_t size)
{
	size_t missing = 0, used = 0;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if ((routes[i].get && !routes[i].summary) ||
		    (routes[i].post && !(routes[i].post_doc && routes[i].post_doc->summary))) {
			missing++;
			note_missing(buf, size, &used, routes[i].path, NULL);
		}
		for (const struct west_param *const *p = routes[i].params; p && *p; p++)
			if (!(*p)->description) {
				missing++;
				note_missing(buf, size, &used, routes[i].path, (*p)->name);
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
