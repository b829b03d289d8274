/*
 * obs_json.c: the JSON observation reader, and its writer west_obs_to_json
 * (obs.h; the schema is in docs/api.md, "Observations").
 *
 *   {"observations": [ {"id": "T1", "x": 504850, "y": 4652050,
 *                       "height": 10, "speed": 4.5, "direction": 250,
 *                       "time": "2026-11-22T12:00:00Z", "stability": "D"}, ...]}
 *
 * The document is parsed whole by jansson (duplicate keys refused), then
 * checked record by record in order; the first problem ends the parse.
 * Records count from 1 in messages: "station N (id "X"): FIELD: problem",
 * or "station N: ..." before the id is known.  Unknown fields are refused
 * at the top level and in records, so a misspelt optional field is never
 * silently dropped.
 *
 * Per record: id (string), a position (x and y in the grid CRS, metres,
 * or lon and lat in degrees WGS 84 through the grid's transverse
 * Mercator), height (m above ground), speed (m/s), direction (degrees
 * from), time (ISO 8601 UTC), and optionally stability (class "A".."F",
 * any case) or inv_L (1/L, 1/m; class by west_stability_golder with z0,
 * default 0.1 m); neither gives class D.
 *
 * Ids are unique in a JSON set; the set then goes through west_obs_pick
 * like a CSV one (obs.c), so west run --time leaves out stations whose
 * time is not within the window, and set->times is filled.  This file
 * also writes set->times as JSON (west_obs_times_json).
 */
#include "obs_internal.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "proj.h"

#define Z0_DEFAULT 0.1 /* m, roughness for the inv_L rule when z0 is absent */

static const char *const known_fields[] = {
	"id", "x", "y", "lon", "lat", "height", "speed", "direction", "time",
	"stability", "inv_L", "z0",
};

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

/* Optional number: 0 absent, 1 present (*out), -1 not a number (err set). */
static int get_number(json_t *v, const char *key, const char *rec, double *out,
		      char *err, size_t errlen)
{
	json_t *f = json_object_get(v, key);

	if (!f)
		return 0;
	if (!json_is_number(f)) {
		west_fail(err, errlen, WEST_ERR_INVALID, "%s: %s: expected a number, got %s",
			  rec, key, type_name(f));
		return -1;
	}
	*out = json_number_value(f);
	return 1;
}

/* Required number, checked by `check` (NULL: any number). */
static enum west_status need_number(json_t *v, const char *key, const char *rec,
				    const char *(*check)(double), double *out,
				    char *err, size_t errlen)
{
	int got = get_number(v, key, rec, out, err, errlen);
	const char *problem;

	if (got < 0)
		return WEST_ERR_INVALID;
	if (got == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: %s: missing", rec, key);
	if (check && (problem = check(*out)))
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: %s: %g %s",
				 rec, key, *out, problem);
	return WEST_OK;
}

/* The id, and the record label built from it. */
static enum west_status json_id(json_t *v, struct west_obs *ob, char *rec,
				size_t recsize, char *err, size_t errlen)
{
	json_t *f = json_object_get(v, "id");
	const char *problem;
	char buf[48];

	if (!f)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: id: missing", rec);
	if (!json_is_string(f))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: id: expected a string, got %s", rec, type_name(f));
	problem = west_obs_check_id(json_string_value(f), json_string_length(f));
	if (problem)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: id: \"%s\" %s", rec,
				 west_obs_show(json_string_value(f), buf, sizeof buf), problem);
	memcpy(ob->id, json_string_value(f), json_string_length(f) + 1);
	snprintf(rec + strlen(rec), recsize - strlen(rec), " (id \"%s\")", ob->id);
	return WEST_OK;
}

static enum west_status check_fields(json_t *v, const char *rec, char *err, size_t errlen)
{
	const char *key;
	json_t *val;
	char buf[48];

	json_object_foreach(v, key, val) {
		size_t k = 0;
		while (k < sizeof known_fields / sizeof *known_fields &&
		       strcmp(key, known_fields[k]) != 0)
			k++;
		if (k == sizeof known_fields / sizeof *known_fields)
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "%s: \"%s\": unknown field", rec, west_obs_show(key, buf, sizeof buf));
	}
	return WEST_OK;
}

