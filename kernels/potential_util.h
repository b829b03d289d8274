/*
 * potential_util.h: the per-cell bodies of the potential form of step 8
 * (kernels.h, struct west_plevel), shared by the CPU references
 * (kernels/potential.c) and the CUDA kernels (kernels/potential.cu), so
 * that both add the same terms in the same order: with contraction off on
 * both sides every colour pass, restriction and prolongation is
 * bit-identical between them (only the dot products' summation order
 * differs).
 *
 * The bodies that gather a cell's neighbours (the colour pass, its first
 * pass from zero, the residual and the operator) read what they need
 * before they test anything (the cell's e and b, its neighbours, its code
 * and the level's conductances) and choose after: the GPU issues a load
 * where the code reads it, and one behind a branch waits for the branch's
 * test, so a load that follows a test on another load costs a second
 * memory latency.  Only a cut cell's transparencies wait for its code
 * (about 5 % of the cells).  At R64 on an H200 this took level 0's colour
 * pass from 0.42 to 0.55 of the copy bandwidth (docs/benchmarks.md); the
 * arithmetic is the same.  The prolongation and the residual step, which
 * read only for open cells, gained nothing measurable so and do not.
 */
#ifndef WEST_POTENTIAL_UTIL_H
#define WEST_POTENTIAL_UTIL_H

#include "kernel_util.h"

#ifdef __CUDA_ARCH__
#define WEST_LDG(p) __ldg(p)
#else
#define WEST_LDG(p) (*(p))
#endif
/* Unroll the loops over a cell's six faces (-O2 leaves them rolled). */
#if defined(__CUDA_ARCH__)
#define WEST_UNROLL6 _Pragma("unroll")
#elif defined(__CUDACC__)
#define WEST_UNROLL6
#else
#define WEST_UNROLL6 _Pragma("GCC unroll 6")
#endif

/*
 * Every index below is a WEST_IX (kernel_util.h), the level's sizes cast
 * to it: size_t, or unsigned in kernels/potential32.cu, whose 32-bit
 * multiplications take fewer instructions on the GPU.
 */

/* Slot of cell (i, j, k) of level l (its colour's array, kernels.h). */
WEST_HD WEST_IX west_pslot(const struct west_plevel *l, WEST_IX i, WEST_IX j, WEST_IX k)
{
	return ((i + j + k) & 1) * (WEST_IX)l->ncol + (i >> 1) +
	       (WEST_IX)l->hx * (j + (WEST_IX)l->ny * k);
}

/* Level 0: g[W..N], per side face of cut cell (i, j, k) (a conductance,
 * or the factor of u += alpha T grad x), times the face's transparency. */
WEST_HD void west_pcut(const struct west_plevel *l, WEST_IX i, WEST_IX j, WEST_IX k,
		       float g[6])
{
	WEST_IX nx = (WEST_IX)l->nx, ny = (WEST_IX)l->ny;
	WEST_IX xw = west_kx(nx, ny, i, j, k), ys = west_ky(nx, ny, i, j, k);
	g[WEST_PF_W] *= WEST_LDG(&l->tx[xw]);
	g[WEST_PF_E] *= WEST_LDG(&l->tx[xw + 1]);
	g[WEST_PF_S] *= WEST_LDG(&l->ty[ys]);
	g[WEST_PF_N] *= WEST_LDG(&l->ty[ys + nx]);
}

/* The six conductances of cell (i, j, k) at slot s of level l. */
WEST_HD void west_pconds(const struct west_plevel *l, WEST_IX s, WEST_IX i, WEST_IX j,
			 WEST_IX k, float g[6])
{
	if (l->code) {
		unsigned code = WEST_LDG(&l->code[s]);
		const float *kf = l->kf + 6 * k;
		float kv[6];
		WEST_UNROLL6
		for (int f = 0; f < 6; f++)   /* every load first (above) */
			kv[f] = WEST_LDG(&kf[f]);
		WEST_UNROLL6
		for (int f = 0; f < 6; f++)
			g[f] = (code >> f & 1) ? kv[f] : 0.0f;
		if (code >> WEST_PF_CUT & 1)
			west_pcut(l, i, j, k, g);
	} else {
		WEST_UNROLL6
		for (int f = 0; f < 6; f++)
			g[f] = WEST_LDG(&l->g[(WEST_IX)f * 2 * (WEST_IX)l->ncol + s]);
	}
}

