/*
 * kernels.h: every compute kernel, as a pair with one prototype: the plain-C
 * CPU reference `west_<op>_cpu` (kernels/<op>.c, OpenMP allowed) and the
 * CUDA launcher `west_<op>_cuda` (kernels/<op>.cu, built with --with-cuda).
 * The launcher takes device pointers (struct west_kgrid itself, the
 * station count and scalars stay in host memory), queues its kernels on the
 * calling thread's default stream (nvcc --default-stream per-thread: the
 * compute thread's stream is cudaStreamPerThread), checks the launch, and
 * returns without synchronizing; a failure is logged with the CUDA error
 * string and returned as WEST_ERR_CUDA.  The one exception is
 * west_divergence_norms_cuda, which returns its two numbers in host memory
 * and so waits for them.  Tests compare each launcher with its reference
 * element by element.
 *
 * Arithmetic: the CPU references are built with -ffp-contract=off and the
 * kernels with nvcc --fmad=false, so both round every operation in the
 * same order (IEEE-754 binary32, division correctly rounded); the only
 * differences left are the libraries' powf, sinf, cosf (a few ulp).
 *
 * The WEST steps (DESIGN.md section 3, docs/model.md) share two views:
 * struct west_kgrid, what a kernel needs of the grid (grid.h layouts; its
 * pointers are host memory for _cpu and device memory for _cuda), and
 * struct west_kstation, one observation reduced to what the kernels use
 * (positions relative to the grid's lower-left corner, so float keeps
 * centimetres).  Velocities are float32 m/s on the faces of the Arakawa-C
 * grid: u (nx+1)*ny*nz, v nx*(ny+1)*nz, w nx*ny*(nz+1).
 */
#ifndef WEST_KERNELS_H
#define WEST_KERNELS_H

#include <stddef.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * smoke: y[i] = fmaf(a, x[i], y[i]) for i < n (float32).  The build's and the
 * device's smoke test: the CUDA backend's probe runs it on a few elements
 * and refuses the device when the result differs from the reference.
 */
enum west_status west_smoke_cpu(size_t n, float a, const float *x, float *y);
__typeof__(west_smoke_cpu) west_smoke_cuda;

struct west_kgrid {
	size_t nx, ny, nz;
	float dx, dy;              /* m */
	const float *zc;           /* nz: level-centre heights above the base (m) */
	const float *rdz;          /* nz: 1 / thickness of level k (1/m) */
	const float *rdzf;         /* nz + 1: 1 / distance between the centres
				      either side of z-face k; the top face
				      counts a mirrored ghost cell (1/m) */
	const unsigned char *land; /* nx * ny * nz, 1 = land */
	const float *tx, *ty, *tz; /* face transparencies in [0, 1] */
};

struct west_kstation {
	float x, y;        /* m east / north of the grid's lower-left corner */
	float height;      /* measurement height above the station's ground (m) */
	float ground;      /* station's ground height above the grid base (m) */
	float speed;       /* m/s */
	float direction;   /* degrees from, clockwise from north */
};

/* Red-black ordering of the sweep (DESIGN.md section 3). */
enum west_kindexing { WEST_KINDEX_MASKED, WEST_KINDEX_COMPACT };

/*
 * 1. stability: cls[j*nx+i] = the stations' Pasquill-Gifford classes
 * (stab[s], 0..5 = A..F) weighted by inverse distance squared to the column
 * centre, rounded to the nearest class (halves to the more stable); a
 * station within 1 mm of the centre gives its own class.  ns >= 1.
 */
enum west_status west_stability_cpu(const struct west_kgrid *g, size_t ns,
				    const struct west_kstation *st,
				    const float *stab, unsigned char *cls);

/*
 * 2. extrapolate: spd[s*nz+k] = speed_s * (h / height_s)^p, where
 * h = max(zc[k] - ground_s, WEST_H_MIN) is the level centre's height above
 * the station's ground and p = pexp[class of the station's column], the
 * column class from step 1 (pexp: 6 exponents, A..F).
 */
#define WEST_H_MIN 1.0f
enum west_status west_extrapolate_cpu(const struct west_kgrid *g, size_t ns,
				      const struct west_kstation *st,
				      const unsigned char *cls, const float *pexp,
				      float *spd);

