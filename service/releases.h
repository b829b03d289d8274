/*
 * releases.h: the daemon's release plumes (docs/design.md section 2,
 * docs/api.md "Releases"): the store of posted releases and the one
 * runner thread that runs them, in the order they were posted, through
 * the model of plume.h.
 *
 * A release is posted on the field current at that moment: the store
 * holds that published field (publish.h: a reference, so neither the
 * store's retention nor the field pool ever recycles it while the run
 * needs it) from the POST until its run ends, and a reference on its grid
 * for as long as the release is kept (the output's columns and CRS).
 * Each gets an id, 1, 2, ... in the order of posting (ids start again at
 * 1 when the daemon starts again: releases are not kept across restarts).
 *
 * States: queued (waiting; at most `queue` of them, a submit past that is
 * refused), running (one at a time), done (its result kept) or failed
 * (its error kept).  Finished releases (done or failed) are kept up to
 * `keep` of them and for `max_age` seconds after they ended (0: no age
 * limit); past either the oldest finished go.  Retention is applied after
 * each run, on each list or hold, and at least once a minute by the runner.
 *
 * The runner computes on the kernels it was given (the backend's table,
 * model.h: on CUDA it shares the device with the solves, each on its own
 * thread's stream), in chunks of simulated time; between chunks the
 * model calls back, and the runner records the progress and asks it to
 * stop when the store is stopping (the run then fails "cancelled").  The
 * runner lowers its own priority (and its OpenMP threads', which inherit
 * it) below the compute worker's, so a solve always goes first on the
 * CPU.
 *
 * Threads and the lock: every member of struct west_releases and the
 * mutable members of an entry (state, progress, times, error) are under
 * `lock`.  A reader holds an entry (west_releases_hold: a reference,
 * taken under the lock) and reads the copy of its mutable members that
 * hold gave it; the result of a done entry is written once, before its
 * state becomes done under the lock, and never changes after, so a holder
 * reads it without the lock.  An entry leaves the store by retention or
 * at stop; its memory goes with its last reference.
 */
#ifndef WEST_RELEASES_H
#define WEST_RELEASES_H

#include <pthread.h>
#include <stdatomic.h>

#include "metrics.h"
#include "model.h"
#include "plume.h"
#include "publish.h"

enum west_release_state {
	WEST_RELEASE_QUEUED,
	WEST_RELEASE_RUNNING,
	WEST_RELEASE_DONE,
	WEST_RELEASE_FAILED,
	WEST_RELEASE_NSTATES
};

/* "queued", "running", "done", "failed"; "unknown" out of range. */
const char *west_release_state_name(enum west_release_state s);

/* What was asked, as the status echoes it. */
struct west_release_ask {
	struct west_release r;     /* plume.h: the point in the grid's CRS, ... */
	int lonlat;                /* the point was given as lon, lat */
	double lon, lat;           /* degrees (WGS 84) when the grid's CRS is
				    * transverse Mercator, else NaN */
};

/* One release.  id, ask, field_version, valid_time and grid never change;
 * the members below `lock:` are under the store's lock; res and max_conc
 * are written once, before state becomes DONE. */
struct west_release_entry {
	unsigned long long id, field_version;
	struct west_release_ask ask;
	long long valid_time;               /* of the field it runs on */
	struct west_shared_grid *grid;      /* one reference */
	/* lock: */
	struct west_published *field;       /* held while queued or running */
	enum west_release_state state;
	double done_seconds;                /* simulated seconds done */
	double created, started, finished;  /* s since the epoch; NaN: not yet */
	char error[WEST_ERRLEN];
	/* written once: */
	struct west_plume_result res;
	double max_conc;                    /* the largest conc (s/m^3) */
	size_t bytes;                       /* what the entry holds in memory */
	atomic_long refs;
};

/* A copy of an entry's members at one moment (under the lock). */
struct west_release_info {
	unsigned long long id, field_version;
	struct west_release_ask ask;
	long long valid_time;
	enum west_release_state state;
	double done_seconds;
	double created, started, finished;  /* NaN: not yet */
	char error[WEST_ERRLEN];
	long particles, outside;            /* DONE: the result's; else 0 */
	double wall_seconds, max_conc;      /* DONE: the run's; else 0 */
	double mixing_height;               /* DONE: the result's (m); else 0 */
	size_t bytes;
};

struct west_releases_limits {
	size_t keep;          /* finished releases kept, >= 1 */
	double max_age;       /* s after it ended; 0: no limit */
	size_t queue;         /* queued releases at most, >= 1 */
};

struct west_releases_stats {
	size_t count[WEST_RELEASE_NSTATES];     /* held now, by state */
	size_t bytes;                           /* memory the entries hold */
	unsigned long long posted, done, failed; /* since start */
};

struct west_releases {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	int started, stop;
	struct west_release_entry **e;      /* oldest first (ids increasing) */
	size_t n, cap;
	unsigned long long last_id;
	struct west_releases_limits lim;
	__typeof__(west_plume_run) *run;    /* west_plume_run, or a test's */
	const struct west_kernel_ops *kernels;
	int threads;                        /* OpenMP threads; 0: the default */
	struct west_metrics *metrics;       /* NULL: none */
	struct west_releases_stats st;
	/* called by the runner between two chunks of a run, without the lock:
	 * returns when the run may have the device again (westd: when the
	 * compute worker is idle, so that a new field waits for one chunk at
	 * most); NULL: never waits */
	void (*yield)(void *ctx);
	void *yield_ctx;
};

/*
 * Start the runner: run through kernels (with `threads` OpenMP threads when
 * > 0), keeping releases by lim, counting runs in metrics (may be NULL),
 * calling yield(yield_ctx) between chunks (may be NULL).
 */
enum west_status west_releases_start(struct west_releases *s,
				     __typeof__(west_plume_run) *run,
				     const struct west_kernel_ops *kernels, int threads,
				     const struct west_releases_limits *lim,
				     struct west_metrics *metrics, void (*yield)(void *ctx),
				     void *yield_ctx, char *err, size_t errlen);

/* Cancel the running release, drop the queued and the kept ones, join the
 * runner.  Entries still held live on until their last release. */
void west_releases_stop(struct west_releases *s);

/* New limits (a config reload); retention applies them at once. */
void west_releases_set_limits(struct west_releases *s, const struct west_releases_limits *lim);

/*
 * Queue a release of ask on field p (the caller's reference is taken over
 * in every case); *id its id.  WEST_ERR_UNSUPPORTED when `queue` releases
 * are queued already, or the store is stopping (err says which): nothing
 * is queued.
 */
enum west_status west_releases_submit(struct west_releases *s,
				      const struct west_release_ask *ask,
				      struct west_published *p, unsigned long long *id,
				      char *err, size_t errlen);

/* Release id held (give it back with west_releases_put), info its members
 * now; NULL when no such release is kept. */
struct west_release_entry *west_releases_hold(struct west_releases *s, unsigned long long id,
					      struct west_release_info *info);
void west_releases_put(struct west_release_entry *e);

/* Every kept release's info, newest first, into *out (malloc'd; free it),
 * *n of them; WEST_ERR_NOMEM. */
enum west_status west_releases_list(struct west_releases *s, struct west_release_info **out,
				    size_t *n, char *err, size_t errlen);

void west_releases_stats(struct west_releases *s, struct west_releases_stats *out);

#endif
