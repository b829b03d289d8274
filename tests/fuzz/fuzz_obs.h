/*
 * fuzz_obs.h: the body of the observation-set targets (fuzz_obs_json.c,
 * fuzz_obs_csv.c): one reader of obs.h, called as the daemon's ingest
 * calls it, on a document from the input.
 *
 * Input: byte 0 chooses the options, the rest is the document.
 *   bit 0     the grid has the UTM 33N transverse Mercator CRS (lon/lat
 *             positions and the solar elevation work), else no CRS;
 *   bit 1     allow_outside;
 *   bits 2-3  max_stations 0 (no limit), 1, 3 or 100.
 * The grids are built once (96 x 80 columns of 100 m from (500000,
 * 4650000), the extent of data/default.asc, so data/obs/ sets fit).
 * Records without a time of their own (a CSV row with an empty date_time)
 * take the time of receipt, west_obs_opts.received: here always
 * 2026-11-22T12:00:00Z, the sample sets' time, never the clock, so that an
 * input gives the same set (times, and the stability the sun gives on the
 * grid with a CRS) on every run, as in fuzz_obs_list.c.
 *
 * An accepted set is checked against obs.c's invariants (FUZZ_ASSERT);
 * a refused one must come back empty with a message.  A reader of another
 * format with the same signature (a list file read from memory) is one
 * more FUZZ_OBS_TARGET(its_parse_function) in a file of its own.
 */
#ifndef WEST_FUZZ_OBS_H
#define WEST_FUZZ_OBS_H

#include "fuzz_common.h"
#include "obs.h"

typedef enum west_status (*fuzz_obs_parse_fn)(const char *text, size_t len,
					      const struct west_obs_opts *o,
					      struct west_obs_set *set,
					      char *err, size_t errlen);

static inline const struct west_grid *fuzz_obs_grid(int tm)
{
	static struct west_grid g[2];
	static int built[2];

	if (!built[tm]) {
		fuzz_grid(&g[tm], 96, 80, 100.0, 4, 50.0, tm);
		built[tm] = 1;
	}
	return &g[tm];
}

/* obs.c's invariants of an accepted set. */
static inline void fuzz_obs_check(const struct west_obs_set *set, const struct west_obs_opts *o)
{
	long long latest;

	FUZZ_ASSERT(set->n >= 1 && set->obs, "accepted set of %zu stations", set->n);
	FUZZ_ASSERT(!o->max_stations || set->n <= o->max_stations, "%zu > max_stations %zu",
		    set->n, o->max_stations);
	latest = set->obs[0].time;
	for (size_t i = 0; i < set->n; i++) {
		const struct west_obs *ob = &set->obs[i];
		size_t len = strnlen(ob->id, WEST_OBS_ID_MAX);
		FUZZ_ASSERT(len >= 1 && len < WEST_OBS_ID_MAX, "station %zu: id length %zu", i, len);
		for (size_t k = 0; k < len; k++)
			FUZZ_ASSERT(ob->id[k] >= 0x20 && ob->id[k] <= 0x7e,
				    "station %zu: id byte %zu is 0x%02x", i, k,
				    (unsigned char)ob->id[k]);
		FUZZ_ASSERT(ob->id[0] != ' ' && ob->id[len - 1] != ' ', "station %zu: id '%s'",
			    i, ob->id);
		FUZZ_ASSERT(isfinite(ob->x) && isfinite(ob->y), "station %zu: position", i);
		FUZZ_ASSERT(isfinite(ob->height) && ob->height > 0.0, "station %zu: height %g",
			    i, ob->height);
		FUZZ_ASSERT(ob->speed >= 0.0 && ob->speed <= 100.0, "station %zu: speed %g", i,
			    ob->speed);
		FUZZ_ASSERT(ob->direction >= 0.0 && ob->direction <= 360.0,
			    "station %zu: direction %g", i, ob->direction);
		FUZZ_ASSERT(ob->stability >= 0 && ob->stability < WEST_NSTAB,
			    "station %zu: stability %d", i, ob->stability);
		FUZZ_ASSERT(!ob->outside || o->allow_outside, "station %zu: outside", i);
		FUZZ_ASSERT(isnan(ob->z0) || (ob->z0 > 0.0 && ob->z0 < 10.0),
			    "station %zu: z0 %g", i, ob->z0);
		for (size_t k = 0; k < i; k++)
			FUZZ_ASSERT(strcmp(set->obs[k].id, ob->id) != 0,
				    "stations %zu and %zu share id '%s'", k, i, ob->id);
		if (ob->time > latest)
			latest = ob->time;
	}
	FUZZ_ASSERT(set->valid_time == latest, "valid_time %lld, latest %lld",
		    set->valid_time, latest);
	FUZZ_ASSERT(set->times.received == o->received, "received %lld, given %lld",
		    set->times.received, o->received);
}

/* The parser's outcome s: an accepted set checked, a refused one empty and
 * named. */
static inline void fuzz_obs_outcome(enum west_status s, const struct west_obs_set *set,
				    const struct west_obs_opts *o, const char *err)
{
	if (s == WEST_OK) {
		fuzz_obs_check(set, o);
	} else {
		FUZZ_ASSERT(set->n == 0 && set->obs == NULL, "a refused set holds %zu stations",
			    set->n);
		FUZZ_ASSERT(err[0] != '\0', "refused (%s) without a message",
			    west_status_str(s));
	}
}

static inline int fuzz_obs_one(fuzz_obs_parse_fn parse, const uint8_t *data, size_t size)
{
	static const size_t max_stations[4] = { 0, 1, 3, 100 };
	static long long t_noon;
	struct west_obs_opts o;
	struct west_obs_set set;
	char err[WEST_ERRLEN] = "";
	enum west_status s;

	fuzz_init();
	if (!t_noon && !west_obs_time_parse("2026-11-22T12:00:00Z", &t_noon))
		abort();
	if (size < 1)
		return 0;
	o = (struct west_obs_opts){ .grid = fuzz_obs_grid(data[0] & 1),
				    .allow_outside = (data[0] >> 1) & 1,
				    .max_stations = max_stations[(data[0] >> 2) & 3],
				    .received = t_noon };
	s = parse((const char *)data + 1, size - 1, &o, &set, err, sizeof err);
	fuzz_obs_outcome(s, &set, &o, err);
	if (s == WEST_OK)
		(void)west_obs_max_speed(&set);
	west_obs_set_free(&set);
	return 0;
}

#define FUZZ_OBS_TARGET(parse)                                                 \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);           \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)            \
	{                                                                       \
		return fuzz_obs_one(parse, data, size);                         \
	}

#endif
