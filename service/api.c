/*
 * api.c: westd's routes (docs/api.md): the native /v1 API, health and
 * metrics.  The OGC API - EDR routes are in api_edr.c, the map page's in
 * api_ui.c; the route table that names them all is routes.c (westd_routes,
 * api.h).
 *
 * Every field answer comes from one published field, held (reference) for
 * the length of the request: a reader never sees two versions mixed.
 * ?version=N pins a version still held (publish.h keeps the newest
 * WEST_STORE_KEEP); answers carry ETag "vN" and honour If-None-Match.
 */
#include "api.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "edr.h"
#include "geotiff.h"
#include "log.h"
#include "openapi.h"
#include "proj.h"
#include "query.h"

/* ------------------------------------------------------------ arguments */

int api_arg_double(struct west_req *r, const char *name, int required, double *v)
{
	const char *s = west_req_arg(r, name);
	char *end;

	if (!s || !s[0]) {
		if (!required)
			return 1;
		west_reply_problem(r, 400, "missing-parameter", "Bad Request",
				   "query parameter %s is required", name);
		return 0;
	}
	errno = 0;
	*v = strtod(s, &end);
	if (*end || errno || !isfinite(*v)) {
		west_reply_problem(r, 400, "bad-parameter", "Bad Request",
				   "query parameter %s: '%.60s' is not a finite number", name, s);
		return 0;
	}
	return 1;
}

int api_arg_zref(struct west_req *r, enum west_zref *zref)
{
	const char *s = west_req_arg(r, "zref");

	*zref = WEST_ZREF_AGL;
	if (!s || !strcmp(s, "agl"))
		return 1;
	if (!strcmp(s, "msl")) {
		*zref = WEST_ZREF_MSL;
		return 1;
	}
	west_reply_problem(r, 400, "bad-parameter", "Bad Request",
			   "query parameter zref: '%.40s' is not agl or msl", s);
	return 0;
}

/* 1 when (x, y) is in g's domain, edges included (query.h's rule). */
static int in_domain(const struct west_grid *g, double x, double y)
{
	return x >= g->x0 && x <= g->x0 + (double)g->nx * g->dx &&
	       y >= g->y0 && y <= g->y0 + (double)g->ny * g->dy;
}

int api_no_lonlat(struct west_req *r, const struct west_grid *g)
{
	if (g->crs.has_tm)
		return 0;
	west_reply_problem(r, 400, "no-crs", "Bad Request", "lon/lat: %s; give x and y in "
			   "the grid's coordinates", west_crs_no_lonlat(&g->crs));
	return 1;
}

/* x, y from x=&y= or lon=&lat= (a grid with a transverse Mercator CRS);
 * lon/lat outside the domain is answered here, in degrees. */
static int arg_xy(struct west_req *r, const struct west_grid *g, double *x, double *y)
{
	char err[WEST_ERRLEN], why[WEST_ERRLEN];
	double lon, lat;

	if (!west_req_arg(r, "lon") && !west_req_arg(r, "lat"))
		return api_arg_double(r, "x", 1, x) && api_arg_double(r, "y", 1, y);
	if (west_req_arg(r, "x") || west_req_arg(r, "y")) {
		west_reply_problem(r, 400, "bad-parameter", "Bad Request",
				   "give x and y, or lon and lat, not both");
		return 0;
	}
	if (!api_arg_double(r, "lon", 1, &lon) || !api_arg_double(r, "lat", 1, &lat))
		return 0;
	if (api_no_lonlat(r, g))
		return 0;
	if (west_tm_forward(&g->crs, lon, lat, x, y, err, sizeof err)) {
		west_edr_swap_hint(g, lon, lat, 0, why, sizeof why);
		west_reply_problem(r, 400, "bad-parameter", "Bad Request", "lon/lat: %s%s",
				   err, why);
		return 0;
	}
	if (!in_domain(g, *x, *y)) {
		west_edr_lonlat_outside(g, lon, lat, 0, why, sizeof why);
		west_reply_problem(r, 422, "point-not-in-air", "Unprocessable Content", "%s",
				   why);
		return 0;
	}
	return 1;
}

/* ----------------------------------------------------------------- field */

struct west_published *api_field(struct west_req *r)
{
	double v = NAN;
	struct west_published *p;

