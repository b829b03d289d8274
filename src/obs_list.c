/*
 * obs_list.c: WindNinja station file lists (obs.h, west_obs_parse_list;
 * docs/api.md, "Station file lists").
 *
 * WindNinja's station fetch writes one CSV file per station and, beside
 * them, a list naming them, which its command line takes in their place:
 *
 *   Station_File_List,
 *   KMSO-MDT-2018-06-20_2128-2018-06-21_2128-0.csv
 *   TS934-MDT-2018-06-20_2128-2018-06-21_2128-1.csv
 *
 * (Recent_Station_File_List for "current data", whose files have no
 * date_time; both read alike here, each file's rows say whether they have
 * times).  The list is CSV too (the lexer of obs_csv.c): the first record's
 * first field is the header, then each record is one file name, further
 * fields empty (a trailing comma is fine); a name not ending in .csv (any
 * case) is refused, where WindNinja skips it silently.  A relative name
 * is taken against dir, the list's directory; an absolute one as it is.
 *
 * Every file's records are read (obs_csv.c) into one pool and then one
 * record per station is kept (west_obs_pick), so a station may be split
 * over several files, and two files giving one station at one time are
 * refused, naming both.  The files count together against max_bytes.
 * Errors name the list's line and the file as resolved:
 * "line 3: DIR/A.csv: cannot open: No such file or directory".
 *
 * The list names files on this machine: only callers that read local
 * input (west run, the spool directory) use it, never a network request.
 */
#include "obs_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct list_ctx {
	const char *dir;
	unsigned long long budget;   /* bytes the files may still hold */
	unsigned long long max;
	char **paths;                /* the files read, for the records' labels */
	size_t npaths;
	struct west_obs_rows rows;
};

/* The list's header: its first record must name a list. */
static enum west_status list_header(struct west_csv *c, char *err, size_t errlen)
{
	struct west_csv_rec r;
	char buf[48];

	if (!west_csv_next(c, 1, &r))
		return west_fail(err, errlen, WEST_ERR_INVALID, "line 1: empty station "
				 "file list");
	if (!west_csv_list_kind(&r))
		return west_fail(err, errlen, WEST_ERR_INVALID, "line %zu: \"%s\" is not a "
				 "station file list header (Station_File_List or "
				 "Recent_Station_File_List)", r.line,
				 west_obs_show(r.f[0], buf, sizeof buf));
	return WEST_OK;
}

static int ends_with_csv(const char *s)
{
	size_t n = strlen(s);

	return n >= 4 && strcasecmp(s + n - 4, ".csv") == 0;
}

/* The path the record names, resolved against x->dir, into path. */
static enum west_status list_path(const struct list_ctx *x, const struct west_csv_rec *r,
				  char *path, size_t size, char *err, size_t errlen)
{
	const char *name = r->f[0];
	char buf[48];
	int n;

	if (r->bad >= 0)
		return west_fail(err, errlen, WEST_ERR_INVALID, "line %zu: %s", r->line,
				 r->problem);
	for (int k = 1; k < r->n && k < WEST_CSV_MAXF; k++)
		if (r->f[k][0])
			return west_fail(err, errlen, WEST_ERR_INVALID, "line %zu: \"%s\" "
					 "after the file name: one file per line", r->line,
					 west_obs_show(r->f[k], buf, sizeof buf));
	if (!ends_with_csv(name))
		return west_fail(err, errlen, WEST_ERR_INVALID, "line %zu: \"%s\" is not a "
				 "station file (.csv)", r->line, west_obs_show(name, buf, sizeof buf));
	n = name[0] == '/' ? snprintf(path, size, "%s", name)
			   : snprintf(path, size, "%s/%s", x->dir, name);
	if (n < 0 || (size_t)n >= size)
		return west_fail(err, errlen, WEST_ERR_INVALID, "line %zu: the path of "
				 "\"%s\" is longer than %zu bytes", r->line,
				 west_obs_show(name, buf, sizeof buf), size - 1);
	return WEST_OK;
}

/* Read the file the record names and add its records to the pool. */
static enum west_status list_file(struct list_ctx *x, const struct west_csv_rec *r,
				  const struct west_obs_opts *o, char *err, size_t errlen)
{
	char path[PATH_MAX], msg[WEST_ERRLEN], *buf = NULL, **p;
	size_t len = 0;
	enum west_status s = list_path(x, r, path, sizeof path, err, errlen);

	if (s != WEST_OK)
		return s;
	p = realloc(x->paths, (x->npaths + 1) * sizeof *p);
	if (!p || !(p[x->npaths] = strdup(path))) {
		x->paths = p ? p : x->paths;
		return west_fail(err, errlen, WEST_ERR_NOMEM, "line %zu: cannot allocate", r->line);
	}
	x->paths = p;
	x->npaths++;   /* owned from here: freed with the others */
	s = west_obs_read_file(path, x->budget, &buf, &len, msg, sizeof msg);
	if (s == WEST_ERR_INVALID)  /* only the size */
		return west_fail(err, errlen, s, "line %zu: %s: the listed files hold more "
				 "than %llu bytes in all, the limit", r->line, path, x->max);
	if (s != WEST_OK)
		return west_fail(err, errlen, s, "line %zu: %s: %s", r->line, path, msg);
	x->budget -= len;
	s = west_obs_csv_rows(buf, len, x->paths[x->npaths - 1], o, &x->rows, msg, sizeof msg);
	free(buf);
	if (s != WEST_OK)
		return west_fail(err, errlen, s, "line %zu: %s: %s", r->line, path, msg);
	return WEST_OK;
}

static enum west_status list_read(struct list_ctx *x, const char *text, size_t len,
				  const struct west_obs_opts *o, size_t *files,
				  char *err, size_t errlen)
{
	struct west_csv c;
	struct west_csv_rec r;
	enum west_status s = west_csv_open(&c, text, len, err, errlen);

	if (s == WEST_OK)
		s = list_header(&c, err, errlen);
	while (s == WEST_OK && west_csv_next(&c, 0, &r)) {
		s = list_file(x, &r, o, err, errlen);
		++*files;
	}
	west_csv_close(&c);
	return s;
}

enum west_status west_obs_parse_list(const char *text, size_t len, const char *dir,
				     unsigned long long max_bytes,
				     const struct west_obs_opts *o,
				     struct west_obs_set *set, char *err, size_t errlen)
{
	struct list_ctx x = { dir, max_bytes, max_bytes, NULL, 0, { 0 } };
	enum west_status s;
	size_t files = 0;

	memset(set, 0, sizeof *set);
	if (!o || !o->grid)
		return west_fail(err, errlen, WEST_ERR_INVALID, "no grid to check stations against");
	west_obs_rows_init(&x.rows, o);
	s = list_read(&x, text, len, o, &files, err, errlen);
	if (s == WEST_OK && files == 0)
		s = west_fail(err, errlen, WEST_ERR_INVALID, "the station file list names "
			      "no files");
	if (s == WEST_OK)
		s = west_obs_pick(&x.rows, o, set, err, errlen);
	west_obs_rows_free(&x.rows);
	for (size_t i = 0; i < x.npaths; i++)
		free(x.paths[i]);
	free(x.paths);
	return s;
}
