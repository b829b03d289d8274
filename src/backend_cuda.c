/*
 * backend_cuda.c: the CUDA backend (built with --with-cuda).  The runtime is
 * linked statically, so this code loads on machines without a GPU or driver;
 * probe then reports why CUDA is unusable and auto selection falls back to
 * the CPU.  Device 0 is used; a solve in slabs (config devices, parts.h)
 * may put them on other devices too (cuda_peers, cuda_bind, cuda_join).
 * Under mpirun (ranks.h) each rank uses one GPU of its host, its number
 * among the host's ranks modulo the host's GPUs (CUDA_VISIBLE_DEVICES
 * chooses others), holds its slab there, and moves rows to the other
 * ranks through page-locked host buffers (parts.c).
 *
 * Residency: upload_terrain copies the terrain altitudes and the level
 * arrays, builds the land mask and the transparencies on the device (WEST
 * steps 4 and 7, kernels/land.cu, kernels/transparency.cu, timed for the
 * reports), and allocates the field's faces and the column classes; all of
 * it stays until the next upload or free.  A state planned for slabs
 * (plan: config devices lists two or more, or is auto and this process
 * sees two or more GPUs) makes none of that at upload but builds its slabs
 * (parts.c, west_parts_prepare), which take their rows from the host grid
 * (under mpirun the first solve builds them); each slab's field comes
 * down from its own device, and the whole grid's arrays are made by a
 * one-device solve only if one comes.  With devices = auto a grid too
 * small to cut is held whole on device 0.  Device bytes per cell: u, v, w,
 * TX, TY, TZ (4 B each, a face per cell plus one boundary face per row,
 * column or level) and the land mask (1 B): 25 B, plus 9 B per column
 * (altitude, ground height above the base, class).
 *
 * The potential solvers' hierarchy (multigrid.h) is built on the device
 * (the level shapes on the host, the arrays by the mg_codes and mg_coarse
 * kernels) by the first run that needs it; the field stays on the device
 * while they work on it.
 *
 * run: the stations go up through a pinned buffer (one asynchronous copy),
 * the driver (model.c) runs the step kernels of west_kernels_cuda back to
 * back on the compute thread's stream (cudaStreamPerThread; the .cu files
 * are built with --default-stream per-thread), waiting only to time each
 * step and for each convergence check's two numbers, and the field comes
 * down through two pinned staging buffers (asynchronous copies, the host
 * copy of one chunk, on all OpenMP threads, overlapping the transfer of
 * the next).  The station
 * arrays grow (cudaMalloc) only when a set has more stations than any
 * before; nothing else is allocated per solve.
 *
 * west_kernels_cuda, the table of launchers, also carries device memory
 * (alloc, upload, download, fill, free on the calling thread's stream,
 * each waited for), which tests use instead of CUDA runtime calls;
 * upload_terrain goes up through its upload.
 *
 * Every runtime call is checked.  A state is used by one thread at a time.
 */
#include "backend.h"
#include "parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "kernels.h"
#include "plume.h"
#include "ranks.h"
#include "ranks_nccl.h"

#define STAGE_BYTES ((size_t)8 << 20)   /* each of the two download buffers */
#define MIN_STATIONS 16

struct cuda_state {
	int device;
	char name[256];
	int cc_major, cc_minor, sms;
	size_t total_mem;
	/* the uploaded grid: host grid (for the stations' ground) and device view */
	const struct west_grid *grid;
	struct west_kgrid kg;
	struct {
		float *terrain, *ground, *zc, *rdz, *rdzf, *tx, *ty, *tz, *u, *v, *w;
		double *zcalt;
		unsigned char *land, *cls;
	} d;                          /* device arrays of the uploaded grid */
	size_t bytes;                 /* their bytes */
	int whole;                    /* d is made and filled (else only grid
					 is set: a state planned for slabs) */
	int slabs;                    /* planned for slabs (cuda_plan): */
	struct west_solve_opts popts; /* with these options, its devices among
					 them (the set is built at upload:
					 west_parts_prepare) */
	int slab_auto;                /* planned so by devices = auto (every
					 GPU this process sees, two or more), */
	int auto_on;                  /* and the uploaded grid is in slabs (a
					 grid too small to cut is not) */
	double land_seconds, transparency_seconds;
	struct west_mg mg;            /* the potential solvers' hierarchy on the
				         device (mg.base), or nlevels 0 */
	void *vgraph;                 /* mg's V-cycle recorded (model.h), or NULL */
	int graphs;                   /* record it (WEST_CUDA_GRAPHS is not "0") */
	struct west_parts *parts;     /* the grid in slabs (config devices =
					 cuda:0,cuda:0,...), or NULL */
	/* stations: device st | stab | pexp | pst | us | vs, cap of each;
	 * the first three staged in pinned host memory */
	size_t cap, sta_bytes;
	char *sta_dev, *sta_host;
	/* download staging */
	void *stage[2];
	cudaEvent_t done[2];
	/* a page-locked field's u and v come down on `copy` while step 9
	 * runs, its w and classes while the last norms run (final, model.h):
	 * early_field is the field they go to, early the EARLY_ bits of the
	 * copies in flight */
	cudaStream_t copy;
	cudaEvent_t early_ready;
	struct west_field *early_field;
	unsigned early;
	int uv_early;                 /* WEST_CUDA_EARLY_UV is not "0" */
	int index64;                  /* WEST_CUDA_INDEX64 is "1" */
};

static double now_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Run the smoke kernel on n elements and compare with the CPU reference. */
static enum west_status smoke_check(char *err, size_t errlen)
{
	enum { N = 1027 };
	float x[N], y[N], ref[N];
	float *dx = NULL, *dy = NULL;
	enum west_status st = WEST_ERR_CUDA;

