/*
 * divmin.c: CPU reference of WEST step 8, divergence minimization, one
 * colour pass of the velocity-form red-black SOR (kernels.h, docs/design.md
 * section 3), and the divergence norms of its convergence check (with the
 * potential solvers' right-hand side in the same pass, west_pot_rhs_cpu).
 *
 * For cell c with faces w, e, s, n, b, t (spacings rdx = 1/dx, rdy = 1/dy,
 * rdz = 1/thickness of level k, rdzf = 1/centre distance across a z-face):
 *   D = (U_e - U_w) rdx + (V_n - V_s) rdy + (W_t - W_b) rdz
 *   S = (TX_w + TX_e) rdx^2 + (TY_s + TY_n) rdy^2
 *       + eta rdz (TZ_b rdzf_b + TZ_t rdzf_t)
 *   p = omega D / S      (cells with S == 0, i.e. land, are skipped)
 *   U_w += p TX_w rdx, U_e -= p TX_e rdx, V_s += p TY_s rdy,
 *   V_n -= p TY_n rdy, W_b += eta p TZ_b rdzf_b, W_t -= eta p TZ_t rdzf_t
 * after which the cell's divergence is (1 - omega) D.  With uniform levels
 * rdzf = rdz = 1/dz and this is the formula of docs/design.md section 3;
 * with stretched levels it is still exactly point SOR on
 * div(T grad phi) = -div(u0).
 *
 * Cells of one colour share no face, so a colour pass is free of races in
 * any order: rows run in parallel, and masked and compact orderings apply
 * the same arithmetic (west_sor_cell, kernel_util.h, which the CUDA
 * kernels share) to the same cells, hence bit-identical.
 */
#include <math.h>

#include "potential_util.h"

/* One row (j, k) of cells: its faces and transparencies from i = 0. */
struct row {
	float *u, *vs, *vn, *wb, *wt;
	const float *tx, *ts, *tn, *tb, *tt;
	float rdz, rzb, rzt;
};

static inline void row_init(const struct west_kgrid *g, float *u, float *v,
			    float *w, size_t j, size_t k, struct row *r)
{
	size_t nx = g->nx, ny = g->ny;
	size_t xw = west_kx(nx, ny, 0, j, k), ys = west_ky(nx, ny, 0, j, k);
	size_t zb = west_kc(nx, ny, 0, j, k), zt = zb + nx * ny;
	*r = (struct row){
		u + xw, v + ys, v + ys + nx, w + zb, w + zt,
		g->tx + xw, g->ty + ys, g->ty + ys + nx, g->tz + zb, g->tz + zt,
		g->rdz[k], g->rdzf[k], g->rdzf[k + 1],
	};
}

/* The update of cell i of row r (the same for both orderings). */
static inline __attribute__((always_inline))
void sweep_cell(const struct west_sor *o, const struct row *r, size_t i)
{
	const float t[6] = { r->tx[i], r->tx[i + 1], r->ts[i], r->tn[i],
			     r->tb[i], r->tt[i] };
	west_sor_cell(o, r->u + i, r->vs + i, r->vn + i, r->wb + i, r->wt + i, t,
		      r->rdz, r->rzb, r->rzt);
}

enum west_status west_divmin_sweep_cpu(const struct west_kgrid *g, float omega,
				       float eta, int colour,
				       enum west_kindexing indexing,
				       float *u, float *v, float *w)
{
	const struct west_sor o = west_sor_init(g, omega, eta);
	size_t nx = g->nx, own = g->ny - g->jlo - g->jhi;   /* the own rows */
	long rows = (long)(own * g->nz);

	#pragma omp parallel for schedule(static)
	for (long rr = 0; rr < rows; rr++) {
		size_t j = g->jlo + (size_t)rr % own, k = (size_t)rr / own;
		struct row r;
		row_init(g, u, v, w, j, k, &r);
		if (indexing == WEST_KINDEX_MASKED) {
			for (size_t i = 0; i < nx; i++)
				if (((i + j + k) & 1) == (size_t)colour)
					sweep_cell(&o, &r, i);
		} else {
			for (size_t i = (j + k + (size_t)colour) & 1; i < nx; i += 2)
				sweep_cell(&o, &r, i);
		}
	}
	return WEST_OK;
}

/* The norms of u over the fluid cells of g's own rows, and with l0 level
 * 0's right-hand side there. */
static void norms_rhs(const struct west_kgrid *g, const struct west_plevel *l0,
		      const float *u, const float *v, const float *w, double *norms)
{
	const struct west_sor o = west_sor_init(g, 1.0f, 1.0f);
	size_t nx = g->nx, own = g->ny - g->jlo - g->jhi;
	long rows = (long)(own * g->nz);
	double mx = 0.0, sum = 0.0;

	#pragma omp parallel for schedule(static) reduction(max:mx) reduction(+:sum)
	for (long r = 0; r < rows; r++) {
		size_t j = g->jlo + (size_t)r % own, k = (size_t)r / own;
		for (size_t i = 0; i < nx; i++) {
			int fluid;
			double d = west_pdiv_at(g, l0, &o, u, v, w, i, j, k, &fluid);
			if (!fluid)
				continue;
			mx = fmax(mx, fabs(d));
			sum += d * d;
		}
	}
	norms[0] = mx;
	norms[1] = sum;
}

enum west_status west_divergence_norms_cpu(const struct west_kgrid *g,
					   const float *u, const float *v,
					   const float *w, double *norms)
{
	norms_rhs(g, NULL, u, v, w, norms);
	return WEST_OK;
}

enum west_status west_pot_rhs_cpu(const struct west_kgrid *g,
				  const struct west_plevel *l0, const float *u,
				  const float *v, const float *w, double *norms)
{
	norms_rhs(g, l0, u, v, w, norms);
	return WEST_OK;
}
