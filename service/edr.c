/*
 * edr.c: the OGC API - EDR subset (edr.h): query parameter parsers, the
 * metadata documents and the CoverageJSON answers.
 *
 * Parsers walk the string with a cursor (const char **p): skip blanks,
 * read a token, check what follows.  Numbers go through number(), which
 * takes only finite decimals.  Messages quote the input through show().
 *
 * Documents are built with json_pack; its "o" steals the reference even
 * when the pack fails (a NULL argument included), so a NULL from a nested
 * builder (out of memory) propagates up as NULL without leaking.
 *
 * Answers: every value comes from west_query_point (query.h), for the
 * profile at level centres from west_query_profile; a value is appended to
 * one jansson array per parameter in the order of the range's axes
 * (z slowest, x fastest).
 */
#include "edr.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "obs.h"
#include "proj.h"

#define CRS84_URI "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
#define EPSG_URI "http://www.opengis.net/def/crs/EPSG/0/"
#define UCUM "http://www.opengis.net/def/uom/UCUM/"
#define CF_NAME "http://vocab.nerc.ac.uk/standard_name/"
#define TYPE_JSON "application/json"
/* the OpenAPI document at /api (openapi.h: WEST_OPENAPI_TYPE) */
#define TYPE_OPENAPI "application/vnd.oai.openapi+json;version=3.0"
#define TYPE_COVJSON "application/vnd.cov+json"
#define TIME_CRS "TIMECRS[\"DateTime\",TDATUM[\"Gregorian Calendar\"]," \
		 "CS[TemporalDateTime,1],AXIS[\"Time (T)\",future]]"
#define SHOW_MAX 40   /* bytes of input a message quotes */

/* The parameters, in the order of their bits (and of the ranges). */
static const struct param {
	const char *name, *label, *description, *standard_name, *unit, *unit_label;
} PARAMS[] = {
	{ "u", "Eastward wind",
	  "Wind component towards true east (the grid's x component rotated by the "
	  "meridian convergence; the grid's x axis on a terrain without a transverse "
	  "Mercator CRS), m/s",
	  "eastward_wind", "m/s", "metre per second" },
	{ "v", "Northward wind",
	  "Wind component towards true north (the grid's y component rotated by the "
	  "meridian convergence; the grid's y axis on a terrain without a transverse "
	  "Mercator CRS), m/s",
	  "northward_wind", "m/s", "metre per second" },
	{ "w", "Upward air velocity",
	  "Vertical wind component, positive up, m/s",
	  "upward_air_velocity", "m/s", "metre per second" },
	{ "speed", "Wind speed",
	  "Horizontal wind speed hypot(u, v), m/s",
	  "wind_speed", "m/s", "metre per second" },
	{ "direction", "Wind from direction",
	  "Direction the horizontal wind blows from, degrees clockwise from "
	  "true north (the grid's north on a terrain without a transverse "
	  "Mercator CRS), in [0, 360); 0 for calm",
	  "wind_from_direction", "deg", "degree" },
};
#define NPARAMS (sizeof PARAMS / sizeof PARAMS[0])
#define PARAM_NAMES "u, v, w, speed, direction"

/* ============================================================ parsing */

/* At most SHOW_MAX bytes of s, non-printable bytes as '?', "..." when cut;
 * buf holds SHOW_MAX + 4 bytes. */
static const char *show(const char *s, char *buf)
{
	size_t i;

	for (i = 0; s[i] && i < SHOW_MAX; i++)
		buf[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	strcpy(buf + i, s[i] ? "..." : "");
	return buf;
}

static const char *skip_blanks(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* A finite decimal number after blanks at *p: 1 and *p past it, else 0. */
static int number(const char **p, double *v)
{
	const char *s = skip_blanks(*p);
	size_t len = strspn(s, "+-0123456789.eE");
	char *end;

	if (len == 0)
		return 0;
	*v = strtod(s, &end);
	if (end == s || end > s + len || !isfinite(*v))
		return 0;
	*p = end;
	return 1;
}

/* The keyword kw (any case, not followed by a letter) after blanks at *p:
 * 1 and *p past it, else 0. */
static int keyword(const char **p, const char *kw)
{
	const char *s = skip_blanks(*p);
	size_t n = strlen(kw);

	if (strncasecmp(s, kw, n) != 0 || isalpha((unsigned char)s[n]))
		return 0;
	*p = s + n;
	return 1;
}

/* The character c after blanks at *p: 1 and *p past it, else 0. */
static int punct(const char **p, char c)
{
	const char *s = skip_blanks(*p);

	if (*s != c)
		return 0;
	*p = s + 1;
	return 1;
}

static int at_end(const char *p)
{
	return *skip_blanks(p) == '\0';
}

static int is_empty(const char *s)
{
	return !s || at_end(s);
}

enum west_status west_edr_parse_point(const char *wkt, double *x, double *y,
				      char *err, size_t errlen)
{
	char b[SHOW_MAX + 4];
	const char *p = wkt;
	double px, py;

	if (is_empty(wkt))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "coords is empty: give a WKT POINT(x y)");
	if (keyword(&p, "MULTIPOINT"))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "coords '%s': MULTIPOINT is not supported, give one POINT(x y)",
				 show(wkt, b));
	if (!keyword(&p, "POINT") || !punct(&p, '('))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "coords '%s' is not a WKT POINT(x y) (POINT Z and POINT M are not supported)",
				 show(wkt, b));
	if (!number(&p, &px) || !number(&p, &py) || !punct(&p, ')'))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "coords '%s': POINT takes exactly two finite numbers x y, separated by blanks",
				 show(wkt, b));
	if (!at_end(p))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "coords '%s': unexpected text after POINT(x y)", show(wkt, b));
	*x = px, *y = py;
	return WEST_OK;
}

void west_polygon_free(struct west_polygon *p)
{
	free(p->x);
	free(p->y);
	memset(p, 0, sizeof *p);
}

/* Append (x, y), growing the arrays (capacity *cap); -1 out of memory. */
static int push_vertex(struct west_polygon *p, size_t *cap, double x, double y)
{
	if (p->n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		double *nx, *ny;
		if (!(nx = realloc(p->x, c * sizeof *nx)))
			return -1;
		p->x = nx;
		if (!(ny = realloc(p->y, c * sizeof *ny)))
			return -1;
		p->y = ny;
		*cap = c;
	}
	p->x[p->n] = x;
	p->y[p->n] = y;
	p->n++;
	return 0;
}

/* The vertices "x y, x y, ..." of one ring up to its ')'. */
static enum west_status parse_ring(const char **p, struct west_polygon *poly,
				   const char *wkt, char *err, size_t errlen)
{
	char b[SHOW_MAX + 4];
	size_t cap = 0;
	double x, y;

	do {
		if (!number(p, &x) || !number(p, &y))
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "coords '%s': vertex %zu needs two finite numbers x y",
					 show(wkt, b), poly->n + 1);
		if (poly->n == WEST_EDR_MAX_VERTICES)
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "coords: the polygon has more than %d vertices",
					 WEST_EDR_MAX_VERTICES);
		if (push_vertex(poly, &cap, x, y))
			return west_fail(err, errlen, WEST_ERR_NOMEM,
					 "coords: out of memory reading the polygon");
	} while (punct(p, ','));
	if (!punct(p, ')'))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "coords '%s': vertex %zu must be followed by ',' or ')' (two numbers per vertex)",
				 show(wkt, b), poly->n);
	return WEST_OK;
}

