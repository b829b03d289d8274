/*
 * solvers.c: step 8, divergence minimization (model.h, docs/model.md
 * "Solvers"): the velocity-form SOR, the potential-form SOR, and the
 * conjugate gradients preconditioned by a multigrid V-cycle, each with
 * the convergence test, over one backend's kernel table.  The driver
 * (model.c) calls west_minimize between steps 7 and 9 and west_measure for
 * the final divergence; both share its struct run (model_internal.h).
 */
#include "model_internal.h"

#include <math.h>

#define EACH(ps, p) WEST_EACH_PART(ps, p)

/* Level L of partition p, and the colour its storage gives the whole
 * grid's colour c (a colour's slots are (i + local j + k) & 1). */
static const struct west_plevel *level(const struct west_part *p, int L)
{
	return &p->wk.mg->lv[L];
}

static int colour(const struct west_part *p, int L, int c)
{
	return c ^ (int)(p->jg[L] & 1);
}

/* Both convergence measures from the norms n (max |D|, sum D^2) into c. */
static void convergence(struct run *x, struct west_convergence *c, const double n[2])
{
	c->max_div = n[0];
	c->rel_max = x->r->u_ref > 0 ? n[0] * x->r->h / x->r->u_ref : 0.0;
	c->rel_l2 = x->l2_start > 0 ? sqrt(n[1]) / x->l2_start : 0.0;
	if (x->l2_start < 0)   /* the first measure defines the start */
		x->l2_start = sqrt(n[1]), c->rel_l2 = n[1] > 0 ? 1.0 : 0.0;
}

/* The partitions' norms (each over its own rows; np[p]) into n, on every
 * rank: the largest |D|, and the sums of D^2 added in partition order. */
static enum west_status add_norms(struct west_parts *ps, double np[WEST_MAX_PARTS][2],
				  double n[2])
{
	enum west_status st = west_parts_share_norms(ps, np);
	if (st)
		return st;
	n[0] = np[0][0], n[1] = np[0][1];
	for (int p = 1; p < ps->n; p++)
		n[0] = np[p][0] > n[0] ? np[p][0] : n[0], n[1] += np[p][1];
	return WEST_OK;
}

/* Both convergence measures of the current field into c. */
enum west_status west_measure(struct run *x, struct west_convergence *c)
{
	double np[WEST_MAX_PARTS][2], n[2];
	enum west_status st;
	EACH(x->ps, p) {
		struct west_work *wk = &p->wk;
		if ((st = p->ops->norms(&wk->kg, wk->u, wk->v, wk->w, np[p - x->ps->part])))
			return st;
	}
	if ((st = add_norms(x->ps, np, n)))
		return st;
	convergence(x, c, n);
	return WEST_OK;
}

static int converged(const struct run *x, const struct west_convergence *c)
{
	return x->r->tolerance > 0 && c->rel_max <= x->r->tolerance;
}

/* The convergence measure before the first iteration. */
static enum west_status minimize_start(struct run *x)
{
	enum west_status st = west_measure(x, &x->r->start);
	x->r->end = x->r->start;
	x->r->converged = !st && converged(x, &x->r->start);
	return st;
}

static enum west_status check(struct run *x)
{
	enum west_status st = west_measure(x, &x->r->end);
	x->r->converged = !st && converged(x, &x->r->end);
	return st;
}

/*
 * The potential solvers' right-hand side from the field (level 0's b) and,
 * from the same pass, the convergence test: the start (first) or the end.
 */
static enum west_status rhs_check(struct run *x, int first)
{
	struct west_convergence *c = first ? &x->r->start : &x->r->end;
	double np[WEST_MAX_PARTS][2], n[2];
	enum west_status st;
	EACH(x->ps, p) {
		struct west_work *wk = &p->wk;
		if ((st = p->ops->pot_rhs(&wk->kg, level(p, 0), wk->u, wk->v, wk->w,
					  np[p - x->ps->part])))
			return st;
	}
	if ((st = add_norms(x->ps, np, n)))
		return st;
	convergence(x, c, n);
	if (first)
		x->r->end = x->r->start;
	x->r->converged = converged(x, c);
	return WEST_OK;
}

/* Level 0's vectors of a partition. */
enum vec { VEC_B, VEC_E, VEC_P, VEC_Q, VEC_X };

static const float *vec(const struct west_part *p, enum vec v)
{
	const struct west_mg *mg = p->wk.mg;
	switch (v) {
	case VEC_B: return mg->lv[0].b;
	case VEC_E: return mg->lv[0].e;
	case VEC_P: return mg->p;
	case VEC_Q: return mg->q;
	default: return mg->x;
	}
}

