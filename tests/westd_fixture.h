/*
 * westd_fixture.h: the real westd for end-to-end tests: started on
 * 127.0.0.1 on a free port with its own state, snapshot and spool
 * directories under a fresh temp directory, the default terrain, and
 * driven with libcurl.
 *
 * WESTD_BIN (the build's westd) and WEST_SRCDIR come from the Makefile.
 * The daemon's log goes to DIR/westd.log (printed when a test fails to
 * start it).  Every function asserts what it needs, so a test reads as
 * the story it tells.
 */
#ifndef WESTD_FIXTURE_H
#define WESTD_FIXTURE_H
#include <criterion/criterion.h>
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FIX_TERRAIN WEST_SRCDIR "/data/default.asc"
#define FIX_OBS_JSON WEST_SRCDIR "/data/obs/default.json"
#define FIX_OBS_CSV WEST_SRCDIR "/data/obs/default.csv"

struct westd_proc {
	pid_t pid;
	int port;
	char dir[64];            /* the temp directory */
	char url[64];            /* http://127.0.0.1:PORT */
	char log[128];
	char conf[160];          /* passed as -c when not empty */
};

struct http_resp {
	long status;
	char *body;
	size_t len;
	char ctype[128];
	char etag[64];
	char allow[64];
	char www_auth[128];
	char clen[32];           /* Content-Length */
	char vary[64];
	char location[128];
	char cache[64];          /* Cache-Control */
	char csp[256];           /* Content-Security-Policy */
	char disposition[128];   /* Content-Disposition */
};

static inline double fix_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A port nobody listens on now (bound, read back, released). */
static inline int fix_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t n = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;
	cr_assert(fd >= 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &n), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

static size_t fix_body_cb(char *p, size_t size, size_t n, void *ctx)
{
	struct http_resp *r = ctx;
	char *b = realloc(r->body, r->len + size * n + 1);
	cr_assert_not_null(b);
	memcpy(b + r->len, p, size * n);
	r->body = b;
	r->len += size * n;
	r->body[r->len] = '\0';
	return size * n;
}

/* Copy header `name`'s value into dst when line is that header. */
static void fix_header_value(const char *line, size_t n, const char *name, char *dst,
			     size_t size)
{
	size_t k = strlen(name);
	if (n > k + 1 && strncasecmp(line, name, k) == 0 && line[k] == ':') {
		const char *v = line + k + 1;
		size_t m = n - k - 1;
		while (m && (*v == ' ')) v++, m--;
		while (m && (v[m - 1] == '\r' || v[m - 1] == '\n')) m--;
		snprintf(dst, size, "%.*s", (int)m, v);
	}
}

static size_t fix_header_cb(char *p, size_t size, size_t n, void *ctx)
{
	struct http_resp *r = ctx;
	fix_header_value(p, size * n, "Content-Type", r->ctype, sizeof r->ctype);
	fix_header_value(p, size * n, "ETag", r->etag, sizeof r->etag);
	fix_header_value(p, size * n, "Allow", r->allow, sizeof r->allow);
	fix_header_value(p, size * n, "WWW-Authenticate", r->www_auth, sizeof r->www_auth);
	fix_header_value(p, size * n, "Content-Length", r->clen, sizeof r->clen);
	fix_header_value(p, size * n, "Vary", r->vary, sizeof r->vary);
	fix_header_value(p, size * n, "Location", r->location, sizeof r->location);
	fix_header_value(p, size * n, "Cache-Control", r->cache, sizeof r->cache);
	fix_header_value(p, size * n, "Content-Security-Policy", r->csp, sizeof r->csp);
	fix_header_value(p, size * n, "Content-Disposition", r->disposition,
			 sizeof r->disposition);
	return size * n;
}

/*
 * One request: method "GET", "POST", ...; body NULL for none; headers a
 * NULL-terminated list of "Name: value" (or NULL); as_is: send the path
 * as given (no "/../" squashing by libcurl).  r->status 0 when the
 * connection failed.
 */
