/*
 * api_releases.c: the release routes (docs/api.md "Releases"; api.h):
 * POST /v1/releases queues a release plume on the current field, GET
 * /v1/releases lists them, GET /v1/releases/{id} is one's status, and its
 * outputs once it is done: concentration (CoverageJSON, or CF NetCDF with
 * format=netcdf), footprint (GeoJSON contours, WGS 84) and trajectory
 * (GeoJSON LineString of the centroid).  The store and the runner are
 * releases.c; the contours contour.c; the NetCDF plume_nc.c.
 *
 * A POSTed body is checked in three passes, each answering the first
 * fault it finds and naming the member: its form (JSON, an object, known
 * members, each of its type: 400 invalid-release), then that a field
 * exists (503 no-field), then the values against the field's grid and
 * the limits (422 release-out-of-range).  Nothing is queued on a refusal.
 *
 * GeoJSON is RFC 7946: longitude, latitude on WGS 84, which westd gives
 * where the grid's CRS is transverse Mercator (proj.h), as lon/lat
 * queries need.  crs= takes the grid's own CRS instead (x, y in metres,
 * the map page's coordinates), named in a "crs" member as GeoJSON 2008
 * did, by the rule of EDR's crs (edr.h): on a terrain without a
 * transverse Mercator CRS that is the default and the only one.
 */
#include "api.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "contour.h"
#include "edr.h"
#include "log.h"
#include "plume_nc.h"
#include "proj.h"

#define GEOJSON "application/geo+json"
#define MAX_LEVELS 16             /* footprint levels in one request */
#define DEFAULT_DECADES 4         /* default levels: max/10 .. max/10^4 */
#define SEED_MAX 9007199254740991.0   /* 2^53 - 1: exact in every JSON reader */

static const char *const MEMBERS[] = { "lon", "lat", "x", "y", "height", "duration",
				       "hours", "particles", "seed", "start", NULL };
static const char MEMBER_LIST[] =
	"lon, lat, x, y, height, duration, hours, particles, seed, start";

/* -------------------------------------------------------------- POST body */

