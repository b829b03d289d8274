/*
 * west_run.c: `west run` (one solve of the WEST model, written as a NetCDF
 * snapshot) and `west info` (what a snapshot holds), for west.c.
 *
 * run: terrain -> grid, observations (validated against the grid; a bad
 * set is refused whole; of a time series the newest record of each
 * station, or with --time the one nearest that time within --time-window,
 * and which times were kept is logged and printed: "times" in the table
 * and the JSON), backend (one that runs the model), one solve with
 * a progress line per step on stderr when it is a terminal (or with
 * --progress), the snapshot written atomically, with --geotiff the wind at
 * --height above the ground as a GeoTIFF (geotiff.h, written atomically
 * too), then a summary table or one line of JSON on stdout.  Nothing is
 * written under --out or --geotiff unless the solve succeeded.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "field.h"
#include "fieldpool.h"
#include "fileio.h"
#include "geotiff.h"
#include "log.h"
#include "model.h"
#include "obs.h"
#include "ranks.h"
#include "snapshot.h"
#include "west_cli.h"

struct run_ctx {
	const struct opts *o;
	const struct west_config *c;
	struct west_grid grid;
	struct west_obs_set obs;
	struct setup be;
	struct west_field_pool *pool;   /* the field's buffer: the backend's host
					   memory (page-locked on CUDA, which
					   each slab's rows come straight into) */
	struct west_field field;
};

static void progress(void *ctx, int step, const struct west_report *r)
{
	(void)ctx;
	double ms = 1e3 * r->step_seconds[step];
	if (step == WEST_STEP_LAND || step == WEST_STEP_TRANSPARENCY)
		fprintf(stderr, "west: step %d/%d %s: %.2f ms (with the terrain)\n",
			step + 1, WEST_NSTEPS, west_step_name(step), ms);
	else if (step == WEST_STEP_DIVMIN)
		fprintf(stderr, "west: step %d/%d %s: %ld iterations, max|D| h/U %.3g -> %.3g, "
			"L2 1 -> %.3g (%s), %.2f ms\n", step + 1, WEST_NSTEPS,
			west_step_name(step), r->iterations, r->start.rel_max,
			r->end.rel_max, r->end.rel_l2,
			r->converged ? "converged" : "iteration limit", ms);
	else
		fprintf(stderr, "west: step %d/%d %s: %.2f ms\n", step + 1, WEST_NSTEPS,
			west_step_name(step), ms);
}

/* Terrain and observations: bad input, exit 3. */
static int load_inputs(struct run_ctx *x)
{
	char err[WEST_ERRLEN], times[WEST_ERRLEN];
	struct west_obs_opts oo;
	struct west_grid_opts go;

	west_grid_opts_from_config(&go, x->c);
	go.dem_reader = x->o->dem_reader;
	if (west_grid_load(&x->grid, x->o->terrain, &go, err, sizeof err)) {
		west_log(WEST_LOG_ERR, "%s", err);
		return EXIT_INPUT;
	}
	oo = (struct west_obs_opts){ .grid = &x->grid,
				     .max_stations = (size_t)x->c->max_stations,
				     .allow_outside = x->c->allow_outside };
	if (x->o->at_time) {
		oo.pick = WEST_OBS_PICK_NEAREST;
		oo.time = x->o->time, oo.window = x->o->window;
	}
	/* under mpirun rank 0 reads the observations and shares them */
	int ok = west_ranks_me() > 0 || !west_obs_load(x->o->obs, &oo, &x->obs, err, sizeof err);
	if (!ok)
		west_log(WEST_LOG_ERR, "%s", err);
	if (west_ranks_share_obs(&x->obs, &ok, err, sizeof err)) {
		west_log(WEST_LOG_ERR, "%s", err);
		return EXIT_RUNTIME;
	}
	if (!ok)
		return EXIT_INPUT;
	west_obs_times_describe(&x->obs.times, times, sizeof times);
	west_log(WEST_LOG_NOTICE, "%s: %s", x->o->obs, times);
	return EXIT_OK;
}

/* --geotiff: the wind at --height above the ground, one pixel per column
 * (the slice the API answers with format=geotiff, stride 1). */
static enum west_status write_geotiff(const struct run_ctx *x, char *err, size_t errlen)
{
	const char *extra[] = { "SOURCE=west run", NULL };
	unsigned char *buf;
	size_t len, valid;
	enum west_status st;

	st = west_geotiff_wind(&x->grid, &x->field, x->o->height, WEST_ZREF_AGL, 1, extra,
			       &buf, &len, &valid, err, errlen);
	if (!st)
		st = west_file_replace(x->o->geotiff, buf, len, 0644, err, errlen);
	free(buf);
	if (!st && valid == 0)
		west_log(WEST_LOG_WARNING, "%s: every pixel is nodata: %g m above the ground "
			 "is above the grid top everywhere", x->o->geotiff, x->o->height);
	return st;
}

