/*
 * config.c: the config table and its one parser (see config.h).
 *
 * Every key is one row of `rows`, indexed by enum west_conf_key: its name,
 * its type, where it lives in struct west_config (offsetof and size), its
 * bounds, its default, whether a reload may change it, and a one-line help.
 * Defaults are strings parsed by the same code as file values, so the table
 * is the one source of truth for defaults, bounds and messages.
 *
 * Value types:
 *  - STRING: copied as is; longer than the field (size - 1 bytes) is an error.
 *  - ENUM: one word of a NULL-terminated list (any case); stores its index.
 *  - LOGLEVEL: a word west_log_level_parse knows; stores the syslog priority.
 *  - LONG, LLONG: a decimal integer within [min, max].
 *  - DOUBLE: a finite number within [min, max] (or (min, max] when
 *    min_open is set).
 *  - DOUBLE_AUTO: like DOUBLE, or the word `auto`, stored as NaN.
 *  - LEVELS: doubles separated by commas and/or spaces, each within
 *    [min, max]; empty means no list (nlevels = 0); otherwise at least 2
 *    values, the first 0, strictly increasing, at most
 *    WEST_CONF_MAX_LEVELS + 1 of them.
 *
 * Line syntax: "key = value", '#' starts a comment outside a value that
 * begins with a double quote, and a quoted value runs to the next '"' (no
 * escapes; a '"' is therefore never part of a value).  Blank lines and
 * comment lines are skipped; lines are at most CONF_LINE_MAX bytes.
 *
 * Atomicity: west_config_load and west_config_set work on a heap copy of
 * the caller's config and copy it back only when everything parsed.
 *
 * Cross-key rule: a file that gives a non-empty `levels` must not also give
 * nz or dz; --set of nz or dz is refused while a non-empty `levels` is in
 * force (it would be ignored), while --set levels=... simply takes over.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "plume.h"

#define CONF_LINE_MAX 65536 /* bytes in one line, without the newline */
#define CONF_LINE_MAX_STR "65536"
#define CONF_QUOTE_MAX 60   /* bytes of a bad value quoted in a message */

enum conf_type {
	CONF_STRING,
	CONF_ENUM,
	CONF_LOGLEVEL,
	CONF_LONG,
	CONF_LLONG,
	CONF_DOUBLE,
	CONF_DOUBLE_AUTO,
	CONF_LEVELS,
	CONF_DEVICES,
	CONF_WEIGHTS,
};

struct conf_row {
	const char *name;
	enum conf_type type;
	size_t offset, size;       /* the field in struct west_config */
	double min, max;           /* numbers; LEVELS: each value */
	int min_open;              /* min itself is out of range */
	const char *const *words;  /* ENUM: allowed words, index = value */
	const char *def;           /* default, parsed like a file value */
	int reloadable;
	const char *help;
};

#define FIELD(f) offsetof(struct west_config, f), sizeof(((struct west_config *)0)->f)

static const char *const nodata_words[] = { "refuse", "fill", NULL };
static const char *const backend_words[] = { "auto", "cpu", "cuda", NULL };
static const char *const yesno_words[] = { "no", "yes", NULL };
static const char *const land_use_words[] = { "rural", "urban", NULL };
static const char *const faces_words[] = { "cut", "staircase", NULL };
static const char *const indexing_words[] = { "masked", "compact", NULL };
static const char *const solver_words[] = { "multigrid", "sor", "sor-potential", NULL };
static const char *const exchange_words[] = { "overlap", "blocking", NULL };

