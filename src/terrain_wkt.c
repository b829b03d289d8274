/*
 * terrain_wkt.c: is a DEM's CRS text one whose x, y and cell size are
 * metres (terrain_internal.h, west_dem_check_crs)?
 *
 * libwest converts no units: a raster's coordinates and cell size are taken
 * as metres.  A .prj that says otherwise must refuse the DEM, or a grid in
 * degrees is solved as a domain a few centimetres wide and a grid in feet
 * as one 3.28 times too large.  This file reads just enough of the text to
 * tell:
 *
 *  - WKT1 (OGC or ESRI, as GDAL writes a .prj) and WKT2: the top-level
 *    keyword names the kind.  GEOGCS, GEOGCRS, GEOGRAPHICCRS (degrees) and
 *    GEOCCS, GEODCRS, GEODETICCRS (geographic or geocentric: no map grid)
 *    are refused.  PROJCS, PROJCRS, PROJECTEDCRS, LOCAL_CS, ENGCRS,
 *    ENGINEERINGCRS must have a linear unit of 1 m: a UNIT (WKT1) or
 *    LENGTHUNIT child of the top node, else one inside its first AXIS; no
 *    unit at all is taken as metres.  COMPD_CS, COMPOUNDCRS, BOUNDCRS and
 *    SOURCECRS are looked through to their first CRS.
 *  - The older ArcInfo .prj ("Projection GEOGRAPHIC", "Units FEET", one
 *    key and value a line): Projection GEOGRAPHIC and Units other than
 *    METERS are refused.
 *  - Anything else is accepted as it always was (kept as the CRS text),
 *    with a warning in the log that its units are unknown.
 *
 * Keywords match in any case; a quoted string ("" inside is a quote) never
 * counts as structure.  Nothing is allocated.
 *
 * west_crs_epsg (terrain.h) reads the same text for the EPSG code that
 * names a CRS: its top-level authority, or UTM on WGS 84 recognised from
 * the projection parameters (an ESRI .prj names no authority).
 */
#include "terrain.h"
#include "terrain_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"

#define WKT_DEPTH_MAX 8 /* wrappers looked through */

/* A node KEYWORD[ ... ]: the keyword, and its contents up to the bracket. */
struct wkt_node {
	const char *kw, *body, *end; /* end: the closing bracket */
	size_t kwlen;
};

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p;
}

/* The matching close of the bracket before p, skipping quoted strings. */
static const char *close_of(const char *p, const char *end)
{
	int depth = 1, quoted = 0;

	for (; p < end; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (!quoted && (*p == '[' || *p == '('))
			depth++;
		else if (!quoted && (*p == ']' || *p == ')') && --depth == 0)
			return p;
	}
	return NULL;
}

/* The node that starts at p (spaces first); 0 when p is no node. */
static int node_at(const char *p, const char *end, struct wkt_node *n)
{
	p = skip_ws(p, end);
	n->kw = p;
	while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
		p++;
	n->kwlen = (size_t)(p - n->kw);
	p = skip_ws(p, end);
	if (n->kwlen == 0 || p >= end || (*p != '[' && *p != '('))
		return 0;
	n->body = p + 1;
	n->end = close_of(n->body, end);
	return n->end != NULL;
}

static int kw_is(const struct wkt_node *n, const char *const *words)
{
	for (; *words; words++)
		if (strlen(*words) == n->kwlen && strncasecmp(n->kw, *words, n->kwlen) == 0)
			return 1;
	return 0;
}

/* The first node among n's comma-separated items, or (depth > 0) their
 * items in turn, depth-first, whose keyword is one of words; 0 when none. */
static int find(const struct wkt_node *n, const char *const *words, int depth,
		struct wkt_node *c)
{
	const char *p = n->body;
	struct wkt_node k;

