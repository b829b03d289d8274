/*
 * parts.c: partition sets (parts.h): the cut into slabs, each partition's
 * slab, views, field and hierarchy in its backend's memory, the tail, and
 * the exchanges between partitions.
 */
#include "parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "ranks.h"

#ifdef WEST_HAVE_MPI
#include <mpi.h>
#endif

#define EACH(ps, p) WEST_EACH_PART(ps, p)

static int mine(const struct west_parts *ps, const struct west_part *q)
{
	return q->rank == ps->me;
}

/* On a backend of devices (ps->bind): q's device bound for the
 * calls that follow; join: what is queued after it on any of the set's
 * devices runs after what was queued before on all (around the copies
 * between partitions, which go on the sending device's stream). */
static void bind(const struct west_parts *ps, const struct west_part *q)
{
	west_part_bind(ps, q);
}

static enum west_status join(const struct west_parts *ps)
{
	const struct west_kernel_ops *k = ps->gpu;
	enum west_status st = ps->ndev > 1 ? k->join(ps->devs, ps->ndev) : WEST_OK;

	/* a CPU beside GPUs: its kernels and the copies from and into its
	 * host memory run when called, so the host waits for every GPU */
	for (int d = 0; d < ps->ndev && ps->cpu && k && !st; d++)
		if (!(st = k->bind(ps->devs[d])))
			st = k->sync();
	return st;
}

/* st, after an exchange's copies (begun after a join): the join that
 * orders them before what follows, and partition 0's device (the
 * tail's) bound. */
static enum west_status joined(const struct west_parts *ps, enum west_status st)
{
	enum west_status j = join(ps);
	bind(ps, &ps->part[0]);
	return st ? st : j;
}

/* ------------------------------------------------------ MPI messages */

/*
 * Between ranks, `count` runs of n floats, `pitch` floats apart, travel as
 * one message.  From and into host memory (CPU partitions, and rank 0's
 * whole field) they go straight from and into the arrays (an MPI vector
 * type).  From and into a partition's device memory (GPU ranks: the set is
 * `staged`) they are packed by the partition's table (k, its device bound)
 * into a page-locked buffer, contiguous, and unpacked from one on arrival.
 * Messages between two ranks arrive in the order they were sent, and every
 * rank takes the same steps, so one tag does.
 */
#ifdef WEST_HAVE_MPI
/* A rank's messages: the halo rows in flight (west_parts_halo_post: one
 * each way with each of two neighbours at most; the staged ones' arrival
 * places, unpacked by halo_wait) and the staging buffers, one per message
 * in flight and two for the blocking ones. */
#define PENDING_MAX 4
#define BLOCKING_BUF PENDING_MAX
struct wire {
	int n;
	MPI_Request req[PENDING_MAX];
	MPI_Datatype type[PENDING_MAX];   /* MPI_DATATYPE_NULL when staged */
	struct {
		const struct west_kernel_ops *k;   /* NULL: nothing to unpack */
		float *at;
		size_t count, n, pitch;
	} in[PENDING_MAX];
	float *buf[PENDING_MAX + 2];
	size_t cap[PENDING_MAX + 2];       /* floats */
	const struct west_kernel_ops *ops;  /* the buffers' host_alloc */
};

static MPI_Datatype runs(size_t count, size_t n, size_t pitch)
{
	MPI_Datatype t;
	MPI_Type_vector((int)count, (int)n, (int)pitch, MPI_FLOAT, &t);
	MPI_Type_commit(&t);
	return t;
}

static enum west_status mpi_done(int rc, const char *what)
{
	if (rc == MPI_SUCCESS)
		return WEST_OK;
	west_log(WEST_LOG_ERR, "partitions: MPI %s failed (%d)", what, rc);
	return WEST_ERR_IO;
}

/* Staging buffer i freed (by the table's host_free where it allocates). */
static void buf_free(struct wire *w, int i)
{
	if (w->ops->host_free)
		w->ops->host_free(w->buf[i]);
	else
		free(w->buf[i]);
	w->buf[i] = NULL, w->cap[i] = 0;
}

static void wire_free(struct wire *w)
{
	for (int i = 0; w && i < PENDING_MAX + 2; i++)
		buf_free(w, i);
	free(w);
}

/* Buffer i of at least `floats` floats (NULL when out of memory). */
static float *buffer(const struct west_parts *ps, int i, size_t floats)
{
	struct wire *w = ps->pending;
	if (w->cap[i] >= floats)
		return w->buf[i];
	buf_free(w, i);
	w->buf[i] = w->ops->host_alloc ? w->ops->host_alloc(floats * sizeof(float)) :
					 malloc(floats * sizeof(float));
	w->cap[i] = w->buf[i] ? floats : 0;
	if (!w->buf[i])
		west_log(WEST_LOG_ERR, "partitions: no memory to stage %zu floats", floats);
	return w->buf[i];
}

/* The runs at p of table k's memory into (pack) or from (!pack) the
 * contiguous host buffer buf, done when it returns. */
static enum west_status stage(const struct west_kernel_ops *k, int pack, float *p,
			      float *buf, size_t count, size_t n, size_t pitch)
{
	char err[WEST_ERRLEN];
	size_t f = sizeof *p;
	enum west_status st = pack ? k->copy2d(buf, n * f, p, pitch * f, n * f, count, err,
					       sizeof err)
				   : k->copy2d(p, pitch * f, buf, n * f, n * f, count, err,
					       sizeof err);
	if (!st && k->sync)
		st = k->sync();
	else if (st)
		west_log(WEST_LOG_ERR, "partitions: staging rows: %s", err);
	return st;
}

/* Runs at p (of table k's memory; NULL: host memory) to rank `to`. */
static enum west_status send_runs(const struct west_parts *ps, const struct west_kernel_ops *k,
				  const float *p, size_t count, size_t n, size_t pitch, int to)
{
	if (k) {
		float *b = buffer(ps, BLOCKING_BUF, count * n);
		enum west_status st = b ? stage(k, 1, (float *)p, b, count, n, pitch) :
					  WEST_ERR_NOMEM;
		return st ? st : mpi_done(MPI_Send(b, (int)(count * n), MPI_FLOAT, to, 0,
						   MPI_COMM_WORLD), "send");
	}
	MPI_Datatype t = runs(count, n, pitch);
	int rc = MPI_Send(p, 1, t, to, 0, MPI_COMM_WORLD);
	MPI_Type_free(&t);
	return mpi_done(rc, "send");
}

