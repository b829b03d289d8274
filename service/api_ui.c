/*
 * api_ui.c: the map page's routes (api.h; docs/operations.md, "The map
 * page"): GET / for browsers, /ui/ and the page's files, embedded in westd
 * (ui_files.h), and /ui/config.json, the page's settings from westd.conf.
 *
 * Content negotiation at /: the EDR landing page (JSON, api_edr.c) unless
 * the request asks for HTML: ?f=html, or an Accept header that rates
 * text/html above application/json (browsers send "text/html,...,
 * *\/\*;q=0.8").  ?f=json is always JSON; no Accept, "*\/\*" or a tie is
 * JSON, so API clients get what they always got.  Every answer at / says
 * Vary: Accept, so that a cache keeps the two apart.
 *
 * The files are answered from the binary with an ETag (their CRC and
 * size) and Cache-Control: no-cache: a browser asks again each time and
 * gets 304 until westd is upgraded.  The page's Content-Security-Policy
 * lets it load and fetch from westd only: no outside network, no inline
 * script or style, no framing.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api.h"
#include "ui_files.h"

#define PAGE "index.html"
#define CSP "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " \
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/* ----------------------------------------------------------- negotiation */

/* The q-value of one Accept element's parameters (";q=0.8"), from p to end. */
static double param_q(const char *p, const char *end)
{
	double q = 1;

	for (; p < end; p++) {
		if (*p != ';')
			continue;
		p += 1 + strspn(p + 1, " \t");
		if ((p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
			q = strtod(p + 2, NULL);
			q = q >= 0 && q <= 1 ? q : 0;   /* NaN and junk too */
		}
	}
	return q;
}

/* How well the media range at p (n bytes) matches type ("text/html"): 3 the
 * type itself, 2 "text/\*", 1 "*\/\*", 0 not at all. */
static int range_match(const char *p, size_t n, const char *type)
{
	size_t tlen = strlen(type), major = strcspn(type, "/");

	if (n == tlen && !strncasecmp(p, type, n))
		return 3;
	if (n == major + 2 && !strncasecmp(p, type, major + 1) && p[major + 1] == '*')
		return 2;
	return n == 3 && !strncmp(p, "*/*", 3);
}

/* The q-value accept gives type: that of the most specific matching range
 * (RFC 9110 12.5.1); 0 when none matches. */
double api_ui_accept_q(const char *accept, const char *type)
{
	int best = 0;
	double q = 0;

	for (const char *p = accept; *p;) {
		const char *end = p + strcspn(p, ",");
		size_t n;
		int m;

		p += strspn(p, " \t");
		n = strcspn(p, "; \t,");
		if ((m = range_match(p, n, type)) > best)
			best = m, q = param_q(p + n, end);
		p = *end ? end + 1 : end;
	}
	return q;
}

int api_ui_wants_html(const char *f, const char *accept, int *html)
{
	if (f) {
		*html = !strcasecmp(f, "html") || !strcasecmp(f, "text/html");
		return *html || !strcasecmp(f, "json") || !strcasecmp(f, "application/json");
	}
	*html = accept && api_ui_accept_q(accept, "text/html") >
			  api_ui_accept_q(accept, "application/json");
	return 1;
}

/* ----------------------------------------------------------------- files */

static const struct west_ui_file *find_file(const char *name)
{
	for (size_t i = 0; i < west_ui_nfiles; i++)
		if (!strcmp(west_ui_files[i].name, name))
			return &west_ui_files[i];
	return NULL;
}

static const char *content_type(const char *name)
{
	static const char *const types[][2] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".js", "text/javascript; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
		{ ".svg", "image/svg+xml" },
	};
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
		size_t k = strlen(types[i][0]);
		if (n > k && !strcmp(name + n - k, types[i][0]))
			return types[i][1];
	}
	return "application/octet-stream";
}

static void serve(struct west_req *r, const struct west_ui_file *f)
{
	west_req_add_header(r, "X-Content-Type-Options", "nosniff");
	if (!strcmp(f->name, PAGE)) {
		west_req_add_header(r, "Content-Security-Policy", CSP);
		west_req_add_header(r, "Referrer-Policy", "no-referrer");
	}
	if (!west_req_etag_tag(r, f->etag))
		west_reply_static(r, 200, content_type(f->name), f->data, f->len);
}

/* The page's settings from westd.conf (all reloadable): the age colours,
 * and the cap on an answer's values, so that the page asks for slices and
 * terrain that fit under it. */
static void config_json(struct west_req *r)
{
	west_req_add_header(r, "Cache-Control", "no-cache");
	west_reply_json(r, 200, json_pack("{s:f, s:f, s:I}", "age_warn", r->live.ui_age_warn,
					  "age_alert", r->live.ui_age_alert,
					  "max_response_cells",
					  (json_int_t)r->live.max_response_cells), NULL);
}

/* ---------------------------------------------------------------- routes */

void api_ui_root(struct west_req *r)
{
	const char *f = west_req_arg(r, "f");
	int html;

	west_req_add_header(r, "Vary", "Accept");
	if (!api_ui_wants_html(f, west_req_header(r, "Accept"), &html))
		west_reply_problem(r, 400, "bad-parameter", "Bad Request",
				   "query parameter f: '%.40s' is not json or html", f);
	else if (html)
		serve(r, find_file(PAGE));
	else
		api_edr_landing(r);
}

void api_ui_redirect(struct west_req *r)
{
	char *text = strdup("the map page is at /ui/\n");

	west_req_add_header(r, "Location", "/ui/");
	if (!text)
		west_reply_problem(r, 503, "out-of-memory", "Service Unavailable", "out of memory");
	else
		west_reply_text(r, 301, "text/plain; charset=utf-8", text, strlen(text));
}

void api_ui_page(struct west_req *r)
{
	serve(r, find_file(PAGE));
}

void api_ui_file(struct west_req *r)
{
	const struct west_ui_file *f;

	if (!strcmp(r->path_arg, "config.json"))
		config_json(r);
	else if ((f = find_file(r->path_arg)))
		serve(r, f);
	else
		west_reply_problem(r, 404, "not-found", "Not Found",
				   "no file %.80s in the map page (GET /ui/ is the page)",
				   r->path_arg);
}
