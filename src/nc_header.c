/*
 * nc_header.c: the classic NetCDF header check (nc_header.h).
 *
 * The header is read in one pass with a cursor over the file (struct hdr):
 * every read first checks that its bytes are inside the file, so a count
 * that promises more entries than the file holds ends the pass at the end
 * of the file, after at most size / 4 reads.  Dimensions and variables are
 * kept (their lengths, and for each variable its begin offset, the bytes
 * of one record's or of its whole data, and whether it is a record
 * variable) in arrays grown as entries are read, so memory follows the
 * file's real size.  Sizes are computed with saturation at UINT64_MAX, so
 * no product overflows into a small number.
 *
 * After the header, the data: a fixed-size variable needs begin + size <=
 * file size; a record variable needs its last record, at begin +
 * (numrecs - 1) * recsize, to end inside the file, recsize being the sum
 * of the record variables' slabs, each padded to 4 bytes unless there is
 * exactly one record variable (the format's special case).  Sizes are the
 * values' bytes without the final padding, so a file that ends right
 * after its last value still passes.
 */
#include "nc_header.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NAME_MAX_BYTES 256     /* NC_MAX_NAME */
#define TAG_DIMENSION 0x0Au
#define TAG_VARIABLE 0x0Bu
#define TAG_ATTRIBUTE 0x0Cu

struct nc_var {
	int rec;                   /* a record variable */
	uint64_t begin;            /* offset of its data */
	uint64_t bytes;            /* one record's (rec) or all its data's */
	uint64_t values;           /* values in all (numrecs counted) */
	char name[NAME_MAX_BYTES + 1];
};

struct hdr {
	const char *path;
	FILE *f;
	uint64_t pos, size;        /* cursor and file size, bytes */
	int version;               /* 1, 2 or 5 */
	uint64_t numrecs;
	uint64_t *dims;            /* lengths; 0 = the record dimension */
	size_t ndims, dims_cap;
	struct nc_var *vars;
	size_t nvars, vars_cap;
	char name[NAME_MAX_BYTES + 1]; /* the last name read, printable */
	char *err;
	size_t errlen;
};

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

static uint64_t pad4(uint64_t n)
{
	return n > UINT64_MAX - 3 ? UINT64_MAX : (n + 3) & ~(uint64_t)3;
}

typedef unsigned long long ull;