static inline void fix_http_ex(const struct westd_proc *w, const char *method,
			       const char *path, const char *body, size_t len,
			       const char *const *headers, int as_is, struct http_resp *r)
{
	char url[2048];
	struct curl_slist *h = NULL;
	CURL *c = curl_easy_init();

	memset(r, 0, sizeof *r);
	cr_assert_not_null(c);
	snprintf(url, sizeof url, "%s%s", w->url, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (!strcmp(method, "HEAD"))
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	for (size_t i = 0; headers && headers[i]; i++)
		h = curl_slist_append(h, headers[i]);
	h = curl_slist_append(h, "Expect:");   /* no 100-continue round trip */
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, fix_body_cb);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, fix_header_cb);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PATH_AS_IS, (long)as_is);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
}

static inline void fix_http(const struct westd_proc *w, const char *method, const char *path,
			    const char *body, size_t len, const char *const *headers,
			    struct http_resp *r)
{
	fix_http_ex(w, method, path, body, len, headers, 0, r);
}

static inline void fix_get(const struct westd_proc *w, const char *path, struct http_resp *r)
{
	fix_http(w, "GET", path, NULL, 0, NULL, r);
}

static inline void fix_resp_free(struct http_resp *r)
{
	free(r->body);
	r->body = NULL;
}

/* The body as JSON (asserted to parse). */
static inline json_t *fix_json(const struct http_resp *r)
{
	json_error_t e;
	json_t *j = r->body ? json_loadb(r->body, r->len, 0, &e) : NULL;
	cr_assert_not_null(j, "not JSON (%s): %.300s", r->body ? e.text : "no body",
			   r->body ? r->body : "");
	return j;
}

/* A file's bytes (asserted to read). */
static inline char *fix_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *b = malloc((size_t)n + 1);
	cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	b[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return b;
}

static inline void fix_dump_log(const struct westd_proc *w)
{
	size_t n;
	char *log = fix_slurp(w->log, &n);
	fprintf(stderr, "---- %s ----\n%s---- end ----\n", w->log, log);
	free(log);
}

/* A fresh temp directory for w (before fix_start_in(w, 1, ...), e.g. to
 * write a config file there first). */
static inline void fix_mkdir(struct westd_proc *w)
{
	snprintf(w->dir, sizeof w->dir, "/tmp/westd-test-XXXXXX");
	cr_assert_not_null(mkdtemp(w->dir));
}

/* Write text to the file w->dir/name (path into out when not NULL). */
static inline void fix_write(const struct westd_proc *w, const char *name, const char *text,
			     char *out, size_t outlen)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", w->dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fputs(text, f) >= 0, 1);
	cr_assert_eq(fclose(f), 0);
	if (out)
		snprintf(out, outlen, "%s", path);
}

/* Start westd in dir (keep: reuse w->dir, e.g. for a restart) with extra
 * --set options (NULL-terminated list or NULL), and -c w->conf when set;
 * wait until /livez answers.  obs_max_age=0 and max_field_age=0 come
 * before the extra options (which may override them): the sample set is
 * dated 2026-11-22, most tests post it as it is, and its field is days old
 * (age counts from the valid time), so that the default limits would
 * refuse it and call its field not ready.  The tests of those limits set
 * them and post sets of the current time. */
