/*
 * test_snapwriter.c: the snapshot writer thread (service/snapwriter.h):
 * notify and interval modes, coalescing, retention, failures, the write
 * hook, the flush on stop, the names and the listing, and a writer killed
 * with SIGKILL in the middle of a snapshot.
 *
 * Every test gets a fresh mkdtemp directory `top` under /tmp; the
 * snapshots go to its sub-directory "snap", which start creates.  The
 * teardown stops the writer and removes both.  Fields are built by hand
 * on a 6 x 5 x 4 grid over a flat plain (model_fixture.h), each face of a
 * field holding a distinct value, and published into a store of our own;
 * valid times are 2026-11-23T12:00:00Z plus the version in minutes.
 *
 * No assertion depends on timing: a test waits (polling the stats) for
 * the writer to reach a state, bounded only so that a broken writer fails
 * instead of hanging.  Where a test must show that nothing happens, it
 * waits for the writer's own wake-ups (the `skipped` count).  The log is
 * captured (log_capture.h), so failed writes do not clutter the output
 * and their lines can be checked.
 *
 * Read-only directories do not stop root (CAP_DAC_OVERRIDE): that case is
 * skipped under root; a directory in the way of the snapshot's name
 * provokes a failed write for everyone.
 *
 * Kill -9: a forked child writes a 200 x 200 x 30 field over and over to
 * one snapshot name with west_snapshot_write (as the writer thread does);
 * the parent kills it with SIGKILL, either the moment a temp file shows
 * (the disk phase: write, fsync, rename) or at a random moment (the seed
 * is logged), and after each kill the file under the final name must read
 * back whole with the field's values.  A writer started afterwards must
 * sweep the temp files the kills left.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log_capture.h"
#include "model_fixture.h"
#include "publish.h"
#include "snapshot.h"
#include "snapwriter.h"

#define T0 1795435200LL               /* 2026-11-23T12:00:00Z */
#define WAIT_LIMIT_S 60.0             /* a broken writer fails, not hangs */

static struct west_shared_grid *sgrid;
static struct west_store store;
static struct west_snapwriter sw;
static char top[64], dir[96], err[WEST_ERRLEN];

/* ============================================================ fixtures */

/*
 * Let NetCDF initialise on this (the test's) thread: its first call turns
 * HDF5's error printing off only for the calling thread, and HDF5 keeps
 * that per thread; were the writer thread first, every snapshot read here
 * would print HDF5-DIAG noise about the _Quantize attributes it probes.
 * A failed open of a missing file is enough.
 */
static void netcdf_init_here(void)
{
	struct west_snapshot s;
	char e[WEST_ERRLEN];

	cr_assert_neq(west_snapshot_read("/nonexistent/westd-test.nc", &s, e, sizeof e), WEST_OK);
}

static void setup(void)
{
	struct west_grid g;

	fix_grid(&g, 6, 5, 100.0, 4, 10.0, 0.0, 1.0);
	cr_assert_not_null(sgrid = west_shared_grid_new(&g));
	west_store_init(&store);
	memset(&sw, 0, sizeof sw);
	sw.dirfd = -1;
	snprintf(top, sizeof top, "/tmp/test_snapwriter.XXXXXX");
	cr_assert_not_null(mkdtemp(top), "mkdtemp: %s", strerror(errno));
	snprintf(dir, sizeof dir, "%s/snap", top);
	err[0] = '\0';
	log_capture();
	netcdf_init_here();
}

/* Remove what is in d (files and empty directories), then d. */
static void remove_dir(const char *d)
{
	DIR *h = opendir(d);
	struct dirent *e;
	char p[PATH_MAX];

	while (h && (e = readdir(h)) != NULL) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof p, "%s/%s", d, e->d_name);
			if (unlink(p) != 0)
				rmdir(p);
		}
	}
	if (h)
		closedir(h);
	rmdir(d);
}

static void teardown(void)
{
	west_snapwriter_stop(&sw);
	west_store_free(&store);
	west_shared_grid_release(sgrid);
	sgrid = NULL;
	chmod(dir, 0755);
	remove_dir(dir);
	remove_dir(top);
	log_release();
}

TestSuite(snapwriter, .init = setup, .fini = teardown);
TestSuite(snapshot_names, .init = setup, .fini = teardown);

/* ============================================================= helpers */

static void start(size_t keep, double interval)
{
	enum west_status st = west_snapwriter_start(&sw, dir, keep, interval, &store,
						    err, sizeof err);
	cr_assert_eq(st, WEST_OK, "start: %s", err);
}

/* The value of face i of component c in the field of version n. */
static float face_value(unsigned long long n, int c, size_t i)
{
	return (float)n + 0.25f * (float)c + 0.001f * (float)(i % 997);
}

