/*
 * spool.c: the drop directory for observation files (spool.h gives the
 * writer's protocol, the directory layout and the guarantees).
 *
 * Taking a file: next() drains the inotify queue without looking at the
 * events (they only woke the caller) and scans the whole directory with
 * readdir + fstatat(AT_SYMLINK_NOFOLLOW), keeping the oldest ready regular
 * file.  No state is kept between calls: the directory is the queue, so a
 * restart, a lost event or a file dropped while westd was down changes
 * nothing.
 *
 * Moving a file: the path must be s->dir + "/" + a ready name (checked on
 * the string, before any system call, so a bad path changes nothing).  It
 * is renamed without replacing into done/ or failed/ under NAME.EXT, then
 * NAME.1.EXT, NAME.2.EXT, ...; renameat2(RENAME_NOREPLACE) makes the "is
 * the name free" test and the rename one step; on a file system without it
 * (EINVAL) an lstat before rename(2) stands in, which is enough since only
 * the lock holder moves files into those directories.
 *
 * Invariants: s->dir != NULL exactly while the spool is open, and then
 * strlen(s->dir) <= DIR_MAX, so that every path built here (dir, sub
 * directory, a 200-byte NAME with a suffix, ".error", fileio.h's temp
 * suffix) fits in PATH_MAX.  s->dirfd holds the flock while open.
 */
#define _GNU_SOURCE /* renameat2, RENAME_NOREPLACE */

#include "spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"

#define DIR_MODE 0750
#define ERROR_MODE 0640
#define ERROR_SUFFIX ".error"
#define DIR_MAX (PATH_MAX - 512) /* leaves room for "/failed/NAME.K.EXT.error..." */

static const char *const exts[] = { ".json", ".csv" };

/* ============================================================== names */

/* The length of NAME when `name` is NAME.json or NAME.csv by spool.h's rule, else 0. */
static size_t ready_stem(const char *name)
{
	size_t n = strlen(name), e, k;

	if (name[0] == '.')
		return 0;
	for (e = 0; e < sizeof exts / sizeof *exts; e++) {
		k = strlen(exts[e]);
		if (n > k && strcmp(name + n - k, exts[e]) == 0)
			break;
	}
	if (e == sizeof exts / sizeof *exts || n - k > WEST_SPOOL_NAME_MAX)
		return 0;
	if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		   "0123456789._-") != n)
		return 0;
	return n - k;
}

/* "" after a dir that ends in '/' ("/"), else "/". */
static const char *sep(const char *dir)
{
	return dir[strlen(dir) - 1] == '/' ? "" : "/";
}

/* out = dir/name; fails only when out is too small. */
static enum west_status join(char *out, size_t outlen, const char *dir,
			     const char *name, char *err, size_t errlen)
{
	int n = snprintf(out, outlen, "%s%s%s", dir, sep(dir), name);

	if (n < 0 || (size_t)n >= outlen)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s%s%s: path longer than "
				 "the buffer (%zu bytes)", dir, sep(dir), name, outlen);
	return WEST_OK;
}

/* The ready name that path gives in s->dir, or NULL when it is no such path. */
static const char *spool_name(const struct west_spool *s, const char *path)
{
	size_t n = strlen(s->dir), m = strlen(sep(s->dir));
	const char *name;

	if (strncmp(path, s->dir, n) != 0 || strncmp(path + n, sep(s->dir), m) != 0)
		return NULL;
	name = path + n + m;
	if (strchr(name, '/') || !ready_stem(name))
		return NULL;
	return name;
}

/* ============================================================== open */

static enum west_status make_dir(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int e;

	if (mkdir(path, DIR_MODE) == 0)
		return WEST_OK;
	e = errno;
	if (e == EEXIST && stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return WEST_OK;
		e = ENOTDIR;
	}
	return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot create directory: %s",
			 path, strerror(e));
}

/* s->dir = a copy of dir without trailing '/' (but "/" stays). */
static enum west_status copy_dir(struct west_spool *s, const char *dir,
				 char *err, size_t errlen)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 0 || n > DIR_MAX)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%.64s%s: %s", dir,
				 n ? "..." : "", n ? "directory name too long"
						   : "empty directory name");
	s->dir = strndup(dir, n);
	if (!s->dir)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "%s: cannot allocate", dir);
	return WEST_OK;
}