static enum west_status recv_runs(const struct west_parts *ps, const struct west_kernel_ops *k,
				  float *p, size_t count, size_t n, size_t pitch, int from)
{
	if (k) {
		float *b = buffer(ps, BLOCKING_BUF, count * n);
		enum west_status st = b ? mpi_done(MPI_Recv(b, (int)(count * n), MPI_FLOAT, from,
							    0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
						   "receive") : WEST_ERR_NOMEM;
		return st ? st : stage(k, 0, p, b, count, n, pitch);
	}
	MPI_Datatype t = runs(count, n, pitch);
	int rc = MPI_Recv(p, 1, t, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Type_free(&t);
	return mpi_done(rc, "receive");
}

/* Runs from sp to rank `with`, and as many from it into rp, at once. */
static enum west_status swap_runs(const struct west_parts *ps, const struct west_kernel_ops *k,
				  const float *sp, size_t spitch, float *rp, size_t rpitch,
				  size_t count, size_t n, int with)
{
	if (k) {
		float *s = buffer(ps, BLOCKING_BUF, count * n),
		      *r = buffer(ps, BLOCKING_BUF + 1, count * n);
		enum west_status st = s && r ? stage(k, 1, (float *)sp, s, count, n, spitch) :
					       WEST_ERR_NOMEM;
		if (!st)
			st = mpi_done(MPI_Sendrecv(s, (int)(count * n), MPI_FLOAT, with, 0, r,
						   (int)(count * n), MPI_FLOAT, with, 0,
						   MPI_COMM_WORLD, MPI_STATUS_IGNORE), "exchange");
		return st ? st : stage(k, 0, rp, r, count, n, rpitch);
	}
	MPI_Datatype ts = runs(count, n, spitch), tr = runs(count, n, rpitch);
	int rc = MPI_Sendrecv(sp, 1, ts, with, 0, rp, 1, tr, with, 0, MPI_COMM_WORLD,
			      MPI_STATUS_IGNORE);
	MPI_Type_free(&ts);
	MPI_Type_free(&tr);
	return mpi_done(rc, "exchange");
}

/* Post the runs of swap_runs without waiting (west_parts_halo_wait waits,
 * and unpacks what arrived staged). */
static enum west_status post_runs(struct west_parts *ps, const struct west_kernel_ops *k,
				  const float *sp, size_t spitch, float *rp, size_t rpitch,
				  size_t count, size_t n, int with)
{
	struct wire *m = ps->pending;
	int r = m->n, s = m->n + 1, rc;
	float *rb = rp, *sb = (float *)sp;
	int len = 1;
	enum west_status st;

	if (m->n + 2 > PENDING_MAX)
		abort();   /* more than two neighbours: not a cut into slabs */
	m->in[r].k = NULL, m->in[s].k = NULL;
	if (k) {
		if (!(rb = buffer(ps, r, count * n)) || !(sb = buffer(ps, s, count * n)))
			return WEST_ERR_NOMEM;
		if ((st = stage(k, 1, (float *)sp, sb, count, n, spitch)))
			return st;
		m->in[r].k = k, m->in[r].at = rp;
		m->in[r].count = count, m->in[r].n = n, m->in[r].pitch = rpitch;
		m->type[r] = m->type[s] = MPI_DATATYPE_NULL;
		len = (int)(count * n);
	} else
		m->type[r] = runs(count, n, rpitch), m->type[s] = runs(count, n, spitch);
	rc = MPI_Irecv(rb, len, k ? MPI_FLOAT : m->type[r], with, 0, MPI_COMM_WORLD,
		       &m->req[r]);
	m->n++;
	if (rc != MPI_SUCCESS)
		return mpi_done(rc, "receive");
	rc = MPI_Isend(sb, len, k ? MPI_FLOAT : m->type[s], with, 0, MPI_COMM_WORLD,
		       &m->req[s]);
	m->n++;
	return mpi_done(rc, "send");
}

/* Runs from sp to rank `with` and as many from it into rp, both of q's
 * device memory, through the set's communicator: one group, on a second
 * stream when posted (wait_runs joins it). */
static enum west_status nccl_swap(struct west_parts *ps, const struct west_part *q,
				  float *sp, float *rp, size_t pitch, size_t count, size_t n,
				  int with, int post)
{
	const struct west_kernel_ops *k = q->ops;
	enum west_status st = k->ranks_group(ps->comm, 1, post), end;
	if (!st)
		st = k->ranks_rows(ps->comm, 1, sp, count, n, pitch, with);
	if (!st)
		st = k->ranks_rows(ps->comm, 0, rp, count, n, pitch, with);
	end = k->ranks_group(ps->comm, 0, post);
	return st ? st : end;
}

/* Wait for the posted messages, and unpack the staged ones. */
static enum west_status wait_runs(struct west_parts *ps)
{
	struct wire *m = ps->pending;
	enum west_status st;
	if (ps->comm)
		return west_parts_mine(ps)->ops->ranks_wait(ps->comm);
	if (!m || !m->n)
		return WEST_OK;
	st = mpi_done(MPI_Waitall(m->n, m->req, MPI_STATUSES_IGNORE), "wait");
	for (int i = 0; i < m->n; i++) {
		if (m->type[i] != MPI_DATATYPE_NULL)
			MPI_Type_free(&m->type[i]);
		if (!st && m->in[i].k)
			st = stage(m->in[i].k, 0, m->in[i].at, m->buf[i], m->in[i].count,
				   m->in[i].n, m->in[i].pitch);
	}
	m->n = 0;
	return st;
}
#else
static enum west_status no_mpi(void)
{
	west_log(WEST_LOG_ERR, "partitions: a partition of another rank, in a build without MPI");
	return WEST_ERR_UNSUPPORTED;
}
#endif

#ifdef WEST_HAVE_MPI
/* The table that packs q's rows for messages when its arrays are device
 * memory (ps->staged), else NULL: straight from and into them. */
static const struct west_kernel_ops *staged(const struct west_parts *ps,
					    const struct west_part *q)
{
	return ps->staged ? q->ops : NULL;
}

/* `rows` rows (of every plane) of level l at p, partition q's, this
 * rank's, to (send) or from rank peer: through the set's communicator
 * (GPU ranks with NCCL), else an MPI message. */
static enum west_status rank_runs(const struct west_parts *ps, const struct west_part *q,
				  int send, float *p, const struct west_plevel *l, size_t rows,
				  int peer)
{
	size_t n = rows * l->hx, pitch = l->hx * l->ny;
	bind(ps, q);
	if (ps->comm)
		return q->ops->ranks_rows(ps->comm, send, p, l->nz, n, pitch, peer);
	return send ? send_runs(ps, staged(ps, q), p, l->nz, n, pitch, peer) :
		      recv_runs(ps, staged(ps, q), p, l->nz, n, pitch, peer);
}
#endif

/* The start of rows [j0, ...) of colour c of per-colour array a of level l
 * (local row 0 = row jg): the first of l->nz runs, hx * l->ny apart. */
static float *row_at(const float *a, const struct west_plevel *l, size_t jg, int c, size_t j0)
{
	return (float *)a + (size_t)(c ^ (int)(jg & 1)) * l->ncol + l->hx * (j0 - jg);
}

/*
 * Rows [j0, j1) of colour c of the per-colour array sa of level sl (local
 * row 0 = row sjg) of partition s into da of level dl (row djg) of
 * partition d, every k: a strided copy when this process holds both, a
 * message when it holds one (sa or da is then NULL: the other rank's),
 * nothing when it holds neither.
 */
static enum west_status move_rows(const struct west_parts *ps, const struct west_part *s,
				  const float *sa, const struct west_plevel *sl, size_t sjg,
				  const struct west_part *d, float *da,
				  const struct west_plevel *dl, size_t djg, int c, size_t j0,
				  size_t j1)
{
	char err[WEST_ERRLEN];
	enum west_status st;

	if (mine(ps, s) && mine(ps, d)) {
		/* the sender's table; from a CPU partition into a GPU one the
		 * receiver's (device tables copy from and into host memory too) */
		const struct west_part *via = !s->ops->bind && d->ops->bind ? d : s;
		size_t hx = sl->hx, n = (j1 - j0) * hx;
		bind(ps, via);
		st = via->ops->copy2d(row_at(da, dl, djg, c, j0), hx * dl->ny * sizeof *da,
				      row_at(sa, sl, sjg, c, j0), hx * sl->ny * sizeof *sa,
				      n * sizeof *sa, sl->nz, err, sizeof err);
		if (st)
			west_log(WEST_LOG_ERR, "partitions: moving rows: %s", err);
		return st;
	}
#ifdef WEST_HAVE_MPI
	if (mine(ps, s))
		return rank_runs(ps, s, 1, row_at(sa, sl, sjg, c, j0), sl, j1 - j0, d->rank);
	if (mine(ps, d))
		return rank_runs(ps, d, 0, row_at(da, dl, djg, c, j0), dl, j1 - j0, s->rank);
	return WEST_OK;
#else
	return no_mpi();
#endif
}

/* Level L of partition q (NULL when another rank holds it). */
static const struct west_plevel *lev(const struct west_parts *ps, const struct west_part *q,
				     int L)
{
	return mine(ps, q) ? &q->wk.mg->lv[L] : NULL;
}

/* ---------------------------------------------------------- the cut */

/* units rows dealt out to n partitions in proportion to w (each floor of
 * its share, then one more to the largest remainders, the lower partition
 * first on a tie: equal weights give the first units % n one more). */
static void deal(size_t units, int n, const double *w, size_t *m)
{
	double sum = 0.0, rem[WEST_MAX_PARTS];
	size_t given = 0;

	for (int p = 0; p < n; p++)
		sum += w[p];
	for (int p = 0; p < n; p++) {
		double share = (double)units * w[p] / sum;
		m[p] = (size_t)floor(share);
		rem[p] = share - (double)m[p];
		given += m[p];
	}
	while (given < units) {
		int best = 0;
		for (int p = 1; p < n; p++)
			if (rem[p] > rem[best])
				best = p;
		m[best]++, rem[best] = -1.0, given++;
	}
}

/*
 * The level lp where the hierarchy stops being cut and each partition's
 * own rows: the deepest lp >= 1 whose slabs (lp's rows dealt out by
 * weight) all keep po's rows and cells; level 0's boundaries are then
 * multiples of F, the product of the y factors below lp, so every coarse
 * cell of a cut level lies in one slab.
 */
static enum west_status cut(struct west_parts *ps, const struct west_mg *plan, int n,
			    const double *w, const struct west_parts_opts *po, char *err,
			    size_t errlen)
{
	for (int lp = plan->nlevels - 1; lp >= 1; lp--) {
		const struct west_plevel *l = &plan->lv[lp];
		size_t m[WEST_MAX_PARTS] = { 0 }, f = 1, start = 0, least;
		deal(l->ny, n, w, m);
		least = m[0];
		for (int p = 1; p < n; p++)
			least = m[p] < least ? m[p] : least;
		if (least < po->min_rows || l->nx * least * l->nz < po->min_cells)
			continue;
		for (int L = 0; L < lp; L++)
			f *= plan->lv[L].fy;
		ps->lp = lp;
		for (int p = 0; p < n; p++) {
			ps->part[p].a[0] = start * f;
			ps->part[p].b[0] = p + 1 == n ? plan->lv[0].ny : (start + m[p]) * f;
			start += m[p];
		}
		return WEST_OK;
	}
	return west_fail(err, errlen, WEST_ERR_INVALID,
			 "partitions: %zu rows of %zu x %zu cells are too few for %d slabs of at "
			 "least %zu rows and %zu cells on the first coarse level",
			 plan->lv[0].ny, plan->lv[0].nx, plan->lv[0].nz, n, po->min_rows,
			 po->min_cells);
}

/*
 * The speed of ops on device dev (bound: ops->bind) in cell-sweeps per
 * second: colour passes of its smoother over a level of 128 x 64 x 32
 * cells (512 x 256 x 32 on a device whose kernels are queued, ops->sync,
 * where a smaller level times the launches), in its memory, the best of
 * three timings after one pass that touches it; 1 when it cannot be
 * measured.
 */
static double speed(const struct west_kernel_ops *ops, int dev)
{
	int queued = ops->sync != NULL;
	struct west_plevel l = { .nx = queued ? 512 : 128, .ny = queued ? 256 : 64, .nz = 32 };
	size_t n, passes = 16;
	float *g, *e = NULL, *b = NULL;
	void *dg = NULL, *de = NULL, *db = NULL;
	double t0, rate = 1.0;
	struct timespec a, z;
	char err[WEST_ERRLEN];

	l.hx = l.nx / 2;
	n = 2 * (l.ncol = l.hx * l.ny * l.nz);
	if (ops->bind)
		ops->bind(dev);
	if ((g = malloc(6 * n * sizeof *g)) && (e = calloc(n, sizeof *e)) &&
	    (b = malloc(n * sizeof *b))) {
		for (size_t i = 0; i < 6 * n; i++)
			g[i] = 1.0f;
		for (size_t i = 0; i < n; i++)
			b[i] = (float)(i % 7) - 3.0f;
	}
	if (b && !ops->alloc(&dg, 6 * n * sizeof *g, err, sizeof err) &&
	    !ops->alloc(&de, n * sizeof *e, err, sizeof err) &&
	    !ops->alloc(&db, n * sizeof *b, err, sizeof err) &&
	    !ops->upload(dg, g, 6 * n * sizeof *g, err, sizeof err) &&
	    !ops->upload(de, e, n * sizeof *e, err, sizeof err) &&
	    !ops->upload(db, b, n * sizeof *b, err, sizeof err)) {
		l.g = dg, l.e = de, l.b = db;
		ops->pot_smooth(&l, 1.0f, 0);
		for (int round = 0; round < 3 && (!queued || !ops->sync()); round++) {
			clock_gettime(CLOCK_MONOTONIC, &a);
			for (size_t k = 0; k < passes; k++)
				ops->pot_smooth(&l, 1.0f, (int)(k & 1));
			if (queued && ops->sync())
				break;
			clock_gettime(CLOCK_MONOTONIC, &z);
			t0 = (double)(z.tv_sec - a.tv_sec) + 1e-9 * (double)(z.tv_nsec - a.tv_nsec);
			if (t0 > 0 && (double)(l.nx * l.ny * l.nz) * (double)passes / 2.0 / t0 > rate)
				rate = (double)(l.nx * l.ny * l.nz) * (double)passes / 2.0 / t0;
		}
	}
	ops->free(dg, err, sizeof err), ops->free(de, err, sizeof err);
	ops->free(db, err, sizeof err);
	free(g), free(e), free(b);
	return rate;
}

/* "a, b, c" of n numbers v[i] * scale, %.0f, into line. */
static void number_list(char *line, size_t size, const double *v, int n, double scale)
{
	size_t used = 0;
	line[0] = 0;
	for (int p = 0; p < n && used < size; p++)
		used += (size_t)snprintf(line + used, size - used, "%s%.0f", p ? ", " : "",
					 scale * v[p]);
}

/* A device's share of the rows from its speed s and the fastest's f:
 * in tenths of the fastest, so that GPUs or hosts of one model, whose
 * timings differ by a few per cent, get even shares; below half the
 * fastest's speed (a CPU beside a GPU) in hundredths, at least one. */
static double share(double s, double f)
{
	double r = s / f;
	return r >= 0.45 ? round(10.0 * r) / 10.0 : fmax(0.01, round(100.0 * r) / 100.0);
}

/* The partitions' weights into w: po's, or without them, over MPI ranks
 * each rank's measured speed (every rank gets all, so all cut alike; in
 * tenths of the fastest, so that equal hosts or GPUs get even shares), on
 * several devices of one process each device's measured speed shared by
 * the partitions it holds, on one device equal. */
static enum west_status weights(const struct west_parts *ps,
				const struct west_kernel_ops *const *ops,
				const struct west_parts_opts *po, double w[WEST_MAX_PARTS],
				char *err, size_t errlen)
{
	if (po->nweights) {
		if (po->nweights != ps->n)
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "partitions: weights lists %d numbers for %d partitions",
					 po->nweights, ps->n);
		memcpy(w, po->weights, (size_t)ps->n * sizeof *w);
		return WEST_OK;
	}
	char line[WEST_ERRLEN];
	for (int p = 0; p < ps->n; p++)
		w[p] = 1.0;
	if (west_ranks_count() < 2) {
		/* several devices of one process (ps->devs, and the CPU beside
		 * them): each device's speed, shared by its partitions (they run
		 * one after another on it); one device: even shares */
		double dev_speed[WEST_MAX_PARTS + 1], fastest = 0.0;
		int held[WEST_MAX_PARTS + 1] = { 0 }, devs[WEST_MAX_PARTS + 1], nd = ps->ndev;
		memcpy(devs, ps->devs, sizeof ps->devs);
		if (ps->cpu)
			devs[nd++] = WEST_DEVICE_CPU;
		if (nd < 2)
			return WEST_OK;
		for (int d = 0; d < nd; d++) {
			int p = 0;
			while (ps->part[p].dev != devs[d])
				p++;
			dev_speed[d] = speed(ops[p], devs[d]);
			fastest = fmax(fastest, dev_speed[d]);
			for (p = 0; p < ps->n; p++)
				held[d] += ps->part[p].dev == devs[d];
		}
		for (int p = 0; p < ps->n; p++) {
			int d = 0;
			while (devs[d] != ps->part[p].dev)
				d++;
			w[p] = share(dev_speed[d], fastest) / held[d];
		}
		number_list(line, sizeof line, dev_speed, nd, 1e-9);
		west_log(WEST_LOG_INFO, "partitions: the devices' speeds (G cell-sweeps/s, in "
			 "the order they are first listed%s): %s; rows dealt out in proportion",
			 ps->cpu ? ", the CPU last" : "", line);
		return WEST_OK;
	}
#ifdef WEST_HAVE_MPI
	double fastest = 0.0;
	w[ps->me] = speed(ops[ps->me], ps->part[ps->me].dev);
	MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, w, 1, MPI_DOUBLE, MPI_COMM_WORLD);
	number_list(line, sizeof line, w, ps->n, 1e-6);
	west_log(WEST_LOG_INFO, "partitions: the ranks' speeds (M cell-sweeps/s): %s; "
		 "rows dealt out in proportion", line);
	for (int p = 0; p < ps->n; p++)
		fastest = fmax(fastest, w[p]);
	for (int p = 0; p < ps->n; p++)
		w[p] = share(w[p], fastest);
#endif
	return WEST_OK;
}