/* *out = a . b over level 0: each partition's per-row sums of its own
 * rows, added in the whole grid's row order, so that any cut gives the
 * same bits (parts.h). */
static enum west_status dot(struct west_parts *ps, enum vec a, enum vec b, double *out)
{
	double sum = 0.0;
	enum west_status st;
	/* with several partitions every GPU's queued before any is waited
	 * for, into the built set's page-locked sums (parts.c); a CPU's
	 * (beside them, or alone) summed at once */
	EACH(ps, p) {
		int queued = ps->n > 1 && p->ops->pot_dot_queued;
		if ((st = queued ? p->ops->pot_dot_queued(level(p, 0), vec(p, a), vec(p, b),
							  ps->sums + p->a[0]) :
				   p->ops->pot_dot(level(p, 0), vec(p, a), vec(p, b),
						   ps->sums + p->a[0])))
			return st;
	}
	EACH(ps, p)
		if (ps->n > 1 && p->ops->pot_dot_queued && (st = p->ops->sync()))
			return st;
	if ((st = west_parts_share_rows(ps)))
		return st;
	for (size_t j = 0; j < ps->part[ps->n - 1].b[0]; j++)
		sum += ps->sums[j];
	*out = sum;
	return WEST_OK;
}

/* Step 8, sor: velocity-form red-black iterations. */
static enum west_status sor_velocity(struct run *x, const struct west_solve_opts *o)
{
	enum west_kindexing ix = o->indexing == WEST_INDEXING_MASKED ?
				 WEST_KINDEX_MASKED : WEST_KINDEX_COMPACT;
	enum west_status st = minimize_start(x);

	for (long it = 1; !st && !x->r->converged && it <= o->iterations; it++) {
		for (int c = 0; c < 2 && !st; c++) {
			EACH(x->ps, p) {
				struct west_work *wk = &p->wk;
				if ((st = p->ops->sweep(&wk->kg, (float)o->omega, (float)o->eta,
							colour(p, 0, c), ix, wk->u, wk->v, wk->w)))
					break;
			}
			if (!st)
				st = west_parts_merge_v(x->ps, c);
		}
		x->r->iterations = it;
		if (!st && (it % o->check_interval == 0 || it == o->iterations))
			st = check(x);
	}
	return st;
}

/*
 * The colour pass of p's level L on part of its own rows: `edges`, the
 * rows its neighbours' halos take (the first own row when a partition is
 * below, the last when one is above), or the others.  A slab of fewer than
 * three own rows is passed whole with its edges.  Cells of one colour read
 * only cells of the other, so the parts give the whole pass's values.
 */
static enum west_status pass_rows(const struct west_parts *ps, const struct west_part *p,
				  int L, float omega, int c, int edges)
{
	struct west_plevel l = *level(p, L), e;
	size_t below = p > ps->part, above = p + 1 < ps->part + ps->n;
	enum west_status st = WEST_OK;

	if (l.ny - l.jlo - l.jhi < 3)
		return edges ? p->ops->pot_smooth(&l, omega, colour(p, L, c)) : WEST_OK;
	if (!edges) {
		l.jlo += below, l.jhi += above;
		return p->ops->pot_smooth(&l, omega, colour(p, L, c));
	}
	if (below) {
		e = l, e.jhi = l.ny - l.jlo - 1;
		st = p->ops->pot_smooth(&e, omega, colour(p, L, c));
	}
	if (above && !st) {
		e = l, e.jlo = l.ny - l.jhi - 1;
		st = p->ops->pot_smooth(&e, omega, colour(p, L, c));
	}
	return st;
}

/* One colour pass over level L of every partition, and its halo rows: on
 * MPI ranks with the exchange overlapped (parts.h), the messages travel
 * while the inner rows are passed. */
static enum west_status pass(struct west_parts *ps, int L, float omega, int c)
{
	enum west_status st = WEST_OK, sw;
	if (!west_parts_overlaps(ps)) {
		EACH(ps, p)
			if ((st = p->ops->pot_smooth(level(p, L), omega, colour(p, L, c))))
				return st;
		return west_parts_halo_e(ps, L, c);
	}
	EACH(ps, p)
		if ((st = pass_rows(ps, p, L, omega, c, 1)))
			return st;
	if (!(st = west_parts_halo_post(ps, L, c)))
		EACH(ps, p)
			if ((st = pass_rows(ps, p, L, omega, c, 0)))
				break;
	sw = west_parts_halo_wait(ps);
	return st ? st : sw;
}

