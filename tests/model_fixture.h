/*
 * model_fixture.h: small synthetic set-ups for the model tests: a grid over
 * a flat plain or a Gaussian hill built in memory (uniform or listed
 * levels), hand-made observation sets, a solve through a backend (the CPU;
 * the CUDA one when the including file is built with -DFIX_CUDA, skipping
 * with the reason where it cannot run), and the cell divergence
 * recomputed in double.
 */
#ifndef WEST_TESTS_MODEL_FIXTURE_H
#define WEST_TESTS_MODEL_FIXTURE_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "field.h"
#include "grid.h"
#include "model.h"
#include "obs.h"

#ifdef FIX_CUDA
#include "gpu.h"
#define FIX_BACKEND "cuda"
#else
#define FIX_BACKEND "cpu"
#endif

#define FIX_X0 500000.0
#define FIX_Y0 4650000.0
#define FIX_PLAIN 100.0     /* altitude of the plain (m) */

/*
 * A grid of nx * ny columns of dx m with the vertical levels of c (nz and
 * dz, or levels) over a plain with a Gaussian hill of `height` m and
 * `sigma` m at the domain centre.
 */
static inline void fix_grid_conf(struct west_grid *g, size_t nx, size_t ny,
				 double dx, const struct west_config *c,
				 double height, double sigma)
{
	struct west_dem dem = { .nx = nx, .ny = ny, .dx = dx, .dy = dx,
				.x0 = FIX_X0, .y0 = FIX_Y0 };
	char err[WEST_ERRLEN];
	double xc = 0.5 * (double)nx * dx, yc = 0.5 * (double)ny * dx;

	dem.z = malloc(nx * ny * sizeof *dem.z);
	cr_assert_not_null(dem.z);
	for (size_t j = 0; j < ny; j++)
		for (size_t i = 0; i < nx; i++) {
			double x = ((double)i + 0.5) * dx - xc, y = ((double)j + 0.5) * dx - yc;
			dem.z[j * nx + i] = (float)(FIX_PLAIN + height *
				exp(-(x * x + y * y) / (2 * sigma * sigma)));
		}
	struct west_grid_opts go;
	west_grid_opts_from_config(&go, c);
	cr_assert_eq(west_grid_init(g, &dem, &go, err, sizeof err), WEST_OK, "%s", err);
	free(dem.z);
}

/* fix_grid_conf with nz uniform levels of dz m. */
static inline void fix_grid(struct west_grid *g, size_t nx, size_t ny, double dx,
			    size_t nz, double dz, double height, double sigma)
{
	struct west_config *c = malloc(sizeof *c);

	cr_assert_not_null(c);
	west_config_defaults(c);
	c->nz = (long)nz;
	c->dz = dz;
	fix_grid_conf(g, nx, ny, dx, c, height, sigma);
	free(c);
}

/* fix_grid with staircase faces (land by cell centre, every open face
 * wholly open), for tests that build fields by hand on that geometry. */
static inline void fix_grid_staircase(struct west_grid *g, size_t nx, size_t ny,
				      double dx, size_t nz, double dz, double height,
				      double sigma)
{
	struct west_config *c = malloc(sizeof *c);

	cr_assert_not_null(c);
	west_config_defaults(c);
	c->nz = (long)nz;
	c->dz = dz;
	c->terrain_faces = WEST_FACES_STAIRCASE;
	fix_grid_conf(g, nx, ny, dx, c, height, sigma);
	free(c);
}

/* Append one station (x, y from the grid's corner). */
static inline void fix_obs(struct west_obs_set *set, const char *id, double x,
			   double y, double height, double speed, double dir,
			   int cls)
{
	set->obs = realloc(set->obs, (set->n + 1) * sizeof *set->obs);
	cr_assert_not_null(set->obs);
	struct west_obs *o = &set->obs[set->n++];
	memset(o, 0, sizeof *o);
	snprintf(o->id, sizeof o->id, "%s", id);
	o->x = FIX_X0 + x, o->y = FIX_Y0 + y;
	o->height = height, o->speed = speed, o->direction = dir;
	o->time = 1795435200;   /* 2026-11-23T12:00:00Z */
	o->stability = cls;
	o->inv_L = NAN, o->z0 = NAN;
	set->valid_time = o->time;
}

/* The paper's solver (sor) with these settings; multigrid tests set
 * .solver and get 100 cycles at most. */
static inline void fix_opts(struct west_solve_opts *o, long iterations,
			    double tolerance, double omega,
			    enum west_indexing indexing)
{
	*o = (struct west_solve_opts){
		.solver = WEST_SOLVER_SOR, .cycles = 100,
		.iterations = iterations, .tolerance = tolerance, .omega = omega,
		.eta = 1.0, .indexing = indexing, .check_interval = 10,
		.land_use = WEST_LAND_RURAL,
	};
}

/*
 * Solve on the backend under test into f (allocated here): the CPU, or
 * with FIX_CUDA the CUDA backend (the test skips, with the reason, when
 * that cannot run here).
 */
static inline void fix_solve(const struct west_grid *g, const struct west_obs_set *obs,
			     const struct west_solve_opts *o, struct west_field *f)
{
	const struct west_backend *be = &west_backend_cpu;
	void *state = NULL;
	char err[WEST_ERRLEN];

#ifdef FIX_CUDA
	gpu_skip_unless_usable();
#ifdef WEST_HAVE_CUDA
	be = &west_backend_cuda;
#endif
#endif
	cr_assert_eq(west_field_init(f, g, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(be->init(&state, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(be->upload_terrain(state, g, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(be->run(state, obs, o, f, NULL, NULL, err, sizeof err), WEST_OK,
		     "%s", err);
	be->free(state);
}

/* Divergence of cell (i, j, k) in double (1/s). */
static inline double fix_div(const struct west_grid *g, const struct west_field *f,
			     size_t i, size_t j, size_t k)
{
	size_t nx = g->nx, ny = g->ny;
	size_t xw = i + (nx + 1) * (j + ny * k), ys = i + nx * (j + (ny + 1) * k);
	size_t zb = i + nx * (j + ny * k);
	return ((double)f->u[xw + 1] - f->u[xw]) / g->dx +
	       ((double)f->v[ys + nx] - f->v[ys]) / g->dy +
	       ((double)f->w[zb + nx * ny] - f->w[zb]) / (g->zf[k + 1] - g->zf[k]);
}

#endif
