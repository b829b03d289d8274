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

#include "potential_util.h"

/* A level's geometry while building: cells, spacings, face heights. */
struct geom {
	size_t nx, ny, nz;
	double dx, dy;
	double *zf;    /* nz + 1 face heights (m) */
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
			    (a->nz + f[2] - 1) / f[2], a->dx * f[0], a->dy * f[1], NULL };
	c->zf = malloc((c->nz + 1) * sizeof *c->zf);
	if (!c->zf)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "multigrid: out of memory");
	for (size_t k = 0; k < c->nz; k++)
		c->zf[k] = a->zf[k * f[2]];
	c->zf[c->nz] = a->zf[a->nz];
	return WEST_OK;
}

/* Distance (m) between the centres either side of face f of cell (., ., k). */
static double face_dist(const struct geom *a, int f, size_t k)
{
	const double *z = a->zf;
	switch (f) {
	case WEST_PF_W: case WEST_PF_E: return a->dx;
	case WEST_PF_S: case WEST_PF_N: return a->dy;
	case WEST_PF_B: return k == 0 ? z[1] - z[0] : 0.5 * (z[k + 1] - z[k - 1]);
	default: return k + 1 == a->nz ? z[k + 1] - z[k] : 0.5 * (z[k + 2] - z[k]);
	}
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
static size_t layout(struct west_mg *mg, const struct geom *gm, char *base)
{
	size_t off = 0;
	for (int L = 0; L < mg->nlevels; L++) {
		struct west_plevel *l = &mg->lv[L];
		size_t n = 2 * l->ncol;
		if (L == 0) {
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
	MOVE(out->p, d), MOVE(out->q, d);
	out->base = base;
}

/* -------------------------------------------------------------- fill */

/* Level 0: open-face codes (and cut bits) from the transparencies, kf and
 * vol by level, and the grid's tx and ty for the cut cells. */
static void fill_level0(struct west_plevel *l, const struct geom *a,
			const struct west_grid *g, double eta)
{
	unsigned char *code = (unsigned char *)l->code;
	float *kf = (float *)l->kf, *vol = (float *)l->vol;
	size_t nx = g->nx, ny = g->ny;

	for (size_t k = 0; k < a->nz; k++) {
		double dz = a->zf[k + 1] - a->zf[k];
		double c[6] = { a->dy * dz / a->dx, a->dy * dz / a->dx,
				a->dx * dz / a->dy, a->dx * dz / a->dy,
				eta * a->dx * a->dy / face_dist(a, WEST_PF_B, k),
				eta * a->dx * a->dy / face_dist(a, WEST_PF_T, k) };
		for (int f = 0; f < 6; f++)
			kf[6 * k + f] = (float)c[f];
		vol[k] = (float)(a->dx * a->dy * dz);
	}
	#pragma omp parallel for schedule(static)
	for (long r = 0; r < (long)(ny * a->nz); r++) {
		size_t j = (size_t)r % ny, k = (size_t)r / ny;
		for (size_t i = 0; i < nx; i++) {
			size_t xw = west_kx(nx, ny, i, j, k), ys = west_ky(nx, ny, i, j, k);
			size_t zb = west_kc(nx, ny, i, j, k);
			float t[6] = { g->tx[xw], g->tx[xw + 1], g->ty[ys],
				       g->ty[ys + nx], g->tz[zb], g->tz[zb + nx * ny] };
			unsigned bits = 0;
			for (int f = 0; f < 6; f++) {
				bits |= (t[f] != 0.0f) << f;
				if (t[f] != 0.0f && t[f] != 1.0f)
					bits |= 1u << WEST_PF_CUT;
			}
			code[west_pslot(l, i, j, k)] = (unsigned char)bits;
		}
	}
	l->tx = g->tx, l->ty = g->ty;
}

/* Conductance times distance (open area, times eta on z) of face f of
 * cell (i, j, k) of level l with geometry a. */
static double open_area(const struct west_plevel *l, const struct geom *a, size_t i,
			size_t j, size_t k, int f)
{
	float g[6];
	west_pconds(l, west_pslot(l, i, j, k), i, j, k, g);
	return (double)g[f] * face_dist(a, f, k);
}

/* Face f of coarse cell (I, J, K): the fine faces it covers, summed. */
static double coarse_face(const struct west_plevel *fl, const struct geom *a,
			  const struct geom *c, size_t I, size_t J, size_t K, int f)
{
	size_t lo[3] = { I * fl->fx, J * fl->fy, K * fl->fz };
	size_t hi[3] = { lo[0] + fl->fx, lo[1] + fl->fy, lo[2] + fl->fz };
	size_t n[3] = { a->nx, a->ny, a->nz };
	int d = f / 2;
	double sum = 0.0;

	for (int e = 0; e < 3; e++)
		hi[e] = hi[e] < n[e] ? hi[e] : n[e];
	/* the face lies on the low or high side of the coarse cell along d */
	if (f % 2 == 0)
		hi[d] = lo[d] + 1;
	else
		lo[d] = hi[d] - 1;
	for (size_t k = lo[2]; k < hi[2]; k++)
		for (size_t j = lo[1]; j < hi[1]; j++)
			for (size_t i = lo[0]; i < hi[0]; i++)
				sum += open_area(fl, a, i, j, k, f);
	return sum / face_dist(c, f, K);
}

static void fill_coarse(const struct west_plevel *fl, const struct geom *a,
			const struct west_plevel *cl, const struct geom *c)
{
	float *g = (float *)cl->g;

	#pragma omp parallel for schedule(static)
	for (long r = 0; r < (long)(c->ny * c->nz); r++) {
		size_t J = (size_t)r % c->ny, K = (size_t)r / c->ny;
		for (size_t I = 0; I < c->nx; I++) {
			size_t s = west_pslot(cl, I, J, K);
			for (int f = 0; f < 6; f++)
				g[(size_t)f * 2 * cl->ncol + s] =
					(float)coarse_face(fl, a, c, I, J, K, f);
		}
	}
}

/* -------------------------------------------------------------- build */

static void level_shape(struct west_plevel *l, const struct geom *a)
{
	*l = (struct west_plevel){ .nx = a->nx, .ny = a->ny, .nz = a->nz,
				   .hx = (a->nx + 1) / 2 };
	l->ncol = l->hx * l->ny * l->nz;
}

/* The levels' shapes and geometries into mg and gm (zf arrays owned). */
static enum west_status shapes(struct west_mg *mg, struct geom *gm,
			       const struct west_grid *g, double eta,
			       char *err, size_t errlen)
{
	gm[0] = (struct geom){ g->nx, g->ny, g->nz, g->dx, g->dy,
			       malloc((g->nz + 1) * sizeof(double)) };
	if (!gm[0].zf)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "multigrid: out of memory");
	memcpy(gm[0].zf, g->zf, (g->nz + 1) * sizeof(double));
	mg->nlevels = 1;
	for (int L = 0;; L++) {
		unsigned f[3];
		struct west_plevel *l = &mg->lv[L];
		level_shape(l, &gm[L]);
		if (L + 1 == WEST_MG_MAX_LEVELS ||
		    l->nx * l->ny * l->nz <= WEST_MG_COARSEST_CELLS || !coarsen(&gm[L], eta, f))
			return WEST_OK;
		l->fx = f[0], l->fy = f[1], l->fz = f[2];
		enum west_status st = next_geom(&gm[L + 1], &gm[L], f, err, errlen);
		if (st)
			return st;
		mg->nlevels++;
	}
}

enum west_status west_mg_build(struct west_mg *mg, const struct west_grid *g,
			       double eta, char *err, size_t errlen)
{
	struct geom gm[WEST_MG_MAX_LEVELS] = { { 0 } };
	enum west_status st;

	memset(mg, 0, sizeof *mg);
	mg->eta = eta;
	if ((st = shapes(mg, gm, g, eta, err, errlen)))
		goto out;
	mg->bytes = layout(mg, gm, NULL);
	char *block = calloc(1, mg->bytes);
	if (!block) {
		st = west_fail(err, errlen, WEST_ERR_NOMEM,
			       "multigrid: no memory for the hierarchy (%zu bytes)", mg->bytes);
		goto out;
	}
	layout(mg, gm, block);
	const struct west_plevel *last = &mg->lv[mg->nlevels - 1];
	mg->coarse_sweeps = (int)(last->nx + last->ny + last->nz) + 4;
	fill_level0(&mg->lv[0], &gm[0], g, eta);
	for (int L = 0; L + 1 < mg->nlevels; L++)
		fill_coarse(&mg->lv[L], &gm[L], &mg->lv[L + 1], &gm[L + 1]);
out:
	for (int L = 0; L < WEST_MG_MAX_LEVELS; L++)
		free(gm[L].zf);
	if (st)
		west_mg_free(mg);
	return st;
}

void west_mg_free(struct west_mg *mg)
{
	free(mg->base);
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