static const struct conf_row rows[] = {
	[WEST_CONF_TERRAIN] = {
		"terrain", CONF_STRING, FIELD(terrain), 0, 0, 0, NULL, "", 1,
		"DEM file (ESRI ASCII .asc, CF NetCDF raster, or with GDAL GeoTIFF and others)" },
	[WEST_CONF_TERRAIN_VARIABLE] = {
		"terrain_variable", CONF_STRING, FIELD(terrain_variable), 0, 0, 0,
		NULL, "", 1, "NetCDF elevation variable name (empty = auto)" },
	[WEST_CONF_TERRAIN_EPSG] = {
		"terrain_epsg", CONF_LONG, FIELD(terrain_epsg), 0, 999999, 0, NULL,
		"0", 1, "EPSG code of the CRS a GDAL raster is warped to (0 = the UTM zone of its centre)" },
	[WEST_CONF_NODATA] = {
		"nodata", CONF_ENUM, FIELD(nodata), 0, 0, 0, nodata_words,
		"refuse", 1, "DEM cells without data: refuse the DEM, or fill them" },
	[WEST_CONF_RESOLUTION] = {
		"resolution", CONF_DOUBLE, FIELD(resolution), 0, 100000, 0, NULL,
		"0", 1, "horizontal cell size in m (0 = keep the DEM's cell size)" },
	[WEST_CONF_TERRAIN_TIMEOUT] = {
		"terrain_timeout", CONF_DOUBLE, FIELD(terrain_timeout), 0, 86400, 0, NULL,
		"600", 1, "seconds the terrain reader (a child process) may take; then it is "
		"stopped and the terrain refused (0 = no limit)" },
	[WEST_CONF_NZ] = {
		"nz", CONF_LONG, FIELD(nz), 1, 4096, 0, NULL, "30", 1,
		"number of vertical levels (when levels is empty)" },
	[WEST_CONF_DZ] = {
		"dz", CONF_DOUBLE, FIELD(dz), 0, 10000, 1, NULL, "20", 1,
		"uniform level thickness in m (when levels is empty)" },
	[WEST_CONF_LEVELS] = {
		"levels", CONF_LEVELS, FIELD(levels), 0, 100000, 0, NULL, "", 1,
		"level face heights in m above the base, from 0, increasing" },
	[WEST_CONF_BASE_ALTITUDE] = {
		"base_altitude", CONF_DOUBLE_AUTO, FIELD(base_altitude), -12000,
		10000, 0, NULL, "auto", 1,
		"grid base altitude in m (auto = lowest terrain)" },
	[WEST_CONF_MAX_CELLS] = {
		"max_cells", CONF_LLONG, FIELD(max_cells), 1, 4000000000.0, 0, NULL,
		"200000000", 1, "refuse grids with more 3D cells than this" },
	[WEST_CONF_TERRAIN_FACES] = {
		"terrain_faces", CONF_ENUM, FIELD(terrain_faces), 0, 0, 0, faces_words,
		"cut", 1, "cut (open fractions of the faces) or staircase (whole cells)" },
	[WEST_CONF_BACKEND] = {
		"backend", CONF_ENUM, FIELD(backend), 0, 0, 0, backend_words,
		"auto", 0, "compute backend (auto = CUDA when a GPU answers)" },
	[WEST_CONF_DEVICES] = {
		"devices", CONF_DEVICES, FIELD(devices), 0, 0, 0, NULL, "auto", 0,
		"auto (the backend key decides; on CUDA a slab on each GPU when two or more are "
		"seen), or partitions: cpu, or cuda:N for GPU N, listed N times cuts the grid "
		"into N slabs on those devices (cpu beside cuda:N entries: a CPU slab beside "
		"GPU ones)" },
	[WEST_CONF_WEIGHTS] = {
		"weights", CONF_WEIGHTS, FIELD(weights), 0, 0, 0, NULL, "auto", 0,
		"the partitions' shares of the rows: auto (even on one device; several GPUs, a "
		"CPU beside GPUs or MPI ranks: by measured speed) "
		"or a number > 0 per partition" },
	[WEST_CONF_EXCHANGE] = {
		"exchange", CONF_ENUM, FIELD(exchange), 0, 0, 0, exchange_words, "overlap", 1,
		"halo exchange between MPI ranks and GPU slabs: overlap (messages or "
		"copies in flight while the inner rows are smoothed) or blocking (same field)" },
	[WEST_CONF_LOG_LEVEL] = {
		"log_level", CONF_LOGLEVEL, FIELD(log_level), 0, 0, 0, NULL, "info",
		1, "most verbose level logged" },
	[WEST_CONF_MAX_STATIONS] = {
		"max_stations", CONF_LONG, FIELD(max_stations), 1, 100000, 0, NULL,
		"1000", 1, "refuse observation sets with more stations than this" },
	[WEST_CONF_ALLOW_OUTSIDE] = {
		"allow_outside", CONF_ENUM, FIELD(allow_outside), 0, 0, 0,
		yesno_words, "no", 1,
		"accept stations outside the grid (with a warning) instead of refusing" },
	[WEST_CONF_LAND_USE] = {
		"land_use", CONF_ENUM, FIELD(land_use), 0, 0, 0, land_use_words,
		"rural", 1, "power-law exponents of the vertical extrapolation" },
	[WEST_CONF_SOLVER] = {
		"solver", CONF_ENUM, FIELD(solver), 0, 0, 0, solver_words,
		"multigrid", 1,
		"divergence minimization: multigrid, sor (the paper's) or sor-potential" },
	[WEST_CONF_ITERATIONS] = {
		"iterations", CONF_LONG, FIELD(iterations), 0, 10000000, 0, NULL,
		"1000", 1, "most red-black iterations of the sor solvers" },
	[WEST_CONF_CYCLES] = {
		"cycles", CONF_LONG, FIELD(cycles), 0, 100000, 0, NULL, "100", 1,
		"most iterations (V-cycles) of the multigrid solver" },
	[WEST_CONF_TOLERANCE] = {
		"tolerance", CONF_DOUBLE, FIELD(tolerance), 0, 1, 0, NULL, "1e-4", 1,
		"stop when max|D| h / U_ref is at or below this (0 = never)" },
	[WEST_CONF_OMEGA] = {
		"omega", CONF_DOUBLE, FIELD(omega), 0, 1.999, 1, NULL, "1.25", 1,
		"SOR relaxation factor of divergence minimization" },
	[WEST_CONF_ETA] = {
		"eta", CONF_DOUBLE_AUTO, FIELD(eta), 0, 1e6, 1, NULL, "auto", 1,
		"(alpha1/alpha2)^2: vertical against horizontal adjustment weight (auto = by stability)" },
	[WEST_CONF_INDEXING] = {
		"indexing", CONF_ENUM, FIELD(indexing), 0, 0, 0, indexing_words,
		"compact", 1, "red-black ordering: masked or compact (same field)" },
	[WEST_CONF_CHECK_INTERVAL] = {
		"check_interval", CONF_LONG, FIELD(check_interval), 1, 1000000, 0,
		NULL, "20", 1, "iterations between two convergence checks" },
	[WEST_CONF_LISTEN] = {
		"listen", CONF_STRING, FIELD(listen), 0, 0, 0, NULL,
		"127.0.0.1:8080", 0, "HTTP address HOST:PORT ([V6]:PORT)" },
	[WEST_CONF_HTTP_THREADS] = {
		"http_threads", CONF_LONG, FIELD(http_threads), 1, 256, 0, NULL, "4",
		0, "HTTP thread pool size" },
	[WEST_CONF_MAX_CONNECTIONS] = {
		"max_connections", CONF_LONG, FIELD(max_connections), 1, 100000, 0,
		NULL, "1024", 0, "open HTTP connections, all clients together" },
	[WEST_CONF_PER_IP_CONNECTIONS] = {
		"per_ip_connections", CONF_LONG, FIELD(per_ip_connections), 0,
		100000, 0, NULL, "128", 0,
		"open HTTP connections per client address (0 = no limit)" },
	[WEST_CONF_CONNECTION_TIMEOUT] = {
		"connection_timeout", CONF_LONG, FIELD(connection_timeout), 1, 3600,
		0, NULL, "30", 0, "s of inactivity before a connection is closed" },
	[WEST_CONF_MAX_BODY_BYTES] = {
		"max_body_bytes", CONF_LLONG, FIELD(max_body_bytes), 1024,
		1073741824.0, 0, NULL, "8388608", 1,
		"larger request bodies are refused (413)" },
	[WEST_CONF_MAX_RESPONSE_CELLS] = {
		"max_response_cells", CONF_LLONG, FIELD(max_response_cells), 1,
		1e10, 0, NULL, "1000000", 1,
		"larger area/cube/slice answers are refused (413)" },
	[WEST_CONF_API_TOKEN] = {
		"api_token", CONF_STRING, FIELD(api_token), 0, 0, 0, NULL, "", 1,
		"bearer token for writes (empty = none)" },
	[WEST_CONF_API_TOKEN_FILE] = {
		"api_token_file", CONF_STRING, FIELD(api_token_file), 0, 0, 0, NULL,
		"", 1, "file holding the bearer token" },
	[WEST_CONF_READ_AUTH] = {
		"read_auth", CONF_ENUM, FIELD(read_auth), 0, 0, 0, yesno_words, "no",
		1, "reads need the token too" },
	[WEST_CONF_MAX_FIELD_AGE] = {
		"max_field_age", CONF_DOUBLE, FIELD(max_field_age), 0, 1e9, 0, NULL,
		"3600", 1, "s since the valid time; /readyz fails when the field is older (0 = no limit)" },
	[WEST_CONF_STATE_DIR] = {
		"state_dir", CONF_STRING, FIELD(state_dir), 0, 0, 0, NULL,
		"/var/lib/westd", 0, "persisted observation sets live here" },
	[WEST_CONF_OBSERVATIONS_KEEP] = {
		"observations_keep", CONF_LONG, FIELD(observations_keep), 0, 100000000,
		0, NULL, "1000", 0, "observation sets kept in state_dir (0 = all)" },
	[WEST_CONF_OBS_MAX_AGE] = {
		"obs_max_age", CONF_DOUBLE, FIELD(obs_max_age), 0, 1e9, 0, NULL,
		"3600", 1, "s; westd refuses a set whose valid time is older (0 = no limit)" },
	[WEST_CONF_OBS_MAX_FUTURE] = {
		"obs_max_future", CONF_DOUBLE, FIELD(obs_max_future), 0, 1e9, 0, NULL,
		"600", 1, "s; westd refuses a set whose valid time is later than now + this (0 = no limit)" },
	[WEST_CONF_SPOOL_DIR] = {
		"spool_dir", CONF_STRING, FIELD(spool_dir), 0, 0, 0, NULL, "", 0,
		"drop directory for observation files (empty = none)" },
	[WEST_CONF_SPOOL_SCAN_INTERVAL] = {
		"spool_scan_interval", CONF_DOUBLE, FIELD(spool_scan_interval), 0,
		86400, 1, NULL, "10", 1, "s between fallback scans of spool_dir" },
	[WEST_CONF_SNAPSHOT_DIR] = {
		"snapshot_dir", CONF_STRING, FIELD(snapshot_dir), 0, 0, 0, NULL, "",
		0, "NetCDF snapshots go here (empty = none)" },
	[WEST_CONF_SNAPSHOT_KEEP] = {
		"snapshot_keep", CONF_LONG, FIELD(snapshot_keep), 1, 1000000, 0, NULL,
		"24", 1, "newest snapshots kept" },
	[WEST_CONF_SNAPSHOT_INTERVAL] = {
		"snapshot_interval", CONF_DOUBLE, FIELD(snapshot_interval), 0, 1e7, 0,
		NULL, "0", 1, "s between snapshots (0 = after each new field)" },
	[WEST_CONF_FIELD_POOL] = {
		"field_pool", CONF_LONG, FIELD(field_pool), 0, 64, 0, NULL, "10", 0,
		"field buffers made at start and kept idle for the next fields "
		"(page-locked on CUDA; 0 = allocate each field)" },
	[WEST_CONF_MAX_PARTICLES] = {
		"max_particles", CONF_LONG, FIELD(max_particles), 1, 10000000, 0, NULL,
		"1000000", 1, "the most particles one release (POST /v1/releases) may ask for" },
	[WEST_CONF_MAX_RELEASE_HOURS] = {
		"max_release_hours", CONF_DOUBLE, FIELD(max_release_hours), 0, 168, 1, NULL,
		"6", 1, "the longest simulated time (h) one release may ask for" },
	[WEST_CONF_RELEASES_KEEP] = {
		"releases_keep", CONF_LONG, FIELD(releases_keep), 1, 100000, 0, NULL, "32", 1,
		"finished releases kept with their results (the oldest go first)" },
	[WEST_CONF_RELEASES_MAX_AGE] = {
		"releases_max_age", CONF_DOUBLE, FIELD(releases_max_age), 0, 1e9, 0, NULL,
		"86400", 1, "s a finished release is kept after it ended (0 = no limit)" },
	[WEST_CONF_RELEASES_QUEUE] = {
		"releases_queue", CONF_LONG, FIELD(releases_queue), 1, 10000, 0, NULL, "16", 1,
		"releases waiting for their run, at most; a POST past it is refused (503)" },
	[WEST_CONF_RELEASE_THREADS] = {
		"release_threads", CONF_LONG, FIELD(release_threads), 0, 1024, 0, NULL, "0", 0,
		"OpenMP threads of a release run on the CPU backend (0 = OpenMP's default)" },
	[WEST_CONF_UI_AGE_WARN] = {
		"ui_age_warn", CONF_DOUBLE, FIELD(ui_age_warn), 0, 1e9, 0, NULL,
		"1800", 1, "s; the map page shows the field's age amber past it (0 = never)" },
	[WEST_CONF_UI_AGE_ALERT] = {
		"ui_age_alert", CONF_DOUBLE, FIELD(ui_age_alert), 0, 1e9, 0, NULL,
		"3600", 1, "s; the map page shows the field's age red past it (0 = never)" },
};

