/*
 * http.c: the HTTP server and request plumbing of http.h.
 */
#include "http.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "log.h"

/* ------------------------------------------------------------- answers */

void west_req_add_header(struct west_req *r, const char *name, const char *value)
{
	if (r->nhdr == (int)(sizeof r->hdr / sizeof r->hdr[0]))
		return;
	snprintf(r->hdr[r->nhdr].name, sizeof r->hdr[0].name, "%s", name);
	snprintf(r->hdr[r->nhdr].value, sizeof r->hdr[0].value, "%s", value);
	r->nhdr++;
}

/* Queue resp (destroyed here) with the pending headers. */
static void queue(struct west_req *r, unsigned status, struct MHD_Response *resp)
{
	if (!resp) {
		west_log(WEST_LOG_ERR, "http: out of memory for an answer to %s", r->url);
		r->status = 500;
		return;
	}
	for (int i = 0; i < r->nhdr; i++)
		MHD_add_response_header(resp, r->hdr[i].name, r->hdr[i].value);
	r->nhdr = 0;
	if (MHD_queue_response(r->conn, status, resp) == MHD_YES)
		r->status = status;
	MHD_destroy_response(resp);
}

void west_reply_text(struct west_req *r, unsigned status, const char *content_type,
		     char *text, size_t len)
{
	/* libmicrohttpd answers HEAD with these headers, Content-Length
	 * included, and no body */
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, text,
								    MHD_RESPMEM_MUST_FREE);
	if (!resp)
		free(text);
	else if (content_type)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
	queue(r, status, resp);
}

void west_reply_json(struct west_req *r, unsigned status, json_t *json,
		     const char *content_type)
{
	char *text = json ? json_dumps(json, JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;
	size_t len;

	json_decref(json);
	if (!text) {
		west_log(WEST_LOG_ERR, "http: cannot build the JSON answer to %s", r->url);
		text = strdup("{\"type\":\"about:blank\",\"title\":\"Internal Server Error\","
			      "\"status\":500,\"detail\":\"out of memory\"}");
		status = 500;
		content_type = "application/problem+json";
		if (!text) {
			queue(r, 500, NULL);
			return;
		}
	}
	len = strlen(text);
	text[len] = '\0';
	west_reply_text(r, status, content_type ? content_type : "application/json", text,
			len);
}

/* The length of the well-formed UTF-8 sequence at s (1 to 4), or 0 when
 * it is not one (a stray continuation, an overlong form, a surrogate, past
 * U+10FFFF, or cut short). */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 :
		   s[0] >= 0xe0 && s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;

	for (size_t k = 1; k < n; k++)
		if ((s[k] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f))) ||
	    (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))))
		return 0;
	return n;
}

/* s in place with every byte that is not part of well-formed UTF-8 as '?':
 * a problem's detail quotes the client's bytes (cut to a length, maybe in
 * the middle of a character), and JSON text must be UTF-8. */
static char *utf8_clean(char *s)
{
	for (unsigned char *p = (unsigned char *)s; *p;) {
		size_t n = utf8_len(p);
		if (n)
			p += n;
		else
			*p++ = '?';
	}
	return s;
}

void west_reply_problem(struct west_req *r, unsigned status, const char *type,
			const char *title, const char *fmt, ...)
{
	char detail[WEST_ERRLEN + 256], typeuri[128], *url = strdup(r->url);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	snprintf(typeuri, sizeof typeuri, "https://westd.invalid/problems/%s", type);
	if (status == 401)
		west_req_add_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
				    "Bearer realm=\"westd\"");
	west_reply_json(r, status,
			json_pack("{s:s, s:s, s:i, s:s, s:s}", "type", typeuri, "title", title,
				  "status", (int)status, "detail", utf8_clean(detail),
				  "instance", url ? utf8_clean(url) : ""),
			"application/problem+json");
	free(url);
}

void west_reply_static(struct west_req *r, unsigned status, const char *content_type,
		       const void *data, size_t len)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)data,
								    MHD_RESPMEM_PERSISTENT);
	if (resp)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
	queue(r, status, resp);
}

