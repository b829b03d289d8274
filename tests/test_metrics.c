/*
 * test_metrics.c: westd's Prometheus metrics (service/metrics.h).
 *
 * Each test updates a fresh struct west_metrics and renders it; the text
 * is checked by exact sample lines (strstr on "\n" + line + "\n", so a
 * line cannot match inside a longer one), by a line grammar (every sample
 * line is `name{labels} value` of the exposition format 0.0.4, every
 * comment a HELP or TYPE) and by a histogram walk (buckets of one series
 * non-decreasing with ascending bounds, ending in +Inf equal to _count).
 * Durations are chosen so that their nanosecond sums are exact.  The
 * concurrency test runs 8 threads of 100000 updates and wants the exact
 * totals.  The process metrics are read from this test process's own
 * /proc/self and checked for sane values (memory, CPU time that grows
 * with work done, a descriptor opened here counted, a start time within
 * the last hour) and against getrusage and getrlimit.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "field.h"
#include "metrics.h"

static struct west_metrics *m;
static char *text;

/* The routes these tests name (the daemon names those of its route table,
 * routes.c, in its order). */
enum { R_ROOT, R_FIELD, R_POINT, R_OBSERVATIONS, R_SNAPSHOT, R_LIVEZ, R_AREA, NR };
static const char *const LABELS[NR] = {
	"/", "/v1/field", "/v1/field/point", "/v1/observations", "/v1/snapshots/{name}",
	"/livez", "/collections/wind/area",
};

static void setup(void)
{
	m = malloc(sizeof *m);
	cr_assert_not_null(m);
	memset(m, 0xa5, sizeof *m);   /* init must clear whatever was there */
	west_metrics_init(m);
	for (size_t i = 0; i < NR; i++)
		cr_assert_eq(west_metrics_route(m, i, LABELS[i]), 0);
	text = NULL;
}

static void teardown(void)
{
	free(m);
	free(text);
}

TestSuite(metrics, .init = setup, .fini = teardown);

static const struct west_metrics_process proc0 = {
	.cpu_seconds = 0.42, .resident_bytes = 123863040, .virtual_bytes = 1.5e9,
	.open_fds = 17, .max_fds = 1024, .start_time_seconds = 1700000000.25,
};

static const struct west_metrics_gauges gauges0 = {
	.field_age_seconds = NAN, .field_valid_time_seconds = NAN,
	.field_published_time_seconds = NAN, .backend = "cpu", .device = "host",
	.solver = "sor", .version = "0.1.0", .start_time_seconds = 1700000000.5,
	.process = &proc0, .partitions = 1,
};

/* Render with g; text holds "\n" + the output, so that every line of the
 * output is preceded by a newline for has_line. */
static void render(const struct west_metrics_gauges *g)
{
	size_t len = 0;
	char *t = west_metrics_render(m, g, &len);

	cr_assert_not_null(t);
	cr_assert_eq(len, strlen(t));
	cr_assert_gt(len, 0);
	cr_assert_eq(t[len - 1], '\n', "the last line ends in a line feed");
	free(text);
	text = malloc(len + 2);
	cr_assert_not_null(text);
	text[0] = '\n';
	memcpy(text + 1, t, len + 1);
	free(t);
}

static int has_line(const char *line)
{
	char want[512];

	snprintf(want, sizeof want, "\n%s\n", line);
	return strstr(text, want) != NULL;
}

#define ASSERT_LINE(l) cr_assert(has_line(l), "missing line: %s\n%s", l, text)
#define ASSERT_NO_LINE(l) cr_assert(!has_line(l), "unexpected line: %s", l)

/* ============================================================ families */