/* Publish the next field (its faces per face_value); returns its version. */
static unsigned long long publish(void)
{
	unsigned long long n = west_store_version(&store) + 1;
	struct west_field f;
	struct west_obs_set obs = { 0 };

	cr_assert_eq(west_field_init(&f, &sgrid->g, err, sizeof err), WEST_OK, "%s", err);
	for (size_t i = 0; i < west_grid_nxfaces(&sgrid->g); i++)
		f.u[i] = face_value(n, 0, i);
	for (size_t i = 0; i < west_grid_nyfaces(&sgrid->g); i++)
		f.v[i] = face_value(n, 1, i);
	for (size_t i = 0; i < west_grid_nzfaces(&sgrid->g); i++)
		f.w[i] = face_value(n, 2, i);
	memset(f.stability, 3, sgrid->g.nx * sgrid->g.ny);
	f.valid_time = T0 + 60 * (long long)n;
	snprintf(f.report.backend, sizeof f.report.backend, "cpu");
	fix_obs(&obs, "S1", 150.0, 150.0, 10.0, 5.0, 270.0, 3);
	struct west_published *p = west_published_new(&f, &obs, sgrid);
	cr_assert_not_null(p);
	cr_assert_eq(west_store_publish(&store, p), n);
	return n;
}

static const char *snap_name(unsigned long long version)
{
	static char names[4][WEST_SNAPSHOT_NAME_MAX];
	static int next;
	char *b = names[next++ % 4];

	west_snapwriter_name(version, T0 + 60 * (long long)version, b, WEST_SNAPSHOT_NAME_MAX);
	return b;
}

static void stats(struct west_snapwriter_stats *s)
{
	west_snapwriter_stats(&sw, s);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Wait until the stats satisfy `cond` (an expression over `s`). */
#define WAIT_STATS(s, cond) do { \
	double limit_ = now_s() + WAIT_LIMIT_S; \
	for (stats(&(s)); !(cond); stats(&(s))) { \
		cr_assert_lt(now_s(), limit_, "the writer never got to: %s (written %llu, " \
			     "failed %llu, last version %llu)", #cond, (s).written, \
			     (s).failed, (s).last_version); \
		pause_ms(2); \
	} \
} while (0)

/* The names in d but "." and "..", sorted, joined by one space. */
static const char *entries(const char *d)
{
	static char names[2048];
	struct dirent **list;
	int n = scandir(d, &list, NULL, alphasort);

	cr_assert_geq(n, 0, "scandir %s: %s", d, strerror(errno));
	names[0] = '\0';
	for (int k = 0; k < n; k++) {
		if (strcmp(list[k]->d_name, ".") && strcmp(list[k]->d_name, ".."))
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
				 names[0] ? " " : "", list[k]->d_name);
		free(list[k]);
	}
	free(list);
	return names;
}

/* The strings of a NULL-ended list joined by one space. */
static const char *join(const char *first, ...)
{
	static char names[2048];
	va_list ap;

	names[0] = '\0';
	va_start(ap, first);
	for (const char *p = first; p; p = va_arg(ap, const char *))
		snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
			 names[0] ? " " : "", p);
	va_end(ap);
	return names;
}

/* 1 when no name in dir starts with '.' (no temp file left). */
static int no_temp_files(void)
{
	const char *e = entries(dir);

	return e[0] != '.' && !strstr(e, " .");
}

/* Count of valid snapshot names in dir. */
static size_t count_snapshots(void)
{
	struct west_snapwriter_entry *l;
	size_t n;

	cr_assert_eq(west_snapwriter_list(dir, &l, &n, err, sizeof err), WEST_OK, "%s", err);
	free(l);
	return n;
}