/* Each level's own rows, local row 0 and halo widths of partition p: below,
 * padding down to a multiple of F (the halo is its last row); above, one
 * halo row. */
static void rows(struct west_parts *ps, const struct west_mg *plan, int p)
{
	struct west_part *q = &ps->part[p];
	size_t f = 1;
	for (int L = 0; L < ps->lp; L++)
		f *= plan->lv[L].fy;
	q->jg[0] = p ? q->a[0] - f : 0;
	for (int L = 1; L < plan->nlevels; L++) {
		unsigned fy = plan->lv[L - 1].fy;
		q->a[L] = q->a[L - 1] / fy;
		q->b[L] = p + 1 < ps->n ? q->b[L - 1] / fy : plan->lv[L].ny;
		q->jg[L] = q->jg[L - 1] / fy;
	}
}

/* ---------------------------------------------------------- building */

/* *dst = a copy of bytes at host src (zeros when src is NULL) in part q's
 * memory, recorded in *slot for freeing. */
static enum west_status put_in(struct west_part *q, void **slot, void *dst, const void *src,
			       size_t bytes, char *err, size_t errlen)
{
	void **out = dst;
	enum west_status st;
	if (!bytes)
		bytes = 1;
	if ((st = q->ops->alloc(slot, bytes, err, errlen)))
		return st;
	*out = *slot;
	return src ? q->ops->upload(*slot, src, bytes, err, errlen) :
		     q->ops->fill(*slot, 0, bytes, err, errlen);
}