	while (p < n->end) {
		if (node_at(p, n->end, &k)) {
			if (kw_is(&k, words)) {
				*c = k;
				return 1;
			}
			if (depth > 0 && find(&k, words, depth - 1, c))
				return 1;
			p = k.end + 1;
		} else {
			int quoted = 0;
			while (p < n->end && (quoted || *p != ','))
				quoted ^= *p++ == '"';
		}
		p = skip_ws(p, n->end);
		if (p < n->end && *p == ',')
			p++;
	}
	return 0;
}

/* The first child of n whose keyword is one of words; 0 when none. */
static int child(const struct wkt_node *n, const char *const *words, struct wkt_node *c)
{
	return find(n, words, 0, c);
}

/* KEYWORD["name", v1, ..., vn]: the name (cut to size) and the first n
 * numbers, all finite; 0 when the node is not of that form. */
static int name_numbers(const struct wkt_node *u, char *name, size_t size, double *v, int n)
{
	const char *p = skip_ws(u->body, u->end), *q;
	char *at;

	if (p >= u->end || *p != '"' || !(q = memchr(p + 1, '"', (size_t)(u->end - p - 1))))
		return 0;
	snprintf(name, size, "%.*s", (int)(q - p - 1), p + 1);
	at = (char *)q + 1;   /* after what was read */
	for (int i = 0; i < n; i++) {
		p = skip_ws(at, u->end);
		if (p >= u->end || *p != ',')
			return 0;
		v[i] = strtod(p + 1, &at);
		if (at == p + 1 || !isfinite(v[i]))
			return 0;
	}
	return 1;
}

/* UNIT["name", factor]: the name (cut to size) and the factor. */
static int unit_of(const struct wkt_node *u, char *name, size_t size, double *factor)
{
	return name_numbers(u, name, size, factor, 1);
}

static const char *const unit_words[] = { "UNIT", "LENGTHUNIT", NULL };

/* The linear unit of a projected or engineering node; 0 when it has none. */
static int linear_unit(const struct wkt_node *n, char *name, size_t size, double *factor)
{
	static const char *const axis_words[] = { "AXIS", NULL };
	struct wkt_node u, a;

	if (child(n, unit_words, &u))
		return unit_of(&u, name, size, factor);
	if (child(n, axis_words, &a) && child(&a, unit_words, &u))
		return unit_of(&u, name, size, factor);
	return 0;
}

static enum west_status refuse_unit(const struct wkt_node *n, const char *where,
				    char *err, size_t errlen)
{
	char name[64];
	double f;

	if (!linear_unit(n, name, sizeof name, &f) || fabs(f - 1.0) <= 1e-9)
		return WEST_OK;
	return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
			 "%s: the CRS is in %s (%.10g m), but westd reads x, y and the cell size as metres; reproject to metres (gdalwarp -t_srs EPSG:326NN for UTM)",
			 where, name, f);
}

static enum west_status check_node(const struct wkt_node *n, int depth, const char *where,
				   char *err, size_t errlen)
{
	static const char *const geog[] = { "GEOGCS", "GEOGCRS", "GEOGRAPHICCRS", NULL };
	static const char *const geod[] = { "GEOCCS", "GEODCRS", "GEODETICCRS", NULL };
	static const char *const grid[] = { "PROJCS", "PROJCRS", "PROJECTEDCRS", "LOCAL_CS",
					    "ENGCRS", "ENGINEERINGCRS", NULL };
	static const char *const wrap[] = { "COMPD_CS", "COMPOUNDCRS", "BOUNDCRS",
					    "SOURCECRS", NULL };
	static const char *const inner[] = { "GEOGCS", "GEOGCRS", "GEOGRAPHICCRS", "GEOCCS",
					     "GEODCRS", "GEODETICCRS", "PROJCS", "PROJCRS",
					     "PROJECTEDCRS", "LOCAL_CS", "ENGCRS",
					     "ENGINEERINGCRS", "SOURCECRS", NULL };
	struct wkt_node c;

	if (kw_is(n, geog))
		return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
				 "%s: the CRS is geographic (%.*s, in degrees), but westd reads x, y and the cell size as metres; reproject to a metric CRS such as UTM (gdalwarp -t_srs EPSG:326NN)",
				 where, (int)n->kwlen, n->kw);
	if (kw_is(n, geod))
		return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
				 "%s: the CRS is geodetic (%.*s), not a map projection in metres; reproject to a metric CRS such as UTM (gdalwarp -t_srs EPSG:326NN)",
				 where, (int)n->kwlen, n->kw);
	if (kw_is(n, grid))
		return refuse_unit(n, where, err, errlen);
	if (kw_is(n, wrap) && depth < WKT_DEPTH_MAX && child(n, inner, &c))
		return check_node(&c, depth + 1, where, err, errlen);
	west_log(WEST_LOG_WARNING, "%s: CRS '%.*s' not understood; its x, y and cell size are taken as metres",
		 where, (int)n->kwlen, n->kw);
	return WEST_OK;
}