static void put_file(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* Snapshot `name` in dir reads back whole, with the centre of cell
 * (2, 2, 3) of version v's field and its valid time. */
static void check_reads_back(const char *name, unsigned long long v)
{
	char path[PATH_MAX];
	struct west_snapshot s;
	struct west_published *p = west_store_acquire_version(&store, v);
	float c[3];
	size_t i = 2, j = 2, k = 3, nx = sgrid->g.nx, ny = sgrid->g.ny;

	cr_assert_not_null(p, "version %llu is no longer in the store", v);
	cr_assert(west_field_centre(&p->field, p->grid, i, j, k, c), "a land cell");
	snprintf(path, sizeof path, "%s/%s", dir, name);
	cr_assert_eq(west_snapshot_read(path, &s, err, sizeof err), WEST_OK, "%s", err);
	cr_expect_eq(s.nx, nx);
	cr_expect_eq(s.nz, sgrid->g.nz);
	cr_expect_eq(s.time, T0 + 60 * (long long)v);
	cr_expect_eq(s.u[i + nx * (j + ny * k)], c[0], "u %g, expected %g",
		     s.u[i + nx * (j + ny * k)], c[0]);
	cr_expect_eq(s.v[i + nx * (j + ny * k)], c[1]);
	cr_expect_eq(s.w[i + nx * (j + ny * k)], c[2]);
	cr_expect_eq(s.obs.n, 1);
	west_snapshot_free(&s);
	west_published_release(p);
}

/* ======================================================= notify mode */

Test(snapwriter, notify_after_publish_writes_a_snapshot_that_reads_back)
{
	struct west_snapwriter_stats s;

	start(3, 0.0);
	stats(&s);
	cr_assert_eq(s.written, 0);
	cr_assert_str_eq(s.last_error, "");
	cr_assert_eq(publish(), 1);
	west_snapwriter_notify(&sw);
	WAIT_STATS(s, s.written == 1);
	cr_assert_eq(s.failed, 0);
	cr_assert_eq(s.last_version, 1);
	cr_assert_str_eq(s.last_name, "wind-v1-20261123T120100Z.nc");
	cr_assert_geq(s.last_seconds, 0.0);
	cr_assert_str_eq(entries(dir), "wind-v1-20261123T120100Z.nc");
	check_reads_back(s.last_name, 1);

	struct stat sb;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, s.last_name);
	cr_assert_eq(stat(path, &sb), 0);
	cr_expect_eq(sb.st_mode & 07777, 0644);
	cr_assert_eq(stat(dir, &sb), 0);
	cr_expect(S_ISDIR(sb.st_mode));
}

Test(snapwriter, a_notify_of_a_version_written_already_is_skipped)
{
	struct west_snapwriter_stats s;

	start(3, 0.0);
	west_snapwriter_notify(&sw);  /* nothing published yet */
	WAIT_STATS(s, s.skipped == 1);
	publish();
	west_snapwriter_notify(&sw);
	WAIT_STATS(s, s.written == 1);
	west_snapwriter_notify(&sw);
	WAIT_STATS(s, s.skipped == 2);
	cr_assert_eq(s.written, 1, "version 1 written twice");
	cr_assert_str_eq(entries(dir), snap_name(1));
}

