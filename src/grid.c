/*
 * grid.c: builds the 3D grid, land mask and face transparencies from a DEM
 * (see grid.h for the layout and the rules).  Every size is checked before
 * anything is allocated; the mask and transparencies are WEST steps 4 and
 * 7, computed once per terrain by their kernels (kernels/land.c,
 * kernels/transparency.c) and timed for the solve reports.
 */
#include "grid.h"

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels.h"
#include "log.h"
#include "model.h"
#include "ranks.h"
#include "proj.h"

static enum west_status make_levels(struct west_grid *g,
				    const struct west_grid_opts *o,
				    char *err, size_t errlen)
{
	g->nz = o->nlevels ? o->nlevels - 1 : o->nz;
	g->zf = malloc((g->nz + 1) * sizeof *g->zf);
	if (!g->zf)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "grid: no memory for levels");
	for (size_t k = 0; k <= g->nz; k++)
		g->zf[k] = o->nlevels ? o->levels[k] : (double)k * o->dz;
	return WEST_OK;
}

static enum west_status check_vertical(const struct west_grid *g,
				       float zmin, float zmax,
				       char *err, size_t errlen)
{
	if (g->base > zmin)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "base_altitude %.2f m is above the lowest terrain point %.2f m",
				 g->base, zmin);
	if (g->base + g->zf[g->nz] <= zmax)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "grid top at %.2f m (base %.2f m + %.2f m of levels) is not above the highest terrain point %.2f m; raise nz, dz or levels",
				 g->base + g->zf[g->nz], g->base, g->zf[g->nz], zmax);
	return WEST_OK;
}

static enum west_status check_size(const struct west_grid *g,
				   const struct west_grid_opts *o,
				   char *err, size_t errlen)
{
	double cells = (double)g->nx * (double)g->ny * (double)g->nz;
	if (cells > (double)o->max_cells)
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "grid of %zu x %zu x %zu = %.0f cells exceeds max_cells %llu",
				 g->nx, g->ny, g->nz, cells, o->max_cells);
	/* per cell: land mask, three face transparencies (+ a face row each) */
	size_t per_cell = 1 + 3 * sizeof(float);
	size_t n = (g->nx + 1) * (g->ny + 1) * (g->nz + 1);
	return west_check_alloc(n, per_cell, "grid", err, errlen);
}

static double now_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double west_grid_ground_at(const struct west_grid *g, double x, double y)
{
	double fi = x / g->dx - 0.5, fj = y / g->dy - 0.5;
	fi = fmin(fmax(fi, 0.0), (double)(g->nx - 1));
	fj = fmin(fmax(fj, 0.0), (double)(g->ny - 1));
	size_t i0 = (size_t)fi, j0 = (size_t)fj;
	size_t i1 = i0 + 1 < g->nx ? i0 + 1 : i0, j1 = j0 + 1 < g->ny ? j0 + 1 : j0;
	double a = fi - (double)i0, b = fj - (double)j0;
	const float *t = g->terrain;
	size_t nx = g->nx;
	return (1 - b) * ((1 - a) * t[j0 * nx + i0] + a * t[j0 * nx + i1]) +
	       b * ((1 - a) * t[j1 * nx + i0] + a * t[j1 * nx + i1]);
}

void west_grid_land_altitudes(const struct west_grid *g, double *zcalt)
{
	for (size_t k = 0; k < g->nz; k++)
		zcalt[k] = g->cut ? g->base + g->zf[k + 1] - WEST_CUT_MIN * (g->zf[k + 1] - g->zf[k])
				  : g->base + 0.5 * (g->zf[k] + g->zf[k + 1]);
}

double west_grid_lowest_level(const struct west_grid *g, size_t i, size_t j, size_t *k)
{
	size_t c = 0;
	while (c < g->nz && g->land[west_grid_cell(g, i, j, c)])
		c++;
	*k = c;
	if (c == g->nz)
		return -1.0;
	double ground = (double)g->terrain[j * g->nx + i] - g->base;
	return 0.5 * (g->zf[c + 1] + fmax(g->zf[c], ground));
}

/* The convergence at grid-local (x, y) by the projection tm: the grid
 * azimuth of true north, from a step of 1e-5 degrees north, negated. */