static inline void fix_start_in(struct westd_proc *w, int keep, const char *const *sets)
{
	const char *argv[64];
	char s[6][512];
	int n = 0;

	if (!keep)
		fix_mkdir(w);
	w->port = fix_free_port();
	snprintf(w->url, sizeof w->url, "http://127.0.0.1:%d", w->port);
	snprintf(w->log, sizeof w->log, "%s/westd.log", w->dir);
	snprintf(s[0], sizeof s[0], "terrain=%s", FIX_TERRAIN);
	snprintf(s[1], sizeof s[1], "listen=127.0.0.1:%d", w->port);
	snprintf(s[2], sizeof s[2], "state_dir=%s/state", w->dir);
	snprintf(s[3], sizeof s[3], "snapshot_dir=%s/snapshots", w->dir);
	snprintf(s[4], sizeof s[4], "spool_dir=%s/spool", w->dir);
	snprintf(s[5], sizeof s[5], "spool_scan_interval=0.5");
	argv[n++] = WESTD_BIN;
	argv[n++] = "--foreground";
	if (w->conf[0])
		argv[n++] = "-c", argv[n++] = w->conf;
	for (int i = 0; i < 6; i++)
		argv[n++] = "--set", argv[n++] = s[i];
	argv[n++] = "--set", argv[n++] = "backend=cpu";
	argv[n++] = "--set", argv[n++] = "iterations=100";
	argv[n++] = "--set", argv[n++] = "obs_max_age=0";
	argv[n++] = "--set", argv[n++] = "max_field_age=0";
	for (size_t i = 0; sets && sets[i] && n < 60; i++)
		argv[n++] = "--set", argv[n++] = sets[i];
	argv[n] = NULL;
	w->pid = fork();
	cr_assert(w->pid >= 0);
	if (w->pid == 0) {
		int fd = open(w->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		dup2(fd, 2);
		dup2(fd, 1);
		execv(WESTD_BIN, (char *const *)argv);
		_exit(127);
	}
	for (double t0 = fix_now(); fix_now() - t0 < 60;) {
		struct http_resp r;
		int status;
		if (waitpid(w->pid, &status, WNOHANG) == w->pid) {
			fix_dump_log(w);
			cr_assert_fail("westd exited at start (status %d)", status);
		}
		fix_get(w, "/livez", &r);
		fix_resp_free(&r);
		if (r.status == 200)
			return;
		usleep(20000);
	}
	fix_dump_log(w);
	cr_assert_fail("westd did not answer /livez within 60 s");
}

static inline void fix_start(struct westd_proc *w, const char *const *sets)
{
	fix_start_in(w, 0, sets);
}

/* SIGTERM and wait; returns the exit status (asserted to be an exit). */
static inline int fix_stop(struct westd_proc *w)
{
	int status = 0;
	kill(w->pid, SIGTERM);
	cr_assert_eq(waitpid(w->pid, &status, 0), w->pid);
	w->pid = 0;
	cr_assert(WIFEXITED(status), "westd did not exit (status %d)", status);
	return WEXITSTATUS(status);
}

/* Stop a daemon still running (SIGTERM, so that a sanitizer build reports
 * its leaks; SIGKILL after 20 s) and remove the directory. */
static inline void fix_cleanup(struct westd_proc *w)
{
	char cmd[128];
	if (w->pid > 0) {
		int status, gone = 0;
		kill(w->pid, SIGTERM);
		for (double t0 = fix_now(); !gone && fix_now() - t0 < 20; usleep(10000))
			gone = waitpid(w->pid, &status, WNOHANG) == w->pid;
		if (!gone) {
			fprintf(stderr, "westd %d did not stop on SIGTERM within 20 s\n", (int)w->pid);
			kill(w->pid, SIGKILL);
			waitpid(w->pid, NULL, 0);
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "westd %d stopped with status %d\n", (int)w->pid, status);
		}
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", w->dir);
	if (w->dir[0] && system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", w->dir);
}

/* POST the file at path (JSON or CSV by its name). */
static inline void fix_post_file(const struct westd_proc *w, const char *path,
				 const char *const *headers, struct http_resp *r)
{
	size_t len;
	char *body = fix_slurp(path, &len);
	const char *ct = strstr(path, ".csv") ? "Content-Type: text/csv"
					       : "Content-Type: application/json";
	const char *h[8] = { ct };
	for (int i = 0; headers && headers[i] && i < 6; i++)
		h[i + 1] = headers[i];
	fix_http(w, "POST", "/v1/observations", body, len, h, r);
	free(body);
}

/* The current field version from /v1/status (0: none). */
static inline unsigned long long fix_version(const struct westd_proc *w)
{
	struct http_resp r;
	unsigned long long v = 0;
	fix_get(w, "/v1/status", &r);
	cr_assert_eq(r.status, 200, "/v1/status: %ld %s", r.status, r.body ? r.body : "");
	json_t *j = fix_json(&r), *f = json_object_get(j, "field");
	if (json_is_object(f))
		v = (unsigned long long)json_integer_value(json_object_get(f, "version"));
	json_decref(j);
	fix_resp_free(&r);
	return v;
}

/* Wait (at most 60 s) until the field version is at least v. */
static inline void fix_wait_version(const struct westd_proc *w, unsigned long long v)
{
	for (double t0 = fix_now(); fix_now() - t0 < 60; usleep(20000))
		if (fix_version(w) >= v)
			return;
	fix_dump_log(w);
	cr_assert_fail("field version %llu did not come within 60 s", v);
}

/* Post the sample observations and wait for the field they make. */
static inline unsigned long long fix_post_and_wait(const struct westd_proc *w)
{
	struct http_resp r;
	fix_post_file(w, FIX_OBS_JSON, NULL, &r);
	cr_assert_eq(r.status, 202, "POST: %ld %s", r.status, r.body ? r.body : "");
	json_t *j = fix_json(&r);
	unsigned long long v = (unsigned long long)json_integer_value(
		json_object_get(j, "field_version"));
	json_decref(j);
	fix_resp_free(&r);
	fix_wait_version(w, v);
	return v;
}

/* GET path, asserted to answer 200 with JSON; the document. */
static inline json_t *fix_get_json(const struct westd_proc *w, const char *path)
{
	struct http_resp r;
	fix_get(w, path, &r);
	cr_assert_eq(r.status, 200, "GET %s: %ld %s", path, r.status, r.body ? r.body : "");
	json_t *j = fix_json(&r);
	fix_resp_free(&r);
	return j;
}

/* POST body as application/json (plus headers, NULL-terminated or NULL). */
static inline void fix_post_json(const struct westd_proc *w, const char *body,
				 const char *const *headers, struct http_resp *r)
{
	const char *h[8] = { "Content-Type: application/json" };
	for (int i = 0; headers && headers[i] && i < 6; i++)
		h[i + 1] = headers[i];
	fix_http(w, "POST", "/v1/observations", body, strlen(body), h, r);
}

/* The sample observations (data/obs/default.json) with the first
 * station's speed set to first and the others' to others (m/s; a
 * negative value keeps the file's), and every station's time set to t (s
 * since the epoch; negative: the file's); malloc'd JSON text. */
static inline char *fix_obs_body_at(double first, double others, long long t)
{
	char when[32] = "";
	time_t tt = (time_t)t;
	struct tm tm;

	if (t >= 0) {
		cr_assert_not_null(gmtime_r(&tt, &tm));
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	json_error_t e;
	json_t *j = json_load_file(FIX_OBS_JSON, 0, &e), *a;
	cr_assert_not_null(j, "%s: %s", FIX_OBS_JSON, e.text);
	a = json_object_get(j, "observations");
	cr_assert(json_array_size(a) >= 2);
	for (size_t i = 0; i < json_array_size(a); i++) {
		double s = i == 0 ? first : others;
		if (s >= 0)
			json_object_set_new(json_array_get(a, i), "speed", json_real(s));
		if (when[0])
			json_object_set_new(json_array_get(a, i), "time", json_string(when));
	}
	char *text = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
	cr_assert_not_null(text);
	json_decref(j);
	return text;
}

/* fix_obs_body_at with the file's times. */
static inline char *fix_obs_body(double first, double others)
{
	return fix_obs_body_at(first, others, -1);
}

/* POST body (JSON) and assert 202; the answer's id and field_version. */
static inline void fix_post_ok(const struct westd_proc *w, const char *body,
			       const char *const *headers, unsigned long long *id,
			       unsigned long long *version)
{
	struct http_resp r;
	fix_post_json(w, body, headers, &r);
	cr_assert_eq(r.status, 202, "POST: %ld %s", r.status, r.body ? r.body : "");
	json_t *j = fix_json(&r);
	if (id)
		*id = (unsigned long long)json_integer_value(json_object_get(j, "id"));
	if (version)
		*version = (unsigned long long)json_integer_value(
			json_object_get(j, "field_version"));
	json_decref(j);
	fix_resp_free(&r);
}

/*
 * r is a problem+json answer (RFC 9457) with this status, a type ending in
 * "/slug" (slug NULL: any), a title, and a detail containing `detail`
 * (NULL: any non-empty detail).  Frees r.
 */
static inline void fix_problem(struct http_resp *r, long status, const char *slug,
			       const char *detail)
{
	cr_assert_eq(r->status, status, "want %ld, got %ld: %s", status, r->status,
		     r->body ? r->body : "");
	cr_expect_eq(strncmp(r->ctype, "application/problem+json", 24), 0,
		     "%ld: Content-Type '%s'", status, r->ctype);
	json_t *j = fix_json(r);
	const char *type = json_string_value(json_object_get(j, "type"));
	const char *title = json_string_value(json_object_get(j, "title"));
	const char *det = json_string_value(json_object_get(j, "detail"));
	cr_assert_not_null(type, "no type: %s", r->body);
	cr_expect(title && title[0], "no title: %s", r->body);
	cr_expect_eq(json_integer_value(json_object_get(j, "status")), status, "%s", r->body);
	cr_assert(det && det[0], "no detail: %s", r->body);
	if (slug) {
		size_t n = strlen(type), k = strlen(slug);
		cr_expect(n > k && type[n - k - 1] == '/' && !strcmp(type + n - k, slug),
			  "type '%s' is not .../%s", type, slug);
	}
	if (detail)
		cr_expect_not_null(strstr(det, detail), "detail '%s' lacks '%s'", det, detail);
	json_decref(j);
	fix_resp_free(r);
}

/* How many times needle occurs in the daemon's log. */
static inline int fix_log_count(const struct westd_proc *w, const char *needle)
{
	size_t n;
	int count = 0;
	char *log = fix_slurp(w->log, &n);
	for (const char *p = log; (p = strstr(p, needle)); p += strlen(needle))
		count++;
	free(log);
	return count;
}

/* Wait (at most 30 s) until needle occurs count times in the log. */
static inline void fix_wait_log(const struct westd_proc *w, const char *needle, int count)
{
	for (double t0 = fix_now(); fix_now() - t0 < 30; usleep(20000))
		if (fix_log_count(w, needle) >= count)
			return;
	fix_dump_log(w);
	cr_assert_fail("'%s' did not come %d times in the log within 30 s", needle, count);
}

/* Wait (at most 60 s) until the worker has nothing pending or running. */
static inline void fix_wait_idle(const struct westd_proc *w)
{
	for (double t0 = fix_now(); fix_now() - t0 < 60; usleep(20000)) {
		json_t *j = fix_get_json(w, "/v1/status"), *q = json_object_get(j, "queue");
		int idle = !json_integer_value(json_object_get(q, "pending")) &&
			   !json_integer_value(json_object_get(q, "running"));
		json_decref(j);
		if (idle)
			return;
	}
	fix_dump_log(w);
	cr_assert_fail("the worker did not become idle within 60 s");
}

/* The path part of an absolute URL ("http://host:port/p?q" -> "/p?q"). */
static inline const char *fix_url_path(const char *href)
{
	const char *p = strstr(href, "://");
	cr_assert_not_null(p, "not an absolute URL: %s", href);
	p = strchr(p + 3, '/');
	return p ? p : "/";
}

/* A TCP connection to the daemon (fd), with a 10 s receive timeout. */
static inline int fix_connect(const struct westd_proc *w)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)w->port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { 10, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	cr_assert(fd >= 0);
	cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0, "connect: %s",
		     strerror(errno));
	cr_assert_eq(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv), 0);
	return fd;
}

/* 1 when name has the snapshot form wind-v<N>-YYYYmmddTHHMMSSZ.nc. */
static inline int fix_snapshot_name(const char *name)
{
	const char *p = name;
	if (strncmp(p, "wind-v", 6))
		return 0;
	p += 6;
	if (*p < '1' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p++ != '-')
		return 0;
	for (int i = 0; i < 15; i++, p++)
		if (i == 8 ? *p != 'T' : (*p < '0' || *p > '9'))
			return 0;
	return strcmp(p, "Z.nc") == 0;
}

#endif