	for (int i = 0; i < N; i++)
		x[i] = (float)i * 0.25f, y[i] = ref[i] = 1.0f - (float)i;
	west_smoke_cpu(N, 3.0f, x, ref);
	if (cudaMalloc((void **)&dx, sizeof x) || cudaMalloc((void **)&dy, sizeof y) ||
	    cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice) ||
	    cudaMemcpy(dy, y, sizeof y, cudaMemcpyHostToDevice) ||
	    west_smoke_cuda(N, 3.0f, dx, dy) ||
	    cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost)) {
		west_fail(err, errlen, st, "smoke kernel failed: %s",
			  cudaGetErrorString(cudaGetLastError()));
		goto out;
	}
	for (int i = 0; i < N; i++)
		if (y[i] != ref[i]) {
			west_fail(err, errlen, st,
				  "smoke kernel gave %g at element %d, the CPU %g",
				  y[i], i, ref[i]);
			goto out;
		}
	st = WEST_OK;
out:
	cudaFree(dx);
	cudaFree(dy);
	return st;
}

/* Why cudaGetDeviceCount failed, in the words an operator can act on. */
static enum west_status no_device(cudaError_t e, char *err, size_t errlen)
{
	int drv = 0;
	if (cudaDriverGetVersion(&drv) != cudaSuccess || drv == 0)
		return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
				 "no CUDA device: no NVIDIA driver is loaded (%s)",
				 cudaGetErrorString(e));
	return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
			 "no CUDA device: cudaGetDeviceCount: %s (driver for CUDA %d.%d, runtime %d.%d)",
			 cudaGetErrorString(e), drv / 1000, drv % 1000 / 10,
			 CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
}

static enum west_status cuda_probe(char *err, size_t errlen)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess)
		return no_device(e, err, errlen);
	if (n == 0)
		return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
				 "no CUDA device: the driver reports none");
	return smoke_check(err, errlen) ? WEST_ERR_UNSUPPORTED : WEST_OK;
}

/* ------------------------------------------------------------ kernels */

static enum west_status cuda_sync(void)
{
	WEST_CUDA_LOG(cudaStreamSynchronize(cudaStreamPerThread));
	return WEST_OK;
}

/*
 * Device memory, the kernel table's memory operations (model.h): copies
 * and fills on the calling thread's stream (cudaStreamPerThread), waited
 * for, so each is complete and ordered after the kernels queued before it.
 */
static enum west_status cuda_alloc(void **p, size_t bytes, char *err, size_t errlen)
{
	cudaError_t e = cudaMalloc(p, bytes);
	if (e != cudaSuccess) {
		*p = NULL;
		return west_fail(err, errlen, WEST_ERR_CUDA, "%zu bytes of device memory: %s",
				 bytes, cudaGetErrorString(e));
	}
	return WEST_OK;
}

static enum west_status cuda_upload(void *dst, const void *src, size_t bytes, char *err,
				    size_t errlen)
{
	WEST_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice,
				      cudaStreamPerThread), err, errlen);
	WEST_CUDA_TRY(cudaStreamSynchronize(cudaStreamPerThread), err, errlen);
	return WEST_OK;
}

static enum west_status cuda_download(void *dst, const void *src, size_t bytes, char *err,
				      size_t errlen)
{
	WEST_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost,
				      cudaStreamPerThread), err, errlen);
	WEST_CUDA_TRY(cudaStreamSynchronize(cudaStreamPerThread), err, errlen);
	return WEST_OK;
}

static enum west_status cuda_fill(void *dst, int byte, size_t bytes, char *err, size_t errlen)
{
	WEST_CUDA_TRY(cudaMemsetAsync(dst, byte, bytes, cudaStreamPerThread), err, errlen);
	WEST_CUDA_TRY(cudaStreamSynchronize(cudaStreamPerThread), err, errlen);
	return WEST_OK;
}

static cudaStream_t copy_stream(void);

static enum west_status cuda_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
				    size_t width, size_t height, char *err, size_t errlen)
{
	/* cudaMemcpyDefault: the devices of dst and src from their unified
	 * addresses, which may be two GPUs' (cuda_peers); between cuda_post
	 * and cuda_wait on the device's side stream */
	WEST_CUDA_TRY(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height,
					cudaMemcpyDefault, copy_stream()), err, errlen);
	return WEST_OK;
}

/* ------------------------------------------------- several devices */

/* The highest device number a list may name (config.c takes two digits). */
#define MAX_DEVICE 99

static enum west_status cuda_peers(const int *dev, int n, char *err, size_t errlen)
{
	int count;
	WEST_CUDA_TRY(cudaGetDeviceCount(&count), err, errlen);
	for (int i = 0; i < n; i++)
		if (dev[i] < 0 || dev[i] >= count)
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "cuda:%d: no such device (%d visible: cuda:0 to cuda:%d)",
					 dev[i], count, count - 1);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int can = 0;
			cudaError_t e;
			if (dev[i] == dev[j])
				continue;
			WEST_CUDA_TRY(cudaDeviceCanAccessPeer(&can, dev[i], dev[j]), err, errlen);
			if (!can)   /* copies between them go through the host */
				continue;
			WEST_CUDA_TRY(cudaSetDevice(dev[i]), err, errlen);
			e = cudaDeviceEnablePeerAccess(dev[j], 0);
			if (e == cudaErrorPeerAccessAlreadyEnabled)
				cudaGetLastError();   /* not an error: clear it */
			else
				WEST_CUDA_TRY(e, err, errlen);
		}
	return WEST_OK;
}

static enum west_status cuda_bind(int dev)
{
	WEST_CUDA_LOG(cudaSetDevice(dev));
	return WEST_OK;
}

/*
 * The calling thread's streams and events of each device, made on it at
 * first use and kept for the thread's life: the kernels' stream is the
 * per-thread default one; `side` takes the copies between cuda_post and
 * cuda_wait.  join_event marks a device's kernels' stream, side_event its
 * side stream.
 */
static __thread struct {
	cudaEvent_t join_event, side_event;
	cudaStream_t side;
} dev_sync[MAX_DEVICE + 1];
static __thread int on_side;   /* copies on the side streams (cuda_post) */

/* The stream copy2d queues on: the current device's side stream after
 * cuda_post, else the kernels'. */
static cudaStream_t copy_stream(void)
{
	int d;
	if (!on_side || cudaGetDevice(&d) != cudaSuccess)
		return cudaStreamPerThread;
	return dev_sync[d].side;
}

