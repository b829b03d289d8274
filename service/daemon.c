/*
 * daemon.c: westd's state (daemon.h): start-up and shutdown, ingest, the
 * record of recent ingests, reload, the spool, readiness.
 */
#include "daemon.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "log.h"
#include "ranks.h"
#include "sdnotify.h"

long long westd_now(void)
{
	return (long long)time(NULL);
}

long long westd_field_age(const struct west_published *p, long long now)
{
	return now - p->field.valid_time;
}

double westd_mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const char *westd_fate_name(enum westd_fate f)
{
	static const char *const names[] = { "pending", "solved", "superseded", "failed" };
	return (unsigned)f < sizeof names / sizeof names[0] ? names[f] : "unknown";
}

/* ------------------------------------------------------- ingest record */

/* The record of id, under rec_lock; NULL when it left the ring. */
static struct westd_record *record_of(struct westd *d, unsigned long long id)
{
	size_t n = d->nrec < WESTD_RECORDS ? d->nrec : WESTD_RECORDS;
	for (size_t k = 0; k < n; k++) {
		struct westd_record *r = &d->rec[(d->nrec - 1 - k) % WESTD_RECORDS];
		if (r->id == id)
			return r;
		if (r->id < id)   /* ids only grow along the ring */
			break;
	}
	return NULL;
}

static void record_fate(struct westd *d, unsigned long long id, enum westd_fate fate,
			unsigned long long version)
{
	pthread_mutex_lock(&d->rec_lock);
	struct westd_record *r = record_of(d, id);
	if (r) {
		r->fate = fate;
		if (version)
			r->version = version;
	}
	pthread_mutex_unlock(&d->rec_lock);
}

static void record_add(struct westd *d, const struct westd_record *r)
{
	pthread_mutex_lock(&d->rec_lock);
	d->rec[d->nrec++ % WESTD_RECORDS] = *r;
	pthread_mutex_unlock(&d->rec_lock);
}

size_t westd_records(struct westd *d, struct westd_record *out, size_t max)
{
	pthread_mutex_lock(&d->rec_lock);
	size_t n = d->nrec < WESTD_RECORDS ? d->nrec : WESTD_RECORDS;
	if (n > max)
		n = max;
	for (size_t k = 0; k < n; k++)
		out[k] = d->rec[(d->nrec - 1 - k) % WESTD_RECORDS];
	pthread_mutex_unlock(&d->rec_lock);
	return n;
}

/* ---------------------------------------------------------- worker hooks */

static void on_published(void *ctx, struct west_published *p)
{
	struct westd *d = ctx;
	const struct west_report *r = &p->field.report;

	record_fate(d, p->obs_id, WESTD_SOLVED, p->version);
	west_metrics_solve(&d->metrics, 1, r->total_seconds);
	if (d->snap_on)
		west_snapwriter_notify(&d->snap);
	west_log(WEST_LOG_INFO, "field v%llu published: observation set %llu, %zu "
		 "stations, %ld iterations, max|D| h/U %.3g, %.3f s on %s",
		 p->version, p->obs_id, p->obs.n, r->iterations, r->final.rel_max,
		 r->total_seconds, r->backend);
	west_sd_notifyf("READY=1\nSTATUS=serving field v%llu (%zu stations, %ld "
			"iterations, %.3f s)", p->version, p->obs.n, r->iterations,
			r->total_seconds);
}

static void on_failed(void *ctx, unsigned long long id, const char *err)
{
	struct westd *d = ctx;

	record_fate(d, id, WESTD_FAILED, 0);
	west_metrics_solve(&d->metrics, 0, 0.0);
	west_sd_notifyf("STATUS=solve of observation set %llu failed: %s", id, err);
}

static void on_snapshot(void *ctx, int ok, double seconds)
{
	struct westd *d = ctx;
	west_metrics_snapshot(&d->metrics, ok, seconds);
}

/* ------------------------------------------------------------ live values */

