/*
 * terrain_asc.c: the ESRI ASCII grid reader (terrain.h).
 *
 * The file is read line by line so that every error names FILE:LINE.  A
 * header of "key value" lines (keys in any case: ncols, nrows,
 * xllcorner|xllcenter, yllcorner|yllcenter, cellsize or dx and dy,
 * optional NODATA_value) ends at the first line that starts with a number;
 * then come nrows lines of exactly ncols numbers, the NORTH row first,
 * stored south-first (file row r goes to j = nrows - 1 - r).  Blank lines
 * are skipped anywhere; anything else after the last row is an error.
 * Rows and values in messages count from 1 in file order, as an editor
 * shows them.  The grid's edges (corner, corner + ncols cellsize, and the
 * same north) must be finite doubles, as the GDAL reader requires of a
 * geotransform.  A *.prj beside the grid is kept as the CRS WKT; when it is
 * a WKT1 Transverse_Mercator projection whose five parameters are in range
 * (west_tm_params_ok), they fill has_tm.
 * The .prj is read right after the header, before anything of the grid's
 * size is allocated, and refused when its CRS is not in metres
 * (geographic, or a projection in feet: west_dem_check_crs), since the
 * header's coordinates and cell size are taken as metres.
 */
#define _GNU_SOURCE /* strcasestr */
#include "terrain.h"
#include "terrain_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "proj.h"

#define PRJ_MAX 65536 /* bytes; a longer .prj is not a WKT */

enum asc_key {
	K_NCOLS, K_NROWS, K_XLLCORNER, K_XLLCENTER, K_YLLCORNER, K_YLLCENTER,
	K_CELLSIZE, K_DX, K_DY, K_NODATA, NKEYS
};

static const char *const key_names[NKEYS] = {
	"ncols", "nrows", "xllcorner", "xllcenter", "yllcorner", "yllcenter",
	"cellsize", "dx", "dy", "NODATA_value",
};

struct asc_header {
	double v[NKEYS];          /* real-valued keys */
	size_t ncols, nrows;
	size_t line[NKEYS];       /* line that gave the key; 0 = absent */
};

struct asc_reader {
	const char *path;
	FILE *f;
	char *line;
	size_t cap, lineno;
	int pending;              /* line holds the first row, not yet parsed */
	int has_nodata;
	double nodata;
	unsigned char *valid;     /* NODATA flags, allocated at the first hole */
	size_t nholes, first_row, first_col;
};

static int is_sep(char c)
{
	return c == '\0' || isspace((unsigned char)c);
}

static const char *skip_space(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

static size_t token_len(const char *p)
{
	size_t n = 0;

	while (!is_sep(p[n]))
		n++;
	return n;
}

static size_t count_tokens(const char *p)
{
	size_t n = 0;

	for (p = skip_space(p); *p; p = skip_space(p + token_len(p)))
		n++;
	return n;
}

/* A printable copy of a token for messages, cut at 40 characters. */
static const char *show(const char *p, size_t n, char *buf, size_t size)
{
	size_t k;

	if (n > 40)
		n = 40;
	for (k = 0; k < n && k + 1 < size; k++)
		buf[k] = isprint((unsigned char)p[k]) ? p[k] : '?';
	buf[k] = '\0';
	return buf;
}

/* 1: a line in r->line, 0: end of file, -1: read error (err set). */
static int next_line(struct asc_reader *r, char *err, size_t errlen)
{
	if (r->pending) {
		r->pending = 0;
		return 1;
	}
	errno = 0;
	if (getline(&r->line, &r->cap, r->f) >= 0) {
		r->lineno++;
		return 1;
	}
	if (feof(r->f))
		return 0;
	west_fail(err, errlen, errno == ENOMEM ? WEST_ERR_NOMEM : WEST_ERR_IO,
		  "%s:%zu: cannot read: %s", r->path, r->lineno + 1, strerror(errno));
	return -1;
}

static int starts_number(const char *p)
{
	char *end;

	strtod(p, &end);
	return end != p && is_sep(*end);
}

static int find_key(const char *p, size_t n)
{
	for (int k = 0; k < NKEYS; k++)
		if (strlen(key_names[k]) == n && strncasecmp(p, key_names[k], n) == 0)
			return k;
	return -1;
}

int west_dem_asc_header(const char *head, size_t n)
{
	size_t i = 0, k;

	while (i < n && isspace((unsigned char)head[i]))
		i++;
	for (k = i; k < n && !is_sep(head[k]); k++)
		;
	return find_key(head + i, k - i) >= 0;
}

static enum west_status parse_count(struct asc_reader *r, int k, const char *v,
				    size_t n, size_t *out, char *err, size_t errlen)
{
	char buf[48], *end;
	unsigned long long u;

	errno = 0;
	u = isdigit((unsigned char)v[0]) ? strtoull(v, &end, 10) : 0;
	if (u == 0 || end != v + n || errno || u > SIZE_MAX)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s:%zu: %s '%s' is not a positive integer",
				 r->path, r->lineno, key_names[k], show(v, n, buf, sizeof buf));
	*out = (size_t)u;
	return WEST_OK;
}

