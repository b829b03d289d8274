/*
 * west_cli.h: the one-shot command's shared parts (west_cli.c parses
 * arguments and runs `grid`; west_run.c runs `run` and `info`).
 */
#ifndef WEST_CLI_H
#define WEST_CLI_H

#include "backend.h"
#include "config.h"
#include "grid.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_INPUT = 3 };

#define WEST_MAX_SETS 64

struct opts {
	const char *command;
	const char *config, *terrain, *backend, *obs, *out, *file;
	const char *geotiff;                 /* --geotiff FILE.tif, or NULL */
	double height;                       /* --height: m above ground (10) */
	int height_given;
	const char *sets[WEST_MAX_SETS];     /* "key=value" */
	const char *origins[WEST_MAX_SETS];  /* the option that gave it */
	int nsets, json, progress;
	const char *time_arg, *window_arg;   /* --time, --time-window as given */
	int at_time;                         /* --time given: time, window parsed */
	long long time, window;              /* s since the epoch; s */
	const char *dem_reader;              /* this program, which reads the
					      * terrain in a child process
					      * (terrain_child.c), or NULL */
};

/* The backend chosen for c, initialized, with g uploaded (state set). */
struct setup {
	const struct west_backend *be;
	void *state;
	char device[256], note[WEST_ERRLEN];
	size_t device_bytes;
};

int west_cli_setup_backend(const struct west_config *c, const struct west_grid *g,
			   struct setup *s);

int west_cli_run(const struct opts *o, const struct west_config *c);
int west_cli_info(const struct opts *o);

#endif
