/*
 * snapwriter.c: the snapshot writer thread (snapwriter.h gives the rules:
 * when it writes, the names, retention, failures), and the snapshot
 * names and directory listing shared with the HTTP routes.
 *
 * Invariants: sw->dir != NULL exactly between a successful start and
 * stop; sw->st.last_version is the version of the newest snapshot this
 * writer wrote (0: none yet), and a field is written only when its
 * version differs from it (versions only grow within one store).  The
 * mutex is held only to read or change the fields it guards, never
 * during a write, a listing or a removal.
 *
 * Clock: interval checks use CLOCK_MONOTONIC seconds (double), and the
 * condition variable waits on the same clock, so a change of the wall
 * clock neither delays nor hurries a snapshot.
 */
#include "snapwriter.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "snapshot.h"

#define DIR_MODE 0755
#define NAME_PREFIX "wind-v"
#define NAME_SUFFIX ".nc"
#define VERSION_DIGITS 20             /* digits of ULLONG_MAX */
#define STAMP_LEN 16                  /* YYYYmmddTHHMMSSZ */

/* ============================================================== names */

void west_snapwriter_name(unsigned long long version, long long valid_time,
			char *buf, size_t size)
{
	time_t t = (time_t)valid_time;
	struct tm tm;

	if ((long long)t != valid_time || !gmtime_r(&t, &tm) ||
	    tm.tm_year < -1900 || tm.tm_year > 9999 - 1900) {
		t = 0;
		gmtime_r(&t, &tm);
	}
	snprintf(buf, size, NAME_PREFIX "%llu-%04d%02d%02dT%02d%02d%02dZ" NAME_SUFFIX,
		 version, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* 1 when s starts with n digits. */
static int digits(const char *s, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (s[k] < '0' || s[k] > '9')
			return 0;
	return 1;
}

/* The version of name's "[1-9][0-9]{0,19}" after the prefix: the digits
 * used in *len, 0 when there are none, a leading zero or an overflow. */
static unsigned long long parse_version(const char *s, size_t *len)
{
	unsigned long long v = 0;
	size_t k;

	for (k = 0; s[k] >= '0' && s[k] <= '9'; k++) {
		unsigned d = (unsigned)(s[k] - '0');
		if (k == VERSION_DIGITS || v > (ULLONG_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*len = k;
	return s[0] == '0' ? 0 : v;
}

int west_snapwriter_name_valid(const char *name, unsigned long long *version)
{
	size_t pre = sizeof NAME_PREFIX - 1, len = 0;
	unsigned long long v;
	const char *s;

	if (strncmp(name, NAME_PREFIX, pre) != 0)
		return 0;
	v = parse_version(name + pre, &len);
	s = name + pre + len;
	if (v == 0 || s[0] != '-' || !digits(s + 1, 8) || s[9] != 'T' ||
	    !digits(s + 10, 6) || s[16] != 'Z' || strcmp(s + 17, NAME_SUFFIX) != 0)
		return 0;
	if (version)
		*version = v;
	return 1;
}

/* ============================================================ listing */

struct entry_list {
	struct west_snapwriter_entry *v;
	size_t n, cap;
};

static int push_entry(struct entry_list *l, const struct west_snapwriter_entry *e)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct west_snapwriter_entry *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *e;
	return 0;
}

static int newest_first(const void *a, const void *b)
{
	const struct west_snapwriter_entry *p = a, *q = b;

	if (p->version != q->version)
		return p->version < q->version ? 1 : -1;
	return -strcmp(p->name, q->name);
}

/* Add d_name when it is a valid name of a regular file (0), or skip it;
 * -1 when out of memory. */
static int consider(DIR *d, const char *d_name, struct entry_list *l)
{
	struct west_snapwriter_entry e;
	struct stat sb;
	size_t len = strlen(d_name);

	if (len >= sizeof e.name || !west_snapwriter_name_valid(d_name, &e.version) ||
	    fstatat(dirfd(d), d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(sb.st_mode))
		return 0;   /* not ours, or removed meanwhile */
	memcpy(e.name, d_name, len + 1);
	e.size = (long long)sb.st_size;
	e.mtime = (long long)sb.st_mtime;
	return push_entry(l, &e);
}

enum west_status west_snapwriter_list(const char *dir, struct west_snapwriter_entry **out,
				    size_t *n, char *err, size_t errlen)
{
	struct entry_list l = { 0 };
	DIR *d = opendir(dir);
	struct dirent *e;
	int nomem = 0, rerr;

	*out = NULL;
	*n = 0;
	if (!d)
		return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot list snapshots: %s",
				 dir, strerror(errno));
	for (errno = 0; !nomem && (e = readdir(d)) != NULL; errno = 0)
		nomem = consider(d, e->d_name, &l) != 0;
	rerr = errno;
	closedir(d);
	if (nomem || rerr) {
		free(l.v);
		return nomem ? west_fail(err, errlen, WEST_ERR_NOMEM, "%s: cannot allocate "
					 "the snapshot list", dir)
			     : west_fail(err, errlen, WEST_ERR_IO, "%s: cannot list snapshots: %s",
					 dir, strerror(rerr));
	}
	if (l.n)
		qsort(l.v, l.n, sizeof *l.v, newest_first);
	*out = l.v;
	*n = l.n;
	return WEST_OK;
}

/* ========================================================== directory */


static enum west_status make_dir(const char *dir, char *err, size_t errlen)
{
	if (strlen(dir) + 1 + WEST_SNAPSHOT_NAME_MAX + 16 >= PATH_MAX)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%.64s...: snapshot directory name too long", dir);
	if (mkdir(dir, DIR_MODE) == 0)
		return west_dir_sync_parent(dir, err, errlen);
	if (errno == EEXIST)
		return WEST_OK;   /* not a directory: west_dir_lock says so */
	return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot create the snapshot "
			 "directory: %s", dir, strerror(errno));
}

/* Remove the temp files a crash left in the writer's directory. */
static void sweep(const struct west_snapwriter *sw)
{
	DIR *d = fdopendir(fcntl(sw->dirfd, F_DUPFD_CLOEXEC, 0));
	struct dirent *e;

	if (!d) {
		west_log(WEST_LOG_WARNING, "%s: cannot list for temp leftovers: %s",
			 sw->dir, strerror(errno));
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (!west_file_is_temp(e->d_name))
			continue;
		if (unlinkat(sw->dirfd, e->d_name, 0) != 0)
			west_log(WEST_LOG_WARNING, "%s/%s: cannot remove a leftover temp "
				 "file: %s", sw->dir, e->d_name, strerror(errno));
		else
			west_log(WEST_LOG_NOTICE, "%s/%s: removed a leftover temp file",
				 sw->dir, e->d_name);
	}
	closedir(d);
}

/* Remove the valid-named files beyond the `keep` highest versions, but
 * not `written`; failures are logged only. */
static void prune(const struct west_snapwriter *sw, size_t keep, const char *written)
{
	struct west_snapwriter_entry *l;
	char msg[WEST_ERRLEN];
	size_t n;

	if (west_snapwriter_list(sw->dir, &l, &n, msg, sizeof msg) != WEST_OK) {
		west_log(WEST_LOG_WARNING, "%s; old snapshots not removed", msg);
		return;
	}
	for (size_t k = keep; k < n; k++) {
		if (strcmp(l[k].name, written) == 0)
			continue;
		if (unlinkat(sw->dirfd, l[k].name, 0) != 0 && errno != ENOENT)
			west_log(WEST_LOG_WARNING, "%s/%s: cannot remove an old snapshot: %s",
				 sw->dir, l[k].name, strerror(errno));
	}
	free(l);
}

/* ============================================================= thread */

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Record the outcome of writing p as name, under the lock. */
static void record(struct west_snapwriter *sw, const struct west_published *p,
		   const char *name, double seconds, enum west_status st, const char *err)
{
	void (*hook)(void *, int, double);
	void *ctx;

	pthread_mutex_lock(&sw->lock);
	hook = sw->on_write, ctx = sw->on_write_ctx;
	if (st == WEST_OK) {
		sw->st.written++;
		sw->st.last_version = p->version;
		sw->st.last_seconds = seconds;
		snprintf(sw->st.last_name, sizeof sw->st.last_name, "%s", name);
	} else {
		sw->st.failed++;
		snprintf(sw->st.last_error, sizeof sw->st.last_error, "%s", err);
	}
	pthread_mutex_unlock(&sw->lock);
	if (hook)
		hook(ctx, st == WEST_OK, seconds);
}

void west_snapwriter_on_write(struct west_snapwriter *sw,
			      void (*fn)(void *ctx, int ok, double seconds), void *ctx)
{
	pthread_mutex_lock(&sw->lock);
	sw->on_write = fn, sw->on_write_ctx = ctx;
	pthread_mutex_unlock(&sw->lock);
}

/* Write p (its version not written yet) and prune, outside the lock. */
static void write_one(struct west_snapwriter *sw, const struct west_published *p,
		      size_t keep)
{
	char name[WEST_SNAPSHOT_NAME_MAX], path[PATH_MAX], err[WEST_ERRLEN] = "";
	double t0 = mono_now(), seconds;
	enum west_status st;

	west_snapwriter_name(p->version, p->field.valid_time, name, sizeof name);
	snprintf(path, sizeof path, "%s/%s", sw->dir, name);
	st = west_snapshot_write(path, p->grid, &p->field, &p->obs, err, sizeof err);
	seconds = mono_now() - t0;
	if (st != WEST_OK) {
		west_log(WEST_LOG_ERR, "snapshot of version %llu failed: %s", p->version, err);
	} else {
		west_log(WEST_LOG_INFO, "%s: snapshot of version %llu written in %.2f s",
			 path, p->version, seconds);
		prune(sw, keep, name);
	}
	record(sw, p, name, seconds, st, err);   /* after pruning: the stats say done */
}

/* One wake-up's work: the current field, unless written already. */
static void write_current(struct west_snapwriter *sw)
{
	struct west_published *p = west_store_acquire(sw->store);
	unsigned long long last;
	size_t keep;

	pthread_mutex_lock(&sw->lock);
	last = sw->st.last_version;
	keep = sw->keep;
	if (!p || p->version == last)
		sw->st.skipped++;
	pthread_mutex_unlock(&sw->lock);
	if (p && p->version != last)
		write_one(sw, p, keep);
	west_published_release(p);
}

/* Wait (the lock held) until stop, a notify (interval 0) or the next
 * interval check is due; returns 0 on stop. */
static int wait_for_work(struct west_snapwriter *sw)
{
	while (!sw->stop) {
		double now, due;
		struct timespec ts;

		if (sw->interval <= 0) {
			if (sw->pending)
				return 1;
			pthread_cond_wait(&sw->wake, &sw->lock);
			continue;
		}
		now = mono_now();
		due = sw->last_check + sw->interval;
		if (now >= due) {
			sw->last_check = now;
			return 1;
		}
		ts.tv_sec = (time_t)due;
		ts.tv_nsec = (long)((due - (double)ts.tv_sec) * 1e9);
		pthread_cond_timedwait(&sw->wake, &sw->lock, &ts);
	}
	return 0;
}

static void *loop(void *arg)
{
	struct west_snapwriter *sw = arg;

	pthread_mutex_lock(&sw->lock);
	while (wait_for_work(sw)) {
		sw->pending = 0;
		pthread_mutex_unlock(&sw->lock);
		write_current(sw);
		pthread_mutex_lock(&sw->lock);
	}
	sw->pending = 0;
	pthread_mutex_unlock(&sw->lock);
	write_current(sw);   /* flush on shutdown */
	return NULL;
}

/* ========================================================== lifecycle */

static enum west_status check_settings(size_t keep, double interval_s,
				       char *err, size_t errlen)
{
	if (keep < 1)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "snapshot writer: keep must be at least 1");
	if (!(interval_s >= 0) || !isfinite(interval_s))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "snapshot writer: interval %g s must be a number >= 0", interval_s);
	return WEST_OK;
}

/* Mutex and a CLOCK_MONOTONIC condition variable; an errno value. */
static int init_sync(struct west_snapwriter *sw)
{
	pthread_condattr_t ca;
	int rc = pthread_condattr_init(&ca);

	if (rc)
		return rc;
	rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!rc)
		rc = pthread_cond_init(&sw->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (!rc && (rc = pthread_mutex_init(&sw->lock, NULL)) != 0)
		pthread_cond_destroy(&sw->wake);
	return rc;
}

/* Undo a start up to the thread: the directory lock and the name. */
static void close_dir(struct west_snapwriter *sw)
{
	if (sw->dirfd >= 0)
		close(sw->dirfd);   /* releases the flock */
	free(sw->dir);
	sw->dir = NULL;
	sw->dirfd = -1;
}

static enum west_status open_dir(struct west_snapwriter *sw, const char *dir,
				 char *err, size_t errlen)
{
	enum west_status st = make_dir(dir, err, errlen);

	if (st != WEST_OK)
		return st;
	sw->dir = strdup(dir);
	if (!sw->dir)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "%s: cannot allocate", dir);
	st = west_dir_lock(sw->dir, "snapshot writer", &sw->dirfd, err, errlen);
	if (st != WEST_OK) {
		close_dir(sw);
		return st;
	}
	sweep(sw);
	return WEST_OK;
}