/* Device dev bound, its events and side stream made. */
static enum west_status sync_objects(int dev)
{
	WEST_CUDA_LOG(cudaSetDevice(dev));
	if (!dev_sync[dev].side) {
		WEST_CUDA_LOG(cudaEventCreateWithFlags(&dev_sync[dev].join_event,
						       cudaEventDisableTiming));
		WEST_CUDA_LOG(cudaEventCreateWithFlags(&dev_sync[dev].side_event,
						       cudaEventDisableTiming));
		WEST_CUDA_LOG(cudaStreamCreateWithFlags(&dev_sync[dev].side,
							cudaStreamNonBlocking));
	}
	return WEST_OK;
}

/* Each of the n devices' streams `to` (the side ones, or the kernels')
 * waits for the events recorded on every device's `from` streams (all
 * of them, or all but its own when from and to are the same). */
static enum west_status mark_and_wait(const int *dev, int n, int from_side, int to_side)
{
	for (int i = 0; i < n; i++) {
		enum west_status st = sync_objects(dev[i]);
		if (st)
			return st;
		WEST_CUDA_LOG(cudaEventRecord(from_side ? dev_sync[dev[i]].side_event :
							  dev_sync[dev[i]].join_event,
					      from_side ? dev_sync[dev[i]].side :
							  cudaStreamPerThread));
	}
	for (int i = 0; i < n; i++) {
		cudaStream_t s = to_side ? dev_sync[dev[i]].side : cudaStreamPerThread;
		WEST_CUDA_LOG(cudaSetDevice(dev[i]));
		for (int j = 0; j < n; j++)
			if (j != i || from_side != to_side)
				WEST_CUDA_LOG(cudaStreamWaitEvent(
					s, from_side ? dev_sync[dev[j]].side_event :
						       dev_sync[dev[j]].join_event, 0));
	}
	return WEST_OK;
}

static enum west_status cuda_join(const int *dev, int n)
{
	return n < 2 ? WEST_OK : mark_and_wait(dev, n, 0, 0);
}

static enum west_status cuda_post(const int *dev, int n)
{
	enum west_status st = mark_and_wait(dev, n, 0, 1);
	on_side = !st;
	return st;
}

static enum west_status cuda_wait(const int *dev, int n)
{
	on_side = 0;
	return mark_and_wait(dev, n, 1, 0);
}

/* Checked, unlike the teardown frees below: a test or a caller with a
 * message buffer hears of a device error that surfaces here. */
static enum west_status cuda_release(void *p, char *err, size_t errlen)
{
	WEST_CUDA_TRY(cudaFree(p), err, errlen);
	return WEST_OK;
}

/* CUDA graphs of the calling thread's stream (model.h's recording). */
static enum west_status cuda_graph_begin(void)
{
	WEST_CUDA_LOG(cudaStreamBeginCapture(cudaStreamPerThread,
					     cudaStreamCaptureModeThreadLocal));
	return WEST_OK;
}

static enum west_status cuda_graph_end(void **graph)
{
	cudaGraph_t g = NULL;
	cudaGraphExec_t x = NULL;
	cudaError_t e;

	WEST_CUDA_LOG(cudaStreamEndCapture(cudaStreamPerThread, &g));
	e = graph ? cudaGraphInstantiate(&x, g, 0) : cudaSuccess;
	cudaGraphDestroy(g);
	WEST_CUDA_LOG(e);
	if (graph)
		*graph = x;
	return WEST_OK;
}

static enum west_status cuda_graph_run(void *graph)
{
	WEST_CUDA_LOG(cudaGraphLaunch((cudaGraphExec_t)graph, cudaStreamPerThread));
	return WEST_OK;
}

static void cuda_graph_free(void *graph)
{
	if (graph)
		cudaGraphExecDestroy((cudaGraphExec_t)graph);
}

/* Page-locked host memory for fields (fieldpool.h); NULL when CUDA has
 * none to give (the pool then says the field is out of memory). */
static void *pinned_alloc(size_t bytes)
{
	void *p = NULL;
	cudaError_t e = cudaMallocHost(&p, bytes);
	if (e != cudaSuccess) {
		west_log(WEST_LOG_ERR, "cuda backend: %zu bytes of page-locked memory: %s", bytes,
			 cudaGetErrorString(e));
		return NULL;
	}
	return p;
}

static void pinned_free(void *p)
{
	cudaError_t e = cudaFreeHost(p);
	if (e != cudaSuccess)
		west_log(WEST_LOG_ERR, "cuda backend: cudaFreeHost: %s", cudaGetErrorString(e));
}

const struct west_kernel_ops west_kernels_cuda = {
	.backend = "cuda",
	.stability = west_stability_cuda,
	.extrapolate = west_extrapolate_cuda,
	.initialize = west_initialize_cuda,
	.land = west_land_cuda,
	.interpolate = west_interpolate_cuda,
	.speed_zero = west_speed_zero_cuda,
	.transparency = west_transparency_cuda,
	.sweep = west_divmin_sweep_cuda,
	.norms = west_divergence_norms_cuda,
	.divremoval = west_divremoval_cuda,
	.pot_rhs = west_pot_rhs_cuda,
	.pot_apply = west_pot_apply_cuda,
	.pot_smooth = west_pot_smooth_cuda,
	.pot_smooth0 = west_pot_smooth0_cuda,
	.pot_restrict = west_pot_restrict_cuda,
	.pot_prolong = west_pot_prolong_cuda,
	.pot_coarse = west_pot_coarse_cuda,
	.pot_matvec = west_pot_matvec_cuda,
	.pot_dot = west_pot_dot_cuda,
	.pot_dot_queued = west_pot_dot_queued_cuda,
	.pot_xpby = west_pot_xpby_cuda,
	.pot_axpy = west_pot_axpy_cuda,
	.pot_resid = west_pot_resid_cuda,
	.pot_zero = west_pot_zero_cuda,
	.mg_codes = west_mg_codes_cuda,
	.mg_coarse = west_mg_coarse_cuda,
	.plume_advance = west_plume_advance_cuda,
	.plume_order_bytes = west_plume_order_bytes_cuda,
	.plume_launch_seconds = WEST_PLUME_LAUNCH_GPU,
	.sync = cuda_sync,
	.graph_begin = cuda_graph_begin,
	.graph_end = cuda_graph_end,
	.graph_run = cuda_graph_run,
	.graph_free = cuda_graph_free,
	.alloc = cuda_alloc,
	.upload = cuda_upload,
	.download = cuda_download,
	.fill = cuda_fill,
	.copy2d = cuda_copy2d,
	.free = cuda_release,
	.peers = cuda_peers,
	.bind = cuda_bind,
	.join = cuda_join,
	.post = cuda_post,
	.wait = cuda_wait,
	.host_alloc = pinned_alloc,
	.host_free = pinned_free,
#ifdef WEST_RANKS_NCCL
	.ranks_open = west_ranks_nccl_open,
	.ranks_close = west_ranks_nccl_close,
	.ranks_group = west_ranks_nccl_group,
	.ranks_rows = west_ranks_nccl_rows,
	.ranks_wait = west_ranks_nccl_wait,
#endif
};

