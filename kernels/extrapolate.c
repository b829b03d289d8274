/*
 * extrapolate.c: CPU reference of WEST step 2, vertical extrapolation of
 * each station's speed to every level by the power law (kernels.h).
 */
#include <math.h>

#include "kernel_util.h"

enum west_status west_extrapolate_cpu(const struct west_kgrid *g, size_t ns,
				      const struct west_kstation *st,
				      const unsigned char *cls, const float *pexp,
				      float *spd)
{
	size_t nz = g->nz;
	for (size_t s = 0; s < ns; s++)
		for (size_t k = 0; k < nz; k++)
			spd[s * nz + k] = west_extrapolate_at(g, &st[s], cls, pexp, k);
	return WEST_OK;
}
