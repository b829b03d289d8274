/*
 * cuda_launch.cuh: the launch shapes the WEST kernels share (.cu only).
 *
 * Element-wise kernels over a 3D index space (cells or faces) use blocks of
 * WEST_BX x WEST_BY threads: one warp along i (coalesced), WEST_BY rows
 * along j, one k per grid z.  Launch limits (grid y and z <= 65535
 * blocks) give WEST_CUDA_MAX_NY and WEST_CUDA_MAX_NZ (kernels.h), which the
 * backend checks at upload.  Per-station and per-column kernels are 1D.
 */
#ifndef WEST_CUDA_LAUNCH_CUH
#define WEST_CUDA_LAUNCH_CUH

#include <stddef.h>

#include "kernels.h"

#define WEST_BX 32
#define WEST_BY 4
#if WEST_CUDA_MAX_NY + 1 > 65535 * WEST_BY
#error "WEST_CUDA_MAX_NY exceeds the launch grid"
#endif
#define WEST_B1 256

/* The grid of blocks covering ni x nj x nk elements. */
static inline dim3 west_grid3(size_t ni, size_t nj, size_t nk)
{
	return dim3((unsigned)((ni + WEST_BX - 1) / WEST_BX),
		    (unsigned)((nj + WEST_BY - 1) / WEST_BY), (unsigned)nk);
}

static inline dim3 west_block3(void)
{
	return dim3(WEST_BX, WEST_BY, 1);
}

/* Blocks of WEST_B1 threads covering n elements. */
static inline unsigned west_grid1(size_t n)
{
	return (unsigned)((n + WEST_B1 - 1) / WEST_B1);
}

/* This thread's (i, j, k) in a west_grid3 launch. */
static __device__ __forceinline__ void west_tid3(size_t *i, size_t *j, size_t *k)
{
	*i = blockIdx.x * (size_t)WEST_BX + threadIdx.x;
	*j = blockIdx.y * (size_t)WEST_BY + threadIdx.y;
	*k = blockIdx.z;
}

/* The same in 32 bits (kernels/potential32.cu). */
static __device__ __forceinline__ void west_tid3(unsigned *i, unsigned *j, unsigned *k)
{
	*i = blockIdx.x * WEST_BX + threadIdx.x;
	*j = blockIdx.y * WEST_BY + threadIdx.y;
	*k = blockIdx.z;
}

/* This thread's index in a west_grid1 launch. */
static __device__ __forceinline__ size_t west_tid1(void)
{
	return blockIdx.x * (size_t)WEST_B1 + threadIdx.x;
}

#endif
