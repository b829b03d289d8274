/*
 * extrapolate.c: CPU reference of WEST step 2, vertical extrapolation: the
 * power-law exponent of each station's profile (kernels.h); step 5
 * evaluates the profile at each face's height above its own ground.
 */
#include <math.h>

#include "kernel_util.h"

enum west_status west_extrapolate_cpu(const struct west_kgrid *g, size_t ns,
				      const struct west_kstation *st,
				      const unsigned char *cls, const float *pexp,
				      float *pst)
{
	for (size_t s = 0; s < ns; s++)
		pst[s] = west_extrapolate_at(g, &st[s], cls, pexp);
	return WEST_OK;
}
