/*
 * kernel_util.h: the per-element bodies of the WEST steps, shared by the
 * CPU references (kernels/<op>.c: loops over the elements) and the CUDA
 * kernels (kernels/<op>.cu: one thread per element), so that both compute
 * the same expression in the same order.  WEST_HD marks them host and
 * device.  With contraction off on both sides (kernels.h) the results are
 * bit-identical except where a step calls sinf, cosf or the power law
 * (west_profile_factor).
 */
#ifndef WEST_KERNEL_UTIL_H
#define WEST_KERNEL_UTIL_H

#include <stddef.h>

#include "kernels.h"

#ifdef __CUDACC__
/* static: a .cu file may compile the bodies with another WEST_IX
 * (kernels/potential32.cu), so no two files may share a definition. */
#define WEST_HD static __host__ __device__ __forceinline__
#else
#include <math.h>
#define WEST_HD static inline __attribute__((always_inline))
#endif

/* Squared distance (m^2) below which a station is "at" the point: 1 mm. */
#define WEST_IDW_AT 1e-6f

/*
 * The index type of the face and cell indices below and of the potential
 * bodies (potential_util.h): size_t, but unsigned (32 bits) where
 * kernels/potential32.cu compiles kernels/potential.cu for the levels
 * whose every index fits (west_pot_fits32 in potential.cu).
 */
#ifndef WEST_IX
#define WEST_IX size_t
#endif

/* Face and cell indices (grid.h layouts). */
WEST_HD WEST_IX west_kx(WEST_IX nx, WEST_IX ny, WEST_IX i, WEST_IX j, WEST_IX k)
{
	return i + (nx + 1) * (j + ny * k);
}
WEST_HD WEST_IX west_ky(WEST_IX nx, WEST_IX ny, WEST_IX i, WEST_IX j, WEST_IX k)
{
	return i + nx * (j + (ny + 1) * k);
}
WEST_HD WEST_IX west_kc(WEST_IX nx, WEST_IX ny, WEST_IX i, WEST_IX j, WEST_IX k)
{
	return i + nx * (j + ny * k);   /* cells, and z-faces */
}

/* 1 when cell (i, j, k) exists and is land (signed: neighbours may not). */
WEST_HD int west_kland(const unsigned char *land, size_t nx, size_t ny,
		       size_t nz, long i, long j, long k)
{
	if (i < 0 || j < 0 || k < 0 || i >= (long)nx || j >= (long)ny ||
	    k >= (long)nz)
		return 0;
	return land[west_kc(nx, ny, (size_t)i, (size_t)j, (size_t)k)];
}

/* 2, 5. Station s's profile at height h above the ground (m): the power
 * law (h / height)^p from its measurement height, h floored at WEST_H_MIN
 * and held above its mixing height.  On the GPU as 2^(p log2(h /
 * height)), within about 5e-7 of powf and faster than CUDA's powf in
 * step 5 (docs/benchmarks.md); on the CPU powf, which is faster there
 * than exp2f and log2f. */
WEST_HD float west_profile_factor(const struct west_kstation *s, float p, float h)
{
	h = fminf(fmaxf(h, WEST_H_MIN), s->mix);
#ifdef __CUDA_ARCH__
	return exp2f(p * log2f(h / s->height));
#else
	return powf(h / s->height, p);
#endif
}

/* Heights one call of west_idw_values (step 5's bodies) takes at most. */
#define WEST_IDW_LEVELS 4

/*
 * Inverse-distance-squared means at (x, y) of the stations' values val[s],
 * at n <= WEST_IDW_LEVELS heights h[m] above the ground: out[m] = sum_s w_s
 * v_s / sum_s w_s with w_s = 1 / d_s^2, or v_s alone for the first station
 * within 1 mm of the point.  v_s = val[s], or with pst (profile exponents)
 * val[s] carried to h[m] by station s's profile.  Each height's sums are
 * added in station order, as one height alone gives them: n shares each
 * station's distance and weight among the heights and changes no value.
 */