static enum west_status parse_real(struct asc_reader *r, int k, const char *v,
				   size_t n, double *out, char *err, size_t errlen)
{
	char buf[48], *end;
	double x = strtod(v, &end);

	show(v, n, buf, sizeof buf);
	if (end != v + n)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s:%zu: %s '%s' is not a number",
				 r->path, r->lineno, key_names[k], buf);
	if (k != K_NODATA && !isfinite(x))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s:%zu: %s '%s' is not finite",
				 r->path, r->lineno, key_names[k], buf);
	if ((k == K_CELLSIZE || k == K_DX || k == K_DY) && !(x > 0.0))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s:%zu: %s '%s' must be positive",
				 r->path, r->lineno, key_names[k], buf);
	*out = x;
	return WEST_OK;
}

static enum west_status parse_header_line(struct asc_reader *r, struct asc_header *h,
					  const char *p, char *err, size_t errlen)
{
	char buf[48];
	size_t klen = token_len(p);
	const char *v = skip_space(p + klen);
	size_t vlen = token_len(v);
	int k = find_key(p, klen);

	if (k < 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s:%zu: '%s' is not an ESRI ASCII grid header key",
				 r->path, r->lineno, show(p, klen, buf, sizeof buf));
	if (h->line[k])
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s:%zu: %s given twice (first on line %zu)",
				 r->path, r->lineno, key_names[k], h->line[k]);
	if (vlen == 0 || *skip_space(v + vlen))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s:%zu: %s needs exactly one value",
				 r->path, r->lineno, key_names[k]);
	h->line[k] = r->lineno;
	if (k == K_NCOLS || k == K_NROWS)
		return parse_count(r, k, v, vlen, k == K_NCOLS ? &h->ncols : &h->nrows,
				   err, errlen);
	return parse_real(r, k, v, vlen, &h->v[k], err, errlen);
}

/* Header lines up to the first line that starts with a number. */
static enum west_status read_header(struct asc_reader *r, struct asc_header *h,
				    char *err, size_t errlen)
{
	enum west_status s;
	int got;

	while ((got = next_line(r, err, errlen)) == 1) {
		const char *p = skip_space(r->line);
		if (!*p)
			continue;
		if (starts_number(p)) {
			r->pending = 1;
			return WEST_OK;
		}
		s = parse_header_line(r, h, p, err, errlen);
		if (s != WEST_OK)
			return s;
	}
	if (got < 0)
		return WEST_ERR_IO;
	if (r->lineno == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: file is empty", r->path);
	return WEST_OK;
}

/* Exactly one of keys a, b: returns it, or -1 with err set. */
static int one_of(const struct asc_reader *r, const struct asc_header *h,
		  int a, int b, char *err, size_t errlen)
{
	if (h->line[a] && h->line[b]) {
		west_fail(err, errlen, WEST_ERR_INVALID, "%s:%zu: header gives both %s and %s",
			  r->path, h->line[b], key_names[a], key_names[b]);
		return -1;
	}
	if (!h->line[a] && !h->line[b]) {
		west_fail(err, errlen, WEST_ERR_INVALID, "%s: header has no %s or %s",
			  r->path, key_names[a], key_names[b]);
		return -1;
	}
	return h->line[a] ? a : b;
}

/* Cell size from cellsize, or from dx and dy. */
static enum west_status header_cell(const struct asc_reader *r, const struct asc_header *h,
				    struct west_dem *dem, char *err, size_t errlen)
{
	int k;

	if (!h->line[K_CELLSIZE] && !h->line[K_DX])
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: header has no cellsize (or dx and dy)", r->path);
	if ((k = one_of(r, h, K_CELLSIZE, K_DX, err, errlen)) < 0)
		return WEST_ERR_INVALID;
	if (k == K_CELLSIZE && h->line[K_DY])
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s:%zu: header gives both cellsize and dy",
				 r->path, h->line[K_DY]);
	if (k == K_DX && !h->line[K_DY])
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: header has dx but no dy", r->path);
	dem->dx = h->v[k];
	dem->dy = h->v[k == K_DX ? K_DY : K_CELLSIZE];
	return WEST_OK;
}