static const char *const families[][2] = {
	{ "westd_http_requests_total", "counter" },
	{ "westd_http_request_duration_seconds", "histogram" },
	{ "westd_observations_received_total", "counter" },
	{ "westd_observations_rejected_total", "counter" },
	{ "westd_solves_total", "counter" },
	{ "westd_solve_duration_seconds", "histogram" },
	{ "westd_observation_sets_superseded_total", "counter" },
	{ "westd_snapshot_writes_total", "counter" },
	{ "westd_snapshot_write_seconds", "histogram" },
	{ "westd_release_runs_total", "counter" },
	{ "westd_release_run_seconds", "histogram" },
	{ "westd_field_age_seconds", "gauge" },
	{ "westd_field_valid_time_seconds", "gauge" },
	{ "westd_field_published_time_seconds", "gauge" },
	{ "westd_field_version", "gauge" },
	{ "westd_queue_depth", "gauge" },
	{ "westd_ready", "gauge" },
	{ "westd_build_info", "gauge" },
	{ "westd_backend_info", "gauge" },
	{ "westd_partitions", "gauge" },
	{ "process_start_time_seconds", "gauge" },
	{ "process_cpu_seconds_total", "counter" },
	{ "process_open_fds", "gauge" },
	{ "process_max_fds", "gauge" },
	{ "process_virtual_memory_bytes", "gauge" },
	{ "process_resident_memory_bytes", "gauge" },
};
#define NFAMILIES (sizeof families / sizeof families[0])
#define NCOUNTERFAMILIES 11  /* the first 11 do not depend on the gauges */

static int has_family(const char *name, const char *type)
{
	char help[160], typeline[160];

	snprintf(help, sizeof help, "\n# HELP %s ", name);
	snprintf(typeline, sizeof typeline, "\n# TYPE %s %s\n", name, type);
	return strstr(text, help) && strstr(text, typeline);
}

Test(metrics, every_family_has_help_and_type)
{
	struct west_metrics_gauges g = gauges0;

	render(&gauges0);
	for (size_t i = 0; i < NFAMILIES; i++)
		cr_assert(has_family(families[i][0], families[i][1]),
			  "%s: no HELP or TYPE %s", families[i][0], families[i][1]);
	cr_assert(!has_family("westd_releases", "gauge"), "no releases: no family");
	g.has_releases = 1;
	render(&g);
	cr_assert(has_family("westd_releases", "gauge"));
	cr_assert(has_family("westd_release_memory_bytes", "gauge"));
}

Test(metrics, without_gauges_only_the_counters)
{
	render(NULL);
	for (size_t i = 0; i < NFAMILIES; i++) {
		int want = i < NCOUNTERFAMILIES;
		cr_assert_eq(has_family(families[i][0], families[i][1]), want,
			     "%s", families[i][0]);
	}
}

/* ============================================================ counters */

Test(metrics, http_counts_per_route_and_code)
{
	for (int i = 0; i < 3; i++)
		west_metrics_http(m, R_POINT, 200, 0.002);
	west_metrics_http(m, R_POINT, 404, 0.001);
	west_metrics_http(m, R_OBSERVATIONS, 202, 0.01);
	west_metrics_http(m, R_SNAPSHOT, 599, 0.01);
	west_metrics_http(m, R_FIELD, 42, 0.01);
	west_metrics_http(m, R_FIELD, 600, 0.01);
	west_metrics_http(m, 1000, 100, 0.01);
	west_metrics_http(m, WEST_ROUTE_NONE, 100, 0.01);
	render(&gauges0);
	ASSERT_LINE("westd_http_requests_total{route=\"/v1/field/point\",code=\"200\"} 3");
	ASSERT_LINE("westd_http_requests_total{route=\"/v1/field/point\",code=\"404\"} 1");
	ASSERT_LINE("westd_http_requests_total{route=\"/v1/observations\",code=\"202\"} 1");
	ASSERT_LINE("westd_http_requests_total{route=\"/v1/snapshots/{name}\",code=\"599\"} 1");
	ASSERT_LINE("westd_http_requests_total{route=\"/v1/field\",code=\"other\"} 2");
	ASSERT_LINE("westd_http_requests_total{route=\"other\",code=\"100\"} 2");
	/* pairs never seen are left out */
	cr_assert_null(strstr(text, "westd_http_requests_total{route=\"/livez\""));
	cr_assert_null(strstr(text, "code=\"500\""));
	cr_assert_null(strstr(text, "code=\"0\""));
}

