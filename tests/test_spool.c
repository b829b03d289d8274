/*
 * test_spool.c: the observation drop directory (service/spool.h).
 *
 * Every test gets a fresh mkdtemp directory `top` under /tmp; the spool is
 * its sub-directory "in" (so open has something to create), and the
 * teardown closes the spool and removes `top` whole.  Files are dropped
 * the way the protocol says (temp name, then rename) and given explicit
 * modification times with utimensat, so the order does not hang on the
 * clock.  "Nothing changed" is checked by comparing a sorted listing of
 * in/, in/done/ and in/failed/ taken before and after.
 *
 * The inotify test polls the fd with a 1 s timeout, and is skipped (with
 * the warning open logged) where inotify could not be set up.
 */
#define _GNU_SOURCE /* mkdtemp, nftw flags */

#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "log_capture.h"
#include "spool.h"

static struct west_spool sp = { .inotify_fd = -1, .wd = -1, .dirfd = -1 };
static char top[64], dir[128], err[WEST_ERRLEN], path[PATH_MAX];
static int found;

/* ============================================================ fixtures */

static void setup(void)
{
	snprintf(top, sizeof top, "/tmp/west_spool.XXXXXX");
	cr_assert_not_null(mkdtemp(top), "mkdtemp: %s", strerror(errno));
	snprintf(dir, sizeof dir, "%s/in", top);
	err[0] = '\0';
}

static int remove_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

static void teardown(void)
{
	west_spool_close(&sp);
	log_release();
	if (top[0])
		nftw(top, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(spool, .init = setup, .fini = teardown);

static void open_spool(void)
{
	enum west_status st = west_spool_open(&sp, dir, err, sizeof err);

	cr_assert_eq(st, WEST_OK, "open %s: %s", dir, err);
}

/* in/REL as a full path (in a static buffer: one at a time). */
static const char *at(const char *rel)
{
	static char p[PATH_MAX];

	snprintf(p, sizeof p, "%s/%s", dir, rel);
	return p;
}

static void write_file(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");

	cr_assert_not_null(f, "%s: %s", p, strerror(errno));
	cr_assert_eq(fputs(text, f) >= 0, 1, "%s: write", p);
	cr_assert_eq(fclose(f), 0, "%s: close", p);
}

static void set_mtime(const char *p, time_t sec)
{
	struct timespec ts[2] = { { sec, 0 }, { sec, 0 } };

	cr_assert_eq(utimensat(AT_FDCWD, p, ts, 0), 0, "%s: %s", p, strerror(errno));
}

/* Drop in/NAME as a writer must: write ".NAME.part", then rename it. */
static void drop(const char *name, const char *text, time_t mtime)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof tmp, "%s/.%s.part", dir, name);
	write_file(tmp, text);
	set_mtime(tmp, mtime);
	cr_assert_eq(rename(tmp, at(name)), 0, "rename %s: %s", tmp, strerror(errno));
}

static const char *slurp(const char *p)
{
	static char buf[4096];
	FILE *f = fopen(p, "r");
	size_t n;

	cr_assert_not_null(f, "%s: %s", p, strerror(errno));
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int exists(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0;
}

/* Sorted names of in/, in/done/, in/failed/, one "SUB/NAME" per line. */
static void listing(char *out, size_t outlen)
{
	static const char *const subs[] = { "", "/done", "/failed" };
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
		char p[PATH_MAX];
		struct dirent **v;
		int n;

		snprintf(p, sizeof p, "%s%s", dir, subs[i]);
		n = scandir(p, &v, NULL, alphasort);
		cr_assert_geq(n, 0, "scandir %s: %s", p, strerror(errno));
		for (int k = 0; k < n; k++) {
			if (strcmp(v[k]->d_name, ".") && strcmp(v[k]->d_name, ".."))
				used += snprintf(out + used, outlen - used, "%s/%s\n",
						 subs[i], v[k]->d_name);
			free(v[k]);
			cr_assert_lt(used, outlen, "listing too long");
		}
		free(v);
	}
}

/* next() must deliver in/NAME. */
static void expect_next(const char *name)
{
	enum west_status st = west_spool_next(&sp, path, sizeof path, &found,
					      err, sizeof err);

	cr_assert_eq(st, WEST_OK, "next: %s", err);
	cr_assert_eq(found, 1, "next found nothing, expected %s", name);
	cr_assert_str_eq(path, at(name));
}