/* The value of "KEY value" on a line of an ArcInfo .prj; 0 when absent. */
static int arcinfo_value(const char *text, const char *key, char *val, size_t size)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		p = skip_ws(p, p + strlen(p));
		if (strncasecmp(p, key, klen) == 0 && isspace((unsigned char)p[klen])) {
			p += klen;
			while (*p == ' ' || *p == '\t')
				p++;
			size_t n = strcspn(p, " \t\r\n");
			snprintf(val, size, "%.*s", (int)n, p);
			return n > 0;
		}
	}
	return 0;
}

static enum west_status check_arcinfo(const char *text, const char *where,
				      char *err, size_t errlen)
{
	char proj[64], units[64];

	if (!arcinfo_value(text, "Projection", proj, sizeof proj)) {
		west_log(WEST_LOG_WARNING, "%s: not a WKT CRS; its x, y and cell size are taken as metres",
			 where);
		return WEST_OK;
	}
	if (strcasecmp(proj, "GEOGRAPHIC") == 0)
		return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
				 "%s: the CRS is geographic (Projection GEOGRAPHIC, in degrees), but westd reads x, y and the cell size as metres; reproject to a metric CRS such as UTM (gdalwarp -t_srs EPSG:326NN)",
				 where);
	if (arcinfo_value(text, "Units", units, sizeof units) &&
	    strcasecmp(units, "METERS") != 0 && strcasecmp(units, "METRES") != 0)
		return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
				 "%s: the CRS is in Units %s, but westd reads x, y and the cell size as metres; reproject to metres (gdalwarp -t_srs EPSG:326NN for UTM)",
				 where, units);
	return WEST_OK;
}

enum west_status west_dem_check_crs(const char *text, const char *where,
				    char *err, size_t errlen)
{
	const char *end = text + strlen(text);
	struct wkt_node n;

	if (node_at(text, end, &n))
		return check_node(&n, 0, where, err, errlen);
	return check_arcinfo(text, where, err, errlen);
}

/* ------------------------------------------------------------ ellipsoid */

int west_ellipsoid_is_wgs84(double a, double rf)
{
	return fabs(a - 6378137.0) < 0.01 &&
	       (fabs(rf - 298.257223563) < 1e-6 || fabs(rf - 298.257222101) < 1e-6);
}

int west_wkt_ellipsoid_ok(const char *wkt, char *name, size_t size)
{
	static const char *const words[] = { "SPHEROID", "ELLIPSOID", NULL };
	struct wkt_node top, e;
	double ar[2];

	if (!wkt || !node_at(wkt, wkt + strlen(wkt), &top) ||
	    !find(&top, words, WKT_DEPTH_MAX, &e))
		return 1;
	/* SPHEROID["name", a, rf] */
	return name_numbers(&e, name, size, ar, 2) && west_ellipsoid_is_wgs84(ar[0], ar[1]);
}

/* ------------------------------------------------------------ EPSG code */

/* The code of n's own AUTHORITY["EPSG","n"] (WKT1) or ID["EPSG",n] (WKT2)
 * child; 0 when it has none. */