/* The token of c (api_token or the first line of api_token_file). */
static enum west_status read_token(const struct west_config *c, char *tok, size_t size,
				   char *err, size_t errlen)
{
	if (c->api_token[0] && c->api_token_file[0])
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "api_token and api_token_file are both set: keep one");
	snprintf(tok, size, "%s", c->api_token);
	if (c->api_token_file[0]) {
		FILE *f = fopen(c->api_token_file, "r");
		if (!f)
			return west_fail(err, errlen, WEST_ERR_IO, "api_token_file %s: %s",
					 c->api_token_file, strerror(errno));
		if (!fgets(tok, (int)size, f))
			tok[0] = '\0';
		fclose(f);
		tok[strcspn(tok, "\r\n")] = '\0';
		for (size_t n = strlen(tok); n && (tok[n - 1] == ' ' || tok[n - 1] == '\t'); n--)
			tok[n - 1] = '\0';
		if (!tok[0])
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "api_token_file %s: the first line is empty",
					 c->api_token_file);
	}
	if (c->read_auth && !tok[0])
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "read_auth = yes needs api_token or api_token_file");
	return WEST_OK;
}

static enum west_status make_live(const struct west_config *c, struct westd_live *l,
				  char *err, size_t errlen)
{
	memset(l, 0, sizeof *l);
	l->read_auth = c->read_auth;
	l->max_field_age = c->max_field_age;
	l->max_body_bytes = c->max_body_bytes;
	l->max_response_cells = c->max_response_cells;
	l->ui_age_warn = c->ui_age_warn;
	l->ui_age_alert = c->ui_age_alert;
	l->max_particles = c->max_particles;
	l->max_release_hours = c->max_release_hours;
	return read_token(c, l->token, sizeof l->token, err, errlen);
}

void westd_live(struct westd *d, struct westd_live *out)
{
	pthread_rwlock_rdlock(&d->live_lock);
	*out = d->live;
	pthread_rwlock_unlock(&d->live_lock);
}

/* -------------------------------------------------------------- ingest */

/* The newest record of each station; undated records at the clock's now. */
static struct west_obs_opts obs_opts(const struct westd *d)
{
	struct west_obs_opts o = { .grid = &d->grid->g,
				   .max_stations = (size_t)d->conf.max_stations,
				   .allow_outside = d->conf.allow_outside,
				   .pick = WEST_OBS_PICK_NEWEST };
	return o;
}

/*
 * Save and submit set (taken over), under ingest_lock.  The set is solved
 * while it is saved (the fsyncs take about a millisecond): a held submit,
 * whose field the worker publishes only once the save has succeeded, and
 * drops if it failed (worker.h).
 */
static enum west_status save_and_submit(struct westd *d, struct west_obs_set *set,
					enum west_source src, struct westd_ingest *out,
					char *err, size_t errlen)
{
	struct westd_record r = { 0 };
	unsigned long long old;
	enum west_status st;
	char *text;

	st = west_obsstore_text(&d->obs, set, &text, &out->id, err, errlen);
	if (st)
		return st;
	out->stations = set->n;
	out->valid_time = set->valid_time;
	out->times = set->times;
	r.id = out->id, r.valid_time = set->valid_time;
	r.stations = set->n, r.source = src, r.fate = WESTD_PENDING;
	west_worker_submit_held(&d->worker, set, out->id, &out->version);
	st = west_obsstore_save_text(&d->obs, text, out->id, err, errlen);
	free(text);
	/* released and recorded under rec_lock, so that the hooks, which
	 * take it, find the record */
	pthread_mutex_lock(&d->rec_lock);
	old = west_worker_release(&d->worker, !st);
	if (!st) {
		r.received_at = westd_now(), r.version = out->version;
		d->rec[d->nrec++ % WESTD_RECORDS] = r;
	}
	pthread_mutex_unlock(&d->rec_lock);
	if (st)
		return st;
	if (old) {
		record_fate(d, old, WESTD_SUPERSEDED, 0);
		west_metrics_superseded(&d->metrics, 1);
	}
	return WEST_OK;
}

/*
 * The valid time a new set must reach, and the set that has it: the newest
 * of the current field's and of the accepted sets not superseded or failed
 * (pending or solved).  Under ingest_lock, which orders it with the
 * submissions; takes rec_lock.  0 when there is none.
 */