	if (!api_arg_double(r, "version", 0, &v))
		return NULL;
	if (isnan(v)) {
		p = west_store_acquire(&r->d->store);
		if (!p)
			west_reply_problem(r, 503, "no-field", "Service Unavailable",
					   "no field yet: POST /v1/observations first");
	} else if (!(v >= 1 && v <= 1e18 && v == floor(v))) {
		west_reply_problem(r, 400, "bad-parameter", "Bad Request",
				   "query parameter version: %g is not a whole number >= 1", v);
		return NULL;
	} else {
		p = west_store_acquire_version(&r->d->store, (unsigned long long)v);
		if (!p)
			west_reply_problem(r, 404, "version-not-held", "Not Found",
					   "version: field %.0f is not held (the newest %d "
					   "fields are; current: v%llu)", v, WEST_STORE_KEEP,
					   west_store_version(&r->d->store));
	}
	if (p && west_req_etag(r, p->version)) {
		west_published_release(p);
		return NULL;
	}
	return p;
}

static json_t *time_json(long long t)
{
	char buf[32];
	west_obs_time_format(t, buf, sizeof buf);
	return json_string(buf);
}

/* Version, valid time, age (since the valid time: westd_field_age), publish
 * time and the seconds since it, and observation id of p, into o. */
static void field_head(json_t *o, const struct west_published *p)
{
	long long now = westd_now();

	json_object_set_new(o, "version", json_integer((json_int_t)p->version));
	json_object_set_new(o, "valid_time", time_json(p->field.valid_time));
	json_object_set_new(o, "published_at", time_json(p->published_at));
	json_object_set_new(o, "age_seconds", json_integer((json_int_t)westd_field_age(p, now)));
	json_object_set_new(o, "published_seconds_ago",
			    json_integer((json_int_t)(now - p->published_at)));
	json_object_set_new(o, "observation_set", json_integer((json_int_t)p->obs_id));
	json_object_set_new(o, "stations", json_integer((json_int_t)p->obs.n));
}

json_t *api_grid_json(const struct west_grid *g)
{
	json_t *j = json_pack("{s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:s?, s:s?, s:s?}",
			 "nx", (json_int_t)g->nx, "ny", (json_int_t)g->ny,
			 "nz", (json_int_t)g->nz, "dx", g->dx, "dy", g->dy,
			 "x0", g->x0, "y0", g->y0, "base_altitude", g->base,
			 "top_altitude", g->base + g->zf[g->nz],
			 "terrain_min", (double)g->terrain_min,
			 "terrain_max", (double)g->terrain_max,
			 "lowest_level_agl_max", g->lowest_agl_max,
			 "levels_warning", g->levels_warning[0] ? g->levels_warning : NULL,
			 "grid_mapping", g->crs.grid_mapping_name[0] ?
			 g->crs.grid_mapping_name : NULL, "crs_wkt", g->crs.wkt);
	/* degrees, at the domain's centre: null where true north is unknown */
	double c = west_grid_convergence(g, 0.5 * (double)g->nx * g->dx,
					 0.5 * (double)g->ny * g->dy) * 180.0 / M_PI;
	if (j)
		json_object_set_new(j, "meridian_convergence",
				    g->has_convergence ? json_real(c) : json_null());
	return j;
}

void api_get_field(struct west_req *r)
{
	struct west_published *p = api_field(r);
	json_t *o;

	if (!p)
		return;
	o = json_object();
	field_head(o, p);
	json_object_set_new(o, "grid", api_grid_json(p->grid));
	json_object_set_new(o, "solve", west_report_json(&p->field.report));
	west_published_release(p);
	west_reply_json(r, 200, o, NULL);
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *point_json(const struct west_point *pt)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "x", num(pt->x), "y", num(pt->y), "z_agl", num(pt->z_agl),
			 "z_msl", num(pt->z_msl), "ground", num(pt->ground),
			 "u", num(pt->u), "v", num(pt->v), "w", num(pt->w),
			 "speed", num(pt->speed), "direction", num(pt->direction),
			 "units", json_pack("{s:s, s:s, s:s}", "length", "m", "velocity",
					   "m/s", "direction", "degrees from north, wind from"));
}

