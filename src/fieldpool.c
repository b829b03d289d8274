/*
 * fieldpool.c: reusable host buffers for solved fields (fieldpool.h).  A
 * buffer is one block: u | v | w | stability, each 256-byte aligned; the
 * field's u is the block.  One mutex guards the idle list and the counts.
 */
#include "fieldpool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void *heap_alloc(size_t bytes)
{
	return malloc(bytes);
}

const struct west_host_alloc west_host_malloc = { heap_alloc, free, 0 };

struct west_field_pool {
	pthread_mutex_t lock;
	struct west_host_alloc a;
	unsigned keep;
	void **idle;                 /* keep slots: idle buffers of `bytes` */
	unsigned nidle, out;
	size_t bytes;                /* the size of the buffers kept idle */
	int owned;                   /* the owner has not released it */
	unsigned long long made, reused;
};

#define ALIGN(n) (((n) + 255) & ~(size_t)255)

/* The block's bytes for grid g and its arrays' offsets. */
static size_t block_bytes(const struct west_grid *g, size_t off[4])
{
	size_t n[4] = { west_grid_nxfaces(g) * sizeof(float), west_grid_nyfaces(g) * sizeof(float),
			west_grid_nzfaces(g) * sizeof(float), g->nx * g->ny };
	size_t total = 0;
	for (int i = 0; i < 4; i++)
		off[i] = total, total += ALIGN(n[i]);
	return total;
}

struct west_field_pool *west_field_pool_new(const struct west_host_alloc *a, unsigned keep)
{
	struct west_field_pool *p = calloc(1, sizeof *p);
	if (!p || !(p->idle = calloc(keep ? keep : 1, sizeof *p->idle))) {
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	p->a = *a;
	p->keep = keep;
	p->owned = 1;
	return p;
}

/* Free the idle buffers (the lock held). */
static void drop_idle(struct west_field_pool *p)
{
	while (p->nidle)
		p->a.free(p->idle[--p->nidle]);
}

/* Buffers of `bytes` from now on: idle ones of another grid are of no
 * use (the lock held). */
static void for_grid(struct west_field_pool *p, size_t bytes)
{
	if (bytes != p->bytes) {
		drop_idle(p);
		p->bytes = bytes;
	}
}

static void destroy(struct west_field_pool *p)
{
	drop_idle(p);
	pthread_mutex_destroy(&p->lock);
	free(p->idle);
	free(p);
}

void west_field_pool_release(struct west_field_pool *p)
{
	int last;
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->owned = 0;
	drop_idle(p);
	last = p->out == 0;
	pthread_mutex_unlock(&p->lock);
	if (last)
		destroy(p);
}

enum west_status west_field_pool_get(struct west_field_pool *p, struct west_field *f,
				     const struct west_grid *g, char *err, size_t errlen)
{
	size_t off[4], bytes = block_bytes(g, off);
	char *block = NULL;

	memset(f, 0, sizeof *f);
	pthread_mutex_lock(&p->lock);
	for_grid(p, bytes);
	if (p->nidle) {
		block = p->idle[--p->nidle];
		p->reused++;
	} else {
		p->made++;
	}
	p->out++;
	pthread_mutex_unlock(&p->lock);
	if (!block && !(block = p->a.alloc(bytes))) {
		pthread_mutex_lock(&p->lock);
		p->out--, p->made--;
		pthread_mutex_unlock(&p->lock);
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "field: out of memory for %zu cells (%zu bytes)",
				 west_grid_ncells(g), bytes);
	}
	f->nx = g->nx, f->ny = g->ny, f->nz = g->nz;
	f->u = (float *)(block + off[0]);
	f->v = (float *)(block + off[1]);
	f->w = (float *)(block + off[2]);
	f->stability = (unsigned char *)(block + off[3]);
	f->pool = p;
	f->pinned = p->a.pinned;
	return WEST_OK;
}

enum west_status west_field_pool_fill(struct west_field_pool *p, const struct west_grid *g,
				      char *err, size_t errlen)
{
	size_t off[4], bytes = block_bytes(g, off);

	for (;;) {
		void *block;
		pthread_mutex_lock(&p->lock);
		for_grid(p, bytes);
		int full = p->nidle >= p->keep;
		pthread_mutex_unlock(&p->lock);
		if (full)
			return WEST_OK;
		if (!(block = p->a.alloc(bytes)))
			return west_fail(err, errlen, WEST_ERR_NOMEM,
					 "field pool: out of memory for an idle buffer of %zu bytes",
					 bytes);
		pthread_mutex_lock(&p->lock);
		if (p->nidle < p->keep && bytes == p->bytes) {
			p->idle[p->nidle++] = block, block = NULL;
			p->made++;
		}
		pthread_mutex_unlock(&p->lock);
		if (block)
			p->a.free(block);
	}
}

void west_field_pool_put(struct west_field_pool *p, struct west_field *f)
{
	size_t off[4];
	struct west_grid g = { .nx = f->nx, .ny = f->ny, .nz = f->nz };
	void *block = f->u;
	int last;

	pthread_mutex_lock(&p->lock);
	if (p->owned && p->nidle < p->keep && block_bytes(&g, off) == p->bytes)
		p->idle[p->nidle++] = block, block = NULL;
	p->out--;
	last = !p->owned && p->out == 0;
	pthread_mutex_unlock(&p->lock);
	if (block)
		p->a.free(block);
	if (last)
		destroy(p);
}

void west_field_pool_stats(struct west_field_pool *p, struct west_field_pool_stats *s)
{
	pthread_mutex_lock(&p->lock);
	*s = (struct west_field_pool_stats){ p->made, p->reused, p->nidle, p->out };
	pthread_mutex_unlock(&p->lock);
}
