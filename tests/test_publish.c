/*
 * test_publish.c: the store of published fields (service/publish.c): versions
 * in publication order, pinning a kept version, a held field outliving its
 * removal from the store, and readers in threads that never see a field
 * mixed from two solves while the writer publishes (the asan build turns
 * a use after free into a failure).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "model_fixture.h"
#include "publish.h"

static struct west_shared_grid *sgrid;

static void setup(void)
{
	struct west_grid g;

	fix_grid(&g, 6, 5, 100.0, 4, 10.0, 0.0, 1.0);
	cr_assert_not_null(sgrid = west_shared_grid_new(&g));
}

static void teardown(void)
{
	west_shared_grid_release(sgrid);
}

/* A field whose every u, v, w face holds `value`, from a set of
 * `stations` stations. */
static struct west_published *filled(float value, size_t stations)
{
	struct west_field f;
	struct west_obs_set obs = { 0 };
	char err[WEST_ERRLEN];

	cr_assert_eq(west_field_init(&f, &sgrid->g, err, sizeof err), WEST_OK, "%s", err);
	for (size_t i = 0; i < west_grid_nxfaces(&sgrid->g); i++)
		f.u[i] = value;
	for (size_t i = 0; i < west_grid_nyfaces(&sgrid->g); i++)
		f.v[i] = value;
	for (size_t i = 0; i < west_grid_nzfaces(&sgrid->g); i++)
		f.w[i] = value;
	for (size_t s = 0; s < stations; s++)
		fix_obs(&obs, "S", 100.0, 100.0, 10.0, value, 270.0, 3);
	struct west_published *p = west_published_new(&f, &obs, sgrid);
	cr_assert_not_null(p);
	cr_assert_null(f.u, "the entry owns the field now");
	return p;
}

/* 1 when every face of p holds the same value, and its set has the
 * station count filled() gave that value. */
static int consistent(const struct west_published *p)
{
	float v0 = p->field.u[0];
	for (size_t i = 0; i < west_grid_nxfaces(&sgrid->g); i++)
		if (p->field.u[i] != v0)
			return 0;
	for (size_t i = 0; i < west_grid_nzfaces(&sgrid->g); i++)
		if (p->field.w[i] != v0)
			return 0;
	return p->obs.n == (size_t)v0 % 3 + 1;
}

Test(publish, versions_and_pinning, .init = setup, .fini = teardown)
{
	struct west_store s;
	west_store_init(&s);
	cr_assert_null(west_store_acquire(&s));
	cr_assert_eq(west_store_version(&s), 0);
	for (int n = 1; n <= WEST_STORE_KEEP + 2; n++)
		cr_assert_eq(west_store_publish(&s, filled((float)n, (size_t)n % 3 + 1)),
			     (unsigned long long)n);

	struct west_published *cur = west_store_acquire(&s);
	cr_assert_not_null(cur);
	cr_assert_eq(cur->version, WEST_STORE_KEEP + 2);
	cr_assert_eq(cur->field.u[3], (float)(WEST_STORE_KEEP + 2));
	cr_assert_gt(cur->published_at, 1700000000);
	/* the oldest kept version can be pinned; older ones are gone */
	struct west_published *old = west_store_acquire_version(&s, 3);
	cr_assert_not_null(old);
	cr_assert_eq(old->field.v[0], 3.0f);
	cr_assert_null(west_store_acquire_version(&s, 2));
	cr_assert_null(west_store_acquire_version(&s, WEST_STORE_KEEP + 3));
	west_published_release(old);
	west_published_release(cur);
	west_store_free(&s);
}

Test(publish, held_field_outlives_the_store, .init = setup, .fini = teardown)
{
	struct west_store s;
	west_store_init(&s);
	west_store_publish(&s, filled(1.0f, 2));
	struct west_published *p = west_store_acquire(&s);
	for (int n = 2; n <= WEST_STORE_KEEP + 3; n++)
		west_store_publish(&s, filled((float)n, (size_t)n % 3 + 1));
	cr_assert_null(west_store_acquire_version(&s, 1), "dropped from the store");
	west_store_free(&s);
	/* the reader's reference still holds the whole entry */
	cr_assert_eq(p->version, 1);
	cr_assert(consistent(p));
	west_published_release(p);
	west_published_release(NULL);
}

struct reader {
	struct west_store *s;
	atomic_int *stop;
	atomic_long reads;
	long mixed, backwards;
};

static void *read_loop(void *arg)
{
	struct reader *r = arg;
	unsigned long long last = 0;
	while (!atomic_load(r->stop)) {
		struct west_published *p = west_store_acquire(r->s);
		if (!p)
			continue;
		atomic_fetch_add(&r->reads, 1);
		r->mixed += !consistent(p) || p->field.u[0] != (float)p->version;
		r->backwards += p->version < last;
		last = p->version;
		west_published_release(p);
	}
	return NULL;
}

Test(publish, readers_never_see_a_mixed_field, .init = setup, .fini = teardown)
{
	enum { READERS = 4, PUBLISHES = 300 };
	struct west_store s;
	atomic_int stop;
	pthread_t t[READERS];
	struct reader r[READERS];

	west_store_init(&s);
	atomic_init(&stop, 0);
	for (int i = 0; i < READERS; i++) {
		r[i] = (struct reader){ .s = &s, .stop = &stop };
		atomic_init(&r[i].reads, 0);
		cr_assert_eq(pthread_create(&t[i], NULL, read_loop, &r[i]), 0);
	}
	/* the first field, then wait until every reader reads, so that the
	 * publishes below overlap the reads even on a loaded machine */
	west_store_publish(&s, filled(1.0f, 2));
	for (int i = 0; i < READERS; i++)
		while (atomic_load(&r[i].reads) == 0)
			sched_yield();
	for (int n = 2; n <= PUBLISHES; n++) {
		west_store_publish(&s, filled((float)n, (size_t)n % 3 + 1));
		sched_yield();
	}
	atomic_store(&stop, 1);
	long reads = 0;
	for (int i = 0; i < READERS; i++) {
		cr_assert_eq(pthread_join(t[i], NULL), 0);
		cr_expect_eq(r[i].mixed, 0, "reader %d saw %ld mixed fields", i, r[i].mixed);
		cr_expect_eq(r[i].backwards, 0, "reader %d went back %ld times", i,
			     r[i].backwards);
		reads += atomic_load(&r[i].reads);
	}
	cr_expect_gt(reads, 0, "the readers read something");
	cr_expect_eq(west_store_version(&s), PUBLISHES);
	west_store_free(&s);
}
