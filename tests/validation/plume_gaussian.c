/*
 * plume_gaussian.c: release plumes (src/plume.h) against the Gaussian
 * plume with the Briggs (1973) rural dispersion curves, for each
 * stability class (docs/validation.md, "Release plumes").
 *
 * Set-up (plume_flat.h): a flat terrain (140 x 121 columns of 50 m, 60 levels of 20 m),
 * a uniform wind U along x on every face (v = w = 0), every column of one
 * class; a release 10 m above the ground at a column centre, 600 s long,
 * run for 3600 s (the whole plume passes 5 km at the slowest wind, 2 m/s:
 * 600 + 2500 s), N
 * particles (argument, default 100000), seed 1, layer 10 m.  The model's
 * turbulence is its own (Hanna 1982 profiles, u* from the 10 m wind, the
 * mixing height by class: docs/model.md); nothing is fitted to Briggs.
 *
 * Reference: the time-integrated concentration per unit mass of a
 * continuous release with ground reflection,
 *   E(x, y, z) = 1 / (2 pi U sy sz) exp(-y^2 / 2 sy^2)
 *                [exp(-(z - H)^2 / 2 sz^2) + exp(-(z + H)^2 / 2 sz^2)],
 * averaged like the model's output: over the column (7 x 7 points) and
 * over the layer 0 to 10 m (11 points).  Briggs rural sigmas (x in m):
 *   A sy 0.22x(1+0.0001x)^-1/2  sz 0.20x
 *   B sy 0.16x(...)             sz 0.12x
 *   C sy 0.11x(...)             sz 0.08x(1+0.0002x)^-1/2
 *   D sy 0.08x(...)             sz 0.06x(1+0.0015x)^-1/2
 *   E sy 0.06x(...)             sz 0.03x(1+0.0003x)^-1
 *   F sy 0.04x(...)             sz 0.016x(1+0.0003x)^-1
 * Beside it the same Gaussian under a lid at the model's mixing height h
 * (the run's, west_plume_result's mixing_height; nothing else of the
 * model), reflected at the ground and at h by image sources (Turner
 * 1970's multiple reflections):
 *   [...] = sum over n of exp(-(z - H + 2nh)^2 / 2 sz^2)
 *                       + exp(-(z + H + 2nh)^2 / 2 sz^2),
 * n from -20 to 20; the model reflects its particles at h, so this is
 * the plume of the same atmosphere.  It differs from the first only where
 * sz nears h (class A at 5 km: sz 1000 m, h 1000 m).  Ratio model /
 * reference at 0.5, 1, 2 and 5 km on the centreline, and FAC2 (0.5 <=
 * ratio <= 2), against each.
 *
 * Usage: plume_gaussian [--cuda | --reference] [--no-order] [N]
 * (tests/validation/plume_gaussian.sh); --reference: the CPU's plain
 * reference kernel (kernels/plume.c), not the CPU backend's vector one
 * (kernels/plume_simd.c); --no-order: the GPU takes the
 * particles in index order (kernels.h, struct west_kparticles), to time
 * the order against.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "plume_flat.h"

static const double briggs[6][4] = {   /* sy a, sz a, sz b, sz power */
	{ 0.22, 0.20, 0.0, 0.0 },     { 0.16, 0.12, 0.0, 0.0 },
	{ 0.11, 0.08, 0.0002, -0.5 }, { 0.08, 0.06, 0.0015, -0.5 },
	{ 0.06, 0.03, 0.0003, -1.0 }, { 0.04, 0.016, 0.0003, -1.0 },
};

/* The reference at (x, y, z) for class c, wind u, with the lid at h
 * (h <= 0: none, the ground's reflection alone). */
static double gauss_at(int c, double u, double h, double x, double y, double z)
{
	double sy = briggs[c][0] * x / sqrt(1.0 + 0.0001 * x);
	double sz = briggs[c][1] * x * (briggs[c][3] ? pow(1.0 + briggs[c][2] * x, briggs[c][3])
						     : 1.0);
	double v = 0.0;
	int images = h > 0 ? 20 : 0;

	for (int m = -images; m <= images; m++) {
		double a = z - H + 2.0 * m * h, b = z + H + 2.0 * m * h;
		v += exp(-a * a / (2 * sz * sz)) + exp(-b * b / (2 * sz * sz));
	}
	return exp(-y * y / (2 * sy * sy)) / (2 * M_PI * u * sy * sz) * v;
}

