/*
 * potential.c: CPU references of the potential form of step 8 (kernels.h,
 * docs/model.md): the right-hand side from the field, the colour pass,
 * restriction and prolongation of the multigrid hierarchy, the coarsest
 * level's solve, the operator and the vector operations of the conjugate
 * gradients, and the update of the field from a potential.  Each loops
 * over the elements with the per-cell bodies of potential_util.h, rows in
 * parallel (OpenMP): the cells of one colour share no face, so a colour
 * pass gives the same bits in any order.
 */
#include <string.h>

#include "potential_util.h"

enum west_status west_pot_rhs_cpu(const struct west_kgrid *g,
				  const struct west_plevel *l0, const float *u,
				  const float *v, const float *w)
{
	const struct west_sor o = west_sor_init(g, 1.0f, 1.0f);
	long rows = (long)(g->ny * g->nz);

	#pragma omp parallel for schedule(static)
	for (long r = 0; r < rows; r++)
		for (size_t i = 0; i < g->nx; i++)
			west_prhs_at(g, l0, &o, u, v, w, i, (size_t)r % g->ny,
				     (size_t)r / g->ny);
	return WEST_OK;
}

enum west_status west_pot_apply_cpu(const struct west_kgrid *g,
				    const struct west_plevel *l0, float eta,
				    float alpha, const float *x, float *u,
				    float *v, float *w)
{
	const struct west_sor o = west_sor_init(g, 1.0f, eta);
	long rows = (long)(g->ny * g->nz);

	#pragma omp parallel for schedule(static)
	for (long r = 0; r < rows; r++)
		for (size_t i = 0; i < g->nx; i++)
			west_papply_at(g, l0, &o, alpha, x, u, v, w, i,
				       (size_t)r % g->ny, (size_t)r / g->ny);
	return WEST_OK;
}

/*
 * The cells of colour c in row (j, k): west_psmooth_at's gather and
 * update with the row's pointers worked out once (the same values in the
 * same order, so the same bits).  Cell i = 2 m + i0 is slot m of its row;
 * its west and east neighbours are slots m - 1 + i0 and m + i0 of the
 * other colour's row, the others slot m of the rows beside.
 */
static void smooth_row(const struct west_plevel *l, float omega, int c, size_t j,
		       size_t k)
{
	size_t nx = l->nx, ny = l->ny, hx = l->hx, plane = hx * ny;
	size_t i0 = (j + k + (size_t)c) & 1, mine = (size_t)c * l->ncol + hx * (j + ny * k);
	const float *o = l->e + (size_t)(1 - c) * l->ncol + hx * (j + ny * k);
	const float *os = j > 0 ? o - hx : NULL, *on = j + 1 < ny ? o + hx : NULL;
	const float *ob = k > 0 ? o - plane : NULL, *ot = k + 1 < l->nz ? o + plane : NULL;
	float *e = l->e + mine;
	const float *b = l->b + mine;
	/* west_pcond's values: level 0's codes and open conductances, or the
	 * conductance planes */
	const unsigned char *code = l->code ? l->code + mine : NULL;
	const float *kf = l->code ? l->kf + 6 * k : NULL;
	const float *gp = l->code ? NULL : l->g + mine;
	size_t gstride = 2 * l->ncol;
	/* the common case, an open cell inside the domain on level 0: the
	 * same sums as west_pcell with every face open */
	int inside = os && on && ob && ot;
	float dopen = kf ? ((((kf[0] + kf[1]) + kf[2]) + kf[3]) + kf[4]) + kf[5] : 0.0f;

	for (size_t m = 0, i = i0; i < nx; m++, i += 2) {
		float g[6], nb[6], diag, sum;
		if (code && inside && code[m] == 0x3f && i > 0 && i + 1 < nx) {
			sum = 0.0f;
			sum += kf[0] * o[m + i0 - 1];
			sum += kf[1] * o[m + i0];
			sum += kf[2] * os[m];
			sum += kf[3] * on[m];
			sum += kf[4] * ob[m];
			sum += kf[5] * ot[m];
			e[m] = west_psor(e[m], b[m], sum, dopen, omega);
			continue;
		}
		if (code) {
			WEST_UNROLL6
			for (int f = 0; f < 6; f++)
				g[f] = (code[m] >> f & 1) ? kf[f] : 0.0f;
		} else {
			WEST_UNROLL6
			for (int f = 0; f < 6; f++)
				g[f] = gp[(size_t)f * gstride + m];
		}
		nb[WEST_PF_W] = i > 0 ? o[m + i0 - 1] : 0.0f;
		nb[WEST_PF_E] = i + 1 < nx ? o[m + i0] : 0.0f;
		nb[WEST_PF_S] = os ? os[m] : 0.0f;
		nb[WEST_PF_N] = on ? on[m] : 0.0f;
		nb[WEST_PF_B] = ob ? ob[m] : 0.0f;
		nb[WEST_PF_T] = ot ? ot[m] : 0.0f;
		sum = west_pcell(g, nb, &diag);
		e[m] = west_psor(e[m], b[m], sum, diag, omega);
	}
}

