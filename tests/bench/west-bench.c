/*
 * west-bench.c: Table 2 of Pinheiro, Schirru and Pereira, "An optimization
 * of a GPU-based parallel wind field module", reproduced on this machine in
 * one run: the whole WEST model on the CPU (1 core, all cores) and on the
 * GPU (masked and compacted red-black indexing) side by side, the
 * divergence minimization kernel alone against the memory bandwidth, the
 * cost of the convergence check, where a GPU run spends its time, and a
 * grid-size sweep.  A benchmark, not a test: never part of `make check`.
 * Tables on stdout are markdown, ready for docs/benchmarks.md; progress
 * goes to stderr.
 *
 * Usage:
 *   west-bench [--quick] [--no-sweep] [--sweep-max NX] [--reps N]
 *   --quick        grids R1 and R4 only, 50 and 100 iterations, short CPU
 *                  runs, kernel repetitions of >= 20 ms, sweep up to nx 100
 *                  (a check of the program, seconds long)
 *   --no-sweep     skip the size sweep (section 6)
 *   --sweep-max NX stop the sweep after the largest nx <= NX
 *   --reps N       whole GPU runs: median of N (default 3); kernel loops:
 *                  median of 2N - 1 (default 5); 1 <= N <= 10
 * Build: `make west-bench` in a configured build directory builds and runs
 * it (GPU columns need a --with-cuda build); by hand, in the repository
 * root after a build of libwest.a:
 *   gcc -std=gnu11 -Wall -Wextra -O2 -fopenmp -Isrc -Ikernels \
 *       -o west-bench tests/bench/west-bench.c build/cpu/libwest.a \
 *       -lnetcdf -ljansson -lm
 *   gcc -std=gnu11 -Wall -Wextra -O2 -fopenmp -DWEST_HAVE_CUDA=1 \
 *       -I/usr/local/cuda/include -Isrc -Ikernels \
 *       -o west-bench tests/bench/west-bench.c build/cuda/libwest.a \
 *       -lnetcdf -ljansson -L/usr/local/cuda/lib64 -lcudart_static \
 *       -ldl -lrt -lpthread -lstdc++ -lm
 * Exit status: 0 on success, 1 on any backend or CUDA error (printed), 2 on
 * a bad option.  Without CUDA (not built, or west_backend_probe("cuda")
 * refuses the machine) every GPU entry reads "n/a", the header says why,
 * and the CPU columns still run.
 *
 * The set-up (one physical domain at every refinement, as in the paper):
 *  - 8 km x 8 km, 20 levels of 20 m (base altitude auto: the lowest
 *    terrain point, floored).  Grid Rn has n times the cells of R1 by
 *    halving the spacing: R1 100x100x20 (dx = dy = 80 m), R4 200x200x20
 *    (40 m), R16 400x400x20 (20 m), R64 800x800x20 (10 m).  Terrain
 *    (bench_terrain.h), sampled at every column centre and built into a grid by
 *    west_grid_init over an in-memory DEM (corner 500000, 4650000): a
 *    205 m plain, two north-south ridges 150 m high (sigma 400 m) whose
 *    crests wander +-200 m, a valley between them deepening from 12.5 to
 *    25 m to the north, and a 100 m Gaussian hill (sigma 500 m) in the
 *    valley.  It spans 180 to 355 m; the base is 180 m, so the plain is
 *    25 m up and no level centre lies on it; the top is 400 m above the
 *    base; 15 % of the cells are land at every refinement.
 *  - Six stations at 10 m, 3 to 9 m/s, directions 180 to 330 degrees,
 *    classes A to F, one valid time.  omega 1.25, eta 1, tolerance 0 (no
 *    run stops early), check_interval the config default, land_use rural.
 *
 * What it measures:
 *  1. Grids: build time, land share, host bytes (west_grid_bytes), GPU
 *     upload_terrain time and device_bytes().
 *  2. Whole runs: the wall time of backend->run() for the station set on
 *     the resident grid (upload_terrain once per grid and backend, timed
 *     apart), for 500, 1000, 1500 and 2000 iterations.  GPU masked and
 *     compacted: one warm-up run per indexing and grid, then N rounds of
 *     every (count, indexing) in turn (interleaved, so drift hits all
 *     alike), the median run reported.  CPU, 1 core (omp_set_num_threads
 *     (1)) and all cores (omp_get_num_procs()): 25.6e9 cell-sweeps at R64
 *     are minutes, so the CPU runs once per grid with n_cpu iterations, the
 *     largest table count that fits in about 1.5 s at the speed of the
 *     previous run (a 10-iteration pilot on the first grid), else a
 *     multiple of check_interval, at least 10.  Step 8's time per iteration
 *     does not depend on the count (tolerance 0; a check every
 *     check_interval iterations), so T(n) = (total - t8) + t8 / n_cpu * n
 *     with t8 = report.step_seconds[WEST_STEP_DIVMIN]; scaled entries carry
 *     a '*'.  Speed-ups as in the paper: CPU 1 core over masked and over
 *     compacted, masked over compacted, and all cores over compacted.
 *  3. Divergence minimization alone: red-black iterations (a colour 0 then
 *     a colour 1 pass, nx*ny*nz cell-sweeps) per second on arrays this
 *     program owns: the kernels' grid view of the grid (west_levels_init,
 *     west_kgrid_init) and a uniform 5 m/s westerly with the faces touching
 *     land zeroed (west_speed_zero_cpu), uploaded with cudaMemcpy for the
 *     GPU.  GPU: west_divmin_sweep_cuda masked and compacted, timed by
 *     cudaEvents on cudaStreamPerThread (the launchers' stream); CPU:
 *     west_divmin_sweep_cpu compacted on 1 and on all threads (bench_cpu
 *     compares masked there).  Copies in the same rounds: a 1 GiB
 *     device-to-device cudaMemcpyAsync, and on the host memcpy (1 thread)
 *     and an OpenMP loop (all threads) over max(128 MiB, 2 x LLC).  As in
 *     bench_cpu: each job is warmed up while its repetition size doubles
 *     until one takes 50 ms (20 ms with --quick), then sized for >= 50 ms
 *     at 1.5 x the fastest speed seen; then 2N - 1 interleaved rounds of
 *     every job; medians.  Copy GB/s count the bytes read plus the bytes
 *     written (1 GB = 1e9 B).  The GPU's theoretical peak is
 *     2 x memory clock (kHz) x 1e3 x bus width (bits) / 8, from
 *     cudaDeviceGetAttribute (the cudaDeviceProp fields are gone in CUDA
 *     13), "n/a" when the driver does not say.
 *  4. Convergence-check cost, on the two largest grids: the median of 20
 *     calls of west_divergence_norms_cuda (it synchronizes and returns two
 *     doubles; each call starts from an idle device, host clock) and of
 *     west_divergence_norms_cpu on all threads, in compacted iterations of
 *     section 3, and the share of a solve a check every K iterations costs,
 *     c / (K t + c) for K = 1, 5, 10, 20, 50: what check_interval is chosen
 *     by.  (In a run the check also drains the launch queue; the next
 *     launch's latency, a few us, is not counted.)
 *  5. Non-solver share: the median compacted GPU run at the largest grid
 *     and 1000 iterations (the largest count <= 1000): every step's
 *     report.step_seconds, (wall - t8) / wall, and what run() spends
 *     outside the steps (stations up, field down); steps 4 and 7 run with
 *     the terrain and are listed apart.  Beside it the all-cores CPU run.
 *  6. Size sweep (--no-sweep skips it): nx = ny = 25 .. 3200 (doubling),
 *     nz 20, dx = 8000 m / nx (grids are built with max_cells 4e9: 3200
 *     is 204.8 million cells, over the 2e8 default), GPU compacted whole
 *     run of 100 iterations
 *     (a fresh backend state per size, upload timed, one warm-up, median of
 *     N) against the all-cores CPU (scaled as above), device_bytes() and
 *     the device memory a run leaves held (cudaMemGetInfo before the upload
 *     and after the warm-up), host grid bytes.  It reports the smallest nx
 *     from which the GPU is faster, and the largest grid that fits in the
 *     free device memory at the bytes per cell of the largest size run
 *     (the larger of device_bytes() and what the run left held).  A
 *     grid, upload or warm-up run that fails (out of memory) ends the sweep
 *     with a line saying why; so does --sweep-max.
 *
 * Bytes per cell-sweep (WB_BYTES_PER_SWEEP = 72, as in bench_cpu.c): a
 * colour pass visits half the cells, but every interior face lies between
 * a red and a black cell, so each pass reads and writes every u, v, w face
 * once (3 faces per cell: 12 B read + 12 B written) and reads every TX, TY,
 * TZ once (12 B): 36 B per cell per pass.  The two passes are separate
 * launches (loops) over arrays far larger than the caches at R16 and R64,
 * so an iteration moves 2 x 36 = 72 B per cell, i.e. 72 B per cell-sweep
 * (the same count as "6 faces read, 6 transparencies read, 6 faces
 * written" per swept cell).  Not counted: the land mask (the sweep does not
 * read it), zc, rdz, rdzf (nz floats, cached), the extra face row per row
 * (1/nx).  Masked indexing reads the same bytes and idles half its
 * threads; a fused two-colour sweep keeping a plane on chip could reach
 * 36 B.  Achieved GB/s = cell-sweeps/s x 72 B; "of copy" divides it by the
 * copy bandwidth of the same processor (the host: the fastest copy on at
 * most that many threads), "of peak" by the GPU's theoretical peak.
 *
 * Time budget, measured on an H100 host (16 threads, build of 2026-11-22):
 * 61 s in all.  Start-up 0.3 s.  Per grid (sections 1-4): R1 7 s, R4 8 s,
 * R16 12 s, R64 20 s, of which about 5 s each are the kernel loops (7 jobs
 * of ~0.7 s), and at R64 ~3 s the two CPU runs and ~12 s the 26 GPU runs
 * (2 x 15500 iterations at ~0.35 ms).  Sweep 14 s, 9 s of it at
 * 3200x3200x20 (205 million cells, 5.5 GB on the host).  Kernels twice as
 * slow would add ~20 s; --no-sweep saves the sweep.
 */
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef WEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "backend.h"
#include "config.h"
#include "field.h"
#include "grid.h"
#include "kernels.h"
#include "log.h"
#include "model.h"
#include "obs.h"
#include "terrain.h"

