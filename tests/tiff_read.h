/*
 * tiff_read.h: a small reader of the GeoTIFFs src/geotiff.c writes, for
 * the tests (test_geotiff.c, test_westd.c), written from the TIFF 6.0 and
 * GeoTIFF 1.0 specifications and not from geotiff.c, so that a test reads
 * the file as another program would.
 *
 * It takes a little-endian classic TIFF ("II", 42) with one IFD, checks
 * that every entry's values and every strip lie inside the file, that the
 * tags ascend and that the IFD is the last (cr_assert on each), and gives
 * a tag's values, a GeoKey's value and a pixel's float32 sample (chunky
 * planar configuration, strips of RowsPerStrip rows).
 */
#ifndef WEST_TESTS_TIFF_READ_H
#define WEST_TESTS_TIFF_READ_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define TIFF_MAX_TAGS 64

struct tiff_entry {
	uint16_t id, type;
	uint32_t count;
	const unsigned char *val;   /* count values in the file */
};

struct tiff_file {
	const unsigned char *buf;
	size_t len;
	size_t n;
	struct tiff_entry e[TIFF_MAX_TAGS];
};

static inline uint16_t tiff_rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t tiff_rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline double tiff_rddouble(const unsigned char *p)
{
	uint64_t u = 0;
	double d;

	for (int i = 7; i >= 0; i--)
		u = u << 8 | p[i];
	memcpy(&d, &u, sizeof d);
	return d;
}

static inline float tiff_rdfloat(const unsigned char *p)
{
	uint32_t u = tiff_rd32(p);
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

/* Bytes of one value of a TIFF type (0 for a type these files never use). */
static inline size_t tiff_type_size(uint16_t type)
{
	switch (type) {
	case 1: case 2: return 1;     /* BYTE, ASCII */
	case 3: return 2;             /* SHORT */
	case 4: return 4;             /* LONG */
	case 12: return 8;            /* DOUBLE */
	}
	return 0;
}

static inline void tiff_parse(struct tiff_file *t, const unsigned char *buf, size_t len)
{
	uint32_t ifd;
	size_t n;

	t->buf = buf, t->len = len;
	cr_assert(len >= 8 && buf[0] == 'I' && buf[1] == 'I', "not a little-endian TIFF");
	cr_assert_eq(tiff_rd16(buf + 2), 42, "not a classic TIFF");
	ifd = tiff_rd32(buf + 4);
	cr_assert(ifd % 2 == 0 && ifd >= 8 && (size_t)ifd + 2 <= len, "IFD offset %u", ifd);
	n = tiff_rd16(buf + ifd);
	cr_assert(n >= 1 && n <= TIFF_MAX_TAGS, "%zu entries", n);
	cr_assert((size_t)ifd + 2 + 12 * n + 4 <= len, "the IFD runs past the file");
	t->n = n;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *e = buf + ifd + 2 + 12 * i;
		struct tiff_entry *x = &t->e[i];
		size_t each, size;

		x->id = tiff_rd16(e), x->type = tiff_rd16(e + 2), x->count = tiff_rd32(e + 4);
		each = tiff_type_size(x->type);
		cr_assert(each, "tag %u: type %u", x->id, x->type);
		cr_assert(i == 0 || t->e[i - 1].id < x->id, "tag %u after %u", x->id,
			  t->e[i - 1].id);
		size = each * x->count;
		if (size <= 4) {
			x->val = e + 8;
		} else {
			uint32_t off = tiff_rd32(e + 8);
			cr_assert(off % 2 == 0, "tag %u: odd offset %u", x->id, off);
			cr_assert((size_t)off + size <= len, "tag %u: values past the end", x->id);
			x->val = buf + off;
		}
	}
	cr_assert_eq(tiff_rd32(buf + ifd + 2 + 12 * n), 0, "a second IFD");
}

/* The entry of tag id, NULL when absent. */
static inline const struct tiff_entry *tiff_tag(const struct tiff_file *t, uint16_t id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].id == id)
			return &t->e[i];
	return NULL;
}

static inline const struct tiff_entry *tiff_need(const struct tiff_file *t, uint16_t id)
{
	const struct tiff_entry *e = tiff_tag(t, id);

	cr_assert_not_null(e, "no tag %u", id);
	return e;
}

/* The k-th value of a SHORT or LONG tag. */
static inline uint32_t tiff_uint(const struct tiff_file *t, uint16_t id, uint32_t k)
{
	const struct tiff_entry *e = tiff_need(t, id);

	cr_assert(k < e->count, "tag %u has %u values, not %u", id, e->count, k + 1);
	cr_assert(e->type == 3 || e->type == 4, "tag %u: type %u", id, e->type);
	return e->type == 3 ? tiff_rd16(e->val + 2 * k) : tiff_rd32(e->val + 4 * k);
}