/* One of a pair (a, b) given without the other. */
static enum west_status half_pair(int ga, const char *a, const char *b,
				  const char *rec, char *err, size_t errlen)
{
	return west_fail(err, errlen, WEST_ERR_INVALID, "%s: %s: missing (%s is given)",
			 rec, ga ? b : a, ga ? a : b);
}

static enum west_status json_lonlat(json_t *v, const struct west_obs_opts *o,
				    struct west_obs *ob, const char *rec,
				    char *err, size_t errlen)
{
	double lon = 0.0, lat = 0.0;
	int glon = get_number(v, "lon", rec, &lon, err, errlen);
	int glat = get_number(v, "lat", rec, &lat, err, errlen);

	if (glon < 0 || glat < 0)
		return WEST_ERR_INVALID;
	if (!glon || !glat)
		return half_pair(glon, "lon", "lat", rec, err, errlen);
	if (!o->grid->crs.has_tm)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: lon/lat given but %s; give x and y", rec,
				 west_crs_no_lonlat(&o->grid->crs));
	return west_obs_project(o, lon, lat, ob, rec, "lon/lat", err, errlen);
}

static enum west_status json_position(json_t *v, const struct west_obs_opts *o,
				      struct west_obs *ob, const char *rec,
				      char *err, size_t errlen)
{
	int gx = json_object_get(v, "x") != NULL, gy = json_object_get(v, "y") != NULL;
	int gll = json_object_get(v, "lon") || json_object_get(v, "lat");

	if ((gx || gy) && gll)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: x/y and lon/lat: both given; give one pair", rec);
	if (gll)
		return json_lonlat(v, o, ob, rec, err, errlen);
	if (!gx && !gy)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: position: missing; give x and y, or lon and lat", rec);
	if (!gx || !gy)
		return half_pair(gx, "x", "y", rec, err, errlen);
	if (need_number(v, "x", rec, NULL, &ob->x, err, errlen) != WEST_OK ||
	    need_number(v, "y", rec, NULL, &ob->y, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	return west_obs_place(o, ob, rec, "x/y", err, errlen);
}

static enum west_status json_time(json_t *v, struct west_obs *ob, const char *rec,
				  char *err, size_t errlen)
{
	json_t *f = json_object_get(v, "time");
	char buf[48];

	if (!f)
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: time: missing", rec);
	if (!json_is_string(f))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: time: expected a string, got %s", rec, type_name(f));
	if (strlen(json_string_value(f)) != json_string_length(f) ||
	    !west_obs_time_parse(json_string_value(f), &ob->time))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: time: \"%s\" is not an ISO 8601 UTC time "
				 "(YYYY-MM-DDThh:mm:ssZ)", rec,
				 west_obs_show(json_string_value(f), buf, sizeof buf));
	return WEST_OK;
}

static enum west_status json_class(json_t *f, struct west_obs *ob, const char *rec,
				   char *err, size_t errlen)
{
	const char *s;
	char buf[48];

	if (!json_is_string(f))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: stability: expected a string, got %s", rec, type_name(f));
	s = json_string_value(f);
	if (json_string_length(f) != 1 || toupper((unsigned char)s[0]) < 'A' ||
	    toupper((unsigned char)s[0]) > 'F')
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: stability: unknown class \"%s\" (expected A to F)",
				 rec, west_obs_show(s, buf, sizeof buf));
	ob->stability = toupper((unsigned char)s[0]) - 'A';
	return WEST_OK;
}