/* max_particles and max_release_hours stop at the model's own limits */
_Static_assert(WEST_PLUME_MAX_PARTICLES == 10000000L, "max_particles' bound");
_Static_assert((long)WEST_PLUME_MAX_SECONDS == 168 * 3600L, "max_release_hours' bound");

_Static_assert(sizeof rows / sizeof rows[0] == WEST_CONF_NKEYS,
	       "one table row per enum west_conf_key");

/* Where a parse happens: "FILE:LINE" or an origin such as "--set". */
struct conf_ctx {
	const char *where;
	char *err;
	size_t errlen;
};

/* ---------------------------------------------------------------- errors */

static enum west_status bad(const struct conf_ctx *x, const struct conf_row *r,
			    const char *v, const char *what)
{
	size_t n = strlen(v);
	int q = n > CONF_QUOTE_MAX ? CONF_QUOTE_MAX : (int)n;
	return west_fail(x->err, x->errlen, WEST_ERR_INVALID, "%s: %s: '%.*s%s' %s",
			 x->where, r->name, q, v, n > (size_t)q ? "..." : "", what);
}

static enum west_status out_of_range(const struct conf_ctx *x,
				     const struct conf_row *r, const char *v)
{
	char what[128];
	snprintf(what, sizeof what, "is out of range %c%.15g, %.15g]",
		 r->min_open ? '(' : '[', r->min, r->max);
	return bad(x, r, v, what);
}