void west_reply_file(struct west_req *r, int fd, size_t size, const char *content_type,
		     const char *filename)
{
	char disp[160];
	struct MHD_Response *resp;

	resp = MHD_create_response_from_fd(size, fd);
	if (!resp)
		close(fd);
	if (resp) {
		snprintf(disp, sizeof disp, "attachment; filename=\"%s\"", filename);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_DISPOSITION, disp);
	}
	queue(r, 200, resp);
}

/* -------------------------------------------------------------- requests */

const char *west_req_arg(struct west_req *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

const char *west_req_header(struct west_req *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

void west_req_base(struct west_req *r, char *buf, size_t size)
{
	const char *host = west_req_header(r, MHD_HTTP_HEADER_HOST);
	/* a Host that could break out of a URL or a header is not echoed */
	if (!host || !host[0] || strlen(host) > 255 ||
	    host[strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			"0123456789.-:[]_")])
		host = r->d->conf.listen;
	snprintf(buf, size, "http://%s", host);
}

/* 1 when one entity tag of the If-None-Match list is tag (or "*"). */
static int tag_listed(const char *list, const char *tag)
{
	size_t n = strlen(tag);
	for (const char *p = list; *p;) {
		p += strspn(p, " \t,");
		if (*p == '*')
			return 1;
		if (strncmp(p, "W/", 2) == 0)
			p += 2;
		if (strncmp(p, tag, n) == 0 && (p[n] == '\0' || strchr(" \t,", p[n])))
			return 1;
		p += strcspn(p, ",");
	}
	return 0;
}

int west_req_etag(struct west_req *r, unsigned long long version)
{
	char tag[32];

	snprintf(tag, sizeof tag, "\"v%llu\"", version);
	return west_req_etag_tag(r, tag);
}

int west_req_etag_tag(struct west_req *r, const char *tag)
{
	const char *inm = west_req_header(r, MHD_HTTP_HEADER_IF_NONE_MATCH);

	west_req_add_header(r, MHD_HTTP_HEADER_ETAG, tag);
	west_req_add_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	if (!inm || !tag_listed(inm, tag))
		return 0;
	queue(r, 304, MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT));
	return 1;
}

int west_token_equal(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	unsigned char diff = (unsigned char)(na != nb);
	/* walk the expected token's length whatever the given one's */
	for (size_t i = 0; i < nb; i++)
		diff |= (unsigned char)(b[i] ^ (i < na ? a[i] : 0));
	return diff == 0;
}

/* 1 when r may go on; else it has its 401. */
static int authorized(struct west_req *r, int write, int open)
{
	const char *h;

	if (!r->live.token[0] || open || (!write && !r->live.read_auth))
		return 1;
	h = west_req_header(r, MHD_HTTP_HEADER_AUTHORIZATION);
	if (!h) {
		west_reply_problem(r, 401, "unauthorized", "Unauthorized",
				   "this request needs an Authorization: Bearer token");
		return 0;
	}
	if (strncasecmp(h, "Bearer ", 7) || !west_token_equal(h + 7 + strspn(h + 7, " "),
							     r->live.token)) {
		west_reply_problem(r, 401, "unauthorized", "Unauthorized",
				   "the Authorization header does not carry the right "
				   "Bearer token");
		return 0;
	}
	return 1;
}

/* ------------------------------------------------------ query parameters */

#define MAX_ARGS 64      /* the most query parameters a request may carry */
#define SHOW_ARG 40      /* bytes of a parameter's name a message quotes */

struct args_seen {
	const char *name[MAX_ARGS], *value[MAX_ARGS];
	size_t n;
	int over;            /* more than MAX_ARGS */
};

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				   const char *value)
{
	struct args_seen *a = cls;
	(void)kind;

	if (!key || (!key[0] && (!value || !value[0])))
		return MHD_YES;   /* "?&x=1", "x=1&&y=2": an empty piece names nothing */
	if (a->n == MAX_ARGS) {
		a->over = 1;
		return MHD_NO;
	}
	a->name[a->n] = key;
	a->value[a->n++] = value;
	return MHD_YES;
}

