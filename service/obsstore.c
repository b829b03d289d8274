/*
 * obsstore.c: accepted observation sets on disk (obsstore.h gives the
 * directory layout, the sequence numbers and the retention rule); the
 * sets are written by west_obs_to_json (obs_json.c).
 *
 * Saving: the JSON text is built in memory, then west_file_replace
 * (fileio.h, as the snapshots) writes it beside "<seq>.json" under a temp
 * name, fsyncs it, makes it 0640, renames it and fsyncs the directory.
 * A failure before the rename leaves no file; a failed directory fsync
 * leaves the complete file in place but the save fails and its number is
 * not counted, so the next save replaces it.  open removes the temp files
 * a crash left (west_file_is_temp names).
 *
 * Invariants: s->dir != NULL exactly while the store is open; s->last is
 * the largest sequence number of a well-named file this store has seen
 * (0: none), and the next save writes s->last + 1.  Sequence lists are
 * sorted newest (largest) first.
 */
#include "obsstore.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"

#define SEQ_DIGITS 20                 /* digits of ULLONG_MAX */
#define SEQ_SUFFIX ".json"
#define DIR_MODE 0750
#define FILE_MODE 0640
#define NAME_ROOM 64                  /* bytes a file name adds to dir */
#define DUMP_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

/* ============================================================== names */

/* 1 and *seq when name is exactly 20 digits (a value >= 1) and ".json". */
static int seq_of_name(const char *name, unsigned long long *seq)
{
	unsigned long long v = 0;

	if (strlen(name) != SEQ_DIGITS + strlen(SEQ_SUFFIX) ||
	    strcmp(name + SEQ_DIGITS, SEQ_SUFFIX) != 0)
		return 0;
	for (int k = 0; k < SEQ_DIGITS; k++) {
		unsigned d = (unsigned)(name[k] - '0');
		if (name[k] < '0' || name[k] > '9' || v > (ULLONG_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*seq = v;
	return v != 0;
}

static void seq_path(const struct west_obsstore *s, unsigned long long seq,
		     char *buf, size_t size)
{
	snprintf(buf, size, "%s/%020llu" SEQ_SUFFIX, s->dir, seq);
}

/* ============================================================== scan */

struct seq_list {
	unsigned long long *v;  /* newest first once scan returns */
	size_t n, cap;
};

static int push_seq(struct seq_list *l, unsigned long long seq)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		unsigned long long *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = seq;
	return 0;
}

static int newest_first(const void *a, const void *b)
{
	unsigned long long p = *(const unsigned long long *)a;
	unsigned long long q = *(const unsigned long long *)b;

	return p < q ? 1 : p > q ? -1 : 0;
}

/* A crash's leftover: remove it; only a warning when that fails. */
static void remove_temp(const struct west_obsstore *s, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/%s", s->dir, name);
	if (unlink(path) != 0)
		west_log(WEST_LOG_WARNING, "%s: cannot remove a leftover temp file: %s",
			 path, strerror(errno));
	else
		west_log(WEST_LOG_NOTICE, "%s: removed a leftover temp file", path);
}

/* The well-named files, newest first; sweep: remove temp leftovers on the way. */
static enum west_status scan(const struct west_obsstore *s, int sweep,
			     struct seq_list *l, char *err, size_t errlen)
{
	DIR *d = opendir(s->dir);
	struct dirent *e;
	unsigned long long seq;
	int nomem = 0, rerr;

	memset(l, 0, sizeof *l);
	if (!d)
		return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot list: %s",
				 s->dir, strerror(errno));
	for (errno = 0; !nomem && (e = readdir(d)) != NULL; errno = 0) {
		if (sweep && west_file_is_temp(e->d_name))
			remove_temp(s, e->d_name);
		else if (seq_of_name(e->d_name, &seq))
			nomem = push_seq(l, seq) != 0;
	}
	rerr = errno;
	closedir(d);
	if (nomem || rerr) {
		free(l->v);
		memset(l, 0, sizeof *l);
		return nomem ? west_fail(err, errlen, WEST_ERR_NOMEM, "%s: cannot "
					 "allocate the file list", s->dir)
			     : west_fail(err, errlen, WEST_ERR_IO, "%s: cannot list: %s",
					 s->dir, strerror(rerr));
	}
	if (l->n)
		qsort(l->v, l->n, sizeof *l->v, newest_first);
	return WEST_OK;
}

/* ============================================================== open */


static enum west_status make_dir(const char *dir, char *err, size_t errlen)
{
	if (strlen(dir) + NAME_ROOM >= PATH_MAX)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%.64s...: directory name too long", dir);
	if (mkdir(dir, DIR_MODE) == 0)
		return west_dir_sync_parent(dir, err, errlen);
	if (errno == EEXIST)
		return WEST_OK; /* not a directory: west_dir_lock says so */
	return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot create directory: %s",
			 dir, strerror(errno));
}

enum west_status west_obsstore_open(struct west_obsstore *s, const char *dir,
				    size_t keep, char *err, size_t errlen)
{
	struct seq_list l = { 0 };
	enum west_status st;

	memset(s, 0, sizeof *s);
	s->dirfd = -1;
	s->keep = keep;
	st = make_dir(dir, err, errlen);
	if (st != WEST_OK)
		return st;
	s->dir = strdup(dir);
	if (!s->dir)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "%s: cannot allocate", dir);
	st = west_dir_lock(s->dir, "observation store", &s->dirfd, err, errlen);
	if (st == WEST_OK)
		st = scan(s, 1, &l, err, errlen);
	if (st != WEST_OK) {
		west_obsstore_close(s);
		return st;
	}
	s->last = l.n ? l.v[0] : 0;
	free(l.v);
	return WEST_OK;
}