static int in_range(const struct conf_row *r, double d)
{
	if (r->min_open ? d <= r->min : d < r->min)
		return 0;
	return d <= r->max;
}

/* --------------------------------------------------------- value parsers */

static void *field(const struct conf_row *r, struct west_config *c)
{
	return (char *)c + r->offset;
}

static enum west_status parse_string(const struct conf_ctx *x,
				     const struct conf_row *r, const char *v,
				     struct west_config *c)
{
	size_t n = strlen(v);
	if (n >= r->size)
		return west_fail(x->err, x->errlen, WEST_ERR_INVALID,
				 "%s: %s: value is %zu bytes long, at most %zu allowed",
				 x->where, r->name, n, r->size - 1);
	memcpy(field(r, c), v, n + 1);
	return WEST_OK;
}

enum west_status west_devices_parse(const char *v, struct west_devices *d, char *err,
				    size_t errlen)
{
	const char *p = v;

	*d = (struct west_devices){ 0 };
	while (*p == ' ' || *p == '\t')
		p++;
	if (strcasecmp(p, "auto") == 0)
		return WEST_OK;
	for (;;) {
		size_t n;
		while (*p == ' ' || *p == '\t')
			p++;
		n = strcspn(p, ",");
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (d->n == 16)
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "more than 16 partitions");
		if (n == 3 && strncasecmp(p, "cpu", 3) == 0)
			d->dev[d->n] = WEST_DEVICE_CPU, d->cpu++;
		else if (n > 5 && n < 8 && strncasecmp(p, "cuda:", 5) == 0 &&
			 strspn(p + 5, "0123456789") == n - 5)
			d->dev[d->n] = atoi(p + 5), d->cuda++;
		else
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "'%.*s' is not auto, cpu or cuda:N (a CUDA device number)",
					 (int)(n < 40 ? n : 40), p);
		d->n++;
		p += strcspn(p, ",");
		if (!*p++)
			break;
	}
	if (d->n == 1 && d->cuda && d->dev[0] != 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "cuda:%d alone: one GPU is cuda:0; to use another, start westd "
				 "with CUDA_VISIBLE_DEVICES=%d", d->dev[0], d->dev[0]);
	return WEST_OK;
}

/* A string value that check accepts (its message names the problem). */
static enum west_status parse_checked(const struct conf_ctx *x, const struct conf_row *r,
				      const char *v, struct west_config *c,
				      enum west_status (*check)(const char *v, char *why,
								size_t whylen))
{
	char why[WEST_ERRLEN];
	if (check(v, why, sizeof why))
		return west_fail(x->err, x->errlen, WEST_ERR_INVALID, "%s: %s: %s", x->where,
				 r->name, why);
	return parse_string(x, r, v, c);
}

