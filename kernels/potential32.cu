/*
 * potential32.cu: kernels/potential.cu's colour pass, restriction,
 * prolongation, operator, field update and coarsest solve with 32-bit
 * indices (WEST_IX unsigned, kernel_util.h), as west_pot_*_cuda_ix32;
 * potential.cu's launchers call them for every level whose indices fit.
 * On the H100 the 64-bit index products were a large part of these
 * instruction-bound kernels (docs/benchmarks.md, issue 17).
 */
#define WEST_IX unsigned
#define WEST_POT_NARROW
#include "potential.cu"
