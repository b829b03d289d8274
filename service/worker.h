/*
 * worker.h: the compute worker (docs/design.md section 2): one thread that
 * owns the backend (so the GPU context lives on it), solves observation sets
 * on the resident grid and publishes each field in a store (publish.h).
 *
 * Coalescing: west_worker_submit never waits for a solve.  A set submitted
 * while a solve runs becomes the pending set; a newer submit replaces it
 * and the replaced set counts as superseded (the caller, which owns ingest
 * ids and persistence, keeps it in the history).  When a solve ends the
 * worker takes the pending set: a burst of submits gives one solve, on the
 * newest set.  A solve that fails publishes nothing: the previous field
 * keeps being served, and the error is counted and kept for /v1/status.
 *
 * Versions: submit says which field version the set will be published
 * as, if every solve before it succeeds (a failed solve publishes nothing,
 * so later sets come out one version earlier) and no newer submit
 * supersedes it (the newer set then takes that version).  A held set
 * already dropped (below) counts for none, even while it is still solved.
 *
 * Grid: the worker holds a reference on the grid it solves on and gives
 * one to each field it publishes.  west_worker_set_grid (a terrain reload)
 * uploads a new grid on the worker's thread, between two solves.
 *
 * Hooks, called on the worker's thread outside its locks: published after
 * each publish (the snapshot writer, metrics, readiness), failed after
 * each failed solve.  Either may be NULL.
 *
 * The backend state and the store must outlive the worker.  All functions
 * but start may be called from any thread.
 */
#ifndef WEST_WORKER_H
#define WEST_WORKER_H

#include <pthread.h>

#include "backend.h"
#include "model.h"
#include "publish.h"

/* The compute thread's nice value (and its OpenMP threads'). */
#define WEST_WORKER_NICE 10

struct west_worker_stats {
	unsigned long long submitted, solved, superseded, failed;
	unsigned long long running_id, pending_id;  /* 0: none */
	double last_solve_seconds;                  /* the last success's run */
	char last_error[WEST_ERRLEN];               /* "" until a solve fails */
};

struct west_worker_hooks {
	void (*published)(void *ctx, struct west_published *p);
	void (*failed)(void *ctx, unsigned long long id, const char *err);
	void *ctx;
};

struct west_worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake, idle;
	const struct west_backend *be;
	void *state;
	struct west_shared_grid *grid;       /* one reference */
	struct west_store *store;
	struct west_solve_opts opts;
	struct west_worker_hooks hooks;
	struct west_obs_set pending;
	/* the held set's id until released, the set it replaced (kept aside)
	 * and the id of a held set dropped while it was being solved */
	unsigned long long held_id, held_prev_id, dropped_id;
	struct west_obs_set held_prev;
	struct west_shared_grid *new_grid;   /* set_grid's request, until done, */
	const struct west_config *new_conf;  /* and its configuration */
	enum west_status new_grid_status;
	char new_grid_err[WEST_ERRLEN];
	int stop;
	struct west_worker_stats st;
	struct west_field_pool *pool;        /* the fields' buffers, or NULL */
};

/* Start the thread; be must have state with g's terrain uploaded.  The
 * worker takes a reference on g; hooks may be NULL.  pool_keep > 0: the
 * fields are solved into buffers of a field pool over be's host memory
 * (fieldpool.h) keeping that many idle; 0: each field is allocated. */
enum west_status west_worker_start(struct west_worker *w, const struct west_backend *be,
				   void *state, struct west_shared_grid *g,
				   const struct west_solve_opts *o, struct west_store *store,
				   const struct west_worker_hooks *hooks, unsigned pool_keep,
				   char *err, size_t errlen);

/*
 * Queue *set (taken over, zeroed in the caller's hands) under the caller's
 * id (> 0) for a solve; returns the id of the pending set it superseded,
 * or 0.  *version (when not NULL) gets the version the set will be
 * published as (see above).
 */
unsigned long long west_worker_submit(struct west_worker *w, struct west_obs_set *set,
				      unsigned long long id, unsigned long long *version);
/*
 * A held submit (the daemon stores a set while it is solved): queued as
 * west_worker_submit queues it, and solved at once, but its field is not
 * published (nor its failure counted) and the pending set it replaces is
 * kept aside, until west_worker_release says whether the caller keeps it.
 * Keep: the field is published when solved, the replaced set superseded,
 * and release returns its id (0: none).  Not: the set, or its field, is
 * dropped as if never submitted, and the replaced set is pending again.
 * One held set at a time: release it before the next submit.
 */
void west_worker_submit_held(struct west_worker *w, struct west_obs_set *set,
			     unsigned long long id, unsigned long long *version);
unsigned long long west_worker_release(struct west_worker *w, int keep);

/*
 * Solve on g from now on: waits for the running solve, drops the pending
 * set (superseded: it was checked against the old grid) and uploads g on
 * the worker's thread.  Under mpirun the other ranks load the terrain of
 * c, g's configuration, and upload their slabs' grid (ranks.h), and all
 * take the new grid only if every rank could.  On failure the old grid is
 * uploaded again and kept, and err says why.
 */
enum west_status west_worker_set_grid(struct west_worker *w, struct west_shared_grid *g,
				      const struct west_config *c, char *err, size_t errlen);

/* Solve options for the solves that start from now on (config reload). */
void west_worker_set_opts(struct west_worker *w, const struct west_solve_opts *o);

void west_worker_stats(struct west_worker *w, struct west_worker_stats *out);

/* Wait until no set is pending or being solved. */
void west_worker_wait_idle(struct west_worker *w);

/* Let the running solve finish, drop the pending set (superseded), join. */
void west_worker_stop(struct west_worker *w);

#endif