Test(metrics, observation_solve_and_snapshot_counters)
{
	west_metrics_received(m, WEST_SOURCE_HTTP);
	west_metrics_received(m, WEST_SOURCE_HTTP);
	west_metrics_received(m, WEST_SOURCE_SPOOL);
	west_metrics_rejected(m, WEST_SOURCE_HTTP, WEST_REJECT_MEDIA_TYPE);
	west_metrics_rejected(m, WEST_SOURCE_SPOOL, WEST_REJECT_INVALID);
	west_metrics_rejected(m, WEST_SOURCE_SPOOL, WEST_REJECT_INVALID);
	west_metrics_rejected(m, WEST_NSOURCES, WEST_REJECT_INVALID);     /* ignored */
	west_metrics_rejected(m, WEST_SOURCE_HTTP, WEST_NREJECTS);        /* ignored */
	west_metrics_solve(m, 1, 0.5);
	west_metrics_solve(m, 0, 0.5);
	west_metrics_solve(m, 0, 0.5);
	west_metrics_superseded(m, 4);
	west_metrics_superseded(m, 3);
	west_metrics_snapshot(m, 1, 0.2);
	west_metrics_snapshot(m, 0, 0.2);
	render(&gauges0);
	ASSERT_LINE("westd_observations_received_total{source=\"http\"} 2");
	ASSERT_LINE("westd_observations_received_total{source=\"spool\"} 1");
	ASSERT_LINE("westd_observations_rejected_total{source=\"http\",reason=\"unsupported_media_type\"} 1");
	ASSERT_LINE("westd_observations_rejected_total{source=\"spool\",reason=\"invalid\"} 2");
	ASSERT_LINE("westd_observations_rejected_total{source=\"http\",reason=\"invalid\"} 0");
	ASSERT_LINE("westd_observations_rejected_total{source=\"http\",reason=\"too_large\"} 0");
	ASSERT_LINE("westd_observations_rejected_total{source=\"spool\",reason=\"unauthorized\"} 0");
	ASSERT_LINE("westd_observations_rejected_total{source=\"spool\",reason=\"storage\"} 0");
	ASSERT_LINE("westd_solves_total{result=\"ok\"} 1");
	ASSERT_LINE("westd_solves_total{result=\"failed\"} 2");
	ASSERT_LINE("westd_observation_sets_superseded_total 7");
	ASSERT_LINE("westd_snapshot_writes_total{result=\"ok\"} 1");
	ASSERT_LINE("westd_snapshot_writes_total{result=\"failed\"} 1");
	/* failed solves and writes stay out of the duration histograms */
	ASSERT_LINE("westd_solve_duration_seconds_count 1");
	ASSERT_LINE("westd_solve_duration_seconds_sum 0.500000000");
	ASSERT_LINE("westd_snapshot_write_seconds_count 1");
	ASSERT_LINE("westd_snapshot_write_seconds_sum 0.200000000");
}

Test(metrics, a_zeroed_struct_needs_no_init)
{
	static struct west_metrics z;   /* static: all zero */
	char *t;

	west_metrics_solve(&z, 1, 0.001);
	t = west_metrics_render(&z, NULL, NULL);
	cr_assert_not_null(t);
	cr_assert_not_null(strstr(t, "\nwestd_solves_total{result=\"ok\"} 1\n"));
	cr_assert_not_null(strstr(t, "\nwestd_solve_duration_seconds_bucket{le=\"0.001\"} 1\n"));
	free(t);
}

/* ============================================================ histograms */

Test(metrics, http_histogram_buckets_are_cumulative)
{
	/* 0.0005 is on a bound (le is <=), -1 and NaN count as 0 s, 3 s is
	 * past the last bound; sum 0.0005 + 0.0007 + 0.003 + 3 = 3.0042 s */
	const double d[] = { 0.0005, -1.0, NAN, 0.0007, 0.003, 3.0 };
	for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
		west_metrics_http(m, R_FIELD, 200, d[i]);
	render(NULL);
#define B(le, n) "westd_http_request_duration_seconds_bucket{route=\"/v1/field\",le=\"" le "\"} " #n
	ASSERT_LINE(B("0.0005", 3));
	ASSERT_LINE(B("0.001", 4));
	ASSERT_LINE(B("0.0025", 4));
	ASSERT_LINE(B("0.005", 5));
	ASSERT_LINE(B("0.01", 5));
	ASSERT_LINE(B("1", 5));
	ASSERT_LINE(B("2.5", 5));
	ASSERT_LINE(B("+Inf", 6));
#undef B
	ASSERT_LINE("westd_http_request_duration_seconds_count{route=\"/v1/field\"} 6");
	ASSERT_LINE("westd_http_request_duration_seconds_sum{route=\"/v1/field\"} 3.004200000");
	/* routes without requests have no series */
	cr_assert_null(strstr(text, "duration_seconds_bucket{route=\"/v1/field/point\""));
}