static enum west_status put(struct west_part *q, void *dst, const void *src, size_t bytes,
			    char *err, size_t errlen)
{
	if (q->nmem == (int)(sizeof q->mem / sizeof q->mem[0]))
		return west_fail(err, errlen, WEST_ERR_NOMEM, "partitions: more arrays than slots");
	q->bytes += bytes;
	return put_in(q, &q->mem[q->nmem++], dst, src, bytes, err, errlen);
}

static void free_mem(const struct west_part *q, void **mem, int n)
{
	char ignore[WEST_ERRLEN];
	for (int m = 0; m < n; m++)
		if (mem[m])
			q->ops->free(mem[m], ignore, sizeof ignore), mem[m] = NULL;
}

/* Partition q's slab, view and field. */
static enum west_status build_part(struct west_parts *ps, struct west_part *q,
				   char *err, size_t errlen)
{
	const struct west_grid *g = ps->g;
	size_t nx = g->nx, nz = g->nz, top = q->b[0] + (q < ps->part + ps->n - 1);
	struct west_grid *s = &q->slab;
	struct west_kgrid *kg = &q->wk.kg;
	enum west_status st;

	if ((st = west_grid_slab(g, q->jg[0], top, s, err, errlen)) ||
	    (st = west_levels_init(&q->levels, s, err, errlen)))
		return st;
	*kg = (struct west_kgrid){ .nx = nx, .ny = s->ny, .nz = nz, .dx = (float)g->dx,
				   .dy = (float)g->dy, .jg = q->jg[0],
				   .jlo = q->a[0] - q->jg[0], .jhi = top - q->b[0] };
	q->cols = (struct west_kgrid){ .nx = nx, .ny = g->ny, .nz = nz, .dx = kg->dx,
				       .dy = kg->dy };
	if ((st = put(q, &kg->zc, q->levels.zc, nz * sizeof(float), err, errlen)) ||
	    (st = put(q, &kg->rdz, q->levels.rdz, nz * sizeof(float), err, errlen)) ||
	    (st = put(q, &kg->rdzf, q->levels.rdzf, (nz + 1) * sizeof(float), err, errlen)) ||
	    (st = put(q, &kg->ground, q->levels.ground, nx * s->ny * sizeof(float), err,
		      errlen)) ||
	    (st = put(q, &kg->land, s->land, west_grid_ncells(s), err, errlen)) ||
	    (st = put(q, &kg->tx, s->tx, west_grid_nxfaces(s) * sizeof(float), err, errlen)) ||
	    (st = put(q, &kg->ty, s->ty, west_grid_nyfaces(s) * sizeof(float), err, errlen)) ||
	    (st = put(q, &kg->tz, s->tz, west_grid_nzfaces(s) * sizeof(float), err, errlen)) ||
	    (st = put(q, &q->wk.u, NULL, west_grid_nxfaces(s) * sizeof(float), err, errlen)) ||
	    (st = put(q, &q->wk.v, NULL, west_grid_nyfaces(s) * sizeof(float), err, errlen)) ||
	    (st = put(q, &q->wk.w, NULL, west_grid_nzfaces(s) * sizeof(float), err, errlen)) ||
	    (st = put(q, &q->wk.cls, NULL, nx * g->ny, err, errlen)))
		return st;
	/* the slab's volume is in the partition's memory now */
	free(s->land), free(s->tx), free(s->ty), free(s->tz);
	s->land = NULL, s->tx = s->ty = s->tz = NULL;
	q->wk.land_seconds = g->land_seconds;
	q->wk.transparency_seconds = g->transparency_seconds;
	return WEST_OK;
}

/* Partition q's hierarchy: levels 0 to lp of its slab, each level's own
 * rows marked. */
static enum west_status build_mg(struct west_parts *ps, struct west_part *q,
				 const struct west_mg *plan, char *err, size_t errlen)
{
	enum west_status st = west_mg_build_part(q->ops, &q->mg, &q->slab, &q->wk.kg, ps->eta,
						 plan, ps->lp + 1, err, errlen);
	if (st)
		return st;
	for (int L = 0; L <= ps->lp; L++) {
		struct west_plevel *l = &q->mg.lv[L];
		l->jlo = q->a[L] - q->jg[L];
		l->jhi = q->jg[L] + l->ny - q->b[L];
	}
	q->wk.mg = &q->mg;
	return WEST_OK;
}

/*
 * Level lp's six conductances per cell of every partition's own rows into
 * the tail's first level l (on the rank of partition 0: l not NULL) or,
 * from the other ranks, sent there.  The tail's build calls it as its
 * `first` (ctx: ps); the other ranks call it with l NULL.
 */
static enum west_status tail_first(void *ctx, const struct west_plevel *l, char *err,
				   size_t errlen)
{
	struct west_parts *ps = ctx;
	const struct west_part *t = &ps->part[0];
	enum west_status st = join(ps);

	for (struct west_part *q = ps->part; q < ps->part + ps->n && !st; q++) {
		const struct west_plevel *ql = lev(ps, q, ps->lp);
		for (int f = 0; f < 6 && !st; f++)
			for (int c = 0; c < 2 && !st; c++)
				st = move_rows(ps, q, ql ? ql->g + f * 2 * ql->ncol : NULL, ql,
					       q->jg[ps->lp], t,
					       l ? (float *)l->g + f * 2 * l->ncol : NULL, l, 0, c,
					       q->a[ps->lp], q->b[ps->lp]);
	}
	if ((st = joined(ps, st)))
		return west_fail(err, errlen, st, "partitions: gathering level %d failed", ps->lp);
	return WEST_OK;
}

/* GPU ranks: their communicator (ops->ranks_open, on every rank) unless
 * WEST_NCCL is 0; without one, rows go through host buffers (staged). */