static void bad_release(struct west_req *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void bad_release(struct west_req *r, const char *fmt, ...)
{
	char d[WEST_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d, sizeof d, fmt, ap);
	va_end(ap);
	west_reply_problem(r, 400, "invalid-release", "Bad Request", "%s", d);
}

static void out_of_range(struct west_req *r, const char *detail)
{
	west_reply_problem(r, 422, "release-out-of-range", "Unprocessable Content", "%s", detail);
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* 1 when a and b differ only in case, by one letter, or by two
 * neighbouring letters swapped (a misspelling). */
static int near_member(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b), diff = 0, at = 0;

	if (!strcasecmp(a, b))
		return 1;
	if (na != nb)
		return 0;
	for (size_t k = 0; k < na; k++)
		if (a[k] != b[k] && diff++ == 0)
			at = k;
	return diff == 1 || (diff == 2 && at + 1 < na && a[at] == b[at + 1] &&
			     a[at + 1] == b[at]);
}

/* 400 for the first member of o that a release does not take. */
static int members_known(struct west_req *r, json_t *o)
{
	const char *key;
	json_t *v;

	json_object_foreach(o, key, v) {
		size_t k;
		char hint[64] = "";
		for (k = 0; MEMBERS[k] && strcmp(MEMBERS[k], key); k++)
			;
		if (MEMBERS[k])
			continue;
		for (k = 0; MEMBERS[k]; k++)
			if (near_member(key, MEMBERS[k]))
				snprintf(hint, sizeof hint, " (did you mean %s?)", MEMBERS[k]);
		west_reply_problem(r, 400, "invalid-release", "Bad Request",
				   "unknown member '%.40s'%s: a release takes %s", key, hint,
				   MEMBER_LIST);
		return 0;
	}
	return 1;
}

/* Member name of o as a number into *v (absent: *v untouched); 0 and 400
 * when it is not one. */
static int member_number(struct west_req *r, json_t *o, const char *name, double *v)
{
	json_t *j = json_object_get(o, name);

	if (!j)
		return 1;
	if (!json_is_number(j)) {
		bad_release(r, "%s: expected a number, got %s", name, type_name(j));
		return 0;
	}
	*v = json_number_value(j);
	return 1;
}

/* The same for a whole number (an integer, or a number with no fraction). */
static int member_whole(struct west_req *r, json_t *o, const char *name, double *v)
{
	json_t *j = json_object_get(o, name);

	if (!j)
		return 1;
	if (!json_is_number(j) || json_number_value(j) != floor(json_number_value(j))) {
		bad_release(r, "%s: expected a whole number, got %s",
			    name, json_is_number(j) ? "a fraction" : type_name(j));
		return 0;
	}
	*v = json_number_value(j);
	return 1;
}

/* What the body gave, before the field is known. */
struct body {
	int has_lonlat;
	double a, b;                 /* lon, lat or x, y */
	double height, duration, hours, particles, seed;
	int has_seed;
	long long start;
	int has_start;
};

/* The point: lon and lat, or x and y, whole pairs, not both. */
static int body_point(struct west_req *r, json_t *o, struct body *b)
{
	int lon = json_object_get(o, "lon") != NULL, lat = json_object_get(o, "lat") != NULL;
	int x = json_object_get(o, "x") != NULL, y = json_object_get(o, "y") != NULL;

	if ((lon || lat) && (x || y)) {
		bad_release(r, "give lon and lat, or x and y, not both");
		return 0;
	}
	if (!lon && !lat && !x && !y) {
		bad_release(r, "the release point is missing: give lon and lat (degrees, WGS 84), "
			    "or x and y (m, the grid's CRS)");
		return 0;
	}
	if (lon != lat || x != y) {
		bad_release(r, "%s is missing (%s was given): the point takes both",
			    lon ? "lat" : lat ? "lon" : x ? "y" : "x",
			    lon ? "lon" : lat ? "lat" : x ? "x" : "y");
		return 0;
	}
	b->has_lonlat = lon;
	return member_number(r, o, lon ? "lon" : "x", &b->a) &&
	       member_number(r, o, lon ? "lat" : "y", &b->b);
}

static int body_start(struct west_req *r, json_t *o, struct body *b)
{
	json_t *j = json_object_get(o, "start");

	if (!j)
		return 1;
	if (!json_is_string(j)) {
		bad_release(r, "start: expected a string (RFC 3339, e.g. "
			    "2026-11-22T12:00:00Z), got %s", type_name(j));
		return 0;
	}
	if (!west_obs_time_parse(json_string_value(j), &b->start)) {
		bad_release(r, "start: '%.40s' is not an RFC 3339 time such as "
			    "2026-11-22T12:00:00Z", json_string_value(j));
		return 0;
	}
	b->has_start = 1;
	return 1;
}

/* The body's form: 1 with *b filled, else answered (400, 415). */
static int parse_body(struct west_req *r, struct body *b)
{
	const char *ct = west_req_header(r, "Content-Type");
	json_error_t e;
	json_t *o;
	int ok;

	if (!ct || strncasecmp(ct, "application/json", 16) || (ct[16] && ct[16] != ';' &&
							       ct[16] != ' ')) {
		west_reply_problem(r, 415, "unsupported-media-type", "Unsupported Media Type",
				   "Content-Type: '%.60s' is not application/json",
				   ct ? ct : "(none)");
		return 0;
	}
	o = json_loadb(r->body ? r->body : "", r->len, JSON_REJECT_DUPLICATES, &e);
	if (!o) {
		west_reply_problem(r, 400, "invalid-release", "Bad Request",
				   "the body is not JSON: %s (line %d, column %d)", e.text,
				   e.line, e.column);
		return 0;
	}
	/* the defaults; particles at most max_particles, so that a body
	 * without it is never refused for it */
	*b = (struct body){ .height = WEST_RELEASE_HEIGHT, .duration = WEST_RELEASE_DURATION,
			    .hours = WEST_RELEASE_SECONDS / 3600.0,
			    .particles = (double)(WEST_RELEASE_PARTICLES < r->live.max_particles ?
						  WEST_RELEASE_PARTICLES : r->live.max_particles) };
	ok = json_is_object(o);
	if (!ok)
		bad_release(r, "the body is %s: a release is a JSON object such as "
			    "{\"lon\": 15.06, \"lat\": 42.02}", type_name(o));
	ok = ok && members_known(r, o) && body_point(r, o, b) &&
	     member_number(r, o, "height", &b->height) &&
	     member_number(r, o, "duration", &b->duration) &&
	     member_number(r, o, "hours", &b->hours) &&
	     member_whole(r, o, "particles", &b->particles) &&
	     member_whole(r, o, "seed", &b->seed) && body_start(r, o, b);
	b->has_seed = json_object_get(o, "seed") != NULL;
	if (ok && !json_object_get(o, "duration") && b->duration > b->hours * 3600.0)
		b->duration = b->hours * 3600.0;   /* the default fits a short run */
	json_decref(o);
	return ok;
}

/* ------------------------------------------------------------ the values */

/* A seed for a release that gave none: 53 random bits. */
static unsigned long long random_seed(void)
{
	unsigned long long s = 0;

	if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s) {
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		s = (unsigned long long)t.tv_nsec * 6364136223846793005ULL ^
		    (unsigned long long)t.tv_sec;
	}
	return s & ((1ULL << 53) - 1);
}

