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
	float omega, eta, rdx, rdy;
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

static inline void sweep_cell(const struct sor *o, size_t i, size_t j, size_t k)
{
	const struct west_kgrid *g = o->g;
	size_t nx = g->nx, ny = g->ny;
	size_t xw = west_kx(nx, ny, i, j, k), ys = west_ky(nx, ny, i, j, k);
	size_t zb = west_kc(nx, ny, i, j, k), yn = ys + nx, zt = zb + nx * ny;
	float tw = g->tx[xw], te = g->tx[xw + 1], ts = g->ty[ys], tn = g->ty[yn];
	float tb = g->tz[zb], tt = g->tz[zt];
	float rzb = g->rdzf[k], rzt = g->rdzf[k + 1];
	float s = (tw + te) * o->rdx * o->rdx + (ts + tn) * o->rdy * o->rdy +
		  o->eta * g->rdz[k] * (tb * rzb + tt * rzt);
	if (s == 0.0f)
		return;
	float p = o->omega * cell_div(g, o->rdx, o->rdy, o->u, o->v, o->w, i, j, k) / s;
	o->u[xw] += p * tw * o->rdx;
	o->u[xw + 1] -= p * te * o->rdx;
	o->v[ys] += p * ts * o->rdy;
	o->v[yn] -= p * tn * o->rdy;
	o->w[zb] += o->eta * p * tb * rzb;
	o->w[zt] -= o->eta * p * tt * rzt;
}

enum west_status west_divmin_sweep_cpu(const struct west_kgrid *g, float omega,
				       float eta, int colour,
				       enum west_kindexing indexing,
				       float *u, float *v, float *w)
{
	const struct sor o = { g, omega, eta, 1.0f / g->dx, 1.0f / g->dy, u, v, w };
	long rows = (long)(g->ny * g->nz);
	size_t nx = g->nx, ny = g->ny;

	#pragma omp parallel for schedule(static)
	for (long r = 0; r < rows; r++) {
		size_t j = (size_t)r % ny, k = (size_t)r / ny;
		if (indexing == WEST_KINDEX_MASKED) {
			for (size_t i = 0; i < nx; i++)
				if (((i + j + k) & 1) == (size_t)colour)
					sweep_cell(&o, i, j, k);
		} else {
			for (size_t i = (j + k + (size_t)colour) & 1; i < nx; i += 2)
				sweep_cell(&o, i, j, k);
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
