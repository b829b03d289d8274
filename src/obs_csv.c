/*
 * obs_csv.c: the CSV observation reader, WindNinja's point-initialization
 * station format (obs.h; docs/api.md, "Observations", "CSV").
 *
 * The first non-blank line is the header, which must be exactly (after
 * trimming white space, a UTF-8 byte-order mark and a CR) the 16 WindNinja
 * columns below; each further non-blank line is one station with 16 fields
 * split on commas (fields hold no commas; a field may be double-quoted,
 * with no quote inside).  Lines count from 1 as an editor shows them;
 * errors read "line N (station "X"): COLUMN: problem".
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
 * its cloud cover and the solar elevation at the station and date_time.
 * PROJCS rows need the inverse transverse Mercator for their longitude and
 * latitude; on a grid without one they get class D, with one warning per
 * set.
 */
#include "obs_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
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

struct csv_doc {
	char *buf;          /* a NUL-terminated copy of the text, cut into lines */
	char **line;        /* line[i] is line i + 1 */
	size_t nline;
	size_t *recline;    /* line number of each record */
	size_t projcs_no_tm;/* PROJCS rows given class D for want of a TM */
};

struct csv_row {
	char *f[NCOL];
	size_t lineno;
	char rec[128];      /* "line N (station "X")" */
};

/* Trim white space in place. */
static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* ---- lines and header ------------------------------------------------ */

/* Copy the text, refuse NUL bytes, drop a BOM, cut it into lines. */
static enum west_status csv_lines(struct csv_doc *d, const char *text, size_t len,
				  char *err, size_t errlen)
{
	const char *nul = memchr(text, '\0', len);
	size_t n = 1;
	char *p;

	if (nul) {
		for (const char *q = text; q < nul; q++)
			n += *q == '\n';
		return west_fail(err, errlen, WEST_ERR_INVALID, "line %zu: contains a NUL byte", n);
	}
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		text += 3, len -= 3;
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	d->buf = malloc(len + 1);
	d->line = malloc(n * sizeof *d->line);
	if (!d->buf || !d->line)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "cannot allocate");
	memcpy(d->buf, text, len);
	d->buf[len] = '\0';
	for (p = d->buf; p; d->nline++) {
		d->line[d->nline] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = '\0';
	}
	return WEST_OK;
}

static int blank(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return *s == '\0';
}

/* Why the header h is not the WindNinja one: the first column that differs. */
static enum west_status header_fail(size_t lineno, const char *h, char *err, size_t errlen)
{
	char col[64], buf[48];
	size_t k = 0;

	for (int c = 0;; c++) {
		size_t n = 0;
		int depth = 0;
		while (h[k + n] && (h[k + n] != ',' || depth > 0)) {
			depth += (h[k + n] == '(') - (h[k + n] == ')');
			n++;
		}
		snprintf(col, sizeof col, "%.*s", (int)(n < 60 ? n : 60), h + k);
		if (c >= NCOL)
			return west_fail(err, errlen, WEST_ERR_INVALID, "line %zu: header has "
					 "more than %d columns; expected WindNinja's station "
					 "header ending in date_time", lineno, NCOL);
		if (strcmp(col, header_cols[c]) != 0)
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "line %zu: header column %d is \"%s\", expected \"%s\"",
					 lineno, c + 1, west_obs_show(col, buf, sizeof buf), header_cols[c]);
		if (!h[k + n])
			return west_fail(err, errlen, WEST_ERR_INVALID, "line %zu: header has "
					 "%d columns, expected %d (WindNinja's station "
					 "header with date_time)", lineno, c + 1, NCOL);
		k += n + 1;
	}
}

/* The first non-blank line must be the header; *first: the line after it. */
static enum west_status csv_header(const struct csv_doc *d, size_t *first,
				   char *err, size_t errlen)
{
	char expect[512], *h;
	size_t i = 0, n = 0;

	while (i < d->nline && blank(d->line[i]))
		i++;
	if (i == d->nline)
		return west_fail(err, errlen, WEST_ERR_INVALID, "line 1: no header: the "
				 "text is empty (expected WindNinja's station header)");
	for (int c = 0; c < NCOL; c++)
		n += (size_t)snprintf(expect + n, sizeof expect - n, "%s%s",
				      c ? "," : "", header_cols[c]);
	*first = i + 1;
	h = trim(d->line[i]);
	if (strcmp(h, expect) != 0)
		return header_fail(i + 1, h, err, errlen);
	return WEST_OK;
}

/* ---- fields ---------------------------------------------------------- */

/* Trim, then strip one pair of double quotes; a stray quote is an error. */
static enum west_status unquote(struct csv_row *r, int c, char *err, size_t errlen)
{
	char *s = trim(r->f[c]);
	size_t n = strlen(s);

	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		s[n - 1] = '\0';
		s = trim(s + 1);
	}
	r->f[c] = s;
	if (strchr(s, '"'))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: %s: stray double quote", r->rec, col_names[c]);
	return WEST_OK;
}

