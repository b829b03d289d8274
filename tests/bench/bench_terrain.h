/*
 * bench_terrain.h: the valley-and-ridge terrain of the benchmarks
 * (west-bench.c, westd-latency.c), one analytic function so that every
 * benchmark solves over the same ground at every refinement.
 *
 * The domain is BENCH_TERRAIN_L x BENCH_TERRAIN_L m (8 km); x and y are in
 * m from its lower-left (south-west) outer corner, the altitude in m: a
 * 205 m plain, two north-south ridges 150 m high (sigma 400 m, at 1/5 and
 * 4/5 of the width) whose crests wander +-200 m, a valley between them
 * deepening from 12.5 to 25 m to the north, and a 100 m Gaussian hill
 * (sigma 500 m) in the valley at 3/10 of the height.  It spans 180 to
 * 355 m.  Benchmarks sample it at cell centres ((i + 0.5) dx, (j + 0.5) dy)
 * and store it as float.
 */
#ifndef WEST_BENCH_TERRAIN_H
#define WEST_BENCH_TERRAIN_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "obs.h"
#include "terrain.h"

#define BENCH_TERRAIN_L 8000.0     /* domain side (m) */
#define BENCH_X0 500000.0          /* outer lower-left corner (m) */
#define BENCH_Y0 4650000.0
#define BENCH_TIME 1795435200LL    /* 2026-11-22T12:00:00Z */

/* Ground altitude (m) at (x, y) m from the domain's lower-left corner. */
static inline double bench_terrain_alt(double x, double y)
{
	const double L = BENCH_TERRAIN_L;
	double wig = 200.0 * sin(2.0 * M_PI * y / L);
	double r1 = (x - 0.2 * L - wig) / 400.0, r2 = (x - 0.8 * L + wig) / 400.0;
	double v = (x - 0.5 * L) / 800.0;
	double hx = x - 0.5 * L, hy = y - 0.3 * L;

	return 205.0 + 150.0 * (exp(-0.5 * r1 * r1) + exp(-0.5 * r2 * r2)) -
	       25.0 * (0.5 + 0.5 * y / L) * exp(-0.5 * v * v) +
	       100.0 * exp(-(hx * hx + hy * hy) / (2.0 * 500.0 * 500.0));
}

/* dem->z at every column centre of dem (nx, ny, dx, dy set). */
static inline void bench_dem_fill(struct west_dem *dem)
{
	for (size_t j = 0; j < dem->ny; j++)
		for (size_t i = 0; i < dem->nx; i++)
			dem->z[j * dem->nx + i] = (float)bench_terrain_alt(
				((double)i + 0.5) * dem->dx, ((double)j + 0.5) * dem->dy);
}

/* The six stations of the benchmarks at 10 m: 3 to 9 m/s, 180 to 330
 * degrees, classes A to F, positions as fractions of the domain. */
static const struct bench_station {
	const char *id;
	double fx, fy;     /* position, fractions of the domain */
	double speed, dir; /* m/s, degrees from */
	int cls;           /* enum west_stability */
} bench_stations[] = {
	{ "sw-plain", 0.10, 0.12, 5.0, 250.0, WEST_STAB_D },
	{ "valley-s", 0.45, 0.15, 3.0, 200.0, WEST_STAB_A },
	{ "valley-n", 0.50, 0.70, 4.0, 180.0, WEST_STAB_B },
	{ "e-slope", 0.88, 0.35, 7.0, 270.0, WEST_STAB_C },
	{ "nw-ridge", 0.20, 0.85, 9.0, 300.0, WEST_STAB_E },
	{ "ne-plain", 0.75, 0.92, 6.0, 330.0, WEST_STAB_F },
};
#define BENCH_NSTATIONS (sizeof bench_stations / sizeof bench_stations[0])

/* The stations as an observation set at BENCH_TIME (set->obs NULL when
 * out of memory). */
static inline void bench_obs_init(struct west_obs_set *set)
{
	const struct bench_station *st = bench_stations;
	size_t n = BENCH_NSTATIONS;

	set->n = n;
	set->obs = calloc(n, sizeof *set->obs);
	set->valid_time = BENCH_TIME;
	for (size_t s = 0; set->obs && s < n; s++) {
		set->obs[s] = (struct west_obs){
			.x = BENCH_X0 + st[s].fx * BENCH_TERRAIN_L,
			.y = BENCH_Y0 + st[s].fy * BENCH_TERRAIN_L,
			.height = 10.0, .speed = st[s].speed, .direction = st[s].dir,
			.time = BENCH_TIME, .stability = st[s].cls, .inv_L = NAN, .z0 = NAN,
		};
		snprintf(set->obs[s].id, sizeof set->obs[s].id, "%s", st[s].id);
	}
}

#endif