static long long newest_valid_time(struct westd *d, unsigned long long *id)
{
	struct west_published *p = west_store_acquire(&d->store);
	long long t = 0;

	*id = 0;
	if (p) {
		t = p->field.valid_time, *id = p->obs_id;
		west_published_release(p);
	}
	pthread_mutex_lock(&d->rec_lock);
	size_t n = d->nrec < WESTD_RECORDS ? d->nrec : WESTD_RECORDS;
	for (size_t k = 0; k < n; k++) {
		const struct westd_record *r = &d->rec[k];
		if ((r->fate == WESTD_PENDING || r->fate == WESTD_SOLVED) &&
		    (!*id || r->valid_time > t))
			t = r->valid_time, *id = r->id;
	}
	pthread_mutex_unlock(&d->rec_lock);
	return t;
}

/*
 * Refuse a set whose valid time is after now + obs_max_future, before
 * now - obs_max_age (each 0 = no limit), or before the newest accepted
 * set's (it would replace a newer field).  Under ingest_lock (d->conf).
 */
static enum west_status check_valid_time(struct westd *d, const struct west_obs_set *set,
					 char *err, size_t errlen)
{
	long long now = westd_now(), t = set->valid_time, newest;
	double ahead = (double)(t - now), behind = -ahead;
	char vt[32], nw[32], nv[32];
	unsigned long long id;

	west_obs_time_format(t, vt, sizeof vt);
	west_obs_time_format(now, nw, sizeof nw);
	if (d->conf.obs_max_future > 0 && ahead > d->conf.obs_max_future)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "valid time %s is %.0f s after now (%s), more than obs_max_future = %g s: check the station clocks and time zones",
				 vt, ahead, nw, d->conf.obs_max_future);
	if (d->conf.obs_max_age > 0 && behind > d->conf.obs_max_age)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "valid time %s is %.0f s before now (%s), more than obs_max_age = %g s",
				 vt, behind, nw, d->conf.obs_max_age);
	newest = newest_valid_time(d, &id);
	if (id && t < newest) {
		west_obs_time_format(newest, nv, sizeof nv);
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "valid time %s is older than %s, the valid time of observation set %llu (now %s): it would replace a newer field",
				 vt, nv, id, nw);
	}
	return WEST_OK;
}

/* Parse body as JSON, CSV, or (from the spool only) a station file list
 * whose files count against max_bytes; under ingest_lock. */
static enum west_status parse_body(struct westd *d, const char *body, size_t len, int csv,
				   enum west_source src, long long max_bytes,
				   struct west_obs_set *set, char *err, size_t errlen)
{
	struct west_obs_opts o = obs_opts(d);

	if (!csv)
		return west_obs_parse_json(body, len, &o, set, err, errlen);
	if (src == WEST_SOURCE_SPOOL && d->spool.dir && west_obs_is_list(body, len))
		return west_obs_parse_list(body, len, d->spool.dir,
					   (unsigned long long)max_bytes, &o, set, err, errlen);
	return west_obs_parse_csv(body, len, &o, set, err, errlen);
}

enum west_status westd_ingest(struct westd *d, const char *body, size_t len, int csv,
			      enum west_source src, struct westd_ingest *out,
			      char *err, size_t errlen)
{
	struct west_obs_set set = { 0 };
	struct westd_live live;
	enum west_status st;
	char times[WEST_ERRLEN];

	memset(out, 0, sizeof *out);
	westd_live(d, &live);          /* live_lock before, not inside, ingest_lock */
	pthread_mutex_lock(&d->ingest_lock);
	st = parse_body(d, body, len, csv, src, live.max_body_bytes, &set, err, errlen);
	if (!st)
		west_obs_times_describe(&set.times, times, sizeof times);
	if (!st && (st = check_valid_time(d, &set, err, errlen)))
		out->out_of_date = 1;
	if (!st)
		st = save_and_submit(d, &set, src, out, err, errlen);
	pthread_mutex_unlock(&d->ingest_lock);
	west_obs_set_free(&set);       /* a no-op once submitted */
	if (!st)
		west_log(WEST_LOG_INFO, "observation set %llu (%s): %s", out->id,
			 west_source_label(src), times);
	west_metrics_received(&d->metrics, src);
	if (out->out_of_date && src == WEST_SOURCE_HTTP) /* the spool logs its own */
		west_log(WEST_LOG_WARNING, "POST /v1/observations refused: %s", err);
	if (st)
		west_metrics_rejected(&d->metrics, src, out->out_of_date ? WEST_REJECT_OUT_OF_DATE :
				      st == WEST_ERR_INVALID ? WEST_REJECT_INVALID :
				      WEST_REJECT_STORAGE);
	return st;
}

