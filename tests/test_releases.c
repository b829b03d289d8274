/*
 * test_releases.c: the store of release plumes and its runner
 * (service/releases.c), with a stand-in for the model: a run function that
 * records which release it ran, waits at a gate the test opens, checks the
 * field it was given, and returns a small result (or fails, or stops when
 * the progress callback says so).
 *
 * What is tested: the queue runs in posting order, one at a time; the
 * queue's limit; retention by count and by age (the oldest finished go,
 * never a queued or running one); a failure keeps its error; a field held
 * by a release never changes while newer fields are published from the
 * same field pool (the buffer of an unheld field would be reused); stop
 * cancels the running release and drops the others, while an entry a
 * reader holds stays readable.
 */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "model_fixture.h"
#include "fieldpool.h"
#include "releases.h"

static struct west_shared_grid *sgrid;
static struct west_store store;
static struct west_releases rs;

static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int open;                /* the gate */
	unsigned long long ran[64]; /* seeds, in the order the runs started */
	int nran;
	int bad_field;           /* a run saw a field not all `want` */
	float want;              /* what every face of the fields should hold */
	int cancelled;
} fake = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 1, { 0 }, 0, 0, 0, 0 };

static void gate(int open)
{
	pthread_mutex_lock(&fake.m);
	fake.open = open;
	pthread_cond_broadcast(&fake.c);
	pthread_mutex_unlock(&fake.m);
}

/* 1 when every face of f holds v. */
static int all_are(const struct west_grid *g, const struct west_field *f, float v)
{
	for (size_t i = 0; i < west_grid_nxfaces(g); i++)
		if (f->u[i] != v)
			return 0;
	for (size_t i = 0; i < west_grid_nzfaces(g); i++)
		if (f->w[i] != v)
			return 0;
	return 1;
}

/* The stand-in model: seed 13 fails; otherwise waits at the gate (calling
 * progress, stopping when it says so), then returns conc = the seed in
 * column 0. */
static enum west_status fake_run(const struct west_grid *g, const struct west_field *f,
				 const struct west_release *r, const struct west_kernel_ops *k,
				 west_plume_progress_fn progress, void *ctx,
				 struct west_plume_result *out, char *err, size_t errlen)
{
	(void)k;
	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&fake.m);
	fake.ran[fake.nran++] = r->seed;
	while (!fake.open) {
		struct timespec t;
		pthread_mutex_unlock(&fake.m);
		if (progress(ctx, 1.0)) {
			pthread_mutex_lock(&fake.m);
			fake.cancelled++;
			pthread_mutex_unlock(&fake.m);
			return west_fail(err, errlen, WEST_ERR_INVALID, "cancelled");
		}
		pthread_mutex_lock(&fake.m);
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 5000000;
		if (t.tv_nsec >= 1000000000)
			t.tv_sec++, t.tv_nsec -= 1000000000;
		pthread_cond_timedwait(&fake.c, &fake.m, &t);
	}
	if (!all_are(g, f, fake.want))
		fake.bad_field = 1;
	pthread_mutex_unlock(&fake.m);
	if (r->seed == 13)
		return west_fail(err, errlen, WEST_ERR_INVALID, "height: 13 is unlucky");
	out->nx = g->nx, out->ny = g->ny;
	out->conc = calloc(g->nx * g->ny, sizeof *out->conc);
	out->arrival = calloc(g->nx * g->ny, sizeof *out->arrival);
	out->path = calloc(2, sizeof *out->path);
	cr_assert(out->conc && out->arrival && out->path);
	out->conc[0] = (float)r->seed;
	out->npath = 2;
	out->particles = r->particles;
	out->outside = 1;
	return WEST_OK;
}

static struct west_published *make_field(struct west_field_pool *pool, float value)
{
	struct west_field f;
	struct west_obs_set obs = { 0 };
	char err[WEST_ERRLEN];

