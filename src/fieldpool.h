/*
 * fieldpool.h: reusable host buffers for solved fields, so that a new field
 * costs no allocation and no page faults on the way from the solve to the
 * readers (docs/design.md section 2).
 *
 * A buffer holds one field's arrays (u, v, w, the column classes) for one
 * grid size, in memory from the host allocator the pool was made with: the
 * backend's (src/backend.h: page-locked on CUDA, which the device copies
 * straight into; malloc on the CPU).  west_field_pool_get gives a field an
 * idle buffer of the grid's size, or a new one when none is idle; the
 * field's west_field_free gives it back (from any thread: a published
 * field is freed by its last reader).  The pool keeps at most `keep` idle
 * buffers and frees the rest, and frees idle buffers of another size when
 * the grid changes.  A buffer is only reused once its field was freed, so
 * a reader holding a field never sees it change.  The pool itself lives
 * until its owner released it and every field from it was freed.
 */
#ifndef WEST_FIELDPOOL_H
#define WEST_FIELDPOOL_H

#include <stddef.h>

#include "field.h"
#include "grid.h"
#include "status.h"

/* Host memory for fields. */
struct west_host_alloc {
	void *(*alloc)(size_t bytes);   /* NULL when there is none */
	void (*free)(void *p);
	int pinned;                     /* page-locked: device copies go straight in */
};

extern const struct west_host_alloc west_host_malloc;   /* malloc, free */

struct west_field_pool;

/* A pool over allocator a keeping at most keep idle buffers; NULL when out
 * of memory. */
struct west_field_pool *west_field_pool_new(const struct west_host_alloc *a, unsigned keep);

/* The owner's release: idle buffers freed now, the pool once its last
 * field is freed.  NULL is a no-op. */
void west_field_pool_release(struct west_field_pool *p);

/* f for grid g in a buffer of the pool (contents undefined); zeroed on
 * error. */
enum west_status west_field_pool_get(struct west_field_pool *p, struct west_field *f,
				     const struct west_grid *g, char *err, size_t errlen);

/* Allocate idle buffers for grid g until `keep` are idle (idle ones of
 * another size freed first), so that the next fields allocate nothing:
 * at start and after a terrain reload.  WEST_ERR_NOMEM when the allocator
 * has no more (the buffers made so far stay). */
enum west_status west_field_pool_fill(struct west_field_pool *p, const struct west_grid *g,
				      char *err, size_t errlen);

/* f's buffer back to its pool (west_field_free calls this). */
void west_field_pool_put(struct west_field_pool *p, struct west_field *f);

struct west_field_pool_stats {
	unsigned long long made;     /* buffers allocated */
	unsigned long long reused;   /* gets served by an idle buffer */
	unsigned idle, out;          /* buffers idle now; lent to fields now */
};
void west_field_pool_stats(struct west_field_pool *p, struct west_field_pool_stats *s);

#endif