static void expect_nothing(void)
{
	enum west_status st = west_spool_next(&sp, path, sizeof path, &found,
					      err, sizeof err);

	cr_assert_eq(st, WEST_OK, "next: %s", err);
	cr_assert_eq(found, 0, "next delivered %s, expected nothing", path);
	cr_assert_str_eq(path, "");
}

static void expect_dir(const char *p)
{
	struct stat st;
	mode_t mask = umask(0);

	umask(mask);
	cr_assert_eq(stat(p, &st), 0, "%s: %s", p, strerror(errno));
	cr_assert(S_ISDIR(st.st_mode), "%s is not a directory", p);
	cr_assert_eq(st.st_mode & 0777, 0750 & ~mask, "%s: mode %o", p,
		     (unsigned)(st.st_mode & 0777));
}

/* ============================================================ open */

Test(spool, open_creates_tree_and_reopens)
{
	char slash[160];

	cr_assert_eq(exists(dir), 0);
	open_spool();
	expect_dir(dir);
	expect_dir(at("done"));
	expect_dir(at("failed"));
	cr_assert_str_eq(sp.dir, dir);
	west_spool_close(&sp);
	cr_assert_null(sp.dir);
	cr_assert_eq(west_spool_fd(&sp), -1);

	/* an existing tree, given with a trailing '/' */
	snprintf(slash, sizeof slash, "%s//", dir);
	cr_assert_eq(west_spool_open(&sp, slash, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_str_eq(sp.dir, dir);
	expect_nothing();
}

Test(spool, second_open_while_open_is_refused)
{
	struct west_spool other;

	open_spool();
	cr_assert_eq(west_spool_open(&other, dir, err, sizeof err), WEST_ERR_IO);
	cr_assert_not_null(strstr(err, dir), "%s", err);
	cr_assert_not_null(strstr(err, "locked"), "%s", err);
	cr_assert_null(other.dir);
}

Test(spool, open_removes_temp_leftovers_in_failed)
{
	const char *leftover = ".a.json.error.tmp.Ab12Cd";

	open_spool();
	west_spool_close(&sp);
	cr_assert(west_file_is_temp(leftover));
	write_file(at("failed/.a.json.error.tmp.Ab12Cd"), "half");
	write_file(at("failed/a.json.error"), "kept\n");
	log_capture();
	open_spool();
	cr_assert_not_null(strstr(log_text(), "removed a leftover"), "%s", log_buf);
	cr_assert_eq(exists(at("failed/.a.json.error.tmp.Ab12Cd")), 0);
	cr_assert_str_eq(slurp(at("failed/a.json.error")), "kept\n");
}

Test(spool, open_fails_when_parent_is_missing)
{
	char deep[160];

	snprintf(deep, sizeof deep, "%s/no/such", top);
	cr_assert_eq(west_spool_open(&sp, deep, err, sizeof err), WEST_ERR_IO);
	cr_assert_not_null(strstr(err, deep), "%s", err);
	cr_assert_not_null(strstr(err, strerror(ENOENT)), "%s", err);
	cr_assert_null(sp.dir);
	cr_assert_eq(exists(deep), 0);
}

Test(spool, open_fails_on_a_file)
{
	write_file(dir, "not a directory");
	cr_assert_eq(west_spool_open(&sp, dir, err, sizeof err), WEST_ERR_IO);
	cr_assert_not_null(strstr(err, dir), "%s", err);
	cr_assert_not_null(strstr(err, strerror(ENOTDIR)), "%s", err);
}

/* ============================================================ delivery */

Test(spool, oldest_first_then_done_and_failed)
{
	char names[1024];

	open_spool();
	drop("a.json", "{}", 2000000000);
	drop("b.csv", "id,x\n", 1000000000);

	expect_next("b.csv");
	expect_next("b.csv"); /* stays until a verdict */
	cr_assert_eq(west_spool_done(&sp, path, err, sizeof err), WEST_OK, "%s", err);
	expect_next("a.json");
	cr_assert_eq(west_spool_failed(&sp, path, "line 3: speed: not a number",
				       err, sizeof err), WEST_OK, "%s", err);
	expect_nothing();

	cr_assert_str_eq(slurp(at("done/b.csv")), "id,x\n");
	cr_assert_str_eq(slurp(at("failed/a.json")), "{}");
	cr_assert_str_eq(slurp(at("failed/a.json.error")),
			 "line 3: speed: not a number\n");
	listing(names, sizeof names);
	cr_assert_str_eq(names, "/done\n/failed\n/done/b.csv\n/failed/a.json\n"
			 "/failed/a.json.error\n");
}

Test(spool, equal_times_go_by_name)
{
	open_spool();
	drop("b.json", "b", 1500000000);
	drop("a.csv", "a", 1500000000);
	drop("a.json", "a", 1500000000);
	expect_next("a.csv");
	cr_assert_eq(west_spool_done(&sp, path, err, sizeof err), WEST_OK, "%s", err);
	expect_next("a.json");
	cr_assert_eq(west_spool_done(&sp, path, err, sizeof err), WEST_OK, "%s", err);
	expect_next("b.json");
}

Test(spool, ignored_names_stay_put)
{
	char before[1024], after[1024], target[PATH_MAX];

	open_spool();
	write_file(at(".a.json"), "{}");
	write_file(at("x.json.tmp"), "{}");
	write_file(at("notes.txt"), "hello");
	write_file(at("a b.json"), "{}");
	write_file(at(".json"), "{}");
	write_file(at("c.JSON"), "{}");
	cr_assert_eq(mkdir(at("d.json"), 0750), 0, "%s", strerror(errno));
	snprintf(target, sizeof target, "%s/outside.json", top);
	write_file(target, "{}");
	cr_assert_eq(symlink(target, at("link.json")), 0, "%s", strerror(errno));
	cr_assert_eq(mkfifo(at("fifo.csv"), 0600), 0, "%s", strerror(errno));
	listing(before, sizeof before);

	log_capture();
	expect_nothing();
	expect_nothing();
	cr_assert_str_eq(log_text(), "", "ignored names are not logged");
	listing(after, sizeof after);
	cr_assert_str_eq(after, before);
	cr_assert_str_eq(slurp(at("notes.txt")), "hello");
}

Test(spool, name_length_limit)
{
	char name[256];

	open_spool();
	memset(name, 'n', 201);
	strcpy(name + 201, ".json");
	drop(name, "too long", 1000);
	expect_nothing();
	strcpy(name + 200, ".json"); /* 200 bytes of NAME: taken */
	drop(name, "just fits", 2000);
	expect_next(name);
	cr_assert_eq(west_spool_done(&sp, path, err, sizeof err), WEST_OK, "%s", err);
	expect_nothing();
}

Test(spool, inotify_wakes_on_rename)
{
	struct pollfd p;
	char tmp[PATH_MAX];

	log_capture();
	open_spool();
	if (west_spool_fd(&sp) < 0)
		cr_skip_test("inotify could not be set up: %s", log_text());
	log_release();
	p.fd = west_spool_fd(&sp);
	p.events = POLLIN;

	snprintf(tmp, sizeof tmp, "%s/c.json.tmp", dir);
	write_file(tmp, "{}"); /* an event for the temp name ... */
	expect_nothing();      /* ... drained here: finds nothing */
	cr_assert_eq(poll(&p, 1, 0), 0, "fd readable before the rename");

	cr_assert_eq(rename(tmp, at("c.json")), 0, "%s", strerror(errno));
	cr_assert_eq(poll(&p, 1, 1000), 1, "no event within 1 s");
	cr_assert(p.revents & POLLIN);
	expect_next("c.json");
	cr_assert_eq(poll(&p, 1, 0), 0, "next() left events queued");
}

Test(spool, fd_is_nonblocking_and_cloexec)
{
	int fd;

	open_spool();
	fd = west_spool_fd(&sp);
	if (fd < 0)
		cr_skip_test("inotify could not be set up");
	cr_assert(fcntl(fd, F_GETFL) & O_NONBLOCK);
	cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
}

/* ============================================================ collisions */

Test(spool, done_collision_gets_a_suffix)
{
	open_spool();
	write_file(at("done/a.json"), "old");

	drop("a.json", "new1", 1000);
	expect_next("a.json");
	cr_assert_eq(west_spool_done(&sp, path, err, sizeof err), WEST_OK, "%s", err);
	drop("a.json", "new2", 2000);
	expect_next("a.json");
	cr_assert_eq(west_spool_done(&sp, path, err, sizeof err), WEST_OK, "%s", err);

	cr_assert_str_eq(slurp(at("done/a.json")), "old");
	cr_assert_str_eq(slurp(at("done/a.1.json")), "new1");
	cr_assert_str_eq(slurp(at("done/a.2.json")), "new2");
	expect_nothing();
}

Test(spool, failed_collision_names_the_error_file_alike)
{
	open_spool();
	write_file(at("failed/x.y.csv"), "old");
	write_file(at("failed/x.y.csv.error"), "old reason\n");

	drop("x.y.csv", "new", 1000);
	expect_next("x.y.csv");
	cr_assert_eq(west_spool_failed(&sp, path, "two\nlines", err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_str_eq(slurp(at("failed/x.y.csv")), "old");
	cr_assert_str_eq(slurp(at("failed/x.y.csv.error")), "old reason\n");
	cr_assert_str_eq(slurp(at("failed/x.y.1.csv")), "new");
	cr_assert_str_eq(slurp(at("failed/x.y.1.csv.error")), "two lines\n");
}

/* ============================================================ errors */

Test(spool, done_outside_the_spool_changes_nothing)
{
	static const char *const bad[] = { "notes.txt", "done/b.json", ".a.json" };
	char before[1024], after[1024], other[PATH_MAX];
	enum west_status st;

	open_spool();
	snprintf(other, sizeof other, "%s/other.json", top);
	write_file(other, "{}");
	write_file(at("notes.txt"), "x");
	write_file(at("done/b.json"), "x");
	write_file(at(".a.json"), "x");
	listing(before, sizeof before);

	st = west_spool_done(&sp, other, err, sizeof err);
	cr_assert_eq(st, WEST_ERR_INVALID, "%s", err);
	cr_assert_not_null(strstr(err, other), "%s", err);
	cr_assert_eq(exists(other), 1);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		st = west_spool_failed(&sp, at(bad[i]), "why", err, sizeof err);
		cr_assert_eq(st, WEST_ERR_INVALID, "%s: %s", bad[i], err);
		cr_assert_not_null(strstr(err, at(bad[i])), "%s", err);
	}
	listing(after, sizeof after);
	cr_assert_str_eq(after, before);
}

Test(spool, done_twice_fails_and_changes_nothing)
{
	char before[1024], after[1024], first[PATH_MAX];
	enum west_status st;

	open_spool();
	drop("a.json", "{}", 1000);
	expect_next("a.json");
	snprintf(first, sizeof first, "%s", path);
	cr_assert_eq(west_spool_done(&sp, first, err, sizeof err), WEST_OK, "%s", err);
	listing(before, sizeof before);

	st = west_spool_done(&sp, first, err, sizeof err);
	cr_assert_eq(st, WEST_ERR_IO, "%s", err);
	cr_assert_not_null(strstr(err, first), "%s", err);
	cr_assert_not_null(strstr(err, strerror(ENOENT)), "%s", err);
	st = west_spool_failed(&sp, first, "late", err, sizeof err);
	cr_assert_eq(st, WEST_ERR_IO, "%s", err);
	listing(after, sizeof after);
	cr_assert_str_eq(after, before);
	cr_assert_eq(exists(at("done/a.1.json")), 0);
	cr_assert_eq(exists(at("failed/a.json.error")), 0);
}

Test(spool, small_path_buffer_is_refused)
{
	char small[8];
	enum west_status st;

	open_spool();
	drop("a.json", "{}", 1000);
	st = west_spool_next(&sp, small, sizeof small, &found, err, sizeof err);
	cr_assert_eq(st, WEST_ERR_INVALID, "%s", err);
	cr_assert_eq(found, 0);
	cr_assert_not_null(strstr(err, "a.json"), "%s", err);
	expect_next("a.json");
}

Test(spool, closed_spool_refuses_moves)
{
	open_spool();
	drop("a.json", "{}", 1000);
	west_spool_close(&sp);
	cr_assert_eq(west_spool_done(&sp, at("a.json"), err, sizeof err),
		     WEST_ERR_INVALID);
	cr_assert_not_null(strstr(err, "closed"), "%s", err);
	cr_assert_eq(exists(at("a.json")), 1);
}
