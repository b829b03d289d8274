/*
 * kernel_util.h: small inline helpers shared by the CPU references and the
 * CUDA kernels of the WEST steps (WEST_HD marks them host and device), so
 * both sides compute the same expression in the same order.
 */
#ifndef WEST_KERNEL_UTIL_H
#define WEST_KERNEL_UTIL_H

#include <stddef.h>

#include "kernels.h"

#ifdef __CUDACC__
#define WEST_HD __host__ __device__ __forceinline__
#else
#define WEST_HD static inline
#endif

/* Squared distance (m^2) below which a station is "at" the point: 1 mm. */
#define WEST_IDW_AT 1e-6f

/* Face and cell indices (grid.h layouts). */
WEST_HD size_t west_kx(size_t nx, size_t ny, size_t i, size_t j, size_t k)
{
	return i + (nx + 1) * (j + ny * k);
}
WEST_HD size_t west_ky(size_t nx, size_t ny, size_t i, size_t j, size_t k)
{
	return i + nx * (j + (ny + 1) * k);
}
WEST_HD size_t west_kc(size_t nx, size_t ny, size_t i, size_t j, size_t k)
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

/*
 * Inverse-distance-squared weights of the stations at point (x, y): returns
 * the index of a station within 1 mm of the point (then use its value
 * alone), or -1 after the caller has the sum over s of val[s] * w_s in
 * *num and of w_s in *den.  val[s * stride] is station s's value.
 */
WEST_HD long west_idw(size_t ns, const struct west_kstation *st, float x,
		      float y, const float *val, size_t stride, float *num,
		      float *den)
{
	float a = 0.0f, b = 0.0f;
	for (size_t s = 0; s < ns; s++) {
		float ddx = x - st[s].x, ddy = y - st[s].y;
		float d2 = ddx * ddx + ddy * ddy;
		if (d2 < WEST_IDW_AT)
			return (long)s;
		float wgt = 1.0f / d2;
		a += wgt * val[s * stride];
		b += wgt;
	}
	*num = a;
	*den = b;
	return -1;
}

/* The IDW value at (x, y) (see west_idw). */
WEST_HD float west_idw_value(size_t ns, const struct west_kstation *st,
			     float x, float y, const float *val, size_t stride)
{
	float num, den;
	long at = west_idw(ns, st, x, y, val, stride, &num, &den);
	return at >= 0 ? val[(size_t)at * stride] : num / den;
}

#endif
