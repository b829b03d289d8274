/*
 * backend_cuda.c: the CUDA backend (built with --with-cuda).  The runtime is
 * linked statically, so this code loads on machines without a GPU or driver;
 * probe then reports why CUDA is unusable and auto selection falls back to
 * the CPU.  Device 0 is used.  upload_terrain keeps the grid's terrain, land
 * mask and transparencies in device memory until the next upload or free;
 * per solve only observations go up and the field comes down (WEST issue).
 * Every runtime call is checked.
 */
#include "backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "kernels.h"

struct cuda_state {
	int device;
	char name[256];
	int cc_major, cc_minor, sms;
	size_t total_mem;
	float *terrain, *tx, *ty, *tz;
	unsigned char *land;
	size_t bytes;
};

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

static enum west_status cuda_init(void **state, char *err, size_t errlen)
{
	struct cudaDeviceProp p;
	struct cuda_state *s = calloc(1, sizeof *s);
	if (!s)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "cuda backend: out of memory");
	*state = s;
	WEST_CUDA_TRY(cudaSetDevice(s->device), err, errlen);
	WEST_CUDA_TRY(cudaGetDeviceProperties(&p, s->device), err, errlen);
	snprintf(s->name, sizeof s->name, "%s", p.name);
	s->cc_major = p.major, s->cc_minor = p.minor;
	s->sms = p.multiProcessorCount, s->total_mem = p.totalGlobalMem;
	return WEST_OK;
}

static void release(struct cuda_state *s)
{
	/* cudaFree(NULL) is a no-op; errors here have no one to report to. */
	cudaFree(s->terrain), cudaFree(s->land);
	cudaFree(s->tx), cudaFree(s->ty), cudaFree(s->tz);
	s->terrain = s->tx = s->ty = s->tz = NULL;
	s->land = NULL;
	s->bytes = 0;
}

static void cuda_free(void *state)
{
	if (state)
		release(state);
	free(state);
}

static enum west_status upload(struct cuda_state *s, void **dst, const void *src,
			       size_t bytes, char *err, size_t errlen)
{
	WEST_CUDA_TRY(cudaMalloc(dst, bytes), err, errlen);
	s->bytes += bytes;
	WEST_CUDA_TRY(cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice), err, errlen);
	return WEST_OK;
}

static enum west_status cuda_upload_terrain(void *state, const struct west_grid *g,
					    char *err, size_t errlen)
{
	struct cuda_state *s = state;
	enum west_status st;

	release(s);
	st = upload(s, (void **)&s->terrain, g->terrain, g->nx * g->ny * sizeof(float), err, errlen);
	if (!st)
		st = upload(s, (void **)&s->land, g->land, west_grid_ncells(g), err, errlen);
	if (!st)
		st = upload(s, (void **)&s->tx, g->tx, west_grid_nxfaces(g) * sizeof(float), err, errlen);
	if (!st)
		st = upload(s, (void **)&s->ty, g->ty, west_grid_nyfaces(g) * sizeof(float), err, errlen);
	if (!st)
		st = upload(s, (void **)&s->tz, g->tz, west_grid_nzfaces(g) * sizeof(float), err, errlen);
	if (st)
		release(s);
	return st;
}

static void cuda_describe(void *state, char *buf, size_t len)
{
	struct cuda_state *s = state;
	snprintf(buf, len, "CUDA device %d: %s (sm_%d%d, %d SMs, %.1f GiB)",
		 s->device, s->name, s->cc_major, s->cc_minor, s->sms,
		 (double)s->total_mem / 1073741824.0);
}

static size_t cuda_device_bytes(void *state)
{
	return ((struct cuda_state *)state)->bytes;
}

const struct west_backend west_backend_cuda = {
	.name = "cuda",
	.probe = cuda_probe,
	.init = cuda_init,
	.free = cuda_free,
	.upload_terrain = cuda_upload_terrain,
	.describe = cuda_describe,
	.device_bytes = cuda_device_bytes,
};
