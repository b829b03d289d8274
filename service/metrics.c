/*
 * metrics.c: westd's counters and histograms and their Prometheus text
 * (metrics.h).
 *
 * Concurrency: every counter is an atomic_ullong bumped with a relaxed
 * fetch_add; ordering between counters carries no meaning, so nothing
 * stronger is needed.  A histogram is one atomic per bucket (not
 * cumulative: an observation touches one bucket, not all above it) plus
 * its sum in whole nanoseconds, also an atomic_ullong.  Keeping the sum as
 * an integer, rather than a double updated by a CAS loop or under a mutex,
 * makes it one wait-free fetch_add that never retries however many HTTP
 * threads contend, exact and independent of the order of additions; the
 * price is rounding each observation to 1 ns, far below what a clock read
 * around a request resolves.  2^64 ns is 584 years, and one observation
 * adds at most WEST_METRICS_MAX_SECONDS.
 *
 * Rendering copies each histogram's buckets first, then derives _count
 * and the +Inf bucket from that copy, so +Inf == _count holds in every
 * render even while writers run; _sum is read separately and may lag or
 * lead by the requests in flight (as in Prometheus' own clients).
 *
 * Text: one growing malloc'd buffer; the first failed allocation marks it
 * and the render returns NULL.  Sample values: counters as integers, sums
 * and bucket bounds as exact decimal seconds from the nanosecond
 * integers, gauges as the shortest of %.15g, %.16g, %.17g that reads back
 * as the same double (0.42, not 0.41999999999999998), or NaN/+Inf/-Inf.
 *
 * Process metrics: the names, types and help texts of Prometheus' own
 * client libraries (client_golang's process collector), so that
 * dashboards made for any exporter work.  CPU time and start time are in
 * clock ticks in /proc (sysconf(_SC_CLK_TCK)); the start time counts from
 * the boot, btime of /proc/stat.  The memory sizes are vsize (bytes) and
 * rss (pages) of /proc/self/stat.  The open descriptors are the entries
 * of /proc/self/fd less the one its own listing holds open.
 */
#include "metrics.h"
#include "field.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "metrics need lock-free 64-bit atomics");

#define NS 1000000000ULL
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Histogram upper bounds, in ns. */
static const unsigned long long http_bounds[] = {
	500000, 1000000, 2500000, 5000000, 10000000, 25000000, 50000000,
	100000000, 250000000, 500000000, NS, 2500000000ULL,
};
static const unsigned long long solve_bounds[] = {
	1000000, 2500000, 5000000, 10000000, 25000000, 50000000, 100000000,
	250000000, 500000000, NS, 2500000000ULL, 5 * NS, 10 * NS, 30 * NS, 60 * NS,
};
static const unsigned long long snapshot_bounds[] = {
	10000000, 25000000, 50000000, 100000000, 250000000, 500000000, NS,
	2500000000ULL, 5 * NS, 10 * NS, 30 * NS,
};

struct hist_def {
	const unsigned long long *bound;
	size_t n;
};

static const unsigned long long release_bounds[] = {
	10000000, 50000000, 100000000, 250000000, 500000000, NS, 2500000000ULL,
	5 * NS, 10 * NS, 30 * NS, 60 * NS, 300 * NS, 900 * NS,
};

static const struct hist_def http_def = { http_bounds, ARRAY_LEN(http_bounds) };
static const struct hist_def solve_def = { solve_bounds, ARRAY_LEN(solve_bounds) };
static const struct hist_def snapshot_def = { snapshot_bounds, ARRAY_LEN(snapshot_bounds) };
static const struct hist_def release_def = { release_bounds, ARRAY_LEN(release_bounds) };

_Static_assert(ARRAY_LEN(http_bounds) < WEST_METRICS_MAXBUCKETS, "http buckets");
_Static_assert(ARRAY_LEN(solve_bounds) < WEST_METRICS_MAXBUCKETS, "solve buckets");
_Static_assert(ARRAY_LEN(snapshot_bounds) < WEST_METRICS_MAXBUCKETS, "snapshot buckets");
_Static_assert(ARRAY_LEN(release_bounds) < WEST_METRICS_MAXBUCKETS, "release buckets");

/* ============================================================ labels */

