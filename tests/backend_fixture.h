/*
 * backend_fixture.h: what tests/test_backends.c (every kernel of every
 * backend against the CPU reference) and tests/test_backend_cuda.c (the
 * CUDA backend's whole runs against the CPU backend's) share: the hill
 * grids they run on, their stations, and element-by-element comparisons
 * that name the case (`context`, set by the including test), the array and
 * the first element that fails.
 */
#ifndef WEST_TESTS_BACKEND_FIXTURE_H
#define WEST_TESTS_BACKEND_FIXTURE_H

#include <stdio.h>

#include "model_fixture.h"

/* The case being checked, for every message. */
static const char *context = "";

/* ---- the hills ------------------------------------------------------------ */

/* 37 x 29 columns of 40 m (odd sizes), a hill of 90 m, sigma 250 m. */
#define HX 37
#define HY 29
#define HDX 40.0
#define HILL 90.0
#define HSIGMA 250.0

enum { HILL_UNIFORM, HILL_STRETCHED, HILL_STAIRCASE, NHILLS };

/*
 * Hill `which` into g: HILL_UNIFORM 11 levels of 15 m and HILL_STRETCHED
 * 10 stretched levels, both with cut cells (the default faces), and
 * HILL_STAIRCASE 11 levels of 15 m with staircase faces.  Each must make
 * land; the cut-cell hills must make cut faces and the staircase one none.
 * Returns its name.
 */
static inline const char *hill_grid(struct west_grid *g, int which)
{
	static const double stretched[] = { 0, 6, 14, 24, 36, 50, 66, 85, 108, 135, 170 };
	static const char *const names[NHILLS] = {
		"hill, 11 levels of 15 m", "hill, 10 stretched levels",
		"hill, 11 levels of 15 m, staircase faces",
	};
	struct west_config *conf = malloc(sizeof *conf);
	size_t cut = 0;

	cr_assert_not_null(conf);
	west_config_defaults(conf);
	if (which == HILL_STRETCHED) {
		memcpy(conf->levels, stretched, sizeof stretched);
		conf->nlevels = sizeof stretched / sizeof stretched[0];
	} else {
		conf->nz = 11;
		conf->dz = 15;
	}
	if (which == HILL_STAIRCASE)
		conf->terrain_faces = WEST_FACES_STAIRCASE;
	fix_grid_conf(g, HX, HY, HDX, conf, HILL, HSIGMA);
	free(conf);
	cr_assert_gt(g->land_cells, 0, "%s: the hill must make land", names[which]);
	for (size_t f = 0; f < west_grid_nxfaces(g); f++)
		cut += g->tx[f] > 0.0f && g->tx[f] < 1.0f;
	if (which == HILL_STAIRCASE)
		cr_assert(!g->cut && cut == 0, "%s: no cut faces", names[which]);
	else
		cr_assert(g->cut && cut > 0, "%s: the hill must make cut cells", names[which]);
	return names[which];
}

/* ---- stations --------------------------------------------------------------- */

enum { ST_FACE, ST_COL, NST = 5 };

/*
 * Five stations (m from the grid's corner) of mixed classes: ST_FACE
 * exactly on the centre of x-face (10, 7), ST_COL exactly on the centre of
 * column (25, 5); winds from 180 and 270 degrees put a component near 0.
 */
static inline void five_stations(struct west_obs_set *obs)
{
	fix_obs(obs, "face", 10 * HDX, 7.5 * HDX, 10, 6.0, 250, WEST_STAB_D);
	fix_obs(obs, "col", 25.5 * HDX, 5.5 * HDX, 15, 3.0, 200, WEST_STAB_F);
	fix_obs(obs, "nw", 130.5, 1000.25, 10, 4.5, 300, WEST_STAB_A);
	fix_obs(obs, "ne", 1390, 950, 20, 8.0, 270, WEST_STAB_C);
	fix_obs(obs, "top", 700, 640, 10, 5.0, 180, WEST_STAB_E);
}

/* n stations spread over grid g (deterministic), classes A..F in turn. */
static inline void spread_stations(struct west_obs_set *obs, size_t n,
				   const struct west_grid *g)
{
	double w = (double)g->nx * g->dx, h = (double)g->ny * g->dy;

	for (size_t s = 0; s < n; s++) {
		char id[24];
		double x = w * fmod(0.5 + 0.6180339887 * (double)s, 1.0);
		double y = h * fmod(0.25 + 0.7548776662 * (double)s, 1.0);
		snprintf(id, sizeof id, "s%zu", s);
		fix_obs(obs, id, x, y, 10.0 + 5.0 * (double)(s % 3), 2.0 + (double)(s % 7),
			fmod(37.0 * (double)s + 10.0, 360.0), (int)(s % WEST_NSTAB));
	}
}

/* ---- comparisons ------------------------------------------------------------ */

/*
 * Every element of got within atol + rtol |ref| of ref; a NaN (the poison
 * of an unwritten element) fails.  Returns the largest difference.
 */
static inline double expect_close(const char *name, const float *ref, const float *got,
				  size_t n, double atol, double rtol)
{
	size_t bad = 0, first = 0;
	double worst = 0;

	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)ref[i] - (double)got[i]);
		if (!(d <= atol + rtol * fabs((double)ref[i])) && !bad++)
			first = i;
		if (d > worst)
			worst = d;
	}
	cr_expect_eq(bad, 0,
		     "%s: %s: %zu of %zu elements beyond %g + %g |cpu| (largest finite difference %g); first [%zu]: cpu %.9g, got %.9g",
		     context, name, bad, n, atol, rtol, worst, first,
		     (double)ref[first], (double)got[first]);
	return worst;
}

/* got equal to ref bit for bit: n elements of `size` bytes (float or byte). */
static inline void expect_identical(const char *name, const void *ref, const void *got,
				    size_t n, size_t size)
{
	const unsigned char *a = ref, *b = got;
	size_t bad = 0, first = 0;
	char vals[128] = "";

	for (size_t i = 0; i < n; i++)
		if (memcmp(a + i * size, b + i * size, size) != 0 && !bad++)
			first = i;
	if (bad && size == sizeof(float)) {
		float x, y;
		memcpy(&x, a + first * size, size);
		memcpy(&y, b + first * size, size);
		snprintf(vals, sizeof vals, "cpu %.9g, got %.9g", (double)x, (double)y);
	} else if (bad) {
		snprintf(vals, sizeof vals, "cpu %u, got %u", a[first * size], b[first * size]);
	}
	cr_expect_eq(bad, 0, "%s: %s: %zu of %zu elements differ; first [%zu]: %s",
		     context, name, bad, n, first, vals);
}

static inline double max_abs(const float *a, size_t n)
{
	double m = 0;
	for (size_t i = 0; i < n; i++)
		m = fmax(m, fabs((double)a[i]));
	return m;
}

#endif
