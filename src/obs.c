/*
 * obs.c: what the observation readers share (obs.h): field range checks,
 * placing a station on the grid, duplicate ids, the set's life cycle, the
 * pick of one record per station from a time series, time stamps, the
 * stability rules, and west_obs_load, which reads a file and hands it to
 * obs_json.c, obs_csv.c or obs_list.c by its extension and content.
 *
 * The pick (docs/api.md, "Time series"): records are grouped by station
 * id (sorted by id, then time, then reading order).  Two records of one
 * station with one time are refused.  PICK_NEWEST keeps each station's
 * newest record; PICK_NEAREST the one with the smallest |time - T|, the
 * earlier of two equally near (it was known at T), and leaves the station
 * out when that exceeds the window.  The kept stations are in the order
 * of their first record.
 *
 * Invariants of an accepted set: 1 <= n <= max_stations (when a limit is
 * set); ids unique, 1..63 printable ASCII bytes, no space at either end;
 * height > 0 m, speed in [0, 100] m/s, direction in [0, 360] degrees;
 * every station inside the grid's closed extent [x0, x0 + nx dx] x
 * [y0, y0 + ny dy] unless allow_outside marked it `outside`; stability a
 * class A..F; valid_time the latest time.  A refused set is n = 0,
 * obs = NULL.
 *
 * Stability rules (docs/api.md, "Stability"):
 *  - from 1/L: Golder (1972), "Relations among stability parameters in the
 *    surface layer", Boundary-Layer Meteorol. 3, 47-58, as the straight
 *    lines 1/L = a + b log10(z0) of Seinfeld & Pandis, "Atmospheric
 *    Chemistry and Physics", 2nd ed. (2006), Table 16.5 (fit of Myrup &
 *    Ranzieri 1976); the nearest line wins, so the class boundaries are the
 *    midpoints between adjacent lines.
 *  - from wind, insolation and cloud: Pasquill (1961), Turner (1964), as
 *    tabulated in Seinfeld & Pandis (2006), Table 16.4; intermediate classes
 *    (A-B, B-C, C-D) are taken as the more stable one.  The solar elevation
 *    comes from NOAA's "General Solar Position Calculations" (NOAA Global
 *    Monitoring Division; the fractional-year series of Spencer 1971).
 */
#include "obs_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "log.h"
#include "proj.h"

#define OBS_FILE_MAX (64ull << 20) /* bytes; larger observation files are refused */

/* ---- field checks ---------------------------------------------------- */

const char *west_obs_check_id(const char *id, size_t n)
{
	if (n == 0)
		return "must not be empty";
	if (n >= WEST_OBS_ID_MAX)
		return "longer than 63 bytes";
	for (size_t i = 0; i < n; i++)
		if (id[i] < 0x20 || id[i] > 0x7e)
			return "must be printable ASCII";
	if (id[0] == ' ' || id[n - 1] == ' ')
		return "must not start or end with a space";
	return NULL;
}

const char *west_obs_check_height(double v)
{
	return isfinite(v) && v > 0.0 ? NULL : "must be a finite number > 0 m";
}

const char *west_obs_check_speed(double v)
{
	return v >= 0.0 && v <= 100.0 ? NULL : "must be in [0, 100] m/s";
}

const char *west_obs_check_direction(double v)
{
	return v >= 0.0 && v <= 360.0 ? NULL : "must be in [0, 360] degrees";
}

const char *west_obs_check_z0(double v)
{
	return v > 0.0 && v < 10.0 ? NULL : "must be > 0 and < 10 m";
}

/* ---- the set --------------------------------------------------------- */

enum west_status west_obs_check_count(size_t n, const struct west_obs_opts *o,
				      char *err, size_t errlen)
{
	if (n == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID, "no observations");
	if (o->max_stations && n > o->max_stations)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%zu observations, more than max_stations = %zu",
				 n, o->max_stations);
	return WEST_OK;
}

enum west_status west_obs_set_alloc(struct west_obs_set *set, size_t n,
				    char *err, size_t errlen)
{
	set->obs = calloc(n, sizeof *set->obs);
	if (!set->obs)
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "cannot allocate %zu observations", n);
	set->n = n;
	for (size_t i = 0; i < n; i++)
		set->obs[i].inv_L = set->obs[i].z0 = NAN;
	return WEST_OK;
}