static int convergence_at(const struct west_grid *g, const struct west_crs *tm,
			  double x, double y, double *gamma)
{
	double lon, lat, x2, y2;
	char err[WEST_ERRLEN];

	if (west_tm_inverse(tm, g->x0 + x, g->y0 + y, &lon, &lat, err, sizeof err) ||
	    west_tm_forward(tm, lon, lat + 1e-5, &x2, &y2, err, sizeof err))
		return 0;
	*gamma = -atan2(x2 - (g->x0 + x), y2 - (g->y0 + y));
	return 1;
}

/* On another ellipsoid than WGS 84's the projection's own convergence
 * differs by far less than 0.01 degree from WGS 84's with the same
 * parameters (terrain.h), so it is taken from that. */
static void find_convergence(struct west_grid *g)
{
	double xs[2] = { 0.5 * g->dx, ((double)g->nx - 0.5) * g->dx };
	double ys[2] = { 0.5 * g->dy, ((double)g->ny - 0.5) * g->dy };
	struct west_crs tm = g->crs;

	tm.has_tm = g->crs.has_tm || g->crs.tm_other_ellipsoid;
	g->has_convergence = tm.has_tm;
	for (int c = 0; c < 4 && g->has_convergence; c++)
		g->has_convergence = convergence_at(g, &tm, xs[c & 1], ys[c >> 1],
						    &g->convergence[c]);
}

double west_grid_convergence(const struct west_grid *g, double x, double y)
{
	if (!g->has_convergence)
		return 0.0;
	double w = ((double)g->nx - 1.0) * g->dx, h = ((double)g->ny - 1.0) * g->dy;
	double a = w > 0 ? fmin(fmax((x - 0.5 * g->dx) / w, 0.0), 1.0) : 0.0;
	double b = h > 0 ? fmin(fmax((y - 0.5 * g->dy) / h, 0.0), 1.0) : 0.0;
	const double *c = g->convergence;
	return (1 - b) * ((1 - a) * c[0] + a * c[1]) + b * ((1 - a) * c[2] + a * c[3]);
}

/* The lowest resolved level where it stands highest above the ground. */
static void find_lowest_level(struct west_grid *g)
{
	g->lowest_agl_max = -1.0;
	for (size_t j = 0; j < g->ny; j++)
		for (size_t i = 0; i < g->nx; i++) {
			size_t k;
			double h = west_grid_lowest_level(g, i, j, &k);
			double agl = h + g->base - (double)g->terrain[j * g->nx + i];
			if (h >= 0 && agl > g->lowest_agl_max) {
				g->lowest_agl_max = agl;
				g->lowest_dz_there = g->zf[k + 1] - g->zf[k];
				g->lowest_i = i, g->lowest_j = j;
			}
		}
}

/* levels_warning (grid.h), once per grid. */
static void say_coarse_levels(struct west_grid *g)
{
	double dz0 = g->zf[1] - g->zf[0];

	g->levels_warning[0] = '\0';
	if (g->lowest_dz_there <= 2.0 * dz0)
		return;
	snprintf(g->levels_warning, sizeof g->levels_warning,
		 "levels count from the grid base: on high ground (column %zu, %zu, "
		 "ground %.1f m) the lowest air cell is %.1f m thick against %.1f m at the "
		 "base, and its centre %.1f m above the ground; answers below that height "
		 "come from the power law (give thinner levels higher up to resolve it)",
		 g->lowest_i, g->lowest_j, (double)g->terrain[g->lowest_j * g->nx + g->lowest_i],
		 g->lowest_dz_there, dz0, g->lowest_agl_max);
	west_log(WEST_LOG_WARNING, "grid: %s", g->levels_warning);
}

/* WEST steps 4 and 7 (kernels/land.c, kernels/transparency.c), timed. */
static enum west_status fill_land_transparency(struct west_grid *g,
					       char *err, size_t errlen)
{
	double *zc = malloc(g->nz * sizeof *zc), t0 = now_seconds();
	size_t n = west_grid_ncells(g), land = 0;
	struct west_levels lv;
	struct west_kgrid kg;

	if (!zc)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "grid: no memory for levels");
	west_grid_land_altitudes(g, zc);
	west_land_cpu(g->nx, g->ny, g->nz, g->terrain, zc, g->land);
	free(zc);
	#pragma omp parallel for reduction(+:land) schedule(static)
	for (size_t c = 0; c < n; c++)
		land += g->land[c];
	g->land_cells = land;
	g->land_seconds = now_seconds() - t0;
	enum west_status st = west_levels_init(&lv, g, err, errlen);
	if (st)
		return st;
	t0 = now_seconds();
	west_kgrid_init(&kg, g, &lv);
	west_transparency_cpu(&kg, g->cut, g->tx, g->ty, g->tz);
	g->transparency_seconds = now_seconds() - t0;
	west_levels_free(&lv);
	size_t cut = 0;
	#pragma omp parallel for reduction(+:cut) schedule(static)
	for (size_t c = 0; c < n; c++) {
		size_t i = c % g->nx, j = c / g->nx % g->ny, k = c / g->nx / g->ny;
		size_t xw = i + (g->nx + 1) * (j + g->ny * k), ys = i + g->nx * (j + (g->ny + 1) * k);
		float t[4] = { g->tx[xw], g->tx[xw + 1], g->ty[ys], g->ty[ys + g->nx] };
		int frac = 0;
		for (int f = 0; f < 4; f++)
			frac |= t[f] > 0.0f && t[f] < 1.0f;
		cut += (size_t)frac;
	}
	g->cut_cells = cut;
	return WEST_OK;
}

