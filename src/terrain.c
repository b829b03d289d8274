/*
 * terrain.c: the format-independent half of the DEM module (terrain.h):
 * the loader that picks a reader by the file's first bytes and name
 * (terrain.h, "Dispatch"), the refusal of rasters that need GDAL in a
 * build without it, the checks
 * every reader shares (size before allocation, height range, the NODATA
 * rule), NODATA filling, bilinear resampling, and the CRS helpers.
 *
 * Layout everywhere: z[j * nx + i], j = 0 the southernmost row, heights in
 * metres as float.  A DEM is either fully loaded or all zero (z == NULL);
 * west_dem_free returns it to all zero.  A DEM argument of a loader or of
 * west_dem_resample is output only: it is overwritten, never freed.  NULL
 * opts mean the defaults (refuse NODATA, pick the variable, no cell limit).
 *
 * The NODATA fill keeps a queue of the holes that the next pass fills, so
 * every hole is visited a bounded number of times: O(nx ny) in all, even
 * for a DEM that is mostly NODATA (a coast with the sea left out).
 */
#include "terrain.h"
#include "terrain_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"

static const struct west_dem_opts default_opts = { .nodata = WEST_NODATA_REFUSE };

const struct west_dem_opts *west_dem_opts_or_default(const struct west_dem_opts *opts)
{
	return opts ? opts : &default_opts;
}

/* NetCDF classic (CDF-1, 2, 5) and NetCDF-4 (an HDF5 superblock at 0). */
static int is_netcdf(const unsigned char *magic, size_t n)
{
	static const unsigned char hdf5[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };

	if (n >= 4 && memcmp(magic, "CDF", 3) == 0 &&
	    (magic[3] == 1 || magic[3] == 2 || magic[3] == 5))
		return 1;
	return n >= 8 && memcmp(magic, hdf5, 8) == 0;
}

/* The first `size` bytes of the file (fewer when it is shorter). */
static enum west_status read_head(const char *path, unsigned char *head, size_t size,
				  size_t *n, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	int e;

	if (!f)
		return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot open: %s",
				 path, strerror(errno));
	*n = fread(head, 1, size, f);
	e = ferror(f) ? errno : 0;
	fclose(f);
	if (e)
		return west_fail(err, errlen, WEST_ERR_IO, "%s: cannot read: %s",
				 path, strerror(e));
	return WEST_OK;
}

static int has_suffix(const char *path, const char *suffix)
{
	size_t n = strlen(path), k = strlen(suffix);

	return n > k && strcasecmp(path + n - k, suffix) == 0;
}

#ifndef WEST_HAVE_GDAL
/* Little- or big-endian TIFF or BigTIFF. */
static int is_tiff(const unsigned char *m, size_t n)
{
	return n >= 4 && ((m[0] == 'I' && m[1] == 'I' && (m[2] == 42 || m[2] == 43) && m[3] == 0) ||
			  (m[0] == 'M' && m[1] == 'M' && m[2] == 0 && (m[3] == 42 || m[3] == 43)));
}

/* Binary: a NUL byte among the first bytes (TIFF and most raster formats). */
static int is_binary(const unsigned char *head, size_t n)
{
	return memchr(head, 0, n) != NULL;
}

/* The file is not ESRI ASCII or NetCDF, and this build cannot read it. */
enum west_status west_dem_load_gdal(struct west_dem *dem, const char *path,
				    const struct west_dem_opts *opts,
				    char *err, size_t errlen)
{
	unsigned char head[8];
	size_t n = 0;

	(void)opts;
	memset(dem, 0, sizeof *dem);
	if (read_head(path, head, sizeof head, &n, err, errlen) != WEST_OK)
		return WEST_ERR_IO;
	return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
			 "%s: %s, but this westd was built without GDAL; convert it to an ESRI ASCII grid (gdal_translate -of AAIGrid FILE OUT.asc, after gdalwarp -t_srs EPSG:326NN if it is not in metres) or rebuild westd with GDAL (Debian package libgdal-dev, configure --with-gdal=yes)",
			 path, is_tiff(head, n) ? "a TIFF (GeoTIFF) file"
			 : "not an ESRI ASCII grid or a NetCDF file");
}
#endif

/*
 * An ESRI ASCII or NetCDF DEM whose CRS is not in metres (its reader's
 * WEST_ERR_UNSUPPORTED, err saying why): read through GDAL and warped to
 * metres where GDAL is built (its drivers read the .prj and the CF grid
 * mapping too).  When GDAL cannot (a CRS text it does not parse), or
 * without GDAL, the reader's refusal with its reprojection hint stands,
 * saying what GDAL answered or how to build westd with it.
 */
