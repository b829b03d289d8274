/*
 * fuzz_common.h: what the libFuzzer targets of tests/fuzz/ share
 * (docs/building.md, "Fuzzing").
 *
 * Every target calls a parser through libwest's (or the daemon's) public
 * entry point, exactly as the daemon does; nothing here re-implements a
 * parser.  The helpers:
 *
 *  - fuzz_init: once per process: logs above errors dropped (a warning per
 *    input would drown the output), OpenMP on one thread (deterministic,
 *    and the machine is shared), the baseline for the descriptor check.
 *  - fuzz_path / fuzz_write: a private directory (under $TMPDIR, else
 *    /dev/shm, else /tmp) for the readers that take a path; the same
 *    names are rewritten for every input, and the directory is removed at
 *    exit.
 *  - fuzz_rmdir_empty: removes a per-input directory (mkdtemp under the
 *    private one) whose files the target unlinked; a file left in it (one
 *    the code under test wrote) is listed and aborts the input.
 *  - fuzz_split: an input cut at a separator line, for targets that write
 *    two files (DEM + .prj) or a file and --set lines.
 *  - fuzz_grid: a small grid built in memory (a hill in WGS 84 / UTM zone
 *    33N metres, the extent of data/default.asc), with or without its
 *    transverse Mercator CRS, for the readers that check positions.
 *  - fuzz_fd_mark / fuzz_fd_check: aborts when an input left a file
 *    descriptor open (the lowest free descriptor moved between the start
 *    and the end of the input), since LeakSanitizer sees only memory.
 *  - FUZZ_ASSERT: an invariant of an accepted result that failed: abort, so
 *    that libFuzzer keeps the input as a crash.
 *
 * Each target must leave no state behind between inputs: whatever an input
 * allocates is freed before the next (LeakSanitizer checks), and the files
 * it reads are rewritten from the input each time.
 */
#ifndef WEST_FUZZ_COMMON_H
#define WEST_FUZZ_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem, strcasestr */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "grid.h"
#include "log.h"
#include "status.h"
#include "terrain.h"

#define FUZZ_ASSERT(cond, ...)                                                  \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "fuzz invariant failed: %s: ", #cond);   \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
			abort();                                                \
		}                                                               \
	} while (0)

static char fuzz_dir[4096];

static inline void fuzz_cleanup(void)
{
	static const char *const names[] = { "dem.asc", "dem.prj", "dem.nc",
					     "westd.conf", "obs.csv", "obs.json" };
	char p[sizeof fuzz_dir + 32];

	if (!fuzz_dir[0])
		return;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", fuzz_dir, names[i]);
		unlink(p);
	}
	rmdir(fuzz_dir);
	fuzz_dir[0] = '\0';
}

/* The lowest free file descriptor. */
static inline int fuzz_lowest_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd;
}

static inline void fuzz_init(void)
{
	static int done;
	const char *bases[] = { getenv("TMPDIR"), "/dev/shm", "/tmp" };

	if (done)
		return;
	done = 1;
	setenv("OMP_NUM_THREADS", "1", 1);
	west_log_set_level(WEST_LOG_ERR);
	for (size_t i = 0; i < sizeof bases / sizeof bases[0] && !fuzz_dir[0]; i++) {
		struct stat st;
		if (!bases[i] || !bases[i][0] || stat(bases[i], &st) || !S_ISDIR(st.st_mode) ||
		    access(bases[i], W_OK))
			continue;
		snprintf(fuzz_dir, sizeof fuzz_dir, "%s/westfuzz.XXXXXX", bases[i]);
		if (!mkdtemp(fuzz_dir))
			fuzz_dir[0] = '\0';
	}
	if (!fuzz_dir[0]) {
		fprintf(stderr, "fuzz: cannot make a temporary directory\n");
		abort();
	}
	atexit(fuzz_cleanup);
}

/* At the start of an input: the lowest free descriptor. */
static inline int fuzz_fd_mark(void)
{
	return fuzz_lowest_fd();
}

/* At its end: the same one must be free again. */
static inline void fuzz_fd_check(int mark)
{
	int fd = fuzz_lowest_fd();

	FUZZ_ASSERT(fd == mark, "file descriptor %d left open by the input (lowest "
		    "free is now %d)", mark, fd);
}

/* The path of `name` in the private directory (a static buffer per call
 * site is the caller's: this one is overwritten by the next call). */
static inline const char *fuzz_path(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", fuzz_dir, name);
	return buf;
}

/* Replace the file at path with n bytes (n may be 0). */
static inline void fuzz_write(const char *path, const uint8_t *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f)) {
		fprintf(stderr, "fuzz: cannot write %s: %s\n", path, strerror(errno));
		abort();
	}
}

