/*
 * plume_simd512.c: kernels/plume_simd.c built again with 8-lane vectors of
 * doubles for AVX-512 (WEST_SIMD512), its kernel named
 * west_plume_advance_simd512; west_plume_advance_simd calls it where the
 * processor has AVX-512F and DQ.  tests/test_plume.c compares both widths
 * with the reference.
 */
#define WEST_SIMD512
#include "plume_simd.c"
