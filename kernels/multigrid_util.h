/*
 * multigrid_util.h: the per-element bodies of building the multigrid
 * hierarchy (kernels.h, "Building the hierarchy"), shared by the CPU
 * references (kernels/mgfill.c) and the CUDA kernels (kernels/mgfill.cu):
 * double arithmetic in the same order on both sides, with contraction off,
 * so a hierarchy built on the device is the host's byte for byte.
 */
#ifndef WEST_MULTIGRID_UTIL_H
#define WEST_MULTIGRID_UTIL_H

#include "potential_util.h"

/* Distance (m) between the centres either side of face f of a cell of
 * level k of geometry a (beyond the top: a mirrored ghost cell). */
WEST_HD double west_mg_face_dist(const struct west_mgeom *a, int f, size_t k)
{
	const double *z = a->zf;
	switch (f) {
	case WEST_PF_W: case WEST_PF_E: return a->dx;
	case WEST_PF_S: case WEST_PF_N: return a->dy;
	case WEST_PF_B: return k == 0 ? z[1] - z[0] : 0.5 * (z[k + 1] - z[k - 1]);
	default: return k + 1 == a->nz ? z[k + 1] - z[k] : 0.5 * (z[k + 2] - z[k]);
	}
}

/* Distance (m) from the centre of cell (i, j, k) of geometry a across face
 * f to where its e is taken: the next centre (west_mg_face_dist) or, across
 * an open boundary of the model grid, level 0's ghost centre (a->bound[f]).
 * On level 0 both are the next (ghost) centre. */
WEST_HD double west_mg_cell_dist(const struct west_mgeom *a, int f, size_t i, size_t j,
				 size_t k)
{
	size_t n[3] = { a->nx, a->ny, a->nz }, c[3] = { i, j, k };
	int d = f / 2;
	if (f != WEST_PF_B && (a->edges >> f & 1) && (f % 2 ? c[d] + 1 == n[d] : c[d] == 0))
		return a->bound[f];
	return west_mg_face_dist(a, f, k);
}

/* Cell (i, j, k)'s face code from the transparencies of grid view g. */
WEST_HD unsigned char west_mg_code_at(const struct west_kgrid *g, size_t i, size_t j, size_t k)
{
	size_t nx = g->nx, ny = g->ny;
	size_t xw = west_kx(nx, ny, i, j, k), ys = west_ky(nx, ny, i, j, k);
	size_t zb = west_kc(nx, ny, i, j, k);
	float t[6] = { g->tx[xw], g->tx[xw + 1], g->ty[ys], g->ty[ys + nx], g->tz[zb],
		       g->tz[zb + nx * ny] };
	unsigned bits = 0;
	for (int f = 0; f < 6; f++) {
		bits |= (unsigned)(t[f] != 0.0f) << f;
		if (t[f] != 0.0f && t[f] != 1.0f)
			bits |= 1u << WEST_PF_CUT;
	}
	return (unsigned char)bits;
}

/* Face f of coarse cell (I, J, K) of geometry c: the open areas (G times
 * the distance, west_mg_cell_dist) of the fine faces it covers, summed in
 * i, j, k order, over the coarse cell's distance. */
WEST_HD double west_mg_coarse_face(const struct west_plevel *fl, const struct west_mgeom *a,
				   const struct west_mgeom *c, size_t I, size_t J, size_t K,
				   int f)
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
			for (size_t i = lo[0]; i < hi[0]; i++) {
				float g[6];
				west_pconds(fl, west_pslot(fl, i, j, k), i, j, k, g);
				sum += (double)g[f] * west_mg_cell_dist(a, f, i, j, k);
			}
	return sum / west_mg_cell_dist(c, f, I, J, K);
}

/* Coarse cell (I, J, K)'s six conductances into cl's g. */
WEST_HD void west_mg_coarse_at(const struct west_plevel *fl, const struct west_mgeom *a,
			       const struct west_plevel *cl, const struct west_mgeom *c,
			       size_t I, size_t J, size_t K)
{
	float *g = (float *)cl->g;
	size_t s = west_pslot(cl, I, J, K);
	for (int f = 0; f < 6; f++)
		g[(size_t)f * 2 * cl->ncol + s] = (float)west_mg_coarse_face(fl, a, c, I, J, K, f);
}

#endif