/* The point in the grid's CRS, and in degrees where the CRS has them;
 * 0 when answered (400 no-crs, 422). */
static int place(struct west_req *r, const struct west_grid *g, const struct body *b,
		 struct west_release_ask *a)
{
	char err[WEST_ERRLEN], why[WEST_ERRLEN];

	a->lonlat = b->has_lonlat;
	a->lon = a->lat = NAN;
	if (!b->has_lonlat) {
		a->r.x = b->a, a->r.y = b->b;
		if (g->crs.has_tm &&
		    west_tm_inverse(&g->crs, a->r.x, a->r.y, &a->lon, &a->lat, err, sizeof err))
			a->lon = a->lat = NAN;
		return 1;
	}
	if (api_no_lonlat(r, g))
		return 0;
	a->lon = b->a, a->lat = b->b;
	if (west_tm_forward(&g->crs, b->a, b->b, &a->r.x, &a->r.y, err, sizeof err)) {
		west_edr_swap_hint(g, b->a, b->b, 0, why, sizeof why);
		snprintf(err + strlen(err), sizeof err - strlen(err), "%s", why);
		west_reply_problem(r, 422, "release-out-of-range", "Unprocessable Content",
				   "lon/lat: %s", err);
		return 0;
	}
	if (a->r.x < g->x0 || a->r.x > g->x0 + (double)g->nx * g->dx ||
	    a->r.y < g->y0 || a->r.y > g->y0 + (double)g->ny * g->dy) {
		west_edr_lonlat_outside(g, b->a, b->b, 0, why, sizeof why);
		out_of_range(r, why);
		return 0;
	}
	return 1;
}

/* The limits; 0 when answered (422 naming the member). */
static int check_limits(struct west_req *r, const struct body *b)
{
	char d[WEST_ERRLEN];

	if (!(b->hours > 0) || b->hours > r->live.max_release_hours)
		snprintf(d, sizeof d, "hours: %g is not in (0, %g] (max_release_hours)", b->hours,
			 r->live.max_release_hours);
	else if (!(b->duration > 0) || b->duration > b->hours * 3600.0)
		snprintf(d, sizeof d, "duration: %g s is not in (0, %g] s: a release lasts at "
			 "most the simulated time (hours %g)", b->duration, b->hours * 3600.0,
			 b->hours);
	else if (b->particles < 1 || b->particles > (double)r->live.max_particles)
		snprintf(d, sizeof d, "particles: %.0f is not in [1, %ld] (max_particles)",
			 b->particles, r->live.max_particles);
	else if (b->has_seed && (b->seed < 0 || b->seed > SEED_MAX))
		snprintf(d, sizeof d, "seed: %.0f is not in [0, 2^53 - 1 = %.0f]", b->seed,
			 SEED_MAX);
	else if (!(b->height >= 0))
		snprintf(d, sizeof d, "height: %g m is below the ground: give a height >= 0 m "
			 "above it", b->height);
	else
		return 1;
	out_of_range(r, d);
	return 0;
}

