/*
 * potential_simd512.c: kernels/potential_simd.c built again with 16-lane
 * vectors for AVX-512 (simd.h), its kernels named *_simd512.  The *_simd
 * kernels call these where the processor has AVX-512 (kernels.h,
 * west_pot_simd_width); tests/test_potential.c compares both widths with
 * the references.
 */
#define WEST_SIMD512
#include "potential_simd.c"
