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

/* Levels of fewer cells run on one thread: a parallel region costs more
 * than the work on the coarse levels of the hierarchy. */
#define PAR_CELLS 32768
#define PAR(l) ((l)->nx * (l)->ny * (l)->nz >= PAR_CELLS)
/* A level's own rows (kernels.h): jlo <= j < ny - jhi. */
#define OWN(l) ((l)->ny - (l)->jlo - (l)->jhi)

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

/* The cells of colour c in row (j, k): i = 2 t + ((j + k + c) & 1) < nx. */
static void smooth_row(const struct west_plevel *l, float omega, int c, size_t j,
		       size_t k)
{
	size_t i0 = (j + k + (size_t)c) & 1;
	for (size_t t = 0; 2 * t + i0 < l->nx; t++)
		west_psmooth_at(l, omega, c, t, j, k);
}

enum west_status west_pot_smooth_cpu(const struct west_plevel *l, float omega,
				     int colour)
{
	size_t own = OWN(l);
	long rows = (long)(own * l->nz);

	#pragma omp parallel for schedule(static) if (PAR(l))
	for (long r = 0; r < rows; r++)
		smooth_row(l, omega, colour, l->jlo + (size_t)r % own, (size_t)r / own);
	return WEST_OK;
}

enum west_status west_pot_smooth0_cpu(const struct west_plevel *l, float omega,
				      int colour)
{
	long rows = (long)(l->ny * l->nz);

	#pragma omp parallel for schedule(static) if (PAR(l))
	for (long r = 0; r < rows; r++) {
		size_t j = (size_t)r % l->ny, k = (size_t)r / l->ny, t = 0;
		size_t row = l->hx * (j + l->ny * k), i0 = (j + k + (size_t)colour) & 1;
		float *e = l->e + (size_t)colour * l->ncol + row;
		if (j >= l->jlo && j < l->ny - l->jhi)
			for (; 2 * t + i0 < l->nx; t++)
				e[t] = west_psmooth0_at(l, omega, colour, t, j, k);
		memset(e + t, 0, (l->hx - t) * sizeof *e);
		memset(l->e + (size_t)(1 - colour) * l->ncol + row, 0, l->hx * sizeof *e);
	}
	return WEST_OK;
}

enum west_status west_pot_restrict_cpu(const struct west_plevel *fine,
				       const struct west_plevel *coarse)
{
	size_t own = OWN(coarse);
	long rows = (long)(own * coarse->nz);

	#pragma omp parallel for schedule(static) if (PAR(fine))
	for (long r = 0; r < rows; r++)
		for (size_t i = 0; i < coarse->nx; i++)
			west_prestrict_at(fine, coarse, i, coarse->jlo + (size_t)r % own,
					  (size_t)r / own);
	return WEST_OK;
}

enum west_status west_pot_prolong_cpu(const struct west_plevel *coarse,
				      const struct west_plevel *fine)
{
	long rows = (long)(fine->ny * fine->nz);

	#pragma omp parallel for schedule(static) if (PAR(fine))
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
	size_t own = OWN(l);
	long rows = (long)(own * l->nz);

	#pragma omp parallel for schedule(static) if (PAR(l))
	for (long r = 0; r < rows; r++)
		for (size_t i = 0; i < l->nx; i++)
			west_pmatvec_at(l, x, y, i, l->jlo + (size_t)r % own, (size_t)r / own);
	return WEST_OK;
}

/* Each own row's sum on one thread, in the documented order: the rows'
 * sums do not depend on how the rows are shared among threads. */
enum west_status west_pot_dot_cpu(const struct west_plevel *l, const float *x,
				  const float *y, double *sums)
{
	long rows = (long)OWN(l);

	#pragma omp parallel for schedule(static) if (PAR(l))
	for (long r = 0; r < rows; r++) {
		size_t j = l->jlo + (size_t)r;
		double sum = 0.0;
		for (size_t c = 0; c < 2; c++)
			for (size_t k = 0; k < l->nz; k++) {
				size_t s = c * l->ncol + l->hx * (j + l->ny * k);
				const float *xr = x + s, *yr = y + s;
				for (size_t t = 0; t < l->hx; t++)
					sum += (double)xr[t] * (double)yr[t];
			}
		sums[r] = sum;
	}
	return WEST_OK;
}

enum west_status west_pot_xpby_cpu(size_t n, const float *x, float beta, float *y)
{
	#pragma omp parallel for schedule(static)
	for (long i = 0; i < (long)n; i++)
		y[i] = x[i] + beta * y[i];
	return WEST_OK;
}

enum west_status west_pot_axpy_cpu(size_t n, float alpha, const float *x, float *y)
{
	#pragma omp parallel for schedule(static)
	for (long i = 0; i < (long)n; i++)
		y[i] = y[i] + alpha * x[i];
	return WEST_OK;
}

enum west_status west_pot_resid_cpu(const struct west_plevel *l, float alpha,
				    const float *q, double *max)
{
	size_t own = OWN(l);
	long rows = (long)(own * l->nz);
	float m = 0.0f;

	#pragma omp parallel for schedule(static) reduction(max : m) if (PAR(l))
	for (long r = 0; r < rows; r++) {
		size_t j = l->jlo + (size_t)r % own, k = (size_t)r / own;
		for (size_t c = 0; c < 2; c++) {
			size_t s = c * l->ncol + l->hx * (j + l->ny * k);
			for (size_t t = 0; t < l->hx; t++) {
				float d = west_presid_step_at(l, alpha, q, s + t, k);
				m = d > m || d != d ? d : m;
			}
		}
	}
	*max = m;
	return WEST_OK;
}

enum west_status west_pot_zero_cpu(size_t n, float *x)
{
	memset(x, 0, n * sizeof *x);
	return WEST_OK;
}