enum west_status west_pot_smooth_cpu(const struct west_plevel *l, float omega,
				     int colour)
{
	long rows = (long)(l->ny * l->nz);

	#pragma omp parallel for schedule(static)
	for (long r = 0; r < rows; r++)
		smooth_row(l, omega, colour, (size_t)r % l->ny, (size_t)r / l->ny);
	return WEST_OK;
}

enum west_status west_pot_restrict_cpu(const struct west_plevel *fine,
				       const struct west_plevel *coarse)
{
	long rows = (long)(coarse->ny * coarse->nz);

	#pragma omp parallel for schedule(static)
	for (long r = 0; r < rows; r++)
		for (size_t i = 0; i < coarse->nx; i++)
			west_prestrict_at(fine, coarse, i, (size_t)r % coarse->ny,
					  (size_t)r / coarse->ny);
	return WEST_OK;
}

enum west_status west_pot_prolong_cpu(const struct west_plevel *coarse,
				      const struct west_plevel *fine)
{
	long rows = (long)(fine->ny * fine->nz);

	#pragma omp parallel for schedule(static)
	for (long r = 0; r < rows; r++)
		for (size_t i = 0; i < fine->nx; i++)
			west_pprolong_at(coarse, fine, i, (size_t)r % fine->ny,
					 (size_t)r / fine->ny);
	return WEST_OK;
}

/* One colour pass over level l, serially (the coarsest level is small). */
static void coarse_pass(const struct west_plevel *l, int colour)
{
	for (size_t k = 0; k < l->nz; k++)
		for (size_t j = 0; j < l->ny; j++)
			smooth_row(l, 1.0f, colour, j, k);
}

enum west_status west_pot_coarse_cpu(const struct west_plevel *l, int sweeps)
{
	memset(l->e, 0, 2 * l->ncol * sizeof *l->e);
	for (int n = 0; n < sweeps; n++)
		coarse_pass(l, 0), coarse_pass(l, 1);
	for (int n = 0; n < sweeps; n++)
		coarse_pass(l, 1), coarse_pass(l, 0);
	return WEST_OK;
}

enum west_status west_pot_matvec_cpu(const struct west_plevel *l, const float *x,
				     float *y)
{
	long rows = (long)(l->ny * l->nz);

	#pragma omp parallel for schedule(static)
	for (long r = 0; r < rows; r++)
		for (size_t i = 0; i < l->nx; i++)
			west_pmatvec_at(l, x, y, i, (size_t)r % l->ny, (size_t)r / l->ny);
	return WEST_OK;
}

enum west_status west_pot_dot_cpu(size_t n, const float *x, const float *y,
				  double *dot)
{
	double sum = 0.0;

	#pragma omp parallel for schedule(static) reduction(+:sum)
	for (long i = 0; i < (long)n; i++)
		sum += (double)x[i] * (double)y[i];
	*dot = sum;
	return WEST_OK;
}

enum west_status west_pot_xpby_cpu(size_t n, const float *x, float beta, float *y)
{
	#pragma omp parallel for schedule(static)
	for (long i = 0; i < (long)n; i++)
		y[i] = x[i] + beta * y[i];
	return WEST_OK;
}

enum west_status west_pot_zero_cpu(size_t n, float *x)
{
	memset(x, 0, n * sizeof *x);
	return WEST_OK;
}
