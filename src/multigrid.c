/*
 * multigrid.c: building the hierarchy of the potential-form solvers
 * (multigrid.h gives the rules): level shapes by the coarsening rule, one
 * block for every array, level 0's face codes and conductances from the
 * grid's transparencies, and each coarser level's conductances summed
 * from the level below (in double, stored as float).
 */
#include "multigrid.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "multigrid_util.h"

/* A level's geometry while building: cells, spacings, face heights, and
 * what its open boundaries need (struct west_mgeom's bound and edges). */
struct geom {
	size_t nx, ny, nz;
	double dx, dy;
	double *zf;       /* nz + 1 face heights (m) */
	double last[2];   /* widths (m) of the last cell along x and y: an odd
			     count's last coarse cell holds one fine cell */
	double ghost[3];  /* level 0's half cell along x, y and at the top (m) */
	unsigned edges;   /* west_mgeom's */
};

static double thinnest(const struct geom *a)
{
	double t = INFINITY;
	for (size_t k = 0; k < a->nz; k++)
		t = fmin(t, a->zf[k + 1] - a->zf[k]);
	return t;
}

/* The coarsening factors from level a (multigrid.h's rule); 0 when none. */
static int coarsen(const struct geom *a, double eta, unsigned f[3])
{
	size_t n[3] = { a->nx, a->ny, a->nz };
	double h[3] = { a->dx, a->dy, thinnest(a) / sqrt(eta) }, hmin = INFINITY;
	int any = 0;

	for (int d = 0; d < 3; d++)
		if (n[d] >= 2)
			hmin = fmin(hmin, h[d]);
	for (int d = 0; d < 3; d++) {
		f[d] = n[d] >= 2 && h[d] <= WEST_MG_ANISO * hmin ? 2 : 1;
		any |= f[d] == 2;
	}
	return any;
}

static enum west_status next_geom(struct geom *c, const struct geom *a,
				  const unsigned f[3], char *err, size_t errlen)
{
	*c = (struct geom){ (a->nx + f[0] - 1) / f[0], (a->ny + f[1] - 1) / f[1],
			    (a->nz + f[2] - 1) / f[2], a->dx * f[0], a->dy * f[1], NULL,
			    { f[0] == 2 && a->nx % 2 == 0 ? a->dx + a->last[0] : a->last[0],
			      f[1] == 2 && a->ny % 2 == 0 ? a->dy + a->last[1] : a->last[1] },
			    { a->ghost[0], a->ghost[1], a->ghost[2] }, a->edges };
	c->zf = malloc((c->nz + 1) * sizeof *c->zf);
	if (!c->zf)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "multigrid: out of memory");
	for (size_t k = 0; k < c->nz; k++)
		c->zf[k] = a->zf[k * f[2]];
	c->zf[c->nz] = a->zf[a->nz];
	return WEST_OK;
}

/* a's geometry as the kernels take it (zf in host memory). */
static struct west_mgeom mgeom(const struct geom *a)
{
	double top = a->zf[a->nz] - a->zf[a->nz - 1];
	return (struct west_mgeom){
		a->nx, a->ny, a->nz, a->dx, a->dy, a->zf,
		{ 0.5 * a->dx + a->ghost[0], 0.5 * a->last[0] + a->ghost[0],
		  0.5 * a->dy + a->ghost[1], 0.5 * a->last[1] + a->ghost[1], 0.0,
		  0.5 * top + a->ghost[2] },
		a->edges };
}

/* ------------------------------------------------------------- layout */

/* The next array of `bytes` (256-byte aligned) in the block at base, or
 * NULL while base is NULL (the sizing pass). */
static void *take(char *base, size_t *off, size_t bytes)
{
	size_t o = *off;
	*off += (bytes + 255) & ~(size_t)255;
	return base ? base + o : NULL;
}

/* Point every array of mg into the block at base; returns its bytes. */
static size_t layout(struct west_mg *mg, const struct geom *gm, int tail, char *base)
{
	size_t off = 0;
	for (int L = 0; L < mg->nlevels; L++) {
		struct west_plevel *l = &mg->lv[L];
		size_t n = 2 * l->ncol;
		if (L == 0 && !tail) {
			l->code = take(base, &off, n);
			l->kf = take(base, &off, 6 * gm[0].nz * sizeof(float));
			l->vol = take(base, &off, gm[0].nz * sizeof(float));
		} else
			l->g = take(base, &off, 6 * n * sizeof(float));
		l->e = take(base, &off, n * sizeof(float));
		l->b = take(base, &off, n * sizeof(float));
	}
	mg->p = take(base, &off, 2 * mg->lv[0].ncol * sizeof(float));
	mg->q = take(base, &off, 2 * mg->lv[0].ncol * sizeof(float));
	mg->x = take(base, &off, 2 * mg->lv[0].ncol * sizeof(float));
	mg->base = base;
	return off;
}

