/*
 * fuzz_http.c: libFuzzer target for westd's query handling, driven through
 * the real request path: one GET (or HEAD) per input, sent to westd's own
 * HTTP server (service/http.c, libmicrohttpd) over a socketpair handed to
 * it with MHD_add_connection, answered by the real route table
 * (westd_routes).  That covers what no direct call would: the percent
 * decoding (http.c's unescape), the per-route parameter check (unknown,
 * repeated or empty parameters), the native parsers of api.c
 * (api_arg_double for x, y, lon, lat, z; zref; version; stride; lon/lat
 * through the transverse Mercator), the EDR routes of api_edr.c (coords,
 * bbox, z, parameter-name, datetime, crs, f) down to the CoverageJSON
 * answers, the landing page's content negotiation (Accept) and
 * If-None-Match, on a field solved once at start; and the release
 * plumes' routes (api_releases.c): POST /v1/releases with the input as
 * its JSON body (every member's parse and range check, down to the
 * queue, which is kept full so that nothing an input posts runs), and the
 * status, concentration, footprint (levels, crs: the contours) and
 * trajectory of release 1, run once at start.  No network is used:
 * the server listens on 127.0.0.1 port 0 as westd_open would, but every
 * request comes through the socketpair.
 *
 * Input:
 *   byte 0    the route (below), modulo their number;
 *   byte 1    bit 0 HEAD instead of GET; bit 1 If-None-Match: "v1"; bit 2
 *             POST, the rest of the input its body (application/json);
 *   then      the query string up to the first newline, sent as is except
 *             that bytes not allowed in a request target (controls,
 *             space, '#', non-ASCII, ...) are percent-encoded, so that
 *             every input is a well-formed request whose arguments
 *             decode back to the input's bytes;
 *   then      the Accept header's value (controls dropped), if any.
 *
 * The daemon state is the part of struct westd that these routes read:
 * the config's defaults (max_response_cells lowered to 20000, so one
 * answer stays small), the grid (24 x 20 columns of 100 m, 8 levels of
 * 40 m, the UTM 33N CRS), and one field, version 1, solved on the CPU
 * backend from three stations.  Nothing an input does changes it.
 *
 * Checks on every answer: it arrives (a request that hangs is libFuzzer's
 * -timeout, 25 s in run.sh; this file itself waits up to 300 s, and
 * connection_timeout is 5 s here, so a stalled connection shows as a
 * close with no answer); it has a status line; its status is not
 * 500 (a handler that could not answer, or a JSON answer that could not be
 * built, e.g. from text that is not UTF-8); a JSON body (Content-Type
 * *json) parses as JSON.  A connection closed with no answer at all is a
 * failure for a request that fits in half of libmicrohttpd's connection
 * pool (16 KiB): that is how the library's stall on a query of a few
 * hundred '&'-separated pieces looked (found here, the seed
 * many_pieces_stall; westd now refuses such a target before the library
 * parses it: service/http.c, "request targets").  A longer request line
 * may leave the pool no room for any answer, and the library then closes
 * the connection; inputs of the default -max_len (4096 bytes, at most
 * 12 KiB once percent-encoded) never get there.
 */
#define _GNU_SOURCE
#include "fuzz_common.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>

#include "api.h"
#include "backend.h"
#include "daemon.h"
#include "field.h"
#include "http.h"
#include "model.h"
#include "plume.h"
#include "publish.h"
#include "releases.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const paths[] = {
	"/v1/field/point", "/v1/field/profile", "/v1/field/slice", "/v1/field",
	"/v1/terrain", "/collections/wind/position", "/collections/wind/area",
	"/collections/wind/cube", "/collections/wind", "/collections", "/conformance",
	"/", "/api", "/readyz", "/livez", "/v1/no-such-route",
	"/v1/releases", "/v1/releases/1", "/v1/releases/1/concentration",
	"/v1/releases/1/footprint", "/v1/releases/1/trajectory",
};
#define NPATHS (sizeof paths / sizeof paths[0])

static struct westd d;
static struct west_http h;

/* Three stations on the grid, solved once and published as version 1. */
static void publish_field(void)
{
	static const struct { const char *id; double x, y, speed, dir; } st[] = {
		{ "S1", 500450, 4650550, 4.0, 250 },
		{ "S2", 501950, 4651450, 6.0, 270 },
		{ "S3", 501150, 4650950, 3.0, 200 },
	};
	struct west_obs_set obs = { 0 };
	struct west_field f;
	struct west_solve_opts o;
	struct west_published *p;
	char err[WEST_ERRLEN];
	void *state = NULL;
	const struct west_backend *be = &west_backend_cpu;

	if (!(obs.obs = calloc(3, sizeof *obs.obs)))
		abort();
	obs.n = 3;
	for (size_t i = 0; i < 3; i++) {
		struct west_obs *ob = &obs.obs[i];
		ob->inv_L = ob->z0 = NAN;
		snprintf(ob->id, sizeof ob->id, "%s", st[i].id);
		ob->x = st[i].x, ob->y = st[i].y, ob->height = 10.0;
		ob->speed = st[i].speed, ob->direction = st[i].dir;
		ob->time = 1795435200LL, ob->stability = WEST_STAB_D;
	}
	obs.valid_time = obs.obs[0].time;
	west_solve_opts_from_config(&o, &d.conf);
	if (west_field_init(&f, &d.grid->g, err, sizeof err) ||
	    be->init(&state, err, sizeof err) ||
	    be->upload_terrain(state, &d.grid->g, err, sizeof err) ||
	    be->run(state, &obs, &o, &f, NULL, NULL, err, sizeof err) ||
	    !(p = west_published_new(&f, &obs, d.grid))) {
		fprintf(stderr, "fuzz_http: cannot solve the field: %s\n", err);
		abort();
	}
	be->free(state);
	p->obs_id = 1;
	west_store_publish(&d.store, p);
}