void west_obs_set_free(struct west_obs_set *set)
{
	if (!set)
		return;
	free(set->obs);
	memset(set, 0, sizeof *set);
}

void west_obs_set_finish(struct west_obs_set *set)
{
	set->valid_time = set->obs[0].time;
	for (size_t i = 0; i < set->n; i++) {
		const struct west_obs *ob = &set->obs[i];
		if (ob->time > set->valid_time)
			set->valid_time = ob->time;
		if (ob->outside)
			west_log(WEST_LOG_WARNING, "station \"%s\" at (%.2f, %.2f) m is "
				 "outside the grid; accepted (allow_outside)",
				 ob->id, ob->x, ob->y);
	}
}

double west_obs_max_speed(const struct west_obs_set *set)
{
	double m = 0.0;

	for (size_t i = 0; set && i < set->n; i++)
		if (set->obs[i].speed > m)
			m = set->obs[i].speed;
	return m;
}

const char *west_stability_name(int stability)
{
	static const char *const names[WEST_NSTAB] = { "A", "B", "C", "D", "E", "F" };

	return stability >= 0 && stability < WEST_NSTAB ? names[stability] : "?";
}

/* ---- records before the pick ---------------------------------------- */

void west_obs_rows_init(struct west_obs_rows *rows, const struct west_obs_opts *o)
{
	memset(rows, 0, sizeof *rows);
	rows->received = o && o->received ? o->received : (long long)time(NULL);
}

struct west_obs *west_obs_rows_add(struct west_obs_rows *rows, struct west_obs_from **from)
{
	struct west_obs *ob;

	if (rows->n == rows->cap) {
		size_t cap = rows->cap ? 2 * rows->cap : 64;
		struct west_obs *r = realloc(rows->r, cap * sizeof *r);
		struct west_obs_from *f = r ? realloc(rows->from, cap * sizeof *f) : NULL;

		if (r)
			rows->r = r;
		if (!f)
			return NULL;
		rows->from = f, rows->cap = cap;
	}
	ob = memset(&rows->r[rows->n], 0, sizeof *ob);
	ob->inv_L = ob->z0 = NAN;
	*from = memset(&rows->from[rows->n++], 0, sizeof **from);
	return ob;
}

void west_obs_rows_free(struct west_obs_rows *rows)
{
	free(rows->r);
	free(rows->from);
	memset(rows, 0, sizeof *rows);
}

/* ---- the pick -------------------------------------------------------- */

struct kept {
	size_t first;   /* the station's first record */
	size_t rec;     /* the record kept */
};

struct pick {
	const struct west_obs_rows *rows;
	const struct west_obs_opts *o;
	const struct west_obs **v;  /* the records sorted by id, time, order */
	struct kept *keep;          /* per station kept */
	size_t nkeep;
	size_t *out;                /* per station left out: its nearest record */
	size_t nout;
};

/* By id, then time, then reading order (the pointers are into one array). */
static int cmp_id_time(const void *a, const void *b)
{
	const struct west_obs *p = *(const struct west_obs *const *)a;
	const struct west_obs *q = *(const struct west_obs *const *)b;
	int c = strcmp(p->id, q->id);

	if (c)
		return c;
	if (p->time != q->time)
		return p->time < q->time ? -1 : 1;
	return p < q ? -1 : p > q;
}

/* "[FILE: ]line N (station "X")", or "station N (id "X")" without origins. */
static void rec_label(const struct west_obs_rows *rows, size_t i, char *buf, size_t size)
{
	const struct west_obs_from *f = rows->from ? &rows->from[i] : NULL;

	if (!f)
		snprintf(buf, size, "station %zu (id \"%s\")", i + 1, rows->r[i].id);
	else
		snprintf(buf, size, "%s%sline %zu (station \"%s\")", f->file ? f->file : "",
			 f->file ? ": " : "", f->line, rows->r[i].id);
}

/* Two records of one station at one time: the pair whose later record
 * comes first in reading order. */
static enum west_status pick_duplicates(const struct pick *p, char *err, size_t errlen)
{
	const struct west_obs *r = p->rows->r;
	size_t best = p->rows->n, a = 0;
	char lb[WEST_ERRLEN / 2], la[WEST_ERRLEN / 2], when[32];