/* One level of a profile: what differs from level to level. */
static json_t *level_json(const struct west_point *pt)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "z_agl", num(pt->z_agl),
			 "z_msl", num(pt->z_msl), "u", num(pt->u), "v", num(pt->v),
			 "w", num(pt->w), "speed", num(pt->speed),
			 "direction", num(pt->direction));
}

void api_get_point(struct west_req *r)
{
	struct west_published *p;
	struct west_point pt;
	enum west_zref zref;
	double x, y, z;
	char err[WEST_ERRLEN];

	if (!api_arg_zref(r, &zref) || !api_arg_double(r, "z", 1, &z) || !(p = api_field(r)))
		return;
	if (arg_xy(r, p->grid, &x, &y)) {
		if (west_query_point(p->grid, &p->field, x, y, z, zref, &pt, err, sizeof err)) {
			west_reply_problem(r, 422, "point-not-in-air", "Unprocessable Content",
					   "%s", err);
		} else {
			json_t *o = point_json(&pt);
			field_head(o, p);
			west_reply_json(r, 200, o, NULL);
		}
	}
	west_published_release(p);
}

void api_get_profile(struct west_req *r)
{
	struct west_published *p = api_field(r);
	struct west_point *pts;
	size_t n;
	double x, y;
	char err[WEST_ERRLEN];

	if (!p)
		return;
	if (!arg_xy(r, p->grid, &x, &y))
		goto out;
	if (!(pts = malloc(p->grid->nz * sizeof *pts))) {
		west_reply_problem(r, 503, "out-of-memory", "Service Unavailable", "out of memory");
		goto out;
	}
	if (west_query_profile(p->grid, &p->field, x, y, pts, &n, err, sizeof err)) {
		west_reply_problem(r, 422, "point-not-in-air", "Unprocessable Content", "%s", err);
	} else {
		json_t *o = json_object(), *levels = json_array();
		field_head(o, p);
		json_object_set_new(o, "x", json_real(x));
		json_object_set_new(o, "y", json_real(y));
		json_object_set_new(o, "ground", num(pts[0].ground));
		for (size_t k = 0; k < n; k++)
			json_array_append_new(levels, level_json(&pts[k]));
		json_object_set_new(o, "levels", levels);
		west_reply_json(r, 200, o, NULL);
	}
	free(pts);
out:
	west_published_release(p);
}

/* A 2D array (rows of nx values, null where NaN). */
static json_t *rows_json(const float *a, size_t nx, size_t ny)
{
	json_t *rows = json_array();
	for (size_t j = 0; j < ny; j++) {
		json_t *row = json_array();
		for (size_t i = 0; i < nx; i++)
			json_array_append_new(row, num(a[j * nx + i]));
		json_array_append_new(rows, row);
	}
	return rows;
}

static void slice_answer(struct west_req *r, const struct west_published *p, double z,
			 enum west_zref zref, size_t stride)
{
	const struct west_grid *g = p->grid;
	size_t nxo = (g->nx + stride - 1) / stride, nyo = (g->ny + stride - 1) / stride;
	float *u = malloc(3 * nxo * nyo * sizeof *u);
	char err[WEST_ERRLEN];
	json_t *o, *xs, *ys;

	if (!u) {
		west_reply_problem(r, 503, "out-of-memory", "Service Unavailable", "out of memory");
		return;
	}
	if (west_query_slice(g, &p->field, z, zref, stride, u, u + nxo * nyo,
			     u + 2 * nxo * nyo, &nxo, &nyo, err, sizeof err)) {
		west_reply_problem(r, 400, "bad-parameter", "Bad Request", "%s", err);
		free(u);
		return;
	}
	o = json_object();
	field_head(o, p);
	json_object_set_new(o, "z", json_real(z));
	json_object_set_new(o, "zref", json_string(zref == WEST_ZREF_MSL ? "msl" : "agl"));
	json_object_set_new(o, "stride", json_integer((json_int_t)stride));
	xs = json_array(), ys = json_array();
	for (size_t i = 0; i < nxo; i++)
		json_array_append_new(xs, json_real(g->x0 + ((double)(i * stride) + 0.5) * g->dx));
	for (size_t j = 0; j < nyo; j++)
		json_array_append_new(ys, json_real(g->y0 + ((double)(j * stride) + 0.5) * g->dy));
	json_object_set_new(o, "x", xs);
	json_object_set_new(o, "y", ys);
	json_object_set_new(o, "u", rows_json(u, nxo, nyo));
	json_object_set_new(o, "v", rows_json(u + nxo * nyo, nxo, nyo));
	json_object_set_new(o, "w", rows_json(u + 2 * nxo * nyo, nxo, nyo));
	free(u);
	west_reply_json(r, 200, o, NULL);
}

