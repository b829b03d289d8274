/*
 * test_obsstore.c: the observation store (service/obsstore.h) and
 * west_obs_to_json.
 *
 * Round trip: parse(to_json(set)) must give back every field of every
 * station bit for bit (doubles compared with ==, their sign too, NaN with
 * NaN), for sets parsed from JSON (lon/lat projected, inv_L with and
 * without z0, z0 with a class, offsets in times, ids with JSON's special
 * characters) and for sets made by hand with awkward doubles and a station
 * off the grid.  Ids are printable ASCII by the readers' rule (obs.c,
 * west_obs_check_id), so no set holds a non-ASCII id; one test pins that.
 *
 * Store: every test gets a fresh mkdtemp directory under /tmp; the store
 * is its sub-directory "obs", which open creates.  The teardown removes
 * both.  Files on disk are checked by listing the directory, so a leftover
 * temp file or an extra .json shows.  A failed save is provoked with
 * RLIMIT_FSIZE (as test_snapshot.c does) and with a read-only directory;
 * the latter is skipped under root, whom permissions do not stop
 * (CAP_DAC_OVERRIDE).
 *
 * The grid is the extent and CRS of data/default.asc, built by hand (96 x 80
 * cells of 100 m from (500000, 4650000), WGS 84 / UTM zone 33N), as in
 * test_obs.c.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "log_capture.h"
#include "model_fixture.h"
#include "obs.h"
#include "obsstore.h"

#define SEQ1 "00000000000000000001.json"
#define SEQ2 "00000000000000000002.json"
#define SEQ3 "00000000000000000003.json"
#define SEQ4 "00000000000000000004.json"

static struct west_grid grid;
static struct west_obs_opts opts;
static struct west_obs_set a, b, c, got;
static struct west_obsstore store;
static char top[64], dir[96], err[WEST_ERRLEN];

/* ============================================================ fixtures */

static void setup(void)
{
	memset(&grid, 0, sizeof grid);
	grid.nx = 96, grid.ny = 80, grid.nz = 1;
	grid.dx = grid.dy = 100.0;
	grid.x0 = FIX_X0, grid.y0 = FIX_Y0;
	snprintf(grid.crs.grid_mapping_name, sizeof grid.crs.grid_mapping_name,
		 "transverse_mercator");
	grid.crs.has_tm = 1;
	grid.crs.lon0 = 15.0, grid.crs.k0 = 0.9996, grid.crs.false_easting = 500000.0;
	opts = (struct west_obs_opts){ .grid = &grid, .max_stations = 100 };
	memset(&store, 0, sizeof store);
	store.dirfd = -1;
	snprintf(top, sizeof top, "/tmp/test_obsstore.XXXXXX");
	cr_assert_not_null(mkdtemp(top), "mkdtemp: %s", strerror(errno));
	snprintf(dir, sizeof dir, "%s/obs", top);
	err[0] = '\0';
}

/* Remove the files in d, then d (the tests make no deeper trees). */
static void remove_dir(const char *d)
{
	DIR *h = opendir(d);
	struct dirent *e;
	char p[PATH_MAX];

	while (h && (e = readdir(h)) != NULL) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof p, "%s/%s", d, e->d_name);
			unlink(p);
		}
	}
	if (h)
		closedir(h);
	rmdir(d);
}

static void teardown(void)
{
	west_obsstore_close(&store);
	west_obs_set_free(&a);
	west_obs_set_free(&b);
	west_obs_set_free(&c);
	west_obs_set_free(&got);
	chmod(dir, 0700);
	remove_dir(dir);
	remove_dir(top);
	log_release();
}

TestSuite(obs_to_json, .init = setup, .fini = teardown);
TestSuite(obsstore, .init = setup, .fini = teardown);

/* The names in dir but "." and "..", sorted, joined by one space. */
static const char *entries(const char *d)
{
	static char names[1024];
	struct dirent **list;
	int n = scandir(d, &list, NULL, alphasort);

	cr_assert_geq(n, 0, "scandir %s: %s", d, strerror(errno));
	names[0] = '\0';
	for (int k = 0; k < n; k++) {
		if (strcmp(list[k]->d_name, ".") && strcmp(list[k]->d_name, ".."))
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
				 names[0] ? " " : "", list[k]->d_name);
		free(list[k]);
	}
	free(list);
	return names;
}