/* At most SHOW_ARG bytes of s, other than printable ASCII as '?'; buf
 * holds SHOW_ARG + 4 bytes. */
static const char *show_arg(const char *s, char *buf)
{
	size_t i;

	for (i = 0; s[i] && i < SHOW_ARG; i++)
		buf[i] = s[i] > ' ' && s[i] < 0x7f ? s[i] : '?';
	strcpy(buf + i, s[i] ? "..." : "");
	return buf;
}

/* 1 when a and b differ only in case and '-' against '_'. */
static int near_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b) &&
		    !(strchr("-_", *a) && strchr("-_", *b)))
			return 0;
	return *a == *b;
}

/* "a, b, c" of the NULL-terminated parameter list into buf. */
static void list_names(const struct west_param *const *ps, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; ps[i] && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", ps[i]->name);
}

/* 400 for the first query parameter of r that its route does not take,
 * that is given twice, or that has no value ("?stride", "stride=": never
 * read as left out); 1 when there is none. */
static int params_ok(struct west_req *r, const struct west_route_def *rt)
{
	static const struct west_param *const none[] = { NULL };
	const struct west_param *const *ok = rt->params ? rt->params : none;
	struct args_seen a = { .n = 0 };
	char shown[SHOW_ARG + 4], takes[256], hint[96];
	size_t i, k;

	MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, collect_arg, &a);
	if (a.over) {
		west_reply_problem(r, 400, "bad-parameter", "Bad Request",
				   "more than %d query parameters", MAX_ARGS);
		return 0;
	}
	list_names(ok, takes, sizeof takes);
	for (i = 0; i < a.n; i++) {
		for (k = 0; ok[k] && strcmp(ok[k]->name, a.name[i]); k++)
			;
		if (!ok[k])
			break;
		for (k = 0; k < i && strcmp(a.name[k], a.name[i]); k++)
			;
		if (k < i) {
			west_reply_problem(r, 400, "bad-parameter", "Bad Request",
					   "query parameter %s is given more than once: give it "
					   "once (a list is one comma-separated value)",
					   show_arg(a.name[i], shown));
			return 0;
		}
		if (!a.value[i] || !a.value[i][0]) {
			west_reply_problem(r, 400, "bad-parameter", "Bad Request",
					   "query parameter %s has no value: give one, or leave "
					   "the parameter out", show_arg(a.name[i], shown));
			return 0;
		}
	}
	if (i == a.n)
		return 1;
	hint[0] = '\0';
	for (k = 0; ok[k]; k++)
		if (near_name(ok[k]->name, a.name[i]))
			snprintf(hint, sizeof hint, " (did you mean %s?)", ok[k]->name);
	if (!ok[0])
		west_reply_problem(r, 400, "unknown-parameter", "Bad Request",
				   "query parameter '%s' is not supported: %s takes no query "
				   "parameters", show_arg(a.name[i], shown), r->url);
	else
		west_reply_problem(r, 400, "unknown-parameter", "Bad Request",
				   "query parameter '%s' is not supported%s: %s takes %s",
				   show_arg(a.name[i], shown), hint, r->url, takes);
	return 0;
}

/* ------------------------------------------------------ request targets */