	for (size_t k = 1; k < p->rows->n; k++) {
		const struct west_obs *x = p->v[k - 1], *y = p->v[k];
		if (strcmp(x->id, y->id) == 0 && x->time == y->time &&
		    (size_t)(y - r) < best)
			best = (size_t)(y - r), a = (size_t)(x - r);
	}
	if (best == p->rows->n)
		return WEST_OK;
	rec_label(p->rows, best, lb, sizeof lb);
	if (p->rows->from && p->rows->from[a].file == p->rows->from[best].file)
		snprintf(la, sizeof la, "line %zu", p->rows->from[a].line);
	else
		rec_label(p->rows, a, la, sizeof la);
	west_obs_time_format(r[best].time, when, sizeof when);
	return west_fail(err, errlen, WEST_ERR_INVALID, "%s: Station_Name: duplicate of "
			 "%s (the same station at the same time, %s)", lb, la, when);
}

/* The record of group v[a..b) to keep, or (size_t)-1 to leave it out;
 * *near gets its nearest record either way. */
static size_t pick_one(const struct pick *p, size_t a, size_t b, size_t *near)
{
	const struct west_obs *base = p->rows->r;
	size_t k = b - 1;

	if (p->o->pick == WEST_OBS_PICK_NEAREST) {
		long long best = LLONG_MAX;
		for (size_t j = a; j < b; j++) {
			long long d = llabs(p->v[j]->time - p->o->time);
			if (d < best)  /* sorted by time: the earlier wins a tie */
				best = d, k = j;
		}
		*near = (size_t)(p->v[k] - base);
		return best <= p->o->window ? *near : (size_t)-1;
	}
	*near = (size_t)(p->v[k] - base);
	return *near;
}

/* Group the sorted records by station and choose from each. */
static void pick_groups(struct pick *p)
{
	const struct west_obs *base = p->rows->r;
	size_t n = p->rows->n;

	for (size_t a = 0, b; a < n; a = b) {
		size_t first = (size_t)(p->v[a] - base), near, k;
		for (b = a + 1; b < n && strcmp(p->v[b]->id, p->v[a]->id) == 0; b++)
			if ((size_t)(p->v[b] - base) < first)
				first = (size_t)(p->v[b] - base);
		k = pick_one(p, a, b, &near);
		if (k == (size_t)-1) {
			p->out[p->nout++] = near;
			continue;
		}
		p->keep[p->nkeep].first = first;
		p->keep[p->nkeep++].rec = k;
	}
}

/* No station left: say what the records held. */
static enum west_status pick_none(const struct pick *p, char *err, size_t errlen)
{
	long long lo = LLONG_MAX, hi = LLONG_MIN;
	char t[32], a[32], b[32];

	for (size_t i = 0; i < p->rows->n; i++) {
		lo = p->rows->r[i].time < lo ? p->rows->r[i].time : lo;
		hi = p->rows->r[i].time > hi ? p->rows->r[i].time : hi;
	}
	west_obs_time_format(p->o->time, t, sizeof t);
	west_obs_time_format(lo, a, sizeof a);
	west_obs_time_format(hi, b, sizeof b);
	return west_fail(err, errlen, WEST_ERR_INVALID, "no station has a record within "
			 "%lld s of %s (%zu station%s, records from %s to %s)",
			 p->o->window, t, p->nout, p->nout == 1 ? "" : "s", a, b);
}

/* By the station's first record (each station has its own). */
static int cmp_first(const void *a, const void *b)
{
	const struct kept *p = a, *q = b;

	return p->first < q->first ? -1 : p->first > q->first;
}

/* The set of the kept records, with its times. */
static enum west_status pick_fill(const struct pick *p, struct west_obs_set *set,
				  char *err, size_t errlen)
{
	struct west_obs_times *t = &set->times;
	size_t no_tm = 0;

	if (west_obs_set_alloc(set, p->nkeep, err, errlen) != WEST_OK)
		return WEST_ERR_NOMEM;
	t->pick = p->o->pick;
	t->time = p->o->pick == WEST_OBS_PICK_NEAREST ? p->o->time : 0;
	t->window = p->o->pick == WEST_OBS_PICK_NEAREST ? p->o->window : 0;
	t->records = p->rows->n, t->left_out = p->nout, t->received = p->rows->received;
	for (size_t i = 0; i < p->nkeep; i++) {
		size_t k = p->keep[i].rec;
		const struct west_obs_from *f = p->rows->from ? &p->rows->from[k] : NULL;
		set->obs[i] = p->rows->r[k];
		t->undated += f && f->undated;
		no_tm += f && f->no_tm;
	}
	west_obs_set_finish(set);
	t->stations = set->n, t->oldest = t->newest = set->valid_time;
	for (size_t i = 0; i < set->n; i++)
		t->oldest = set->obs[i].time < t->oldest ? set->obs[i].time : t->oldest;
	if (no_tm)
		west_log(WEST_LOG_WARNING, "%zu PROJCS station(s): the terrain has no "
			 "transverse Mercator grid_mapping, so no solar elevation; "
			 "stability class D used", no_tm);
	return WEST_OK;
}