/* Split line into the 16 fields and label the record. */
static enum west_status csv_split(char *line, size_t lineno, struct csv_row *r,
				  char *err, size_t errlen)
{
	int n = 0;
	char *p = line, buf[48];

	r->lineno = lineno;
	for (;;) {
		char *comma = strchr(p, ',');
		if (n < NCOL)
			r->f[n] = p;
		n++;
		if (!comma)
			break;
		*comma = '\0';
		p = comma + 1;
	}
	snprintf(r->rec, sizeof r->rec, "line %zu", lineno);
	if (unquote(r, C_NAME, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	if (r->f[C_NAME][0])
		snprintf(r->rec, sizeof r->rec, "line %zu (station \"%s\")", lineno,
			 west_obs_show(r->f[C_NAME], buf, sizeof buf));
	if (n != NCOL)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: %d columns, expected %d",
				 r->rec, n, NCOL);
	for (int c = 1; c < NCOL; c++)
		if (unquote(r, c, err, errlen) != WEST_OK)
			return WEST_ERR_INVALID;
	return WEST_OK;
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
				 "but the terrain has no transverse Mercator grid_mapping; "
				 "give PROJCS x and y", r->rec);
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

static enum west_status csv_time(const struct csv_row *r, struct west_obs *ob,
				 char *err, size_t errlen)
{
	char buf[48];

	if (!r->f[C_TIME][0])
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: date_time: missing", r->rec);
	if (!west_obs_time_parse(r->f[C_TIME], &ob->time))
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: date_time: \"%s\" is not "
				 "an ISO 8601 UTC time (YYYY-MM-DDThh:mm:ssZ)", r->rec,
				 west_obs_show(r->f[C_TIME], buf, sizeof buf));
	return WEST_OK;
}

static enum west_status csv_record(struct csv_doc *d, char *line, size_t lineno,
				   const struct west_obs_opts *o, struct west_obs *ob,
				   char *err, size_t errlen)
{
	struct csv_row r;
	double ll[2], cloud;
	int has_ll;

	if (csv_split(line, lineno, &r, err, errlen) != WEST_OK ||
	    csv_id(&r, ob, err, errlen) != WEST_OK ||
	    csv_position(&r, o, ob, ll, &has_ll, err, errlen) != WEST_OK ||
	    csv_wind(&r, ob, err, errlen) != WEST_OK ||
	    csv_temperature(&r, err, errlen) != WEST_OK ||
	    csv_cloud_radius(&r, &cloud, err, errlen) != WEST_OK ||
	    csv_time(&r, ob, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	ob->stability = WEST_STAB_D;
	if (has_ll)
		ob->stability = west_stability_pasquill(
			ob->speed, west_solar_elevation(ll[0], ll[1], ob->time), cloud);
	else
		d->projcs_no_tm++;
	return WEST_OK;
}

/* ---- the set --------------------------------------------------------- */

static enum west_status csv_records(struct csv_doc *d, size_t first,
				    const struct west_obs_opts *o,
				    struct west_obs_set *set, char *err, size_t errlen)
{
	enum west_status s;
	size_t n = 0, k = 0;

	for (size_t i = first; i < d->nline; i++)
		n += !blank(d->line[i]);
	s = west_obs_check_count(n, o, err, errlen);
	if (s == WEST_OK)
		s = west_obs_set_alloc(set, n, err, errlen);
	if (s == WEST_OK && !(d->recline = malloc(n * sizeof *d->recline)))
		s = west_fail(err, errlen, WEST_ERR_NOMEM, "cannot allocate");
	for (size_t i = first; s == WEST_OK && i < d->nline; i++) {
		if (blank(d->line[i]))
			continue;
		d->recline[k] = i + 1;
		s = csv_record(d, d->line[i], i + 1, o, &set->obs[k++], err, errlen);
	}
	return s;
}

static enum west_status csv_unique(const struct csv_doc *d, const struct west_obs_set *set,
				   char *err, size_t errlen)
{
	size_t a, b;
	int dup = west_obs_find_duplicate(set, &a, &b);

	if (dup < 0)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "cannot allocate");
	if (dup)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "line %zu (station \"%s\"): Station_Name: duplicate of line %zu",
				 d->recline[b], set->obs[b].id, d->recline[a]);
	return WEST_OK;
}

enum west_status west_obs_parse_csv(const char *text, size_t len,
				    const struct west_obs_opts *o,
				    struct west_obs_set *set,
				    char *err, size_t errlen)
{
	struct csv_doc d = { 0 };
	enum west_status s;
	size_t first = 0;

	memset(set, 0, sizeof *set);
	if (!o || !o->grid)
		return west_fail(err, errlen, WEST_ERR_INVALID, "no grid to check stations against");
	if (!text)
		text = "", len = 0;
	s = csv_lines(&d, text, len, err, errlen);
	if (s == WEST_OK)
		s = csv_header(&d, &first, err, errlen);
	if (s == WEST_OK)
		s = csv_records(&d, first, o, set, err, errlen);
	if (s == WEST_OK)
		s = csv_unique(&d, set, err, errlen);
	if (s == WEST_OK) {
		west_obs_set_finish(set);
		if (d.projcs_no_tm)
			west_log(WEST_LOG_WARNING, "%zu PROJCS station(s): the terrain has no "
				 "transverse Mercator grid_mapping, so no solar elevation; "
				 "stability class D used", d.projcs_no_tm);
	}
	free(d.buf);
	free(d.line);
	free(d.recline);
	if (s != WEST_OK)
		west_obs_set_free(set);
	return s;
}