/* Create dir/sub, and remove from it the temp files a crash left. */
static enum west_status make_sub(const struct west_spool *s, const char *sub,
				 char *err, size_t errlen)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	enum west_status st = join(path, sizeof path, s->dir, sub, err, errlen);
	struct dirent *e;
	DIR *d;

	if (st == WEST_OK)
		st = make_dir(path, err, errlen);
	if (st != WEST_OK)
		return st;
	d = opendir(path);
	if (!d)
		return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot list: %s",
				 path, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		if (!west_file_is_temp(e->d_name) ||
		    join(tmp, sizeof tmp, path, e->d_name, NULL, 0) != WEST_OK)
			continue;
		if (unlink(tmp) == 0)
			west_log(WEST_LOG_NOTICE, "%s: removed a leftover temp file", tmp);
		else
			west_log(WEST_LOG_WARNING, "%s: cannot remove a leftover temp "
				 "file: %s", tmp, strerror(errno));
	}
	closedir(d);
	return WEST_OK;
}

/* Set up the inotify watch on s->dir; without it, only a warning. */
static void watch_dir(struct west_spool *s)
{
	int e;

	s->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (s->inotify_fd >= 0) {
		s->wd = inotify_add_watch(s->inotify_fd, s->dir,
					  IN_MOVED_TO | IN_CLOSE_WRITE | IN_ONLYDIR);
		if (s->wd >= 0)
			return;
	}
	e = errno;
	if (s->inotify_fd >= 0)
		close(s->inotify_fd);
	s->inotify_fd = -1;
	west_log(WEST_LOG_WARNING, "%s: inotify unavailable (%s); relying on "
		 "periodic scans", s->dir, strerror(e));
}

enum west_status west_spool_open(struct west_spool *s, const char *dir,
				 char *err, size_t errlen)
{
	enum west_status st;

	memset(s, 0, sizeof *s);
	s->inotify_fd = s->wd = s->dirfd = -1;
	st = copy_dir(s, dir, err, errlen);
	if (st == WEST_OK)
		st = make_dir(s->dir, err, errlen);
	if (st == WEST_OK)
		st = west_dir_lock(s->dir, "spool", &s->dirfd, err, errlen);
	if (st == WEST_OK)
		st = make_sub(s, "done", err, errlen);
	if (st == WEST_OK)
		st = make_sub(s, "failed", err, errlen);
	if (st != WEST_OK) {
		west_spool_close(s);
		return st;
	}
	watch_dir(s);
	return WEST_OK;
}

int west_spool_fd(const struct west_spool *s)
{
	return s->inotify_fd;
}

void west_spool_close(struct west_spool *s)
{
	if (s->inotify_fd >= 0)
		close(s->inotify_fd);
	if (s->dirfd >= 0)
		close(s->dirfd); /* releases the flock */
	free(s->dir);
	memset(s, 0, sizeof *s);
	s->inotify_fd = s->wd = s->dirfd = -1;
}

/* ============================================================== next */

struct oldest {
	int found;
	struct timespec mtime;
	char name[NAME_MAX + 1];
};

/* 1 when (t, name) comes before the file kept in o. */
static int before(const struct timespec *t, const char *name, const struct oldest *o)
{
	if (t->tv_sec != o->mtime.tv_sec)
		return t->tv_sec < o->mtime.tv_sec;
	if (t->tv_nsec != o->mtime.tv_nsec)
		return t->tv_nsec < o->mtime.tv_nsec;
	return strcmp(name, o->name) < 0;
}

/* Keep name in o when it is a ready regular file older than o's. */
static enum west_status consider(const struct west_spool *s, DIR *d, const char *name,
				 struct oldest *o, char *err, size_t errlen)
{
	struct stat st;

	if (!ready_stem(name))
		return WEST_OK;
	if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? WEST_OK /* moved away meanwhile */
				       : west_fail(err, errlen, WEST_ERR_IO,
						   "%s%s%s: cannot stat: %s", s->dir,
						   sep(s->dir), name, strerror(errno));
	if (!S_ISREG(st.st_mode) || (o->found && !before(&st.st_mtim, name, o)))
		return WEST_OK;
	o->found = 1;
	o->mtime = st.st_mtim;
	memcpy(o->name, name, strlen(name) + 1); /* ready names are short */
	return WEST_OK;
}

static enum west_status scan(const struct west_spool *s, struct oldest *o,
			     char *err, size_t errlen)
{
	enum west_status st = WEST_OK;
	DIR *d = opendir(s->dir);
	struct dirent *e;

	if (!d)
		return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot list: %s",
				 s->dir, strerror(errno));
	for (errno = 0; st == WEST_OK && (e = readdir(d)) != NULL; errno = 0)
		st = consider(s, d, e->d_name, o, err, errlen);
	if (st == WEST_OK && errno != 0)
		st = west_fail(err, errlen, WEST_ERR_IO, "%s: cannot list: %s",
			       s->dir, strerror(errno));
	closedir(d);
	return st;
}