static int solve_and_write(struct run_ctx *x)
{
	char err[WEST_ERRLEN];
	struct west_solve_opts so;
	int show = x->o->progress || isatty(STDERR_FILENO);

	west_solve_opts_from_config(&so, x->c);   /* one slab per MPI rank */
	if (west_ranks_me() > 0)   /* rank 0 gathers the field */
		west_field_shape(&x->field, &x->grid);
	if (west_ranks_me() == 0 && !(x->pool = west_field_pool_new(x->be.be->host, 1))) {
		west_log(WEST_LOG_ERR, "west run: out of memory");
		return EXIT_RUNTIME;
	}
	if ((west_ranks_me() == 0 &&
	     west_field_pool_get(x->pool, &x->field, &x->grid, err, sizeof err)) ||
	    x->be.be->run(x->be.state, &x->obs, &so, &x->field, show ? progress : NULL,
			  NULL, err, sizeof err) ||
	    (west_ranks_me() == 0 &&
	     (west_snapshot_write(x->o->out, &x->grid, &x->field, &x->obs, err, sizeof err) ||
	      (x->o->geotiff && write_geotiff(x, err, sizeof err))))) {
		west_log(WEST_LOG_ERR, "%s", err);
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

static void print_convergence(const char *what, const struct west_convergence *c)
{
	printf("  %-22s max|D| %.3e 1/s, max|D| h/U_ref %.3e, L2 relative %.3e\n",
	       what, c->max_div, c->rel_max, c->rel_l2);
}

static void print_report(const struct west_report *r)
{
	printf("solver   %s, %s indexing, omega %g, eta %g: %ld of at most %ld iterations, %s (tolerance %g)\n",
	       r->solver, r->indexing, r->omega, r->eta, r->iterations, r->iterations_max,
	       r->converged ? "converged" : "not converged", r->tolerance);
	print_convergence("start", &r->start);
	print_convergence("end", &r->end);
	print_convergence("after removal", &r->final);
	printf("steps   ");
	for (int s = 0; s < WEST_NSTEPS; s++)
		printf(" %s %.2f ms%s", west_step_key(s), 1e3 * r->step_seconds[s],
		       s + 1 < WEST_NSTEPS ? "," : "\n");
	printf("total    %.2f ms (h %g m, U_ref %g m/s)\n", 1e3 * r->total_seconds, r->h, r->u_ref);
	if (r->partitions > 1)
		printf("parts    %d slabs, %.2f ms in their exchanges\n", r->partitions,
		       1e3 * r->exchange_seconds);
}

static void print_run_table(const struct run_ctx *x, const char *terrain)
{
	const struct west_grid *g = &x->grid;
	char when[32], times[WEST_ERRLEN];

	west_obs_time_format(x->field.valid_time, when, sizeof when);
	printf("terrain  %s: %zu x %zu x %zu cells of %g x %g m, %zu land\n", terrain,
	       g->nx, g->ny, g->nz, g->dx, g->dy, g->land_cells);
	printf("obs      %s: %zu station%s, valid %s\n", x->o->obs, x->obs.n,
	       x->obs.n == 1 ? "" : "s", when);
	west_obs_times_describe(&x->obs.times, times, sizeof times);
	printf("times    %s\n", times);
	printf("backend  %s: %s (%s)\n", x->be.be->name, x->be.device, x->be.note);
	print_report(&x->field.report);
	printf("wrote    %s\n", x->o->out);
	if (x->o->geotiff)
		printf("wrote    %s (GeoTIFF: the wind %g m above the ground)\n",
		       x->o->geotiff, x->o->height);
}

static void print_run_json(const struct run_ctx *x, const char *terrain)
{
	char when[32];
	west_obs_time_format(x->field.valid_time, when, sizeof when);
	json_t *j = json_pack("{s:s, s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:{s:I, s:I, s:I, s:I}, s:o}",
		"terrain", terrain, "observations", x->o->obs, "stations", (json_int_t)x->obs.n,
		"valid_time", when, "out", x->o->out, "backend", x->be.be->name,
		"backend_device", x->be.device, "backend_note", x->be.note,
		"grid", "nx", (json_int_t)x->grid.nx, "ny", (json_int_t)x->grid.ny,
		"nz", (json_int_t)x->grid.nz, "land_cells", (json_int_t)x->grid.land_cells,
		"report", west_report_json(&x->field.report));
	json_object_set_new(j, "times", west_obs_times_json(&x->obs.times));
	if (x->o->geotiff)
		json_object_set_new(j, "geotiff", json_pack("{s:s, s:f}", "file", x->o->geotiff,
							    "height", x->o->height));
	char *text = json_dumps(j, JSON_COMPACT);
	puts(text);
	free(text);
	json_decref(j);
}

int west_cli_run(const struct opts *o, const struct west_config *c)
{
	struct run_ctx *x = calloc(1, sizeof *x);
	const char *terrain = o->terrain ? o->terrain : c->terrain;
	int rc;

	if (!x)
		return EXIT_RUNTIME;
	x->o = o, x->c = c;
	rc = load_inputs(x);
	if (!rc)
		rc = west_cli_setup_backend(c, &x->grid, &x->be);
	if (!rc)
		rc = solve_and_write(x);
	if (!rc && west_ranks_me() == 0)
		o->json ? print_run_json(x, terrain) : print_run_table(x, terrain);
	if (x->be.state)
		x->be.be->free(x->be.state);
	west_field_free(&x->field);
	west_field_pool_release(x->pool);
	west_obs_set_free(&x->obs);
	west_grid_free(&x->grid);
	free(x);
	return rc;
}

/* ------------------------------------------------------------------ info */

struct wind_stats {
	size_t air;
	double max_speed, mean_speed, max_w;
};

static void wind_stats(const struct west_snapshot *s, struct wind_stats *w)
{
	size_t n = s->nx * s->ny * s->nz;
	double sum = 0;
	memset(w, 0, sizeof *w);
	for (size_t c = 0; c < n; c++) {
		if (isnan(s->u[c]))
			continue;
		double sp = sqrt((double)s->u[c] * s->u[c] + (double)s->v[c] * s->v[c] +
				 (double)s->w[c] * s->w[c]);
		w->air++, sum += sp;
		w->max_speed = fmax(w->max_speed, sp);
		w->max_w = fmax(w->max_w, fabs(s->w[c]));
	}
	w->mean_speed = w->air ? sum / (double)w->air : 0;
}

static void print_info_table(const char *path, const struct west_snapshot *s,
			     const struct wind_stats *w)
{
	char when[32];
	double dx = s->nx > 1 ? s->x[1] - s->x[0] : 0, dy = s->ny > 1 ? s->y[1] - s->y[0] : 0;

	west_obs_time_format(s->time, when, sizeof when);
	printf("file     %s (%s)\n", path, s->conventions);
	printf("time     %s\n", when);
	printf("grid     nx %zu, ny %zu, nz %zu cells of %g x %g m, crs %s\n", s->nx, s->ny,
	       s->nz, dx, dy, s->grid_mapping[0] ? s->grid_mapping : "none given");
	printf("extent   x %.1f .. %.1f m, y %.1f .. %.1f m (cell centres), base %.1f m\n",
	       s->x[0], s->x[s->nx - 1], s->y[0], s->y[s->ny - 1], s->base_altitude);
	printf("wind     %zu air cells: speed mean %.2f, max %.2f m/s; max |w| %.3f m/s\n",
	       w->air, w->mean_speed, w->max_speed, w->max_w);
	printf("stations %zu\n", s->obs.n);
	for (size_t i = 0; i < s->obs.n; i++) {
		const struct west_obs *b = &s->obs.obs[i];
		printf("  %-16s x %.1f y %.1f, %.1f m: %.2f m/s from %.0f deg, class %s\n",
		       b->id, b->x, b->y, b->height, b->speed, b->direction,
		       west_stability_name(b->stability));
	}
	print_report(&s->report);
}

static void print_info_json(const char *path, const struct west_snapshot *s,
			    const struct wind_stats *w)
{
	char when[32];
	json_t *st = json_array();

	west_obs_time_format(s->time, when, sizeof when);
	for (size_t i = 0; i < s->obs.n; i++) {
		const struct west_obs *b = &s->obs.obs[i];
		json_array_append_new(st, json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:s}",
			"id", b->id, "x", b->x, "y", b->y, "height", b->height,
			"speed", b->speed, "direction", b->direction,
			"stability", west_stability_name(b->stability)));
	}
	json_t *j = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:s, s:f, s:I, s:f, s:f, s:f, s:o, s:o}",
		"file", path, "conventions", s->conventions, "time", when,
		"nx", (json_int_t)s->nx, "ny", (json_int_t)s->ny, "nz", (json_int_t)s->nz,
		"grid_mapping", s->grid_mapping, "base_altitude", s->base_altitude,
		"air_cells", (json_int_t)w->air, "mean_speed", w->mean_speed,
		"max_speed", w->max_speed, "max_abs_w", w->max_w, "stations", st,
		"report", west_report_json(&s->report));
	char *text = json_dumps(j, JSON_COMPACT);
	puts(text);
	free(text);
	json_decref(j);
}

int west_cli_info(const struct opts *o)
{
	struct west_snapshot s;
	struct wind_stats w;
	char err[WEST_ERRLEN];

	if (west_snapshot_read(o->file, &s, err, sizeof err)) {
		west_log(WEST_LOG_ERR, "%s", err);
		return EXIT_INPUT;
	}
	wind_stats(&s, &w);
	o->json ? print_info_json(o->file, &s, &w) : print_info_table(o->file, &s, &w);
	west_snapshot_free(&s);
	return EXIT_OK;
}
