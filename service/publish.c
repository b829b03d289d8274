/*
 * publish.c: the store of published fields (publish.h): versioning, the
 * swap of the current field, and reference counting.
 */
#include "publish.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

void west_store_init(struct west_store *s)
{
	memset(s, 0, sizeof *s);
	pthread_mutex_init(&s->lock, NULL);
}

void west_store_free(struct west_store *s)
{
	for (int i = 0; i < WEST_STORE_KEEP; i++)
		west_published_release(s->keep[i]);
	pthread_mutex_destroy(&s->lock);
	memset(s, 0, sizeof *s);
}

struct west_shared_grid *west_shared_grid_new(struct west_grid *g)
{
	struct west_shared_grid *sg = calloc(1, sizeof *sg);
	if (!sg)
		return NULL;
	sg->g = *g;
	memset(g, 0, sizeof *g);
	atomic_init(&sg->refs, 1);
	return sg;
}

struct west_shared_grid *west_shared_grid_hold(struct west_shared_grid *sg)
{
	atomic_fetch_add_explicit(&sg->refs, 1, memory_order_relaxed);
	return sg;
}

void west_shared_grid_release(struct west_shared_grid *sg)
{
	if (!sg || atomic_fetch_sub_explicit(&sg->refs, 1, memory_order_acq_rel) != 1)
		return;
	west_grid_free(&sg->g);
	free(sg);
}

struct west_published *west_published_new(struct west_field *field,
					  struct west_obs_set *obs,
					  struct west_shared_grid *sgrid)
{
	struct west_published *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->field = *field;
	p->obs = *obs;
	p->sgrid = west_shared_grid_hold(sgrid);
	p->grid = &sgrid->g;
	memset(field, 0, sizeof *field);
	memset(obs, 0, sizeof *obs);
	atomic_init(&p->refs, 1);
	return p;
}

unsigned long long west_store_publish(struct west_store *s, struct west_published *p)
{
	struct west_published *dropped;
	unsigned long long v;

	p->published_at = (long long)time(NULL);
	pthread_mutex_lock(&s->lock);
	v = p->version = ++s->last_version;
	dropped = s->keep[WEST_STORE_KEEP - 1];
	memmove(&s->keep[1], &s->keep[0], (WEST_STORE_KEEP - 1) * sizeof s->keep[0]);
	s->keep[0] = p;
	pthread_mutex_unlock(&s->lock);
	west_published_release(dropped);
	return v;
}

/* keep[i] with a reference taken, under the lock; NULL when empty. */
static struct west_published *take(struct west_published *p)
{
	if (p)
		atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
	return p;
}

struct west_published *west_store_acquire(struct west_store *s)
{
	pthread_mutex_lock(&s->lock);
	struct west_published *p = take(s->keep[0]);
	pthread_mutex_unlock(&s->lock);
	return p;
}

struct west_published *west_store_acquire_version(struct west_store *s,
						  unsigned long long v)
{
	struct west_published *p = NULL;
	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < WEST_STORE_KEEP && !p; i++)
		if (s->keep[i] && s->keep[i]->version == v)
			p = take(s->keep[i]);
	pthread_mutex_unlock(&s->lock);
	return p;
}

unsigned long long west_store_version(struct west_store *s)
{
	pthread_mutex_lock(&s->lock);
	unsigned long long v = s->last_version;
	pthread_mutex_unlock(&s->lock);
	return v;
}

void west_published_release(struct west_published *p)
{
	if (!p || atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1)
		return;
	west_field_free(&p->field);
	west_obs_set_free(&p->obs);
	west_shared_grid_release(p->sgrid);
	free(p);
}
