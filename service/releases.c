/*
 * releases.c: the store of release plumes and its runner (releases.h).
 *
 * The store keeps its entries in one array, oldest first; ids only grow,
 * so the queue (the entries in state queued) is run from the front of the
 * array: first posted, first run.  The runner takes the oldest queued
 * entry under the lock, marks it running, and runs it without the lock;
 * the model's progress calls take the lock briefly to record the
 * simulated time done and read the stop flag.  When the run returns, the
 * result (or the error) goes into the entry and its state changes under
 * the lock; the field it ran on is released after, outside the lock (the
 * last release of a field may free it).
 */
#include "releases.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "log.h"
#include "worker.h"

/* The runner's nice value: below the compute worker's. */
#define RELEASE_NICE (WEST_WORKER_NICE + 5)
/* The runner applies retention at least this often (s). */
#define PRUNE_EVERY 60

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const char *west_release_state_name(enum west_release_state s)
{
	static const char *const names[] = { "queued", "running", "done", "failed" };
	return (unsigned)s < WEST_RELEASE_NSTATES ? names[s] : "unknown";
}

/* ------------------------------------------------------------- entries */

static void entry_free(struct west_release_entry *e)
{
	west_published_release(e->field);
	west_plume_result_free(&e->res);
	west_shared_grid_release(e->grid);
	free(e);
}

void west_releases_put(struct west_release_entry *e)
{
	if (e && atomic_fetch_sub(&e->refs, 1) == 1)
		entry_free(e);
}

/* The bytes a result holds. */
static size_t result_bytes(const struct west_plume_result *r)
{
	return sizeof(struct west_release_entry) + 2 * r->nx * r->ny * sizeof(float) +
	       r->npath * sizeof *r->path;
}

static double max_of(const float *v, size_t n)
{
	double m = 0;

	for (size_t k = 0; v && k < n; k++)
		if (v[k] > m)
			m = v[k];
	return m;
}

/* e's members into info, under the lock. */
static void info_of(const struct west_release_entry *e, struct west_release_info *info)
{
	memset(info, 0, sizeof *info);
	info->id = e->id, info->field_version = e->field_version;
	info->ask = e->ask, info->valid_time = e->valid_time;
	info->state = e->state, info->done_seconds = e->done_seconds;
	info->created = e->created, info->started = e->started, info->finished = e->finished;
	memcpy(info->error, e->error, sizeof info->error);
	info->bytes = e->bytes;
	if (e->state == WEST_RELEASE_DONE) {
		info->particles = e->res.particles, info->outside = e->res.outside;
		info->wall_seconds = e->res.wall_seconds, info->max_conc = e->max_conc;
		info->mixing_height = e->res.mixing_height;
	}
}

/* ------------------------------------------------------------ retention */

/* Drop entry k from the array (the store's reference), under the lock. */
static void drop(struct west_releases *s, size_t k)
{
	struct west_release_entry *e = s->e[k];

	s->st.count[e->state]--;
	s->st.bytes -= e->bytes;
	memmove(&s->e[k], &s->e[k + 1], (s->n - k - 1) * sizeof *s->e);
	s->n--;
	west_releases_put(e);
}

static int finished(const struct west_release_entry *e)
{
	return e->state == WEST_RELEASE_DONE || e->state == WEST_RELEASE_FAILED;
}

/* Retention (releases.h), under the lock. */
static void prune(struct west_releases *s, double now)
{
	size_t nfin = 0;

	for (size_t k = 0; k < s->n;) {
		struct west_release_entry *e = s->e[k];
		if (finished(e) && s->lim.max_age > 0 && now - e->finished > s->lim.max_age) {
			drop(s, k);
			continue;
		}
		nfin += finished(e);
		k++;
	}
	/* the oldest finished first: the array is in posting order, and
	 * releases finish in that order */
	for (size_t k = 0; k < s->n && nfin > s->lim.keep;)
		if (finished(s->e[k]))
			drop(s, k), nfin--;
		else
			k++;
}

/* --------------------------------------------------------------- runner */

struct run_ctx {
	struct west_releases *s;
	struct west_release_entry *e;
};

static int on_progress(void *ctx, double done_seconds)
{
	struct run_ctx *c = ctx;
	int stop;

	if (c->s->yield)   /* a new field first (releases.h) */
		c->s->yield(c->s->yield_ctx);
	pthread_mutex_lock(&c->s->lock);
	c->e->done_seconds = done_seconds;
	stop = c->s->stop;
	pthread_mutex_unlock(&c->s->lock);
	return stop;
}