WEST_HD void west_idw_values(size_t ns, const struct west_kstation *st, float x, float y,
			     const float *val, const float *pst, const float *h, int n,
			     float *out)
{
	float a[WEST_IDW_LEVELS] = { 0.0f }, b = 0.0f;
	for (size_t s = 0; s < ns; s++) {
		float ddx = x - st[s].x, ddy = y - st[s].y;
		float d2 = ddx * ddx + ddy * ddy;
		int at = d2 < WEST_IDW_AT;
		float wgt = at ? 0.0f : 1.0f / d2;
		for (int m = 0; m < WEST_IDW_LEVELS && m < n; m++) {
			float v = pst ? val[s] * west_profile_factor(&st[s], pst[s], h[m]) : val[s];
			if (at)
				out[m] = v;
			else
				a[m] += wgt * v;
		}
		if (at)
			return;
		b += wgt;
	}
	for (int m = 0; m < WEST_IDW_LEVELS && m < n; m++)
		out[m] = a[m] / b;
}

/* The same at one height. */
WEST_HD float west_idw_value(size_t ns, const struct west_kstation *st,
			     float x, float y, const float *val,
			     const float *pst, float h)
{
	float out;
	west_idw_values(ns, st, x, y, val, pst, &h, 1, &out);
	return out;
}

/* ---------------------------------------------------- per-element bodies */

/* 1. The class of column (i, j): IDW of the station classes, rounded.
 * Its centre from the global row j + jg (kernels.h, views). */
WEST_HD unsigned char west_stability_at(const struct west_kgrid *g, size_t ns,
					const struct west_kstation *st,
					const float *stab, size_t i, size_t j)
{
	float x = ((float)i + 0.5f) * g->dx, y = ((float)(j + g->jg) + 0.5f) * g->dy;
	float c = west_idw_value(ns, st, x, y, stab, NULL, 0.0f);
	return (unsigned char)floorf(c + 0.5f);
}

/* 2. The exponent of station s's profile: that of its column's class. */
WEST_HD float west_extrapolate_at(const struct west_kgrid *g,
				  const struct west_kstation *s,
				  const unsigned char *cls, const float *pexp)
{
	/* the class of the column holding the station (clamped to the grid) */
	long i = (long)floorf(s->x / g->dx), j = (long)floorf(s->y / g->dy);
	i = i < 0 ? 0 : i >= (long)g->nx ? (long)g->nx - 1 : i;
	j = j < 0 ? 0 : j >= (long)g->ny ? (long)g->ny - 1 : j;
	return pexp[cls[(size_t)j * g->nx + (size_t)i]];
}

/* 3. Components of station s's wind at its measurement height. */
#define WEST_DEG2RAD 0.017453292519943295f
WEST_HD void west_initialize_at(const struct west_kstation *s, float *us,
				float *vs)
{
	float th = s->direction * WEST_DEG2RAD;
	*us = -s->speed * sinf(th);
	*vs = -s->speed * cosf(th);
}

/* 5. The ground (m above the base) under the face between columns c0 and
 * c1 of one row or column, n columns long; c0 < 0 or c1 == n at the edges. */
WEST_HD float west_face_ground(const float *ground, long c0, long c1, long n,
			       size_t stride, size_t base)
{
	if (c0 < 0)
		return ground[base + (size_t)c1 * stride];
	if (c1 >= n)
		return ground[base + (size_t)c0 * stride];
	return 0.5f * (ground[base + (size_t)c0 * stride] +
		       ground[base + (size_t)c1 * stride]);
}

/* 5. The height above its ground gf of a face of level k: the middle of
 * the part of the level above gf (the level centre when gf is below the
 * level). */
WEST_HD float west_face_height(const struct west_kgrid *g, float gf, size_t k)
{
	float top = g->zc[k] + 0.5f / g->rdz[k];
	return fmaxf(g->zc[k] - gf, 0.5f * (top - gf));
}

