/*
 * geotiff.c: the GeoTIFF writer (geotiff.h), and the wind slice as one.
 *
 * The file, offsets from its start (TIFF 6.0 section 2; every number
 * little-endian; every offset fits 32 bits, so the file is under 4 GiB):
 *   0      header: "II", 42, the IFD's offset (8)
 *   8      the IFD: its entry count (2 bytes), 12-byte entries (tag, type,
 *          count, and the value itself when it fits 4 bytes, else its
 *          offset) in ascending tag order, then 0 (no next IFD)
 *   then   the values that do not fit, each at an offset aligned to 8
 *   then   the strips, from an offset aligned to 8, one after the other:
 *          rows north to south, each row's pixels west to east, each
 *          pixel's bands in order, float32
 *
 * The entries (TIFF types SHORT 3, LONG 4, ASCII 2, DOUBLE 12):
 *   256 ImageWidth, 257 ImageLength (LONG); 258 BitsPerSample (32 per
 *   band); 259 Compression 1 (none); 262 PhotometricInterpretation 1
 *   (BlackIsZero); 273 StripOffsets (LONG per strip); 277 SamplesPerPixel
 *   (bands); 278 RowsPerStrip; 279 StripByteCounts; 284
 *   PlanarConfiguration 1 (chunky); 305 Software (when given); 338
 *   ExtraSamples (0, unspecified, per band after the first); 339
 *   SampleFormat (3, IEEE float, per band); 33550 ModelPixelScaleTag
 *   (dx, dy, 0); 33922 ModelTiepointTag (0, 0, 0, x_ul, y_ul, 0);
 *   34735 GeoKeyDirectoryTag; 34736 GeoDoubleParamsTag and 34737
 *   GeoAsciiParamsTag (when a key needs them); 42112 GDAL_METADATA;
 *   42113 GDAL_NODATA.
 *
 * GeoKeys (GeoTIFF 1.0, directory version 1.1.0), ascending: 1024
 * GTModelType 1 (projected), 1025 GTRasterType 1 (PixelIsArea), 1026
 * GTCitation (the CRS's name), then either 3072 ProjectedCSType = the
 * EPSG code, or for a transverse Mercator without one 2048
 * GeographicType 4326, 3072 ProjectedCSType 32767 (user-defined), 3074
 * Projection 32767, 3075 ProjCoordTrans 1 (CT_TransverseMercator), 3076
 * ProjLinearUnits 9001 (metre), 3080 ProjNatOriginLong, 3081
 * ProjNatOriginLat, 3082 ProjFalseEasting, 3083 ProjFalseNorthing, 3092
 * ProjScaleAtNatOrigin (doubles); or, with neither, 3076 alone.  An ASCII
 * key's text ends with '|' in GeoAsciiParams ('|' inside it becomes '/').
 *
 * GDAL_METADATA: <GDALMetadata> with <Item name="NAME">VALUE</Item> per
 * dataset item, and per band b (0-based) <Item name="DESCRIPTION"
 * sample="b" role="description"> and <Item name="UNITTYPE" sample="b"
 * role="unittype">, the form GDAL's GTiff driver writes and reads; text
 * XML-escaped.
 */
#include "geotiff.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "obs.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

enum { T_ASCII = 2, T_SHORT = 3, T_LONG = 4, T_DOUBLE = 12 };

enum {
	TAG_WIDTH = 256, TAG_LENGTH = 257, TAG_BITS = 258, TAG_COMPRESSION = 259,
	TAG_PHOTOMETRIC = 262, TAG_STRIP_OFFSETS = 273, TAG_SAMPLES = 277,
	TAG_ROWS_PER_STRIP = 278, TAG_STRIP_BYTES = 279, TAG_PLANAR = 284,
	TAG_SOFTWARE = 305, TAG_EXTRA_SAMPLES = 338, TAG_SAMPLE_FORMAT = 339,
	TAG_PIXEL_SCALE = 33550, TAG_TIEPOINT = 33922, TAG_GEOKEYS = 34735,
	TAG_GEODOUBLES = 34736, TAG_GEOASCII = 34737, TAG_GDAL_METADATA = 42112,
	TAG_GDAL_NODATA = 42113,
};