/*
 * libmicrohttpd 0.9.75 splits the query into one argument record per
 * '&'-separated piece (empty ones included), each taken from the
 * connection's memory pool, while it parses the request line and before
 * westd sees the request.  When the pool runs out there, the library queues
 * its own 431 and then overwrites that state with "request line received"
 * (connection.c, parse_initial_message_line's caller): the connection
 * neither answers nor reads on, and idles until connection_timeout.  On a
 * 32 KiB pool that happens from about 300 pieces on a 16 KiB target, 500 on
 * a short one.  So check_target, which libmicrohttpd calls with the raw
 * target before it parses the query (MHD_OPTION_URI_LOG_CALLBACK), lets it
 * parse only a target of at most MAX_TARGET bytes with at most MAX_PIECES
 * pieces: one of those fits in the initial read buffer (half the pool), so
 * the other half holds its argument records (MAX_PIECES of 48 bytes, 6 KiB)
 * and the header records after them with room to spare.  A target over
 * either limit has its query cut off in place (the target lies in the
 * connection's read buffer, which libmicrohttpd itself rewrites right
 * after the callback), so that no record is made, and is answered 414 or
 * 400 by on_request.  A request line longer than the pool can hold is
 * answered by libmicrohttpd itself (414 or 431, text/html) or closed,
 * never reaching westd.  Left open: a raw NUL byte in the target before
 * its '?' (never valid, and not refused by 0.9.75) hides the query from
 * check_target, which sees a C string, while the library still parses
 * it; such a connection can still stall until connection_timeout, as a
 * client that sends half a request does.  libmicrohttpd 1.0 refuses a
 * NUL in the request line and answers a query that overruns its pool.
 */
#define POOL_BYTES 32768   /* MHD_OPTION_CONNECTION_MEMORY_LIMIT */
#define MAX_TARGET 8192    /* the longest request target taken, bytes as sent */
#define MAX_PIECES 128     /* the most '&'-separated query pieces taken */

/* What check_target found wrong: the context on_request first sees. */
static char target_too_long, target_too_many_pieces;

static void *check_target(void *cls, const char *uri, struct MHD_Connection *c)
{
	char *q = uri ? (char *)strchr(uri, '?') : NULL;
	void *bad = NULL;
	size_t pieces = 1;
	(void)cls, (void)c;

	if (uri && strlen(uri) > MAX_TARGET)
		bad = &target_too_long;
	for (const char *p = q; p && *p && !bad; p++)
		if (*p == '&' && ++pieces > MAX_PIECES)
			bad = &target_too_many_pieces;
	if (bad && q)
		q[1] = '\0';   /* libmicrohttpd parses an empty query */
	return bad;
}

/* 1 when ctx is check_target's mark of a refused target. */
static int target_refused(const void *ctx)
{
	return ctx == &target_too_long || ctx == &target_too_many_pieces;
}

static void refuse_target(struct west_req *r, const void *why)
{
	if (why == &target_too_long)
		west_reply_problem(r, 414, "uri-too-long", "URI Too Long",
				   "the request target (path and query, as sent) is longer "
				   "than %d bytes", MAX_TARGET);
	else
		west_reply_problem(r, 400, "bad-parameter", "Bad Request",
				   "the query has more than %d '&'-separated pieces (empty "
				   "ones count); a route takes at most %d parameters",
				   MAX_PIECES, MAX_ARGS);
}

/* ------------------------------------------------------------- dispatch */

/* 1 when route path p takes url, *arg set to its "{name}" segment's
 * value (NULL for an exact path): the rest of url when the segment ends
 * p, else the one segment it stands for, copied into seg (size bytes). */
static int route_takes(const char *p, const char *url, const char **arg, char *seg,
		       size_t size)
{
	const char *brace = strchr(p, '{'), *close = brace ? strchr(brace, '}') : NULL;
	const char *end;
	size_t n = brace ? (size_t)(brace - p) : 0;

	*arg = NULL;
	if (!brace || brace == p || brace[-1] != '/' || !close)
		return strcmp(url, p) == 0;
	if (strncmp(url, p, n) != 0 || !url[n])
		return 0;
	if (!close[1]) {
		*arg = url + n;
		return 1;
	}
	end = strchr(url + n, '/');
	if (!end || end == url + n || (size_t)(end - url) - n >= size || strcmp(end, close + 1))
		return 0;
	memcpy(seg, url + n, (size_t)(end - url) - n);
	seg[(size_t)(end - url) - n] = '\0';
	*arg = seg;
	return 1;
}

/* The index of r's route (the first that takes it), and its {name}
 * argument; WEST_ROUTE_NONE when none does. */
static size_t find_route(const struct west_http *h, struct west_req *r)
{
	for (size_t i = 0; i < h->nroutes; i++)
		if (route_takes(h->routes[i].path, r->url, &r->path_arg, r->seg, sizeof r->seg))
			return i;
	r->path_arg = NULL;
	return WEST_ROUTE_NONE;
}

