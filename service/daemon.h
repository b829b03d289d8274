/*
 * daemon.h: westd's state and the operations its front ends share (the HTTP
 * routes, the spool directory, signals): start-up, ingest of an
 * observation set, reload, and the record of recent ingests.
 *
 * Start-up (westd_open): config -> terrain -> grid -> backend (terrain
 * uploaded once) -> observation store (state_dir/observations) -> compute
 * worker -> release runner -> snapshot writer -> spool; then the newest
 * persisted set, if
 * any, is solved.  The HTTP server is started by the caller (main.c) once
 * open returns, so nothing is served before the daemon can answer.
 *
 * Ingest (westd_ingest), from any thread: parse against the current grid,
 * check the valid time (obs_max_age, obs_max_future, never older than the
 * newest accepted set), save durably, submit to the worker, all under
 * ingest_lock so that ids (the observation store's sequence numbers) and
 * promised versions are in the same order.  Nothing is applied on a
 * refusal: a set that does not parse is neither saved nor submitted; a
 * set that cannot be saved is not submitted (an accepted set is never
 * lost).
 *
 * Reload (westd_reload, SIGHUP, main thread): read the config again with the
 * same --set overrides; refuse it whole (log, keep the running one) when
 * it does not load, changes a key a reload cannot change, or its terrain
 * does not load or upload.  A changed terrain (a terrain key, or the file's
 * size or modification time) makes a new grid, uploaded on the worker's
 * thread, and the newest persisted set is solved on it.
 *
 * Locks: ingest_lock (ingest, reload's grid swap, the obs store),
 * live_lock (the reloadable values HTTP threads read: struct westd_live),
 * rec_lock (the ingest record).  Never two at once, except ingest_lock
 * then rec_lock.
 */
#ifndef WEST_DAEMON_H
#define WEST_DAEMON_H
#include <pthread.h>
#include <sys/types.h>
#include "backend.h"
#include "config.h"
#include "metrics.h"
#include "obsstore.h"
#include "publish.h"
#include "releases.h"
#include "snapwriter.h"
#include "spool.h"
#include "worker.h"

#define WESTD_MAX_SETS 64        /* --set overrides kept for reloads */
#define WESTD_RECORDS 1024       /* recent ingests remembered */

/* What happened to an ingested set. */
enum westd_fate {
	WESTD_PENDING,     /* waiting for the worker */
	WESTD_SOLVED,      /* published as `version` */
	WESTD_SUPERSEDED,  /* a newer set came before the worker took it */
	WESTD_FAILED,      /* its solve failed (the error is in the log and status) */
};

struct westd_record {
	unsigned long long id;       /* observation store sequence number */
	long long received_at;       /* s since epoch */
	long long valid_time;        /* the set's valid time */
	size_t stations;
	enum west_source source;
	enum westd_fate fate;
	unsigned long long version;  /* SOLVED: the field; else the promised one */
};

/* The reloadable values read per request. */
struct westd_live {
	char token[256];             /* "" = none */
	int read_auth;
	double max_field_age;
	long long max_body_bytes, max_response_cells;
	double ui_age_warn, ui_age_alert;  /* the map page's age colours (s) */
	long max_particles;                /* a release's particles at most */
	double max_release_hours;          /* a release's simulated hours at most */
};

struct westd {
	struct west_config conf;     /* as loaded; reloadable keys change on reload */
	char config_path[WEST_CONF_PATH_MAX]; /* "" = defaults and --set only */
	const char *sets[WESTD_MAX_SETS];     /* --set KEY=VALUE, in order */
	size_t nsets;
	long long terrain_size, terrain_mtime_ns; /* the terrain file at load */
	char dem_reader[WEST_CONF_PATH_MAX]; /* the executable that reads the
					      * terrain in a child process
					      * (west_dem_load_child: westd
					      * itself), "" = in this process */

	const struct west_backend *be;
	void *state;
	char backend_note[WEST_ERRLEN], device[256];
	struct west_shared_grid *grid;     /* current; ingest_lock */

