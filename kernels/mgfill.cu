/*
 * mgfill.cu: building the multigrid hierarchy on the GPU (kernels.h,
 * "Building the hierarchy"): must match kernels/mgfill.c byte for byte.
 * A thread per cell (level 0's codes) or per coarse cell (conductances),
 * each running a body of multigrid_util.h.
 */
#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "multigrid_util.h"

static __global__ void codes_k(struct west_kgrid g, struct west_plevel l0)
{
	size_t i, j, k;
	west_tid3(&i, &j, &k);
	if (i < g.nx && j < g.ny)
		((unsigned char *)l0.code)[west_pslot(&l0, i, j, k)] = west_mg_code_at(&g, i, j, k);
}

extern "C" enum west_status west_mg_codes_cuda(const struct west_kgrid *g,
					       const struct west_plevel *l0)
{
	codes_k<<<west_grid3(g->nx, g->ny, g->nz), west_block3()>>>(*g, *l0);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}

static __global__ void coarse_k(struct west_plevel fl, struct west_mgeom af,
				struct west_plevel cl, struct west_mgeom ac)
{
	size_t I, J, K;
	west_tid3(&I, &J, &K);
	if (I < ac.nx && J < ac.ny)
		west_mg_coarse_at(&fl, &af, &cl, &ac, I, J, K);
}

extern "C" enum west_status west_mg_coarse_cuda(const struct west_plevel *fl,
						const struct west_mgeom *af,
						const struct west_plevel *cl,
						const struct west_mgeom *ac)
{
	coarse_k<<<west_grid3(ac->nx, ac->ny, ac->nz), west_block3()>>>(*fl, *af, *cl, *ac);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}