	if (pool)
		cr_assert_eq(west_field_pool_get(pool, &f, &sgrid->g, err, sizeof err), WEST_OK);
	else
		cr_assert_eq(west_field_init(&f, &sgrid->g, err, sizeof err), WEST_OK);
	for (size_t i = 0; i < west_grid_nxfaces(&sgrid->g); i++)
		f.u[i] = value;
	for (size_t i = 0; i < west_grid_nyfaces(&sgrid->g); i++)
		f.v[i] = value;
	for (size_t i = 0; i < west_grid_nzfaces(&sgrid->g); i++)
		f.w[i] = value;
	f.valid_time = 1795348800;
	struct west_published *p = west_published_new(&f, &obs, sgrid);
	cr_assert_not_null(p);
	return p;
}

/* The runner's yield between chunks: counted. */
static int yields;
static void count_yield(void *ctx)
{
	(void)ctx;
	__atomic_fetch_add(&yields, 1, __ATOMIC_RELAXED);
}

static void start(size_t keep, double max_age, size_t queue)
{
	struct west_grid g;
	struct west_releases_limits lim = { keep, max_age, queue };
	char err[WEST_ERRLEN];

	fix_grid(&g, 6, 5, 100.0, 4, 10.0, 0.0, 1.0);
	cr_assert_not_null(sgrid = west_shared_grid_new(&g));
	west_store_init(&store);
	west_store_publish(&store, make_field(NULL, 1.0f));
	fake.open = 1, fake.nran = 0, fake.bad_field = 0, fake.want = 1.0f, fake.cancelled = 0;
	cr_assert_eq(west_releases_start(&rs, fake_run, &west_kernels_cpu, 0, &lim, NULL,
					 count_yield, NULL, err, sizeof err), WEST_OK, "%s", err);
}

static void stop(void)
{
	west_releases_stop(&rs);
	west_store_free(&store);
	west_shared_grid_release(sgrid);
}

/* Post a release of `seed` on the current field; its id. */
static unsigned long long post(unsigned long long seed)
{
	struct west_release_ask a = { .r = { .x = FIX_X0 + 250, .y = FIX_Y0 + 250, .height = 10,
					     .duration = 60, .seconds = 120, .particles = 100,
					     .seed = seed, .layer = 10 } };
	unsigned long long id = 0;
	char err[WEST_ERRLEN];

	a.lon = a.lat = NAN;
	cr_assert_eq(west_releases_submit(&rs, &a, west_store_acquire(&store), &id, err,
					  sizeof err), WEST_OK, "%s", err);
	return id;
}

static enum west_release_state state_of(unsigned long long id)
{
	struct west_release_info info;
	struct west_release_entry *e = west_releases_hold(&rs, id, &info);
	cr_assert_not_null(e, "release %llu is not kept", id);
	west_releases_put(e);
	return info.state;
}

/* Wait (10 s at most) until release id has finished; or, in a store whose
 * max_age can drop it before this poll sees it (a loaded machine), until
 * it is gone: only a finished release leaves the store. */
static void wait_finished_or_gone(unsigned long long id, int may_go)
{
	for (int n = 0; n < 2000; n++) {
		struct west_release_info info;
		struct west_release_entry *e = west_releases_hold(&rs, id, &info);
		if (!e && may_go)
			return;
		cr_assert_not_null(e, "release %llu is not kept", id);
		west_releases_put(e);
		if (info.state == WEST_RELEASE_DONE || info.state == WEST_RELEASE_FAILED)
			return;
		usleep(5000);
	}
	cr_assert_fail("release %llu did not finish within 10 s", id);
}

/* Wait (10 s at most) until release id has finished, kept. */
static void wait_finished(unsigned long long id)
{
	wait_finished_or_gone(id, 0);
}

/* Wait until release id runs. */
static void wait_running(unsigned long long id)
{
	for (int n = 0; n < 2000 && state_of(id) != WEST_RELEASE_RUNNING; n++)
		usleep(5000);
	cr_assert_eq(state_of(id), WEST_RELEASE_RUNNING);
}

