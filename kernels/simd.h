/*
 * simd.h: the CPU's vectors of VL floats (GCC's and clang's vector
 * extensions), shared by kernels/potential_simd.c and src/field.c: on
 * x86-64 the functions that use them are built for AVX2 (VEC) and called
 * where the processor has it (VEC_OK, a cached flag); elsewhere the
 * vectors map to what the target has.  Each lane is IEEE binary32, so a
 * lane computing a scalar expression gives its bits (with
 * -ffp-contract=off, as the build has).
 */
#ifndef WEST_SIMD_H
#define WEST_SIMD_H

#include <stdint.h>
#include <string.h>

#define VL 8                                    /* cells per vector */
typedef float vf __attribute__((vector_size(4 * VL)));
typedef int32_t vi __attribute__((vector_size(4 * VL)));
typedef uint32_t vu __attribute__((vector_size(4 * VL)));

/* AVX2 on x86-64, checked at each call (a cached flag). */
#if defined(__x86_64__)
#define VEC __attribute__((target("avx2")))
#define VEC_OK() __builtin_cpu_supports("avx2")
#else
#define VEC
#define VEC_OK() 1
#endif
#define INLINE static inline __attribute__((always_inline)) VEC
#if defined(__GNUC__) && !defined(__clang__)
/* Vectors pass between always-inlined functions only: no call carries one,
 * so the ABI GCC warns about never applies. */
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

INLINE vf vload(const float *p)
{
	vf v;
	memcpy(&v, p, sizeof v);
	return v;
}

INLINE void vstore(float *p, vf v)
{
	memcpy(p, &v, sizeof v);
}

INLINE vf vsplat(float x)
{
	vf v;
	for (int q = 0; q < VL; q++)
		v[q] = x;
	return v;
}

/* VL bytes (8: the face codes or land flags of VL cells), lane q's in its
 * low byte (the bytes above it are its neighbours': mask them).  Two words
 * shifted by 8 (q mod 4): compilers convert bytes to lanes one by one. */
INLINE vu lane_codes(uint64_t bytes)
{
	uint32_t lo = (uint32_t)bytes, hi = (uint32_t)(bytes >> 32);
	return (vu){ lo, lo, lo, lo, hi, hi, hi, hi } >> (vu){ 0, 8, 16, 24, 0, 8, 16, 24 };
}

INLINE uint64_t load8(const uint8_t *p)
{
	uint64_t bytes;
	memcpy(&bytes, p, sizeof bytes);
	return bytes;
}

/* a where m is set (all bits of the lane), else b. */
INLINE vf vselect(vi m, vf a, vf b)
{
	return (vf)((m & (vi)a) | (~m & (vi)b));
}

#endif
