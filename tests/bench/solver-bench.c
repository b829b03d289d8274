/*
 * solver-bench.c: the divergence-minimization solvers side by side
 * (docs/benchmarks.md, "Solvers"): for each grid and backend, the time the
 * whole run and its step 8 take to reach max|D| h / U_ref <= 1e-4 with
 *  - sor (the source paper's velocity form) at omega 1.25, at most
 *    --sor-max iterations (where it stalls, the measure it reached),
 *  - sor-potential at each omega of --omegas (the best one is marked),
 *  - multigrid (the median of --reps runs after a first run that also
 *    builds the hierarchy, timed apart), beside it the same with the CPU's
 *    reference kernels (WEST_CPU_KERNELS=reference) or without CUDA graphs
 *    (WEST_CUDA_GRAPHS=0), and in --partitions N slabs of the grid on the
 *    one device (parts.h: the partition layer's cost, its exchanges), and
 *    in the slabs of each devices list of --devices (lists parted by ';',
 *    a row each: "cuda:0,cuda:0;cuda:0,cuda:1;auto" two slabs on one GPU,
 *    then on two, then config devices = auto; each on a fresh state planned
 *    for it, as westd makes it, a row for each halo exchange of --exchange
 *    (config exchange), a row for its first run after the terrain's upload
 *    (which builds the slabs: its time in the row's name), and on CUDA the
 *    memory each GPU gives that state, by cudaMemGetInfo before and after,
 *    in a table of its own);
 * then the potential smoother's throughput on level 0 in cell-sweeps per
 * second (a cell-sweep: one cell updated once; a red-black iteration is
 * one per cell), against the bytes a sweep must move per cell and the
 * copy bandwidth measured in the same run (on the CPU in rounds, a copy
 * after each few sweeps, the fraction the median of the rounds' own:
 * cpu_sweep_rate).  --tables sweeps gives that table alone.
 *
 * Bytes per cell-sweep of the potential smoother (level 0, per-colour
 * storage): its own e read and written (8), its right-hand side b (4), its
 * face code (1), and the other colour's e, read once per pass when the
 * neighbours' rows stay in cache (4): 17 bytes.  (The velocity form moves
 * u, v, w and TX, TY, TZ: 24 bytes and more.)
 *
 * The set-up is west-bench.c's: the valley-and-ridge terrain of
 * bench_terrain.h on 8 km x 8 km, 20 levels of 20 m, R1 100x100 (80 m),
 * R4 200x200, R16 400x400 (20 m), R64 800x800 (10 m), R841 2900x2900 (2.76 m,
 * 168 M cells: issue 14's "about 170M"); the six stations of
 * bench_terrain.h; eta 1, check_interval 20 for the sor solvers; the
 * terrain's faces by --faces (cut cells, staircase, or both one after the
 * other on each grid, for the cost of cut cells measured in one run).
 *
 * Usage: solver-bench [--grids R16,R64] [--backend cpu|cuda] [--reps N]
 *                     [--sor-max N] [--omegas 1.5,1.7,1.8,1.9] [--partitions N]
 *                     [--devices 'LIST;LIST'] [--exchange overlap,blocking]
 *                     [--faces cut|staircase|cut,staircase] [--tables all|sweeps]
 * Output: markdown tables on stdout, progress on stderr.  Exit 0, 1 on a
 * backend error, 2 on a bad option.  Built with `make tests/bench/solver-bench`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef WEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "backend.h"
#include "bench_terrain.h"
#define BENCH_NAME "solver-bench"
#include "bench_util.h"
#include "fieldpool.h"
#include "multigrid.h"

#define SB_NZ 20
#define SB_DZ 20.0
#define SB_TOL 1e-4
#define SB_SWEEPS 100      /* red-black iterations per throughput timing (GPU) */

struct opts {
	char grids[64], omegas[128], backend[8], faces[32], devices[256], exchange[64];
	int reps, partitions;
	int solvers;   /* --tables all: the solvers' tables too; sweeps: the throughput only */
	long sor_max;
};

/* ------------------------------------------------------------- set-up */

static size_t grid_nx(const char *name)
{
	static const struct { const char *name; size_t nx; } g[] = {
		{ "R1", 100 }, { "R4", 200 }, { "R16", 400 }, { "R64", 800 }, { "R841", 2900 },
	};
	for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
		if (!strcmp(name, g[i].name))
			return g[i].nx;
	return 0;
}

