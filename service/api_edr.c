/*
 * api_edr.c: the OGC API - EDR routes (api.h): landing page, conformance,
 * collections, and the position, area and cube queries answering
 * CoverageJSON.  The documents are built by edr.c; this file reads the
 * query parameters and maps errors to statuses: a bad parameter 400, a
 * point or box the field does not cover 400 (EDR's choice, not 422), an
 * answer over max_response_cells 413.
 *
 * crs and datetime are checked against the field answered (its grid's
 * CRS, its valid time): coordinates are CRS84 longitude and latitude by
 * default (EDR's), or the grid's own x, y with crs naming it (edr.h says
 * how each query answers them); another crs is 400 (EDR
 * /req/edr/REQ_rc-crs-response C); a datetime
 * that does not include the valid time is 404 no-data-at-time: EDR
 * answers only data whose time intersects datetime, and this collection
 * holds none then (answering the field of another time would be a wrong
 * answer given as a right one).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api.h"
#include "edr.h"
#include "obs.h"
#include "proj.h"

#define COVJSON "application/vnd.cov+json"

void api_edr_landing(struct west_req *r)
{
	char base[320];
	west_req_base(r, base, sizeof base);
	west_reply_json(r, 200, west_edr_landing(base), NULL);
}

/* f on the metadata documents: JSON only; else a 400. */
static int json_only(struct west_req *r)
{
	const char *f = west_req_arg(r, "f");

	if (!f || !strcasecmp(f, "json") || !strcasecmp(f, "application/json"))
		return 1;
	west_reply_problem(r, 400, "bad-parameter", "Bad Request",
			   "query parameter f: '%.40s' is not an output format of %s (json)",
			   f, r->url);
	return 0;
}

void api_edr_conformance(struct west_req *r)
{
	if (json_only(r))
		west_reply_json(r, 200, west_edr_conformance(), NULL);
}

/* The collection documents, with the current field's time when there is
 * one. */
static void collection_doc(struct west_req *r, int all)
{
	struct west_published *p = west_store_acquire(&r->d->store);
	const struct west_grid *g = p ? p->grid : &r->d->grid->g;
	const struct west_field *f = p ? &p->field : NULL;
	char base[320];

	west_req_base(r, base, sizeof base);
	if (json_only(r))
		west_reply_json(r, 200, all ? west_edr_collections(base, g, f)
					    : west_edr_collection(base, g, f), NULL);
	west_published_release(p);
}

void api_edr_collections(struct west_req *r)
{
	collection_doc(r, 1);
}

void api_edr_collection(struct west_req *r)
{
	collection_doc(r, 0);
}

/* The parameters every query shares: f, z, zref, parameter-name. */
struct edr_args {
	double z[WEST_EDR_MAX_Z];
	size_t nz;
	enum west_zref zref;
	unsigned params;
};

static int common_args(struct west_req *r, struct edr_args *a)
{
	const char *f = west_req_arg(r, "f"), *z = west_req_arg(r, "z");
	char err[WEST_ERRLEN];

	if (f && strcasecmp(f, "CoverageJSON") && strcasecmp(f, "covjson")) {
		west_reply_problem(r, 400, "bad-parameter", "Bad Request",
				   "f: '%.40s' is not an output format here (CoverageJSON)", f);
		return 0;
	}
	if (!api_arg_zref(r, &a->zref))
		return 0;
	a->nz = 0;
	if ((z && west_edr_parse_z(z, a->z, WEST_EDR_MAX_Z, &a->nz, err, sizeof err)) ||
	    west_edr_parse_parameters(west_req_arg(r, "parameter-name"), &a->params, err,
				      sizeof err)) {
		west_reply_problem(r, 400, "bad-parameter", "Bad Request", "%s", err);
		return 0;
	}
	return 1;
}

/* The answer of a covjson builder: st, out and err to a reply. */
static void covjson_reply(struct west_req *r, enum west_status st, json_t *out,
			  const char *err)
{
	if (!st)
		west_reply_json(r, 200, out, COVJSON);
	else if (st == WEST_ERR_UNSUPPORTED)
		west_reply_problem(r, 413, "too-many-cells", "Content Too Large", "%s", err);
	else if (st == WEST_ERR_INVALID)
		west_reply_problem(r, 400, "bad-parameter", "Bad Request", "%s", err);
	else
		west_reply_problem(r, 503, "out-of-memory", "Service Unavailable", "%s", err);
}

/* The field to answer from (api_field), held, once crs (into *crs) and
 * datetime agree with it; NULL when the request was answered. */
static struct west_published *edr_field(struct west_req *r, enum west_edr_crs *crs)
{
	struct west_published *p = api_field(r);
	const char *dt = west_req_arg(r, "datetime");
	char err[WEST_ERRLEN], when[32];
	int covers = 1;

	if (!p)
		return NULL;
	if (west_edr_parse_crs(&p->grid->crs, west_req_arg(r, "crs"), crs, err, sizeof err) ||
	    (dt && west_edr_datetime_covers(dt, p->field.valid_time, &covers, err,
					    sizeof err))) {
		r->nhdr = 0;   /* the field's ETag is not this answer's */
		west_reply_problem(r, 400, "bad-parameter", "Bad Request", "%s", err);
	} else if (!covers) {
		r->nhdr = 0;
		west_obs_time_format(p->field.valid_time, when, sizeof when);
		west_reply_problem(r, 404, "no-data-at-time", "Not Found",
				   "datetime '%.60s' does not include the field's valid time %s "
				   "(the collection's temporal extent): there is no field for "
				   "that time", dt, when);
	} else {
		return p;
	}
	west_published_release(p);
	return NULL;
}