/* Refuse an axis whose outer edges, corner and corner + n d, are not both
 * finite: a corner (key kc: xllcorner, ...) and a cell size (key kd:
 * cellsize, dx, dy) each finite can still put the far edge past the
 * largest double (xllcorner 1e308), or a centre key's corner before it. */
static enum west_status finite_axis(const struct asc_reader *r, const struct asc_header *h,
				    int kc, int kd, int kn, double corner, double d, size_t n,
				    char *err, size_t errlen)
{
	if (isfinite(corner) && isfinite(corner + (double)n * d))
		return WEST_OK;
	return west_fail(err, errlen, WEST_ERR_INVALID,
			 "%s:%zu: %s %g, %s %g and %s %zu put an edge of the grid beyond "
			 "any finite coordinate", r->path, h->line[kc], key_names[kc],
			 h->v[kc], key_names[kd], d, key_names[kn], n);
}

static enum west_status header_geometry(struct asc_reader *r, const struct asc_header *h,
					struct west_dem *dem, char *err, size_t errlen)
{
	int kx, ky, kdx, kdy;

	if (!h->line[K_NCOLS] || !h->line[K_NROWS])
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: header has no %s",
				 r->path, h->line[K_NCOLS] ? "nrows" : "ncols");
	if ((kx = one_of(r, h, K_XLLCORNER, K_XLLCENTER, err, errlen)) < 0 ||
	    (ky = one_of(r, h, K_YLLCORNER, K_YLLCENTER, err, errlen)) < 0)
		return WEST_ERR_INVALID;
	if (header_cell(r, h, dem, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	dem->nx = h->ncols;
	dem->ny = h->nrows;
	dem->x0 = h->v[kx] - (kx == K_XLLCENTER ? 0.5 * dem->dx : 0.0);
	dem->y0 = h->v[ky] - (ky == K_YLLCENTER ? 0.5 * dem->dy : 0.0);
	kdx = h->line[K_DX] ? K_DX : K_CELLSIZE;
	kdy = h->line[K_DY] ? K_DY : K_CELLSIZE;
	if (finite_axis(r, h, kx, kdx, K_NCOLS, dem->x0, dem->dx, dem->nx, err, errlen) ||
	    finite_axis(r, h, ky, kdy, K_NROWS, dem->y0, dem->dy, dem->ny, err, errlen))
		return WEST_ERR_INVALID;
	r->has_nodata = h->line[K_NODATA] != 0;
	r->nodata = h->v[K_NODATA];
	return WEST_OK;
}

static int is_nodata(const struct asc_reader *r, double v)
{
	return r->has_nodata && (v == r->nodata || (isnan(r->nodata) && isnan(v)));
}

/* Flag cell k (file row `row`, column `col`, from 0) as a hole. */
static enum west_status mark_hole(struct asc_reader *r, struct west_dem *dem,
				  size_t k, size_t row, size_t col,
				  char *err, size_t errlen)
{
	if (!r->valid) {
		r->valid = malloc(dem->nx * dem->ny);
		if (!r->valid)
			return west_fail(err, errlen, WEST_ERR_NOMEM,
					 "%s: cannot allocate NODATA flags", r->path);
		memset(r->valid, 1, dem->nx * dem->ny);
		r->first_row = row + 1;
		r->first_col = col + 1;
	}
	r->valid[k] = 0;
	dem->z[k] = 0.0f;
	r->nholes++;
	return WEST_OK;
}

static enum west_status parse_row(struct asc_reader *r, struct west_dem *dem,
				  size_t row, char *err, size_t errlen)
{
	size_t nx = dem->nx, n = count_tokens(r->line);
	size_t base = (dem->ny - 1 - row) * nx;
	const char *p = r->line;
	char buf[48], *end;

	if (n != nx)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s:%zu: row %zu has %zu values, expected %zu",
				 r->path, r->lineno, row + 1, n, nx);
	for (size_t i = 0; i < nx; i++, p = end) {
		p = skip_space(p);
		double v = strtod(p, &end);
		if (end == p || !is_sep(*end))
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "%s:%zu: value %zu '%s' is not a number", r->path,
					 r->lineno, i + 1, show(p, token_len(p), buf, sizeof buf));
		if (is_nodata(r, v)) {
			if (mark_hole(r, dem, base + i, row, i, err, errlen) != WEST_OK)
				return WEST_ERR_NOMEM;
		} else if (west_dem_height_ok(v)) {
			dem->z[base + i] = (float)v;
		} else {
			return west_dem_height_fail(v, err, errlen, "%s:%zu: value %zu",
						    r->path, r->lineno, i + 1);
		}
	}
	return WEST_OK;
}