static void grid_build(struct west_grid *g, size_t nx, int faces)
{
	struct west_config *c = calloc(1, sizeof *c);
	struct west_dem dem = { .nx = nx, .ny = nx, .dx = BENCH_TERRAIN_L / (double)nx,
				.dy = BENCH_TERRAIN_L / (double)nx, .x0 = BENCH_X0,
				.y0 = BENCH_Y0 };
	char err[WEST_ERRLEN];

	dem.z = malloc(nx * nx * sizeof *dem.z);
	if (!c || !dem.z)
		die("grid", "out of memory");
	bench_dem_fill(&dem);
	west_config_defaults(c);
	c->nz = SB_NZ, c->dz = SB_DZ, c->max_cells = 4000000000LL;
	c->terrain_faces = faces;
	struct west_grid_opts go;
	west_grid_opts_from_config(&go, c);
	if (west_grid_init(g, &dem, &go, err, sizeof err))
		die("grid", err);
	free(dem.z);
	free(c);
}

/* ---------------------------------------------------------- whole runs */

struct result {
	double step8, total;   /* s */
	double omega;          /* the report's (multigrid: its smoother's) */
	long iterations;
	int converged;
	double rel_max;        /* reached */
};

static struct result run(const struct west_backend *be, void *state,
			 const struct west_grid *g, const struct west_obs_set *obs,
			 const struct west_solve_opts *o)
{
	/* fields in the backend's host memory, as westd's pool gives them
	 * (page-locked on CUDA) */
	static struct west_field_pool *pool;
	struct west_field f;
	char err[WEST_ERRLEN];
	double t0;

	if (!pool && !(pool = west_field_pool_new(be->host, 1)))
		die("field", "out of memory");
	if (west_field_pool_get(pool, &f, g, err, sizeof err))
		die("field", err);
	t0 = now_s();
	if (be->run(state, obs, o, &f, NULL, NULL, err, sizeof err))
		die("run", err);
	struct result r = { f.report.step_seconds[WEST_STEP_DIVMIN], now_s() - t0,
			    f.report.omega, f.report.iterations, f.report.converged,
			    f.report.end.rel_max };
	if (getenv("SOLVER_BENCH_STEPS")) {   /* where a whole run's time goes */
		fprintf(stderr, "run %.2f ms, report %.2f ms:", 1e3 * r.total,
			1e3 * f.report.total_seconds);
		for (int s = 0; s < WEST_NSTEPS; s++)
			fprintf(stderr, " %s %.2f", west_step_key(s), 1e3 * f.report.step_seconds[s]);
		fprintf(stderr, ", exchange %.2f\n", 1e3 * f.report.exchange_seconds);
	}
	west_field_free(&f);
	return r;
}

static void opts_for(struct west_solve_opts *o, enum west_solver s, double omega,
		     long iterations)
{
	*o = (struct west_solve_opts){
		.solver = s, .iterations = iterations, .cycles = 100, .tolerance = SB_TOL,
		.omega = omega, .eta = 1.0, .indexing = WEST_INDEXING_COMPACT,
		.check_interval = 20, .land_use = WEST_LAND_RURAL,
	};
}

static void row(const char *grid, const char *be, const char *solver,
		const struct result *r, const struct result *mg)
{
	char state[64];
	if (r->converged)
		snprintf(state, sizeof state, "yes");
	else
		snprintf(state, sizeof state, "no: stalls at %.2e", r->rel_max);
	printf("| %s | %s | %s | %.2f | %ld | %s | %.1f | %.1f | %.1f |\n", grid, be, solver,
	       r->omega, r->iterations, state, 1e3 * r->step8, 1e3 * r->total,
	       r->total / mg->total);
}

/* Bytes in use on CUDA device dev (cudaMemGetInfo), or 0. */
static double device_used(const struct west_backend *be, int dev)
{
#ifdef WEST_HAVE_CUDA
	size_t free_b, total;
	if (strcmp(be->name, "cpu") && cudaSetDevice(dev) == cudaSuccess &&
	    cudaMemGetInfo(&free_b, &total) == cudaSuccess)
		return (double)(total - free_b);
#endif
	(void)be, (void)dev;
	return 0.0;
}

/* How many entries of d are device dev. */
static int count_of(const struct west_devices *d, int dev)
{
	int n = 0;
	for (int k = 0; k < d->n; k++)
		n += d->dev[k] == dev;
	return n;
}