static const char *const reject_labels[WEST_NREJECTS] = {
	[WEST_REJECT_INVALID] = "invalid",
	[WEST_REJECT_TOO_LARGE] = "too_large",
	[WEST_REJECT_MEDIA_TYPE] = "unsupported_media_type",
	[WEST_REJECT_UNAUTHORIZED] = "unauthorized",
	[WEST_REJECT_STORAGE] = "storage",
	[WEST_REJECT_OUT_OF_DATE] = "out_of_date",
};

static const char *const source_labels[WEST_NSOURCES] = {
	[WEST_SOURCE_HTTP] = "http",
	[WEST_SOURCE_SPOOL] = "spool",
};

int west_metrics_route(struct west_metrics *m, size_t i, const char *label)
{
	if (i >= WEST_METRICS_MAXROUTES)
		return -1;
	m->route_label[i] = label;
	if (i >= m->nroutes)
		m->nroutes = i + 1;
	return 0;
}

/* The counters' slot of route r: its own, or the last ("other"). */
static size_t route_slot(const struct west_metrics *m, size_t r)
{
	return r < m->nroutes && m->route_label[r] ? r : WEST_METRICS_MAXROUTES;
}

const char *west_metrics_route_label(const struct west_metrics *m, size_t i)
{
	size_t r = route_slot(m, i);
	return r < WEST_METRICS_MAXROUTES ? m->route_label[r] : "other";
}

const char *west_reject_label(enum west_reject why)
{
	return (unsigned)why < WEST_NREJECTS ? reject_labels[why] : "?";
}

const char *west_source_label(enum west_source s)
{
	return (unsigned)s < WEST_NSOURCES ? source_labels[s] : "?";
}

/* ============================================================ updates */

