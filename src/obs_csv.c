/*
 * obs_csv.c: the CSV observation reader, WindNinja's point-initialization
 * station format (obs.h; docs/api.md, "Observations", "CSV"), and the CSV
 * lexer the station file lists share (obs_internal.h).
 *
 * CSV per RFC 4180 (the lexer below): fields split on commas, a field in
 * double quotes may hold commas, line ends and doubled quotes; CRLF or LF
 * line ends; a UTF-8 byte-order mark and blank lines are skipped; white
 * space around a field, inside or outside its quotes, is dropped.  Lines
 * count from 1 as an editor shows them, a record by the line it starts on;
 * errors read "line N (station "X"): COLUMN: problem".
 *
 * The first record is the header, WindNinja's columns below, compared
 * exactly: the 16 of the station fetch's files (ending in date_time), or
 * the 15 of the older format without date_time; column 9 may also read
 * "Speed_Units(mph,kph,mps)", as files written before kts was added do.
 * Under the 16-column header a row of 15 fields (as the station fetch
 * writes "current data") or an empty date_time means the same as the
 * 15-column format: the record has no time of its own and takes the time
 * of receipt (west_obs_rows.received).  A header whose first field is
 * Station_File_List or Recent_Station_File_List is a list (obs_list.c),
 * refused here: it names files.
 *
 * Conversions to the units of obs.h: Height meters|feet (0.3048 m);
 * Speed mph (0.44704 m/s), kph (1/3.6), mps, kts (1852/3600); Temperature
 * F|C, checked to lie in [-90, 60] C, else unused; Cloud_Cover in [0, 100]
 * %; Radius_of_Influence (-1 or empty: none) miles|feet|meters|km, checked
 * and unused.  Unit words ignore case; a units column must be empty or one
 * of its words, and is required when its value is given.
 *
 * Position: PROJCS rows give x (Lon/XCoord) and y (Lat/YCoord) in the grid
 * CRS, metres (Datum ignored); GEOGCS rows give degrees on WGS84 or NAD83
 * (taken as WGS 84, about 1 m apart in North America), projected with the
 * grid's transverse Mercator; NAD27 is refused.
 *
 * Stability: Pasquill-Turner (west_stability_pasquill) from the row's speed,
 * its cloud cover and the solar elevation at the station and its time.
 * PROJCS rows need the inverse transverse Mercator for their longitude and
 * latitude; on a grid without one they get class D, with one warning per
 * set (west_obs_pick).
 *
 * Several rows may give one station at different times (a time series):
 * every row is read and checked, then west_obs_pick (obs.c) keeps one per
 * station.
 */
#include "obs_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proj.h"

enum csv_col {
	C_NAME, C_COORD, C_DATUM, C_LAT, C_LON, C_HEIGHT, C_HUNITS, C_SPEED,
	C_SUNITS, C_DIR, C_TEMP, C_TUNITS, C_CLOUD, C_RADIUS, C_RUNITS, C_TIME, NCOL
};

/* The header, column by column, as WindNinja writes it. */
static const char *const header_cols[NCOL] = {
	"Station_Name", "Coord_Sys(PROJCS,GEOGCS)", "Datum(WGS84,NAD83,NAD27)",
	"Lat/YCoord", "Lon/XCoord", "Height", "Height_Units(meters,feet)", "Speed",
	"Speed_Units(mph,kph,mps,kts)", "Direction(degrees)", "Temperature",
	"Temperature_Units(F,C)", "Cloud_Cover(%)", "Radius_of_Influence",
	"Radius_of_Influence_Units(miles,feet,meters,km)", "date_time",
};

/* Column 9 as files written before kts was added have it. */
static const char *const old_speed_col = "Speed_Units(mph,kph,mps)";

/* Column names in messages. */
static const char *const col_names[NCOL] = {
	"Station_Name", "Coord_Sys", "Datum", "Lat/YCoord", "Lon/XCoord", "Height",
	"Height_Units", "Speed", "Speed_Units", "Direction", "Temperature",
	"Temperature_Units", "Cloud_Cover", "Radius_of_Influence",
	"Radius_of_Influence_Units", "date_time",
};

struct unit {
	const char *name;
	double factor; /* to the SI unit; for temperature 0 = C, 1 = F */
};

