/*
 * metrics.h: westd's counters and histograms, rendered for GET /metrics in
 * the Prometheus text exposition format 0.0.4 (docs/design.md section 6).
 *
 * Writers: the HTTP threads (one call per answered request), the compute
 * worker (solves, superseded sets), the snapshot writer and the ingest
 * paths (HTTP POST, spool).  Every update is a few relaxed atomic
 * increments on a struct west_metrics that lives as long as the daemon:
 * no lock, no allocation, never fails.  A reader renders at any time; it
 * sees each counter at some value it held during the render (counters are
 * not read as one snapshot, which Prometheus does not need).
 *
 * Units: durations in seconds (double) in the API; inside, durations are
 * whole nanoseconds (rounded to nearest, negative and NaN taken as 0,
 * capped at WEST_METRICS_MAX_SECONDS), so a histogram's sum is one
 * atomic_fetch_add and bucket choice and sum agree on the same value.
 *
 * Families (all with # HELP and # TYPE, always, samples as noted):
 *   westd_http_requests_total{route,code}           counter, pairs seen only
 *   westd_http_request_duration_seconds{route}      histogram, routes seen only
 *   westd_observations_received_total{source}       counter
 *   westd_observations_rejected_total{source,reason} counter
 *   westd_solves_total{result="ok|failed"}          counter
 *   westd_solve_duration_seconds                    histogram (ok solves)
 *   westd_observation_sets_superseded_total         counter
 *   westd_snapshot_writes_total{result="ok|failed"} counter
 *   westd_snapshot_write_seconds                    histogram (ok writes)
 *   westd_release_runs_total{result="done|failed"}  counter
 *   westd_release_run_seconds                       histogram (done runs)
 *   westd_releases{status="queued|running|done|failed"}, westd_release_memory_bytes
 *                                                   gauges (from the caller)
 *   westd_field_age_seconds, westd_field_valid_time_seconds,
 *   westd_field_published_time_seconds, westd_field_version,
 *   westd_queue_depth, westd_ready, westd_build_info{version},
 *   westd_backend_info{backend,device,solver}       gauges (from the caller)
 *   process_cpu_seconds_total                       counter \  (from the caller,
 *   process_resident_memory_bytes,                           | as Prometheus'
 *   process_virtual_memory_bytes, process_open_fds,          | client libraries
 *   process_max_fds, process_start_time_seconds     gauges  /  name them)
 *
 * The field's age is measured from its valid time (daemon.h
 * westd_field_age), as everywhere in westd; its valid and publish times
 * are Unix timestamps beside it, so that an alert can use either
 * (time() - westd_field_valid_time_seconds is the age at query time).
 * west_metrics_process_read fills the process_* values from /proc/self
 * (Linux); elsewhere they are NaN and their samples are left out.
 */
#ifndef WEST_METRICS_H
#define WEST_METRICS_H

#include <stdatomic.h>
#include <stddef.h>

struct west_report;

