/*
 * config.h: westd's configuration, one table-driven parser.
 *
 * A config file is "key = value" lines; '#' starts a comment (anywhere
 * outside a double-quoted value); blank lines are ignored; a value may be
 * double-quoted.  Every key is a row of one table (config.c): name, type,
 * bounds, default, whether a reload may change it, and a one-line help.
 * conf/westd.conf documents every key with its default, and a test keeps
 * the two in step.
 *
 * Errors are "FILE:LINE: message" (or "ORIGIN: message" for --set): unknown
 * key, malformed line, value of the wrong type, value out of bounds, key
 * given twice in one file.  A failed load leaves the caller's config
 * untouched.
 */
#ifndef WEST_CONFIG_H
#define WEST_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "status.h"

#define WEST_CONF_PATH_MAX 4096
#define WEST_CONF_MAX_LEVELS 1024

/* The choice-valued keys hold the values of their modules' enums, in the
 * order of the choices their rows list: enum west_backend_choice
 * (backend.h), west_nodata_rule (terrain.h), west_terrain_faces (grid.h),
 * west_land_use, west_solver, west_indexing and west_exchange (model.h). */

/* Indices of the table rows, in table order; used for west_config.set[]. */
enum west_conf_key {
	WEST_CONF_TERRAIN,
	WEST_CONF_TERRAIN_VARIABLE,
	WEST_CONF_TERRAIN_EPSG,
	WEST_CONF_NODATA,
	WEST_CONF_RESOLUTION,
	WEST_CONF_TERRAIN_TIMEOUT,
	WEST_CONF_NZ,
	WEST_CONF_DZ,
	WEST_CONF_LEVELS,
	WEST_CONF_BASE_ALTITUDE,
	WEST_CONF_MAX_CELLS,
	WEST_CONF_TERRAIN_FACES,
	WEST_CONF_BACKEND,
	WEST_CONF_DEVICES,
	WEST_CONF_WEIGHTS,
	WEST_CONF_EXCHANGE,
	WEST_CONF_LOG_LEVEL,
	WEST_CONF_MAX_STATIONS,
	WEST_CONF_ALLOW_OUTSIDE,
	WEST_CONF_LAND_USE,
	WEST_CONF_SOLVER,
	WEST_CONF_ITERATIONS,
	WEST_CONF_CYCLES,
	WEST_CONF_TOLERANCE,
	WEST_CONF_OMEGA,
	WEST_CONF_ETA,
	WEST_CONF_INDEXING,
	WEST_CONF_CHECK_INTERVAL,
	WEST_CONF_LISTEN,
	WEST_CONF_HTTP_THREADS,
	WEST_CONF_MAX_CONNECTIONS,
	WEST_CONF_PER_IP_CONNECTIONS,
	WEST_CONF_CONNECTION_TIMEOUT,
	WEST_CONF_MAX_BODY_BYTES,
	WEST_CONF_MAX_RESPONSE_CELLS,
	WEST_CONF_API_TOKEN,
	WEST_CONF_API_TOKEN_FILE,
	WEST_CONF_READ_AUTH,
	WEST_CONF_MAX_FIELD_AGE,
	WEST_CONF_STATE_DIR,
	WEST_CONF_OBSERVATIONS_KEEP,
	WEST_CONF_OBS_MAX_AGE,
	WEST_CONF_OBS_MAX_FUTURE,
	WEST_CONF_SPOOL_DIR,
	WEST_CONF_SPOOL_SCAN_INTERVAL,
	WEST_CONF_SNAPSHOT_DIR,
	WEST_CONF_SNAPSHOT_KEEP,
	WEST_CONF_SNAPSHOT_INTERVAL,
	WEST_CONF_FIELD_POOL,
	WEST_CONF_MAX_PARTICLES,
	WEST_CONF_MAX_RELEASE_HOURS,
	WEST_CONF_RELEASES_KEEP,
	WEST_CONF_RELEASES_MAX_AGE,
	WEST_CONF_RELEASES_QUEUE,
	WEST_CONF_RELEASE_THREADS,
	WEST_CONF_UI_AGE_WARN,
	WEST_CONF_UI_AGE_ALERT,
	WEST_CONF_NKEYS
};