/* Remove dir, which must be empty now: else list what it holds and abort
 * with "WHO in DIR" (who: what left the file, e.g. "the parser left a
 * file"). */
static inline void fuzz_rmdir_empty(const char *dir, const char *who)
{
	if (rmdir(dir)) {
		DIR *d = opendir(dir);
		struct dirent *e;
		fprintf(stderr, "fuzz: %s: %s; it holds:\n", dir, strerror(errno));
		while (d && (e = readdir(d)))
			fprintf(stderr, "  %s\n", e->d_name);
		if (d)
			closedir(d);
		FUZZ_ASSERT(0, "%s in %s", who, dir);
	}
}

/* A NUL-terminated copy of n bytes (the caller frees it). */
static inline char *fuzz_strndup(const uint8_t *data, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		abort();
	if (n)
		memcpy(s, data, n);
	s[n] = '\0';
	return s;
}

/*
 * Cut data at the first occurrence of sep: *n1 bytes before it, and *rest,
 * *n2 after it.  Returns 1 when sep was found, else 0 (*n1 = n, *n2 = 0).
 */
static inline int fuzz_split(const uint8_t *data, size_t n, const char *sep, size_t *n1,
		      const uint8_t **rest, size_t *n2)
{
	size_t k = strlen(sep);
	const uint8_t *p = k <= n ? memmem(data, n, sep, k) : NULL;

	if (!p) {
		*n1 = n, *rest = data + n, *n2 = 0;
		return 0;
	}
	*n1 = (size_t)(p - data);
	*rest = p + k;
	*n2 = n - *n1 - k;
	return 1;
}

/* WGS 84 / UTM zone 33N (data/default.prj). */
#define FUZZ_UTM33_WKT "PROJCS[\"WGS_1984_UTM_Zone_33N\",GEOGCS[\"GCS_WGS_1984\"," \
	"DATUM[\"D_WGS_1984\",SPHEROID[\"WGS_1984\",6378137.0,298.257223563]]," \
	"PRIMEM[\"Greenwich\",0.0],UNIT[\"Degree\",0.0174532925199433]]," \
	"PROJECTION[\"Transverse_Mercator\"],PARAMETER[\"False_Easting\",500000.0]," \
	"PARAMETER[\"False_Northing\",0.0],PARAMETER[\"Central_Meridian\",15.0]," \
	"PARAMETER[\"Scale_Factor\",0.9996],PARAMETER[\"Latitude_Of_Origin\",0.0]," \
	"UNIT[\"Meter\",1.0]]"

/*
 * A grid of nx * ny columns of dx m from (500000, 4650000), nz levels of
 * dz m, over a plain at 200 m with a 150 m Gaussian hill in the middle;
 * tm: with the UTM 33N transverse Mercator CRS (lon/lat, solar elevation),
 * else with no CRS.  Aborts on failure (a broken harness, not a finding).
 */
static inline void fuzz_grid(struct west_grid *g, size_t nx, size_t ny, double dx,
		      long nz, double dz, int tm)
{
	struct west_dem dem = { .nx = nx, .ny = ny, .dx = dx, .dy = dx,
				.x0 = 500000.0, .y0 = 4650000.0 };
	struct west_config *c = malloc(sizeof *c);
	char err[WEST_ERRLEN];
	double xc = 0.5 * (double)nx * dx, yc = 0.5 * (double)ny * dx, s = 0.15 * xc;

	dem.z = malloc(nx * ny * sizeof *dem.z);
	if (!c || !dem.z)
		abort();
	for (size_t j = 0; j < ny; j++)
		for (size_t i = 0; i < nx; i++) {
			double x = ((double)i + 0.5) * dx - xc, y = ((double)j + 0.5) * dx - yc;
			dem.z[j * nx + i] = (float)(200.0 + 150.0 * exp(-(x * x + y * y) /
								       (2 * s * s)));
		}
	if (tm) {
		dem.crs = (struct west_crs){ .grid_mapping_name = "transverse_mercator",
					     .has_tm = 1, .lon0 = 15.0, .lat0 = 0.0,
					     .k0 = 0.9996, .false_easting = 500000.0 };
		dem.crs.wkt = strdup(FUZZ_UTM33_WKT);
	}
	west_config_defaults(c);
	c->nz = nz;
	c->dz = dz;
	struct west_grid_opts go;
	west_grid_opts_from_config(&go, c);
	if (west_grid_init(g, &dem, &go, err, sizeof err) != WEST_OK) {
		fprintf(stderr, "fuzz: cannot build the grid: %s\n", err);
		abort();
	}
	west_dem_free(&dem);
	free(c);
}

#endif
