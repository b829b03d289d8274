/*
 * potential_flow.c: validation of westd's mass-consistent solve against
 * exact potential-flow solutions (docs/validation.md, "Exact solutions:
 * potential flow").
 *
 * With eta = 1 and a uniform initial field u0 = (U, 0, 0) in the air (the
 * faces touching land zeroed by step 6), the minimization
 * u = u0 + grad phi, div grad phi = -div u0, zero normal flux at land and
 * ground, gives the potential flow over the terrain.  Two terrains have
 * exact solutions, from the uniform stream past a sphere and past a
 * circular cylinder (Batchelor, "An Introduction to Fluid Dynamics", 1967,
 * ch. 6; Milne-Thomson, "Theoretical Hydrodynamics"), the plane through
 * the centre being a symmetry plane of either flow:
 *
 *   hemisphere of radius R on a plane: phi = U x (1 + R^3 / (2 r^3)); above
 *   the crest, at height r above the plane, u = U (1 + R^3 / (2 r^3)),
 *   1.5 U at the crest;
 *   half-cylinder ridge of radius R across the wind:
 *   phi = U x (1 + R^2 / r^2); above the crest u = U (1 + R^2 / r^2),
 *   2 U at the crest.
 *
 * The program builds the terrain in memory (heights at the column centres),
 * the grid (uniform levels, dz = dx, base altitude = the plane), the
 * multigrid hierarchy for eta = 1, and runs west_model_solve with the CPU
 * kernels except step 5, replaced by a function that writes U on every
 * x-face and 0 on every y-face (steps 1-3 run on one dummy station and are
 * overwritten).  It samples the solved field with west_query_point above
 * the crest and prints one markdown table row per resolution.
 *
 *   potential_flow SHAPE [options] N...     (SHAPE: hemisphere | cylinder;
 *                                            N: R/dx, e.g. 4 8 16)
 *     --domain A   half-width of the domain in x (and in y for the
 *                  hemisphere) in units of R (default 8 hemisphere,
 *                  32 cylinder)
 *     --top B      height of the top face above the plane, in R (same
 *                  defaults)
 *     --width C    cylinder only: half-width in y, in R (default 64)
 *     --dy D       cylinder only: dy in R (default 4; the ridge is uniform
 *                  in y, so dy only resolves the end effect of the open y
 *                  sides, and dy = R/4 .. 4R give the same speeds to 1e-4 U;
 *                  the hemisphere uses dy = dx)
 *     --radius M   R in metres (default 160)
 *     --tol T      multigrid tolerance on max|D| h / U (default 1e-5)
 *     --staircase  staircase faces (default: cut cells, the config default)
 *     --header     print the table header first
 *
 * Geometry: nx is even, so an x-face (where u lives) lies at x = 0 over the
 * crest; ny is odd, so a row of column centres (where u lives) lies at
 * y = 0.  With R/dz an integer, the staircase top over the crest is the
 * face at height R exactly (the crest columns at x = -dx/2, dx/2 are
 * R sqrt(1 - (dx/2R)^2) high, above the centre of the level below R).
 *
 * What is compared (speeds in units of U, errors (westd - exact) / exact):
 *  - crest: u on the x-face at x = 0, y = 0 of the first air level above
 *    the crest, at its centre height z_c = R + dz / 2, against the exact
 *    speed at that same point (not 1.5 U or 2 U, the surface values, which
 *    the samples approach as dz -> 0);
 *  - r = 1.25 R, 1.5 R, 2 R above the plane over the crest:
 *    west_query_point (linear between level centres there) against the
 *    exact speed at the point;
 *  - order: log(|e_prev / e|) / log(N / N_prev) between successive rows
 *    (meaningless where the error changes sign).
 * "solve s" is the hierarchy build and west_model_solve, wall time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "field.h"
#include "grid.h"
#include "log.h"
#include "model.h"
#include "multigrid.h"
#include "obs.h"
#include "query.h"
#include "terrain.h"

#define PF_U 10.0          /* m/s */
#define PF_PLANE 100.0     /* altitude of the plane (m) */
#define PF_XC 500000.0     /* the obstacle's centre in the CRS (m) */
#define PF_YC 4650000.0

enum shape { HEMISPHERE, CYLINDER };

struct opts {
	enum shape shape;
	double domain, top, width, dy, radius, tol;
	int header;
	int faces;                      /* enum west_terrain_faces */
};

