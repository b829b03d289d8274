/*
 * fileio.c: atomic, durable file replacement (fileio.h).
 */
#define _GNU_SOURCE   /* mkostemp */
#include "fileio.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

#define TEMP_SUFFIX ".tmp.XXXXXX"

/* "PATH: CALL FILE: errno text", errno as the failed call left it. */
static enum west_status os_fail(const char *path, const char *call, const char *file,
				char *err, size_t errlen)
{
	int e = errno;
	return west_fail(err, errlen, WEST_ERR_IO, "%s: %s %s: %s", path, call, file,
			 strerror(e));
}

/* The directory to sync and the temp name template beside path. */
static enum west_status temp_names(const char *path, char **dir, char **tmp,
				   char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t pre = (size_t)(base - path);

	if (!*base)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: names a directory, not a file", path);
	*dir = !slash ? strdup(".") : pre == 1 ? strdup("/") : strndup(path, pre - 1);
	*tmp = malloc(strlen(path) + sizeof "." TEMP_SUFFIX);
	if (!*dir || !*tmp)
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "%s: cannot allocate the temp file name", path);
	sprintf(*tmp, "%.*s.%s" TEMP_SUFFIX, (int)pre, path, base);
	return WEST_OK;
}

#define WRITE_PIECE (8u << 20)   /* bytes written before their writeback is started */

/* 0, or -1 with errno, across short writes and EINTR. */
static int write_all(int fd, const char *p, size_t left)
{
	while (left > 0) {
		ssize_t n = write(fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		left -= (size_t)n;
	}
	return 0;
}

/*
 * buf into fd a WRITE_PIECE at a time, each piece's writeback to the disk
 * started (sync_file_range, asynchronous) before the next is copied into
 * the page cache, so that the disk writes while the rest is copied and the
 * fsync that follows waits for less.  The fsync is still what makes the
 * file durable; where sync_file_range is missing or refused, the writes
 * go on without it.
 */
static int write_pieces(int fd, const char *buf, size_t len)
{
	for (size_t off = 0; off < len; off += WRITE_PIECE) {
		size_t n = len - off < WRITE_PIECE ? len - off : WRITE_PIECE;
		if (write_all(fd, buf + off, n) != 0)
			return -1;
#ifdef SYNC_FILE_RANGE_WRITE
		(void)sync_file_range(fd, (off_t)off, (off_t)n, SYNC_FILE_RANGE_WRITE);
#endif
	}
	return 0;
}

/* buf into a new temp file from the template tmp, synced; none on failure. */
static enum west_status write_temp(const char *path, char *tmp, const void *buf,
				   size_t len, mode_t mode, char *err, size_t errlen)
{
	int fd = mkostemp(tmp, O_CLOEXEC);
	enum west_status st = WEST_OK;

	if (fd < 0)
		return os_fail(path, "cannot create temp file", tmp, err, errlen);
	if (write_pieces(fd, buf, len) != 0)
		st = os_fail(path, "write to", tmp, err, errlen);
	else if (fsync(fd) != 0)
		st = os_fail(path, "fsync of", tmp, err, errlen);
	else if (fchmod(fd, mode) != 0)
		st = os_fail(path, "chmod of", tmp, err, errlen);
	if (close(fd) != 0 && st == WEST_OK)
		st = os_fail(path, "close of", tmp, err, errlen);
	if (st != WEST_OK)
		unlink(tmp);
	return st;
}

/* fsync the directory; EINVAL: this filesystem cannot, nothing to do. */
static enum west_status sync_dir(const char *path, const char *dir, char *err,
				 size_t errlen)
{
	enum west_status st = WEST_OK;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return os_fail(path, "cannot open directory", dir, err, errlen);
	if (fsync(fd) != 0 && errno != EINVAL)
		st = os_fail(path, "fsync of directory", dir, err, errlen);
	close(fd);
	return st;
}

enum west_status west_file_replace(const char *path, const void *buf, size_t len,
				   mode_t mode, char *err, size_t errlen)
{
	char *dir = NULL, *tmp = NULL;
	enum west_status st = temp_names(path, &dir, &tmp, err, errlen);

	if (!st)
		st = write_temp(path, tmp, buf, len, mode, err, errlen);
	if (!st && rename(tmp, path) != 0) {
		st = os_fail(path, "rename of", tmp, err, errlen);
		unlink(tmp);
	}
	if (!st)
		st = sync_dir(path, dir, err, errlen);
	free(dir);
	free(tmp);
	return st;
}

int west_file_is_temp(const char *name)
{
	size_t n = strlen(name), s = sizeof TEMP_SUFFIX - 1;

	if (n < s + 2 || name[0] != '.' || memcmp(name + n - s, TEMP_SUFFIX, s - 6) != 0)
		return 0;
	for (size_t k = n - 6; k < n; k++)
		if (!isalnum((unsigned char)name[k]))
			return 0;
	return 1;
}

enum west_status west_dir_lock(const char *dir, const char *owner, int *fd,
			       char *err, size_t errlen)
{
	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0)
		return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot open directory: %s",
				 dir, strerror(errno));
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		return WEST_OK;
	if (errno == EWOULDBLOCK)
		return west_fail(err, errlen, WEST_ERR_IO, "%s: in use by another %s (locked)",
				 dir, owner);
	west_log(WEST_LOG_WARNING, "%s: cannot lock (%s); going on unlocked", dir,
		 strerror(errno));
	return WEST_OK;
}

/* fsync the directory that holds dir (after creating dir). */
enum west_status west_dir_sync_parent(const char *dir, char *err, size_t errlen)
{
	char parent[PATH_MAX];
	size_t n = strlen(dir);
	int fd, e;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	while (n > 0 && dir[n - 1] != '/')
		n--;
	while (n > 1 && dir[n - 1] == '/')
		n--;
	snprintf(parent, sizeof parent, "%.*s", (int)(n ? n : 1), n ? dir : ".");
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot open its parent %s: %s",
				 dir, parent, strerror(errno));
	e = fsync(fd) != 0 && errno != EINVAL ? errno : 0;
	close(fd);
	if (e)
		return west_fail(err, errlen, WEST_ERR_IO, "%s: fsync of its parent %s: %s",
				 dir, parent, strerror(e));
	return WEST_OK;
}
