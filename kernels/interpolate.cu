/*
 * interpolate.cu: WEST step 5 on the GPU, one thread per (i, j, k) of the
 * (nx + 1) x (ny + 1) x nz index space covering x- and y-faces; must match
 * kernels/interpolate.c (west_interpolate_cpu): both call west_interp_u_at
 * and west_interp_v_at (kernel_util.h); powf differs by a few ulp.
 */
#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "kernel_util.h"

static __global__ void interpolate_kernel(struct west_kgrid g, size_t ns,
					  const struct west_kstation *st,
					  const float *pst, const float *us,
					  const float *vs, float *u, float *v)
{
	size_t i, j, k, nx = g.nx, ny = g.ny;
	west_tid3(&i, &j, &k);
	if (i <= nx && j < ny)
		u[west_kx(nx, ny, i, j, k)] = west_interp_u_at(&g, ns, st, pst, us, i, j, k);
	if (i < nx && j <= ny)
		v[west_ky(nx, ny, i, j, k)] = west_interp_v_at(&g, ns, st, pst, vs, i, j, k);
}

extern "C" enum west_status west_interpolate_cuda(const struct west_kgrid *g, size_t ns,
						  const struct west_kstation *st,
						  const float *pst, const float *us,
						  const float *vs, float *u, float *v)
{
	interpolate_kernel<<<west_grid3(g->nx + 1, g->ny + 1, g->nz), west_block3()>>>(
		*g, ns, st, pst, us, vs, u, v);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}