/* The newest persisted set against the current grid, submitted; under
 * ingest_lock. */
static enum west_status resume(struct westd *d, char *err, size_t errlen)
{
	struct west_obs_set set = { 0 };
	struct west_obs_opts o = obs_opts(d);
	struct westd_record r = { 0 };
	unsigned long long seq = 0;
	enum west_status st;

	st = west_obsstore_load_newest(&d->obs, &o, &set, &seq, err, errlen);
	if (st || !seq) {
		west_obs_set_free(&set);
		return st;
	}
	west_log(WEST_LOG_NOTICE, "solving the newest saved observation set %llu (%zu stations)",
		 seq, set.n);
	r.id = seq, r.received_at = westd_now(), r.valid_time = set.valid_time;
	r.stations = set.n, r.source = WEST_SOURCE_HTTP, r.fate = WESTD_PENDING;
	record_add(d, &r);
	west_worker_submit(&d->worker, &set, seq, NULL);
	return WEST_OK;
}

/* --------------------------------------------------------------- terrain */

static void terrain_stamp(const char *path, long long *size, long long *mtime_ns)
{
	struct stat sb;
	*size = *mtime_ns = -1;
	if (path[0] && stat(path, &sb) == 0) {
		*size = (long long)sb.st_size;
		*mtime_ns = (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
	}
}

/* The grid of c's terrain, read by d->dem_reader where it is set. */
static enum west_status load_grid(const struct westd *d, const struct west_config *c,
				  struct west_shared_grid **out, char *err, size_t errlen)
{
	struct west_grid g;
	struct west_grid_opts go;
	enum west_status st;

	if (!c->terrain[0])
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "terrain: no DEM file configured (set terrain = FILE)");
	west_grid_opts_from_config(&go, c);
	go.dem_reader = d->dem_reader[0] ? d->dem_reader : NULL;
	st = west_grid_load(&g, NULL, &go, err, errlen);
	if (st)
		return st;
	*out = west_shared_grid_new(&g);
	if (!*out) {
		west_grid_free(&g);
		return west_fail(err, errlen, WEST_ERR_NOMEM, "out of memory for the grid");
	}
	const struct west_grid *n = &(*out)->g;
	if (!n->land)   /* an MPI rank other than 0 (grid.h) */
		west_log(WEST_LOG_NOTICE, "terrain %s: grid %zu x %zu x %zu cells of %g x %g m, "
			 "the columns only (this rank builds its slab)", c->terrain, n->nx,
			 n->ny, n->nz, n->dx, n->dy);
	else
		west_log(WEST_LOG_NOTICE, "terrain %s: grid %zu x %zu x %zu cells of %g x %g m, "
			 "%zu land cells, %s faces (%zu cut cells)", c->terrain, n->nx, n->ny,
			 n->nz, n->dx, n->dy, n->land_cells, n->cut ? "cut" : "staircase",
			 n->cut_cells);
	return WEST_OK;
}

/* ------------------------------------------------------------- start-up */

static enum west_status open_backend(struct westd *d, char *err, size_t errlen)
{
	enum west_backend_choice choice;
	enum west_status st;

	st = west_backend_choice_of(&d->conf, &choice, err, errlen);
	if (!st)
		st = west_backend_select(choice, &d->be, d->backend_note,
					 sizeof d->backend_note, err, errlen);
	if (!st)
		st = d->be->init(&d->state, err, errlen);
	if (!st)   /* config devices: slabs, or one device */
		st = west_backend_plan(d->be, d->state, &d->conf, err, errlen);
	if (!st)
		st = d->be->upload_terrain(d->state, &d->grid->g, err, errlen);
	if (st)
		return st;
	d->be->describe(d->state, d->device, sizeof d->device);
	west_log(WEST_LOG_NOTICE, "backend %s: %s", d->be->name, d->device);
	return WEST_OK;
}

/* dir/sub into buf; refuses a path that does not fit. */
static enum west_status join(char *buf, size_t size, const char *dir, const char *sub,
			     char *err, size_t errlen)
{
	if ((size_t)snprintf(buf, size, "%s/%s", dir, sub) >= size)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s/%s: path too long",
				 dir, sub);
	return WEST_OK;
}