/* Blank lines only after the last row. */
static enum west_status check_trailing(struct asc_reader *r, size_t nrows,
				       char *err, size_t errlen)
{
	int got;

	while ((got = next_line(r, err, errlen)) == 1)
		if (*skip_space(r->line))
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "%s:%zu: extra data after the last of %zu rows",
					 r->path, r->lineno, nrows);
	return got < 0 ? WEST_ERR_IO : WEST_OK;
}

static enum west_status read_rows(struct asc_reader *r, struct west_dem *dem,
				  char *err, size_t errlen)
{
	enum west_status s;
	size_t row = 0;
	int got = 1;

	while (row < dem->ny && (got = next_line(r, err, errlen)) == 1) {
		if (!*skip_space(r->line))
			continue;
		s = parse_row(r, dem, row, err, errlen);
		if (s != WEST_OK)
			return s;
		row++;
	}
	if (got < 0)
		return WEST_ERR_IO;
	if (row < dem->ny)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s:%zu: file ends after %zu of %zu rows",
				 r->path, r->lineno, row, dem->ny);
	return check_trailing(r, dem->ny, err, errlen);
}

/* FILE.prj for FILE.asc: the last extension replaced, or ".prj" appended. */
static char *prj_path(const char *path)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	size_t n = (dot && (!slash || dot > slash)) ? (size_t)(dot - path) : strlen(path);
	char *p = malloc(n + 5);

	if (p) {
		memcpy(p, path, n);
		memcpy(p + n, ".prj", 5);
	}
	return p;
}

static int wkt_param(const char *wkt, const char *name, double *v)
{
	char pat[64], *end;
	const char *p;

	snprintf(pat, sizeof pat, "PARAMETER[\"%s\",", name);
	p = strcasestr(wkt, pat);
	if (!p)
		return 0;
	p += strlen(pat);
	*v = strtod(p, &end);
	return end != p && isfinite(*v);
}

/* has_tm from a WKT1 (OGC or ESRI) Transverse_Mercator projection, when
 * its five parameters are ones the projection takes and its ellipsoid is
 * WGS 84's (else a warning naming pp, and no has_tm). */
static void crs_from_wkt(struct west_crs *crs, const char *pp)
{
	struct west_crs c = *crs;
	char ellipsoid[64];

	if (!strcasestr(c.wkt, "PROJECTION[\"Transverse_Mercator\"]") ||
	    !wkt_param(c.wkt, "central_meridian", &c.lon0) ||
	    !wkt_param(c.wkt, "latitude_of_origin", &c.lat0) ||
	    !wkt_param(c.wkt, "scale_factor", &c.k0) ||
	    !wkt_param(c.wkt, "false_easting", &c.false_easting) ||
	    !wkt_param(c.wkt, "false_northing", &c.false_northing))
		return;
	if (!west_tm_params_ok(&c)) {
		west_log(WEST_LOG_WARNING, "%s: transverse Mercator parameters out of range "
			 "(scale factor %g, latitude of origin %g); no longitude and latitude "
			 "for this terrain", pp, c.k0, c.lat0);
		return;
	}
	if (!west_wkt_ellipsoid_ok(c.wkt, ellipsoid, sizeof ellipsoid)) {
		west_log(WEST_LOG_WARNING, "%s: transverse Mercator on the ellipsoid '%s', not "
			 "WGS 84's; no longitude and latitude for this terrain (x and y in the "
			 "grid's metres work, and directions are still turned to true north; "
			 "reproject to WGS 84 / UTM for longitude and latitude)", pp, ellipsoid);
		c.tm_other_ellipsoid = 1;
		*crs = c;
		return;
	}
	snprintf(c.grid_mapping_name, sizeof c.grid_mapping_name, "transverse_mercator");
	c.has_tm = 1;
	*crs = c;
}