static enum west_status check_devices(const char *v, char *why, size_t whylen)
{
	struct west_devices d;
	return west_devices_parse(v, &d, why, whylen);
}

enum west_status west_weights_parse(const char *v, double w[16], int *n, char *err,
				    size_t errlen)
{
	const char *p = v;

	*n = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strcasecmp(p, "auto") == 0)
		return WEST_OK;
	for (;;) {
		char *end;
		double x = strtod(p, &end);
		size_t len = strcspn(p, ",");
		while (*end == ' ' || *end == '\t')
			end++;
		if (end == p || (*end && *end != ',') || !isfinite(x) || !(x > 0))
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "'%.*s' is not a number > 0 (or give auto)",
					 (int)(len < 40 ? len : 40), p);
		if (*n == 16)
			return west_fail(err, errlen, WEST_ERR_INVALID, "more than 16 weights");
		w[(*n)++] = x;
		if (!*end)
			return WEST_OK;
		p = end + 1;
	}
}

static enum west_status check_weights(const char *v, char *why, size_t whylen)
{
	double w[16];
	int n;
	return west_weights_parse(v, w, &n, why, whylen);
}

static enum west_status not_one_of(const struct conf_ctx *x,
				   const struct conf_row *r, const char *v,
				   const char *const *words)
{
	char what[256] = "is not one of ";
	for (size_t i = 0; words[i]; i++) {
		if (i)
			strcat(what, ", ");
		strcat(what, words[i]);
	}
	return bad(x, r, v, what);
}

static enum west_status parse_enum(const struct conf_ctx *x,
				   const struct conf_row *r, const char *v,
				   struct west_config *c)
{
	for (int i = 0; r->words[i]; i++) {
		if (strcasecmp(v, r->words[i]) == 0) {
			*(int *)field(r, c) = i;
			return WEST_OK;
		}
	}
	return not_one_of(x, r, v, r->words);
}

static enum west_status parse_loglevel(const struct conf_ctx *x,
				       const struct conf_row *r, const char *v,
				       struct west_config *c)
{
	const char *words[WEST_LOG_DEBUG - WEST_LOG_ERR + 2] = { NULL };
	enum west_log_level l;

	if (west_log_level_parse(v, &l) == WEST_OK) {
		*(int *)field(r, c) = (int)l;
		return WEST_OK;
	}
	for (int i = WEST_LOG_ERR; i <= WEST_LOG_DEBUG; i++)
		words[i - WEST_LOG_ERR] = west_log_level_name((enum west_log_level)i);
	return not_one_of(x, r, v, words);
}

/* A whole decimal integer, or an error; *range set when it overflowed. */
static int to_llong(const char *v, long long *out, int *range)
{
	char *end;
	errno = 0;
	*out = strtoll(v, &end, 10);
	*range = errno == ERANGE;
	return end != v && *end == '\0' && !isspace((unsigned char)*v);
}

static enum west_status parse_integer(const struct conf_ctx *x,
				      const struct conf_row *r, const char *v,
				      struct west_config *c)
{
	long long n;
	int range;

	if (!to_llong(v, &n, &range))
		return bad(x, r, v, "is not an integer");
	if (range || !in_range(r, (double)n))
		return out_of_range(x, r, v);
	if (r->type == CONF_LONG)
		*(long *)field(r, c) = (long)n;
	else
		*(long long *)field(r, c) = n;
	return WEST_OK;
}

/*
 * A finite double: 1 ok, 0 not a number (junk, NaN, inf, empty), -1 a
 * number too large for a double.
 */
static int to_double(const char *v, const char *end_at, double *out)
{
	char *end;
	if (v == end_at || isspace((unsigned char)*v))
		return 0;
	errno = 0;
	*out = strtod(v, &end);
	if (end != end_at)
		return 0;
	if (isinf(*out) && errno == ERANGE)
		return -1;
	return isfinite(*out) ? 1 : 0;
}

static enum west_status parse_double(const struct conf_ctx *x,
				     const struct conf_row *r, const char *v,
				     struct west_config *c)
{
	double d;
	int ok;

	if (r->type == CONF_DOUBLE_AUTO && strcasecmp(v, "auto") == 0) {
		*(double *)field(r, c) = NAN;
		return WEST_OK;
	}
	ok = to_double(v, v + strlen(v), &d);
	if (ok == 0)
		return bad(x, r, v, r->type == CONF_DOUBLE_AUTO ?
			   "is not a number or auto" : "is not a number");
	if (ok < 0 || !in_range(r, d))
		return out_of_range(x, r, v);
	*(double *)field(r, c) = d;
	return WEST_OK;
}

/* ------------------------------------------------------------ level list */

static int is_sep(char ch)
{
	return ch == ',' || isspace((unsigned char)ch);
}

