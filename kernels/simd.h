/*
 * simd.h: the CPU's vectors of VL floats (GCC's and clang's vector
 * extensions), shared by kernels/potential_simd.c and src/field.c: on
 * x86-64 the functions that use them are built for AVX2 (VEC; or AVX-512,
 * below) and called where the processor has it (VEC_OK, a cached flag);
 * elsewhere the vectors map to what the target has.  Each lane is IEEE
 * binary32, so a lane computing a scalar expression gives its bits (with
 * -ffp-contract=off, as the build has).
 */
#ifndef WEST_SIMD_H
#define WEST_SIMD_H

#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/*
 * VL = 8 (AVX2) unless the includer defines WEST_SIMD512 (16 lanes, AVX-512:
 * kernels/potential_simd512.c builds potential_simd.c so).
 */
#ifdef WEST_SIMD512
#define VL 16
#else
#define VL 8
#endif
typedef float vf __attribute__((vector_size(4 * VL)));
typedef int32_t vi __attribute__((vector_size(4 * VL)));
typedef uint32_t vu __attribute__((vector_size(4 * VL)));

/* The instruction set on x86-64, checked at each call (a cached flag). */
#if defined(__x86_64__) && defined(WEST_SIMD512)
#define VEC __attribute__((target("avx512f")))
#define VEC_OK() __builtin_cpu_supports("avx512f")
#elif defined(__x86_64__)
#define VEC __attribute__((target("avx2")))
#define VEC_OK() __builtin_cpu_supports("avx2")
#else
#define VEC
#define VEC_OK() 1
#endif

/* Lane orders for __builtin_shufflevector: of two vectors a, b, the even
 * and the odd elements of a then b, lanes 0 .. VL - 1, and a and b
 * interleaved (a0 b0 a1 b1 ...: the first VL, then the rest). */
#if VL == 8
#define VL_EVENS 0, 2, 4, 6, 8, 10, 12, 14
#define VL_ODDS 1, 3, 5, 7, 9, 11, 13, 15
#define VL_IOTA 0, 1, 2, 3, 4, 5, 6, 7
#define VL_ZIP_LO 0, 8, 1, 9, 2, 10, 3, 11
#define VL_ZIP_HI 4, 12, 5, 13, 6, 14, 7, 15
#else
#define VL_EVENS 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define VL_ODDS 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#define VL_IOTA 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
#define VL_ZIP_LO 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23
#define VL_ZIP_HI 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31
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

/* VL bytes (the face codes or land flags of VL cells) as one integer,
 * lane q's in byte q; VBYTES_ONES has bit 0 of each byte set. */
#if VL == 8
typedef uint64_t vbytes;
#define VBYTES_ONES UINT64_C(0x0101010101010101)
#else
typedef unsigned __int128 vbytes;
#define VBYTES_ONES ((vbytes)UINT64_C(0x0101010101010101) << 64 | UINT64_C(0x0101010101010101))
#endif

INLINE vbytes loadb(const uint8_t *p)
{
	vbytes bytes;
	memcpy(&bytes, p, sizeof bytes);
	return bytes;
}

/* Lane q's byte in its low byte (callers mask the bytes above it, which
 * may be its neighbours').  On x86-64 one instruction zero-extends the
 * bytes; elsewhere words shifted by 8 (q mod 4), as compilers convert
 * bytes to lanes one by one (on x86-64 that took a dozen instructions,
 * and the colour pass 5 % longer: docs/benchmarks.md). */
INLINE vu lane_codes(vbytes bytes)
{
#if defined(__x86_64__) && VL == 8
	return (vu)_mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)bytes));
#elif defined(__x86_64__)
	__m128i b;
	memcpy(&b, &bytes, sizeof b);
	return (vu)_mm512_cvtepu8_epi32(b);
#else
	uint32_t w0 = (uint32_t)bytes, w1 = (uint32_t)(bytes >> 32);
#if VL == 8
	return (vu){ w0, w0, w0, w0, w1, w1, w1, w1 } >> (vu){ 0, 8, 16, 24, 0, 8, 16, 24 };
#else
	uint32_t w2 = (uint32_t)(bytes >> 64), w3 = (uint32_t)(bytes >> 96);
	return (vu){ w0, w0, w0, w0, w1, w1, w1, w1, w2, w2, w2, w2, w3, w3, w3, w3 } >>
	       (vu){ 0, 8, 16, 24, 0, 8, 16, 24, 0, 8, 16, 24, 0, 8, 16, 24 };
#endif
#endif
}

/* a where m is set (all bits of the lane), else b. */
INLINE vf vselect(vi m, vf a, vf b)
{
	return (vf)((m & (vi)a) | (~m & (vi)b));
}

#endif