static void put_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* valid_time = the latest station time, the set's invariant. */
static void set_valid_time(struct west_obs_set *s)
{
	s->valid_time = s->obs[0].time;
	for (size_t i = 1; i < s->n; i++)
		if (s->obs[i].time > s->valid_time)
			s->valid_time = s->obs[i].time;
}

/* Two stations, told apart from other sets by `speed`. */
static void make_set(struct west_obs_set *s, double speed)
{
	fix_obs(s, "N1", 1234.5, 2345.25, 10.0, speed, 250.0, WEST_STAB_D);
	fix_obs(s, "N2", 8000.125, 100.0 / 3.0, 2.5, speed / 3.0, 0.0, WEST_STAB_F);
	s->obs[1].z0 = 0.03;
	s->obs[1].time += 600;
	set_valid_time(s);
}

static void open_store(size_t keep)
{
	cr_assert_eq(west_obsstore_open(&store, dir, keep, err, sizeof err), WEST_OK,
		     "%s", err);
}

static unsigned long long save(const struct west_obs_set *s)
{
	unsigned long long seq = 0;

	cr_assert_eq(west_obsstore_save(&store, s, &seq, err, sizeof err), WEST_OK,
		     "%s", err);
	return seq;
}

/* ============================================================ comparison */

/* Equal as bits would say for our values: NaN with NaN, -0 apart from 0. */
static int same_double(double x, double y)
{
	if (isnan(x) || isnan(y))
		return isnan(x) && isnan(y);
	return x == y && !signbit(x) == !signbit(y);
}

#define SAME_D(f) cr_assert(same_double(p->f, q->f), "station %zu (%s): " #f \
			    ": %.17g became %.17g", i, p->id, p->f, q->f)

static void assert_same_set(const struct west_obs_set *x, const struct west_obs_set *y)
{
	cr_assert_eq(y->n, x->n, "%zu stations became %zu", x->n, y->n);
	cr_assert_eq(y->valid_time, x->valid_time);
	for (size_t i = 0; i < x->n; i++) {
		const struct west_obs *p = &x->obs[i], *q = &y->obs[i];
		cr_assert_str_eq(q->id, p->id);
		SAME_D(x);
		SAME_D(y);
		SAME_D(height);
		SAME_D(speed);
		SAME_D(direction);
		SAME_D(inv_L);
		SAME_D(z0);
		cr_assert_eq(q->time, p->time, "station %zu: time", i);
		cr_assert_eq(q->stability, p->stability, "station %zu: stability", i);
		cr_assert_eq(q->outside, p->outside, "station %zu: outside", i);
	}
}

static void parse_ok(const char *doc, struct west_obs_set *s)
{
	cr_assert_eq(west_obs_parse_json(doc, strlen(doc), &opts, s, err, sizeof err),
		     WEST_OK, "%s", err);
}

/* to_json, dumped with flags, parsed back into got. */
static enum west_status reparse(const struct west_obs_set *s, size_t flags)
{
	json_t *j = west_obs_to_json(s);
	char *text;
	enum west_status st;

	cr_assert_not_null(j);
	text = json_dumps(j, flags);
	json_decref(j);
	cr_assert_not_null(text);
	west_obs_set_free(&got);
	st = west_obs_parse_json(text, strlen(text), &opts, &got, err, sizeof err);
	free(text);
	return st;
}

static void assert_round_trip(const struct west_obs_set *s)
{
	static const size_t flags[] = {
		0, JSON_COMPACT | JSON_REAL_PRECISION(17), JSON_INDENT(2) | JSON_SORT_KEYS,
	};

	for (size_t k = 0; k < sizeof flags / sizeof *flags; k++) {
		cr_assert_eq(reparse(s, flags[k]), WEST_OK, "flags %#zx: %s", flags[k], err);
		assert_same_set(s, &got);
	}
}

/* ============================================================ to_json */