static enum west_status not_metres(struct west_dem *dem, const char *path,
				   const struct west_dem_opts *opts, char *err,
				   size_t errlen)
{
	char why[WEST_ERRLEN];

	snprintf(why, sizeof why, "%s", err ? err : path);
#ifdef WEST_HAVE_GDAL
	char gdal[WEST_ERRLEN];

	west_log(WEST_LOG_NOTICE, "%s; reading it through GDAL, warped to metres", why);
	if (!west_dem_load_gdal(dem, path, opts, gdal, sizeof gdal))
		return WEST_OK;
	return west_fail(err, errlen, WEST_ERR_UNSUPPORTED, "%s (GDAL could not reproject "
			 "it either: %s)", why, gdal);
#else
	(void)dem, (void)opts;
	return west_fail(err, errlen, WEST_ERR_UNSUPPORTED, "%s (or build westd with GDAL, "
			 "configure --with-gdal, to have it reprojected)", why);
#endif
}

enum west_status west_dem_load(struct west_dem *dem, const char *path,
			       const struct west_dem_opts *opts,
			       char *err, size_t errlen)
{
	unsigned char head[512];
	size_t n = 0;
	enum west_status s;
	int gdal;

	memset(dem, 0, sizeof *dem);
	s = read_head(path, head, sizeof head, &n, err, errlen);
	if (s != WEST_OK)
		return s;
	gdal = !is_netcdf(head, n) && !has_suffix(path, ".asc") &&
	       !west_dem_asc_header((const char *)head, n);
#ifndef WEST_HAVE_GDAL
	gdal = gdal && is_binary(head, n); /* text: the ESRI ASCII reader says what is wrong */
#endif
	if (gdal)
		return west_dem_load_gdal(dem, path, opts, err, errlen);
	s = is_netcdf(head, n) ? west_dem_load_netcdf(dem, path, opts, err, errlen)
			       : west_dem_load_asc(dem, path, opts, err, errlen);
	if (s == WEST_ERR_UNSUPPORTED)
		return not_metres(dem, path, opts, err, errlen);
	if (!s && opts && opts->epsg)
		west_log(WEST_LOG_WARNING, "%s: terrain_epsg %ld applies only to rasters read through GDAL; this file is read in its own CRS",
			 path, opts->epsg);
	return s;
}

enum west_status west_dem_check_size(const char *path, size_t nx, size_t ny,
				     const struct west_dem_opts *opts,
				     char *err, size_t errlen)
{
	char what[WEST_ERRLEN];
	int overflow;

	opts = west_dem_opts_or_default(opts);
	if (nx == 0 || ny == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: raster of %zu x %zu cells is empty", path, nx, ny);
	overflow = nx > SIZE_MAX / ny;
	if (opts->max_cells && (overflow || nx * ny > opts->max_cells))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: raster of %zu x %zu cells exceeds max_cells %llu",
				 path, nx, ny, opts->max_cells);
	if (overflow)
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "%s: raster of %zu x %zu cells overflows the address space",
				 path, nx, ny);
	snprintf(what, sizeof what, "%s: raster of %zu x %zu cells", path, nx, ny);
	/* the heights plus one NODATA flag per cell */
	return west_check_alloc(nx * ny, sizeof(float) + 1, what, err, errlen);
}

