/*
 * divmin.cu: WEST step 8 on the GPU: one colour pass of the velocity-form
 * red-black SOR in both orderings, and the divergence norms of the
 * convergence check by a device reduction.  Must match kernels/divmin.c
 * (west_divmin_sweep_cpu, west_divergence_norms_cpu) bit for bit: every
 * cell runs west_sor_cell / west_cell_div (kernel_util.h) on the same
 * inputs, and a colour pass has no races (no two cells of a colour share a
 * face), so neither the thread order nor the ordering changes a bit.
 *
 * masked (the source paper's first GPU version): a thread per cell over
 * nx x ny x nz; threads of the other colour return at once, so half the
 * threads idle.  compact (the paper's fix, docs/design.md section 3): a thread
 * per cell of the colour: thread (t, j, k) of nt = ceil(nx / 2) x ny x nz
 * takes i = 2t + ((j + k + colour) & 1), guarded by i < nx.  Both launch
 * over the view's own rows only (kernels.h), j offset by jlo.
 *
 * The potential solvers' right-hand side (west_pot_rhs_cuda) is written by
 * the same pass, which reads the field once for both.
 *
 * Norms: a fixed grid of at most NORM_BLOCKS blocks walks the own rows
 * (j, k) (kernels.h, views); each block reduces its max |D| and sum D^2
 * (double, as the CPU) in shared memory into a partial, and one block
 * reduces the partials.  The grid, hence the summation order, depends
 * only on the number of own rows and nx, so the sum is reproducible run
 * to run (it differs from the CPU's order: the max is exact, the sum
 * agrees to rounding).  The partials live in static device memory: no
 * allocation per check, one caller at a time (the backend's compute
 * thread).
 */
#include <string.h>

#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "potential_util.h"

#define NORM_BLOCKS 1024
#define NORM_THREADS 256

static __device__ double norm_partial[2][NORM_BLOCKS];
static __device__ double norm_result[2];

/* The update of cell (i, j, k), as west_divmin_sweep_cpu's sweep_cell. */
static __device__ __forceinline__ void sweep_at(const struct west_kgrid &g,
						const struct west_sor &o, float *u,
						float *v, float *w, size_t i,
						size_t j, size_t k)
{
	size_t nx = g.nx, ny = g.ny;
	size_t xw = west_kx(nx, ny, i, j, k), ys = west_ky(nx, ny, i, j, k);
	size_t zb = west_kc(nx, ny, i, j, k), zt = zb + nx * ny;
	const float t[6] = { __ldg(&g.tx[xw]), __ldg(&g.tx[xw + 1]), __ldg(&g.ty[ys]),
			     __ldg(&g.ty[ys + nx]), __ldg(&g.tz[zb]), __ldg(&g.tz[zt]) };
	west_sor_cell(&o, u + xw, v + ys, v + ys + nx, w + zb, w + zt, t,
		      __ldg(&g.rdz[k]), __ldg(&g.rdzf[k]), __ldg(&g.rdzf[k + 1]));
}

/* The launches cover g's own rows: thread row j takes row j + jlo. */
static __global__ void sweep_masked(struct west_kgrid g, struct west_sor o, int colour,
				    float *u, float *v, float *w)
{
	size_t i, j, k;
	west_tid3(&i, &j, &k);
	j += g.jlo;
	if (i < g.nx && j < g.ny - g.jhi && ((i + j + k) & 1) == (size_t)colour)
		sweep_at(g, o, u, v, w, i, j, k);
}

static __global__ void sweep_compact(struct west_kgrid g, struct west_sor o, int colour,
				     float *u, float *v, float *w)
{
	size_t t, j, k;
	west_tid3(&t, &j, &k);
	j += g.jlo;
	size_t i = 2 * t + ((j + k + (size_t)colour) & 1);
	if (i < g.nx && j < g.ny - g.jhi)
		sweep_at(g, o, u, v, w, i, j, k);
}

extern "C" enum west_status west_divmin_sweep_cuda(const struct west_kgrid *g, float omega,
						   float eta, int colour,
						   enum west_kindexing indexing,
						   float *u, float *v, float *w)
{
	const struct west_sor o = west_sor_init(g, omega, eta);
	size_t own = g->ny - g->jlo - g->jhi;

	if (own == 0)   /* no own rows: nothing to do (a launch of no blocks fails) */
		return WEST_OK;
	if (indexing == WEST_KINDEX_MASKED)
		sweep_masked<<<west_grid3(g->nx, own, g->nz), west_block3()>>>(
			*g, o, colour, u, v, w);
	else
		sweep_compact<<<west_grid3((g->nx + 1) / 2, own, g->nz), west_block3()>>>(
			*g, o, colour, u, v, w);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}