/* ------------------------------------------------------------ step 5 */

static enum west_status pf_interpolate(const struct west_kgrid *g, size_t ns,
				       const struct west_kstation *st,
				       const float *pst, const float *us,
				       const float *vs, float *u, float *v)
{
	size_t nxf = (g->nx + 1) * g->ny * g->nz, nyf = g->nx * (g->ny + 1) * g->nz;
	(void)ns, (void)st, (void)pst, (void)us, (void)vs;
	for (size_t c = 0; c < nxf; c++)
		u[c] = (float)PF_U;
	for (size_t c = 0; c < nyf; c++)
		v[c] = 0.0f;
	return WEST_OK;
}

/* ------------------------------------------------------------ exact */

/* Exact horizontal speed (m/s) at (x, z) from the axis (x along the wind,
 * z above the plane), y = 0 for the sphere. */
static double exact_speed(enum shape s, double R, double x, double z)
{
	double r2 = x * x + z * z;
	if (s == HEMISPHERE) {
		/* u = U [1 + R^3/(2 r^3) - 3 R^3 x^2 / (2 r^5)] at y = 0;
		 * v = 0 there */
		double r = sqrt(r2), R3 = R * R * R;
		return PF_U * (1.0 + R3 / (2 * r * r2) - 1.5 * R3 * x * x / (r2 * r2 * r));
	}
	/* u - i w = U (1 - R^2 / zeta^2), zeta = x + i z */
	return PF_U * (1.0 - R * R * (x * x - z * z) / (r2 * r2));
}

/* ------------------------------------------------------------ one run */

struct result {
	size_t nx, ny, nz, cells, air;
	long iterations;
	int converged;
	double rel_max, mg_seconds, solve_seconds;
	double z_crest;                 /* first air level centre over the crest (m above plane) */
	double crest, crest_exact;      /* m/s */
	double h[3], at[3], at_exact[3];
};

static const double heights_R[3] = { 1.25, 1.5, 2.0 };

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int die(const char *what, const char *err)
{
	fprintf(stderr, "potential_flow: %s: %s\n", what, err);
	exit(1);
}