Test(releases, queue_runs_in_posting_order_one_at_a_time)
{
	unsigned long long id[5];

	start(32, 0, 16);
	gate(0);
	for (int k = 0; k < 5; k++)
		id[k] = post(100 + (unsigned long long)k);
	cr_expect_eq(id[0], 1);
	cr_expect_eq(id[4], 5);
	wait_running(id[0]);
	/* between chunks (the stand-in's progress calls) the runner yields */
	for (int t = 0; t < 400 && !__atomic_load_n(&yields, __ATOMIC_RELAXED); t++)
		usleep(5000);
	cr_expect_gt(__atomic_load_n(&yields, __ATOMIC_RELAXED), 0, "no yield between chunks");
	for (int k = 1; k < 5; k++)
		cr_expect_eq(state_of(id[k]), WEST_RELEASE_QUEUED, "release %d", k);
	struct west_releases_stats st;
	west_releases_stats(&rs, &st);
	cr_expect_eq(st.count[WEST_RELEASE_RUNNING], 1);
	cr_expect_eq(st.count[WEST_RELEASE_QUEUED], 4);
	gate(1);
	wait_finished(id[4]);
	for (int k = 0; k < 5; k++) {
		cr_expect_eq(state_of(id[k]), WEST_RELEASE_DONE);
		cr_expect_eq(fake.ran[k], 100 + (unsigned long long)k, "run %d was seed %llu", k,
			     fake.ran[k]);
	}
	cr_expect_eq(fake.nran, 5);
	west_releases_stats(&rs, &st);
	cr_expect_eq(st.count[WEST_RELEASE_DONE], 5);
	cr_expect_eq(st.posted, 5);
	cr_expect_eq(st.done, 5);
	cr_expect_gt(st.bytes, 5 * 2 * 30 * sizeof(float));
	stop();
}

Test(releases, done_release_keeps_its_result_and_times)
{
	struct west_release_info info;
	struct west_release_entry *e;
	unsigned long long id;

	start(32, 0, 16);
	id = post(7);
	wait_finished(id);
	e = west_releases_hold(&rs, id, &info);
	cr_assert_not_null(e);
	cr_expect_eq(info.state, WEST_RELEASE_DONE);
	cr_expect_eq(info.field_version, 1);
	cr_expect_eq(info.particles, 100);
	cr_expect_eq(info.outside, 1);
	cr_expect_eq(info.max_conc, 7.0);
	cr_expect_eq(info.done_seconds, 120.0);
	cr_expect(info.created <= info.started && info.started <= info.finished, "%f %f %f",
		  info.created, info.started, info.finished);
	cr_expect_eq(e->res.conc[0], 7.0f);
	cr_expect_eq(e->res.npath, 2);
	west_releases_put(e);
	cr_expect_null(west_releases_hold(&rs, 99, &info), "no release 99");
	stop();
}

Test(releases, a_failure_keeps_its_error)
{
	struct west_release_info info;
	struct west_release_entry *e;
	unsigned long long id;

	start(32, 0, 16);
	id = post(13);
	wait_finished(id);
	e = west_releases_hold(&rs, id, &info);
	cr_assert_not_null(e);
	cr_expect_eq(info.state, WEST_RELEASE_FAILED);
	cr_expect_str_eq(info.error, "height: 13 is unlucky");
	cr_expect_eq(info.particles, 0);
	west_releases_put(e);
	stop();
}

Test(releases, queue_limit_refuses_without_queueing)
{
	struct west_release_ask a = { .r = { .particles = 1, .seconds = 1, .duration = 1 } };
	unsigned long long id = 0;
	char err[WEST_ERRLEN];
	struct west_releases_stats st;

	start(32, 0, 2);
	gate(0);
	wait_running(post(1));
	post(2);
	post(3);
	cr_expect_eq(west_releases_submit(&rs, &a, west_store_acquire(&store), &id, err,
					  sizeof err), WEST_ERR_UNSUPPORTED);
	cr_expect_not_null(strstr(err, "releases_queue = 2"), "%s", err);
	west_releases_stats(&rs, &st);
	cr_expect_eq(st.count[WEST_RELEASE_QUEUED], 2);
	cr_expect_eq(st.posted, 3);
	gate(1);
	wait_finished(3);
	cr_expect_eq(post(4), 4, "room again once the queue ran");
	stop();
}