#ifdef __cplusplus
extern "C" {
#endif

/* The Content-Type of the rendered text. */
#define WEST_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Longest duration one observation adds to a histogram's sum (s). */
#define WEST_METRICS_MAX_SECONDS 1e6

/* Routes with a label of their own (the route table's entries, routes.c);
 * requests no route took, and indexes past the labels, count as "other". */
struct west_metrics;

#define WEST_METRICS_MAXROUTES 40
#define WEST_ROUTE_NONE ((size_t)-1)

enum west_reject {
	WEST_REJECT_INVALID, WEST_REJECT_TOO_LARGE, WEST_REJECT_MEDIA_TYPE,
	WEST_REJECT_UNAUTHORIZED, WEST_REJECT_STORAGE, WEST_REJECT_OUT_OF_DATE,
	WEST_NREJECTS
};

enum west_source { WEST_SOURCE_HTTP, WEST_SOURCE_SPOOL, WEST_NSOURCES };

/* Route i's label is label (its path in the route table, which must
 * outlive m): west_http_start names every route once, after init.  -1
 * when i is not below WEST_METRICS_MAXROUTES. */
int west_metrics_route(struct west_metrics *m, size_t i, const char *label);
/* Route i's label; "other" for one not named. */
const char *west_metrics_route_label(const struct west_metrics *m, size_t i);
/* "invalid", "too_large", "unsupported_media_type", "unauthorized",
 * "storage", "out_of_date"; "?" out of range. */
const char *west_reject_label(enum west_reject why);
/* "http", "spool"; "?" out of range. */
const char *west_source_label(enum west_source s);

/* Status codes 100..599 have a slot each; any other is counted as
 * code="other". */
#define WEST_METRICS_NCODES 501

/* Upper bounds of the widest histogram, +1 for the +Inf bucket. */
#define WEST_METRICS_MAXBUCKETS 16

/* Per-bucket (not cumulative) counts; [nb] is (last bound, +Inf). */
struct west_metrics_hist {
	atomic_ullong bucket[WEST_METRICS_MAXBUCKETS];
	atomic_ullong sum_ns;
};

struct west_metrics {
	const char *route_label[WEST_METRICS_MAXROUTES];   /* west_metrics_route */
	size_t nroutes;                                     /* labels named */
	/* [route][status - 100]; [WEST_METRICS_MAXROUTES]: "other" */
	atomic_ullong http[WEST_METRICS_MAXROUTES + 1][WEST_METRICS_NCODES];
	struct west_metrics_hist http_seconds[WEST_METRICS_MAXROUTES + 1];
	atomic_ullong received[WEST_NSOURCES];
	atomic_ullong rejected[WEST_NSOURCES][WEST_NREJECTS];
	atomic_ullong solves_ok, solves_failed;
	struct west_metrics_hist solve_seconds;
	atomic_ullong superseded;
	atomic_ullong snapshots_ok, snapshots_failed;
	struct west_metrics_hist snapshot_seconds;
	atomic_ullong releases_done, releases_failed;
	struct west_metrics_hist release_seconds;
};

/* All zero.  A struct that is zero already (static, calloc) needs no init. */
void west_metrics_init(struct west_metrics *m);

/* One answered request of route r (its index; WEST_ROUTE_NONE or one not
 * named counts as route="other"): status 100..599 (others: code="other"),
 * its duration in s. */
void west_metrics_http(struct west_metrics *m, size_t r, unsigned status,
		       double seconds);
/* One observation set accepted from s. */
void west_metrics_received(struct west_metrics *m, enum west_source s);
/* One observation set refused (source and reason out of range: ignored). */
void west_metrics_rejected(struct west_metrics *m, enum west_source s,
			   enum west_reject why);
/* One solve; its duration goes to the histogram only when ok. */
void west_metrics_solve(struct west_metrics *m, int ok, double seconds);
/* n observation sets replaced by a newer one before being solved. */
void west_metrics_superseded(struct west_metrics *m, unsigned long long n);
/* One snapshot write; its duration goes to the histogram only when ok
 * (as for solves: a failure's time says little about the next write). */
void west_metrics_snapshot(struct west_metrics *m, int ok, double seconds);

/* One release run (releases.h) that ended: done (ok) or failed; its wall
 * time goes to the histogram only when done. */
void west_metrics_release(struct west_metrics *m, int ok, double seconds);

/* The process's own resources, as Prometheus' client libraries export
 * them; NaN where unknown (then the sample is left out). */
struct west_metrics_process {
	double cpu_seconds;        /* user + system CPU time (s) */
	double resident_bytes;     /* resident set size */
	double virtual_bytes;      /* virtual memory size */
	double open_fds;           /* file descriptors open now */
	double max_fds;            /* RLIMIT_NOFILE soft limit (+Inf: none) */
	double start_time_seconds; /* s since the epoch */
};

/*
 * Read *out from /proc/self/stat (utime, stime, starttime, vsize, rss),
 * /proc/stat (btime), /proc/self/fd and getrlimit(RLIMIT_NOFILE).  Any
 * value that cannot be read (no /proc: not Linux, or a sandbox) is NaN;
 * never fails otherwise.  Costs a few reads of procfs: call it per render,
 * not per request.
 */
void west_metrics_process_read(struct west_metrics_process *out);

/* Values the caller reads at render time. */
struct west_metrics_gauges {
	double field_age_seconds;         /* now - valid time; NaN: no field yet, no sample */
	double field_valid_time_seconds;  /* s since the epoch; NaN: no sample */
	double field_published_time_seconds; /* s since the epoch; NaN: no sample */
	unsigned long long field_version; /* 0 before the first field */
	unsigned long long queue_depth;   /* pending observation sets */
	int ready;                        /* 1/0 */
	const char *backend, *device, *solver, *version; /* NULL reads as "" */
	int partitions;                   /* slabs a field is solved in; 0: no sample */
	/* the current field's solve (field.h): its slabs' cells and its share
	 * of time in exchanges; NULL (no field yet): no samples */
	const struct west_report *report;
	double start_time_seconds;        /* s since the epoch; NaN: no sample */
	/* NULL: the other process_* families are left out; else their
	 * samples, each left out when NaN (start_time_seconds above is the
	 * one used, not process->start_time_seconds) */
	const struct west_metrics_process *process;
	/* releases held now by state (queued, running, done, failed) and the
	 * memory they hold; has_releases 0: the families are left out */
	int has_releases;
	unsigned long long releases[4];
	double release_bytes;
};

/*
 * The exposition text (malloc'd, NUL-terminated, *len its length without
 * the NUL when len is not NULL); NULL when out of memory.  g may be NULL:
 * then the gauge families are left out.  Label values are escaped (\\, \",
 * \n); within each histogram the buckets are cumulative and the +Inf
 * bucket equals _count.
 */
char *west_metrics_render(const struct west_metrics *m,
			  const struct west_metrics_gauges *g, size_t *len);

#ifdef __cplusplus
}
#endif

#endif
