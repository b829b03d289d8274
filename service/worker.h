/*
 * worker.h: the compute worker (DESIGN.md section 2): one thread that owns
 * the backend (so the GPU context lives on it), solves observation sets on
 * the resident grid and publishes each field in a store (publish.h).
 *
 * Coalescing: west_worker_submit never waits for a solve.  A set submitted
 * while a solve runs becomes the pending set; a newer submit replaces it
 * and the replaced set counts as superseded (the caller, which owns ingest
 * ids and persistence, keeps it in the history).  When a solve ends the
 * worker takes the pending set: a burst of submits gives one solve, on the
 * newest set.  A solve that fails publishes nothing: the previous field
 * keeps being served, and the error is counted and kept for /v1/status.
 *
 * The backend state, the grid and the store must outlive the worker.  All
 * functions but start may be called from any thread.
 */
#ifndef WEST_WORKER_H
#define WEST_WORKER_H

#include <pthread.h>

#include "backend.h"
#include "model.h"
#include "publish.h"

struct west_worker_stats {
	unsigned long long submitted, solved, superseded, failed;
	unsigned long long running_id, pending_id;  /* 0: none */
	double last_solve_seconds;                  /* the last success's run */
	char last_error[WEST_ERRLEN];               /* "" until a solve fails */
};

struct west_worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake, idle;
	const struct west_backend *be;
	void *state;
	const struct west_grid *grid;
	struct west_store *store;
	struct west_solve_opts opts;
	struct west_obs_set pending;
	int stop;
	struct west_worker_stats st;
};

/* Start the thread; be must have state with g's terrain uploaded. */
enum west_status west_worker_start(struct west_worker *w, const struct west_backend *be,
				   void *state, const struct west_grid *g,
				   const struct west_solve_opts *o, struct west_store *store,
				   char *err, size_t errlen);

/*
 * Queue *set (taken over, zeroed in the caller's hands) under the caller's
 * id (> 0) for a solve; returns the id of the pending set it superseded,
 * or 0.
 */
unsigned long long west_worker_submit(struct west_worker *w, struct west_obs_set *set,
				      unsigned long long id);

/* Solve options for the solves that start from now on (config reload). */
void west_worker_set_opts(struct west_worker *w, const struct west_solve_opts *o);

void west_worker_stats(struct west_worker *w, struct west_worker_stats *out);

/* Wait until no set is pending or being solved. */
void west_worker_wait_idle(struct west_worker *w);

/* Let the running solve finish, drop the pending set (superseded), join. */
void west_worker_stop(struct west_worker *w);

#endif