/* The release of body b on field p into *a; 0 when answered. */
static int make_ask(struct west_req *r, const struct west_published *p, const struct body *b,
		    struct west_release_ask *a)
{
	struct west_point pt;
	char err[WEST_ERRLEN], d[WEST_ERRLEN + 32];

	memset(a, 0, sizeof *a);
	if (!check_limits(r, b) || !place(r, p->grid, b, a))
		return 0;
	if (west_query_point(p->grid, &p->field, a->r.x, a->r.y, b->height, WEST_ZREF_AGL, &pt,
			     err, sizeof err)) {
		snprintf(d, sizeof d, "%s: %s", b->has_lonlat ? "height, lon/lat" : "height, x/y",
			 err);
		out_of_range(r, d);
		return 0;
	}
	a->r.height = b->height;
	a->r.duration = b->duration;
	a->r.seconds = b->hours * 3600.0;
	a->r.particles = (long)b->particles;
	a->r.seed = b->has_seed ? (uint64_t)b->seed : random_seed();
	a->r.start = b->has_start ? b->start : p->field.valid_time;
	a->r.layer = WEST_RELEASE_LAYER;
	return 1;
}

void api_post_release(struct west_req *r)
{
	struct west_release_ask a;
	struct west_published *p;
	struct body b;
	unsigned long long id, version;
	char err[WEST_ERRLEN], base[320], href[400];
	enum west_status st;

	if (!parse_body(r, &b))
		return;
	if (!(p = west_store_acquire(&r->d->store))) {
		west_reply_problem(r, 503, "no-field", "Service Unavailable",
				   "no field yet: POST /v1/observations first");
		return;
	}
	if (!make_ask(r, p, &b, &a)) {
		west_published_release(p);
		return;
	}
	version = p->version;   /* p goes to the store */
	st = west_releases_submit(&r->d->releases, &a, p, &id, err, sizeof err);
	if (st == WEST_ERR_UNSUPPORTED) {
		west_req_add_header(r, "Retry-After", "10");
		west_reply_problem(r, 503, "queue-full", "Service Unavailable", "%s", err);
		return;
	} else if (st) {
		west_reply_problem(r, 503, "out-of-memory", "Service Unavailable", "%s", err);
		return;
	}
	west_req_base(r, base, sizeof base);
	snprintf(href, sizeof href, "%s/v1/releases/%llu", base, id);
	west_req_add_header(r, "Location", href);
	west_reply_json(r, 202, json_pack("{s:I, s:s, s:s, s:I, s:I}", "id", (json_int_t)id,
					   "href", href, "status", "queued",
					   "field_version", (json_int_t)version,
					   "seed", (json_int_t)a.r.seed), NULL);
}

/* ----------------------------------------------------------------- status */

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *time_or_null(double t)
{
	char buf[32];

	if (!isfinite(t))
		return json_null();
	west_obs_time_format((long long)floor(t), buf, sizeof buf);
	return json_string(buf);
}

/* The parameters as asked (defaults filled in, the seed drawn). */
static json_t *ask_json(const struct west_release_ask *a)
{
	return json_pack("{s:f, s:f, s:o, s:o, s:f, s:f, s:f, s:I, s:I, s:o}",
			 "x", a->r.x, "y", a->r.y, "lon", num_or_null(a->lon),
			 "lat", num_or_null(a->lat), "height", a->r.height,
			 "duration", a->r.duration, "hours", a->r.seconds / 3600.0,
			 "particles", (json_int_t)a->r.particles, "seed", (json_int_t)a->r.seed,
			 "start", time_or_null((double)a->r.start));
}

static json_t *link_json(const char *base, unsigned long long id, const char *tail,
			 const char *rel, const char *type)
{
	char href[480];

	snprintf(href, sizeof href, "%s/v1/releases/%llu%s", base, id, tail);
	return json_pack("{s:s, s:s, s:s}", "href", href, "rel", rel, "type", type);
}