static enum west_status read_prj_file(const char *path, const char *pp, FILE *f,
				      struct west_crs *crs, char *err, size_t errlen)
{
	char *buf = malloc(PRJ_MAX + 1), where[2 * 4096 + 8];
	enum west_status s;
	size_t n;

	if (!buf)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "%s: cannot allocate", pp);
	n = fread(buf, 1, PRJ_MAX + 1, f);
	if (ferror(f) || n > PRJ_MAX) {
		int e = errno;
		free(buf);
		if (n > PRJ_MAX)
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "%s: longer than %d bytes; not a WKT", pp, PRJ_MAX);
		return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot read: %s",
				 pp, strerror(e));
	}
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	if (n == 0) {
		free(buf);
		return WEST_OK;
	}
	snprintf(where, sizeof where, "%s: %s", path, pp);
	s = west_dem_check_crs(buf, where, err, errlen);
	if (s != WEST_OK) {
		free(buf);
		return s;
	}
	crs->wkt = buf;
	crs_from_wkt(crs, pp);
	return WEST_OK;
}

/* The sidecar .prj, when there is one. */
static enum west_status read_prj(const char *path, struct west_crs *crs,
				 char *err, size_t errlen)
{
	char *pp = prj_path(path);
	enum west_status s = WEST_OK;
	FILE *f;

	if (!pp)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "%s: cannot allocate", path);
	f = fopen(pp, "r");
	if (f) {
		s = read_prj_file(path, pp, f, crs, err, errlen);
		fclose(f);
	} else if (errno != ENOENT) {
		s = west_fail(err, errlen, WEST_ERR_IO, "%s: cannot open: %s",
			      pp, strerror(errno));
	}
	free(pp);
	return s;
}

static enum west_status alloc_heights(const char *path, struct west_dem *dem,
				      char *err, size_t errlen)
{
	dem->z = malloc(dem->nx * dem->ny * sizeof *dem->z);
	if (!dem->z)
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "%s: cannot allocate %zu x %zu cells", path, dem->nx, dem->ny);
	return WEST_OK;
}

static enum west_status finish_nodata(struct asc_reader *r, struct west_dem *dem,
				      const struct west_dem_opts *opts,
				      char *err, size_t errlen)
{
	char first[64];
	unsigned char *valid = r->valid;

	r->valid = NULL; /* west_dem_nodata_finish frees it */
	snprintf(first, sizeof first, "row %zu, column %zu", r->first_row, r->first_col);
	return west_dem_nodata_finish(dem, valid, r->nholes, r->path, first, opts,
				      err, errlen);
}

enum west_status west_dem_load_asc(struct west_dem *dem, const char *path,
				   const struct west_dem_opts *opts,
				   char *err, size_t errlen)
{
	struct asc_reader r = { .path = path };
	struct asc_header h;
	enum west_status s;

	memset(dem, 0, sizeof *dem);
	memset(&h, 0, sizeof h);
	r.f = fopen(path, "r");
	if (!r.f)
		return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot open: %s",
				 path, strerror(errno));
	s = read_header(&r, &h, err, errlen);
	if (s == WEST_OK)
		s = header_geometry(&r, &h, dem, err, errlen);
	if (s == WEST_OK)
		s = read_prj(path, &dem->crs, err, errlen);
	if (s == WEST_OK)
		s = west_dem_check_size(path, dem->nx, dem->ny, opts, err, errlen);
	if (s == WEST_OK)
		s = alloc_heights(path, dem, err, errlen);
	if (s == WEST_OK)
		s = read_rows(&r, dem, err, errlen);
	if (s == WEST_OK)
		s = finish_nodata(&r, dem, opts, err, errlen);
	fclose(r.f);
	free(r.line);
	free(r.valid);
	if (s != WEST_OK)
		west_dem_free(dem);
	return s;
}
