/*
 * ranks_nccl.c: rows between GPU ranks through NCCL (the CUDA table's
 * ranks_* entries, model.h; docs/design.md section 5).
 *
 * libnccl.so.2 is loaded when the first set of GPU ranks is built, not
 * linked: the binary starts where there is no NCCL (as the static CUDA
 * runtime lets it start where there is no GPU), and a set whose ranks
 * cannot all load it stages its rows through host memory instead
 * (parts.c).  The communicator is made over MPI: every rank says whether
 * it loaded the library (west_ranks_all), rank 0's unique id is broadcast
 * (west_ranks_bcast), and each rank joins with its rank.
 *
 * Rows are strided runs (a row of each plane); NCCL takes contiguous
 * buffers, so a send packs the runs into a device buffer by a 2D copy and
 * a receive unpacks them from one, all on the calling thread's stream
 * (cudaStreamPerThread, as the kernels: the communicator is a blocking
 * one, so NCCL launches on the caller's stream) or, for a group posted
 * beside the kernels (`side`), on a second stream that starts after what
 * the thread queued before, which ranks_wait joins.  Nothing here waits
 * on the host.  Built only with MPI and nccl.h (configure --with-nccl).
 */
#include "ranks_nccl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "log.h"
#include "ranks.h"

#if defined(WEST_HAVE_MPI) && defined(WEST_HAVE_NCCL)
#include <nccl.h>

/* The library's entries, from dlsym. */
static struct {
	int tried, ok;
	char why[WEST_ERRLEN];
	ncclResult_t (*get_unique_id)(ncclUniqueId *);
	ncclResult_t (*comm_init_rank)(ncclComm_t *, int, ncclUniqueId, int);
	ncclResult_t (*comm_destroy)(ncclComm_t);
	ncclResult_t (*send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
	ncclResult_t (*recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
	ncclResult_t (*group_start)(void);
	ncclResult_t (*group_end)(void);
	const char *(*error_string)(ncclResult_t);
} lib;

static int load(void)
{
	void *h;
	if (lib.tried)
		return lib.ok;
	lib.tried = 1;
	if (!(h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL))) {
		snprintf(lib.why, sizeof lib.why, "cannot load libnccl.so.2: %s", dlerror());
		return 0;
	}
	/* POSIX: a function pointer through the object pointer dlsym returns */
#define ENTRY(field, name) \
	if (!(*(void **)&lib.field = dlsym(h, name))) { \
		snprintf(lib.why, sizeof lib.why, "libnccl.so.2 has no %s", name); \
		return 0; \
	}
	ENTRY(get_unique_id, "ncclGetUniqueId")
	ENTRY(comm_init_rank, "ncclCommInitRank")
	ENTRY(comm_destroy, "ncclCommDestroy")
	ENTRY(send, "ncclSend")
	ENTRY(recv, "ncclRecv")
	ENTRY(group_start, "ncclGroupStart")
	ENTRY(group_end, "ncclGroupEnd")
	ENTRY(error_string, "ncclGetErrorString")
#undef ENTRY
	return lib.ok = 1;
}

#define SLOTS 4   /* messages of one kind in one group (two neighbours) */

struct comm {
	ncclComm_t nc;
	cudaStream_t side;
	cudaEvent_t before, after;   /* the thread's stream, the side's end */
	int group, on_side, side_pending;
	int used[2];                 /* slots of each kind in the open group */
	float *buf[2][SLOTS];        /* device: [0] sends, [1] receives */
	size_t cap[2][SLOTS];        /* floats */
	struct {
		float *p, *buf;
		size_t count, n, pitch;
	} out[SLOTS];                /* the group's receives, unpacked at its end */
	int nout;
};

static enum west_status nccl_done(ncclResult_t r, const char *what)
{
	if (r == ncclSuccess)
		return WEST_OK;
	west_log(WEST_LOG_ERR, "ranks: NCCL %s: %s", what, lib.error_string(r));
	return WEST_ERR_CUDA;
}

static enum west_status cuda_done(cudaError_t e, const char *what)
{
	if (e == cudaSuccess)
		return WEST_OK;
	west_log(WEST_LOG_ERR, "ranks: %s: %s", what, cudaGetErrorString(e));
	return WEST_ERR_CUDA;
}

void west_ranks_nccl_close(void *comm)
{
	struct comm *c = comm;
	if (!c)
		return;
	cudaStreamSynchronize(c->side);
	if (c->nc)
		lib.comm_destroy(c->nc);
	for (int k = 0; k < 2; k++)
		for (int s = 0; s < SLOTS; s++)
			cudaFree(c->buf[k][s]);
	cudaEventDestroy(c->before), cudaEventDestroy(c->after);
	cudaStreamDestroy(c->side);
	free(c);
}

/*
 * NCCL connects two ranks at their first message (0.6 s between two GPUs
 * of one host, docs/benchmarks.md): one float each way between every
 * two ranks that will exchange rows (neighbours, and rank 0 with every
 * rank: the tail's level), so that the first solve does not pay it.
 */
static enum west_status warm(struct comm *c, char *err, size_t errlen)
{
	int me = west_ranks_me(), n = west_ranks_count();
	float *x = NULL;
	enum west_status st = cuda_done(cudaMalloc((void **)&x, 2 * sizeof *x), "warm-up");