void west_obsstore_close(struct west_obsstore *s)
{
	if (!s->dir)
		return;
	if (s->dirfd >= 0)
		close(s->dirfd); /* releases the flock */
	free(s->dir);
	memset(s, 0, sizeof *s);
	s->dirfd = -1;
}

/* ============================================================== save */

/* Remove the files beyond the `keep` newest; failures are only logged. */
static void prune(const struct west_obsstore *s)
{
	struct seq_list l;
	char msg[WEST_ERRLEN], path[PATH_MAX];

	if (s->keep == 0)
		return;
	if (scan(s, 0, &l, msg, sizeof msg) != WEST_OK) {
		west_log(WEST_LOG_WARNING, "%s; old observation sets not removed", msg);
		return;
	}
	for (size_t k = s->keep; k < l.n; k++) {
		seq_path(s, l.v[k], path, sizeof path);
		if (unlink(path) != 0 && errno != ENOENT)
			west_log(WEST_LOG_WARNING, "%s: cannot remove an old observation "
				 "set: %s", path, strerror(errno));
	}
	free(l.v);
}

/* The set as the file's text (malloc'ed), NULL when out of memory. */
static char *dump_set(const struct west_obs_set *set)
{
	json_t *j = west_obs_to_json(set);
	char *text = j ? json_dumps(j, DUMP_FLAGS) : NULL;

	json_decref(j);
	return text;
}

enum west_status west_obsstore_text(const struct west_obsstore *s,
				    const struct west_obs_set *set, char **text,
				    unsigned long long *seq, char *err, size_t errlen)
{
	unsigned long long next = s->last + 1;
	char final[PATH_MAX];

	assert(s->dir && set);
	*text = NULL;
	seq_path(s, next, final, sizeof final);
	if (set->n == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: an empty observation set is not saved", final);
	if (next == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: sequence numbers used up", s->dir);
	if (!(*text = dump_set(set)))
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "%s: cannot build the JSON text", final);
	*seq = next;
	return WEST_OK;
}

enum west_status west_obsstore_save_text(struct west_obsstore *s, const char *text,
					 unsigned long long seq, char *err, size_t errlen)
{
	char final[PATH_MAX];
	enum west_status st;

	assert(seq == s->last + 1);
	seq_path(s, seq, final, sizeof final);
	st = west_file_replace(final, text, strlen(text), FILE_MODE, err, errlen);
	if (st != WEST_OK)
		return st;
	s->last = seq;
	prune(s);
	return WEST_OK;
}

enum west_status west_obsstore_save(struct west_obsstore *s,
				    const struct west_obs_set *set,
				    unsigned long long *seq, char *err, size_t errlen)
{
	unsigned long long next;
	char *text;
	enum west_status st = west_obsstore_text(s, set, &text, &next, err, errlen);

	if (!st)
		st = west_obsstore_save_text(s, text, next, err, errlen);
	free(text);
	if (!st && seq)
		*seq = next;
	return st;
}

/* ============================================================== read */

/*
 * The first file of l that reads into set: 1 and *found; else 0, with the
 * newest file's status and message in *newest_st and newest.
 */
static int load_first(const struct west_obsstore *s, const struct west_obs_opts *o,
		      const struct seq_list *l, struct west_obs_set *set,
		      unsigned long long *found, enum west_status *newest_st,
		      char *newest, size_t size)
{
	char path[PATH_MAX], msg[WEST_ERRLEN];

	for (size_t k = 0; k < l->n; k++) {
		char *m = k ? msg : newest;
		size_t mlen = k ? sizeof msg : size;
		enum west_status st;

		seq_path(s, l->v[k], path, sizeof path);
		st = west_obs_load(path, o, set, m, mlen);
		if (st == WEST_OK) {
			*found = l->v[k];
			return 1;
		}
		if (k == 0)
			*newest_st = st;
		west_log(WEST_LOG_WARNING, "%s (skipped; trying an older observation set)", m);
	}
	return 0;
}

enum west_status west_obsstore_load_newest(const struct west_obsstore *s,
					   const struct west_obs_opts *o,
					   struct west_obs_set *set,
					   unsigned long long *seq,
					   char *err, size_t errlen)
{
	char newest[WEST_ERRLEN] = "";
	enum west_status st, newest_st = WEST_OK;
	unsigned long long found = 0;
	struct seq_list l;
	int ok;

	assert(s->dir);
	memset(set, 0, sizeof *set);
	if (seq)
		*seq = 0;
	st = scan(s, 0, &l, err, errlen);
	if (st != WEST_OK)
		return st;
	ok = load_first(s, o, &l, set, &found, &newest_st, newest, sizeof newest);
	free(l.v);
	if (seq)
		*seq = found;
	if (ok || l.n == 0)
		return WEST_OK;
	return west_fail(err, errlen, newest_st, "%s: none of the %zu saved observation "
			 "sets can be read; the newest: %s", s->dir, l.n, newest);
}

enum west_status west_obsstore_list(const struct west_obsstore *s,
				    unsigned long long *seqs, size_t max, size_t *n,
				    char *err, size_t errlen)
{
	struct seq_list l;
	enum west_status st;

	assert(s->dir);
	*n = 0;
	st = scan(s, 0, &l, err, errlen);
	if (st != WEST_OK)
		return st;
	*n = l.n < max ? l.n : max;
	if (*n)
		memcpy(seqs, l.v, *n * sizeof *seqs);
	free(l.v);
	return WEST_OK;
}
