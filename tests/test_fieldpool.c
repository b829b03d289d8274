/*
 * test_fieldpool.c: the field pool (src/fieldpool.h): buffers reused only
 * once their field is freed (a reader holding a field never sees it
 * change), at most `keep` kept idle, dropped when the grid changes,
 * page-locked or not as the allocator says, an allocation failure named
 * and counted back, the pool outliving its owner until the last field is
 * freed, and gets and frees from several threads at once.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fieldpool.h"

static struct west_grid grid(size_t nx, size_t ny, size_t nz)
{
	return (struct west_grid){ .nx = nx, .ny = ny, .nz = nz };
}

static void get(struct west_field_pool *p, struct west_field *f, const struct west_grid *g)
{
	char err[WEST_ERRLEN] = "";
	cr_assert_eq(west_field_pool_get(p, f, g, err, sizeof err), WEST_OK, "%s", err);
	cr_assert(f->pool == p && f->nx == g->nx && f->ny == g->ny && f->nz == g->nz);
}

static void fill(struct west_field *f, const struct west_grid *g, float x)
{
	for (size_t i = 0; i < west_grid_nxfaces(g); i++)
		f->u[i] = x;
	for (size_t i = 0; i < west_grid_nyfaces(g); i++)
		f->v[i] = x;
	for (size_t i = 0; i < west_grid_nzfaces(g); i++)
		f->w[i] = x;
	memset(f->stability, (int)x, g->nx * g->ny);
}

static void expect_filled(const struct west_field *f, const struct west_grid *g, float x)
{
	for (size_t i = 0; i < west_grid_nxfaces(g); i++)
		cr_assert_eq(f->u[i], x, "u[%zu] %g, want %g", i, (double)f->u[i], (double)x);
	for (size_t i = 0; i < west_grid_nyfaces(g); i++)
		cr_assert_eq(f->v[i], x);
	for (size_t i = 0; i < west_grid_nzfaces(g); i++)
		cr_assert_eq(f->w[i], x);
	for (size_t i = 0; i < g->nx * g->ny; i++)
		cr_assert_eq(f->stability[i], (unsigned char)x);
}

static struct west_field_pool_stats stats(struct west_field_pool *p)
{
	struct west_field_pool_stats s;
	west_field_pool_stats(p, &s);
	return s;
}

Test(fieldpool, a_freed_buffer_is_reused)
{
	struct west_grid g = grid(7, 5, 3);
	struct west_field_pool *p = west_field_pool_new(&west_host_malloc, 2);
	struct west_field f;
	float *first;

	cr_assert_not_null(p);
	get(p, &f, &g);
	cr_assert_eq(f.pinned, 0);
	first = f.u;
	fill(&f, &g, 3);
	west_field_free(&f);
	cr_assert_null(f.u, "west_field_free zeroes the field");
	get(p, &f, &g);
	cr_assert_eq(f.u, first, "the idle buffer is taken");
	struct west_field_pool_stats s = stats(p);
	cr_assert(s.made == 1 && s.reused == 1 && s.idle == 0 && s.out == 1,
		  "made %llu reused %llu idle %u out %u", s.made, s.reused, s.idle, s.out);
	west_field_free(&f);
	west_field_pool_release(p);
}

/* A reader holds field A; fields come and go beside it: none of them
 * takes A's buffer, and A keeps its values. */
Test(fieldpool, a_held_field_never_changes)
{
	struct west_grid g = grid(9, 4, 5);
	struct west_field_pool *p = west_field_pool_new(&west_host_malloc, 1);
	struct west_field a, b;

	get(p, &a, &g);
	fill(&a, &g, 7);
	for (int n = 0; n < 5; n++) {
		get(p, &b, &g);
		cr_assert_neq(b.u, a.u, "a held buffer was lent again");
		fill(&b, &g, (float)(20 + n));
		west_field_free(&b);
	}
	expect_filled(&a, &g, 7);
	cr_assert_eq(stats(p).made, 2, "A's and one cycling buffer");
	west_field_free(&a);
	west_field_pool_release(p);
}

Test(fieldpool, at_most_keep_idle)
{
	struct west_grid g = grid(6, 6, 2);
	struct west_field_pool *p = west_field_pool_new(&west_host_malloc, 2);
	struct west_field f[4];

	for (int i = 0; i < 4; i++)
		get(p, &f[i], &g);
	for (int i = 0; i < 4; i++)
		west_field_free(&f[i]);
	struct west_field_pool_stats s = stats(p);
	cr_assert(s.made == 4 && s.idle == 2 && s.out == 0, "made %llu idle %u out %u", s.made,
		  s.idle, s.out);
	west_field_pool_release(p);
}

/* A terrain reload: idle buffers of the old size are dropped, and a field
 * of the old grid freed afterwards is not kept. */
Test(fieldpool, another_grid_drops_the_old_buffers)
{
	struct west_grid g1 = grid(8, 8, 4), g2 = grid(10, 8, 4);
	struct west_field_pool *p = west_field_pool_new(&west_host_malloc, 2);
	struct west_field a, old, b;

	get(p, &a, &g1);
	get(p, &old, &g1);
	west_field_free(&a);
	cr_assert_eq(stats(p).idle, 1);
	get(p, &b, &g2);
	struct west_field_pool_stats s = stats(p);
	cr_assert(s.made == 3 && s.reused == 0 && s.idle == 0, "made %llu reused %llu idle %u",
		  s.made, s.reused, s.idle);
	west_field_free(&old);    /* the old grid's: freed, not kept */
	cr_assert_eq(stats(p).idle, 0);
	west_field_free(&b);
	cr_assert_eq(stats(p).idle, 1);
	west_field_pool_release(p);
}

static int pinned_allocs;

