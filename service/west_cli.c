/*
 * west_cli.c: the one-shot command (docs/west.1).
 *
 *   west grid [--terrain FILE] [--config FILE] [--set KEY=VALUE]...
 *             [--backend auto|cpu|cuda] [--json]
 *   west run  --obs FILE --out FILE.nc [--terrain FILE] [--config FILE]
 *             [--set KEY=VALUE]... [--backend NAME] [--devices LIST]
 *             [--solver multigrid|sor|sor-potential] [--iterations N]
 *             [--cycles N] [--tolerance X] [--omega W]
 *             [--indexing masked|compact] [--time T [--time-window S]]
 *             [--geotiff FILE.tif [--height M]]
 *             [--json] [--progress]
 *   west info FILE.nc [--json]
 *
 * The configuration is the defaults, then the --config file, then every
 * --set and model option in command-line order (--backend, --devices, --solver,
 * --iterations, --cycles, --tolerance, --omega and --indexing are --set of
 * the key of that name, so their values are checked by the config table),
 * then --terrain.  This
 * file parses arguments and runs `grid`; west_run.c runs `run` and `info`.
 * Exit codes are listed in usage().
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "log.h"
#include "obs.h"
#include "ranks.h"
#include "west_cli.h"

static void usage(FILE *f)
{
	fputs("usage: west grid [--terrain FILE] [--config FILE] [--set KEY=VALUE]... [--backend NAME] [--json]\n"
	      "       west run --obs FILE --out FILE.nc [--terrain FILE] [--config FILE] [--set KEY=VALUE]...\n"
	      "                [--backend NAME] [--devices LIST]\n"
	      "                [--solver multigrid|sor|sor-potential]\n"
	      "                [--iterations N] [--cycles N] [--tolerance X] [--omega W]\n"
	      "                [--indexing masked|compact] [--time T [--time-window S]]\n"
	      "                [--geotiff FILE.tif [--height M]]\n"
	      "                [--json] [--progress]\n"
	      "       west info FILE.nc [--json]\n"
	      "       west --help | --version\n"
	      "\n"
	      "grid: load the terrain, build the 3D grid, set up the backend, print a summary\n"
	      "run:  solve the WEST model once for the observations and write a NetCDF snapshot\n"
	      "info: print what a snapshot holds\n"
	      "\n"
	      "  -t, --terrain FILE     DEM: ESRI ASCII grid (.asc), CF NetCDF raster, or (built\n"
	      "                         with GDAL) GeoTIFF and other rasters in any CRS\n"
	      "                         (default: the config's `terrain`)\n"
	      "  -o, --obs FILE         observations: JSON (docs/api.md), WindNinja CSV (.csv),\n"
	      "                         or a WindNinja station file list (.csv) naming CSV files\n"
	      "  -O, --out FILE.nc      snapshot to write (atomically: temp file, then rename)\n"
	      "  -c, --config FILE      config file (see conf/westd.conf; default: built-in defaults)\n"
	      "  -s, --set KEY=VALUE    override one config key (repeatable, applied after --config)\n"
	      "  -b, --backend NAME     auto, cpu or cuda (same as --set backend=NAME)\n"
	      "      --devices LIST     auto, or cpu or cuda:N (GPU N) listed N times: the grid\n"
	      "                         cut into N slabs solved together, each on its device\n"
	      "                         (--set devices=LIST)\n"
	      "      --solver NAME      divergence minimization: multigrid (default), sor (the\n"
	      "                         paper's velocity form) or sor-potential (--set solver=NAME)\n"
	      "      --iterations N     most red-black iterations of the sor solvers\n"
	      "                         (--set iterations=N)\n"
	      "      --cycles N         most multigrid iterations (--set cycles=N)\n"
	      "      --tolerance X      stop at max|D| h / U_ref <= X (--set tolerance=X)\n"
	      "      --omega W          relaxation factor of the sor solvers (--set omega=W)\n"
	      "      --indexing MODE    masked or compact red-black ordering of sor\n"
	      "                         (--set indexing=MODE)\n"
	      "      --time T           of each station's records, take the one nearest T\n"
	      "                         (ISO 8601, 2026-11-22T12:00:00Z); a station with none\n"
	      "                         within the window is left out with a warning\n"
	      "                         (default: the newest record of each station)\n"
	      "      --time-window S    the window of --time: at most S seconds from T\n"
	      "                         (default 1800)\n"
	      "      --geotiff FILE.tif also write the wind at --height above the ground as a\n"
	      "                         GeoTIFF: one pixel per column, float32 bands speed,\n"
	      "                         direction (from, true north), u (east), v (north)\n"
	      "      --height M         height above the ground of the --geotiff raster (m,\n"
	      "                         >= 0; default 10)\n"
	      "      --json             print one line of JSON instead of the table\n"
	      "      --progress         print a line per model step on stderr even when it is\n"
	      "                         not a terminal (on a terminal it is the default)\n"
	      "\n"
	      "exit codes: 0 done; 1 failure at run time (backend, device, writing the snapshot\n"
	      "            or the GeoTIFF);\n"
	      "            2 bad command line; 3 bad input (config, terrain, observations or\n"
	      "            snapshot file), with the file and the line, record or field named\n", f);
}

enum { OPT_ITER = 256, OPT_SOLVER, OPT_CYCLES, OPT_TOL, OPT_OMEGA, OPT_INDEXING, OPT_JSON,
       OPT_PROGRESS, OPT_TIME, OPT_WINDOW, OPT_GEOTIFF, OPT_HEIGHT, OPT_DEVICES };

static const struct option longopts[] = {
	{"terrain", required_argument, 0, 't'}, {"config", required_argument, 0, 'c'},
	{"set", required_argument, 0, 's'}, {"backend", required_argument, 0, 'b'},
	{"obs", required_argument, 0, 'o'}, {"out", required_argument, 0, 'O'},
	{"solver", required_argument, 0, OPT_SOLVER},
	{"iterations", required_argument, 0, OPT_ITER},
	{"cycles", required_argument, 0, OPT_CYCLES},
	{"tolerance", required_argument, 0, OPT_TOL},
	{"omega", required_argument, 0, OPT_OMEGA},
	{"indexing", required_argument, 0, OPT_INDEXING},
	{"devices", required_argument, 0, OPT_DEVICES},
	{"json", no_argument, 0, OPT_JSON}, {"progress", no_argument, 0, OPT_PROGRESS},
	{"time", required_argument, 0, OPT_TIME},
	{"time-window", required_argument, 0, OPT_WINDOW},
	{"geotiff", required_argument, 0, OPT_GEOTIFF},
	{"height", required_argument, 0, OPT_HEIGHT},
	{"help", no_argument, 0, 'h'}, {"version", no_argument, 0, 'V'}, {0, 0, 0, 0},
};

/* Queue "key=value" for the config, remembering the option that gave it. */
static int add_set(struct opts *o, const char *origin, const char *key,
		   const char *value)
{
	char *kv;
	if (o->nsets == WEST_MAX_SETS) {
		fprintf(stderr, "west: more than %d --set and model options\n", WEST_MAX_SETS);
		return EXIT_USAGE;
	}
	if (!key) {
		o->origins[o->nsets] = origin;
		o->sets[o->nsets++] = value;
		return EXIT_OK;
	}
	kv = malloc(strlen(key) + strlen(value) + 2);
	if (!kv)
		return EXIT_RUNTIME;
	sprintf(kv, "%s=%s", key, value);
	o->origins[o->nsets] = origin;
	o->sets[o->nsets++] = kv;   /* freed at exit */
	return EXIT_OK;
}