/* Reduce a block's (max, sum) pairs in shared memory; thread 0 gets them. */
static __device__ void block_reduce(double *smax, double *ssum)
{
	for (unsigned s = NORM_THREADS / 2; s > 0; s /= 2) {
		__syncthreads();
		if (threadIdx.x < s) {
			smax[threadIdx.x] = fmax(smax[threadIdx.x], smax[threadIdx.x + s]);
			ssum[threadIdx.x] += ssum[threadIdx.x + s];
		}
	}
}

static __global__ void norms_rows(struct west_kgrid g, struct west_plevel l0, int rhs,
				  struct west_sor o, const float *u, const float *v,
				  const float *w)
{
	__shared__ double smax[NORM_THREADS], ssum[NORM_THREADS];
	size_t nx = g.nx, own = g.ny - g.jlo - g.jhi, rows = own * g.nz;
	double mx = 0.0, sum = 0.0;

	for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
		size_t j = g.jlo + r % own, k = r / own;
		for (size_t i = threadIdx.x; i < nx; i += NORM_THREADS) {
			int fluid;
			double d = west_pdiv_at(&g, rhs ? &l0 : NULL, &o, u, v, w, i, j, k,
						&fluid);
			if (!fluid)
				continue;
			mx = fmax(mx, fabs(d));
			sum += d * d;
		}
	}
	smax[threadIdx.x] = mx, ssum[threadIdx.x] = sum;
	block_reduce(smax, ssum);
	if (threadIdx.x == 0)
		norm_partial[0][blockIdx.x] = smax[0], norm_partial[1][blockIdx.x] = ssum[0];
}

static __global__ void norms_partials(unsigned nb)
{
	__shared__ double smax[NORM_THREADS], ssum[NORM_THREADS];
	double mx = 0.0, sum = 0.0;
	for (unsigned b = threadIdx.x; b < nb; b += NORM_THREADS)
		mx = fmax(mx, norm_partial[0][b]), sum += norm_partial[1][b];
	smax[threadIdx.x] = mx, ssum[threadIdx.x] = sum;
	block_reduce(smax, ssum);
	if (threadIdx.x == 0)
		norm_result[0] = smax[0], norm_result[1] = ssum[0];
}

/* The norms of u on g's own rows, and with rhs level 0's right-hand side
 * (l0) there. */
static enum west_status norms_rhs(const struct west_kgrid *g, const struct west_plevel *l0,
				  int rhs, const float *u, const float *v, const float *w,
				  double *norms)
{
	size_t rows = (g->ny - g->jlo - g->jhi) * g->nz;
	unsigned nb = rows < NORM_BLOCKS ? (unsigned)rows : NORM_BLOCKS;

	if (rows == 0) {   /* no own cells: no divergence, nothing to launch */
		norms[0] = norms[1] = 0.0;
		WEST_CUDA_LOG(cudaStreamSynchronize(cudaStreamPerThread));   /* waits, as ever */
		return WEST_OK;
	}

	norms_rows<<<nb, NORM_THREADS>>>(*g, *l0, rhs, west_sor_init(g, 1.0f, 1.0f), u, v, w);
	WEST_CUDA_LOG(cudaGetLastError());
	norms_partials<<<1, NORM_THREADS>>>(nb);
	WEST_CUDA_LOG(cudaGetLastError());
	WEST_CUDA_LOG(cudaMemcpyFromSymbolAsync(norms, norm_result, sizeof norm_result, 0,
						cudaMemcpyDeviceToHost, cudaStreamPerThread));
	WEST_CUDA_LOG(cudaStreamSynchronize(cudaStreamPerThread));
	return WEST_OK;
}

extern "C" enum west_status west_divergence_norms_cuda(const struct west_kgrid *g,
						       const float *u, const float *v,
						       const float *w, double *norms)
{
	struct west_plevel none;
	memset(&none, 0, sizeof none);
	return norms_rhs(g, &none, 0, u, v, w, norms);
}

extern "C" enum west_status west_pot_rhs_cuda(const struct west_kgrid *g,
					      const struct west_plevel *l0,
					      const float *u, const float *v,
					      const float *w, double *norms)
{
	return norms_rhs(g, l0, 1, u, v, w, norms);
}
