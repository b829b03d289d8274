/*
 * test_worker.c: the compute worker (service/worker.c) on the CPU backend:
 * a submit publishes a field solved from that set; a burst of submits
 * coalesces into fewer solves that end on the newest set, with every set
 * either solved or superseded; a failing solve publishes nothing and is
 * reported; stop with a solve running and one pending returns; a held set
 * is published only once its submitter keeps it.
 */
#include <unistd.h>

#include "model_fixture.h"
#include "worker.h"

static struct west_shared_grid *sgrid;
static struct west_store store;
static void *state;
static struct west_worker worker;

/* What the hooks saw (the worker's thread writes, the test reads after
 * wait_idle or stop). */
static struct {
	unsigned long long published, last_version, last_obs_id;
	unsigned long long failed, failed_id;
	char failed_err[WEST_ERRLEN];
} seen;

static void on_published(void *ctx, struct west_published *p)
{
	cr_assert_eq(ctx, &seen);
	seen.published++;
	seen.last_version = p->version;
	seen.last_obs_id = p->obs_id;
}

static void on_failed(void *ctx, unsigned long long id, const char *err)
{
	cr_assert_eq(ctx, &seen);
	seen.failed++;
	seen.failed_id = id;
	snprintf(seen.failed_err, sizeof seen.failed_err, "%s", err);
}

static const struct west_worker_hooks hooks = { on_published, on_failed, &seen };

/* A hill grid and a running worker on the CPU backend; `iterations` per
 * solve (tolerance 0: every solve does them all). */