static void bump(atomic_ullong *c, unsigned long long n)
{
	atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

/* s rounded to whole ns; negative and NaN are 0, the top is capped. */
static unsigned long long to_ns(double s)
{
	if (!(s > 0.0))
		return 0;
	if (s > WEST_METRICS_MAX_SECONDS)
		s = WEST_METRICS_MAX_SECONDS;
	return (unsigned long long)(s * 1e9 + 0.5);
}

static void observe(struct west_metrics_hist *h, const struct hist_def *d, double s)
{
	unsigned long long ns = to_ns(s);
	size_t i = 0;

	while (i < d->n && ns > d->bound[i])
		i++;
	bump(&h->bucket[i], 1);
	bump(&h->sum_ns, ns);
}

void west_metrics_init(struct west_metrics *m)
{
	memset(m, 0, sizeof *m);   /* lock-free atomics: zero bytes are zero */
}

void west_metrics_http(struct west_metrics *m, size_t route, unsigned status,
		       double seconds)
{
	unsigned slot = WEST_METRICS_NCODES - 1;   /* code="other" */
	size_t r = route_slot(m, route);

	if (status >= 100 && status <= 599)
		slot = status - 100;
	bump(&m->http[r][slot], 1);
	observe(&m->http_seconds[r], &http_def, seconds);
}

void west_metrics_received(struct west_metrics *m, enum west_source s)
{
	if ((unsigned)s < WEST_NSOURCES)
		bump(&m->received[s], 1);
}

void west_metrics_rejected(struct west_metrics *m, enum west_source s,
			   enum west_reject why)
{
	if ((unsigned)s < WEST_NSOURCES && (unsigned)why < WEST_NREJECTS)
		bump(&m->rejected[s][why], 1);
}

void west_metrics_solve(struct west_metrics *m, int ok, double seconds)
{
	bump(ok ? &m->solves_ok : &m->solves_failed, 1);
	if (ok)
		observe(&m->solve_seconds, &solve_def, seconds);
}

void west_metrics_superseded(struct west_metrics *m, unsigned long long n)
{
	bump(&m->superseded, n);
}

void west_metrics_snapshot(struct west_metrics *m, int ok, double seconds)
{
	bump(ok ? &m->snapshots_ok : &m->snapshots_failed, 1);
	if (ok)
		observe(&m->snapshot_seconds, &snapshot_def, seconds);
}

void west_metrics_release(struct west_metrics *m, int ok, double seconds)
{
	bump(ok ? &m->releases_done : &m->releases_failed, 1);
	if (ok)
		observe(&m->release_seconds, &release_def, seconds);
}

/* ============================================================ process */

/* utime, stime, starttime (ticks), vsize (bytes), rss (pages) of
 * /proc/self/stat: fields 14, 15, 22, 23, 24 (1-based, proc(5)), counted
 * after the ")" that ends the command name (which may hold spaces). */
static int read_self_stat(double *utime, double *stime, double *start,
			  double *vsize, double *rss)
{
	char line[1024], *p;
	unsigned long long f[24];
	FILE *fp = fopen("/proc/self/stat", "r");
	int n = 0;

	if (!fp)
		return 0;
	p = fgets(line, sizeof line, fp);
	fclose(fp);
	if (!p || !(p = strrchr(line, ')')))
		return 0;
	p += 2;                                   /* ") " then field 3, the state */
	if (!*p)
		return 0;
	p++;                                      /* skip the state letter */
	for (n = 4; n <= 24; n++) {
		char *end;
		f[n - 1] = strtoull(p, &end, 10);    /* priority, nice may be negative: unused */
		if (end == p)
			return 0;
		p = end;
	}
	*utime = (double)f[13], *stime = (double)f[14], *start = (double)f[21];
	*vsize = (double)f[22], *rss = (double)f[23];
	return 1;
}

/* btime of /proc/stat: the boot time, s since the epoch; NaN unknown. */
static double boot_time(void)
{
	char line[256];
	double t = NAN;
	FILE *fp = fopen("/proc/stat", "r");

	if (!fp)
		return NAN;
	while (fgets(line, sizeof line, fp))
		if (!strncmp(line, "btime ", 6)) {
			t = strtod(line + 6, NULL);
			break;
		}
	fclose(fp);
	return t;
}

/* Entries of /proc/self/fd, less the listing's own; NaN unknown. */
static double open_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	double n = 0;

	if (!dir)
		return NAN;
	while ((e = readdir(dir)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(dir))
			n++;
	closedir(dir);
	return n;
}

void west_metrics_process_read(struct west_metrics_process *out)
{
	double ut, st, start, vsize, rss, tick = (double)sysconf(_SC_CLK_TCK);
	double page = (double)sysconf(_SC_PAGESIZE);
	struct rlimit rl;

	out->cpu_seconds = out->resident_bytes = out->virtual_bytes = NAN;
	out->start_time_seconds = NAN;
	if (tick > 0 && page > 0 && read_self_stat(&ut, &st, &start, &vsize, &rss)) {
		out->cpu_seconds = (ut + st) / tick;
		out->resident_bytes = rss * page;
		out->virtual_bytes = vsize;
		out->start_time_seconds = boot_time() + start / tick;   /* NaN without btime */
	}
	out->open_fds = open_fds();
	out->max_fds = NAN;
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		out->max_fds = rl.rlim_cur == RLIM_INFINITY ? INFINITY : (double)rl.rlim_cur;
}

/* ============================================================ text buffer */

struct buf {
	char *p;
	size_t len, cap;
	int oom;
};

/* Room for `more` bytes and a NUL; 0 when out of memory (marked). */
static int reserve(struct buf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 16384;
	char *p;

	if (b->oom)
		return 0;
	while (cap - b->len <= more) {
		if (cap > ((size_t)-1) / 2)
			return !(b->oom = 1);
		cap *= 2;
	}
	if (cap == b->cap)
		return 1;
	if (!(p = realloc(b->p, cap)))
		return !(b->oom = 1);
	b->p = p, b->cap = cap;
	return 1;
}

static void put(struct buf *b, const char *s)
{
	size_t n = strlen(s);

	if (!reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n + 1);
	b->len += n;
}

/* s as a label value: \ " and newline escaped. */
static void put_escaped(struct buf *b, const char *s)
{
	char *o;

	if (!reserve(b, 2 * strlen(s)))
		return;
	o = b->p + b->len;
	for (; *s; s++) {
		if (*s == '\\' || *s == '"' || *s == '\n')
			*o++ = '\\';
		*o++ = *s == '\n' ? 'n' : *s;
	}
	*o = '\0';
	b->len = (size_t)(o - b->p);
}

/* ============================================================ samples */

/* name{k1="v1",...} value; kv holds npairs key, value pairs (a NULL value
 * reads as ""). */
static void sample(struct buf *b, const char *name, const char *const *kv,
		   size_t npairs, const char *value)
{
	put(b, name);
	for (size_t i = 0; i < npairs; i++) {
		put(b, i ? "," : "{");
		put(b, kv[2 * i]);
		put(b, "=\"");
		put_escaped(b, kv[2 * i + 1] ? kv[2 * i + 1] : "");
		put(b, "\"");
	}
	put(b, npairs ? "} " : " ");
	put(b, value);
	put(b, "\n");
}

static void family(struct buf *b, const char *name, const char *type, const char *help)
{
	const char *part[] = { "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n" };

	for (size_t i = 0; i < ARRAY_LEN(part); i++)
		put(b, part[i]);
}

static const char *fmt_ull(char out[32], unsigned long long v)
{
	snprintf(out, 32, "%llu", v);
	return out;
}

/* ns as decimal seconds, exactly; trailing zeros dropped when trim. */
static const char *fmt_ns(char out[32], unsigned long long ns, int trim)
{
	int n = snprintf(out, 32, "%llu.%09llu", ns / NS, ns % NS);

	while (trim && out[n - 1] == '0')
		out[--n] = '\0';
	if (trim && out[n - 1] == '.')
		out[n - 1] = '\0';
	return out;
}

static const char *fmt_double(char out[32], double v)
{
	if (isnan(v))
		snprintf(out, 32, "NaN");
	else if (isinf(v))
		snprintf(out, 32, v > 0 ? "+Inf" : "-Inf");
	else
		for (int prec = 15; prec <= 17; prec++) {   /* the shortest that reads back */
			snprintf(out, 32, "%.*g", prec, v);
			if (strtod(out, NULL) == v)
				break;
		}
	return out;
}

static unsigned long long load(const atomic_ullong *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

/* ============================================================ histograms */

struct hist_copy {
	unsigned long long bucket[WEST_METRICS_MAXBUCKETS];
	unsigned long long count, sum_ns;
};

static void hist_copy(struct hist_copy *c, const struct west_metrics_hist *h,
		      const struct hist_def *d)
{
	c->count = 0;
	for (size_t i = 0; i <= d->n; i++)
		c->count += c->bucket[i] = load(&h->bucket[i]);
	c->sum_ns = load(&h->sum_ns);
}

/* The samples of one histogram, with one label (key NULL: none). */
static void hist_samples(struct buf *b, const char *name, const char *key,
			 const char *val, const struct hist_copy *c,
			 const struct hist_def *d)
{
	char series[128], le[32], v[32];
	const char *kv[4] = { key, val, "le", le };
	const char *const *lekv = key ? kv : kv + 2;
	size_t np = key ? 2 : 1;
	unsigned long long cum = 0;

	snprintf(series, sizeof series, "%s_bucket", name);
	for (size_t i = 0; i < d->n; i++) {
		cum += c->bucket[i];
		fmt_ns(le, d->bound[i], 1);
		sample(b, series, lekv, np, fmt_ull(v, cum));
	}
	snprintf(le, sizeof le, "+Inf");
	sample(b, series, lekv, np, fmt_ull(v, c->count));
	snprintf(series, sizeof series, "%s_sum", name);
	sample(b, series, kv, np - 1, fmt_ns(v, c->sum_ns, 0));
	snprintf(series, sizeof series, "%s_count", name);
	sample(b, series, kv, np - 1, fmt_ull(v, c->count));
}

/* ============================================================ families */

static void render_http(struct buf *b, const struct west_metrics *m)
{
	char code[32], v[32];
	const char *kv[4] = { "route", NULL, "code", code };

	family(b, "westd_http_requests_total", "counter",
	       "HTTP requests answered, by route and status code.");
	for (size_t r = 0; r <= WEST_METRICS_MAXROUTES; r++) {
		kv[1] = west_metrics_route_label(m, r);
		for (unsigned c = 0; c < WEST_METRICS_NCODES; c++) {
			unsigned long long n = load(&m->http[r][c]);
			if (!n)
				continue;
			if (c == WEST_METRICS_NCODES - 1)
				snprintf(code, sizeof code, "other");
			else
				snprintf(code, sizeof code, "%u", c + 100);
			sample(b, "westd_http_requests_total", kv, 2, fmt_ull(v, n));
		}
	}
}

static void render_http_seconds(struct buf *b, const struct west_metrics *m)
{
	struct hist_copy c;

	family(b, "westd_http_request_duration_seconds", "histogram",
	       "Time from a request's arrival to its answer, by route.");
	for (size_t r = 0; r <= WEST_METRICS_MAXROUTES; r++) {
		hist_copy(&c, &m->http_seconds[r], &http_def);
		if (c.count)
			hist_samples(b, "westd_http_request_duration_seconds",
				     "route", west_metrics_route_label(m, r), &c, &http_def);
	}
}

static void render_observations(struct buf *b, const struct west_metrics *m)
{
	char v[32];
	const char *kv[4] = { "source", NULL, "reason", NULL };

	family(b, "westd_observations_received_total", "counter",
	       "Observation sets accepted, by source.");
	for (unsigned s = 0; s < WEST_NSOURCES; s++) {
		kv[1] = source_labels[s];
		sample(b, "westd_observations_received_total", kv, 1,
		       fmt_ull(v, load(&m->received[s])));
	}
	family(b, "westd_observations_rejected_total", "counter",
	       "Observation sets refused, by source and reason.");
	for (unsigned s = 0; s < WEST_NSOURCES; s++) {
		kv[1] = source_labels[s];
		for (unsigned r = 0; r < WEST_NREJECTS; r++) {
			kv[3] = reject_labels[r];
			sample(b, "westd_observations_rejected_total", kv, 2,
			       fmt_ull(v, load(&m->rejected[s][r])));
		}
	}
}

/* A counter family {result="ok"|"failed"}. */
static void render_results(struct buf *b, const char *name, const char *help,
			   const atomic_ullong *ok, const atomic_ullong *failed)
{
	char v[32];
	const char *kv_ok[2] = { "result", "ok" }, *kv_failed[2] = { "result", "failed" };

	family(b, name, "counter", help);
	sample(b, name, kv_ok, 1, fmt_ull(v, load(ok)));
	sample(b, name, kv_failed, 1, fmt_ull(v, load(failed)));
}

static void render_unlabelled_hist(struct buf *b, const char *name, const char *help,
				   const struct west_metrics_hist *h,
				   const struct hist_def *d)
{
	struct hist_copy c;

	family(b, name, "histogram", help);
	hist_copy(&c, h, d);
	hist_samples(b, name, NULL, NULL, &c, d);
}

static void render_worker(struct buf *b, const struct west_metrics *m)
{
	char v[32];

	render_results(b, "westd_solves_total", "Solves of an observation set, by result.",
		       &m->solves_ok, &m->solves_failed);
	render_unlabelled_hist(b, "westd_solve_duration_seconds",
			       "Duration of the successful solves.",
			       &m->solve_seconds, &solve_def);
	family(b, "westd_observation_sets_superseded_total", "counter",
	       "Observation sets replaced by a newer one before their solve.");
	sample(b, "westd_observation_sets_superseded_total", NULL, 0,
	       fmt_ull(v, load(&m->superseded)));
	render_results(b, "westd_snapshot_writes_total", "NetCDF snapshot writes, by result.",
		       &m->snapshots_ok, &m->snapshots_failed);
	render_unlabelled_hist(b, "westd_snapshot_write_seconds",
			       "Duration of the successful snapshot writes.",
			       &m->snapshot_seconds, &snapshot_def);
}

static void render_release_runs(struct buf *b, const struct west_metrics *m)
{
	char v[32];
	const char *kv_done[2] = { "result", "done" }, *kv_failed[2] = { "result", "failed" };

	family(b, "westd_release_runs_total", "counter",
	       "Release plume runs that ended, by result (failed includes cancelled).");
	sample(b, "westd_release_runs_total", kv_done, 1, fmt_ull(v, load(&m->releases_done)));
	sample(b, "westd_release_runs_total", kv_failed, 1,
	       fmt_ull(v, load(&m->releases_failed)));
	render_unlabelled_hist(b, "westd_release_run_seconds",
			       "Wall time of the release plume runs that were done.",
			       &m->release_seconds, &release_def);
}


/* A gauge family with one unlabelled sample (none when value is NaN). */
static void gauge(struct buf *b, const char *name, const char *help, double value)
{
	char v[32];

	family(b, name, "gauge", help);
	if (!isnan(value))
		sample(b, name, NULL, 0, fmt_double(v, value));
}

/* The current field's slabs (field.h, west_report_slab) and its solve's
 * share of time in exchanges. */
static void render_slabs(struct buf *b, const struct west_report *r)
{
	char v[32], slab[16], rank[16];
	const char *kv[8] = { "slab", slab, "backend", "", "device", "", "rank", rank };

	family(b, "westd_partition_cells", "gauge",
	       "Cells of each slab the current field was solved in, by slab, its "
	       "backend, its device and its MPI rank.");
	for (int p = 0; p < r->partitions && p < WEST_MAX_PARTS; p++) {
		snprintf(slab, sizeof slab, "%d", p);
		snprintf(rank, sizeof rank, "%d", r->slab[p].rank);
		kv[3] = r->slab[p].backend;
		kv[5] = r->slab[p].device;
		sample(b, "westd_partition_cells", kv, 4,
		       fmt_ull(v, (unsigned long long)r->slab[p].cells));
	}
	gauge(b, "westd_solve_exchange_share",
	      "Share of the current field's solve time spent in its slabs' exchanges.",
	      west_report_exchange_share(r));
}

/* process_* but the start time (render_gauges has it); help texts as
 * client_golang writes them. */
static void render_process(struct buf *b, const struct west_metrics_process *p)
{
	char v[32];

	family(b, "process_cpu_seconds_total", "counter",
	       "Total user and system CPU time spent in seconds.");
	if (!isnan(p->cpu_seconds))
		sample(b, "process_cpu_seconds_total", NULL, 0, fmt_double(v, p->cpu_seconds));
	gauge(b, "process_open_fds", "Number of open file descriptors.", p->open_fds);
	gauge(b, "process_max_fds", "Maximum number of open file descriptors.", p->max_fds);
	gauge(b, "process_virtual_memory_bytes", "Virtual memory size in bytes.",
	      p->virtual_bytes);
	gauge(b, "process_resident_memory_bytes", "Resident memory size in bytes.",
	      p->resident_bytes);
}

static void render_releases(struct buf *b, const struct west_metrics_gauges *g)
{
	static const char *const states[4] = { "queued", "running", "done", "failed" };
	char v[32];

	family(b, "westd_releases", "gauge", "Release plumes held now, by status.");
	for (int k = 0; k < 4; k++) {
		const char *kv[2] = { "status", states[k] };
		sample(b, "westd_releases", kv, 1, fmt_ull(v, g->releases[k]));
	}
	gauge(b, "westd_release_memory_bytes",
	      "Memory the held release plumes and their results take.", g->release_bytes);
}

static void render_gauges(struct buf *b, const struct west_metrics_gauges *g)
{
	char v[32];
	const char *build[2] = { "version", g->version };
	const char *be[6] = { "backend", g->backend, "device", g->device,
			      "solver", g->solver };

	gauge(b, "westd_field_age_seconds",
	      "Seconds since the current field's valid time (its newest observation), "
	      "as /v1/field's age_seconds and /readyz count it.",
	      g->field_age_seconds);
	gauge(b, "westd_field_valid_time_seconds",
	      "Valid time of the current field (its newest observation) since unix epoch "
	      "in seconds.", g->field_valid_time_seconds);
	gauge(b, "westd_field_published_time_seconds",
	      "Time the current field was published since unix epoch in seconds.",
	      g->field_published_time_seconds);
	family(b, "westd_field_version", "gauge", "Version of the current field (0: none yet).");
	sample(b, "westd_field_version", NULL, 0, fmt_ull(v, g->field_version));
	family(b, "westd_queue_depth", "gauge", "Observation sets waiting for a solve.");
	sample(b, "westd_queue_depth", NULL, 0, fmt_ull(v, g->queue_depth));
	family(b, "westd_ready", "gauge", "1 when /readyz answers 200, else 0.");
	sample(b, "westd_ready", NULL, 0, g->ready ? "1" : "0");
	family(b, "westd_build_info", "gauge", "Always 1; the label names westd's version.");
	sample(b, "westd_build_info", build, 1, "1");
	family(b, "westd_backend_info", "gauge",
	       "Always 1; the labels name the solver backend and its device.");
	sample(b, "westd_backend_info", be, 3, "1");
	if (g->partitions > 0) {
		family(b, "westd_partitions", "gauge",
		       "Slabs of the grid each field is solved in (config devices; 1: one device).");
		sample(b, "westd_partitions", NULL, 0, fmt_ull(v, (unsigned long long)g->partitions));
	}
	if (g->report)
		render_slabs(b, g->report);
	gauge(b, "process_start_time_seconds",
	      "Start time of the process since unix epoch in seconds.",
	      g->start_time_seconds);
	if (g->has_releases)
		render_releases(b, g);
	if (g->process)
		render_process(b, g->process);
}

char *west_metrics_render(const struct west_metrics *m,
			  const struct west_metrics_gauges *g, size_t *len)
{
	struct buf b = { 0 };

	render_http(&b, m);
	render_http_seconds(&b, m);
	render_observations(&b, m);
	render_worker(&b, m);
	render_release_runs(&b, m);
	if (g)
		render_gauges(&b, g);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	if (len)
		*len = b.len;
	return b.p;
}