static enum west_status check_ring(const struct west_polygon *p,
				   char *err, size_t errlen)
{
	if (p->n < 4)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "coords: the polygon has %zu vertices, a closed ring needs at least 4",
				 p->n);
	if (p->x[0] != p->x[p->n - 1] || p->y[0] != p->y[p->n - 1])
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "coords: the polygon is not closed: first vertex (%.10g %.10g) and last (%.10g %.10g) differ",
				 p->x[0], p->y[0], p->x[p->n - 1], p->y[p->n - 1]);
	return WEST_OK;
}

/* "POLYGON((" and the keyword checks; WEST_OK with *p after "((". */
static enum west_status polygon_head(const char **p, const char *wkt,
				     char *err, size_t errlen)
{
	char b[SHOW_MAX + 4];

	if (is_empty(wkt))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "coords is empty: give a WKT POLYGON((x1 y1, x2 y2, ..., x1 y1))");
	if (keyword(p, "MULTIPOLYGON"))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "coords '%s': MULTIPOLYGON is not supported, give one POLYGON",
				 show(wkt, b));
	if (!keyword(p, "POLYGON") || !punct(p, '(') || !punct(p, '('))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "coords '%s' is not a WKT POLYGON((x1 y1, x2 y2, ..., x1 y1)) (POLYGON Z and M are not supported)",
				 show(wkt, b));
	return WEST_OK;
}

enum west_status west_edr_parse_polygon(const char *wkt, struct west_polygon *poly,
					char *err, size_t errlen)
{
	char b[SHOW_MAX + 4];
	const char *p = wkt;
	enum west_status st;

	memset(poly, 0, sizeof *poly);
	st = polygon_head(&p, wkt, err, errlen);
	if (!st)
		st = parse_ring(&p, poly, wkt, err, errlen);
	if (!st && punct(&p, ','))
		st = west_fail(err, errlen, WEST_ERR_INVALID,
			       "coords: polygons with holes (more than one ring) are not supported");
	else if (!st && (!punct(&p, ')') || !at_end(p)))
		st = west_fail(err, errlen, WEST_ERR_INVALID,
			       "coords '%s': expected one ')' closing the POLYGON and nothing after it",
			       show(wkt, b));
	if (!st)
		st = check_ring(poly, err, errlen);
	if (st)
		west_polygon_free(poly);
	return st;
}

int west_polygon_contains(const struct west_polygon *p, double x, double y)
{
	int in = 0;

	for (size_t i = 0, j = p->n - 1; i < p->n; j = i++) {
		if ((p->y[i] > y) != (p->y[j] > y) &&
		    x < (p->x[j] - p->x[i]) * (y - p->y[i]) / (p->y[j] - p->y[i]) + p->x[i])
			in = !in;
	}
	return in;
}

enum west_status west_edr_parse_bbox(const char *s, double bbox[4],
				     char *err, size_t errlen)
{
	static const char *const name[4] = { "minx", "miny", "maxx", "maxy" };
	char b[SHOW_MAX + 4];
	const char *p = s;
	double v[4];
	int n = 0;

	if (is_empty(s))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "bbox is empty: give minx,miny,maxx,maxy");
	do {
		if (n == 4)
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "bbox '%s' has more than 4 numbers: give minx,miny,maxx,maxy (heights go in z)",
					 show(s, b));
		if (!number(&p, &v[n]))
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "bbox '%s': %s is not a finite number", show(s, b), name[n]);
		n++;
	} while (punct(&p, ','));
	if (n < 4 || !at_end(p))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "bbox '%s' must be exactly 4 numbers minx,miny,maxx,maxy separated by commas",
				 show(s, b));
	for (int a = 0; a < 2; a++)
		if (!(v[a] < v[a + 2]))
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "bbox: %s %.10g is not less than %s %.10g",
					 name[a], v[a], name[a + 2], v[a + 2]);
	memcpy(bbox, v, sizeof v);
	return WEST_OK;
}

/* z values finite and strictly monotonic (a CoverageJSON axis). */
static enum west_status check_levels(const double *z, size_t n,
				     char *err, size_t errlen)
{
	for (size_t k = 0; k < n; k++)
		if (!isfinite(z[k]))
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "z value %zu is not a finite number", k + 1);
	for (size_t k = 2; k < n; k++)
		if ((z[k] > z[k - 1]) != (z[1] > z[0]))
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "z values must be strictly increasing or strictly decreasing: %.10g follows %.10g",
					 z[k], z[k - 1]);
	for (size_t k = 1; k < n; k++)
		if (z[k] == z[k - 1])
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "z values must be strictly increasing or strictly decreasing: %.10g repeats",
					 z[k]);
	return WEST_OK;
}

/* "Rn/start/step" after the R. */
static enum west_status parse_z_repeat(const char *s, const char *p, double *z,
				       size_t max, size_t *n, char *err, size_t errlen)
{
	char b[SHOW_MAX + 4], *end;
	unsigned long long count;
	double start, step;

	if (!isdigit((unsigned char)*p))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "z '%s': R must be followed by the number of levels, as in R5/10/20",
				 show(s, b));
	count = strtoull(p, &end, 10);
	p = end;
	if (!punct(&p, '/') || !number(&p, &start) || !punct(&p, '/') ||
	    !number(&p, &step) || !at_end(p))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "z '%s' is not Rn/start/step (n levels from start, step apart)",
				 show(s, b));
	if (count == 0 || count > max)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "z '%s' asks for %llu levels: give 1 to %zu", show(s, b), count, max);
	for (size_t k = 0; k < count; k++)
		z[k] = start + (double)k * step;
	if (check_levels(z, (size_t)count, err, errlen))
		return WEST_ERR_INVALID;
	*n = (size_t)count;
	return WEST_OK;
}

enum west_status west_edr_parse_z(const char *s, double *z, size_t max, size_t *n,
				  char *err, size_t errlen)
{
	char b[SHOW_MAX + 4];
	const char *p = s;
	size_t k = 0;

	if (is_empty(s))
		return west_fail(err, errlen, WEST_ERR_INVALID, "z is empty");
	p = skip_blanks(s);
	if (*p == 'R' || *p == 'r')
		return parse_z_repeat(s, p + 1, z, max, n, err, errlen);
	do {
		if (k == max)
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "z lists more than %zu levels, the most one query may ask for",
					 max);
		if (!number(&p, &z[k]))
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "z '%s': value %zu is not a finite number", show(s, b), k + 1);
		k++;
	} while (punct(&p, ','));
	if (punct(&p, '/'))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "z '%s': intervals min/max are not supported, give a value, a list v1,v2,... or Rn/start/step",
				 show(s, b));
	if (!at_end(p))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "z '%s' must be a value, a comma list or Rn/start/step", show(s, b));
	if (check_levels(z, k, err, errlen))
		return WEST_ERR_INVALID;
	*n = k;
	return WEST_OK;
}

/* The bit of the parameter named by s[0 .. len-1], 0 when unknown. */
static unsigned param_bit(const char *s, size_t len)
{
	for (size_t i = 0; i < NPARAMS; i++)
		if (strlen(PARAMS[i].name) == len && !strncmp(s, PARAMS[i].name, len))
			return 1u << i;
	return 0;
}