/* Past the separator after an item: spaces, at most one comma, spaces. */
static const char *skip_sep(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	if (*p == ',')
		p++;
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

static enum west_status level_item(const struct conf_ctx *x,
				   const struct conf_row *r, const char *p,
				   const char *e, size_t pos, double *out)
{
	char what[96], item[CONF_QUOTE_MAX + 1];
	size_t n = (size_t)(e - p) < CONF_QUOTE_MAX ? (size_t)(e - p) : CONF_QUOTE_MAX;
	int ok = to_double(p, e, out);

	memcpy(item, p, n);
	item[n] = '\0';
	if (p == e)
		return west_fail(x->err, x->errlen, WEST_ERR_INVALID,
				 "%s: %s: value %zu is empty", x->where, r->name, pos);
	if (ok == 0) {
		snprintf(what, sizeof what, "(value %zu) is not a number", pos);
		return bad(x, r, item, what);
	}
	if (ok < 0 || !in_range(r, *out)) {
		snprintf(what, sizeof what, "(value %zu) is out of range [%.15g, %.15g]",
			 pos, r->min, r->max);
		return bad(x, r, item, what);
	}
	return WEST_OK;
}

static enum west_status levels_order(const struct conf_ctx *x,
				     const struct conf_row *r, const double *lv,
				     size_t n)
{
	if (n < 2)
		return west_fail(x->err, x->errlen, WEST_ERR_INVALID,
				 "%s: %s: 1 value given, at least 2 are needed "
				 "(0 and the top of the first level)", x->where, r->name);
	if (lv[0] != 0)
		return west_fail(x->err, x->errlen, WEST_ERR_INVALID,
				 "%s: %s: value 1 is %.17g, the first level must start at 0",
				 x->where, r->name, lv[0]);
	for (size_t i = 1; i < n; i++)
		if (!(lv[i] > lv[i - 1]))
			return west_fail(x->err, x->errlen, WEST_ERR_INVALID,
					 "%s: %s: value %zu (%.17g) is not above value %zu (%.17g); "
					 "levels must increase strictly",
					 x->where, r->name, i + 1, lv[i], i, lv[i - 1]);
	return WEST_OK;
}

static enum west_status parse_levels(const struct conf_ctx *x,
				     const struct conf_row *r, const char *v,
				     struct west_config *c)
{
	double *lv = field(r, c);
	const size_t cap = r->size / sizeof(double);
	const char *p = v, *e = v;
	size_t n = 0;
	enum west_status st;

	for (; *p; p = skip_sep(e), n++) {
		if (n == cap)
			return west_fail(x->err, x->errlen, WEST_ERR_INVALID,
					 "%s: %s: more than %zu values", x->where,
					 r->name, cap);
		for (e = p; *e && !is_sep(*e); e++)
			;
		st = level_item(x, r, p, e, n + 1, &lv[n]);
		if (st != WEST_OK)
			return st;
	}
	if (n > 0 && strchr(e, ','))  /* a comma after the last value */
		return west_fail(x->err, x->errlen, WEST_ERR_INVALID,
				 "%s: %s: value %zu is empty", x->where, r->name, n + 1);
	if (n > 0 && (st = levels_order(x, r, lv, n)) != WEST_OK)
		return st;
	c->nlevels = n;
	return WEST_OK;
}

/* ------------------------------------------------------ one key, one line */

static enum west_status parse_value(const struct conf_ctx *x,
				    const struct conf_row *r, const char *v,
				    struct west_config *c)
{
	switch (r->type) {
	case CONF_STRING: return parse_string(x, r, v, c);
	case CONF_ENUM: return parse_enum(x, r, v, c);
	case CONF_DEVICES: return parse_checked(x, r, v, c, check_devices);
	case CONF_WEIGHTS: return parse_checked(x, r, v, c, check_weights);
	case CONF_LOGLEVEL: return parse_loglevel(x, r, v, c);
	case CONF_LONG:
	case CONF_LLONG: return parse_integer(x, r, v, c);
	case CONF_DOUBLE:
	case CONF_DOUBLE_AUTO: return parse_double(x, r, v, c);
	case CONF_LEVELS: return parse_levels(x, r, v, c);
	}
	abort();
}

static int find_key(const char *name)
{
	for (int i = 0; i < WEST_CONF_NKEYS; i++)
		if (strcmp(name, rows[i].name) == 0)
			return i;
	return -1;
}

static char *trim(char *s)
{
	char *e = s + strlen(s);
	while (isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	*e = '\0';
	return s;
}

/* Cut a value in place: a quoted value, or text up to '#', trimmed. */
static enum west_status cut_value(const struct conf_ctx *x, const char *key,
				  char *v, char **out)
{
	const char *why = NULL;
	char *q;

	while (isspace((unsigned char)*v))
		v++;
	if (*v != '"') {
		v[strcspn(v, "#")] = '\0';
		*out = trim(v);
		if (strchr(*out, '"'))
			why = "a '\"' may only open and close a quoted value";
	} else if (!(q = strchr(v + 1, '"'))) {
		why = "quoted value has no closing '\"'";
	} else {
		*q = '\0';
		*out = v + 1;
		q = trim(q + 1);
		if (*q != '\0' && *q != '#')
			why = "text after the closing '\"'";
	}
	if (!why)
		return WEST_OK;
	return west_fail(x->err, x->errlen, WEST_ERR_INVALID, "%s: %.*s: %s",
			 x->where, CONF_QUOTE_MAX, key, why);
}

/*
 * Split "key = value # comment" in place.  *key is NULL for a blank or
 * comment-only line.
 */
static enum west_status split_line(const struct conf_ctx *x, char *line,
				   char **key, char **value)
{
	size_t k = strcspn(line, "=#");

	*key = NULL;
	if (line[k] != '=') {
		line[k] = '\0';
		if (*trim(line) == '\0')
			return WEST_OK;
		return west_fail(x->err, x->errlen, WEST_ERR_INVALID,
				 "%s: expected 'key = value'", x->where);
	}
	line[k] = '\0';
	*key = trim(line);
	if (**key == '\0')
		return west_fail(x->err, x->errlen, WEST_ERR_INVALID,
				 "%s: no key before '='", x->where);
	return cut_value(x, *key, line + k + 1, value);
}

/* Parse one line into c; *key_out is the row index, or -1 when blank. */
static enum west_status apply_line(const struct conf_ctx *x, char *line,
				   struct west_config *c, int *key_out)
{
	char *key, *value = NULL;
	enum west_status st;
	int i;

	*key_out = -1;
	st = split_line(x, line, &key, &value);
	if (st != WEST_OK || !key)
		return st;
	i = find_key(key);
	if (i < 0)
		return west_fail(x->err, x->errlen, WEST_ERR_INVALID,
				 "%s: unknown key '%.*s'", x->where, CONF_QUOTE_MAX, key);
	st = parse_value(x, &rows[i], value, c);
	if (st != WEST_OK)
		return st;
	c->set[i] = 1;
	*key_out = i;
	return WEST_OK;
}

/* ------------------------------------------------------------- defaults */

void west_config_defaults(struct west_config *c)
{
	char err[WEST_ERRLEN];
	struct conf_ctx x = { "default", err, sizeof err };

	memset(c, 0, sizeof *c);
	for (size_t i = 0; i < WEST_CONF_NKEYS; i++) {
		if (parse_value(&x, &rows[i], rows[i].def, c) != WEST_OK) {
			fprintf(stderr, "west_config_defaults: %s\n", err);
			abort(); /* a bad table is a programmer error */
		}
	}
}

/* ---------------------------------------------------------------- files */

/* The file being read: its name, the scratch copy and where keys were set. */
struct conf_file {
	const char *path;
	FILE *f;
	unsigned long lineno;
	unsigned long line_of[WEST_CONF_NKEYS]; /* 0 = not in this file */
	struct west_config c;
	char line[CONF_LINE_MAX + 2];
};

/*
 * Read one line without its newline into cf->line: 1 a line, 0 end of file,
 * -1 an error already in err (too long, NUL byte, read error).
 */
static int read_line(struct conf_file *cf, char *err, size_t errlen)
{
	size_t n = 0;
	int ch;

	while ((ch = getc(cf->f)) != EOF && ch != '\n') {
		if (n == CONF_LINE_MAX || ch == '\0') {
			west_fail(err, errlen, WEST_ERR_INVALID, "%s:%lu: %s",
				  cf->path, cf->lineno + 1, ch ? "line longer than "
				  CONF_LINE_MAX_STR " bytes" : "NUL byte in line (not a text file?)");
			return -1;
		}
		cf->line[n++] = (char)ch;
	}
	if (ferror(cf->f)) {
		west_fail(err, errlen, WEST_ERR_IO, "%s: read error: %s", cf->path,
			  strerror(errno));
		return -1;
	}
	cf->line[n] = '\0';
	if (ch == EOF && n == 0)
		return 0;
	cf->lineno++;
	return 1;
}

static enum west_status file_line(struct conf_file *cf, char *err, size_t errlen)
{
	char where[WEST_ERRLEN];
	struct conf_ctx x = { where, err, errlen };
	char *line = cf->line;
	int key;
	enum west_status st;

	snprintf(where, sizeof where, "%s:%lu", cf->path, cf->lineno);
	if (cf->lineno == 1 && strncmp(line, "\xef\xbb\xbf", 3) == 0)
		line += 3; /* UTF-8 byte order mark */
	st = apply_line(&x, line, &cf->c, &key);
	if (st != WEST_OK || key < 0)
		return st;
	if (cf->line_of[key])
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s: key '%s' already set at line %lu", where,
				 rows[key].name, cf->line_of[key]);
	cf->line_of[key] = cf->lineno;
	return WEST_OK;
}

/* A non-empty levels list and nz or dz in the same file. */
static enum west_status file_cross_check(const struct conf_file *cf, char *err,
					 size_t errlen)
{
	if (!cf->line_of[WEST_CONF_LEVELS] || cf->c.nlevels == 0)
		return WEST_OK;
	if (!cf->line_of[WEST_CONF_NZ] && !cf->line_of[WEST_CONF_DZ])
		return WEST_OK;
	return west_fail(err, errlen, WEST_ERR_INVALID,
			 "%s:%lu: levels and nz/dz both set; levels gives the level "
			 "heights, drop nz and dz", cf->path, cf->line_of[WEST_CONF_LEVELS]);
}

static enum west_status read_file(struct conf_file *cf, char *err, size_t errlen)
{
	enum west_status st;
	int r;

	while ((r = read_line(cf, err, errlen)) > 0) {
		st = file_line(cf, err, errlen);
		if (st != WEST_OK)
			return st;
	}
	if (r < 0)
		return ferror(cf->f) ? WEST_ERR_IO : WEST_ERR_INVALID;
	return file_cross_check(cf, err, errlen);
}

enum west_status west_config_load(struct west_config *c, const char *path,
				  char *err, size_t errlen)
{
	struct conf_file *cf = calloc(1, sizeof *cf);
	enum west_status st;

	if (!cf)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "%s: out of memory", path);
	cf->path = path;
	cf->c = *c;
	cf->f = fopen(path, "r");
	if (!cf->f) {
		st = west_fail(err, errlen, WEST_ERR_IO, "%s: cannot open: %s", path,
			       strerror(errno));
		free(cf);
		return st;
	}
	st = read_file(cf, err, errlen);
	fclose(cf->f);
	if (st == WEST_OK)
		*c = cf->c;
	free(cf);
	return st;
}