/* A warning per station left out, naming its nearest record's time. */
static void pick_warn(const struct pick *p)
{
	char t[32], near[32];

	west_obs_time_format(p->o->time, t, sizeof t);
	for (size_t i = 0; i < p->nout; i++) {
		const struct west_obs *ob = &p->rows->r[p->out[i]];
		west_obs_time_format(ob->time, near, sizeof near);
		west_log(WEST_LOG_WARNING, "station \"%s\" left out: no record within %lld s "
			 "of %s (the nearest is %s)", ob->id, p->o->window, t, near);
	}
}

static enum west_status pick_run(struct pick *p, struct west_obs_set *set,
				 char *err, size_t errlen)
{
	size_t n = p->rows->n;
	enum west_status s;

	for (size_t i = 0; i < n; i++)
		p->v[i] = &p->rows->r[i];
	qsort(p->v, n, sizeof *p->v, cmp_id_time);
	if ((s = pick_duplicates(p, err, errlen)) != WEST_OK)
		return s;
	pick_groups(p);
	if (p->nkeep == 0)
		return pick_none(p, err, errlen);
	if ((s = west_obs_check_count(p->nkeep, p->o, err, errlen)) != WEST_OK)
		return s;
	qsort(p->keep, p->nkeep, sizeof *p->keep, cmp_first);
	if ((s = pick_fill(p, set, err, errlen)) == WEST_OK)
		pick_warn(p);
	return s;
}

enum west_status west_obs_pick(const struct west_obs_rows *rows,
			       const struct west_obs_opts *o,
			       struct west_obs_set *set, char *err, size_t errlen)
{
	struct pick p = { rows, o, NULL, NULL, 0, NULL, 0 };
	size_t n = rows->n;
	enum west_status s;

	memset(set, 0, sizeof *set);
	if (n == 0)
		return west_obs_check_count(0, o, err, errlen);
	p.v = malloc(n * sizeof *p.v);
	p.keep = malloc(n * sizeof *p.keep);
	p.out = malloc(n * sizeof *p.out);
	if (!p.v || !p.keep || !p.out)
		s = west_fail(err, errlen, WEST_ERR_NOMEM, "cannot allocate the pick of "
			      "%zu records", n);
	else
		s = pick_run(&p, set, err, errlen);
	free(p.v);
	free(p.keep);
	free(p.out);
	if (s != WEST_OK)
		west_obs_set_free(set);
	return s;
}

void west_obs_times_describe(const struct west_obs_times *t, char *buf, size_t size)
{
	char a[32], b[32], at[32], span[80], rule[96], out[40] = "", undated[128] = "";

	west_obs_time_format(t->oldest, a, sizeof a);
	west_obs_time_format(t->newest, b, sizeof b);
	if (t->oldest == t->newest)
		snprintf(span, sizeof span, "all at %s", a);
	else
		snprintf(span, sizeof span, "%s to %s", a, b);
	west_obs_time_format(t->time, at, sizeof at);
	if (t->pick == WEST_OBS_PICK_NEAREST)
		snprintf(rule, sizeof rule, "the record of each nearest %s within %lld s",
			 at, t->window);
	else
		snprintf(rule, sizeof rule, "the newest record of each");
	if (t->pick == WEST_OBS_PICK_NEAREST && t->left_out)
		snprintf(out, sizeof out, " (%zu left out)", t->left_out);
	west_obs_time_format(t->received, at, sizeof at);
	if (t->undated)
		snprintf(undated, sizeof undated, "; %zu without date_time, at the time of "
			 "receipt %s", t->undated, at);
	snprintf(buf, size, "%zu station%s%s, %s (%zu record%s read): %s%s", t->stations,
		 t->stations == 1 ? "" : "s", out, rule, t->records,
		 t->records == 1 ? "" : "s", span, undated);
}

/* ---- position -------------------------------------------------------- */