enum west_status west_edr_parse_parameters(const char *s, unsigned *mask,
					   char *err, size_t errlen)
{
	char name[SHOW_MAX + 2], b[SHOW_MAX + 4];
	unsigned m = 0, bit;

	if (!s || !*s) {
		*mask = WEST_EDR_DEFAULT;
		return WEST_OK;
	}
	for (const char *p = s;; p++) {
		size_t len = strcspn(p, ",");
		const char *t = skip_blanks(p);
		size_t tlen = len - (size_t)(t - p);
		while (tlen > 0 && isspace((unsigned char)t[tlen - 1]))
			tlen--;
		if (tlen == 0)
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "parameter-name '%s' has an empty name: give a comma list of %s",
					 show(s, b), PARAM_NAMES);
		if (!(bit = param_bit(t, tlen))) {
			snprintf(name, sizeof name, "%.*s", (int)(tlen <= SHOW_MAX ? tlen : SHOW_MAX + 1), t);
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "parameter-name '%s' is unknown: the parameters are %s",
					 show(name, b), PARAM_NAMES);
		}
		m |= bit;
		p += len;
		if (!*p)
			break;
	}
	*mask = m;
	return WEST_OK;
}

/* One end of a datetime interval, s[0 .. len-1]: 1 and *t, or 1 and
 * *open for ".." or nothing; 0 when it is not a date-time. */
static int time_end(const char *s, size_t len, long long *t, int *open)
{
	char buf[64];

	*open = len == 0 || (len == 2 && !strncmp(s, "..", 2));
	if (*open)
		return 1;
	if (len >= sizeof buf)
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return west_obs_time_parse(buf, t);
}

enum west_status west_edr_datetime_covers(const char *s, long long t, int *covers,
					  char *err, size_t errlen)
{
	char b[SHOW_MAX + 4];
	int hit = 0;

	if (is_empty(s))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "datetime is empty: give an instant YYYY-MM-DDThh:mm:ssZ or an "
				 "interval start/end (.. for an open end)");
	for (const char *p = s;; p++) {
		size_t len = strcspn(p, ","), a = strcspn(p, "/");
		long long t0 = 0, t1 = 0;
		int open0 = 0, open1 = 0, ok;

		if (a < len)   /* an interval */
			ok = time_end(p, a, &t0, &open0) &&
			     time_end(p + a + 1, len - a - 1, &t1, &open1) &&
			     !memchr(p + a + 1, '/', len - a - 1);
		else
			ok = len > 0 && time_end(p, len, &t0, &open0) && !open0;
		if (a >= len)  /* an instant is the interval t0/t0 */
			t1 = t0;
		if (!ok)
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "datetime '%s' is not an instant YYYY-MM-DDThh:mm:ssZ, an "
					 "interval start/end (.. for an open end) or a comma list "
					 "of those", show(s, b));
		if (!open0 && !open1 && t1 < t0)
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "datetime '%s': an interval ends before it starts",
					 show(s, b));
		hit |= (open0 || t0 <= t) && (open1 || t <= t1);
		p += len;
		if (!*p)
			break;
	}
	*covers = hit;
	return WEST_OK;
}

/* ============================================================ JSON helpers */

/* A JSON string of s; when s is not UTF-8, of s with bytes >= 0x80 as '?'. */
static json_t *text(const char *s)
{
	json_t *j = json_string(s);
	char *c;

	if (j || !(c = strdup(s)))
		return j;
	for (char *q = c; *q; q++)
		if ((unsigned char)*q >= 0x80)
			*q = '?';
	j = json_string(c);
	free(c);
	return j;
}

/* {"en": s} */
static json_t *i18n(const char *s)
{
	return json_pack("{s:o}", "en", text(s));
}

/* The string base + path. */
static json_t *url(const char *base, const char *path)
{
	size_t nb = base ? strlen(base) : 0, np = strlen(path);
	char *s = malloc(nb + np + 1);
	json_t *j;

	if (!s)
		return NULL;
	memcpy(s, base ? base : "", nb);
	memcpy(s + nb, path, np + 1);
	j = text(s);
	free(s);
	return j;
}

static json_t *make_link(const char *base, const char *path, const char *rel,
			 const char *type, const char *title)
{
	return json_pack("{s:o, s:s, s:s, s:s}", "href", url(base, path),
			 "rel", rel, "type", type, "title", title);
}

/* "%.10g" of v as a JSON string. */
static json_t *number_text(double v)
{
	char b[32];

	snprintf(b, sizeof b, "%.10g", v);
	return json_string(b);
}

static json_t *time_text(long long t)
{
	char b[32];

	west_obs_time_format(t, b, sizeof b);
	return json_string(b);
}

/* [v[0], ..., v[n-1]] as reals (all finite). */
static json_t *real_array(const double *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, json_real(v[i]))) {
			json_decref(a);
			a = NULL;
		}
	return a;
}

/* ============================================================ CRS */

/* The native CRS's identifier into buf (printable ASCII): see edr.h. */
static void crs_id(const struct west_crs *c, char *buf, size_t size)
{
	unsigned long code = west_crs_epsg(c);
	char name[64];

	if (code)
		snprintf(buf, size, EPSG_URI "%lu", code);
	else
		snprintf(buf, size, "%s", west_crs_name(c, name, sizeof name) ? name : "native");
}

void west_edr_crs_id(const struct west_crs *c, char *buf, size_t size)
{
	crs_id(c, buf, size);
}

/* CRS84 as a crs parameter may name it. */
static int is_crs84(const char *s)
{
	return !strcmp(s, CRS84_URI) || !strcasecmp(s, "CRS84") || !strcasecmp(s, "OGC:CRS84");
}

enum west_status west_edr_parse_crs(const struct west_crs *c, const char *s,
				    enum west_edr_crs *which, char *err, size_t errlen)
{
	unsigned long code = west_crs_epsg(c);
	char id[128], epsg[32] = "", b[SHOW_MAX + 4];

	crs_id(c, id, sizeof id);
	if (code)
		snprintf(epsg, sizeof epsg, "EPSG:%lu", code);
	*which = c->has_tm ? WEST_EDR_CRS84 : WEST_EDR_NATIVE;
	if (!s)
		return WEST_OK;
	if (!strcmp(s, id) || (code && !strcasecmp(s, epsg))) {
		*which = WEST_EDR_NATIVE;
		return WEST_OK;
	}
	if (is_crs84(s) && c->has_tm) {
		*which = WEST_EDR_CRS84;
		return WEST_OK;
	}
	if (is_crs84(s))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "crs '%s' is not supported here: the terrain's CRS is not a "
				 "transverse Mercator that westd can convert longitude and "
				 "latitude to, so coordinates are in the grid's projected CRS "
				 "only (x, y in metres): crs=%s%s%s or none", show(s, b), id,
				 code ? " or crs=" : "", epsg);
	return west_fail(err, errlen, WEST_ERR_INVALID,
			 "crs '%s' is not supported: %scrs=%s%s%s (the grid's projected CRS, "
			 "x, y in metres)", show(s, b),
			 c->has_tm ? "crs=CRS84 or " CRS84_URI " (longitude, latitude in "
			 "degrees, WGS 84; the default), or " : "", id,
			 code ? " or crs=" : "", epsg);
}

static int in_domain(const struct west_grid *g, double x, double y)
{
	return x >= g->x0 && x <= g->x0 + (double)g->nx * g->dx &&
	       y >= g->y0 && y <= g->y0 + (double)g->ny * g->dy;
}

/* Into buf: a sentence when CRS84 coordinates (a, b) are inside the
 * domain as the grid's own x, y: metres given without crs.  "" else. */
static void metres_hint(const struct west_grid *g, double a, double b, char *buf,
			size_t size)
{
	char id[128];

	buf[0] = '\0';
	if (!in_domain(g, a, b))
		return;
	crs_id(&g->crs, id, sizeof id);
	snprintf(buf, size, "; as the grid's x, y in metres the point is inside the "
		 "domain: add crs=%s to give metres", id);
}

/* The vertices lon[i], lat[i] (degrees; a closed ring of n) in the grid's
 * CRS into p, each edge cut into WEST_EDR_DENSIFY pieces along the straight
 * line in degrees, so that the ring keeps its shape on the grid. */
