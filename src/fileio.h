/*
 * fileio.h: replacing a file atomically and durably, for the NetCDF
 * snapshots and the persisted observation sets (docs/design.md sections 2
 * and 7).
 *
 * west_file_replace writes the bytes to a temp file in the same directory
 * (".NAME.tmp.XXXXXX", mode 0600 until complete), fsyncs it, sets `mode`,
 * renames it over NAME and fsyncs the directory.  A reader sees the old
 * file or the new one, never a part; a failure before the rename removes
 * the temp file and leaves the old file as it was.  A crash can leave a
 * temp file behind: west_file_is_temp recognizes the names, so that the
 * owner of a directory can sweep them at start; west_dir_lock makes sure
 * it is the only owner.
 */
#ifndef WEST_FILEIO_H
#define WEST_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

#include "status.h"

/* Errors are WEST_ERR_IO "PATH: CALL FILE: errno text" (or INVALID for a
 * path that names a directory, NOMEM). */
enum west_status west_file_replace(const char *path, const void *buf, size_t len,
				   mode_t mode, char *err, size_t errlen);

/* 1 when `name` (no directory part) is a temp name west_file_replace uses. */
int west_file_is_temp(const char *name);

/*
 * Open directory dir into *fd and take an exclusive flock(2) on it, held
 * until *fd is closed, so that one owner (`owner` names the kind in the
 * error: "observation store", "spool") has it at a time.  Refused with
 * WEST_ERR_IO "DIR: in use by another OWNER (locked)"; a filesystem that
 * cannot lock only gets a warning in the log.
 */
enum west_status west_dir_lock(const char *dir, const char *owner, int *fd,
			       char *err, size_t errlen);

/*
 * fsync the directory holding dir (trailing slashes ignored; "." for a
 * relative name without one), so that a directory just created survives a
 * crash.  A file system that cannot sync a directory (EINVAL) is not an
 * error.  WEST_ERR_IO names dir and its parent.
 */
enum west_status west_dir_sync_parent(const char *dir, char *err, size_t errlen);

#endif