static enum west_status open_state(struct westd *d, char *err, size_t errlen)
{
	char path[WEST_CONF_PATH_MAX + 32];
	enum west_status st;

	if (!d->conf.state_dir[0])
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "state_dir: empty (westd must persist accepted observations)");
	if (mkdir(d->conf.state_dir, 0750) && errno != EEXIST)
		return west_fail(err, errlen, WEST_ERR_IO, "state_dir %s: cannot create: %s",
				 d->conf.state_dir, strerror(errno));
	st = join(path, sizeof path, d->conf.state_dir, "observations", err, errlen);
	if (!st)
		st = west_obsstore_open(&d->obs, path, (size_t)d->conf.observations_keep,
					err, errlen);
	return st;
}

static struct west_releases_limits release_limits(const struct west_config *c)
{
	struct west_releases_limits lim = { (size_t)c->releases_keep, c->releases_max_age,
					    (size_t)c->releases_queue };
	return lim;
}

/* Between two chunks of a release: a solve (running or waiting) first. */
static void yield_to_solves(void *ctx)
{
	struct westd *d = ctx;
	west_worker_wait_idle(&d->worker);
}

/* The release runner, on the backend's kernels: it shares the device with
 * the solves, and gives it to them between chunks (releases.h). */
static enum west_status open_releases(struct westd *d, char *err, size_t errlen)
{
	struct west_releases_limits lim = release_limits(&d->conf);

	return west_releases_start(&d->releases, west_plume_run, d->be->kernels,
				   (int)d->conf.release_threads, &lim, &d->metrics,
				   yield_to_solves, d, err, errlen);
}

/* Versions go on from the newest snapshot of an earlier run, so that a
 * restart neither reuses a version (a console's ETag) nor has retention
 * take the new snapshots for the oldest. */
static void continue_versions(struct westd *d)
{
	struct west_snapwriter_entry *e = NULL;
	size_t n = 0;
	char err[WEST_ERRLEN];

	if (west_snapwriter_list(d->conf.snapshot_dir, &e, &n, err, sizeof err))
		west_log(WEST_LOG_WARNING, "%s", err);
	else if (n)
		d->store.last_version = e[0].version;
	free(e);
}

static enum west_status open_outputs(struct westd *d, char *err, size_t errlen)
{
	enum west_status st;

	if (d->conf.snapshot_dir[0]) {
		st = west_snapwriter_start(&d->snap, d->conf.snapshot_dir,
					   (size_t)d->conf.snapshot_keep,
					   d->conf.snapshot_interval, &d->store, err, errlen);
		if (st)
			return st;
		west_snapwriter_on_write(&d->snap, on_snapshot, d);
		d->snap_on = 1;
		continue_versions(d);
	}
	if (d->conf.spool_dir[0])
		return west_spool_open(&d->spool, d->conf.spool_dir, err, errlen);
	return WEST_OK;
}

static enum west_status open_all(struct westd *d, char *err, size_t errlen)
{
	struct west_solve_opts o;
	struct west_worker_hooks hooks = { on_published, on_failed, d };
	enum west_status st;

	st = make_live(&d->conf, &d->live, err, errlen);
	if (!st)
		st = load_grid(d, &d->conf, &d->grid, err, errlen);
	if (st)
		return st;
	terrain_stamp(d->conf.terrain, &d->terrain_size, &d->terrain_mtime_ns);
	st = open_backend(d, err, errlen);
	if (!st)
		st = open_state(d, err, errlen);
	if (st)
		return st;
	west_solve_opts_from_config(&o, &d->conf);
	st = west_worker_start(&d->worker, d->be, d->state, d->grid, &o, &d->store, &hooks,
			       (unsigned)d->conf.field_pool, err, errlen);
	if (st)
		return st;
	d->worker_on = 1;
	st = open_releases(d, err, errlen);
	if (!st)
		st = open_outputs(d, err, errlen);
	if (!st) {
		pthread_mutex_lock(&d->ingest_lock);
		st = resume(d, err, errlen);
		pthread_mutex_unlock(&d->ingest_lock);
	}
	return st;
}

enum west_status westd_open(struct westd *d, char *err, size_t errlen)
{
	enum west_status st;