enum west_status west_obs_place(const struct west_obs_opts *o, struct west_obs *ob,
				const char *rec, const char *what,
				char *err, size_t errlen)
{
	const struct west_grid *g = o->grid;
	double x1 = g->x0 + (double)g->nx * g->dx, y1 = g->y0 + (double)g->ny * g->dy;

	if (!isfinite(ob->x) || !isfinite(ob->y))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: %s: position is not finite", rec, what);
	ob->outside = !(ob->x >= g->x0 && ob->x <= x1 && ob->y >= g->y0 && ob->y <= y1);
	if (ob->outside && !o->allow_outside)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: %s: (%.2f, %.2f) m is outside the grid "
				 "(x %.2f to %.2f, y %.2f to %.2f m); set allow_outside to "
				 "accept it", rec, what, ob->x, ob->y, g->x0, x1, g->y0, y1);
	return WEST_OK;
}

enum west_status west_obs_project(const struct west_obs_opts *o, double lon,
				  double lat, struct west_obs *ob, const char *rec,
				  const char *what, char *err, size_t errlen)
{
	char msg[WEST_ERRLEN];

	if (!(fabs(lon) <= 180.0))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: %s: longitude %g is outside [-180, 180]", rec, what, lon);
	if (!(fabs(lat) <= 90.0))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: %s: latitude %g is outside [-90, 90]", rec, what, lat);
	if (west_tm_forward(&o->grid->crs, lon, lat, &ob->x, &ob->y, msg,
			    sizeof msg) != WEST_OK)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: %s: %s", rec, what, msg);
	return west_obs_place(o, ob, rec, what, err, errlen);
}

/* ---- duplicate ids --------------------------------------------------- */

/* By id, then by position in the set (the pointers point into one array). */
static int cmp_by_id(const void *a, const void *b)
{
	const struct west_obs *p = *(const struct west_obs *const *)a;
	const struct west_obs *q = *(const struct west_obs *const *)b;
	int c = strcmp(p->id, q->id);

	if (c)
		return c;
	return p < q ? -1 : p > q;
}

int west_obs_find_duplicate(const struct west_obs_set *set, size_t *first,
			    size_t *second)
{
	const struct west_obs **v = malloc(set->n * sizeof *v);
	size_t best = set->n, start = 0;

	if (!v)
		return -1;
	for (size_t i = 0; i < set->n; i++)
		v[i] = &set->obs[i];
	qsort(v, set->n, sizeof *v, cmp_by_id);
	for (size_t k = 1; k < set->n; k++) {
		if (strcmp(v[k]->id, v[k - 1]->id) != 0) {
			start = k;
		} else if (k == start + 1 && (size_t)(v[k] - set->obs) < best) {
			best = (size_t)(v[k] - set->obs);
			*first = (size_t)(v[start] - set->obs);
		}
	}
	free(v);
	if (best == set->n)
		return 0;
	*second = best;
	return 1;
}

/* ---- time stamps ----------------------------------------------------- */

/* n decimal digits at s into *v; 0 when one is not a digit. */
static int digits(const char *s, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return 0;
		*v = *v * 10 + (s[i] - '0');
	}
	return 1;
}

static int days_in_month(int y, int m)
{
	static const int d[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return d[m - 1] + (m == 2 && leap);
}

/* "YYYY-MM-DDThh:mm:ss" into tm; 0 when malformed or out of range. */
static int parse_date_time(const char *s, struct tm *tm)
{
	int Y, M, D, h, m, sec;

	if (!digits(s, 4, &Y) || s[4] != '-' || !digits(s + 5, 2, &M) || s[7] != '-' ||
	    !digits(s + 8, 2, &D) || (s[10] != 'T' && s[10] != 't') ||
	    !digits(s + 11, 2, &h) || s[13] != ':' || !digits(s + 14, 2, &m) ||
	    s[16] != ':' || !digits(s + 17, 2, &sec))
		return 0;
	if (Y < 1900 || M < 1 || M > 12 || D < 1 || D > days_in_month(Y, M) ||
	    h > 23 || m > 59 || sec > 60)
		return 0;
	memset(tm, 0, sizeof *tm);
	tm->tm_year = Y - 1900, tm->tm_mon = M - 1, tm->tm_mday = D;
	tm->tm_hour = h, tm->tm_min = m, tm->tm_sec = sec;
	return 1;
}

/* "Z" or "+hh:mm" / "-hh:mm" ending the string: offset east of UTC (s). */
static int parse_zone(const char *s, long long *off)
{
	int h, m;

	if ((s[0] == 'Z' || s[0] == 'z') && s[1] == '\0') {
		*off = 0;
		return 1;
	}
	if ((s[0] != '+' && s[0] != '-') || !digits(s + 1, 2, &h) || s[3] != ':' ||
	    !digits(s + 4, 2, &m) || s[6] != '\0' || h > 23 || m > 59)
		return 0;
	*off = (s[0] == '-' ? -1 : 1) * (h * 3600LL + m * 60LL);
	return 1;
}

int west_obs_time_parse(const char *s, long long *t)
{
	struct tm tm;
	long long off;
	const char *p = s + 19;

	if (!parse_date_time(s, &tm))
		return 0;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return 0;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (!parse_zone(p, &off))
		return 0;
	*t = (long long)timegm(&tm) - off;
	return 1;
}

void west_obs_time_format(long long t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, size, "%lld", t);
}