/* Rows of the memory table, printed after the others. */
static char memory_rows[4096];

/* A device's memory in use for a planned state's slabs (about cells of
 * the grid: its share of even slabs). */
static void memory_row(const char *grid, const char *list, int dev, double bytes, size_t cells)
{
	size_t n = strlen(memory_rows);
	snprintf(memory_rows + n, sizeof memory_rows - n,
		 "| %s | %s | cuda:%d | %.0f | %.1f M | %.1f |\n", grid, list, dev, bytes * 1e-6,
		 (double)cells * 1e-6, bytes / (double)cells);
}

/* The median of reps multigrid runs with options o, into r. */
static void multigrid_median(const struct west_backend *be, void *state,
			     const struct west_grid *g, const struct west_obs_set *obs, int reps,
			     const struct west_solve_opts *o, struct result *r)
{
	double t[64], tt[64];

	for (int i = 0; i < reps; i++) {
		*r = run(be, state, g, obs, o);
		t[i] = r->step8, tt[i] = r->total;
	}
	qsort(t, (size_t)reps, sizeof t[0], cmp_double);
	qsort(tt, (size_t)reps, sizeof tt[0], cmp_double);
	r->step8 = t[reps / 2], r->total = tt[reps / 2];
}

/* ref_state: the CPU backend with WEST_CPU_KERNELS=reference, or the CUDA
 * backend with WEST_CUDA_GRAPHS=0, its multigrid timed beside state's. */