static void run(const struct opts *o, int n, struct result *res)
{
	double R = o->radius, dx = R / n, dz = dx;
	double dy = o->shape == HEMISPHERE ? dx : o->dy * R;
	double half_y = o->shape == HEMISPHERE ? o->domain : o->width;
	size_t nx = 2 * (size_t)llround(o->domain * n);
	size_t ny = 2 * (size_t)llround(half_y * R / dy) + 1;
	size_t nz = (size_t)llround(o->top * n);
	char err[WEST_ERRLEN];

	memset(res, 0, sizeof *res);

	/* terrain: heights at the column centres */
	struct west_dem dem = { .nx = nx, .ny = ny, .dx = dx, .dy = dy,
				.x0 = PF_XC - 0.5 * (double)nx * dx,
				.y0 = PF_YC - 0.5 * (double)ny * dy };
	dem.z = malloc(nx * ny * sizeof *dem.z);
	if (!dem.z)
		die("terrain", "out of memory");
	for (size_t j = 0; j < ny; j++)
		for (size_t i = 0; i < nx; i++) {
			double x = dem.x0 + ((double)i + 0.5) * dx - PF_XC;
			double y = dem.y0 + ((double)j + 0.5) * dy - PF_YC;
			double q = R * R - x * x - (o->shape == HEMISPHERE ? y * y : 0.0);
			dem.z[j * nx + i] = (float)(PF_PLANE + (q > 0 ? sqrt(q) : 0.0));
		}

	struct west_config *conf = malloc(sizeof *conf);
	if (!conf)
		die("config", "out of memory");
	west_config_defaults(conf);
	conf->nz = (long)nz;
	conf->dz = dz;
	conf->nlevels = 0;
	conf->base_altitude = PF_PLANE;
	conf->max_cells = 4000000000LL;
	conf->terrain_faces = o->faces;

	struct west_grid g;
	struct west_grid_opts go;
	west_grid_opts_from_config(&go, conf);
	if (west_grid_init(&g, &dem, &go, err, sizeof err))
		die("grid", err);
	free(dem.z);
	free(conf);

	/* one dummy station (the driver needs one; step 5 ignores it) */
	struct west_obs ob = { .x = g.x0 + 0.5 * dx, .y = g.y0 + 0.5 * dy,
			       .height = 10.0, .speed = PF_U, .direction = 270.0,
			       .time = 1795435200, .stability = 3,
			       .inv_L = NAN, .z0 = NAN };
	snprintf(ob.id, sizeof ob.id, "dummy");
	struct west_obs_set obs = { .n = 1, .obs = &ob, .valid_time = ob.time };

	struct west_solve_opts so = {
		.solver = WEST_SOLVER_MULTIGRID, .cycles = 100, .iterations = 1000,
		.tolerance = o->tol, .omega = 1.25, .eta = 1.0,
		.indexing = WEST_INDEXING_COMPACT, .check_interval = 20,
		.land_use = WEST_LAND_RURAL,
	};

	struct west_field f;
	struct west_levels lv;
	struct west_mg mg;
	if (west_field_init(&f, &g, err, sizeof err))
		die("field", err);
	if (west_levels_init(&lv, &g, err, sizeof err))
		die("levels", err);
	double t0 = now();
	if (west_mg_build(&mg, &g, so.eta, err, sizeof err))
		die("multigrid hierarchy", err);
	res->mg_seconds = now() - t0;

	size_t ns = 1;
	struct west_kstation st[1];
	float stab[1];
	float *prof = malloc(3 * ns * nz * sizeof *prof);
	if (!prof)
		die("work", "out of memory");
	struct west_work wk = {
		.ns = ns, .st = st, .stab = stab,
		.pexp = west_power_exponents(so.land_use),
		.pst = prof, .us = prof + ns, .vs = prof + 2 * ns,
		.cls = f.stability, .u = f.u, .v = f.v, .w = f.w,
		.mg = &mg,
		.land_seconds = g.land_seconds,
		.transparency_seconds = g.transparency_seconds,
	};
	west_kgrid_init(&wk.kg, &g, &lv);
	west_model_stations(&g, &obs, so.land_use, st, stab);

	struct west_kernel_ops ops = west_kernels_cpu;
	ops.interpolate = pf_interpolate;

	t0 = now();
	if (west_model_solve(&ops, &wk, &g, &so, PF_U, &f.report, NULL, NULL,
			     err, sizeof err))
		die("solve", err);
	res->solve_seconds = now() - t0;

	/* first air level over the crest: the x-face at x = 0 (i = nx / 2)
	 * borders columns nx/2 - 1 and nx/2 of the middle row */
	size_t ic = nx / 2, jc = ny / 2, k = 0;
	while (k < nz && (g.land[west_grid_cell(&g, ic, jc, k)] ||
			  g.land[west_grid_cell(&g, ic - 1, jc, k)]))
		k++;
	if (k == nz)
		die("crest", "no air above the crest");
	res->z_crest = 0.5 * (g.zf[k] + g.zf[k + 1]);

	struct west_point p;
	if (west_query_point(&g, &f, PF_XC, PF_YC, PF_PLANE + res->z_crest,
			     WEST_ZREF_MSL, &p, err, sizeof err))
		die("query at the crest", err);
	res->crest = p.speed;
	res->crest_exact = exact_speed(o->shape, R, 0.0, res->z_crest);
	for (int h = 0; h < 3; h++) {
		res->h[h] = heights_R[h] * R;
		if (west_query_point(&g, &f, PF_XC, PF_YC, PF_PLANE + res->h[h],
				     WEST_ZREF_MSL, &p, err, sizeof err))
			die("query above the crest", err);
		res->at[h] = p.speed;
		res->at_exact[h] = exact_speed(o->shape, R, 0.0, res->h[h]);
	}

	res->nx = nx, res->ny = ny, res->nz = nz;
	res->cells = nx * ny * nz;
	res->air = res->cells - g.land_cells;
	res->iterations = f.report.iterations;
	res->converged = f.report.converged;
	res->rel_max = f.report.end.rel_max;

	free(prof);
	west_mg_free(&mg);
	west_levels_free(&lv);
	west_field_free(&f);
	west_grid_free(&g);
}

/* ------------------------------------------------------------ main */

static void usage(void)
{
	fprintf(stderr,
		"usage: potential_flow hemisphere|cylinder [--domain A] [--top B] "
		"[--width C] [--dy D] [--radius M] [--tol T] [--staircase] [--header] N...\n");
	exit(2);
}

static double err_pct(double a, double b)
{
	return 100.0 * (a - b) / b;
}