/* e = 0 on level L of every partition, then the colour pass c: one kernel
 * that reads no e (pot_smooth0), and the halo rows. */
static enum west_status pass0(struct west_parts *ps, int L, float omega, int c)
{
	enum west_status st;
	EACH(ps, p)
		if ((st = p->ops->pot_smooth0(level(p, L), omega, colour(p, L, c))))
			return st;
	return west_parts_halo_e(ps, L, c);
}

/* Every partition's field += alpha T grad (level 0's x). */
static enum west_status apply(struct west_parts *ps, float eta, float alpha, enum vec x)
{
	enum west_status st;
	EACH(ps, p) {
		struct west_work *wk = &p->wk;
		if ((st = p->ops->pot_apply(&wk->kg, level(p, 0), eta, alpha, vec(p, x), wk->u,
					    wk->v, wk->w)))
			return st;
	}
	return WEST_OK;
}

/* Step 8, sor-potential: batches of check_interval red-black iterations on
 * the potential of the field's divergence, each applied to the field. */
static enum west_status sor_potential(struct run *x, const struct west_solve_opts *o)
{
	enum west_status st = rhs_check(x, 1);

	for (long it = 0; !st && !x->r->converged && it < o->iterations;) {
		long n = o->iterations - it < o->check_interval ?
			 o->iterations - it : o->check_interval;
		for (long m = 0; m < n && !st; m++)
			for (int c = 0; c < 2 && !st; c++)
				st = (m || c ? pass : pass0)(x->ps, 0, (float)o->omega, c);
		if (st || (st = apply(x->ps, (float)o->eta, 1.0f, VEC_E)))
			break;
		it += n;
		x->r->iterations = it;
		st = rhs_check(x, 0);
	}
	return st;
}

/* Red-black smoothing passes of the V-cycle: MG_SMOOTH iterations before
 * the coarse correction (red, black) and as many after (black, red), so
 * that the cycle is a symmetric operator (the conjugate gradients need it),
 * over-relaxed by WEST_MG_OMEGA (1.15 took one iteration off 7 on R16 and on
 * the default terrain against 1; 1.3 did no better).  3 since the coarse
 * levels' boundaries moved to level 0's: one iteration fewer than 2 on R16,
 * R64, the default terrain and ridge.asc, none more elsewhere, and step 8
 * in 0.84 to 0.94 of its time on the CPU and the GPU (docs/benchmarks.md). */
#define MG_SMOOTH 3

/* From e = 0 when `zero` (the first pass reads no e: pass0). */
static enum west_status smooth(struct west_parts *ps, int L, int first, int zero)
{
	enum west_status st = WEST_OK;
	for (int n = 0; n < MG_SMOOTH && !st; n++)
		if (!(st = (n || !zero ? pass : pass0)(ps, L, (float)WEST_MG_OMEGA, first)))
			st = pass(ps, L, (float)WEST_MG_OMEGA, !first);
	return st;
}

static enum west_status precondition(struct west_parts *ps);

/*
 * e of level L = one V-cycle on A e = b from e = 0.  Level lp is the
 * last one: with several partitions its rows are gathered into the tail,
 * which runs the rest of the cycle, and scattered back; with one it is the
 * coarsest level, solved in place.
 */
static enum west_status vcycle(struct west_parts *ps, int L)
{
	enum west_status st;

	if (L == ps->lp) {
		const struct west_part *p = ps->part;
		if (ps->n == 1)
			return p->ops->pot_coarse(level(p, L), p->wk.mg->coarse_sweeps);
		/* the tail is on the rank of partition 0 */
		if ((st = west_parts_gather(ps)) || (ps->tail && (st = precondition(ps->tail))))
			return st;
		return west_parts_scatter(ps);
	}
	if ((st = smooth(ps, L, 0, 1)))
		return st;
	EACH(ps, p)
		if ((st = p->ops->pot_restrict(level(p, L), level(p, L + 1))))
			return st;
	if ((st = vcycle(ps, L + 1)))
		return st;
	EACH(ps, p)
		if ((st = p->ops->pot_prolong(level(p, L + 1), level(p, L))))
			return st;
	return smooth(ps, L, 1, 0);
}

/*
 * z = one V-cycle from level 0.  With one partition on a backend that
 * records (CUDA graphs), the first call records the cycle's kernels into
 * *wk->vgraph and every call queues that graph: the same kernels with the
 * same arguments, in one launch instead of one per kernel.  A set of
 * slabs' tail (a set of one) records its part of the cycle so.
 */
static enum west_status precondition(struct west_parts *ps)
{
	const struct west_kernel_ops *k = ps->part[0].ops;
	void **graph = ps->part[0].wk.vgraph;
	enum west_status st, end;

