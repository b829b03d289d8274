/*
 * http.h: westd's HTTP server (libmicrohttpd: an internal epoll polling
 * thread with a pool of http_threads threads) and the request plumbing the
 * routes (api.c) share: the request body with its size cap, bearer-token
 * checks, JSON and problem+json (RFC 9457) answers, ETag / If-None-Match,
 * and one metrics sample per request.
 *
 * Request targets: one longer than 8192 bytes gets 414, a query of more
 * than 128 '&'-separated pieces 400, both before libmicrohttpd parses the
 * query (http.c, "request targets", says why).
 * A request's life: libmicrohttpd calls the access handler once with the
 * headers (a request context is made; a Content-Length over max_body_bytes
 * gets 413 at once, without reading the body), then once per body chunk
 * (appended, up to the cap), then once more with no data: the route is
 * found and its handler runs, answering with exactly one west_reply_*.
 * The completion callback records the metrics and frees the context.
 *
 * Routes and methods: an unknown path gets 404, a known path with another
 * method 405 with Allow; HEAD is answered like GET without the body.
 * Query parameters: each route lists the ones it takes (params, declared
 * in its route table); before its handler runs, a parameter it does not
 * take, one given twice or one without a value, gets 400
 * (unknown-parameter, bad-parameter)
 * naming it and listing those the route takes, so that a misspelt or
 * unsupported parameter is never silently ignored.
 * Authorization (when a token is configured): every write, and every read
 * but /livez and /readyz when read_auth = yes, needs "Authorization:
 * Bearer TOKEN" (compared in constant time); else 401 with
 * WWW-Authenticate.
 */
#ifndef WEST_HTTP_H
#define WEST_HTTP_H
#include <jansson.h>
#include <stddef.h>
#include "daemon.h"
#include "metrics.h"
#include "status.h"

struct MHD_Connection;
struct MHD_Daemon;

/* One request, for its handler. */
struct west_req {
	struct westd *d;
	struct MHD_Connection *conn;
	const char *method, *url;
	size_t route;               /* its index in the route table;
				     * WEST_ROUTE_NONE when no route took it */
	struct westd_live live;     /* the reloadable values, at its start */
	char *body;                 /* the request body, NUL-terminated */
	size_t len, cap;
	int too_large;              /* the body passed max_body_bytes */
	int head;                   /* HEAD: answer without the body */
	unsigned status;            /* the answer's status, once queued */
	double t0;                  /* CLOCK_MONOTONIC s at its start */
	const char *path_arg;       /* the {name} of /v1/snapshots/{name}, or of
				     * /v1/releases/{id}/footprint (then in seg) */
	char seg[64];
	struct { char name[32], value[224]; } hdr[8]; /* for the next answer */
	int nhdr;
};

typedef void (*west_handler)(struct west_req *r);

/* One query parameter a route takes, as the OpenAPI document describes
 * it. */
struct west_param {
	const char *name, *type;    /* type: "number", "integer", "string" */
	int required;
	const char *enums;          /* the values allowed, '|'-separated; NULL: any */
	const char *description;
};

/* What a route's POST takes and answers, for the OpenAPI document. */
struct west_post_doc {
	const char *summary, *description;
	const char *body;           /* the request's media types, '|'-separated */
	const char *codes;          /* its statuses besides 400/401, space-separated */
};

/* One route (routes.c holds the table, the only place a path is written). */
struct west_route_def {
	const char *path;           /* exact, or with one "{name}" segment: at the
				     * end it matches any rest after the prefix;
				     * followed by more path, one non-empty
				     * segment without '/' (at most 63 bytes)
				     * and then exactly that rest */
	west_handler get, post;     /* NULL: method not allowed */
	int open;                   /* 1: never needs a token (health) */
	const struct west_param *const *params; /* the query parameters it takes,
						 * NULL-terminated; NULL: none */
	/* GET, for the OpenAPI document: */
	const char *tag, *summary, *description;
	const char *types;          /* the answer's media types, '|'-separated */
	const char *codes;          /* statuses besides 400/401, space-separated */
	const struct west_post_doc *post_doc;  /* with post */
};

struct west_http {
	struct MHD_Daemon *mhd;
	struct westd *d;
	const struct west_route_def *routes;
	size_t nroutes;
	unsigned short port;        /* the bound port */
};

/* Listen on d->conf.listen (HOST:PORT, [V6]:PORT; port 0 = any free). */
enum west_status west_http_start(struct west_http *h, struct westd *d,
				 const struct west_route_def *routes, size_t nroutes,
				 char *err, size_t errlen);
/* Stop accepting connections (shutdown begins). */
void west_http_quiesce(struct west_http *h);
/* Close every connection and join the threads. */
void west_http_stop(struct west_http *h);

/* Query argument (NULL when absent). */
const char *west_req_arg(struct west_req *r, const char *name);
/* Request header (NULL when absent). */
const char *west_req_header(struct west_req *r, const char *name);
/* "http://HOST" from the Host header (or the listen address): the base of
 * absolute links. */
void west_req_base(struct west_req *r, char *buf, size_t size);

/* Answers: each takes over what it is given.  json is dumped compactly with
 * 9 significant digits; extra headers are "Name: value" lines or NULL. */
void west_reply_json(struct west_req *r, unsigned status, json_t *json,
		     const char *content_type);
void west_reply_text(struct west_req *r, unsigned status, const char *content_type,
		     char *text, size_t len);
/* problem+json: type is a short slug (documented in docs/api.md),
 * detail names the field at fault. */
void west_reply_problem(struct west_req *r, unsigned status, const char *type,
			const char *title, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* len bytes at data, which outlive the daemon (the embedded page). */
void west_reply_static(struct west_req *r, unsigned status, const char *content_type,
		       const void *data, size_t len);
/* The file open on fd (taken over), size bytes. */
void west_reply_file(struct west_req *r, int fd, size_t size, const char *content_type,
		     const char *filename);
/* Add a header to the next answer of r (before the west_reply_* call). */
void west_req_add_header(struct west_req *r, const char *name, const char *value);

/* ETag "vN" for field version v on the next answer; returns 1 (and answers
 * 304) when If-None-Match already names it. */
int west_req_etag(struct west_req *r, unsigned long long version);
/* The same with any entity tag (quotes included: "\"abc\""), with
 * Cache-Control: no-cache (use it, but ask again each time). */
int west_req_etag_tag(struct west_req *r, const char *tag);

/* Compare a token in constant time (length leaks, contents do not). */
int west_token_equal(const char *a, const char *b);

#endif