/* -------------------------------------------------------------- state */

/* *on = the switch in environment variable name: 0 or 1, dflt when unset
 * or empty.  Returns 0, with an error naming it, for any other value. */
static int env_switch(const char *name, int dflt, int *on, char *err, size_t errlen)
{
	const char *v = getenv(name);
	if (v && v[0] && strcmp(v, "0") && strcmp(v, "1")) {
		west_fail(err, errlen, WEST_ERR_INVALID,
			  "cuda backend: %s=%s: unknown (0 or 1, or unset)", name, v);
		return 0;
	}
	*on = v && v[0] ? v[0] == '1' : dflt;
	return 1;
}

static enum west_status cuda_init(void **state, char *err, size_t errlen)
{
	struct cudaDeviceProp p;
	struct cuda_state *s = calloc(1, sizeof *s);
	if (!s)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "cuda backend: out of memory");
	*state = s;
	if (!env_switch("WEST_CUDA_GRAPHS", 1, &s->graphs, err, errlen) ||
	    !env_switch("WEST_CUDA_EARLY_UV", 1, &s->uv_early, err, errlen) ||
	    !env_switch("WEST_CUDA_INDEX64", 0, &s->index64, err, errlen))
		return WEST_ERR_INVALID;
	west_pot_cuda_wide(s->index64);
	if (west_ranks_count() > 1) {   /* this rank's GPU: see the top */
		int count = 0;
		WEST_CUDA_TRY(cudaGetDeviceCount(&count), err, errlen);
		s->device = count > 0 ? west_ranks_local() % count : 0;
	}
	WEST_CUDA_TRY(cudaSetDevice(s->device), err, errlen);
	WEST_CUDA_TRY(cudaGetDeviceProperties(&p, s->device), err, errlen);
	snprintf(s->name, sizeof s->name, "%s", p.name);
	s->cc_major = p.major, s->cc_minor = p.minor;
	s->sms = p.multiProcessorCount, s->total_mem = p.totalGlobalMem;
	for (int b = 0; b < 2; b++) {
		WEST_CUDA_TRY(cudaMallocHost(&s->stage[b], STAGE_BYTES), err, errlen);
		WEST_CUDA_TRY(cudaEventCreateWithFlags(&s->done[b], cudaEventDisableTiming),
			      err, errlen);
	}
	WEST_CUDA_TRY(cudaStreamCreateWithFlags(&s->copy, cudaStreamNonBlocking), err, errlen);
	WEST_CUDA_TRY(cudaEventCreateWithFlags(&s->early_ready, cudaEventDisableTiming), err,
		      errlen);
	return WEST_OK;
}

/* cudaFree(NULL) and cudaFreeHost(NULL) are no-ops; errors while freeing
 * have no one to report to. */
static void release_stations(struct cuda_state *s)
{
	cudaFree(s->sta_dev), cudaFreeHost(s->sta_host);
	s->sta_dev = s->sta_host = NULL;
	s->cap = s->sta_bytes = 0;
}

/* The hierarchy and its recorded V-cycle. */
static void drop_mg(struct cuda_state *s)
{
	cuda_graph_free(s->vgraph);
	s->vgraph = NULL;
	cudaFree(s->mg.base);
	memset(&s->mg, 0, sizeof s->mg);
}

/* The whole grid's arrays and their hierarchy. */
static void drop_whole(struct cuda_state *s)
{
	void *p[] = { s->d.terrain, s->d.ground, s->d.zc, s->d.rdz, s->d.rdzf, s->d.tx, s->d.ty,
		      s->d.tz, s->d.u, s->d.v, s->d.w, s->d.zcalt, s->d.land, s->d.cls };
	for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
		cudaFree(p[i]);
	memset(&s->d, 0, sizeof s->d);
	drop_mg(s);
	s->bytes = 0;
	s->whole = 0;
}

static void release(struct cuda_state *s)
{
	drop_whole(s);
	west_parts_drop(&s->parts);
	cudaSetDevice(s->device);   /* the set's devices were bound in turn */
	s->grid = NULL;
	s->auto_on = 0;
	release_stations(s);
}

static void cuda_free(void *state)
{
	struct cuda_state *s = state;
	if (!s)
		return;
	release(s);
	for (int b = 0; b < 2; b++) {
		cudaFreeHost(s->stage[b]);
		if (s->done[b])
			cudaEventDestroy(s->done[b]);
	}
	if (s->copy)
		cudaStreamDestroy(s->copy);
	if (s->early_ready)
		cudaEventDestroy(s->early_ready);
	free(s);
}

/* ------------------------------------------------------------ terrain */

/* *(void **)dst = bytes of device memory for `what`, counted in s->bytes. */
static enum west_status dev_alloc(struct cuda_state *s, void *dst, size_t bytes,
				  const char *what, char *err, size_t errlen)
{
	char why[WEST_ERRLEN];
	enum west_status st = cuda_alloc((void **)dst, bytes, why, sizeof why);
	if (st)
		return west_fail(err, errlen, st, "cuda backend: %s: %s", what, why);
	s->bytes += bytes;
	return WEST_OK;
}

