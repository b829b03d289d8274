/*
 * cuda_check.h: checking every CUDA runtime call and kernel launch.
 *
 * WEST_CUDA_LOG(call) logs "file:line: call: error string" and returns
 * WEST_ERR_CUDA from the enclosing function (for launchers, which have no
 * message buffer); WEST_CUDA_TRY(call, err, errlen) writes the same into
 * the caller's buffer.  After a kernel launch, check cudaGetLastError().
 */
#ifndef WEST_CUDA_CHECK_H
#define WEST_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#include "log.h"
#include "status.h"

#define WEST_CUDA_LOG(call)                                                   \
	do {                                                                  \
		cudaError_t e_ = (call);                                      \
		if (e_ != cudaSuccess) {                                      \
			west_log(WEST_LOG_ERR, "%s:%d: %s: %s", __FILE__,     \
				 __LINE__, #call, cudaGetErrorString(e_));    \
			return WEST_ERR_CUDA;                                 \
		}                                                             \
	} while (0)

#define WEST_CUDA_TRY(call, err, errlen)                                      \
	do {                                                                  \
		cudaError_t e_ = (call);                                      \
		if (e_ != cudaSuccess)                                        \
			return west_fail((err), (errlen), WEST_ERR_CUDA,      \
					 "%s: %s", #call,                     \
					 cudaGetErrorString(e_));             \
	} while (0)

#endif