static const char parsed_doc[] =
	"{\"observations\": ["
	" {\"id\": \"LL\", \"lon\": 15.0682874, \"lat\": 42.0609885, \"height\": 10,"
	"  \"speed\": 4.5, \"direction\": 250, \"time\": \"2026-11-22T12:00:00Z\"},"
	" {\"id\": \"LL2\", \"lon\": 15.05, \"lat\": 42.062, \"height\": 3.3,"
	"  \"speed\": 0, \"direction\": 360, \"time\": \"2026-11-22T13:30:00.75+02:00\","
	"  \"inv_L\": 0.015, \"z0\": 1},"
	" {\"id\": \"inv_L only\", \"x\": 501000.1, \"y\": 4651000.7, \"height\": 0.1,"
	"  \"speed\": 99.99, \"direction\": -0.0, \"time\": \"1999-12-31t23:59:59z\","
	"  \"inv_L\": -0.0123456789012345678},"
	" {\"id\": \"z0 + class\", \"x\": 509600, \"y\": 4658000, \"height\": 2,"
	"  \"speed\": 1e-7, \"direction\": 0.1, \"time\": \"2026-11-22T12:00:00Z\","
	"  \"stability\": \"b\", \"z0\": 0.0003},"
	" {\"id\": \"q\\\"u\\\\o/t{e}[s],:\", \"x\": 505000, \"y\": 4655000, \"height\": 10,"
	"  \"speed\": 3, \"direction\": 90, \"time\": \"2026-11-22T12:00:00-05:30\"},"
	" {\"id\": \"~!@#$%^&*()_+`'<>?\", \"x\": 505001, \"y\": 4655001, \"height\": 10,"
	"  \"speed\": 3, \"direction\": 90, \"time\": \"2026-11-22T12:00:00Z\","
	"  \"stability\": \"F\"}"
	"]}";

Test(obs_to_json, parsed_set_round_trips_field_by_field)
{
	parse_ok(parsed_doc, &a);
	cr_assert_eq(a.n, 6);
	/* the fixture covers what it claims */
	cr_assert(!isnan(a.obs[1].inv_L) && !isnan(a.obs[1].z0));
	cr_assert(!isnan(a.obs[2].inv_L) && isnan(a.obs[2].z0));
	cr_assert(isnan(a.obs[3].inv_L) && !isnan(a.obs[3].z0));
	cr_assert(signbit(a.obs[2].direction), "-0.0 was not kept by the parser");
	cr_assert_str_eq(a.obs[4].id, "q\"u\\o/t{e}[s],:");
	assert_round_trip(&a);
}

Test(obs_to_json, hand_made_set_round_trips_field_by_field)
{
	make_set(&a, 7.25);
	fix_obs(&a, "tiny", 1e-9, nextafter(0.0, 1.0), nextafter(1.0, 2.0),
		nextafter(100.0, 0.0), nextafter(360.0, 0.0), WEST_STAB_A);
	a.obs[2].inv_L = 1.0 / 3.0;
	a.obs[2].stability = west_stability_golder(1.0 / 3.0, 0.1); /* as the parser */
	a.obs[2].time = -2208988800LL; /* 1900-01-01T00:00:00Z */
	set_valid_time(&a);
	assert_round_trip(&a);
}

Test(obs_to_json, outside_is_recomputed_from_the_grid)
{
	make_set(&a, 5.0);
	a.obs[0].x = FIX_X0 - 0.5;
	a.obs[0].outside = 1;
	opts.allow_outside = 1;
	assert_round_trip(&a);
	opts.allow_outside = 0;
	cr_assert_eq(reparse(&a, 0), WEST_ERR_INVALID, "an off-grid station was accepted");
	cr_assert_not_null(strstr(err, "outside the grid"), "%s", err);
}

Test(obs_to_json, writes_exactly_the_schema_fields)
{
	json_t *j, *st;
	const char *key;
	json_t *v;
	size_t k = 0;
	static const char *const want[] = {
		"id", "x", "y", "height", "speed", "direction", "time", "inv_L", "z0",
	};

	parse_ok(parsed_doc, &a);
	j = west_obs_to_json(&a);
	cr_assert_not_null(j);
	cr_assert_eq(json_object_size(j), 1);
	st = json_array_get(json_object_get(j, "observations"), 1);
	cr_assert_eq(json_object_size(st), sizeof want / sizeof *want);
	json_object_foreach(st, key, v) {
		cr_assert_str_eq(key, want[k], "key %zu", k);
		k++;
	}
	cr_assert_str_eq(json_string_value(json_object_get(st, "time")),
			 "2026-11-22T11:30:00Z");
	st = json_array_get(json_object_get(j, "observations"), 3);
	cr_assert_str_eq(json_string_value(json_object_get(st, "stability")), "B");
	cr_assert_null(json_object_get(st, "inv_L"));
	json_decref(j);
}

