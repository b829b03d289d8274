/*
 * test_westd.c: end-to-end tests of the real westd (tests/westd_fixture.h):
 * each endpoint's happy path and documented errors, ingest bursts, readers
 * during recomputes, reload, restart and crash recovery.
 */
#include "westd_fixture.h"

static struct westd_proc w;

static void teardown(void)
{
	fix_cleanup(&w);
}

TestSuite(westd, .fini = teardown, .timeout = 240);

Test(westd, serves_a_field_after_a_post)
{
	struct http_resp r;

	fix_start(&w, NULL);
	fix_get(&w, "/readyz", &r);
	cr_expect_eq(r.status, 503, "no field yet: %s", r.body);
	fix_resp_free(&r);
	unsigned long long v = fix_post_and_wait(&w);
	cr_expect_eq(v, 1);
	fix_get(&w, "/v1/field/point?x=504850&y=4652050&z=10", &r);
	cr_assert_eq(r.status, 200, "%s", r.body);
	json_t *j = fix_json(&r);
	cr_expect_eq(json_integer_value(json_object_get(j, "version")), 1);
	cr_expect_gt(json_real_value(json_object_get(j, "speed")), 0.5);
	json_decref(j);
	fix_resp_free(&r);
	fix_get(&w, "/readyz", &r);
	cr_expect_eq(r.status, 200, "%s", r.body);
	fix_resp_free(&r);
	cr_expect_eq(fix_stop(&w), 0);
}