static void start(long iterations)
{
	struct west_solve_opts o;
	char err[WEST_ERRLEN];

	struct west_grid g;

	memset(&seen, 0, sizeof seen);
	fix_grid(&g, 40, 36, 50.0, 12, 15.0, 60.0, 400.0);
	cr_assert_not_null(sgrid = west_shared_grid_new(&g));
	fix_opts(&o, iterations, 0.0, 1.25, WEST_INDEXING_COMPACT);
	west_store_init(&store);
	cr_assert_eq(west_backend_cpu.init(&state, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_backend_cpu.upload_terrain(state, &sgrid->g, err, sizeof err), WEST_OK,
		     "%s", err);
	cr_assert_eq(west_worker_start(&worker, &west_backend_cpu, state, sgrid, &o, &store,
				       &hooks, 2, err, sizeof err), WEST_OK, "%s", err);
}

static void finish(void)
{
	west_worker_stop(&worker);
	west_store_free(&store);
	west_backend_cpu.free(state);
	west_shared_grid_release(sgrid);
}

/* A one-station set blowing `speed` m/s from the west. */
static struct west_obs_set one_station(double speed)
{
	struct west_obs_set set = { 0 };
	fix_obs(&set, "W", 300.0, 900.0, 10.0, speed, 270.0, 3);
	return set;
}

Test(worker, submit_publishes_the_solved_set)
{
	struct west_obs_set set = one_station(6.5);
	struct west_worker_stats s;

	start(20);
	cr_assert_eq(west_worker_submit(&worker, &set, 7, NULL), 0);
	cr_assert_null(set.obs, "the worker owns the set");
	west_worker_wait_idle(&worker);
	west_worker_stats(&worker, &s);
	cr_expect_eq(s.submitted, 1);
	cr_expect_eq(s.solved, 1);
	cr_expect_eq(s.failed, 0);
	cr_expect_gt(s.last_solve_seconds, 0);
	struct west_published *p = west_store_acquire(&store);
	cr_assert_not_null(p);
	cr_expect_eq(p->version, 1);
	cr_expect_eq(p->obs.n, 1);
	cr_expect_eq(p->obs.obs[0].speed, 6.5);
	cr_expect_eq(p->field.report.iterations, 20);
	west_published_release(p);
	finish();
}

Test(worker, burst_coalesces_onto_the_newest_set)
{
	enum { N = 30 };
	struct west_worker_stats s;
	unsigned long long superseded = 0;

	start(200);
	for (int i = 1; i <= N; i++) {
		struct west_obs_set set = one_station(1.0 + i);
		superseded += west_worker_submit(&worker, &set, (unsigned long long)i, NULL) != 0;
	}
	west_worker_wait_idle(&worker);
	west_worker_stats(&worker, &s);
	cr_expect_eq(s.submitted, N);
	cr_expect_eq(s.solved + s.superseded, N, "solved %llu, superseded %llu",
		     s.solved, s.superseded);
	cr_expect_eq(s.superseded, superseded);
	cr_expect_lt(s.solved, N / 2, "a burst during solves coalesces (%llu solves)",
		     s.solved);
	struct west_published *p = west_store_acquire(&store);
	cr_assert_not_null(p);
	cr_expect_eq(p->obs.obs[0].speed, 1.0 + N, "the last field is the newest set's");
	cr_expect_eq(p->version, s.solved);
	west_published_release(p);
	finish();
}

Test(worker, failed_solve_publishes_nothing)
{
	struct west_obs_set empty = { 0 }, good = one_station(4.0);
	struct west_worker_stats s;

	start(10);
	west_worker_submit(&worker, &empty, 1, NULL);
	west_worker_wait_idle(&worker);
	west_worker_stats(&worker, &s);
	cr_expect_eq(s.failed, 1);
	cr_expect(strstr(s.last_error, "no observations") != NULL, "last error: %s",
		  s.last_error);
	cr_expect_null(west_store_acquire(&store), "nothing published");
	west_worker_submit(&worker, &good, 2, NULL);
	west_worker_wait_idle(&worker);
	west_worker_stats(&worker, &s);
	cr_expect_eq(s.solved, 1);
	cr_expect_eq(west_store_version(&store), 1);
	finish();
}

/* Wait (at most 10 s) until the worker runs set id. */
static void wait_running(unsigned long long id)
{
	struct west_worker_stats s;
	for (int n = 0; n < 10000; n++, usleep(1000)) {
		west_worker_stats(&worker, &s);
		if (s.running_id == id)
			return;
	}
	cr_assert_fail("set %llu did not start within 10 s", id);
}

Test(worker, stop_with_a_solve_running_and_one_pending)
{
	struct west_obs_set a = one_station(3.0), b = one_station(5.0);

	start(3000);
	west_worker_submit(&worker, &a, 1, NULL);
	wait_running(1);
	west_worker_submit(&worker, &b, 2, NULL);
	west_worker_stop(&worker);
	/* the running solve finished and was published; b was dropped */
	cr_expect_eq(worker.st.solved, 1);
	cr_expect_eq(worker.st.superseded, 1);
	cr_expect_eq(worker.st.pending_id, 0);
	cr_expect_eq(west_store_version(&store), 1);
	west_store_free(&store);
	west_backend_cpu.free(state);
	west_shared_grid_release(sgrid);
}

Test(worker, submit_says_the_version_and_hooks_see_each_publish)
{
	struct west_obs_set a = one_station(3.0), b = one_station(5.0),
			    c = one_station(7.0), bad = { 0 };
	unsigned long long v;
	struct west_worker_stats s;

	start(3000);
	west_worker_submit(&worker, &a, 11, &v);
	cr_expect_eq(v, 1, "idle: the next version");
	do
		west_worker_stats(&worker, &s);
	while (s.running_id != 11);
	west_worker_submit(&worker, &b, 12, &v);
	cr_expect_eq(v, 2, "behind the running solve");
	cr_expect_eq(west_worker_submit(&worker, &c, 13, &v), 12);
	cr_expect_eq(v, 2, "the superseding set takes its version");
	west_worker_wait_idle(&worker);
	cr_expect_eq(seen.published, 2);
	cr_expect_eq(seen.last_version, 2);
	cr_expect_eq(seen.last_obs_id, 13);
	struct west_published *p = west_store_acquire(&store);
	cr_assert_not_null(p);
	cr_expect_eq(p->version, 2);
	cr_expect_eq(p->obs_id, 13);
	cr_expect_eq(p->obs.obs[0].speed, 7.0);
	west_published_release(p);

	west_worker_submit(&worker, &bad, 14, &v);
	cr_expect_eq(v, 3);
	west_worker_wait_idle(&worker);
	cr_expect_eq(seen.failed, 1);
	cr_expect_eq(seen.failed_id, 14);
	cr_expect(strstr(seen.failed_err, "no observations") != NULL, "%s", seen.failed_err);
	cr_expect_eq(seen.published, 2);
	finish();
}

Test(worker, set_grid_solves_on_the_new_grid_while_old_fields_live_on)
{
	struct west_obs_set a = one_station(4.0), b = one_station(4.0);
	struct west_grid g;
	struct west_shared_grid *g2;
	char err[WEST_ERRLEN];

	start(10);
	west_worker_submit(&worker, &a, 1, NULL);
	west_worker_wait_idle(&worker);
	struct west_published *old = west_store_acquire(&store);
	cr_assert_not_null(old);

	fix_grid(&g, 24, 20, 80.0, 8, 20.0, 60.0, 300.0);
	cr_assert_not_null(g2 = west_shared_grid_new(&g));
	cr_assert_eq(west_worker_set_grid(&worker, g2, NULL, err, sizeof err), WEST_OK, "%s", err);
	west_shared_grid_release(g2);     /* the worker holds its own */
	west_worker_submit(&worker, &b, 2, NULL);
	west_worker_wait_idle(&worker);
	struct west_published *p = west_store_acquire(&store);
	cr_assert_not_null(p);
	cr_expect_eq(p->version, 2);
	cr_expect_eq(p->grid->nx, 24);
	cr_expect_eq(p->field.nx, 24);
	cr_expect_eq(p->field.nz, 8);
	cr_expect_eq(old->grid->nx, 40, "the old field keeps its grid");
	cr_expect_eq(old->field.nx, 40);
	west_published_release(p);
	finish();
	cr_expect_eq(old->grid->dx, 50.0, "still readable after the worker stopped");
	west_published_release(old);
}

/*
 * Held submits (worker.h): the field of a held set is solved at once but
 * published only when it is released and kept; a set dropped at release is
 * never published, whether it was pending or solved already, and the set
 * it replaced is pending again.  The pauses give the worker far longer
 * than these solves take (a few milliseconds), so a field it would publish
 * too early is there to see.
 */
#define SETTLE_US 300000

Test(worker, a_held_set_is_published_once_kept)
{
	struct west_obs_set set = one_station(5.5);
	struct west_worker_stats s;
	unsigned long long v;

	start(20);
	west_worker_submit_held(&worker, &set, 5, &v);
	cr_expect_eq(v, 1);
	usleep(SETTLE_US);
	cr_expect_eq(west_store_version(&store), 0, "published before it was released");
	cr_expect_eq(seen.published, 0);
	cr_expect_eq(west_worker_release(&worker, 1), 0, "nothing was replaced");
	west_worker_wait_idle(&worker);
	west_worker_stats(&worker, &s);
	cr_expect_eq(s.submitted, 1);
	cr_expect_eq(s.solved, 1);
	cr_expect_eq(seen.last_version, 1);
	cr_expect_eq(seen.last_obs_id, 5);
	finish();
}

Test(worker, a_dropped_held_set_is_never_published)
{
	struct west_obs_set set = one_station(5.5);
	struct west_worker_stats s;

	start(20);
	west_worker_submit_held(&worker, &set, 5, NULL);
	usleep(SETTLE_US);     /* solved, waiting for the release */
	cr_expect_eq(west_worker_release(&worker, 0), 0);
	west_worker_wait_idle(&worker);
	west_worker_stats(&worker, &s);
	cr_expect_eq(west_store_version(&store), 0, "a dropped set was published");
	cr_expect_eq(s.submitted, 0);
	cr_expect_eq(s.solved + s.failed + s.superseded, 0);
	cr_expect_eq(seen.published + seen.failed, 0, "the hooks saw a dropped set");
	finish();
}

/* Dropped while it is still being solved: the next set is promised the
 * version the dropped one would have had, and gets it. */
Test(worker, a_set_dropped_while_solved_takes_no_version)
{
	struct west_obs_set set = one_station(5.5), next = one_station(3.0);
	unsigned long long v;

	start(3000);
	west_worker_submit_held(&worker, &set, 5, NULL);
	wait_running(5);
	cr_expect_eq(west_worker_release(&worker, 0), 0);
	west_worker_submit(&worker, &next, 6, &v);
	cr_expect_eq(v, 1, "promised version %llu", v);
	west_worker_wait_idle(&worker);
	cr_expect_eq(seen.published, 1);
	cr_expect_eq(seen.last_version, 1);
	cr_expect_eq(seen.last_obs_id, 6);
	finish();
}

/* A long solve runs (1); set 2 waits; held set 3 replaces it.  Dropped: 2
 * is solved after 1, and 3 never; kept: 3 after 1, and 2 superseded.  (If
 * 1 ended before 2 came, 2 runs at once and 3 replaces nothing: the same
 * fields, and release returns 0.) */
static void replace_and_release(int keep)
{
	struct west_obs_set a = one_station(2.0), b = one_station(3.0), c = one_station(4.0);
	struct west_worker_stats s;
	unsigned long long old;

	start(3000);
	west_worker_submit(&worker, &a, 1, NULL);
	wait_running(1);
	west_worker_submit(&worker, &b, 2, NULL);
	west_worker_submit_held(&worker, &c, 3, NULL);
	old = west_worker_release(&worker, keep);
	west_worker_wait_idle(&worker);
	west_worker_stats(&worker, &s);
	struct west_published *p = west_store_acquire(&store);
	cr_assert_not_null(p);
	if (keep) {
		cr_expect_eq(p->obs_id, 3);
		cr_expect_eq(p->obs.obs[0].speed, 4.0);
		cr_expect_eq(old, s.superseded ? 2 : 0, "release returned %llu", old);
		cr_expect_eq(s.solved + s.superseded, 3);
	} else {
		cr_expect_eq(old, 0);
		cr_expect_eq(p->obs_id, 2, "the replaced set is solved");
		cr_expect_eq(p->obs.obs[0].speed, 3.0);
		cr_expect_eq(s.submitted, 2);
		cr_expect_eq(s.solved, 2);
		cr_expect_eq(s.superseded, 0);
	}
	west_published_release(p);
	finish();
}

Test(worker, a_dropped_held_set_gives_back_the_set_it_replaced)
{
	replace_and_release(0);
}

Test(worker, a_kept_held_set_supersedes_the_set_it_replaced)
{
	replace_and_release(1);
}
