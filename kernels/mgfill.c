/*
 * mgfill.c: CPU references of building the multigrid hierarchy (kernels.h,
 * "Building the hierarchy"): level 0's face codes and a coarse level's
 * conductances, rows in parallel, with the bodies of multigrid_util.h.
 */
#include "multigrid_util.h"

enum west_status west_mg_codes_cpu(const struct west_kgrid *g, const struct west_plevel *l0)
{
	unsigned char *code = (unsigned char *)l0->code;

	#pragma omp parallel for schedule(static)
	for (long r = 0; r < (long)(g->ny * g->nz); r++) {
		size_t j = (size_t)r % g->ny, k = (size_t)r / g->ny;
		for (size_t i = 0; i < g->nx; i++)
			code[west_pslot(l0, i, j, k)] = west_mg_code_at(g, i, j, k);
	}
	return WEST_OK;
}

enum west_status west_mg_coarse_cpu(const struct west_plevel *fl, const struct west_mgeom *af,
				    const struct west_plevel *cl, const struct west_mgeom *ac)
{
	#pragma omp parallel for schedule(static)
	for (long r = 0; r < (long)(ac->ny * ac->nz); r++) {
		size_t J = (size_t)r % ac->ny, K = (size_t)r / ac->ny;
		for (size_t I = 0; I < ac->nx; I++)
			west_mg_coarse_at(fl, af, cl, ac, I, J, K);
	}
	return WEST_OK;
}