Test(metrics, solve_and_snapshot_bounds)
{
	west_metrics_solve(m, 1, 45.0);
	west_metrics_solve(m, 1, 61.0);
	west_metrics_snapshot(m, 1, 0.01);
	west_metrics_snapshot(m, 1, 1e12);   /* capped in the sum */
	render(NULL);
	ASSERT_LINE("westd_solve_duration_seconds_bucket{le=\"0.001\"} 0");
	ASSERT_LINE("westd_solve_duration_seconds_bucket{le=\"30\"} 0");
	ASSERT_LINE("westd_solve_duration_seconds_bucket{le=\"60\"} 1");
	ASSERT_LINE("westd_solve_duration_seconds_bucket{le=\"+Inf\"} 2");
	ASSERT_LINE("westd_solve_duration_seconds_sum 106.000000000");
	ASSERT_LINE("westd_snapshot_write_seconds_bucket{le=\"0.01\"} 1");
	ASSERT_LINE("westd_snapshot_write_seconds_bucket{le=\"30\"} 1");
	ASSERT_LINE("westd_snapshot_write_seconds_bucket{le=\"+Inf\"} 2");
	ASSERT_LINE("westd_snapshot_write_seconds_sum 1000000.010000000");
}

Test(metrics, durations_round_to_the_nearest_ns)
{
	/* 0.0157 * 1e9 is 15699999.999999998 in doubles, 1.001 * 1e9 is
	 * 1000999999.9999999: truncation would lose a nanosecond each */
	west_metrics_solve(m, 1, 0.0157);
	west_metrics_snapshot(m, 1, 1.001);
	render(NULL);
	ASSERT_LINE("westd_solve_duration_seconds_sum 0.015700000");
	ASSERT_LINE("westd_snapshot_write_seconds_sum 1.001000000");
}

struct series {
	char key[256];
	double last_le, cum, inf;
	int have_inf;
};

/* A bucket line: its series key (name less _bucket, labels less le) into
 * s->key, the bound and the value. */
static void parse_bucket(const char *line, char *key, size_t keylen, double *le,
			 double *v)
{
	const char *b = strstr(line, "_bucket{"), *l = strstr(line, "le=\"");
	const char *end;

	cr_assert(b && l && l > b, "bucket line: %s", line);
	snprintf(key, keylen, "%.*s|%.*s", (int)(b - line), line,
		 (int)(l - b - 8), b + 8);
	*le = strncmp(l + 4, "+Inf\"", 5) ? strtod(l + 4, NULL) : INFINITY;
	cr_assert_not_null(end = strstr(l, "} "));
	*v = strtod(end + 2, NULL);
}

static void check_bucket(struct series *s, const char *line)
{
	char key[256];
	double le, v;

	parse_bucket(line, key, sizeof key, &le, &v);
	if (strcmp(key, s->key)) {
		cr_assert_not(s->key[0] && !s->have_inf, "%s: no +Inf bucket", s->key);
		memset(s, 0, sizeof *s);
		snprintf(s->key, sizeof s->key, "%s", key);
		s->last_le = -INFINITY;
	}
	cr_assert_gt(le, s->last_le, "bounds ascend: %s", line);
	cr_assert_geq(v, s->cum, "buckets are cumulative: %s", line);
	s->last_le = le, s->cum = v;
	if (isinf(le)) {
		s->have_inf = 1;
		s->inf = v;
	}
}