enum {
	GK_MODEL_TYPE = 1024, GK_RASTER_TYPE = 1025, GK_CITATION = 1026,
	GK_GEOGRAPHIC_TYPE = 2048, GK_PROJECTED_TYPE = 3072, GK_PROJECTION = 3074,
	GK_COORD_TRANS = 3075, GK_LINEAR_UNITS = 3076, GK_NAT_ORIGIN_LONG = 3080,
	GK_NAT_ORIGIN_LAT = 3081, GK_FALSE_EASTING = 3082, GK_FALSE_NORTHING = 3083,
	GK_SCALE_AT_NAT_ORIGIN = 3092,
};

#define USER_DEFINED 32767
#define MAX_TAGS 24
#define MAX_KEYS 16
#define MAX_DOUBLES 8
#define NAME_MAX_LEN 63      /* of the CRS's name in the citation */
#define STRIP_TARGET 65536   /* bytes per strip, about */

/* ------------------------------------------------------------- the IFD */

struct tag {
	uint16_t id, type;
	uint32_t count;
	unsigned char *val;      /* count values, little-endian; malloc'd */
	size_t size;             /* bytes */
	uint32_t offset;         /* of val in the file, when size > 4 */
};

struct tiff {
	struct tag tag[MAX_TAGS];
	size_t n;
	int nomem;
};

static void put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_double(unsigned char *p, double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof u);
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(u >> (8 * i));
}

static void put_float(unsigned char *p, float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof u);
	put32(p, u);
}

/* A new entry of count values of `each` bytes (zeroed), in ascending tag
 * order; NULL (t->nomem set) when out of memory. */
static unsigned char *add_tag(struct tiff *t, uint16_t id, uint16_t type, size_t count,
			      size_t each)
{
	struct tag *g;

	assert(t->n < MAX_TAGS && (t->n == 0 || t->tag[t->n - 1].id < id));
	assert(count <= UINT32_MAX);
	g = &t->tag[t->n++];
	*g = (struct tag){ .id = id, .type = type, .count = (uint32_t)count,
			   .size = count * each };
	g->val = calloc(g->size ? g->size : 1, 1);
	if (!g->val)
		t->nomem = 1;
	return g->val;
}

static void add_shorts(struct tiff *t, uint16_t id, const uint16_t *v, size_t n)
{
	unsigned char *p = add_tag(t, id, T_SHORT, n, 2);

	for (size_t i = 0; p && i < n; i++)
		put16(p + 2 * i, v[i]);
}

/* n SHORTs all equal to v. */
static void add_short_n(struct tiff *t, uint16_t id, uint16_t v, size_t n)
{
	unsigned char *p = add_tag(t, id, T_SHORT, n, 2);

	for (size_t i = 0; p && i < n; i++)
		put16(p + 2 * i, v);
}

static void add_long(struct tiff *t, uint16_t id, uint32_t v)
{
	unsigned char *p = add_tag(t, id, T_LONG, 1, 4);

	if (p)
		put32(p, v);
}

static void add_doubles(struct tiff *t, uint16_t id, const double *v, size_t n)
{
	unsigned char *p = add_tag(t, id, T_DOUBLE, n, 8);

	for (size_t i = 0; p && i < n; i++)
		put_double(p + 8 * i, v[i]);
}

/* ASCII: the text and its NUL. */
static void add_ascii(struct tiff *t, uint16_t id, const char *s)
{
	size_t n = strlen(s) + 1;
	unsigned char *p = add_tag(t, id, T_ASCII, n, 1);

	if (p)
		memcpy(p, s, n);
}

static void tiff_free(struct tiff *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->tag[i].val);
	t->n = 0;
}

/* ------------------------------------------------------------- GeoKeys */

struct geokeys {
	uint16_t dir[4 + 4 * MAX_KEYS];
	size_t nkeys;
	double dbl[MAX_DOUBLES];
	size_t ndbl;
	char ascii[2 * (NAME_MAX_LEN + 2)];
	size_t nascii;
};

