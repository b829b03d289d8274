/*
 * model.c: the WEST model driver (model.h): station preparation, the level
 * arrays of the kernels' grid view, and the step sequence with its report,
 * over a backend's kernel table (the tables are in backend_cpu.c and
 * backend_cuda.c); step 8's solvers and their convergence test are in
 * solvers.c.
 */
#include "model.h"
#include "model_internal.h"
#include "ranks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void west_solve_opts_from_config(struct west_solve_opts *o,
				 const struct west_config *c)
{
	o->solver = (enum west_solver)c->solver;
	o->iterations = c->iterations;
	o->cycles = c->cycles;
	o->tolerance = c->tolerance;
	o->omega = c->omega;
	o->eta = c->eta;
	o->indexing = (enum west_indexing)c->indexing;
	o->check_interval = c->check_interval;
	o->land_use = (enum west_land_use)c->land_use;
	o->exchange = (enum west_exchange)c->exchange;
	struct west_devices d;
	char ignore[WEST_ERRLEN];
	int bad = west_devices_parse(c->devices, &d, ignore, sizeof ignore) != WEST_OK;
	o->partitions = bad || d.n < 2 ? 1 : d.n;
	o->devices_auto = !bad && d.n == 0 && west_ranks_count() < 2;
	memcpy(o->device, d.dev, sizeof o->device);
	if (west_weights_parse(c->weights, o->weights, &o->nweights, ignore, sizeof ignore))
		o->nweights = 0;
	if (west_ranks_count() > 1)   /* under mpirun: one slab per rank (ranks.h) */
		o->partitions = west_ranks_count();
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
	l->ground = malloc(g->nx * g->ny * sizeof *l->ground);
	if (!l->zc || !l->rdz || !l->rdzf || !l->ground) {
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
	for (size_t c = 0; c < g->nx * g->ny; c++)
		l->ground[c] = (float)(g->terrain[c] - g->base);
	return WEST_OK;
}

void west_levels_free(struct west_levels *l)
{
	free(l->zc);
	free(l->rdz);
	free(l->rdzf);
	free(l->ground);
	memset(l, 0, sizeof *l);
}

void west_kgrid_init(struct west_kgrid *kg, const struct west_grid *g,
		     const struct west_levels *l)
{
	*kg = (struct west_kgrid){
		.nx = g->nx, .ny = g->ny, .nz = g->nz,
		.dx = (float)g->dx, .dy = (float)g->dy,
		.zc = l->zc, .rdz = l->rdz, .rdzf = l->rdzf, .ground = l->ground,
		.land = g->land, .tx = g->tx, .ty = g->ty, .tz = g->tz,
	};
}

double west_default_z0(enum west_land_use use)
{
	return use == WEST_LAND_URBAN ? 1.0 : 0.1;
}

double west_mixing_height(const struct west_obs *o, enum west_land_use use)
{
	double z0 = isfinite(o->z0) ? o->z0 : west_default_z0(use);
	double z = o->height, inv_l = o->inv_L, denom, ustar;

	if (!isfinite(inv_l))
		inv_l = west_golder_inv_l(o->stability, z0);
	denom = log(fmax(z / z0, 1.01)) + (inv_l > 0 ? 5.0 * z * inv_l : 0.0);
	ustar = 0.4 * o->speed / denom;
	return fmax(2300.0 * pow(ustar, 1.5), fmax(z, (double)WEST_H_MIN));
}

double west_model_eta(const struct west_solve_opts *o, const struct west_obs_set *obs)
{
	static const double alpha[WEST_NSTAB] = { 5.0, 3.5, 2.0, 1.0, 0.5, 0.2 };
	double sum = 0.0;

	if (!isnan(o->eta) || obs->n == 0)
		return isnan(o->eta) ? 1.0 : o->eta;
	for (size_t s = 0; s < obs->n; s++)
		sum += obs->obs[s].stability;
	/* the mean class, a half to the more stable (step 1's rounding) */
	int cls = (int)floor(sum / (double)obs->n + 0.5);
	return alpha[cls] * alpha[cls];
}

void west_model_stations(const struct west_grid *g, const struct west_obs_set *obs,
			 enum west_land_use use, struct west_kstation *st,
			 float *stab)
{
	for (size_t s = 0; s < obs->n; s++) {
		const struct west_obs *o = &obs->obs[s];
		double x = o->x - g->x0, y = o->y - g->y0;
		st[s] = (struct west_kstation){
			.x = (float)x, .y = (float)y, .height = (float)o->height,
			.speed = (float)o->speed,
			/* from true north (the observation's) to grid north */
			.direction = (float)fmod(o->direction -
						 west_grid_convergence(g, x, y) * 180.0 / M_PI +
						 360.0, 360.0),
			.mix = (float)west_mixing_height(o, use),
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

static void step_report(struct run *x, int step, double seconds)
{
	x->r->step_seconds[step] = seconds;
	x->step = step + 1;
	if (x->progress)
		x->progress(x->ctx, step, x->r);
}

static enum west_status step_done(struct run *x, int step)
{
	enum west_status st = WEST_OK;
	WEST_EACH_PART(x->ps, p)
		if (p->ops->sync && (st = p->ops->sync()))
			break;
	double t = now_seconds();
	if (st)
		return st;
	step_report(x, step, t - x->t0);
	x->t0 = t;
	return WEST_OK;
}

static void report_init(struct west_report *r, const struct west_grid *g,
			const struct west_solve_opts *o, double u_ref)
{
	double h = fmin(g->dx, g->dy);
	for (size_t k = 0; k < g->nz; k++)
		h = fmin(h, g->zf[k + 1] - g->zf[k]);
	memset(r, 0, sizeof *r);
	static const char *const names[] = {
		[WEST_SOLVER_MULTIGRID] = "multigrid",
		[WEST_SOLVER_SOR] = "sor-velocity",
		[WEST_SOLVER_SOR_POTENTIAL] = "sor-potential",
	};
	strcpy(r->solver, names[o->solver]);
	strcpy(r->indexing, o->solver != WEST_SOLVER_SOR ? "per-colour" :
			    o->indexing == WEST_INDEXING_MASKED ? "masked" : "compact");
	r->omega = o->solver == WEST_SOLVER_MULTIGRID ? WEST_MG_OMEGA : o->omega;
	r->eta = o->eta, r->tolerance = o->tolerance;
	r->iterations_max = o->solver == WEST_SOLVER_MULTIGRID ? o->cycles : o->iterations;
	r->h = h, r->u_ref = u_ref;
}

/* The slabs ps solved in: each one's backend, rank and own rows of g. */
static void report_slabs(struct west_report *r, const struct west_parts *ps,
			 const struct west_grid *g)
{
	for (int p = 0; p < ps->n; p++) {
		const struct west_part *q = &ps->part[p];
		struct west_report_slab *s = &r->slab[p];

		snprintf(s->backend, sizeof s->backend, "%s", q->ops->backend);
		if (q->ops->bind)   /* a backend of several devices: CUDA's */
			snprintf(s->device, sizeof s->device, "%s:%d", q->ops->backend, q->dev);
		else
			snprintf(s->device, sizeof s->device, "%s", q->ops->backend);
		s->rank = q->rank;
		s->j0 = q->a[0], s->j1 = q->b[0];
		s->cells = g->nx * (s->j1 - s->j0) * g->nz;
	}
}

/* One kernel call on every partition (k its table, wk its work, p it). */
#define EACH_PART(x, st, call) \
	WEST_EACH_PART((x)->ps, p) { \
		const struct west_kernel_ops *k = p->ops; \
		struct west_work *wk = &p->wk; \
		(void)k, (void)wk; \
		if ((st = (call))) \
			break; \
	}

/* The steps in model order; 4 and 7 were done with the terrain.  Steps 1
 * and 2 take the whole grid's columns (the stations' own columns may lie
 * in any slab). */
static enum west_status steps(struct run *x, const struct west_solve_opts *o)
{
	const struct west_work *w0 = &west_parts_mine(x->ps)->wk;
	enum west_status st = WEST_OK;

	EACH_PART(x, st, k->stability(&p->cols, wk->ns, wk->st, wk->stab, wk->cls));
	if (st || (st = step_done(x, WEST_STEP_STABILITY)))
		return st;
	EACH_PART(x, st, k->extrapolate(&p->cols, wk->ns, wk->st, wk->cls, wk->pexp, wk->pst));
	if (st || (st = step_done(x, WEST_STEP_EXTRAPOLATE)))
		return st;
	EACH_PART(x, st, k->initialize(&wk->kg, wk->ns, wk->st, wk->us, wk->vs, wk->w));
	if (st || (st = step_done(x, WEST_STEP_INITIALIZE)))
		return st;
	step_report(x, WEST_STEP_LAND, w0->land_seconds);
	EACH_PART(x, st, k->interpolate(&wk->kg, wk->ns, wk->st, wk->pst, wk->us, wk->vs,
					wk->u, wk->v));
	if (st || (st = step_done(x, WEST_STEP_INTERPOLATE)))
		return st;
	EACH_PART(x, st, k->speed_zero(&wk->kg, wk->u, wk->v, wk->w));
	if (st || (st = step_done(x, WEST_STEP_SPEED_ZERO)))
		return st;
	step_report(x, WEST_STEP_TRANSPARENCY, w0->transparency_seconds);
	if ((st = west_minimize(x, o)) || (st = step_done(x, WEST_STEP_DIVMIN)))
		return st;
	EACH_PART(x, st, wk->final ? wk->final(wk->final_ctx, WEST_STEP_DIVMIN) : WEST_OK);
	if (st)
		return st;
	EACH_PART(x, st, k->divremoval(&wk->kg, wk->u, wk->v, wk->w));
	if (st)
		return st;
	EACH_PART(x, st, wk->final ? wk->final(wk->final_ctx, WEST_STEP_DIVREMOVAL) : WEST_OK);
	if (st || (st = west_measure(x, &x->r->final)))
		return st;
	return step_done(x, WEST_STEP_DIVREMOVAL);
}

enum west_status west_model_solve_parts(struct west_parts *ps, const struct west_grid *g,
					const struct west_solve_opts *o, double u_ref,
					struct west_report *r, west_progress_fn progress,
					void *ctx, char *err, size_t errlen)
{
	struct run x = { ps, r, progress, ctx, now_seconds(), -1.0, 0 };
	const struct west_work *wk = &west_parts_mine(ps)->wk;
	double t_start = x.t0;
	enum west_status st;

	if (wk->ns == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID, "model: no observations");
	if (!(o->eta > 0))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "model: eta %g is not a number > 0 (resolve auto with west_model_eta)",
				 o->eta);
	if (o->solver != WEST_SOLVER_SOR && (!wk->mg || wk->mg->eta != o->eta))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "model: the %s solver needs the hierarchy built for eta %g",
				 o->solver == WEST_SOLVER_MULTIGRID ? "multigrid" : "sor-potential",
				 o->eta);
	report_init(r, g, o, u_ref);
	snprintf(r->backend, sizeof r->backend, "%s",
		 (ps->gpu ? ps->gpu : ps->part[0].ops)->backend);
	ps->overlap = o->exchange == WEST_EXCHANGE_OVERLAP;
	ps->exchange_seconds = 0.0;
	st = steps(&x, o);
	r->total_seconds = now_seconds() - t_start;
	r->partitions = ps->n;
	r->exchange_seconds = ps->exchange_seconds;
	report_slabs(r, ps, g);
	if (st)
		return west_fail(err, errlen, st, "model: %s failed",
				 west_step_name(x.step));
	return WEST_OK;
}

enum west_status west_model_solve(const struct west_kernel_ops *ops,
				  struct west_work *wk, const struct west_grid *g,
				  const struct west_solve_opts *o, double u_ref,
				  struct west_report *r, west_progress_fn progress,
				  void *ctx, char *err, size_t errlen)
{
	struct west_parts one;
	double *sums = malloc(wk->kg.ny * sizeof *sums);
	enum west_status st;

	if (!sums)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "model: out of memory");
	west_parts_one(&one, ops, wk, sums);
	st = west_model_solve_parts(&one, g, o, u_ref, r, progress, ctx, err, errlen);
	free(sums);
	return st;
}