/* The sum of a cell's conductances G_f: its diagonal in A. */
WEST_HD float west_pdiag(const float g[6])
{
	return ((((g[0] + g[1]) + g[2]) + g[3]) + g[4]) + g[5];
}

/* sum of G_f nb_f in face order (closed faces add G_f nb_f = 0: nb is
 * finite, e on closed cells and in empty slots stays 0); *diag = sum of G_f. */
WEST_HD float west_pcell(const float g[6], const float nb[6], float *diag)
{
	float sum = 0.0f;
	WEST_UNROLL6
	for (int f = 0; f < 6; f++)
		sum += g[f] * nb[f];
	*diag = west_pdiag(g);
	return sum;
}

/* The SOR update of a cell with value e, right-hand side b: computed
 * either way (a divisor of 1 where diag is 0) and then chosen, so that b
 * is read before diag is known (above). */
WEST_HD float west_psor(float e, float b, float sum, float diag, float omega)
{
	float r = e + omega * (b + sum - diag * e) / (diag == 0.0f ? 1.0f : diag);
	return diag == 0.0f ? e : r;
}

/* Slot t of row (j, k) of colour c: west_pslot of cell 2 t + i0 there. */
WEST_HD WEST_IX west_prow_slot(const struct west_plevel *l, int c, WEST_IX t, WEST_IX j,
			       WEST_IX k)
{
	return (WEST_IX)c * (WEST_IX)l->ncol + t + (WEST_IX)l->hx * (j + (WEST_IX)l->ny * k);
}

/*
 * Cell i = 2 t + i0 of colour c in row (j, k) (i0 = (j + k + c) & 1), at
 * slot s (west_prow_slot): its conductances and, from offsets of its slot,
 * the other colour's x at its open faces' neighbours (west slot t - 1 +
 * i0, east t + i0, the others slot t of the rows beside; 0 beyond the
 * domain).  Neighbours come from offsets: fewer index products than
 * west_pslot for each.
 */
WEST_HD void west_prow_gather(const struct west_plevel *l, const float *x, int c, WEST_IX t,
			      WEST_IX j, WEST_IX k, WEST_IX s, float g[6], float nb[6])
{
	WEST_IX hx = (WEST_IX)l->hx, ny = (WEST_IX)l->ny, ncol = (WEST_IX)l->ncol;
	WEST_IX i0 = (j + k + (WEST_IX)c) & 1, i = 2 * t + i0, plane = hx * ny;
	const float *o = x + (c ? s - ncol : s + ncol);   /* the other colour's slot t */

	nb[WEST_PF_W] = i > 0 ? o[(ptrdiff_t)i0 - 1] : 0.0f;
	nb[WEST_PF_E] = i + 1 < (WEST_IX)l->nx ? o[i0] : 0.0f;
	nb[WEST_PF_S] = j > 0 ? o[-(ptrdiff_t)hx] : 0.0f;
	nb[WEST_PF_N] = j + 1 < ny ? o[hx] : 0.0f;
	nb[WEST_PF_B] = k > 0 ? o[-(ptrdiff_t)plane] : 0.0f;
	nb[WEST_PF_T] = k + 1 < (WEST_IX)l->nz ? o[plane] : 0.0f;
	west_pconds(l, s, i, j, k, g);   /* after the loads (above) */
}

/* SOR update of cell i = 2 t + i0 of colour c in row (j, k):
 * e += omega (b - A e) / diag. */
WEST_HD void west_psmooth_at(const struct west_plevel *l, float omega, int c, WEST_IX t,
			     WEST_IX j, WEST_IX k)
{
	float g[6], nb[6], diag, sum;
	WEST_IX s = west_prow_slot(l, c, t, j, k);
	float e = l->e[s], b = l->b[s];   /* first (above) */
	west_prow_gather(l, l->e, c, t, j, k, s, g, nb);
	sum = west_pcell(g, nb, &diag);
	l->e[s] = west_psor(e, b, sum, diag, omega);
}

