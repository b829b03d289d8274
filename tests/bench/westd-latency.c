/*
 * westd-latency.c: observation-to-field latency of the real westd, minus
 * the solve: from the moment a client POSTs an observation set to the
 * moment a reader first sees the field solved from it, less the time the
 * backend's run() took (the field's own report, solve.seconds.total).  What
 * is left is the daemon's overhead: HTTP, parsing, saving the set (the
 * state directory), queueing, the field's allocation, publishing, and the
 * reader's poll.  A benchmark, not a test: never part of `make check`.
 * Tables on stdout are markdown, ready for docs/benchmarks.md; progress
 * goes to stderr.
 *
 * Targets (the issue): overhead under 20 ms on the GPU at R16 and under
 * 50 ms on the CPU backend (a 2-core machine).
 *
 * Usage:
 *   westd-latency WESTD_BINARY [--backend cpu|cuda] [--grid R1|R4|R16|R64]
 *                 [--posts N] [--iterations N] [--solver sor|multigrid]
 *                 [--field-pool N]
 *   defaults: cpu, R16, 20 posts, sor with 200 iterations and tolerance 0;
 *   --solver multigrid solves each set to the default tolerance, 1e-4.
 * Build (in the repository root, after a build of build/cpu):
 *   gcc -std=gnu11 -Wall -Wextra -O2 -Isrc -Itests/bench \
 *       -DWEST_SRCDIR="\"$PWD\"" -o westd-latency tests/bench/westd-latency.c \
 *       build/cpu/libwest.a -lcurl -ljansson -lm
 * (libwest.a for west_fail only.)  WEST_SRCDIR locates data/default.prj;
 * without it the .prj is looked for under ./data.
 * Exit status: 0 when every post was measured (the targets met or not), 1
 * on any failure (westd's log is printed), 2 on a bad option.
 *
 * The set-up: the terrain of grid Rn (bench_terrain.h, as west-bench.c:
 * 8 km x 8 km, R1 100 x 100 columns of 80 m, R4 200 of 40 m, R16 400 of
 * 20 m, R64 800 of 10 m) is written as an ESRI ASCII grid (rows north
 * first, xllcorner 500000, yllcorner 4650000, each value the float that
 * west-bench stores, printed exactly) with data/default.prj beside it, in a
 * fresh temp directory.  westd starts on it in the foreground: nz 20, dz
 * 20, the backend, the iteration count, tolerance 0 (every solve does all
 * its iterations), listen 127.0.0.1 on a free port, state and snapshot
 * directories in the temp directory.  Snapshots stay ON, as in production:
 * a NetCDF snapshot of each field is written by its own thread after the
 * publish; it does not delay the field's visibility, but it uses the
 * machine, so each post waits for the previous snapshot (below).
 *
 * The measurement:
 *  1. HTTP floor: 200 GETs of /livez on a keep-alive connection, median
 *     round trip (before any field exists).
 *  2. A warm-up post (not counted): the first solve touches fresh memory.
 *  3. For each post i (N of them): six stations at 10 m (west-bench's:
 *     3 to 9 m/s, 180 to 330 degrees, classes A to F), speeds scaled by
 *     1 + 0.04 ((i mod 7) - 3).  t0 = now; POST /v1/observations on one
 *     keep-alive handle; the 202 names field_version v and the set's id.
 *     Then GET /v1/field on a second keep-alive handle, 200 us of sleep
 *     between two polls, until "version" >= v; t1 = when that answer
 *     arrived.  It must be the set's field (observation_set = id).
 *     latency = t1 - t0, solve = solve.seconds.total of that answer,
 *     overhead = latency - solve.  Then wait for idle: the snapshot of v
 *     written (/v1/status snapshots.written + failed), before post i + 1.
 *  4. The poll period (mean time between two polls' starts during the
 *     waits) is the resolution: t1 is late by up to one period.  The
 *     median GET /v1/field round trip (the poll itself) is printed too.
 * Note that on the CPU backend the polls share the cores with the solve:
 * they slow the solve a little (inside solve.seconds, not the overhead).
 *
 * --releases P: the same again with a release plume running (issue 18:
 * how much a run delays a new field): after the N posts above, N more,
 * before each of which a release of P particles over 1 simulated hour
 * at the grid's centre is made to run (POST /v1/releases when the last is
 * done, then GET /v1/releases/{id} until it is running).  A post counts
 * as "beside a release" when the release is still running once its
 * field shows; the table gives both sets and the ratio of their medians,
 * and the releases' median run_seconds.
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_terrain.h"
#include "status.h"

#ifndef WEST_SRCDIR
#define WEST_SRCDIR "."
#endif

#define LB_X0 500000.0               /* outer lower-left corner (m) */
#define LB_Y0 4650000.0
#define LB_TIME 1795435200LL         /* 2026-11-22T12:00:00Z */
#define LB_POLL_US 200               /* sleep between two polls */
#define LB_FLOOR_N 200               /* /livez round trips */
#define LB_START_S 300.0             /* westd's start, at most */
#define LB_WAIT_S 600.0              /* one field or snapshot, at most */
#define LB_MAX_POSTS 10000