/*
 * 3. initialize: us, vs[s*nz+k] = -spd sin(dir), -spd cos(dir) (dir in
 * radians from the station's degrees), and w = 0 on every z-face.
 */
enum west_status west_initialize_cpu(const struct west_kgrid *g, size_t ns,
				     const struct west_kstation *st,
				     const float *spd, float *us, float *vs,
				     float *w);

/*
 * 4. land: land[c] = 1 when the altitude of level k's centre, zcalt[k],
 * is below the column's ground altitude terrain_alt[j*nx+i].  (Altitudes
 * in double: the grid builder's exact rule.)
 */
enum west_status west_land_cpu(size_t nx, size_t ny, size_t nz,
			       const float *terrain_alt, const double *zcalt,
			       unsigned char *land);

/*
 * 5. interpolate: per level k, u on each x-face and v on each y-face is the
 * inverse-distance-squared mean of the stations' us/vs at level k, taken
 * at the face centre (a station within 1 mm of it gives its own value).
 */
enum west_status west_interpolate_cpu(const struct west_kgrid *g, size_t ns,
				      const struct west_kstation *st,
				      const float *us, const float *vs,
				      float *u, float *v);

/* 6. speed zero: 0 on every face touching a land cell, and w on the ground. */
enum west_status west_speed_zero_cpu(const struct west_kgrid *g, float *u,
				     float *v, float *w);

/*
 * 7. transparency: tx, ty, tz from the land mask (grid.h rules): 0 on a face
 * touching land and on the ground, 1 elsewhere, domain boundary included.
 */
enum west_status west_transparency_cpu(size_t nx, size_t ny, size_t nz,
				       const unsigned char *land, float *tx,
				       float *ty, float *tz);

/*
 * 8. divergence minimization, one colour pass of the velocity-form
 * red-black SOR: every cell with (i + j + k) & 1 == colour and S > 0 moves
 * its six faces so that its divergence becomes (1 - omega) D.  masked and
 * compact visit the same cells with the same arithmetic (bit-identical).
 */
enum west_status west_divmin_sweep_cpu(const struct west_kgrid *g, float omega,
				       float eta, int colour,
				       enum west_kindexing indexing,
				       float *u, float *v, float *w);

/*
 * Divergence norms over fluid cells: norms[0] = max |D| (1/s),
 * norms[1] = sum of D^2; each cell's D as the sweep computes it (float),
 * accumulated in double.  (The convergence check of step 8
 * and the diagnostics.)
 */
enum west_status west_divergence_norms_cpu(const struct west_kgrid *g,
					   const float *u, const float *v,
					   const float *w, double *norms);

/*
 * 9. divergence removal: in every column, w is integrated upward from the
 * ground (w = 0 there) so that each fluid cell's divergence is zero:
 * w_top = w_bottom - dz (du/dx + dv/dy); faces touching land stay 0.
 */
enum west_status west_divremoval_cpu(const struct west_kgrid *g,
				     const float *u, const float *v, float *w);

/* The largest ny and nz the CUDA launch shapes cover (cuda_launch.cuh). */
#define WEST_CUDA_MAX_NY (65535 * 4 - 1)
#define WEST_CUDA_MAX_NZ 65534

/*
 * The CUDA launchers, one per reference above, with its prototype by
 * construction (device pointers; norms is host memory, 2 doubles, written
 * after the device reduction finishes).
 */
__typeof__(west_stability_cpu) west_stability_cuda;
__typeof__(west_extrapolate_cpu) west_extrapolate_cuda;
__typeof__(west_initialize_cpu) west_initialize_cuda;
__typeof__(west_land_cpu) west_land_cuda;
__typeof__(west_interpolate_cpu) west_interpolate_cuda;
__typeof__(west_speed_zero_cpu) west_speed_zero_cuda;
__typeof__(west_transparency_cpu) west_transparency_cuda;
__typeof__(west_divmin_sweep_cpu) west_divmin_sweep_cuda;
__typeof__(west_divergence_norms_cpu) west_divergence_norms_cuda;
__typeof__(west_divremoval_cpu) west_divremoval_cuda;

#ifdef __cplusplus
}
#endif

#endif
