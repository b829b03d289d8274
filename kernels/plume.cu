/*
 * plume.cu: the release plumes' kernel on the GPU, one thread per
 * particle; must match kernels/plume.c (west_plume_advance_cpu): both run
 * west_plume_particle (plume_util.h), in double, so a particle takes the
 * same steps and positions up to the last bits of the libraries' log,
 * sin, cos, exp, expm1, pow and cbrt.  conc and arrival are integer
 * atomics (the order of the additions varies from run to run, the sums do
 * not); the centroid's sums are added within each warp by shuffles, then
 * by one atomic per warp.  The launcher does not wait: the driver's
 * download of the sums (or any memory call) does.
 */
#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "plume_util.h"

static __device__ unsigned long long warp_sum(unsigned long long v)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	return v;
}

static __global__ void plume_kernel(struct west_kplume k, struct west_kparticles s,
				    double t_end, int centroid)
{
	size_t p = west_tid1();
	unsigned long long c[4] = { 0, 0, 0, 0 };
	double at[3];

	if (p < k.np && west_plume_particle(&k, &s, p, t_end, at) && centroid) {
		c[0] = west_plume_fix(at[0], WEST_PLUME_POS);
		c[1] = west_plume_fix(at[1], WEST_PLUME_POS);
		c[2] = west_plume_fix(at[2], WEST_PLUME_POS);
		c[3] = 1;
	}
	if (!centroid)
		return;
	for (int i = 0; i < 4; i++) {   /* every thread of the warp is here */
		unsigned long long v = warp_sum(c[i]);
		if ((threadIdx.x & 31) == 0 && v)
			atomicAdd(&s.sums[i], v);
	}
}

extern "C" enum west_status west_plume_advance_cuda(const struct west_kplume *k,
						    const struct west_kparticles *s,
						    double t_end, int centroid)
{
	if (k->np == 0)
		return WEST_OK;
	plume_kernel<<<west_grid1(k->np), WEST_B1>>>(*k, *s, t_end, centroid);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}