struct unit_set {
	const char *expect; /* for messages */
	struct unit u[5];   /* ends with a NULL name */
};

static const struct unit_set height_units = {
	"meters or feet", { { "meters", 1.0 }, { "feet", 0.3048 }, { NULL, 0 } } };
static const struct unit_set speed_units = {
	"mph, kph, mps or kts",
	{ { "mph", 0.44704 }, { "kph", 1.0 / 3.6 }, { "mps", 1.0 },
	  { "kts", 1852.0 / 3600.0 }, { NULL, 0 } } };
static const struct unit_set temp_units = {
	"F or C", { { "C", 0.0 }, { "F", 1.0 }, { NULL, 0 } } };
static const struct unit_set radius_units = {
	"miles, feet, meters or km",
	{ { "miles", 1609.344 }, { "feet", 0.3048 }, { "meters", 1.0 },
	  { "km", 1000.0 }, { NULL, 0 } } };

struct csv_row {
	const char *f[NCOL]; /* "" for a date_time the row lacks */
	size_t lineno;
	char rec[128];       /* "line N (station "X")" */
};

/* ---- the lexer ------------------------------------------------------- */

enum west_status west_csv_open(struct west_csv *c, const char *text, size_t len,
			       char *err, size_t errlen)
{
	const char *nul;

	memset(c, 0, sizeof *c);
	if (!text)
		text = "", len = 0;
	nul = memchr(text, '\0', len);
	if (nul) {
		size_t n = 1;
		for (const char *q = text; q < nul; q++)
			n += *q == '\n';
		return west_fail(err, errlen, WEST_ERR_INVALID, "line %zu: contains a NUL byte", n);
	}
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		text += 3, len -= 3;
	c->buf = malloc(len + 1);
	if (!c->buf)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "cannot allocate %zu bytes", len + 1);
	memcpy(c->buf, text, len);
	c->buf[len] = '\0';
	c->p = c->buf;
	c->line = 1;
	return WEST_OK;
}

void west_csv_close(struct west_csv *c)
{
	free(c->buf);
	memset(c, 0, sizeof *c);
}

/* White space within a line. */
static int blank_char(char ch)
{
	return ch != '\n' && isspace((unsigned char)ch);
}

/* Keep the first problem of a record. */
static void lex_problem(struct west_csv_rec *r, int k, const char *what)
{
	if (r->bad >= 0)
		return;
	r->bad = k;
	snprintf(r->problem, sizeof r->problem, "%s", what);
}

/* A quoted field from p (at the quote) into w; returns where it stopped. */
static char *lex_quoted(struct west_csv *c, char *p, char **w, struct west_csv_rec *r, int k)
{
	size_t qline = c->line;

	for (p++;;) {
		if (*p == '\0') {
			char what[sizeof r->problem];
			snprintf(what, sizeof what, "the double quote opened on line %zu is "
				 "never closed", qline);
			lex_problem(r, k, what);
			return p;
		}
		if (*p == '"' && p[1] == '"') {
			*(*w)++ = '"';
			p += 2;
			continue;
		}
		if (*p == '"')
			break;
		c->line += *p == '\n';
		*(*w)++ = *p++;
	}
	for (p++; blank_char(*p); p++)
		;
	if (*p && *p != ',' && *p != '\n')
		lex_problem(r, k, "text after the closing double quote");
	while (*p && *p != ',' && *p != '\n')
		p++;
	return p;
}

/* An unquoted field from p into w (header: commas in parentheses kept). */
static char *lex_plain(char *p, char **w, int header, struct west_csv_rec *r, int k)
{
	int depth = 0;

	while (*p && *p != '\n' && (*p != ',' || (header && depth > 0))) {
		if (*p == '"')
			lex_problem(r, k, "stray double quote");
		depth += header && *p == '(';
		depth -= header && *p == ')' && depth > 0;
		*(*w)++ = *p++;
	}
	return p;
}