/* ----------------------------------------------------------------- --set */

/* The --set assignment on a scratch copy t; the caller copies t back. */
static enum west_status set_one(const struct conf_ctx *x, char *line,
				struct west_config *t)
{
	int key;
	enum west_status st = apply_line(x, line, t, &key);

	if (st != WEST_OK)
		return st;
	if (key < 0)
		return west_fail(x->err, x->errlen, WEST_ERR_INVALID,
				 "%s: expected 'key=value'", x->where);
	if ((key == WEST_CONF_NZ || key == WEST_CONF_DZ) && t->nlevels)
		return west_fail(x->err, x->errlen, WEST_ERR_INVALID,
				 "%s: %s: levels is set, so nz and dz are not used; "
				 "give levels= (empty) first", x->where, rows[key].name);
	return WEST_OK;
}

enum west_status west_config_set(struct west_config *c, const char *assignment,
				 const char *origin, char *err, size_t errlen)
{
	struct conf_ctx x = { origin, err, errlen };
	struct west_config *t = malloc(sizeof *t);
	char *line = strdup(assignment);
	enum west_status st;

	if (!t || !line) {
		st = west_fail(err, errlen, WEST_ERR_NOMEM, "%s: out of memory", origin);
	} else {
		*t = *c;
		st = set_one(&x, line, t);
		if (st == WEST_OK)
			*c = *t;
	}
	free(line);
	free(t);
	return st;
}

