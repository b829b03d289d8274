/*
 * worker.c: the compute worker (worker.h): the thread's loop, coalescing
 * submits into one pending set, and the solve-and-publish of each set.
 */
#include "worker.h"

#include <assert.h>
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "ranks.h"

/* Solve set (the caller's id) on the worker's backend; publish the field
 * or count the error. */
static void solve(struct west_worker *w, struct west_obs_set *set, unsigned long long id)
{
	char err[WEST_ERRLEN] = "";
	struct west_field f;
	struct west_published *p = NULL;
	struct west_solve_opts o;
	enum west_status st;

	pthread_mutex_lock(&w->lock);
	o = w->opts;
	pthread_mutex_unlock(&w->lock);
	st = w->pool ? west_field_pool_get(w->pool, &f, &w->grid->g, err, sizeof err)
		     : west_field_init(&f, &w->grid->g, err, sizeof err);
	if (!st)   /* under mpirun the other ranks solve it with this one */
		st = west_ranks_order_solve(set, &o, err, sizeof err);
	if (!st)
		st = w->be->run(w->state, set, &o, &f, NULL, NULL, err, sizeof err);
	if (!st && !(p = west_published_new(&f, set, w->grid)))
		st = west_fail(err, sizeof err, WEST_ERR_NOMEM, "worker: out of memory");

	/* Publish under the worker's lock, so that submit's version count
	 * sees the running solve either before or after, never half-way; a
	 * held set once its submitter has released it (worker.h), or not at
	 * all if it was dropped. */
	pthread_mutex_lock(&w->lock);
	while (w->held_id == id)
		pthread_cond_wait(&w->wake, &w->lock);
	if (w->dropped_id == id) {
		w->dropped_id = 0;
		w->st.running_id = 0;
		pthread_mutex_unlock(&w->lock);
		west_published_release(p);   /* p, or f and set, freed */
		west_field_free(&f);
		west_obs_set_free(set);
		return;
	}
	if (p) {
		p->obs_id = id;
		atomic_fetch_add(&p->refs, 1);  /* for the hook, below */
		west_store_publish(w->store, p);
		w->st.solved++;
		w->st.last_solve_seconds = p->field.report.total_seconds;
	} else {
		w->st.failed++;
		memcpy(w->st.last_error, err, sizeof err);
	}
	w->st.running_id = 0;
	pthread_mutex_unlock(&w->lock);

	if (!p)
		west_log(WEST_LOG_ERR, "solve of observation set %llu failed: %s", id, err);
	if (p && w->hooks.published)
		w->hooks.published(w->hooks.ctx, p);
	else if (!p && w->hooks.failed)
		w->hooks.failed(w->hooks.ctx, id, err);
	west_published_release(p);    /* the hook's reference */
	west_field_free(&f);          /* a no-op once published */
	west_obs_set_free(set);
}

/* The pool's idle buffers made for grid g now, on the worker's thread, so
 * that the first fields cost what later ones do; a failure only logged
 * (fields then allocate as they come). */
static void fill_pool(struct west_worker *w, const struct west_grid *g)
{
	char err[WEST_ERRLEN];
	if (w->pool && west_field_pool_fill(w->pool, g, err, sizeof err))
		west_log(WEST_LOG_WARNING, "worker: %s", err);
}

/* Upload set_grid's request on this thread (the lock held on entry and
 * exit, released while the backend works). */
static void change_grid(struct west_worker *w)
{
	struct west_shared_grid *g = w->new_grid;
	char err[WEST_ERRLEN] = "", err2[WEST_ERRLEN];
	enum west_status st;

	pthread_mutex_unlock(&w->lock);
	if (west_ranks_count() > 1)   /* the other ranks load it beside this one */
		west_ranks_order_grid(w->new_conf);
	st = w->be->upload_terrain(w->state, &g->g, err, sizeof err);
	if (west_ranks_count() > 1 && !west_ranks_all(!st) && !st)
		st = west_fail(err, sizeof err, WEST_ERR_INVALID, "another MPI rank could not "
			       "load or upload the new terrain (its log says why)");
	if (st && w->be->upload_terrain(w->state, &w->grid->g, err2, sizeof err2))
		west_log(WEST_LOG_ERR, "worker: the old grid does not upload again "
			 "either: %s", err2);
	if (!st)
		fill_pool(w, &g->g);
	pthread_mutex_lock(&w->lock);
	if (!st) {
		west_shared_grid_release(w->grid);
		w->grid = west_shared_grid_hold(g);
	}
	w->new_grid_status = st;
	memcpy(w->new_grid_err, err, sizeof err);
	w->new_grid = NULL;
	pthread_cond_broadcast(&w->idle);
}

static void *loop(void *arg)
{
	struct west_worker *w = arg;
	struct west_obs_set set;
	unsigned long long id;

	/* Below the HTTP threads: a solve that takes every core must not
	 * starve the readers.  Linux nice values are per thread, and the
	 * OpenMP threads this thread starts inherit it. */
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), WEST_WORKER_NICE))
		west_log(WEST_LOG_DEBUG, "worker: cannot lower its priority: %s",
			 strerror(errno));

	fill_pool(w, &w->grid->g);
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->stop && !w->st.pending_id && !w->new_grid)
			pthread_cond_wait(&w->wake, &w->lock);
		if (w->stop)
			break;
		if (w->new_grid) {
			change_grid(w);
			continue;
		}
		set = w->pending;
		memset(&w->pending, 0, sizeof w->pending);
		id = w->st.running_id = w->st.pending_id;
		w->st.pending_id = 0;
		pthread_mutex_unlock(&w->lock);
		solve(w, &set, id);
		pthread_mutex_lock(&w->lock);
		pthread_cond_broadcast(&w->idle);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

