/*
 * smoke.cu: the smoke kernel on the GPU; must match kernels/smoke.c
 * (west_smoke_cpu) bit for bit: both use one fused multiply-add.
 * Grid-stride loop, so any n fits one launch of at most 65535 blocks.
 */
#include "cuda_check.h"
#include "kernels.h"

static __global__ void smoke_kernel(size_t n, float a, const float *__restrict__ x,
				    float *__restrict__ y)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		y[i] = fmaf(a, x[i], y[i]);
}

extern "C" enum west_status west_smoke_cuda(size_t n, float a, const float *x, float *y)
{
	const unsigned threads = 256;
	size_t blocks = (n + threads - 1) / threads;
	if (n == 0)
		return WEST_OK;
	smoke_kernel<<<blocks < 65535 ? (unsigned)blocks : 65535u, threads>>>(n, a, x, y);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}
