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

#include "log.h"

#define EACH(ps, p) for (struct west_part *p = (ps)->part; p < (ps)->part + (ps)->n; p++)

/* ---------------------------------------------------------- the cut */

/*
 * The level lp where the hierarchy stops being cut and each partition's
 * own rows: the deepest lp >= 1 whose slabs (lp's rows dealt out evenly)
 * keep po's rows and cells; level 0's boundaries are then multiples of
 * F, the product of the y factors below lp, so every coarse cell of a
 * cut level lies in one slab.  Without a hierarchy lp is 1 and F the
 * first factor.
 */
static enum west_status cut(struct west_parts *ps, const struct west_mg *plan, int n,
			    const struct west_parts_opts *po, char *err, size_t errlen)
{
	for (int lp = plan->nlevels - 1; lp >= 1; lp--) {
		const struct west_plevel *l = &plan->lv[lp];
		size_t units = l->ny, least = units / (size_t)n, f = 1, start = 0;
		if (least < po->min_rows || l->nx * least * l->nz < po->min_cells)
			continue;
		for (int L = 0; L < lp; L++)
			f *= plan->lv[L].fy;
		ps->lp = lp;
		for (int p = 0; p < n; p++) {
			size_t m = least + ((size_t)p < units % (size_t)n);
			ps->part[p].a[0] = start * f;
			ps->part[p].b[0] = p + 1 == n ? plan->lv[0].ny : (start + m) * f;
			start += m;
		}
		return WEST_OK;
	}
	return west_fail(err, errlen, WEST_ERR_INVALID,
			 "partitions: %zu rows of %zu x %zu cells are too few for %d slabs of at "
			 "least %zu rows and %zu cells on the first coarse level",
			 plan->lv[0].ny, plan->lv[0].nx, plan->lv[0].nz, n, po->min_rows,
			 po->min_cells);
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

static enum west_status copy_rows(const struct west_part *s, const float *sa,
				  const struct west_plevel *sl, size_t sjg, float *da,
				  const struct west_plevel *dl, size_t djg, int c, size_t j0,
				  size_t j1);

/* The tail's first conductances: level lp's six per cell, from the
 * partitions' own rows. */
static enum west_status tail_first(void *ctx, const struct west_plevel *l, char *err,
				   size_t errlen)
{
	struct west_parts *ps = ctx;
	enum west_status st = WEST_OK;
	EACH(ps, q) {
		const struct west_plevel *ql = &q->mg.lv[ps->lp];
		for (int f = 0; f < 6 && !st; f++)
			for (int c = 0; c < 2 && !st; c++)
				st = copy_rows(q, ql->g + f * 2 * ql->ncol, ql, q->jg[ps->lp],
					       (float *)l->g + f * 2 * l->ncol, l, 0, c,
					       q->a[ps->lp], q->b[ps->lp]);
		if (st)
			return west_fail(err, errlen, st, "partitions: gathering level %d failed",
					 ps->lp);
	}
	return WEST_OK;
}

static enum west_status build_tail(struct west_parts *ps, char *err, size_t errlen)
{
	struct west_parts *t = calloc(1, sizeof *t);
	struct west_part *q;
	enum west_status st;

	if (!t)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "partitions: out of memory");
	ps->tail = t;
	t->n = 1, t->g = ps->g, t->eta = ps->eta;
	q = &t->part[0];
	q->ops = ps->part[0].ops;
	if ((st = west_mg_build_tail(q->ops, &q->mg, ps->g, ps->eta, ps->lp, tail_first, ps,
				     err, errlen)))
		return st;
	q->wk.mg = &q->mg;
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
	static const struct west_parts_opts dflt = { WEST_PARTS_MIN_ROWS, WEST_PARTS_MIN_CELLS };
	struct west_mg plan;
	enum west_status st;

	memset(ps, 0, sizeof *ps);
	ps->g = g, ps->n = n, ps->eta = mg ? eta : NAN;
	if (n < 2 || n > WEST_MAX_PARTS)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "partitions: %d partitions (2 to %d)", n, WEST_MAX_PARTS);
	for (int p = 1; p < n; p++)
		if (strcmp(ops[p]->backend, ops[0]->backend))
			return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
					 "partitions: %s beside %s: partitions of different "
					 "backends are not built yet", ops[p]->backend,
					 ops[0]->backend);
	if ((st = west_mg_plan(&plan, g, eta, err, errlen)) ||
	    (st = cut(ps, &plan, n, po ? po : &dflt, err, errlen)))
		return st;
	for (int p = 0; p < n; p++) {
		ps->part[p].ops = ops[p];
		rows(ps, &plan, p);
	}
	if (!(ps->stage = malloc(2 * g->nx * sizeof *ps->stage)) ||
	    !(ps->sums = malloc(g->ny * sizeof *ps->sums))) {
		west_parts_free(ps);
		return west_fail(err, errlen, WEST_ERR_NOMEM, "partitions: out of memory");
	}
	EACH(ps, q)
		if ((st = build_part(ps, q, err, errlen)) ||
		    (mg && (st = build_mg(ps, q, &plan, err, errlen))))
			break;
	if (!st && mg)
		st = build_tail(ps, err, errlen);
	if (st)
		west_parts_free(ps);
	return st;
}