#define MOVE(p, d) ((p) = (p) ? (__typeof__(p))((uintptr_t)(p) + (d)) : NULL)

void west_mg_rebase(struct west_mg *out, const struct west_mg *host, void *base)
{
	uintptr_t d = (uintptr_t)base - (uintptr_t)host->base;
	*out = *host;
	for (int L = 0; L < out->nlevels; L++) {
		struct west_plevel *l = &out->lv[L];
		MOVE(l->code, d), MOVE(l->kf, d), MOVE(l->vol, d), MOVE(l->g, d);
		MOVE(l->e, d), MOVE(l->b, d);
	}
	MOVE(out->p, d), MOVE(out->q, d), MOVE(out->x, d);
	out->base = base;
	out->cut = NULL, out->cut_bytes = 0;
	out->lv[0].cutrow = NULL, out->lv[0].tcut = NULL, out->lv[0].cutstride = 0;
}

/* -------------------------------------------------------------- fill */

/* Level 0's kf and vol by level (host arrays of 6 nz and nz floats). */
static void level0_consts(const struct geom *a, double eta, float *kf, float *vol)
{
	struct west_mgeom m = mgeom(a);
	for (size_t k = 0; k < a->nz; k++) {
		double dz = a->zf[k + 1] - a->zf[k];
		double c[6] = { a->dy * dz / a->dx, a->dy * dz / a->dx,
				a->dx * dz / a->dy, a->dx * dz / a->dy,
				eta * a->dx * a->dy / west_mg_face_dist(&m, WEST_PF_B, k),
				eta * a->dx * a->dy / west_mg_face_dist(&m, WEST_PF_T, k) };
		for (int f = 0; f < 6; f++)
			kf[6 * k + f] = (float)c[f];
		vol[k] = (float)(a->dx * a->dy * dz);
	}
}

/* -------------------------------------------------------------- build */

static void level_shape(struct west_plevel *l, const struct geom *a)
{
	*l = (struct west_plevel){ .nx = a->nx, .ny = a->ny, .nz = a->nz,
				   .hx = (a->nx + 1) / 2 };
	l->ncol = l->hx * l->ny * l->nz;
}

/* Every open boundary of the model grid (west_mgeom's edges). */
#define ALL_EDGES (1u << WEST_PF_W | 1u << WEST_PF_E | 1u << WEST_PF_S | 1u << WEST_PF_N | \
		   1u << WEST_PF_T)

/* The levels' shapes and geometries into mg and gm (zf arrays owned): by
 * the coarsening rule, or with plan (not NULL) plan's factors for its first
 * nlev levels (a partition's: multigrid.h); edges: those of the model
 * grid's boundaries g lies on (west_mgeom's). */
static enum west_status shapes(struct west_mg *mg, struct geom *gm,
			       const struct west_grid *g, double eta,
			       const struct west_mg *plan, int nlev, unsigned edges,
			       char *err, size_t errlen)
{
	gm[0] = (struct geom){ g->nx, g->ny, g->nz, g->dx, g->dy,
			       malloc((g->nz + 1) * sizeof(double)), { g->dx, g->dy },
			       { 0.5 * g->dx, 0.5 * g->dy, 0.5 * (g->zf[g->nz] - g->zf[g->nz - 1]) },
			       edges };
	if (!gm[0].zf)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "multigrid: out of memory");
	memcpy(gm[0].zf, g->zf, (g->nz + 1) * sizeof(double));
	mg->nlevels = 1;
	for (int L = 0;; L++) {
		unsigned f[3];
		struct west_plevel *l = &mg->lv[L];
		level_shape(l, &gm[L]);
		if (plan) {
			if (L + 1 == nlev)
				return WEST_OK;
			f[0] = plan->lv[L].fx, f[1] = plan->lv[L].fy, f[2] = plan->lv[L].fz;
		} else if (L + 1 == WEST_MG_MAX_LEVELS ||
			   l->nx * l->ny * l->nz <= WEST_MG_COARSEST_CELLS ||
			   !coarsen(&gm[L], eta, f))
			return WEST_OK;
		l->fx = f[0], l->fy = f[1], l->fz = f[2];
		enum west_status st = next_geom(&gm[L + 1], &gm[L], f, err, errlen);
		if (st)
			return st;
		mg->nlevels++;
	}
}

/*
 * The fill in the backend's memory (mg placed in its block): kf and vol
 * up, every level's face heights up in one buffer, then level 0's codes
 * (kg not NULL; for a tail, whose first level's conductances are already
 * there, kg is NULL) and each coarser level's conductances by the table's
 * kernels.
 */
