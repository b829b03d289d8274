/*
 * terrain_child.c: a DEM read in a child process (terrain.h,
 * west_dem_load_child), so that a reader that crashes inside a library
 * takes down the child and not the daemon.
 *
 * Why: westd reads terrain through GDAL, PROJ and libnetcdf, whose bugs it
 * cannot fix.  tests/fuzz/fuzz_dem_gdal found files on which PROJ 9.1
 * (Debian 12's) dereferences a null pointer, so that gdalinfo and westd
 * died on them; each one found is refused before the library sees it
 * (terrain_gdal.c), but the next one is unknown.  In a child, such a file
 * is a refused terrain with a reason: at start westd exits 1 saying so,
 * and a reload (SIGHUP) is refused while the running terrain stays.
 *
 * How: the parent posix_spawn()s `EXE --terrain-child FD PATH NODATA
 * VARIABLE MAX_CELLS EPSG RESOLUTION` (EXE is westd itself,
 * /proc/self/exe; FD is 3, the write end of a pipe); the child, a fresh
 * image (no CUDA, no MPI, no lock held by another thread), runs
 * west_dem_load and writes one message to FD:
 *   struct child_head (fixed size: both sides are the same executable),
 *   then head.errlen bytes of the error message, head.wktlen bytes of the
 *   CRS WKT (when head.has_wkt), and nx * ny floats of the heights (when
 *   head.status is WEST_OK)
 * and exits 0.  Its log goes to the daemon's stderr.  The parent checks
 * every length against what it asked for (max_cells, WEST_ERRLEN, a WKT of
 * at most 1 MiB) before allocating, then reaps the child: killed by a
 * signal, exited non-zero or a short message is an error naming the file.
 *
 * A reader that has not answered within opts->timeout (config
 * terrain_timeout) is killed (SIGKILL) and the DEM refused saying so.
 *
 * Tests: WEST_TERRAIN_CHILD_FAULT=FILE makes the child raise SIGSEGV
 * before reading when FILE exists, or sleep for an hour when FILE's
 * content is "hang" (tests/test_westd.c, tests/west_cli.sh).
 */
#define _GNU_SOURCE   /* posix_spawn_file_actions_addclosefrom_np, strsignal */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "terrain.h"

extern char **environ;

#define CHILD_MAGIC "westdem1"
#define CHILD_FD 3
#define CHILD_WKT_MAX ((uint64_t)1 << 20)

struct child_head {
	char magic[8];
	int32_t status, has_tm, tm_other, has_wkt;
	uint64_t nx, ny, errlen, wktlen;
	double dx, dy, x0, y0, lon0, lat0, k0, false_easting, false_northing;
	char grid_mapping_name[64];
};

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w, n -= (size_t)w;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* What the parent reads from: the pipe, the time it may wait until
 * (CLOCK_MONOTONIC s; 0 = for ever), and whether that time passed. */
struct answer {
	int fd;
	double deadline;
	int late;
};

/* 0 when all n bytes came, else -1 (end of the pipe, an error, or the
 * deadline: a->late). */