static void solvers(const struct opts *op, const char *grid, const struct west_backend *be,
		    void *state, void *ref_state, const struct west_grid *g,
		    const struct west_obs_set *obs)
{
	struct west_solve_opts o;
	struct result first, mg, best = { INFINITY, INFINITY, 0, 0, 0, 0 }, r;
	double best_omega = 0;
	int reps = op->reps < 64 ? op->reps : 64;
	char list[256], *save = NULL;

	opts_for(&o, WEST_SOLVER_MULTIGRID, 1.0, 0);
	first = run(be, state, g, obs, &o);
	multigrid_median(be, state, g, obs, reps, &o, &mg);
	row(grid, be->name, "multigrid", &mg, &mg);
	if (ref_state) {
		const char *what = strcmp(be->name, "cpu") ?
				   "multigrid, no graphs (WEST_CUDA_GRAPHS=0)" :
				   "multigrid, reference kernels (WEST_CPU_KERNELS=reference)";
		run(be, ref_state, g, obs, &o);   /* builds its hierarchy */
		multigrid_median(be, ref_state, g, obs, reps, &o, &r);
		row(grid, be->name, what, &r, &mg);
		fprintf(stderr, "%s %s: %s %.1f ms\n", grid, be->name, what, 1e3 * r.total);
	}
	if (op->partitions > 1) {
		char what[64];
		snprintf(what, sizeof what, "multigrid, %d slabs (devices)", op->partitions);
		o.partitions = op->partitions;
		run(be, state, g, obs, &o);   /* cuts the grid, builds the slabs' hierarchies */
		multigrid_median(be, state, g, obs, reps, &o, &r);
		o.partitions = 1;
		row(grid, be->name, what, &r, &mg);
		fprintf(stderr, "%s %s: %s %.1f ms\n", grid, be->name, what, 1e3 * r.total);
	}
	snprintf(list, sizeof list, "%s", op->devices);
	for (char *l = strtok_r(list, ";", &save); l; l = strtok_r(NULL, ";", &save)) {
		struct west_devices d;
		struct west_solve_opts po = o;
		char what[300], err[WEST_ERRLEN];
		double used[WEST_MAX_PARTS], t_up;
		void *ps;   /* a state planned for these slabs, as westd makes it */
		if (west_devices_parse(l, &d, what, sizeof what) || d.n == 1)
			die(l, d.n == 1 ? "auto, or a devices list of two or more" : what);
		if (!d.n) {   /* auto: every GPU the backend sees */
			po.devices_auto = 1;
			d.n = 1;
#ifdef WEST_HAVE_CUDA
			if (strcmp(be->name, "cpu") && cudaGetDeviceCount(&d.n) != cudaSuccess)
				d.n = 1;
#endif
			d.n = d.n < WEST_MAX_PARTS ? d.n : WEST_MAX_PARTS;
			for (int k = 0; k < WEST_MAX_PARTS; k++)
				d.dev[k] = k;
			snprintf(what, sizeof what, "multigrid, devices = auto (%d %s)", d.n,
				 strcmp(be->name, "cpu") ? "GPUs seen" : "CPU");
		} else {
			po.partitions = d.n;
			memcpy(po.device, d.dev, sizeof po.device);
			snprintf(what, sizeof what, "multigrid, %d slabs on %s", d.n, l);
		}
		for (int k = 0; k < d.n; k++)   /* a GPU's (a cpu entry has none) */
			used[k] = d.dev[k] == WEST_DEVICE_CPU ? 0.0 : device_used(be, d.dev[k]);
		if (be->init(&ps, err, sizeof err))
			die("init", err);
		if (be->plan && be->plan(ps, &po, err, sizeof err))
			die("plan", err);
		t_up = now_s();
		if (be->upload_terrain(ps, g, err, sizeof err))
			die("upload", err);
		t_up = now_s() - t_up;
		/* the first run: with the slabs built at upload, a solve like
		 * any other; the upload's time beside it */
		struct result up_first = run(be, ps, g, obs, &po);
		for (const char *x = op->exchange; *x; x += strcspn(x, ",") + !!x[strcspn(x, ",")]) {
			char which[400];
			po.exchange = strncmp(x, "blocking", 8) ? WEST_EXCHANGE_OVERLAP :
								  WEST_EXCHANGE_BLOCKING;
			snprintf(which, sizeof which, "%s, %s exchange", what,
				 po.exchange == WEST_EXCHANGE_BLOCKING ? "blocking" : "overlapped");
			multigrid_median(be, ps, g, obs, reps, &po, &r);
			row(grid, be->name, which, &r, &mg);
			fprintf(stderr, "%s %s: %s %.1f ms\n", grid, be->name, which, 1e3 * r.total);
		}
		char which[400];
		snprintf(which, sizeof which, "%s, first run (the terrain's upload: %.1f ms)",
			 what, 1e3 * t_up);
		row(grid, be->name, which, &up_first, &mg);
		fprintf(stderr, "%s %s: %s %.1f ms\n", grid, be->name, which, 1e3 * up_first.total);
		for (int k = 0; k < d.n; k++) {
			int first = 1;
			for (int j = 0; j < k; j++)
				first &= d.dev[j] != d.dev[k];
			if (first && strcmp(be->name, "cpu") && d.dev[k] != WEST_DEVICE_CPU)
				memory_row(grid, l, d.dev[k], device_used(be, d.dev[k]) - used[k],
					   g->nx * g->nz * g->ny * (size_t)count_of(&d, d.dev[k]) /
						   (size_t)d.n);
		}
		be->free(ps);
	}
	save = NULL;
	fprintf(stderr, "%s %s: multigrid %.1f ms (first run with the hierarchy build %.1f ms)\n",
		grid, be->name, 1e3 * mg.total, 1e3 * first.total);
	row(grid, be->name, "multigrid, first run (builds the hierarchy)", &first, &mg);

	snprintf(list, sizeof list, "%s", op->omegas);
	for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		opts_for(&o, WEST_SOLVER_SOR_POTENTIAL, atof(w), op->sor_max);
		r = run(be, state, g, obs, &o);
		row(grid, be->name, "sor-potential", &r, &mg);
		fprintf(stderr, "%s %s: sor-potential omega %s: %ld iterations, %.1f ms\n", grid,
			be->name, w, r.iterations, 1e3 * r.total);
		if (r.converged && r.total < best.total)
			best = r, best_omega = o.omega;
	}
	opts_for(&o, WEST_SOLVER_SOR, 1.25, op->sor_max);
	r = run(be, state, g, obs, &o);
	row(grid, be->name, "sor (velocity form, the paper's)", &r, &mg);
	fprintf(stderr, "%s %s: sor 1.25: %ld iterations, %.1f ms\n", grid, be->name,
		r.iterations, 1e3 * r.total);
	if (best_omega > 0)
		printf("| %s | %s | best sor-potential: omega %.2f | | | | | | %.1f |\n", grid,
		       be->name, best_omega, best.total / mg.total);
}

/* ------------------------------------------------------------ sweeps */

/* Rounds of the CPU's throughput timing: in each, SB_ROUND_SWEEPS
 * red-black iterations, then a copy of SB_COPY_BYTES; the round's
 * fraction is its own sweep rate against its own copy, so that the
 * machine's drift (this kind's neighbours: the copy alone moves 40 to 70
 * GB/s from run to run) falls on both.  The medians are reported. */
