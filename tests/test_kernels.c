/*
 * test_kernels.c: each kernel's CUDA launcher against its CPU reference,
 * element by element (|ref - gpu| <= atol + rtol |ref|, fp32 rtol 1e-5),
 * on fresh random inputs every run.  GPU tests skip with the reason when
 * no usable device is present.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu.h"
#include "kernels.h"

#ifdef WEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static float *random_floats(size_t n, unsigned *seed)
{
	float *v = malloc(n * sizeof *v);
	cr_assert_not_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)rand_r(seed) / (float)RAND_MAX * 200.0f - 100.0f;
	return v;
}

Test(smoke_cpu, known_values)
{
	float x[3] = {1.0f, -2.0f, 0.5f}, y[3] = {1.0f, 2.0f, 3.0f};
	cr_assert_eq(west_smoke_cpu(3, 2.0f, x, y), WEST_OK);
	cr_assert_float_eq(y[0], 3.0f, 0.0f);
	cr_assert_float_eq(y[1], -2.0f, 0.0f);
	cr_assert_float_eq(y[2], 4.0f, 0.0f);
}

Test(smoke_cpu, zero_length_touches_nothing)
{
	float x[1] = {5.0f}, y[1] = {7.0f};
	west_smoke_cpu(0, 2.0f, x, y);
	cr_assert_float_eq(y[0], 7.0f, 0.0f);
}

/* Run the CUDA smoke kernel on n random elements and compare with the CPU. */
static void compare_smoke(size_t n)
{
#ifdef WEST_HAVE_CUDA
	unsigned seed = (unsigned)time(NULL) ^ (unsigned)n;
	float *x = random_floats(n, &seed), *y = random_floats(n, &seed);
	float *ref = malloc(n * sizeof *ref), *got = malloc(n * sizeof *got);
	float *dx, *dy, a = 1.0f + (float)(seed % 1000) / 7.0f;
	size_t bad = 0, first = 0;

	cr_assert(ref && got);
	memcpy(ref, y, n * sizeof *y);
	west_smoke_cpu(n, a, x, ref);
	cr_assert_eq(cudaMalloc((void **)&dx, n * sizeof *x), cudaSuccess);
	cr_assert_eq(cudaMalloc((void **)&dy, n * sizeof *y), cudaSuccess);
	cr_assert_eq(cudaMemcpy(dx, x, n * sizeof *x, cudaMemcpyHostToDevice), cudaSuccess);
	cr_assert_eq(cudaMemcpy(dy, y, n * sizeof *y, cudaMemcpyHostToDevice), cudaSuccess);
	cr_assert_eq(west_smoke_cuda(n, a, dx, dy), WEST_OK);
	cr_assert_eq(cudaMemcpy(got, dy, n * sizeof *got, cudaMemcpyDeviceToHost), cudaSuccess);
	for (size_t i = 0; i < n; i++)
		if (!(fabsf(ref[i] - got[i]) <= 1e-6f + 1e-5f * fabsf(ref[i])) && !bad++)
			first = i;
	cr_expect_eq(bad, 0, "%zu of %zu elements differ; first at %zu: cpu %g gpu %g (seed %u)",
		     bad, n, first, ref[first], got[first], seed);
	cudaFree(dx);
	cudaFree(dy);
	free(x), free(y), free(ref), free(got);
#else
	(void)n;
#endif
}

Test(smoke_cuda, matches_cpu_odd_size)
{
	gpu_skip_unless_usable();
	compare_smoke(1000003);
}

Test(smoke_cuda, matches_cpu_single_element)
{
	gpu_skip_unless_usable();
	compare_smoke(1);
}

/* More elements than one launch has threads: the grid-stride loop. */
Test(smoke_cuda, matches_cpu_past_one_grid)
{
	gpu_skip_unless_usable();
	compare_smoke((size_t)65535 * 256 * 2 + 17);
}