/*
 * The value west_psmooth_at gives cell i = 2 t + i0 of colour c in row
 * (j, k) when every e is 0, without reading e: each neighbour term G_f 0
 * is +0 (conductances are finite and not negative), so the sum is +0 and
 * west_psor(0, b, +0, diag) is the pass's arithmetic to the bit.
 */
WEST_HD float west_psmooth0_at(const struct west_plevel *l, float omega, int c, WEST_IX t,
			       WEST_IX j, WEST_IX k)
{
	WEST_IX i = 2 * t + ((j + k + (WEST_IX)c) & 1), s = west_prow_slot(l, c, t, j, k);
	float g[6], b = WEST_LDG(&l->b[s]);
	west_pconds(l, s, i, j, k, g);
	return west_psor(0.0f, b, 0.0f, west_pdiag(g), omega);
}

/* (b - A e) of cell (i, j, k). */
WEST_HD float west_presid_at(const struct west_plevel *l, WEST_IX i, WEST_IX j, WEST_IX k)
{
	float g[6], nb[6], diag, sum;
	WEST_IX s = west_pslot(l, i, j, k);
	float b = l->b[s], e = l->e[s];   /* first (above) */
	west_prow_gather(l, l->e, (int)((i + j + k) & 1), i >> 1, j, k, s, g, nb);
	sum = west_pcell(g, nb, &diag);
	return b + sum - diag * e;
}

/* (A x) of cell (i, j, k), into y. */
WEST_HD void west_pmatvec_at(const struct west_plevel *l, const float *x, float *y,
			     WEST_IX i, WEST_IX j, WEST_IX k)
{
	float g[6], nb[6], diag, sum;
	WEST_IX s = west_pslot(l, i, j, k);
	float xs = x[s];   /* first (above) */
	west_prow_gather(l, x, (int)((i + j + k) & 1), i >> 1, j, k, s, g, nb);
	sum = west_pcell(g, nb, &diag);
	y[s] = diag * xs - sum;
}

/* Coarse cell (ci, cj, ck)'s right-hand side: the fine residuals summed in
 * i, then j, then k order. */
WEST_HD void west_prestrict_at(const struct west_plevel *f, const struct west_plevel *c,
			       WEST_IX ci, WEST_IX cj, WEST_IX ck)
{
	WEST_IX nx = (WEST_IX)f->nx, ny = (WEST_IX)f->ny, nz = (WEST_IX)f->nz;
	WEST_IX i1 = ci * f->fx + f->fx, j1 = cj * f->fy + f->fy, k1 = ck * f->fz + f->fz;
	float r = 0.0f;
	i1 = i1 < nx ? i1 : nx, j1 = j1 < ny ? j1 : ny, k1 = k1 < nz ? k1 : nz;
	for (WEST_IX k = ck * f->fz; k < k1; k++)
		for (WEST_IX j = cj * f->fy; j < j1; j++)
			for (WEST_IX i = ci * f->fx; i < i1; i++)
				r += west_presid_at(f, i, j, k);
	c->b[west_pslot(c, ci, cj, ck)] = r;
}

/* Level 0's slot s, level k, of the residual step (west_pot_resid_cpu):
 * b -= alpha q on an open cell; returns |b / vol_k| there, else 0. */
WEST_HD float west_presid_step_at(const struct west_plevel *l0, float alpha, const float *q,
				  WEST_IX s, WEST_IX k)
{
	if (!l0->code[s])
		return 0.0f;
	float b = l0->b[s] - alpha * q[s];
	l0->b[s] = b;
	return fabsf(b / l0->vol[k]);
}

/* Whether the cell at slot s has an open face. */
WEST_HD int west_popen(const struct west_plevel *l, WEST_IX s)
{
	if (l->code)
		return l->code[s] != 0;
	for (int f = 0; f < 6; f++)
		if (l->g[(WEST_IX)f * 2 * (WEST_IX)l->ncol + s] != 0.0f)
			return 1;
	return 0;
}