struct west_config {
	char terrain[WEST_CONF_PATH_MAX];   /* DEM path ("" = none) */
	char terrain_variable[256];         /* NetCDF elevation variable ("" = auto) */
	long terrain_epsg;                  /* GDAL rasters: target CRS (0 = UTM of the centre) */
	int nodata;                         /* enum west_nodata_rule */
	double resolution;                  /* m; 0 = keep the DEM's cell size */
	double terrain_timeout;             /* s the terrain reader may take (0 = no limit) */
	long nz;                            /* levels when `levels` is empty */
	double dz;                          /* m, uniform level thickness */
	double levels[WEST_CONF_MAX_LEVELS + 1]; /* face heights above base (m) */
	size_t nlevels;                     /* 0 = use nz, dz */
	double base_altitude;               /* m; NaN = auto (lowest terrain) */
	long long max_cells;                /* refuse grids with more 3D cells */
	int terrain_faces;                  /* enum west_terrain_faces */
	int backend;                        /* enum west_backend_choice */
	char devices[256];                  /* "auto" or a list (west_devices_parse) */
	char weights[256];                  /* "auto" or a list (west_weights_parse) */
	int log_level;                      /* enum west_log_level */
	long max_stations;                  /* refuse larger observation sets */
	int allow_outside;                  /* 1: accept stations off the grid */
	int land_use;                       /* enum west_land_use (power law) */
	int solver;                         /* enum west_solver */
	long iterations;                    /* red-black iterations limit (sor) */
	long cycles;                        /* multigrid iterations limit */
	double tolerance;                   /* stop when max|D| h / U_ref <= it */
	double omega;                       /* SOR relaxation factor, (0, 2) */
	double eta;                         /* (alpha1 / alpha2)^2; NaN = auto */
	int indexing;                       /* enum west_indexing */
	int exchange;                       /* enum west_exchange */
	long check_interval;                /* iterations between convergence checks */
	/* the daemon (westd) */
	char listen[256];                   /* "HOST:PORT", "[V6]:PORT" */
	long http_threads;                  /* HTTP thread pool size */
	long max_connections;               /* open connections, all clients */
	long per_ip_connections;            /* open connections per client IP */
	long connection_timeout;            /* s of inactivity before a close */
	long long max_body_bytes;           /* larger request bodies get 413 */
	long long max_response_cells;       /* larger EDR answers get 413 */
	char api_token[256];                /* bearer token ("" = none) */
	char api_token_file[WEST_CONF_PATH_MAX]; /* file holding the token */
	int read_auth;                      /* 1: reads need the token too */
	double max_field_age;               /* s; /readyz fails past it; 0 = off */
	char state_dir[WEST_CONF_PATH_MAX]; /* persisted observation sets */
	long observations_keep;             /* sets kept in state_dir; 0 = all */
	double obs_max_age;                 /* s a new set's valid time may lie before now; 0 = off */
	double obs_max_future;              /* s it may lie after now; 0 = off */
	char spool_dir[WEST_CONF_PATH_MAX]; /* drop directory ("" = none) */
	double spool_scan_interval;         /* s between fallback scans */
	char snapshot_dir[WEST_CONF_PATH_MAX]; /* "" = no snapshots */
	long snapshot_keep;                 /* newest snapshots kept */
	double snapshot_interval;           /* s; 0 = after each new field */
	long field_pool;                    /* idle field buffers kept (fieldpool.h) */
	/* release plumes (POST /v1/releases) */
	long max_particles;                 /* the most particles one release may ask */
	double max_release_hours;           /* the longest simulated time one may ask (h) */
	long releases_keep;                 /* finished releases kept */
	double releases_max_age;            /* s a finished release is kept; 0 = no limit */
	long releases_queue;                /* releases waiting for the runner, at most */
	long release_threads;               /* OpenMP threads of a CPU run; 0 = OpenMP's default */
	/* the map page (GET /ui/) */
	double ui_age_warn, ui_age_alert;   /* s since the valid time; 0 = off */
	unsigned char set[WEST_CONF_NKEYS]; /* 1 where a file or --set gave it */
};

/* Fill c with every key's default; set[] all zero. */
void west_config_defaults(struct west_config *c);

/* Apply a file on top of c.  On error c is unchanged. */
enum west_status west_config_load(struct west_config *c, const char *path,
				  char *err, size_t errlen);

/* Apply one "key=value" (the daemon's --set); origin prefixes errors. */
/*
 * The config key devices: "auto" (n = 0: the backend key decides), or a
 * comma-separated list of partitions, each "cpu" (the CPU backend) or
 * "cuda:N" (the CUDA backend, device N), not both kinds (not built yet,
 * docs/design.md section 5); listed two or more times, the grid is cut
 * into that many slabs (parts.h), partition p on device dev[p] (a device
 * may be listed more than once).  A list of one entry is cpu or cuda:0
 * (another GPU alone: CUDA_VISIBLE_DEVICES).  Whether device N exists is
 * checked at start (west_backend_plan).  Fails with a message
 * naming the entry.
 */
#define WEST_DEVICE_CPU (-1)   /* a cpu entry's device */
struct west_devices {
	int n, cpu, cuda;   /* entries; of them cpu and cuda:N */
	int dev[16];        /* entry p's CUDA device, or WEST_DEVICE_CPU */
};
enum west_status west_devices_parse(const char *v, struct west_devices *d, char *err,
				    size_t errlen);

/*
 * The config key weights: "auto" (*n = 0: the slabs' rows dealt out
 * evenly, or in proportion to the MPI ranks' measured speeds), or a
 * comma-separated list of at most 16 numbers > 0, one per partition, the
 * share of the rows each gets (parts.h).
 */
enum west_status west_weights_parse(const char *v, double w[16], int *n, char *err,
				    size_t errlen);

enum west_status west_config_set(struct west_config *c, const char *assignment,
				 const char *origin, char *err, size_t errlen);

/*
 * A reload may change only keys marked reloadable: returns WEST_ERR_INVALID
 * naming the first other key whose value differs between old and new.
 */
enum west_status west_config_check_reload(const struct west_config *old,
					  const struct west_config *new_,
					  char *err, size_t errlen);

/* Table access, for docs and tests. */
size_t west_config_nkeys(void);
const char *west_config_key_name(size_t i);
int west_config_key_reloadable(size_t i);

/* Write every key as "key = value" in table order (a loadable file). */
void west_config_write(FILE *f, const struct west_config *c);

#endif