/* The slice as a GeoTIFF (geotiff.h): image/tiff, an attachment named
 * westd-vVERSION-Zm.tif (Zm-msl.tif for an altitude). */
static void slice_geotiff(struct west_req *r, const struct west_published *p, double z,
			  enum west_zref zref, size_t stride)
{
	char err[WEST_ERRLEN], version[40], disp[128];
	const char *extra[] = { version, NULL };
	unsigned char *buf;
	size_t len;
	enum west_status st;

	snprintf(version, sizeof version, "FIELD_VERSION=%llu", p->version);
	st = west_geotiff_wind(p->grid, &p->field, z, zref, stride, extra, &buf, &len, NULL,
			       err, sizeof err);
	if (st == WEST_ERR_INVALID) {
		west_reply_problem(r, 400, "bad-parameter", "Bad Request", "%s", err);
	} else if (st) {
		west_log(WEST_LOG_ERR, "slice GeoTIFF: %s", err);
		west_reply_problem(r, 503, "out-of-memory", "Service Unavailable", "%s", err);
	} else {
		snprintf(disp, sizeof disp, "attachment; filename=\"westd-v%llu-%.10gm%s.tif\"",
			 p->version, z, zref == WEST_ZREF_MSL ? "-msl" : "");
		west_req_add_header(r, "Content-Disposition", disp);
		west_reply_text(r, 200, "image/tiff", (char *)buf, len);
	}
}

/* format=json|geotiff (default json): 1 and *tiff, else 0 (answered). */
static int arg_format(struct west_req *r, int *tiff)
{
	const char *s = west_req_arg(r, "format");

	*tiff = s && !strcmp(s, "geotiff");
	if (!s || *tiff || !strcmp(s, "json"))
		return 1;
	west_reply_problem(r, 400, "bad-parameter", "Bad Request",
			   "query parameter format: '%.40s' is not json or geotiff", s);
	return 0;
}

void api_get_slice(struct west_req *r)
{
	struct west_published *p;
	enum west_zref zref;
	double z, s = 1;
	int tiff;

	if (!api_arg_zref(r, &zref) || !api_arg_double(r, "z", 1, &z) ||
	    !api_arg_double(r, "stride", 0, &s) || !arg_format(r, &tiff))
		return;
	if (s < 1 || s > 1e6 || s != floor(s)) {
		west_reply_problem(r, 400, "bad-parameter", "Bad Request",
				   "query parameter stride: %g is not a whole number >= 1", s);
		return;
	}
	if (!(p = api_field(r)))
		return;
	size_t stride = (size_t)s, per = tiff ? 4 : 3,
	       cells = ((p->grid->nx + stride - 1) / stride) *
		       ((p->grid->ny + stride - 1) / stride);
	if (per * cells > (size_t)r->live.max_response_cells)
		west_reply_problem(r, 413, "too-many-cells", "Content Too Large",
				   "the slice holds %zu values (%zu per column), more than "
				   "max_response_cells = %lld: use stride=",
				   per * cells, per, r->live.max_response_cells);
	else if (tiff)
		slice_geotiff(r, p, z, zref, stride);
	else
		slice_answer(r, p, z, zref, stride);
	west_published_release(p);
}

/* --------------------------------------------------------------- terrain */

/* FNV-1a 64 of n bytes: the terrain answer's entity tag. */
static unsigned long long fnv1a(const char *s, size_t n)
{
	unsigned long long h = 14695981039346656037ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* The terrain answer's text (malloc'd, *len its length): every stride-th
 * column centre's x, y and ground altitude, rounded to the centimetre. */