#include "bench_terrain.h"

#define WB_L BENCH_TERRAIN_L        /* domain side (m), 8000 */
#define WB_X0 500000.0             /* outer lower-left corner (m) */
#define WB_Y0 4650000.0
#define WB_NZ 20
#define WB_DZ 20.0                 /* m */
#define WB_MAX_CELLS 4000000000LL  /* the config's upper bound: the sweep's 3200 */
#define WB_OMEGA 1.25
#define WB_ETA 1.0
#define WB_U0 5.0f                 /* m/s, westerly, for the kernel loops */
#define WB_TIME 1795435200LL       /* 2026-11-22T12:00:00Z */
#define WB_BYTES_PER_SWEEP 72.0
#define WB_NGRID 4
#define WB_NCOUNT 4
#define WB_NSWEEP 8
#define WB_REPS_MAX 20             /* repetitions of a median, at most */
#define WB_NORM_CALLS 20
#define WB_MIN_ITERS 10            /* least CPU iterations of a run */
#define WB_MARGIN 1.5              /* on a job's repetition size */
#define WB_SWEEP_ITERS 100
#define WB_COPY_BYTES ((size_t)1 << 30)
#ifdef __clang__
#define WB_CC "clang "
#else
#define WB_CC "gcc "
#endif

/* The whole-run columns. */
enum { COL_CPU1, COL_CPUALL, COL_GPUM, COL_GPUC, NCOL };

/* The kernel-loop jobs of one grid. */
enum { J_GPU_M, J_GPU_C, J_CPU_1, J_CPU_ALL, J_GCOPY, J_HCOPY_1, J_HCOPY_ALL, NJOB };
#define NSWEEPJOB 4                /* J_GPU_M .. J_CPU_ALL */

static const struct { const char *name; size_t nx; } grid_defs[WB_NGRID] = {
	{ "R1", 100 }, { "R4", 200 }, { "R16", 400 }, { "R64", 800 },
};
static const long full_counts[WB_NCOUNT] = { 500, 1000, 1500, 2000 };
static const size_t sweep_nx[WB_NSWEEP] = { 25, 50, 100, 200, 400, 800, 1600, 3200 };

/* Table 2 of the paper, R64 at 2000 iterations (s): i7-2700K, 1 core;
 * GTX 680 masked; compacted. */
#define PAPER_CPU 449.29
#define PAPER_MASKED 18.04
#define PAPER_COMPACT 15.15

struct opts {
	int quick, sweep;
	int reps;                  /* whole GPU runs; kernel loops 2 reps - 1 */
	size_t sweep_max;          /* largest nx of the sweep */
	int ngrid, ncount;
	long counts[WB_NCOUNT];
	double cpu_target_s;       /* one CPU run of section 2 */
	double sweep_cpu_target_s;
	double min_rep_s;          /* least seconds of a kernel-loop repetition */
};

/* The divergence-minimization view of a grid: host or device pointers. */
struct sweep_view {
	struct west_kgrid kg;
	float *u, *v, *w;
};

/* A device copy of a sweep view, and its allocations. */
struct dev_view {
	struct sweep_view v;
	void *buf[16];             /* 10 used */
	int nbuf;
};

struct gpu {
	int ok;                    /* the CUDA backend probed well: kernels run */
	int run_ok;                /* ... and it has run() */
	char why[WEST_ERRLEN];     /* why not */
	const struct west_backend *be;
	void *state;
	char desc[256];
	int runtime, driver;       /* CUDA versions, 1000 major + 10 minor */
	double peak_gbs;           /* theoretical, NAN when unknown */
	int l2_bytes;              /* 0 when unknown */
	float *copy_src, *copy_dst; /* device, WB_COPY_BYTES each */
};

/* The host copy's arrays. */
struct host_copy {
	float *src, *dst;
	size_t count;
};

struct bench {
	struct opts o;
	int all;                   /* omp_get_num_procs() */
	double t0;                 /* start (s) */
	struct west_obs_set obs;
	struct west_solve_opts so; /* every run's, less iterations and indexing */
	void *cpu_state;
	struct gpu gpu;
	struct host_copy hc;
	double rate[2];            /* CPU step 8 cell-sweeps/s: 1, all threads */
	int short_runs;            /* runs that stopped before their count */
};

/* A grid with its field; `host` views the field's faces. */
struct bgrid {
	struct west_grid g;
	struct west_levels l;
	struct west_field f;
	struct sweep_view host;
	double build_s;
};

/* One CPU run of a grid. */
struct cpu_run {
	long n;                    /* iterations */
	double total, divmin;      /* s: run() wall time, its step 8 */
	struct west_report rep;
};

struct grid_res {
	const char *name;
	size_t nx, cells, land, host_bytes, dev_bytes;
	size_t sweep_bytes;                    /* u, v, w, tx, ty, tz */
	double dx, build_s, upload_s;
	struct cpu_run cpu[2];                 /* 1 thread, all threads */
	double whole[NCOL][WB_NCOUNT];         /* s, NAN = n/a */
	int scaled[NCOL][WB_NCOUNT];
	struct west_report gpu_rep[WB_NCOUNT]; /* compacted, the median run */
	long iters[NSWEEPJOB];                 /* per repetition */
	double rep_s[NSWEEPJOB];               /* median repetition (s) */
	double rate[NSWEEPJOB];                /* cell-sweeps/s */
	double copy_gbs[3];                    /* device, host 1, host all */
	double norm_s[2];                      /* GPU, CPU all; NAN = n/a */
};

struct sweep_res {
	size_t nx, cells, dev_bytes, held_bytes, host_bytes;
	size_t free0, total;       /* device memory before the upload */
	double dx, gpu_s, cpu_s, upload_s;
	long cpu_n;
};

/* ------------------------------------------------------------ utilities */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, const char *msg)
{
	fprintf(stderr, "west-bench: %s: %s\n", what, msg);
	exit(1);
}