static json_t *links_json(const char *base, const struct west_release_info *i)
{
	json_t *l = json_array();

	json_array_append_new(l, link_json(base, i->id, "", "self", "application/json"));
	if (i->state != WEST_RELEASE_DONE)
		return l;
	json_array_append_new(l, link_json(base, i->id, "/concentration", "concentration",
					   "application/vnd.cov+json"));
	json_array_append_new(l, link_json(base, i->id, "/concentration?format=netcdf",
					   "concentration", "application/x-netcdf"));
	json_array_append_new(l, link_json(base, i->id, "/footprint", "footprint", GEOJSON));
	json_array_append_new(l, link_json(base, i->id, "/trajectory", "trajectory", GEOJSON));
	return l;
}

/* A release's status document (docs/api.md lists the members). */
static json_t *status_json(const char *base, const struct west_release_info *i)
{
	int done = i->state == WEST_RELEASE_DONE, ended = done || i->state == WEST_RELEASE_FAILED;
	json_t *o = json_pack("{s:I, s:s, s:I, s:o, s:I, s:o, s:o, s:f, s:f, s:o, s:o, s:o, "
			      "s:o, s:o, s:o, s:o}",
			      "id", (json_int_t)i->id, "status", west_release_state_name(i->state),
			      "field_version", (json_int_t)i->field_version,
			      "valid_time", time_or_null((double)i->valid_time),
			      "particles", (json_int_t)(done ? i->particles : i->ask.r.particles),
			      "outside", done ? json_integer(i->outside) : json_null(),
			      "release", ask_json(&i->ask), "layer", (double)WEST_RELEASE_LAYER,
			      "progress", i->ask.r.seconds > 0 ?
			      fmin(1.0, i->done_seconds / i->ask.r.seconds) : 0.0,
			      "created", time_or_null(i->created),
			      "started", time_or_null(i->started),
			      "finished", time_or_null(i->finished),
			      "run_seconds", ended ? num_or_null(i->finished - i->started) :
			      json_null(),
			      "max_concentration", done ? json_real(i->max_conc) : json_null(),
			      "mixing_height", done ? json_real(i->mixing_height) : json_null(),
			      "error", i->state == WEST_RELEASE_FAILED ? json_string(i->error) :
			      json_null());

	if (o)
		json_object_set_new(o, "links", links_json(base, i));
	return o;
}

void api_get_releases(struct west_req *r)
{
	struct west_release_info *list;
	size_t n;
	char err[WEST_ERRLEN], base[320];
	json_t *a;

	if (west_releases_list(&r->d->releases, &list, &n, err, sizeof err)) {
		west_reply_problem(r, 503, "out-of-memory", "Service Unavailable", "%s", err);
		return;
	}
	west_req_base(r, base, sizeof base);
	a = json_array();
	for (size_t k = 0; k < n; k++)
		json_array_append_new(a, status_json(base, &list[k]));
	free(list);
	west_reply_json(r, 200, json_pack("{s:o, s:I, s:f}", "releases", a,
					   "max_particles", (json_int_t)r->live.max_particles,
					   "max_release_hours", r->live.max_release_hours), NULL);
}

/* The release named by the path, held, with its info; NULL when answered
 * (404). */
static struct west_release_entry *path_release(struct west_req *r,
					       struct west_release_info *info)
{
	const char *s = r->path_arg ? r->path_arg : "";
	struct west_release_entry *e = NULL;
	unsigned long long id = 0;
	size_t n = strspn(s, "0123456789");

	if (n && n <= 18 && !s[n] && s[0] != '0') {
		id = strtoull(s, NULL, 10);
		e = west_releases_hold(&r->d->releases, id, info);
	}
	if (!e)
		west_reply_problem(r, 404, "no-such-release", "Not Found",
				   "no release '%.40s' is kept (GET /v1/releases lists them; "
				   "finished ones are kept by releases_keep and releases_max_age)",
				   s);
	return e;
}

void api_get_release(struct west_req *r)
{
	struct west_release_info info;
	struct west_release_entry *e = path_release(r, &info);
	char base[320];

	if (!e)
		return;
	west_releases_put(e);
	west_req_base(r, base, sizeof base);
	west_reply_json(r, 200, status_json(base, &info), NULL);
}