/* --height M: a finite number of metres >= 0. */
static int take_height(struct opts *o, const char *s)
{
	char *end;

	errno = 0;
	o->height = strtod(s, &end);
	o->height_given = 1;
	if (end == s || *end || errno || !isfinite(o->height) || o->height < 0) {
		fprintf(stderr, "west: --height '%s': not a height above the ground "
			"(metres, a number >= 0)\n", s);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int take_option(struct opts *o, int c)
{
	switch (c) {
	case 't': o->terrain = optarg; return EXIT_OK;
	case 'c': o->config = optarg; return EXIT_OK;
	case 'o': o->obs = optarg; return EXIT_OK;
	case 'O': o->out = optarg; return EXIT_OK;
	case OPT_JSON: o->json = 1; return EXIT_OK;
	case OPT_PROGRESS: o->progress = 1; return EXIT_OK;
	case OPT_TIME: o->time_arg = optarg; return EXIT_OK;
	case OPT_WINDOW: o->window_arg = optarg; return EXIT_OK;
	case OPT_GEOTIFF: o->geotiff = optarg; return EXIT_OK;
	case OPT_HEIGHT: return take_height(o, optarg);
	case 's': return add_set(o, "--set", NULL, optarg);
	case 'b': return add_set(o, "--backend", "backend", optarg);
	case OPT_DEVICES: return add_set(o, "--devices", "devices", optarg);
	case OPT_SOLVER: return add_set(o, "--solver", "solver", optarg);
	case OPT_ITER: return add_set(o, "--iterations", "iterations", optarg);
	case OPT_CYCLES: return add_set(o, "--cycles", "cycles", optarg);
	case OPT_TOL: return add_set(o, "--tolerance", "tolerance", optarg);
	case OPT_OMEGA: return add_set(o, "--omega", "omega", optarg);
	case OPT_INDEXING: return add_set(o, "--indexing", "indexing", optarg);
	case 'h': usage(stdout); exit(EXIT_OK);
	case 'V': puts("west " PACKAGE_VERSION); exit(EXIT_OK);
	default: usage(stderr); return EXIT_USAGE;
	}
}

/* --time and --time-window of west run: o->at_time, time, window. */
static int check_time(struct opts *o)
{
	char *end;

	if (o->window_arg && !o->time_arg) {
		fprintf(stderr, "west run: --time-window needs --time\n");
		return EXIT_USAGE;
	}
	if (!o->time_arg)
		return EXIT_OK;
	if (!west_obs_time_parse(o->time_arg, &o->time)) {
		fprintf(stderr, "west run: --time '%s' is not an ISO 8601 time "
			"(YYYY-MM-DDThh:mm:ssZ)\n", o->time_arg);
		return EXIT_USAGE;
	}
	o->at_time = 1;
	o->window = WEST_OBS_WINDOW_DEFAULT;
	if (!o->window_arg)
		return EXIT_OK;
	errno = 0;
	o->window = strtoll(o->window_arg, &end, 10);
	if (errno || end == o->window_arg || *end || o->window < 0) {
		fprintf(stderr, "west run: --time-window '%s' is not a whole number of "
			"seconds >= 0\n", o->window_arg);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* --geotiff and --height: options of west run, --height only with
 * --geotiff. */
static int check_geotiff(const struct opts *o, const char *cmd)
{
	if (strcmp(cmd, "run") != 0 && (o->geotiff || o->height_given)) {
		fprintf(stderr, "west %s: --geotiff and --height are options of west run\n", cmd);
		return EXIT_USAGE;
	}
	if (o->height_given && !o->geotiff) {
		fprintf(stderr, "west run: --height is the height of the --geotiff raster: "
			"give --geotiff FILE.tif too\n");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* Each command's required options and its operand. */
static int check_command(struct opts *o, int argc, char **argv)
{
	const char *cmd = optind < argc ? argv[optind] : NULL;
	int operands = argc - optind - 1;

	if (!cmd) {
		fprintf(stderr, "west: no command given\n");
		return usage(stderr), EXIT_USAGE;
	}
	o->command = cmd;
	if (strcmp(cmd, "run") != 0 && (o->time_arg || o->window_arg)) {
		fprintf(stderr, "west %s: --time and --time-window are options of west run\n",
			cmd);
		return EXIT_USAGE;
	}
	if (check_geotiff(o, cmd))
		return EXIT_USAGE;
	if (strcmp(cmd, "info") == 0 && operands == 1) {
		o->file = argv[optind + 1];
		return EXIT_OK;
	}
	if (strcmp(cmd, "info") == 0) {
		fprintf(stderr, "west info: give exactly one snapshot file\n");
		return EXIT_USAGE;
	}
	if (strcmp(cmd, "grid") != 0 && strcmp(cmd, "run") != 0) {
		fprintf(stderr, "west: unknown command '%s'\n", cmd);
		return usage(stderr), EXIT_USAGE;
	}
	if (operands > 0) {
		fprintf(stderr, "west %s: unexpected argument '%s'\n", cmd, argv[optind + 1]);
		return EXIT_USAGE;
	}
	if (strcmp(cmd, "run") == 0 && (!o->obs || !o->out)) {
		fprintf(stderr, "west run: --obs FILE and --out FILE.nc are required\n");
		return EXIT_USAGE;
	}
	return strcmp(cmd, "run") == 0 ? check_time(o) : EXIT_OK;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	int c, rc;
	while ((c = getopt_long(argc, argv, "t:c:s:b:o:O:hV", longopts, NULL)) != -1)
		if ((rc = take_option(o, c)))
			return rc;
	return check_command(o, argc, argv);
}

static int load_config(const struct opts *o, struct west_config *c)
{
	char err[WEST_ERRLEN];
	west_config_defaults(c);
	if (o->config && west_config_load(c, o->config, err, sizeof err))
		goto bad;
	for (int i = 0; i < o->nsets; i++)
		if (west_config_set(c, o->sets[i], o->origins[i], err, sizeof err))
			goto bad;
	west_log_set_level((enum west_log_level)c->log_level);
	return EXIT_OK;
bad:
	west_log(WEST_LOG_ERR, "%s", err);
	return EXIT_INPUT;
}

int west_cli_setup_backend(const struct west_config *c, const struct west_grid *g,
			   struct setup *s)
{
	char err[WEST_ERRLEN];
	enum west_backend_choice choice;
	enum west_status st;

	st = west_backend_choice_of(c, &choice, err, sizeof err);
	if (!st)
		st = west_backend_select(choice, &s->be, s->note, sizeof s->note, err,
					 sizeof err);
	if (!st)
		st = s->be->init(&s->state, err, sizeof err);
	if (!st)   /* config devices: slabs, or one device */
		st = west_backend_plan(s->be, s->state, c, err, sizeof err);
	if (!st)
		st = s->be->upload_terrain(s->state, g, err, sizeof err);
	if (!st) {
		s->be->describe(s->state, s->device, sizeof s->device);
		s->device_bytes = s->be->device_bytes(s->state);
	}
	if (st)
		west_log(WEST_LOG_ERR, "%s", err);
	return st ? EXIT_RUNTIME : EXIT_OK;
}

static void print_table(const char *terrain, const struct west_grid *g,
			const struct setup *s)
{
	char crs[128];
	size_t cells = west_grid_ncells(g);

	if (!west_crs_name(&g->crs, crs, sizeof crs))
		snprintf(crs, sizeof crs, "none given");
	printf("terrain  %s: altitude %.1f .. %.1f m\n", terrain, g->terrain_min,
	       g->terrain_max);
	printf("crs      %s\n", crs);
	printf("grid     nx %zu, ny %zu, nz %zu = %zu cells of %g x %g m, levels 0 .. %g m above base %.1f m\n",
	       g->nx, g->ny, g->nz, cells, g->dx, g->dy, g->zf[g->nz], g->base);
	printf("extent   x %.1f .. %.1f m, y %.1f .. %.1f m, z %.1f .. %.1f m\n",
	       g->x0, g->x0 + (double)g->nx * g->dx, g->y0, g->y0 + (double)g->ny * g->dy,
	       g->base, g->base + g->zf[g->nz]);
	printf("land     %zu cells (%.2f %%), %s faces, %zu cut cells (%.2f %%)\n",
	       g->land_cells, 100.0 * (double)g->land_cells / (double)cells,
	       g->cut ? "cut" : "staircase", g->cut_cells,
	       100.0 * (double)g->cut_cells / (double)cells);
	printf("ground   the lowest resolved level is at most %.1f m above the ground\n",
	       g->lowest_agl_max);
	printf("backend  %s: %s (%s)\n", s->be->name, s->device, s->note);
	printf("memory   %.2f MiB host, %.2f MiB device (%.1f B per cell)\n",
	       (double)west_grid_bytes(g) / 1048576.0, (double)s->device_bytes / 1048576.0,
	       (double)s->device_bytes / (double)cells);
}

static void print_json(const char *terrain, const struct west_grid *g,
		       const struct setup *s)
{
	json_t *j = json_pack("{s:s, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:s, s:s, s:s, s:I, s:I}",
		"terrain", terrain, "nx", (json_int_t)g->nx, "ny", (json_int_t)g->ny,
		"nz", (json_int_t)g->nz, "cells", (json_int_t)west_grid_ncells(g),
		"dx", g->dx, "dy", g->dy, "x_min", g->x0,
		"x_max", g->x0 + (double)g->nx * g->dx, "y_min", g->y0,
		"y_max", g->y0 + (double)g->ny * g->dy, "z_base", g->base,
		"land_cells", (json_int_t)g->land_cells, "backend", s->be->name,
		"backend_device", s->device, "backend_note", s->note,
		"host_bytes", (json_int_t)west_grid_bytes(g),
		"device_bytes", (json_int_t)s->device_bytes);
	json_object_set_new(j, "z_top", json_real(g->base + g->zf[g->nz]));
	json_object_set_new(j, "terrain_min", json_real(g->terrain_min));
	json_object_set_new(j, "terrain_max", json_real(g->terrain_max));
	json_object_set_new(j, "lowest_level_agl_max", json_real(g->lowest_agl_max));
	json_object_set_new(j, "terrain_faces", json_string(g->cut ? "cut" : "staircase"));
	json_object_set_new(j, "cut_cells", json_integer((json_int_t)g->cut_cells));
	char *text = json_dumps(j, JSON_COMPACT);
	puts(text);
	free(text);
	json_decref(j);
}

static int cmd_grid(const struct opts *o, const struct west_config *c)
{
	struct west_grid g;
	struct west_grid_opts go;
	struct setup s = { 0 };
	const char *terrain = o->terrain ? o->terrain : c->terrain;
	char err[WEST_ERRLEN];
	int rc;

	west_grid_opts_from_config(&go, c);
	go.dem_reader = o->dem_reader;
	if (west_grid_load(&g, o->terrain, &go, err, sizeof err)) {
		west_log(WEST_LOG_ERR, "%s", err);
		return EXIT_INPUT;
	}
	rc = west_cli_setup_backend(c, &g, &s);
	if (!rc)
		o->json ? print_json(terrain, &g, &s) : print_table(terrain, &g, &s);
	if (s.state)
		s.be->free(s.state);
	west_grid_free(&g);
	return rc;
}

int main(int argc, char **argv)
{
	static char self[4096];
	struct opts o = { .height = 10.0 };
	struct west_config *c;
	int ranks, rc;

	if (argc > 1 && strcmp(argv[1], "--terrain-child") == 0) {  /* terrain_child.c */
		west_log_init("west");
		return west_dem_child_main(argc - 1, argv + 1);
	}
	ranks = west_ranks_start(&argc, &argv);
	c = malloc(sizeof *c);
	west_log_init("west");
	if (!c)
		return EXIT_RUNTIME;
	/* the terrain read in a child process, as westd reads it (under
	 * mpirun too: the child never starts MPI) */
	if (west_dem_reader_self(self, sizeof self) == 0)
		o.dem_reader = self;
	rc = parse_args(argc, argv, &o);
	if (!rc && strcmp(o.command, "run") && west_ranks_me() > 0)
		rc = EXIT_OK;   /* under mpirun, only west run takes every rank */
	else if (!rc && strcmp(o.command, "info") == 0)
		rc = west_cli_info(&o);
	else if (!rc && !(rc = load_config(&o, c)))
		rc = strcmp(o.command, "run") == 0 ? west_cli_run(&o, c) : cmd_grid(&o, c);
	if (ranks > 1 && rc && strcmp(o.command ? o.command : "", "run") == 0)
		west_ranks_abort(rc);   /* the other ranks may wait for this one */
	west_ranks_stop();
	for (int i = 0; i < o.nsets; i++)
		if (strcmp(o.origins[i], "--set") != 0)
			free((char *)o.sets[i]);
	free(c);
	return rc;
}