struct opts {
	const char *westd;
	const char *backend;
	const char *grid;          /* "R16" */
	size_t nx;                 /* columns per side */
	int posts;
	long iterations;
	const char *solver;        /* "sor" (tolerance 0) or "multigrid" (1e-4) */
	long field_pool;           /* westd's field_pool, or -1: its default */
	long releases;             /* particles of the releases beside, 0: none */
};

/* One keep-alive client and its last answer. */
struct client {
	CURL *c;
	struct curl_slist *hdr;
	char *body;
	size_t len, cap;
	long status;
};

struct daemon {
	pid_t pid;
	char dir[64];
	char url[64];
	char log[128];
};

/* One post's figures (s). */
struct sample {
	double latency, solve, overhead, accepted, snapshot;
	unsigned long long version;
	long polls;
};

/* ---------------------------------------------------------------- helpers */

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The q-quantile (nearest rank) of v[0..n), n >= 1; v is sorted. */
static double quantile(double *v, size_t n, double q)
{
	size_t k = (size_t)ceil(q * (double)n);
	qsort(v, n, sizeof *v, cmp_double);
	return v[k ? k - 1 : 0];
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void sleep_us(long us)
{
	struct timespec t = { us / 1000000, (us % 1000000) * 1000 };
	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

/* -------------------------------------------------------------- terrain */

/* DIR/terrain.asc: the Rn terrain, rows north first. */
static enum west_status write_asc(const char *path, size_t nx, char *err, size_t errlen)
{
	double d = BENCH_TERRAIN_L / (double)nx;
	FILE *f = fopen(path, "w");

	if (!f)
		return west_fail(err, errlen, WEST_ERR_IO, "%s: %s", path, strerror(errno));
	fprintf(f, "ncols %zu\nnrows %zu\nxllcorner %.1f\nyllcorner %.1f\ncellsize %.17g\n"
		"NODATA_value -9999\n", nx, nx, LB_X0, LB_Y0, d);
	for (size_t r = 0; r < nx; r++) {
		size_t j = nx - 1 - r;             /* north first */
		for (size_t i = 0; i < nx; i++) {
			float z = (float)bench_terrain_alt(((double)i + 0.5) * d,
							   ((double)j + 0.5) * d);
			fprintf(f, i + 1 < nx ? "%.9g " : "%.9g\n", (double)z);
		}
	}
	if (ferror(f) | fclose(f))
		return west_fail(err, errlen, WEST_ERR_IO, "%s: write failed", path);
	return WEST_OK;
}

static enum west_status copy_file(const char *from, const char *to, char *err,
				  size_t errlen)
{
	char buf[4096];
	size_t n;
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
	enum west_status st = WEST_OK;

	if (!in || !out)
		st = west_fail(err, errlen, WEST_ERR_IO, "%s: %s", in ? to : from,
			       strerror(errno));
	while (!st && (n = fread(buf, 1, sizeof buf, in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			st = west_fail(err, errlen, WEST_ERR_IO, "%s: write failed", to);
	if (in)
		fclose(in);
	if (out && fclose(out) && !st)
		st = west_fail(err, errlen, WEST_ERR_IO, "%s: write failed", to);
	return st;
}

/* --------------------------------------------------------------- client */

static size_t client_write(char *p, size_t size, size_t n, void *ctx)
{
	struct client *c = ctx;
	size_t k = size * n;

	if (c->len + k + 1 > c->cap) {
		size_t cap = 2 * (c->len + k + 1);
		char *b = realloc(c->body, cap);
		if (!b)
			return 0;              /* curl fails the transfer */
		c->body = b, c->cap = cap;
	}
	memcpy(c->body + c->len, p, k);
	c->len += k;
	c->body[c->len] = '\0';
	return k;
}

static enum west_status client_init(struct client *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	c->c = curl_easy_init();
	c->hdr = curl_slist_append(NULL, "Expect:");   /* no 100-continue */
	if (c->hdr)
		c->hdr = curl_slist_append(c->hdr, "Content-Type: application/json");
	if (!c->c || !c->hdr)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "curl: out of memory");
	curl_easy_setopt(c->c, CURLOPT_WRITEFUNCTION, client_write);
	curl_easy_setopt(c->c, CURLOPT_WRITEDATA, c);
	curl_easy_setopt(c->c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->c, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(c->c, CURLOPT_TIMEOUT, 120L);
	return WEST_OK;
}

static void client_free(struct client *c)
{
	if (c->c)
		curl_easy_cleanup(c->c);
	curl_slist_free_all(c->hdr);
	free(c->body);
	memset(c, 0, sizeof *c);
}

/* GET url + path (body NULL) or POST body; c->status 0: no answer. */
static enum west_status client_do(struct client *c, const char *url, const char *path,
				  const char *body, char *err, size_t errlen)
{
	char u[512];
	CURLcode rc;

	snprintf(u, sizeof u, "%s%s", url, path);
	c->len = 0, c->status = 0;
	curl_easy_setopt(c->c, CURLOPT_URL, u);
	if (body) {
		curl_easy_setopt(c->c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c->c, CURLOPT_HTTPHEADER, c->hdr);
	} else {
		curl_easy_setopt(c->c, CURLOPT_HTTPGET, 1L);
		curl_easy_setopt(c->c, CURLOPT_HTTPHEADER, NULL);
	}
	rc = curl_easy_perform(c->c);
	if (rc != CURLE_OK)
		return west_fail(err, errlen, WEST_ERR_IO, "%s %s: %s", body ? "POST" : "GET",
				 path, curl_easy_strerror(rc));
	curl_easy_getinfo(c->c, CURLINFO_RESPONSE_CODE, &c->status);
	return WEST_OK;
}

/* The answer as JSON, expecting HTTP status want. */
static enum west_status client_json(struct client *c, const char *path, long want,
				    json_t **out, char *err, size_t errlen)
{
	json_error_t je;

	*out = NULL;
	if (c->status != want)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: HTTP %ld, not %ld: %.300s",
				 path, c->status, want, c->body ? c->body : "");
	*out = json_loadb(c->body ? c->body : "", c->len, 0, &je);
	if (!*out)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: not JSON: %s", path,
				 je.text);
	return WEST_OK;
}

/* --------------------------------------------------------------- daemon */

static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t n = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof a) &&
	    !getsockname(fd, (struct sockaddr *)&a, &n))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static void dump_log(const struct daemon *d)
{
	char line[1024];
	FILE *f = fopen(d->log, "r");

	if (!f)
		return;
	fprintf(stderr, "---- %s ----\n", d->log);
	while (fgets(line, sizeof line, f))
		fputs(line, stderr);
	fprintf(stderr, "---- end ----\n");
	fclose(f);
}

/* The child: westd --foreground with the benchmark's settings. */
static void exec_westd(const struct daemon *d, const struct opts *o, int port)
{
	char s[12][600];
	const char *argv[28];
	int n = 0, fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND, 0644);

	snprintf(s[0], sizeof s[0], "terrain=%s/terrain.asc", d->dir);
	snprintf(s[1], sizeof s[1], "listen=127.0.0.1:%d", port);
	snprintf(s[2], sizeof s[2], "state_dir=%s/state", d->dir);
	snprintf(s[3], sizeof s[3], "snapshot_dir=%s/snapshots", d->dir);
	snprintf(s[4], sizeof s[4], "backend=%s", o->backend);
	snprintf(s[5], sizeof s[5], "iterations=%ld", o->iterations);
	snprintf(s[6], sizeof s[6], "tolerance=%s", strcmp(o->solver, "sor") ? "1e-4" : "0");
	snprintf(s[7], sizeof s[7], "nz=20");
	snprintf(s[8], sizeof s[8], "dz=20");
	snprintf(s[9], sizeof s[9], "solver=%s", o->solver);
	snprintf(s[10], sizeof s[10], "obs_max_age=0"); /* sets dated from LB_TIME */
	snprintf(s[11], sizeof s[11], "field_pool=%ld", o->field_pool);
	argv[n++] = o->westd;
	argv[n++] = "--foreground";
	for (int i = 0; i < (o->field_pool >= 0 ? 12 : 11); i++) {
		argv[n++] = "--set";
		argv[n++] = s[i];
	}
	argv[n] = NULL;
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
	}
	execv(o->westd, (char *const *)argv);
	_exit(127);
}