Test(snapwriter, a_burst_ends_with_the_newest_written_and_at_most_keep_files)
{
	enum { KEEP = 3, BURST = 25 };
	struct west_snapwriter_stats s;
	struct west_snapwriter_entry *l;
	size_t n;

	start(KEEP, 0.0);
	for (int k = 1; k <= BURST; k++) {
		publish();
		west_snapwriter_notify(&sw);
		/* a write and its pruning are not one step: keep + 1 between */
		cr_assert_leq(count_snapshots(), KEEP + 1);
	}
	WAIT_STATS(s, s.last_version == BURST);
	cr_assert_eq(s.failed, 0);
	cr_assert_leq(s.written, BURST);
	cr_assert_eq(west_snapwriter_list(dir, &l, &n, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_leq(n, KEEP);
	cr_assert_geq(n, 1);
	cr_assert_eq(l[0].version, BURST);
	cr_assert_str_eq(l[0].name, snap_name(BURST));
	for (size_t k = 1; k < n; k++)
		cr_assert_lt(l[k].version, l[k - 1].version);
	free(l);
	cr_assert(no_temp_files(), "a temp file left: %s", entries(dir));
	check_reads_back(snap_name(BURST), BURST);
}

Test(snapwriter, retention_removes_the_oldest_only_and_leaves_other_names)
{
	const char *stray = "wind-v01-20261123T120000Z.nc";
	struct west_snapwriter_stats s;

	cr_assert_eq(mkdir(dir, 0755), 0, "%s", strerror(errno));
	put_file("README", "not a snapshot\n");
	put_file(stray, "not a valid name either\n");
	start(2, 0.0);
	for (unsigned long long v = 1; v <= 4; v++) {
		cr_assert_eq(publish(), v);
		west_snapwriter_notify(&sw);
		WAIT_STATS(s, s.last_version == v);
		if (v == 2)
			cr_assert_str_eq(entries(dir), join("README", stray, snap_name(1),
							    snap_name(2), NULL));
		if (v == 3)
			cr_assert_str_eq(entries(dir), join("README", stray, snap_name(2),
							    snap_name(3), NULL));
	}
	cr_assert_str_eq(entries(dir), join("README", stray, snap_name(3), snap_name(4), NULL));
	/* a smaller keep on reload applies at the next write */
	west_snapwriter_set(&sw, 1, 0.0);
	publish();
	publish();
	west_snapwriter_notify(&sw);
	WAIT_STATS(s, s.last_version == 6);
	cr_assert_str_eq(entries(dir), join("README", stray, snap_name(6), NULL));
	cr_assert_eq(s.failed, 0);
}

Test(snapwriter, the_file_just_written_is_kept_even_when_older_runs_had_higher_versions)
{
	struct west_snapwriter_stats s;
	char big[WEST_SNAPSHOT_NAME_MAX];

	cr_assert_eq(mkdir(dir, 0755), 0, "%s", strerror(errno));
	west_snapwriter_name(500, T0, big, sizeof big);
	put_file(big, "from an earlier run\n");
	start(1, 0.0);
	publish();
	west_snapwriter_notify(&sw);
	WAIT_STATS(s, s.written == 1);
	cr_assert_str_eq(entries(dir), join(snap_name(1), big, NULL));
}

/* ===================================================== interval mode */

Test(snapwriter, interval_mode_writes_without_notify_and_only_what_is_new)
{
	struct west_snapwriter_stats s;
	unsigned long long skipped;

	start(3, 0.02);
	publish();
	WAIT_STATS(s, s.written == 1);
	cr_assert_eq(s.last_version, 1);
	skipped = s.skipped;
	WAIT_STATS(s, s.skipped >= skipped + 3);   /* three checks found nothing new */
	cr_assert_eq(s.written, 1, "the same field written again");
	cr_assert_str_eq(entries(dir), snap_name(1));
	publish();
	publish();
	WAIT_STATS(s, s.last_version == 3);
	cr_assert_leq(s.written, 3);
	check_reads_back(snap_name(3), 3);
}

Test(snapwriter, a_reload_to_a_shorter_interval_applies_at_once)
{
	struct west_snapwriter_stats s;

	start(3, 3600.0);
	publish();
	west_snapwriter_notify(&sw);   /* interval mode: no write before the hour */
	west_snapwriter_set(&sw, 3, 0.01);
	WAIT_STATS(s, s.written == 1);
	/* and back to notify mode */
	west_snapwriter_set(&sw, 3, 0.0);
	publish();
	west_snapwriter_notify(&sw);
	WAIT_STATS(s, s.last_version == 2);
	cr_assert_eq(s.failed, 0);
}

/* ============================================================ stop */

Test(snapwriter, stop_flushes_a_field_not_written_yet)
{
	struct west_snapwriter_stats s;

	start(3, 3600.0);   /* the interval would not come for an hour */
	publish();
	west_snapwriter_notify(&sw);
	west_snapwriter_stop(&sw);
	west_snapwriter_stats(&sw, &s);
	cr_assert_eq(s.written, 1);
	cr_assert_eq(s.last_version, 1);
	cr_assert_str_eq(entries(dir), snap_name(1));
	check_reads_back(snap_name(1), 1);
	west_snapwriter_stop(&sw);   /* twice is harmless */
}

Test(snapwriter, stop_writes_a_pending_notify)
{
	struct west_snapwriter_stats s;

	start(3, 0.0);
	publish();
	west_snapwriter_notify(&sw);
	publish();
	west_snapwriter_notify(&sw);
	west_snapwriter_stop(&sw);
	west_snapwriter_stats(&sw, &s);
	cr_assert_eq(s.last_version, 2, "the newest field was not written at stop");
	cr_assert_eq(s.failed, 0);
	check_reads_back(snap_name(2), 2);
}

/* ========================================================= failures */

Test(snapwriter, a_failed_write_into_a_read_only_directory_is_counted_then_retried)
{
	struct west_snapwriter_stats s;

	if (geteuid() == 0) {
		teardown();   /* a skipped test gets no teardown */
		cr_skip_test("running as root, which permissions do not stop "
			     "(the directory-in-the-way test covers failures for root)");
	}
	start(3, 0.0);
	publish();
	west_snapwriter_notify(&sw);
	WAIT_STATS(s, s.written == 1);
	cr_assert_eq(chmod(dir, 0555), 0, "%s", strerror(errno));
	publish();
	west_snapwriter_notify(&sw);
	WAIT_STATS(s, s.failed == 1);
	cr_assert_eq(s.last_version, 1);
	cr_assert_not_null(strstr(s.last_error, dir), "%s", s.last_error);
	cr_assert_not_null(strstr(s.last_error, strerror(EACCES)), "%s", s.last_error);
	cr_assert_eq(chmod(dir, 0755), 0, "%s", strerror(errno));
	publish();
	west_snapwriter_notify(&sw);
	WAIT_STATS(s, s.written == 2);
	cr_assert_eq(s.last_version, 3);
	cr_assert_eq(s.failed, 1);
	cr_assert_not_null(strstr(s.last_error, strerror(EACCES)), "the last error is kept");
	cr_assert_str_eq(entries(dir), join(snap_name(1), snap_name(3), NULL));
	west_snapwriter_stop(&sw);
	cr_assert_not_null(strstr(log_text(), "snapshot of version 2 failed"),
			   "not logged: %s", log_buf);
}

Test(snapwriter, a_directory_in_the_way_fails_the_write_and_the_service_goes_on)
{
	struct west_snapwriter_stats s;
	char path[PATH_MAX];

	start(1, 0.0);
	snprintf(path, sizeof path, "%s/%s", dir, snap_name(1));
	cr_assert_eq(mkdir(path, 0755), 0, "%s", strerror(errno));
	publish();
	west_snapwriter_notify(&sw);
	WAIT_STATS(s, s.failed == 1);
	cr_assert_eq(s.written, 0);
	cr_assert_eq(s.last_version, 0);
	cr_assert_str_neq(s.last_error, "");
	cr_assert_not_null(strstr(s.last_error, snap_name(1)), "%s", s.last_error);
	cr_assert_str_eq(entries(dir), snap_name(1), "a temp file left behind");
	cr_assert_eq(rmdir(path), 0, "%s", strerror(errno));
	publish();
	west_snapwriter_notify(&sw);
	WAIT_STATS(s, s.written == 1);
	cr_assert_eq(s.last_version, 2);
	cr_assert_str_eq(entries(dir), snap_name(2));
	west_snapwriter_stop(&sw);
	const char *log = log_text();
	cr_assert_not_null(strstr(log, "snapshot of version 1 failed"), "not logged: %s", log);
	cr_assert_not_null(strstr(log, "error"), "not at level error: %s", log);
}

struct hook_count {
	atomic_int ok, failed;
	atomic_int bad_seconds;
};

static void count_write(void *ctx, int ok, double seconds)
{
	struct hook_count *c = ctx;

	atomic_fetch_add(ok ? &c->ok : &c->failed, 1);
	if (!(seconds >= 0))
		atomic_fetch_add(&c->bad_seconds, 1);
}

/* Wait until the hook has counted `ok` successes and `failed` failures. */
static void wait_hook(struct hook_count *c, int ok, int failed)
{
	double limit = now_s() + WAIT_LIMIT_S;

	while (atomic_load(&c->ok) < ok || atomic_load(&c->failed) < failed) {
		cr_assert_lt(now_s(), limit, "the hook saw %d ok, %d failed", atomic_load(&c->ok),
			     atomic_load(&c->failed));
		pause_ms(2);
	}
}

Test(snapwriter, the_write_hook_sees_each_attempt)
{
	struct hook_count c;
	char path[PATH_MAX];

	atomic_init(&c.ok, 0);
	atomic_init(&c.failed, 0);
	atomic_init(&c.bad_seconds, 0);
	start(3, 0.0);
	west_snapwriter_on_write(&sw, count_write, &c);
	publish();
	west_snapwriter_notify(&sw);
	wait_hook(&c, 1, 0);
	snprintf(path, sizeof path, "%s/%s", dir, snap_name(2));
	cr_assert_eq(mkdir(path, 0755), 0, "%s", strerror(errno));
	publish();
	west_snapwriter_notify(&sw);
	wait_hook(&c, 1, 1);
	west_snapwriter_notify(&sw);   /* version 2 failed: a notify retries it */
	wait_hook(&c, 1, 2);
	west_snapwriter_on_write(&sw, NULL, NULL);
	cr_assert_eq(rmdir(path), 0, "%s", strerror(errno));
	west_snapwriter_stop(&sw);     /* the flush writes version 2, unhooked */
	cr_assert_eq(atomic_load(&c.ok), 1);
	cr_assert_eq(atomic_load(&c.failed), 2);
	cr_assert_eq(atomic_load(&c.bad_seconds), 0);
	cr_assert_str_eq(entries(dir), join(snap_name(1), snap_name(2), NULL));
}

/* ============================================================= start */

Test(snapwriter, start_refuses_bad_settings_and_a_missing_parent)
{
	char deep[PATH_MAX];

	cr_assert_eq(west_snapwriter_start(&sw, dir, 0, 0.0, &store, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_assert_not_null(strstr(err, "keep"), "%s", err);
	cr_assert_eq(west_snapwriter_start(&sw, dir, 1, -1.0, &store, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_assert_eq(west_snapwriter_start(&sw, dir, 1, NAN, &store, err, sizeof err),
		     WEST_ERR_INVALID);
	west_snapwriter_stop(&sw);   /* a failed start leaves nothing to stop */
	snprintf(deep, sizeof deep, "%s/no/such", top);
	cr_assert_eq(west_snapwriter_start(&sw, deep, 1, 0.0, &store, err, sizeof err),
		     WEST_ERR_IO);
	cr_assert_not_null(strstr(err, deep), "%s", err);
	cr_assert_str_eq(entries(top), "", "something was created");
}

Test(snapwriter, a_second_writer_on_the_directory_is_refused)
{
	struct west_snapwriter other;

	start(1, 0.0);
	cr_assert_eq(west_snapwriter_start(&other, dir, 1, 0.0, &store, err, sizeof err),
		     WEST_ERR_IO);
	cr_assert_not_null(strstr(err, "in use"), "%s", err);
	west_snapwriter_stop(&other);
}

Test(snapwriter, start_sweeps_temp_leftovers_only)
{
	cr_assert_eq(mkdir(dir, 0755), 0, "%s", strerror(errno));
	put_file(".wind-v1-20261123T120100Z.nc.tmp.a1B2c3", "partial");
	put_file(".other.tmp.zzzzzz", "partial");
	put_file(".hidden", "kept");
	put_file("README", "kept");
	put_file("notes.tmp.a1B2c3", "kept: no leading dot");
	start(1, 0.0);
	cr_assert_str_eq(entries(dir), ".hidden README notes.tmp.a1B2c3");
	west_snapwriter_stop(&sw);
	cr_assert_not_null(strstr(log_text(), "removed a leftover temp file"), "%s", log_buf);
}

/* ============================================================= names */

Test(snapshot_names, formatting)
{
	char b[WEST_SNAPSHOT_NAME_MAX], small[12];
	unsigned long long v = 0;

	west_snapwriter_name(12, T0, b, sizeof b);
	cr_assert_str_eq(b, "wind-v12-20261123T120000Z.nc");
	west_snapwriter_name(ULLONG_MAX, 0, b, sizeof b);
	cr_assert_str_eq(b, "wind-v18446744073709551615-19700101T000000Z.nc");
	cr_assert(west_snapwriter_name_valid(b, &v));
	cr_assert_eq(v, ULLONG_MAX);
	west_snapwriter_name(1, -1, b, sizeof b);
	cr_assert_str_eq(b, "wind-v1-19691231T235959Z.nc");
	west_snapwriter_name(1, 253402300799LL, b, sizeof b);   /* 9999-12-31T23:59:59Z */
	cr_assert_str_eq(b, "wind-v1-99991231T235959Z.nc");
	west_snapwriter_name(1, 253402300800LL, b, sizeof b);   /* year 10000 */
	cr_assert_str_eq(b, "wind-v1-19700101T000000Z.nc");
	west_snapwriter_name(1, LLONG_MIN, b, sizeof b);
	cr_assert(west_snapwriter_name_valid(b, NULL), "%s", b);
	west_snapwriter_name(7, T0, small, sizeof small);
	cr_assert_str_eq(small, "wind-v7-202");
}

Test(snapshot_names, validation_table)
{
	static const struct {
		const char *name;
		unsigned long long version;   /* 0: invalid */
	} table[] = {
		{ "wind-v1-20260101T000000Z.nc", 1 },
		{ "wind-v10-20261123T120000Z.nc", 10 },
		{ "wind-v18446744073709551615-20260101T000000Z.nc", ULLONG_MAX },
		{ "wind-v99999999999999999999-20260101T000000Z.nc", 0 },  /* > ULLONG_MAX */
		{ "wind-v18446744073709551616-20260101T000000Z.nc", 0 },  /* ULLONG_MAX + 1 */
		{ "wind-v123456789012345678901-20260101T000000Z.nc", 0 }, /* 21 digits */
		{ "wind-v01-20260101T000000Z.nc", 0 },
		{ "wind-v0-20260101T000000Z.nc", 0 },
		{ "wind-v-20260101T000000Z.nc", 0 },
		{ "wind-v+1-20260101T000000Z.nc", 0 },
		{ "wind-v 1-20260101T000000Z.nc", 0 },
		{ "wind-v1-2026.nc", 0 },
		{ "wind-v1-2026010T000000Z.nc", 0 },
		{ "wind-v1-202601011T000000Z.nc", 0 },
		{ "wind-v1-2026010aT000000Z.nc", 0 },
		{ "wind-v1-20260101t000000Z.nc", 0 },
		{ "wind-v1-20260101T00000Z.nc", 0 },
		{ "wind-v1-20260101T000000z.nc", 0 },
		{ "wind-v1-20260101T000000.nc", 0 },
		{ "wind-v1-20260101T000000Z.n", 0 },
		{ "wind-v1-20260101T000000Z.nc4", 0 },
		{ "wind-v1-20260101T000000Z.ncx", 0 },
		{ "wind-v1-20260101T000000Z.nc ", 0 },
		{ "wind-v1-20260101T000000Z.nc/..", 0 },
		{ "wind-v1-20260101T000000Z.nc/", 0 },
		{ "wind-v1-20260101T000000Z.nc.tmp.a1b2c3", 0 },
		{ ".wind-v1-20260101T000000Z.nc", 0 },
		{ ".wind-v1-20260101T000000Z.nc.tmp.a1b2c3", 0 },
		{ "../wind-v1-20260101T000000Z.nc", 0 },
		{ "x/wind-v1-20260101T000000Z.nc", 0 },
		{ "/wind-v1-20260101T000000Z.nc", 0 },
		{ " wind-v1-20260101T000000Z.nc", 0 },
		{ "Wind-v1-20260101T000000Z.nc", 0 },
		{ "wind-V1-20260101T000000Z.nc", 0 },
		{ "wind-v1-20260101T000000Z\0.nc", 0 },  /* C sees it end at the NUL */
		{ "../x", 0 },
		{ "..", 0 },
		{ ".", 0 },
		{ "", 0 },
		{ "wind-v", 0 },
		{ "wind-v1", 0 },
		{ "wind-v1-", 0 },
	};

	for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
		unsigned long long v = 42;
		int ok = west_snapwriter_name_valid(table[k].name, &v);
		cr_expect_eq(ok, table[k].version != 0, "'%s': valid says %d", table[k].name, ok);
		if (table[k].version)
			cr_expect_eq(v, table[k].version, "'%s': version %llu", table[k].name, v);
		else
			cr_expect_eq(v, 42, "'%s': the version was set on a bad name",
				     table[k].name);
	}
}

Test(snapshot_names, list_is_sorted_newest_first_with_sizes)
{
	struct west_snapwriter_entry *l = (void *)1;
	size_t n = 99;
	char path[PATH_MAX];

	cr_assert_eq(west_snapwriter_list(dir, &l, &n, err, sizeof err), WEST_ERR_IO);
	cr_assert_not_null(strstr(err, dir), "%s", err);
	cr_assert_null(l);
	cr_assert_eq(n, 0);

	cr_assert_eq(mkdir(dir, 0755), 0, "%s", strerror(errno));
	cr_assert_eq(west_snapwriter_list(dir, &l, &n, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(n, 0);
	free(l);
	put_file("wind-v2-20260101T000000Z.nc", "22");
	put_file("wind-v10-20250101T000000Z.nc", "1010");
	put_file("wind-v1-20270101T000000Z.nc", "1");
	put_file("wind-v9-20260101T000000Z.nc", "999999999");
	put_file("wind-v02-20260101T000000Z.nc", "bad name");
	put_file("README", "not listed");
	put_file(".wind-v3-20260101T000000Z.nc.tmp.abcdef", "temp");
	snprintf(path, sizeof path, "%s/wind-v11-20260101T000000Z.nc", dir);
	cr_assert_eq(mkdir(path, 0755), 0, "a directory with a valid name");
	snprintf(path, sizeof path, "%s/wind-v12-20260101T000000Z.nc", dir);
	cr_assert_eq(symlink("wind-v9-20260101T000000Z.nc", path), 0, "%s", strerror(errno));

	cr_assert_eq(west_snapwriter_list(dir, &l, &n, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(n, 4);
	cr_assert_str_eq(l[0].name, "wind-v10-20250101T000000Z.nc");
	cr_assert_eq(l[0].version, 10);
	cr_assert_eq(l[0].size, 4);
	cr_assert_str_eq(l[1].name, "wind-v9-20260101T000000Z.nc");
	cr_assert_eq(l[1].size, 9);
	cr_assert_str_eq(l[2].name, "wind-v2-20260101T000000Z.nc");
	cr_assert_eq(l[2].version, 2);
	cr_assert_str_eq(l[3].name, "wind-v1-20270101T000000Z.nc");
	cr_assert_eq(l[3].size, 1);
	cr_assert_gt(l[3].mtime, 1700000000);
	free(l);
}

/* ====================================================== kill -9 mid-write */

/* A field on g whose faces follow a pattern that deflate cannot shrink
 * to nothing (so a write takes a while). */
static void big_field(const struct west_grid *g, struct west_field *f)
{
	cr_assert_eq(west_field_init(f, g, err, sizeof err), WEST_OK, "%s", err);
	for (size_t i = 0; i < west_grid_nxfaces(g); i++)
		f->u[i] = (float)sin(0.001 * (double)i) * 10.0f;
	for (size_t i = 0; i < west_grid_nyfaces(g); i++)
		f->v[i] = (float)cos(0.0007 * (double)i) * 8.0f;
	for (size_t i = 0; i < west_grid_nzfaces(g); i++)
		f->w[i] = (float)sin(0.003 * (double)i) * 0.5f;
	memset(f->stability, 3, g->nx * g->ny);
	f->valid_time = T0;
	snprintf(f->report.backend, sizeof f->report.backend, "cpu");
}

/* A child writing the field to path until it is killed. */
static pid_t spawn_writer(const char *path, const struct west_grid *g,
			  const struct west_field *f)
{
	pid_t pid = fork();

	cr_assert_neq(pid, -1, "fork: %s", strerror(errno));
	if (pid == 0) {
		char e[WEST_ERRLEN];
		for (;;)
			if (west_snapshot_write(path, g, f, NULL, e, sizeof e) != WEST_OK)
				_exit(2);
	}
	return pid;
}

static void kill_writer(pid_t pid)
{
	int status;

	cr_assert_eq(kill(pid, SIGKILL), 0, "%s", strerror(errno));
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		  "the writer ended on its own (status %d): a write failed", status);
}

static int is_temp_name(const char *name)
{
	return name[0] == '.' && strstr(name, ".tmp.") != NULL;
}

/* Remove the temp files a kill left (the last round's stay for start). */
static void remove_temp_files(void)
{
	DIR *h = opendir(dir);
	struct dirent *e;

	cr_assert_not_null(h, "%s: %s", dir, strerror(errno));
	while ((e = readdir(h)) != NULL)
		if (is_temp_name(e->d_name))
			cr_assert_eq(unlinkat(dirfd(h), e->d_name, 0), 0, "%s", strerror(errno));
	closedir(h);
}

/* Spin until a temp file (".NAME.tmp.XXXXXX") is in dir. */
static void wait_for_temp_file(void)
{
	double limit = now_s() + WAIT_LIMIT_S;

	for (;;) {
		DIR *h = opendir(dir);
		struct dirent *e;
		int seen = 0;

		cr_assert_not_null(h, "%s: %s", dir, strerror(errno));
		while (!seen && (e = readdir(h)) != NULL)
			seen = is_temp_name(e->d_name);
		closedir(h);
		if (seen)
			return;
		cr_assert_lt(now_s(), limit, "the writer never made a temp file");
	}
}

/* The snapshot at path reads back whole, with f's values. */
static void check_intact(const char *path, const struct west_grid *g,
			 const struct west_field *f, int round)
{
	struct west_snapshot s;
	float c[3];
	size_t i = 123, j = 77, k = g->nz - 1, cell = i + g->nx * (j + g->ny * k);

	cr_assert_eq(west_snapshot_read(path, &s, err, sizeof err), WEST_OK,
		     "after kill %d: %s", round, err);
	cr_assert_eq(s.nx * s.ny * s.nz, west_grid_ncells(g));
	cr_assert(west_field_centre(f, g, i, j, k, c));
	cr_assert_eq(s.u[cell], c[0], "after kill %d: u %g, expected %g", round,
		     s.u[cell], c[0]);
	cr_assert_eq(s.w[cell], c[2]);
	west_snapshot_free(&s);
}

Test(snapwriter, kill_9_during_a_write_leaves_the_previous_snapshot_intact, .timeout = 120)
{
	enum { KILLS = 3 };   /* odd: the last round leaves a temp file */
	struct west_grid g;
	struct west_field f;
	char path[PATH_MAX];
	struct stat sb;
	unsigned seed = (unsigned)getpid() ^ (unsigned)time(NULL);
	double t0, first;
	pid_t pid;

	fix_grid(&g, 200, 200, 100.0, 30, 10.0, 0.0, 1.0);
	big_field(&g, &f);
	cr_assert_eq(mkdir(dir, 0755), 0, "%s", strerror(errno));
	snprintf(path, sizeof path, "%s/%s", dir, snap_name(1));
	cr_log_info("random seed %u", seed);

	/* the first file: its appearance gives the duration of one write */
	t0 = now_s();
	pid = spawn_writer(path, &g, &f);
	while (stat(path, &sb) != 0) {
		cr_assert_lt(now_s() - t0, WAIT_LIMIT_S, "the first snapshot never appeared");
		pause_ms(1);
	}
	first = now_s() - t0;
	for (int round = 0; round < KILLS; round++) {
		if (round > 0) {
			remove_temp_files();   /* so that the next one shows */
			pid = spawn_writer(path, &g, &f);
		}
		/* even rounds: as soon as the temp file shows, so that the kill
		 * lands in the short disk phase (write, fsync, rename) that
		 * follows the long build in memory (snapshot.c); odd rounds: a
		 * random moment, mostly late in the write */
		if (round % 2 == 0)
			wait_for_temp_file();
		else
			pause_ms((long)(1000.0 * first * (0.5 + 0.7 * rand_r(&seed) / RAND_MAX)) + 1);
		kill_writer(pid);
		check_intact(path, &g, &f, round);
	}
	/* a leftover for certain (a kill may or may not have left one) */
	put_file(".wind-v1-20261123T120100Z.nc.tmp.Zz9Yy8", "partial");
	start(3, 0.0);
	cr_assert_str_eq(entries(dir), snap_name(1), "temp files were not swept");
	check_intact(path, &g, &f, KILLS);
	west_field_free(&f);
	west_grid_free(&g);
}