static void open_comm(struct west_parts *ps)
{
	const struct west_kernel_ops *k = ps->part[0].ops;
	const char *e = getenv("WEST_NCCL");
	char why[WEST_ERRLEN];

	if (west_ranks_count() < 2 || !k->ranks_open || (e && !strcmp(e, "0")))
		return;
	west_parts_mine(ps);   /* binds this rank's device: the communicator's */
	if (k->ranks_open(&ps->comm, why, sizeof why))
		west_log(WEST_LOG_NOTICE, "partitions: rows between GPU ranks through host "
			 "memory: %s", why);
	else if (ps->me == 0)
		west_log(WEST_LOG_INFO, "partitions: rows between GPU ranks through NCCL");
}

static enum west_status build_tail(struct west_parts *ps, char *err, size_t errlen)
{
	struct west_parts *t = calloc(1, sizeof *t);
	struct west_part *q;
	enum west_status st;

	if (!t)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "partitions: out of memory");
	ps->tail = t;
	t->n = 1, t->g = ps->g, t->eta = ps->eta, t->bind = ps->bind;
	q = &t->part[0];
	q->ops = ps->part[0].ops, q->dev = ps->part[0].dev;
	bind(t, q);
	if ((st = west_mg_build_tail(q->ops, &q->mg, ps->g, ps->eta, ps->lp, tail_first, ps,
				     err, errlen)))
		return st;
	q->wk.mg = &q->mg;
	if (q->ops->graph_begin)   /* its V-cycle a graph, as one device's is */
		q->wk.vgraph = &t->graph;
	t->lp = q->mg.nlevels - 1;
	for (int L = 0; L < q->mg.nlevels; L++)
		q->b[L] = q->mg.lv[L].ny;
	return WEST_OK;
}

enum west_status west_parts_build(struct west_parts *ps, const struct west_grid *g,
				  int n, const struct west_kernel_ops *const *ops,
				  int mg, double eta, const struct west_parts_opts *po,
				  char *err, size_t errlen)
{
	static const struct west_parts_opts dflt = { .min_rows = WEST_PARTS_MIN_ROWS,
						     .min_cells = WEST_PARTS_MIN_CELLS };
	struct west_mg plan;
	double w[WEST_MAX_PARTS];
	enum west_status st;

	memset(ps, 0, sizeof *ps);
	ps->g = g, ps->n = n, ps->eta = mg ? eta : NAN;
	if (n < 2 || n > WEST_MAX_PARTS)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "partitions: %d partitions (2 to %d)", n, WEST_MAX_PARTS);
	if (west_ranks_count() > 1) {   /* one partition per rank */
		if (n != west_ranks_count())
			return west_fail(err, errlen, WEST_ERR_INVALID,
					 "partitions: %d slabs over %d MPI ranks (one each)", n,
					 west_ranks_count());
		ps->me = west_ranks_me();
		for (int p = 0; p < n; p++)
			ps->part[p].rank = p;
		/* rows in device memory travel through host buffers; the CPU's
		 * too when WEST_MPI_STAGE is 1 (tests/mpi_ranks.sh runs both) */
		const char *e = getenv("WEST_MPI_STAGE");
		ps->staged = ops[0]->sync != NULL || (e && !strcmp(e, "1"));
	}
	if (!po)
		po = &dflt;
	for (int p = 0; p < n && !ps->gpu; p++)
		if (ops[p]->bind)
			ps->gpu = ops[p];
	for (int p = 0; p < n; p++) {   /* the partitions' devices, each once: */
		int d = 0;                  /* this rank's only, under mpirun; */
		ps->part[p].dev = po->dev[p];
		if (!mine(ps, &ps->part[p]))
			continue;
		if (ps->gpu && !ops[p]->bind) {   /* the GPUs' only, beside a CPU */
			ps->part[p].dev = WEST_DEVICE_CPU;
			ps->cpu++;
			continue;
		}
		while (d < ps->ndev && ps->devs[d] != po->dev[p])
			d++;
		if (d == ps->ndev)
			ps->devs[ps->ndev++] = po->dev[p];
	}
	if ((st = weights(ps, ops, po, w, err, errlen)) ||
	    (st = west_mg_plan(&plan, g, eta, err, errlen)))
		return st;
	if ((st = cut(ps, &plan, n, w, po, err, errlen)) && !po->nweights) {
		/* measured speeds that leave a slab too small: the smallest
		 * shares raised to a fraction of the largest, the least that
		 * cuts (1: even shares) */
		static const double floors[] = { 0.02, 0.05, 0.1, 0.2, 0.5, 1.0 };
		double most = 0.0, m[WEST_MAX_PARTS];
		for (int p = 0; p < n; p++)
			most = fmax(most, w[p]);
		for (size_t f = 0; f < sizeof floors / sizeof floors[0] && st; f++) {
			for (int p = 0; p < n; p++)
				m[p] = fmax(w[p], floors[f] * most);
			if (!(st = cut(ps, &plan, n, m, po, err, errlen))) {
				memcpy(w, m, (size_t)n * sizeof *w);
				west_log(WEST_LOG_INFO, "partitions: by the measured speeds a slab would "
					 "be too small; each slab gets at least %g of the largest's share",
					 floors[f]);
			}
		}
	}
	if (st)
		return st;
	memcpy(ps->w, w, sizeof ps->w);
	ps->min_rows = po->min_rows, ps->min_cells = po->min_cells;
	for (int p = 0; p < n; p++) {
		ps->part[p].ops = ops[p];
		rows(ps, &plan, p);
	}
	if (ps->ndev > 1 && (!ps->gpu || !ps->gpu->peers))
		return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
				 "partitions: the %s backend has one device", ops[0]->backend);
	if (ps->ndev > 1 && (st = ps->gpu->peers(ps->devs, ps->ndev, err, errlen)))
		return st;
	/* on a backend of devices, each partition's always: the thread's
	 * current device is whichever the last call left */
	ps->bind = ps->gpu != NULL;
	/* page-locked where a GPU's table has it: the queued dot products'
	 * (solvers.c) */
	ps->sums = ps->gpu && ps->gpu->host_alloc ?
			   ps->gpu->host_alloc(g->ny * sizeof *ps->sums) :
			   malloc(g->ny * sizeof *ps->sums);
	int no_wire = 0;   /* a rank's messages (parts.c, struct wire) */
#ifdef WEST_HAVE_MPI
	struct wire *m = west_ranks_count() > 1 ? calloc(1, sizeof *m) : NULL;
	if ((ps->pending = m))
		m->ops = ops[0];
	no_wire = west_ranks_count() > 1 && !m;
#endif
	if (!(ps->stage = malloc(2 * g->nx * g->nz * sizeof *ps->stage)) || !ps->sums ||
	    no_wire) {
		west_parts_free(ps);
		return west_fail(err, errlen, WEST_ERR_NOMEM, "partitions: out of memory");
	}
	open_comm(ps);
	EACH(ps, q)
		if ((st = build_part(ps, q, err, errlen)) ||
		    (mg && (st = build_mg(ps, q, &plan, err, errlen))))
			break;
	if (!st && mg)
		st = mine(ps, &ps->part[0]) ? build_tail(ps, err, errlen) :
					       tail_first(ps, NULL, err, errlen);
	if (st)
		west_parts_free(ps);
	return st;
}

/* Partition q's hierarchy. */
static void free_mg(struct west_part *q)
{
	char ignore[WEST_ERRLEN];
	if (q->mg.base)
		q->ops->free(q->mg.base, ignore, sizeof ignore);
	if (q->mg.cut)
		q->ops->free(q->mg.cut, ignore, sizeof ignore);
	memset(&q->mg, 0, sizeof q->mg);
	q->wk.mg = NULL;
}

static void free_part(struct west_part *q)
{
	free_mg(q);
	free_mem(q, q->mem, q->nmem);
	free_mem(q, q->smem, 4);
	west_levels_free(&q->levels);
	west_grid_free(&q->slab);
	memset(q, 0, sizeof *q);
}

/* The tail, its recorded V-cycle with it. */
static void free_tail(struct west_parts *ps)
{
	if (!ps->tail)
		return;
	bind(ps->tail, &ps->tail->part[0]);
	if (ps->tail->graph)
		ps->tail->part[0].ops->graph_free(ps->tail->graph);
	free_part(&ps->tail->part[0]);
	free(ps->tail);
	ps->tail = NULL;
}