static enum west_status ring_to_grid(const struct west_grid *g, const double *lon,
				     const double *lat, size_t n, struct west_polygon *p,
				     char *err, size_t errlen)
{
	size_t cap = 0;
	double x, y;

	memset(p, 0, sizeof *p);
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < (i + 1 < n ? WEST_EDR_DENSIFY : 1); k++) {
			double a = (double)k / WEST_EDR_DENSIFY;
			double lo = i + 1 < n ? lon[i] + a * (lon[i + 1] - lon[i]) : lon[i];
			double la = i + 1 < n ? lat[i] + a * (lat[i + 1] - lat[i]) : lat[i];
			char why[WEST_ERRLEN], hint[320];
			if (west_tm_forward(&g->crs, lo, la, &x, &y, why, sizeof why)) {
				west_polygon_free(p);
				metres_hint(g, lon[i], lat[i], hint, sizeof hint);
				return west_fail(err, errlen, WEST_ERR_INVALID,
						 "vertex %zu (lon %.10g, lat %.10g): %s%s", i + 1,
						 lon[i], lat[i], why, hint);
			}
			if (push_vertex(p, &cap, x, y)) {
				west_polygon_free(p);
				return west_fail(err, errlen, WEST_ERR_NOMEM,
						 "out of memory converting a polygon");
			}
		}
	return WEST_OK;
}

enum west_status west_edr_polygon_to_grid(const struct west_grid *g,
					  struct west_polygon *p,
					  char *err, size_t errlen)
{
	struct west_polygon q;
	char why[WEST_ERRLEN];
	enum west_status st = ring_to_grid(g, p->x, p->y, p->n, &q, why, sizeof why);

	if (st)
		return west_fail(err, errlen, st, "coords (CRS84): %s", why);
	west_polygon_free(p);
	*p = q;
	return WEST_OK;
}

enum west_status west_edr_bbox_to_grid(const struct west_grid *g, const double bbox[4],
				       struct west_polygon *p, char *err, size_t errlen)
{
	const double lon[5] = { bbox[0], bbox[2], bbox[2], bbox[0], bbox[0] };
	const double lat[5] = { bbox[1], bbox[1], bbox[3], bbox[3], bbox[1] };
	char why[WEST_ERRLEN];
	enum west_status st = ring_to_grid(g, lon, lat, 5, p, why, sizeof why);

	return st ? west_fail(err, errlen, st, "bbox (CRS84): %s", why) : WEST_OK;
}

/* The WKT, or a sentence when the terrain had none. */
static json_t *crs_text(const struct west_crs *c)
{
	char b[160];

	if (c->wkt)
		return text(c->wkt);
	snprintf(b, sizeof b, "the terrain's projected CRS%s%s%s (no WKT given): "
		 "x easting, y northing, metres",
		 c->grid_mapping_name[0] ? " (" : "", c->grid_mapping_name,
		 c->grid_mapping_name[0] ? ")" : "");
	return text(b);
}

/* A CoverageJSON ProjectedCRS for x, y. */
static json_t *projected_crs(const struct west_crs *c)
{
	char id[128];
	json_t *s = json_pack("{s:s, s:o}", "type", "ProjectedCRS",
			      "description", json_pack("{s:o}", "en", crs_text(c)));

	crs_id(c, id, sizeof id);
	if (s && !strncmp(id, EPSG_URI, strlen(EPSG_URI)) &&
	    json_object_set_new(s, "id", json_string(id))) {
		json_decref(s);
		s = NULL;
	}
	return s;
}

static json_t *vertical_crs(enum west_zref zref)
{
	return json_pack("{s:s, s:{s:[{s:o, s:s, s:{s:s}}]}}",
			 "type", "VerticalCRS", "cs", "csAxes",
			 "name", i18n(zref == WEST_ZREF_AGL ? "height above ground" :
				      "altitude above mean sea level"),
			 "direction", "up", "unit", "symbol", "m");
}

/* CRS84 as a CoverageJSON GeographicCRS (x longitude, y latitude). */
static json_t *geographic_crs(void)
{
	return json_pack("{s:s, s:s}", "type", "GeographicCRS", "id", CRS84_URI);
}

static json_t *referencing(const struct west_grid *g, enum west_zref zref, int lonlat)
{
	return json_pack("[{s:[s,s], s:o}, {s:[s], s:o}, {s:[s], s:{s:s, s:s}}]",
			 "coordinates", "x", "y", "system",
			 lonlat ? geographic_crs() : projected_crs(&g->crs),
			 "coordinates", "z", "system", vertical_crs(zref),
			 "coordinates", "t", "system", "type", "TemporalRS",
			 "calendar", "Gregorian");
}

/* ============================================================ parameters */

static json_t *param_json(const struct param *p)
{
	char id[128];

	snprintf(id, sizeof id, CF_NAME "%s/", p->standard_name);
	return json_pack("{s:s, s:o, s:{s:o, s:{s:s, s:s}}, s:{s:s, s:o}}",
			 "type", "Parameter", "description", i18n(p->description),
			 "unit", "label", i18n(p->unit_label),
			 "symbol", "value", p->unit, "type", UCUM,
			 "observedProperty", "id", id, "label", i18n(p->label));
}

/* {name: Parameter} for each parameter in mask. */
static json_t *params_json(unsigned mask)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < NPARAMS; i++)
		if ((mask >> i & 1) &&
		    json_object_set_new(o, PARAMS[i].name, param_json(&PARAMS[i]))) {
			json_decref(o);
			o = NULL;
		}
	return o;
}

static int has_uv(unsigned mask)
{
	return (mask & WEST_EDR_U) && (mask & WEST_EDR_V);
}

/* The vector group [u, v] (label left out: the same as the property's). */
static json_t *param_groups(void)
{
	return json_pack("[{s:s, s:{s:o}, s:[s,s]}]", "type", "ParameterGroup",
			 "observedProperty", "label", i18n("Wind velocity"),
			 "members", "u", "v");
}

/* ============================================================ documents */

json_t *west_edr_landing(const char *base)
{
	return json_pack("{s:s, s:s, s:[o,o,o,o,o,o,o]}",
			 "title", "westd",
			 "description", "Mass-consistent 3D wind field over terrain (WEST model), "
			 "served as an OGC API - EDR subset (position, area, cube; CoverageJSON) "
			 "and westd's native API under /v1.",
			 "links",
			 make_link(base, "/", "self", TYPE_JSON, "This document"),
			 make_link(base, "/conformance", "conformance", TYPE_JSON,
			      "Conformance classes implemented"),
			 make_link(base, "/collections", "data", TYPE_JSON,
			      "Collections: the wind field"),
			 make_link(base, "/api", "service-desc", TYPE_OPENAPI,
			      "The API description (OpenAPI 3.0)"),
			 make_link(base, "/api?f=html", "service-doc", "text/html",
			      "The API documentation (HTML)"),
			 make_link(base, "/v1/status", "status", TYPE_JSON,
			      "Daemon status (westd native API)"),
			 make_link(base, "/ui/", "alternate", "text/html",
			      "The live wind map (HTML, for browsers)"));
}

json_t *west_edr_conformance(void)
{
	return json_pack("{s:[s,s,s,s,s,s,s,s,s]}", "conformsTo",
			 "http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/core",
			 "http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/oas30",
			 "http://www.opengis.net/spec/ogcapi-common-2/1.0/conf/collections",
			 "http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/core",
			 "http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/collections",
			 "http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/json",
			 "http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/covjson",
			 "http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/queries",
			 "http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/oas30");
}

