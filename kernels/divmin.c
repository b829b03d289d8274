/*
 * divmin.c: CPU reference of WEST step 8, divergence minimization, one
 * colour pass of the velocity-form red-black SOR (kernels.h, DESIGN.md
 * section 3), and the divergence norms of its convergence check.
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
 * rdzf = rdz = 1/dz and this is DESIGN.md's formula; with stretched levels
 * it is still exactly point SOR on div(T grad phi) = -div(u0).
 *
 * Cells of one colour share no face, so a colour pass is free of races in
 * any order: rows run in parallel, and masked and compact orderings apply
 * the same arithmetic (sweep_cell) to the same cells, hence bit-identical.
 */
#include <math.h>

#include "kernel_util.h"

struct sor {
	const struct west_kgrid *g;
	float omega, eta, rdx, rdy, rdx2, rdy2;
	float *u, *v, *w;
};

/* Cell divergence (1/s), summed in the order the sweep uses. */
static inline float cell_div(const struct west_kgrid *g, float rdx, float rdy,
			     const float *u, const float *v, const float *w,
			     size_t i, size_t j, size_t k)
{
	size_t nx = g->nx, ny = g->ny;
	size_t xw = west_kx(nx, ny, i, j, k), ys = west_ky(nx, ny, i, j, k);
	size_t zb = west_kc(nx, ny, i, j, k);
	return (u[xw + 1] - u[xw]) * rdx + (v[ys + nx] - v[ys]) * rdy +
	       (w[zb + nx * ny] - w[zb]) * g->rdz[k];
}

/* One row (j, k) of cells: its faces and transparencies from i = 0. */
struct row {
	float *u, *vs, *vn, *wb, *wt;
	const float *tx, *ts, *tn, *tb, *tt;
	float rdz, rzb, rzt;
};

static inline void row_init(const struct sor *o, size_t j, size_t k, struct row *r)
{
	const struct west_kgrid *g = o->g;
	size_t nx = g->nx, ny = g->ny;
	size_t xw = west_kx(nx, ny, 0, j, k), ys = west_ky(nx, ny, 0, j, k);
	size_t zb = west_kc(nx, ny, 0, j, k), zt = zb + nx * ny;
	*r = (struct row){
		o->u + xw, o->v + ys, o->v + ys + nx, o->w + zb, o->w + zt,
		g->tx + xw, g->ty + ys, g->ty + ys + nx, g->tz + zb, g->tz + zt,
		g->rdz[k], g->rdzf[k], g->rdzf[k + 1],
	};
}

/* The update of cell i of row r (same arithmetic for both orderings). */
static inline __attribute__((always_inline))
void sweep_cell(const struct sor *o, const struct row *r, size_t i)
{
	float tw = r->tx[i], te = r->tx[i + 1], ts = r->ts[i], tn = r->tn[i];
	float tb = r->tb[i], tt = r->tt[i];
	float s = (tw + te) * o->rdx2 + (ts + tn) * o->rdy2 +
		  o->eta * r->rdz * (tb * r->rzb + tt * r->rzt);
	if (s == 0.0f)
		return;
	float d = (r->u[i + 1] - r->u[i]) * o->rdx + (r->vn[i] - r->vs[i]) * o->rdy +
		  (r->wt[i] - r->wb[i]) * r->rdz;
	float p = o->omega * d / s;
	r->u[i] += p * tw * o->rdx;
	r->u[i + 1] -= p * te * o->rdx;
	r->vs[i] += p * ts * o->rdy;
	r->vn[i] -= p * tn * o->rdy;
	r->wb[i] += o->eta * p * tb * r->rzb;
	r->wt[i] -= o->eta * p * tt * r->rzt;
}

enum west_status west_divmin_sweep_cpu(const struct west_kgrid *g, float omega,
				       float eta, int colour,
				       enum west_kindexing indexing,
				       float *u, float *v, float *w)
{
	float rdx = 1.0f / g->dx, rdy = 1.0f / g->dy;
	const struct sor o = { g, omega, eta, rdx, rdy, rdx * rdx, rdy * rdy, u, v, w };
	long rows = (long)(g->ny * g->nz);
	size_t nx = g->nx, ny = g->ny;

	#pragma omp parallel for schedule(static)
	for (long rr = 0; rr < rows; rr++) {
		size_t j = (size_t)rr % ny, k = (size_t)rr / ny;
		struct row r;
		row_init(&o, j, k, &r);
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

enum west_status west_divergence_norms_cpu(const struct west_kgrid *g,
					   const float *u, const float *v,
					   const float *w, double *norms)
{
	float rdx = 1.0f / g->dx, rdy = 1.0f / g->dy;
	long rows = (long)(g->ny * g->nz);
	size_t nx = g->nx, ny = g->ny;
	double mx = 0.0, sum = 0.0;

	#pragma omp parallel for schedule(static) reduction(max:mx) reduction(+:sum)
	for (long r = 0; r < rows; r++) {
		size_t j = (size_t)r % ny, k = (size_t)r / ny;
		for (size_t i = 0; i < nx; i++) {
			if (g->land[west_kc(nx, ny, i, j, k)])
				continue;
			double d = cell_div(g, rdx, rdy, u, v, w, i, j, k);
			mx = fmax(mx, fabs(d));
			sum += d * d;
		}
	}
	norms[0] = mx;
	norms[1] = sum;
	return WEST_OK;
}
