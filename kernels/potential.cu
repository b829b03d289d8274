/*
 * potential.cu: the potential form of step 8 on the GPU (kernels.h): must
 * match kernels/potential.c bit for bit except in the dot products'
 * summation order.  Every thread runs a body of potential_util.h.
 *
 * Colour passes use the compacted shape: thread (t, j, k) of hx x ny x nz
 * takes cell i = 2 t + ((j + k + colour) & 1), so a warp reads 32
 * consecutive slots of its colour and the neighbours' rows of the other
 * colour.  Cell-wise kernels (right-hand side, field update, prolongation)
 * take a thread per cell; restriction a thread per coarse cell.
 *
 * The coarsest level's solve runs in one block of COARSE_THREADS threads
 * that sweep all its cells, with a barrier between colour passes: one
 * launch instead of 4 per sweep; e in shared memory where it fits.
 *
 * The colour pass, the operator and the restriction launch over the
 * level's own rows (the coarse level's for the restriction; kernels.h),
 * j offset by jlo; the field update, prolongation, coarse solve and
 * vector operations over every row.
 *
 * Dot products, one sum per own row (kernels.h): a block per row, each
 * thread adding in double its slots t, t + DOT_THREADS, ... of each of the
 * row's 2 nz runs of hx slots (colour, then k), then a tree in shared
 * memory; reproducible run to run, in another order than the CPU's
 * (agrees to rounding).  At most DOT_ROWS rows a launch, into a buffer in
 * static device memory copied to the host after each: no allocation per
 * product, one caller at a time (the backend's compute thread).
 */
#include <limits.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "potential_util.h"

/*
 * kernels/potential32.cu compiles this file again with WEST_IX unsigned:
 * the colour pass, restriction, prolongation, operator, field update and
 * coarsest solve with 32-bit indices, named *_ix32.  The launchers here
 * call those for every level whose indices fit (west_pot_fits32), and
 * their own 64-bit kernels otherwise or when west_pot_cuda_wide(1) asks
 * (WEST_CUDA_INDEX64).
 * Both run the same arithmetic on the same values: bit for bit the same.
 */
#ifdef WEST_POT_NARROW
#define POT(name) name##_ix32
#define NARROW(l, call)
#else
#define POT(name) name
#define NARROW(l, call)                        \
	do {                                   \
		if (west_pot_fits32(l))        \
			return call;           \
	} while (0)

extern "C" {
__typeof__(west_pot_apply_cpu) west_pot_apply_cuda_ix32;
__typeof__(west_pot_smooth_cpu) west_pot_smooth_cuda_ix32;
__typeof__(west_pot_smooth0_cpu) west_pot_smooth0_cuda_ix32;
__typeof__(west_pot_restrict_cpu) west_pot_restrict_cuda_ix32;
__typeof__(west_pot_prolong_cpu) west_pot_prolong_cuda_ix32;
__typeof__(west_pot_matvec_cpu) west_pot_matvec_cuda_ix32;
__typeof__(west_pot_coarse_cpu) west_pot_coarse_cuda_ix32;
}

static int wide;   /* west_pot_cuda_wide */

extern "C" void west_pot_cuda_wide(int on)
{
	wide = on;
}

/* Whether every index a body forms on level l fits in 32 bits: slots
 * (2 ncol), conductances (12 ncol) and, on level 0, the grid's faces. */
static int west_pot_fits32(const struct west_plevel *l)
{
	return !wide && 12 * l->ncol + 12 <= UINT_MAX &&
	       (l->nx + 1) * (l->ny + 1) * (l->nz + 1) <= UINT_MAX;
}
#endif

#define COARSE_THREADS 256
#define COARSE_SHARED 4096   /* slots (16 KB) */
#define DOT_ROWS 8192
#define DOT_THREADS 256

/* A level's own rows (kernels.h): jlo <= j < ny - jhi. */
static inline size_t own_rows(const struct west_plevel *l)
{
	return l->ny - l->jlo - l->jhi;
}

/* The slot t of row (j, k) of colour c this thread of a compacted launch
 * over l's own rows takes; 0 when it has no cell. */
static __device__ __forceinline__ int colour_cell(const struct west_plevel &l, int c,
						  WEST_IX *t, WEST_IX *j, WEST_IX *k)
{
	west_tid3(t, j, k);
	*j += (WEST_IX)l.jlo;
	return 2 * *t + ((*j + *k + (WEST_IX)c) & 1) < (WEST_IX)l.nx &&
	       *j < (WEST_IX)(l.ny - l.jhi);
}

