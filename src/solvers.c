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
#include <stdlib.h>

#include "log.h"

/* Both convergence measures from the norms n (max |D|, sum D^2) into c. */
static void convergence(struct run *x, struct west_convergence *c, const double n[2])
{
	c->max_div = n[0];
	c->rel_max = x->r->u_ref > 0 ? n[0] * x->r->h / x->r->u_ref : 0.0;
	c->rel_l2 = x->l2_start > 0 ? sqrt(n[1]) / x->l2_start : 0.0;
	if (x->l2_start < 0)   /* the first measure defines the start */
		x->l2_start = sqrt(n[1]), c->rel_l2 = n[1] > 0 ? 1.0 : 0.0;
}

/* Both convergence measures of the current field into c. */
enum west_status west_measure(struct run *x, struct west_convergence *c)
{
	double n[2];
	enum west_status st = x->ops->norms(&x->wk->kg, x->wk->u, x->wk->v, x->wk->w, n);
	if (!st)
		convergence(x, c, n);
	return st;
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
	struct west_work *wk = x->wk;
	struct west_convergence *c = first ? &x->r->start : &x->r->end;
	double n[2];
	enum west_status st = x->ops->pot_rhs(&wk->kg, &wk->mg->lv[0], wk->u, wk->v,
					      wk->w, n);
	if (st)
		return st;
	convergence(x, c, n);
	if (first)
		x->r->end = x->r->start;
	x->r->converged = converged(x, c);
	return WEST_OK;
}

/* Step 8, sor: velocity-form red-black iterations. */
static enum west_status sor_velocity(struct run *x, const struct west_solve_opts *o)
{
	struct west_work *wk = x->wk;
	enum west_kindexing ix = o->indexing == WEST_INDEXING_MASKED ?
				 WEST_KINDEX_MASKED : WEST_KINDEX_COMPACT;
	enum west_status st = minimize_start(x);

	for (long it = 1; !st && !x->r->converged && it <= o->iterations; it++) {
		for (int colour = 0; colour < 2 && !st; colour++)
			st = x->ops->sweep(&wk->kg, (float)o->omega, (float)o->eta,
					   colour, ix, wk->u, wk->v, wk->w);
		x->r->iterations = it;
		if (!st && (it % o->check_interval == 0 || it == o->iterations))
			st = check(x);
	}
	return st;
}

/* Step 8, sor-potential: batches of check_interval red-black iterations on
 * the potential of the field's divergence, each applied to the field. */
static enum west_status sor_potential(struct run *x, const struct west_solve_opts *o)
{
	const struct west_kernel_ops *k = x->ops;
	struct west_work *wk = x->wk;
	const struct west_plevel *l0 = &wk->mg->lv[0];
	enum west_status st = rhs_check(x, 1);

	for (long it = 0; !st && !x->r->converged && it < o->iterations;) {
		long n = o->iterations - it < o->check_interval ?
			 o->iterations - it : o->check_interval;
		if ((st = k->pot_zero(2 * l0->ncol, l0->e)))
			break;
		for (long m = 0; m < n && !st; m++)
			for (int colour = 0; colour < 2 && !st; colour++)
				st = k->pot_smooth(l0, (float)o->omega, colour);
		if (st || (st = k->pot_apply(&wk->kg, l0, (float)o->eta, 1.0f, l0->e,
					     wk->u, wk->v, wk->w)))
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
 * the default terrain against 1; 1.3 did no better). */
#define MG_SMOOTH 2

static enum west_status smooth(const struct west_kernel_ops *k,
			       const struct west_plevel *l, int first)
{
	enum west_status st = WEST_OK;
	for (int n = 0; n < MG_SMOOTH && !st; n++)
		if (!(st = k->pot_smooth(l, (float)WEST_MG_OMEGA, first)))
			st = k->pot_smooth(l, (float)WEST_MG_OMEGA, !first);
	return st;
}

/* e of level L = one V-cycle on A e = b from e = 0. */
static enum west_status vcycle(const struct west_kernel_ops *k, const struct west_mg *mg,
			       int L)
{
	const struct west_plevel *l = &mg->lv[L];
	enum west_status st;

	if (L + 1 == mg->nlevels)
		return k->pot_coarse(l, mg->coarse_sweeps);
	if ((st = k->pot_zero(2 * l->ncol, l->e)) || (st = smooth(k, l, 0)) ||
	    (st = k->pot_restrict(l, l + 1)) || (st = vcycle(k, mg, L + 1)) ||
	    (st = k->pot_prolong(l + 1, l)))
		return st;
	return smooth(k, l, 1);
}

/* *out = x . y on level l: the kernel's sums of its rows (into sums, a
 * double per row) added in ascending row order, one at a time
 * (docs/design.md section 5, "Reductions in a fixed order"). */
static enum west_status dot(const struct west_kernel_ops *k, const struct west_plevel *l,
			    const float *x, const float *y, double *sums, double *out)
{
	enum west_status st = k->pot_dot(l, x, y, sums);
	double sum = 0.0;

	if (st)
		return st;
	for (size_t j = 0; j < l->ny - l->jlo - l->jhi; j++)
		sum += sums[j];
	*out = sum;
	return WEST_OK;
}

/*
 * Step 8, multigrid: preconditioned conjugate gradients on A e = V D,
 * where the residual r (level 0's b) is recomputed from the field each
 * iteration, in the pass of the convergence test, and each step alpha p
 * is applied to the field at once:
 * z = V-cycle(r), beta = (r.z) / (r.z)_previous, p = z + beta p, q = A p,
 * alpha = (r.z) / (p.q), u += alpha T grad p.
 */
static enum west_status multigrid(struct run *x, const struct west_solve_opts *o)
{
	const struct west_kernel_ops *k = x->ops;
	struct west_work *wk = x->wk;
	const struct west_mg *mg = wk->mg;
	const struct west_plevel *l0 = &mg->lv[0];
	size_t n = 2 * l0->ncol;
	double rz, rz_old = 0.0, pq, *sums = malloc(l0->ny * sizeof *sums);
	enum west_status st = sums ? rhs_check(x, 1) : WEST_ERR_NOMEM;

	if (!sums)
		west_log(WEST_LOG_ERR, "multigrid: no memory for the dot products' %zu row sums",
			 l0->ny);
	for (long it = 1; !st && !x->r->converged && it <= o->cycles; it++) {
		if ((st = vcycle(k, mg, 0)) || (st = dot(k, l0, l0->b, l0->e, sums, &rz)))
			break;
		if (!(rz > 0.0))   /* r = 0, nothing left to move (or not a number) */
			break;
		if ((it == 1 && (st = k->pot_zero(n, mg->p))) ||
		    (st = k->pot_xpby(n, l0->e, it == 1 ? 0.0f : (float)(rz / rz_old), mg->p)) ||
		    (st = k->pot_matvec(l0, mg->p, mg->q)) ||
		    (st = dot(k, l0, mg->p, mg->q, sums, &pq)))
			break;
		if (!(pq > 0.0))   /* A is positive definite: only rounding or NaN */
			break;
		if ((st = k->pot_apply(&wk->kg, l0, (float)o->eta, (float)(rz / pq), mg->p,
				       wk->u, wk->v, wk->w)))
			break;
		rz_old = rz;
		x->r->iterations = it;
		st = rhs_check(x, 0);
	}
	free(sums);
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

