/*
 * model.c: the WEST model driver (model.h): station preparation, the level
 * arrays of the kernels' grid view, and the step sequence with the
 * convergence loop and its report.
 */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const struct west_kernel_ops west_kernels_cpu = {
	.backend = "cpu",
	.stability = west_stability_cpu,
	.extrapolate = west_extrapolate_cpu,
	.initialize = west_initialize_cpu,
	.interpolate = west_interpolate_cpu,
	.speed_zero = west_speed_zero_cpu,
	.sweep = west_divmin_sweep_cpu,
	.norms = west_divergence_norms_cpu,
	.divremoval = west_divremoval_cpu,
};

void west_solve_opts_from_config(struct west_solve_opts *o,
				 const struct west_config *c)
{
	o->iterations = c->iterations;
	o->tolerance = c->tolerance;
	o->omega = c->omega;
	o->eta = c->eta;
	o->indexing = (enum west_indexing)c->indexing;
	o->check_interval = c->check_interval;
	o->land_use = (enum west_land_use)c->land_use;
}

const float *west_power_exponents(enum west_land_use use)
{
	static const float rural[WEST_NSTAB] = { 0.07f, 0.07f, 0.10f, 0.15f, 0.35f, 0.55f };
	static const float urban[WEST_NSTAB] = { 0.15f, 0.15f, 0.20f, 0.25f, 0.40f, 0.60f };
	return use == WEST_LAND_URBAN ? urban : rural;
}

/* ------------------------------------------------------------ grid view */

enum west_status west_levels_init(struct west_levels *l, const struct west_grid *g,
				  char *err, size_t errlen)
{
	size_t nz = g->nz;
	l->zc = malloc(nz * sizeof *l->zc);
	l->rdz = malloc(nz * sizeof *l->rdz);
	l->rdzf = malloc((nz + 1) * sizeof *l->rdzf);
	if (!l->zc || !l->rdz || !l->rdzf) {
		west_levels_free(l);
		return west_fail(err, errlen, WEST_ERR_NOMEM, "model: no memory for levels");
	}
	for (size_t k = 0; k < nz; k++) {
		l->zc[k] = (float)(0.5 * (g->zf[k] + g->zf[k + 1]));
		l->rdz[k] = (float)(1.0 / (g->zf[k + 1] - g->zf[k]));
	}
	/* ground face: unused (TZ = 0); top face: a mirrored ghost cell */
	l->rdzf[0] = (float)(1.0 / (g->zf[1] - g->zf[0]));
	for (size_t k = 1; k < nz; k++)
		l->rdzf[k] = (float)(2.0 / (g->zf[k + 1] - g->zf[k - 1]));
	l->rdzf[nz] = (float)(1.0 / (g->zf[nz] - g->zf[nz - 1]));
	return WEST_OK;
}

void west_levels_free(struct west_levels *l)
{
	free(l->zc);
	free(l->rdz);
	free(l->rdzf);
	memset(l, 0, sizeof *l);
}

void west_kgrid_init(struct west_kgrid *kg, const struct west_grid *g,
		     const struct west_levels *l)
{
	*kg = (struct west_kgrid){
		.nx = g->nx, .ny = g->ny, .nz = g->nz,
		.dx = (float)g->dx, .dy = (float)g->dy,
		.zc = l->zc, .rdz = l->rdz, .rdzf = l->rdzf,
		.land = g->land, .tx = g->tx, .ty = g->ty, .tz = g->tz,
	};
}

void west_model_stations(const struct west_grid *g, const struct west_obs_set *obs,
			 struct west_kstation *st, float *stab)
{
	for (size_t s = 0; s < obs->n; s++) {
		const struct west_obs *o = &obs->obs[s];
		double x = o->x - g->x0, y = o->y - g->y0;
		st[s] = (struct west_kstation){
			.x = (float)x, .y = (float)y, .height = (float)o->height,
			.ground = (float)(west_grid_ground_at(g, x, y) - g->base),
			.speed = (float)o->speed, .direction = (float)o->direction,
		};
		stab[s] = (float)o->stability;
	}
}

/* --------------------------------------------------------------- solve */

static double now_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

struct run {
	const struct west_kernel_ops *ops;
	struct west_work *wk;
	struct west_report *r;
	west_progress_fn progress;
	void *ctx;
	double t0, l2_start;          /* step start; ||D|| at the start */
	int step;                     /* the step running */
};

static void step_report(struct run *x, int step, double seconds)
{
	x->r->step_seconds[step] = seconds;
	x->step = step + 1;
	if (x->progress)
		x->progress(x->ctx, step, x->r);
}

static enum west_status step_done(struct run *x, int step)
{
	enum west_status st = x->ops->sync ? x->ops->sync() : WEST_OK;
	double t = now_seconds();
	if (st)
		return st;
	step_report(x, step, t - x->t0);
	x->t0 = t;
	return WEST_OK;
}

