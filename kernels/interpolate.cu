/*
 * interpolate.cu: WEST step 5 on the GPU, one thread per (i, j, kc) of the
 * (nx + 1) x (ny + 1) x ceil(nz / WEST_IDW_LEVELS) index space covering x-
 * and y-faces, each taking the WEST_IDW_LEVELS levels from kc
 * WEST_IDW_LEVELS up (each station's weight computed once for them); must
 * match kernels/interpolate.c (west_interpolate_cpu): both call
 * west_interp_u_at and west_interp_v_at (kernel_util.h); the power law
 * differs by a few ulp (powf there, exp2f and log2f here).
 */
#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "kernel_util.h"

static __global__ void interpolate_kernel(struct west_kgrid g, size_t ns,
					  const struct west_kstation *st,
					  const float *pst, const float *us,
					  const float *vs, float *u, float *v)
{
	size_t i, j, kc, nx = g.nx, ny = g.ny, k0;
	float f[WEST_IDW_LEVELS];
	west_tid3(&i, &j, &kc);
	k0 = kc * WEST_IDW_LEVELS;
	int n = g.nz - k0 < WEST_IDW_LEVELS ? (int)(g.nz - k0) : WEST_IDW_LEVELS;
	if (i <= nx && j < ny) {
		west_interp_u_at(&g, ns, st, pst, us, i, j, k0, n, f);
		for (int m = 0; m < WEST_IDW_LEVELS && m < n; m++)
			u[west_kx(nx, ny, i, j, k0 + (size_t)m)] = f[m];
	}
	if (i < nx && j <= ny) {
		west_interp_v_at(&g, ns, st, pst, vs, i, j, k0, n, f);
		for (int m = 0; m < WEST_IDW_LEVELS && m < n; m++)
			v[west_ky(nx, ny, i, j, k0 + (size_t)m)] = f[m];
	}
}

extern "C" enum west_status west_interpolate_cuda(const struct west_kgrid *g, size_t ns,
						  const struct west_kstation *st,
						  const float *pst, const float *us,
						  const float *vs, float *u, float *v)
{
	size_t nkc = (g->nz + WEST_IDW_LEVELS - 1) / WEST_IDW_LEVELS;
	interpolate_kernel<<<west_grid3(g->nx + 1, g->ny + 1, nkc), west_block3()>>>(
		*g, ns, st, pst, us, vs, u, v);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}