static enum west_status alloc_grid(struct cuda_state *s, const struct west_grid *g,
				   char *err, size_t errlen)
{
	size_t cols = g->nx * g->ny, nz = g->nz, f = sizeof(float);
	struct { void *p; size_t bytes; const char *what; } a[] = {
		{ &s->d.terrain, cols * f, "terrain" },
		{ &s->d.ground, cols * f, "terrain" },
		{ &s->d.cls, cols, "classes" },
		{ &s->d.zc, nz * f, "levels" },
		{ &s->d.rdz, nz * f, "levels" },
		{ &s->d.rdzf, (nz + 1) * f, "levels" },
		{ &s->d.zcalt, nz * sizeof(double), "levels" },
		{ &s->d.land, west_grid_ncells(g), "land mask" },
		{ &s->d.tx, west_grid_nxfaces(g) * f, "TX" },
		{ &s->d.ty, west_grid_nyfaces(g) * f, "TY" },
		{ &s->d.tz, west_grid_nzfaces(g) * f, "TZ" },
		{ &s->d.u, west_grid_nxfaces(g) * f, "u" },
		{ &s->d.v, west_grid_nyfaces(g) * f, "v" },
		{ &s->d.w, west_grid_nzfaces(g) * f, "w" },
	};
	enum west_status st = WEST_OK;
	for (size_t i = 0; i < sizeof a / sizeof a[0] && !st; i++)
		st = dev_alloc(s, a[i].p, a[i].bytes, a[i].what, err, errlen);
	return st;
}

/* Terrain, level arrays, and steps 4 and 7 on the device. */
static enum west_status fill_grid(struct cuda_state *s, const struct west_grid *g,
				  char *err, size_t errlen)
{
	struct west_levels l;
	double *zcalt = malloc(g->nz * sizeof *zcalt), t0;
	enum west_status st = west_levels_init(&l, g, err, errlen);

	if (!st && !zcalt)
		st = west_fail(err, errlen, WEST_ERR_NOMEM, "cuda backend: out of memory");
	if (!st) {
		size_t cols = g->nx * g->ny * sizeof(float), lev = g->nz * sizeof(float);
		west_grid_land_altitudes(g, zcalt);
		if ((st = cuda_upload(s->d.terrain, g->terrain, cols, err, errlen)) ||
		    (st = cuda_upload(s->d.zcalt, zcalt, g->nz * sizeof *zcalt, err, errlen)) ||
		    (st = cuda_upload(s->d.ground, l.ground, cols, err, errlen)) ||
		    (st = cuda_upload(s->d.zc, l.zc, lev, err, errlen)) ||
		    (st = cuda_upload(s->d.rdz, l.rdz, lev, err, errlen)) ||
		    (st = cuda_upload(s->d.rdzf, l.rdzf, lev + sizeof(float), err, errlen)))
			goto out;
		t0 = now_seconds();
		if ((st = west_land_cuda(g->nx, g->ny, g->nz, s->d.terrain, s->d.zcalt,
					 s->d.land)) ||
		    (st = cuda_sync())) {
			west_fail(err, errlen, st, "cuda backend: the land kernel failed (the log has the CUDA error)");
			goto out;
		}
		s->land_seconds = now_seconds() - t0;
		t0 = now_seconds();
		struct west_kgrid dk = { .nx = g->nx, .ny = g->ny, .nz = g->nz,
					 .zc = s->d.zc, .rdz = s->d.rdz, .ground = s->d.ground,
					 .land = s->d.land };
		if ((st = west_transparency_cuda(&dk, g->cut, s->d.tx, s->d.ty, s->d.tz)) ||
		    (st = cuda_sync())) {
			west_fail(err, errlen, st, "cuda backend: the transparency kernel failed (the log has the CUDA error)");
			goto out;
		}
		s->transparency_seconds = now_seconds() - t0;
	}
out:
	free(zcalt);
	west_levels_free(&l);
	return st;
}

/* The whole grid's arrays for s->grid, filled: the one-device solve's. */
static enum west_status make_whole(struct cuda_state *s, char *err, size_t errlen)
{
	const struct west_grid *g = s->grid;
	enum west_status st = alloc_grid(s, g, err, errlen);
	if (!st)
		st = fill_grid(s, g, err, errlen);
	if (st) {
		drop_whole(s);
		return st;
	}
	s->kg = (struct west_kgrid){
		.nx = g->nx, .ny = g->ny, .nz = g->nz,
		.dx = (float)g->dx, .dy = (float)g->dy,
		.zc = s->d.zc, .rdz = s->d.rdz, .rdzf = s->d.rdzf, .ground = s->d.ground,
		.land = s->d.land, .tx = s->d.tx, .ty = s->d.ty, .tz = s->d.tz,
	};
	s->whole = 1;
	return WEST_OK;
}

/* devices = auto: a slab on each GPU this process sees (CUDA_VISIBLE_DEVICES
 * chooses them), when it sees two or more that can be used together; else
 * one GPU, as before. */
static enum west_status plan_auto(struct cuda_state *s, const struct west_solve_opts *o,
				  char *err, size_t errlen)
{
	char why[WEST_ERRLEN];
	int count, n;

	WEST_CUDA_TRY(cudaGetDeviceCount(&count), err, errlen);
	n = count < WEST_MAX_PARTS ? count : WEST_MAX_PARTS;
	if (n < 2)
		return WEST_OK;
	if (o->nweights && o->nweights != n)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "weights lists %d numbers, and devices = auto cuts the grid over "
				 "the %d GPUs this process sees: give %d, or auto", o->nweights, n,
				 n);
	for (int d = 0; d < n; d++)
		s->popts.device[d] = d;
	if (cuda_peers(s->popts.device, n, why, sizeof why)) {
		west_log(WEST_LOG_NOTICE, "cuda backend: devices = auto: one GPU, the %d GPUs "
			 "cannot be used together: %s", n, why);
		return WEST_OK;
	}
	s->slabs = s->popts.partitions = n;
	s->slab_auto = 1;
	return WEST_OK;
}