static unsigned long own_epsg(const struct wkt_node *n)
{
	static const char *const auth[] = { "AUTHORITY", "ID", NULL };
	struct wkt_node a;
	const char *p;
	char *stop;
	unsigned long code;

	if (!child(n, auth, &a))
		return 0;
	p = skip_ws(a.body, a.end);
	if (a.end - p < 7 || strncasecmp(p, "\"EPSG\"", 6) != 0)
		return 0;
	p = skip_ws(p + 6, a.end);
	if (p >= a.end || *p != ',')
		return 0;
	p = skip_ws(p + 1, a.end);
	p += p < a.end && *p == '"';
	code = strtoul(p, &stop, 10);
	return stop > p && stop <= a.end && code > 0 && code < 1000000000UL ? code : 0;
}

/* 1 when the WKT's datum (the DATUM of its geographic CRS) is WGS 84,
 * however spelt ("WGS_1984", "D_WGS_1984", "World Geodetic System 1984"). */
static int datum_is_wgs84(const struct wkt_node *top)
{
	static const char *const geog[] = { "GEOGCS", "GEOGCRS", "BASEGEOGCRS",
					    "BASEGEODCRS", NULL };
	static const char *const datum[] = { "DATUM", "TRF", "GEODETICDATUM", NULL };
	struct wkt_node g, d;
	char name[96], *q = name;

	if (!child(top, geog, &g) || !child(&g, datum, &d))
		return 0;
	const char *p = skip_ws(d.body, d.end), *e;
	if (p >= d.end || *p != '"' || !(e = memchr(p + 1, '"', (size_t)(d.end - p - 1))))
		return 0;
	for (p++; p < e && q < name + sizeof name - 1; p++)
		if (isalnum((unsigned char)*p))
			*q++ = (char)tolower((unsigned char)*p);
	*q = '\0';
	return strstr(name, "wgs1984") || strstr(name, "wgs84") ||
	       strstr(name, "worldgeodeticsystem1984");
}

/* The WGS 84 / UTM code (32601-32660 north, 32701-32760 south) of a
 * transverse Mercator with UTM's parameters; 0 for any other. */
static unsigned long utm_epsg(const struct west_crs *c)
{
	double zone = (c->lon0 + 183.0) / 6.0;
	long z = lround(zone);

	if (!c->has_tm || fabs(c->k0 - 0.9996) > 1e-12 || fabs(c->lat0) > 1e-12 ||
	    fabs(c->false_easting - 500000.0) > 1e-6 || z < 1 || z > 60 ||
	    fabs(zone - (double)z) > 1e-9)
		return 0;
	if (fabs(c->false_northing) <= 1e-6)
		return 32600UL + (unsigned long)z;
	if (fabs(c->false_northing - 10000000.0) <= 1e-6)
		return 32700UL + (unsigned long)z;
	return 0;
}

unsigned long west_crs_epsg(const struct west_crs *c)
{
	struct wkt_node top;
	unsigned long code;

	if (!c->wkt || !node_at(c->wkt, c->wkt + strlen(c->wkt), &top))
		return 0;
	if ((code = own_epsg(&top)))
		return code;
	return datum_is_wgs84(&top) ? utm_epsg(c) : 0;
}

/* ------------------------------------------------------------ CRS name */

int west_crs_name(const struct west_crs *c, char *buf, size_t size)
{
	const char *q = c && c->wkt ? strchr(c->wkt, '"') : NULL;
	size_t n = q ? strcspn(q + 1, "\"") : 0;

	if (n > 0 && q[1 + n] == '"')
		snprintf(buf, size, "%.*s", (int)n, q + 1);
	else if (c && c->grid_mapping_name[0])
		snprintf(buf, size, "%s", c->grid_mapping_name);
	else
		buf[0] = '\0';
	for (char *p = buf; *p; p++)
		if (!isprint((unsigned char)*p))
			*p = '?';
	return buf[0] != '\0';
}