/* Fine cell (i, j, k) takes its coarse cell's e, when open. */
WEST_HD void west_pprolong_at(const struct west_plevel *c, const struct west_plevel *f,
			      WEST_IX i, WEST_IX j, WEST_IX k)
{
	WEST_IX s = west_pslot(f, i, j, k);
	if (west_popen(f, s))
		f->e[s] += c->e[west_pslot(c, i >> (f->fx >> 1), j >> (f->fy >> 1),
					     k >> (f->fz >> 1))];   /* i / fx, fx 1 or 2 */
}

/*
 * Cell (i, j, k) of the divergence norms: *fluid = whether it is fluid
 * (counted), and its divergence D as the sweeps compute it; with l0 (not
 * NULL) also level 0's right-hand side there, b = vol D on open cells and
 * 0 elsewhere.  Without l0, land cells are not computed (D = 0).
 */
WEST_HD float west_pdiv_at(const struct west_kgrid *g, const struct west_plevel *l0,
			   const struct west_sor *o, const float *u, const float *v,
			   const float *w, WEST_IX i, WEST_IX j, WEST_IX k, int *fluid)
{
	*fluid = !g->land[west_kc(g->nx, g->ny, i, j, k)];
	if (!l0 && !*fluid)
		return 0.0f;
	float d = west_cell_div(g, o, u, v, w, i, j, k);
	if (l0) {
		WEST_IX s = west_pslot(l0, i, j, k);
		l0->b[s] = l0->code[s] ? l0->vol[k] * d : 0.0f;
	}
	return d;
}

/*
 * u += alpha T grad x on the west, south and bottom faces of cell (i, j, k)
 * and, on the last cell of a row, column or level, on its east, north or
 * top boundary face (x = 0 beyond).  A face is open when the code of the
 * cell on either side says so (both agree; on the boundary, the one cell);
 * a cut cell's side faces move by their transparency times that.
 */
WEST_HD void west_papply_at(const struct west_kgrid *g, const struct west_plevel *l0,
			    const struct west_sor *o, float alpha, const float *x,
			    float *u, float *v, float *w, WEST_IX i, WEST_IX j, WEST_IX k)
{
	WEST_IX nx = (WEST_IX)g->nx, ny = (WEST_IX)g->ny, s = west_pslot(l0, i, j, k);
	unsigned code = l0->code[s];
	float xc = x[s];
	WEST_IX xw = west_kx(nx, ny, i, j, k), ys = west_ky(nx, ny, i, j, k);
	WEST_IX zb = west_kc(nx, ny, i, j, k);

	/* the side faces' factors, a cut cell's times their transparencies */
	float m[6] = { alpha * o->rdx, alpha * o->rdx, alpha * o->rdy, alpha * o->rdy,
		       0.0f, 0.0f };
	if (code >> WEST_PF_CUT & 1)
		west_pcut(l0, i, j, k, m);
	if (code >> WEST_PF_W & 1)
		u[xw] += m[WEST_PF_W] * (xc - (i > 0 ? x[west_pslot(l0, i - 1, j, k)] : 0.0f));
	if ((code >> WEST_PF_E & 1) && i + 1 == nx)
		u[xw + 1] += m[WEST_PF_E] * (0.0f - xc);
	if (code >> WEST_PF_S & 1)
		v[ys] += m[WEST_PF_S] * (xc - (j > 0 ? x[west_pslot(l0, i, j - 1, k)] : 0.0f));
	if ((code >> WEST_PF_N & 1) && j + 1 == ny)
		v[ys + nx] += m[WEST_PF_N] * (0.0f - xc);
	if ((code >> WEST_PF_B & 1) && k > 0)
		w[zb] += alpha * o->eta * g->rdzf[k] * (xc - x[west_pslot(l0, i, j, k - 1)]);
	if ((code >> WEST_PF_T & 1) && k + 1 == (WEST_IX)g->nz)
		w[zb + nx * ny] += alpha * o->eta * g->rdzf[k + 1] * (0.0f - xc);
}

#endif