static __global__ void apply_k(struct west_kgrid g, struct west_plevel l0, struct west_sor o,
			       float alpha, const float *x, float *u, float *v, float *w)
{
	WEST_IX i, j, k;
	west_tid3(&i, &j, &k);
	if (i < (WEST_IX)g.nx && j < (WEST_IX)g.ny)
		west_papply_at(&g, &l0, &o, alpha, x, u, v, w, i, j, k);
}

extern "C" enum west_status POT(west_pot_apply_cuda)(const struct west_kgrid *g,
						     const struct west_plevel *l0, float eta,
						     float alpha, const float *x, float *u,
						     float *v, float *w)
{
	NARROW(l0, west_pot_apply_cuda_ix32(g, l0, eta, alpha, x, u, v, w));
	apply_k<<<west_grid3(g->nx, g->ny, g->nz), west_block3()>>>(
		*g, *l0, west_sor_init(g, 1.0f, eta), alpha, x, u, v, w);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}

static __global__ void smooth_k(struct west_plevel l, float omega, int colour)
{
	WEST_IX t, j, k;
	if (colour_cell(l, colour, &t, &j, &k))
		west_psmooth_at(&l, omega, colour, t, j, k);
}

extern "C" enum west_status POT(west_pot_smooth_cuda)(const struct west_plevel *l,
						      float omega, int colour)
{
	NARROW(l, west_pot_smooth_cuda_ix32(l, omega, colour));
	if (own_rows(l) == 0)   /* nothing to do (a launch of no blocks fails) */
		return WEST_OK;
	smooth_k<<<west_grid3(l->hx, own_rows(l), l->nz), west_block3()>>>(*l, omega, colour);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}

/* Thread (t, j, k) of hx x ny x nz: slot t of row (j, k) of both colours
 * (west_pot_smooth0_cpu). */
static __global__ void smooth0_k(struct west_plevel l, float omega, int colour)
{
	WEST_IX t, j, k;
	west_tid3(&t, &j, &k);
	if (t >= (WEST_IX)l.hx || j >= (WEST_IX)l.ny)
		return;
	WEST_IX row = (WEST_IX)l.hx * (j + (WEST_IX)l.ny * k) + t, ncol = (WEST_IX)l.ncol;
	int own = j >= (WEST_IX)l.jlo && j < (WEST_IX)(l.ny - l.jhi) &&
		  2 * t + ((j + k + (WEST_IX)colour) & 1) < (WEST_IX)l.nx;
	l.e[(WEST_IX)colour * ncol + row] = own ? west_psmooth0_at(&l, omega, colour, t, j, k)
						: 0.0f;
	l.e[(WEST_IX)(1 - colour) * ncol + row] = 0.0f;
}

extern "C" enum west_status POT(west_pot_smooth0_cuda)(const struct west_plevel *l,
						       float omega, int colour)
{
	NARROW(l, west_pot_smooth0_cuda_ix32(l, omega, colour));
	smooth0_k<<<west_grid3(l->hx, l->ny, l->nz), west_block3()>>>(*l, omega, colour);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}

static __global__ void restrict_k(struct west_plevel f, struct west_plevel c)
{
	WEST_IX i, j, k;
	west_tid3(&i, &j, &k);
	j += (WEST_IX)c.jlo;
	if (i < (WEST_IX)c.nx && j < (WEST_IX)(c.ny - c.jhi))
		west_prestrict_at(&f, &c, i, j, k);
}

extern "C" enum west_status POT(west_pot_restrict_cuda)(const struct west_plevel *fine,
							const struct west_plevel *coarse)
{
	NARROW(fine, west_pot_restrict_cuda_ix32(fine, coarse));
	if (own_rows(coarse) == 0)
		return WEST_OK;
	restrict_k<<<west_grid3(coarse->nx, own_rows(coarse), coarse->nz), west_block3()>>>(
		*fine, *coarse);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}

static __global__ void prolong_k(struct west_plevel c, struct west_plevel f)
{
	WEST_IX i, j, k;
	west_tid3(&i, &j, &k);
	if (i < (WEST_IX)f.nx && j < (WEST_IX)f.ny)
		west_pprolong_at(&c, &f, i, j, k);
}

extern "C" enum west_status POT(west_pot_prolong_cuda)(const struct west_plevel *coarse,
						       const struct west_plevel *fine)
{
	NARROW(fine, west_pot_prolong_cuda_ix32(coarse, fine));
	prolong_k<<<west_grid3(fine->nx, fine->ny, fine->nz), west_block3()>>>(*coarse, *fine);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}

static __global__ void matvec_k(struct west_plevel l, const float *x, float *y)
{
	WEST_IX i, j, k;
	west_tid3(&i, &j, &k);
	j += (WEST_IX)l.jlo;
	if (i < (WEST_IX)l.nx && j < (WEST_IX)(l.ny - l.jhi))
		west_pmatvec_at(&l, x, y, i, j, k);
}