	if (st)
		return west_fail(err, errlen, st, "NCCL: no memory for the warm-up");
	ncclResult_t r = lib.group_start();
	for (int p = 0; p < n && r == ncclSuccess; p++)
		if (p != me && (p == me - 1 || p == me + 1 || p == 0 || me == 0) &&
		    (r = lib.send(x, 1, ncclFloat32, p, c->nc, cudaStreamPerThread)) == ncclSuccess)
			r = lib.recv(x + 1, 1, ncclFloat32, p, c->nc, cudaStreamPerThread);
	ncclResult_t end = lib.group_end();
	cudaError_t e = cudaStreamSynchronize(cudaStreamPerThread);
	cudaFree(x);
	if (r == ncclSuccess)
		r = end;
	if (r != ncclSuccess || e != cudaSuccess)
		return west_fail(err, errlen, WEST_ERR_CUDA, "NCCL: the warm-up: %s",
				 r != ncclSuccess ? lib.error_string(r) : cudaGetErrorString(e));
	return WEST_OK;
}

/*
 * NCCL refuses two ranks of one GPU (several ranks of a host with fewer
 * GPUs, backend_cuda.c, or CUDA_VISIBLE_DEVICES alike): every rank's host
 * and GPU (its PCI bus id) to every rank, so that all see the same pair
 * and all stage their rows.  Ranks given one GPU each by
 * CUDA_VISIBLE_DEVICES (each sees it as device 0) share none.
 */
static enum west_status shared_gpu(char *err, size_t errlen)
{
	struct where { char host[64], bus[32]; } mine = { { 0 }, { 0 } }, *all;
	int n = west_ranks_count(), dev = 0;
	enum west_status st = WEST_OK;

	if (gethostname(mine.host, sizeof mine.host - 1) || cudaGetDevice(&dev) ||
	    cudaDeviceGetPCIBusId(mine.bus, sizeof mine.bus, dev))
		snprintf(mine.bus, sizeof mine.bus, "unknown, rank %d", west_ranks_me());
	if (!(all = calloc((size_t)n, sizeof *all)))
		return west_fail(err, errlen, WEST_ERR_NOMEM, "NCCL: out of memory");
	west_ranks_allgather(&mine, all, sizeof mine);
	for (int a = 0; a < n && !st; a++)
		for (int b = a + 1; b < n && !st; b++)
			if (!strcmp(all[a].host, all[b].host) && !strcmp(all[a].bus, all[b].bus))
				st = west_fail(err, errlen, WEST_ERR_UNSUPPORTED, "NCCL: ranks %d "
					       "and %d share the GPU %s of %s, which NCCL refuses",
					       a, b, all[a].bus, all[a].host);
	free(all);
	return st;
}

enum west_status west_ranks_nccl_open(void **comm, char *err, size_t errlen)
{
	struct comm *c;
	ncclUniqueId id;
	ncclResult_t r = ncclSuccess;
	int me = west_ranks_me(), ok = load();
	enum west_status st;