static int read_all(struct answer *a, void *buf, size_t n)
{
	char *p = buf;

	while (n) {
		if (a->deadline > 0.0) {
			double left = a->deadline - now_s();
			struct pollfd pf = { a->fd, POLLIN, 0 };
			int r = left > 0.0 ? poll(&pf, 1, (int)(left * 1000.0) + 1) : 0;
			if (r < 0 && errno == EINTR)
				continue;
			if (r == 0) {
				a->late = 1;
				return -1;
			}
		}
		ssize_t r = read(a->fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r, n -= (size_t)r;
	}
	return 0;
}

/* ---------------------------------------------------------------- child */

int west_dem_child_main(int argc, char **argv)
{
	struct west_dem dem;
	struct west_dem_opts o = { 0 };
	struct child_head h = { 0 };
	char err[WEST_ERRLEN] = "";
	const char *fault = getenv("WEST_TERRAIN_CHILD_FAULT");
	FILE *f;
	int fd;

	if (argc != 8) {
		fprintf(stderr, "usage: westd --terrain-child FD PATH NODATA VARIABLE MAX_CELLS EPSG "
			"RESOLUTION (westd runs it to read its terrain)\n");
		return 2;
	}
	fd = atoi(argv[1]);
	o.nodata = (enum west_nodata_rule)atoi(argv[3]);
	o.variable = argv[4];
	o.max_cells = strtoull(argv[5], NULL, 10);
	o.epsg = strtol(argv[6], NULL, 10);
	o.resolution = strtod(argv[7], NULL);
	if (fault && fault[0] && (f = fopen(fault, "r"))) {
		char word[8] = "";
		size_t n = fread(word, 1, sizeof word - 1, f);

		fclose(f);
		if (n == 4 && memcmp(word, "hang", 4) == 0)
			sleep(3600);
		signal(SIGSEGV, SIG_DFL);   /* a sanitizer's handler would abort */
		raise(SIGSEGV);
	}
	h.status = (int32_t)west_dem_load(&dem, argv[2], &o, err, sizeof err);
	memcpy(h.magic, CHILD_MAGIC, sizeof h.magic);
	h.errlen = strlen(err);
	if (h.status == WEST_OK) {
		h.nx = dem.nx, h.ny = dem.ny;
		h.dx = dem.dx, h.dy = dem.dy, h.x0 = dem.x0, h.y0 = dem.y0;
		h.has_tm = dem.crs.has_tm, h.tm_other = dem.crs.tm_other_ellipsoid;
		h.lon0 = dem.crs.lon0, h.lat0 = dem.crs.lat0, h.k0 = dem.crs.k0;
		h.false_easting = dem.crs.false_easting;
		h.false_northing = dem.crs.false_northing;
		memcpy(h.grid_mapping_name, dem.crs.grid_mapping_name,
		       sizeof h.grid_mapping_name);
		h.has_wkt = dem.crs.wkt != NULL;
		h.wktlen = dem.crs.wkt ? strlen(dem.crs.wkt) : 0;
	}
	if (write_all(fd, &h, sizeof h) || write_all(fd, err, h.errlen) ||
	    write_all(fd, h.has_wkt ? dem.crs.wkt : "", h.wktlen) ||
	    (h.status == WEST_OK && write_all(fd, dem.z, h.nx * h.ny * sizeof *dem.z))) {
		fprintf(stderr, "westd --terrain-child: writing the result: %s\n", strerror(errno));
		return 1;
	}
	if (h.status == WEST_OK)
		west_dem_free(&dem);
	return 0;
}

/* --------------------------------------------------------------- parent */

/* Read the child's message into dem (zeroed on failure). */
static enum west_status read_message(struct answer *a, const char *path,
				     const struct west_dem_opts *o, struct west_dem *dem,
				     char *err, size_t errlen)
{
	struct child_head h;
	char msg[WEST_ERRLEN];
	uint64_t cells;

	if (read_all(a, &h, sizeof h) || memcmp(h.magic, CHILD_MAGIC, sizeof h.magic))
		return west_fail(err, errlen, WEST_ERR_IO,
				 "%s: the terrain reader gave no answer", path);
	if (h.errlen >= sizeof msg || read_all(a, msg, (size_t)h.errlen))
		return west_fail(err, errlen, WEST_ERR_IO,
				 "%s: the terrain reader's message is malformed", path);
	msg[h.errlen] = '\0';
	if (h.status != WEST_OK)
		return west_fail(err, errlen, (enum west_status)h.status, "%s", msg);
	cells = h.nx * h.ny;
	if (h.nx == 0 || h.ny == 0 || cells / h.nx != h.ny || cells > SIZE_MAX / sizeof(float) ||
	    (o->max_cells && cells > o->max_cells) || h.wktlen > CHILD_WKT_MAX ||
	    (!h.has_wkt && h.wktlen))
		return west_fail(err, errlen, WEST_ERR_IO,
				 "%s: the terrain reader's answer is malformed (%llu x %llu cells)",
				 path, (unsigned long long)h.nx, (unsigned long long)h.ny);
	dem->nx = (size_t)h.nx, dem->ny = (size_t)h.ny;
	dem->dx = h.dx, dem->dy = h.dy, dem->x0 = h.x0, dem->y0 = h.y0;
	dem->crs.has_tm = h.has_tm, dem->crs.tm_other_ellipsoid = h.tm_other;
	dem->crs.lon0 = h.lon0, dem->crs.lat0 = h.lat0, dem->crs.k0 = h.k0;
	dem->crs.false_easting = h.false_easting, dem->crs.false_northing = h.false_northing;
	memcpy(dem->crs.grid_mapping_name, h.grid_mapping_name,
	       sizeof dem->crs.grid_mapping_name);
	dem->crs.grid_mapping_name[sizeof dem->crs.grid_mapping_name - 1] = '\0';
	dem->crs.wkt = h.has_wkt ? malloc((size_t)h.wktlen + 1) : NULL;
	dem->z = malloc((size_t)cells * sizeof *dem->z);
	if (!dem->z || (h.has_wkt && !dem->crs.wkt))
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "%s: out of memory for %llu x %llu cells", path,
				 (unsigned long long)h.nx, (unsigned long long)h.ny);
	if ((h.has_wkt && read_all(a, dem->crs.wkt, (size_t)h.wktlen)) ||
	    read_all(a, dem->z, (size_t)cells * sizeof *dem->z))
		return west_fail(err, errlen, WEST_ERR_IO,
				 "%s: the terrain reader's answer ended early", path);
	if (dem->crs.wkt)
		dem->crs.wkt[h.wktlen] = '\0';
	return WEST_OK;
}