/* 5. u on x-faces (i, j, k0 + m) and v on y-faces (i, j, k0 + m), m < n
 * (n <= WEST_IDW_LEVELS, k0 + n <= nz), into out[m]; face centres from
 * the global row j + jg (kernels.h, views). */
WEST_HD void west_interp_faces(const struct west_kgrid *g, size_t ns,
			       const struct west_kstation *st, const float *pst,
			       const float *val, float x, float y, float gr, size_t k0,
			       int n, float *out)
{
	float h[WEST_IDW_LEVELS];
	for (int m = 0; m < WEST_IDW_LEVELS && m < n; m++)
		h[m] = west_face_height(g, gr, k0 + (size_t)m);
	west_idw_values(ns, st, x, y, val, pst, h, n, out);
}
WEST_HD void west_interp_u_at(const struct west_kgrid *g, size_t ns,
			      const struct west_kstation *st, const float *pst,
			      const float *us, size_t i, size_t j, size_t k0, int n,
			      float *out)
{
	float x = (float)i * g->dx, y = ((float)(j + g->jg) + 0.5f) * g->dy;
	float gr = west_face_ground(g->ground, (long)i - 1, (long)i, (long)g->nx,
				    1, j * g->nx);
	west_interp_faces(g, ns, st, pst, us, x, y, gr, k0, n, out);
}
WEST_HD void west_interp_v_at(const struct west_kgrid *g, size_t ns,
			      const struct west_kstation *st, const float *pst,
			      const float *vs, size_t i, size_t j, size_t k0, int n,
			      float *out)
{
	float x = ((float)i + 0.5f) * g->dx, y = (float)(j + g->jg) * g->dy;
	float gr = west_face_ground(g->ground, (long)j - 1, (long)j, (long)g->ny,
				    g->nx, i);
	west_interp_faces(g, ns, st, pst, vs, x, y, gr, k0, n, out);
}

/* 6, 7. Whether x-, y- or z-face (i, j, k) touches land (the ground
 * counts for z-face 0); the face must exist. */
WEST_HD int west_xface_closed(const unsigned char *l, size_t nx, size_t ny,
			      size_t nz, long i, long j, long k)
{
	return west_kland(l, nx, ny, nz, i - 1, j, k) || west_kland(l, nx, ny, nz, i, j, k);
}
WEST_HD int west_yface_closed(const unsigned char *l, size_t nx, size_t ny,
			      size_t nz, long i, long j, long k)
{
	return west_kland(l, nx, ny, nz, i, j - 1, k) || west_kland(l, nx, ny, nz, i, j, k);
}
WEST_HD int west_zface_closed(const unsigned char *l, size_t nx, size_t ny,
			      size_t nz, long i, long j, long k)
{
	return k == 0 || west_kland(l, nx, ny, nz, i, j, k - 1) ||
	       west_kland(l, nx, ny, nz, i, j, k);
}

/* 7. The open fraction of an open side face of level k whose ground is gf
 * (m above the base): the part of the level above it, in [0, 1]. */
WEST_HD float west_face_fraction(const struct west_kgrid *g, float gf, size_t k)
{
	float t = (g->zc[k] + 0.5f / g->rdz[k] - gf) * g->rdz[k];
	return t >= 1.0f ? 1.0f : t <= 0.0f ? 0.0f : t;
}

/* 7. The transparency of side face (i, j, k), an x-face (axis 0) or a
 * y-face (axis 1) (kernels.h rules). */
WEST_HD float west_side_t(const struct west_kgrid *g, int cut, int axis, long i, long j,
			  long k)
{
	size_t nx = g->nx, ny = g->ny;
	int closed = axis == 0 ? west_xface_closed(g->land, nx, ny, g->nz, i, j, k)
			       : west_yface_closed(g->land, nx, ny, g->nz, i, j, k);
	if (closed)
		return 0.0f;
	if (!cut)
		return 1.0f;
	float gf = axis == 0 ? west_face_ground(g->ground, i - 1, i, (long)nx, 1, (size_t)j * nx)
			     : west_face_ground(g->ground, j - 1, j, (long)ny, nx, (size_t)i);
	return west_face_fraction(g, gf, (size_t)k);
}