/* Read and drop every queued inotify event. */
static enum west_status drain(const struct west_spool *s, char *err, size_t errlen)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	if (s->inotify_fd < 0)
		return WEST_OK;
	do
		n = read(s->inotify_fd, buf, sizeof buf);
	while (n > 0 || (n < 0 && errno == EINTR));
	if (n < 0 && errno == EAGAIN)
		return WEST_OK;
	return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot read inotify events: %s",
			 s->dir, n == 0 ? "end of file" : strerror(errno));
}

enum west_status west_spool_next(struct west_spool *s, char *path, size_t pathlen,
				 int *found, char *err, size_t errlen)
{
	struct oldest o = { 0 };
	enum west_status st;

	*found = 0;
	if (pathlen)
		path[0] = '\0';
	st = drain(s, err, errlen);
	if (st == WEST_OK)
		st = scan(s, &o, err, errlen);
	if (st != WEST_OK || !o.found)
		return st;
	st = join(path, pathlen, s->dir, o.name, err, errlen);
	*found = st == WEST_OK;
	return st;
}

/* ============================================================== moves */

/* rename(2) that fails with EEXIST rather than replace dst. */
static int rename_noreplace(const char *src, const char *dst)
{
	struct stat st;

	if (renameat2(AT_FDCWD, src, AT_FDCWD, dst, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	if (lstat(dst, &st) == 0) {
		errno = EEXIST;
		return -1;
	}
	return errno == ENOENT ? rename(src, dst) : -1;
}

/* dst = dir/sub/NAME.EXT for k = 0, dir/sub/NAME.k.EXT after. */
static void target(const struct west_spool *s, const char *sub, const char *name,
		   unsigned k, char *dst, size_t dstlen)
{
	size_t stem = ready_stem(name);

	if (k == 0)
		snprintf(dst, dstlen, "%s%s%s/%s", s->dir, sep(s->dir), sub, name);
	else
		snprintf(dst, dstlen, "%s%s%s/%.*s.%u%s", s->dir, sep(s->dir), sub,
			 (int)stem, name, k, name + stem);
}

/* Move path into dir/sub under the first free name; dst gets that path. */
static enum west_status move(struct west_spool *s, const char *path, const char *sub,
			     char *dst, size_t dstlen, char *err, size_t errlen)
{
	const char *name = s->dir ? spool_name(s, path) : NULL;
	unsigned k;

	if (!name)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: not a ready file "
				 "of the spool %s", path, s->dir ? s->dir : "(closed)");
	for (k = 0; k <= WEST_SPOOL_MAX_SUFFIX; k++) {
		target(s, sub, name, k, dst, dstlen);
		if (rename_noreplace(path, dst) == 0)
			return WEST_OK;
		if (errno != EEXIST)
			return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot move to "
					 "%s: %s", path, dst, strerror(errno));
	}
	return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot move into %s%s%s/: "
			 "every name up to %s is taken", path, s->dir, sep(s->dir),
			 sub, dst);
}

enum west_status west_spool_done(struct west_spool *s, const char *path,
				 char *err, size_t errlen)
{
	char dst[PATH_MAX];

	return move(s, path, "done", dst, sizeof dst, err, errlen);
}

/* Write why, as one line, into dst.error. */
static enum west_status write_reason(const char *dst, const char *why,
				     char *err, size_t errlen)
{
	char epath[PATH_MAX + sizeof ERROR_SUFFIX]; /* dst < PATH_MAX */
	size_t n = strlen(why);
	char *line = malloc(n + 1);
	enum west_status st;

	if (!line)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "%s%s: cannot allocate "
				 "the reason (%zu bytes)", dst, ERROR_SUFFIX, n + 1);
	for (size_t i = 0; i < n; i++)
		line[i] = why[i] == '\n' || why[i] == '\r' ? ' ' : why[i];
	line[n] = '\n';
	snprintf(epath, sizeof epath, "%s%s", dst, ERROR_SUFFIX);
	st = west_file_replace(epath, line, n + 1, ERROR_MODE, err, errlen);
	free(line);
	return st;
}

enum west_status west_spool_failed(struct west_spool *s, const char *path,
				   const char *why, char *err, size_t errlen)
{
	char dst[PATH_MAX], why_err[WEST_ERRLEN];
	enum west_status st = move(s, path, "failed", dst, sizeof dst, err, errlen);

	if (st != WEST_OK)
		return st;
	st = write_reason(dst, why, why_err, sizeof why_err);
	if (st != WEST_OK)
		return west_fail(err, errlen, st, "%s: moved to %s, but its reason "
				 "was not written: %s", path, dst, why_err);
	return WEST_OK;
}