static enum west_status json_stability(json_t *v, struct west_obs *ob, const char *rec,
				       char *err, size_t errlen)
{
	json_t *cls = json_object_get(v, "stability");
	double z0 = NAN, il = NAN;
	int gz = get_number(v, "z0", rec, &z0, err, errlen);
	int gi = get_number(v, "inv_L", rec, &il, err, errlen);

	if (gz < 0 || gi < 0)
		return WEST_ERR_INVALID;
	if (gz && west_obs_check_z0(z0))
		return west_fail(err, errlen, WEST_ERR_INVALID, "%s: z0: %g %s",
				 rec, z0, west_obs_check_z0(z0));
	ob->z0 = z0;
	if (cls && gi)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: stability and inv_L: both given; give one", rec);
	if (cls)
		return json_class(cls, ob, rec, err, errlen);
	ob->stability = WEST_STAB_D;
	if (gi) {
		ob->inv_L = il;
		ob->stability = west_stability_golder(il, gz ? z0 : Z0_DEFAULT);
	}
	return WEST_OK;
}

/* Record `pos` (from 1). */
static enum west_status json_obs(json_t *v, size_t pos, const struct west_obs_opts *o,
				 struct west_obs *ob, char *err, size_t errlen)
{
	char rec[128];

	snprintf(rec, sizeof rec, "station %zu", pos);
	if (!json_is_object(v))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: expected an object, got %s", rec, type_name(v));
	if (json_id(v, ob, rec, sizeof rec, err, errlen) != WEST_OK ||
	    check_fields(v, rec, err, errlen) != WEST_OK ||
	    json_position(v, o, ob, rec, err, errlen) != WEST_OK ||
	    need_number(v, "height", rec, west_obs_check_height, &ob->height,
			err, errlen) != WEST_OK ||
	    need_number(v, "speed", rec, west_obs_check_speed, &ob->speed,
			err, errlen) != WEST_OK ||
	    need_number(v, "direction", rec, west_obs_check_direction, &ob->direction,
			err, errlen) != WEST_OK ||
	    json_time(v, ob, rec, err, errlen) != WEST_OK)
		return WEST_ERR_INVALID;
	return json_stability(v, ob, rec, err, errlen);
}

/* The "observations" array of the top-level object. */
static json_t *json_array_of(json_t *root, char *err, size_t errlen)
{
	const char *key;
	json_t *val, *arr;
	char buf[48];

	if (!json_is_object(root)) {
		west_fail(err, errlen, WEST_ERR_INVALID, "top level: expected an object "
			  "with \"observations\", got %s", type_name(root));
		return NULL;
	}
	json_object_foreach(root, key, val) {
		if (strcmp(key, "observations") != 0) {
			west_fail(err, errlen, WEST_ERR_INVALID, "\"%s\": unknown top-level "
				  "field (expected only \"observations\")", west_obs_show(key, buf, sizeof buf));
			return NULL;
		}
	}
	arr = json_object_get(root, "observations");
	if (!arr)
		west_fail(err, errlen, WEST_ERR_INVALID, "observations: missing");
	else if (!json_is_array(arr))
		west_fail(err, errlen, WEST_ERR_INVALID, "observations: expected an array, "
			  "got %s", type_name(arr));
	return json_is_array(arr) ? arr : NULL;
}

/* One record per station by o's rule (ids are unique: the newest rule
 * keeps them all, the nearest one may leave some out). */
static enum west_status json_pick(struct west_obs_set *set, const struct west_obs_opts *o,
				  char *err, size_t errlen)
{
	struct west_obs_rows rows;
	struct west_obs_set picked;
	enum west_status s;

	west_obs_rows_init(&rows, o);
	rows.r = set->obs, rows.n = rows.cap = set->n;
	s = west_obs_pick(&rows, o, &picked, err, errlen);
	if (s == WEST_OK) {
		west_obs_set_free(set);
		*set = picked;
	}
	return s;
}

static enum west_status json_set(json_t *root, const struct west_obs_opts *o,
				 struct west_obs_set *set, char *err, size_t errlen)
{
	json_t *arr = json_array_of(root, err, errlen);
	enum west_status s;
	size_t a, b;
	int dup;