static enum west_status cuda_plan(void *state, const struct west_solve_opts *o, char *err,
				  size_t errlen)
{
	struct cuda_state *s = state;
	s->slabs = o->partitions > 1 ? o->partitions : 0;
	s->slab_auto = 0;
	s->popts = *o;
	if (west_ranks_count() > 1)   /* one slab a rank, each on its rank's GPU (run_parts) */
		return WEST_OK;
	if (o->devices_auto)
		return plan_auto(s, o, err, errlen);
	if (!s->slabs)
		return WEST_OK;
	int gpus[WEST_MAX_PARTS], n = 0;   /* the GPUs listed (cpu entries beside them) */
	for (int p = 0; p < s->slabs; p++)
		if (o->device[p] != WEST_DEVICE_CPU)
			gpus[n++] = o->device[p];
	return cuda_peers(gpus, n, err, errlen);
}

/* A planned state's slabs for s->grid, built now (west_parts_prepare): 0,
 * or the reason they cannot be. */
static enum west_status prepare_slabs(struct cuda_state *s, char *err, size_t errlen)
{
	double t0 = now_seconds();
	enum west_status st = west_parts_prepare(&s->parts, s->grid, &west_kernels_cuda,
						 &s->popts, err, errlen);
	cudaError_t e = cudaSetDevice(s->device);   /* the set's were bound in turn */
	if (!st && e != cudaSuccess)
		st = west_fail(err, errlen, WEST_ERR_CUDA, "cudaSetDevice(%d): %s", s->device,
			       cudaGetErrorString(e));
	if (!st)
		west_log(WEST_LOG_INFO, "cuda backend: the slabs built with the terrain in %.1f ms",
			 1e3 * (now_seconds() - t0));
	return st;
}

static enum west_status cuda_upload_terrain(void *state, const struct west_grid *g,
					    char *err, size_t errlen)
{
	struct cuda_state *s = state;
	enum west_status st;

	release(s);
	if (g->ny > WEST_CUDA_MAX_NY || g->nz > WEST_CUDA_MAX_NZ)
		return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
				 "cuda backend: a grid of %zu x %zu x %zu cells exceeds the kernels' launch shape (ny <= %d, nz <= %d)",
				 g->nx, g->ny, g->nz, WEST_CUDA_MAX_NY, WEST_CUDA_MAX_NZ);
	s->grid = g;
	/* the slabs take their rows from the host grid, now, so that the
	 * first field costs what a steady one does; under mpirun at the
	 * first solve, which every rank makes together */
	if (s->slabs && west_ranks_count() > 1)
		return WEST_OK;
	if (s->slabs) {
		char why[WEST_ERRLEN];
		if (!(st = prepare_slabs(s, why, sizeof why))) {
			s->auto_on = s->slab_auto;
			return WEST_OK;
		}
		if (!s->slab_auto) {
			s->grid = NULL;
			return west_fail(err, errlen, st, "cuda backend: %s", why);
		}
		west_log(WEST_LOG_NOTICE, "cuda backend: devices = auto: this grid on one GPU: %s",
			 why);
	}
	if ((st = make_whole(s, err, errlen)))
		s->grid = NULL;
	return st;
}

/* ----------------------------------------------------------------- run */

/*
 * The hierarchy for o on the device: built there (multigrid.c's
 * west_mg_build_on over this backend's kernels, the host's byte for byte)
 * by the first run that needs it, and again when eta changes.
 */
static enum west_status cuda_hierarchy(struct cuda_state *s, const struct west_solve_opts *o,
				       char *err, size_t errlen)
{
	char why[WEST_ERRLEN];
	enum west_status st;

	if (o->solver == WEST_SOLVER_SOR || (s->mg.nlevels && s->mg.eta == o->eta))
		return WEST_OK;
	s->bytes -= s->mg.bytes;
	drop_mg(s);
	st = west_mg_build_on(&west_kernels_cuda, &s->mg, s->grid, &s->kg, o->eta, why,
			      sizeof why);
	if (st)
		return west_fail(err, errlen, st, "cuda backend: multigrid hierarchy: %s", why);
	s->bytes += s->mg.bytes;
	return WEST_OK;
}

/* Offsets in the station buffers: st, stab, pexp, pst, us, vs, end. */
static void station_layout(size_t cap, size_t off[7])
{
	size_t f = sizeof(float);
	off[0] = 0;
	off[1] = cap * sizeof(struct west_kstation);
	off[2] = off[1] + cap * f;
	off[3] = off[2] + WEST_NSTAB * f;
	off[4] = off[3] + cap * f;
	off[5] = off[4] + cap * f;
	off[6] = off[5] + cap * f;
}

/* Room for ns stations (grows only past the largest set so far). */
static enum west_status reserve_stations(struct cuda_state *s, size_t ns,
					 char *err, size_t errlen)
{
	size_t off[7], cap = s->cap;
	if (ns <= cap)
		return WEST_OK;
	while (cap < ns || cap < MIN_STATIONS)
		cap = cap ? 2 * cap : MIN_STATIONS;
	release_stations(s);
	station_layout(cap, off);
	WEST_CUDA_TRY(cudaMalloc((void **)&s->sta_dev, off[6]), err, errlen);
	WEST_CUDA_TRY(cudaMallocHost((void **)&s->sta_host, off[3]), err, errlen);
	s->cap = cap, s->sta_bytes = off[6];
	return WEST_OK;
}

/* The stations of obs, in kernel form, to the device; wk points at them. */
static enum west_status upload_stations(struct cuda_state *s, const struct west_obs_set *obs,
					const struct west_solve_opts *o,
					struct west_work *wk, char *err, size_t errlen)
{
	size_t off[7], ns = obs->n;
	station_layout(s->cap, off);
	west_model_stations(s->grid, obs, o->land_use, (struct west_kstation *)(s->sta_host + off[0]),
			    (float *)(s->sta_host + off[1]));
	memcpy(s->sta_host + off[2], west_power_exponents(o->land_use),
	       WEST_NSTAB * sizeof(float));
	WEST_CUDA_TRY(cudaMemcpyAsync(s->sta_dev, s->sta_host, off[3],
				      cudaMemcpyHostToDevice, cudaStreamPerThread),
		      err, errlen);
	wk->ns = ns;
	wk->st = (const struct west_kstation *)(s->sta_dev + off[0]);
	wk->stab = (const float *)(s->sta_dev + off[1]);
	wk->pexp = (const float *)(s->sta_dev + off[2]);
	wk->pst = (float *)(s->sta_dev + off[3]);
	wk->us = (float *)(s->sta_dev + off[4]);
	wk->vs = (float *)(s->sta_dev + off[5]);
	return WEST_OK;
}

