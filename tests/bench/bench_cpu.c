/*
 * bench_cpu.c: throughput of the CPU divergence minimization (WEST step 8,
 * kernels/divmin.c) against this machine's memory bandwidth, measured in
 * one run.  A benchmark, not a test: never part of `make check`.
 *
 * Usage:
 *   make tests/bench/bench_cpu && ./tests/bench/bench_cpu [--quick] [--json]
 *   make bench                        (builds it and runs it without flags)
 *   --quick  3 repetitions of >= 0.05 s instead of 5 of >= 0.2 s
 *   --json   one JSON document on stdout instead of the table
 *
 * What it measures:
 *  - Grids 200x200x20 and 400x400x20 cells, dx = dy = 50 m, dz = 20 m, built
 *    by west_grid_init over an in-memory DEM: a plain with two north-south
 *    Gaussian ridges (at W/4 and 3W/4, sigma W/20, 100 m high; about 6 % of
 *    the cells are land), so the transparencies are the builder's.  Initial
 *    field: a uniform westerly u = 5 m/s, v = w = 0, faces touching land
 *    zeroed (west_speed_zero_cpu).  omega 1.25, eta 1.
 *  - Red-black iterations (colour 0 then colour 1 pass of
 *    west_divmin_sweep_cpu, nx*ny*nz cell-sweeps) per second, for masked and
 *    compact indexing, on 1 thread and on omp_get_num_procs() threads.
 *    Each configuration is warmed up while N (iterations per repetition) is
 *    doubled until a repetition takes >= 0.2 s; N is then sized so that a
 *    repetition takes >= 0.2 s even at 2 x the fastest speed seen, and
 *    one more warm-up repetition runs.  Then R = 5 rounds time every configuration
 *    of a grid, and the copies below, in turn (interleaved, so drift on a
 *    noisy machine hits all alike); the median repetition is reported
 *    (CLOCK_MONOTONIC).
 *  - Copy bandwidth: a float array of max(128 MiB, 2 x LLC) copied to
 *    another (so >= 4 x LLC touched) by memcpy and by an OpenMP parallel
 *    loop on 1 and on all threads, timed in each grid's rounds with the same
 *    protocol; GB/s counts the read and the written bytes (2 x size,
 *    1 GB = 1e9 B).
 *
 * Bytes per cell-sweep (BENCH_BYTES_PER_SWEEP = 72): a colour pass visits
 * half the cells, but every interior face lies between a red and a black
 * cell, so each pass reads and writes every u, v, w face once (3 faces per
 * cell: 12 B read + 12 B written) and reads every TX, TY, TZ once (12 B):
 * 36 B per cell per pass.  The two passes are separate parallel loops and
 * the arrays (20 MB and 78 MB here) do not fit in L1/L2, so a full
 * iteration moves 2 x 36 = 72 B per cell, i.e. 72 B per cell-sweep (the
 * same count as "6 faces read, 6 transparencies read, 6 faces written" per
 * swept cell), from the L3 when they fit there, else from DRAM.  Written
 * lines were read first, so there is no hidden write-allocate traffic (the
 * copy loop has it: its stores allocate lines, so it moves 3 x size while
 * 2 x size is counted).  Not counted:
 * the land mask (the sweep does not read it), rdz and rdzf (nz floats, in
 * cache), the extra boundary face per row (1/nx).  A fused two-colour
 * sweep that kept a plane in cache could reach 36 B; no implementation here
 * does.  Achieved GB/s = cell-sweeps/s x 72 B; "f copy" divides it by the
 * copy bandwidth on the same number of threads: the fastest copy measured
 * with at most that many threads (memcpy or the OpenMP loop on 1 thread).
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "grid.h"
#include "kernels.h"
#include "model.h"
#include "terrain.h"

#define BENCH_BYTES_PER_SWEEP 72.0
#define BENCH_REPS_MAX 5
#define BENCH_NCONF 4              /* {masked, compact} x {1, all threads} */
#define BENCH_NCOPY 3              /* memcpy, OpenMP loop x {1, all threads} */
#define BENCH_MARGIN 2.0           /* on N, for speed-ups after the warm-up */
#define BENCH_OMEGA 1.25f
#define BENCH_ETA 1.0f
#define BENCH_DX 50.0
#define BENCH_NZ 20
#define BENCH_DZ 20.0
#define BENCH_U0 5.0f              /* m/s, westerly */

struct bench_opts {
	int json;
	int reps;
	double min_s;              /* least seconds per repetition */
};