/* Into buf: a sentence for grid coordinates (x, y) outside g's domain
 * that read as longitude, latitude (either way round) would be inside it:
 * the client asked for the grid's CRS but gave degrees.  "" otherwise. */
static void degrees_hint(const struct west_grid *g, double x, double y, char *buf,
			 size_t size)
{
	double x1 = g->x0 + (double)g->nx * g->dx, y1 = g->y0 + (double)g->ny * g->dy;
	double px, py;

	buf[0] = '\0';
	if (!g->crs.has_tm || (x >= g->x0 && x <= x1 && y >= g->y0 && y <= y1))
		return;
	for (int swap = 0; swap < 2; swap++) {
		double lon = swap ? y : x, lat = swap ? x : y;
		if (!west_tm_forward(&g->crs, lon, lat, &px, &py, NULL, 0) &&
		    px >= g->x0 && px <= x1 && py >= g->y0 && py <= y1) {
			snprintf(buf, size, "; these look like degrees: with this crs the "
				 "coordinates are the grid's x, y in metres, and lon %.10g, "
				 "lat %.10g is x %.1f, y %.1f (or leave crs out to give "
				 "POINT(lon lat))", lon, lat, px, py);
			return;
		}
	}
}

/* Required parameter name, or a 400. */
static const char *required(struct west_req *r, const char *name)
{
	const char *s = west_req_arg(r, name);
	if (!s || !s[0])
		west_reply_problem(r, 400, "missing-parameter", "Bad Request",
				   "query parameter %s is required", name);
	return s && s[0] ? s : NULL;
}

void api_edr_position(struct west_req *r)
{
	struct edr_args *a = malloc(sizeof *a);
	struct west_published *p = NULL;
	enum west_edr_crs crs;
	const char *coords;
	char err[WEST_ERRLEN], hint[300];
	double x, y;
	json_t *out = NULL;
	enum west_status st;

	if (!a) {
		west_reply_problem(r, 503, "out-of-memory", "Service Unavailable", "out of memory");
		return;
	}
	if (!(coords = required(r, "coords")) || !common_args(r, a))
		goto out;
	if (west_edr_parse_point(coords, &x, &y, err, sizeof err)) {
		west_reply_problem(r, 400, "bad-parameter", "Bad Request", "%s", err);
		goto out;
	}
	if (!(p = edr_field(r, &crs)))
		goto out;
	if (crs == WEST_EDR_CRS84) {
		st = west_covjson_position_lonlat(p->grid, &p->field, x, y, a->z, a->nz,
						  a->zref, a->params, &out, err, sizeof err);
		hint[0] = '\0';
	} else {
		st = west_covjson_position(p->grid, &p->field, x, y, a->z, a->nz, a->zref,
					   a->params, &out, err, sizeof err);
		degrees_hint(p->grid, x, y, hint, sizeof hint);
	}
	if (st == WEST_ERR_INVALID && hint[0])
		west_reply_problem(r, 400, "bad-parameter", "Bad Request", "%s%s", err, hint);
	else
		covjson_reply(r, st, out, err);
out:
	west_published_release(p);
	free(a);
}

/* area (polygon) and cube (bbox) */
static void grid_query(struct west_req *r, int area)
{
	struct edr_args *a = malloc(sizeof *a);
	struct west_polygon poly = { 0 };
	struct west_published *p = NULL;
	enum west_edr_crs crs;
	const char *s;
	char err[WEST_ERRLEN];
	double bbox[4];
	json_t *out = NULL;
	enum west_status st;

	if (!a) {
		west_reply_problem(r, 503, "out-of-memory", "Service Unavailable", "out of memory");
		return;
	}
	if (!(s = required(r, area ? "coords" : "bbox")) || !common_args(r, a))
		goto out;
	st = area ? west_edr_parse_polygon(s, &poly, err, sizeof err)
		  : west_edr_parse_bbox(s, bbox, err, sizeof err);
	if (st) {
		west_reply_problem(r, 400, "bad-parameter", "Bad Request", "%s", err);
		goto out;
	}
	if (!(p = edr_field(r, &crs)))
		goto out;
	if (crs == WEST_EDR_CRS84)
		st = area ? west_edr_polygon_to_grid(p->grid, &poly, err, sizeof err)
			  : west_edr_bbox_to_grid(p->grid, bbox, &poly, err, sizeof err);
	if (!st)
		st = west_covjson_cube(p->grid, &p->field, area ? NULL : bbox,
				       area || crs == WEST_EDR_CRS84 ? &poly : NULL,
				       a->z, a->nz, a->zref, a->params,
				       (size_t)r->live.max_response_cells, &out, err, sizeof err);
	covjson_reply(r, st, out, err);
out:
	west_published_release(p);
	west_polygon_free(&poly);
	free(a);
}

void api_edr_area(struct west_req *r)
{
	grid_query(r, 1);
}

void api_edr_cube(struct west_req *r)
{
	grid_query(r, 0);
}