/* Start westd in d->dir and wait until /livez answers. */
static enum west_status daemon_start(struct daemon *d, const struct opts *o,
				     struct client *c, char *err, size_t errlen)
{
	int port = free_port(), status;

	if (port < 0)
		return west_fail(err, errlen, WEST_ERR_IO, "no free port: %s", strerror(errno));
	snprintf(d->url, sizeof d->url, "http://127.0.0.1:%d", port);
	snprintf(d->log, sizeof d->log, "%s/westd.log", d->dir);
	d->pid = fork();
	if (d->pid < 0)
		return west_fail(err, errlen, WEST_ERR_IO, "fork: %s", strerror(errno));
	if (d->pid == 0)
		exec_westd(d, o, port);
	for (double t0 = now_s(); now_s() - t0 < LB_START_S; sleep_us(20000)) {
		if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
			d->pid = 0;
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "westd exited at start (status %d)", status);
		}
		if (!client_do(c, d->url, "/livez", NULL, err, errlen) && c->status == 200)
			return WEST_OK;
	}
	return west_fail(err, errlen, WEST_ERR_IO, "westd did not answer /livez in %.0f s",
			 LB_START_S);
}

static void daemon_stop(struct daemon *d)
{
	int status;

	if (d->pid > 0) {
		kill(d->pid, SIGTERM);
		for (int i = 0; i < 600 && waitpid(d->pid, &status, WNOHANG) == 0; i++)
			sleep_us(50000);
		if (waitpid(d->pid, &status, WNOHANG) == 0) {
			kill(d->pid, SIGKILL);
			waitpid(d->pid, &status, 0);
		}
		d->pid = 0;
	}
}

/* rm -rf of the temp directory (its name is ours: /tmp/westd-latency-*). */
static void daemon_cleanup(struct daemon *d)
{
	char cmd[128];

	daemon_stop(d);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", d->dir);
	if (d->dir[0] && system(cmd) != 0)
		fprintf(stderr, "westd-latency: cannot remove %s\n", d->dir);
}

/* ------------------------------------------------------------ the posts */

struct run {
	const struct opts *o;
	char load0[64];            /* /proc/loadavg's 1, 5, 15 min at the start */
	struct daemon d;
	struct client post, poll;
	double poll_time;          /* s between the first and the last poll start, summed */
	long poll_gaps;            /* number of those gaps */
	long long release;         /* the last release posted (--releases), 0: none */
	double *run_s;             /* the finished releases' run_seconds */
	int nrun;
};