/* The key's directory entry (in ascending key order). */
static void key_entry(struct geokeys *k, uint16_t id, uint16_t where, uint16_t count,
		      uint16_t value)
{
	uint16_t *e = &k->dir[4 + 4 * k->nkeys];

	assert(k->nkeys < MAX_KEYS && (k->nkeys == 0 || e[-4] < id));
	e[0] = id, e[1] = where, e[2] = count, e[3] = value;
	k->nkeys++;
}

static void key_short(struct geokeys *k, uint16_t id, uint16_t v)
{
	key_entry(k, id, 0, 1, v);
}

static void key_double(struct geokeys *k, uint16_t id, double v)
{
	assert(k->ndbl < MAX_DOUBLES);
	key_entry(k, id, TAG_GEODOUBLES, 1, (uint16_t)k->ndbl);
	k->dbl[k->ndbl++] = v;
}

/* s (at most NAME_MAX_LEN bytes, no '|') and its '|'. */
static void key_ascii(struct geokeys *k, uint16_t id, const char *s)
{
	size_t n = strlen(s);

	assert(n <= NAME_MAX_LEN && k->nascii + n + 1 < sizeof k->ascii);
	key_entry(k, id, TAG_GEOASCII, (uint16_t)(n + 1), (uint16_t)k->nascii);
	memcpy(k->ascii + k->nascii, s, n);
	k->nascii += n;
	k->ascii[k->nascii++] = '|';
	k->ascii[k->nascii] = '\0';
}

/* The CRS's name (west_crs_name: the WKT's first quoted string, else the
 * CF grid mapping's), at most NAME_MAX_LEN bytes, '|' as '/' (it ends a
 * GeoTIFF ASCII key); "" when there is none. */
static void crs_name(const struct west_crs *c, char *buf)
{
	if (!c || !west_crs_name(c, buf, NAME_MAX_LEN + 1))
		buf[0] = '\0';
	for (char *p = buf; *p; p++)
		if (*p == '|')
			*p = '/';
}

/* The CRS's keys, after the model and raster types and the citation. */
static void crs_keys(struct geokeys *k, const struct west_crs *c)
{
	unsigned long code = c ? west_crs_epsg(c) : 0;

	if (code >= 1024 && code < USER_DEFINED) {
		key_short(k, GK_PROJECTED_TYPE, (uint16_t)code);
		return;
	}
	if (!c || !c->has_tm) {
		key_short(k, GK_LINEAR_UNITS, 9001);
		return;
	}
	key_short(k, GK_GEOGRAPHIC_TYPE, 4326);
	key_short(k, GK_PROJECTED_TYPE, USER_DEFINED);
	key_short(k, GK_PROJECTION, USER_DEFINED);
	key_short(k, GK_COORD_TRANS, 1);
	key_short(k, GK_LINEAR_UNITS, 9001);
	key_double(k, GK_NAT_ORIGIN_LONG, c->lon0);
	key_double(k, GK_NAT_ORIGIN_LAT, c->lat0);
	key_double(k, GK_FALSE_EASTING, c->false_easting);
	key_double(k, GK_FALSE_NORTHING, c->false_northing);
	key_double(k, GK_SCALE_AT_NAT_ORIGIN, c->k0);
}

static void geokeys_build(struct geokeys *k, const struct west_crs *c)
{
	char name[NAME_MAX_LEN + 1];

	memset(k, 0, sizeof *k);
	key_short(k, GK_MODEL_TYPE, 1);
	key_short(k, GK_RASTER_TYPE, 1);
	crs_name(c, name);
	if (name[0])
		key_ascii(k, GK_CITATION, name);
	crs_keys(k, c);
	k->dir[0] = 1, k->dir[1] = 1, k->dir[2] = 0, k->dir[3] = (uint16_t)k->nkeys;
}

/* ------------------------------------------------------- GDAL metadata */

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
}