static enum west_status bad(struct hdr *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Refuse the header: "PATH: NetCDF header: " and the message. */
static enum west_status bad(struct hdr *h, const char *fmt, ...)
{
	char msg[WEST_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return west_fail(h->err, h->errlen, WEST_ERR_INVALID, "%s: NetCDF header: %s",
			 h->path, msg);
}

/* n bytes at the cursor into buf (NULL: skipped); "what" names them when
 * they are not in the file. */
static enum west_status take(struct hdr *h, void *buf, uint64_t n, const char *what)
{
	if (n > h->size - h->pos)
		return bad(h, "%s at byte %llu needs %llu bytes past the end of the file "
			   "(%llu bytes)", what, (ull)h->pos, (ull)(n - (h->size - h->pos)),
			   (ull)h->size);
	if (buf && fread(buf, 1, (size_t)n, h->f) != n)
		return west_fail(h->err, h->errlen, WEST_ERR_IO, "%s: cannot read: %s",
				 h->path, ferror(h->f) ? strerror(errno) : "short read");
	if (!buf && fseeko(h->f, (off_t)(h->pos + n), SEEK_SET))
		return west_fail(h->err, h->errlen, WEST_ERR_IO, "%s: cannot seek: %s",
				 h->path, strerror(errno));
	h->pos += n;
	return WEST_OK;
}

static enum west_status u32(struct hdr *h, uint32_t *v, const char *what)
{
	unsigned char b[4];
	enum west_status s = take(h, b, 4, what);

	*v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	return s;
}

static enum west_status u64(struct hdr *h, uint64_t *v, const char *what)
{
	uint32_t hi = 0, lo = 0;
	enum west_status s = u32(h, &hi, what);

	if (s == WEST_OK)
		s = u32(h, &lo, what);
	*v = (uint64_t)hi << 32 | lo;
	return s;
}

/* A count (NON_NEG): 64 bits in CDF-5, else 32. */
static enum west_status count(struct hdr *h, uint64_t *v, const char *what)
{
	uint32_t w;
	enum west_status s;

	if (h->version == 5)
		return u64(h, v, what);
	s = u32(h, &w, what);
	*v = w;
	return s;
}

/* Bytes of one value of a type, 0 when the type is not one of the format's. */
static uint64_t type_size(const struct hdr *h, uint32_t type)
{
	static const uint64_t size[12] = { 0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8 };

	if (type >= 1 && type <= 6)
		return size[type];
	if (h->version == 5 && type >= 7 && type <= 11)
		return size[type];
	return 0;
}

static enum west_status name(struct hdr *h, const char *what)
{
	char raw[NAME_MAX_BYTES];
	uint64_t n;
	enum west_status s = count(h, &n, what);

	if (s != WEST_OK)
		return s;
	if (n > NAME_MAX_BYTES)
		return bad(h, "%s at byte %llu is %llu bytes long, more than NC_MAX_NAME (%d)",
			   what, (ull)h->pos, (ull)n, NAME_MAX_BYTES);
	s = take(h, raw, n, what);
	if (s == WEST_OK)
		s = take(h, NULL, pad4(n) - n, what);
	for (uint64_t k = 0; k < n && s == WEST_OK; k++)
		h->name[k] = isprint((unsigned char)raw[k]) ? raw[k] : '?';
	h->name[s == WEST_OK ? n : 0] = '\0';
	return s;
}

/* A list's tag and count: ABSENT (any tag with count 0) gives *n = 0. */
static enum west_status list_head(struct hdr *h, uint32_t want, uint64_t *n,
				  const char *what)
{
	uint32_t tag;
	enum west_status s = u32(h, &tag, what);

	if (s == WEST_OK)
		s = count(h, n, what);
	if (s == WEST_OK && *n && tag != want)
		return bad(h, "%s before byte %llu has tag 0x%x, expected 0x%x", what,
			   (ull)h->pos, (unsigned)tag, (unsigned)want);
	return s;
}

static enum west_status attributes(struct hdr *h, const char *what)
{
	uint64_t n, k, len, size;
	uint32_t type;
	enum west_status s = list_head(h, TAG_ATTRIBUTE, &n, what);

	for (k = 0; k < n && s == WEST_OK; k++) {
		s = name(h, "an attribute name");
		if (s == WEST_OK)
			s = u32(h, &type, "an attribute type");
		if (s == WEST_OK && !(size = type_size(h, type)))
			return bad(h, "%s: attribute type %u before byte %llu is not one of "
				   "the format's", what, (unsigned)type, (ull)h->pos);
		if (s == WEST_OK)
			s = count(h, &len, "an attribute length");
		if (s == WEST_OK)
			s = take(h, NULL, pad4(mul_sat(len, size)), "an attribute's values");
	}
	return s;
}

static enum west_status dimensions(struct hdr *h)
{
	uint64_t n, len;
	int rec = 0;
	enum west_status s = list_head(h, TAG_DIMENSION, &n, "the dimension list");

	for (uint64_t k = 0; k < n && s == WEST_OK; k++) {
		s = name(h, "a dimension name");
		if (s == WEST_OK)
			s = count(h, &len, "a dimension length");
		if (s != WEST_OK)
			break;
		if (len == 0 && rec++)
			return bad(h, "dimension '%s' is a second record (unlimited) "
				   "dimension", h->name);
		if (h->ndims == h->dims_cap) {
			size_t cap = h->dims_cap ? 2 * h->dims_cap : 16;
			uint64_t *d = realloc(h->dims, cap * sizeof *d);
			if (!d)
				return west_fail(h->err, h->errlen, WEST_ERR_NOMEM,
						 "%s: NetCDF header: out of memory", h->path);
			h->dims = d, h->dims_cap = cap;
		}
		h->dims[h->ndims++] = len;
	}
	return s;
}

/* The shape of the variable being read: its values and whether it is a
 * record variable. */
static enum west_status shape(struct hdr *h, struct nc_var *v, uint64_t rank)
{
	uint64_t id, width = h->version == 5 ? 8 : 4;
	enum west_status s;

	if (rank > (h->size - h->pos) / width)
		return bad(h, "variable '%s' has %llu dimensions, more than the %llu bytes "
			   "left in the file hold", v->name, (ull)rank, (ull)(h->size - h->pos));
	v->values = 1;
	for (uint64_t k = 0; k < rank; k++) {
		if ((s = count(h, &id, "a dimension id")) != WEST_OK)
			return s;
		if (id >= h->ndims)
			return bad(h, "variable '%s' names dimension %llu; the file has %zu",
				   v->name, (ull)id, h->ndims);
		if (h->dims[id] == 0 && k > 0)
			return bad(h, "variable '%s' has the record dimension in place %llu; "
				   "it may only be first", v->name, (ull)(k + 1));
		v->rec |= h->dims[id] == 0;
		v->values = mul_sat(v->values, h->dims[id] ? h->dims[id] : h->numrecs);
		if (h->dims[id])
			v->bytes = mul_sat(v->bytes, h->dims[id]);
	}
	return WEST_OK;
}

static enum west_status variable(struct hdr *h, struct nc_var *v, unsigned long long max_cells)
{
	uint64_t rank, vsize, tsize;
	uint32_t type, b32;
	enum west_status s = name(h, "a variable name");

	memset(v, 0, sizeof *v);
	snprintf(v->name, sizeof v->name, "%s", h->name);
	v->bytes = 1;
	if (s == WEST_OK)
		s = count(h, &rank, "a variable's rank");
	if (s == WEST_OK)
		s = shape(h, v, rank);
	if (s == WEST_OK)
		s = attributes(h, "a variable's attribute list");
	if (s == WEST_OK)
		s = u32(h, &type, "a variable type");
	if (s == WEST_OK && !(tsize = type_size(h, type)))
		return bad(h, "variable '%s' has type %u, not one of the format's",
			   v->name, (unsigned)type);
	if (s == WEST_OK)
		s = count(h, &vsize, "a variable size");
	if (s == WEST_OK && h->version == 1) {
		s = u32(h, &b32, "a variable's begin offset");
		v->begin = b32;
	} else if (s == WEST_OK) {
		s = u64(h, &v->begin, "a variable's begin offset");
	}
	if (s != WEST_OK)
		return s;
	v->bytes = mul_sat(v->bytes, tsize);
	if (max_cells && v->values > max_cells)
		return bad(h, "variable '%s' has %llu values, more than max_cells %llu",
			   v->name, (ull)v->values, max_cells);
	return WEST_OK;
}

static enum west_status variables(struct hdr *h, unsigned long long max_cells)
{
	uint64_t n;
	enum west_status s = list_head(h, TAG_VARIABLE, &n, "the variable list");

	for (uint64_t k = 0; k < n && s == WEST_OK; k++) {
		if (h->nvars == h->vars_cap) {
			size_t cap = h->vars_cap ? 2 * h->vars_cap : 16;
			struct nc_var *v = realloc(h->vars, cap * sizeof *v);
			if (!v)
				return west_fail(h->err, h->errlen, WEST_ERR_NOMEM,
						 "%s: NetCDF header: out of memory", h->path);
			h->vars = v, h->vars_cap = cap;
		}
		s = variable(h, &h->vars[h->nvars], max_cells);
		if (s == WEST_OK)
			h->nvars++;
	}
	return s;
}

/* Every variable's data inside the file. */
static enum west_status data_fits(struct hdr *h)
{
	uint64_t recsize = 0, nrec = 0, end;

	for (size_t k = 0; k < h->nvars; k++)
		nrec += h->vars[k].rec;
	for (size_t k = 0; k < h->nvars; k++)
		if (h->vars[k].rec)
			recsize = add_sat(recsize, nrec == 1 ? h->vars[k].bytes
						       : pad4(h->vars[k].bytes));
	for (size_t k = 0; k < h->nvars; k++) {
		const struct nc_var *v = &h->vars[k];
		if (v->rec && h->numrecs == 0)
			continue;
		end = add_sat(v->begin, v->bytes);
		if (v->rec)
			end = add_sat(end, mul_sat(h->numrecs - 1, recsize));
		if (end > h->size)
			return bad(h, "variable '%s' has data up to byte %llu; the file has %llu "
				   "bytes", v->name, (ull)end, (ull)h->size);
	}
	return WEST_OK;
}

static enum west_status check(struct hdr *h, unsigned long long max_cells)
{
	uint32_t n32;
	enum west_status s;

	if (h->version == 5) {
		s = u64(h, &h->numrecs, "numrecs");
		if (s == WEST_OK && h->numrecs == UINT64_MAX)
			return bad(h, "numrecs is STREAMING (indeterminate), which is "
				   "not supported");
	} else {
		s = u32(h, &n32, "numrecs");
		if (s == WEST_OK && n32 == UINT32_MAX)
			return bad(h, "numrecs is STREAMING (indeterminate), which is "
				   "not supported");
		h->numrecs = n32;
	}
	if (s == WEST_OK)
		s = dimensions(h);
	if (s == WEST_OK)
		s = attributes(h, "the global attribute list");
	if (s == WEST_OK)
		s = variables(h, max_cells);
	if (s == WEST_OK)
		s = data_fits(h);
	return s;
}

enum west_status west_nc_header_check(const char *path, unsigned long long max_cells,
				      char *err, size_t errlen)
{
	struct hdr h = { .path = path, .err = err, .errlen = errlen };
	unsigned char magic[4];
	struct stat st;
	enum west_status s = WEST_OK;

	h.f = fopen(path, "rb");
	if (!h.f)
		return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot open: %s", path,
				 strerror(errno));
	if (fstat(fileno(h.f), &st))
		s = west_fail(err, errlen, WEST_ERR_IO, "%s: cannot stat: %s", path,
			      strerror(errno));
	else if ((h.size = (uint64_t)st.st_size) >= 4 && fread(magic, 1, 4, h.f) == 4 &&
		 memcmp(magic, "CDF", 3) == 0 &&
		 (magic[3] == 1 || magic[3] == 2 || magic[3] == 5)) {
		h.pos = 4;
		h.version = magic[3];
		s = check(&h, max_cells);
	}
	fclose(h.f);
	free(h.dims);
	free(h.vars);
	return s;
}