/* Wait for the child; a status that is not a clean exit becomes the error
 * (it wins over what read_message said: a half message is the death's). */
static enum west_status reap(pid_t pid, const char *path, enum west_status st,
			     char *err, size_t errlen)
{
	int ws;

	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return west_fail(err, errlen, WEST_ERR_IO, "%s: waiting for the terrain "
					 "reader: %s", path, strerror(errno));
	if (WIFSIGNALED(ws))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: the terrain reader (a child process) was killed by signal %d "
				 "(%s) while reading it: a crash inside a library that reads it "
				 "(GDAL, PROJ or libnetcdf), or the system stopped it (out of "
				 "memory); the file is refused (check it with gdalinfo, or convert "
				 "it, e.g. gdal_translate -of AAIGrid)",
				 path, WTERMSIG(ws), strsignal(WTERMSIG(ws)));
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
		return west_fail(err, errlen, WEST_ERR_IO,
				 "%s: the terrain reader exited with status %d before it finished",
				 path, WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
	return st;
}

enum west_status west_dem_load_child(struct west_dem *dem, const char *exe, const char *path,
				     const struct west_dem_opts *opts, char *err, size_t errlen)
{
	const struct west_dem_opts none = { 0 };
	const struct west_dem_opts *o = opts ? opts : &none;
	char fd_s[16], nodata[16], cells[32], epsg[32], res[40];
	char *argv[] = { (char *)exe, "--terrain-child", fd_s, (char *)path, nodata,
			 (char *)(o->variable ? o->variable : ""), cells, epsg, res, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none_set, pipe_set;
	int p[2], rfd = -1, wfd = -1, rc;
	pid_t pid;
	enum west_status st;

	memset(dem, 0, sizeof *dem);
	snprintf(fd_s, sizeof fd_s, "%d", CHILD_FD);
	snprintf(nodata, sizeof nodata, "%d", (int)o->nodata);
	snprintf(cells, sizeof cells, "%llu", o->max_cells);
	snprintf(epsg, sizeof epsg, "%ld", o->epsg);
	snprintf(res, sizeof res, "%.17g", o->resolution);
	/* both ends above CHILD_FD and close-on-exec: dup2 onto CHILD_FD in the
	 * child clears the flag there only */
	if (pipe(p))
		return west_fail(err, errlen, WEST_ERR_IO, "%s: pipe for the terrain reader: %s",
				 path, strerror(errno));
	rfd = fcntl(p[0], F_DUPFD_CLOEXEC, CHILD_FD + 1);
	wfd = fcntl(p[1], F_DUPFD_CLOEXEC, CHILD_FD + 1);
	close(p[0]), close(p[1]);
	if (rfd < 0 || wfd < 0) {
		st = west_fail(err, errlen, WEST_ERR_IO, "%s: pipe for the terrain reader: %s",
			       path, strerror(errno));
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, wfd, CHILD_FD);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
	posix_spawn_file_actions_addclosefrom_np(&fa, CHILD_FD + 1);  /* sockets, files */
#endif
	posix_spawnattr_init(&at);
	sigemptyset(&none_set);
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	posix_spawnattr_setsigmask(&at, &none_set);    /* westd blocks its signals */
	posix_spawnattr_setsigdefault(&at, &pipe_set); /* and ignores SIGPIPE */
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawn(&pid, exe, &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(wfd);
	wfd = -1;
	if (rc) {
		st = west_fail(err, errlen, WEST_ERR_IO, "%s: cannot start the terrain reader %s: %s",
			       path, exe, strerror(rc));
		goto out;
	}
	struct answer a = { rfd, o->timeout > 0.0 ? now_s() + o->timeout : 0.0, 0 };
	st = read_message(&a, path, o, dem, err, errlen);
	close(rfd);   /* a child still writing gets EPIPE and ends */
	rfd = -1;
	if (a.late)
		kill(pid, SIGKILL);
	st = reap(pid, path, st, err, errlen);
	if (a.late)
		st = west_fail(err, errlen, WEST_ERR_INVALID,
			       "%s: the terrain reader (a child process) did not finish within "
			       "terrain_timeout = %g s and was stopped: the file is refused (a "
			       "raster too large to read or warp in time: cut it, or warp it "
			       "with gdalwarp first; or a library stuck on it)", path, o->timeout);
	if (st)
		west_dem_free(dem);
out:
	if (rfd >= 0)
		close(rfd);
	if (wfd >= 0)
		close(wfd);
	return st;
}

int west_dem_reader_self(char *buf, size_t len)
{
	ssize_t n = len > 1 ? readlink("/proc/self/exe", buf, len - 1) : -1;

	if (n > 0 && (size_t)n < len - 1) {
		buf[n] = '\0';
		return 0;
	}
	if (n >= 0)
		errno = ENAMETOOLONG;
	if (len)
		buf[0] = '\0';
	return -1;
}