/* ---- stability rules ------------------------------------------------- */

double west_golder_inv_l(int cls, double z0)
{
	/* Seinfeld & Pandis (2006) Table 16.5: 1/L = a + b log10(z0). */
	static const double a[WEST_NSTAB] = { -0.096, -0.037, -0.002, 0.0, 0.004, 0.035 };
	static const double b[WEST_NSTAB] = { 0.029, 0.029, 0.018, 0.0, -0.018, -0.036 };
	return a[cls] + b[cls] * log10(z0);
}

int west_stability_golder(double inv_L, double z0)
{
	double best = INFINITY;
	int cls = WEST_STAB_D;

	for (int c = 0; c < WEST_NSTAB; c++) {
		double d = fabs(inv_L - west_golder_inv_l(c, z0));
		if (d <= best) {
			best = d;
			cls = c;
		}
	}
	return cls;
}

int west_stability_insolation(double elevation, double cloud)
{
	int col;

	if (elevation <= 0.0)
		return cloud >= 50.0 ? WEST_INSOL_NIGHT_CLOUDY : WEST_INSOL_NIGHT_CLEAR;
	col = elevation > 60.0 ? WEST_INSOL_STRONG
	    : elevation > 35.0 ? WEST_INSOL_MODERATE : WEST_INSOL_SLIGHT;
	if (cloud >= 50.0 && col < WEST_INSOL_SLIGHT)
		col++;
	return col;
}

int west_stability_turner(double speed, int insolation)
{
	/* Rows: u < 2, 2 <= u < 3, 3 <= u < 5, 5 <= u < 6, u >= 6 (m/s);
	 * columns: enum west_insolation.  A-B -> B, B-C -> C, C-D -> D. */
	enum { A = WEST_STAB_A, B, C, D, E, F };
	static const unsigned char table[5][WEST_NINSOL] = {
		{ A, B, B, F, F },
		{ B, B, C, E, F },
		{ B, C, C, D, E },
		{ C, D, D, D, D },
		{ C, D, D, D, D },
	};
	int row = speed < 2.0 ? 0 : speed < 3.0 ? 1 : speed < 5.0 ? 2 : speed < 6.0 ? 3 : 4;

	if (insolation < 0 || insolation >= WEST_NINSOL)
		return WEST_STAB_D;
	return table[row][insolation];
}

int west_stability_pasquill(double speed, double elevation, double cloud)
{
	if (cloud >= 100.0)
		return WEST_STAB_D;
	return west_stability_turner(speed, west_stability_insolation(elevation, cloud));
}

double west_solar_elevation(double lon, double lat, long long t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	int year_days;
	double hour, g, eqtime, decl, tst, ha, cz;

	if (!gmtime_r(&tt, &tm))
		return NAN;
	year_days = days_in_month(tm.tm_year + 1900, 2) == 29 ? 366 : 365;
	hour = tm.tm_hour + tm.tm_min / 60.0 + tm.tm_sec / 3600.0;
	g = 2.0 * M_PI / year_days * (tm.tm_yday + (hour - 12.0) / 24.0);
	eqtime = 229.18 * (0.000075 + 0.001868 * cos(g) - 0.032077 * sin(g)
			   - 0.014615 * cos(2 * g) - 0.040849 * sin(2 * g));
	decl = 0.006918 - 0.399912 * cos(g) + 0.070257 * sin(g) - 0.006758 * cos(2 * g)
	       + 0.000907 * sin(2 * g) - 0.002697 * cos(3 * g) + 0.00148 * sin(3 * g);
	tst = hour * 60.0 + eqtime + 4.0 * lon;             /* true solar time, min */
	ha = (tst / 4.0 - 180.0) * M_PI / 180.0;           /* hour angle */
	lat *= M_PI / 180.0;
	cz = sin(lat) * sin(decl) + cos(lat) * cos(decl) * cos(ha);
	return 90.0 - acos(fmax(-1.0, fmin(1.0, cz))) * 180.0 / M_PI;
}

