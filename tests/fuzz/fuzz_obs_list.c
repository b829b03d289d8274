/*
 * fuzz_obs_list.c: libFuzzer target for WindNinja station file lists,
 * west_obs_parse_list (src/obs_list.c), the list text plus the station CSV
 * files it names, read from a directory as `west run --obs LIST.csv`
 * (west_obs_load) and the spool directory (west_obs_parse_list, the
 * daemon's parse_body) read them.
 *
 * Input framing:
 *
 *   byte 0             options (below)
 *   LIST               the list text, up to the first "\n#file " or the end
 *   "\n#file NAME\n"   then up to FUZZ_LIST_FILES (4) station files, each a
 *   CONTENT            line "#file NAME" and the bytes up to the next
 *                      "\n#file " (the 4th file takes the rest, separators
 *                      and all)
 *
 * e.g. "\x01Station_File_List,\na.csv\n#file a.csv\nStation_Name,...\n".
 * Each input gets a fresh directory (mkdtemp under the private directory
 * of fuzz_common.h), the files NAME are written into it (in order; a
 * later one of the same name replaces an earlier), the list is parsed
 * against it, and then every file written is unlinked and the directory
 * removed: rmdir must succeed, so a file the parser created would abort
 * the run, as does a descriptor left open or (LeakSanitizer) memory.
 *
 * Confinement: the list names files by path, relative to its directory
 * or absolute, and the reader only opens them for reading; the fuzzer must
 * still never read a file outside its directory (non-deterministic, and
 * the machine's files are none of its business).  So every '/' byte of the
 * list text and of each NAME is rewritten to '_' before anything is
 * written or parsed (and a NUL in a NAME too; a NAME "." or ".." becomes
 * "_" or "_.", an empty one "_", one over 255 bytes is cut).  The one
 * exception: for west_obs_load, a text that west_obs_is_list says is no
 * list is written as it is, since west_obs_load then reads it as CSV and
 * opens nothing it names (the test is the loader's own, on the same bytes;
 * rewriting '/' cannot change its answer, '/' being no CSV syntax).  Then the
 * path the reader builds, DIR "/" FIELD, is DIR plus exactly one component
 * without a '/', which is a name inside DIR: "." and ".." are the only
 * components that leave it, and neither ends in ".csv", which the reader
 * requires before it opens anything (and the directory holds only the
 * regular files written here, no links).  Rewriting rather than rejecting
 * keeps every input useful and needs no second CSV lexer in the target to
 * find the fields (quotes, a BOM, blanks around fields and CRLF would all
 * have to match obs_csv.c's).  What it gives up is the absolute-path
 * branch of list_path (one snprintf), which tests/test_obs.c covers
 * (obs_list.relative_paths_against_the_list_absolute_as_they_are).
 *
 * Options byte:
 *   bit 0     the grid has the UTM 33N transverse Mercator CRS (GEOGCS
 *             stations and the solar elevation work), else no CRS;
 *   bit 1     allow_outside;
 *   bits 2-3  max_stations 0 (no limit), 1, 3 or 100;
 *   bit 4     entry point: 0 west_obs_parse_list(text, DIR, max_bytes) as
 *             the spool calls it, 1 west_obs_load("DIR/list.csv") as
 *             west run does (the list written to list.csv after the
 *             station files; the 64 MiB limit; a text that is no list is
 *             read as CSV);
 *   bits 5-6  parse_list's max_bytes: 64 MiB, 2048, 600 or 0 bytes;
 *   bit 7     pick: the record of each station nearest
 *             2026-11-22T11:00:00Z within 1800 s, else the newest.
 * The time of receipt of undated records is fixed (2026-11-22T12:00:00Z),
 * not the clock, so that every input is deterministic.
 *
 * An accepted set is checked against obs.c's invariants (fuzz_obs.h) and
 * what set->times says of it; a refused one must come back empty with a
 * message.
 */
#include "fuzz_obs.h"

#define FUZZ_LIST_FILES 4
#define FILE_SEP "\n#file "
#define NAME_MAX_BYTES 255

struct list_file {
	char name[NAME_MAX_BYTES + 1];
	const uint8_t *data;
	size_t n;
};

/* NAME as a name inside the directory (see Confinement above). */
static void safe_name(const uint8_t *p, size_t n, char *out)
{
	if (n > NAME_MAX_BYTES)
		n = NAME_MAX_BYTES;
	for (size_t k = 0; k < n; k++)
		out[k] = (p[k] == '/' || p[k] == '\0') ? '_' : (char)p[k];
	out[n] = '\0';
	if (n == 0 || !strcmp(out, ".") || !strcmp(out, "..")) {
		out[0] = '_';      /* "" -> "_", "." -> "_", ".." -> "_." */
		out[n ? n : 1] = '\0';
	}
}

/* Cut the input after the options byte into the list and its files. */
static size_t split_files(const uint8_t *data, size_t size, size_t *list_n,
			  struct list_file *files)
{
	const uint8_t *rest;
	size_t n1, n2, nfiles = 0;