#define SB_ROUNDS 9
#define SB_ROUND_SWEEPS 10
#define SB_COPY_BYTES ((size_t)1 << 28)

struct cpu_rate {
	double rate, bw, fraction;   /* medians over the rounds */
};

/* One timed copy of `bytes` from a to b over the OpenMP threads: bytes
 * read and written a second. */
static double cpu_copy_once(char *b, const char *a, size_t bytes)
{
	double t0 = now_s();
	#pragma omp parallel for schedule(static)
	for (long p = 0; p < 64; p++)
		memcpy(b + (size_t)p * (bytes / 64), a + (size_t)p * (bytes / 64), bytes / 64);
	return 2.0 * (double)bytes / (now_s() - t0);
}

static struct cpu_rate cpu_sweep_rate(const struct west_plevel *l,
				      __typeof__(west_pot_smooth_cpu) *smooth)
{
	double rate[SB_ROUNDS], bw[SB_ROUNDS], frac[SB_ROUNDS];
	char *a = malloc(SB_COPY_BYTES), *b = malloc(SB_COPY_BYTES);

	if (!a || !b)
		die("copy", "out of memory");
	memset(a, 1, SB_COPY_BYTES), memset(b, 2, SB_COPY_BYTES);
	smooth(l, 1.0f, 0), smooth(l, 1.0f, 1);   /* pages touched before the clock */
	for (int r = 0; r < SB_ROUNDS; r++) {
		double t0 = now_s();
		for (int n = 0; n < SB_ROUND_SWEEPS; n++)
			smooth(l, 1.0f, 0), smooth(l, 1.0f, 1);
		rate[r] = (double)(l->nx * l->ny * l->nz) * SB_ROUND_SWEEPS / (now_s() - t0);
		bw[r] = cpu_copy_once(b, a, SB_COPY_BYTES);
		frac[r] = 17.0 * rate[r] / bw[r];
	}
	free(a), free(b);
	qsort(rate, SB_ROUNDS, sizeof rate[0], cmp_double);
	qsort(bw, SB_ROUNDS, sizeof bw[0], cmp_double);
	qsort(frac, SB_ROUNDS, sizeof frac[0], cmp_double);
	return (struct cpu_rate){ rate[SB_ROUNDS / 2], bw[SB_ROUNDS / 2], frac[SB_ROUNDS / 2] };
}

#ifdef WEST_HAVE_CUDA
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) die(#x, cudaGetErrorString(e_)); } while (0)

static double gpu_sweep_rate(const struct west_mg *host, const struct west_grid *g)
{
	struct west_mg d;
	void *base, *tx, *ty;
	size_t bx = west_grid_nxfaces(g) * sizeof(float), by = west_grid_nyfaces(g) * sizeof(float);
	cudaEvent_t a, b;
	float ms;

	CK(cudaMalloc(&base, host->bytes));
	CK(cudaMemcpy(base, host->base, host->bytes, cudaMemcpyHostToDevice));
	west_mg_rebase(&d, host, base);
	CK(cudaMalloc(&tx, bx));   /* level 0's cut faces read the grid's */
	CK(cudaMalloc(&ty, by));
	CK(cudaMemcpy(tx, g->tx, bx, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(ty, g->ty, by, cudaMemcpyHostToDevice));
	d.lv[0].tx = tx, d.lv[0].ty = ty;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (int n = 0; n < 5; n++)   /* warm-up */
		west_pot_smooth_cuda(&d.lv[0], 1.0f, 0), west_pot_smooth_cuda(&d.lv[0], 1.0f, 1);
	CK(cudaEventRecord(a, cudaStreamPerThread));
	for (int n = 0; n < SB_SWEEPS; n++)
		if (west_pot_smooth_cuda(&d.lv[0], 1.0f, 0) || west_pot_smooth_cuda(&d.lv[0], 1.0f, 1))
			die("smooth", "launch failed");
	CK(cudaEventRecord(b, cudaStreamPerThread));
	CK(cudaEventSynchronize(b));
	CK(cudaEventElapsedTime(&ms, a, b));
	CK(cudaFree(base));
	CK(cudaFree(tx));
	CK(cudaFree(ty));
	const struct west_plevel *l = &host->lv[0];
	return (double)(l->nx * l->ny * l->nz) * SB_SWEEPS / (1e-3 * ms);
}

static double gpu_copy_bw(size_t bytes)
{
	void *x, *y;
	cudaEvent_t a, b;
	float ms;

	CK(cudaMalloc(&x, bytes));
	CK(cudaMalloc(&y, bytes));
	CK(cudaMemset(x, 1, bytes));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	CK(cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice));
	CK(cudaEventRecord(a, 0));
	for (int r = 0; r < 10; r++)
		CK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, 0));
	CK(cudaEventRecord(b, 0));
	CK(cudaEventSynchronize(b));
	CK(cudaEventElapsedTime(&ms, a, b));
	CK(cudaFree(x));
	CK(cudaFree(y));
	return 10.0 * 2.0 * (double)bytes / (1e-3 * ms);
}
#endif

