/*
 * obs.h: meteorological station observations, what one solve uses.
 *
 * An observation set is read whole from JSON (the schema of docs/api.md,
 * "Observations"), from CSV in WindNinja's station format, or from a
 * WindNinja station file list naming such CSV files, validated against the
 * grid, and either accepted whole or refused whole: on any error the set
 * is left empty and err names the record (1-based position, and the
 * station id when one was read) and the field.
 *
 * Time series: a station file may hold several records of one station at
 * different times.  The readers keep one record per station, by the rule
 * in west_obs_opts: the newest (the default), or the one nearest a given
 * time within a window, leaving out stations with none (a warning names
 * each).  A record without a time of its own (WindNinja's 15-column
 * format, or an empty date_time: "current data") takes the time of
 * receipt.  set->times says what was kept.
 *
 * Units after parsing, whatever the input used: positions in the grid's
 * projected CRS (m), heights above ground (m), speed (m/s), direction in
 * degrees "from", clockwise from north, in [0, 360]; valid time in seconds
 * since 1970-01-01T00:00:00Z.  Stations given in longitude/latitude are
 * projected with the grid's transverse Mercator grid_mapping (WGS 84
 * ellipsoid, docs/api.md names the formulas).
 *
 * Ownership: the parsers overwrite *set without freeing what it held (as
 * the DEM loaders do); a set they fill is freed with west_obs_set_free.
 * The grid in west_obs_opts is only read, and must outlive the call.
 */
#ifndef WEST_OBS_H
#define WEST_OBS_H

#include <stddef.h>

#include <jansson.h>

#include "grid.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WEST_OBS_ID_MAX 64   /* bytes of a station id, with the NUL */

/* Pasquill-Gifford stability classes, A (very unstable) .. F (stable). */
enum west_stability {
	WEST_STAB_A, WEST_STAB_B, WEST_STAB_C, WEST_STAB_D, WEST_STAB_E, WEST_STAB_F,
	WEST_NSTAB
};

struct west_obs {
	char id[WEST_OBS_ID_MAX];
	double x, y;          /* position in the grid's CRS (m) */
	double height;        /* measurement height above ground (m), > 0 */
	double speed;         /* m/s, [0, 100] */
	double direction;     /* degrees from, clockwise from north, [0, 360] */
	long long time;       /* valid time, s since 1970-01-01T00:00:00Z */
	int stability;        /* enum west_stability */
	double inv_L;         /* 1/L (1/m) when given, else NaN */
	double z0;            /* roughness length (m) when given, else NaN */
	int outside;          /* 1: off the grid, accepted by allow_outside */
};

/* Which record of each station a reader keeps. */
enum west_obs_pick {
	WEST_OBS_PICK_NEWEST,  /* the newest record of each station */
	WEST_OBS_PICK_NEAREST, /* the record nearest `time`, within `window` */
};

#define WEST_OBS_WINDOW_DEFAULT 1800 /* s, west run --time-window's default */

/* What a reader kept: which rule, from how many records, which times. */
struct west_obs_times {
	int pick;             /* enum west_obs_pick */
	long long time;       /* NEAREST: the time asked for */
	long long window;     /* NEAREST: the most |record time - time| taken (s) */
	size_t records;       /* records read (rows), before the pick */
	size_t stations;      /* stations kept (the set's n) */
	size_t left_out;      /* NEAREST: stations without a record in the window */
	size_t undated;       /* stations kept whose record had no time of its own */
	long long received;   /* the time of receipt given to undated records */
	long long oldest, newest; /* the oldest and newest times kept */
};

struct west_obs_set {
	size_t n;
	struct west_obs *obs;
	long long valid_time; /* the latest observation time of the set */
	struct west_obs_times times; /* filled by the readers; zero otherwise */
};

struct west_obs_opts {
	const struct west_grid *grid; /* extent and CRS the stations must fit */
	size_t max_stations;          /* refuse larger sets; 0 = no limit */
	int allow_outside;            /* accept off-grid stations with a warning */
	int pick;                     /* enum west_obs_pick; 0: the newest */
	long long time, window;       /* PICK_NEAREST: the time (s since the
				       * epoch) and the window (s, >= 0) */
	long long received;           /* time of receipt for records without a
				       * time; 0: the clock when parsing */
};

/* Parse a whole JSON document / CSV text (len bytes, need not end in NUL). */
enum west_status west_obs_parse_json(const char *text, size_t len,
				     const struct west_obs_opts *o,
				     struct west_obs_set *set,
				     char *err, size_t errlen);
enum west_status west_obs_parse_csv(const char *text, size_t len,
				    const struct west_obs_opts *o,
				    struct west_obs_set *set,
				    char *err, size_t errlen);

/*
 * 1 when text is a WindNinja station file list: its first non-blank line's
 * first field is Station_File_List or Recent_Station_File_List.
 * west_obs_parse_csv refuses such text (it names files; see below).
 */
int west_obs_is_list(const char *text, size_t len);

/*
 * Parse a station file list: one station file (WindNinja CSV) per
 * non-blank line after the header, a relative path resolved against dir
 * (the list's directory), read and pooled into one set, one record per
 * station by o's rule.  The files together may hold at most max_bytes.
 * Errors name the list's line and the file ("line 3: DIR/A.csv: cannot
 * open: ...", "line 3: DIR/A.csv: line 5 (station "A"): Speed: ...").
 */
