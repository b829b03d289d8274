/*
 * terrain_test_util.h: what the DEM readers' tests (tests/test_terrain.c,
 * tests/test_terrain_gdal.c) share: a fresh mkdtemp directory per test,
 * removed with its files afterwards; paths and files in it; and the check
 * of a load that should succeed.  `err` is the message buffer every load
 * writes and every check prints.
 *
 * A test program includes it once; its suites name a fixture that calls
 * terrain_tmpdir_make (with the program's name) and terrain_tmpdir_remove.
 * The test directory holds plain files only.
 */
#ifndef WEST_TESTS_TERRAIN_TEST_UTIL_H
#define WEST_TESTS_TERRAIN_TEST_UTIL_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "status.h"

static char tmpdir[64];
static char err[WEST_ERRLEN];

/* A fresh /tmp/PROGRAM.XXXXXX in tmpdir. */
static inline void terrain_tmpdir_make(const char *program)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/%s.XXXXXX", program);
	cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp failed");
}

/* tmpdir and the files in it. */
static inline void terrain_tmpdir_remove(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char p[PATH_MAX];

	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
			unlink(p);
		}
	}
	if (d)
		closedir(d);
	rmdir(tmpdir);
}

/* NAME inside the test directory; the result lives until the test ends. */
static inline const char *tmp_path(const char *name)
{
	static char paths[8][PATH_MAX];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, PATH_MAX, "%s/%s", tmpdir, name);
	return p;
}

/* A file NAME in the test directory holding the n bytes; its path. */
static inline const char *write_bytes(const char *name, const void *bytes, size_t n)
{
	const char *path = tmp_path(name);
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(bytes, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
	return path;
}

static inline void expect_ok(enum west_status s, const char *path)
{
	cr_assert_eq(s, WEST_OK, "%s: status %s: %s", path, west_status_str(s), err);
}

#endif