/* Release 1 (40 particles for 5 minutes at the grid's centre, run to the
 * end), then a queue of 0: every later POST is refused as queue-full
 * after its body has been read and checked. */
static void run_release(void)
{
	struct west_releases_limits lim = { 8, 0.0, 1 };
	struct west_release_ask a = { .r = { .x = 501200, .y = 4651000, .height = 10,
					     .duration = 120, .seconds = 300, .particles = 40,
					     .seed = 1, .start = 1795435200LL,
					     .layer = WEST_RELEASE_LAYER }, .lat = NAN, .lon = NAN };
	struct west_releases_stats st;
	unsigned long long id;
	char err[WEST_ERRLEN];

	if (west_releases_start(&d.releases, west_plume_run, &west_kernels_cpu, 1, &lim,
				&d.metrics, NULL, NULL, err, sizeof err) ||
	    west_releases_submit(&d.releases, &a, west_store_acquire(&d.store), &id, err,
				 sizeof err)) {
		fprintf(stderr, "fuzz_http: release: %s\n", err);
		abort();
	}
	do {
		usleep(1000);
		west_releases_stats(&d.releases, &st);
	} while (st.count[WEST_RELEASE_DONE] + st.count[WEST_RELEASE_FAILED] == 0);
	if (st.count[WEST_RELEASE_DONE] != 1)
		abort();
	lim.queue = 0;
	west_releases_set_limits(&d.releases, &lim);
}

static void stop(void)
{
	west_http_stop(&h);
	west_releases_stop(&d.releases);
	west_store_free(&d.store);
	west_shared_grid_release(d.grid);
}

static void setup(void)
{
	struct west_grid g;
	const struct west_route_def *routes;
	size_t nroutes;
	char err[WEST_ERRLEN];

	fuzz_init();
	west_config_defaults(&d.conf);
	snprintf(d.conf.listen, sizeof d.conf.listen, "127.0.0.1:0");
	d.conf.http_threads = 1;
	d.conf.max_response_cells = 20000;
	d.conf.connection_timeout = 5;
	d.live = (struct westd_live){ .max_body_bytes = d.conf.max_body_bytes,
				      .max_response_cells = d.conf.max_response_cells,
				      .ui_age_warn = d.conf.ui_age_warn,
				      .ui_age_alert = d.conf.ui_age_alert,
				      .max_particles = d.conf.max_particles,
				      .max_release_hours = d.conf.max_release_hours };
	pthread_mutex_init(&d.ingest_lock, NULL);
	pthread_mutex_init(&d.rec_lock, NULL);
	pthread_rwlock_init(&d.live_lock, NULL);
	west_metrics_init(&d.metrics);
	west_store_init(&d.store);
	d.be = &west_backend_cpu;
	d.started_at = westd_now();
	d.started_mono = westd_mono();
	fuzz_grid(&g, 24, 20, 100.0, 8, 40.0, 1);
	if (!(d.grid = west_shared_grid_new(&g)))
		abort();
	publish_field();
	run_release();
	routes = westd_routes(&nroutes);
	if (west_http_start(&h, &d, routes, nroutes, err, sizeof err)) {
		fprintf(stderr, "fuzz_http: %s\n", err);
		abort();
	}
	atexit(stop);
}

/* Append the input's query bytes, percent-encoding what a request target
 * may not hold raw. */
static void put_query(char *buf, size_t *n, const uint8_t *q, size_t len)
{
	static const char ok[] = "-._~!$&'()*+,;=:@/?%";

	for (size_t i = 0; i < len; i++) {
		unsigned char c = q[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    (c && strchr(ok, c)))
			buf[(*n)++] = (char)c;
		else
			*n += (size_t)sprintf(buf + *n, "%%%02X", c);
	}
}