enum west_status west_obs_parse_list(const char *text, size_t len, const char *dir,
				     unsigned long long max_bytes,
				     const struct west_obs_opts *o,
				     struct west_obs_set *set, char *err, size_t errlen);

/*
 * The writer (obs_json.c): the set in the JSON schema that west_obs_parse_json accepts: per station
 * id, x, y (grid CRS, m, whatever the input gave), height, speed,
 * direction, time (west_obs_time_format), then either "stability" (the
 * class letter) when inv_L is NaN, or "inv_L" (the parser recomputes the
 * class from it, by Golder's rule with z0 or its default), and "z0" when
 * not NaN.  Numbers are reals; dumped with 17 significant digits (jansson's
 * default, or JSON_REAL_PRECISION(17)) they read back bit for bit, -0.0
 * included.  So parse(to_json(set)) gives back every field of every
 * station, valid_time too, and `outside` when parsed against the same
 * west_obs_opts (the parser recomputes it from x, y and the grid).  New
 * reference; NULL when out of memory or when a value has no JSON form
 * (an id that is not UTF-8, a non-finite number: never so in a set the
 * readers accepted).
 */
json_t *west_obs_to_json(const struct west_obs_set *set);

/* Read a file: CSV when its name ends in .csv (any case), else JSON; a
 * .csv that is a station file list is read with its files (at most 64 MiB
 * in all), relative paths against the list's directory. */
enum west_status west_obs_load(const char *path, const struct west_obs_opts *o,
			       struct west_obs_set *set, char *err, size_t errlen);

void west_obs_set_free(struct west_obs_set *set);

/*
 * One line saying which times a set keeps (its set->times), e.g. "3
 * stations, the newest record of each (12 records read):
 * 2026-11-22T11:00:00Z to 2026-11-22T12:00:00Z"; with PICK_NEAREST "2
 * stations (1 left out), the record of each nearest T within W s (...)";
 * "all at T" when one time; "; 2 without date_time, at the time of
 * receipt T" when some had no time.
 */
void west_obs_times_describe(const struct west_obs_times *t, char *buf, size_t size);

/* The same as a JSON object: pick, records, oldest, newest, undated; and
 * time, window, left_out (PICK_NEAREST); received (when undated > 0). */
json_t *west_obs_times_json(const struct west_obs_times *t);

/* "A".."F", or "?" out of range. */
const char *west_stability_name(int stability);

/* Largest observed speed (m/s), 0 for an empty set. */
double west_obs_max_speed(const struct west_obs_set *set);

/*
 * Time stamps: ISO 8601 in UTC, "YYYY-MM-DDThh:mm:ssZ", with optional
 * fractional seconds (dropped: times are whole seconds) and a numeric
 * offset "+hh:mm" / "-hh:mm" instead of "Z" (converted to UTC).  Returns 1
 * and sets *t (s since the epoch) when all of s is such a time, else 0.
 */
int west_obs_time_parse(const char *s, long long *t);

/* t as "YYYY-MM-DDThh:mm:ssZ" into buf of size bytes (32 is enough). */
void west_obs_time_format(long long t, char *buf, size_t size);

/*
 * Stability rules (obs.c; docs/api.md, "Stability", gives the sources).
 *
 * Golder (1972), as fitted in Seinfeld & Pandis (2006, Table 16.5): the
 * class whose line 1/L = a + b log10(z0) is nearest to inv_L at that z0
 * (a tie goes to the more stable class).
 */
int west_stability_golder(double inv_L, double z0);

/* The 1/L (1/m) of class cls's Golder line at roughness z0 (m). */
double west_golder_inv_l(int cls, double z0);

/* Pasquill-Turner columns: daytime insolation, or night by cloud cover. */
enum west_insolation {
	WEST_INSOL_STRONG, WEST_INSOL_MODERATE, WEST_INSOL_SLIGHT,
	WEST_INSOL_NIGHT_CLOUDY,  /* night, cloud cover >= 50 % */
	WEST_INSOL_NIGHT_CLEAR,   /* night, cloud cover < 50 % */
	WEST_NINSOL
};

/*
 * Insolation column from the solar elevation (degrees) and the cloud cover
 * (%): e > 60 strong, 35 < e <= 60 moderate, 0 < e <= 35 slight, e <= 0
 * night; cloud >= 50 % lowers strong to moderate and moderate to slight.
 */
int west_stability_insolation(double elevation, double cloud);

/* Pasquill-Turner table: class for the 10 m wind speed (m/s) and column. */
int west_stability_turner(double speed, int insolation);

/* The whole rule: 100 % cloud gives D, else turner(insolation(...)). */
int west_stability_pasquill(double speed, double elevation, double cloud);

/*
 * Solar elevation (degrees above the horizon, no refraction) at lon, lat
 * (degrees, WGS 84) and time t (s since the epoch), by NOAA's "General
 * Solar Position Calculations" (fractional-year Fourier series).
 */
double west_solar_elevation(double lon, double lat, long long t);

#ifdef __cplusplus
}
#endif

#endif