static void xml_item(FILE *f, const char *name, size_t namelen, const char *value,
		     long sample, const char *role)
{
	char nm[128];

	snprintf(nm, sizeof nm, "%.*s", (int)(namelen < 127 ? namelen : 127), name);
	fputs("  <Item name=\"", f);
	xml_text(f, nm);
	if (sample >= 0)
		fprintf(f, "\" sample=\"%ld\" role=\"%s", sample, role);
	fputs("\">", f);
	xml_text(f, value);
	fputs("</Item>\n", f);
}

/* The GDAL_METADATA text (malloc'd), NULL when out of memory. */
static char *gdal_metadata(const struct west_geotiff *t)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputs("<GDALMetadata>\n", f);
	for (const char *const *m = t->metadata; m && *m; m++) {
		const char *eq = strchr(*m, '=');
		xml_item(f, *m, (size_t)(eq - *m), eq + 1, -1, NULL);
	}
	for (size_t b = 0; b < t->nbands; b++) {
		if (t->bands[b].description)
			xml_item(f, "DESCRIPTION", 11, t->bands[b].description, (long)b,
				 "description");
		if (t->bands[b].unit)
			xml_item(f, "UNITTYPE", 8, t->bands[b].unit, (long)b, "unittype");
	}
	fputs("</GDALMetadata>", f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ------------------------------------------------------------ encoding */

static enum west_status check_raster(const struct west_geotiff *t, char *err, size_t errlen)
{
	if (t->nx == 0 || t->ny == 0 || t->nx > UINT32_MAX || t->ny > UINT32_MAX)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "GeoTIFF: %zu x %zu pixels: each side must be 1 .. %lu",
				 t->nx, t->ny, (unsigned long)UINT32_MAX);
	if (t->nbands == 0 || t->nbands > WEST_GEOTIFF_MAX_BANDS || !t->bands)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "GeoTIFF: %zu bands: must be 1 .. %d", t->nbands,
				 WEST_GEOTIFF_MAX_BANDS);
	for (size_t b = 0; b < t->nbands; b++)
		if (!t->bands[b].values)
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "GeoTIFF: band %zu has no values", b + 1);
	if (!(isfinite(t->dx) && t->dx > 0 && isfinite(t->dy) && t->dy > 0))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "GeoTIFF: pixel size %g x %g: must be finite and > 0",
				 t->dx, t->dy);
	if (!isfinite(t->x_ul) || !isfinite(t->y_ul))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "GeoTIFF: upper-left corner (%g, %g) is not finite",
				 t->x_ul, t->y_ul);
	if (!isfinite(t->nodata))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "GeoTIFF: nodata %g is not finite", (double)t->nodata);
	for (const char *const *m = t->metadata; m && *m; m++)
		if (!strchr(*m, '=') || **m == '=')
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "GeoTIFF: metadata item '%.60s' is not NAME=VALUE", *m);
	return WEST_OK;
}

/* Refused when the file would hold 4 GiB or more (classic TIFF offsets
 * are 32-bit): `head` bytes before the pixels (0: the pixels alone, a
 * check before anything is allocated). */
static enum west_status check_size(const struct west_geotiff *t, size_t head, char *err,
				   size_t errlen)
{
	uint64_t row = (uint64_t)t->nx * t->nbands * sizeof(float);

	if (head <= UINT32_MAX && row <= (UINT32_MAX - head) / t->ny)
		return WEST_OK;
	return west_fail(err, errlen, WEST_ERR_INVALID,
			 "GeoTIFF: %zu x %zu pixels of %zu bands make %.2f GiB: a classic "
			 "TIFF holds less than 4 GiB", t->nx, t->ny, t->nbands,
			 ((double)row * (double)t->ny + (double)head) / 1073741824.0);
}

