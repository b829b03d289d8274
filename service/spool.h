/*
 * spool.h: the directory into which cron jobs and met-tower feeds drop
 * observation files for westd to take in.
 *
 * The spool delivers paths and records outcomes; it never reads a file's
 * content (the caller parses it and gives the verdict).
 *
 * Protocol a writer must follow:
 *   1. Write the file under a temp name in the spool directory: any name
 *      starting with '.' (".obs.json.part") or ending in ".tmp"
 *      ("obs.json.tmp").  The spool never touches such a name.
 *   2. When the file is complete (and fsynced, if it must survive a
 *      crash), rename(2) it to its final name NAME.json or NAME.csv in
 *      the same directory (same file system, so the rename is atomic).
 *   NAME is 1 to 200 bytes of [A-Za-z0-9._-] and does not start with '.'.
 *   A writer that creates the final name directly and writes into it
 *   risks having a partial file delivered: the spool cannot tell.
 *
 * Which names are taken: regular files (not followed through a symlink)
 * whose name is NAME.json or NAME.csv by the rule above.  Every other
 * entry (temp names, "notes.txt", "a b.json", a directory "d.json", a
 * symlink, a NAME over 200 bytes) is ignored: never delivered, never
 * moved, never deleted, and not logged either (the directory is scanned
 * on every call, so a log line per scan would repeat forever; keeping
 * memory of names already reported is not worth the state).
 *
 * Directory layout (dir as given to west_spool_open):
 *   dir/NAME.json, dir/NAME.csv  waiting to be taken
 *   dir/done/                    files the caller accepted
 *   dir/failed/                  files the caller refused, each with
 *   dir/failed/FILE.error        the reason: one line of text ending in
 *                                '\n' (newlines in the reason become
 *                                spaces), mode 0640
 * open creates dir, done/ and failed/ when missing (mode 0750 less the
 * umask; dir's parent must exist) and removes the temp files that a crash
 * of west_file_replace may have left in failed/ (fileio.h's names).
 *
 * Order: the oldest ready file first, by modification time (ns), then by
 * name (strcmp) among equal times.
 *
 * Moves: done() and failed() rename(2) the file into done/ or failed/.
 * A name already taken there is never overwritten: the file gets the
 * first free name NAME.1.json, NAME.2.json, ... (up to
 * WEST_SPOOL_MAX_SUFFIX; renameat2 RENAME_NOREPLACE where the file system
 * has it).  For failed(), FILE.error is named after the file's final name
 * (failed/a.1.json.error) and written after the rename with
 * west_file_replace.
 *
 * Wake-ups: next() makes a full scan of the directory every time; the
 * inotify fd (west_spool_fd: IN_MOVED_TO | IN_CLOSE_WRITE on dir,
 * non-blocking, close-on-exec) only tells the caller when to call next()
 * early.  The caller must also call next() on a timer: that scan is the
 * fallback when inotify is unavailable (fd -1, a warning is logged at
 * open), when its queue overflowed, and for files that were already
 * there.  An event may come for a temp name or a moved-away file, so a
 * wake-up can find nothing; that is not an error.  Call next() until it
 * finds nothing before waiting again.
 *
 * Invariants and guarantees:
 *   - s->dir != NULL exactly while the spool is open; it has no trailing
 *     '/' (except for "/"), and every path next() gives is s->dir + "/" +
 *     the file's name.
 *   - done() and failed() take only such a path (one next() gave, or the
 *     same string built alike) of a ready name; anything else fails with
 *     WEST_ERR_INVALID and changes nothing.  A path that is no longer
 *     there (already moved) fails with WEST_ERR_IO and changes nothing.
 *   - Delivery is at least once: a file stays in dir until done() or
 *     failed() has moved it, so after a crash the caller may be handed a
 *     file it had already processed.  The moves are not fsynced.
 *   - Exclusion: open takes an exclusive flock(2) on dir, held until
 *     close, so a second spool on the same directory (another westd, or a
 *     second open in one process) is refused rather than delivering the
 *     same files twice.  A spool is not thread-safe.
 */
#ifndef WEST_SPOOL_H
#define WEST_SPOOL_H

#include <stddef.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WEST_SPOOL_NAME_MAX 200    /* bytes of NAME, before ".json"/".csv" */
#define WEST_SPOOL_MAX_SUFFIX 9999 /* NAME.9999.json is the last name tried */

struct west_spool {
	char *dir;      /* the spool directory; NULL when closed */
	int inotify_fd; /* -1 when inotify is unavailable or closed */
	int wd;         /* the watch on dir; -1 without one */
	int dirfd;      /* open on dir, holds the flock; -1 when closed */
};

/*
 * Create dir, dir/done and dir/failed where missing, lock dir, sweep
 * failed/'s temp leftovers and set up inotify (a warning, not a failure,
 * when that cannot be done).  Errors name the path: "PATH: cannot create
 * directory: No such file or directory", "DIR: in use by another spool
 * (locked)".  On failure *s is closed (west_spool_close is harmless).
 */
enum west_status west_spool_open(struct west_spool *s, const char *dir,
				 char *err, size_t errlen);

/* The inotify fd to poll(2) for POLLIN, or -1: then rely on the timer. */
int west_spool_fd(const struct west_spool *s);

/*
 * Drain the pending inotify events (never blocks) and scan dir.  *found =
 * 1 and path = the full path of the oldest ready file, or *found = 0 and
 * path = "".  The file stays where it is until done() or failed(), so
 * calling next() again without them gives the same file.
 */
enum west_status west_spool_next(struct west_spool *s, char *path, size_t pathlen,
				 int *found, char *err, size_t errlen);

/* The caller accepted the file at path: move it into done/. */
enum west_status west_spool_done(struct west_spool *s, const char *path,
				 char *err, size_t errlen);

/*
 * The caller refused the file at path because of why (one line; a
 * newline in it becomes a space): move it into failed/ and write
 * FILE.error beside it.  If the rename succeeds and the .error file cannot
 * be written, the file stays in failed/ without it and the call fails
 * with WEST_ERR_IO naming both.
 */
enum west_status west_spool_failed(struct west_spool *s, const char *path,
				   const char *why, char *err, size_t errlen);

/* Release the fds and the lock; *s is closed.  Harmless on a closed spool. */
void west_spool_close(struct west_spool *s);

#ifdef __cplusplus
}
#endif

#endif