/* The readers refuse non-ASCII ids, so the store never meets one; if that
 * ever changes, add such ids to the round trips above. */
Test(obs_to_json, unicode_ids_never_reach_the_store)
{
	static const char doc[] = "{\"observations\": [{\"id\": \"Z\\u00fcrich\", "
		"\"x\": 505000, \"y\": 4655000, \"height\": 10, \"speed\": 3, "
		"\"direction\": 90, \"time\": \"2026-11-22T12:00:00Z\"}]}";

	cr_assert_eq(west_obs_parse_json(doc, strlen(doc), &opts, &a, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_assert_not_null(strstr(err, "printable ASCII"), "%s", err);
}

/* ============================================================ store */

Test(obsstore, save_three_reopen_load_newest_and_list)
{
	unsigned long long seqs[8] = { 0 }, seq = 0;
	size_t n = 0;
	struct stat sb;

	make_set(&a, 1.0);
	make_set(&b, 2.0);
	make_set(&c, 3.0);
	open_store(0);
	cr_assert_eq(save(&a), 1);
	cr_assert_eq(save(&b), 2);
	cr_assert_eq(save(&c), 3);
	cr_assert_str_eq(entries(dir), SEQ1 " " SEQ2 " " SEQ3);
	cr_assert_eq(stat(dir, &sb), 0);
	cr_assert(S_ISDIR(sb.st_mode));
	cr_assert_eq(sb.st_mode & 0027, 0, "directory mode %o", (unsigned)sb.st_mode);
	west_obsstore_close(&store);
	open_store(0);
	cr_assert_eq(store.last, 3);
	cr_assert_eq(west_obsstore_load_newest(&store, &opts, &got, &seq, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_eq(seq, 3);
	assert_same_set(&c, &got);
	cr_assert_eq(west_obsstore_list(&store, seqs, 8, &n, err, sizeof err), WEST_OK);
	cr_assert_eq(n, 3);
	cr_assert_eq(seqs[0], 3);
	cr_assert_eq(seqs[1], 2);
	cr_assert_eq(seqs[2], 1);
	cr_assert_eq(west_obsstore_list(&store, seqs, 2, &n, err, sizeof err), WEST_OK);
	cr_assert_eq(n, 2);
	cr_assert_eq(seqs[1], 2);
}

Test(obsstore, saved_file_is_an_observations_document)
{
	char path[256];
	struct stat sb;

	parse_ok(parsed_doc, &a);
	open_store(0);
	save(&a);
	snprintf(path, sizeof path, "%s/" SEQ1, dir);
	cr_assert_eq(west_obs_load(path, &opts, &got, err, sizeof err), WEST_OK, "%s", err);
	assert_same_set(&a, &got);
	cr_assert_eq(stat(path, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0640, "file mode %o", (unsigned)sb.st_mode);
}

Test(obsstore, keep_two_leaves_the_two_newest)
{
	unsigned long long seqs[8] = { 0 };
	size_t n = 0;

	make_set(&a, 1.0);
	open_store(2);
	save(&a);
	save(&a);
	cr_assert_str_eq(entries(dir), SEQ1 " " SEQ2);
	save(&a);
	cr_assert_str_eq(entries(dir), SEQ2 " " SEQ3);
	cr_assert_eq(west_obsstore_list(&store, seqs, 8, &n, err, sizeof err), WEST_OK);
	cr_assert_eq(n, 2);
	cr_assert_eq(seqs[0], 3);
	cr_assert_eq(seqs[1], 2);
}

Test(obsstore, sequence_continues_after_reopen)
{
	make_set(&a, 1.0);
	make_set(&b, 4.0);
	open_store(2);
	save(&a);
	save(&a);
	save(&a);
	west_obsstore_close(&store);
	open_store(2);
	cr_assert_eq(save(&b), 4);
	cr_assert_str_eq(entries(dir), SEQ3 " " SEQ4);
}

Test(obsstore, empty_store_loads_none)
{
	unsigned long long seq = 99, seqs[2];
	size_t n = 99;

	open_store(0);
	cr_assert_str_eq(entries(top), "obs", "open did not create the directory");
	cr_assert_eq(west_obsstore_load_newest(&store, &opts, &got, &seq, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_eq(seq, 0);
	cr_assert_eq(got.n, 0);
	cr_assert_null(got.obs);
	cr_assert_eq(west_obsstore_list(&store, seqs, 2, &n, err, sizeof err), WEST_OK);
	cr_assert_eq(n, 0);
}

Test(obsstore, corrupt_newest_is_skipped_with_a_warning)
{
	unsigned long long seq = 0;
	char path[256];

	make_set(&a, 1.0);
	make_set(&b, 2.0);
	open_store(0);
	save(&a);
	save(&b);
	put_file(SEQ2, "{\"observations\": [{\"id\": \"trunc");
	log_capture();
	cr_assert_eq(west_obsstore_load_newest(&store, &opts, &got, &seq, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_eq(seq, 1);
	assert_same_set(&a, &got);
	snprintf(path, sizeof path, "%s/" SEQ2, dir);
	cr_assert_not_null(strstr(log_text(), path), "no warning naming %s: %s", path, log_buf);
	cr_assert_not_null(strstr(log_buf, "warning"), "%s", log_buf);
	cr_assert_eq(save(&b), 3, "the corrupt file's number was reused");
}

Test(obsstore, nothing_readable_is_an_error_not_none)
{
	unsigned long long seq = 99;
	enum west_status st;

	make_set(&a, 1.0);
	open_store(0);
	save(&a);
	save(&a);
	put_file(SEQ1, "garbage");
	put_file(SEQ2, "");
	log_capture();
	st = west_obsstore_load_newest(&store, &opts, &got, &seq, err, sizeof err);
	cr_assert_eq(st, WEST_ERR_INVALID, "status %d: %s", st, err);
	cr_assert_eq(seq, 0);
	cr_assert_eq(got.n, 0);
	cr_assert_not_null(strstr(err, dir), "%s", err);
	cr_assert_not_null(strstr(err, "none of the 2"), "%s", err);
	cr_assert_not_null(strstr(err, SEQ2), "the newest file is not named: %s", err);
}

Test(obsstore, save_over_the_file_size_limit_leaves_nothing)
{
	struct rlimit old, small;
	enum west_status st;
	unsigned long long seq = 77;

	parse_ok(parsed_doc, &a);
	open_store(0);
	save(&a);
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 256;
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &small), 0, "%s", strerror(errno));
	st = west_obsstore_save(&store, &a, &seq, err, sizeof err);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &old), 0, "%s", strerror(errno));
	cr_assert_eq(st, WEST_ERR_IO, "status %d: %s", st, err);
	cr_assert_eq(seq, 77, "*seq set by a failed save");
	cr_assert_not_null(strstr(err, dir), "the path is not named: %s", err);
	cr_assert_not_null(strstr(err, SEQ2), "the file is not named: %s", err);
	cr_assert_not_null(strstr(err, strerror(EFBIG)), "no errno text: %s", err);
	cr_assert_str_eq(entries(dir), SEQ1, "left behind");
	cr_assert_eq(save(&a), 2, "the failed save used up a number");
}

Test(obsstore, save_into_a_read_only_directory_leaves_nothing)
{
	enum west_status st;

	if (geteuid() == 0) {
		remove_dir(top); /* a skipped test gets no teardown */
		cr_skip_test("running as root, which permissions do not stop");
	}
	make_set(&a, 1.0);
	open_store(0);
	save(&a);
	cr_assert_eq(chmod(dir, 0500), 0, "%s", strerror(errno));
	st = west_obsstore_save(&store, &a, NULL, err, sizeof err);
	cr_assert_eq(chmod(dir, 0750), 0, "%s", strerror(errno));
	cr_assert_eq(st, WEST_ERR_IO, "status %d: %s", st, err);
	cr_assert_not_null(strstr(err, dir), "%s", err);
	cr_assert_not_null(strstr(err, strerror(EACCES)), "%s", err);
	cr_assert_str_eq(entries(dir), SEQ1, "left behind");
}

Test(obsstore, stray_files_are_ignored_and_temp_leftovers_removed)
{
	unsigned long long seqs[4] = { 0 }, seq = 99;
	size_t n = 99;
	const char *strays = "0.json 00000000000000000000.json "
		"000000000000000000001.json 0000000000000000000x.json "
		"99999999999999999999.json README";
	const char *after = "0.json 00000000000000000000.json "
		"000000000000000000001.json " SEQ2 " 0000000000000000000x.json "
		"99999999999999999999.json README";

	cr_assert_eq(mkdir(dir, 0750), 0);
	put_file("README", "not a set");
	put_file(".00000000000000000002.json.tmp.Ab12Zz", "{\"observations\": [");
	put_file(".00000000000000000001.json.tmp.abcdef", "");
	put_file("0.json", "x");
	put_file("00000000000000000000.json", "x");
	put_file("000000000000000000001.json", "x");
	put_file("0000000000000000000x.json", "x");
	put_file("99999999999999999999.json", "x"); /* > ULLONG_MAX */
	open_store(1);
	cr_assert_str_eq(entries(dir), strays);
	cr_assert_eq(west_obsstore_list(&store, seqs, 4, &n, err, sizeof err), WEST_OK);
	cr_assert_eq(n, 0);
	cr_assert_eq(west_obsstore_load_newest(&store, &opts, &got, &seq, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_eq(seq, 0);
	make_set(&a, 1.0);
	cr_assert_eq(save(&a), 1);
	cr_assert_eq(save(&a), 2);
	cr_assert_eq(west_obsstore_list(&store, seqs, 4, &n, err, sizeof err), WEST_OK);
	cr_assert_eq(n, 1);
	cr_assert_eq(seqs[0], 2);
	cr_assert_str_eq(entries(dir), after, "a stray file was removed or added");
}

Test(obsstore, largest_number_continues_and_ends)
{
	enum west_status st;

	make_set(&a, 1.0);
	cr_assert_eq(mkdir(dir, 0750), 0);
	put_file("18446744073709551614.json", "x");
	open_store(0);
	cr_assert_eq(save(&a), ULLONG_MAX);
	st = west_obsstore_save(&store, &a, NULL, err, sizeof err);
	cr_assert_eq(st, WEST_ERR_INVALID, "status %d: %s", st, err);
	cr_assert_not_null(strstr(err, "used up"), "%s", err);
}

Test(obsstore, second_open_of_one_directory_is_refused)
{
	struct west_obsstore other = { .dirfd = -1 };
	enum west_status st;

	open_store(0);
	st = west_obsstore_open(&other, dir, 0, err, sizeof err);
	cr_assert_eq(st, WEST_ERR_IO, "status %d: %s", st, err);
	cr_assert_not_null(strstr(err, "in use"), "%s", err);
	cr_assert_null(other.dir, "a refused store is left open");
	west_obsstore_close(&store);
	cr_assert_eq(west_obsstore_open(&other, dir, 0, err, sizeof err), WEST_OK, "%s", err);
	west_obsstore_close(&other);
}

Test(obsstore, open_failures_name_the_directory)
{
	char bad[160];
	enum west_status st;

	snprintf(bad, sizeof bad, "%s/no/such", top);
	st = west_obsstore_open(&store, bad, 0, err, sizeof err);
	cr_assert_eq(st, WEST_ERR_IO, "status %d: %s", st, err);
	cr_assert_not_null(strstr(err, bad), "%s", err);
	cr_assert_not_null(strstr(err, strerror(ENOENT)), "%s", err);
	cr_assert_str_eq(entries(top), "", "open created something");
	snprintf(bad, sizeof bad, "%s/file", top);
	cr_assert_eq(close(creat(bad, 0600)), 0);
	st = west_obsstore_open(&store, bad, 0, err, sizeof err);
	cr_assert_eq(st, WEST_ERR_IO, "status %d: %s", st, err);
	cr_assert_not_null(strstr(err, strerror(ENOTDIR)), "%s", err);
}

Test(obsstore, empty_set_is_refused)
{
	struct west_obs_set none = { 0 };
	enum west_status st;

	open_store(0);
	st = west_obsstore_save(&store, &none, NULL, err, sizeof err);
	cr_assert_eq(st, WEST_ERR_INVALID, "status %d: %s", st, err);
	cr_assert_not_null(strstr(err, dir), "%s", err);
	cr_assert_str_eq(entries(dir), "");
}