/* Every entry of the IFD; the strip offsets are filled by place(). */
static void build_tags(struct tiff *tf, const struct west_geotiff *t, uint32_t rps,
		       size_t nstrips, size_t row_bytes, const struct geokeys *k,
		       const char *xml)
{
	double scale[3] = { t->dx, t->dy, 0 };
	double tie[6] = { 0, 0, 0, t->x_ul, t->y_ul, 0 };
	uint16_t nb = (uint16_t)t->nbands;
	char nodata[32];
	unsigned char *counts;

	add_long(tf, TAG_WIDTH, (uint32_t)t->nx);
	add_long(tf, TAG_LENGTH, (uint32_t)t->ny);
	add_short_n(tf, TAG_BITS, 32, nb);
	add_short_n(tf, TAG_COMPRESSION, 1, 1);
	add_short_n(tf, TAG_PHOTOMETRIC, 1, 1);
	add_tag(tf, TAG_STRIP_OFFSETS, T_LONG, nstrips, 4);
	add_short_n(tf, TAG_SAMPLES, nb, 1);
	add_long(tf, TAG_ROWS_PER_STRIP, rps);
	counts = add_tag(tf, TAG_STRIP_BYTES, T_LONG, nstrips, 4);
	for (size_t s = 0; counts && s < nstrips; s++) {
		size_t rows = s + 1 < nstrips ? rps : t->ny - s * rps;
		put32(counts + 4 * s, (uint32_t)(rows * row_bytes));
	}
	add_short_n(tf, TAG_PLANAR, 1, 1);
	if (t->software)
		add_ascii(tf, TAG_SOFTWARE, t->software);
	if (nb > 1)
		add_short_n(tf, TAG_EXTRA_SAMPLES, 0, nb - 1u);
	add_short_n(tf, TAG_SAMPLE_FORMAT, 3, nb);
	add_doubles(tf, TAG_PIXEL_SCALE, scale, 3);
	add_doubles(tf, TAG_TIEPOINT, tie, 6);
	add_shorts(tf, TAG_GEOKEYS, k->dir, 4 + 4 * k->nkeys);
	if (k->ndbl)
		add_doubles(tf, TAG_GEODOUBLES, k->dbl, k->ndbl);
	if (k->nascii)
		add_ascii(tf, TAG_GEOASCII, k->ascii);
	add_ascii(tf, TAG_GDAL_METADATA, xml);
	snprintf(nodata, sizeof nodata, "%.9g", (double)t->nodata);
	add_ascii(tf, TAG_GDAL_NODATA, nodata);
}

static size_t align8(size_t off)
{
	return (off + 7) & ~(size_t)7;
}

/* Offsets of the values that do not fit an entry; the offset of the
 * pixels, returned. */
static size_t place(struct tiff *tf)
{
	size_t off = 8 + 2 + 12 * tf->n + 4;

	for (size_t i = 0; i < tf->n; i++)
		if (tf->tag[i].size > 4) {
			off = align8(off);
			tf->tag[i].offset = (uint32_t)off;
			off += tf->tag[i].size;
		}
	return align8(off);
}

/* Header, IFD and values into buf (zeroed up to the pixels). */
static void write_head(unsigned char *buf, const struct tiff *tf)
{
	unsigned char *e = buf + 10;

	buf[0] = 'I', buf[1] = 'I';
	put16(buf + 2, 42);
	put32(buf + 4, 8);
	put16(buf + 8, (uint16_t)tf->n);
	for (size_t i = 0; i < tf->n; i++, e += 12) {
		const struct tag *g = &tf->tag[i];
		put16(e, g->id);
		put16(e + 2, g->type);
		put32(e + 4, g->count);
		if (g->size <= 4) {
			memcpy(e + 8, g->val, g->size);
		} else {
			put32(e + 8, g->offset);
			memcpy(buf + g->offset, g->val, g->size);
		}
	}
	put32(e, 0);
}

static void write_pixels(unsigned char *p, const struct west_geotiff *t)
{
	for (size_t i = 0; i < t->nx * t->ny; i++)
		for (size_t b = 0; b < t->nbands; b++, p += 4) {
			float v = t->bands[b].values[i];
			put_float(p, isnan(v) ? t->nodata : v);
		}
}