static void must(enum west_status st, const char *what, const char *err)
{
	if (st != WEST_OK)
		die(what, err);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p) {
		fprintf(stderr, "west-bench: out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

__attribute__((format(printf, 2, 3)))
static void progress(const struct bench *b, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "[%7.1f s] ", now_s() - b->t0);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Index of the median of t[0..n) (the lower middle when n is even), so
 * that the median is a run that happened. */
static int median_index(const double *t, int n)
{
	int idx[WB_REPS_MAX];
	for (int i = 0; i < n; i++) {
		int j = i;
		for (; j > 0 && t[idx[j - 1]] > t[i]; j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	return idx[(n - 1) / 2];
}

static double median(const double *t, int n)
{
	return t[median_index(t, n)];
}

#define WB_SLOT 48

/* A scratch string for one table cell (rotating: enough for one printf). */
static char *slot(void)
{
	static char buf[32][WB_SLOT];
	static int next;
	return buf[next++ % 32];
}

/* v printed with fmt, or "n/a" when v is NaN. */
static const char *num(const char *fmt, double v)
{
	char *s = slot();

	if (isnan(v))
		snprintf(s, WB_SLOT, "n/a");
	else
		snprintf(s, WB_SLOT, fmt, v);
	return s;
}

/* Seconds, with '*' when scaled from a shorter run. */
static const char *secs(double v, int scaled)
{
	char *s = slot();

	if (isnan(v))
		snprintf(s, WB_SLOT, "n/a");
	else
		snprintf(s, WB_SLOT, "%.4g%s", v, scaled ? "*" : "");
	return s;
}

static double ratio(double a, double b)
{
	return a / b;   /* NaN in, NaN out: "n/a" */
}

/* Face counts of a kernels' grid view: x, y, z faces (grid.h layouts). */
static void kg_faces(const struct west_kgrid *k, size_t n[3])
{
	n[0] = (k->nx + 1) * k->ny * k->nz;
	n[1] = k->nx * (k->ny + 1) * k->nz;
	n[2] = k->nx * k->ny * (k->nz + 1);
}

/* ------------------------------------------------------------------ GPU */

#ifdef WEST_HAVE_CUDA

#define CK(call)                                                              \
	do {                                                                  \
		cudaError_t e_ = (call);                                      \
		if (e_ != cudaSuccess) {                                      \
			fprintf(stderr, "west-bench: %s:%d: %s: %s\n",        \
				__FILE__, __LINE__, #call,                    \
				cudaGetErrorString(e_));                      \
			exit(1);                                              \
		}                                                             \
	} while (0)

static cudaEvent_t ev_start, ev_stop;

/* Versions, peak bandwidth, timing events and the copy buffers. */
static void gpu_info(struct gpu *gp)
{
	int clk = 0, bus = 0;

	CK(cudaRuntimeGetVersion(&gp->runtime));
	CK(cudaDriverGetVersion(&gp->driver));
	if (cudaDeviceGetAttribute(&clk, cudaDevAttrMemoryClockRate, 0) == cudaSuccess &&
	    cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0) == cudaSuccess &&
	    clk > 0 && bus > 0)
		gp->peak_gbs = 2.0 * clk * 1e3 * (bus / 8.0) / 1e9;
	if (cudaDeviceGetAttribute(&gp->l2_bytes, cudaDevAttrL2CacheSize, 0) != cudaSuccess)
		gp->l2_bytes = 0;
	(void)cudaGetLastError();   /* an unsupported attribute is no error here */
	CK(cudaEventCreate(&ev_start));
	CK(cudaEventCreate(&ev_stop));
	CK(cudaMalloc((void **)&gp->copy_src, WB_COPY_BYTES));
	CK(cudaMalloc((void **)&gp->copy_dst, WB_COPY_BYTES));
	CK(cudaMemset(gp->copy_src, 0, WB_COPY_BYTES));
	CK(cudaMemset(gp->copy_dst, 0, WB_COPY_BYTES));
}

static void gpu_copy_free(struct gpu *gp)
{
	CK(cudaFree(gp->copy_src));
	CK(cudaFree(gp->copy_dst));
	gp->copy_src = gp->copy_dst = NULL;
}

/* Free what gpu_info made (idempotent: before the sweep, and at the end). */
static void gpu_close(struct gpu *gp)
{
	if (!ev_start)
		return;
	gpu_copy_free(gp);
	CK(cudaEventDestroy(ev_start));
	CK(cudaEventDestroy(ev_stop));
	ev_start = ev_stop = NULL;
}

static void gpu_mem(size_t *free_b, size_t *total)
{
	CK(cudaMemGetInfo(free_b, total));
}

static void gpu_sync(void)
{
	CK(cudaDeviceSynchronize());
}

static void launched(enum west_status st, const char *what)
{
	if (st != WEST_OK)
		die(what, "launch failed (the log line above says why)");
}

/* n red-black iterations (sweep) or n copies on the device, event-timed. */
static double gpu_time(const struct sweep_view *d, enum west_kindexing idx,
		       float *dst, const float *src, size_t count, long n)
{
	float ms = 0.0f;

	CK(cudaEventRecord(ev_start, cudaStreamPerThread));
	for (long it = 0; it < n; it++) {
		if (!d) {
			CK(cudaMemcpyAsync(dst, src, count * sizeof *dst,
					   cudaMemcpyDeviceToDevice, cudaStreamPerThread));
			continue;
		}
		for (int colour = 0; colour < 2; colour++)
			launched(west_divmin_sweep_cuda(&d->kg, (float)WB_OMEGA,
							(float)WB_ETA, colour, idx,
							d->u, d->v, d->w),
				 "west_divmin_sweep_cuda");
	}
	CK(cudaEventRecord(ev_stop, cudaStreamPerThread));
	CK(cudaEventSynchronize(ev_stop));
	CK(cudaEventElapsedTime(&ms, ev_start, ev_stop));
	return 1e-3 * ms;
}

static const void *dev_put(struct dev_view *d, const void *src, size_t bytes)
{
	void *p = NULL;
	CK(cudaMalloc(&p, bytes));
	CK(cudaMemcpy(p, src, bytes, cudaMemcpyHostToDevice));
	d->buf[d->nbuf++] = p;
	return p;
}

/* Device copies of h's grid view and faces. */
static void dev_view_init(struct dev_view *d, const struct sweep_view *h)
{
	const struct west_kgrid *k = &h->kg;
	size_t nz = k->nz, n[3], f = sizeof(float);

	kg_faces(k, n);
	d->nbuf = 0;
	d->v.kg = *k;
	d->v.kg.zc = dev_put(d, k->zc, nz * f);
	d->v.kg.rdz = dev_put(d, k->rdz, nz * f);
	d->v.kg.rdzf = dev_put(d, k->rdzf, (nz + 1) * f);
	d->v.kg.land = dev_put(d, k->land, k->nx * k->ny * nz);
	d->v.kg.tx = dev_put(d, k->tx, n[0] * f);
	d->v.kg.ty = dev_put(d, k->ty, n[1] * f);
	d->v.kg.tz = dev_put(d, k->tz, n[2] * f);
	d->v.u = (float *)dev_put(d, h->u, n[0] * f);
	d->v.v = (float *)dev_put(d, h->v, n[1] * f);
	d->v.w = (float *)dev_put(d, h->w, n[2] * f);
}

static void dev_view_free(struct dev_view *d)
{
	for (int i = 0; i < d->nbuf; i++)
		CK(cudaFree(d->buf[i]));
	d->nbuf = 0;
}

static double norms_time(__typeof__(west_divergence_norms_cpu) *fn,
			 const struct sweep_view *v, void (*sync)(void));

static double gpu_norms_time(const struct sweep_view *d)
{
	return norms_time(west_divergence_norms_cuda, d, gpu_sync);
}

#else /* no CUDA in this build: never called while gpu.ok is 0 */

static void gpu_info(struct gpu *gp) { (void)gp; }
static void gpu_close(struct gpu *gp) { (void)gp; }
static void gpu_mem(size_t *free_b, size_t *total) { *free_b = *total = 0; }
static void dev_view_init(struct dev_view *d, const struct sweep_view *h)
{
	(void)d, (void)h;
}
static void dev_view_free(struct dev_view *d) { (void)d; }
static double gpu_norms_time(const struct sweep_view *d)
{
	(void)d;
	return NAN;
}
static double gpu_time(const struct sweep_view *d, enum west_kindexing idx,
		       float *dst, const float *src, size_t count, long n)
{
	(void)d, (void)idx, (void)dst, (void)src, (void)count, (void)n;
	return NAN;
}

#endif

/* Probe and open the CUDA backend; gp->why says why not. */
static void gpu_open(struct gpu *gp)
{
	char err[WEST_ERRLEN];

	gp->peak_gbs = NAN;
	if (west_backend_probe("cuda", gp->why, sizeof gp->why) != WEST_OK)
		return;
	gp->be = west_backend_find("cuda");
	must(gp->be->init(&gp->state, err, sizeof err), "cuda backend init", err);
	gp->be->describe(gp->state, gp->desc, sizeof gp->desc);
	gp->ok = 1;
	gp->run_ok = gp->be->run != NULL;
	if (!gp->run_ok)
		snprintf(gp->why, sizeof gp->why,
			 "the cuda backend of this build has no run() yet");
	gpu_info(gp);
}

/* A fresh CUDA backend state (frees every device array the old one held). */
static void gpu_reopen_state(struct gpu *gp)
{
	char err[WEST_ERRLEN];

	gp->be->free(gp->state);
	gp->state = NULL;
	must(gp->be->init(&gp->state, err, sizeof err), "cuda backend init", err);
}

/* -------------------------------------------------------- terrain, grid */

static void bgrid_free(struct bgrid *bg)
{
	west_field_free(&bg->f);
	west_levels_free(&bg->l);
	west_grid_free(&bg->g);
}

/* The nx x nx x WB_NZ grid over the domain, its levels and a field. */
static enum west_status bgrid_init(struct bgrid *bg, size_t nx, char *err,
				   size_t errlen)
{
	struct west_config *c = xmalloc(sizeof *c);
	struct west_dem dem = { .nx = nx, .ny = nx, .dx = WB_L / (double)nx,
				.dy = WB_L / (double)nx, .x0 = WB_X0, .y0 = WB_Y0 };
	double t0 = now_s();
	enum west_status st;

	memset(bg, 0, sizeof *bg);
	west_config_defaults(c);
	c->nz = WB_NZ, c->dz = WB_DZ, c->max_cells = WB_MAX_CELLS;
	dem.z = xmalloc(nx * nx * sizeof *dem.z);
	bench_dem_fill(&dem);
	struct west_grid_opts go;
	west_grid_opts_from_config(&go, c);
	st = west_grid_init(&bg->g, &dem, &go, err, errlen);
	free(dem.z);
	free(c);
	if (!st)
		st = west_levels_init(&bg->l, &bg->g, err, errlen);
	if (!st)
		st = west_field_init(&bg->f, &bg->g, err, errlen);
	if (st) {
		bgrid_free(bg);
		return st;
	}
	west_kgrid_init(&bg->host.kg, &bg->g, &bg->l);
	bg->host.u = bg->f.u, bg->host.v = bg->f.v, bg->host.w = bg->f.w;
	bg->build_s = now_s() - t0;
	return WEST_OK;
}

/* Bytes of the arrays an iteration streams: u, v, w, tx, ty, tz. */
static size_t sweep_bytes(const struct west_grid *g)
{
	return 2 * sizeof(float) *
	       (west_grid_nxfaces(g) + west_grid_nyfaces(g) + west_grid_nzfaces(g));
}

/* Uniform westerly, faces touching land zeroed (the kernel loops' start). */
static void field_westerly(const struct sweep_view *h)
{
	size_t n[3];

	kg_faces(&h->kg, n);
	for (size_t f = 0; f < n[0]; f++)
		h->u[f] = WB_U0;
	memset(h->v, 0, n[1] * sizeof *h->v);
	memset(h->w, 0, n[2] * sizeof *h->w);
	(void)west_speed_zero_cpu(&h->kg, h->u, h->v, h->w);
}

/* ----------------------------------------------------------- whole runs */

/* One run() of n iterations into f; its wall time in *sec. */
static enum west_status run_try(struct bench *b, const struct west_backend *be,
				void *state, struct west_field *f, long n,
				enum west_indexing idx, double *sec, char *err,
				size_t errlen)
{
	struct west_solve_opts so = b->so;
	enum west_status st;
	double t0;

	so.iterations = n, so.indexing = idx;
	t0 = now_s();
	st = be->run(state, &b->obs, &so, f, NULL, NULL, err, errlen);
	*sec = now_s() - t0;
	if (!st && f->report.iterations != n) {
		progress(b, "warning: %s run did %ld of %ld iterations", be->name,
			 f->report.iterations, n);
		b->short_runs++;
	}
	return st;
}

static double run_once(struct bench *b, const struct west_backend *be, void *state,
		       struct west_field *f, long n, enum west_indexing idx)
{
	char err[WEST_ERRLEN];
	double t;

	must(run_try(b, be, state, f, n, idx, &t, err, sizeof err), be->name, err);
	return t;
}

static void cpu_run_n(struct bench *b, struct bgrid *bg, int threads, long n,
		      struct cpu_run *cr)
{
	omp_set_num_threads(threads);
	cr->n = n;
	cr->total = run_once(b, &west_backend_cpu, b->cpu_state, &bg->f, n,
			     WEST_INDEXING_COMPACT);
	cr->divmin = bg->f.report.step_seconds[WEST_STEP_DIVMIN];
	cr->rep = bg->f.report;
	omp_set_num_threads(b->all);
}

/* T(n) of a CPU run (section 2's model); exact at its own count. */
static double cpu_predict(const struct cpu_run *cr, long n)
{
	if (n == cr->n)
		return cr->total;
	return cr->total - cr->divmin + cr->divmin / (double)cr->n * (double)n;
}

/*
 * Iterations of a CPU run of about target s at rate cell-sweeps/s: the
 * largest of counts[] that fits, else a multiple of check_interval, at
 * least WB_MIN_ITERS.
 */
static long cpu_iters(const struct bench *b, double rate, size_t cells,
		      double target, const long *counts, int ncount)
{
	double fit = target * rate / (double)cells;
	long ci = b->so.check_interval, n;

	for (int c = ncount - 1; c >= 0; c--)
		if ((double)counts[c] <= fit)
			return counts[c];
	n = fit < 1e9 ? (long)fit / ci * ci : 0;
	return n < WB_MIN_ITERS ? WB_MIN_ITERS : n;
}

/*
 * The CPU run of a grid on 1 (ti 0) or all (ti 1) threads, sized by the
 * speed of the previous run on as many threads (a pilot of WB_MIN_ITERS
 * iterations first when there was none).
 */
static void cpu_whole(struct bench *b, struct bgrid *bg, int ti, const long *counts,
		      int ncount, double target, struct cpu_run *cr)
{
	int threads = ti ? b->all : 1;
	size_t cells = west_grid_ncells(&bg->g);
	long n;

	if (b->rate[ti] <= 0) {
		cpu_run_n(b, bg, threads, WB_MIN_ITERS, cr);
		b->rate[ti] = (double)cr->n * (double)cells / cr->divmin;
	} else
		cr->n = 0;
	n = cpu_iters(b, b->rate[ti], cells, target, counts, ncount);
	if (n != cr->n)
		cpu_run_n(b, bg, threads, n, cr);
	b->rate[ti] = (double)cr->n * (double)cells / cr->divmin;
	progress(b, "  CPU %d thread%s, %ld iterations: %.3f s (step 8 %.3f s)",
		 threads, threads == 1 ? "" : "s", cr->n, cr->total, cr->divmin);
}

static void cpu_fill(struct grid_res *r, int col, const struct cpu_run *cr,
		     const struct opts *o)
{
	for (int c = 0; c < o->ncount; c++) {
		r->whole[col][c] = cpu_predict(cr, o->counts[c]);
		r->scaled[col][c] = o->counts[c] != cr->n;
	}
}

static enum west_indexing col_indexing(int x)
{
	return x ? WEST_INDEXING_COMPACT : WEST_INDEXING_MASKED;
}

/*
 * GPU whole runs of a grid: a warm-up per indexing, then reps rounds of
 * every count and indexing in turn; the median run of each into r.
 */
static void gpu_whole(struct bench *b, struct bgrid *bg, struct grid_res *r)
{
	const struct opts *o = &b->o;
	const struct gpu *gp = &b->gpu;
	double t[2][WB_NCOUNT][WB_REPS_MAX];
	static struct west_report rep[WB_NCOUNT][WB_REPS_MAX];

	for (int x = 0; x < 2; x++)
		run_once(b, gp->be, gp->state, &bg->f, o->counts[0], col_indexing(x));
	for (int k = 0; k < o->reps; k++)
		for (int c = 0; c < o->ncount; c++) {
			for (int x = 0; x < 2; x++)
				t[x][c][k] = run_once(b, gp->be, gp->state, &bg->f,
						      o->counts[c], col_indexing(x));
			rep[c][k] = bg->f.report;   /* the compacted run's */
			progress(b, "  GPU round %d/%d, %ld iterations: masked %.4f s, "
				 "compacted %.4f s", k + 1, o->reps, o->counts[c],
				 t[0][c][k], t[1][c][k]);
		}
	for (int c = 0; c < o->ncount; c++)
		for (int x = 0; x < 2; x++) {
			int m = median_index(t[x][c], o->reps);
			r->whole[COL_GPUM + x][c] = t[x][c][m];
			if (x)
				r->gpu_rep[c] = rep[c][m];
		}
}

/* Upload g to the CUDA state, timed. */
static enum west_status gpu_upload(struct gpu *gp, const struct west_grid *g,
				   double *sec, char *err, size_t errlen)
{
	double t0 = now_s();
	enum west_status st = gp->be->upload_terrain(gp->state, g, err, errlen);
	*sec = now_s() - t0;
	return st;
}

/* ---------------------------------------------------------- kernel loops */

enum job_kind { JOB_SWEEP_CPU, JOB_COPY_CPU, JOB_SWEEP_GPU, JOB_COPY_GPU };

/* One timed configuration of the kernel loops (bench_cpu's protocol). */
struct job {
	int active;
	enum job_kind kind;
	int threads;
	enum west_kindexing idx;
	const struct sweep_view *sv;   /* sweeps */
	float *dst;                    /* copies */
	const float *src;
	size_t count;                  /* floats per copy */
	long n;                        /* units (iterations, copies) per repetition */
	double t[WB_REPS_MAX];
	double med;                    /* s per repetition */
};

static void copy_omp(float *restrict dst, const float *restrict src, size_t n)
{
	#pragma omp parallel for simd schedule(static)
	for (long i = 0; i < (long)n; i++)
		dst[i] = src[i];
}

static void cpu_units(const struct job *jb, long n)
{
	const struct sweep_view *v = jb->sv;

	for (long it = 0; it < n; it++) {
		if (jb->kind == JOB_SWEEP_CPU)
			for (int colour = 0; colour < 2; colour++)
				(void)west_divmin_sweep_cpu(&v->kg, (float)WB_OMEGA,
							    (float)WB_ETA, colour,
							    jb->idx, v->u, v->v, v->w);
		else if (jb->threads == 1)
			memcpy(jb->dst, jb->src, jb->count * sizeof *jb->dst);
		else
			copy_omp(jb->dst, jb->src, jb->count);
	}
}

static double job_time(struct job *jb, long n, int all)
{
	double t0;

	if (jb->kind == JOB_SWEEP_GPU)
		return gpu_time(jb->sv, jb->idx, NULL, NULL, 0, n);
	if (jb->kind == JOB_COPY_GPU)
		return gpu_time(NULL, jb->idx, jb->dst, jb->src, jb->count, n);
	omp_set_num_threads(jb->threads);
	t0 = now_s();
	cpu_units(jb, n);
	t0 = now_s() - t0;
	omp_set_num_threads(all);
	return t0;
}

/*
 * Warm-up: double n until a repetition takes min_s, then size n so that a
 * repetition still takes min_s at WB_MARGIN x the fastest speed seen, and
 * run one more repetition of it.
 */
static void job_calibrate(struct job *jb, double min_s, int all)
{
	long n = 1;
	double t, best;

	while ((t = job_time(jb, n, all)) < min_s)
		n *= 2;
	best = t / (double)n;
	best = fmin(best, job_time(jb, n, all) / (double)n);
	jb->n = (long)ceil(WB_MARGIN * min_s / best);
	job_time(jb, jb->n, all);
}

/* Calibrate every active job, then time them in interleaved rounds. */
static void jobs_measure(struct job *jobs, int nj, int reps, double min_s, int all)
{
	for (int j = 0; j < nj; j++)
		if (jobs[j].active)
			job_calibrate(&jobs[j], min_s, all);
	for (int r = 0; r < reps; r++)
		for (int j = 0; j < nj; j++)
			if (jobs[j].active)
				jobs[j].t[r] = job_time(&jobs[j], jobs[j].n, all);
	for (int j = 0; j < nj; j++)
		jobs[j].med = jobs[j].active ? median(jobs[j].t, reps) : NAN;
}

static void jobs_setup(struct job *jb, const struct bench *b,
		       const struct sweep_view *h, const struct sweep_view *d)
{
	int gpu = b->gpu.ok;

	for (int x = 0; x < 2; x++)
		jb[J_GPU_M + x] = (struct job){
			.active = gpu, .kind = JOB_SWEEP_GPU, .threads = 1, .sv = d,
			.idx = x ? WEST_KINDEX_COMPACT : WEST_KINDEX_MASKED,
		};
	for (int x = 0; x < 2; x++)
		jb[J_CPU_1 + x] = (struct job){
			.active = 1, .kind = JOB_SWEEP_CPU, .threads = x ? b->all : 1,
			.sv = h, .idx = WEST_KINDEX_COMPACT,
		};
	jb[J_GCOPY] = (struct job){
		.active = gpu, .kind = JOB_COPY_GPU, .threads = 1,
		.dst = b->gpu.copy_dst, .src = b->gpu.copy_src,
		.count = WB_COPY_BYTES / sizeof(float),
	};
	for (int x = 0; x < 2; x++)
		jb[J_HCOPY_1 + x] = (struct job){
			.active = 1, .kind = JOB_COPY_CPU, .threads = x ? b->all : 1,
			.dst = b->hc.dst, .src = b->hc.src, .count = b->hc.count,
		};
}

static double copy_gbs(const struct job *jb)
{
	return 2.0 * (double)jb->count * sizeof(float) * (double)jb->n / jb->med / 1e9;
}

static void jobs_fill(struct grid_res *r, const struct job *jobs)
{
	for (int j = 0; j < NSWEEPJOB; j++) {
		r->iters[j] = jobs[j].active ? jobs[j].n : 0;
		r->rep_s[j] = jobs[j].med;
		r->rate[j] = (double)jobs[j].n * (double)r->cells / jobs[j].med;
	}
	for (int j = 0; j < 3; j++)
		r->copy_gbs[j] = copy_gbs(&jobs[J_GCOPY + j]);
}

/*
 * Median seconds of WB_NORM_CALLS calls of the norms kernel fn on view v,
 * each from an idle device when sync is given.
 */
static double norms_time(__typeof__(west_divergence_norms_cpu) *fn,
			 const struct sweep_view *v, void (*sync)(void))
{
	double t[WB_NORM_CALLS], norms[2];

	for (int i = 0; i < WB_NORM_CALLS; i++) {
		double t0;
		if (sync)
			sync();
		t0 = now_s();
		if (fn(&v->kg, v->u, v->v, v->w, norms) != WEST_OK)
			die("divergence norms", "failed (the log line above says why)");
		t[i] = now_s() - t0;
	}
	return median(t, WB_NORM_CALLS);
}

/* Sections 3 and 4 of one grid (norms when `norms`). */
static void divmin_measure(struct bench *b, struct bgrid *bg, struct grid_res *r,
			   int norms)
{
	struct dev_view d = { .nbuf = 0 };
	struct job jobs[NJOB];

	field_westerly(&bg->host);
	if (b->gpu.ok)
		dev_view_init(&d, &bg->host);
	jobs_setup(jobs, b, &bg->host, &d.v);
	progress(b, "  kernel loops: %d rounds of >= %.0f ms", 2 * b->o.reps - 1,
		 1e3 * b->o.min_rep_s);
	jobs_measure(jobs, NJOB, 2 * b->o.reps - 1, b->o.min_rep_s, b->all);
	jobs_fill(r, jobs);
	if (norms) {
		progress(b, "  divergence norms: %d calls each", WB_NORM_CALLS);
		r->norm_s[1] = norms_time(west_divergence_norms_cpu, &bg->host, NULL);
		if (b->gpu.ok)
			r->norm_s[0] = gpu_norms_time(&d.v);
	}
	dev_view_free(&d);
}

/* -------------------------------------------------------- host copy */

/* Last-level cache (bytes), 0 when the system does not say. */
static size_t llc_bytes(void)
{
	long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	return l3 > 0 ? (size_t)l3 : l2 > 0 ? (size_t)l2 : 0;
}

/* The host copy's two arrays, max(128 MiB, 2 x LLC) each, pages touched. */
static void host_copy_init(struct host_copy *hc)
{
	size_t bytes = 2 * llc_bytes(), min = (size_t)128 << 20;
	size_t n = (bytes > min ? bytes : min) / sizeof(float);

	hc->src = xmalloc(n * sizeof *hc->src);
	hc->dst = xmalloc(n * sizeof *hc->dst);
	hc->count = n;
	#pragma omp parallel for schedule(static)
	for (long i = 0; i < (long)n; i++)
		hc->src[i] = (float)(i & 1023), hc->dst[i] = 0.0f;
}

static void host_copy_free(struct host_copy *hc)
{
	free(hc->src);
	free(hc->dst);
	memset(hc, 0, sizeof *hc);
}

/* ---------------------------------------------------------- per grid */

static void res_init(struct grid_res *r, const char *name, const struct bgrid *bg)
{
	*r = (struct grid_res){
		.name = name, .nx = bg->g.nx, .cells = west_grid_ncells(&bg->g),
		.land = bg->g.land_cells, .host_bytes = west_grid_bytes(&bg->g),
		.sweep_bytes = sweep_bytes(&bg->g),
		.dx = bg->g.dx, .build_s = bg->build_s, .upload_s = NAN,
		.norm_s = { NAN, NAN },
	};
	for (int col = 0; col < NCOL; col++)
		for (int c = 0; c < WB_NCOUNT; c++)
			r->whole[col][c] = NAN;
}

/* Sections 1 to 4 for grid gi. */
static void grid_measure(struct bench *b, int gi, struct grid_res *r)
{
	struct bgrid bg;
	char err[WEST_ERRLEN];
	const char *name = grid_defs[gi].name;
	size_t nx = grid_defs[gi].nx;

	progress(b, "%s: %zux%zux%d", name, nx, nx, WB_NZ);
	must(bgrid_init(&bg, nx, err, sizeof err), name, err);
	res_init(r, name, &bg);
	must(west_backend_cpu.upload_terrain(b->cpu_state, &bg.g, err, sizeof err),
	     "cpu upload_terrain", err);
	for (int ti = 0; ti < 2; ti++) {
		cpu_whole(b, &bg, ti, b->o.counts, b->o.ncount, b->o.cpu_target_s,
			  &r->cpu[ti]);
		cpu_fill(r, COL_CPU1 + ti, &r->cpu[ti], &b->o);
	}
	if (b->gpu.run_ok) {
		must(gpu_upload(&b->gpu, &bg.g, &r->upload_s, err, sizeof err),
		     "cuda upload_terrain", err);
		r->dev_bytes = b->gpu.be->device_bytes(b->gpu.state);
		gpu_whole(b, &bg, r);
	}
	divmin_measure(b, &bg, r, gi >= b->o.ngrid - 2);
	bgrid_free(&bg);
}

/* ---------------------------------------------------------- size sweep */

/* The GPU part of a sweep point; 1 with why set when the sweep must stop. */
static int sweep_gpu(struct bench *b, struct bgrid *bg, struct sweep_res *s,
		     char *why, size_t len)
{
	struct gpu *gp = &b->gpu;
	char err[WEST_ERRLEN];
	double t[WB_REPS_MAX], warm;
	size_t free1, total;

	gpu_reopen_state(gp);
	gpu_mem(&s->free0, &s->total);
	if (gpu_upload(gp, &bg->g, &s->upload_s, err, sizeof err)) {
		snprintf(why, len, "upload_terrain at nx = %zu: %s", s->nx, err);
		return 1;
	}
	s->dev_bytes = gp->be->device_bytes(gp->state);
	if (run_try(b, gp->be, gp->state, &bg->f, WB_SWEEP_ITERS,
		    WEST_INDEXING_COMPACT, &warm, err, sizeof err)) {
		snprintf(why, len, "warm-up run at nx = %zu: %s", s->nx, err);
		return 1;
	}
	gpu_mem(&free1, &total);
	s->held_bytes = s->free0 > free1 ? s->free0 - free1 : 0;
	for (int k = 0; k < b->o.reps; k++)
		t[k] = run_once(b, gp->be, gp->state, &bg->f, WB_SWEEP_ITERS,
				WEST_INDEXING_COMPACT);
	s->gpu_s = median(t, b->o.reps);
	return 0;
}

/* One sweep point; 1 with why set when the sweep must stop. */
static int sweep_point(struct bench *b, size_t nx, struct sweep_res *s,
		       char *why, size_t len)
{
	static const long count[1] = { WB_SWEEP_ITERS };
	struct bgrid bg;
	struct cpu_run cr;
	char err[WEST_ERRLEN];
	int stop = 0;

	*s = (struct sweep_res){ .nx = nx, .gpu_s = NAN, .upload_s = NAN };
	progress(b, "sweep: %zux%zux%d", nx, nx, WB_NZ);
	if (bgrid_init(&bg, nx, err, sizeof err)) {
		snprintf(why, len, "grid at nx = %zu: %s", nx, err);
		return 1;
	}
	s->cells = west_grid_ncells(&bg.g), s->dx = bg.g.dx;
	s->host_bytes = west_grid_bytes(&bg.g);
	if (b->gpu.run_ok)
		stop = sweep_gpu(b, &bg, s, why, len);
	if (!stop) {
		must(west_backend_cpu.upload_terrain(b->cpu_state, &bg.g, err, sizeof err),
		     "cpu upload_terrain", err);
		cpu_whole(b, &bg, 1, count, 1, b->o.sweep_cpu_target_s, &cr);
		s->cpu_s = cpu_predict(&cr, WB_SWEEP_ITERS), s->cpu_n = cr.n;
		progress(b, "  GPU %s s, CPU %.4f s", num("%.4f", s->gpu_s), s->cpu_s);
	}
	bgrid_free(&bg);
	return stop;
}

/* The sweep; the number of points done, why it stopped early in why. */
static int sweep_run(struct bench *b, struct sweep_res *sw, char *why, size_t len)
{
	int n = 0;

	why[0] = '\0';
	for (int i = 0; i < WB_NSWEEP; i++) {
		if (sweep_nx[i] > b->o.sweep_max) {
			snprintf(why, len, "--sweep-max %zu: nx = %zu and larger not run",
				 b->o.sweep_max, sweep_nx[i]);
			break;
		}
		if (sweep_point(b, sweep_nx[i], &sw[n], why, len))
			break;
		n++;
	}
	return n;
}

/* -------------------------------------------------------------- output */

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown CPU");
	while (f && fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += strspn(colon + 1, " \t") + 1;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	if (f)
		fclose(f);
}

static void command_line(char *buf, size_t len, int argc, char **argv)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int a = 0; a < argc && at < len; a++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", a ? " " : "", argv[a]);
}

static const char *version(int v)
{
	return v ? num("%.1f", (double)(v / 1000) + (double)(v % 1000 / 10) / 10.0) : "n/a";
}

static void print_header(const struct bench *b, int argc, char **argv)
{
	char date[32], cpu[256], cmd[1024];
	time_t now = time(NULL);
	const struct gpu *gp = &b->gpu;

	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	cpu_model(cpu, sizeof cpu);
	command_line(cmd, sizeof cmd, argc, argv);
	printf("## WEST Table 2 (Pinheiro, Schirru, Pereira) reproduced: west-bench\n\n");
	printf("- **Date:** %s (UTC)\n", date);
	printf("- **Command:** `%s`\n", cmd);
	printf("- **CPU:** %s, %d logical processors (omp_get_num_procs)\n", cpu, b->all);
	if (gp->ok)
		printf("- **GPU:** %s\n", gp->desc);
	else
		printf("- **GPU:** n/a (%s)\n", gp->why);
	printf("- **CUDA:** runtime %s, driver %s\n", version(gp->runtime),
	       version(gp->driver));
	printf("- **Compiler:** %s\n", WB_CC __VERSION__);
	printf("- **Model:** 8 km x 8 km, nz %d of %.0f m; %zu stations; omega %.2f, "
	       "eta %.0f, tolerance 0 (every run does all its iterations), "
	       "check_interval %ld (config default), land_use rural\n", WB_NZ, WB_DZ,
	       b->obs.n, WB_OMEGA, WB_ETA, b->so.check_interval);
	if (gp->ok && !gp->run_ok)
		printf("- **Note:** GPU whole runs n/a: %s\n", gp->why);
	fflush(stdout);
}

static void print_grids(const struct bench *b, const struct grid_res *res)
{
	printf("\n### Grids\n\n");
	printf("| grid | nx x ny x nz | dx = dy (m) | cells | land (%%) | build (s) | "
	       "host grid (MB) | u v w tx ty tz (MB) | GPU upload_terrain (s) | "
	       "GPU device_bytes (MB) | CPU iterations run (1 / %d threads) |\n", b->all);
	printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (int g = 0; g < b->o.ngrid; g++) {
		const struct grid_res *r = &res[g];
		printf("| %s | %zux%zux%d | %g | %zu | %.1f | %.3f | %.1f | %.1f | %s | %s | "
		       "%ld / %ld |\n", r->name, r->nx, r->nx, WB_NZ, r->dx, r->cells,
		       100.0 * (double)r->land / (double)r->cells, r->build_s,
		       (double)r->host_bytes / 1e6, (double)r->sweep_bytes / 1e6,
		       num("%.4f", r->upload_s),
		       num("%.1f", isnan(r->upload_s) ? NAN : (double)r->dev_bytes / 1e6),
		       r->cpu[0].n, r->cpu[1].n);
	}
}

static void print_whole_row(const struct grid_res *r, int c, long count)
{
	const double (*w)[WB_NCOUNT] = r->whole;

	printf("| %s | %ld | %s | %s | %s | %s | %s | %s | %s | %s |\n", r->name, count,
	       secs(w[COL_CPU1][c], r->scaled[COL_CPU1][c]),
	       secs(w[COL_CPUALL][c], r->scaled[COL_CPUALL][c]),
	       secs(w[COL_GPUM][c], 0), secs(w[COL_GPUC][c], 0),
	       num("%.2f", ratio(w[COL_CPU1][c], w[COL_GPUM][c])),
	       num("%.2f", ratio(w[COL_CPU1][c], w[COL_GPUC][c])),
	       num("%.2f", ratio(w[COL_GPUM][c], w[COL_GPUC][c])),
	       num("%.2f", ratio(w[COL_CPUALL][c], w[COL_GPUC][c])));
}

static void print_whole(const struct bench *b, const struct grid_res *res)
{
	const struct opts *o = &b->o;

	printf("\n### Whole runs: backend run() wall time (Table 2)\n\n");
	printf("| grid | iterations | CPU 1 core (s) | CPU %d threads (s) | GPU masked (s) | "
	       "GPU compacted (s) | CPU 1 / masked | CPU 1 / compacted | "
	       "masked / compacted | CPU %d threads / compacted |\n", b->all, b->all);
	printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (int g = 0; g < o->ngrid; g++)
		for (int c = 0; c < o->ncount; c++)
			print_whole_row(&res[g], c, o->counts[c]);
	printf("| R64, the paper (i7-2700K 1 core; GTX 680) | 2000 | %.2f | | %.2f | %.2f "
	       "| %.2f | %.2f | %.2f | |\n", PAPER_CPU, PAPER_MASKED, PAPER_COMPACT,
	       PAPER_CPU / PAPER_MASKED, PAPER_CPU / PAPER_COMPACT,
	       PAPER_MASKED / PAPER_COMPACT);
	printf("\nGPU: median of %d runs after one warm-up run per grid and indexing, "
	       "rounds interleaved. * scaled: the CPU ran once per grid with the "
	       "iteration count of the grid table, and T(n) = (total - t8) + t8 / n_cpu "
	       "x n, t8 = report.step_seconds[WEST_STEP_DIVMIN] (with tolerance 0 and a "
	       "check every %ld iterations, step 8's time per iteration does not depend "
	       "on n). Unstarred CPU entries are measured. The paper's row is its Table 2 "
	       "(R64 = 800x800x20 = 12.8 million cells, 2000 iterations).\n", o->reps,
	       b->so.check_interval);
	if (!b->gpu.run_ok)
		printf("GPU n/a: %s.\n", b->gpu.why);
}

static double copy_ref(const struct grid_res *r, int j)
{
	if (j < J_CPU_1)
		return r->copy_gbs[0];
	if (j == J_CPU_1)
		return r->copy_gbs[1];
	return fmax(r->copy_gbs[1], r->copy_gbs[2]);
}

static void print_divmin_row(const struct bench *b, const struct grid_res *r, int j)
{
	static const char *const proc[NSWEEPJOB] = { "GPU", "GPU", "CPU 1 thread", "CPU all" };
	double gbs = r->rate[j] * WB_BYTES_PER_SWEEP / 1e9;
	int gpu = j < J_CPU_1;

	printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r->name,
	       j == J_CPU_ALL ? num("CPU %.0f threads", b->all) : proc[j],
	       j == J_GPU_M ? "masked" : "compacted",
	       r->iters[j] ? num("%.0f", (double)r->iters[j]) : "n/a",
	       num("%.2f", 1e3 * r->rep_s[j]), num("%.4f", r->rate[j] / 1e9),
	       num("%.1f", gbs), num("%.1f", copy_ref(r, j)),
	       num("%.2f", gbs / copy_ref(r, j)),
	       gpu ? num("%.2f", gbs / b->gpu.peak_gbs) : "",
	       j == J_GPU_C ? num("%.2f", ratio(r->rate[J_GPU_C], r->rate[J_GPU_M])) : "",
	       num("%.1f", ratio(r->rate[j], r->rate[J_CPU_1])));
}

static void print_divmin(const struct bench *b, const struct grid_res *res)
{
	printf("\n### Divergence minimization alone (step 8 kernel, red-black iterations)\n\n");
	printf("| grid | processor | indexing | iterations per rep | rep (ms, median) | "
	       "Gcell-sweeps/s | GB/s (x %.0f B) | copy (GB/s) | of copy | of peak | "
	       "compacted / masked | / CPU 1 thread |\n", WB_BYTES_PER_SWEEP);
	printf("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (int g = 0; g < b->o.ngrid; g++)
		for (int j = 0; j < NSWEEPJOB; j++)
			print_divmin_row(b, &res[g], j);
	printf("\nMedians of %d interleaved rounds of >= %.0f ms repetitions. copy: GPU "
	       "cudaMemcpyAsync device to device of 1 GiB; host memcpy on 1 thread, on all "
	       "threads the faster of memcpy and an OpenMP loop, over %zu MiB; GB/s = 2 x "
	       "bytes / s. GPU theoretical peak: %s GB/s (2 x memory clock x bus width). "
	       "72 B per cell-sweep: each colour pass reads and writes every u, v, w face "
	       "and reads every TX, TY, TZ once (36 B per cell per pass). GPU L2 cache: "
	       "%s MB; a grid whose u v w tx ty tz (grid table) fit in it streams from "
	       "the L2, not from DRAM, and may pass the copy bandwidth.\n",
	       2 * b->o.reps - 1, 1e3 * b->o.min_rep_s,
	       b->hc.count * sizeof(float) >> 20, num("%.0f", b->gpu.peak_gbs),
	       num("%.0f", b->gpu.l2_bytes ? b->gpu.l2_bytes / 1e6 : NAN));
	if (!b->gpu.ok)
		printf("GPU n/a: %s.\n", b->gpu.why);
}

static double overhead(double check, double iter, int k)
{
	return 100.0 * check / ((double)k * iter + check);
}

static void print_norms_row(const struct grid_res *r, const char *proc,
			    double check, double rate)
{
	static const int ks[5] = { 1, 5, 10, 20, 50 };
	double iter = (double)r->cells / rate;

	printf("| %s | %s | %s | %s | %s |", r->name, proc, num("%.3f", 1e3 * check),
	       num("%.3f", 1e3 * iter), num("%.2f", check / iter));
	for (int i = 0; i < 5; i++)
		printf(" %s |", num("%.1f", overhead(check, iter, ks[i])));
	/* c / (K t + c) <= f  <=>  K >= (1 / f - 1) c / t */
	printf(" %s | %s |\n", num("%.0f", ceil(19.0 * check / iter)),
	       num("%.0f", ceil(99.0 * check / iter)));
}

static void print_norms(const struct bench *b, const struct grid_res *res)
{
	const struct opts *o = &b->o;

	printf("\n### Convergence check cost (divergence norms against a compacted "
	       "iteration)\n\n");
	printf("| grid | processor | check (ms) | iteration (ms) | check / iteration | "
	       "overhead K=1 (%%) | K=5 (%%) | K=10 (%%) | K=20 (%%) | K=50 (%%) | "
	       "K for <= 5 %% | K for <= 1 %% |\n");
	printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (int g = o->ngrid >= 2 ? o->ngrid - 2 : 0; g < o->ngrid; g++) {
		print_norms_row(&res[g], "GPU", res[g].norm_s[0], res[g].rate[J_GPU_C]);
		print_norms_row(&res[g], num("CPU %.0f threads", b->all), res[g].norm_s[1],
				res[g].rate[J_CPU_ALL]);
	}
	printf("\ncheck: median of %d calls (west_divergence_norms_cuda from an idle "
	       "device, it returns max|D| and sum D^2 to the host; the CPU reference on "
	       "all threads); iteration: section 3. Overhead of a check every K "
	       "iterations = check / (K x iteration + check); \"K for <= f\" is the "
	       "smallest check interval whose overhead is at most f. The default "
	       "check_interval is %ld.\n", WB_NORM_CALLS, b->so.check_interval);
}

/* The count of section 5: the largest <= 1000, else the smallest. */
static int share_count(const struct opts *o)
{
	int c = 0;
	for (int i = 0; i < o->ncount; i++)
		if (o->counts[i] <= 1000)
			c = i;
	return c;
}

static void print_share_row(const char *name, double g, double wall, double cpu,
			    int scaled)
{
	printf("| %s | %s | %s | %s |\n", name, num("%.4f", g),
	       num("%.1f", 100.0 * g / wall), secs(cpu, scaled));
}

/* Steps 4 and 7 run with the terrain, not in run(). */
static int step_in_run(int s)
{
	return s != WEST_STEP_LAND && s != WEST_STEP_TRANSPARENCY;
}

/* Sum of the step times of run(), step 8 taken as t8. */
static double steps_sum(const double *ss, double t8)
{
	double sum = t8;
	for (int s = 0; s < WEST_NSTEPS; s++)
		if (step_in_run(s) && s != WEST_STEP_DIVMIN)
			sum += ss[s];
	return sum;
}

static void print_share(const struct bench *b, const struct grid_res *res)
{
	const struct grid_res *r = &res[b->o.ngrid - 1];
	int c = share_count(&b->o), ok = b->gpu.run_ok;
	long n = b->o.counts[c];
	const struct cpu_run *cr = &r->cpu[1];
	const double *gs = r->gpu_rep[c].step_seconds, *cs = cr->rep.step_seconds;
	double wall = r->whole[COL_GPUC][c], cwall = cpu_predict(cr, n);
	double cdiv = cr->divmin / (double)cr->n * (double)n;
	int sc = n != cr->n;                   /* the CPU column is scaled */
	double gsum = ok ? steps_sum(gs, gs[WEST_STEP_DIVMIN]) : NAN;

	printf("\n### Where a run spends its time (%s, %ld iterations)\n\n", r->name, n);
	printf("| step | GPU compacted (s) | share of run() (%%) | CPU %d threads (s) |\n", b->all);
	printf("| --- | ---: | ---: | ---: |\n");
	for (int s = 0; s < WEST_NSTEPS; s++)
		if (step_in_run(s))
			print_share_row(west_step_name(s), ok ? gs[s] : NAN, wall,
					s == WEST_STEP_DIVMIN ? cdiv : cs[s],
					s == WEST_STEP_DIVMIN && sc);
	print_share_row("sum of the steps", gsum, wall, steps_sum(cs, cdiv), sc);
	print_share_row("rest of run() (stations up, field down)", wall - gsum, wall,
			cwall - steps_sum(cs, cdiv), 0);
	print_share_row("**run() wall time**", wall, wall, cwall, sc);
	printf("\n**Non-solver share** of run(): the steps other than 8 (1-3, 5, 6, 9): "
	       "GPU %s %%, CPU %s %%; everything but step 8, transfers included "
	       "((wall - step 8) / wall): GPU %s %%, CPU %s %%.\n",
	       num("%.1f", 100.0 * (gsum - gs[WEST_STEP_DIVMIN]) / wall),
	       num("%.1f", 100.0 * (steps_sum(cs, cdiv) - cdiv) / cwall),
	       num("%.1f", 100.0 * (wall - gs[WEST_STEP_DIVMIN]) / wall),
	       num("%.1f", 100.0 * (cwall - cdiv) / cwall));
	printf("Done with the terrain, not in run(): %s %s s (GPU report) / %.4f s (CPU), "
	       "%s %s s / %.4f s. report.total_seconds: GPU %s s, CPU %.4f s (its own "
	       "run).\n", west_step_name(WEST_STEP_LAND),
	       num("%.4f", ok ? gs[WEST_STEP_LAND] : NAN), cs[WEST_STEP_LAND],
	       west_step_name(WEST_STEP_TRANSPARENCY),
	       num("%.4f", ok ? gs[WEST_STEP_TRANSPARENCY] : NAN),
	       cs[WEST_STEP_TRANSPARENCY],
	       num("%.4f", ok ? r->gpu_rep[c].total_seconds : NAN), cr->rep.total_seconds);
	printf("GPU: the median of the %d compacted runs; CPU: the run of the grid table "
	       "(%ld iterations), step 8 scaled to %ld (*).\n", b->o.reps, cr->n, n);
}

static void print_sweep_row(const struct sweep_res *s)
{
	double dev = isnan(s->gpu_s) ? NAN : (double)s->dev_bytes;
	double held = isnan(s->gpu_s) ? NAN : (double)s->held_bytes;

	printf("| %zu | %zu | %g | %s | %s | %s | %s | %s | %s | %s | %.1f | %.1f |\n",
	       s->nx, s->cells, s->dx, num("%.4g", s->gpu_s),
	       secs(s->cpu_s, s->cpu_n != WB_SWEEP_ITERS),
	       num("%.2f", ratio(s->cpu_s, s->gpu_s)), num("%.4f", s->upload_s),
	       num("%.1f", dev / 1e6), num("%.1f", dev / (double)s->cells),
	       num("%.1f", held / (double)s->cells), (double)s->host_bytes / 1e6,
	       (double)s->host_bytes / (double)s->cells);
}

/* The smallest nx from which the GPU is faster at every larger size; 0: none. */
static size_t sweep_crossover(const struct sweep_res *sw, int n)
{
	size_t nx = 0;
	for (int i = n - 1; i >= 0 && sw[i].gpu_s < sw[i].cpu_s; i--)
		nx = sw[i].nx;
	return nx;
}

/* The largest grid that fits, at the bytes per cell of the largest run. */
static void print_fit(const struct sweep_res *s)
{
	double need = fmax((double)s->held_bytes, (double)s->dev_bytes);
	double bpc = need / (double)s->cells, cells = (double)s->free0 / bpc;

	printf("Largest grid that fits: %.3g cells (nx = ny = %.0f at nz = %d), from "
	       "%.1f GiB free of %.1f GiB (cudaMemGetInfo before the upload at nx = %zu) "
	       "at %.1f B per cell, the larger of device_bytes() and the device memory "
	       "the upload and a run left held (memory a run allocates and frees again "
	       "is not seen).\n", cells, floor(sqrt(cells / WB_NZ)), WB_NZ,
	       (double)s->free0 / 1073741824.0, (double)s->total / 1073741824.0, s->nx,
	       bpc);
}

static void print_sweep(const struct bench *b, const struct sweep_res *sw, int n,
			const char *why)
{
	size_t cross = sweep_crossover(sw, n);

	printf("\n### Size sweep (nz = %d, dx = %.0f m / nx, %d iterations)\n\n", WB_NZ,
	       WB_L, WB_SWEEP_ITERS);
	printf("| nx = ny | cells | dx (m) | GPU compacted (s) | CPU %d threads (s) | "
	       "GPU speed-up | GPU upload (s) | device_bytes (MB) | device B/cell | "
	       "held after a run (B/cell) | host grid (MB) | host B/cell |\n", b->all);
	printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (int i = 0; i < n; i++)
		print_sweep_row(&sw[i]);
	printf("\nGPU: median of %d runs after a warm-up, a fresh backend state per size. "
	       "* CPU scaled from a shorter run as in the whole-run table.\n", b->o.reps);
	if (why[0])
		printf("Sweep stopped: %s.\n", why);
	if (!b->gpu.run_ok)
		printf("GPU n/a: %s.\n", b->gpu.why);
	else if (cross)
		printf("The GPU is faster from nx = %zu (%zu cells) on.\n", cross,
		       cross * cross * WB_NZ);
	else
		printf("The GPU is not faster than the CPU at the largest size run.\n");
	if (b->gpu.run_ok && n > 0)
		print_fit(&sw[n - 1]);
}

/* ----------------------------------------------------------------- main */

static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (!*s || *end || v == 0)
		return -1;
	*out = (size_t)v;
	return 0;
}

static void opts_set(struct opts *o)
{
	o->ngrid = o->quick ? 2 : WB_NGRID;
	o->ncount = o->quick ? 2 : WB_NCOUNT;
	for (int c = 0; c < o->ncount; c++)
		o->counts[c] = o->quick ? 50 * (c + 1) : full_counts[c];
	o->cpu_target_s = o->quick ? 0.1 : 1.5;
	o->sweep_cpu_target_s = o->quick ? 0.1 : 1.0;
	o->min_rep_s = o->quick ? 0.02 : 0.05;
	if (o->quick && !o->sweep_max)
		o->sweep_max = 100;
	if (!o->sweep_max)
		o->sweep_max = sweep_nx[WB_NSWEEP - 1];
}

static int parse_args(struct opts *o, int argc, char **argv)
{
	*o = (struct opts){ .sweep = 1, .reps = 3 };
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--quick"))
			o->quick = 1;
		else if (!strcmp(argv[a], "--no-sweep"))
			o->sweep = 0;
		else if (!strcmp(argv[a], "--sweep-max") && a + 1 < argc &&
			 !parse_size(argv[a + 1], &o->sweep_max))
			a++;
		else if (!strcmp(argv[a], "--reps") && a + 1 < argc &&
			 (o->reps = atoi(argv[a + 1])) >= 1 && o->reps <= 10)
			a++;
		else {
			fprintf(stderr, "usage: %s [--quick] [--no-sweep] [--sweep-max NX] "
				"[--reps N (1..10)]\n", argv[0]);
			return -1;
		}
	}
	opts_set(o);
	return 0;
}

