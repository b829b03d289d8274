/*
 * obsstore.h: the accepted observation sets, kept on disk so that a
 * restarted westd resumes from the newest (docs/design.md section 2; the
 * daemon's state_dir/observations).
 *
 * The daemon saves every set it accepts before it answers 202 (while the
 * set is being solved; its field is published once it is saved: worker.h's
 * held submits): when the save returns WEST_OK the file and its directory
 * entry are on stable storage (fsync of the file, then of the directory).
 *
 * Directory layout (one directory per store, owned by one store at a time):
 *   NNNNNNNNNNNNNNNNNNNN.json   a saved set; N = its sequence number, 20
 *                               decimal digits zero-padded (so names sort
 *                               as numbers), 1 <= N <= ULLONG_MAX.  The
 *                               content is the JSON of docs/api.md,
 *                               "Observations", as west_obs_to_json writes
 *                               it: a file can be POSTed back as it is.
 *   .NNNNNNNNNNNNNNNNNNNN.json.tmp.XXXXXX
 *                               a save in progress (fileio.h's temp name).
 *                               Any such name is a leftover of a crash
 *                               once no store has the directory open, and
 *                               west_obsstore_open removes it.
 * Every other name (README, 0.json, a 21-digit name, number 0) is ignored:
 * never parsed, never deleted.  The directory is created with
 * mode 0750 (less the umask), files get mode 0640 (fchmod, whatever the
 * umask).
 *
 * Sequence numbers: the next save gets one more than the largest number
 * of any well-named file present at open (corrupt or not), so numbers
 * only grow and a restarted store continues the sequence.  0 means "no
 * set" (west_obsstore_load_newest on a store with no files).
 *
 * Retention: `keep` > 0 keeps the `keep` newest well-named files; after
 * each successful save the older ones are removed (a removal that fails
 * is logged and retried at the next save, never reported as a failed
 * save).  keep = 0 keeps everything.
 *
 * Exclusion: open takes an exclusive flock(2) on the directory, held until
 * close, so a second store on the same directory (another westd, or a
 * second open in one process) is refused instead of sweeping the first
 * one's temp files or reusing its numbers.  A store is not thread-safe:
 * the caller serialises its calls.
 *
 * The directory is used by the path given: pass an absolute one if the
 * process may change directory.
 */
#ifndef WEST_OBSSTORE_H
#define WEST_OBSSTORE_H

#include <stddef.h>

#include <jansson.h>

#include "obs.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct west_obsstore {
	char *dir;                /* the directory, as given to open */
	int dirfd;                /* open on dir, holds the flock; -1 when closed */
	size_t keep;              /* files to retain; 0 = all */
	unsigned long long last;  /* largest sequence number on disk; 0 = none */
};

/*
 * Open the store in dir (created, mode 0750, when missing; its parent must
 * exist): lock it, remove leftover ".tmp-*" files, find the largest
 * sequence number.  On failure *s is closed and err names dir.
 */
enum west_status west_obsstore_open(struct west_obsstore *s, const char *dir,
				    size_t keep, char *err, size_t errlen);

/*
 * Write set (n >= 1) as the next sequence number (*seq, when seq is not
 * NULL), durably, then trim to `keep` files.  Atomic: on any failure no
 * temp file and no new .json is left, the sequence number is not used up,
 * and err names the file and the errno text.
 */
enum west_status west_obsstore_save(struct west_obsstore *s,
				    const struct west_obs_set *set,
				    unsigned long long *seq, char *err, size_t errlen);

/*
 * Save in two steps, so that the set can be handed on between them: text
 * makes the file's text (*text, the caller frees it) and the sequence
 * number it will have (*seq), with save's checks; save_text writes it as
 * save does (no other save in between).
 */
enum west_status west_obsstore_text(const struct west_obsstore *s,
				    const struct west_obs_set *set, char **text,
				    unsigned long long *seq, char *err, size_t errlen);
enum west_status west_obsstore_save_text(struct west_obsstore *s, const char *text,
					 unsigned long long seq, char *err, size_t errlen);

/*
 * The newest set that reads back against o into *set (free it with
 * west_obs_set_free), its number in *seq.  A file that does not read
 * (corrupt, or refused by a changed grid or max_stations) is skipped with a
 * warning logged, naming it, and the next older one tried.
 *   - no saved file at all: WEST_OK, *seq = 0 and *set empty (n = 0,
 *     obs = NULL): start without observations;
 *   - saved files but none reads: the status of the newest one's failure,
 *     err naming the directory, the count and the newest file's problem;
 *     *seq = 0, *set empty;
 *   - the directory cannot be listed: WEST_ERR_IO.
 */
enum west_status west_obsstore_load_newest(const struct west_obsstore *s,
					   const struct west_obs_opts *o,
					   struct west_obs_set *set,
					   unsigned long long *seq,
					   char *err, size_t errlen);

/*
 * The sequence numbers on disk, newest first: at most max into seqs, *n
 * how many were written.  Files are listed by name (not read).
 */
enum west_status west_obsstore_list(const struct west_obsstore *s,
				    unsigned long long *seqs, size_t max, size_t *n,
				    char *err, size_t errlen);

/* Release the lock and the memory; *s may be closed already or zeroed. */
void west_obsstore_close(struct west_obsstore *s);

#ifdef __cplusplus
}
#endif

#endif