/* Place the entries, check the size, allocate and fill the file. */
static enum west_status assemble(struct tiff *tf, const struct west_geotiff *t,
				 uint32_t rps, size_t row_bytes, unsigned char **buf,
				 size_t *len, char *err, size_t errlen)
{
	size_t data = place(tf), pixels = t->ny * row_bytes;
	struct tag *offsets = NULL;

	if (check_size(t, data, err, errlen))
		return WEST_ERR_INVALID;
	if (west_check_alloc(data + pixels, 1, "GeoTIFF", err, errlen))
		return WEST_ERR_NOMEM;
	for (size_t i = 0; i < tf->n; i++)
		if (tf->tag[i].id == TAG_STRIP_OFFSETS)
			offsets = &tf->tag[i];
	assert(offsets);
	for (uint32_t s = 0; s < offsets->count; s++)
		put32(offsets->val + 4 * s, (uint32_t)(data + (size_t)s * rps * row_bytes));
	if (!(*buf = calloc(data + pixels, 1)))
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "GeoTIFF: cannot allocate %zu bytes", data + pixels);
	write_head(*buf, tf);
	write_pixels(*buf + data, t);
	*len = data + pixels;
	return WEST_OK;
}

enum west_status west_geotiff_encode(const struct west_geotiff *t, unsigned char **buf,
				     size_t *len, char *err, size_t errlen)
{
	struct tiff tf = { .n = 0 };
	struct geokeys k;
	size_t row_bytes, nstrips;
	uint32_t rps;
	char *xml;
	enum west_status st = check_raster(t, err, errlen);

	*buf = NULL, *len = 0;
	if (!st)
		st = check_size(t, 0, err, errlen);
	if (st)
		return st;
	row_bytes = t->nx * t->nbands * sizeof(float);
	rps = row_bytes >= STRIP_TARGET ? 1 : (uint32_t)(STRIP_TARGET / row_bytes);
	if (rps > t->ny)
		rps = (uint32_t)t->ny;
	nstrips = (t->ny + rps - 1) / rps;
	geokeys_build(&k, t->crs);
	if (!(xml = gdal_metadata(t)))
		return west_fail(err, errlen, WEST_ERR_NOMEM, "GeoTIFF: out of memory");
	build_tags(&tf, t, rps, nstrips, row_bytes, &k, xml);
	free(xml);
	if (tf.nomem)
		st = west_fail(err, errlen, WEST_ERR_NOMEM, "GeoTIFF: out of memory");
	else
		st = assemble(&tf, t, rps, row_bytes, buf, len, err, errlen);
	tiff_free(&tf);
	return st;
}

enum west_status west_geotiff_write(const char *path, const struct west_geotiff *t,
				    char *err, size_t errlen)
{
	unsigned char *buf;
	size_t len;
	enum west_status st = west_geotiff_encode(t, &buf, &len, err, errlen);

	if (!st)
		st = west_file_replace(path, buf, len, 0644, err, errlen);
	free(buf);
	return st;
}

/* ---------------------------------------------------------- the wind */

/* The four bands' names and units: relative to true north when the grid
 * knows where it is (query.h), else to the grid's axes. */
static void wind_bands(struct west_geotiff_band *b, int true_north, float *values,
		       size_t n)
{
	static const char *const names[2][4] = {
		{ "wind_speed", "wind_from_direction (clockwise from the grid's y axis)",
		  "x_wind", "y_wind" },
		{ "wind_speed", "wind_from_direction", "eastward_wind", "northward_wind" },
	};
	static const char *const units[4] = { "m/s", "degree", "m/s", "m/s" };

	for (int i = 0; i < 4; i++)
		b[i] = (struct west_geotiff_band){ names[true_north != 0][i], units[i],
						   values + (size_t)i * n };
}

/* The slice's rows (south first) into the bands (north first); the
 * number of pixels with a value. */
static size_t fill_bands(const float *u, const float *v, size_t nx, size_t ny,
			 float *out)
{
	size_t n = nx * ny, valid = 0;

	for (size_t r = 0; r < ny; r++)
		for (size_t i = 0; i < nx; i++) {
			size_t s = (ny - 1 - r) * nx + i, d = r * nx + i;
			float sp = NAN, dir = NAN;
			if (!isnan(u[s]) && !isnan(v[s])) {
				west_query_speed_direction(u[s], v[s], &sp, &dir);
				valid++;
			}
			out[d] = sp, out[n + d] = dir;
			out[2 * n + d] = u[s], out[3 * n + d] = v[s];
		}
	return valid;
}