/* Field k of r at c->p: value in place, trimmed; returns its delimiter. */
static char lex_field(struct west_csv *c, int header, struct west_csv_rec *r, int k,
		      int *quoted)
{
	char *p = c->p, *v, *w, d;

	while (blank_char(*p))
		p++;
	v = w = p;
	*quoted = *p == '"';
	p = *quoted ? lex_quoted(c, p, &w, r, k) : lex_plain(p, &w, header, r, k);
	d = *p;
	if (d)
		p++;
	c->line += d == '\n';
	while (w > v && isspace((unsigned char)w[-1]))
		w--;
	*w = '\0';
	while (isspace((unsigned char)*v))
		v++;
	if (k < WEST_CSV_MAXF)
		r->f[k] = v;
	c->p = p;
	return d;
}

int west_csv_next(struct west_csv *c, int header, struct west_csv_rec *r)
{
	int quoted;
	char d;

	while (*c->p) {
		memset(r, 0, sizeof *r);
		r->line = c->line;
		r->bad = -1;
		do
			d = lex_field(c, header, r, r->n++, &quoted);
		while (d == ',');
		if (r->n > 1 || quoted || r->f[0][0])
			return 1;
	}
	return 0;
}

const char *west_csv_list_kind(const struct west_csv_rec *r)
{
	static const char *const kinds[] = { "Station_File_List", "Recent_Station_File_List" };

	for (size_t k = 0; r->n >= 1 && k < sizeof kinds / sizeof *kinds; k++)
		if (strcmp(r->f[0], kinds[k]) == 0)
			return kinds[k];
	return NULL;
}

int west_obs_is_list(const char *text, size_t len)
{
	struct west_csv c;
	struct west_csv_rec r;
	int list;

	/* the header is on the first lines: 4 KiB are enough to tell */
	if (west_csv_open(&c, text, len < 4096 ? len : 4096, NULL, 0) != WEST_OK)
		return 0;
	list = west_csv_next(&c, 1, &r) && west_csv_list_kind(&r) != NULL;
	west_csv_close(&c);
	return list;
}

/* ---- header ---------------------------------------------------------- */

/* The first record must be the header: 16 columns, or 15 without date_time. */
static enum west_status csv_header(struct west_csv *c, int *ncol, char *err, size_t errlen)
{
	struct west_csv_rec r;
	char buf[48];

	if (!west_csv_next(c, 1, &r))
		return west_fail(err, errlen, WEST_ERR_INVALID, "line 1: no header: the "
				 "text is empty (expected WindNinja's station header)");
	if (west_csv_list_kind(&r))
		return west_fail(err, errlen, WEST_ERR_INVALID, "line %zu: a station file "
				 "list (%s), not a station file: it names other files, so it "
				 "is read only as a file (west run --obs, the spool directory)",
				 r.line, west_csv_list_kind(&r));
	if (r.bad >= 0)
		return west_fail(err, errlen, WEST_ERR_INVALID, "line %zu: header column %d: %s",
				 r.line, r.bad + 1, r.problem);
	for (int k = 0; k < r.n && k < NCOL; k++)
		if (strcmp(r.f[k], header_cols[k]) != 0 &&
		    !(k == C_SUNITS && strcmp(r.f[k], old_speed_col) == 0))
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "line %zu: header column %d is \"%s\", expected \"%s\"",
					 r.line, k + 1, west_obs_show(r.f[k], buf, sizeof buf),
					 header_cols[k]);
	if (r.n != NCOL && r.n != NCOL - 1)
		return west_fail(err, errlen, WEST_ERR_INVALID, "line %zu: header has %d "
				 "columns, expected WindNinja's station header: 16 ending in "
				 "date_time, or the older 15 without it", r.line, r.n);
	*ncol = r.n;
	return WEST_OK;
}

/* ---- fields ---------------------------------------------------------- */