/* The observation set of post i: west-bench's stations, speeds scaled. */
static void obs_json(int i, char *buf, size_t size)
{
	char t[32];
	time_t tt = (time_t)(LB_TIME + 60LL * i);
	struct tm tm;
	size_t n = 0;
	double scale = 1.0 + 0.04 * (double)((i % 7) - 3);

	gmtime_r(&tt, &tm);
	strftime(t, sizeof t, "%Y-%m-%dT%H:%M:%SZ", &tm);
	n += (size_t)snprintf(buf + n, size - n, "{\"observations\": [");
	for (size_t s = 0; s < BENCH_NSTATIONS && n < size; s++)
		n += (size_t)snprintf(buf + n, size - n,
			"%s{\"id\": \"%s\", \"x\": %.1f, \"y\": %.1f, \"height\": 10, "
			"\"speed\": %.3f, \"direction\": %.0f, \"time\": \"%s\", "
			"\"stability\": \"%c\"}", s ? ", " : "", bench_stations[s].id,
			LB_X0 + bench_stations[s].fx * BENCH_TERRAIN_L,
			LB_Y0 + bench_stations[s].fy * BENCH_TERRAIN_L,
			bench_stations[s].speed * scale, bench_stations[s].dir, t,
			"ABCDEF"[bench_stations[s].cls]);
	if (n < size)
		snprintf(buf + n, size - n, "]}");
}

