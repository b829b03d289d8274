/*
 * test_kernels.c: the smoke kernel (kernels.h: y = fmaf(a, x, y)), the
 * build's and the device's smoke test, which the CUDA backend's probe runs
 * before it accepts a device.  Its CPU reference on known values and on
 * n = 0; its CUDA launcher against the reference on fresh random inputs
 * every run (1 element, 10^6 + 3, and more than one launch grid covers),
 * bit for bit: fmaf rounds once on both sides (kernels/smoke.c and .cu),
 * as the probe itself requires.  The CUDA cases skip with the reason when
 * no usable device is present; device memory goes through the CUDA kernel
 * table's memory operations (model.h).
 *
 * The smoke kernel is not in the kernel table: every kernel that is
 * (the WEST steps and the potential kernels) is tested on every backend
 * against its CPU reference by tests/test_backends.c, and its reference
 * against known answers by tests/test_steps.c and tests/test_potential.c.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu.h"
#include "kernels.h"
#include "model.h"

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

#ifdef WEST_HAVE_CUDA
static float *random_floats(size_t n, unsigned *seed)
{
	float *v = malloc(n * sizeof *v);
	cr_assert_not_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)rand_r(seed) / (float)RAND_MAX * 200.0f - 100.0f;
	return v;
}

/* A memory operation's status, with its message. */
static void mem_ok(enum west_status st, const char *what, const char *err)
{
	cr_assert_eq(st, WEST_OK, "%s: %s: %s", what, west_status_str(st), err);
}

/* Run the CUDA smoke kernel on n random elements and compare with the CPU. */
static void compare_smoke(size_t n)
{
	const struct west_kernel_ops *k = &west_kernels_cuda;
	unsigned seed = (unsigned)time(NULL) ^ (unsigned)n;
	float *x = random_floats(n, &seed), *y = random_floats(n, &seed);
	float *ref = malloc(n * sizeof *ref), *got = malloc(n * sizeof *got);
	void *dx = NULL, *dy = NULL;
	float a = 1.0f + (float)(seed % 1000) / 7.0f;
	size_t bad = 0, first = 0;
	char err[WEST_ERRLEN] = "";

	cr_assert(ref && got);
	memcpy(ref, y, n * sizeof *y);
	west_smoke_cpu(n, a, x, ref);
	mem_ok(k->alloc(&dx, n * sizeof *x, err, sizeof err), "alloc", err);
	mem_ok(k->alloc(&dy, n * sizeof *y, err, sizeof err), "alloc", err);
	mem_ok(k->upload(dx, x, n * sizeof *x, err, sizeof err), "upload", err);
	mem_ok(k->upload(dy, y, n * sizeof *y, err, sizeof err), "upload", err);
	cr_assert_eq(west_smoke_cuda(n, a, dx, dy), WEST_OK);
	mem_ok(k->download(got, dy, n * sizeof *got, err, sizeof err), "download", err);
	for (size_t i = 0; i < n; i++)
		if (memcmp(&ref[i], &got[i], sizeof *got) != 0 && !bad++)
			first = i;
	cr_expect_eq(bad, 0, "%zu of %zu elements differ; first at %zu: cpu %.9g gpu %.9g (seed %u)",
		     bad, n, first, (double)ref[first], (double)got[first], seed);
	mem_ok(k->free(dx, err, sizeof err), "free", err);
	mem_ok(k->free(dy, err, sizeof err), "free", err);
	free(x), free(y), free(ref), free(got);
}
#define ON_GPU(call) call
#else
#define ON_GPU(call) ((void)0)   /* the tests skip before it */
#endif

Test(smoke_cuda, matches_cpu_odd_size)
{
	gpu_skip_unless_usable();
	ON_GPU(compare_smoke(1000003));
}

Test(smoke_cuda, matches_cpu_single_element)
{
	gpu_skip_unless_usable();
	ON_GPU(compare_smoke(1));
}

/* More elements than one launch has threads: the grid-stride loop. */
Test(smoke_cuda, matches_cpu_past_one_grid)
{
	gpu_skip_unless_usable();
	ON_GPU(compare_smoke((size_t)65535 * 256 * 2 + 17));
}