/* The record's fields as a row of the header's ncol columns, labelled. */
static enum west_status csv_row(const struct west_csv_rec *cr, int ncol, struct csv_row *r,
				char *err, size_t errlen)
{
	char buf[48];
	long long t;

	r->lineno = cr->line;
	for (int k = 0; k < NCOL; k++)
		r->f[k] = k < cr->n && k < ncol ? cr->f[k] : "";
	snprintf(r->rec, sizeof r->rec, "line %zu", cr->line);
	if (cr->bad == C_NAME)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: %s: %s", r->rec,
				 col_names[C_NAME], cr->problem);
	if (r->f[C_NAME][0])
		snprintf(r->rec, sizeof r->rec, "line %zu (station \"%s\")", cr->line,
			 west_obs_show(r->f[C_NAME], buf, sizeof buf));
	if (cr->bad >= 0 && cr->bad < ncol)  /* one beyond: the count below */
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: %s: %s", r->rec,
				 col_names[cr->bad], cr->problem);
	if (cr->n == ncol)
		return WEST_OK;
	if (ncol == NCOL && cr->n == NCOL - 1 && !west_obs_time_parse(r->f[C_RUNITS], &t))
		return WEST_OK;  /* WindNinja's "current data": no date_time */
	if (ncol == NCOL && cr->n == NCOL - 1)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: %d columns, expected %d: "
				 "the last is a date_time, so a column before it is missing",
				 r->rec, cr->n, NCOL);
	return west_fail(err, errlen, WEST_ERR_INVALID, "%s: %d columns, expected %d%s",
			 r->rec, cr->n, ncol, ncol == NCOL ? " (or 15, without date_time)"
			 : " (the header has no date_time)");
}

/* A finite number in column c. */
static enum west_status csv_number(const struct csv_row *r, int c, double *v,
				   char *err, size_t errlen)
{
	const char *s = r->f[c];
	char *end, buf[48];

	if (!*s)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: %s: missing",
				 r->rec, col_names[c]);
	*v = strtod(s, &end);
	if (end == s || *end)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: %s: \"%s\" is not a number",
				 r->rec, col_names[c], west_obs_show(s, buf, sizeof buf));
	if (!isfinite(*v))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: %s: \"%s\" is not a finite number",
				 r->rec, col_names[c], west_obs_show(s, buf, sizeof buf));
	return WEST_OK;
}

/* Units in column c: NULL when empty, else the entry (err set if unknown). */
static enum west_status csv_unit(const struct csv_row *r, int c, const struct unit_set *us,
				 const struct unit **u, char *err, size_t errlen)
{
	char buf[48];

	*u = NULL;
	if (!r->f[c][0])
		return WEST_OK;
	for (const struct unit *p = us->u; p->name; p++)
		if (strcasecmp(r->f[c], p->name) == 0) {
			*u = p;
			return WEST_OK;
		}
	return west_fail(err, errlen, WEST_ERR_INVALID, "%s: %s: unknown unit \"%s\" "
			 "(expected %s)", r->rec, col_names[c],
			 west_obs_show(r->f[c], buf, sizeof buf), us->expect);
}

/* Value in column c with its units in column c + 1, converted. */
static enum west_status csv_measure(const struct csv_row *r, int c,
				    const struct unit_set *us, double *v,
				    const struct unit **u, char *err, size_t errlen)
{
	if (csv_number(r, c, v, err, errlen) != WEST_OK ||
	    csv_unit(r, c + 1, us, u, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	if (!*u)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: %s: missing (%s is "
				 "given; expected %s)", r->rec, col_names[c + 1],
				 col_names[c], us->expect);
	return WEST_OK;
}

/* ---- a record -------------------------------------------------------- */

static enum west_status csv_id(const struct csv_row *r, struct west_obs *ob,
			       char *err, size_t errlen)
{
	const char *problem = west_obs_check_id(r->f[C_NAME], strlen(r->f[C_NAME]));
	char buf[48];

	if (!r->f[C_NAME][0])
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: Station_Name: missing",
				 r->rec);
	if (problem)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: Station_Name: \"%s\" %s",
				 r->rec, west_obs_show(r->f[C_NAME], buf, sizeof buf), problem);
	memcpy(ob->id, r->f[C_NAME], strlen(r->f[C_NAME]) + 1);
	return WEST_OK;
}

static enum west_status csv_geogcs(const struct csv_row *r, const struct west_obs_opts *o,
				   struct west_obs *ob, double lon, double lat,
				   char *err, size_t errlen)
{
	const char *datum = r->f[C_DATUM];
	char buf[48];

	if (strcasecmp(datum, "NAD27") == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: Datum: NAD27 is not "
				 "supported; convert the coordinates to WGS84 (NAD27 is tens "
				 "of metres off)", r->rec);
	if (strcasecmp(datum, "WGS84") != 0 && strcasecmp(datum, "NAD83") != 0)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: Datum: unknown datum "
				 "\"%s\" (expected WGS84, NAD83 or NAD27)", r->rec,
				 west_obs_show(datum, buf, sizeof buf));
	if (!o->grid->crs.has_tm)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: Coord_Sys: GEOGCS given "
				 "but %s; give PROJCS x and y", r->rec,
				 west_crs_no_lonlat(&o->grid->crs));
	return west_obs_project(o, lon, lat, ob, r->rec, "Lon/XCoord, Lat/YCoord",
				err, errlen);
}