static inline double tiff_double(const struct tiff_file *t, uint16_t id, uint32_t k)
{
	const struct tiff_entry *e = tiff_need(t, id);

	cr_assert(e->type == 12 && k < e->count, "tag %u: type %u, %u values", id, e->type,
		  e->count);
	return tiff_rddouble(e->val + 8 * k);
}

/* An ASCII tag's text (NUL-terminated where the count ends). */
static inline const char *tiff_ascii(const struct tiff_file *t, uint16_t id)
{
	const struct tiff_entry *e = tiff_need(t, id);

	cr_assert(e->type == 2 && e->count >= 1 && e->val[e->count - 1] == '\0',
		  "tag %u is not NUL-terminated ASCII", id);
	return (const char *)e->val;
}

/* GeoKey `key`: 1 and its directory entry (location, count, value),
 * 0 when absent; the directory's header checked. */
static inline int tiff_geokey(const struct tiff_file *t, uint16_t key, uint16_t *loc,
			      uint16_t *count, uint16_t *value)
{
	const struct tiff_entry *d = tiff_need(t, 34735);
	uint32_t nkeys;

	cr_assert(d->type == 3 && d->count >= 4, "GeoKeyDirectoryTag: type %u, %u values",
		  d->type, d->count);
	nkeys = tiff_rd16(d->val + 6);
	cr_assert_eq(d->count, 4 + 4 * nkeys, "GeoKeyDirectoryTag: %u values for %u keys",
		     d->count, nkeys);
	for (uint32_t i = 0; i < nkeys; i++) {
		const unsigned char *e = d->val + 8 + 8 * i;
		cr_assert(i == 0 || tiff_rd16(e - 8) < tiff_rd16(e), "GeoKeys not ascending");
		if (tiff_rd16(e) == key) {
			*loc = tiff_rd16(e + 2), *count = tiff_rd16(e + 4);
			*value = tiff_rd16(e + 6);
			return 1;
		}
	}
	return 0;
}

/* A SHORT GeoKey's value; -1 when absent. */
static inline long tiff_geokey_short(const struct tiff_file *t, uint16_t key)
{
	uint16_t loc, count, value;

	if (!tiff_geokey(t, key, &loc, &count, &value))
		return -1;
	cr_assert(loc == 0 && count == 1, "GeoKey %u is not a SHORT (location %u)", key, loc);
	return value;
}

/* A DOUBLE GeoKey's value (from GeoDoubleParamsTag); NaN when absent. */
static inline double tiff_geokey_double(const struct tiff_file *t, uint16_t key)
{
	uint16_t loc, count, value;

	if (!tiff_geokey(t, key, &loc, &count, &value))
		return NAN;
	cr_assert(loc == 34736 && count == 1, "GeoKey %u is not a DOUBLE (location %u)", key,
		  loc);
	return tiff_double(t, 34736, value);
}

/* An ASCII GeoKey's text without its '|', into buf; 0 when absent. */
static inline int tiff_geokey_ascii(const struct tiff_file *t, uint16_t key, char *buf,
				    size_t size)
{
	uint16_t loc, count, value;
	const struct tiff_entry *a;

	if (!tiff_geokey(t, key, &loc, &count, &value))
		return 0;
	a = tiff_need(t, 34737);
	cr_assert(loc == 34737 && count >= 1 && (uint32_t)value + count <= a->count,
		  "GeoKey %u: location %u, %u bytes at %u", key, loc, count, value);
	cr_assert_eq(a->val[value + count - 1], '|', "GeoKey %u does not end with '|'", key);
	cr_assert(count <= size);
	memcpy(buf, a->val + value, count - 1u);
	buf[count - 1] = '\0';
	return 1;
}

/* Sample b of pixel (row, col), row 0 the first in the file: float32,
 * chunky, uncompressed strips. */
static inline float tiff_sample(const struct tiff_file *t, uint32_t row, uint32_t col,
				uint32_t b)
{
	uint32_t nx = tiff_uint(t, 256, 0), ny = tiff_uint(t, 257, 0);
	uint32_t spp = tiff_uint(t, 277, 0), rps = tiff_uint(t, 278, 0);
	uint32_t s = row / rps;
	size_t row_bytes = (size_t)nx * spp * 4, off;

	cr_assert(row < ny && col < nx && b < spp && rps >= 1);
	cr_assert_eq(tiff_uint(t, 259, 0), 1, "compressed");
	cr_assert_eq(tiff_uint(t, 284, 0), 1, "not chunky");
	cr_assert_eq(tiff_need(t, 273)->count, (ny + rps - 1) / rps, "strip count");
	cr_assert_eq(tiff_uint(t, 279, s),
		     (uint32_t)(row_bytes * (s + 1 < (ny + rps - 1) / rps ? rps :
					     ny - s * rps)), "strip %u's byte count", s);
	off = tiff_uint(t, 273, s) + (size_t)(row % rps) * row_bytes +
	      ((size_t)col * spp + b) * 4;
	cr_assert(off + 4 <= t->len, "pixel (%u, %u) lies past the file", row, col);
	return tiff_rdfloat(t->buf + off);
}

#endif