static void bench_open(struct bench *b)
{
	struct west_config *c = xmalloc(sizeof *c);
	char err[WEST_ERRLEN];

	b->t0 = now_s();
	b->all = omp_get_num_procs();
	omp_set_num_threads(b->all);
	west_log_init("west-bench");
	west_config_defaults(c);
	west_solve_opts_from_config(&b->so, c);
	free(c);
	b->so.tolerance = 0.0, b->so.omega = WB_OMEGA, b->so.eta = WB_ETA;
	b->so.land_use = WEST_LAND_RURAL;
	bench_obs_init(&b->obs);
	if (!b->obs.obs)
		die("stations", "out of memory");
	must(west_backend_cpu.init(&b->cpu_state, err, sizeof err), "cpu backend init", err);
	progress(b, "probing CUDA");
	gpu_open(&b->gpu);
	host_copy_init(&b->hc);
}

static void bench_close(struct bench *b)
{
	west_backend_cpu.free(b->cpu_state);
	if (b->gpu.ok) {
		gpu_close(&b->gpu);
		b->gpu.be->free(b->gpu.state);
	}
	host_copy_free(&b->hc);
	west_obs_set_free(&b->obs);
}

int main(int argc, char **argv)
{
	static struct bench b;
	static struct grid_res res[WB_NGRID];
	static struct sweep_res sw[WB_NSWEEP];
	char why[2 * WEST_ERRLEN];   /* a prefix and a backend message */
	double t_grids, t_sweep = 0.0;
	int nsw = 0;

	if (parse_args(&b.o, argc, argv))
		return 2;
	bench_open(&b);
	print_header(&b, argc, argv);
	for (int g = 0; g < b.o.ngrid; g++)
		grid_measure(&b, g, &res[g]);
	print_grids(&b, res);
	print_whole(&b, res);
	print_divmin(&b, res);
	print_norms(&b, res);
	print_share(&b, res);
	fflush(stdout);
	t_grids = now_s() - b.t0;
	if (b.o.sweep) {
		host_copy_free(&b.hc);
		if (b.gpu.ok)
			gpu_close(&b.gpu);   /* the sweep's memory, and its fresh states */
		nsw = sweep_run(&b, sw, why, sizeof why);
		print_sweep(&b, sw, nsw, why);
		t_sweep = now_s() - b.t0 - t_grids;
	}
	if (b.short_runs)
		printf("\n**Warning:** %d runs did fewer iterations than asked (stderr).\n",
		       b.short_runs);
	printf("\nWall time: %.1f s (grids, sections 1-5: %.1f s; size sweep: %.1f s).\n",
	       now_s() - b.t0, t_grids, t_sweep);
	progress(&b, "done");
	bench_close(&b);
	return 0;
}