/* A _count line must close the series of the buckets just seen. */
static void check_count(struct series *s, const char *line, const char *c)
{
	const char *lb = strchr(line, '{'), *sp = strrchr(line, ' ');
	char key[256];

	if (lb && lb < sp)
		snprintf(key, sizeof key, "%.*s|%.*s,", (int)(c - line), line,
			 (int)(sp - lb - 2), lb + 1);
	else
		snprintf(key, sizeof key, "%.*s|", (int)(c - line), line);
	cr_assert_str_eq(key, s->key, "a _count without its buckets: %s", line);
	cr_assert(s->have_inf, "%s: no +Inf bucket", s->key);
	cr_assert_eq(strtod(sp + 1, NULL), s->inf, "+Inf == _count: %s", line);
}

/* Walk every histogram of text; returns how many were checked. */
static int check_histograms(void)
{
	struct series s = { .key = "" };
	int n = 0;
	char *copy = strdup(text), *save = NULL;

	cr_assert_not_null(copy);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		const char *c = strstr(l, "_count");
		if (l[0] == '#')
			continue;
		if (strstr(l, "_bucket{"))
			check_bucket(&s, l);
		else if (c && strstr(l, "_seconds_count")) {
			check_count(&s, l, c);
			n++;
		}
	}
	free(copy);
	return n;
}

Test(metrics, every_histogram_ends_in_inf_equal_to_count)
{
	for (int i = 0; i < 50; i++) {
		west_metrics_http(m, (size_t)i % NR, 200, i * 0.013);
		west_metrics_solve(m, 1, i * 0.7);
		west_metrics_snapshot(m, 1, i * 0.3);
		west_metrics_release(m, 1, i * 2.1);
	}
	render(&gauges0);
	/* the routes, the solve, the snapshot and the release histograms */
	cr_assert_eq(check_histograms(), NR + 3);
}

Test(metrics, release_runs_and_releases_held)
{
	struct west_metrics_gauges g = gauges0;

	west_metrics_release(m, 1, 0.3);
	west_metrics_release(m, 1, 12.0);
	west_metrics_release(m, 0, 99.0);   /* a failure's time is not observed */
	g.has_releases = 1;
	g.releases[0] = 2, g.releases[1] = 1, g.releases[2] = 5, g.releases[3] = 1;
	g.release_bytes = 123456;
	render(&g);
	ASSERT_LINE("westd_release_runs_total{result=\"done\"} 2");
	ASSERT_LINE("westd_release_runs_total{result=\"failed\"} 1");
	ASSERT_LINE("westd_release_run_seconds_count 2");
	ASSERT_LINE("westd_release_run_seconds_sum 12.300000000");
	ASSERT_LINE("westd_release_run_seconds_bucket{le=\"0.5\"} 1");
	ASSERT_LINE("westd_releases{status=\"queued\"} 2");
	ASSERT_LINE("westd_releases{status=\"running\"} 1");
	ASSERT_LINE("westd_releases{status=\"done\"} 5");
	ASSERT_LINE("westd_releases{status=\"failed\"} 1");
	ASSERT_LINE("westd_release_memory_bytes 123456");
}

/* ============================================================ gauges */

Test(metrics, gauges_and_info)
{
	struct west_metrics_gauges g = gauges0;

	g.field_age_seconds = 12.5;
	g.field_valid_time_seconds = 1795348800;
	g.field_published_time_seconds = 1795530671;
	g.field_version = 42;
	g.queue_depth = 1;
	g.ready = 1;
	g.partitions = 3;
	render(&g);
	ASSERT_LINE("westd_partitions 3");
	ASSERT_LINE("westd_field_age_seconds 12.5");
	ASSERT_LINE("westd_field_valid_time_seconds 1795348800");
	ASSERT_LINE("westd_field_published_time_seconds 1795530671");
	ASSERT_LINE("westd_field_version 42");
	ASSERT_LINE("westd_queue_depth 1");
	ASSERT_LINE("westd_ready 1");
	ASSERT_LINE("westd_build_info{version=\"0.1.0\"} 1");
	ASSERT_LINE("westd_backend_info{backend=\"cpu\",device=\"host\",solver=\"sor\"} 1");
	ASSERT_LINE("process_start_time_seconds 1700000000.5");
	ASSERT_LINE("process_cpu_seconds_total 0.42");
	ASSERT_LINE("process_open_fds 17");
	ASSERT_LINE("process_max_fds 1024");
	ASSERT_LINE("process_virtual_memory_bytes 1500000000");
	ASSERT_LINE("process_resident_memory_bytes 123863040");
}

