/*
 * west.c: the one-shot command.
 *
 *   west grid [--terrain FILE] [--config FILE] [--set KEY=VALUE]...
 *             [--backend auto|cpu|cuda] [--json]
 *
 * loads the configuration (defaults, then the file, then each --set in
 * order, then --backend and --terrain), loads the terrain, builds the grid,
 * selects and initializes the backend, uploads the terrain to it, and prints
 * a summary (or one line of JSON).  The WEST issue adds `west run` and
 * `west info`.  Exit codes are listed in usage().
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "backend.h"
#include "config.h"
#include "grid.h"
#include "log.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_INPUT = 3 };

struct opts {
	const char *config, *terrain, *backend;
	const char *sets[64];
	int nsets, json;
};

struct summary {
	const char *terrain;
	struct west_grid grid;
	const struct west_backend *be;
	char device[256], note[WEST_ERRLEN];
	size_t device_bytes;
};

static void usage(FILE *f)
{
	fputs("usage: west grid [OPTIONS]\n"
	      "       west --help | --version\n"
	      "\n"
	      "grid: load the terrain, build the 3D grid, set up the backend, print a summary\n"
	      "  -t, --terrain FILE     DEM: ESRI ASCII grid (.asc) or CF NetCDF raster\n"
	      "                         (default: the config's `terrain`)\n"
	      "  -c, --config FILE      config file (see conf/westd.conf; default: built-in defaults)\n"
	      "  -s, --set KEY=VALUE    override one config key (repeatable, applied after --config)\n"
	      "  -b, --backend NAME     auto, cpu or cuda (same as --set backend=NAME)\n"
	      "      --json             print one line of JSON instead of the table\n"
	      "\n"
	      "exit codes: 0 done; 1 failure at run time (backend, device); 2 bad command line;\n"
	      "            3 bad input (config or terrain file), with the file and line named\n", f);
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{"terrain", required_argument, 0, 't'}, {"config", required_argument, 0, 'c'},
		{"set", required_argument, 0, 's'}, {"backend", required_argument, 0, 'b'},
		{"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'},
		{"version", no_argument, 0, 'V'}, {0, 0, 0, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "t:c:s:b:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 't': o->terrain = optarg; break;
		case 'c': o->config = optarg; break;
		case 'b': o->backend = optarg; break;
		case 'j': o->json = 1; break;
		case 's':
			if (o->nsets == (int)(sizeof o->sets / sizeof o->sets[0])) {
				fprintf(stderr, "west: too many --set options\n");
				return EXIT_USAGE;
			}
			o->sets[o->nsets++] = optarg;
			break;
		case 'h': usage(stdout); exit(EXIT_OK);
		case 'V': puts("west " PACKAGE_VERSION); exit(EXIT_OK);
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || strcmp(argv[optind], "grid") != 0) {
		fprintf(stderr, optind < argc ? "west: unknown command '%s'\n"
			: "west: no command given\n", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int load_config(const struct opts *o, struct west_config *c)
{
	char err[WEST_ERRLEN], set[128];
	west_config_defaults(c);
	if (o->config && west_config_load(c, o->config, err, sizeof err))
		goto bad;
	for (int i = 0; i < o->nsets; i++)
		if (west_config_set(c, o->sets[i], "--set", err, sizeof err))
			goto bad;
	snprintf(set, sizeof set, "backend=%s", o->backend ? o->backend : "");
	if (o->backend && west_config_set(c, set, "--backend", err, sizeof err))
		goto bad;
	west_log_set_level((enum west_log_level)c->log_level);
	return EXIT_OK;
bad:
	west_log(WEST_LOG_ERR, "%s", err);
	return EXIT_INPUT;
}

/* Select, init and upload; fills s->be, device, note, device_bytes. */
static int setup_backend(const struct west_config *c, struct summary *s)
{
	char err[WEST_ERRLEN];
	void *state = NULL;
	enum west_status st;

	st = west_backend_select((enum west_backend_choice)c->backend, &s->be,
				 s->note, sizeof s->note, err, sizeof err);
	if (!st)
		st = s->be->init(&state, err, sizeof err);
	if (!st)
		st = s->be->upload_terrain(state, &s->grid, err, sizeof err);
	if (!st) {
		s->be->describe(state, s->device, sizeof s->device);
		s->device_bytes = s->be->device_bytes(state);
	}
	if (state)
		s->be->free(state);
	if (st)
		west_log(WEST_LOG_ERR, "%s", err);
	return st ? EXIT_RUNTIME : EXIT_OK;
}

/* A short CRS name: the WKT's PROJCS name, else the CF grid mapping. */
static void crs_name(const struct west_crs *crs, char *buf, size_t len)
{
	const char *q = crs->wkt ? strchr(crs->wkt, '"') : NULL;
	const char *e = q ? strchr(q + 1, '"') : NULL;
	if (e)
		snprintf(buf, len, "%.*s", (int)(e - q - 1), q + 1);
	else
		snprintf(buf, len, "%s", crs->grid_mapping_name[0] ?
			 crs->grid_mapping_name : "none given");
}

static void print_table(const struct summary *s)
{
	const struct west_grid *g = &s->grid;
	char crs[128];
	size_t cells = west_grid_ncells(g);

	crs_name(&g->crs, crs, sizeof crs);
	printf("terrain  %s: altitude %.1f .. %.1f m\n", s->terrain, g->terrain_min,
	       g->terrain_max);
	printf("crs      %s\n", crs);
	printf("grid     nx %zu, ny %zu, nz %zu = %zu cells of %g x %g m, levels 0 .. %g m above base %.1f m\n",
	       g->nx, g->ny, g->nz, cells, g->dx, g->dy, g->zf[g->nz], g->base);
	printf("extent   x %.1f .. %.1f m, y %.1f .. %.1f m, z %.1f .. %.1f m\n",
	       g->x0, g->x0 + (double)g->nx * g->dx, g->y0, g->y0 + (double)g->ny * g->dy,
	       g->base, g->base + g->zf[g->nz]);
	printf("land     %zu cells (%.2f %%)\n", g->land_cells,
	       100.0 * (double)g->land_cells / (double)cells);
	printf("backend  %s: %s (%s)\n", s->be->name, s->device, s->note);
	printf("memory   %.2f MiB host, %.2f MiB device\n",
	       (double)west_grid_bytes(g) / 1048576.0, (double)s->device_bytes / 1048576.0);
}

static void print_json(const struct summary *s)
{
	const struct west_grid *g = &s->grid;
	json_t *j = json_pack("{s:s, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:s, s:s, s:s, s:I, s:I}",
		"terrain", s->terrain, "nx", (json_int_t)g->nx, "ny", (json_int_t)g->ny,
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
	char *text = json_dumps(j, JSON_COMPACT);
	puts(text);
	free(text);
	json_decref(j);
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	struct west_config *c = malloc(sizeof *c);
	struct summary s = {0};
	char err[WEST_ERRLEN];
	int rc;

	west_log_init("west");
	if (!c)
		return EXIT_RUNTIME;
	rc = parse_args(argc, argv, &o);
	if (!rc)
		rc = load_config(&o, c);
	if (rc)
		goto out;
	s.terrain = o.terrain ? o.terrain : c->terrain;
	if (west_grid_load(&s.grid, o.terrain, c, err, sizeof err)) {
		west_log(WEST_LOG_ERR, "%s", err);
		rc = EXIT_INPUT;
		goto out;
	}
	rc = setup_backend(c, &s);
	if (!rc)
		o.json ? print_json(&s) : print_table(&s);
	west_grid_free(&s.grid);
out:
	free(c);
	return rc;
}