	d->started_at = westd_now();
	d->started_mono = westd_mono();
	d->spool.dir = NULL;
	d->spool.inotify_fd = d->spool.dirfd = d->spool.wd = -1;
	d->obs.dirfd = -1;
	pthread_mutex_init(&d->ingest_lock, NULL);
	pthread_mutex_init(&d->rec_lock, NULL);
	pthread_rwlock_init(&d->live_lock, NULL);
	west_store_init(&d->store);
	west_metrics_init(&d->metrics);
	st = open_all(d, err, errlen);
	if (st)
		westd_close(d);
	return st;
}

void westd_close(struct westd *d)
{
	west_spool_close(&d->spool);
	west_releases_stop(&d->releases);   /* the running release is cancelled */
	if (d->worker_on)
		west_worker_stop(&d->worker);   /* the running solve finishes */
	if (d->snap_on)
		west_snapwriter_stop(&d->snap); /* and its snapshot is flushed */
	d->worker_on = d->snap_on = 0;
	west_obsstore_close(&d->obs);
	west_store_free(&d->store);
	if (d->be && d->state)
		d->be->free(d->state);
	d->state = NULL;
	west_shared_grid_release(d->grid);
	d->grid = NULL;
	pthread_rwlock_destroy(&d->live_lock);
	pthread_mutex_destroy(&d->rec_lock);
	pthread_mutex_destroy(&d->ingest_lock);
}

/* ---------------------------------------------------------------- reload */

static enum west_status read_config(const struct westd *d, struct west_config *c,
				    char *err, size_t errlen)
{
	enum west_status st = WEST_OK;

	west_config_defaults(c);
	if (d->config_path[0])
		st = west_config_load(c, d->config_path, err, errlen);
	for (size_t i = 0; !st && i < d->nsets; i++)
		st = west_config_set(c, d->sets[i], "--set", err, errlen);
	return st;
}

/* 1 when new_ needs a new grid: a terrain key or the file changed. */
static int terrain_changed(const struct westd *d, const struct west_config *new_)
{
	const struct west_config *a = &d->conf, *b = new_;
	long long size, mtime;

	terrain_stamp(b->terrain, &size, &mtime);
	if (size != d->terrain_size || mtime != d->terrain_mtime_ns)
		return 1;
	return strcmp(a->terrain, b->terrain) || strcmp(a->terrain_variable, b->terrain_variable) ||
	       a->terrain_epsg != b->terrain_epsg || a->nodata != b->nodata || a->resolution != b->resolution || a->nz != b->nz ||
	       a->dz != b->dz || a->nlevels != b->nlevels ||
	       memcmp(a->levels, b->levels, a->nlevels * sizeof a->levels[0]) ||
	       !(a->base_altitude == b->base_altitude ||
		 (isnan(a->base_altitude) && isnan(b->base_altitude))) ||
	       a->max_cells != b->max_cells;
}

/* Swap in grid g of configuration c (a reload): upload (on every MPI
 * rank), then solve the newest set on it. */
static enum west_status swap_grid(struct westd *d, struct west_shared_grid *g,
				  const struct west_config *c, char *err, size_t errlen)
{
	enum west_status st;

	pthread_mutex_lock(&d->ingest_lock);
	st = west_worker_set_grid(&d->worker, g, c, err, errlen);
	if (!st) {
		west_shared_grid_release(d->grid);
		d->grid = west_shared_grid_hold(g);
		if (resume(d, err, errlen))
			west_log(WEST_LOG_WARNING, "reload: no saved observation set "
				 "solves on the new grid: %s", err);
	}
	pthread_mutex_unlock(&d->ingest_lock);
	return st;
}

static void apply_reloadable(struct westd *d, const struct west_config *c,
			     const struct westd_live *live)
{
	struct west_solve_opts o;

	west_log_set_level((enum west_log_level)c->log_level);
	west_solve_opts_from_config(&o, c);
	west_worker_set_opts(&d->worker, &o);
	if (d->snap_on)
		west_snapwriter_set(&d->snap, (size_t)c->snapshot_keep, c->snapshot_interval);
	if (d->releases.started) {
		struct west_releases_limits lim = release_limits(c);
		west_releases_set_limits(&d->releases, &lim);
	}
	pthread_rwlock_wrlock(&d->live_lock);
	d->live = *live;
	pthread_rwlock_unlock(&d->live_lock);
	pthread_mutex_lock(&d->ingest_lock);
	d->conf = *c;
	pthread_mutex_unlock(&d->ingest_lock);
}