/* Position; *has_ll = 1 with lon, lat (degrees) when they are known. */
static enum west_status csv_position(const struct csv_row *r, const struct west_obs_opts *o,
				     struct west_obs *ob, double ll[2], int *has_ll,
				     char *err, size_t errlen)
{
	const char *cs = r->f[C_COORD];
	double a, b;
	char buf[48];

	*has_ll = 0;
	if (strcasecmp(cs, "PROJCS") != 0 && strcasecmp(cs, "GEOGCS") != 0)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: Coord_Sys: \"%s\" is "
				 "neither PROJCS nor GEOGCS", r->rec, west_obs_show(cs, buf, sizeof buf));
	if (csv_number(r, C_LAT, &b, err, errlen) != WEST_OK ||
	    csv_number(r, C_LON, &a, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	if (strcasecmp(cs, "GEOGCS") == 0) {
		ll[0] = a, ll[1] = b, *has_ll = 1;
		return csv_geogcs(r, o, ob, a, b, err, errlen);
	}
	ob->x = a, ob->y = b;
	if (west_obs_place(o, ob, r->rec, "Lon/XCoord, Lat/YCoord", err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	if (!o->grid->crs.has_tm)
		return WEST_OK;
	*has_ll = 1;
	if (west_tm_inverse(&o->grid->crs, a, b, &ll[0], &ll[1], buf, sizeof buf) != WEST_OK)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: Lon/XCoord, Lat/YCoord: "
				 "no longitude and latitude for the solar elevation: %s",
				 r->rec, buf);
	return WEST_OK;
}

/* Range check of a converted value (check returns the problem or NULL). */
static enum west_status check_converted(const struct csv_row *r, int c, double raw,
					const struct unit *u, double v, const char *si,
					const char *problem, char *err, size_t errlen)
{
	if (!problem)
		return WEST_OK;
	return west_fail(err, errlen, WEST_ERR_INVALID, "%s: %s: %g %s = %g %s %s",
			 r->rec, col_names[c], raw, u->name, v, si, problem);
}

static enum west_status csv_wind(const struct csv_row *r, struct west_obs *ob,
				 char *err, size_t errlen)
{
	const struct unit *u;
	double v;

	if (csv_measure(r, C_HEIGHT, &height_units, &v, &u, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	ob->height = v * u->factor;
	if (check_converted(r, C_HEIGHT, v, u, ob->height, "m",
			    west_obs_check_height(ob->height), err, errlen) != WEST_OK ||
	    csv_measure(r, C_SPEED, &speed_units, &v, &u, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	ob->speed = v * u->factor;
	if (check_converted(r, C_SPEED, v, u, ob->speed, "m/s",
			    west_obs_check_speed(ob->speed), err, errlen) != WEST_OK ||
	    csv_number(r, C_DIR, &ob->direction, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	if (west_obs_check_direction(ob->direction))
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: Direction: %g %s", r->rec,
				 ob->direction, west_obs_check_direction(ob->direction));
	return WEST_OK;
}

/* Temperature: optional, checked, unused. */
static enum west_status csv_temperature(const struct csv_row *r, char *err, size_t errlen)
{
	const struct unit *u;
	double t, c;

	if (!r->f[C_TEMP][0])
		return csv_unit(r, C_TUNITS, &temp_units, &u, err, errlen);
	if (csv_measure(r, C_TEMP, &temp_units, &t, &u, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	c = u->factor ? (t - 32.0) * 5.0 / 9.0 : t;
	if (c < -90.0 || c > 60.0)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: Temperature: %g %s = %.1f C "
				 "is outside [-90, 60] C", r->rec, t, u->name, c);
	return WEST_OK;
}

/* Cloud cover (%, required); radius of influence checked, unused. */
static enum west_status csv_cloud_radius(const struct csv_row *r, double *cloud,
					 char *err, size_t errlen)
{
	const struct unit *u;
	double rad;

	if (csv_number(r, C_CLOUD, cloud, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	if (*cloud < 0.0 || *cloud > 100.0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: Cloud_Cover: %g is outside [0, 100] %%", r->rec, *cloud);
	if (!r->f[C_RADIUS][0])
		return csv_unit(r, C_RUNITS, &radius_units, &u, err, errlen);
	if (csv_number(r, C_RADIUS, &rad, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	if (rad == -1.0)
		return csv_unit(r, C_RUNITS, &radius_units, &u, err, errlen);
	if (!(rad > 0.0))
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: Radius_of_Influence: %g "
				 "must be > 0, or -1 (or empty) for none", r->rec, rad);
	return csv_measure(r, C_RADIUS, &radius_units, &rad, &u, err, errlen);
}

/* The time; none (an empty or absent date_time): the time of receipt. */
static enum west_status csv_time(const struct csv_row *r, long long received,
				 struct west_obs *ob, struct west_obs_from *from,
				 char *err, size_t errlen)
{
	char buf[48];

	if (!r->f[C_TIME][0]) {
		ob->time = received;
		from->undated = 1;
		return WEST_OK;
	}
	if (!west_obs_time_parse(r->f[C_TIME], &ob->time))
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: date_time: \"%s\" is not "
				 "an ISO 8601 UTC time (YYYY-MM-DDThh:mm:ssZ)", r->rec,
				 west_obs_show(r->f[C_TIME], buf, sizeof buf));
	return WEST_OK;
}

/* One record of the header's ncol columns, appended to rows. */
static enum west_status csv_record(const struct west_csv_rec *cr, int ncol, const char *file,
				   const struct west_obs_opts *o, struct west_obs_rows *rows,
				   char *err, size_t errlen)
{
	struct west_obs_from *from;
	struct west_obs *ob = west_obs_rows_add(rows, &from);
	struct csv_row r;
	double ll[2], cloud;
	int has_ll;

	if (!ob)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "line %zu: cannot allocate "
				 "record %zu", cr->line, rows->n + 1);
	from->file = file, from->line = cr->line;
	if (csv_row(cr, ncol, &r, err, errlen) != WEST_OK ||
	    csv_id(&r, ob, err, errlen) != WEST_OK ||
	    csv_position(&r, o, ob, ll, &has_ll, err, errlen) != WEST_OK ||
	    csv_wind(&r, ob, err, errlen) != WEST_OK ||
	    csv_temperature(&r, err, errlen) != WEST_OK ||
	    csv_cloud_radius(&r, &cloud, err, errlen) != WEST_OK ||
	    csv_time(&r, rows->received, ob, from, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	ob->stability = WEST_STAB_D;
	if (has_ll)
		ob->stability = west_stability_pasquill(
			ob->speed, west_solar_elevation(ll[0], ll[1], ob->time), cloud);
	else
		from->no_tm = 1;
	return WEST_OK;
}

/* ---- the text -------------------------------------------------------- */

enum west_status west_obs_csv_rows(const char *text, size_t len, const char *file,
				   const struct west_obs_opts *o,
				   struct west_obs_rows *rows, char *err, size_t errlen)
{
	struct west_csv c;
	struct west_csv_rec cr;
	enum west_status s;
	int ncol = NCOL;

	s = west_csv_open(&c, text, len, err, errlen);
	if (s == WEST_OK)
		s = csv_header(&c, &ncol, err, errlen);
	while (s == WEST_OK && west_csv_next(&c, 0, &cr))
		s = csv_record(&cr, ncol, file, o, rows, err, errlen);
	west_csv_close(&c);
	return s;
}

enum west_status west_obs_parse_csv(const char *text, size_t len,
				    const struct west_obs_opts *o,
				    struct west_obs_set *set,
				    char *err, size_t errlen)
{
	struct west_obs_rows rows;
	enum west_status s;

	memset(set, 0, sizeof *set);
	if (!o || !o->grid)
		return west_fail(err, errlen, WEST_ERR_INVALID, "no grid to check stations against");
	west_obs_rows_init(&rows, o);
	s = west_obs_csv_rows(text, len, NULL, o, &rows, err, errlen);
	if (s == WEST_OK)
		s = west_obs_pick(&rows, o, set, err, errlen);
	west_obs_rows_free(&rows);
	return s;
}