	fuzz_split(data, size, FILE_SEP, list_n, &rest, &n2);
	if (*list_n == size)
		return 0;
	while (nfiles < FUZZ_LIST_FILES) {
		struct list_file *f = &files[nfiles++];
		const uint8_t *nl = memchr(rest, '\n', n2);
		size_t name_n = nl ? (size_t)(nl - rest) : n2;

		safe_name(rest, name_n, f->name);
		f->data = nl ? nl + 1 : rest + n2;
		f->n = nl ? n2 - name_n - 1 : 0;
		if (nfiles == FUZZ_LIST_FILES)
			break;
		if (!fuzz_split(f->data, f->n, FILE_SEP, &n1, &rest, &n2))
			break;
		f->n = n1;
	}
	return nfiles;
}

/* What set->times says of an accepted set. */
static void check_times(const struct west_obs_set *set, const struct west_obs_opts *o)
{
	const struct west_obs_times *t = &set->times;

	FUZZ_ASSERT(t->pick == o->pick, "times.pick %d, asked %d", t->pick, o->pick);
	FUZZ_ASSERT(t->stations == set->n, "times.stations %zu, n %zu", t->stations, set->n);
	FUZZ_ASSERT(t->records >= set->n + t->left_out, "%zu records for %zu stations and %zu "
		    "left out", t->records, set->n, t->left_out);
	FUZZ_ASSERT(t->undated <= set->n, "%zu undated of %zu", t->undated, set->n);
	FUZZ_ASSERT(t->received == o->received, "received %lld, given %lld", t->received,
		    o->received);
	FUZZ_ASSERT(t->oldest <= t->newest && t->newest == set->valid_time,
		    "oldest %lld, newest %lld, valid_time %lld", t->oldest, t->newest,
		    set->valid_time);
	for (size_t i = 0; i < set->n; i++) {
		long long d = set->obs[i].time - o->time;
		FUZZ_ASSERT(set->obs[i].time >= t->oldest, "station %zu before the oldest", i);
		if (o->pick == WEST_OBS_PICK_NEAREST)
			FUZZ_ASSERT(d <= o->window && -d <= o->window, "station %zu: %lld s from "
				    "the time asked, window %lld", i, d, o->window);
	}
}

/* The directory must hold nothing but what the input wrote. */
static void remove_dir(const char *dir, const struct list_file *files, size_t nfiles)
{
	char p[sizeof fuzz_dir + 2 * NAME_MAX_BYTES];

	for (size_t i = 0; i < nfiles; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, files[i].name);
		unlink(p);
	}
	snprintf(p, sizeof p, "%s/list.csv", dir);
	unlink(p);
	fuzz_rmdir_empty(dir, "the parser left a file");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t max_stations[4] = { 0, 1, 3, 100 };
	static const unsigned long long max_bytes[4] = { 64ull << 20, 2048, 600, 0 };
	static long long t_noon, t_eleven;
	struct list_file files[FUZZ_LIST_FILES];
	struct west_obs_opts o;
	struct west_obs_set set;
	char dir[sizeof fuzz_dir + 16], path[sizeof dir + NAME_MAX_BYTES + 2];
	char err[WEST_ERRLEN] = "", *list;
	size_t list_n, nfiles;
	enum west_status s;
	int fd_mark;

	fuzz_init();
	if (!t_noon && (!west_obs_time_parse("2026-11-22T12:00:00Z", &t_noon) ||
			!west_obs_time_parse("2026-11-22T11:00:00Z", &t_eleven)))
		abort();
	if (size < 1)
		return 0;
	fd_mark = fuzz_fd_mark();
	o = (struct west_obs_opts){ .grid = fuzz_obs_grid(data[0] & 1),
				    .allow_outside = (data[0] >> 1) & 1,
				    .max_stations = max_stations[(data[0] >> 2) & 3],
				    .received = t_noon };
	if (data[0] & 0x80)
		o.pick = WEST_OBS_PICK_NEAREST, o.time = t_eleven, o.window = 1800;
	nfiles = split_files(data + 1, size - 1, &list_n, files);
	list = fuzz_strndup(data + 1, list_n);
	if (!(data[0] & 0x10) || west_obs_is_list(list, list_n))
		for (size_t k = 0; k < list_n; k++)
			if (list[k] == '/')
				list[k] = '_';

	snprintf(dir, sizeof dir, "%s/l.XXXXXX", fuzz_dir);
	FUZZ_ASSERT(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
	for (size_t i = 0; i < nfiles; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
		fuzz_write(path, files[i].data, files[i].n);
	}
	if (data[0] & 0x10) {
		snprintf(path, sizeof path, "%s/list.csv", dir);
		fuzz_write(path, (const uint8_t *)list, list_n);
		s = west_obs_load(path, &o, &set, err, sizeof err);
	} else {
		s = west_obs_parse_list(list, list_n, dir, max_bytes[(data[0] >> 5) & 3], &o,
					&set, err, sizeof err);
	}
	if (getenv("WEST_FUZZ_VERBOSE")) /* what each input gave, to check seeds */
		fprintf(stderr, "options 0x%02x, %zu files: %s: %zu stations%s%s\n", data[0],
			nfiles, west_status_str(s), set.n, err[0] ? ": " : "", err);
	fuzz_obs_outcome(s, &set, &o, err);
	if (s == WEST_OK)
		check_times(&set, &o);
	west_obs_set_free(&set);
	free(list);
	remove_dir(dir, files, nfiles);
	fuzz_fd_check(fd_mark);
	return 0;
}
