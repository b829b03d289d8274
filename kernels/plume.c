/*
 * plume.c: CPU reference of the release plumes' kernel (kernels.h,
 * plume_advance): every particle advanced to t_end by the shared body
 * west_plume_particle (plume_util.h), particles in parallel with OpenMP.
 * Each particle's motion depends only on its index, the seed and the
 * inputs, and the accumulators are integers added atomically, so the
 * result is the same on any number of threads (tests/test_plume.c checks
 * it); the centroid's sums are an OpenMP reduction of integers, likewise.
 */
#include "plume_util.h"

enum west_status west_plume_advance_cpu(const struct west_kplume *k,
					const struct west_kparticles *s, double t_end,
					int centroid)
{
	unsigned long long sx = 0, sy = 0, sz = 0, sn = 0;

	#pragma omp parallel for schedule(dynamic, 64) reduction(+ : sx, sy, sz, sn)
	for (long p = 0; p < (long)k->np; p++) {
		double at[3];
		if (west_plume_particle(k, s, (size_t)p, t_end, at) && centroid) {
			sx += west_plume_fix(at[0], WEST_PLUME_POS);
			sy += west_plume_fix(at[1], WEST_PLUME_POS);
			sz += west_plume_fix(at[2], WEST_PLUME_POS);
			sn++;
		}
	}
	if (centroid) {
		s->sums[0] += sx;
		s->sums[1] += sy;
		s->sums[2] += sz;
		s->sums[3] += sn;
	}
	return WEST_OK;
}
