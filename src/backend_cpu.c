/*
 * backend_cpu.c: the CPU backend, the reference every other backend is
 * checked against, and the production path on machines without a GPU.
 * Host memory is its device: upload_terrain keeps a pointer to the caller's
 * grid, which must outlive the state (or be re-uploaded).  Kernels run as
 * the plain-C references in kernels/ C files, parallel with OpenMP.
 */
#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

struct cpu_state {
	const struct west_grid *grid;
};

static enum west_status cpu_probe(char *err, size_t errlen)
{
	(void)err, (void)errlen;
	return WEST_OK;
}

static enum west_status cpu_init(void **state, char *err, size_t errlen)
{
	struct cpu_state *s = calloc(1, sizeof *s);
	if (!s)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "cpu backend: out of memory");
	*state = s;
	return WEST_OK;
}

static void cpu_free(void *state)
{
	free(state);
}

static enum west_status cpu_upload_terrain(void *state, const struct west_grid *g,
					   char *err, size_t errlen)
{
	(void)err, (void)errlen;
	((struct cpu_state *)state)->grid = g;
	return WEST_OK;
}

static void cpu_describe(void *state, char *buf, size_t len)
{
	int threads = 1;
	(void)state;
#ifdef _OPENMP
	threads = omp_get_max_threads();
#endif
	snprintf(buf, len, "CPU, %d OpenMP thread%s", threads, threads == 1 ? "" : "s");
}

static size_t cpu_device_bytes(void *state)
{
	(void)state;
	return 0;
}

const struct west_backend west_backend_cpu = {
	.name = "cpu",
	.probe = cpu_probe,
	.init = cpu_init,
	.free = cpu_free,
	.upload_terrain = cpu_upload_terrain,
	.describe = cpu_describe,
	.device_bytes = cpu_device_bytes,
};