/* --------------------------------------------------------------- reload */

static int same_value(const struct conf_row *r, const struct west_config *a,
		      const struct west_config *b)
{
	const void *fa = (const char *)a + r->offset;
	const void *fb = (const char *)b + r->offset;
	double da, db;

	switch (r->type) {
	case CONF_STRING:
	case CONF_DEVICES:
	case CONF_WEIGHTS:
		return strcmp(fa, fb) == 0;
	case CONF_DOUBLE:
	case CONF_DOUBLE_AUTO:
		da = *(const double *)fa;
		db = *(const double *)fb;
		return da == db || (isnan(da) && isnan(db));
	case CONF_LEVELS:
		return a->nlevels == b->nlevels &&
		       memcmp(fa, fb, a->nlevels * sizeof(double)) == 0;
	default: /* int, long, long long: no padding inside */
		return memcmp(fa, fb, r->size) == 0;
	}
}

enum west_status west_config_check_reload(const struct west_config *old,
					  const struct west_config *new_,
					  char *err, size_t errlen)
{
	for (size_t i = 0; i < WEST_CONF_NKEYS; i++)
		if (!rows[i].reloadable && !same_value(&rows[i], old, new_))
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "%s: a reload cannot change this key (restart westd)",
					 rows[i].name);
	return WEST_OK;
}

/* ---------------------------------------------------------------- table */

size_t west_config_nkeys(void) { return WEST_CONF_NKEYS; }

const char *west_config_key_name(size_t i)
{
	return i < WEST_CONF_NKEYS ? rows[i].name : NULL;
}

int west_config_key_reloadable(size_t i)
{
	return i < WEST_CONF_NKEYS && rows[i].reloadable;
}

/* ---------------------------------------------------------------- write */

/* The shortest %g form that reads back as the same double. */
static void write_double(FILE *f, double d)
{
	char buf[40];
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	fputs(buf, f);
}

static void write_string(FILE *f, const char *s)
{
	size_t n = strlen(s);
	int quote = n == 0 || strpbrk(s, "#") || isspace((unsigned char)s[0]) ||
		    isspace((unsigned char)s[n - 1]);
	for (const char *p = s; *p && !quote; p++)
		quote = isspace((unsigned char)*p);
	fprintf(f, quote ? "\"%s\"" : "%s", s);
}

static const char *enum_word(const struct conf_row *r, int v)
{
	for (int i = 0; r->words[i]; i++)
		if (i == v)
			return r->words[i];
	return "?"; /* not a value the parser stores */
}

static void write_value(FILE *f, const struct conf_row *r,
			const struct west_config *c)
{
	const void *v = (const char *)c + r->offset;
	double d;

	switch (r->type) {
	case CONF_STRING:
	case CONF_DEVICES:
	case CONF_WEIGHTS: write_string(f, v); break;
	case CONF_ENUM: fputs(enum_word(r, *(const int *)v), f); break;
	case CONF_LOGLEVEL:
		fputs(west_log_level_name((enum west_log_level)*(const int *)v), f);
		break;
	case CONF_LONG: fprintf(f, "%ld", *(const long *)v); break;
	case CONF_LLONG: fprintf(f, "%lld", *(const long long *)v); break;
	case CONF_DOUBLE:
	case CONF_DOUBLE_AUTO:
		d = *(const double *)v;
		if (isnan(d))
			fputs("auto", f);
		else
			write_double(f, d);
		break;
	case CONF_LEVELS:
		for (size_t i = 0; i < c->nlevels; i++) {
			fputs(i ? ", " : "", f);
			write_double(f, c->levels[i]);
		}
		break;
	}
}

/* With a level list, nz and dz are written as comments: a file may not give both. */
void west_config_write(FILE *f, const struct west_config *c)
{
	for (size_t i = 0; i < WEST_CONF_NKEYS; i++) {
		int unused = c->nlevels && (i == WEST_CONF_NZ || i == WEST_CONF_DZ);
		fprintf(f, "# %s\n%s%s = ", rows[i].help, unused ? "# " : "",
			rows[i].name);
		write_value(f, &rows[i], c);
		fputs(unused ? "  (not used: levels is set)\n" : "\n", f);
	}
}