	struct west_store store;
	struct west_worker worker;
	struct west_obsstore obs;          /* ingest_lock */
	struct west_snapwriter snap;
	int snap_on, worker_on;
	struct west_spool spool;
	struct west_releases releases;     /* release plumes (releases.h) */
	struct west_metrics metrics;

	pthread_mutex_t ingest_lock, rec_lock;
	pthread_rwlock_t live_lock;
	struct westd_live live;
	struct westd_record rec[WESTD_RECORDS];   /* ring, rec_lock */
	size_t nrec;                              /* ever recorded */
	long long started_at;                     /* s since epoch */
	double started_mono;                      /* CLOCK_MONOTONIC s */
};

/* Start everything but HTTP (above); on failure all is undone and err
 * says why.  d->conf, config_path, sets, nsets and dem_reader are the
 * caller's input. */
enum west_status westd_open(struct westd *d, char *err, size_t errlen);
void westd_close(struct westd *d);

struct westd_ingest {
	unsigned long long id, version;  /* version: see worker.h, submit */
	size_t stations;
	long long valid_time;
	struct west_obs_times times;     /* which records were kept (obs.h) */
	int out_of_date;                 /* refused for its valid time (below) */
};
/*
 * Take in one observation set (csv: WindNinja CSV, else JSON); of a time
 * series the newest record of each station, a record without date_time at
 * the time of receipt (now); logged with the times kept.  From the spool
 * (src WEST_SOURCE_SPOOL) a CSV may be a station file list: its files,
 * relative to the spool directory, count together against max_body_bytes.
 * Over HTTP a list is refused (it names files on this machine).  Errors:
 * WEST_ERR_INVALID (the body; err names the record and field), WEST_ERR_IO
 * (it could not be saved; nothing submitted).  A set that parses is also
 * WEST_ERR_INVALID with out_of_date set, logged, when its valid time is
 * later than now + obs_max_future, earlier than now - obs_max_age (each
 * unless 0), or earlier than the valid time of the current field or of an
 * accepted set still pending: nothing already published changes.
 */
enum west_status westd_ingest(struct westd *d, const char *body, size_t len, int csv,
			      enum west_source src, struct westd_ingest *out,
			      char *err, size_t errlen);

/* SIGHUP: see above.  WEST_OK when the new config is running. */
enum west_status westd_reload(struct westd *d, char *err, size_t errlen);

/* Take the spool's ready files in, each moved to done/ or failed/. */
void westd_spool_drain(struct westd *d);

/* A copy of the live values. */
void westd_live(struct westd *d, struct westd_live *out);

/* The recent ingests, newest first: at most max into out; returns the
 * count written. */
size_t westd_records(struct westd *d, struct westd_record *out, size_t max);
const char *westd_fate_name(enum westd_fate f);

/* Ready: a field exists and, when max_field_age > 0, its age
 * (westd_field_age) is no more.  why says what is missing when not. */
int westd_ready(struct westd *d, char *why, size_t whylen);

/* The slabs each field is solved in (config devices, parts.h; 1: one;
 * under mpirun one per rank). */
int westd_partitions(const struct westd *d);

/* Under mpirun, every rank but 0: load d->conf's terrain and solve each
 * set rank 0's worker orders, one slab of it, until rank 0 stops
 * (ranks.h); a failure ends every rank.  Returns the exit status. */
int westd_rank_serve(struct westd *d);

/* The age of field p at now (s since the epoch): now minus its valid
 * time, the newest station time of the observations it was solved from
 * (negative while that is ahead of this host's clock).  The one meaning
 * of "age" in westd: the API's age_seconds, /readyz (max_field_age), the
 * metrics and the map page all use it; the publish time is reported
 * beside it, never as the age. */
long long westd_field_age(const struct west_published *p, long long now);

/* s since the epoch, and CLOCK_MONOTONIC s. */
long long westd_now(void);
double westd_mono(void);

#endif