Test(releases, keeps_the_newest_finished_by_count)
{
	struct west_release_info *list;
	size_t n;
	char err[WEST_ERRLEN];

	start(3, 0, 16);
	for (int k = 1; k <= 5; k++)
		post((unsigned long long)k);
	wait_finished(5);
	cr_assert_eq(west_releases_list(&rs, &list, &n, err, sizeof err), WEST_OK);
	cr_assert_eq(n, 3);
	cr_expect_eq(list[0].id, 5, "newest first");
	cr_expect_eq(list[1].id, 4);
	cr_expect_eq(list[2].id, 3);
	free(list);
	struct west_release_info info;
	cr_expect_null(west_releases_hold(&rs, 1, &info), "the oldest went");
	cr_expect_null(west_releases_hold(&rs, 2, &info));
	struct west_releases_limits lim = { 1, 0, 16 };
	west_releases_set_limits(&rs, &lim);
	cr_assert_eq(west_releases_list(&rs, &list, &n, err, sizeof err), WEST_OK);
	cr_expect_eq(n, 1, "a reload's smaller keep applies at once");
	cr_expect_eq(list[0].id, 5);
	free(list);
	stop();
}

Test(releases, finished_go_after_max_age_but_never_a_queued_one)
{
	struct west_release_info *list;
	size_t n;
	char err[WEST_ERRLEN];
	unsigned long long a, b;

	start(32, 0.3, 16);
	a = post(1);
	wait_finished_or_gone(a, 1);
	gate(0);
	b = post(2);
	wait_running(b);
	post(3);
	usleep(500000);
	cr_assert_eq(west_releases_list(&rs, &list, &n, err, sizeof err), WEST_OK);
	cr_expect_eq(n, 2, "the finished one went; the running and queued stay");
	cr_expect_eq(list[0].id, 3);
	cr_expect_eq(list[1].id, 2);
	free(list);
	gate(1);
	wait_finished_or_gone(3, 1);
	stop();
}

Test(releases, a_held_field_never_changes_while_newer_ones_are_published)
{
	struct west_field_pool *pool = west_field_pool_new(&west_host_malloc, 2);
	unsigned long long first, second;

	start(32, 0, 16);
	cr_assert_not_null(pool);
	west_store_publish(&store, make_field(pool, 1.0f));   /* v2, in a pool buffer */
	gate(0);
	first = post(1);       /* runs on v2, held at the gate */
	second = post(2);      /* queued on v2 */
	wait_running(first);
	/* more versions than the store keeps, from the same pool: a buffer
	 * given back would be taken again and overwritten */
	for (int k = 0; k < WEST_STORE_KEEP + 4; k++)
		west_store_publish(&store, make_field(pool, 50.0f + (float)k));
	cr_expect_null(west_store_acquire_version(&store, 2), "v2 left the store");
	gate(1);
	wait_finished(second);
	cr_expect_eq(fake.bad_field, 0, "a run saw its field change");
	struct west_release_info info;
	struct west_release_entry *e = west_releases_hold(&rs, second, &info);
	cr_assert_not_null(e);
	cr_expect_eq(info.field_version, 2);
	cr_expect_eq(info.state, WEST_RELEASE_DONE);
	cr_expect_null(e->field, "the field is let go once the run ended");
	west_releases_put(e);
	stop();
	west_field_pool_release(pool);
}

Test(releases, stop_cancels_the_running_and_drops_the_rest)
{
	struct west_release_info info;
	struct west_release_entry *held;
	unsigned long long a;

	start(32, 0, 16);
	gate(0);
	a = post(1);
	post(2);
	post(3);
	wait_running(a);
	held = west_releases_hold(&rs, 3, &info);
	cr_assert_not_null(held);
	cr_expect_eq(info.state, WEST_RELEASE_QUEUED);
	west_releases_stop(&rs);   /* returns: the run was cancelled, the runner joined */
	cr_expect_eq(fake.cancelled, 1);
	cr_expect_eq(fake.nran, 1, "nothing queued ran after the stop");
	cr_expect_eq(held->id, 3, "a held entry outlives the store");
	cr_expect_eq(held->ask.r.seed, 3);
	west_releases_put(held);
	gate(1);
	west_store_free(&store);
	west_shared_grid_release(sgrid);
}
