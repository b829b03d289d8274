/*
 * plume-bench: the run time of one release plume on the CPU and the GPU
 * side by side (docs/benchmarks.md, "Release plume run time"): the flat
 * set-up of the validation (tests/validation/plume_flat.h: 140 x 121 x 60
 * cells, a release of 600 s run for an hour), N particles, each class, on
 * every backend asked for; the wall time of west_plume_run (upload, every
 * chunk, download), the median of --reps runs, and the ratios.
 *
 * Usage: plume-bench [--particles N] [--classes ABCDEF] [--reps R]
 *                    [--backends cpu,cpu-avx2,cpu-ref,cuda,cuda-index]
 *                    [--chunk-work W | --launch-ms T]
 * cpu: the CPU backend's kernel (kernels/plume_simd.c: AVX-512 where the
 * processor has it); cpu-avx2: the same at AVX2's width; cpu-ref: the
 * plain reference (kernels/plume.c); cuda-index: the GPU with the
 * particles in index order (the order the kernel takes them in before
 * issue 18's sort; kernels.h, struct west_kparticles).  Defaults: 100000
 * particles, every class, 1 rep, cpu and, where the GPU answers, cuda and
 * cuda-index; --chunk-work, launches of W particle-seconds, --launch-ms,
 * launches paced to T ms (west_plume_opts; default the backend's rule:
 * plume.h).  Each backend's launches and its longest launch (ms, the
 * median run's) follow the times.  Exit status 1 on a
 * failed run or an unusable backend asked for, 2 on a bad option.  Built
 * with `make tests/bench/plume-bench`.
 */
#define BENCH_NAME "plume-bench"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bench_util.h"
#include "model.h"
#include "../validation/plume_flat.h"

#define MAX_REPS 99

enum { B_CPU, B_CPU_AVX2, B_CPU_REF, B_CUDA, B_CUDA_INDEX, B_N };
static const char *const names[B_N] = { "cpu", "cpu-avx2", "cpu-ref", "cuda", "cuda-index" };

/* One run's wall time and its launches (the longest's wall time). */
struct one_run {
	double seconds;
	long launches;
	double longest;
};

static int cmp_run(const void *a, const void *b)
{
	return cmp_double(&((const struct one_run *)a)->seconds,
			  &((const struct one_run *)b)->seconds);
}

static void usage(void)
{
	fprintf(stderr, "usage: plume-bench [--particles N] [--classes ABCDEF] [--reps R] "
			"[--backends cpu,cpu-avx2,cpu-ref,cuda,cuda-index] [--chunk-work W | --launch-ms T]\n");
	exit(2);
}

/* The kernel table of backend b (its slot in ops, filled once), the CPU's
 * vector width set for it. */
static const struct west_kernel_ops *ops_of(int b, struct west_kernel_ops *index_order)
{
	west_pot_simd_width(b == B_CPU_AVX2 ? 256 : 512);
	if (b == B_CPU_REF)
		return &west_kernels_cpu_ref;
#ifdef WEST_HAVE_CUDA
	if (b == B_CUDA)
		return &west_kernels_cuda;
	if (b == B_CUDA_INDEX) {
		*index_order = west_kernels_cuda;
		index_order->plume_order_bytes = NULL;
		return index_order;
	}
#else
	(void)index_order;
#endif
	return b == B_CPU || b == B_CPU_AVX2 ? &west_kernels_cpu : NULL;
}

