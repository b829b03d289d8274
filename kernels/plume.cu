/*
 * plume.cu: the release plumes' kernel on the GPU, one thread per
 * particle; must match kernels/plume.c (west_plume_advance_cpu): both run
 * west_plume_particle (plume_util.h), in double, so a particle takes the
 * same steps and positions up to the last bits of the libraries' log,
 * sin, cos, exp, expm1, pow and cbrt.  conc and arrival are integer
 * atomics (the order of the additions varies from run to run, the sums do
 * not); the centroid's sums are added within each warp by shuffles, then
 * by one atomic per warp.  With the order buffers (kernels.h, struct
 * west_kparticles) the launch then sorts the particles by the steps they
 * took, for the next.  The launcher does not wait: the driver's download
 * of the sums (or any memory call) does.
 */
#include <cub/device/device_radix_sort.cuh>

#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "plume_util.h"

/* The sort key: the steps a particle took, in steps of 2^(1/8) (order_key):
 * 0 to 128.  A million particles over an hour on an H200, class E and F:
 * ORDER_SUB 0 (the bit length alone, until 2026-12-03) 1.11 and 0.94 s,
 * 2 1.00 and 0.84, 3 0.99 and 0.83 (docs/benchmarks.md). */
#define ORDER_SUB 3
#define ORDER_BITS (5 + ORDER_SUB)

static __device__ unsigned long long warp_sum(unsigned long long v)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	return v;
}

/* The key a particle sorts by: 0 for no step, else 1 + the floor of
 * log2 of the steps it took (65535 at most) in units of 2^-ORDER_SUB, the
 * ORDER_SUB bits below the leading one giving the fraction, so that a
 * warp's steps are within a factor of 2^(1/2^ORDER_SUB) (a factor of two
 * for the bit length alone: a warp takes as long as its slowest
 * particle). */
static __device__ unsigned char order_key(unsigned steps)
{
	unsigned s = steps < 65535u ? steps : 65535u, b, frac;

	if (s == 0)
		return 0;
	b = 31u - (unsigned)__clz((int)s);
	frac = b >= ORDER_SUB ? s >> (b - ORDER_SUB) : s << (ORDER_SUB - b);
	return (unsigned char)(1u + (b << ORDER_SUB) + (frac & ((1u << ORDER_SUB) - 1u)));
}

/* At most 128 registers, two blocks an SM: the body alone takes about 180,
 * one block an SM, and runs a million particles (tests/validation/
 * plume_gaussian.c) 1.5 times slower; three or four blocks spill and gain
 * nothing (docs/benchmarks.md). */
static __global__ void __launch_bounds__(WEST_B1, 2)
plume_kernel(struct west_kplume k, struct west_kparticles s, double t_end, double t_cut,
	     int centroid)
{
	size_t t = west_tid1();
	unsigned long long c[4] = { 0, 0, 0, 0 };
	double at[3];

	if (t < k.np) {
		size_t p = s.ordered ? s.order[t] : t;
		unsigned before = s.state[p] == 1 ? s.n[p] : 0;

		if (west_plume_particle(&k, &s, p, t_end, t_cut, centroid, at)) {
			c[0] = west_plume_fix(at[0], WEST_PLUME_POS);
			c[1] = west_plume_fix(at[1], WEST_PLUME_POS);
			c[2] = west_plume_fix(at[2], WEST_PLUME_POS);
			c[3] = 1;
		}
		if (s.steps) {
			s.steps[p] = order_key(s.state[p] ? s.n[p] - before : 0);
			if (!s.ordered)   /* the first launch writes ids once */
				s.ids[p] = (unsigned)p;
		}
	}
	if (!centroid)
		return;
	for (int i = 0; i < 4; i++) {   /* every thread of the warp is here */
		unsigned long long v = warp_sum(c[i]);
		if ((threadIdx.x & 31) == 0 && v)
			atomicAdd(&s.sums[i], v);
	}
}

extern "C" size_t west_plume_order_bytes_cuda(size_t np)
{
	size_t bytes = 0;

	if (np > 0 && cub::DeviceRadixSort::SortPairsDescending(
			      NULL, bytes, (unsigned char *)NULL, (unsigned char *)NULL,
			      (unsigned *)NULL, (unsigned *)NULL, np, 0, ORDER_BITS,
			      cudaStreamPerThread) != cudaSuccess)
		return 0;
	return bytes;
}

extern "C" enum west_status west_plume_advance_cuda(const struct west_kplume *k,
						    const struct west_kparticles *s,
						    double t_end, double t_cut, int centroid)
{
	size_t bytes = s->scratch_bytes;

	if (k->np == 0)
		return WEST_OK;
	plume_kernel<<<west_grid1(k->np), WEST_B1>>>(*k, *s, t_end, t_cut, centroid);
	WEST_CUDA_LOG(cudaGetLastError());
	if (s->steps)
		WEST_CUDA_LOG(cub::DeviceRadixSort::SortPairsDescending(
			s->scratch, bytes, s->steps, s->keys, s->ids, s->order, k->np, 0,
			ORDER_BITS, cudaStreamPerThread));
	return WEST_OK;
}