static void dispatch(struct west_http *h, struct west_req *r)
{
	size_t i = find_route(h, r);
	const struct west_route_def *rt = i == WEST_ROUTE_NONE ? NULL : &h->routes[i];
	int get = !strcmp(r->method, "GET") || r->head, post = !strcmp(r->method, "POST");
	char allow[32];

	r->route = i;
	if (!rt) {
		west_reply_problem(r, 404, "not-found", "Not Found",
				   "no resource at %s (GET / lists the API)", r->url);
		return;
	}
	if (!((get && rt->get) || (post && rt->post))) {
		snprintf(allow, sizeof allow, "%s%s%s", rt->get ? "GET, HEAD" : "",
			 rt->get && rt->post ? ", " : "", rt->post ? "POST" : "");
		west_req_add_header(r, MHD_HTTP_HEADER_ALLOW, allow);
		west_reply_problem(r, 405, "method-not-allowed", "Method Not Allowed",
				   "%s does not take %s (allowed: %s)", r->url, r->method, allow);
		return;
	}
	if (!authorized(r, post, rt->open))
		return;
	if (!params_ok(r, rt))
		return;
	if (r->too_large) {
		west_reply_problem(r, 413, "body-too-large", "Content Too Large",
				   "the request body is larger than max_body_bytes = %lld bytes",
				   r->live.max_body_bytes);
		return;
	}
	(post ? rt->post : rt->get)(r);
	if (!r->status)   /* a handler that forgot to answer is a bug */
		west_reply_problem(r, 500, "internal", "Internal Server Error",
				   "no answer was made to %s", r->url);
}

/* First call: the request context; a body announced too large gets 413 now. */
static struct west_req *begin(struct west_http *h, struct MHD_Connection *c,
			      const char *url, const char *method)
{
	struct west_req *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->d = h->d, r->conn = c, r->url = url, r->method = method;
	r->head = !strcmp(method, "HEAD");
	r->t0 = westd_mono();
	r->route = WEST_ROUTE_NONE;
	westd_live(h->d, &r->live);
	return r;
}

static int append(struct west_req *r, const char *data, size_t n)
{
	if (r->too_large || r->len + n > (size_t)r->live.max_body_bytes) {
		r->too_large = 1;
		return 0;
	}
	if (r->len + n + 1 > r->cap) {
		size_t cap = r->cap ? r->cap : 4096;
		while (cap < r->len + n + 1)
			cap *= 2;
		char *b = realloc(r->body, cap);
		if (!b)
			return -1;
		r->body = b, r->cap = cap;
	}
	memcpy(r->body + r->len, data, n);
	r->len += n;
	r->body[r->len] = '\0';
	return 0;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload, size_t *upload_size, void **ctx)
{
	struct west_http *h = cls;
	struct west_req *r = *ctx;
	(void)version;

	if (!r || target_refused(r)) {
		const void *refused = r;
		const char *cl;
		if (!(*ctx = r = begin(h, c, url, method)))
			return MHD_NO;
		if (refused) {
			refuse_target(r, refused);   /* before anything reads the query */
			return MHD_YES;
		}
		cl = west_req_header(r, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl && strtoull(cl, NULL, 10) > (unsigned long long)r->live.max_body_bytes) {
			r->too_large = 1;
			dispatch(h, r);    /* 413 (or 401/404/405 first) without the body */
		}
		return MHD_YES;
	}
	if (*upload_size) {
		if (!r->status && append(r, upload, *upload_size) < 0)
			return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}
	if (!r->status)
		dispatch(h, r);
	return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **ctx,
			 enum MHD_RequestTerminationCode why)
{
	struct west_http *h = cls;
	struct west_req *r = *ctx;
	(void)c;

