/*
 * plume.c: CPU reference of the release plumes' kernel (kernels.h,
 * plume_advance): every particle advanced over a launch by the shared body
 * west_plume_particle (plume_util.h), particles in parallel with OpenMP.
 * Each particle's motion depends only on its index, the seed and the
 * inputs, and the accumulators are integers added atomically, so the
 * result is the same on any number of threads (tests/test_plume.c checks
 * it); the centroid's sums are an OpenMP reduction of integers, likewise.
 */
#include "plume_util.h"

enum west_status west_plume_advance_cpu(const struct west_kplume *k,
					const struct west_kparticles *s, double t_end,
					double t_cut, int centroid)
{
	unsigned long long sums[4] = { 0, 0, 0, 0 };

	#pragma omp parallel for schedule(dynamic, 64) reduction(+ : sums[:4])
	for (long p = 0; p < (long)k->np; p++) {
		double at[3];
		if (west_plume_particle(k, s, (size_t)p, t_end, t_cut, centroid, at))
			west_plume_centroid(sums, at);
	}
	if (centroid)
		west_plume_sums_add(s, sums);
	return WEST_OK;
}