static enum west_status fill(const struct west_kernel_ops *ops, struct west_mg *mg,
			     const struct geom *gm, const struct west_kgrid *kg, double eta,
			     char *err, size_t errlen)
{
	size_t nz0 = gm[0].nz, nzf = 0;
	float *consts = malloc(7 * nz0 * sizeof *consts);
	double *zf = NULL;
	void *dzf = NULL;
	enum west_status st;

	for (int L = 0; L < mg->nlevels; L++)
		nzf += gm[L].nz + 1;
	if (!consts || !(zf = malloc(nzf * sizeof *zf))) {
		st = west_fail(err, errlen, WEST_ERR_NOMEM, "multigrid: out of memory");
		goto out;
	}
	for (int L = 0, off = 0; L < mg->nlevels; off += (int)gm[L].nz + 1, L++)
		memcpy(zf + off, gm[L].zf, (gm[L].nz + 1) * sizeof *zf);
	level0_consts(&gm[0], eta, consts, consts + 6 * nz0);
	if ((kg && ((st = ops->upload((void *)mg->lv[0].kf, consts, 6 * nz0 * sizeof *consts,
				      err, errlen)) ||
		    (st = ops->upload((void *)mg->lv[0].vol, consts + 6 * nz0,
				      nz0 * sizeof *consts, err, errlen)))) ||
	    (st = ops->alloc(&dzf, nzf * sizeof *zf, err, errlen)) ||
	    (st = ops->upload(dzf, zf, nzf * sizeof *zf, err, errlen)) ||
	    (kg && (st = ops->mg_codes(kg, &mg->lv[0]))))
		goto out;
	for (int L = 0, off = 0; L + 1 < mg->nlevels && !st; off += (int)gm[L].nz + 1, L++) {
		struct west_mgeom a = mgeom(&gm[L]), c = mgeom(&gm[L + 1]);
		a.zf = (const double *)dzf + off;
		c.zf = a.zf + gm[L].nz + 1;
		st = ops->mg_coarse(&mg->lv[L], &a, &mg->lv[L + 1], &c);
	}
	if (!st && ops->sync)
		st = ops->sync();
out:
	if (dzf) {
		enum west_status fst = ops->free(dzf, err, errlen);
		st = st ? st : fst;
	}
	free(zf);
	free(consts);
	return st;
}

static void free_geoms(struct geom *gm)
{
	for (int L = 0; L < WEST_MG_MAX_LEVELS; L++)
		free(gm[L].zf), gm[L].zf = NULL;
}

/*
 * mg's block by ops (its shapes and gm set; tail: its first level is a
 * coarse one), zeroed, first (not NULL) called to put the tail's first
 * conductances there, then filled.
 */
static enum west_status place(const struct west_kernel_ops *ops, struct west_mg *mg,
			      const struct geom *gm, const struct west_kgrid *kg, double eta,
			      int tail, west_mg_first_fn first, void *ctx,
			      char *err, size_t errlen)
{
	void *block;
	enum west_status st;

	mg->bytes = layout(mg, gm, tail, NULL);
	if ((st = ops->alloc(&block, mg->bytes, err, errlen))) {
		snprintf(err, errlen, "multigrid: no memory for the hierarchy (%zu bytes)",
			 mg->bytes);
		return st;
	}
	layout(mg, gm, tail, block);
	const struct west_plevel *last = &mg->lv[mg->nlevels - 1];
	mg->coarse_sweeps = (int)(last->nx + last->ny + last->nz) + 4;
	if (kg)
		mg->lv[0].tx = kg->tx, mg->lv[0].ty = kg->ty;
	if (!(st = ops->fill(block, 0, mg->bytes, err, errlen)) &&
	    !(st = first ? first(ctx, &mg->lv[0], err, errlen) : WEST_OK) &&
	    !(st = fill(ops, mg, gm, kg, eta, err, errlen)) && kg)
		st = west_mg_cuts_on(ops, mg, err, errlen);
	if (st) {
		char ignore[WEST_ERRLEN];
		ops->free(block, ignore, sizeof ignore);
	}
	return st;
}

enum west_status west_mg_cuts_on(const struct west_kernel_ops *ops, struct west_mg *mg,
				 char *err, size_t errlen)
{
	struct west_plevel *l = &mg->lv[0];
	size_t rows = 2 * l->ny * l->nz, head = (rows + 1) * sizeof(size_t), n;
	size_t *count;
	void *block;
	enum west_status st;

	if (!ops->mg_cuts)
		return WEST_OK;
	if (!(count = malloc(head)))
		return west_fail(err, errlen, WEST_ERR_NOMEM, "multigrid: out of memory");
	if ((st = ops->mg_cuts(l, count, NULL, 0))) {
		free(count);
		return st;
	}
	n = count[rows];
	head = (head + 63) & ~(size_t)63;
	if ((st = ops->alloc(&block, head + 4 * n * sizeof(float), err, errlen))) {
		free(count);
		snprintf(err, errlen, "multigrid: no memory for the cut table (%zu cells)", n);
		return st;
	}
	memcpy(block, count, (rows + 1) * sizeof *count);
	free(count);
	if (!(st = ops->mg_cuts(l, block, (float *)((char *)block + head), n))) {
		mg->cut = block, mg->cut_bytes = head + 4 * n * sizeof(float);
		l->cutrow = block, l->tcut = (const float *)((char *)block + head);
		l->cutstride = n;
		return WEST_OK;
	}
	char ignore[WEST_ERRLEN];
	ops->free(block, ignore, sizeof ignore);
	return st;
}

