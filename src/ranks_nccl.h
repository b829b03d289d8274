/*
 * ranks_nccl.h: rows between GPU ranks through NCCL (ranks_nccl.c), the
 * CUDA table's ranks_* entries (model.h).  Built with MPI and NCCL's
 * header (configure --with-nccl); WEST_RANKS_NCCL says so.
 */
#ifndef WEST_RANKS_NCCL_H
#define WEST_RANKS_NCCL_H

#include <stddef.h>

#include "status.h"

#if defined(WEST_HAVE_MPI) && defined(WEST_HAVE_NCCL)
#define WEST_RANKS_NCCL 1
enum west_status west_ranks_nccl_open(void **comm, char *err, size_t errlen);
void west_ranks_nccl_close(void *comm);
enum west_status west_ranks_nccl_group(void *comm, int begin, int side);
enum west_status west_ranks_nccl_rows(void *comm, int send, float *p, size_t count, size_t n,
				      size_t pitch, int peer);
enum west_status west_ranks_nccl_wait(void *comm);
#endif

#endif