/* 6. A face velocity times its transparency t (0 on a closed face). */
WEST_HD float west_times_t(float u, float t)
{
	return t == 0.0f ? 0.0f : t * u;
}

/* 8. Constants of a red-black pass, computed once on the host. */
struct west_sor {
	float omega, eta, rdx, rdy, rdx2, rdy2;
};
static inline struct west_sor west_sor_init(const struct west_kgrid *g,
					    float omega, float eta)
{
	float rdx = 1.0f / g->dx, rdy = 1.0f / g->dy;
	struct west_sor o = { omega, eta, rdx, rdy, rdx * rdx, rdy * rdy };
	return o;
}

/*
 * 8. The update of one cell (divmin.c gives the equations): faces u[0]
 * (west), u[1] (east), vs, vn, wb, wt; transparencies t = {w, e, s, n, b,
 * t}; rdz of its level and rdzf of its bottom and top faces.
 */
WEST_HD void west_sor_cell(const struct west_sor *o, float *u, float *vs,
			   float *vn, float *wb, float *wt, const float t[6],
			   float rdz, float rzb, float rzt)
{
	float s = (t[0] + t[1]) * o->rdx2 + (t[2] + t[3]) * o->rdy2 +
		  o->eta * rdz * (t[4] * rzb + t[5] * rzt);
	if (s == 0.0f)
		return;
	float d = (u[1] - u[0]) * o->rdx + (*vn - *vs) * o->rdy + (*wt - *wb) * rdz;
	float p = o->omega * d / s;
	u[0] += p * t[0] * o->rdx;
	u[1] -= p * t[1] * o->rdx;
	*vs += p * t[2] * o->rdy;
	*vn -= p * t[3] * o->rdy;
	*wb += o->eta * p * t[4] * rzb;
	*wt -= o->eta * p * t[5] * rzt;
}

/* 8. Divergence of cell (i, j, k) (1/s), summed as the sweep does. */
WEST_HD float west_cell_div(const struct west_kgrid *g, const struct west_sor *o,
			    const float *u, const float *v, const float *w,
			    size_t i, size_t j, size_t k)
{
	size_t nx = g->nx, ny = g->ny;
	size_t xw = west_kx(nx, ny, i, j, k), ys = west_ky(nx, ny, i, j, k);
	size_t zb = west_kc(nx, ny, i, j, k);
	return (u[xw + 1] - u[xw]) * o->rdx + (v[ys + nx] - v[ys]) * o->rdy +
	       (w[zb + nx * ny] - w[zb]) * g->rdz[k];
}

/* 9. Divergence removal in column (i, j): w integrated up from the ground. */
WEST_HD void west_divremoval_column(const struct west_kgrid *g, float rdx,
				    float rdy, const float *u, const float *v,
				    float *w, size_t i, size_t j)
{
	size_t nx = g->nx, ny = g->ny, nz = g->nz;
	w[west_kc(nx, ny, i, j, 0)] = 0.0f;
	for (size_t k = 0; k < nz; k++) {
		size_t xw = west_kx(nx, ny, i, j, k), ys = west_ky(nx, ny, i, j, k);
		size_t zb = west_kc(nx, ny, i, j, k), zt = zb + nx * ny;
		int above_land = k + 1 < nz && g->land[zt];
		if (g->land[zb] || above_land) {
			w[zt] = 0.0f;
			continue;
		}
		float h = (u[xw + 1] - u[xw]) * rdx + (v[ys + nx] - v[ys]) * rdy;
		w[zt] = w[zb] - h / g->rdz[k];
	}
}

#endif