enum west_status west_snapwriter_start(struct west_snapwriter *sw, const char *dir,
				       size_t keep, double interval_s,
				       struct west_store *store, char *err, size_t errlen)
{
	enum west_status st = check_settings(keep, interval_s, err, errlen);
	int rc;

	memset(sw, 0, sizeof *sw);
	sw->dirfd = -1;
	if (st != WEST_OK || (st = open_dir(sw, dir, err, errlen)) != WEST_OK)
		return st;
	sw->store = store, sw->keep = keep, sw->interval = interval_s;
	sw->last_check = mono_now();
	rc = init_sync(sw);
	if (!rc && (rc = pthread_create(&sw->thread, NULL, loop, sw)) != 0) {
		pthread_cond_destroy(&sw->wake);
		pthread_mutex_destroy(&sw->lock);
	}
	if (rc) {
		close_dir(sw);
		return west_fail(err, errlen, WEST_ERR_NOMEM, "%s: cannot start the snapshot "
				 "writer: %s", dir, strerror(rc));
	}
	return WEST_OK;
}

void west_snapwriter_notify(struct west_snapwriter *sw)
{
	pthread_mutex_lock(&sw->lock);
	sw->pending = 1;
	pthread_cond_signal(&sw->wake);
	pthread_mutex_unlock(&sw->lock);
}

void west_snapwriter_set(struct west_snapwriter *sw, size_t keep, double interval_s)
{
	assert(check_settings(keep, interval_s, NULL, 0) == WEST_OK);
	pthread_mutex_lock(&sw->lock);
	sw->keep = keep;
	sw->interval = interval_s;
	pthread_cond_signal(&sw->wake);
	pthread_mutex_unlock(&sw->lock);
}

void west_snapwriter_stats(struct west_snapwriter *sw, struct west_snapwriter_stats *out)
{
	if (!sw->dir) {           /* stopped: no thread, no mutex */
		*out = sw->st;
		return;
	}
	pthread_mutex_lock(&sw->lock);
	*out = sw->st;
	pthread_mutex_unlock(&sw->lock);
}

void west_snapwriter_stop(struct west_snapwriter *sw)
{
	if (!sw->dir)
		return;
	pthread_mutex_lock(&sw->lock);
	sw->stop = 1;
	pthread_cond_signal(&sw->wake);
	pthread_mutex_unlock(&sw->lock);
	pthread_join(sw->thread, NULL);
	pthread_cond_destroy(&sw->wake);
	pthread_mutex_destroy(&sw->lock);
	close_dir(sw);
}