/* ---- files ----------------------------------------------------------- */

static int ends_with_csv(const char *path)
{
	size_t n = strlen(path);

	return n >= 4 && strcasecmp(path + n - 4, ".csv") == 0;
}

static enum west_status too_large(unsigned long long n, unsigned long long max,
				  char *err, size_t errlen)
{
	if (max % (1ull << 20) == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%llu bytes or more, larger than the %llu MiB limit for "
				 "observation files", n, max >> 20);
	return west_fail(err, errlen, WEST_ERR_INVALID, "%llu bytes or more, larger than "
			 "the limit of %llu bytes for observation files", n, max);
}

/* The whole of f into *buf (*len bytes); refuses more than max. */
static enum west_status read_stream(FILE *f, unsigned long long max, char **buf,
				    size_t *len, char *err, size_t errlen)
{
	size_t cap = 0, n = 0;
	char *p = NULL, *q;
	struct stat st;

	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
	    (unsigned long long)st.st_size > max)
		return too_large((unsigned long long)st.st_size, max, err, errlen);
	do {
		cap = cap ? 2 * cap : 65536;
		if (cap > max + 1)
			cap = max + 1;
		q = realloc(p, cap);
		if (!q) {
			free(p);
			return west_fail(err, errlen, WEST_ERR_NOMEM, "cannot allocate");
		}
		p = q;
		n += fread(p + n, 1, cap - n, f);
	} while (n == cap && cap <= max);
	if (ferror(f) || n > max) {
		int e = errno;
		free(p);
		return n > max ? too_large(n, max, err, errlen)
		     : west_fail(err, errlen, WEST_ERR_IO, "cannot read: %s", strerror(e));
	}
	*buf = p;
	*len = n;
	return WEST_OK;
}

enum west_status west_obs_read_file(const char *path, unsigned long long max,
				    char **buf, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	enum west_status s;

	*buf = NULL, *len = 0;
	if (!f)
		return west_fail(err, errlen, WEST_ERR_IO, "cannot open: %s", strerror(errno));
	s = read_stream(f, max, buf, len, err, errlen);
	fclose(f);
	return s;
}

/* The directory part of path ("." when it has none) into buf. */
static void dir_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(buf, size, ".");
	else if (slash == path)
		snprintf(buf, size, "/");
	else
		snprintf(buf, size, "%.*s", (int)(slash - path), path);
}

enum west_status west_obs_load(const char *path, const struct west_obs_opts *o,
			       struct west_obs_set *set, char *err, size_t errlen)
{
	char msg[WEST_ERRLEN], *buf = NULL, dir[PATH_MAX];
	size_t len = 0;
	enum west_status s;

	memset(set, 0, sizeof *set);
	s = west_obs_read_file(path, OBS_FILE_MAX, &buf, &len, msg, sizeof msg);
	if (s == WEST_OK && ends_with_csv(path) && west_obs_is_list(buf, len)) {
		dir_of(path, dir, sizeof dir);
		s = west_obs_parse_list(buf, len, dir, OBS_FILE_MAX, o, set, msg, sizeof msg);
	} else if (s == WEST_OK && ends_with_csv(path)) {
		s = west_obs_parse_csv(buf, len, o, set, msg, sizeof msg);
	} else if (s == WEST_OK) {
		s = west_obs_parse_json(buf, len, o, set, msg, sizeof msg);
	}
	free(buf);
	if (s != WEST_OK)
		return west_fail(err, errlen, s, "%s: %s", path, msg);
	return WEST_OK;
}

const char *west_obs_show(const char *s, char *buf, size_t size)
{
	size_t k;

	for (k = 0; s[k] && k < 40 && k + 1 < size; k++)
		buf[k] = isprint((unsigned char)s[k]) ? s[k] : '?';
	buf[k] = '\0';
	return buf;
}
