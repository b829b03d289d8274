/*
 * test_config.c: the config table and parser (src/config.c).
 *
 * Every test writes its files into a fresh mkdtemp directory under /tmp
 * (made by the suite's init, removed by its fini).  The shipped
 * conf/westd.conf is found under WEST_SRCDIR, which the build passes as an
 * absolute path; it must load to exactly the defaults and name every key.
 *
 * Bad files all begin with two good lines (log_level = debug, resolution =
 * 7) so that each error case also checks that nothing of a failed load is
 * applied, and that line numbers count from the top of the file.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"   /* the choice keys' enums: backend, model, grid, terrain */
#include "config.h"
#include "log.h"

#ifndef WEST_SRCDIR
#define WEST_SRCDIR "."
#endif

#define SHIPPED_CONF WEST_SRCDIR "/conf/westd.conf"

static char tmpdir[64];

static void setup(void)
{
	strcpy(tmpdir, "/tmp/west_test_config.XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp failed");
}

static void teardown(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char p[sizeof tmpdir + 256 + 2];

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
			unlink(p);
		}
	closedir(d);
	rmdir(tmpdir);
}

TestSuite(config, .init = setup, .fini = teardown);

/* Write len bytes of text to tmpdir/name; path gets the file's path. */
static void write_bytes(char *path, size_t pathlen, const char *name,
			const char *text, size_t len)
{
	FILE *f;

	snprintf(path, pathlen, "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "cannot create %s", path);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

static void write_conf(char *path, size_t pathlen, const char *name,
		       const char *text)
{
	write_bytes(path, pathlen, name, text, strlen(text));
}

static int same_double(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

/* The first field whose value differs (set[] not compared), or NULL. */
static const char *config_diff(const struct west_config *a,
			       const struct west_config *b)
{
	if (strcmp(a->terrain, b->terrain)) return "terrain";
	if (strcmp(a->terrain_variable, b->terrain_variable)) return "terrain_variable";
	if (a->terrain_epsg != b->terrain_epsg) return "terrain_epsg";
	if (a->nodata != b->nodata) return "nodata";
	if (!same_double(a->resolution, b->resolution)) return "resolution";
	if (a->nz != b->nz) return "nz";
	if (!same_double(a->dz, b->dz)) return "dz";
	if (a->nlevels != b->nlevels) return "nlevels";
	for (size_t i = 0; i < a->nlevels; i++)
		if (a->levels[i] != b->levels[i]) return "levels";
	if (!same_double(a->base_altitude, b->base_altitude)) return "base_altitude";
	if (a->max_cells != b->max_cells) return "max_cells";
	if (a->backend != b->backend) return "backend";
	if (a->log_level != b->log_level) return "log_level";
	return NULL;
}

static int nset(const struct west_config *c)
{
	int n = 0;
	for (int i = 0; i < WEST_CONF_NKEYS; i++)
		n += c->set[i] != 0;
	return n;
}

/* west_config_write output in a malloc'd string. */
static char *written(const struct west_config *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	west_config_write(f, c);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

/* Load text as a file onto c; returns the status, err filled. */
static enum west_status load_text(struct west_config *c, const char *text,
				  char *path, size_t pathlen, char *err)
{
	write_conf(path, pathlen, "t.conf", text);
	err[0] = '\0';
	return west_config_load(c, path, err, WEST_ERRLEN);
}

static struct west_config *new_defaults(void)
{
	struct west_config *c = malloc(sizeof *c);
	cr_assert_not_null(c);
	west_config_defaults(c);
	return c;
}

/* ------------------------------------------------------------- defaults */

Test(config, defaults)
{
	struct west_config *c = new_defaults();

	cr_expect_str_eq(c->terrain, "");
	cr_expect_str_eq(c->terrain_variable, "");
	cr_expect_eq(c->terrain_epsg, 0);
	cr_expect_eq(c->nodata, WEST_NODATA_REFUSE);
	cr_expect_eq(c->resolution, 0.0);
	cr_expect_eq(c->nz, 30);
	cr_expect_eq(c->dz, 20.0);
	cr_expect_eq(c->nlevels, 0);
	cr_expect(isnan(c->base_altitude), "base_altitude default is auto (NaN)");
	cr_expect_eq(c->max_cells, 200000000LL);
	cr_expect_eq(c->backend, WEST_BACKEND_AUTO);
	cr_expect_eq(c->log_level, WEST_LOG_INFO);
	cr_expect_eq(c->max_stations, 1000);
	cr_expect_eq(c->allow_outside, 0);
	cr_expect_eq(c->land_use, WEST_LAND_RURAL);
	cr_expect_eq(c->iterations, 1000);
	cr_expect_eq(c->tolerance, 1e-4);
	cr_expect_eq(c->omega, 1.25);
	cr_expect(isnan(c->eta));   /* auto */
	cr_expect_eq(c->indexing, WEST_INDEXING_COMPACT);
	cr_expect_eq(c->check_interval, 20);
	cr_expect_eq(c->ui_age_warn, 1800.0);
	cr_expect_eq(c->ui_age_alert, 3600.0);
	cr_expect_eq(c->terrain_timeout, 600.0);
	cr_expect_eq(nset(c), 0);
	free(c);
}

Test(config, table)
{
	static const char *const names[] = {
		"terrain", "terrain_variable", "terrain_epsg", "nodata", "resolution",
		"terrain_timeout", "nz", "dz",
		"levels", "base_altitude", "max_cells", "terrain_faces", "backend", "devices", "weights",
		"exchange", "log_level",
		"max_stations", "allow_outside", "land_use", "solver", "iterations",
		"cycles", "tolerance", "omega", "eta", "indexing", "check_interval",
		"listen", "http_threads", "max_connections", "per_ip_connections",
		"connection_timeout", "max_body_bytes", "max_response_cells",
		"api_token", "api_token_file", "read_auth", "max_field_age",
		"state_dir", "observations_keep", "obs_max_age", "obs_max_future", "spool_dir",
		"spool_scan_interval", "snapshot_dir", "snapshot_keep",
		"snapshot_interval", "field_pool", "max_particles", "max_release_hours",
		"releases_keep", "releases_max_age", "releases_queue", "release_threads",
		"ui_age_warn", "ui_age_alert",
	};
	/* the keys a reload cannot change: those fixed at start (the backend,
	 * the listening socket and its limits, the directories) */
	static const int fixed[] = {
		WEST_CONF_BACKEND, WEST_CONF_DEVICES, WEST_CONF_WEIGHTS, WEST_CONF_LISTEN, WEST_CONF_HTTP_THREADS,
		WEST_CONF_MAX_CONNECTIONS, WEST_CONF_PER_IP_CONNECTIONS,
		WEST_CONF_CONNECTION_TIMEOUT, WEST_CONF_STATE_DIR,
		WEST_CONF_OBSERVATIONS_KEEP, WEST_CONF_SPOOL_DIR,
		WEST_CONF_SNAPSHOT_DIR, WEST_CONF_FIELD_POOL, WEST_CONF_RELEASE_THREADS,
	};

	cr_assert_eq(west_config_nkeys(), WEST_CONF_NKEYS);
	cr_assert_eq(sizeof names / sizeof names[0], WEST_CONF_NKEYS);
	for (size_t i = 0; i < WEST_CONF_NKEYS; i++) {
		cr_expect_str_eq(west_config_key_name(i), names[i], "row %zu", i);
		int reloadable = 1;
		for (size_t f = 0; f < sizeof fixed / sizeof fixed[0]; f++)
			if ((size_t)fixed[f] == i)
				reloadable = 0;
		cr_expect_eq(west_config_key_reloadable(i), reloadable,
			     "reloadable flag of %s", names[i]);
	}
	cr_expect_null(west_config_key_name(WEST_CONF_NKEYS));
	cr_expect_eq(west_config_key_reloadable(WEST_CONF_NKEYS), 0);
}

/* --------------------------------------------------------- shipped file */

Test(config, shipped_conf_gives_the_defaults)
{
	struct west_config *d = new_defaults(), *c = new_defaults();
	char err[WEST_ERRLEN] = "";
	char *wd, *wc;

	cr_assert_eq(west_config_load(c, SHIPPED_CONF, err, sizeof err), WEST_OK,
		     "%s", err);
	cr_expect_null(config_diff(c, d), "%s differs from its default",
		       config_diff(c, d));
	cr_expect_eq(nset(c), WEST_CONF_NKEYS, "the shipped file gives every key");
	wd = written(d);
	wc = written(c);
	cr_expect_str_eq(wc, wd);
	free(wd);
	free(wc);
	free(c);
	free(d);
}

/* Each key: one uncommented "key =" line, with a comment line just above. */
Test(config, shipped_conf_documents_every_key)
{
	FILE *f = fopen(SHIPPED_CONF, "r");
	char line[1024], prev[1024] = "";
	int count[WEST_CONF_NKEYS] = { 0 }, commented[WEST_CONF_NKEYS] = { 0 };

	cr_assert_not_null(f, "cannot open %s", SHIPPED_CONF);
	while (fgets(line, sizeof line, f)) {
		for (size_t i = 0; i < WEST_CONF_NKEYS; i++) {
			const char *k = west_config_key_name(i);
			size_t n = strlen(k), sp = strspn(line + n, " \t");
			if (strncmp(line, k, n) == 0 && line[n + sp] == '=') {
				count[i]++;
				commented[i] = prev[0] == '#';
			}
		}
		strcpy(prev, line);
	}
	fclose(f);
	for (size_t i = 0; i < WEST_CONF_NKEYS; i++) {
		cr_expect_eq(count[i], 1, "key %s appears %d times in %s",
			     west_config_key_name(i), count[i], SHIPPED_CONF);
		cr_expect(commented[i], "key %s has no comment above it",
			  west_config_key_name(i));
	}
}

/* ---------------------------------------------------------------- types */

Test(config, every_type_parses)
{
	struct west_config *c = new_defaults();
	char path[256], err[WEST_ERRLEN];
	const char *text =
		"terrain = /data/dem.asc\n"
		"terrain_variable = \"band 1 # main\"   # quoted: '#' and spaces kept\n"
		"terrain_epsg = 32633\n"
		"nodata = fill\n"
		"resolution = 12.5\n"
		"nz = 4096\n"
		"dz = 0.25\n"
		"base_altitude = -431.5\n"
		"max_cells = 4000000000\n"
		"backend = cuda\n"
		"log_level = debug\n";

	cr_assert_eq(load_text(c, text, path, sizeof path, err), WEST_OK, "%s", err);
	cr_expect_str_eq(c->terrain, "/data/dem.asc");
	cr_expect_str_eq(c->terrain_variable, "band 1 # main");
	cr_expect_eq(c->terrain_epsg, 32633);
	cr_expect_eq(c->nodata, WEST_NODATA_FILL);
	cr_expect_eq(c->resolution, 12.5);
	cr_expect_eq(c->nz, 4096);
	cr_expect_eq(c->dz, 0.25);
	cr_expect_eq(c->base_altitude, -431.5);
	cr_expect_eq(c->max_cells, 4000000000LL);
	cr_expect_eq(c->backend, WEST_BACKEND_CUDA);
	cr_expect_eq(c->log_level, WEST_LOG_DEBUG);
	cr_expect_eq(nset(c), 11);
	cr_expect_eq(c->set[WEST_CONF_LEVELS], 0, "levels was not given");
	cr_expect_eq(c->set[WEST_CONF_NZ], 1);
	free(c);
}

Test(config, bounds_are_inclusive_where_stated)
{
	struct west_config *c = new_defaults();
	char path[256], err[WEST_ERRLEN];
	const char *text = "nz = 1\ndz = 10000\nresolution = 100000\n"
			   "base_altitude = -12000\nmax_cells = 1\n";

	cr_assert_eq(load_text(c, text, path, sizeof path, err), WEST_OK, "%s", err);
	cr_expect_eq(c->nz, 1);
	cr_expect_eq(c->dz, 10000.0);
	cr_expect_eq(c->resolution, 100000.0);
	cr_expect_eq(c->base_altitude, -12000.0);
	cr_expect_eq(c->max_cells, 1);
	free(c);
}

Test(config, auto_and_quoted_empty_values)
{
	struct west_config *c = new_defaults();
	char path[256], err[WEST_ERRLEN];

	cr_assert_eq(load_text(c, "base_altitude = 100\nterrain = /x\n", path,
			       sizeof path, err), WEST_OK, "%s", err);
	cr_assert_eq(c->base_altitude, 100.0);
	cr_assert_eq(load_text(c, "base_altitude = auto\nterrain = \"\"\n", path,
			       sizeof path, err), WEST_OK, "%s", err);
	cr_expect(isnan(c->base_altitude), "auto stores NaN");
	cr_expect_str_eq(c->terrain, "");
	free(c);
}

Test(config, levels_list)
{
	struct west_config *c = new_defaults();
	char path[256], err[WEST_ERRLEN];
	const double want[] = { 0, 5, 12.5, 22, 36, 56 };

	cr_assert_eq(load_text(c, "levels = 0, 5 12.5,22 ,  36\t56\n", path,
			       sizeof path, err), WEST_OK, "%s", err);
	cr_assert_eq(c->nlevels, 6);
	for (size_t i = 0; i < 6; i++)
		cr_expect_eq(c->levels[i], want[i], "level %zu", i);
	cr_expect_eq(c->set[WEST_CONF_LEVELS], 1);

	cr_assert_eq(load_text(c, "levels =\n", path, sizeof path, err), WEST_OK,
		     "%s", err);
	cr_expect_eq(c->nlevels, 0, "an empty value clears the list");
	free(c);
}

Test(config, levels_longest_list)
{
	struct west_config *c = new_defaults();
	size_t cap = WEST_CONF_MAX_LEVELS + 1, len = 0;
	char *text = malloc(16 * cap + 32), path[256], err[WEST_ERRLEN];

	len += (size_t)sprintf(text, "levels = 0");
	for (size_t i = 1; i < cap; i++)
		len += (size_t)sprintf(text + len, ",%zu", i * 10);
	strcpy(text + len, "\n");
	cr_assert_eq(load_text(c, text, path, sizeof path, err), WEST_OK, "%s", err);
	cr_expect_eq(c->nlevels, cap);
	cr_expect_eq(c->levels[cap - 1], (double)(cap - 1) * 10);

	sprintf(text + len, ",%zu\n", cap * 10);
	cr_expect_eq(load_text(c, text, path, sizeof path, err), WEST_ERR_INVALID);
	cr_expect(strstr(err, ":1: levels: more than 1025 values"), "got: %s", err);
	cr_expect_eq(c->nlevels, cap, "the failed load left the list alone");
	free(text);
	free(c);
}

Test(config, comments_blank_lines_and_spacing)
{
	struct west_config *c = new_defaults();
	char path[256], err[WEST_ERRLEN];
	const char *text =
		"# a comment\n"
		"\n"
		"   \t\n"
		"   # indented comment = with an equals sign\n"
		"nz=12# comment right after the value\n"
		"\tdz   =   3.5   \r\n"
		"terrain = /a/b # c\n"
		"log_level = warning";   /* no final newline */

	cr_assert_eq(load_text(c, text, path, sizeof path, err), WEST_OK, "%s", err);
	cr_expect_eq(c->nz, 12);
	cr_expect_eq(c->dz, 3.5);
	cr_expect_str_eq(c->terrain, "/a/b");
	cr_expect_eq(c->log_level, WEST_LOG_WARNING);
	cr_expect_eq(nset(c), 4);
	free(c);
}

Test(config, load_applies_on_top)
{
	struct west_config *c = new_defaults();
	char path[256], err[WEST_ERRLEN];

	cr_assert_eq(load_text(c, "nz = 10\n", path, sizeof path, err), WEST_OK);
	cr_assert_eq(load_text(c, "dz = 2\n", path, sizeof path, err), WEST_OK);
	cr_expect_eq(c->nz, 10, "a second file keeps keys it does not give");
	cr_expect_eq(c->dz, 2.0);
	cr_expect(c->set[WEST_CONF_NZ] && c->set[WEST_CONF_DZ]);
	free(c);
}

/* ----------------------------------------------------------- bad files */

#define PREFIX "log_level = debug\nresolution = 7\n"
#define PREFIX_LINES 2
#define X16 "xxxxxxxxxxxxxxxx"
#define X256 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16

/*
 * Parameters hold their strings inline: Criterion runs each parameter in a
 * fresh process, where pointers into this one would be meaningless.
 */
struct bad_case {
	char body[320];   /* after PREFIX */
	unsigned line;    /* line of the error within body */
	char expect[96];  /* must appear after "FILE:LINE: " */
};

ParameterizedTestParameters(config, bad_file)
{
	static struct bad_case cases[] = {
		{ "nonsense\n", 1, "expected 'key = value'" },
		{ "\n  = 5\n", 2, "no key before '='" },
		{ "dz = 5\nterrain = x\ndz = 6\n", 3, "key 'dz' already set at line 3" },
		{ "\nfoo = 1\n", 2, "unknown key 'foo'" },
		{ "nz = 0\n", 1, "nz: '0' is out of range [1, 4096]" },
		{ "nz = 4097\n", 1, "nz: '4097' is out of range [1, 4096]" },
		{ "nz = 1.5\n", 1, "nz: '1.5' is not an integer" },
		{ "nz = 12abc\n", 1, "nz: '12abc' is not an integer" },
		{ "nz =\n", 1, "nz: '' is not an integer" },
		{ "nz = 99999999999999999999999\n", 1, "nz: '99999999999999999999999' is out of range" },
		{ "backend = gpu\n", 1, "backend: 'gpu' is not one of auto, cpu, cuda" },
		{ "nodata = skip\n", 1, "nodata: 'skip' is not one of refuse, fill" },
		{ "log_level = loud\n", 1,
		  "log_level: 'loud' is not one of error, warning, notice, info, debug" },
		{ "dz = abc\n", 1, "dz: 'abc' is not a number" },
		{ "dz = 5 m\n", 1, "dz: '5 m' is not a number" },
		{ "dz = 0\n", 1, "dz: '0' is out of range (0, 10000]" },
		{ "dz = 10000.5\n", 1, "dz: '10000.5' is out of range (0, 10000]" },
		{ "resolution = nan\n", 1, "resolution: 'nan' is not a number" },
		{ "resolution = inf\n", 1, "resolution: 'inf' is not a number" },
		{ "resolution = -1\n", 1, "resolution: '-1' is out of range [0, 100000]" },
		{ "resolution = 1e999\n", 1, "resolution: '1e999' is out of range [0, 100000]" },
		{ "terrain_epsg = -1\n", 1, "terrain_epsg: '-1' is out of range [0, 999999]" },
		{ "terrain_epsg = 326.33\n", 1, "terrain_epsg: '326.33' is not an integer" },
		{ "max_cells = 0\n", 1, "max_cells: '0' is out of range [1, 4000000000]" },
		{ "max_cells = 4000000001\n", 1,
		  "max_cells: '4000000001' is out of range [1, 4000000000]" },
		{ "base_altitude = high\n", 1, "base_altitude: 'high' is not a number or auto" },
		{ "base_altitude = -12001\n", 1,
		  "base_altitude: '-12001' is out of range [-12000, 10000]" },
		{ "terrain_variable = " X256 "\n", 1,
		  "terrain_variable: value is 256 bytes long, at most 255 allowed" },
		{ "terrain = \"/a b\n", 1, "terrain: quoted value has no closing" },
		{ "terrain = \"/a\" b\n", 1, "terrain: text after the closing" },
		{ "terrain = /a\"b\n", 1, "terrain: a '\"' may only open and close" },
		{ "levels = 0, 10, 10\n", 1, "levels: value 3 (10) is not above value 2 (10)" },
		{ "levels = 0 20 10\n", 1, "levels: value 3 (10) is not above value 2 (20)" },
		{ "levels = 5, 10\n", 1, "levels: value 1 is 5, the first level must start at 0" },
		{ "levels = 0\n", 1, "levels: 1 value given, at least 2 are needed" },
		{ "levels = 0,,10\n", 1, "levels: value 2 is empty" },
		{ "levels = ,0,10\n", 1, "levels: value 1 is empty" },
		{ "levels = 0, 10,\n", 1, "levels: value 3 is empty" },
		{ "levels = 0, abc\n", 1, "levels: 'abc' (value 2) is not a number" },
		{ "levels = 0, 200000\n", 1,
		  "levels: '200000' (value 2) is out of range [0, 100000]" },
		{ "levels = 0 10\nnz = 5\n", 1,
		  "levels and nz/dz both set; levels gives the level heights, drop nz and dz" },
		{ "dz = 5\n\nlevels = 0 10\n", 3, "levels and nz/dz both set" },
	};
	return cr_make_param_array(struct bad_case, cases,
				   sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct bad_case *bc, config, bad_file)
{
	struct west_config *c = new_defaults(), *before = new_defaults();
	char path[256], err[WEST_ERRLEN], prefix[320], text[1024];

	snprintf(text, sizeof text, "%s%s", PREFIX, bc->body);
	cr_assert_eq(load_text(c, text, path, sizeof path, err), WEST_ERR_INVALID,
		     "file was accepted:\n%s", text);
	snprintf(prefix, sizeof prefix, "%s:%u: ", path, PREFIX_LINES + bc->line);
	cr_expect_eq(strncmp(err, prefix, strlen(prefix)), 0,
		     "error '%s' should start with '%s'", err, prefix);
	cr_expect(strstr(err, bc->expect), "error '%s' should contain '%s'", err,
		  bc->expect);
	cr_expect_eq(c->log_level, WEST_LOG_INFO, "log_level of line 1 was applied");
	cr_expect_eq(c->resolution, 0.0, "resolution of line 2 was applied");
	cr_expect_null(config_diff(c, before), "%s changed", config_diff(c, before));
	cr_expect_eq(nset(c), 0, "set[] changed");
	free(c);
	free(before);
}

Test(config, levels_empty_with_nz_is_fine)
{
	struct west_config *c = new_defaults();
	char path[256], err[WEST_ERRLEN];

	cr_expect_eq(load_text(c, "levels =\nnz = 5\ndz = 2\n", path, sizeof path,
			       err), WEST_OK, "%s", err);
	cr_expect_eq(c->nz, 5);
	free(c);
}

Test(config, line_too_long)
{
	struct west_config *c = new_defaults();
	size_t n = 70000;
	char *text = malloc(n + 64), path[256], err[WEST_ERRLEN], prefix[300];

	strcpy(text, "nz = 5\n# ");
	memset(text + 9, 'x', n);
	strcpy(text + 9 + n, "\n");
	write_conf(path, sizeof path, "long.conf", text);
	cr_assert_eq(west_config_load(c, path, err, sizeof err), WEST_ERR_INVALID);
	snprintf(prefix, sizeof prefix, "%s:2: line longer than", path);
	cr_expect(strstr(err, prefix), "got: %s", err);
	cr_expect_eq(c->nz, 30);
	free(text);
	free(c);
}

Test(config, nul_byte)
{
	struct west_config *c = new_defaults();
	char path[256], err[WEST_ERRLEN], prefix[300];

	write_bytes(path, sizeof path, "nul.conf", "nz = 5\nnz\0 = 6\n", 15);
	cr_assert_eq(west_config_load(c, path, err, sizeof err), WEST_ERR_INVALID);
	snprintf(prefix, sizeof prefix, "%s:2: NUL byte", path);
	cr_expect(strstr(err, prefix), "got: %s", err);
	cr_expect_eq(c->nz, 30);
	free(c);
}

Test(config, cannot_open)
{
	struct west_config *c = new_defaults();
	char path[256], err[WEST_ERRLEN], want[300];

	snprintf(path, sizeof path, "%s/missing.conf", tmpdir);
	cr_assert_eq(west_config_load(c, path, err, sizeof err), WEST_ERR_IO);
	snprintf(want, sizeof want, "%s: cannot open: No such file or directory", path);
	cr_expect_str_eq(err, want);
	free(c);
}

/* ----------------------------------------------------------------- --set */

Test(config, set_good)
{
	struct west_config *c = new_defaults();
	char err[WEST_ERRLEN] = "";

	cr_assert_eq(west_config_set(c, "nz=50", "--set", err, sizeof err), WEST_OK,
		     "%s", err);
	cr_assert_eq(west_config_set(c, "  log_level = debug ", "--set", err,
				     sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_config_set(c, "terrain=\"/a b/#c\"", "--set", err,
				     sizeof err), WEST_OK, "%s", err);
	cr_expect_eq(c->nz, 50);
	cr_expect_eq(c->log_level, WEST_LOG_DEBUG);
	cr_expect_str_eq(c->terrain, "/a b/#c");
	cr_expect_eq(nset(c), 3);
	cr_expect(c->set[WEST_CONF_NZ] && c->set[WEST_CONF_LOG_LEVEL] &&
		  c->set[WEST_CONF_TERRAIN]);
	free(c);
}

struct bad_set {
	char assignment[64];
	char expect[96]; /* the whole message */
};

ParameterizedTestParameters(config, set_bad)
{
	static struct bad_set cases[] = {
		{ "foo=1", "--set: unknown key 'foo'" },
		{ "nz=0", "--set: nz: '0' is out of range [1, 4096]" },
		{ "backend=gpu", "--set: backend: 'gpu' is not one of auto, cpu, cuda" },
		{ "nz", "--set: expected 'key = value'" },
		{ "=3", "--set: no key before '='" },
		{ "", "--set: expected 'key=value'" },
		{ "levels=0,5,3", "--set: levels: value 3 (3) is not above value 2 (5); "
		  "levels must increase strictly" },
	};
	return cr_make_param_array(struct bad_set, cases,
				   sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct bad_set *bs, config, set_bad)
{
	struct west_config *c = new_defaults(), *before = new_defaults();
	char err[WEST_ERRLEN] = "";

	cr_assert_eq(west_config_set(c, bs->assignment, "--set", err, sizeof err),
		     WEST_ERR_INVALID, "'%s' was accepted", bs->assignment);
	cr_expect_str_eq(err, bs->expect);
	cr_expect_null(config_diff(c, before), "%s changed", config_diff(c, before));
	cr_expect_eq(nset(c), 0);
	free(c);
	free(before);
}

Test(config, set_nz_while_levels_in_force)
{
	struct west_config *c = new_defaults();
	char err[WEST_ERRLEN] = "";

	cr_assert_eq(west_config_set(c, "nz=40", "--set", err, sizeof err), WEST_OK);
	cr_assert_eq(west_config_set(c, "levels=0,10,30", "--set", err, sizeof err),
		     WEST_OK, "--set levels takes over from nz: %s", err);
	cr_expect_eq(c->nlevels, 3);
	cr_expect_eq(west_config_set(c, "dz=3", "-s", err, sizeof err), WEST_ERR_INVALID);
	cr_expect(strstr(err, "-s: dz: levels is set"), "got: %s", err);
	cr_expect_eq(c->dz, 20.0);
	cr_assert_eq(west_config_set(c, "levels=", "--set", err, sizeof err), WEST_OK);
	cr_expect_eq(west_config_set(c, "dz=3", "--set", err, sizeof err), WEST_OK,
		     "%s", err);
	cr_expect_eq(c->dz, 3.0);
	free(c);
}

/* The observation time limits: 1 h back, 10 min ahead, 0 = no limit;
 * negative refused. */
Test(config, obs_time_limits)
{
	struct west_config *c = new_defaults();
	char err[WEST_ERRLEN];

	cr_expect_eq(c->obs_max_age, 3600.0);
	cr_expect_eq(c->obs_max_future, 600.0);
	cr_expect_eq(west_config_set(c, "obs_max_age=0", "--set", err, sizeof err), WEST_OK,
		     "%s", err);
	cr_expect_eq(c->obs_max_age, 0.0);
	cr_expect_eq(west_config_set(c, "obs_max_future=-1", "--set", err, sizeof err),
		     WEST_ERR_INVALID);
	cr_expect_str_eq(err, "--set: obs_max_future: '-1' is out of range [0, 1000000000]");
	cr_expect(west_config_key_reloadable(WEST_CONF_OBS_MAX_AGE));
	cr_expect(west_config_key_reloadable(WEST_CONF_OBS_MAX_FUTURE));
	free(c);
}

Test(config, release_limits)
{
	struct west_config *c = new_defaults();
	char err[WEST_ERRLEN];

	cr_expect_eq(c->max_particles, 1000000);
	cr_expect_eq(c->max_release_hours, 6.0);
	cr_expect_eq(c->releases_keep, 32);
	cr_expect_eq(c->releases_max_age, 86400.0);
	cr_expect_eq(c->releases_queue, 16);
	cr_expect_eq(c->release_threads, 0);
	cr_expect_eq(west_config_set(c, "max_particles=5000", "--set", err, sizeof err), WEST_OK,
		     "%s", err);
	cr_expect_eq(c->max_particles, 5000);
	cr_expect_eq(west_config_set(c, "max_particles=0", "--set", err, sizeof err),
		     WEST_ERR_INVALID);
	cr_expect_str_eq(err, "--set: max_particles: '0' is out of range [1, 10000000]");
	cr_expect_eq(west_config_set(c, "max_release_hours=0", "--set", err, sizeof err),
		     WEST_ERR_INVALID);
	cr_expect_str_eq(err, "--set: max_release_hours: '0' is out of range (0, 168]");
	cr_expect_eq(west_config_set(c, "releases_keep=many", "--set", err, sizeof err),
		     WEST_ERR_INVALID);
	cr_expect_str_eq(err, "--set: releases_keep: 'many' is not an integer");
	cr_expect_eq(west_config_set(c, "release_max_age=10", "--set", err, sizeof err),
		     WEST_ERR_INVALID);
	cr_expect_not_null(strstr(err, "release_max_age"), "%s", err);
	cr_expect_eq(c->max_particles, 5000, "a refused value changes nothing");
	cr_expect(west_config_key_reloadable(WEST_CONF_MAX_PARTICLES));
	cr_expect(!west_config_key_reloadable(WEST_CONF_RELEASE_THREADS));
	free(c);
}

/* ---------------------------------------------------------------- reload */

Test(config, check_reload)
{
	struct west_config *a = new_defaults(), *b = new_defaults();
	char err[WEST_ERRLEN] = "";

	cr_expect_eq(west_config_check_reload(a, b, err, sizeof err), WEST_OK);
	b->log_level = WEST_LOG_DEBUG;
	strcpy(b->terrain, "/other.asc");
	b->nz = 99;
	cr_expect_eq(west_config_check_reload(a, b, err, sizeof err), WEST_OK,
		     "reloadable keys changed: %s", err);
	b->backend = WEST_BACKEND_CPU;
	cr_expect_eq(west_config_check_reload(a, b, err, sizeof err), WEST_ERR_INVALID);
	cr_expect_str_eq(err, "backend: a reload cannot change this key (restart westd)");
	free(a);
	free(b);
}

/* ------------------------------------------------------------ round trip */

static void round_trip(const struct west_config *c)
{
	struct west_config *back = new_defaults();
	char path[256], err[WEST_ERRLEN] = "";
	char *text = written(c), *again;

	write_conf(path, sizeof path, "written.conf", text);
	cr_assert_eq(west_config_load(back, path, err, sizeof err), WEST_OK,
		     "%s\n--- written:\n%s", err, text);
	cr_expect_null(config_diff(back, c), "%s differs after the round trip:\n%s",
		       config_diff(back, c), text);
	again = written(back);
	cr_expect_str_eq(again, text);
	free(again);
	free(text);
	free(back);
}

Test(config, round_trip_defaults)
{
	struct west_config *c = new_defaults();
	char *text = written(c);

	cr_expect(strstr(text, "\nbase_altitude = auto\n"), "%s", text);
	cr_expect(strstr(text, "\nlevels = \n"), "%s", text);
	round_trip(c);
	free(text);
	free(c);
}

Test(config, round_trip_everything_changed)
{
	struct west_config *c = new_defaults();
	static const char *const sets[] = {
		"terrain = \"/data/my dem #2.asc\"", "terrain_variable = \"band#1\"",
		"nodata = fill", "resolution = 0.1", "nz = 17", "dz = 2.3333333333333335",
		"base_altitude = -431.7", "max_cells = 3999999999", "backend = cuda",
		"log_level = notice",
	};
	char err[WEST_ERRLEN] = "";

	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
		cr_assert_eq(west_config_set(c, sets[i], "test", err, sizeof err),
			     WEST_OK, "%s", err);
	round_trip(c);
	free(c);
}

Test(config, round_trip_levels)
{
	struct west_config *c = new_defaults();
	char err[WEST_ERRLEN] = "";
	char *text;

	cr_assert_eq(west_config_set(c, "levels = 0, 0.1, 2.5, 1e4, 99999.999",
				     "test", err, sizeof err), WEST_OK, "%s", err);
	text = written(c);
	cr_expect(strstr(text, "\nlevels = 0, 0.1, 2.5, 10000, 99999.999\n"), "%s", text);
	cr_expect(strstr(text, "\n# nz = 30"), "nz commented out:\n%s", text);
	round_trip(c);
	free(text);
	free(c);
}