/* Grow bb (lon0, lat0, lon1, lat1) by (x, y); 0 when it does not invert. */
static int wgs84_grow(const struct west_crs *c, double x, double y, double bb[4])
{
	double lon, lat;

	if (west_tm_inverse(c, x, y, &lon, &lat, NULL, 0) || !isfinite(lon) || !isfinite(lat))
		return 0;
	bb[0] = fmin(bb[0], lon), bb[1] = fmin(bb[1], lat);
	bb[2] = fmax(bb[2], lon), bb[3] = fmax(bb[3], lat);
	return 1;
}

/* The lon/lat box of the domain: points along its four edges, and the
 * central meridian's crossings of the south and north edges (where a
 * parallel's latitude peaks); 0 when the CRS does not invert. */
static int wgs84_bbox(const struct west_grid *g, double bb[4])
{
	const int steps = 16;
	double w = (double)g->nx * g->dx, h = (double)g->ny * g->dy;
	double fe = g->crs.false_easting;
	int ok = g->crs.has_tm;

	bb[0] = bb[1] = INFINITY;
	bb[2] = bb[3] = -INFINITY;
	for (int s = 0; ok && s <= steps; s++) {
		double a = (double)s / steps;
		ok = wgs84_grow(&g->crs, g->x0 + a * w, g->y0, bb) &&
		     wgs84_grow(&g->crs, g->x0 + a * w, g->y0 + h, bb) &&
		     wgs84_grow(&g->crs, g->x0, g->y0 + a * h, bb) &&
		     wgs84_grow(&g->crs, g->x0 + w, g->y0 + a * h, bb);
	}
	if (ok && fe > g->x0 && fe < g->x0 + w)
		ok = wgs84_grow(&g->crs, fe, g->y0, bb) &&
		     wgs84_grow(&g->crs, fe, g->y0 + h, bb);
	return ok;
}

int west_edr_lonlat_bbox(const struct west_grid *g, double bb[4])
{
	return wgs84_bbox(g, bb);
}

void west_edr_swap_hint(const struct west_grid *g, double lon, double lat, int wkt,
			char *buf, size_t size)
{
	double x, y;

	buf[0] = '\0';
	if (g->crs.has_tm && !west_tm_forward(&g->crs, lat, lon, &x, &y, NULL, 0) &&
	    in_domain(g, x, y))
		snprintf(buf, size, wkt ? "; POINT(%.10g %.10g) is inside: were "
			 "longitude and latitude given the wrong way round (WKT is "
			 "POINT(lon lat))?" : "; lon=%.10g&lat=%.10g is inside: were "
			 "longitude and latitude given the wrong way round?", lat, lon);
}

void west_edr_lonlat_outside(const struct west_grid *g, double lon, double lat,
			     int wkt, char *buf, size_t size)
{
	double bb[4];
	char box[160] = "", swap[200];

	if (wgs84_bbox(g, bb))
		snprintf(box, sizeof box, " (lon %.5f .. %.5f, lat %.5f .. %.5f, WGS 84)",
			 bb[0], bb[2], bb[1], bb[3]);
	west_edr_swap_hint(g, lon, lat, wkt, swap, sizeof swap);
	snprintf(buf, size, "lon %.10g, lat %.10g is outside the domain%s%s", lon, lat,
		 box, swap);
}

static json_t *native_spatial(const struct west_grid *g)
{
	char id[128];

	crs_id(&g->crs, id, sizeof id);
	return json_pack("{s:[[f,f,f,f]], s:o, s:s}", "bbox", g->x0, g->y0,
			 g->x0 + (double)g->nx * g->dx, g->y0 + (double)g->ny * g->dy,
			 "crs", crs_text(&g->crs), "name", id);
}

static json_t *spatial(const struct west_grid *g)
{
	double bb[4];

	if (!wgs84_bbox(g, bb))
		return native_spatial(g);
	return json_pack("{s:[[f,f,f,f]], s:s, s:s}", "bbox", bb[0], bb[1], bb[2], bb[3],
			 "crs", CRS84_URI, "name", "CRS84");
}

static json_t *extent(const struct west_grid *g, const struct west_field *f)
{
	double top = g->base + g->zf[g->nz] - g->terrain_min;
	json_t *e = json_pack("{s:o, s:o, s:{s:[[s,o]], s:s, s:s}}",
			      "spatial", spatial(g), "spatial_native", native_spatial(g),
			      "vertical", "interval", "0", number_text(top),
			      "vrs", "height above ground, m", "name", "height above ground");

	if (e && f && json_object_set_new(e, "temporal",
			json_pack("{s:[[o,o]], s:s, s:s}", "interval",
				  time_text(f->valid_time), time_text(f->valid_time),
				  "trs", TIME_CRS, "name", "Gregorian"))) {
		json_decref(e);
		e = NULL;
	}
	return e;
}

/* CRS84 in WKT 2, for crs_details. */
#define CRS84_WKT "GEOGCRS[\"WGS 84 (CRS84)\",DATUM[\"World Geodetic System 1984\"," \
	"ELLIPSOID[\"WGS 84\",6378137,298.257223563]],CS[ellipsoidal,2]," \
	"AXIS[\"geodetic longitude (Lon)\",east,ANGLEUNIT[\"degree\",0.0174532925199433]]," \
	"AXIS[\"geodetic latitude (Lat)\",north,ANGLEUNIT[\"degree\",0.0174532925199433]]," \
	"ID[\"OGC\",\"CRS84\"]]"

/* The CRSs a query takes: [{crs, wkt}], CRS84 first where it applies. */
static json_t *crs_details(const struct west_crs *c)
{
	char id[128];
	json_t *a = json_array();

	crs_id(c, id, sizeof id);
	if (a && c->has_tm && json_array_append_new(a, json_pack("{s:s, s:s}", "crs", CRS84_URI,
								  "wkt", CRS84_WKT)))
		goto fail;
	if (a && json_array_append_new(a, json_pack("{s:s, s:o}", "crs", id, "wkt",
						    crs_text(c))))
		goto fail;
	return a;
fail:
	json_decref(a);
	return NULL;
}

/* The identifiers of the CRSs the queries take: CRS84 first where it
 * applies, then the native one. */
static json_t *crs_list(const struct west_crs *c)
{
	char id[128];

	crs_id(c, id, sizeof id);
	return c->has_tm ? json_pack("[s,s]", CRS84_URI, id) : json_pack("[s]", id);
}

/* The variables of one data query. */
static json_t *query_variables(const char *type, const char *title,
			       const struct west_crs *c)
{
	json_t *v = json_pack("{s:s, s:s, s:[s], s:s, s:o}", "title", title,
			      "query_type", type, "output_formats", "CoverageJSON",
			      "default_output_format", "CoverageJSON",
			      "crs_details", crs_details(c));

	if (v && !strcmp(type, "cube") &&
	    json_object_set_new(v, "height_units", json_pack("[s]", "m"))) {
		json_decref(v);
		return NULL;
	}
	return v;
}

static json_t *data_query(const char *base, const char *type, const char *title,
			  const struct west_crs *c)
{
	char path[64];

	snprintf(path, sizeof path, "/collections/wind/%s", type);
	return json_pack("{s:{s:o, s:s, s:s, s:s, s:o}}", "link",
			 "href", url(base, path), "rel", "data", "type", TYPE_COVJSON,
			 "title", title, "variables", query_variables(type, title, c));
}

static json_t *data_queries(const char *base, const struct west_crs *c)
{
	return json_pack("{s:o, s:o, s:o}",
			 "position", data_query(base, "position", "Position query", c),
			 "area", data_query(base, "area", "Area query", c),
			 "cube", data_query(base, "cube", "Cube query", c));
}