void west_parts_free(struct west_parts *ps)
{
	free_tail(ps);
	if (ps->comm)   /* before the partitions (their ops) go */
		ps->part[0].ops->ranks_close(ps->comm);
	if (ps->sums && ps->gpu && ps->gpu->host_free)   /* a built set's: host_alloc's */
		ps->gpu->host_free(ps->sums);
	else
		free(ps->sums);
	EACH(ps, q)
		if (q->ops)
			free_part(q);
	free(ps->stage);
#ifdef WEST_HAVE_MPI
	wire_free(ps->pending);
#endif
	memset(ps, 0, sizeof *ps);
}

size_t west_parts_bytes(const struct west_parts *ps, int dev)
{
	size_t bytes = 0;
	for (const struct west_part *q = ps->part; q < ps->part + ps->n; q++)
		if (mine(ps, q) && (dev == WEST_PARTS_ALL || q->dev == dev))
			bytes += q->bytes + q->mg.bytes + q->mg.cut_bytes;
	if (ps->tail && (dev == WEST_PARTS_ALL || ps->part[0].dev == dev))
		bytes += ps->tail->part[0].mg.bytes;
	return bytes;
}

void west_parts_one(struct west_parts *ps, const struct west_kernel_ops *ops,
		    struct west_work *wk, double *sums)
{
	struct west_part *q = &ps->part[0];
	memset(ps, 0, sizeof *ps);
	ps->n = 1, ps->sums = sums;
	q->ops = ops, q->wk = *wk, q->cols = wk->kg;
	ps->lp = wk->mg ? wk->mg->nlevels - 1 : 0;
	for (int L = 0; wk->mg && L < wk->mg->nlevels; L++)
		q->b[L] = wk->mg->lv[L].ny;
	q->b[0] = wk->kg.ny;
}

/* -------------------------------------------------------- per solve */

enum west_status west_parts_stations(struct west_parts *ps, size_t ns,
				     const struct west_kstation *st, const float *stab,
				     const float *pexp, char *err, size_t errlen)
{
	EACH(ps, q) {
		struct west_work *w = &q->wk;
		enum west_status rc;
		free_mem(q, q->smem, 4);   /* the previous solve's */
		if ((rc = put_in(q, &q->smem[0], &w->st, st, ns * sizeof *st, err, errlen)) ||
		    (rc = put_in(q, &q->smem[1], &w->stab, stab, ns * sizeof *stab, err, errlen)) ||
		    (rc = put_in(q, &q->smem[2], &w->pexp, pexp, WEST_NSTAB * sizeof *pexp, err,
				 errlen)) ||
		    (rc = put_in(q, &q->smem[3], &w->pst, NULL, 3 * ns * sizeof(float), err,
				 errlen)))
			return rc;
		w->us = w->pst + ns, w->vs = w->pst + 2 * ns, w->ns = ns;
	}
	return WEST_OK;
}

/*
 * n floats of each of `planes` planes (pitches sp, dp) of partition q's
 * array src into the whole grid's array dst: a strided copy when this
 * process holds q and the whole field (rank 0), else a message from q's
 * rank to rank 0.
 */
static enum west_status gather_planes(const struct west_parts *ps, const struct west_part *q,
				      float *dst, size_t dp, const float *src, size_t sp,
				      size_t planes, size_t n, char *err, size_t errlen)
{
	int root = mine(ps, &ps->part[0]);
	if (mine(ps, q) && root) {
		bind(ps, q);
		return q->ops->copy2d(dst, dp * sizeof *dst, src, sp * sizeof *src,
				      n * sizeof *src, planes, err, errlen);
	}
#ifdef WEST_HAVE_MPI
	if (mine(ps, q)) {
		bind(ps, q);
		return send_runs(ps, staged(ps, q), src, planes, n, sp, ps->part[0].rank);
	}
	if (root)   /* into the whole field: host memory */
		return recv_runs(ps, NULL, dst, planes, n, dp, q->rank);
	return WEST_OK;
#else
	return no_mpi();
#endif
}

enum west_status west_parts_field(struct west_parts *ps, float *u, float *v, float *w,
				  unsigned char *cls, char *err, size_t errlen)
{
	const struct west_grid *g = ps->g;
	size_t nx = g->nx, ny = g->ny, nz = g->nz;
	const struct west_part *p0 = &ps->part[0];
	enum west_status st = join(ps);

	for (struct west_part *q = ps->part; q < ps->part + ps->n && !st; q++) {
		size_t a = q->a[0], m = q->b[0] - a, o = a - q->jg[0], nyl = q->b[0] - q->jg[0] +
			   (q < ps->part + ps->n - 1);
		size_t my = m + (q == ps->part + ps->n - 1);   /* the last takes the top faces */
		/* the whole field is rank 0's (other ranks pass none) */
		int held = mine(ps, q), root = mine(ps, p0);
		if ((st = gather_planes(ps, q, root ? u + (nx + 1) * a : NULL, (nx + 1) * ny,
					held ? q->wk.u + (nx + 1) * o : NULL, (nx + 1) * nyl, nz,
					(nx + 1) * m, err, errlen)) ||
		    (st = gather_planes(ps, q, root ? v + nx * a : NULL, nx * (ny + 1),
					held ? q->wk.v + nx * o : NULL, nx * (nyl + 1), nz, nx * my,
					err, errlen)) ||
		    (st = gather_planes(ps, q, root ? w + nx * a : NULL, nx * ny,
					held ? q->wk.w + nx * o : NULL, nx * nyl, nz + 1, nx * m,
					err, errlen)))
			break;
	}
	if ((st = joined(ps, st)) || !mine(ps, p0))
		return st;
	if ((st = p0->ops->copy2d(cls, nx * ny, p0->wk.cls, nx * ny, nx * ny, 1, err, errlen)))
		return st;
	return p0->ops->sync ? p0->ops->sync() : WEST_OK;
}

/* ------------------------------------------------------- exchanges */

struct west_part *west_parts_mine(struct west_parts *ps)
{
	EACH(ps, q)
		return q;
	return NULL;
}

static double clock_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* st, with the time since t0 added to ps's exchange time. */
static enum west_status spent(struct west_parts *ps, double t0, enum west_status st)
{
	ps->exchange_seconds += clock_now() - t0;
	return st;
}

static enum west_status share_rows(struct west_parts *ps)
{
#ifdef WEST_HAVE_MPI
	int counts[WEST_MAX_PARTS], starts[WEST_MAX_PARTS];
	if (west_ranks_count() < 2 || ps->n < 2)
		return WEST_OK;
	for (int p = 0; p < ps->n; p++)   /* partition p is rank p's */
		counts[p] = (int)(ps->part[p].b[0] - ps->part[p].a[0]),
		starts[p] = (int)ps->part[p].a[0];
	return mpi_done(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ps->sums, counts,
				       starts, MPI_DOUBLE, MPI_COMM_WORLD), "row sums");
#else
	(void)ps;
	return WEST_OK;
#endif
}

static enum west_status share_norms(struct west_parts *ps, double norms[WEST_MAX_PARTS][2])
{
#ifdef WEST_HAVE_MPI
	if (west_ranks_count() < 2 || ps->n < 2)
		return WEST_OK;
	return mpi_done(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, norms, 2, MPI_DOUBLE,
				      MPI_COMM_WORLD), "norms");
#else
	(void)ps, (void)norms;
	return WEST_OK;
#endif
}

/* Level L's halo rows of colour c, posted (west_parts_halo_post) when
 * `post`: the messages between ranks, and on GPUs the copies on the side
 * streams (ops->post); else exchanged at once. */
static enum west_status halo(struct west_parts *ps, int L, int c, int post)
{
	const struct west_kernel_ops *k = ps->gpu;
	int side = post && k && k->post && !ps->cpu && west_ranks_count() < 2;
	enum west_status st = side ? k->post(ps->devs, ps->ndev) : join(ps);