static void *fake_pinned_alloc(size_t bytes)
{
	pinned_allocs++;
	return malloc(bytes);
}

static void *no_memory(size_t bytes)
{
	(void)bytes;
	return NULL;
}

Test(fieldpool, pinned_as_the_allocator_says_and_failure_named)
{
	const struct west_host_alloc pin = { fake_pinned_alloc, free, 1 }, none = { no_memory, free, 0 };
	struct west_grid g = grid(5, 5, 5);
	struct west_field_pool *p = west_field_pool_new(&pin, 1), *q = west_field_pool_new(&none, 1);
	struct west_field f;
	char err[WEST_ERRLEN] = "";

	get(p, &f, &g);
	cr_assert(f.pinned && pinned_allocs == 1);
	west_field_free(&f);
	west_field_pool_release(p);
	cr_assert_eq(west_field_pool_get(q, &f, &g, err, sizeof err), WEST_ERR_NOMEM);
	cr_assert(strstr(err, "out of memory for 125 cells") != NULL, "%s", err);
	cr_assert(f.u == NULL && f.pool == NULL);
	struct west_field_pool_stats s = stats(q);
	cr_assert(s.made == 0 && s.out == 0, "made %llu out %u", s.made, s.out);
	west_field_pool_release(q);
}

/* The owner lets go first (the worker stops while readers hold fields):
 * the fields stay good, and the last free ends the pool (a sanitizer build
 * sees a leak or a use after free). */
Test(fieldpool, outlives_its_owner)
{
	struct west_grid g = grid(4, 3, 2);
	struct west_field_pool *p = west_field_pool_new(&west_host_malloc, 2);
	struct west_field a, b;

	get(p, &a, &g);
	get(p, &b, &g);
	fill(&a, &g, 5);
	west_field_pool_release(p);
	west_field_free(&b);
	expect_filled(&a, &g, 5);
	west_field_free(&a);
}

struct churn {
	struct west_field_pool *p;
	struct west_grid g;
	int bad;
};

static void *churn(void *arg)
{
	struct churn *c = arg;
	char err[WEST_ERRLEN];
	for (int n = 0; n < 2000; n++) {
		struct west_field f;
		float x = (float)(n % 97);
		if (west_field_pool_get(c->p, &f, &c->g, err, sizeof err)) {
			c->bad++;
			continue;
		}
		fill(&f, &c->g, x);
		for (size_t i = 0; i < west_grid_nxfaces(&c->g); i++)
			c->bad += f.u[i] != x;   /* nobody else wrote into it */
		west_field_free(&f);
	}
	return NULL;
}

Test(fieldpool, threads_get_and_free_at_once)
{
	struct west_field_pool *p = west_field_pool_new(&west_host_malloc, 3);
	struct churn c[4];
	pthread_t t[4];

	for (int i = 0; i < 4; i++) {
		c[i] = (struct churn){ p, grid(6, 5, 4), 0 };
		cr_assert_eq(pthread_create(&t[i], NULL, churn, &c[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		cr_assert_eq(c[i].bad, 0, "thread %d saw %d bad values", i, c[i].bad);
	}
	struct west_field_pool_stats s = stats(p);
	cr_assert(s.made + s.reused == 8000 && s.out == 0 && s.idle <= 3,
		  "made %llu reused %llu idle %u out %u", s.made, s.reused, s.idle, s.out);
	west_field_pool_release(p);
}

/* Filled at start: the next `keep` fields allocate nothing; a fill for
 * another grid replaces the idle buffers; a fill that runs out of memory
 * says so and keeps what it made. */
Test(fieldpool, fill_makes_the_buffers_beforehand)
{
	struct west_grid g1 = grid(6, 4, 3), g2 = grid(20, 10, 3);
	struct west_field_pool *p = west_field_pool_new(&west_host_malloc, 3);
	struct west_field f[3];
	char err[WEST_ERRLEN] = "";

	cr_assert_eq(west_field_pool_fill(p, &g1, err, sizeof err), WEST_OK, "%s", err);
	struct west_field_pool_stats s = stats(p);
	cr_assert(s.made == 3 && s.idle == 3, "made %llu idle %u", s.made, s.idle);
	for (int i = 0; i < 3; i++)
		get(p, &f[i], &g1);
	s = stats(p);
	cr_assert(s.made == 3 && s.reused == 3 && s.idle == 0, "made %llu reused %llu idle %u",
		  s.made, s.reused, s.idle);
	for (int i = 0; i < 3; i++)
		west_field_free(&f[i]);
	cr_assert_eq(west_field_pool_fill(p, &g1, err, sizeof err), WEST_OK);
	cr_assert_eq(stats(p).made, 3, "a full pool makes nothing");
	cr_assert_eq(west_field_pool_fill(p, &g2, err, sizeof err), WEST_OK);
	s = stats(p);
	cr_assert(s.made == 6 && s.idle == 3, "made %llu idle %u", s.made, s.idle);
	west_field_pool_release(p);
}

static int allowed;

static void *two_only(size_t bytes)
{
	return allowed-- > 0 ? malloc(bytes) : NULL;
}

Test(fieldpool, fill_out_of_memory_is_named)
{
	const struct west_host_alloc a = { two_only, free, 0 };
	struct west_grid g = grid(5, 5, 2);
	struct west_field_pool *p = west_field_pool_new(&a, 4);
	char err[WEST_ERRLEN] = "";

	allowed = 2;
	cr_assert_eq(west_field_pool_fill(p, &g, err, sizeof err), WEST_ERR_NOMEM);
	cr_assert(strstr(err, "field pool: out of memory for an idle buffer") != NULL, "%s", err);
	cr_assert_eq(stats(p).idle, 2);
	west_field_pool_release(p);
}