enum west_status west_mg_build_on(const struct west_kernel_ops *ops, struct west_mg *mg,
				  const struct west_grid *g, const struct west_kgrid *kg,
				  double eta, char *err, size_t errlen)
{
	return west_mg_build_part(ops, mg, g, kg, eta, NULL, 0, err, errlen);
}

enum west_status west_mg_build_part(const struct west_kernel_ops *ops, struct west_mg *mg,
				    const struct west_grid *g, const struct west_kgrid *kg,
				    double eta, const struct west_mg *plan, int nlev,
				    char *err, size_t errlen)
{
	struct geom gm[WEST_MG_MAX_LEVELS] = { { 0 } };
	enum west_status st;
	unsigned edges = ALL_EDGES;

	/* a slab (kernels.h, views) lies on the south or north boundary only
	 * when its rows start or end there */
	if (kg && kg->jg > 0)
		edges &= ~(1u << WEST_PF_S);
	if (plan && kg && kg->jg + g->ny < plan->lv[0].ny)
		edges &= ~(1u << WEST_PF_N);
	memset(mg, 0, sizeof *mg);
	mg->eta = eta;
	if (!(st = shapes(mg, gm, g, eta, plan, nlev, edges, err, errlen)))
		st = place(ops, mg, gm, kg, eta, 0, NULL, NULL, err, errlen);
	free_geoms(gm);
	if (st)
		memset(mg, 0, sizeof *mg);
	return st;
}

enum west_status west_mg_plan(struct west_mg *plan, const struct west_grid *g, double eta,
			      char *err, size_t errlen)
{
	struct geom gm[WEST_MG_MAX_LEVELS] = { { 0 } };
	enum west_status st;

	memset(plan, 0, sizeof *plan);
	plan->eta = eta;
	st = shapes(plan, gm, g, eta, NULL, 0, ALL_EDGES, err, errlen);
	free_geoms(gm);
	return st;
}

enum west_status west_mg_build_tail(const struct west_kernel_ops *ops, struct west_mg *mg,
				    const struct west_grid *g, double eta, int from,
				    west_mg_first_fn first, void *ctx, char *err, size_t errlen)
{
	struct geom gm[WEST_MG_MAX_LEVELS] = { { 0 } };
	struct west_mg whole = { 0 };
	enum west_status st;

	memset(mg, 0, sizeof *mg);
	mg->eta = eta;
	if (!(st = shapes(&whole, gm, g, eta, NULL, 0, ALL_EDGES, err, errlen))) {
		if (from < 1 || from >= whole.nlevels)
			st = west_fail(err, errlen, WEST_ERR_INVALID,
				       "multigrid: a tail from level %d of %d levels", from,
				       whole.nlevels);
		else {
			mg->nlevels = whole.nlevels - from;
			memcpy(mg->lv, whole.lv + from, (size_t)mg->nlevels * sizeof *mg->lv);
			st = place(ops, mg, gm + from, NULL, eta, 1, first, ctx, err, errlen);
		}
	}
	free_geoms(gm);
	if (st)
		memset(mg, 0, sizeof *mg);
	return st;
}

enum west_status west_mg_build(struct west_mg *mg, const struct west_grid *g,
			       double eta, char *err, size_t errlen)
{
	struct west_kgrid kg = { .nx = g->nx, .ny = g->ny, .nz = g->nz,
				 .tx = g->tx, .ty = g->ty, .tz = g->tz };
	return west_mg_build_on(&west_kernels_cpu_ref, mg, g, &kg, eta, err, errlen);
}

void west_mg_free(struct west_mg *mg)
{
	free(mg->base);
	free(mg->cut);
	memset(mg, 0, sizeof *mg);
}

void west_mg_describe(const struct west_mg *mg, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int L = 0; L < mg->nlevels && n < len; L++) {
		const struct west_plevel *l = &mg->lv[L];
		int w = snprintf(buf + n, len - n, "%s%zux%zux%zu", L ? " " : "",
				 l->nx, l->ny, l->nz);
		if (w < 0)
			break;
		n += (size_t)w;
	}
}