enum west_status westd_reload(struct westd *d, char *err, size_t errlen)
{
	struct west_config *c = malloc(sizeof *c);
	struct west_shared_grid *g = NULL;
	struct westd_live live;
	enum west_status st;

	if (!c)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "reload: out of memory");
	st = read_config(d, c, err, errlen);
	if (!st)
		st = west_config_check_reload(&d->conf, c, err, errlen);
	if (!st)
		st = make_live(c, &live, err, errlen);
	if (!st && terrain_changed(d, c)) {
		st = load_grid(d, c, &g, err, errlen);
		if (!st)
			st = swap_grid(d, g, c, err, errlen);
		if (!st)
			terrain_stamp(c->terrain, &d->terrain_size, &d->terrain_mtime_ns);
		west_shared_grid_release(g);
	}
	if (!st)
		apply_reloadable(d, c, &live);
	free(c);
	return st;
}

/* ----------------------------------------------------------------- spool */

/* Read path whole (at most max bytes) into a malloc'd buffer. */
static enum west_status slurp(const char *path, long long max, char **buf, size_t *len,
			      char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct stat sb;

	*buf = NULL;
	if (!f)
		return west_fail(err, errlen, WEST_ERR_IO, "%s: %s", path, strerror(errno));
	if (fstat(fileno(f), &sb)) {
		fclose(f);
		return west_fail(err, errlen, WEST_ERR_IO, "%s: %s", path, strerror(errno));
	}
	if (sb.st_size > max) {
		fclose(f);
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: %lld bytes, more than max_body_bytes = %lld", path,
				 (long long)sb.st_size, max);
	}
	*buf = malloc((size_t)sb.st_size + 1);
	*len = *buf ? fread(*buf, 1, (size_t)sb.st_size, f) : 0;
	fclose(f);
	if (!*buf)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "%s: out of memory", path);
	return WEST_OK;
}

static int ends_with_csv(const char *path)
{
	size_t n = strlen(path);
	return n >= 4 && strcasecmp(path + n - 4, ".csv") == 0;
}

/* One spool file: ingest it, move it to done/ or failed/. */
static void spool_take(struct westd *d, const char *path)
{
	char err[WEST_ERRLEN], err2[WEST_ERRLEN];
	struct westd_ingest in;
	struct westd_live live;
	char *buf;
	size_t len = 0;
	enum west_status st;

	westd_live(d, &live);
	st = slurp(path, live.max_body_bytes, &buf, &len, err, sizeof err);
	if (!st)
		st = westd_ingest(d, buf, len, ends_with_csv(path), WEST_SOURCE_SPOOL, &in,
				  err, sizeof err);
	else
		west_metrics_rejected(&d->metrics, WEST_SOURCE_SPOOL, WEST_REJECT_INVALID);
	free(buf);
	if (!st) {
		west_log(WEST_LOG_INFO, "spool: %s accepted as observation set %llu", path, in.id);
		st = west_spool_done(&d->spool, path, err2, sizeof err2);
	} else {
		west_log(WEST_LOG_WARNING, "spool: %s refused: %s", path, err);
		st = west_spool_failed(&d->spool, path, err, err2, sizeof err2);
	}
	if (st)
		west_log(WEST_LOG_ERR, "spool: %s", err2);
}

void westd_spool_drain(struct westd *d)
{
	char path[WEST_CONF_PATH_MAX + 512], err[WEST_ERRLEN];
	int found = 1;

	/* a file that cannot be moved would come back forever: bound the loop */
	for (int n = 0; d->spool.dir && found && n < 10000; n++) {
		if (west_spool_next(&d->spool, path, sizeof path, &found, err, sizeof err)) {
			west_log(WEST_LOG_ERR, "spool: %s", err);
			return;
		}
		if (found)
			spool_take(d, path);
	}
}

/* ------------------------------------------------------------- readiness */

int westd_partitions(const struct westd *d)
{
	struct west_solve_opts o;
	west_solve_opts_from_config(&o, &d->conf);
	return o.partitions > 1 ? o.partitions : 1;
}