/* The release of the path when it is done; NULL when answered (404, 409). */
static struct west_release_entry *done_release(struct west_req *r,
					       struct west_release_info *info)
{
	struct west_release_entry *e = path_release(r, info);

	if (!e || info->state == WEST_RELEASE_DONE)
		return e;
	if (info->state == WEST_RELEASE_FAILED)
		west_reply_problem(r, 409, "release-not-done", "Conflict",
				   "release %llu failed, so it has no outputs: %s", info->id,
				   info->error);
	else
		west_reply_problem(r, 409, "release-not-done", "Conflict",
				   "release %llu is %s (%.0f %% done): GET /v1/releases/%llu "
				   "until its status is done", info->id,
				   west_release_state_name(info->state),
				   100.0 * info->done_seconds / info->ask.r.seconds, info->id);
	west_releases_put(e);
	return NULL;
}

/* ---------------------------------------------------------- concentration */

static void conc_netcdf(struct west_req *r, const struct west_release_entry *e)
{
	struct west_plume_nc_meta m = { e->id, e->field_version, &e->ask.r, e->ask.lon,
					e->ask.lat };
	char err[WEST_ERRLEN], disp[96];
	void *buf;
	size_t len;

	if (west_plume_nc_image(&e->grid->g, &e->res, &m, &buf, &len, err, sizeof err)) {
		west_log(WEST_LOG_ERR, "release %llu: %s", e->id, err);
		west_reply_problem(r, 503, "netcdf-failed", "Service Unavailable", "%s", err);
		return;
	}
	snprintf(disp, sizeof disp, "attachment; filename=\"release-%llu.nc\"", e->id);
	west_req_add_header(r, "Content-Disposition", disp);
	west_reply_text(r, 200, "application/x-netcdf", buf, len);
}

static void conc_covjson(struct west_req *r, const struct west_release_entry *e)
{
	const struct west_plume_result *res = &e->res;
	char err[WEST_ERRLEN], desc[200];
	struct west_covjson_layer p[2] = {
		{ "concentration", desc, "s/m3", "second per cubic metre",
		  "Time-integrated concentration per unit mass released", res->conc },
		{ "arrival", "Time after the release's start of the first particle in the "
		  "layer over the column; null where none came", "s", "second",
		  "Plume arrival time", res->arrival },
	};
	size_t cells = 2 * res->nx * res->ny;
	json_t *cov;

	snprintf(desc, sizeof desc, "Time-integrated concentration from the ground to %g m "
		 "above it, per unit mass released (s/m^3)", res->layer);
	if (cells > (size_t)r->live.max_response_cells) {
		west_reply_problem(r, 413, "too-many-cells", "Content Too Large",
				   "the concentration holds %zu values (2 per column), more than "
				   "max_response_cells = %lld: use format=netcdf", cells,
				   r->live.max_response_cells);
		return;
	}
	if (west_covjson_columns(&e->grid->g, p, 2, 0.0, res->layer, e->ask.r.start,
				 e->ask.r.start + (long long)ceil(e->ask.r.seconds), &cov, err,
				 sizeof err)) {
		west_reply_problem(r, 503, "out-of-memory", "Service Unavailable", "%s", err);
		return;
	}
	west_reply_json(r, 200, cov, "application/vnd.cov+json");
}

void api_get_release_concentration(struct west_req *r)
{
	const char *f = west_req_arg(r, "format");
	struct west_release_info info;
	struct west_release_entry *e;

	if (f && strcmp(f, "covjson") && strcmp(f, "netcdf")) {
		west_reply_problem(r, 400, "bad-parameter", "Bad Request",
				   "query parameter format: '%.40s' is not covjson or netcdf", f);
		return;
	}
	if (!(e = done_release(r, &info)))
		return;
	if (f && !strcmp(f, "netcdf"))
		conc_netcdf(r, e);
	else
		conc_covjson(r, e);
	west_releases_put(e);
}

/* ------------------------------------------------------------- footprint */

/* crs= of a GeoJSON answer (edr.h's rule: CRS84, the default where the
 * grid's CRS is transverse Mercator, or the grid's own); *native 1 for
 * the grid's.  0 when answered (400). */