/* The oldest queued entry, or NULL; under the lock. */
static struct west_release_entry *next_queued(struct west_releases *s)
{
	for (size_t k = 0; k < s->n; k++)
		if (s->e[k]->state == WEST_RELEASE_QUEUED)
			return s->e[k];
	return NULL;
}

static void set_state(struct west_releases *s, struct west_release_entry *e,
		      enum west_release_state st)
{
	s->st.count[e->state]--;
	s->st.count[st]++;
	e->state = st;
}

/* Record the end of e's run (under the lock); returns the field it held. */
static struct west_published *finish(struct west_releases *s, struct west_release_entry *e,
				     enum west_status st, struct west_plume_result *res,
				     const char *err)
{
	struct west_published *p = e->field;

	e->field = NULL;
	e->finished = now_s();
	if (st == WEST_OK) {
		e->res = *res;
		e->max_conc = max_of(res->conc, res->nx * res->ny);
		e->bytes = result_bytes(res);
		s->st.bytes += e->bytes - sizeof *e;
		e->done_seconds = e->ask.r.seconds;
		set_state(s, e, WEST_RELEASE_DONE);
		s->st.done++;
	} else {
		snprintf(e->error, sizeof e->error, "%s", err);
		set_state(s, e, WEST_RELEASE_FAILED);
		s->st.failed++;
	}
	return p;
}

/* Run e (marked running by the caller), without the lock. */
static void run_one(struct west_releases *s, struct west_release_entry *e)
{
	struct run_ctx ctx = { s, e };
	struct west_plume_result res = { 0 };
	struct west_published *p = e->field;   /* held: only this thread drops it */
	char err[WEST_ERRLEN] = "";
	double t0 = now_s();
	enum west_status st;

	west_log(WEST_LOG_INFO, "release %llu: running %ld particles for %g s on field v%llu",
		 e->id, e->ask.r.particles, e->ask.r.seconds, e->field_version);
	st = s->run(p->grid, &p->field, &e->ask.r, s->kernels, on_progress, &ctx, &res, err,
		    sizeof err);
	if (st)
		west_log(WEST_LOG_WARNING, "release %llu failed: %s", e->id, err);
	else
		west_log(WEST_LOG_INFO, "release %llu done in %.3f s: %ld particles, %ld left "
			 "the domain", e->id, now_s() - t0, res.particles, res.outside);
	if (s->metrics)
		west_metrics_release(s->metrics, st == WEST_OK, now_s() - t0);
	pthread_mutex_lock(&s->lock);
	p = finish(s, e, st, &res, err);
	prune(s, now_s());
	pthread_mutex_unlock(&s->lock);
	west_published_release(p);
}

static void lower_priority(int threads)
{
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), RELEASE_NICE))
		west_log(WEST_LOG_DEBUG, "releases: cannot lower the runner's priority: %s",
			 strerror(errno));
#ifdef _OPENMP
	if (threads > 0)
		omp_set_num_threads(threads);
#else
	(void)threads;
#endif
}

static void *runner(void *arg)
{
	struct west_releases *s = arg;

	lower_priority(s->threads);
	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct west_release_entry *e;
		prune(s, now_s());
		if (s->stop)
			break;
		if (!(e = next_queued(s))) {
			struct timespec t;
			clock_gettime(CLOCK_REALTIME, &t);
			t.tv_sec += PRUNE_EVERY;
			pthread_cond_timedwait(&s->wake, &s->lock, &t);
			continue;
		}
		set_state(s, e, WEST_RELEASE_RUNNING);
		e->started = now_s();
		atomic_fetch_add(&e->refs, 1);   /* retention may not take it meanwhile */
		pthread_mutex_unlock(&s->lock);
		run_one(s, e);
		west_releases_put(e);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* ------------------------------------------------------------------ api */

enum west_status west_releases_start(struct west_releases *s,
				     __typeof__(west_plume_run) *run,
				     const struct west_kernel_ops *kernels, int threads,
				     const struct west_releases_limits *lim,
				     struct west_metrics *metrics, void (*yield)(void *ctx),
				     void *yield_ctx, char *err, size_t errlen)
{
	int rc;

	memset(s, 0, sizeof *s);
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	s->run = run, s->kernels = kernels, s->threads = threads;
	s->lim = *lim, s->metrics = metrics;
	s->yield = yield, s->yield_ctx = yield_ctx;
	rc = pthread_create(&s->thread, NULL, runner, s);
	if (rc) {
		pthread_cond_destroy(&s->wake);
		pthread_mutex_destroy(&s->lock);
		return west_fail(err, errlen, WEST_ERR_IO, "releases: cannot start the runner: %s",
				 strerror(rc));
	}
	s->started = 1;
	return WEST_OK;
}

void west_releases_stop(struct west_releases *s)
{
	if (!s->started)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_broadcast(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	while (s->n)
		drop(s, s->n - 1);
	free(s->e);
	s->e = NULL, s->cap = 0;
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	s->started = 0;
}

void west_releases_set_limits(struct west_releases *s, const struct west_releases_limits *lim)
{
	pthread_mutex_lock(&s->lock);
	s->lim = *lim;
	prune(s, now_s());
	pthread_mutex_unlock(&s->lock);
}

static int queued_count(const struct west_releases *s)
{
	return (int)s->st.count[WEST_RELEASE_QUEUED];
}

/* Room for one more entry; under the lock. */
static int reserve(struct west_releases *s)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct west_release_entry **e = realloc(s->e, cap * sizeof *e);
		if (!e)
			return -1;
		s->e = e, s->cap = cap;
	}
	return 0;
}

