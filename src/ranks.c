/*
 * ranks.c: MPI ranks (ranks.h).
 */
#include "ranks.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"

#ifdef WEST_HAVE_MPI
#include <mpi.h>
#endif

static int started, me, count = 1, local;

#ifdef WEST_HAVE_MPI
/* Whether an MPI launcher (mpirun, mpiexec, srun) started this process:
 * Open MPI's, PMIx's and MPICH's environment. */
static int launched(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}
#endif

int west_ranks_start(int *argc, char ***argv)
{
#ifdef WEST_HAVE_MPI
	int level = 0;
	if (!started && launched() &&
	    MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &level) == MPI_SUCCESS) {
		started = 1;
		MPI_Comm host;
		MPI_Comm_rank(MPI_COMM_WORLD, &me);
		MPI_Comm_size(MPI_COMM_WORLD, &count);
		if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL,
					&host) == MPI_SUCCESS) {
			MPI_Comm_rank(host, &local);
			MPI_Comm_free(&host);
		}
		if (level < MPI_THREAD_SERIALIZED && count > 1) {
			west_log(WEST_LOG_ERR, "MPI gives thread level %d, below "
				 "MPI_THREAD_SERIALIZED: ranks are not used", level);
			west_ranks_abort(1);
		}
	}
#else
	(void)argc, (void)argv;
#endif
	return count;
}

void west_ranks_stop(void)
{
#ifdef WEST_HAVE_MPI
	if (started)
		MPI_Finalize();
#endif
	started = 0, me = 0, count = 1, local = 0;
}

int west_ranks_me(void)
{
	return me;
}

int west_ranks_count(void)
{
	return count;
}

int west_ranks_local(void)
{
	return local;
}

void west_ranks_bcast(void *p, size_t bytes)
{
#ifdef WEST_HAVE_MPI
	if (count > 1)
		MPI_Bcast(p, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
#else
	(void)p, (void)bytes;
#endif
}

void west_ranks_allgather(const void *mine, void *all, size_t bytes)
{
#ifdef WEST_HAVE_MPI
	if (count > 1) {
		MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
		return;
	}
#endif
	memcpy(all, mine, bytes);
}

int west_ranks_all(int ok)
{
#ifdef WEST_HAVE_MPI
	int all = ok != 0;
	if (count > 1)
		MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	return all;
#else
	return ok;
#endif
}

void west_ranks_abort(int code)
{
#ifdef WEST_HAVE_MPI
	if (started && count > 1)
		MPI_Abort(MPI_COMM_WORLD, code);
#endif
	exit(code);
}

enum west_status west_ranks_share_obs(struct west_obs_set *set, int *ok, char *err,
				      size_t errlen)
{
#ifdef WEST_HAVE_MPI
	unsigned long long n = set->n;
	int go = *ok;

	if (count < 2)
		return WEST_OK;
	MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
	*ok = go;
	if (!go)
		return WEST_OK;
	MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
	if (me) {
		west_obs_set_free(set);
		if (!(set->obs = calloc(n ? n : 1, sizeof *set->obs)))
			return west_fail(err, errlen, WEST_ERR_NOMEM,
					 "rank %d: no memory for %llu stations", me, n);
		set->n = n;
	}
	/* plain data: the same build on every rank */
	MPI_Bcast(set->obs, (int)(n * sizeof *set->obs), MPI_BYTE, 0, MPI_COMM_WORLD);
	MPI_Bcast(&set->valid_time, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
	MPI_Bcast(&set->times, (int)sizeof set->times, MPI_BYTE, 0, MPI_COMM_WORLD);
#else
	(void)set, (void)ok, (void)err, (void)errlen;
#endif
	return WEST_OK;
}

enum west_status west_ranks_order_solve(const struct west_obs_set *set,
					const struct west_solve_opts *o, char *err,
					size_t errlen)
{
#ifdef WEST_HAVE_MPI
	int order = WEST_RANKS_SOLVE, ok = 1;
	if (count < 2)
		return WEST_OK;
	MPI_Bcast(&order, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Bcast((void *)o, (int)sizeof *o, MPI_BYTE, 0, MPI_COMM_WORLD);
	return west_ranks_share_obs((struct west_obs_set *)set, &ok, err, errlen);
#else
	(void)set, (void)o, (void)err, (void)errlen;
	return WEST_OK;
#endif
}

void west_ranks_order_grid(const struct west_config *c)
{
#ifdef WEST_HAVE_MPI
	int order = WEST_RANKS_GRID;
	if (count > 1 && me == 0) {
		MPI_Bcast(&order, 1, MPI_INT, 0, MPI_COMM_WORLD);
		/* plain data: the same build on every rank */
		MPI_Bcast((void *)c, (int)sizeof *c, MPI_BYTE, 0, MPI_COMM_WORLD);
	}
#else
	(void)c;
#endif
}

void west_ranks_order_stop(void)
{
#ifdef WEST_HAVE_MPI
	int order = WEST_RANKS_STOP;
	if (count > 1 && me == 0)
		MPI_Bcast(&order, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
}

enum west_ranks_order west_ranks_wait(struct west_obs_set *set, struct west_solve_opts *o,
				      struct west_config *c, char *err, size_t errlen)
{
#ifdef WEST_HAVE_MPI
	int order = WEST_RANKS_STOP, ok = 1;
	MPI_Bcast(&order, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (order == WEST_RANKS_GRID) {
		MPI_Bcast(c, (int)sizeof *c, MPI_BYTE, 0, MPI_COMM_WORLD);
		return WEST_RANKS_GRID;
	}
	if (order != WEST_RANKS_SOLVE)
		return WEST_RANKS_STOP;
	MPI_Bcast(o, (int)sizeof *o, MPI_BYTE, 0, MPI_COMM_WORLD);
	return !west_ranks_share_obs(set, &ok, err, errlen) && ok ? WEST_RANKS_SOLVE :
								    WEST_RANKS_STOP;
#else
	(void)set, (void)o, (void)c, (void)err, (void)errlen;
	return WEST_RANKS_STOP;
#endif
}