/* The land mask and transparencies of g (its terrain and levels set),
 * allocated and filled. */
static enum west_status make_volume(struct west_grid *g, char *err, size_t errlen)
{
	g->land = malloc(west_grid_ncells(g));
	g->tx = malloc(west_grid_nxfaces(g) * sizeof(float));
	g->ty = malloc(west_grid_nyfaces(g) * sizeof(float));
	g->tz = malloc(west_grid_nzfaces(g) * sizeof(float));
	if (!g->land || !g->tx || !g->ty || !g->tz)
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "grid: out of memory for %zu cells", west_grid_ncells(g));
	return fill_land_transparency(g, err, errlen);
}

static enum west_status alloc_columns(struct west_grid *g, const struct west_dem *dem,
				      char *err, size_t errlen)
{
	size_t ncol = g->nx * g->ny;
	if (!(g->terrain = malloc(ncol * sizeof *g->terrain)))
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "grid: out of memory for %zu columns", ncol);
	memcpy(g->terrain, dem->z, ncol * sizeof *g->terrain);
	return west_crs_copy(&g->crs, &dem->crs, err, errlen);
}

enum west_status west_grid_init(struct west_grid *g, const struct west_dem *dem,
				const struct west_grid_opts *o,
				char *err, size_t errlen)
{
	float zmin, zmax;
	enum west_status st;

	memset(g, 0, sizeof *g);
	g->nx = dem->nx, g->ny = dem->ny, g->dx = dem->dx, g->dy = dem->dy;
	g->x0 = dem->x0, g->y0 = dem->y0;
	west_dem_range(dem, &zmin, &zmax);
	g->terrain_min = zmin, g->terrain_max = zmax;
	g->base = isnan(o->base_altitude) ? floor(zmin) : o->base_altitude;
	g->cut = o->faces == WEST_FACES_CUT;
	st = make_levels(g, o, err, errlen);
	if (!st)
		st = check_vertical(g, zmin, zmax, err, errlen);
	if (!st)
		st = check_size(g, o, err, errlen);
	if (!st)
		st = alloc_columns(g, dem, err, errlen);
	if (!st && !o->columns_only)
		st = make_volume(g, err, errlen);
	if (st) {
		west_grid_free(g);
		return st;
	}
	if (!o->columns_only) {
		find_lowest_level(g);
		say_coarse_levels(g);
	}
	find_convergence(g);
	return WEST_OK;
}

void west_grid_opts_from_config(struct west_grid_opts *o, const struct west_config *c)
{
	*o = (struct west_grid_opts){
		.terrain = c->terrain,
		.dem = {
			.nodata = (enum west_nodata_rule)c->nodata,
			.variable = c->terrain_variable,
			.max_cells = (unsigned long long)c->max_cells,
			.epsg = c->terrain_epsg,
			.resolution = c->resolution,
			.timeout = c->terrain_timeout,
		},
		.nz = (size_t)c->nz, .dz = c->dz,
		.levels = c->levels, .nlevels = c->nlevels,
		.base_altitude = c->base_altitude,
		.max_cells = (unsigned long long)c->max_cells,
		.faces = (enum west_terrain_faces)c->terrain_faces,
		.columns_only = west_ranks_me() > 0,
	};
}