static struct west_release_entry *entry_new(const struct west_release_ask *ask,
					    struct west_published *p)
{
	struct west_release_entry *e = calloc(1, sizeof *e);

	if (!e)
		return NULL;
	e->ask = *ask;
	e->field = p;
	e->field_version = p->version;
	e->valid_time = p->field.valid_time;
	e->grid = west_shared_grid_hold(p->sgrid);
	e->state = WEST_RELEASE_QUEUED;
	e->created = now_s();
	e->started = e->finished = NAN;
	e->bytes = sizeof *e;
	atomic_init(&e->refs, 1);
	return e;
}

enum west_status west_releases_submit(struct west_releases *s,
				      const struct west_release_ask *ask,
				      struct west_published *p, unsigned long long *id,
				      char *err, size_t errlen)
{
	struct west_release_entry *e = NULL;
	enum west_status st = WEST_OK;

	pthread_mutex_lock(&s->lock);
	if (s->stop)
		st = west_fail(err, errlen, WEST_ERR_UNSUPPORTED, "westd is stopping");
	else if ((size_t)queued_count(s) >= s->lim.queue)
		st = west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
			       "%d releases are waiting for their run already "
			       "(releases_queue = %zu): post again when one has run",
			       queued_count(s), s->lim.queue);
	else if (reserve(s) || !(e = entry_new(ask, p)))
		st = west_fail(err, errlen, WEST_ERR_NOMEM, "out of memory for the release");
	if (!st) {
		e->id = *id = ++s->last_id;
		s->e[s->n++] = e;
		s->st.count[WEST_RELEASE_QUEUED]++;
		s->st.bytes += e->bytes;
		s->st.posted++;
		pthread_cond_broadcast(&s->wake);
	}
	pthread_mutex_unlock(&s->lock);
	if (st)
		west_published_release(p);
	return st;
}

struct west_release_entry *west_releases_hold(struct west_releases *s, unsigned long long id,
					      struct west_release_info *info)
{
	struct west_release_entry *e = NULL;

	pthread_mutex_lock(&s->lock);
	prune(s, now_s());
	for (size_t k = 0; k < s->n && !e; k++)
		if (s->e[k]->id == id)
			e = s->e[k];
	if (e) {
		atomic_fetch_add(&e->refs, 1);
		info_of(e, info);
	}
	pthread_mutex_unlock(&s->lock);
	return e;
}

enum west_status west_releases_list(struct west_releases *s, struct west_release_info **out,
				    size_t *n, char *err, size_t errlen)
{
	enum west_status st = WEST_OK;

	pthread_mutex_lock(&s->lock);
	prune(s, now_s());
	*n = s->n;
	*out = malloc((s->n ? s->n : 1) * sizeof **out);
	if (!*out)
		st = west_fail(err, errlen, WEST_ERR_NOMEM, "out of memory for the list");
	for (size_t k = 0; !st && k < s->n; k++)
		info_of(s->e[s->n - 1 - k], &(*out)[k]);
	pthread_mutex_unlock(&s->lock);
	return st;
}

void west_releases_stats(struct west_releases *s, struct west_releases_stats *out)
{
	if (!s->started) {
		memset(out, 0, sizeof *out);
		return;
	}
	pthread_mutex_lock(&s->lock);
	prune(s, now_s());
	*out = s->st;
	pthread_mutex_unlock(&s->lock);
}