/* The request for this input into buf (room for 3 * size + 512). */
static size_t request(char *buf, const uint8_t *data, size_t size)
{
	const uint8_t *q = data + 2, *nl = memchr(q, '\n', size - 2);
	size_t qlen = nl ? (size_t)(nl - q) : size - 2, n;

	if (data[1] & 4) {   /* POST: the rest is the body, as is */
		n = (size_t)sprintf(buf, "POST %s HTTP/1.1\r\nHost: fuzz.invalid\r\n"
				    "Connection: close\r\nContent-Type: application/json\r\n"
				    "Content-Length: %zu\r\n\r\n", paths[data[0] % NPATHS],
				    size - 2);
		memcpy(buf + n, q, size - 2);
		return n + size - 2;
	}
	n = (size_t)sprintf(buf, "%s %s", (data[1] & 1) ? "HEAD" : "GET",
			    paths[data[0] % NPATHS]);
	if (qlen) {
		buf[n++] = '?';
		put_query(buf, &n, q, qlen);
	}
	n += (size_t)sprintf(buf + n, " HTTP/1.1\r\nHost: fuzz.invalid\r\n"
			     "Connection: close\r\n%s",
			     (data[1] & 2) ? "If-None-Match: \"v1\"\r\n" : "");
	if (nl) {
		n += (size_t)sprintf(buf + n, "Accept: ");
		for (const uint8_t *p = nl + 1; p < data + size; p++)
			if (*p >= 0x20 && *p != 0x7f)
				buf[n++] = (char)*p;
		n += (size_t)sprintf(buf + n, "\r\n");
	}
	n += (size_t)sprintf(buf + n, "\r\n");
	return n;
}

/* Until libmicrohttpd has let go of the connection (its completion
 * callback has run and its memory is freed), so that everything an input
 * allocated is freed within it: LeakSanitizer's check and the next input
 * see no request still in flight. */
static void wait_closed(void)
{
	for (long spins = 0;; spins++) {
		const union MHD_DaemonInfo *i =
			MHD_get_daemon_info(h.mhd, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
		if (!i || i->num_connections == 0)
			return;
		FUZZ_ASSERT(spins < 10000000, "the connection is still open %ld polls after "
			    "its answer", spins);
		sched_yield();
	}
}

/* Send req on a new connection and read the whole answer into *out. */
static size_t exchange(const char *req, size_t len, char **out)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(40000) };
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	int sv[2];

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!buf || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		abort();
	if (MHD_add_connection(h.mhd, sv[1], (struct sockaddr *)&sa, sizeof sa) != MHD_YES) {
		fprintf(stderr, "fuzz_http: MHD_add_connection failed\n");
		abort();
	}
	/* libFuzzer's timer (SIGALRM, for -timeout) interrupts these calls:
	 * EINTR is retried, never taken for an answer or its end */
	for (size_t off = 0; off < len;) {
		ssize_t w = write(sv[0], req + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;   /* the server may close on a request it refuses */
		off += (size_t)w;
	}
	for (;;) {
		struct pollfd pfd = { .fd = sv[0], .events = POLLIN };
		ssize_t r;
		int p = poll(&pfd, 1, 300000);
		if (p < 0 && errno == EINTR)
			continue;
		FUZZ_ASSERT(p == 1, "no answer in 300 s to: %.*s (poll: %s)", (int)len, req,
			    p < 0 ? strerror(errno) : "timed out");
		if (n + 1 >= cap && !(buf = realloc(buf, cap *= 2)))
			abort();
		r = read(sv[0], buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(sv[0]);
	buf[n] = '\0';
	*out = buf;
	wait_closed();
	return n;
}

static void check_answer(const char *req, size_t reqlen, const char *ans, size_t n, int head)
{
	const char *body = strstr(ans, "\r\n\r\n");
	unsigned status = 0;
	const char *ct;

	if (n == 0) {   /* closed by libmicrohttpd with no answer (above) */
		FUZZ_ASSERT(reqlen > 16384, "closed with no answer: %s", req);
		return;
	}
	FUZZ_ASSERT(sscanf(ans, "HTTP/1.%*d %u", &status) == 1, "no status line in the "
		    "answer (%zu bytes: '%.200s') to: %s", n, ans, req);
	FUZZ_ASSERT(status != 500, "500 for: %s\n%s", req, ans);
	if (!body || head)
		return;
	body += 4;
	ct = strcasestr(ans, "\r\nContent-Type:");
	if (ct && ct < body && memmem(ct, (size_t)(strchr(ct + 2, '\r') - ct), "json", 4)) {
		json_error_t je;
		json_t *j = json_loadb(body, n - (size_t)(body - ans), 0, &je);
		FUZZ_ASSERT(j, "the JSON answer does not parse (%s) for: %s\n%s", je.text, req,
			    ans);
		json_decref(j);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	char *req, *ans;
	size_t len, n;

	if (!ready) {
		setup();
		ready = 1;
	}
	if (size < 2)
		return 0;
	req = malloc(3 * size + 512);
	if (!req)
		abort();
	len = request(req, data, size);
	req[len] = '\0';
	n = exchange(req, len, &ans);
	check_answer(req, len, ans, n, (data[1] & 5) == 1);
	free(ans);
	free(req);
	return 0;
}