int main(int argc, char **argv)
{
	long n = 100000, reps = 1;
	const char *classes = "ABCDEF";
	int on[B_N] = { 0 }, asked = 0;
	char why[WEST_ERRLEN], err[WEST_ERRLEN];
	struct west_kernel_ops index_order;
	struct west_grid g;
	struct west_plume_opts o;

	west_plume_opts_init(&o);
	for (int a = 1; a < argc; a++) {
		if (a + 1 >= argc)
			usage();
		if (!strcmp(argv[a], "--particles"))
			n = atol(argv[++a]);
		else if (!strcmp(argv[a], "--reps"))
			reps = atol(argv[++a]);
		else if (!strcmp(argv[a], "--chunk-work"))
			o.chunk_work = atof(argv[++a]);
		else if (!strcmp(argv[a], "--launch-ms"))
			o.launch_seconds = 1e-3 * atof(argv[++a]);
		else if (!strcmp(argv[a], "--classes"))
			classes = argv[++a];
		else if (!strcmp(argv[a], "--backends")) {
			char *list = argv[++a], *tok, *save;
			asked = 1;
			for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				int b = 0;
				while (b < B_N && strcmp(tok, names[b]))
					b++;
				if (b == B_N)
					usage();
				on[b] = 1;
			}
		} else
			usage();
	}
	if (n < 1 || n > WEST_PLUME_MAX_PARTICLES || reps < 1 || reps > MAX_REPS ||
	    strspn(classes, "ABCDEF") != strlen(classes) || !*classes)
		usage();
	int gpu = west_backend_probe("cuda", why, sizeof why) == WEST_OK;
	if (!asked)
		on[B_CPU] = 1, on[B_CUDA] = on[B_CUDA_INDEX] = gpu;
	if ((on[B_CUDA] || on[B_CUDA_INDEX]) && !gpu)
		die("cuda", why);
	if (flat_grid(&g, err, sizeof err))
		die("grid", err);

	printf("plume-bench: %ld particles over an hour, flat %d x %d x %zu cells, median of %ld, "
	       "launches: ", n, NX, NY, g.nz, reps);
	if (o.chunk_work > 0)
		printf("%g particle-seconds\n\n", o.chunk_work);
	else if (o.launch_seconds > 0)
		printf("paced to %g ms\n\n", 1e3 * o.launch_seconds);
	else
		printf("the backends' rule\n\n");
	printf("| class (wind) |");
	for (int b = 0; b < B_N; b++)
		if (on[b])
			printf(" %s (s) |", names[b]);
	int ratios = (on[B_CPU_REF] && on[B_CPU]) + (on[B_CPU] && on[B_CUDA]) +
		     (on[B_CUDA] && on[B_CUDA_INDEX]);
	if (on[B_CPU_REF] && on[B_CPU])
		printf(" cpu-ref / cpu |");
	if (on[B_CPU] && on[B_CUDA])
		printf(" cpu / cuda |");
	if (on[B_CUDA] && on[B_CUDA_INDEX])
		printf(" cuda-index / cuda |");
	for (int b = 0; b < B_N; b++)
		if (on[b])
			printf(" %s launches | %s longest (ms) |", names[b], names[b]);
	printf("\n| --- |");
	for (int b = 0; b < B_N + ratios; b++)
		if (b >= B_N || on[b])
			printf(" ---: |");
	for (int b = 0; b < B_N; b++)
		if (on[b])
			printf(" ---: | ---: |");
	printf("\n");
	for (const char *c = classes; *c; c++) {
		int cls = *c - 'A';
		double med[B_N] = { 0 }, longest[B_N] = { 0 };
		long launches[B_N] = { 0 };
		struct west_field f;

		if (flat_field(&g, cls, &f, err, sizeof err))
			die("field", err);
		for (int b = 0; b < B_N; b++) {
			struct one_run t[MAX_REPS];
			struct west_release r = flat_release(&g, n);

			for (long k = 0; on[b] && k < reps; k++) {
				struct west_plume_result res;
				double t0 = now_s();
				if (west_plume_run_opts(&g, &f, &r, &o, ops_of(b, &index_order), NULL,
							NULL, &res, err, sizeof err))
					die(names[b], err);
				t[k] = (struct one_run){ now_s() - t0, res.launches,
							 res.launch_max_seconds };
				west_plume_result_free(&res);
			}
			if (on[b]) {   /* the median run */
				qsort(t, (size_t)reps, sizeof *t, cmp_run);
				med[b] = t[reps / 2].seconds;
				launches[b] = t[reps / 2].launches;
				longest[b] = t[reps / 2].longest;
			}
		}
		printf("| %c (%.0f m/s) |", *c, speeds[cls]);
		for (int b = 0; b < B_N; b++)
			if (on[b])
				printf(" %.2f |", med[b]);
		if (on[B_CPU_REF] && on[B_CPU])
			printf(" %.2f |", med[B_CPU_REF] / med[B_CPU]);
		if (on[B_CPU] && on[B_CUDA])
			printf(" %.1f |", med[B_CPU] / med[B_CUDA]);
		if (on[B_CUDA] && on[B_CUDA_INDEX])
			printf(" %.2f |", med[B_CUDA_INDEX] / med[B_CUDA]);
		for (int b = 0; b < B_N; b++)
			if (on[b])
				printf(" %ld | %.2f |", launches[b], 1e3 * longest[b]);
		printf("\n");
		fflush(stdout);
		west_field_free(&f);
	}
	west_grid_free(&g);
	return 0;
}