/*
 * A staged chunk to its place in the field, on all threads: one thread's
 * memcpy (about 8 GB/s measured) is slower than the PCIe transfer of the
 * next chunk, and was 6 % of a whole run at R64 (docs/benchmarks.md).
 */
#define COPY_PART ((size_t)256 << 10)
static void copy_parallel(char *to, const char *from, size_t len)
{
	long parts = (long)((len + COPY_PART - 1) / COPY_PART);
	#pragma omp parallel for schedule(static)
	for (long p = 0; p < parts; p++) {
		size_t off = (size_t)p * COPY_PART;
		memcpy(to + off, from + off, len - off < COPY_PART ? len - off : COPY_PART);
	}
}

/* Host copies of the staged chunk in buffer b, once its transfer is done. */
struct chunk {
	char *to;
	size_t len;
};

static enum west_status drain(struct cuda_state *s, struct chunk *c, int b,
			      char *err, size_t errlen)
{
	if (!c[b].len)
		return WEST_OK;
	WEST_CUDA_TRY(cudaEventSynchronize(s->done[b]), err, errlen);
	copy_parallel(c[b].to, s->stage[b], c[b].len);
	c[b].len = 0;
	return WEST_OK;
}

/* bytes from device src to host dst through the two staging buffers. */
static enum west_status download(struct cuda_state *s, void *dst, const void *src,
				 size_t bytes, char *err, size_t errlen)
{
	struct chunk c[2] = { { NULL, 0 }, { NULL, 0 } };
	enum west_status st = WEST_OK;
	size_t n = 0;

	for (size_t off = 0; off < bytes && !st; off += STAGE_BYTES, n++) {
		int b = (int)(n & 1);
		size_t len = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
		if ((st = drain(s, c, b, err, errlen)))
			break;
		WEST_CUDA_TRY(cudaMemcpyAsync(s->stage[b], (const char *)src + off, len,
					      cudaMemcpyDeviceToHost, cudaStreamPerThread),
			      err, errlen);
		WEST_CUDA_TRY(cudaEventRecord(s->done[b], cudaStreamPerThread), err, errlen);
		c[b] = (struct chunk){ (char *)dst + off, len };
	}
	for (int b = 0; b < 2 && !st; b++)
		st = drain(s, c, (int)((n + (size_t)b) & 1), err, errlen);
	return st;
}

/* The arrays of a page-locked field f: EARLY_UV (u, v), EARLY_W (w and
 * the classes). */
enum { EARLY_UV = 1, EARLY_W = 2 };

struct array {
	void *dst;
	const void *src;
	size_t bytes;
};

static size_t field_arrays(const struct cuda_state *s, struct west_field *f, unsigned which,
			   struct array *a)
{
	const struct west_grid *g = s->grid;
	size_t n = 0;
	if (which & EARLY_W) {
		a[n++] = (struct array){ f->w, s->d.w, west_grid_nzfaces(g) * sizeof(float) };
		a[n++] = (struct array){ f->stability, s->d.cls, g->nx * g->ny };
	}
	if (which & EARLY_UV) {
		a[n++] = (struct array){ f->u, s->d.u, west_grid_nxfaces(g) * sizeof(float) };
		a[n++] = (struct array){ f->v, s->d.v, west_grid_nyfaces(g) * sizeof(float) };
	}
	return n;
}

/* final (model.h) for a page-locked field: u and v once step 8 is done, w
 * and the classes once step 9's kernel is; they come down on the copy
 * stream while the compute stream goes on (step 9, the last norms). */
static enum west_status down_early(void *ctx, int step)
{
	struct cuda_state *s = ctx;
	unsigned which = step == WEST_STEP_DIVMIN ? EARLY_UV : EARLY_W;
	struct array a[4];
	size_t n = field_arrays(s, s->early_field, which, a);

	WEST_CUDA_LOG(cudaEventRecord(s->early_ready, cudaStreamPerThread));
	WEST_CUDA_LOG(cudaStreamWaitEvent(s->copy, s->early_ready, 0));
	s->early |= which;
	for (size_t i = 0; i < n; i++)
		WEST_CUDA_LOG(cudaMemcpyAsync(a[i].dst, a[i].src, a[i].bytes,
					      cudaMemcpyDeviceToHost, s->copy));
	return WEST_OK;
}

/* The copies down_early started, complete (also after a failed run: the
 * field's buffer is not given back while they write into it). */
static enum west_status early_wait(struct cuda_state *s, char *err, size_t errlen)
{
	if (!s->early)
		return WEST_OK;
	s->early = 0;
	WEST_CUDA_TRY(cudaStreamSynchronize(s->copy), err, errlen);
	return WEST_OK;
}

/* The field's arrays from the device: into page-locked memory (a pool's
 * buffer: fieldpool.h) by one asynchronous copy each of those not on
 * their way already (down_early), waited for at once; into other memory
 * through the staging buffers. */
static enum west_status download_field(struct cuda_state *s, struct west_field *f,
				       char *err, size_t errlen)
{
	const struct west_grid *g = s->grid;
	enum west_status st;
	if (f->pinned) {
		struct array a[4];
		size_t n = field_arrays(s, f, (EARLY_UV | EARLY_W) & ~s->early, a);
		for (size_t i = 0; i < n; i++)
			WEST_CUDA_TRY(cudaMemcpyAsync(a[i].dst, a[i].src, a[i].bytes,
						      cudaMemcpyDeviceToHost, cudaStreamPerThread),
				      err, errlen);
		WEST_CUDA_TRY(cudaStreamSynchronize(cudaStreamPerThread), err, errlen);
		return early_wait(s, err, errlen);
	}
	if ((st = download(s, f->u, s->d.u, west_grid_nxfaces(g) * sizeof(float), err, errlen)) ||
	    (st = download(s, f->v, s->d.v, west_grid_nyfaces(g) * sizeof(float), err, errlen)) ||
	    (st = download(s, f->w, s->d.w, west_grid_nzfaces(g) * sizeof(float), err, errlen)))
		return st;
	return download(s, f->stability, s->d.cls, g->nx * g->ny, err, errlen);
}