int westd_ready(struct westd *d, char *why, size_t whylen)
{
	struct west_published *p = west_store_acquire(&d->store);
	struct westd_live live;
	int ok = 1;

	westd_live(d, &live);
	if (!p) {
		snprintf(why, whylen, "no field yet: POST /v1/observations or drop a file "
			 "in the spool directory");
		return 0;
	}
	double age = (double)westd_field_age(p, westd_now());
	if (live.max_field_age > 0 && age > live.max_field_age) {
		char vt[32];
		west_obs_time_format(p->field.valid_time, vt, sizeof vt);
		snprintf(why, whylen, "field v%llu is %.0f s old (valid time %s), more than "
			 "max_field_age = %g s", p->version, age, vt, live.max_field_age);
		ok = 0;
	}
	west_published_release(p);
	return ok;
}

/* ------------------------------------------------------- MPI ranks */

/*
 * Another rank's part of a terrain reload (rank 0's worker ordered it,
 * change_grid in worker.c): the terrain of c loaded and uploaded, then
 * every rank says whether it could; all take the new grid into *g, or all
 * keep the old one (uploaded again here).  Ends every rank when the old
 * grid does not go up again.
 */
static void rank_regrid(struct westd *d, struct west_shared_grid **g, const struct west_config *c,
			struct west_field *f)
{
	struct west_shared_grid *n = NULL;
	char err[WEST_ERRLEN];
	int me = west_ranks_me();
	enum west_status st = load_grid(d, c, &n, err, sizeof err);

	if (!st)
		st = d->be->upload_terrain(d->state, &n->g, err, sizeof err);
	if (st)
		west_log(WEST_LOG_ERR, "rank %d: the new terrain %s: %s", me, c->terrain, err);
	if (west_ranks_all(!st)) {
		west_shared_grid_release(*g);
		d->grid = *g = n;
		d->conf = *c;
		west_field_shape(f, &n->g);
		return;
	}
	west_shared_grid_release(n);
	if (d->be->upload_terrain(d->state, &(*g)->g, err, sizeof err)) {
		west_log(WEST_LOG_ERR, "rank %d: the old terrain does not upload again: %s", me,
			 err);
		west_ranks_abort(1);
	}
	west_log(WEST_LOG_NOTICE, "rank %d: keeping the old terrain", me);
}

int westd_rank_serve(struct westd *d)
{
	struct west_shared_grid *g = NULL;
	struct west_obs_set set = { 0 };
	struct west_solve_opts o;
	struct west_field f = { 0 };
	struct west_config *c = malloc(sizeof *c);
	char err[WEST_ERRLEN];
	int me = west_ranks_me();
	enum west_ranks_order order;
	sigset_t stop;

	/* rank 0 decides when to stop (it may be in a solve that needs this
	 * rank): a signal mpirun passes on is left to it */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM), sigaddset(&stop, SIGINT), sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	/* the backend rank 0 takes (config backend: cpu, or cuda on each
	 * rank's GPU), for this rank's slab */
	if (!c)
		west_fail(err, sizeof err, WEST_ERR_NOMEM, "out of memory");
	if (!c || load_grid(d, &d->conf, &g, err, sizeof err) ||
	    (d->grid = g, open_backend(d, err, sizeof err))) {
		west_log(WEST_LOG_ERR, "rank %d: %s", me, err);
		west_ranks_abort(1);
	}
	west_field_shape(&f, &g->g);   /* the slab's own is in the partition set */
	west_log(WEST_LOG_NOTICE, "rank %d: solving with rank 0", me);
	while ((order = west_ranks_wait(&set, &o, c, err, sizeof err)) != WEST_RANKS_STOP)
		if (order == WEST_RANKS_GRID)
			rank_regrid(d, &g, c, &f);
		else if (d->be->run(d->state, &set, &o, &f, NULL, NULL, err, sizeof err)) {
			/* rank 0 may be waiting for this one: end them all */
			west_log(WEST_LOG_ERR, "rank %d: %s", me, err);
			west_ranks_abort(1);
		}
	free(c);
	west_field_free(&f);
	west_obs_set_free(&set);
	d->be->free(d->state);
	d->state = NULL, d->grid = NULL;
	west_shared_grid_release(g);
	west_log(WEST_LOG_NOTICE, "rank %d: stopped", me);
	return 0;
}
