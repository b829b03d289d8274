/*
 * ranks.h: MPI ranks (configure --with-mpi; docs/design.md section 5).
 * Started by mpirun with N > 1 processes, `west run` and westd cut the
 * grid into N slabs, one per rank (parts.h): every rank loads the
 * configuration and the terrain; rank 0 reads the observations (west run)
 * or serves HTTP and ingests them (westd), sends each set to the others
 * with its solve options (an order), all solve, and rank 0 gathers the
 * field, publishes and writes it.  Without MPI, or with one process,
 * there is one rank (0) and these do nothing.
 */
#ifndef WEST_RANKS_H
#define WEST_RANKS_H

#include <stddef.h>

#include "model.h"
#include "obs.h"
#include "status.h"

/* MPI_Init_thread (any one thread at a time may call MPI: westd's compute
 * worker does) when built with MPI and started by an MPI launcher (a
 * process started alone does not touch MPI); the number of ranks (1
 * otherwise).  Ends the job when MPI cannot give that thread level. */
int west_ranks_start(int *argc, char ***argv);
/* MPI_Finalize after a start. */
void west_ranks_stop(void);
/* This process's rank and the number of ranks (0 and 1 before a start
 * or without MPI). */
int west_ranks_me(void);
int west_ranks_count(void);
/* This rank's number among the ranks of its host (MPI's shared-memory
 * communicator; 0 without MPI): GPU ranks take GPU local % count. */
int west_ranks_local(void);
/* Rank 0's `bytes` at p into every rank's p (MPI_Bcast); whether ok is
 * set on every rank (MPI_Allreduce); without ranks, nothing and ok. */
void west_ranks_bcast(void *p, size_t bytes);
int west_ranks_all(int ok);
/* Every rank's `bytes` at mine into all (rank r's at all + r bytes; all
 * holds west_ranks_count() of them): MPI_Allgather, or a copy. */
void west_ranks_allgather(const void *mine, void *all, size_t bytes);
/* End every rank with exit status code (MPI_Abort; exit without MPI). */
void west_ranks_abort(int code);
/*
 * Rank 0's set (its stations, valid time and reading summary) into every
 * rank's *set (freed first on the others); *ok: rank 0's verdict, 0 when
 * it had none to send (every rank then stops).
 */
enum west_status west_ranks_share_obs(struct west_obs_set *set, int *ok, char *err,
				      size_t errlen);

/* Rank 0: every other rank is to solve set with o (they wait in
 * west_ranks_wait); to load and upload the terrain of configuration c
 * (a reload: each then says whether it could, west_ranks_all, and all
 * keep the new grid or all the old); or to stop. */
enum west_status west_ranks_order_solve(const struct west_obs_set *set,
					const struct west_solve_opts *o, char *err,
					size_t errlen);
void west_ranks_order_grid(const struct west_config *c);
void west_ranks_order_stop(void);

/* The other ranks: wait for rank 0's next order: SOLVE *set (rank 0's,
 * replacing *set) with *o, take the GRID of configuration *c, or STOP
 * (also on a failure: err). */
enum west_ranks_order { WEST_RANKS_STOP, WEST_RANKS_SOLVE, WEST_RANKS_GRID };
enum west_ranks_order west_ranks_wait(struct west_obs_set *set, struct west_solve_opts *o,
				      struct west_config *c, char *err, size_t errlen);

#endif