	if (ps->n > 1 || !graph || !k->graph_begin)
		return vcycle(ps, 0);
	if (!*graph) {
		if ((st = k->graph_begin()))
			return st;
		st = vcycle(ps, 0);
		end = k->graph_end(st ? NULL : graph);   /* the recording always ends */
		if (st || end)
			return st ? st : end;
	}
	return k->graph_run(*graph);
}

/*
 * The potential summed since the last check (level 0's x) into the field,
 * x zeroed, and the true convergence test with the right-hand side from
 * the field (rhs_check).
 */
static enum west_status apply_check(struct run *x, const struct west_solve_opts *o)
{
	enum west_status st = apply(x->ps, (float)o->eta, 1.0f, VEC_X);
	if (!st)
		st = rhs_check(x, 0);
	EACH(x->ps, p)
		if (!st)
			st = p->ops->pot_zero(2 * level(p, 0)->ncol, p->wk.mg->x);
	return st;
}

/*
 * Step 8, multigrid: preconditioned conjugate gradients on A e = V D,
 * r (level 0's b) first from the field: z = V-cycle(r), beta = (r.z) /
 * (r.z)_previous, p = z + beta p, q = A p, alpha = (r.z) / (p.q).
 * Each iteration sums alpha p into level 0's x and takes alpha q off the
 * residual b (the recursion of the conjugate gradients), which gives the
 * largest |D| the field would have with x applied; only when that passes
 * the test (or at the last iteration, or when the iteration must stop) is
 * x applied to the field and the test made on the field itself
 * (apply_check): that is the test that decides, and its b replaces the
 * recursive one if the iterations go on.  So the field is written and
 * measured once a solve, not every iteration (docs/model.md).
 */
static enum west_status multigrid(struct run *x, const struct west_solve_opts *o)
{
	struct west_parts *ps = x->ps;
	double rz, rz_old = 0.0, pq;
	int pending = 0;   /* x holds a potential not yet applied */
	enum west_status st = rhs_check(x, 1);

	EACH(ps, p)
		if (!st)
			st = p->ops->pot_zero(2 * level(p, 0)->ncol, p->wk.mg->x);
	for (long it = 1; !st && !x->r->converged && it <= o->cycles; it++) {
		double np[WEST_MAX_PARTS][2], n[2];
		if ((st = precondition(ps)) || (st = dot(ps, VEC_B, VEC_E, &rz)))
			break;
		if (!(rz > 0.0))   /* r = 0, nothing left to move (or not a number) */
			break;
		float beta = it == 1 ? 0.0f : (float)(rz / rz_old);
		EACH(ps, p) {
			size_t n = 2 * level(p, 0)->ncol;
			float *pv = p->wk.mg->p;
			if ((it == 1 && (st = p->ops->pot_zero(n, pv))) ||
			    (st = p->ops->pot_xpby(n, level(p, 0)->e, beta, pv)) ||
			    (st = p->ops->pot_matvec(level(p, 0), pv, p->wk.mg->q)))
				break;
		}
		if (st || (st = dot(ps, VEC_P, VEC_Q, &pq)))
			break;
		if (!(pq > 0.0))   /* A is positive definite: only rounding or NaN */
			break;
		float alpha = (float)(rz / pq);
		EACH(ps, p) {
			np[p - ps->part][1] = 0.0;
			if ((st = p->ops->pot_axpy(2 * level(p, 0)->ncol, alpha, p->wk.mg->p,
						   p->wk.mg->x)) ||
			    (st = p->ops->pot_resid(level(p, 0), alpha, p->wk.mg->q,
						    &np[p - ps->part][0])))
				break;
		}
		if (st || (st = add_norms(ps, np, n)))
			break;
		rz_old = rz;
		x->r->iterations = it;
		pending = 1;
		double rel = x->r->u_ref > 0 ? n[0] * x->r->h / x->r->u_ref : 0.0;
		if ((x->r->tolerance > 0 && rel <= x->r->tolerance) || it == o->cycles) {
			st = apply_check(x, o);
			pending = 0;
		}
	}
	if (!st && pending)
		st = apply_check(x, o);
	return st;
}

/* Step 8 with the chosen solver. */
enum west_status west_minimize(struct run *x, const struct west_solve_opts *o)
{
	switch (o->solver) {
	case WEST_SOLVER_SOR: return sor_velocity(x, o);
	case WEST_SOLVER_SOR_POTENTIAL: return sor_potential(x, o);
	default: return multigrid(x, o);
	}
}