/* The current field's slabs: cells by slab, backend, device and rank, and its
 * solve's share of time in exchanges; no field, no family. */
Test(metrics, slabs_of_the_current_field)
{
	struct west_metrics_gauges g = gauges0;
	struct west_report r = { .partitions = 2, .total_seconds = 0.5, .exchange_seconds = 0.125 };

	r.slab[0] = (struct west_report_slab){ "cpu", "cpu", 0, 0, 40, 96 * 40 * 30 };
	r.slab[1] = (struct west_report_slab){ "cuda", "cuda:1", 1, 40, 80, 96 * 40 * 30 };
	g.partitions = 2;
	g.report = &r;
	render(&g);
	cr_assert(has_family("westd_partition_cells", "gauge"));
	cr_assert(has_family("westd_solve_exchange_share", "gauge"));
	ASSERT_LINE("westd_partition_cells{slab=\"0\",backend=\"cpu\",device=\"cpu\",rank=\"0\"} 115200");
	ASSERT_LINE("westd_partition_cells{slab=\"1\",backend=\"cuda\",device=\"cuda:1\",rank=\"1\"} 115200");
	ASSERT_LINE("westd_solve_exchange_share 0.25");
	g.report = NULL;
	render(&g);
	cr_assert(!strstr(text, "westd_partition_cells"), "a family without a field");
	cr_assert(!strstr(text, "westd_solve_exchange_share"), "a family without a field");
}

/* Unknown values (no /proc) leave their samples out, the families stay;
 * without a process struct its families are left out. */
Test(metrics, unknown_process_values_leave_the_samples_out)
{
	struct west_metrics_gauges g = gauges0;
	struct west_metrics_process p = { NAN, NAN, NAN, NAN, INFINITY, NAN };
	const char *names[] = { "process_cpu_seconds_total", "process_open_fds",
				"process_virtual_memory_bytes",
				"process_resident_memory_bytes" };

	g.process = &p;
	render(&g);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char line[64];
		snprintf(line, sizeof line, "\n%s ", names[i]);
		cr_assert_null(strstr(text, line), "%s has a sample", names[i]);
		cr_assert(strstr(text, line + 1) != NULL);   /* its HELP and TYPE */
	}
	ASSERT_LINE("process_max_fds +Inf");
	g.process = NULL;
	render(&g);
	cr_assert_null(strstr(text, "process_open_fds"));
	ASSERT_LINE("process_start_time_seconds 1700000000.5");
}

/* A value of the rendered text (the sample line "name value"); NaN when
 * absent. */
static double value_of(const char *name)
{
	char want[128];
	const char *p;

	snprintf(want, sizeof want, "\n%s ", name);
	p = strstr(text, want);
	return p ? strtod(p + strlen(want), NULL) : NAN;
}