static json_t *collection_links(const char *base)
{
	return json_pack("[o,o,o,o,o]",
			 make_link(base, "/collections/wind", "self", TYPE_JSON, "This collection"),
			 make_link(base, "/", "root", TYPE_JSON, "The landing page"),
			 make_link(base, "/collections/wind/position", "data", TYPE_COVJSON,
			      "Position query: coords=POINT(lon lat), or POINT(x y) with crs"),
			 make_link(base, "/collections/wind/area", "data", TYPE_COVJSON,
			      "Area query: coords=POLYGON((lon lat, ...)), or x y with crs"),
			 make_link(base, "/collections/wind/cube", "data", TYPE_COVJSON,
			      "Cube query: bbox=minlon,minlat,maxlon,maxlat, or x, y with crs"));
}

json_t *west_edr_collection(const char *base, const struct west_grid *g,
			    const struct west_field *f)
{
	return json_pack("{s:s, s:s, s:s, s:[s,s,s], s:o, s:o, s:o, s:o, s:[s], s:o}",
			 "id", "wind", "title", "Wind field",
			 "description", f ? "The newest 3D wind field westd solved (WEST model, "
			 "mass-consistent over terrain), on the terrain grid: positions in "
			 "longitude and latitude (CRS84) or in the grid's projected CRS (m) "
			 "with crs, areas and cubes answered on the grid's columns in its "
			 "CRS, z in m above the ground unless asked as altitude." :
			 "The 3D wind field westd solves (WEST model); no field has been "
			 "solved yet.",
			 "keywords", "wind", "terrain", "WEST",
			 "links", collection_links(base), "extent", extent(g, f),
			 "data_queries", data_queries(base, &g->crs),
			 "crs", crs_list(&g->crs), "output_formats", "CoverageJSON",
			 "parameter_names", params_json(WEST_EDR_ALL));
}

json_t *west_edr_collections(const char *base, const struct west_grid *g,
			     const struct west_field *f)
{
	return json_pack("{s:[o], s:[o]}",
			 "links", make_link(base, "/collections", "self", TYPE_JSON, "This document"),
			 "collections", west_edr_collection(base, g, f));
}

/* ============================================================ ranges */

/* One value array per asked parameter, filled point by point. */
struct ranges {
	unsigned params;
	json_t *v[NPARAMS];
	int failed;            /* an append ran out of memory */
};

static int ranges_init(struct ranges *r, unsigned params)
{
	memset(r, 0, sizeof *r);
	r->params = params;
	for (size_t i = 0; i < NPARAMS; i++)
		if ((params >> i & 1) && !(r->v[i] = json_array()))
			r->failed = 1;
	return r->failed ? -1 : 0;
}

static void ranges_free(struct ranges *r)
{
	for (size_t i = 0; i < NPARAMS; i++)
		json_decref(r->v[i]);
	memset(r, 0, sizeof *r);
}

/* Append p's values (p NULL: nulls), in the order of PARAMS. */
static void ranges_push(struct ranges *r, const struct west_point *p)
{
	float val[NPARAMS] = { NAN, NAN, NAN, NAN, NAN };

	if (p) {
		val[0] = p->u, val[1] = p->v, val[2] = p->w;
		val[3] = p->speed, val[4] = p->direction;
	}
	for (size_t i = 0; i < NPARAMS; i++) {
		json_t *j;
		if (!r->v[i])
			continue;
		j = isfinite(val[i]) ? json_real((double)val[i]) : json_null();
		if (json_array_append_new(r->v[i], j))
			r->failed = 1;
	}
}

/* An NdArray of values (stolen); ndim 0: no shape, no axisNames. */
static json_t *ndarray(json_t *values, const char *const *axes,
		       const size_t *shape, int ndim)
{
	json_t *a = json_pack("{s:s, s:s, s:o}", "type", "NdArray",
			      "dataType", "float", "values", values);
	json_t *names = json_array(), *sh = json_array();
	int bad = !a || !names || !sh;

	for (int d = 0; !bad && d < ndim; d++)
		bad = json_array_append_new(names, json_string(axes[d])) ||
		      json_array_append_new(sh, json_integer((json_int_t)shape[d]));
	if (!bad && ndim > 0)
		bad = json_object_set(a, "axisNames", names) ||
		      json_object_set(a, "shape", sh);
	json_decref(names);
	json_decref(sh);
	if (bad) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* The ranges object; takes over r's arrays. */
static json_t *ranges_json(struct ranges *r, const char *const *axes,
			   const size_t *shape, int ndim)
{
	json_t *o = r->failed ? NULL : json_object();

	for (size_t i = 0; o && i < NPARAMS; i++) {
		if (!r->v[i])
			continue;
		if (json_object_set_new(o, PARAMS[i].name, ndarray(r->v[i], axes, shape, ndim))) {
			json_decref(o);
			o = NULL;
		}
		r->v[i] = NULL;
	}
	ranges_free(r);
	return o;
}

/* ============================================================ coverages */

/* What every answer shares. */
struct cov {
	const struct west_grid *g;
	const struct west_field *f;
	enum west_zref zref;
	unsigned params;
	const double *lonlat;   /* a CRS84 position's lon, lat; NULL: grid CRS */
};

/* A position's x (axis 0) or y (axis 1) axis: the grid coordinate v, or
 * the longitude or latitude it was asked as. */
static json_t *pos_axis(const struct cov *c, double v, int axis)
{
	return real_array(c->lonlat ? &c->lonlat[axis] : &v, 1);
}

static json_t *domain(const struct cov *c, const char *type, json_t *x,
		      json_t *y, json_t *z)
{
	return json_pack("{s:s, s:s, s:{s:{s:o}, s:{s:o}, s:{s:o}, s:{s:[o]}}, s:o}",
			 "type", "Domain", "domainType", type, "axes",
			 "x", "values", x, "y", "values", y, "z", "values", z,
			 "t", "values", time_text(c->f->valid_time),
			 "referencing", referencing(c->g, c->zref, c->lonlat != NULL));
}

/* The coverage of domain dom (stolen) and r's values (taken over). */
static enum west_status finish(const struct cov *c, json_t *dom, struct ranges *r,
			       const char *const *axes, const size_t *shape, int ndim,
			       json_t **out, char *err, size_t errlen)
{
	json_t *cv = json_pack("{s:s, s:o, s:o, s:o}", "type", "Coverage",
			       "domain", dom, "parameters", params_json(c->params),
			       "ranges", ranges_json(r, axes, shape, ndim));

	if (cv && has_uv(c->params) &&
	    json_object_set_new(cv, "parameterGroups", param_groups())) {
		json_decref(cv);
		cv = NULL;
	}
	if (!cv)
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "out of memory building the CoverageJSON answer");
	*out = cv;
	return WEST_OK;
}

static enum west_status check_common(const struct cov *c, const double *z, size_t nz,
				     char *err, size_t errlen)
{
	assert(c->g && c->f);
	if (c->params == 0 || (c->params & ~(unsigned)WEST_EDR_ALL))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "parameter-name: the set %#x names none of, or more than, %s",
				 c->params, PARAM_NAMES);
	if (c->zref != WEST_ZREF_AGL && c->zref != WEST_ZREF_MSL)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "zref %d is neither AGL nor MSL", (int)c->zref);
	return check_levels(z, nz, err, errlen);
}