int main(int argc, char **argv)
{
	struct opts o = { .radius = 160.0, .tol = 1e-5, .dy = 4.0 };
	int ns = 0, n[32];

	if (argc < 3)
		usage();
	if (!strcmp(argv[1], "hemisphere"))
		o.shape = HEMISPHERE, o.domain = 8, o.top = 8;
	else if (!strcmp(argv[1], "cylinder"))
		o.shape = CYLINDER, o.domain = 32, o.top = 32, o.width = 64;
	else
		usage();
	for (int a = 2; a < argc; a++) {
		const char *s = argv[a];
		double *d = !strcmp(s, "--domain") ? &o.domain : !strcmp(s, "--top") ? &o.top :
			    !strcmp(s, "--width") ? &o.width : !strcmp(s, "--dy") ? &o.dy :
			    !strcmp(s, "--radius") ? &o.radius : !strcmp(s, "--tol") ? &o.tol : NULL;
		if (d) {
			if (++a >= argc)
				usage();
			*d = atof(argv[a]);
			if (!(*d > 0))
				usage();
		} else if (!strcmp(s, "--header")) {
			o.header = 1;
		} else if (!strcmp(s, "--staircase")) {
			o.faces = WEST_FACES_STAIRCASE;
		} else if (ns < 32 && atoi(s) >= 1) {
			n[ns++] = atoi(s);
		} else {
			usage();
		}
	}
	if (!ns)
		usage();
	west_log_set_level(WEST_LOG_WARNING);

	if (o.header) {
		printf("| R/dx | domain (R) | cells nx x ny x nz (air) | MG its | solve s "
		       "| crest z/R | crest u/U westd | exact | err %% | order "
		       "| r=1.25R westd | exact | err %% | order "
		       "| r=1.5R westd | exact | err %% | order "
		       "| r=2R westd | exact | err %% | order |\n");
		printf("|---:|---|---|---:|---:|---:|---:|---:|---:|---:"
		       "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	}
	double prev[4] = { NAN, NAN, NAN, NAN };
	int prev_n = 0;
	for (int r = 0; r < ns; r++) {
		struct result res;
		run(&o, n[r], &res);
		double e[4] = { err_pct(res.crest, res.crest_exact),
				err_pct(res.at[0], res.at_exact[0]),
				err_pct(res.at[1], res.at_exact[1]),
				err_pct(res.at[2], res.at_exact[2]) };
		char ord[4][16];
		for (int c = 0; c < 4; c++) {
			if (prev_n && fabs(e[c]) > 0 && fabs(prev[c]) > 0)
				snprintf(ord[c], sizeof ord[c], "%.2f",
					 log(fabs(prev[c] / e[c])) / log((double)n[r] / prev_n));
			else
				snprintf(ord[c], sizeof ord[c], "-");
			prev[c] = e[c];
		}
		prev_n = n[r];
		char dom[128];
		if (o.shape == HEMISPHERE)
			snprintf(dom, sizeof dom, "+-%g x +-%g x %g", o.domain, o.domain, o.top);
		else
			snprintf(dom, sizeof dom, "+-%g x +-%g x %g, dy %gR", o.domain,
				 o.width, o.top, o.dy);
		printf("| %d | %s | %zu x %zu x %zu = %.2fM (%.2fM) | %ld%s | %.1f "
		       "| %.4f | %.4f | %.4f | %+.2f | %s ",
		       n[r], dom, res.nx, res.ny, res.nz, res.cells / 1e6, res.air / 1e6,
		       res.iterations, res.converged ? "" : " (not converged)",
		       res.mg_seconds + res.solve_seconds,
		       res.z_crest / o.radius, res.crest / PF_U, res.crest_exact / PF_U,
		       e[0], ord[0]);
		for (int h = 0; h < 3; h++)
			printf("| %.4f | %.4f | %+.2f | %s ", res.at[h] / PF_U,
			       res.at_exact[h] / PF_U, e[h + 1], ord[h + 1]);
		printf("|\n");
		fflush(stdout);
		fprintf(stderr, "potential_flow: %s R/dx %d: %zu cells, %ld iterations, "
			"max|D| h/U %.2e, hierarchy %.1f s, solve %.1f s\n",
			argv[1], n[r], res.cells, res.iterations, res.rel_max,
			res.mg_seconds, res.solve_seconds);
	}
	return 0;
}
