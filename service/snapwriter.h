/*
 * snapwriter.h: westd's snapshot writer (docs/design.md section 7): one thread
 * that writes the current published field (publish.h) as a CF NetCDF
 * snapshot (snapshot.h) into the snapshot directory, keeps the newest
 * `keep` of them, and the names and listing the HTTP routes
 * (GET /v1/snapshots, /v1/snapshots/NAME) share with it.
 *
 * Names: "wind-v<version>-<valid time, UTC, YYYYmmddTHHMMSSZ>.nc", the
 * version in decimal without leading zeros (1 <= version <= ULLONG_MAX),
 * e.g. wind-v12-20261123T120000Z.nc.  Only names of exactly that form are
 * listed, served, counted or removed; every other name in the directory
 * (README, a temp file, wind-v01-...) is left alone.
 *
 * When it writes:
 *   interval == 0   after each west_snapwriter_notify (the worker's
 *                   published hook).  Notify never blocks: it sets a flag
 *                   and signals.  Notifies during a write coalesce: when
 *                   the write ends the thread writes once more, the field
 *                   current then (west_store_acquire), not each version.
 *   interval > 0    every `interval` seconds (monotonic clock) the thread
 *                   looks at the store and writes the current field if it
 *                   is newer than the newest written; otherwise nothing.
 *                   Notify does not advance the clock (at most one write
 *                   per interval).
 * Either way a field whose version was written already is never written
 * again (counted as skipped), and on stop the current field is written if
 * it is newer than the newest written (flush on shutdown).
 *
 * Retention: after each successful write the well-named files beyond the
 * `keep` highest versions are removed, never the file just written.  A
 * failed removal is logged (warning) and tried again after the next write.
 * Between a write and its pruning the directory briefly holds keep + 1
 * snapshots.  Versions restart at 1 when westd restarts unless the daemon
 * seeds its store past the newest version on disk (west_snapwriter_list);
 * without that, older-run files with higher versions sort as "newest" and
 * the new files are the ones pruned (the one just written always stays).
 *
 * Failures: a failed write is logged (WEST_LOG_ERR), counted, its message
 * kept in the stats, and the thread goes on; the next notify (or the next
 * interval) tries again.  The file under the final name is never a partial
 * one: west_snapshot_write replaces it atomically.
 *
 * Directory: created (mode 0755 less the umask) when missing, its parent
 * must exist; locked with flock(2) (fileio.h, west_dir_lock) for the
 * writer's lifetime, so a second westd on the same directory is refused;
 * temp files a crash left (west_file_is_temp names) are removed at start.
 * Snapshot files get mode 0644 (snapshot.c).
 *
 * Threads: NetCDF-C is not thread-safe.  In the daemon this thread is the
 * only user of NetCDF once startup is done (terrain loading must not run
 * beside it without a common lock).  The names and the listing use no
 * NetCDF and may be called from any thread.  All west_snapwriter_*
 * functions but start may be called from any thread; the writer never
 * holds its mutex during a write, so notify, set and stats return at once.
 */
#ifndef WEST_SNAPWRITER_H
#define WEST_SNAPWRITER_H

#include <pthread.h>
#include <stddef.h>

#include "publish.h"
#include "status.h"

#define WEST_SNAPSHOT_NAME_MAX 64   /* bytes a snapshot name needs, NUL included */

struct west_snapwriter_stats {
	unsigned long long written, failed;   /* snapshots written / failed writes */
	unsigned long long skipped;           /* wake-ups that found nothing new */
	unsigned long long last_version;      /* version of the newest written; 0 none */
	double last_seconds;                  /* duration of the last successful write */
	char last_name[WEST_SNAPSHOT_NAME_MAX]; /* file name of the newest written */
	char last_error[WEST_ERRLEN];         /* "" until a write fails */
};

struct west_snapwriter {
	pthread_t thread;
	pthread_mutex_t lock;         /* guards everything below but dir and dirfd */
	pthread_cond_t wake;          /* on CLOCK_MONOTONIC */
	char *dir;                    /* NULL while not started */
	int dirfd;                    /* holds the flock; -1 when closed */
	struct west_store *store;
	size_t keep;                  /* >= 1 */
	double interval;              /* s; 0 = after each notify */
	double last_check;            /* monotonic s of the last interval check */
	int stop, pending;
	struct west_snapwriter_stats st;
	void (*on_write)(void *ctx, int ok, double seconds); /* see on_write */
	void *on_write_ctx;
};

/*
 * Create/lock dir, sweep temp leftovers and start the thread.  keep >= 1,
 * interval_s >= 0 (finite), else WEST_ERR_INVALID.  The store must outlive
 * the writer.  On failure nothing is left running and *sw is stopped.
 */
enum west_status west_snapwriter_start(struct west_snapwriter *sw, const char *dir,
				       size_t keep, double interval_s,
				       struct west_store *store, char *err, size_t errlen);

/* Call fn(ctx, ok, seconds) on the writer's thread after each write
 * attempt (the daemon's metrics); fn NULL: none. */
void west_snapwriter_on_write(struct west_snapwriter *sw,
			      void (*fn)(void *ctx, int ok, double seconds), void *ctx);

/* A field was published (any thread; never waits for a write). */
void west_snapwriter_notify(struct west_snapwriter *sw);

/* Config reload: keep >= 1 and interval_s >= 0 (the config table's bounds;
 * anything else is a programmer error).  Applies from the next wake-up;
 * a shorter interval counts from the last check. */
void west_snapwriter_set(struct west_snapwriter *sw, size_t keep, double interval_s);

/* A copy of the counters; also valid after stop (the final counts). A
 * write's stats are recorded after its pruning. */
void west_snapwriter_stats(struct west_snapwriter *sw, struct west_snapwriter_stats *out);

/* Finish the write in progress, write the current field if it is newer
 * than the newest written, join the thread, unlock the directory.  A
 * no-op on a writer that is not started (or whose start failed). */
void west_snapwriter_stop(struct west_snapwriter *sw);

/* ------------------------------------------------------------ names */

/* "wind-v%llu-YYYYmmddTHHMMSSZ.nc" (valid_time: s since 1970, UTC; a time
 * outside years 0000..9999 is written as 19700101T000000Z).  Truncated
 * (always NUL-terminated) when size < WEST_SNAPSHOT_NAME_MAX. */
void west_snapwriter_name(unsigned long long version, long long valid_time,
			char *buf, size_t size);

/*
 * 1 when name is exactly ^wind-v[1-9][0-9]{0,19}-[0-9]{8}T[0-9]{6}Z\.nc$
 * with a version that fits unsigned long long (then *version, when not
 * NULL); 0 otherwise.  Such a name has no '/', no "..", no leading '.'.
 * The caller must have checked that the name it got (a URL path segment,
 * decoded) has no NUL before its end.
 */
int west_snapwriter_name_valid(const char *name, unsigned long long *version);

struct west_snapwriter_entry {
	char name[WEST_SNAPSHOT_NAME_MAX];
	unsigned long long version;
	long long size;               /* bytes */
	long long mtime;              /* s since 1970 */
};

/*
 * The regular files of dir with valid names, highest version first (equal
 * versions by name, descending); *out malloc'd (free() it; NULL when
 * *n == 0).  A file removed while listing is left out.  WEST_ERR_IO naming
 * dir when it cannot be read (missing, not a directory, no permission).
 */
enum west_status west_snapwriter_list(const char *dir, struct west_snapwriter_entry **out,
				    size_t *n, char *err, size_t errlen);

#endif