	if (side && !st)
		ps->side = 1;
	for (int p = 0; p + 1 < ps->n && !st; p++) {
		struct west_part *lo = &ps->part[p], *up = &ps->part[p + 1];
		const struct west_plevel *ll = lev(ps, lo, L), *ul = lev(ps, up, L);
		size_t b = lo->b[L];
		if (ll && ul) {   /* both here */
			if (!(st = move_rows(ps, lo, ll->e, ll, lo->jg[L], up, ul->e, ul, up->jg[L],
					     c, b - 1, b)))
				st = move_rows(ps, up, ul->e, ul, up->jg[L], lo, ll->e, ll,
					       lo->jg[L], c, b, b + 1);
			continue;
		}
#ifdef WEST_HAVE_MPI
		/* lower side: its top own row out, the row above in; upper side:
		 * its first own row out, the row below in */
		const struct west_plevel *l = ll ? ll : ul;
		struct west_part *q = ll ? lo : up;
		size_t out = ll ? b - 1 : b, in = ll ? b : b - 1;
		int with = ll ? up->rank : lo->rank;
		if (!l)
			continue;
		float *sp = row_at(l->e, l, q->jg[L], c, out), *rp = row_at(l->e, l, q->jg[L], c, in);
		bind(ps, q);
		if (ps->comm)   /* a group, beside the kernels when posted */
			st = nccl_swap(ps, q, sp, rp, l->hx * l->ny, l->nz, l->hx, with, post);
		else
			st = post ? post_runs(ps, staged(ps, q), sp, l->hx * l->ny, rp,
					      l->hx * l->ny, l->nz, l->hx, with)
				  : swap_runs(ps, staged(ps, q), sp, l->hx * l->ny, rp,
					      l->hx * l->ny, l->nz, l->hx, with);
#else
		(void)post;
#endif
	}
	if (side) {   /* west_parts_halo_wait joins them */
		bind(ps, &ps->part[0]);
		return st;
	}
	return joined(ps, st);
}

enum west_status west_parts_halo_e(struct west_parts *ps, int L, int c)
{
	double t0 = clock_now();
	return spent(ps, t0, halo(ps, L, c, 0));
}

enum west_status west_parts_halo_post(struct west_parts *ps, int L, int c)
{
	double t0 = clock_now();
	return spent(ps, t0, halo(ps, L, c, 1));
}

enum west_status west_parts_halo_wait(struct west_parts *ps)
{
	enum west_status st = WEST_OK;
	if (ps->side) {
		double t0 = clock_now();
		ps->side = 0;
		st = ps->gpu->wait(ps->devs, ps->ndev);
		bind(ps, &ps->part[0]);
		return spent(ps, t0, st);
	}
#ifdef WEST_HAVE_MPI
	double t0 = clock_now();
	west_parts_mine(ps);   /* binds this rank's device: the staged rows' */
	st = spent(ps, t0, wait_runs(ps));
#else
	(void)ps;
#endif
	return st;
}

int west_parts_overlaps(const struct west_parts *ps)
{
	/* a CPU beside GPUs: blocking (its kernels and copies run when called) */
	return ps->overlap && ps->n > 1 &&
	       (west_ranks_count() > 1 || (ps->gpu && ps->gpu->post && !ps->cpu));
}

/* Partition q's face row j (the whole grid's numbering) of v, plane k. */
static float *face_row(const struct west_part *q, size_t nx, size_t j, size_t k)
{
	return q->wk.v + nx * (j - q->jg[0] + (q->wk.kg.ny + 1) * k);
}

static enum west_status merge_v(struct west_parts *ps, int c)
{
	char err[WEST_ERRLEN];
	enum west_status st = WEST_OK;

	if (ps->n < 2)
		return WEST_OK;
	size_t nx = ps->g->nx, nz = ps->g->nz;
	for (int p = 0; p + 1 < ps->n && !st; p++) {
		struct west_part *lo = &ps->part[p], *up = &ps->part[p + 1];
		size_t b = lo->b[0];
		/* the cell below the face, (i, b - 1, k), moved it when of colour c */
		if (mine(ps, lo) && mine(ps, up)) {
			float *lo_row = ps->stage, *up_row = ps->stage + nx;
			for (size_t k = 0; k < nz && !st; k++) {
				float *lv = face_row(lo, nx, b, k), *uv = face_row(up, nx, b, k);
				bind(ps, lo);
				if ((st = lo->ops->download(lo_row, lv, nx * sizeof *lv, err,
							    sizeof err)))
					break;
				bind(ps, up);
				if ((st = up->ops->download(up_row, uv, nx * sizeof *uv, err,
							    sizeof err)))
					break;
				for (size_t i = 0; i < nx; i++)
					if ((int)((i + b - 1 + k) & 1) == c)
						up_row[i] = lo_row[i];
					else
						lo_row[i] = up_row[i];
				if ((st = up->ops->upload(uv, up_row, nx * sizeof *uv, err,
							  sizeof err)))
					break;
				bind(ps, lo);
				st = lo->ops->upload(lv, lo_row, nx * sizeof *lv, err, sizeof err);
			}
			if (st)
				west_log(WEST_LOG_ERR, "partitions: merging shared faces: %s", err);
			continue;
		}
#ifdef WEST_HAVE_MPI
		struct west_part *q = mine(ps, lo) ? lo : mine(ps, up) ? up : NULL;
		if (!q)
			continue;
		/* the other side's row into the stage, then each face from the
		 * side whose cell moved it: in q's rows (host memory), or in a
		 * copy of them brought up from its device and put back */
		int keep_lower = q == lo;
		size_t pitch = nx * (q->wk.kg.ny + 1), rp = pitch;
		float *rows = face_row(q, nx, b, 0), *mine_rows = rows;
		bind(ps, q);
		if (ps->staged) {
			if (!(mine_rows = buffer(ps, BLOCKING_BUF + 1, nz * nx)))
				return WEST_ERR_NOMEM;
			if ((st = stage(q->ops, 1, rows, mine_rows, nz, nx, pitch)))
				break;
			rp = nx;
		}
		if ((st = swap_runs(ps, NULL, mine_rows, rp, ps->stage, nx, nz, nx,
				    keep_lower ? up->rank : lo->rank)))
			break;
		for (size_t k = 0; k < nz; k++) {
			float *row = mine_rows + rp * k, *other = ps->stage + nx * k;
			for (size_t i = 0; i < nx; i++)
				if (((int)((i + b - 1 + k) & 1) == c) != keep_lower)
					row[i] = other[i];
		}
		if (ps->staged && (st = stage(q->ops, 0, rows, mine_rows, nz, nx, pitch)))
			break;
#endif
	}
	return st;
}

static enum west_status gather(struct west_parts *ps)
{
	struct west_part *t = ps->tail ? &ps->tail->part[0] : NULL;
	const struct west_plevel *tl = t ? &t->mg.lv[0] : NULL;
	enum west_status st = join(ps);
	for (struct west_part *q = ps->part; q < ps->part + ps->n && !st; q++) {
		const struct west_plevel *l = lev(ps, q, ps->lp);
		for (int c = 0; c < 2 && !st; c++)
			st = move_rows(ps, q, l ? l->b : NULL, l, q->jg[ps->lp], &ps->part[0],
				       tl ? tl->b : NULL, tl, 0, c, q->a[ps->lp], q->b[ps->lp]);
	}
	return joined(ps, st);
}

static enum west_status scatter(struct west_parts *ps)
{
	struct west_part *t = ps->tail ? &ps->tail->part[0] : NULL;
	const struct west_plevel *tl = t ? &t->mg.lv[0] : NULL;
	enum west_status st = join(ps);
	for (struct west_part *q = ps->part; q < ps->part + ps->n && !st; q++) {
		const struct west_plevel *l = lev(ps, q, ps->lp);
		size_t j0 = q->a[ps->lp] - (q > ps->part), j1 = q->b[ps->lp] + (q < ps->part + ps->n - 1);
		for (int c = 0; c < 2 && !st; c++)
			st = move_rows(ps, &ps->part[0], tl ? tl->e : NULL, tl, 0, q,
				       l ? l->e : NULL, l, q->jg[ps->lp], c, j0, j1);
	}
	return joined(ps, st);
}