static enum west_status check_coords(const struct west_grid *g, double x, double y,
				     char *err, size_t errlen)
{
	double x1 = g->x0 + (double)g->nx * g->dx, y1 = g->y0 + (double)g->ny * g->dy;

	if (!(x >= g->x0 && x <= x1))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "coords: x %.10g m is outside the domain %.10g .. %.10g m", x, g->x0, x1);
	if (!(y >= g->y0 && y <= y1))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "coords: y %.10g m is outside the domain %.10g .. %.10g m", y, g->y0, y1);
	return WEST_OK;
}

static enum west_status cov_point(const struct cov *c, double x, double y, double z,
				  json_t **out, char *err, size_t errlen)
{
	struct west_point p;
	struct ranges r;
	enum west_status st = west_query_point(c->g, c->f, x, y, z, c->zref, &p, err, errlen);

	if (st)
		return st;
	ranges_init(&r, c->params);
	ranges_push(&r, &p);
	return finish(c, domain(c, "Point", pos_axis(c, x, 0), pos_axis(c, y, 1),
				real_array(&z, 1)), &r, NULL, NULL, 0, out, err, errlen);
}

static const char *const AXES_Z[] = { "z" };

/* The profile at the column's level centres. */
static enum west_status cov_levels(const struct cov *c, double x, double y,
				   json_t **out, char *err, size_t errlen)
{
	struct west_point *pts = malloc(c->g->nz * sizeof *pts);
	double *zs = malloc(c->g->nz * sizeof *zs);
	struct ranges r;
	size_t n = 0;
	enum west_status st = pts && zs ? WEST_OK :
		west_fail(err, errlen, WEST_ERR_NOMEM, "out of memory for a profile");

	if (!st)
		st = west_query_profile(c->g, c->f, x, y, pts, &n, err, errlen);
	if (!st) {
		ranges_init(&r, c->params);
		for (size_t k = 0; k < n; k++) {
			zs[k] = c->zref == WEST_ZREF_AGL ? pts[k].z_agl : pts[k].z_msl;
			ranges_push(&r, &pts[k]);
		}
		st = finish(c, domain(c, "VerticalProfile", pos_axis(c, x, 0),
				      pos_axis(c, y, 1), real_array(zs, n)),
			    &r, AXES_Z, &n, 1, out, err, errlen);
	}
	free(pts);
	free(zs);
	return st;
}

/* The profile at the asked heights, null where the query fails. */
static enum west_status cov_profile(const struct cov *c, double x, double y,
				    const double *z, size_t nz, json_t **out,
				    char *err, size_t errlen)
{
	struct ranges r;
	struct west_point p;

	ranges_init(&r, c->params);
	for (size_t k = 0; k < nz; k++) {
		int ok = !west_query_point(c->g, c->f, x, y, z[k], c->zref, &p, NULL, 0);
		ranges_push(&r, ok ? &p : NULL);
	}
	return finish(c, domain(c, "VerticalProfile", pos_axis(c, x, 0),
				pos_axis(c, y, 1), real_array(z, nz)),
		      &r, AXES_Z, &nz, 1, out, err, errlen);
}

static enum west_status position(const struct cov *c, double x, double y,
				 const double *z, size_t nz_req,
				 json_t **out, char *err, size_t errlen)
{
	if (nz_req == 1)
		return cov_point(c, x, y, z[0], out, err, errlen);
	if (nz_req == 0)
		return cov_levels(c, x, y, out, err, errlen);
	return cov_profile(c, x, y, z, nz_req, out, err, errlen);
}

enum west_status west_covjson_position(const struct west_grid *g,
				       const struct west_field *f,
				       double x, double y,
				       const double *z, size_t nz_req,
				       enum west_zref zref, unsigned params,
				       json_t **out, char *err, size_t errlen)
{
	struct cov c = { g, f, zref, params, NULL };
	enum west_status st = check_common(&c, z, nz_req, err, errlen);

	if (!st)
		st = check_coords(g, x, y, err, errlen);
	return st ? st : position(&c, x, y, z, nz_req, out, err, errlen);
}

enum west_status west_covjson_position_lonlat(const struct west_grid *g,
					      const struct west_field *f,
					      double lon, double lat,
					      const double *z, size_t nz_req,
					      enum west_zref zref, unsigned params,
					      json_t **out, char *err, size_t errlen)
{
	const double lonlat[2] = { lon, lat };
	struct cov c = { g, f, zref, params, lonlat };
	char why[WEST_ERRLEN];
	double x, y;
	enum west_status st = check_common(&c, z, nz_req, err, errlen);

	if (st)
		return st;
	if (!g->crs.has_tm)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "coords: the terrain has no transverse Mercator CRS, so "
				 "longitude and latitude cannot be placed on the grid");
	if (west_tm_forward(&g->crs, lon, lat, &x, &y, why, sizeof why)) {
		char swap[200], metres[320];
		west_edr_swap_hint(g, lon, lat, 1, swap, sizeof swap);
		metres_hint(g, lon, lat, metres, sizeof metres);
		return west_fail(err, errlen, WEST_ERR_INVALID, "coords (CRS84): %s%s%s",
				 why, swap, metres);
	}
	if (check_coords(g, x, y, NULL, 0)) {
		west_edr_lonlat_outside(g, lon, lat, 1, why, sizeof why);
		return west_fail(err, errlen, WEST_ERR_INVALID, "coords: %s", why);
	}
	return position(&c, x, y, z, nz_req, out, err, errlen);
}

/* ---- cube and area -------------------------------------------------------- */

/* The columns lo .. lo + n - 1 along one axis. */
struct span {
	size_t lo, n;
};

static double centre(double origin, double d, size_t i)
{
	return origin + ((double)i + 0.5) * d;
}

/* The columns of n whose centres lie in [lo, hi]: 1 and *s, else 0. */
static int span_of(double lo, double hi, double origin, double d, size_t n,
		   struct span *s)
{
	double a = ceil((lo - origin) / d - 0.5), b = floor((hi - origin) / d - 0.5);
	size_t i0 = (size_t)fmin(fmax(a, 0.0), (double)(n - 1));
	size_t i1 = (size_t)fmin(fmax(b, 0.0), (double)(n - 1));

	/* the division may round across a centre: settle on the exact test */
	while (i0 > 0 && centre(origin, d, i0 - 1) >= lo)
		i0--;
	while (i0 + 1 < n && centre(origin, d, i0) < lo)
		i0++;
	while (i1 + 1 < n && centre(origin, d, i1 + 1) <= hi)
		i1++;
	while (i1 > 0 && centre(origin, d, i1) > hi)
		i1--;
	if (i0 > i1 || centre(origin, d, i0) < lo || centre(origin, d, i1) > hi)
		return 0;
	s->lo = i0;
	s->n = i1 - i0 + 1;
	return 1;
}

/* The box to cut: bbox, or the polygon's bounds. */
static enum west_status cube_box(const double *bbox, const struct west_polygon *poly,
				 double box[4], char *err, size_t errlen)
{
	assert(bbox || poly);
	if (poly) {
		if (poly->n < 1)
			return west_fail(err, errlen, WEST_ERR_INVALID, "coords: the polygon is empty");
		box[0] = box[2] = poly->x[0];
		box[1] = box[3] = poly->y[0];
		for (size_t i = 1; i < poly->n; i++) {
			box[0] = fmin(box[0], poly->x[i]), box[2] = fmax(box[2], poly->x[i]);
			box[1] = fmin(box[1], poly->y[i]), box[3] = fmax(box[3], poly->y[i]);
		}
	} else {
		memcpy(box, bbox, 4 * sizeof *box);
	}
	for (int a = 0; a < 2; a++)
		if (!isfinite(box[a]) || !isfinite(box[a + 2]) || box[a] > box[a + 2])
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "%s: the box %.10g,%.10g,%.10g,%.10g is not minx,miny,maxx,maxy",
					 poly ? "coords" : "bbox", box[0], box[1], box[2], box[3]);
	return WEST_OK;
}

