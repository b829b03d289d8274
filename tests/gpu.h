/*
 * gpu.h: for tests that need a CUDA device.  gpu_skip_unless_usable() skips
 * the calling Criterion test with the reason (not built, no device, device
 * failed the smoke check) when the CUDA backend cannot run here.
 */
#ifndef WEST_TESTS_GPU_H
#define WEST_TESTS_GPU_H

#include "backend.h"

static inline int gpu_usable(char *why, size_t len)
{
	return west_backend_probe("cuda", why, len) == WEST_OK;
}

#define gpu_skip_unless_usable()                                              \
	do {                                                                  \
		char why_[WEST_ERRLEN];                                       \
		if (!gpu_usable(why_, sizeof why_))                           \
			cr_skip_test("GPU test skipped: %s", why_);           \
	} while (0)

#endif