enum west_status west_dem_height_fail(double v, char *err, size_t errlen,
				      const char *fmt, ...)
{
	char where[WEST_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(where, sizeof where, fmt, ap);
	va_end(ap);
	if (!isfinite(v))
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s is not finite", where);
	return west_fail(err, errlen, WEST_ERR_INVALID,
			 "%s (%g m) is outside [%g, %g] m",
			 where, v, WEST_DEM_ZMIN, WEST_DEM_ZMAX);
}

enum west_status west_dem_nodata_finish(struct west_dem *dem, unsigned char *valid,
					size_t nholes, const char *where,
					const char *first,
					const struct west_dem_opts *opts,
					char *err, size_t errlen)
{
	enum west_status s = WEST_OK;
	size_t filled = 0;

	opts = west_dem_opts_or_default(opts);
	if (nholes == 0) {
		/* nothing to do */
	} else if (nholes == dem->nx * dem->ny) {
		s = west_fail(err, errlen, WEST_ERR_INVALID,
			      "%s: all %zu cells are NODATA", where, nholes);
	} else if (opts->nodata != WEST_NODATA_FILL) {
		s = west_fail(err, errlen, WEST_ERR_INVALID,
			      "%s: %zu NODATA cell%s (first at %s); set nodata = fill to fill them",
			      where, nholes, nholes == 1 ? "" : "s", first);
	} else {
		s = west_dem_fill_nodata(dem, valid, &filled, err, errlen);
		if (s == WEST_OK)
			west_log(WEST_LOG_WARNING, "%s: filled %zu NODATA cell%s from their neighbours",
				 where, filled, filled == 1 ? "" : "s");
	}
	free(valid);
	return s;
}

/* The 4-neighbours of cell k; returns how many (2 to 4). */
static int neighbours(const struct west_dem *dem, size_t k, size_t nb[4])
{
	size_t nx = dem->nx, i = k % nx, j = k / nx;
	int n = 0;

	if (i > 0) nb[n++] = k - 1;
	if (i + 1 < nx) nb[n++] = k + 1;
	if (j > 0) nb[n++] = k - nx;
	if (j + 1 < dem->ny) nb[n++] = k + nx;
	return n;
}

/*
 * Flags during a fill: DATA (also a cell filled by an earlier pass), HOLE,
 * QUEUED (a hole that this pass fills; not yet data for its neighbours).
 */
enum { HOLE = 0, DATA = 1, QUEUED = 2 };

/* Mean of the neighbours of k that are DATA; 0 when there are none. */
static int neighbour_mean(const struct west_dem *dem, const unsigned char *valid,
			  size_t k, float *mean)
{
	size_t nb[4];
	int n = neighbours(dem, k, nb), m = 0;
	double sum = 0.0;

	for (int q = 0; q < n; q++) {
		if (valid[nb[q]] == DATA) {
			sum += dem->z[nb[q]];
			m++;
		}
	}
	if (m)
		*mean = (float)(sum / m);
	return m;
}

/* Queue the holes next to cell k; returns the new tail. */
static size_t queue_hole_neighbours(const struct west_dem *dem, unsigned char *valid,
				    size_t k, size_t *queue, size_t tail)
{
	size_t nb[4];
	int n = neighbours(dem, k, nb);

	for (int q = 0; q < n; q++) {
		if (valid[nb[q]] == HOLE) {
			valid[nb[q]] = QUEUED;
			queue[tail++] = nb[q];
		}
	}
	return tail;
}

/*
 * Pass by pass: queue[head, end) holds the holes with a DATA neighbour;
 * fill them all from the DATA cells, then make them DATA, then queue the
 * holes next to them for the next pass.  Every hole is queued once.
 */
static void fill_passes(struct west_dem *dem, unsigned char *valid,
			size_t *queue, size_t tail)
{
	size_t head = 0, end;
	float mean;

	while (head < tail) {
		end = tail;
		for (size_t q = head; q < end; q++)
			if (neighbour_mean(dem, valid, queue[q], &mean))
				dem->z[queue[q]] = mean;
		for (size_t q = head; q < end; q++)
			valid[queue[q]] = DATA;
		for (size_t q = head; q < end; q++)
			tail = queue_hole_neighbours(dem, valid, queue[q], queue, tail);
		head = end;
	}
}

enum west_status west_dem_fill_nodata(struct west_dem *dem, unsigned char *valid,
				      size_t *filled, char *err, size_t errlen)
{
	size_t n = dem->nx * dem->ny, holes = 0, tail = 0;
	size_t *queue;
	float mean;

	*filled = 0;
	for (size_t k = 0; k < n; k++) {
		valid[k] = valid[k] ? DATA : HOLE;
		holes += valid[k] == HOLE;
	}
	if (holes == 0)
		return WEST_OK;
	if (holes == n)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "no cell has data to fill the %zu NODATA cells from", n);
	if (west_check_alloc(holes, sizeof *queue, "NODATA fill", err, errlen) != WEST_OK ||
	    !(queue = malloc(holes * sizeof *queue)))
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "NODATA fill: cannot allocate a queue of %zu cells", holes);
	for (size_t k = 0; k < n; k++) {
		if (valid[k] == HOLE && neighbour_mean(dem, valid, k, &mean)) {
			valid[k] = QUEUED;
			queue[tail++] = k;
		}
	}
	fill_passes(dem, valid, queue, tail);
	free(queue);
	*filled = holes;
	return WEST_OK;
}