static int geojson_crs(struct west_req *r, const struct west_release_entry *e, int *native)
{
	enum west_edr_crs which;
	char err[WEST_ERRLEN];

	if (west_edr_parse_crs(&e->grid->g.crs, west_req_arg(r, "crs"), &which, err,
			       sizeof err)) {
		west_reply_problem(r, 400, "bad-parameter", "Bad Request", "%s", err);
		return 0;
	}
	*native = which == WEST_EDR_NATIVE;
	return 1;
}

/* In the grid's CRS, the GeoJSON object o says so (a "crs" member as
 * GeoJSON 2008 wrote it; RFC 7946 has none: its coordinates are WGS 84). */
static void name_crs(json_t *o, const struct west_release_entry *e, int native)
{
	char id[160];

	if (!o || !native)
		return;
	west_edr_crs_id(&e->grid->g.crs, id, sizeof id);
	json_object_set_new(o, "crs", json_pack("{s:s, s:{s:s}}", "type", "name",
						 "properties", "name", id));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* levels= into lv (at most MAX_LEVELS), increasing, without repeats; or
 * the default decades under max; 0 when answered (400). */
static int footprint_levels(struct west_req *r, double max, double *lv, size_t *n)
{
	const char *s = west_req_arg(r, "levels"), *p = s;

	*n = 0;
	if (!s) {
		for (int k = DEFAULT_DECADES; max > 0 && k >= 1; k--)
			lv[(*n)++] = max * pow(10.0, -k);
		return 1;
	}
	for (;;) {
		char *end;
		double v;
		errno = 0;
		v = strtod(p, &end);
		if (end == p || (*end && *end != ',') || errno || !isfinite(v) || !(v > 0)) {
			west_reply_problem(r, 400, "bad-parameter", "Bad Request",
					   "query parameter levels: '%.*s' is not a number > 0 "
					   "(levels are s/m^3, comma-separated: 1e-6,1e-5)",
					   (int)strcspn(p, ","), p);
			return 0;
		}
		if (*n == MAX_LEVELS) {
			west_reply_problem(r, 400, "bad-parameter", "Bad Request",
					   "query parameter levels: more than %d levels", MAX_LEVELS);
			return 0;
		}
		lv[(*n)++] = v;
		if (!*end)
			break;
		p = end + 1;
	}
	qsort(lv, *n, sizeof *lv, cmp_double);
	size_t m = 0;
	for (size_t k = 0; k < *n; k++)
		if (!m || lv[k] != lv[m - 1])
			lv[m++] = lv[k];
	*n = m;
	return 1;
}

static json_t *position(double lon, double lat)
{
	return json_pack("[f, f]", lon, lat);
}

/* A contour (in degrees) as GeoJSON MultiPolygon coordinates. */
static json_t *multipolygon(const struct west_contour *c)
{
	json_t *mp = json_array();

	for (size_t p = 0; p < c->npolys; p++) {
		json_t *poly = json_array();
		for (size_t k = 0; k < c->polys[p].nrings; k++) {
			const struct west_ring *g = &c->polys[p].rings[k];
			json_t *ring = json_array();
			for (size_t v = 0; v < g->n; v++)
				json_array_append_new(ring, position(g->xy[2 * v], g->xy[2 * v + 1]));
			json_array_append_new(poly, ring);
		}
		json_array_append_new(mp, poly);
	}
	return mp;
}

/* The Feature of one level; NULL with err on failure. */
static json_t *level_feature(const struct west_release_entry *e, double level, int native,
			     enum west_status *st, char *err, size_t errlen)
{
	const struct west_plume_result *res = &e->res;
	struct west_field2d f = { res->nx, res->ny, e->grid->g.x0, e->grid->g.y0,
				  e->grid->g.dx, e->grid->g.dy, res->conc };
	struct west_contour c;
	double area;
	json_t *feat;

	if ((*st = west_contour_build(&f, level, &c, err, errlen)))
		return NULL;
	area = west_contour_area(&c);
	if (!native && (*st = west_contour_to_lonlat(&c, &e->grid->g.crs, err, errlen))) {
		west_contour_free(&c);
		return NULL;
	}
	feat = json_pack("{s:s, s:{s:f, s:s, s:f}, s:{s:s, s:o}}", "type", "Feature",
			 "properties", "level", level, "unit", "s/m^3", "area_m2", area,
			 "geometry", "type", "MultiPolygon", "coordinates", multipolygon(&c));
	west_contour_free(&c);
	if (!feat)
		*st = west_fail(err, errlen, WEST_ERR_NOMEM, "out of memory for the footprint");
	return feat;
}

void api_get_release_footprint(struct west_req *r)
{
	struct west_release_info info;
	struct west_release_entry *e;
	double lv[MAX_LEVELS];
	size_t n;
	char err[WEST_ERRLEN];
	enum west_status st = WEST_OK;
	json_t *features, *fc;
	int native;

	if (!(e = done_release(r, &info)))
		return;
	if (!geojson_crs(r, e, &native) || !footprint_levels(r, e->max_conc, lv, &n)) {
		west_releases_put(e);
		return;
	}
	features = json_array();
	for (size_t k = 0; !st && k < n; k++)
		json_array_append_new(features, level_feature(e, lv[k], native, &st, err,
							       sizeof err));
	fc = json_pack("{s:s, s:I, s:f, s:s, s:o}", "type", "FeatureCollection",
		       "release", (json_int_t)e->id, "max_concentration", e->max_conc,
		       "unit", "s/m^3", "features", features);
	name_crs(fc, e, native);
	west_releases_put(e);
	if (st || !fc) {
		json_decref(fc);
		west_reply_problem(r, st == WEST_ERR_INVALID ? 400 : 503,
				   st == WEST_ERR_INVALID ? "bad-parameter" : "out-of-memory",
				   st == WEST_ERR_INVALID ? "Bad Request" : "Service Unavailable",
				   "%s", st ? err : "out of memory for the footprint");
		return;
	}
	west_reply_json(r, 200, fc, GEOJSON);
}

/* ------------------------------------------------------------ trajectory */

static json_t *trajectory_json(const struct west_release_entry *e, int native, char *err,
			       size_t errlen)
{
	const struct west_plume_result *res = &e->res;
	json_t *line = json_array(), *times = json_array(), *secs = json_array();
	json_t *heights = json_array(), *counts = json_array();
	size_t n = 0;

	for (size_t k = 0; k < res->npath; k++) {
		const struct west_plume_point *q = &res->path[k];
		double lon = q->x, lat = q->y;   /* x, y in the grid's CRS */
		if (q->n <= 0 || !isfinite(q->x) || !isfinite(q->y) ||
		    (!native && west_tm_inverse(&e->grid->g.crs, q->x, q->y, &lon, &lat, err,
						errlen)))
			continue;
		json_array_append_new(line, position(lon, lat));
		json_array_append_new(times, time_or_null((double)e->ask.r.start + round(q->t)));
		json_array_append_new(secs, json_real(q->t));
		json_array_append_new(heights, num_or_null(q->z_agl));
		json_array_append_new(counts, json_integer(q->n));
		n++;
	}
	return json_pack("{s:s, s:{s:I, s:o, s:o, s:o, s:o}, s:o}", "type", "Feature",
			 "properties", "release", (json_int_t)e->id, "times", times,
			 "seconds", secs, "heights_agl", heights, "particles_in_domain", counts,
			 "geometry", n >= 2 ? json_pack("{s:s, s:o}", "type", "LineString",
							"coordinates", line) :
			 (json_decref(line), json_null()));
}

void api_get_release_trajectory(struct west_req *r)
{
	struct west_release_info info;
	struct west_release_entry *e;
	char err[WEST_ERRLEN];
	json_t *f;
	int native;

	if (!(e = done_release(r, &info)))
		return;
	if (!geojson_crs(r, e, &native)) {
		west_releases_put(e);
		return;
	}
	f = trajectory_json(e, native, err, sizeof err);
	name_crs(f, e, native);
	west_releases_put(e);
	if (!f)
		west_reply_problem(r, 503, "out-of-memory", "Service Unavailable",
				   "out of memory for the trajectory");
	else
		west_reply_json(r, 200, f, GEOJSON);
}
