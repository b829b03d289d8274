/*
 * worker.c: the compute worker (worker.h): the thread's loop, coalescing
 * submits into one pending set, and the solve-and-publish of each set.
 */
#include "worker.h"

#include <string.h>

#include "log.h"

/* Solve set on the worker's backend; publish the field or count the error. */
static void solve(struct west_worker *w, struct west_obs_set *set)
{
	char err[WEST_ERRLEN] = "";
	struct west_field f;
	struct west_published *p = NULL;
	struct west_solve_opts o;
	enum west_status st;

	pthread_mutex_lock(&w->lock);
	o = w->opts;
	pthread_mutex_unlock(&w->lock);
	st = west_field_init(&f, w->grid, err, sizeof err);
	if (!st)
		st = w->be->run(w->state, set, &o, &f, NULL, NULL, err, sizeof err);
	if (!st && !(p = west_published_new(&f, set)))
		st = west_fail(err, sizeof err, WEST_ERR_NOMEM, "worker: out of memory");
	if (p)
		west_store_publish(w->store, p);
	else
		west_log(WEST_LOG_ERR, "solve failed: %s", err);
	pthread_mutex_lock(&w->lock);
	if (p) {
		w->st.solved++;
		w->st.last_solve_seconds = p->field.report.total_seconds;
	} else {
		w->st.failed++;
		memcpy(w->st.last_error, err, sizeof err);
	}
	pthread_mutex_unlock(&w->lock);
	west_field_free(&f);          /* a no-op once published */
	west_obs_set_free(set);
}

static void *loop(void *arg)
{
	struct west_worker *w = arg;
	struct west_obs_set set;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->stop && !w->st.pending_id)
			pthread_cond_wait(&w->wake, &w->lock);
		if (w->stop)
			break;
		set = w->pending;
		memset(&w->pending, 0, sizeof w->pending);
		w->st.running_id = w->st.pending_id;
		w->st.pending_id = 0;
		pthread_mutex_unlock(&w->lock);
		solve(w, &set);
		pthread_mutex_lock(&w->lock);
		w->st.running_id = 0;
		pthread_cond_broadcast(&w->idle);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

enum west_status west_worker_start(struct west_worker *w, const struct west_backend *be,
				   void *state, const struct west_grid *g,
				   const struct west_solve_opts *o, struct west_store *store,
				   char *err, size_t errlen)
{
	int rc;

	memset(w, 0, sizeof *w);
	w->be = be, w->state = state, w->grid = g, w->store = store, w->opts = *o;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	pthread_cond_init(&w->idle, NULL);
	rc = pthread_create(&w->thread, NULL, loop, w);
	if (rc) {
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

unsigned long long west_worker_submit(struct west_worker *w, struct west_obs_set *set,
				      unsigned long long id)
{
	unsigned long long old;

	pthread_mutex_lock(&w->lock);
	old = drop_pending(w);
	w->pending = *set;
	w->st.pending_id = id;
	w->st.submitted++;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	memset(set, 0, sizeof *set);
	return old;
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
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->idle);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
}