static void free_part(struct west_part *q)
{
	char ignore[WEST_ERRLEN];
	if (q->mg.base)
		q->ops->free(q->mg.base, ignore, sizeof ignore);
	free_mem(q, q->mem, q->nmem);
	free_mem(q, q->smem, 4);
	west_levels_free(&q->levels);
	west_grid_free(&q->slab);
	memset(q, 0, sizeof *q);
}

void west_parts_free(struct west_parts *ps)
{
	if (ps->tail) {
		free_part(&ps->tail->part[0]);
		free(ps->tail);
	}
	EACH(ps, q)
		if (q->ops)
			free_part(q);
	free(ps->stage);
	free(ps->sums);
	memset(ps, 0, sizeof *ps);
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

enum west_status west_parts_field(struct west_parts *ps, float *u, float *v, float *w,
				  unsigned char *cls, char *err, size_t errlen)
{
	const struct west_grid *g = ps->g;
	size_t nx = g->nx, ny = g->ny, nz = g->nz, fl = sizeof(float);
	const struct west_kernel_ops *k = ps->part[0].ops;
	enum west_status st;

	EACH(ps, q) {
		size_t a = q->a[0], m = q->b[0] - a, o = a - q->jg[0], nyl = q->wk.kg.ny;
		size_t my = m + (q == ps->part + ps->n - 1);   /* the last takes the top faces */
		if ((st = k->copy2d(u + (nx + 1) * a, (nx + 1) * ny * fl, q->wk.u + (nx + 1) * o,
				    (nx + 1) * nyl * fl, (nx + 1) * m * fl, nz, err, errlen)) ||
		    (st = k->copy2d(v + nx * a, nx * (ny + 1) * fl, q->wk.v + nx * o,
				    nx * (nyl + 1) * fl, nx * my * fl, nz, err, errlen)) ||
		    (st = k->copy2d(w + nx * a, nx * ny * fl, q->wk.w + nx * o, nx * nyl * fl,
				    nx * m * fl, nz + 1, err, errlen)))
			return st;
	}
	if ((st = k->copy2d(cls, nx * ny, ps->part[0].wk.cls, nx * ny, nx * ny, 1, err, errlen)))
		return st;
	return k->sync ? k->sync() : WEST_OK;
}

/* ------------------------------------------------------- exchanges */

static enum west_status moved(enum west_status st, const char *what, const char *err)
{
	if (st)
		west_log(WEST_LOG_ERR, "partitions: %s: %s", what, err);
	return st;
}

/*
 * Rows [j0, j1) (the whole level's numbering) of colour c of the
 * per-colour array sa of level sl (local row 0 = row sjg) of partition s
 * into da of level dl (row djg) of partition d, every k: one strided copy
 * in the partitions' memory (all of one backend: west_parts_build).  A
 * colour's slots are (i + local j + k) & 1, so the global colour c is
 * c ^ (jg & 1) in each.
 */
static enum west_status copy_rows(const struct west_part *s, const float *sa,
				  const struct west_plevel *sl, size_t sjg, float *da,
				  const struct west_plevel *dl, size_t djg, int c, size_t j0,
				  size_t j1)
{
	size_t hx = sl->hx, n = (j1 - j0) * hx;
	int sc = c ^ (int)(sjg & 1), dc = c ^ (int)(djg & 1);
	char err[WEST_ERRLEN];

	return moved(s->ops->copy2d(da + (size_t)dc * dl->ncol + hx * (j0 - djg),
				    hx * dl->ny * sizeof *da,
				    sa + (size_t)sc * sl->ncol + hx * (j0 - sjg),
				    hx * sl->ny * sizeof *sa, n * sizeof *sa, sl->nz, err, sizeof err),
		     "moving rows", err);
}

enum west_status west_parts_halo_e(struct west_parts *ps, int L, int c)
{
	enum west_status st = WEST_OK;
	for (int p = 0; p + 1 < ps->n && !st; p++) {
		struct west_part *lo = &ps->part[p], *up = &ps->part[p + 1];
		const struct west_plevel *ll = &lo->wk.mg->lv[L], *ul = &up->wk.mg->lv[L];
		size_t b = lo->b[L];
		if (!(st = copy_rows(lo, ll->e, ll, lo->jg[L], ul->e, ul, up->jg[L], c, b - 1, b)))
			st = copy_rows(up, ul->e, ul, up->jg[L], ll->e, ll, lo->jg[L], c, b, b + 1);
	}
	return st;
}

enum west_status west_parts_merge_v(struct west_parts *ps, int c)
{
	char err[WEST_ERRLEN];
	enum west_status st = WEST_OK;

	if (ps->n < 2)
		return WEST_OK;
	size_t nx = ps->g->nx, nz = ps->g->nz;
	float *lo_row = ps->stage, *up_row = ps->stage + nx;
	for (int p = 0; p + 1 < ps->n && !st; p++) {
		struct west_part *lo = &ps->part[p], *up = &ps->part[p + 1];
		size_t b = lo->b[0], nlo = lo->wk.kg.ny + 1, nup = up->wk.kg.ny + 1;
		for (size_t k = 0; k < nz && !st; k++) {
			float *lv = lo->wk.v + nx * (b - lo->jg[0] + nlo * k);
			float *uv = up->wk.v + nx * (b - up->jg[0] + nup * k);
			if ((st = lo->ops->download(lo_row, lv, nx * sizeof *lv, err, sizeof err)) ||
			    (st = up->ops->download(up_row, uv, nx * sizeof *uv, err, sizeof err)))
				break;
			/* the cell below the face, (i, b - 1, k), moved it when of colour c */
			for (size_t i = 0; i < nx; i++)
				if ((int)((i + b - 1 + k) & 1) == c)
					up_row[i] = lo_row[i];
				else
					lo_row[i] = up_row[i];
			if (!(st = lo->ops->upload(lv, lo_row, nx * sizeof *lv, err, sizeof err)))
				st = up->ops->upload(uv, up_row, nx * sizeof *uv, err, sizeof err);
		}
	}
	return moved(st, "merging shared faces", err);
}

enum west_status west_parts_gather(struct west_parts *ps)
{
	struct west_part *t = &ps->tail->part[0];
	const struct west_plevel *tl = &t->mg.lv[0];
	enum west_status st = WEST_OK;
	EACH(ps, q) {
		const struct west_plevel *l = &q->mg.lv[ps->lp];
		for (int c = 0; c < 2 && !st; c++)
			st = copy_rows(q, l->b, l, q->jg[ps->lp], tl->b, tl, 0, c, q->a[ps->lp],
				       q->b[ps->lp]);
	}
	return st;
}

enum west_status west_parts_scatter(struct west_parts *ps)
{
	struct west_part *t = &ps->tail->part[0];
	const struct west_plevel *tl = &t->mg.lv[0];
	enum west_status st = WEST_OK;
	EACH(ps, q) {
		const struct west_plevel *l = &q->mg.lv[ps->lp];
		size_t j0 = q->a[ps->lp] - (q > ps->part), j1 = q->b[ps->lp] + (q < ps->part + ps->n - 1);
		for (int c = 0; c < 2 && !st; c++)
			st = copy_rows(t, tl->e, tl, 0, l->e, l, q->jg[ps->lp], c, j0, j1);
	}
	return st;
}

/* ------------------------------------------------------- a backend's */

void west_parts_drop(struct west_parts **set)
{
	if (*set)
		west_parts_free(*set);
	free(*set);
	*set = NULL;
}

/* *set for o: kept while its count and (with a hierarchy) eta are o's. */
static enum west_status keep_set(struct west_parts **set, const struct west_grid *g,
				 const struct west_kernel_ops *ops,
				 const struct west_solve_opts *o, char *err, size_t errlen)
{
	const struct west_kernel_ops *tables[WEST_MAX_PARTS];
	int mg = o->solver != WEST_SOLVER_SOR;
	enum west_status st;

	if (*set && (*set)->n == o->partitions && (!mg || (*set)->eta == o->eta))
		return WEST_OK;
	west_parts_drop(set);
	if (!(*set = malloc(sizeof **set)))
		return west_fail(err, errlen, WEST_ERR_NOMEM, "partitions: out of memory");
	for (int p = 0; p < WEST_MAX_PARTS; p++)
		tables[p] = ops;
	if ((st = west_parts_build(*set, g, o->partitions, tables, mg, o->eta, NULL, err,
				   errlen))) {
		free(*set);
		*set = NULL;
		return st;
	}
	west_log(WEST_LOG_INFO, "%s backend: the grid's %zu rows in %d slabs%s", ops->backend,
		 g->ny, o->partitions,
		 mg ? ", the hierarchy cut as far as each slab keeps 4 rows and 32768 cells" : "");
	return WEST_OK;
}

enum west_status west_parts_solve(struct west_parts **set, const struct west_grid *g,
				  const struct west_kernel_ops *ops,
				  const struct west_obs_set *obs, const struct west_solve_opts *o,
				  const struct west_kstation *st, const float *stab,
				  struct west_field *f, float *u, float *v, float *w,
				  unsigned char *cls, west_progress_fn progress, void *ctx,
				  char *err, size_t errlen)
{
	enum west_status rc;
	if ((rc = keep_set(set, g, ops, o, err, errlen)) ||
	    (rc = west_parts_stations(*set, obs->n, st, stab, west_power_exponents(o->land_use),
				      err, errlen)) ||
	    (rc = west_model_solve_parts(*set, g, o, west_obs_max_speed(obs), &f->report,
					 progress, ctx, err, errlen)))
		return rc;
	return west_parts_field(*set, u, v, w, cls, err, errlen);
}