extern "C" enum west_status POT(west_pot_matvec_cuda)(const struct west_plevel *l,
						      const float *x, float *y)
{
	NARROW(l, west_pot_matvec_cuda_ix32(l, x, y));
	if (own_rows(l) == 0)
		return WEST_OK;
	matvec_k<<<west_grid3(l->nx, own_rows(l), l->nz), west_block3()>>>(*l, x, y);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}

/*
 * The coarsest level's sweeps from e = 0, in one block: thread x takes
 * slots x, x + COARSE_THREADS, ... of each colour pass, with a barrier
 * after each.  With COARSE_SHARED slots or fewer (every hierarchy's
 * coarsest level), e lives in shared memory for the sweeps and is written
 * back once; the level's b and conductances are read where they are.
 * The same arithmetic on the same values either way.
 */
static __device__ void coarse_pass(const struct west_plevel &l, int c)
{
	WEST_IX hx = (WEST_IX)l.hx, ny = (WEST_IX)l.ny;
	for (WEST_IX s = threadIdx.x; s < (WEST_IX)l.ncol; s += COARSE_THREADS) {
		WEST_IX r = s / hx, t = s - r * hx, k = r / ny, j = r - k * ny;
		if (2 * t + ((j + k + (WEST_IX)c) & 1) < (WEST_IX)l.nx)
			west_psmooth_at(&l, 1.0f, c, t, j, k);
	}
	__syncthreads();
}

static __global__ void coarse_k(struct west_plevel l, int sweeps)
{
	__shared__ float e[COARSE_SHARED];
	WEST_IX n = 2 * (WEST_IX)l.ncol;
	struct west_plevel m = l;

	if (n <= COARSE_SHARED)
		m.e = e;
	for (WEST_IX s = threadIdx.x; s < n; s += COARSE_THREADS)
		m.e[s] = 0.0f;
	__syncthreads();
	for (int i = 0; i < sweeps; i++)
		coarse_pass(m, 0), coarse_pass(m, 1);
	for (int i = 0; i < sweeps; i++)
		coarse_pass(m, 1), coarse_pass(m, 0);
	if (m.e != l.e)
		for (WEST_IX s = threadIdx.x; s < n; s += COARSE_THREADS)
			l.e[s] = e[s];
}

extern "C" enum west_status POT(west_pot_coarse_cuda)(const struct west_plevel *l, int sweeps)
{
	NARROW(l, west_pot_coarse_cuda_ix32(l, sweeps));
	coarse_k<<<1, COARSE_THREADS>>>(*l, sweeps);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}

/* The rest, 64-bit only: the vector operations' indices are few. */
#ifndef WEST_POT_NARROW
static __device__ double dot_rows[DOT_ROWS];

/* Sum a block's values in shared memory; thread 0 gets the sum. */
static __device__ double block_sum(double *sh, double v)
{
	sh[threadIdx.x] = v;
	for (unsigned s = DOT_THREADS / 2; s > 0; s /= 2) {
		__syncthreads();
		if (threadIdx.x < s)
			sh[threadIdx.x] += sh[threadIdx.x + s];
	}
	return sh[0];
}

/* Block b: the sum of x . y over own row j0 + b of l, into dot_rows[b]. */
static __global__ void dot_k(struct west_plevel l, size_t j0, const float *x, const float *y)
{
	__shared__ double sh[DOT_THREADS];
	size_t j = j0 + blockIdx.x;
	double sum = 0.0;
	for (size_t c = 0; c < 2; c++)
		for (size_t k = 0; k < l.nz; k++) {
			size_t s = c * l.ncol + l.hx * (j + l.ny * k);
			for (size_t t = threadIdx.x; t < l.hx; t += DOT_THREADS)
				sum += (double)x[s + t] * (double)y[s + t];
		}
	sum = block_sum(sh, sum);
	if (threadIdx.x == 0)
		dot_rows[blockIdx.x] = sum;
}

extern "C" enum west_status west_pot_dot_queued_cuda(const struct west_plevel *l,
						     const float *x, const float *y,
						     double *sums)
{
	size_t own = own_rows(l);

	/* the stream orders each launch after the copy of the rows before */
	for (size_t r = 0; r < own; r += DOT_ROWS) {
		unsigned nb = own - r < DOT_ROWS ? (unsigned)(own - r) : DOT_ROWS;
		dot_k<<<nb, DOT_THREADS>>>(*l, l->jlo + r, x, y);
		WEST_CUDA_LOG(cudaGetLastError());
		WEST_CUDA_LOG(cudaMemcpyFromSymbolAsync(sums + r, dot_rows, nb * sizeof *sums, 0,
							cudaMemcpyDeviceToHost,
							cudaStreamPerThread));
	}
	return WEST_OK;
}