	if (!r || target_refused(r)) {   /* closed before on_request saw it */
		*ctx = NULL;
		return;
	}
	if (r->status)
		west_metrics_http(&h->d->metrics, r->route, r->status, westd_mono() - r->t0);
	else if (why == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED)
		west_log(WEST_LOG_INFO, "http: %s %s: the client timed out", r->method, r->url);
	free(r->body);
	free(r);
	*ctx = NULL;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	(void)cls;
	vsnprintf(msg, sizeof msg, fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	west_log(WEST_LOG_INFO, "http: %s", msg);
}

/* Percent-decoding of the URL and arguments, in place, except "%00": a
 * NUL would cut a name short (".../NAME%00.txt" read as NAME), so it stays
 * as the three characters and the name is refused. */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
	char *o = s;
	(void)cls, (void)c;

	for (const char *p = s; *p; p++) {
		unsigned v;
		if (*p == '%' && isxdigit((unsigned char)p[1]) &&
		    isxdigit((unsigned char)p[2]) && sscanf(p + 1, "%2x", &v) == 1 && v) {
			*o++ = (char)v;
			p += 2;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return (size_t)(o - s);
}

/* --------------------------------------------------------------- server */

/* "HOST:PORT" or "[V6]:PORT" -> address. */
static enum west_status resolve(const char *listen, struct sockaddr_storage *sa,
				socklen_t *salen, char *err, size_t errlen)
{
	char host[256];
	const char *port, *colon = strrchr(listen, ':');
	struct addrinfo hints = { 0 }, *ai = NULL;
	int rc;

	if (!colon || colon == listen || !colon[1] || colon - listen >= (long)sizeof host)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "listen: '%s' is not HOST:PORT or [IPV6]:PORT", listen);
	port = colon + 1;
	if (listen[0] == '[' && colon[-1] == ']')
		snprintf(host, sizeof host, "%.*s", (int)(colon - listen - 2), listen + 1);
	else
		snprintf(host, sizeof host, "%.*s", (int)(colon - listen), listen);
	if (port[strspn(port, "0123456789")] || strlen(port) > 5 || atoi(port) > 65535)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "listen: port '%s' is not a number 0..65535", port);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc)
		return west_fail(err, errlen, WEST_ERR_INVALID, "listen: %s: %s", listen,
				 gai_strerror(rc));
	memcpy(sa, ai->ai_addr, ai->ai_addrlen);
	*salen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return WEST_OK;
}

enum west_status west_http_start(struct west_http *h, struct westd *d,
				 const struct west_route_def *routes, size_t nroutes,
				 char *err, size_t errlen)
{
	struct sockaddr_storage sa;
	socklen_t salen;
	const union MHD_DaemonInfo *info;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC |
			 MHD_USE_ERROR_LOG;
	enum west_status st;

	memset(h, 0, sizeof *h);
	h->d = d, h->routes = routes, h->nroutes = nroutes;
	for (size_t i = 0; i < nroutes; i++)
		if (west_metrics_route(&d->metrics, i, routes[i].path))
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "%zu routes, more than the metrics label (%d)", nroutes,
					 WEST_METRICS_MAXROUTES);
	st = resolve(d->conf.listen, &sa, &salen, err, errlen);
	if (st)
		return st;
	if (sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h->mhd = MHD_start_daemon(
		flags, 0, NULL, NULL, on_request, h,
		MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned)d->conf.http_threads,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)d->conf.max_connections,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)d->conf.per_ip_connections,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)d->conf.connection_timeout,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
		MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)POOL_BYTES,
		MHD_OPTION_URI_LOG_CALLBACK, check_target, NULL,
		MHD_OPTION_END);
	if (!h->mhd)
		return west_fail(err, errlen, WEST_ERR_IO,
				 "listen: cannot serve HTTP on %s (address in use, or not "
				 "this machine's?)", d->conf.listen);
	info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : 0;
	return WEST_OK;
}

void west_http_quiesce(struct west_http *h)
{
	if (h->mhd) {
		int fd = MHD_quiesce_daemon(h->mhd);
		if (fd >= 0)
			close(fd);
	}
}

void west_http_stop(struct west_http *h)
{
	if (h->mhd)
		MHD_stop_daemon(h->mhd);
	h->mhd = NULL;
}