/* The solve in o->partitions slabs of the grid on the GPUs o->device
 * names (parts.h), the slabs exchanging their rows by device copies (peer
 * copies between GPUs); each slab's rows of the field come down into f
 * (one strided copy per array and slab: page-locked memory from a field
 * pool takes them at full speed). */
static enum west_status run_parts(struct cuda_state *s, const struct west_obs_set *obs,
				  const struct west_solve_opts *o, struct west_field *f,
				  west_progress_fn progress, void *ctx, double t0, char *err,
				  size_t errlen)
{
	struct west_solve_opts ro = *o;
	if (west_ranks_count() > 1)   /* under mpirun: this rank's slab on its GPU */
		for (int p = 0; p < WEST_MAX_PARTS; p++)
			ro.device[p] = s->device;
	enum west_status rc = west_parts_solve(&s->parts, s->grid, &west_kernels_cuda, obs, &ro,
					       f, progress, ctx, err, errlen);
	cudaError_t e = cudaSetDevice(s->device);   /* the set's were bound in turn */
	if (!rc && e != cudaSuccess)
		rc = west_fail(err, errlen, WEST_ERR_CUDA, "cudaSetDevice(%d): %s", s->device,
			       cudaGetErrorString(e));
	if (!rc)
		f->report.total_seconds = now_seconds() - t0;
	return rc;
}

static enum west_status cuda_run(void *state, const struct west_obs_set *obs,
				 const struct west_solve_opts *opts,
				 struct west_field *f, west_progress_fn progress,
				 void *ctx, char *err, size_t errlen)
{
	struct cuda_state *s = state;
	const struct west_grid *g = s->grid;
	double t0 = now_seconds();
	struct west_solve_opts ro = *opts, *o = &ro;
	enum west_status st;

	if (!g || f->nx != g->nx || f->ny != g->ny || f->nz != g->nz)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "cuda backend: no terrain uploaded, or the field is not of its grid");
	if (obs->n == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID, "cuda backend: no observations");
	if (o->partitions > 1)
		return run_parts(s, obs, o, f, progress, ctx, t0, err, errlen);
	if (o->devices_auto && s->auto_on) {   /* planned: every GPU */
		ro.partitions = s->popts.partitions;
		memcpy(ro.device, s->popts.device, sizeof ro.device);
		return run_parts(s, obs, &ro, f, progress, ctx, t0, err, errlen);
	}
	if (!s->whole && (st = make_whole(s, err, errlen)))   /* planned for slabs */
		return st;
	struct west_work wk = {
		.kg = s->kg, .cls = s->d.cls, .u = s->d.u, .v = s->d.v, .w = s->d.w,
		.mg = &s->mg, .vgraph = s->graphs ? &s->vgraph : NULL,
		.final = f->pinned && s->uv_early ? down_early : NULL, .final_ctx = s,
		.land_seconds = s->land_seconds,
		.transparency_seconds = s->transparency_seconds,
	};
	ro.eta = west_model_eta(opts, obs);
	s->early_field = f;
	if ((st = cuda_hierarchy(s, o, err, errlen)) ||
	    (st = reserve_stations(s, obs->n, err, errlen)) ||
	    (st = upload_stations(s, obs, o, &wk, err, errlen)) ||
	    (st = west_model_solve(&west_kernels_cuda, &wk, g, o, west_obs_max_speed(obs),
				   &f->report, progress, ctx, err, errlen)) ||
	    (st = download_field(s, f, err, errlen))) {
		char ignore[WEST_ERRLEN];
		early_wait(s, ignore, sizeof ignore);
		return st;
	}
	f->valid_time = obs->valid_time;
	memcpy(f->power_exponent, west_power_exponents(o->land_use), sizeof f->power_exponent);
	f->report.total_seconds = now_seconds() - t0;
	return WEST_OK;
}

static void cuda_describe(void *state, char *buf, size_t len)
{
	struct cuda_state *s = state;
	int n = snprintf(buf, len, "CUDA device %d: %s (sm_%d%d, %d SMs, %.1f GiB)%s%s%s",
			 s->device, s->name, s->cc_major, s->cc_minor, s->sms,
			 (double)s->total_mem / 1073741824.0, s->graphs ? "" : ", no graphs",
			 s->uv_early ? "" : ", the field after the run",
			 s->index64 ? ", 64-bit indices" : "");
	if (west_ranks_count() > 1 && n > 0 && (size_t)n < len) {
		snprintf(buf + n, len - (size_t)n, "; a slab on each of %d MPI ranks' GPUs "
			 "(rank %d's on this device)", west_ranks_count(), west_ranks_me());
		return;
	}
	for (int p = 0; p < s->slabs && n > 0 && (size_t)n < len; p++)   /* planned */
		n += s->popts.device[p] == WEST_DEVICE_CPU ?
			     snprintf(buf + n, len - (size_t)n, "%scpu", p ? "," : "; slabs on ") :
			     snprintf(buf + n, len - (size_t)n, "%scuda:%d", p ? "," : "; slabs on ",
				      s->popts.device[p]);
	if (s->slab_auto && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " (devices = auto)");
}

static size_t cuda_device_bytes(void *state)
{
	struct cuda_state *s = state;
	/* the slabs' on the GPUs (not a CPU slab's beside them) */
	return s->bytes + s->sta_bytes +
	       (s->parts ? west_parts_bytes(s->parts, WEST_PARTS_ALL) -
				   west_parts_bytes(s->parts, WEST_DEVICE_CPU) : 0);
}

static const struct west_host_alloc pinned = { pinned_alloc, pinned_free, 1 };

const struct west_backend west_backend_cuda = {
	.name = "cuda",
	.probe = cuda_probe,
	.init = cuda_init,
	.free = cuda_free,
	.plan = cuda_plan,
	.upload_terrain = cuda_upload_terrain,
	.run = cuda_run,
	.describe = cuda_describe,
	.device_bytes = cuda_device_bytes,
	.kernels = &west_kernels_cuda,
	.host = &pinned,
};