extern "C" enum west_status west_pot_dot_cuda(const struct west_plevel *l, const float *x,
					      const float *y, double *sums)
{
	enum west_status st = west_pot_dot_queued_cuda(l, x, y, sums);
	if (st)
		return st;
	WEST_CUDA_LOG(cudaStreamSynchronize(cudaStreamPerThread));
	return WEST_OK;
}

static __global__ void xpby_k(size_t n, const float *x, float beta, float *y)
{
	size_t i = west_tid1();
	if (i < n)
		y[i] = x[i] + beta * y[i];
}

extern "C" enum west_status west_pot_xpby_cuda(size_t n, const float *x, float beta,
					       float *y)
{
	xpby_k<<<west_grid1(n), WEST_B1>>>(n, x, beta, y);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}

static __global__ void axpy_k(size_t n, float alpha, const float *x, float *y)
{
	size_t i = west_tid1();
	if (i < n)
		y[i] = y[i] + alpha * x[i];
}

extern "C" enum west_status west_pot_axpy_cuda(size_t n, float alpha, const float *x,
					       float *y)
{
	axpy_k<<<west_grid1(n), WEST_B1>>>(n, alpha, x, y);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}

/* The residual step's largest |D|, as the bits of a non-negative float
 * (their order as unsigned integers is the floats'; a NaN's bits are above
 * every number's, so it wins): one caller at a time, as dot_rows. */
static __device__ unsigned resid_max;

#define RESID_BLOCKS 1024   /* a block takes many slots: one atomic each */

/* The own rows' slots of level l: block (p, b) takes plane p = (colour,
 * level k) = (p / nz, p % nz), whose own slots are one run of hx * own,
 * in a stride loop over its gridDim.y blocks; each block's largest into
 * resid_max. */
static __global__ void resid_k(struct west_plevel l, float alpha, const float *q)
{
	__shared__ unsigned warps[WEST_B1 / 32];
	size_t c = blockIdx.x / l.nz, k = blockIdx.x % l.nz;
	size_t run = l.hx * (l.ny - l.jlo - l.jhi), s0 = c * l.ncol + l.hx * (l.jlo + l.ny * k);
	float m = 0.0f;

	for (size_t n = blockIdx.y * (size_t)WEST_B1 + threadIdx.x; n < run;
	     n += (size_t)gridDim.y * WEST_B1) {
		float d = west_presid_step_at(&l, alpha, q, s0 + n, k);
		m = d > m || d != d ? d : m;
	}
	unsigned w = __reduce_max_sync(0xffffffffu, __float_as_uint(m));
	if ((threadIdx.x & 31) == 0)
		warps[threadIdx.x / 32] = w;
	__syncthreads();
	if (threadIdx.x < 32) {
		w = threadIdx.x < WEST_B1 / 32 ? warps[threadIdx.x] : 0;
		w = __reduce_max_sync(0xffffffffu, w);
		if (threadIdx.x == 0)
			atomicMax(&resid_max, w);
	}
}

extern "C" enum west_status west_pot_resid_cuda(const struct west_plevel *l0, float alpha,
						const float *q, double *max)
{
	size_t run = l0->hx * own_rows(l0), planes = 2 * l0->nz;
	unsigned bits = 0, per = west_grid1(run);
	float m;

	*max = 0.0;
	if (run == 0)
		return WEST_OK;
	/* about RESID_BLOCKS blocks in all, at least one a plane */
	if (per > RESID_BLOCKS / planes)
		per = RESID_BLOCKS / planes > 0 ? (unsigned)(RESID_BLOCKS / planes) : 1;
	WEST_CUDA_LOG(cudaMemcpyToSymbolAsync(resid_max, &bits, sizeof bits, 0,
					      cudaMemcpyHostToDevice, cudaStreamPerThread));
	resid_k<<<dim3((unsigned)planes, per), WEST_B1>>>(*l0, alpha, q);
	WEST_CUDA_LOG(cudaGetLastError());
	WEST_CUDA_LOG(cudaMemcpyFromSymbolAsync(&bits, resid_max, sizeof bits, 0,
						cudaMemcpyDeviceToHost, cudaStreamPerThread));
	WEST_CUDA_LOG(cudaStreamSynchronize(cudaStreamPerThread));
	memcpy(&m, &bits, sizeof m);
	*max = m;
	return WEST_OK;
}

extern "C" enum west_status west_pot_zero_cuda(size_t n, float *x)
{
	WEST_CUDA_LOG(cudaMemsetAsync(x, 0, n * sizeof *x, cudaStreamPerThread));
	return WEST_OK;
}
#endif