/* The z values: z, or the level centres (a new array in *own). */
static const double *cube_levels(const struct cov *c, const double *z, size_t *nz,
				 double **own)
{
	const struct west_grid *g = c->g;

	*own = NULL;
	if (*nz > 0)
		return z;
	if (!(*own = malloc(g->nz * sizeof **own)))
		return NULL;
	for (size_t k = 0; k < g->nz; k++)
		(*own)[k] = 0.5 * (g->zf[k] + g->zf[k + 1]) +
			    (c->zref == WEST_ZREF_MSL ? g->base : 0.0);
	*nz = g->nz;
	return *own;
}

static json_t *centres(double origin, double d, const struct span *s)
{
	double *v = malloc(s->n * sizeof *v);
	json_t *a;

	if (!v)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		v[i] = centre(origin, d, s->lo + i);
	a = real_array(v, s->n);
	free(v);
	return a;
}

/* Fill the grid's values, z slowest and x fastest. */
static void cube_fill(const struct cov *c, const struct west_polygon *poly,
		      const struct span *sx, const struct span *sy,
		      const double *z, size_t nz, struct ranges *r)
{
	const struct west_grid *g = c->g;
	struct west_point p;

	for (size_t k = 0; k < nz && !r->failed; k++)
		for (size_t j = 0; j < sy->n; j++)
			for (size_t i = 0; i < sx->n; i++) {
				double x = centre(g->x0, g->dx, sx->lo + i);
				double y = centre(g->y0, g->dy, sy->lo + j);
				int ok = (!poly || west_polygon_contains(poly, x, y)) &&
					 !west_query_point(g, c->f, x, y, z[k], c->zref,
							   &p, NULL, 0);
				ranges_push(r, ok ? &p : NULL);
			}
}

static unsigned count_params(unsigned params)
{
	unsigned n = 0;

	for (size_t i = 0; i < NPARAMS; i++)
		n += params >> i & 1;
	return n;
}

static enum west_status check_cap(const struct cov *c, const struct span *sx,
				  const struct span *sy, size_t nz, size_t max_cells,
				  const char *what, char *err, size_t errlen)
{
	unsigned np = count_params(c->params);
	double cells = (double)sx->n * (double)sy->n * (double)nz * np;

	if (cells > (double)max_cells)
		return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
				 "the %s asks for %zu x %zu columns x %zu levels x %u parameters = %.0f cells, more than max_response_cells = %zu",
				 what, sx->n, sy->n, nz, np, cells, max_cells);
	return WEST_OK;
}

static const char *const AXES_ZYX[] = { "z", "y", "x" };

enum west_status west_covjson_cube(const struct west_grid *g,
				   const struct west_field *f,
				   const double bbox[4],
				   const struct west_polygon *poly,
				   const double *z, size_t nz_req,
				   enum west_zref zref, unsigned params,
				   size_t max_cells, json_t **out,
				   char *err, size_t errlen)
{
	struct cov c = { g, f, zref, params, NULL };
	const char *what = bbox ? "cube" : "area";
	struct span sx, sy;
	struct ranges r;
	double box[4], *own = NULL;
	size_t nz = nz_req;
	enum west_status st = check_common(&c, z, nz_req, err, errlen);

	if (!st)
		st = cube_box(bbox, poly, box, err, errlen);
	if (st)
		return st;
	if (!span_of(box[0], box[2], g->x0, g->dx, g->nx, &sx) ||
	    !span_of(box[1], box[3], g->y0, g->dy, g->ny, &sy))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: the box %.10g,%.10g,%.10g,%.10g holds no column centre of the grid (centres %.10g .. %.10g by %.10g .. %.10g m)",
				 poly ? "coords" : "bbox", box[0], box[1], box[2], box[3],
				 centre(g->x0, g->dx, 0), centre(g->x0, g->dx, g->nx - 1),
				 centre(g->y0, g->dy, 0), centre(g->y0, g->dy, g->ny - 1));
	if (!(z = cube_levels(&c, z, &nz, &own)))
		return west_fail(err, errlen, WEST_ERR_NOMEM, "out of memory for the levels");
	st = check_cap(&c, &sx, &sy, nz, max_cells, what, err, errlen);
	if (!st) {
		size_t shape[3] = { nz, sy.n, sx.n };
		ranges_init(&r, params);
		cube_fill(&c, poly, &sx, &sy, z, nz, &r);
		st = finish(&c, domain(&c, "Grid", centres(g->x0, g->dx, &sx),
				       centres(g->y0, g->dy, &sy), real_array(z, nz)),
			    &r, AXES_ZYX, shape, 3, out, err, errlen);
	}
	free(own);
	return st;
}

/* ============================================================ columns */

/* The Parameter object of a layer. */
static json_t *layer_param(const struct west_covjson_layer *p)
{
	return json_pack("{s:s, s:o, s:{s:o, s:{s:s, s:s}}, s:{s:o}}",
			 "type", "Parameter", "description", i18n(p->description),
			 "unit", "label", i18n(p->unit_label), "symbol", "value", p->unit,
			 "type", UCUM, "observedProperty", "label", i18n(p->property));
}

/* The values of a layer as an NdArray [1, ny, nx]. */
static json_t *layer_range(const struct west_grid *g, const struct west_covjson_layer *p)
{
	size_t shape[3] = { 1, g->ny, g->nx }, n = g->nx * g->ny;
	json_t *v = json_array();

	for (size_t k = 0; v && k < n; k++)
		if (json_array_append_new(v, isfinite(p->v[k]) ? json_real((double)p->v[k]) :
					  json_null())) {
			json_decref(v);
			v = NULL;
		}
	return v ? ndarray(v, AXES_ZYX, shape, 3) : NULL;
}

/* All column centres along one axis. */
static json_t *all_centres(double origin, double d, size_t n)
{
	struct span s = { 0, n };
	return centres(origin, d, &s);
}

enum west_status west_covjson_columns(const struct west_grid *g,
				      const struct west_covjson_layer *p, size_t n,
				      double z0, double z1, long long t0, long long t1,
				      json_t **out, char *err, size_t errlen)
{
	json_t *params = json_object(), *ranges = json_object(), *dom, *cv;
	int bad = !params || !ranges;

	for (size_t k = 0; !bad && k < n; k++)
		bad = json_object_set_new(params, p[k].name, layer_param(&p[k])) ||
		      json_object_set_new(ranges, p[k].name, layer_range(g, &p[k]));
	dom = json_pack("{s:s, s:s, s:{s:{s:o}, s:{s:o}, s:{s:[f], s:[f,f]}, "
			"s:{s:[o], s:[o,o]}}, s:o}",
			"type", "Domain", "domainType", "Grid", "axes",
			"x", "values", all_centres(g->x0, g->dx, g->nx),
			"y", "values", all_centres(g->y0, g->dy, g->ny),
			"z", "values", 0.5 * (z0 + z1), "bounds", z0, z1,
			"t", "values", time_text(t1), "bounds", time_text(t0), time_text(t1),
			"referencing", referencing(g, WEST_ZREF_AGL, 0));
	cv = bad ? NULL : json_pack("{s:s, s:o, s:O, s:O}", "type", "Coverage", "domain", dom,
				    "parameters", params, "ranges", ranges);
	if (bad)
		json_decref(dom);
	json_decref(params);
	json_decref(ranges);
	if (!cv)
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "out of memory building the CoverageJSON answer");
	*out = cv;
	return WEST_OK;
}