/* The reference averaged over the column centred d m downwind, on the
 * centreline, and over the layer. */
static double gauss_column(int c, double u, double h, double d)
{
	double sum = 0.0;
	int n = 0;
	for (int a = 0; a < 7; a++)
		for (int b = 0; b < 7; b++)
			for (int k = 0; k <= 10; k++, n++)
				sum += gauss_at(c, u, h, d + DX * ((a + 0.5) / 7 - 0.5),
						DX * ((b + 0.5) / 7 - 0.5), LAYER * k / 10.0);
	return sum / n;
}

static void die(const char *what, const char *err)
{
	fprintf(stderr, "plume_gaussian: %s: %s\n", what, err);
	exit(1);
}

int main(int argc, char **argv)
{
	const struct west_kernel_ops *k = &west_kernels_cpu;
	static struct west_kernel_ops unordered;
	int no_order = 0;
	long n = 100000;
	static const double dist[4] = { 500, 1000, 2000, 5000 };
	struct west_grid g;
	char err[WEST_ERRLEN];
	int fac2_all = 1, fac2_lid = 1;

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--cuda")) {
#ifdef WEST_HAVE_CUDA
			k = &west_kernels_cuda;
#else
			die("--cuda", "this libwest is built without CUDA");
#endif
		} else if (!strcmp(argv[a], "--reference")) {
			k = &west_kernels_cpu_ref;
		} else if (!strcmp(argv[a], "--no-order")) {
			no_order = 1;
		} else {
			n = atol(argv[a]);
		}
	}
	if (no_order) {   /* the particles in index order on the GPU */
		unordered = *k;
		unordered.plume_order_bytes = NULL;
		k = &unordered;
	}
	if (flat_grid(&g, err, sizeof err))
		die("grid", err);
	printf("| class | U (m/s) | x (km) | westd (s/m^3) | Gaussian, Briggs rural (s/m^3) | "
	       "ratio | FAC2 | h (m) | Gaussian under the lid h (s/m^3) | ratio | FAC2 | run (s) |\n"
	       "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: |\n");
	for (int c = 0; c < 6; c++) {
		struct west_field f;
		struct west_plume_result res;
		struct west_release r = flat_release(&g, n);
		struct timespec t0, t1;

		if (flat_field(&g, c, &f, err, sizeof err))
			die("field", err);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (west_plume_run(&g, &f, &r, k, NULL, NULL, &res, err, sizeof err))
			die("run", err);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		for (int d = 0; d < 4; d++) {
			size_t i = RI + (size_t)(dist[d] / DX);
			double w = res.conc[RJ * res.nx + i], h = res.mixing_height;
			double e = gauss_column(c, speeds[c], 0.0, dist[d]);
			double el = gauss_column(c, speeds[c], h, dist[d]);
			int ok = w >= 0.5 * e && w <= 2.0 * e, okl = w >= 0.5 * el && w <= 2.0 * el;
			fac2_all &= ok, fac2_lid &= okl;
			printf("| %c | %.0f | %.1f | %.3e | %.3e | %.2f | %s | %.0f | %.3e | %.2f | %s "
			       "| %.1f |\n", "ABCDEF"[c], speeds[c], dist[d] / 1000, w, e, w / e,
			       ok ? "yes" : "**no**", h, el, w / el, okl ? "yes" : "**no**",
			       (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec -
										t0.tv_nsec));
		}
		fflush(stdout);
		west_plume_result_free(&res);
		west_field_free(&f);
	}
	printf("\n%ld particles a run; FAC2 at every class and distance: %s without the lid, "
	       "%s under it\n", n, fac2_all ? "yes" : "no", fac2_lid ? "yes" : "no");
	west_grid_free(&g);
	return 0;
}