/* ------------------------------------------------------- a backend's */

void west_parts_drop(struct west_parts **set)
{
	if (*set)
		west_parts_free(*set);
	free(*set);
	*set = NULL;
}

/*
 * The hierarchy of a built set for eta, its slabs kept: possible when
 * eta's levels cut the grid into the same slabs (level 0's rows and
 * padding; the coarse levels' rows and the tail's level may change);
 * 1 when it was rebuilt (*st: how that went), 0 when the set must be
 * built again.  Every rank takes the same branch (the same grid, eta and
 * shares), as the tail's gather needs.
 */
static int new_hierarchy(struct west_parts *ps, double eta, enum west_status *st, char *err,
			 size_t errlen)
{
	struct west_parts_opts po = { .min_rows = ps->min_rows, .min_cells = ps->min_cells };
	size_t a[WEST_MAX_PARTS], b[WEST_MAX_PARTS], jg[WEST_MAX_PARTS];
	struct west_mg plan;
	char why[WEST_ERRLEN];

	*st = WEST_OK;
	for (int p = 0; p < ps->n; p++)
		a[p] = ps->part[p].a[0], b[p] = ps->part[p].b[0], jg[p] = ps->part[p].jg[0];
	if (west_mg_plan(&plan, ps->g, eta, why, sizeof why) ||
	    cut(ps, &plan, ps->n, ps->w, &po, why, sizeof why))
		return 0;
	for (int p = 0; p < ps->n; p++) {
		rows(ps, &plan, p);
		if (ps->part[p].a[0] != a[p] || ps->part[p].b[0] != b[p] ||
		    ps->part[p].jg[0] != jg[p])
			return 0;   /* other slabs: the set is dropped */
	}
	west_log(WEST_LOG_DEBUG, "partitions: the hierarchy built again for eta %g, the slabs "
		 "kept", eta);
	free_tail(ps);
	EACH(ps, q)
		free_mg(q);
	ps->eta = eta;
	EACH(ps, q)
		if ((*st = build_mg(ps, q, &plan, err, errlen)))
			return 1;
	*st = mine(ps, &ps->part[0]) ? build_tail(ps, err, errlen) :
				       tail_first(ps, NULL, err, errlen);
	return 1;
}

/* *set for o: kept while its count and devices and (with a hierarchy)
 * eta are o's; for another eta its hierarchy alone rebuilt where it can
 * be (new_hierarchy). */
static enum west_status keep_set(struct west_parts **set, const struct west_grid *g,
				 const struct west_kernel_ops *ops,
				 const struct west_solve_opts *o, char *err, size_t errlen)
{
	const struct west_kernel_ops *tables[WEST_MAX_PARTS];
	struct west_parts_opts po = { .min_rows = WEST_PARTS_MIN_ROWS,
				      .min_cells = WEST_PARTS_MIN_CELLS, .nweights = o->nweights };
	int mg = o->solver != WEST_SOLVER_SOR;
	enum west_status st;

	int same = *set && (*set)->g == g && (*set)->n == o->partitions;
	for (int p = 0; same && p < o->partitions; p++)
		same = (*set)->part[p].dev == o->device[p];
	if (same && (!mg || (*set)->eta == o->eta))
		return WEST_OK;
	if (same && new_hierarchy(*set, o->eta, &st, err, errlen)) {
		if (st)
			west_parts_drop(set);
		return st;
	}
	west_parts_drop(set);
	if (!(*set = malloc(sizeof **set)))
		return west_fail(err, errlen, WEST_ERR_NOMEM, "partitions: out of memory");
	for (int p = 0; p < WEST_MAX_PARTS; p++)   /* a cpu entry beside GPUs: the CPU's */
		tables[p] = ops->bind && o->device[p] == WEST_DEVICE_CPU ? &west_kernels_cpu : ops;
	memcpy(po.weights, o->weights, sizeof po.weights);
	memcpy(po.dev, o->device, sizeof po.dev);
	if ((st = west_parts_build(*set, g, o->partitions, tables, mg, o->eta, &po, err,
				   errlen))) {
		free(*set);
		*set = NULL;
		return st;
	}
	west_log(WEST_LOG_INFO, "%s backend: the grid's %zu rows in %d slabs%s", ops->backend,
		 g->ny, o->partitions,
		 mg ? ", the hierarchy cut as far as each slab keeps 4 rows and 32768 cells" : "");
	for (int d = 0; d < (*set)->ndev + !!(*set)->cpu; d++) {   /* the CPU last */
		const struct west_parts *ps = *set;
		int dev = d < ps->ndev ? ps->devs[d] : WEST_DEVICE_CPU;
		size_t cells = 0, bytes = west_parts_bytes(ps, dev);
		char name[24];
		for (const struct west_part *q = ps->part; q < ps->part + ps->n; q++)
			if (q->dev == dev && mine(ps, q))   /* this rank's */
				cells += g->nx * (q->b[0] - q->a[0]) * g->nz;
		if (ops->bind && dev != WEST_DEVICE_CPU)
			snprintf(name, sizeof name, "%s:%d", ops->backend, dev);
		else
			snprintf(name, sizeof name, "cpu");
		west_log(WEST_LOG_INFO, "partitions: %s holds %.1f MB for its slabs' %zu cells "
			 "(%.1f bytes per cell)", name, 1e-6 * (double)bytes, cells,
			 (double)bytes / (double)(cells ? cells : 1));
	}
	return WEST_OK;
}

enum west_status west_parts_prepare(struct west_parts **set, const struct west_grid *g,
				    const struct west_kernel_ops *ops,
				    const struct west_solve_opts *opts, char *err, size_t errlen)
{
	struct west_solve_opts o = *opts;
	struct west_obs_set none = { 0 };
	o.eta = west_model_eta(opts, &none);   /* auto: 1 */
	return keep_set(set, g, ops, &o, err, errlen);
}

enum west_status west_parts_solve(struct west_parts **set, const struct west_grid *g,
				  const struct west_kernel_ops *ops,
				  const struct west_obs_set *obs,
				  const struct west_solve_opts *opts, struct west_field *f,
				  west_progress_fn progress, void *ctx, char *err, size_t errlen)
{
	struct west_solve_opts o = *opts;
	struct west_kstation *st = malloc(obs->n * sizeof *st);
	float *stab = malloc(obs->n * sizeof *stab);
	enum west_status rc;

	o.eta = west_model_eta(opts, obs);
	if (!st || !stab)
		rc = west_fail(err, errlen, WEST_ERR_NOMEM, "partitions: out of memory");
	else {
		west_model_stations(g, obs, o.land_use, st, stab);
		if (!(rc = keep_set(set, g, ops, &o, err, errlen)) &&
		    !(rc = west_parts_stations(*set, obs->n, st, stab,
					       west_power_exponents(o.land_use), err, errlen)) &&
		    !(rc = west_model_solve_parts(*set, g, &o, west_obs_max_speed(obs), &f->report,
						  progress, ctx, err, errlen)))
			rc = west_parts_field(*set, f->u, f->v, f->w, f->stability, err, errlen);
	}
	free(st);
	free(stab);
	f->valid_time = obs->valid_time;
	memcpy(f->power_exponent, west_power_exponents(o.land_use), sizeof f->power_exponent);
	return rc;
}

/* ------------------------------------------ the exchanges, timed */

enum west_status west_parts_share_rows(struct west_parts *ps)
{
	double t0 = clock_now();
	return spent(ps, t0, share_rows(ps));
}

enum west_status west_parts_share_norms(struct west_parts *ps,
					double norms[WEST_MAX_PARTS][2])
{
	double t0 = clock_now();
	return spent(ps, t0, share_norms(ps, norms));
}

enum west_status west_parts_merge_v(struct west_parts *ps, int c)
{
	double t0 = clock_now();
	return spent(ps, t0, merge_v(ps, c));
}

enum west_status west_parts_gather(struct west_parts *ps)
{
	double t0 = clock_now();
	return spent(ps, t0, gather(ps));
}

enum west_status west_parts_scatter(struct west_parts *ps)
{
	double t0 = clock_now();
	return spent(ps, t0, scatter(ps));
}
