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

#define BENCH_TERRAIN_L 8000.0     /* domain side (m) */

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

#endif