/* An integer member of a JSON object, -1 when missing. */
static long long jint(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/* POST the set of post i; its field version and set id from the 202. */
static enum west_status post_obs(struct run *r, int i, unsigned long long *version,
				 long long *id, char *err, size_t errlen)
{
	char body[4096];
	json_t *j;
	enum west_status st;

	obs_json(i, body, sizeof body);
	st = client_do(&r->post, r->d.url, "/v1/observations", body, err, errlen);
	if (!st)
		st = client_json(&r->post, "POST /v1/observations", 202, &j, err, errlen);
	if (st)
		return st;
	long long v = jint(j, "field_version");

	*id = jint(j, "id");
	json_decref(j);
	if (*id < 0 || v < 1)
		return west_fail(err, errlen, WEST_ERR_INVALID, "POST: no field_version or id");
	*version = (unsigned long long)v;
	return WEST_OK;
}

/* The field answer's version, observation set and solve.seconds.total. */
static void field_fields(json_t *j, unsigned long long *version, long long *obs_id,
			 double *total)
{
	json_t *sec = json_object_get(json_object_get(j, "solve"), "seconds");

	*version = (unsigned long long)jint(j, "version");
	*obs_id = jint(j, "observation_set");
	*total = json_number_value(json_object_get(sec, "total"));
}

/* Poll GET /v1/field until version >= v; *t1 = that answer's arrival. */
static enum west_status poll_field(struct run *r, unsigned long long v, long long id,
				   double *t1, struct sample *s, char *err, size_t errlen)
{
	double first = now_s(), start = first;
	unsigned long long got = 0;
	long long obs_id = -1;
	enum west_status st = WEST_OK;
	json_t *j = NULL;

	for (s->polls = 1; !st; s->polls++, sleep_us(LB_POLL_US), start = now_s()) {
		if ((st = client_do(&r->poll, r->d.url, "/v1/field", NULL, err, errlen)))
			break;
		*t1 = now_s();
		if (r->poll.status == 503 && *t1 - first < LB_WAIT_S)
			continue;          /* no field yet */
		if ((st = client_json(&r->poll, "GET /v1/field", 200, &j, err, errlen)))
			break;
		field_fields(j, &got, &obs_id, &s->solve);
		json_decref(j);
		if (got >= v)
			break;
		if (*t1 - first > LB_WAIT_S)
			st = west_fail(err, errlen, WEST_ERR_IO, "field v%llu not visible in %.0f s",
				       v, LB_WAIT_S);
	}
	r->poll_time += start - first;
	r->poll_gaps += s->polls - 1;
	if (!st && (got != v || obs_id != id))
		st = west_fail(err, errlen, WEST_ERR_INVALID, "expected field v%llu of set %lld, "
			       "saw v%llu of set %lld (another writer?)", v, id, got, obs_id);
	s->version = got;
	return st;
}

/* /v1/status snapshots: written + failed, and last_seconds. */
static enum west_status snap_count(struct run *r, long long *count, double *last,
				   char *err, size_t errlen)
{
	json_t *j, *sn;
	enum west_status st = client_do(&r->poll, r->d.url, "/v1/status", NULL, err, errlen);

	if (!st)
		st = client_json(&r->poll, "GET /v1/status", 200, &j, err, errlen);
	if (st)
		return st;
	sn = json_object_get(j, "snapshots");
	*count = jint(sn, "written") + jint(sn, "failed");
	*last = json_number_value(json_object_get(sn, "last_seconds"));
	json_decref(j);
	if (*count < 0)
		return west_fail(err, errlen, WEST_ERR_INVALID, "/v1/status: snapshots off?");
	return WEST_OK;
}

/* Wait until the snapshot count passes `before` (the machine idle again). */
static enum west_status wait_snapshot(struct run *r, long long before, double *seconds,
				      char *err, size_t errlen)
{
	long long n = before;
	enum west_status st = WEST_OK;

	for (double t0 = now_s(); !st && n <= before; sleep_us(5000)) {
		st = snap_count(r, &n, seconds, err, errlen);
		if (!st && n <= before && now_s() - t0 > LB_WAIT_S)
			st = west_fail(err, errlen, WEST_ERR_IO, "no snapshot in %.0f s", LB_WAIT_S);
	}
	return st;
}

/* One post: POST, poll until its field shows, wait for its snapshot. */
static enum west_status measure_post(struct run *r, int i, struct sample *s, char *err,
				     size_t errlen)
{
	unsigned long long v;
	long long id, snaps;
	double t0, t1 = 0, last;
	enum west_status st = snap_count(r, &snaps, &last, err, errlen);

	memset(s, 0, sizeof *s);
	t0 = now_s();
	if (!st)
		st = post_obs(r, i, &v, &id, err, errlen);
	s->accepted = now_s() - t0;
	if (!st)
		st = poll_field(r, v, id, &t1, s, err, errlen);
	if (!st) {
		s->latency = t1 - t0;
		s->overhead = s->latency - s->solve;
		st = wait_snapshot(r, snaps, &s->snapshot, err, errlen);
	}
	return st;
}

/* Release id's status ("queued", "running", "done", "failed") into
 * status, and its run_seconds (NAN until done). */
static enum west_status release_status(struct run *r, long long id, char *status, size_t n,
				       double *run_s, char *err, size_t errlen)
{
	char path[64];
	json_t *j;
	enum west_status st;

	snprintf(path, sizeof path, "/v1/releases/%lld", id);
	if (!(st = client_do(&r->poll, r->d.url, path, NULL, err, errlen)))
		st = client_json(&r->poll, path, 200, &j, err, errlen);
	if (st)
		return st;
	snprintf(status, n, "%s", json_string_value(json_object_get(j, "status")) ?
		 json_string_value(json_object_get(j, "status")) : "?");
	json_t *rs = json_object_get(j, "run_seconds");
	*run_s = json_is_number(rs) ? json_number_value(rs) : NAN;
	json_decref(j);
	return WEST_OK;
}

/* A release running: a new one posted when the last one is over (its run
 * time kept), then polled until it runs. */
static enum west_status keep_release(struct run *r, char *err, size_t errlen)
{
	char status[16] = "done", body[256];
	double run_s = NAN, t0 = now_s();
	enum west_status st = WEST_OK;
	json_t *j;

	if (r->release > 0)
		st = release_status(r, r->release, status, sizeof status, &run_s, err, errlen);
	if (!st && (!strcmp(status, "done") || !strcmp(status, "failed"))) {
		if (!isnan(run_s))
			r->run_s[r->nrun++] = run_s;
		snprintf(body, sizeof body, "{\"x\": %.1f, \"y\": %.1f, \"particles\": %ld, "
			 "\"hours\": 1}", LB_X0 + 0.5 * BENCH_TERRAIN_L,
			 LB_Y0 + 0.5 * BENCH_TERRAIN_L, r->o->releases);
		if (!(st = client_do(&r->post, r->d.url, "/v1/releases", body, err, errlen)) &&
		    !(st = client_json(&r->post, "POST /v1/releases", 202, &j, err, errlen))) {
			r->release = jint(j, "id");
			json_decref(j);
		}
		strcpy(status, "queued");
	}
	while (!st && strcmp(status, "running")) {
		if (!strcmp(status, "done") || !strcmp(status, "failed") || now_s() - t0 > LB_WAIT_S)
			return west_fail(err, errlen, WEST_ERR_INVALID, "release %lld %s before a "
					 "post could run beside it (more --releases particles)",
					 r->release, status);
		sleep_us(1000);
		st = release_status(r, r->release, status, sizeof status, &run_s, err, errlen);
	}
	return st;
}

/* One post beside a running release; *beside: still running at the end. */
static enum west_status measure_beside(struct run *r, int i, struct sample *s, int *beside,
				       char *err, size_t errlen)
{
	char status[16];
	double run_s;
	enum west_status st = keep_release(r, err, errlen);

	if (!st)
		st = measure_post(r, i, s, err, errlen);
	if (!st)
		st = release_status(r, r->release, status, sizeof status, &run_s, err, errlen);
	*beside = !st && !strcmp(status, "running");
	return st;
}

/* Median round trip of n GETs of path (status 200). */
static enum west_status round_trip(struct run *r, const char *path, int n, double *med,
				   char *err, size_t errlen)
{
	double *t = malloc((size_t)n * sizeof *t);
	enum west_status st = t ? WEST_OK : west_fail(err, errlen, WEST_ERR_NOMEM, "out of memory");

	for (int k = 0; !st && k < n; k++) {
		double t0 = now_s();
		st = client_do(&r->poll, r->d.url, path, NULL, err, errlen);
		t[k] = now_s() - t0;
		if (!st && r->poll.status != 200)
			st = west_fail(err, errlen, WEST_ERR_INVALID, "GET %s: HTTP %ld", path,
				       r->poll.status);
	}
	if (!st)
		*med = median(t, (size_t)n);
	free(t);
	return st;
}

/* ----------------------------------------------------------- the report */

/* The first line of /proc/cpuinfo's "model name", or "unknown". */
static void cpu_model(char *buf, size_t size)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(buf, size, "unknown CPU");
	while (f && fgets(line, sizeof line, f)) {
		char *c = strchr(line, ':');
		if (!strncmp(line, "model name", 10) && c) {
			snprintf(buf, size, "%s", c + 2);
			buf[strcspn(buf, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
}

/* The 1, 5 and 15 minute load averages ("?" when unreadable). */
static void load_avg(char *buf, size_t size)
{
	double l[3];
	FILE *f = fopen("/proc/loadavg", "r");

	snprintf(buf, size, "?");
	if (f && fscanf(f, "%lf %lf %lf", &l[0], &l[1], &l[2]) == 3)
		snprintf(buf, size, "%.2f %.2f %.2f", l[0], l[1], l[2]);
	if (f)
		fclose(f);
}

static double mem_gib(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	return pages > 0 && psize > 0 ? (double)pages * (double)psize / 1073741824.0 : NAN;
}

/* The backend's device line from /v1/status ("" when missing). */
static void device_line(struct run *r, char *buf, size_t size)
{
	char err[WEST_ERRLEN];
	json_t *j = NULL, *b;

	snprintf(buf, size, "?");
	if (client_do(&r->poll, r->d.url, "/v1/status", NULL, err, sizeof err) ||
	    client_json(&r->poll, "GET /v1/status", 200, &j, err, sizeof err))
		return;
	b = json_object_get(j, "backend");
	snprintf(buf, size, "%s (%s)", json_string_value(json_object_get(b, "name")) ?: "?",
		 json_string_value(json_object_get(b, "device")) ?: "?");
	json_decref(j);
}

static void print_head(struct run *r, double livez, double field_rt)
{
	const struct opts *o = r->o;
	char cpu[256], dev[512], date[64], load1[64];
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;
	double d = BENCH_TERRAIN_L / (double)o->nx;

	cpu_model(cpu, sizeof cpu);
	load_avg(load1, sizeof load1);
	device_line(r, dev, sizeof dev);
	gmtime_r(&now, &tm);
	strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &tm);
	if (uname(&u))
		snprintf(u.sysname, sizeof u.sysname, "?"), u.release[0] = '\0';
	printf("## westd observation-to-field latency (westd-latency)\n\n");
	printf("- date: %s\n", date);
	printf("- machine: %s, nproc %ld, %.1f GiB, %s %s; westd backend %s\n", cpu,
	       sysconf(_SC_NPROCESSORS_ONLN), mem_gib(), u.sysname, u.release, dev);
	printf("- load average (1, 5, 15 min) at the start: %s; at the end: %s\n", r->load0,
	       load1);
	printf("- command: westd-latency %s --backend %s --grid %s --posts %d --iterations %ld "
	       "--solver %s", o->westd, o->backend, o->grid, o->posts, o->iterations, o->solver);
	if (o->field_pool >= 0)
		printf(" --field-pool %ld", o->field_pool);
	printf("\n");
	printf("- grid: %s, %zux%zux20 = %.2f M cells, dx = dy = %g m, dz 20 m; solver %s, %s; "
	       "snapshots on (each post waits for the previous snapshot)\n",
	       o->grid, o->nx, o->nx, (double)o->nx * (double)o->nx * 20.0 / 1e6, d, o->solver,
	       strcmp(o->solver, "sor") ? "tolerance 1e-4" : "all iterations (tolerance 0)");
	printf("- HTTP floor: GET /livez %.3f ms (median of %d, keep-alive); "
	       "GET /v1/field %.3f ms (median of %d, the poll request)\n",
	       1e3 * livez, LB_FLOOR_N, 1e3 * field_rt, LB_FLOOR_N);
	printf("- resolution: the poll period, %.3f ms (mean between two polls: %d us sleep "
	       "+ one GET /v1/field)\n\n", r->poll_gaps ? 1e3 * r->poll_time /
	       (double)r->poll_gaps : NAN, LB_POLL_US);
}

static void print_row(const char *name, const struct sample *s)
{
	printf("| %s | %llu | %.3f | %.3f | %.3f | %.3f | %.3f | %ld | %.3f |\n", name,
	       s->version, 1e3 * s->accepted, 1e3 * s->latency, 1e3 * s->solve,
	       1e3 * s->overhead, s->overhead / s->latency, s->polls, s->snapshot);
}

static void print_posts(const struct sample *warm, const struct sample *s, int n)
{
	char name[16];

	printf("| post | version | 202 after (ms) | latency t1 - t0 (ms) | solve (ms) | "
	       "overhead (ms) | overhead / latency | polls | snapshot write (s) |\n");
	printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	print_row("warm-up (not counted)", warm);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "%d", i + 1);
		print_row(name, &s[i]);
	}
	printf("\n");
}

/* Median, p90 and max of one member of s[0..n) (off: its offset). */
static void stats3(const struct sample *s, int n, size_t off, double *tmp, double out[3])
{
	for (int i = 0; i < n; i++)
		memcpy(&tmp[i], (const char *)&s[i] + off, sizeof *tmp);
	out[0] = median(tmp, (size_t)n);
	out[1] = quantile(tmp, (size_t)n, 0.9);
	out[2] = tmp[n - 1];
}

static void print_stats(const char *name, const double v[3])
{
	printf("| %s | %.3f | %.3f | %.3f |\n", name, 1e3 * v[0], 1e3 * v[1], 1e3 * v[2]);
}

/* The summary; returns whether the median overhead meets the target. */
static int print_summary(const struct opts *o, const struct sample *s, int n, double *tmp)
{
	double lat[3], ovh[3], sol[3], acc[3];
	double target = !strcmp(o->backend, "cuda") ? 0.020 : 0.050;

	stats3(s, n, offsetof(struct sample, latency), tmp, lat);
	stats3(s, n, offsetof(struct sample, overhead), tmp, ovh);
	stats3(s, n, offsetof(struct sample, solve), tmp, sol);
	stats3(s, n, offsetof(struct sample, accepted), tmp, acc);
	printf("| over %d posts | median (ms) | p90 (ms) | max (ms) |\n", n);
	printf("| --- | ---: | ---: | ---: |\n");
	print_stats("latency t1 - t0", lat);
	print_stats("solve (solve.seconds.total)", sol);
	print_stats("overhead (latency - solve)", ovh);
	print_stats("POST until its 202 (the solve may start before)", acc);
	printf("\noverhead / latency (medians): %.4f\n", ovh[0] / lat[0]);
	printf("target (overhead < %.0f ms, %s backend): median %.3f ms, %s; max %.3f ms, %s\n",
	       1e3 * target, o->backend, 1e3 * ovh[0], ovh[0] < target ? "met" : "not met",
	       1e3 * ovh[2], ovh[2] < target ? "met" : "not met");
	return ovh[0] < target;
}

/* -------------------------------------------------------------- options */

static int usage(void)
{
	fprintf(stderr, "usage: westd-latency WESTD_BINARY [--backend cpu|cuda] "
		"[--grid R1|R4|R16|R64] [--posts N] [--iterations N]\n"
		"       [--solver sor|multigrid] [--field-pool N] [--releases PARTICLES]\n"
		"  defaults: cpu, R16, 20 posts, sor: 200 iterations (tolerance 0);\n"
		"  multigrid: to tolerance 1e-4; westd's own field_pool\n");
	return 2;
}

/* A whole number in [lo, hi] from s, or -1. */
static long parse_long(const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return !*s || *end || errno || v < lo || v > hi ? -1 : v;
}

static int grid_nx(const char *g, size_t *nx)
{
	static const struct { const char *name; size_t nx; } grids[] = {
		{ "R1", 100 }, { "R4", 200 }, { "R16", 400 }, { "R64", 800 } };

	for (size_t i = 0; i < sizeof grids / sizeof grids[0]; i++)
		if (!strcmp(g, grids[i].name)) {
			*nx = grids[i].nx;
			return 1;
		}
	return 0;
}

/* 0, or 2 after a usage message. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .backend = "cpu", .grid = "R16", .nx = 400, .posts = 20,
			    .iterations = 200, .solver = "sor", .field_pool = -1 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int ok = 1;

		if (a[0] != '-' && !o->westd) {
			o->westd = a;
			continue;
		} else if (!v) {
			ok = 0;
		} else if (!strcmp(a, "--backend")) {
			o->backend = v;
			ok = !strcmp(v, "cpu") || !strcmp(v, "cuda");
		} else if (!strcmp(a, "--grid")) {
			o->grid = v;
			ok = grid_nx(v, &o->nx);
		} else if (!strcmp(a, "--posts")) {
			o->posts = (int)parse_long(v, 1, LB_MAX_POSTS);
			ok = o->posts > 0;
		} else if (!strcmp(a, "--iterations")) {
			o->iterations = parse_long(v, 0, 10000000);
			ok = o->iterations >= 0;
		} else if (!strcmp(a, "--solver")) {
			o->solver = v;
			ok = !strcmp(v, "sor") || !strcmp(v, "multigrid");
		} else if (!strcmp(a, "--releases")) {
			o->releases = parse_long(v, 1, 10000000);
			ok = o->releases > 0;
		} else if (!strcmp(a, "--field-pool")) {
			o->field_pool = parse_long(v, 0, 64);
			ok = o->field_pool >= 0;
		} else {
			ok = 0;
		}
		if (!ok) {
			fprintf(stderr, "westd-latency: bad argument %s%s%s\n", a, v ? " " : "",
				v ? v : "");
			return usage();
		}
		i++;
	}
	return o->westd ? 0 : usage();
}

/* ----------------------------------------------------------------- main */

/* The temp directory, the terrain and its .prj. */
static enum west_status setup_dir(struct run *r, char *err, size_t errlen)
{
	char path[128], prj[128];
	enum west_status st;

	snprintf(r->d.dir, sizeof r->d.dir, "/tmp/westd-latency-XXXXXX");
	if (!mkdtemp(r->d.dir)) {
		r->d.dir[0] = '\0';
		return west_fail(err, errlen, WEST_ERR_IO, "mkdtemp: %s", strerror(errno));
	}
	snprintf(path, sizeof path, "%s/terrain.asc", r->d.dir);
	snprintf(prj, sizeof prj, "%s/terrain.prj", r->d.dir);
	fprintf(stderr, "westd-latency: writing the %s terrain to %s\n", r->o->grid, path);
	st = write_asc(path, r->o->nx, err, errlen);
	if (!st)
		st = copy_file(WEST_SRCDIR "/data/default.prj", prj, err, errlen);
	return st;
}

/* --releases: o->posts more posts beside running releases; the latency
 * beside them against s's (the posts alone, measured before). */
static enum west_status bench_releases(struct run *r, const struct sample *alone,
				       double *tmp, char *err, size_t errlen)
{
	int n = r->o->posts, k = 0;
	struct sample *b = calloc((size_t)n, sizeof *b);
	double lat[3], sol[3], lat0[3], sol0[3];
	enum west_status st = WEST_OK;

	if (!b || !(r->run_s = calloc((size_t)n + 1, sizeof *r->run_s))) {
		free(b);
		return west_fail(err, errlen, WEST_ERR_NOMEM, "out of memory");
	}
	for (int i = 0; !st && i < n; i++) {
		int beside;
		st = measure_beside(r, 1000 + i, &b[k], &beside, err, errlen);
		fprintf(stderr, "westd-latency: post %d/%d beside release %lld: latency %.1f ms%s\n",
			i + 1, n, r->release, 1e3 * b[k].latency, beside ? "" : " (it ended)");
		k += !st && beside;
	}
	if (!st && k == 0)
		st = west_fail(err, errlen, WEST_ERR_INVALID, "no post ran beside a release");
	if (!st) {
		stats3(alone, n, offsetof(struct sample, latency), tmp, lat0);
		stats3(alone, n, offsetof(struct sample, solve), tmp, sol0);
		stats3(b, k, offsetof(struct sample, latency), tmp, lat);
		stats3(b, k, offsetof(struct sample, solve), tmp, sol);
		printf("\n| %d posts alone, %d of %d beside a release of %ld particles | "
		       "median (ms) | p90 (ms) | max (ms) |\n", n, k, n, r->o->releases);
		printf("| --- | ---: | ---: | ---: |\n");
		print_stats("latency alone", lat0);
		print_stats("latency beside a release", lat);
		print_stats("solve alone", sol0);
		print_stats("solve beside a release", sol);
		printf("\nbeside / alone (medians): latency %.3f, solve %.3f\n", lat[0] / lat0[0],
		       sol[0] / sol0[0]);
		if (r->nrun)
			printf("releases finished meanwhile: %d, run_seconds median %.3f s\n",
			       r->nrun, median(r->run_s, (size_t)r->nrun));
	}
	free(b);
	return st;
}

/* Everything after the start: the floor, the posts, the report. */
static enum west_status bench(struct run *r, char *err, size_t errlen)
{
	const struct opts *o = r->o;
	struct sample warm, *s = calloc((size_t)o->posts, sizeof *s);
	double *tmp = calloc((size_t)o->posts, sizeof *tmp), livez = 0, field_rt = 0;
	enum west_status st = s && tmp ? WEST_OK : west_fail(err, errlen, WEST_ERR_NOMEM,
							       "out of memory");

	load_avg(r->load0, sizeof r->load0);
	if (!st)
		st = round_trip(r, "/livez", LB_FLOOR_N, &livez, err, errlen);
	fprintf(stderr, "westd-latency: warm-up post\n");
	if (!st)
		st = measure_post(r, 0, &warm, err, errlen);
	r->poll_time = 0, r->poll_gaps = 0;
	for (int i = 0; !st && i < o->posts; i++) {
		st = measure_post(r, i + 1, &s[i], err, errlen);
		fprintf(stderr, "westd-latency: post %d/%d: latency %.1f ms, solve %.1f ms\n",
			i + 1, o->posts, 1e3 * s[i].latency, 1e3 * s[i].solve);
	}
	if (!st)
		st = round_trip(r, "/v1/field", LB_FLOOR_N, &field_rt, err, errlen);
	if (!st) {
		print_head(r, livez, field_rt);
		print_posts(&warm, s, o->posts);
		print_summary(o, s, o->posts, tmp);
	}
	if (!st && o->releases)
		st = bench_releases(r, s, tmp, err, errlen);
	free(s);
	free(tmp);
	return st;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct run r = { .o = &o };
	char err[WEST_ERRLEN] = "";
	enum west_status st;
	int rc = parse_opts(argc, argv, &o);

	if (rc)
		return rc;
	if (access(o.westd, X_OK)) {
		fprintf(stderr, "westd-latency: %s: not executable: %s\n", o.westd, strerror(errno));
		return 1;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		fprintf(stderr, "westd-latency: curl_global_init failed\n");
		return 1;
	}
	st = client_init(&r.post, err, sizeof err);
	if (!st)
		st = client_init(&r.poll, err, sizeof err);
	if (!st)
		st = setup_dir(&r, err, sizeof err);
	if (!st)
		st = daemon_start(&r.d, &o, &r.poll, err, sizeof err);
	if (!st)
		st = bench(&r, err, sizeof err);
	if (st) {
		fprintf(stderr, "westd-latency: %s\n", err);
		if (r.d.log[0])
			dump_log(&r.d);
	}
	daemon_cleanup(&r.d);
	client_free(&r.post);
	client_free(&r.poll);
	curl_global_cleanup();
	return st ? 1 : 0;
}