static void sweep_row(const char *grid, const char *be, double rate, double bw,
		      double fraction, const char *lv)
{
	printf("| %s | %s | %.2f G | 17 | %.0f GB/s | %.0f GB/s | %.2f | %s |\n", grid, be,
	       rate / 1e9, 17.0 * rate / 1e9, bw / 1e9, fraction, lv);
}

/* The CPU: the backend's vectorized smoother and the reference, each
 * against the copy bandwidth measured right after it. */
static void sweeps(const char *grid, const char *be, const struct west_grid *g)
{
	struct west_mg mg;
	char err[WEST_ERRLEN], lv[512];

	(void)be;   /* a CPU-only build has no other */
	if (west_mg_build(&mg, g, 1.0, err, sizeof err))
		die("hierarchy", err);
	west_mg_describe(&mg, lv, sizeof lv);
	fprintf(stderr, "%s: levels %s\n", grid, lv);
#ifdef WEST_HAVE_CUDA
	if (!strcmp(be, "cuda")) {
		double rate = gpu_sweep_rate(&mg, g), bw = gpu_copy_bw((size_t)1 << 30);
		sweep_row(grid, be, rate, bw, 17.0 * rate / bw, lv);
	} else
#endif
	{
		struct cpu_rate c = cpu_sweep_rate(&mg.lv[0], west_kernels_cpu.pot_smooth);
		sweep_row(grid, "cpu (vectorized)", c.rate, c.bw, c.fraction, lv);
		c = cpu_sweep_rate(&mg.lv[0], west_pot_smooth_cpu);
		sweep_row(grid, "cpu (reference)", c.rate, c.bw, c.fraction, lv);
	}
	west_mg_free(&mg);
}

/* ---------------------------------------------------------------- main */

/* 1 when every comma-separated word of v is overlap or blocking. */
static int exchanges_ok(const char *v)
{
	for (;;) {
		size_t n = strcspn(v, ",");
		if (!((n == 7 && !strncmp(v, "overlap", 7)) || (n == 8 && !strncmp(v, "blocking", 8))))
			return 0;
		if (!v[n])
			return 1;
		v += n + 1;
	}
}

static int parse(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ "R16", "1.5,1.7,1.8,1.9", "cpu", "cut", "", "overlap", 5, 1, 1, 20000 };
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *a = argv[i], *v = argv[i + 1];
		if (!strcmp(a, "--grids"))
			snprintf(o->grids, sizeof o->grids, "%s", v);
		else if (!strcmp(a, "--omegas"))
			snprintf(o->omegas, sizeof o->omegas, "%s", v);
		else if (!strcmp(a, "--backend"))
			snprintf(o->backend, sizeof o->backend, "%s", v);
		else if (!strcmp(a, "--faces"))
			snprintf(o->faces, sizeof o->faces, "%s", v);
		else if (!strcmp(a, "--reps"))
			o->reps = atoi(v);
		else if (!strcmp(a, "--sor-max"))
			o->sor_max = atol(v);
		else if (!strcmp(a, "--partitions"))
			o->partitions = atoi(v);
		else if (!strcmp(a, "--devices"))
			snprintf(o->devices, sizeof o->devices, "%s", v);
		else if (!strcmp(a, "--exchange"))
			snprintf(o->exchange, sizeof o->exchange, "%s", v);
		else if (!strcmp(a, "--tables") && (!strcmp(v, "all") || !strcmp(v, "sweeps")))
			o->solvers = !strcmp(v, "all");
		else
			return 0;
	}
	return argc % 2 == 1 && o->reps > 0 && o->sor_max > 0 && o->partitions >= 1 &&
	       exchanges_ok(o->exchange) &&
	       o->partitions <= 16 &&
	       (!strcmp(o->faces, "cut") || !strcmp(o->faces, "staircase") ||
		!strcmp(o->faces, "cut,staircase")) &&
	       (!strcmp(o->backend, "cpu") || !strcmp(o->backend, "cuda"));
}