enum west_status west_grid_load(struct west_grid *g, const char *path,
				const struct west_grid_opts *o,
				char *err, size_t errlen)
{
	struct west_dem dem, res;
	double resolution = o->dem.resolution;
	enum west_status st;

	memset(g, 0, sizeof *g);
	if (!path)
		path = o->terrain ? o->terrain : "";
	if (!path[0])
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "no terrain: set `terrain` in the config or pass --terrain");
	st = o->dem_reader ? west_dem_load_child(&dem, o->dem_reader, path, &o->dem, err, errlen)
			   : west_dem_load(&dem, path, &o->dem, err, errlen);
	if (st)
		return st;
	if (resolution > 0 && (resolution != dem.dx || resolution != dem.dy)) {
		st = west_dem_resample(&dem, resolution, &res, err, errlen);
		west_dem_free(&dem);
		if (st)
			return st;
		west_log(WEST_LOG_INFO, "%s: resampled to %g m: %zu x %zu columns",
			 path, resolution, res.nx, res.ny);
		dem = res;
	}
	st = west_grid_init(g, &dem, o, err, errlen);
	west_dem_free(&dem);
	if (st && err) {
		char why[WEST_ERRLEN];
		snprintf(why, sizeof why, "%s", err);
		west_fail(err, errlen, st, "%s: %s", path, why);
	}
	return st;
}

void west_grid_free(struct west_grid *g)
{
	free(g->zf);
	free(g->terrain);
	free(g->land);
	free(g->tx);
	free(g->ty);
	free(g->tz);
	west_crs_free(&g->crs);
	memset(g, 0, sizeof *g);
}

size_t west_grid_bytes(const struct west_grid *g)
{
	size_t columns = (g->nz + 1) * sizeof(double) + g->nx * g->ny * sizeof(float);
	if (!g->land)
		return columns;
	return columns + west_grid_ncells(g) +
	       (west_grid_nxfaces(g) + west_grid_nyfaces(g) + west_grid_nzfaces(g)) *
	       sizeof(float);
}

/* Keep rows [j0, j1) (plus `extra` more face rows) of each of n planes of
 * a, an array of `row` elements per row and ny (+ extra) rows per plane,
 * moved to its start: each plane's rows land at or before where they
 * were. */
static void keep_rows(void *a, size_t elem, size_t row, size_t ny, size_t extra, size_t n,
		      size_t j0, size_t j1)
{
	size_t bytes = (j1 - j0 + extra) * row * elem;
	for (size_t k = 0; k < n; k++)
		memmove((char *)a + k * bytes, (char *)a + ((ny + extra) * k + j0) * row * elem,
			bytes);
}

enum west_status west_grid_slab(const struct west_grid *g, size_t j0, size_t j1,
				struct west_grid *out, char *err, size_t errlen)
{
	/* the slab's columns with the row beside each end where there is one,
	 * so that the faces between a slab row and it see both columns */
	size_t r0 = j0 > 0 ? j0 - 1 : 0, r1 = j1 < g->ny ? j1 + 1 : g->ny;
	size_t nx = g->nx, nz = g->nz, ny = r1 - r0;
	enum west_status st;

	*out = *g;
	memset(&out->crs, 0, sizeof out->crs);
	out->land = NULL, out->tx = out->ty = out->tz = NULL;
	out->ny = ny;
	out->y0 = g->y0 + (double)r0 * g->dy;
	out->zf = malloc((nz + 1) * sizeof *out->zf);
	out->terrain = malloc(nx * ny * sizeof *out->terrain);
	if (!out->zf || !out->terrain)
		st = west_fail(err, errlen, WEST_ERR_NOMEM, "grid: no memory for rows %zu to %zu",
			       j0, j1);
	else {
		memcpy(out->zf, g->zf, (nz + 1) * sizeof *out->zf);
		memcpy(out->terrain, g->terrain + nx * r0, nx * ny * sizeof *out->terrain);
		st = make_volume(out, err, errlen);
	}
	if (st) {
		west_grid_free(out);
		return st;
	}
	j0 -= r0, j1 -= r0;
	keep_rows(out->terrain, sizeof(float), nx, ny, 0, 1, j0, j1);
	keep_rows(out->land, 1, nx, ny, 0, nz, j0, j1);
	keep_rows(out->tx, sizeof(float), nx + 1, ny, 0, nz, j0, j1);
	keep_rows(out->ty, sizeof(float), nx, ny, 1, nz, j0, j1);
	keep_rows(out->tz, sizeof(float), nx, ny, 0, nz + 1, j0, j1);
	out->ny = j1 - j0;
	out->y0 += (double)j0 * g->dy;
	return WEST_OK;
}