/* One grid with its field (host memory). */
struct bench_grid {
	struct west_grid g;
	struct west_levels l;
	struct west_kgrid kg;
	float *u, *v, *w;
};

/* One timed configuration: a sweep (b != NULL) or a copy. */
struct job {
	int threads;
	struct bench_grid *b;
	enum west_kindexing idx;
	float *dst;
	const float *src;
	size_t count;
	int use_memcpy;
	long n;                    /* units (iterations or copies) per repetition */
	double t[BENCH_REPS_MAX];
	double median;             /* seconds per repetition */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(const double *x, int n)
{
	double s[BENCH_REPS_MAX];
	memcpy(s, x, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmp_double);
	return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p) {
		fprintf(stderr, "bench_cpu: out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

/* ------------------------------------------------------------- the grids */

/* Two north-south Gaussian ridges on a 200 m plain (m). */
static float ridge_alt(size_t i, size_t nx)
{
	double w = (double)nx * BENCH_DX, x = ((double)i + 0.5) * BENCH_DX;
	double s = w / 20.0, a = (x - 0.25 * w) / s, c = (x - 0.75 * w) / s;
	return (float)(200.0 + 100.0 * (exp(-0.5 * a * a) + exp(-0.5 * c * c)));
}

static void grid_build(struct bench_grid *b, size_t n)
{
	struct west_config *c = xmalloc(sizeof *c);
	struct west_dem dem = { .nx = n, .ny = n, .dx = BENCH_DX, .dy = BENCH_DX,
				.x0 = 500000.0, .y0 = 4650000.0 };
	char err[WEST_ERRLEN];

	dem.z = xmalloc(n * n * sizeof *dem.z);
	for (size_t j = 0; j < n; j++)
		for (size_t i = 0; i < n; i++)
			dem.z[j * n + i] = ridge_alt(i, n);
	west_config_defaults(c);
	c->nz = BENCH_NZ;
	c->dz = BENCH_DZ;
	struct west_grid_opts go;
	west_grid_opts_from_config(&go, c);
	if (west_grid_init(&b->g, &dem, &go, err, sizeof err) != WEST_OK ||
	    west_levels_init(&b->l, &b->g, err, sizeof err) != WEST_OK) {
		fprintf(stderr, "bench_cpu: %s\n", err);
		exit(1);
	}
	free(dem.z);
	free(c);
	west_kgrid_init(&b->kg, &b->g, &b->l);
}

/* Uniform westerly, faces touching land zeroed. */
static void field_init(struct bench_grid *b)
{
	size_t nu = west_grid_nxfaces(&b->g), nv = west_grid_nyfaces(&b->g);
	size_t nw = west_grid_nzfaces(&b->g);

	b->u = xmalloc(nu * sizeof *b->u);
	b->v = xmalloc(nv * sizeof *b->v);
	b->w = xmalloc(nw * sizeof *b->w);
	for (size_t f = 0; f < nu; f++)
		b->u[f] = BENCH_U0;
	memset(b->v, 0, nv * sizeof *b->v);
	memset(b->w, 0, nw * sizeof *b->w);
	(void)west_speed_zero_cpu(&b->kg, b->u, b->v, b->w);
}

static void grid_free(struct bench_grid *b)
{
	free(b->u);
	free(b->v);
	free(b->w);
	west_levels_free(&b->l);
	west_grid_free(&b->g);
}

/* Bytes of the arrays one iteration streams: u, v, w, tx, ty, tz. */
static double grid_sweep_bytes(const struct west_grid *g)
{
	return 2.0 * 4.0 * (double)(west_grid_nxfaces(g) + west_grid_nyfaces(g) +
				    west_grid_nzfaces(g));
}

/* ------------------------------------------------------------ the timing */

static void copy_omp(float *restrict dst, const float *restrict src, size_t n)
{
	#pragma omp parallel for simd schedule(static)
	for (long i = 0; i < (long)n; i++)
		dst[i] = src[i];
}

/* One red-black iteration: colour 0, then colour 1. */
static void sweep_iteration(struct bench_grid *b, enum west_kindexing idx)
{
	for (int colour = 0; colour < 2; colour++)
		(void)west_divmin_sweep_cpu(&b->kg, BENCH_OMEGA, BENCH_ETA, colour,
					    idx, b->u, b->v, b->w);
}

/* n units of job jb: n red-black iterations or n copies. */
static void job_run(struct job *jb, long n)
{
	for (long it = 0; it < n; it++) {
		if (jb->b)
			sweep_iteration(jb->b, jb->idx);
		else if (jb->use_memcpy)
			memcpy(jb->dst, jb->src, jb->count * sizeof *jb->dst);
		else
			copy_omp(jb->dst, jb->src, jb->count);
	}
}

static double job_time(struct job *jb, long n)
{
	omp_set_num_threads(jb->threads);
	double t0 = now_s();
	job_run(jb, n);
	return now_s() - t0;
}

/*
 * Warm-up: double n until a repetition takes min_s, then size n so that a
 * repetition still takes min_s at 2 x the fastest speed seen (a noisy
 * machine speeds up as well as down), and run one more repetition of it.
 */
static void job_calibrate(struct job *jb, double min_s)
{
	long n = 1;
	double t, best;

	while ((t = job_time(jb, n)) < min_s)
		n *= 2;
	best = t / (double)n;
	best = fmin(best, job_time(jb, n) / (double)n);
	jb->n = (long)ceil(BENCH_MARGIN * min_s / best);
	job_time(jb, jb->n);
}

/* Calibrate every job, then time them in interleaved rounds. */
static void jobs_measure(struct job *jobs, int nj, const struct bench_opts *o)
{
	for (int j = 0; j < nj; j++)
		job_calibrate(&jobs[j], o->min_s);
	for (int r = 0; r < o->reps; r++)
		for (int j = 0; j < nj; j++)
			jobs[j].t[r] = job_time(&jobs[j], jobs[j].n);
	for (int j = 0; j < nj; j++)
		jobs[j].median = median(jobs[j].t, o->reps);
}

/* ------------------------------------------------------- copy bandwidth */

/* Last-level cache (bytes), 0 when the system does not say. */
static size_t llc_bytes(void)
{
	long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	return l3 > 0 ? (size_t)l3 : l2 > 0 ? (size_t)l2 : 0;
}

/* The copy's two arrays, max(128 MiB, 2 x LLC) each, pages touched. */
struct copy_buf {
	float *src, *dst;
	size_t count;
};

static void copy_buf_init(struct copy_buf *cb, int all)
{
	size_t bytes = 2 * llc_bytes(), min = (size_t)128 << 20;
	size_t n = (bytes > min ? bytes : min) / sizeof(float);
	float *src = xmalloc(n * sizeof *src), *dst = xmalloc(n * sizeof *dst);

	omp_set_num_threads(all);
	#pragma omp parallel for schedule(static)
	for (long i = 0; i < (long)n; i++)
		src[i] = (float)(i & 1023), dst[i] = 0.0f;
	*cb = (struct copy_buf){ src, dst, n };
}

struct copy_result {
	size_t bytes;              /* of one array */
	double gbs[BENCH_NCOPY];   /* memcpy, OpenMP 1 thread, OpenMP all threads */
	int threads[BENCH_NCOPY];
};

static void copy_jobs(struct job *jobs, const struct copy_buf *cb, int all)
{
	for (int j = 0; j < BENCH_NCOPY; j++)
		jobs[j] = (struct job){
			.threads = j == 2 ? all : 1, .use_memcpy = j == 0,
			.dst = cb->dst, .src = cb->src, .count = cb->count,
		};
}

static void copy_fill(struct copy_result *cr, const struct job *jobs)
{
	cr->bytes = jobs[0].count * sizeof(float);
	for (int j = 0; j < BENCH_NCOPY; j++) {
		cr->gbs[j] = 2.0 * (double)cr->bytes * (double)jobs[j].n /
			     jobs[j].median / 1e9;
		cr->threads[j] = jobs[j].threads;
	}
}

/* The copy bandwidth a sweep on `threads` threads is held against: the
 * fastest copy measured on at most that many threads. */
static double copy_ref(const struct copy_result *cr, int threads)
{
	double best = 0.0;
	for (int j = 0; j < BENCH_NCOPY; j++)
		if (cr->threads[j] <= threads && cr->gbs[j] > best)
			best = cr->gbs[j];
	return best;
}

/* ------------------------------------------------------- sweep results */

struct sweep_result {
	size_t n, cells, land;
	double ws_bytes;           /* bytes of u, v, w, tx, ty, tz */
	const char *idx;
	int threads;
	long iters;
	double seconds, gcells, gbs, ref, frac, cm, all1;
};

/* Job j of a grid: j & 1 = compact, j & 2 = all threads. */
static void sweep_jobs(struct job *jobs, struct bench_grid *b, int all)
{
	for (int j = 0; j < BENCH_NCONF; j++)
		jobs[j] = (struct job){
			.threads = j & 2 ? all : 1, .b = b,
			.idx = j & 1 ? WEST_KINDEX_COMPACT : WEST_KINDEX_MASKED,
		};
}

static void sweep_fill(struct sweep_result *res, const struct job *jobs,
		       const struct bench_grid *b, const struct copy_result *cr)
{
	double rate[BENCH_NCONF];
	size_t cells = west_grid_ncells(&b->g);

	for (int j = 0; j < BENCH_NCONF; j++)
		rate[j] = (double)jobs[j].n * (double)cells / jobs[j].median;
	for (int j = 0; j < BENCH_NCONF; j++) {
		struct sweep_result *r = &res[j];
		*r = (struct sweep_result){
			.n = b->g.nx, .cells = cells, .land = b->g.land_cells,
			.ws_bytes = grid_sweep_bytes(&b->g),
			.idx = j & 1 ? "compact" : "masked", .threads = jobs[j].threads,
			.iters = jobs[j].n, .seconds = jobs[j].median,
			.gcells = rate[j] / 1e9,
			.cm = rate[j | 1] / rate[j & 2], .all1 = rate[j | 2] / rate[j & 1],
		};
		r->gbs = rate[j] * BENCH_BYTES_PER_SWEEP / 1e9;
		r->ref = copy_ref(cr, r->threads);
		r->frac = r->gbs / r->ref;
	}
}

/* One grid: its 4 sweep configurations and the 3 copies, interleaved. */
static void grid_measure(struct sweep_result *res, struct copy_result *cr,
			 size_t n, int all, const struct copy_buf *cb,
			 const struct bench_opts *o)
{
	struct bench_grid b;
	struct job jobs[BENCH_NCONF + BENCH_NCOPY];

	grid_build(&b, n);
	field_init(&b);
	sweep_jobs(jobs, &b, all);
	copy_jobs(jobs + BENCH_NCONF, cb, all);
	jobs_measure(jobs, BENCH_NCONF + BENCH_NCOPY, o);
	copy_fill(cr, jobs + BENCH_NCONF);
	sweep_fill(res, jobs, &b, cr);
	grid_free(&b);
}

/* ------------------------------------------------------------ the output */

#define BENCH_NGRID 2
static const size_t bench_sizes[BENCH_NGRID] = { 200, 400 };
static const char *const copy_names[BENCH_NCOPY] = { "memcpy", "omp loop", "omp loop" };

static void print_head(const struct copy_result *cr, const struct bench_opts *o)
{
	printf("bench_cpu: %d procs, LLC %zu MiB, %d reps of >= %.2f s (medians), "
	       "omega %.2f, eta %.0f\n", omp_get_num_procs(), llc_bytes() >> 20,
	       o->reps, o->min_s, (double)BENCH_OMEGA, (double)BENCH_ETA);
	printf("bytes per cell-sweep: %.0f (each colour pass reads and writes every "
	       "u, v, w face and reads every T once:\n  36 B per cell per pass, 2 passes "
	       "per iteration of nx*ny*nz cell-sweeps)\n", BENCH_BYTES_PER_SWEEP);
	printf("copy: %zu MiB -> %zu MiB, GB/s = 2 x size / s, timed in each grid's rounds\n",
	       cr[0].bytes >> 20, cr[0].bytes >> 20);
	for (int g = 0; g < BENCH_NGRID; g++) {
		printf("  %zux%zux%d rounds:", bench_sizes[g], bench_sizes[g], BENCH_NZ);
		for (int j = 0; j < BENCH_NCOPY; j++)
			printf("  %s %d thr %.2f GB/s%s", copy_names[j], cr[g].threads[j],
			       cr[g].gbs[j], j + 1 < BENCH_NCOPY ? "," : "\n");
	}
}

static void print_row(const struct sweep_result *s)
{
	char g[32];

	snprintf(g, sizeof g, "%zux%zux%d", s->n, s->n, BENCH_NZ);
	printf("%-11s %-7s %3d %8zu %5ld %7.3f %8.4f %8.2f %8.2f %6.2f %6.2f %6.2f\n",
	       g, s->idx, s->threads, s->cells, s->iters, s->seconds, s->gcells,
	       s->gbs, s->ref, s->frac, s->cm, s->all1);
}

static void print_table(const struct copy_result *cr, const struct sweep_result *res,
			const struct bench_opts *o)
{
	print_head(cr, o);
	printf("\n%-11s %-7s %3s %8s %5s %7s %8s %8s %8s %6s %6s %6s\n", "grid",
	       "index", "thr", "cells", "iters", "s(med)", "Gcell/s", "GB/s", "copy",
	       "f copy", "c/m", "all/1");
	for (int r = 0; r < BENCH_NGRID * BENCH_NCONF; r++)
		print_row(&res[r]);
	printf("\nGB/s = Gcell-sweeps/s x %.0f B; copy = fastest copy on <= thr threads; "
	       "c/m = compact/masked,\nall/1 = all threads/1 thread (same grid, same run)\n",
	       BENCH_BYTES_PER_SWEEP);
	for (int g = 0; g < BENCH_NGRID; g++) {
		const struct sweep_result *s = &res[g * BENCH_NCONF];
		printf("%zux%zux%d: land %.1f %% of cells, u v w tx ty tz %.0f MB\n", s->n,
		       s->n, BENCH_NZ, 100.0 * (double)s->land / (double)s->cells,
		       s->ws_bytes / 1e6);
	}
}

static void print_json_row(const struct sweep_result *s, int last)
{
	printf("    {\"nx\": %zu, \"ny\": %zu, \"nz\": %d, \"cells\": %zu, "
	       "\"land_cells\": %zu, \"indexing\": \"%s\", \"threads\": %d, "
	       "\"iterations\": %ld, \"seconds\": %.6f, \"gcell_sweeps_per_s\": %.6f, "
	       "\"gbs\": %.4f, \"copy_gbs\": %.4f, \"fraction_of_copy\": %.4f, "
	       "\"compact_over_masked\": %.4f, \"all_over_one\": %.4f}%s\n",
	       s->n, s->n, BENCH_NZ, s->cells, s->land, s->idx, s->threads, s->iters,
	       s->seconds, s->gcells, s->gbs, s->ref, s->frac, s->cm, s->all1,
	       last ? "" : ",");
}

static void print_json_copy(const struct copy_result *cr)
{
	for (int g = 0; g < BENCH_NGRID; g++)
		for (int j = 0; j < BENCH_NCOPY; j++)
			printf("    {\"rounds_of_nx\": %zu, \"method\": \"%s\", "
			       "\"threads\": %d, \"gbs\": %.4f}%s\n", bench_sizes[g],
			       j ? "omp" : "memcpy", cr[g].threads[j], cr[g].gbs[j],
			       g + 1 < BENCH_NGRID || j + 1 < BENCH_NCOPY ? "," : "");
}

static void print_json(const struct copy_result *cr, const struct sweep_result *res,
		       const struct bench_opts *o)
{
	int nres = BENCH_NGRID * BENCH_NCONF;

	printf("{\n  \"procs\": %d, \"llc_bytes\": %zu, \"reps\": %d, "
	       "\"min_seconds\": %.3f,\n", omp_get_num_procs(), llc_bytes(), o->reps,
	       o->min_s);
	printf("  \"bytes_per_cell_sweep\": %.0f, \"copy_array_bytes\": %zu,\n",
	       BENCH_BYTES_PER_SWEEP, cr[0].bytes);
	printf("  \"copy\": [\n");
	print_json_copy(cr);
	printf("  ],\n  \"sweep\": [\n");
	for (int r = 0; r < nres; r++)
		print_json_row(&res[r], r == nres - 1);
	printf("  ]\n}\n");
}

/* ------------------------------------------------------------------ main */

static int parse_args(struct bench_opts *o, int argc, char **argv)
{
	*o = (struct bench_opts){ .reps = BENCH_REPS_MAX, .min_s = 0.2 };
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--quick"))
			o->reps = 3, o->min_s = 0.05;
		else if (!strcmp(argv[a], "--json"))
			o->json = 1;
		else {
			fprintf(stderr, "usage: %s [--quick] [--json]\n", argv[0]);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sweep_result res[BENCH_NGRID * BENCH_NCONF];
	struct copy_result cr[BENCH_NGRID];
	struct copy_buf cb;
	struct bench_opts o;
	int all = omp_get_num_procs();

	if (parse_args(&o, argc, argv))
		return 2;
	copy_buf_init(&cb, all);
	for (int g = 0; g < BENCH_NGRID; g++)
		grid_measure(&res[g * BENCH_NCONF], &cr[g], bench_sizes[g], all, &cb, &o);
	free(cb.src);
	free(cb.dst);
	if (o.json)
		print_json(cr, res, &o);
	else
		print_table(cr, res, &o);
	return 0;
}