static double cpu_now(void)
{
	struct rusage ru;

	cr_assert_eq(getrusage(RUSAGE_SELF, &ru), 0);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* This process, as /proc/self tells it: sane values, rendered as read. */
Test(metrics, process_values_of_this_process)
{
	struct west_metrics_process p, q;
	struct west_metrics_gauges g = gauges0;
	struct rlimit rl;
	double now = (double)time(NULL), ru0, spin = 0;
	FILE *extra;

	west_metrics_process_read(&p);
	cr_assert_gt(p.resident_bytes, 1e5, "resident %g", p.resident_bytes);
	cr_assert_lt(p.resident_bytes, 1e11, "resident %g", p.resident_bytes);
	cr_assert_geq(p.virtual_bytes, p.resident_bytes, "virtual %g", p.virtual_bytes);
	cr_assert_geq(p.open_fds, 3, "stdin, stdout, stderr at least: %g", p.open_fds);
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	cr_assert_eq(p.max_fds, rl.rlim_cur == RLIM_INFINITY ? INFINITY : (double)rl.rlim_cur);
	cr_assert_geq(p.max_fds, p.open_fds);
	cr_assert_leq(p.start_time_seconds, now + 1, "start %.2f, now %.0f",
		      p.start_time_seconds, now);
	cr_assert_gt(p.start_time_seconds, now - 3600, "start %.2f, now %.0f",
		     p.start_time_seconds, now);
	ru0 = cpu_now();
	cr_assert_geq(p.cpu_seconds, 0);
	cr_assert_leq(p.cpu_seconds, ru0 + 0.02, "cpu %g, getrusage %g", p.cpu_seconds, ru0);

	/* 0.3 s of work shows as CPU time; one more descriptor as one */
	while (cpu_now() - ru0 < 0.3)
		for (int i = 0; i < 100000; i++)
			spin += sqrt((double)i);
	cr_assert_not_null(extra = fopen("/proc/self/stat", "r"));
	west_metrics_process_read(&q);
	cr_assert_gt(spin, 0);
	cr_assert_geq(q.cpu_seconds - p.cpu_seconds, 0.2, "cpu %g then %g",
		      p.cpu_seconds, q.cpu_seconds);
	cr_assert_eq(q.open_fds, p.open_fds + 1, "fds %g then %g with one open",
		     p.open_fds, q.open_fds);
	fclose(extra);
	cr_assert_eq(q.start_time_seconds, p.start_time_seconds);

	g.process = &q;
	render(&g);
	cr_assert_eq(value_of("process_resident_memory_bytes"), q.resident_bytes);
	cr_assert_eq(value_of("process_virtual_memory_bytes"), q.virtual_bytes);
	cr_assert_eq(value_of("process_cpu_seconds_total"), q.cpu_seconds);
	cr_assert_eq(value_of("process_open_fds"), q.open_fds);
}

Test(metrics, nan_field_age_leaves_the_sample_out)
{
	struct west_metrics_gauges g = gauges0;

	g.backend = g.device = g.solver = g.version = NULL;
	render(&g);
	cr_assert(has_family("westd_field_age_seconds", "gauge"));
	cr_assert_null(strstr(text, "\nwestd_field_age_seconds "));
	cr_assert_null(strstr(text, "\nwestd_field_age_seconds{"));
	ASSERT_LINE("westd_ready 0");
	ASSERT_LINE("westd_field_version 0");
	ASSERT_LINE("westd_build_info{version=\"\"} 1");
	ASSERT_LINE("westd_backend_info{backend=\"\",device=\"\",solver=\"\"} 1");
}

Test(metrics, label_values_are_escaped)
{
	struct west_metrics_gauges g = gauges0;

	g.device = "NVIDIA \"H100\" \\\\bus\\0\nrev 1";
	render(&g);
	ASSERT_LINE("westd_backend_info{backend=\"cpu\",device="
		    "\"NVIDIA \\\"H100\\\" \\\\\\\\bus\\\\0\\nrev 1\",solver=\"sor\"} 1");
}

/* ============================================================ grammar */

#define NAME "[a-zA-Z_:][a-zA-Z0-9_:]*"
#define LABEL "[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\n]|\\\\[\\\\\"n])*\""
#define VALUE "(NaN|[+-]Inf|[-+]?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?)"

static void check_grammar(void)
{
	regex_t sample_re, comment_re;
	char *copy = strdup(text), *save = NULL;
	int lines = 0;

	cr_assert_not_null(copy);
	cr_assert_eq(regcomp(&sample_re, "^" NAME "(\\{" LABEL "(," LABEL ")*\\})? " VALUE "$",
			     REG_EXTENDED | REG_NOSUB), 0);
	cr_assert_eq(regcomp(&comment_re, "^# (HELP " NAME " [^\n]+|TYPE " NAME
			     " (counter|gauge|histogram))$", REG_EXTENDED | REG_NOSUB), 0);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		regex_t *re = l[0] == '#' ? &comment_re : &sample_re;
		cr_assert_eq(regexec(re, l, 0, NULL, 0), 0, "bad line: [%s]", l);
		lines++;
	}
	cr_assert_gt(lines, 100);
	regfree(&sample_re);
	regfree(&comment_re);
	free(copy);
}