	*comm = NULL;
	if (!west_ranks_all(ok))   /* every rank, or none: NCCL's init is collective */
		return west_fail(err, errlen, WEST_ERR_UNSUPPORTED, "NCCL: %s",
				 ok ? "not on every rank (another rank says why)" : lib.why);
	if ((st = shared_gpu(err, errlen)))
		return st;
	if (me == 0)
		r = lib.get_unique_id(&id);
	if (!west_ranks_all(r == ncclSuccess))
		return west_fail(err, errlen, WEST_ERR_CUDA, "NCCL: no unique id on rank 0");
	west_ranks_bcast(&id, sizeof id);
	/* (a rank that cannot make its streams never joins the others in
	 * ncclCommInitRank, which then waits for it: such a rank is out of
	 * memory, and so are its solves) */
	c = calloc(1, sizeof *c);
	cudaError_t e = c ? cudaStreamCreateWithFlags(&c->side, cudaStreamNonBlocking) :
			    cudaErrorMemoryAllocation;
	if (e == cudaSuccess)
		e = cudaEventCreateWithFlags(&c->before, cudaEventDisableTiming);
	if (e == cudaSuccess)
		e = cudaEventCreateWithFlags(&c->after, cudaEventDisableTiming);
	if (e == cudaSuccess && (r = lib.comm_init_rank(&c->nc, west_ranks_count(), id, me)))
		c->nc = NULL;
	st = e != cudaSuccess || r != ncclSuccess ?
		west_fail(err, errlen, WEST_ERR_CUDA, "NCCL: %s",
			  e != cudaSuccess ? cudaGetErrorString(e) : lib.error_string(r)) :
		WEST_OK;
	/* every rank through NCCL, or none: each step all or none */
	if (west_ranks_all(!st) && (st = warm(c, err, errlen), west_ranks_all(!st))) {
		*comm = c;
		return WEST_OK;
	}
	if (!st)
		st = west_fail(err, errlen, WEST_ERR_CUDA, "NCCL: failed on another rank (it "
			       "says why)");
	west_ranks_nccl_close(c);
	return st;
}

static cudaStream_t stream_of(const struct comm *c)
{
	return c->on_side ? c->side : cudaStreamPerThread;
}

enum west_status west_ranks_nccl_group(void *comm, int begin, int side)
{
	struct comm *c = comm;
	enum west_status st = WEST_OK;
	if (begin) {
		if (side && ((st = cuda_done(cudaEventRecord(c->before, cudaStreamPerThread),
					     "event")) ||
			     (st = cuda_done(cudaStreamWaitEvent(c->side, c->before, 0), "wait"))))
			return st;
		c->on_side = side, c->group = 1;
		c->used[0] = c->used[1] = 0, c->nout = 0;
		return nccl_done(lib.group_start(), "group start");
	}
	c->group = 0;
	if ((st = nccl_done(lib.group_end(), "group end")))
		return st;
	for (int i = 0; i < c->nout && !st; i++)
		st = cuda_done(cudaMemcpy2DAsync(c->out[i].p, c->out[i].pitch * sizeof(float),
						 c->out[i].buf, c->out[i].n * sizeof(float),
						 c->out[i].n * sizeof(float), c->out[i].count,
						 cudaMemcpyDeviceToDevice, stream_of(c)),
			       "unpacking rows");
	if (!st && c->on_side) {
		st = cuda_done(cudaEventRecord(c->after, c->side), "event");
		c->side_pending = 1;
	}
	c->on_side = 0;
	return st;
}

enum west_status west_ranks_nccl_wait(void *comm)
{
	struct comm *c = comm;
	if (!c->side_pending)
		return WEST_OK;
	c->side_pending = 0;
	return cuda_done(cudaStreamWaitEvent(cudaStreamPerThread, c->after, 0), "wait");
}

enum west_status west_ranks_nccl_rows(void *comm, int send, float *p, size_t count, size_t n,
				      size_t pitch, int peer)
{
	struct comm *c = comm;
	int k = !send, s = c->group ? c->used[k]++ : 0;
	size_t floats = count * n, f = sizeof(float);
	cudaStream_t q = stream_of(c);
	enum west_status st;

	if (s >= SLOTS)
		abort();   /* more than two neighbours: not a cut into slabs */
	if (c->cap[k][s] < floats) {   /* grows to the largest run set; frees wait */
		cudaFree(c->buf[k][s]);
		c->cap[k][s] = 0;
		if ((st = cuda_done(cudaMalloc((void **)&c->buf[k][s], floats * f), "staging")))
			return st;
		c->cap[k][s] = floats;
	}
	float *b = c->buf[k][s];
	if (send)
		return (st = cuda_done(cudaMemcpy2DAsync(b, n * f, p, pitch * f, n * f, count,
							 cudaMemcpyDeviceToDevice, q),
				       "packing rows")) ?
			       st : nccl_done(lib.send(b, floats, ncclFloat32, peer, c->nc, q), "send");
	if ((st = nccl_done(lib.recv(b, floats, ncclFloat32, peer, c->nc, q), "receive")))
		return st;
	if (c->group) {   /* arrives at the group's end */
		c->out[c->nout].p = p, c->out[c->nout].buf = b;
		c->out[c->nout].count = count, c->out[c->nout].n = n, c->out[c->nout].pitch = pitch;
		c->nout++;
		return WEST_OK;
	}
	return cuda_done(cudaMemcpy2DAsync(p, pitch * f, b, n * f, n * f, count,
					   cudaMemcpyDeviceToDevice, q), "unpacking rows");
}
#endif