enum west_status west_worker_start(struct west_worker *w, const struct west_backend *be,
				   void *state, struct west_shared_grid *g,
				   const struct west_solve_opts *o, struct west_store *store,
				   const struct west_worker_hooks *hooks, unsigned pool_keep,
				   char *err, size_t errlen)
{
	int rc;

	memset(w, 0, sizeof *w);
	w->be = be, w->state = state, w->store = store, w->opts = *o;
	if (hooks)
		w->hooks = *hooks;
	if (pool_keep &&
	    !(w->pool = west_field_pool_new(be->host ? be->host : &west_host_malloc, pool_keep)))
		return west_fail(err, errlen, WEST_ERR_NOMEM, "worker: out of memory");
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	pthread_cond_init(&w->idle, NULL);
	w->grid = west_shared_grid_hold(g);
	rc = pthread_create(&w->thread, NULL, loop, w);
	if (rc) {
		west_field_pool_release(w->pool);
		west_shared_grid_release(w->grid);
		pthread_cond_destroy(&w->idle);
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "worker: cannot start the compute thread: %s", strerror(rc));
	}
	return WEST_OK;
}

/* Drop the pending set, under the lock; returns its id (0: none). */
static unsigned long long drop_pending(struct west_worker *w)
{
	unsigned long long id = w->st.pending_id;
	if (id) {
		west_obs_set_free(&w->pending);
		w->st.superseded++;
		w->st.pending_id = 0;
	}
	return id;
}

/* Queue set as the pending one; a held one keeps the set it replaces
 * aside (worker.h).  Returns the superseded id (0: none, or held). */
static unsigned long long submit(struct west_worker *w, struct west_obs_set *set,
				 unsigned long long id, unsigned long long *version, int held)
{
	unsigned long long old = 0;

	pthread_mutex_lock(&w->lock);
	assert(!w->held_id);   /* released before the next submit */
	if (version)   /* a dropped solve publishes nothing */
		*version = west_store_version(w->store) +
			   (w->st.running_id && w->st.running_id != w->dropped_id ? 2 : 1);
	if (held) {
		w->held_id = id;
		w->held_prev = w->pending, w->held_prev_id = w->st.pending_id;
	} else {
		old = drop_pending(w);
	}
	w->pending = *set;
	w->st.pending_id = id;
	w->st.submitted++;
	pthread_cond_broadcast(&w->wake);
	pthread_mutex_unlock(&w->lock);
	memset(set, 0, sizeof *set);
	return old;
}

unsigned long long west_worker_submit(struct west_worker *w, struct west_obs_set *set,
				      unsigned long long id, unsigned long long *version)
{
	return submit(w, set, id, version, 0);
}

void west_worker_submit_held(struct west_worker *w, struct west_obs_set *set,
			     unsigned long long id, unsigned long long *version)
{
	submit(w, set, id, version, 1);
}

unsigned long long west_worker_release(struct west_worker *w, int keep)
{
	unsigned long long id, old = 0;

	pthread_mutex_lock(&w->lock);
	id = w->held_id;
	assert(id);
	w->held_id = 0;
	if (keep) {
		if ((old = w->held_prev_id)) {
			west_obs_set_free(&w->held_prev);
			w->st.superseded++;
		}
	} else {
		w->st.submitted--;
		if (w->st.pending_id == id) {   /* not started: gone */
			west_obs_set_free(&w->pending);
			w->st.pending_id = 0;
		} else {                        /* running: its field is dropped */
			w->dropped_id = id;
		}
		if (w->held_prev_id) {          /* the replaced set is pending again */
			w->pending = w->held_prev;
			w->st.pending_id = w->held_prev_id;
		}
	}
	memset(&w->held_prev, 0, sizeof w->held_prev);
	w->held_prev_id = 0;
	pthread_cond_broadcast(&w->wake);
	pthread_cond_broadcast(&w->idle);
	pthread_mutex_unlock(&w->lock);
	return old;
}

enum west_status west_worker_set_grid(struct west_worker *w, struct west_shared_grid *g,
				      const struct west_config *c, char *err, size_t errlen)
{
	enum west_status st;

	pthread_mutex_lock(&w->lock);
	while (w->new_grid)     /* another reload's request */
		pthread_cond_wait(&w->idle, &w->lock);
	drop_pending(w);
	w->new_grid = g, w->new_conf = c;
	pthread_cond_broadcast(&w->wake);
	while (w->new_grid == g)
		pthread_cond_wait(&w->idle, &w->lock);
	st = w->new_grid_status;
	if (st)
		west_fail(err, errlen, st, "%s", w->new_grid_err);
	pthread_mutex_unlock(&w->lock);
	return st;
}

void west_worker_set_opts(struct west_worker *w, const struct west_solve_opts *o)
{
	pthread_mutex_lock(&w->lock);
	w->opts = *o;
	pthread_mutex_unlock(&w->lock);
}

void west_worker_stats(struct west_worker *w, struct west_worker_stats *out)
{
	pthread_mutex_lock(&w->lock);
	*out = w->st;
	pthread_mutex_unlock(&w->lock);
}

void west_worker_wait_idle(struct west_worker *w)
{
	pthread_mutex_lock(&w->lock);
	while (w->st.pending_id || w->st.running_id)
		pthread_cond_wait(&w->idle, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

void west_worker_stop(struct west_worker *w)
{
	pthread_mutex_lock(&w->lock);
	drop_pending(w);
	w->stop = 1;
	pthread_cond_broadcast(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	west_field_pool_release(w->pool);   /* freed once the last field is */
	west_shared_grid_release(w->grid);
	pthread_cond_destroy(&w->idle);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
}
