/*
 * obs_internal.h: what the observation readers (obs_json.c, obs_csv.c,
 * obs_list.c) share with obs.c: field checks, set allocation, placement on
 * the grid, duplicate ids, the CSV lexer, the records read before one per
 * station is picked, and reading a file.  Not part of libwest's interface.
 */
#ifndef WEST_OBS_INTERNAL_H
#define WEST_OBS_INTERNAL_H

#include "obs.h"

/*
 * For the readers (obs_json.c, obs_csv.c).  `rec` labels the record in
 * messages (station 2 (id "T1"), line 3 (station "T1")), `what`
 * the field or fields.  Range checks return NULL when v is acceptable, else
 * the problem, e.g. "must be in [0, 100] m/s".
 */
const char *west_obs_check_id(const char *id, size_t n);
const char *west_obs_check_height(double v);
const char *west_obs_check_speed(double v);
const char *west_obs_check_direction(double v);
const char *west_obs_check_z0(double v);

/* Empty set ("no observations") or more than o->max_stations (0: no limit). */
enum west_status west_obs_check_count(size_t n, const struct west_obs_opts *o,
				      char *err, size_t errlen);

/* set->obs as n zeroed records (inv_L and z0 NaN), set->n = n. */
enum west_status west_obs_set_alloc(struct west_obs_set *set, size_t n,
				    char *err, size_t errlen);

/* Check ob->x, ob->y against the grid extent (allow_outside: mark it). */
enum west_status west_obs_place(const struct west_obs_opts *o, struct west_obs *ob,
				const char *rec, const char *what,
				char *err, size_t errlen);

/* Project lon/lat (degrees) with the grid's TM into ob, then place it. */
enum west_status west_obs_project(const struct west_obs_opts *o, double lon,
				  double lat, struct west_obs *ob, const char *rec,
				  const char *what, char *err, size_t errlen);

/*
 * Two records with one id: 1 and their indices (first < second, second the
 * smallest such), 0 when ids are unique, -1 when out of memory.
 */
int west_obs_find_duplicate(const struct west_obs_set *set, size_t *first,
			    size_t *second);

/* valid_time = the latest time; log each station accepted off the grid. */
void west_obs_set_finish(struct west_obs_set *set);

/* A printable copy of s for messages (non-printing bytes as ?), cut at 40
 * characters. */
const char *west_obs_show(const char *s, char *buf, size_t size);

/*
 * The whole file at path into *buf (*len bytes, malloc'd, not
 * NUL-terminated); refuses a file of more than max bytes.  Messages do not
 * name the path (the caller does).
 */
enum west_status west_obs_read_file(const char *path, unsigned long long max,
				    char **buf, size_t *len, char *err, size_t errlen);

/* ---- the CSV lexer (obs_csv.c) ---------------------------------------- */

/*
 * RFC 4180 records: fields split on commas, a record ends at a line end
 * (LF or CRLF) outside quotes; a field in double quotes may hold commas,
 * line ends and doubled quotes ("" for one).  White space around a field,
 * inside or outside its quotes, is dropped.  A UTF-8 byte-order mark at
 * the start is skipped; a NUL byte is refused.  Blank lines are skipped.
 * Problems are kept in the record, with the field they are in, so that
 * the reader can label them: a quote inside an unquoted field, text after
 * a closing quote, a quote never closed (the record then runs to the end
 * of the text).
 */
#define WEST_CSV_MAXF 17 /* fields kept per record; more are only counted */

struct west_csv {
	char *buf;    /* a NUL-terminated copy of the text, fields written in place */
	char *p;      /* where the next record starts */
	size_t line;  /* the line p is on, from 1 */
};

struct west_csv_rec {
	size_t line;             /* the line the record starts on */
	int n;                   /* its fields, all of them */
	char *f[WEST_CSV_MAXF];  /* the first WEST_CSV_MAXF, unquoted and trimmed */
	int bad;                 /* the first field with a problem, or -1 */
	char problem[80];        /* that problem, e.g. "stray double quote" */
};

enum west_status west_csv_open(struct west_csv *c, const char *text, size_t len,
			       char *err, size_t errlen);
/* The next non-blank record into r; 0 at the end of the text.  With
 * header, a comma inside parentheses does not end an unquoted field
 * (WindNinja's header written without quotes: "Coord_Sys(PROJCS,GEOGCS)"). */
int west_csv_next(struct west_csv *c, int header, struct west_csv_rec *r);
void west_csv_close(struct west_csv *c);

/* The first field of a station file list's header, or NULL when r is not
 * one: "Station_File_List" or "Recent_Station_File_List". */
const char *west_csv_list_kind(const struct west_csv_rec *r);

/* ---- records before the pick (obs.c) ---------------------------------- */

/* Where a record was read. */
struct west_obs_from {
	const char *file;  /* the station file a list named, or NULL */
	size_t line;       /* the line the record starts on */
	int undated;       /* it had no time: it took the time of receipt */
	int no_tm;         /* PROJCS on a grid without a TM: class D given */
};

/* The records read from one text or several files, in reading order. */
struct west_obs_rows {
	struct west_obs *r;
	struct west_obs_from *from;
	size_t n, cap;
	long long received;   /* the time of receipt, for undated records */
};

/* Empty rows with received = o->received, or the clock when that is 0. */
void west_obs_rows_init(struct west_obs_rows *rows, const struct west_obs_opts *o);
/* One more zeroed record (inv_L and z0 NaN); NULL when out of memory. */
struct west_obs *west_obs_rows_add(struct west_obs_rows *rows, struct west_obs_from **from);
void west_obs_rows_free(struct west_obs_rows *rows);

/* The WindNinja CSV text's records, appended to rows; file labels them
 * (NULL for a text given alone).  A station file list is refused. */
enum west_status west_obs_csv_rows(const char *text, size_t len, const char *file,
				   const struct west_obs_opts *o,
				   struct west_obs_rows *rows, char *err, size_t errlen);

/*
 * One record per station id into set, by o's rule (obs.h), in the order
 * each station first appears; set->times filled; warnings logged (stations
 * left out, off the grid, PROJCS without a TM).  Two records of one
 * station with one time are refused, naming both lines; so is a set with
 * no records, no station left, or more than max_stations.
 */
enum west_status west_obs_pick(const struct west_obs_rows *rows,
			       const struct west_obs_opts *o,
			       struct west_obs_set *set, char *err, size_t errlen);

#endif