/* Both convergence measures of the current field into c. */
static enum west_status measure(struct run *x, struct west_convergence *c)
{
	double n[2];
	enum west_status st = x->ops->norms(&x->wk->kg, x->wk->u, x->wk->v, x->wk->w, n);
	if (st)
		return st;
	c->max_div = n[0];
	c->rel_max = x->r->u_ref > 0 ? n[0] * x->r->h / x->r->u_ref : 0.0;
	c->rel_l2 = x->l2_start > 0 ? sqrt(n[1]) / x->l2_start : 0.0;
	if (x->l2_start < 0)   /* the first measure defines the start */
		x->l2_start = sqrt(n[1]), c->rel_l2 = n[1] > 0 ? 1.0 : 0.0;
	return WEST_OK;
}

static int converged(const struct run *x, const struct west_convergence *c)
{
	return x->r->tolerance > 0 && c->rel_max <= x->r->tolerance;
}

/* Step 8: red-black iterations with the convergence test. */
static enum west_status minimize(struct run *x, const struct west_solve_opts *o)
{
	struct west_work *wk = x->wk;
	enum west_kindexing ix = o->indexing == WEST_INDEXING_MASKED ?
				 WEST_KINDEX_MASKED : WEST_KINDEX_COMPACT;
	enum west_status st = measure(x, &x->r->start);

	x->r->end = x->r->start;
	x->r->converged = !st && converged(x, &x->r->start);
	for (long it = 1; !st && !x->r->converged && it <= o->iterations; it++) {
		for (int colour = 0; colour < 2 && !st; colour++)
			st = x->ops->sweep(&wk->kg, (float)o->omega, (float)o->eta,
					   colour, ix, wk->u, wk->v, wk->w);
		x->r->iterations = it;
		if (!st && (it % o->check_interval == 0 || it == o->iterations)) {
			st = measure(x, &x->r->end);
			x->r->converged = !st && converged(x, &x->r->end);
		}
	}
	return st;
}

static void report_init(struct west_report *r, const struct west_grid *g,
			const struct west_solve_opts *o, double u_ref)
{
	double h = fmin(g->dx, g->dy);
	for (size_t k = 0; k < g->nz; k++)
		h = fmin(h, g->zf[k + 1] - g->zf[k]);
	memset(r, 0, sizeof *r);
	strcpy(r->solver, "sor-velocity");
	strcpy(r->indexing, o->indexing == WEST_INDEXING_MASKED ? "masked" : "compact");
	r->omega = o->omega, r->eta = o->eta, r->tolerance = o->tolerance;
	r->iterations_max = o->iterations;
	r->h = h, r->u_ref = u_ref;
}

/* The steps in model order; 4 and 7 were done with the terrain. */
static enum west_status steps(struct run *x, const struct west_solve_opts *o)
{
	struct west_work *wk = x->wk;
	const struct west_kgrid *kg = &wk->kg;
	const struct west_kernel_ops *k = x->ops;
	enum west_status st;

	if ((st = k->stability(kg, wk->ns, wk->st, wk->stab, wk->cls)) ||
	    (st = step_done(x, WEST_STEP_STABILITY)) ||
	    (st = k->extrapolate(kg, wk->ns, wk->st, wk->cls, wk->pexp, wk->spd)) ||
	    (st = step_done(x, WEST_STEP_EXTRAPOLATION)) ||
	    (st = k->initialize(kg, wk->ns, wk->st, wk->spd, wk->us, wk->vs, wk->w)) ||
	    (st = step_done(x, WEST_STEP_INIT)))
		return st;
	step_report(x, WEST_STEP_LAND, wk->land_seconds);
	if ((st = k->interpolate(kg, wk->ns, wk->st, wk->us, wk->vs, wk->u, wk->v)) ||
	    (st = step_done(x, WEST_STEP_SPEED_INTERP)) ||
	    (st = k->speed_zero(kg, wk->u, wk->v, wk->w)) ||
	    (st = step_done(x, WEST_STEP_SPEED_ZERO)))
		return st;
	step_report(x, WEST_STEP_TRANSPARENCY, wk->transparency_seconds);
	if ((st = minimize(x, o)) || (st = step_done(x, WEST_STEP_DIVMIN)) ||
	    (st = k->divremoval(kg, wk->u, wk->v, wk->w)) ||
	    (st = measure(x, &x->r->final)))
		return st;
	return step_done(x, WEST_STEP_DIVREMOVAL);
}

enum west_status west_model_solve(const struct west_kernel_ops *ops,
				  struct west_work *wk, const struct west_grid *g,
				  const struct west_solve_opts *o, double u_ref,
				  struct west_report *r, west_progress_fn progress,
				  void *ctx, char *err, size_t errlen)
{
	struct run x = { ops, wk, r, progress, ctx, now_seconds(), -1.0, 0 };
	double t_start = x.t0;
	enum west_status st;

	if (wk->ns == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID, "model: no observations");
	report_init(r, g, o, u_ref);
	snprintf(r->backend, sizeof r->backend, "%s", ops->backend);
	st = steps(&x, o);
	r->total_seconds = now_seconds() - t_start;
	if (st)
		return west_fail(err, errlen, st, "model: %s failed",
				 west_step_name(x.step));
	return WEST_OK;
}