/*
 * Where output cell centre k (size res) falls on an input axis of n cells
 * of size d, as cell-centre index i0, its neighbour i1 and weight t of i1;
 * clamped to the outermost centres.
 */
static void axis_weight(size_t k, double res, double d, size_t n,
			size_t *i0, size_t *i1, double *t)
{
	double f = ((double)k + 0.5) * res / d - 0.5;

	if (f < 0.0)
		f = 0.0;
	if (f > (double)(n - 1))
		f = (double)(n - 1);
	*i0 = (size_t)f;
	if (*i0 + 1 >= n)
		*i0 = n > 1 ? n - 2 : 0;
	*i1 = n > 1 ? *i0 + 1 : 0;
	*t = f - (double)*i0;
}

static float bilinear(const struct west_dem *in, double res, size_t io, size_t jo)
{
	size_t i0, i1, j0, j1, nx = in->nx;
	double tx, ty;
	const float *z = in->z;

	axis_weight(io, res, in->dx, in->nx, &i0, &i1, &tx);
	axis_weight(jo, res, in->dy, in->ny, &j0, &j1, &ty);
	double south = (1.0 - tx) * z[j0 * nx + i0] + tx * z[j0 * nx + i1];
	double north = (1.0 - tx) * z[j1 * nx + i0] + tx * z[j1 * nx + i1];
	return (float)((1.0 - ty) * south + ty * north);
}

/* Output size along one axis: floor(n d / res), tolerant of rounding. */
static double resampled_count(size_t n, double d, double res)
{
	return floor((double)n * d / res + 1e-9);
}

enum west_status west_dem_resample(const struct west_dem *in, double res,
				   struct west_dem *out, char *err, size_t errlen)
{
	double fnx, fny;
	enum west_status s;

	memset(out, 0, sizeof *out);
	if (!(res > 0.0) || !isfinite(res))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "resample: resolution %g m is not a positive number", res);
	if (!in->z || in->nx == 0 || in->ny == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID, "resample: the DEM is empty");
	fnx = resampled_count(in->nx, in->dx, res);
	fny = resampled_count(in->ny, in->dy, res);
	if (fnx < 1.0 || fny < 1.0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "resample: resolution %g m is coarser than the DEM (%g x %g m)",
				 res, (double)in->nx * in->dx, (double)in->ny * in->dy);
	if (fnx * fny > 1e15)
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "resample: %g x %g cells at %g m is too many", fnx, fny, res);
	s = west_check_alloc((size_t)fnx * (size_t)fny, sizeof(float),
			     "resample", err, errlen);
	if (s != WEST_OK)
		return s;
	s = west_crs_copy(&out->crs, &in->crs, err, errlen);
	if (s != WEST_OK)
		return s;
	out->nx = (size_t)fnx;
	out->ny = (size_t)fny;
	out->dx = out->dy = res;
	out->x0 = in->x0;
	out->y0 = in->y0;
	out->z = malloc(out->nx * out->ny * sizeof *out->z);
	if (!out->z) {
		west_dem_free(out);
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "resample: cannot allocate %g x %g cells", fnx, fny);
	}
	for (size_t j = 0; j < out->ny; j++)
		for (size_t i = 0; i < out->nx; i++)
			out->z[j * out->nx + i] = bilinear(in, res, i, j);
	return WEST_OK;
}

void west_dem_range(const struct west_dem *dem, float *zmin, float *zmax)
{
	size_t n = dem->z ? dem->nx * dem->ny : 0;
	float lo = n ? dem->z[0] : 0.0f, hi = lo;

	for (size_t k = 1; k < n; k++) {
		if (dem->z[k] < lo)
			lo = dem->z[k];
		if (dem->z[k] > hi)
			hi = dem->z[k];
	}
	*zmin = lo;
	*zmax = hi;
}

void west_dem_free(struct west_dem *dem)
{
	free(dem->z);
	west_crs_free(&dem->crs);
	memset(dem, 0, sizeof *dem);
}

void west_crs_free(struct west_crs *crs)
{
	free(crs->wkt);
	memset(crs, 0, sizeof *crs);
}

enum west_status west_crs_copy(struct west_crs *dst, const struct west_crs *src,
			       char *err, size_t errlen)
{
	*dst = *src;
	if (!src->wkt)
		return WEST_OK;
	dst->wkt = strdup(src->wkt);
	if (!dst->wkt) {
		memset(dst, 0, sizeof *dst);
		return west_fail(err, errlen, WEST_ERR_NOMEM, "crs: cannot copy the WKT");
	}
	return WEST_OK;
}
