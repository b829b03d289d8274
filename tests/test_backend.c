/*
 * test_backend.c: the backend registry, the auto|cpu|cuda choice, and each
 * backend's init / upload_terrain / describe / free.  CUDA parts skip with
 * the reason when no usable device is present.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "gpu.h"
#include "log.h"

static struct west_config conf;
static struct west_grid grid;

static void load_hill(void)
{
	char err[WEST_ERRLEN];
	west_config_defaults(&conf);
	conf.nz = 12, conf.dz = 15;
	struct west_grid_opts go;
	west_grid_opts_from_config(&go, &conf);
	cr_assert_eq(west_grid_load(&grid, WEST_SRCDIR "/data/hill.asc", &go,
				    err, sizeof err), WEST_OK, "%s", err);
}

static void free_hill(void)
{
	west_grid_free(&grid);
}

Test(backend, registry)
{
	cr_assert_eq(west_backend_find("cpu"), &west_backend_cpu);
	cr_assert_eq(west_backend_cpu.kernels, &west_kernels_cpu);
	cr_assert_null(west_backend_find("gpu"));
#ifdef WEST_HAVE_CUDA
	cr_assert_eq(west_backend_find("cuda"), &west_backend_cuda);
	cr_assert_eq(west_backend_cuda.kernels, &west_kernels_cuda);
#else
	cr_assert_null(west_backend_find("cuda"));
#endif
}

Test(backend, cpu_choice_is_cpu)
{
	const struct west_backend *be = NULL;
	char note[WEST_ERRLEN], err[WEST_ERRLEN];
	cr_assert_eq(west_backend_select(WEST_BACKEND_CPU, &be, note, sizeof note,
					 err, sizeof err), WEST_OK);
	cr_assert_eq(be, &west_backend_cpu);
}

Test(backend, auto_falls_back_and_says_why)
{
	const struct west_backend *be = NULL;
	char note[WEST_ERRLEN], err[WEST_ERRLEN], why[WEST_ERRLEN], *log = NULL;
	size_t loglen = 0;
	FILE *f = open_memstream(&log, &loglen);

	west_log_set_stream(f);
	cr_assert_eq(west_backend_select(WEST_BACKEND_AUTO, &be, note, sizeof note,
					 err, sizeof err), WEST_OK);
	west_log_set_stream(NULL);
	fclose(f);
	if (gpu_usable(why, sizeof why)) {
		cr_assert_str_eq(be->name, "cuda");
		cr_assert_str_eq(note, "backend auto chose cuda");
	} else {
		cr_assert_eq(be, &west_backend_cpu);
		cr_assert(strstr(note, "backend auto chose cpu: ") != NULL, "note: %s", note);
		cr_assert(strstr(note, why) != NULL, "note '%s' lacks '%s'", note, why);
		cr_assert(strstr(log, note) != NULL, "log: %s", log);
	}
	free(log);
}

Test(backend, cuda_choice_fails_clearly_without_gpu)
{
	const struct west_backend *be = NULL;
	char note[WEST_ERRLEN], err[WEST_ERRLEN] = "", why[WEST_ERRLEN];
	enum west_status st = west_backend_select(WEST_BACKEND_CUDA, &be, note,
						  sizeof note, err, sizeof err);
	if (gpu_usable(why, sizeof why)) {
		cr_assert_eq(st, WEST_OK);
		cr_assert_str_eq(be->name, "cuda");
	} else {
		cr_assert_eq(st, WEST_ERR_UNSUPPORTED);
		cr_assert(strstr(err, "backend cuda: ") == err, "err: %s", err);
		cr_assert(strstr(err, why) != NULL, "err '%s' lacks '%s'", err, why);
	}
}

/* init, upload twice (a terrain reload), describe, free. */
static void lifecycle(const struct west_backend *be, size_t want_bytes,
		      const char *want_desc)
{
	void *state = NULL;
	char err[WEST_ERRLEN], desc[256];
	cr_assert_eq(be->init(&state, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(be->upload_terrain(state, &grid, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(be->device_bytes(state), want_bytes, "%s: %zu device bytes, want %zu",
		     be->name, be->device_bytes(state), want_bytes);
	cr_assert_eq(be->upload_terrain(state, &grid, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(be->device_bytes(state), want_bytes, "%s: %zu device bytes after a reload, want %zu",
		     be->name, be->device_bytes(state), want_bytes);
	be->describe(state, desc, sizeof desc);
	cr_assert(strstr(desc, want_desc) != NULL, "describe: %s", desc);
	be->free(state);
}

Test(backend, cpu_lifecycle, .init = load_hill, .fini = free_hill)
{
	lifecycle(&west_backend_cpu, 0, "CPU, ");
}

/* The CUDA backend's switches (docs/operations.md) take 0 or 1 and refuse
 * anything else by name, before any device is touched. */
Test(backend, cuda_switches_refuse_other_values)
{
#ifdef WEST_HAVE_CUDA
	static const char *const names[] = { "WEST_CUDA_GRAPHS", "WEST_CUDA_EARLY_UV",
					     "WEST_CUDA_INDEX64" };
	for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
		char err[WEST_ERRLEN] = "";
		void *state = NULL;
		setenv(names[n], "yes", 1);
		cr_assert_eq(west_backend_cuda.init(&state, err, sizeof err), WEST_ERR_INVALID,
			     "%s=yes: %s", names[n], err);
		cr_assert(strstr(err, names[n]) && strstr(err, "=yes: unknown"), "%s", err);
		west_backend_cuda.free(state);
		unsetenv(names[n]);
	}
#else
	cr_skip_test("cuda backend test skipped: not built (--with-cuda=no)");
#endif
}

Test(backend, cuda_lifecycle, .init = load_hill, .fini = free_hill)
{
	gpu_skip_unless_usable();
#ifdef WEST_HAVE_CUDA
	/* resident: terrain altitude, ground height above the base and class
	 * per column (9 B, backend_cuda.c); levels (zc, rdz, rdzf, and the
	 * centre altitudes in double); the land mask; TX, TY, TZ and the
	 * field's u, v, w (the station arrays come with the first run) */
	size_t cols = grid.nx * grid.ny, nz = grid.nz;
	size_t want = cols * (2 * sizeof(float) + 1) +
		(3 * nz + 1) * sizeof(float) + nz * sizeof(double) +
		west_grid_ncells(&grid) +
		2 * (west_grid_nxfaces(&grid) + west_grid_nyfaces(&grid) +
		     west_grid_nzfaces(&grid)) * sizeof(float);
	lifecycle(&west_backend_cuda, want, "CUDA device 0: ");
#endif
}
