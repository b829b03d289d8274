/*
 * publish.h: the published wind fields (docs/design.md section 2), shared by
 * the daemon's compute worker (worker.h) and its readers.
 *
 * The compute worker builds a field, then publishes it: from then on it is
 * immutable, carries a version (1, 2, ... in publication order, never
 * reused) and is reference-counted.  Readers (HTTP threads, the snapshot
 * writer) acquire the current field, or a recent version still held, use
 * it for as long as a request lasts and release it; a reader never sees a
 * field that is being written, and a field is freed when the last holder
 * releases it.  The store keeps the newest WEST_STORE_KEEP fields so that
 * a client can pin one (`?version=`).
 *
 * Each field holds a reference on the grid it was solved on (struct
 * west_shared_grid): a terrain reload builds a new grid while readers may
 * still hold fields of the old one, which lives until its last field goes.
 *
 * Concurrency: publish swaps the current field under the store's mutex;
 * acquire takes the same mutex only to read the pointer and raise the
 * count (a few instructions), so readers never wait for a solve.  The
 * counts are C11 atomics; the last release frees outside any lock.
 */
#ifndef WEST_PUBLISH_H
#define WEST_PUBLISH_H

#include <pthread.h>
#include <stdatomic.h>

#include "field.h"
#include "grid.h"
#include "obs.h"
#include "status.h"

#define WEST_STORE_KEEP 8

/* A grid shared by the worker and the fields solved on it. */
struct west_shared_grid {
	struct west_grid g;
	atomic_long refs;
};

/* Take over *g (zeroed in the caller's hands) with one reference; NULL
 * when out of memory (the caller still owns *g). */
struct west_shared_grid *west_shared_grid_new(struct west_grid *g);
/* Take one more reference; returns sg. */
struct west_shared_grid *west_shared_grid_hold(struct west_shared_grid *sg);
/* Give one back; the last frees the grid (NULL is ignored). */
void west_shared_grid_release(struct west_shared_grid *sg);

struct west_published {
	struct west_field field;      /* the solved field (owned) */
	struct west_obs_set obs;      /* the observation set it was solved from (owned) */
	const struct west_grid *grid; /* the grid it was solved on (&sgrid->g) */
	struct west_shared_grid *sgrid; /* one reference, held until freed */
	unsigned long long obs_id;    /* the caller's id of obs (worker_submit) */
	unsigned long long version;   /* set by west_store_publish */
	long long published_at;       /* s since 1970-01-01T00:00:00Z */
	atomic_long refs;
};

struct west_store {
	pthread_mutex_t lock;
	struct west_published *keep[WEST_STORE_KEEP]; /* newest first; [0] current */
	unsigned long long last_version;
};

void west_store_init(struct west_store *s);
/* Release the store's references (fields still held by readers live on
 * until their last release). */
void west_store_free(struct west_store *s);

/*
 * A new, unpublished entry taking ownership of *field and *obs (both are
 * zeroed in the caller's hands) and a new reference on sgrid; NULL when
 * out of memory (then the caller still owns them).
 */
struct west_published *west_published_new(struct west_field *field,
					  struct west_obs_set *obs,
					  struct west_shared_grid *sgrid);

/* Publish p (the caller's reference passes to the store); returns its
 * version. */
unsigned long long west_store_publish(struct west_store *s, struct west_published *p);

/* The current field with a reference taken, or NULL before the first. */
struct west_published *west_store_acquire(struct west_store *s);

/* Version v with a reference taken, or NULL when it is no longer held (or
 * never was). */
struct west_published *west_store_acquire_version(struct west_store *s,
						  unsigned long long v);

/* The newest version published so far (0 before the first). */
unsigned long long west_store_version(struct west_store *s);

/* Give back a reference from acquire (NULL is ignored). */
void west_published_release(struct west_published *p);

#endif