/* HEIGHT, VALID_TIME, then extra: a NULL-terminated list (malloc'd; its
 * two first strings too). */
static char **wind_metadata(const struct west_field *f, double z, enum west_zref zref,
			    const char *const *extra)
{
	size_t n = 0;
	char when[32], **m;

	while (extra && extra[n])
		n++;
	if (!(m = calloc(n + 3, sizeof *m)))
		return NULL;
	m[0] = malloc(96), m[1] = malloc(64);
	if (!m[0] || !m[1]) {
		free(m[0]), free(m[1]), free(m);
		return NULL;
	}
	snprintf(m[0], 96, "HEIGHT=%.10g m above %s", z,
		 zref == WEST_ZREF_MSL ? "mean sea level" : "ground");
	west_obs_time_format(f->valid_time, when, sizeof when);
	snprintf(m[1], 64, "VALID_TIME=%s", when);
	for (size_t i = 0; i < n; i++)
		m[2 + i] = (char *)extra[i];
	return m;
}

/* The raster of the slice's bands, stride columns per pixel. */
static enum west_status encode_wind(const struct west_grid *g, const struct west_field *f,
				    double z, enum west_zref zref, size_t stride,
				    size_t nx, size_t ny, float *values,
				    const char *const *extra, unsigned char **buf,
				    size_t *len, char *err, size_t errlen)
{
	struct west_geotiff_band bands[4];
	double s = (double)stride;
	char **meta = wind_metadata(f, z, zref, extra);
	enum west_status st;

	if (!meta)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "GeoTIFF: out of memory");
	wind_bands(bands, g->has_convergence, values, nx * ny);
	struct west_geotiff t = {
		.nx = nx, .ny = ny, .nbands = 4, .bands = bands,
		/* pixel centres on the sampled column centres (geotiff.h) */
		.x_ul = g->x0 + 0.5 * g->dx * (1.0 - s),
		.y_ul = g->y0 + ((double)((ny - 1) * stride) + 0.5 + 0.5 * s) * g->dy,
		.dx = s * g->dx, .dy = s * g->dy, .crs = &g->crs,
		.nodata = WEST_GEOTIFF_NODATA, .metadata = (const char *const *)meta,
		.software = "westd " PACKAGE_VERSION,
	};
	st = west_geotiff_encode(&t, buf, len, err, errlen);
	free(meta[0]), free(meta[1]), free(meta);
	return st;
}

enum west_status west_geotiff_wind(const struct west_grid *g, const struct west_field *f,
				   double z, enum west_zref zref, size_t stride,
				   const char *const *extra, unsigned char **buf,
				   size_t *len, size_t *valid, char *err, size_t errlen)
{
	size_t nx, ny, n, ok;
	float *mem;
	enum west_status st;

	*buf = NULL, *len = 0;
	if (stride == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID, "stride 0 must be at least 1");
	nx = (g->nx - 1) / stride + 1, ny = (g->ny - 1) / stride + 1, n = nx * ny;
	if ((st = west_check_alloc(7 * n, sizeof(float), "GeoTIFF wind", err, errlen)))
		return st;
	if (!(mem = malloc(7 * n * sizeof *mem)))
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "GeoTIFF wind: cannot allocate %zu x %zu pixels", nx, ny);
	/* u, v, w of the slice, then the four bands */
	st = west_query_slice(g, f, z, zref, stride, mem, mem + n, mem + 2 * n, &nx, &ny,
			      err, errlen);
	if (!st) {
		ok = fill_bands(mem, mem + n, nx, ny, mem + 3 * n);
		st = encode_wind(g, f, z, zref, stride, nx, ny, mem + 3 * n, extra, buf, len,
				 err, errlen);
		if (!st && valid)
			*valid = ok;
	}
	free(mem);
	return st;
}