static char *terrain_text(const struct west_grid *g, size_t stride, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	fprintf(f, "{\"stride\":%zu,\"x\":[", stride);
	for (size_t i = 0; i < g->nx; i += stride)
		fprintf(f, "%s%.10g", i ? "," : "", g->x0 + ((double)i + 0.5) * g->dx);
	fputs("],\"y\":[", f);
	for (size_t j = 0; j < g->ny; j += stride)
		fprintf(f, "%s%.10g", j ? "," : "", g->y0 + ((double)j + 0.5) * g->dy);
	fputs("],\"ground\":[", f);
	for (size_t j = 0; j < g->ny; j += stride) {
		fputs(j ? ",[" : "[", f);
		for (size_t i = 0; i < g->nx; i += stride) {
			double z = g->terrain[j * g->nx + i];
			if (isfinite(z))
				fprintf(f, "%s%.10g", i ? "," : "", round(z * 100.0) / 100.0);
			else
				fprintf(f, "%snull", i ? "," : "");
		}
		fputc(']', f);
	}
	fputs("]}", f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void terrain_answer(struct west_req *r, const struct west_grid *g, size_t stride)
{
	size_t len, cells = ((g->nx + stride - 1) / stride) * ((g->ny + stride - 1) / stride);
	char tag[40], *text;

	if (cells > (size_t)r->live.max_response_cells) {
		west_reply_problem(r, 413, "too-many-cells", "Content Too Large",
				   "the terrain holds %zu values, more than "
				   "max_response_cells = %lld: use stride=", cells,
				   r->live.max_response_cells);
		return;
	}
	if (!(text = terrain_text(g, stride, &len))) {
		west_reply_problem(r, 503, "out-of-memory", "Service Unavailable", "out of memory");
		return;
	}
	snprintf(tag, sizeof tag, "\"t%016llx\"", fnv1a(text, len));
	if (west_req_etag_tag(r, tag))
		free(text);
	else
		west_reply_text(r, 200, "application/json", text, len);
}

/* The ground under the current field (the grid it was solved on), or
 * before the first field under the grid the next solve will use. */
void api_get_terrain(struct west_req *r)
{
	struct west_published *p;
	struct west_shared_grid *sg = NULL;
	double s = 1;

	if (!api_arg_double(r, "stride", 0, &s))
		return;
	if (s < 1 || s > 1e6 || s != floor(s)) {
		west_reply_problem(r, 400, "bad-parameter", "Bad Request",
				   "query parameter stride: %g is not a whole number >= 1", s);
		return;
	}
	if (!(p = west_store_acquire(&r->d->store))) {
		pthread_mutex_lock(&r->d->ingest_lock);
		sg = west_shared_grid_hold(r->d->grid);
		pthread_mutex_unlock(&r->d->ingest_lock);
	}
	terrain_answer(r, p ? p->grid : &sg->g, (size_t)s);
	west_published_release(p);
	west_shared_grid_release(sg);
}

/* ---------------------------------------------------------- observations */

/* 1 when the media type of ct (parameters ignored) is type. */
static int media_is(const char *ct, const char *type)
{
	size_t n = strlen(type);
	return !strncasecmp(ct, type, n) && (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

void api_post_observations(struct west_req *r)
{
	const char *ct = west_req_header(r, "Content-Type");
	struct westd_ingest in;
	char err[WEST_ERRLEN];
	int csv;
	enum west_status st;

	if (ct && (media_is(ct, "application/json") || media_is(ct, "text/csv"))) {
		csv = media_is(ct, "text/csv");
	} else {
		west_metrics_rejected(&r->d->metrics, WEST_SOURCE_HTTP, WEST_REJECT_MEDIA_TYPE);
		west_reply_problem(r, 415, "unsupported-media-type", "Unsupported Media Type",
				   "Content-Type: '%.60s' is neither application/json nor "
				   "text/csv", ct ? ct : "(none)");
		return;
	}
	if (csv && west_obs_is_list(r->body ? r->body : "", r->len)) {
		west_metrics_rejected(&r->d->metrics, WEST_SOURCE_HTTP, WEST_REJECT_INVALID);
		west_reply_problem(r, 400, "station-file-list", "Bad Request",
				   "the body is a WindNinja station file list, which names "
				   "files: westd reads no file a request names; POST the "
				   "station files' rows under one header, or drop the list "
				   "and its files in the spool directory");
		return;
	}
	st = westd_ingest(r->d, r->body ? r->body : "", r->len, csv, WEST_SOURCE_HTTP, &in,
			  err, sizeof err);
	if (st == WEST_ERR_INVALID && in.out_of_date) {
		west_reply_problem(r, 422, "observations-out-of-date", "Unprocessable Content",
				   "%s", err);
		return;
	} else if (st == WEST_ERR_INVALID) {
		west_reply_problem(r, 400, "invalid-observations", "Bad Request", "%s", err);
		return;
	} else if (st) {
		west_log(WEST_LOG_ERR, "ingest: %s", err);
		west_reply_problem(r, 503, "not-stored", "Service Unavailable",
				   "the observation set could not be stored, nothing was "
				   "applied: %s", err);
		return;
	}
	west_reply_json(r, 202, json_pack("{s:I, s:I, s:I, s:o, s:o, s:s}",
					   "id", (json_int_t)in.id,
					   "field_version", (json_int_t)in.version,
					   "stations", (json_int_t)in.stations,
					   "valid_time", time_json(in.valid_time),
					   "times", west_obs_times_json(&in.times),
					   "status", "/v1/status"), NULL);
}

static json_t *record_json(const struct westd_record *rec)
{
	json_t *o = json_pack("{s:I, s:o, s:o, s:I, s:s, s:s}", "id", (json_int_t)rec->id,
			      "received_at", time_json(rec->received_at),
			      "valid_time", time_json(rec->valid_time),
			      "stations", (json_int_t)rec->stations,
			      "source", west_source_label(rec->source),
			      "status", westd_fate_name(rec->fate));
	if (rec->version && rec->fate != WESTD_FAILED)
		json_object_set_new(o, "field_version", json_integer((json_int_t)rec->version));
	return o;
}

void api_get_observations(struct west_req *r)
{
	struct westd_record *recs = malloc(WESTD_RECORDS * sizeof *recs);
	struct west_published *p = west_store_acquire(&r->d->store);
	json_t *o = json_object(), *hist = json_array(), *cur = json_null();
	size_t n;

	if (!recs) {
		json_decref(o), json_decref(hist), west_published_release(p);
		west_reply_problem(r, 503, "out-of-memory", "Service Unavailable", "out of memory");
		return;
	}
	n = westd_records(r->d, recs, WESTD_RECORDS);
	for (size_t k = 0; k < n; k++)
		json_array_append_new(hist, record_json(&recs[k]));
	free(recs);
	if (p) {
		cur = west_obs_to_json(&p->obs);
		if (cur) {
			json_object_set_new(cur, "id", json_integer((json_int_t)p->obs_id));
			json_object_set_new(cur, "field_version", json_integer((json_int_t)p->version));
			json_object_set_new(cur, "valid_time", time_json(p->field.valid_time));
		}
		west_published_release(p);
	}
	json_object_set_new(o, "current", cur ? cur : json_null());
	json_object_set_new(o, "history", hist);
	west_reply_json(r, 200, o, NULL);
}

/* ------------------------------------------------------------- snapshots */

void api_get_snapshots(struct west_req *r)
{
	struct west_snapwriter_entry *e = NULL;
	size_t n = 0;
	char err[WEST_ERRLEN];
	json_t *list = json_array();

	if (r->d->conf.snapshot_dir[0] &&
	    west_snapwriter_list(r->d->conf.snapshot_dir, &e, &n, err, sizeof err)) {
		json_decref(list);
		west_log(WEST_LOG_ERR, "snapshots: %s", err);
		west_reply_problem(r, 503, "snapshots-unreadable", "Service Unavailable",
				   "the snapshot directory cannot be listed");
		return;
	}
	for (size_t k = 0; k < n; k++) {
		char href[96];
		snprintf(href, sizeof href, "/v1/snapshots/%s", e[k].name);
		json_array_append_new(list, json_pack("{s:s, s:I, s:I, s:o, s:s}",
			"name", e[k].name, "version", (json_int_t)e[k].version,
			"bytes", (json_int_t)e[k].size, "modified", time_json(e[k].mtime),
			"href", href));
	}
	free(e);
	west_reply_json(r, 200, json_pack("{s:b, s:o}", "enabled",
					   r->d->conf.snapshot_dir[0] != '\0', "snapshots", list),
			NULL);
}

void api_get_snapshot(struct west_req *r)
{
	char path[WEST_CONF_PATH_MAX + WEST_SNAPSHOT_NAME_MAX + 2];
	struct stat sb;
	int fd;

	if (!r->d->conf.snapshot_dir[0] || !west_snapwriter_name_valid(r->path_arg, NULL)) {
		west_reply_problem(r, 404, "no-such-snapshot", "Not Found",
				   "no snapshot named '%.80s' (GET /v1/snapshots lists them)",
				   r->path_arg);
		return;
	}
	snprintf(path, sizeof path, "%s/%s", r->d->conf.snapshot_dir, r->path_arg);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		if (fd >= 0)
			close(fd);
		west_reply_problem(r, 404, "no-such-snapshot", "Not Found",
				   "no snapshot named '%.80s' (GET /v1/snapshots lists them)",
				   r->path_arg);
		return;
	}
	west_reply_file(r, fd, (size_t)sb.st_size, "application/x-netcdf", r->path_arg);
}

/* ---------------------------------------------------------------- status */

static json_t *status_field(struct west_published *p)
{
	json_t *o;
	if (!p)
		return json_null();
	o = json_object();
	field_head(o, p);
	return o;
}

static json_t *releases_json(struct westd *d)
{
	struct west_releases_stats st;

	west_releases_stats(&d->releases, &st);
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			 "queued", (json_int_t)st.count[WEST_RELEASE_QUEUED],
			 "running", (json_int_t)st.count[WEST_RELEASE_RUNNING],
			 "done", (json_int_t)st.count[WEST_RELEASE_DONE],
			 "failed", (json_int_t)st.count[WEST_RELEASE_FAILED],
			 "memory_bytes", (json_int_t)st.bytes,
			 "posted_total", (json_int_t)st.posted,
			 "done_total", (json_int_t)st.done,
			 "failed_total", (json_int_t)st.failed);
}

static json_t *snapshots_json(struct westd *d)
{
	struct west_snapwriter_stats s;
	if (!d->snap_on)
		return json_pack("{s:b}", "enabled", 0);
	west_snapwriter_stats(&d->snap, &s);
	return json_pack("{s:b, s:s, s:I, s:I, s:s, s:f, s:s}", "enabled", 1,
			 "dir", d->conf.snapshot_dir, "written", (json_int_t)s.written,
			 "failed", (json_int_t)s.failed, "last", s.last_name,
			 "last_seconds", s.last_seconds, "last_error", s.last_error);
}

void api_get_status(struct west_req *r)
{
	struct westd *d = r->d;
	struct west_worker_stats ws;
	struct west_published *p = west_store_acquire(&d->store);
	char why[WEST_ERRLEN];
	int ready = westd_ready(d, why, sizeof why);
	json_t *o;

	west_worker_stats(&d->worker, &ws);
	o = json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:i}, s:o, s:o, s:o, s:{s:I, s:I, s:I, "
		      "s:I, s:I, s:I}, s:s, s:o, s:o, s:b, s:s, s:I}",
		      "service", "westd", "version", PACKAGE_VERSION,
		      "backend", "name", d->be->name, "device", d->device,
		      "note", d->backend_note, "partitions", westd_partitions(d),
		      "grid", api_grid_json(&d->grid->g), "field", status_field(p),
		      "last_solve", p ? west_report_json(&p->field.report) : json_null(),
		      "queue", "pending", (json_int_t)(ws.pending_id != 0),
		      "running", (json_int_t)(ws.running_id != 0),
		      "submitted", (json_int_t)ws.submitted, "solved", (json_int_t)ws.solved,
		      "superseded", (json_int_t)ws.superseded, "failed", (json_int_t)ws.failed,
		      "last_error", ws.last_error, "snapshots", snapshots_json(d),
		      "releases", releases_json(d),
		      "ready", ready, "not_ready_because", ready ? "" : why,
		      "uptime_seconds", (json_int_t)(westd_now() - d->started_at));
	west_published_release(p);
	west_reply_json(r, 200, o, NULL);
}

/* ---------------------------------------------------------------- health */

void api_get_livez(struct west_req *r)
{
	west_reply_json(r, 200, json_pack("{s:s}", "status", "alive"), NULL);
}

void api_get_readyz(struct west_req *r)
{
	char why[WEST_ERRLEN];

	if (westd_ready(r->d, why, sizeof why))
		west_reply_json(r, 200, json_pack("{s:s}", "status", "ready"), NULL);
	else
		west_reply_problem(r, 503, "not-ready", "Service Unavailable", "%s", why);
}

/* The releases held now, for the metrics. */
static void releases_gauges(struct westd *d, struct west_metrics_gauges *g)
{
	struct west_releases_stats st;

	west_releases_stats(&d->releases, &st);
	g->has_releases = 1;
	for (int k = 0; k < 4; k++)
		g->releases[k] = st.count[k];
	g->release_bytes = (double)st.bytes;
}

void api_get_metrics(struct west_req *r)
{
	struct westd *d = r->d;
	struct west_worker_stats ws;
	struct west_published *p = west_store_acquire(&d->store);
	struct west_metrics_gauges g = { 0 };
	struct west_metrics_process proc;
	char why[WEST_ERRLEN];
	size_t len;
	char *text;

	west_worker_stats(&d->worker, &ws);
	g.field_age_seconds = p ? (double)westd_field_age(p, westd_now()) : NAN;
	g.field_valid_time_seconds = p ? (double)p->field.valid_time : NAN;
	g.field_published_time_seconds = p ? (double)p->published_at : NAN;
	g.field_version = p ? p->version : 0;
	g.solver = p ? p->field.report.solver : "";
	g.queue_depth = ws.pending_id != 0;
	g.ready = westd_ready(d, why, sizeof why);
	g.backend = d->be->name, g.device = d->device, g.version = PACKAGE_VERSION;
	g.partitions = westd_partitions(d);
	g.report = p ? &p->field.report : NULL;
	releases_gauges(d, &g);
	west_metrics_process_read(&proc);
	g.process = &proc;
	/* the kernel's start time (to the clock tick) where /proc has it */
	g.start_time_seconds = isfinite(proc.start_time_seconds) ? proc.start_time_seconds :
			       (double)d->started_at;
	text = west_metrics_render(&d->metrics, &g, &len);
	west_published_release(p);
	if (!text)
		west_reply_problem(r, 503, "out-of-memory", "Service Unavailable", "out of memory");
	else
		west_reply_text(r, 200, WEST_METRICS_CONTENT_TYPE, text, len);
}

/* ------------------------------------------------------------------- api */

/* The OpenAPI document of the route table (routes.c): JSON as WEST_OPENAPI_TYPE, or
 * application/json when the client asks for that (f=application/json, or
 * an Accept that rates it above the OpenAPI type); the HTML page of it
 * with f=html or an Accept that rates text/html above application/json
 * (api_ui_wants_html, as at /).  Vary: Accept. */
void api_openapi(struct west_req *r)
{
	const char *f = west_req_arg(r, "f"), *accept = west_req_header(r, "Accept");
	const struct west_route_def *rt;
	size_t nrt;
	char base[320];
	int html;
	json_t *doc;

	west_req_add_header(r, "Vary", "Accept");
	if (!api_ui_wants_html(f, accept, &html)) {
		west_reply_problem(r, 400, "bad-parameter", "Bad Request",
				   "query parameter f: '%.40s' is not json or html", f);
		return;
	}
	west_req_base(r, base, sizeof base);
	rt = westd_routes(&nrt);
	if (!(doc = west_openapi(rt, nrt, base))) {
		west_reply_problem(r, 503, "out-of-memory", "Service Unavailable", "out of memory");
	} else if (html) {
		size_t len;
		char *text = west_openapi_html(doc, &len);

		json_decref(doc);
		if (!text) {
			west_reply_problem(r, 503, "out-of-memory", "Service Unavailable",
					   "out of memory");
			return;
		}
		west_req_add_header(r, "X-Content-Type-Options", "nosniff");
		west_req_add_header(r, "Content-Security-Policy", "default-src 'none'; "
				    "style-src 'unsafe-inline'; base-uri 'none'; "
				    "form-action 'none'; frame-ancestors 'none'");
		west_reply_text(r, 200, "text/html; charset=utf-8", text, len);
	} else {
		int plain = f ? !strcasecmp(f, "application/json") :
			    accept && api_ui_accept_q(accept, "application/json") >
				      api_ui_accept_q(accept, WEST_OPENAPI_TYPE);
		west_reply_json(r, 200, doc, plain ? "application/json" : WEST_OPENAPI_TYPE);
	}
}