int main(int argc, char **argv)
{
	struct opts o;
	char err[WEST_ERRLEN], list[64], *save = NULL, dev[256];
	const struct west_backend *be;
	struct west_obs_set obs;
	void *state, *ref_state = NULL;

	if (!parse(argc, argv, &o)) {
		fputs("usage: solver-bench [--grids R16,R64] [--backend cpu|cuda] [--reps N]\n"
		      "                    [--sor-max N] [--omegas 1.5,1.7,1.8,1.9] [--partitions N]\n"
		      "                    [--devices 'LIST;LIST'] [--exchange overlap,blocking]\n"
		      "                    [--faces cut|staircase|cut,staircase] [--tables all|sweeps]\n",
		      stderr);
		return 2;
	}
	if (!(be = west_backend_find(o.backend)) || be->probe(err, sizeof err))
		die(o.backend, be ? err : "not built");
	if (be->init(&state, err, sizeof err))
		die("init", err);
	{
		const char *var = strcmp(be->name, "cpu") ? "WEST_CUDA_GRAPHS" : "WEST_CPU_KERNELS";
		setenv(var, strcmp(be->name, "cpu") ? "0" : "reference", 1);
		if (be->init(&ref_state, err, sizeof err))
			die("init", err);
		unsetenv(var);
	}
	be->describe(state, dev, sizeof dev);
	bench_obs_init(&obs);
	if (!obs.obs)
		die("stations", "out of memory");
	printf("## Solvers to max|D| h / U_ref <= %g (solver-bench)\n\n- backend: %s\n"
	       "- command: solver-bench --grids %s --backend %s --reps %d --sor-max %ld --omegas %s"
	       " --faces %s --partitions %d --devices '%s' --exchange %s --tables %s\n\n",
	       SB_TOL, dev, o.grids, o.backend, o.reps, o.sor_max, o.omegas, o.faces,
	       o.partitions, o.devices, o.exchange, o.solvers ? "all" : "sweeps");
	if (o.solvers)
		printf("| grid | backend | solver | omega | iterations | converged | step 8 (ms) | whole run (ms) | run / multigrid |\n"
		       "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
	snprintf(list, sizeof list, "%s", o.grids);
	struct west_grid grids[8];
	char names[8][32];
	int n = 0, both = !strcmp(o.faces, "cut,staircase");
	for (char *gname = strtok_r(list, ",", &save); gname && n < 8;
	     gname = strtok_r(NULL, ",", &save)) {
		if (!grid_nx(gname))
			die(gname, "unknown grid (R1, R4, R16, R64, R841)");
		for (int f = 0; f < 2 && n < 8; f++) {
			int faces = both ? f : !strcmp(o.faces, "cut") ? WEST_FACES_CUT
								     : WEST_FACES_STAIRCASE;
			if (f && !both)
				break;
			grid_build(&grids[n], grid_nx(gname), faces);
			snprintf(names[n], sizeof names[n], "%s %s", gname,
				 faces == WEST_FACES_CUT ? "cut" : "staircase");
			if (be->upload_terrain(state, &grids[n], err, sizeof err) ||
			    (ref_state && be->upload_terrain(ref_state, &grids[n], err, sizeof err)))
				die("upload", err);
			if (o.solvers)
				solvers(&o, names[n], be, state, ref_state, &grids[n], &obs);
			n++;
		}
	}
	printf("\n| grid | backend | potential smoother (cell-sweeps/s) | bytes per cell-sweep | "
	       "implied traffic | copy bandwidth (same run) | fraction | levels |\n"
	       "| --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (int i = 0; i < n; i++) {
		sweeps(names[i], o.backend, &grids[i]);
		west_grid_free(&grids[i]);
	}
	if (memory_rows[0])
		printf("\n| grid | devices | device | memory in use for the planned state's slabs "
		       "(MB, cudaMemGetInfo) | cells (even slabs) | bytes per cell |\n"
		       "| --- | --- | --- | --- | --- | --- |\n%s", memory_rows);
	be->free(state);
	if (ref_state)
		be->free(ref_state);
	west_obs_set_free(&obs);
	return 0;
}
