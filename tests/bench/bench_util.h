/*
 * bench_util.h: what the benchmark programs share besides their terrain
 * (bench_terrain.h): a monotonic clock, the comparison of doubles for
 * qsort, and dying with a message.  Define BENCH_NAME (the program's
 * name, for the messages) before including it.
 */
#ifndef WEST_BENCH_UTIL_H
#define WEST_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* "BENCH_NAME: what: err" on stderr, exit status 1. */
static inline void die(const char *what, const char *err)
{
	fprintf(stderr, "%s: %s: %s\n", BENCH_NAME, what, err);
	exit(1);
}

/* For qsort of doubles, ascending. */
static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

#endif