Test(metrics, every_line_follows_the_text_format)
{
	struct west_metrics_gauges g = gauges0;

	g.device = "a \"quoted\\\" device\nname";
	g.field_age_seconds = 1e-300;
	for (unsigned s = 100; s < 700; s += 37)
		west_metrics_http(m, R_AREA, s, s * 1e-4);
	west_metrics_solve(m, 1, 1.25);
	render(&g);
	check_grammar();
}

Test(metrics, the_grammar_check_catches_bad_lines)
{
	/* the checker itself: a raw newline inside a label breaks it */
	regex_t re;

	cr_assert_eq(regcomp(&re, "^" NAME "(\\{" LABEL "(," LABEL ")*\\})? " VALUE "$",
			     REG_EXTENDED | REG_NOSUB), 0);
	cr_assert_eq(regexec(&re, "a{b=\"c\"} 1", 0, NULL, 0), 0);
	cr_assert_neq(regexec(&re, "a{b=\"c\"d\"} 1", 0, NULL, 0), 0);
	cr_assert_neq(regexec(&re, "a{b=\"c\\x\"} 1", 0, NULL, 0), 0);
	cr_assert_neq(regexec(&re, "a{b=\"c\"} 1 2", 0, NULL, 0), 0);
	cr_assert_neq(regexec(&re, "1a 1", 0, NULL, 0), 0);
	regfree(&re);
}

/* ============================================================ labels */

Test(metrics, route_labels)
{
	for (size_t i = 0; i < NR; i++)
		cr_assert_str_eq(west_metrics_route_label(m, i), LABELS[i]);
	cr_assert_str_eq(west_metrics_route_label(m, NR), "other", "not named");
	cr_assert_str_eq(west_metrics_route_label(m, WEST_ROUTE_NONE), "other");
	cr_assert_eq(west_metrics_route(m, WEST_METRICS_MAXROUTES, "/x"), -1);
	cr_assert_eq(west_metrics_route(m, WEST_METRICS_MAXROUTES - 1, "/last"), 0);
	cr_assert_str_eq(west_metrics_route_label(m, WEST_METRICS_MAXROUTES - 1), "/last");
	cr_assert_str_eq(west_metrics_route_label(m, NR), "other", "a gap stays other");
	cr_assert_str_eq(west_reject_label(WEST_REJECT_MEDIA_TYPE), "unsupported_media_type");
	cr_assert_str_eq(west_reject_label(WEST_REJECT_STORAGE), "storage");
	cr_assert_str_eq(west_source_label(WEST_SOURCE_SPOOL), "spool");
}

/* ============================================================ concurrency */

#define NTHREADS 8
#define NPER 100000

static void *hammer(void *arg)
{
	struct west_metrics *mm = arg;

	for (int i = 0; i < NPER; i++) {
		west_metrics_http(mm, R_POINT, 200, 0.001);
		west_metrics_received(mm, WEST_SOURCE_HTTP);
	}
	return NULL;
}

Test(metrics, concurrent_updates_are_exact)
{
	pthread_t t[NTHREADS];

	for (int i = 0; i < NTHREADS; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, hammer, m), 0);
	for (int i = 0; i < NTHREADS; i++)
		cr_assert_eq(pthread_join(t[i], NULL), 0);
	render(NULL);
	ASSERT_LINE("westd_http_requests_total{route=\"/v1/field/point\",code=\"200\"} 800000");
	ASSERT_LINE("westd_observations_received_total{source=\"http\"} 800000");
	ASSERT_LINE("westd_http_request_duration_seconds_bucket{route=\"/v1/field/point\",le=\"0.0005\"} 0");
	ASSERT_LINE("westd_http_request_duration_seconds_bucket{route=\"/v1/field/point\",le=\"0.001\"} 800000");
	ASSERT_LINE("westd_http_request_duration_seconds_count{route=\"/v1/field/point\"} 800000");
	ASSERT_LINE("westd_http_request_duration_seconds_sum{route=\"/v1/field/point\"} 800.000000000");
}