	if (!arr)
		return WEST_ERR_INVALID;
	s = west_obs_check_count(json_array_size(arr), o, err, errlen);
	if (s == WEST_OK)
		s = west_obs_set_alloc(set, json_array_size(arr), err, errlen);
	if (s != WEST_OK)
		return s;
	for (size_t i = 0; i < set->n; i++)
		if (json_obs(json_array_get(arr, i), i + 1, o, &set->obs[i],
			     err, errlen) != WEST_OK)
			return WEST_ERR_INVALID;
	dup = west_obs_find_duplicate(set, &a, &b);
	if (dup < 0)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "cannot allocate");
	if (dup)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "station %zu (id \"%s\"): id: duplicate of station %zu",
				 b + 1, set->obs[b].id, a + 1);
	return json_pick(set, o, err, errlen);
}

enum west_status west_obs_parse_json(const char *text, size_t len,
				     const struct west_obs_opts *o,
				     struct west_obs_set *set,
				     char *err, size_t errlen)
{
	json_error_t je;
	json_t *root;
	enum west_status s;

	memset(set, 0, sizeof *set);
	if (!o || !o->grid)
		return west_fail(err, errlen, WEST_ERR_INVALID, "no grid to check stations against");
	if (!text)
		text = "", len = 0;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return west_fail(err, errlen, WEST_ERR_INVALID, "JSON line %d, column %d: %s",
				 je.line, je.column, je.text);
	s = json_set(root, o, set, err, errlen);
	json_decref(root);
	if (s != WEST_OK)
		west_obs_set_free(set);
	return s;
}

/* ------------------------------------------------------------ writer */

static int put_real(json_t *obj, const char *key, double v)
{
	return json_object_set_new(obj, key, json_real(v)); /* NULL (NaN): -1 */
}

static int put_string(json_t *obj, const char *key, const char *v)
{
	return json_object_set_new(obj, key, json_string(v));
}

/* One station in the reader's schema; NULL when a value has no JSON form. */
static json_t *station_json(const struct west_obs *ob)
{
	json_t *j = json_object();
	char t[32];
	int bad;

	if (!j)
		return NULL;
	west_obs_time_format(ob->time, t, sizeof t);
	bad = put_string(j, "id", ob->id) || put_real(j, "x", ob->x) ||
	      put_real(j, "y", ob->y) || put_real(j, "height", ob->height) ||
	      put_real(j, "speed", ob->speed) ||
	      put_real(j, "direction", ob->direction) || put_string(j, "time", t);
	if (!bad && isnan(ob->inv_L))
		bad = put_string(j, "stability", west_stability_name(ob->stability));
	else if (!bad)
		bad = put_real(j, "inv_L", ob->inv_L);
	if (!bad && !isnan(ob->z0))
		bad = put_real(j, "z0", ob->z0);
	if (bad) {
		json_decref(j);
		return NULL;
	}
	return j;
}

json_t *west_obs_to_json(const struct west_obs_set *set)
{
	json_t *arr = json_array(), *root = json_object();

	if (!arr || !root || json_object_set(root, "observations", arr) != 0)
		goto fail;
	for (size_t i = 0; i < set->n; i++)
		if (json_array_append_new(arr, station_json(&set->obs[i])) != 0)
			goto fail;
	json_decref(arr);
	return root;
fail:
	json_decref(arr);
	json_decref(root);
	return NULL;
}

/* The times a set kept (obs.h). */
json_t *west_obs_times_json(const struct west_obs_times *t)
{
	char a[32], b[32];
	json_t *j;

	west_obs_time_format(t->oldest, a, sizeof a);
	west_obs_time_format(t->newest, b, sizeof b);
	j = json_pack("{s:s, s:I, s:s, s:s, s:I}", "pick",
		      t->pick == WEST_OBS_PICK_NEAREST ? "nearest" : "newest",
		      "records", (json_int_t)t->records, "oldest", a, "newest", b,
		      "undated", (json_int_t)t->undated);
	if (j && t->pick == WEST_OBS_PICK_NEAREST) {
		west_obs_time_format(t->time, a, sizeof a);
		json_object_set_new(j, "time", json_string(a));
		json_object_set_new(j, "window", json_integer((json_int_t)t->window));
		json_object_set_new(j, "left_out", json_integer((json_int_t)t->left_out));
	}
	if (j && t->undated) {
		west_obs_time_format(t->received, a, sizeof a);
		json_object_set_new(j, "received", json_string(a));
	}
	return j;
}
