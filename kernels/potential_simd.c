/*
 * potential_simd.c: the CPU backend's right-hand side, field update,
 * colour pass (and the first from e = 0), operator, restriction and
 * prolongation of the potential form of step 8 (kernels.h), vectorized:
 * most of a multigrid V-cycle's work.  The references (potential.c,
 * divmin.c) stay the definition and are kept and compared
 * (tests/test_backends.c, tests/test_potential.c):
 * these give the same results bit for bit (the right-hand side's sum of
 * D^2 to OpenMP's order of its threads' partial sums, as the reference's).
 *
 * How.  A colour's cells of one row are contiguous in the per-colour
 * storage, and so are their neighbours of the other colour: the west and
 * east ones at offsets t - 1 + i0 and t + i0 of the other colour's row,
 * the others in the rows beside.  So VL cells at a time load their
 * neighbours with plain vector loads, and each lane evaluates the
 * reference's per-cell body (potential_util.h) in the same order: the
 * conductances from the face code (a cut cell's side faces times their
 * transparencies, every other lane's times 1, which keeps every bit),
 * sum = ((0 + G_W nb_W) + G_E nb_E) + ..., diag = ((G_W + G_E) + G_S) +
 * ..., then the update.  The transparencies come from level 0's cut
 * table, where a row's cut cells' lie one after the other, so a group
 * expands its cut lanes' from the next few entries (read from the grid's
 * tx and ty, lines rows apart that no prefetcher follows, they held R64's
 * pass on 2 cores to 1 / 1.16 of this speed: docs/benchmarks.md).
 * GCC's and clang's vector extensions do IEEE binary32 per lane, and with
 * -ffp-contract=off nothing is fused, so each lane gives the reference's
 * bits.  The reference's scalar body takes the
 * first and last cell of a row when it lies on the west or east boundary,
 * and rows shorter than a vector; a row's last group overlaps the one
 * before it.  Rows on the south, north, bottom or top boundary use zeros
 * for the missing neighbours, as the reference does.  The cell-wise
 * kernels (field update, right-hand side, prolongation) work on rows put
 * in i order first.
 *
 * On x86-64 the vector code is built for AVX2 and for AVX-512 and runs on
 * processors that have them (__builtin_cpu_supports; AVX-512 first);
 * others run the references, as does a level 0 without its cut table.
 * Elsewhere the vectors map to what the target has.  Rows run in
 * parallel as in the references, over the same rows (a view's own rows
 * where the reference takes only those: kernels.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#include "potential_util.h"
#include "simd.h"

/*
 * This file is built twice: as it is, with AVX2's 8 lanes (kernels named
 * *_simd), and by potential_simd512.c with AVX-512's 16 (WEST_SIMD512:
 * *_simd512; simd.h), the same lane-wise arithmetic, so the same bits.
 * The *_simd kernels call the *_simd512 ones where the processor has
 * AVX-512, unless west_pot_simd_width(256) said not to.
 */
#ifdef WEST_SIMD512
#define SIMD(name) name##_simd512
#define WIDE(call)
#else
#define SIMD(name) name##_simd
#define WIDE(call)                     \
	do {                           \
		if (wide_ok())         \
			return call;   \
	} while (0)

static int width = 512;   /* west_pot_simd_width */

void west_pot_simd_width(int bits)
{
	width = bits;
}

int west_pot_simd_bits(void)
{
	return width;
}

static int wide_ok(void)
{
#if defined(__x86_64__)
	return width >= 512 && __builtin_cpu_supports("avx512f");
#else
	return 0;
#endif
}
#endif

/* As potential.c: levels of fewer cells run on one thread. */
#define PAR_CELLS 32768
#define PAR(l) ((l)->nx * (l)->ny * (l)->nz >= PAR_CELLS)
/* As potential.c: a level's own rows, jlo <= j < ny - jhi (kernels.h). */
#define OWN(l) ((l)->ny - (l)->jlo - (l)->jhi)

/* The colour pass's chunk (schedule(static, chunk)) over rows r = j + n k
 * of n rows a plane: a thread's share of each plane, so that every
 * thread has its part of every plane, the terrain's cut cells (slower to
 * pass, in the lowest planes) included; the plain static schedule gave
 * the first thread the lowest planes (R16 on 2 cores: 1.65-1.89 G
 * cell-sweeps/s, 1.88-2.29 so; the same for smooth0 and matvec was
 * slower: docs/benchmarks.md). */
static long plane_share(size_t n)
{
	long nt = omp_get_max_threads();
	return ((long)n + nt - 1) / nt;
}

/* p[0], p[2], ..., p[2 VL - 2]; and p[1], p[3], ...: 2 VL floats read. */
INLINE vf vevens(const float *p)
{
	vf a = vload(p), b = vload(p + VL);
	return __builtin_shufflevector(a, b, VL_EVENS);
}

INLINE vf vodds(const float *p)
{
	vf a = vload(p), b = vload(p + VL);
	return __builtin_shufflevector(a, b, VL_ODDS);
}

/* west_pdiag's sum, lane by lane. */
INLINE vf west_pdiag_v(const vf g[6])
{
	return ((((g[0] + g[1]) + g[2]) + g[3]) + g[4]) + g[5];
}

/* One row (j, k) of colour c of level l, read from x (the colour's cells
 * and the other colour's): the offsets of its neighbours' rows. */
struct row {
	const struct west_plevel *l;
	size_t i0;
	size_t s0;            /* slot of the row's cell t = 0 */
	const float *o;       /* the other colour's row, cell t = 0 */
	/* the rows beside (S, N, B, T), or o itself where the domain ends,
	 * and all-ones masks, or 0 there (a neighbour beyond is 0) */
	const float *side[4];
	vi keep[4];
	vf kf[6];             /* level 0: a whole face's conductance at level k */
	size_t t_lo, t_hi;    /* cells t_lo <= t < t_hi have west and east neighbours */
	size_t n;             /* cells of the colour in the row */
	/* level 0: the cut table's entry (kernels.h, cutrow, tcut) of the
	 * first cut cell at or after cell ct of the row (row_conds) */
	size_t cn, ct;
};

INLINE void row_init(struct row *r, const struct west_plevel *l, const float *x, int c,
		     size_t j, size_t k)
{
	size_t row = l->hx * (j + l->ny * k);
	ptrdiff_t dy = (ptrdiff_t)l->hx, dz = (ptrdiff_t)(l->hx * l->ny);
	int has[4] = { j > 0, j + 1 < l->ny, k > 0, k + 1 < l->nz };
	ptrdiff_t off[4] = { -dy, dy, -dz, dz };

	r->l = l;
	r->i0 = (j + k + (size_t)c) & 1;
	r->n = (l->nx - r->i0 + 1) / 2;
	r->s0 = (size_t)c * l->ncol + row;
	r->o = x + (size_t)(1 - c) * l->ncol + row;
	for (int d = 0; d < 4; d++) {
		r->side[d] = has[d] ? r->o + off[d] : r->o;
		for (int q = 0; q < VL; q++)
			r->keep[d][q] = has[d] ? -1 : 0;
	}
	r->cn = l->code ? l->cutrow[r->s0 / l->hx] : 0, r->ct = 0;
	if (l->code)
		for (int f = 0; f < 6; f++)
			r->kf[f] = vsplat(l->kf[6 * k + (size_t)f]);
	r->t_lo = r->i0 == 0;                                   /* i = 0: no west cell */
	r->t_hi = r->n > 0 && 2 * (r->n - 1) + r->i0 + 1 == l->nx ? r->n - 1 : r->n;
	if (r->t_hi < r->t_lo)
		r->t_hi = r->t_lo;
}

/* The kernels below run on level l: no face codes, or codes and their cut
 * table (else the references run). */
static int has_table(const struct west_plevel *l)
{
	return !l->code || l->cutrow;
}

/* Some lane of the codes' bytes (loadb) is a cut cell's. */
INLINE int any_cut(vbytes bytes)
{
	return (bytes & (VBYTES_ONES << WEST_PF_CUT)) != 0;
}

/* Bit q set when lane q's code is a cut cell's. */
INLINE unsigned cut_bits(vu code)
{
#if defined(__x86_64__) && VL == 16
	return _mm512_test_epi32_mask((__m512i)code, _mm512_set1_epi32(1 << WEST_PF_CUT));
#elif defined(__x86_64__)
	return (unsigned)_mm256_movemask_ps((__m256)(code << (31 - WEST_PF_CUT)));
#else
	unsigned m = 0;
	for (int q = 0; q < VL; q++)
		m |= (code[q] >> WEST_PF_CUT & 1) << q;
	return m;
#endif
}

/* The lanes of bits (cut_bits) take p[0], p[1], ... in lane order, the
 * others 1. */
INLINE vf cut_lanes(const float *p, unsigned bits)
{
#if defined(__x86_64__) && VL == 16
	return (vf)_mm512_mask_expandloadu_ps(_mm512_set1_ps(1.0f), (__mmask16)bits, p);
#else
	vf m = vsplat(1.0f);
	for (int n = 0; bits; bits &= bits - 1)
		m[__builtin_ctz(bits)] = p[n++];
	return m;
#endif
}

/*
 * Cells t .. t + VL - 1 of row r: the sums and diagonals of the reference's
 * west_pcell.  A cut cell's side conductances are multiplied by their
 * faces' transparencies as west_pcut does, every other lane's by 1 (which
 * keeps every bit).  The transparencies come from the cut table, whose
 * entries for the row's cut cells lie in the order of the cells: the
 * group's are the next ones from r->cn, counted from cell r->ct (the end
 * of the last group; a group overlapping the one before it, or starting
 * after the reference's first cell, counts back or on first).
 */
INLINE void row_conds(struct row *r, size_t t, vf g[6])
{
	const struct west_plevel *l = r->l;
	size_t s = r->s0 + t;

	if (l->code) {
		vbytes bytes = loadb(l->code + s);
		vu code = lane_codes(bytes);
		WEST_UNROLL6
		for (int f = 0; f < 6; f++)   /* bit f to every bit of the lane */
			g[f] = (vf)(((vi)(code << (31 - f)) >> 31) & (vi)r->kf[f]);
		if (r->ct != t) {
			const unsigned char *cr = l->code + r->s0;
			for (; r->ct < t; r->ct++)
				r->cn += cr[r->ct] >> WEST_PF_CUT & 1;
			while (r->ct > t)
				r->cn -= cr[--r->ct] >> WEST_PF_CUT & 1;
		}
		if (any_cut(bytes)) {
			unsigned bits = cut_bits(code);
			const float *p = l->tcut + r->cn;
			_Pragma("GCC unroll 4")
			for (int f = 0; f < 4; f++)
				g[f] *= cut_lanes(p + (size_t)f * l->cutstride, bits);
			r->cn += (size_t)__builtin_popcount(bits);
		}
		r->ct = t + VL;
	} else {
		WEST_UNROLL6
		for (int f = 0; f < 6; f++)
			g[f] = vload(l->g + (size_t)f * 2 * l->ncol + s);
	}
}

INLINE void row_sums(struct row *r, size_t t, vf *sum, vf *diag)
{
	vf g[6], nb[6], zero = vsplat(0.0f);

	row_conds(r, t, g);
	nb[WEST_PF_W] = vload(r->o + t + r->i0 - 1);
	nb[WEST_PF_E] = vload(r->o + t + r->i0);
	_Pragma("GCC unroll 4")
	for (int d = 0; d < 4; d++)   /* S, N, B, T */
		nb[WEST_PF_S + d] = (vf)((vi)vload(r->side[d] + t) & r->keep[d]);

	vf acc = zero;
	WEST_UNROLL6
	for (int f = 0; f < 6; f++)
		acc += g[f] * nb[f];
	*sum = acc;
	*diag = west_pdiag_v(g);
}

/*
 * The group of VL cells that takes cell t of row r (t_lo <= t < t_hi): the
 * one starting at t, or at the end of the row's range (t_hi - VL, its
 * lanes below t already done in this pass) when fewer than VL cells are
 * left; NONE when the whole range is shorter than VL.
 */
#define NONE ((size_t)-1)
INLINE size_t row_group(const struct row *r, size_t t)
{
	if (t + VL <= r->t_hi)
		return t;
	return r->t_hi - r->t_lo >= VL ? r->t_hi - VL : NONE;
}

VEC static void smooth_row(const struct west_plevel *l, float omega, int c, size_t j,
			      size_t k)
{
	struct row r;
	size_t t = 0;
	vf om = vsplat(omega), zero = vsplat(0.0f);
	const vi lane = { VL_IOTA };

	row_init(&r, l, l->e, c, j, k);
	for (; t < r.t_lo && t < r.n; t++)
		west_psmooth_at(l, omega, c, t, j, k);
	for (size_t g; t < r.t_hi && (g = row_group(&r, t)) != NONE; t = g + VL) {
		vf sum, diag;
		vi done = lane < (vi){ 0 } + (int32_t)(t - g);   /* updated already: keep */
		row_sums(&r, g, &sum, &diag);
		float *e = l->e + r.s0 + g;
		vf ev = vload(e), bv = vload(l->b + r.s0 + g);
		vf upd = ev + om * (bv + sum - diag * ev) / diag;
		vstore(e, vselect((diag == zero) | done, ev, upd));
	}
	for (; t < r.n; t++)
		west_psmooth_at(l, omega, c, t, j, k);
}

enum west_status SIMD(west_pot_smooth)(const struct west_plevel *l, float omega, int colour)
{
	size_t own = OWN(l);
	long rows = (long)(own * l->nz);

	WIDE(west_pot_smooth_simd512(l, omega, colour));
	if (!VEC_OK() || !has_table(l))
		return west_pot_smooth_cpu(l, omega, colour);

	#pragma omp parallel for schedule(static, plane_share(own)) if (PAR(l))
	for (long r = 0; r < rows; r++)
		smooth_row(l, omega, colour, l->jlo + (size_t)r % own, (size_t)r / own);
	return WEST_OK;
}

/* Row (j, k) of west_pot_smooth0_cpu: colour c's cells from e = 0 where
 * the row is l's own, and 0 in every other slot of the row's two colours.
 * No cell reads a neighbour, so groups of VL go from the row's first cell
 * up to t_hi (a cut cell's group reads the faces one past its last cell),
 * the last group overlapping the one before (the same values again); the
 * reference's body takes the cells after. */
VEC static void smooth0_row(const struct west_plevel *l, float omega, int c, size_t j,
			    size_t k)
{
	struct row r;
	size_t t = 0;
	vf om = vsplat(omega), zero = vsplat(0.0f);
	float *e;

	row_init(&r, l, l->e, c, j, k);
	e = l->e + r.s0;
	if (j >= l->jlo && j < l->ny - l->jhi) {
		if (r.t_hi >= VL)
			for (size_t g = 0; t < r.t_hi; t = g + VL) {
				vf gs[6], diag, b;
				g = t + VL <= r.t_hi ? t : r.t_hi - VL;
				row_conds(&r, g, gs);
				diag = west_pdiag_v(gs);
				b = vload(l->b + r.s0 + g);
				vstore(e + g, vselect(diag == zero, zero,
						      zero + om * (b + zero - diag * zero) / diag));
			}
		for (; t < r.n; t++)
			e[t] = west_psmooth0_at(l, omega, c, t, j, k);
	}
	memset(e + t, 0, (l->hx - t) * sizeof *e);
	memset(l->e + (size_t)(1 - c) * l->ncol + (r.s0 - (size_t)c * l->ncol), 0,
	       l->hx * sizeof *e);
}

enum west_status SIMD(west_pot_smooth0)(const struct west_plevel *l, float omega, int colour)
{
	long rows = (long)(l->ny * l->nz);

	WIDE(west_pot_smooth0_simd512(l, omega, colour));
	if (!VEC_OK() || !has_table(l))
		return west_pot_smooth0_cpu(l, omega, colour);

	#pragma omp parallel for schedule(static) if (PAR(l))
	for (long r = 0; r < rows; r++)
		smooth0_row(l, omega, colour, (size_t)r % l->ny, (size_t)r / l->ny);
	return WEST_OK;
}

/* y = A x on the cells of colour c in row (j, k). */
VEC static void matvec_row(const struct west_plevel *l, const float *x, float *y, int c,
			      size_t j, size_t k)
{
	struct row r;
	size_t t = 0;

	row_init(&r, l, x, c, j, k);
	for (; t < r.t_lo && t < r.n; t++)
		west_pmatvec_at(l, x, y, 2 * t + r.i0, j, k);
	for (size_t g; t < r.t_hi && (g = row_group(&r, t)) != NONE; t = g + VL) {
		vf sum, diag;   /* lanes done already get the same again */
		row_sums(&r, g, &sum, &diag);
		vstore(y + r.s0 + g, diag * vload(x + r.s0 + g) - sum);
	}
	for (; t < r.n; t++)
		west_pmatvec_at(l, x, y, 2 * t + r.i0, j, k);
}

enum west_status SIMD(west_pot_matvec)(const struct west_plevel *l, const float *x, float *y)
{
	size_t own = OWN(l);
	long rows = (long)(own * l->nz);

	WIDE(west_pot_matvec_simd512(l, x, y));
	if (!VEC_OK() || !has_table(l))
		return west_pot_matvec_cpu(l, x, y);

	#pragma omp parallel for schedule(static) if (PAR(l))
	for (long r = 0; r < rows; r++)
		for (int c = 0; c < 2; c++)
			matvec_row(l, x, y, c, l->jlo + (size_t)r % own, (size_t)r / own);
	return WEST_OK;
}

/* res[i] = (b - A e) of cell (i, j, k), for every i of row (j, k). */
VEC static void resid_row(const struct west_plevel *l, size_t j, size_t k, float *res)
{
	for (int c = 0; c < 2; c++) {
		struct row r;
		size_t t = 0;
		row_init(&r, l, l->e, c, j, k);
		for (; t < r.t_lo && t < r.n; t++)
			res[2 * t + r.i0] = west_presid_at(l, 2 * t + r.i0, j, k);
		for (size_t g; t < r.t_hi && (g = row_group(&r, t)) != NONE; t = g + VL) {
			vf sum, diag, v;
			row_sums(&r, g, &sum, &diag);
			v = vload(l->b + r.s0 + g) + sum - diag * vload(l->e + r.s0 + g);
			for (int q = 0; q < VL; q++)
				res[2 * (g + (size_t)q) + r.i0] = v[q];
		}
		for (; t < r.n; t++)
			res[2 * t + r.i0] = west_presid_at(l, 2 * t + r.i0, j, k);
	}
}

/*
 * The coarse row (cj, ck)'s right-hand sides: the fine residuals of the
 * up to fy * fz fine rows it covers, computed a row at a time into res
 * (fy * fz * nx floats), then summed per coarse cell in the reference's
 * order (i, then j, then k: west_prestrict_at).
 */
VEC static void restrict_row(const struct west_plevel *f, const struct west_plevel *c, size_t cj,
			 size_t ck, float *res)
{
	size_t j0 = cj * f->fy, k0 = ck * f->fz;
	size_t nj = (j0 + f->fy < f->ny ? j0 + f->fy : f->ny) - j0;
	size_t nk = (k0 + f->fz < f->nz ? k0 + f->fz : f->nz) - k0;

	for (size_t kk = 0; kk < nk; kk++)
		for (size_t jj = 0; jj < nj; jj++)
			resid_row(f, j0 + jj, k0 + kk, res + (kk * nj + jj) * f->nx);
	size_t ci = 0;
	/* VL coarse cells at a time whose fine cells all exist: lane q sums
	 * its fine residuals in the same order (the even and odd fine cells of
	 * each fine row when fx = 2) */
	for (; (ci + VL) * f->fx <= f->nx; ci += VL) {
		vf r = vsplat(0.0f);
		for (size_t kk = 0; kk < nk; kk++)
			for (size_t jj = 0; jj < nj; jj++) {
				const float *p = res + (kk * nj + jj) * f->nx + ci * f->fx;
				if (f->fx == 2) {
					r += vevens(p);
					r += vodds(p);
				} else {
					r += vload(p);
				}
			}
		for (int q = 0; q < VL; q++)
			c->b[west_pslot(c, ci + (size_t)q, cj, ck)] = r[q];
	}
	for (; ci < c->nx; ci++) {
		size_t i0 = ci * f->fx, i1 = i0 + f->fx < f->nx ? i0 + f->fx : f->nx;
		float r = 0.0f;
		for (size_t kk = 0; kk < nk; kk++)
			for (size_t jj = 0; jj < nj; jj++)
				for (size_t i = i0; i < i1; i++)
					r += res[(kk * nj + jj) * f->nx + i];
		c->b[west_pslot(c, ci, cj, ck)] = r;
	}
}

enum west_status SIMD(west_pot_restrict)(const struct west_plevel *fine,
					const struct west_plevel *coarse)
{
	size_t own = OWN(coarse);
	long rows = (long)(own * coarse->nz);

	WIDE(west_pot_restrict_simd512(fine, coarse));
	if (!VEC_OK() || !has_table(fine))
		return west_pot_restrict_cpu(fine, coarse);

	#pragma omp parallel if (PAR(fine))
	{
		float *res = malloc(4 * fine->nx * sizeof *res);   /* fy * fz <= 4 rows */
		#pragma omp for schedule(static)
		for (long r = 0; r < rows; r++) {
			size_t cj = coarse->jlo + (size_t)r % own, ck = (size_t)r / own;
			if (res)
				restrict_row(fine, coarse, cj, ck, res);
			else   /* no memory for the rows: the reference, which needs none */
				for (size_t ci = 0; ci < coarse->nx; ci++)
					west_prestrict_at(fine, coarse, ci, cj, ck);
		}
		free(res);
	}
	return WEST_OK;
}

/*
 * Fine row (j, k): every open cell e += its coarse cell's e.  The coarse
 * row's e in i order first (its cells alternate between the two colours'
 * arrays), then the fine cells of each colour: with fx = 2 cell t's coarse
 * cell is t, a vector load; with fx = 1 it is 2 t + i0, gathered lane by
 * lane.  The open test is west_popen's (a face code, or six conductances).
 */
VEC static void prolong_row(const struct west_plevel *c, const struct west_plevel *f,
			       size_t j, size_t k, float *cbuf)
{
	size_t cj = j >> (f->fy >> 1), ck = k >> (f->fz >> 1);
	vf zero = vsplat(0.0f);

	for (size_t ci = 0; ci < c->nx; ci++)
		cbuf[ci] = c->e[west_pslot(c, ci, cj, ck)];
	for (int col = 0; col < 2; col++) {
		size_t i0 = (j + k + (size_t)col) & 1, n = (f->nx - i0 + 1) / 2, t = 0;
		size_t s0 = (size_t)col * f->ncol + f->hx * (j + f->ny * k);
		for (; t + VL <= n; t += VL) {
			size_t s = s0 + t;
			vf p, ev = vload(f->e + s);
			vi open;
			if (f->fx == 2)
				p = vload(cbuf + t);
			else
				for (int q = 0; q < VL; q++)
					p[q] = cbuf[2 * (t + (size_t)q) + i0];
			if (f->code) {
				open = (vi)(lane_codes(loadb(f->code + s)) & 0xffu) != 0;
			} else {
				open = vload(f->g + s) != zero;
				for (int g = 1; g < 6; g++)
					open |= vload(f->g + (size_t)g * 2 * f->ncol + s) != zero;
			}
			vstore(f->e + s, vselect(open, ev + p, ev));
		}
		for (; t < n; t++)
			west_pprolong_at(c, f, 2 * t + i0, j, k);
	}
}

enum west_status SIMD(west_pot_prolong)(const struct west_plevel *coarse,
				       const struct west_plevel *fine)
{
	long rows = (long)(fine->ny * fine->nz);

	WIDE(west_pot_prolong_simd512(coarse, fine));
	if (!VEC_OK())
		return west_pot_prolong_cpu(coarse, fine);

	#pragma omp parallel if (PAR(fine))
	{
		float *cbuf = malloc(coarse->nx * sizeof *cbuf);
		#pragma omp for schedule(static)
		for (long r = 0; r < rows; r++) {
			size_t j = (size_t)r % fine->ny, k = (size_t)r / fine->ny;
			if (cbuf)
				prolong_row(coarse, fine, j, k, cbuf);
			else   /* no memory for the row: the reference, which needs none */
				for (size_t i = 0; i < fine->nx; i++)
					west_pprolong_at(coarse, fine, i, j, k);
		}
		free(cbuf);
	}
	return WEST_OK;
}

/* Row (j, k) of level-0 vector x in i order into xr[1 .. nx], xr[0] = 0
 * (the west of cell 0); its cells alternate between the colours' arrays. */
VEC static void natural_row(const struct west_plevel *l, const float *x, size_t j, size_t k,
			    float *xr)
{
	size_t row = l->hx * (j + l->ny * k), c0 = (j + k) & 1;
	const float *even = x + c0 * l->ncol + row, *odd = x + (1 - c0) * l->ncol + row;

	size_t i = 0;

	xr[0] = 0.0f;
	for (; i + 2 * VL <= l->nx; i += 2 * VL) {
		vf a = vload(even + i / 2), b = vload(odd + i / 2);
		vstore(xr + 1 + i, __builtin_shufflevector(a, b, VL_ZIP_LO));
		vstore(xr + 1 + i + VL, __builtin_shufflevector(a, b, VL_ZIP_HI));
	}
	for (; i < l->nx; i++)
		xr[1 + i] = (i & 1 ? odd : even)[i >> 1];
}

/* The same for the face codes, into cr[0 .. nx - 1]. */
VEC static void natural_codes(const struct west_plevel *l, size_t j, size_t k, uint8_t *cr)
{
	size_t row = l->hx * (j + l->ny * k), c0 = (j + k) & 1;
	const uint8_t *even = l->code + c0 * l->ncol + row, *odd = l->code + (1 - c0) * l->ncol + row;

	for (size_t i = 0; i < l->nx; i++)
		cr[i] = (i & 1 ? odd : even)[i >> 1];
}

/*
 * u += alpha T grad x on row (j, k): west_papply_at's faces and arithmetic,
 * VL cells at a time in i order from rows of x and of the codes put in i
 * order first (buf: 3 (nx + 1) floats and nx + VL bytes).  A row on the
 * north or top boundary (it moves boundary faces too), the last cell of
 * each row (its east face) and the cells after the last whole group take
 * the scalar body.
 */
VEC static void apply_row(const struct west_kgrid *g, const struct west_plevel *l0,
			  const struct west_sor *o, float alpha, const float *x, float *u,
			  float *v, float *w, size_t j, size_t k, float *buf)
{
	size_t nx = g->nx, ny = g->ny, i = 0;
	float *xr = buf, *xs = buf + nx + 1, *xb = buf + 2 * (nx + 1);
	uint8_t *cr = (uint8_t *)(buf + 3 * (nx + 1));

	if (j + 1 < ny && k + 1 < g->nz) {
		vf mx = vsplat(alpha * o->rdx), my = vsplat(alpha * o->rdy);
		vf mz = vsplat(alpha * o->eta * g->rdzf[k]);
		float *ur = u + west_kx(nx, ny, 0, j, k), *vr = v + west_ky(nx, ny, 0, j, k);
		float *wr = w + west_kc(nx, ny, 0, j, k);
		const float *txr = l0->tx + west_kx(nx, ny, 0, j, k);
		const float *tyr = l0->ty + west_ky(nx, ny, 0, j, k);

		natural_row(l0, x, j, k, xr);
		if (j > 0)
			natural_row(l0, x, j - 1, k, xs);
		else
			memset(xs, 0, (nx + 1) * sizeof *xs);   /* 0 beyond the boundary */
		if (k > 0)
			natural_row(l0, x, j, k - 1, xb);
		natural_codes(l0, j, k, cr);
		for (; i + VL < nx; i += VL) {   /* the last cell is left */
			vbytes bytes = loadb(cr + i);
			vu code = lane_codes(bytes);
			vi bw = (vi)(code << (31 - WEST_PF_W)) >> 31;
			vi bs = (vi)(code << (31 - WEST_PF_S)) >> 31;
			vf xc = vload(xr + 1 + i), m_w = mx, m_s = my, f;
			if (any_cut(bytes)) {
				vi cut = (vi)(code << (31 - WEST_PF_CUT)) >> 31;
				m_w = vselect(cut, mx * vload(txr + i), mx);
				m_s = vselect(cut, my * vload(tyr + i), my);
			}
			f = vload(ur + i);
			vstore(ur + i, vselect(bw, f + m_w * (xc - vload(xr + i)), f));
			f = vload(vr + i);
			vstore(vr + i, vselect(bs, f + m_s * (xc - vload(xs + 1 + i)), f));
			if (k > 0) {
				vi bb = (vi)(code << (31 - WEST_PF_B)) >> 31;
				f = vload(wr + i);
				vstore(wr + i, vselect(bb, f + mz * (xc - vload(xb + 1 + i)), f));
			}
		}
	}
	for (; i < nx; i++)
		west_papply_at(g, l0, o, alpha, x, u, v, w, i, j, k);
}

enum west_status SIMD(west_pot_apply)(const struct west_kgrid *g,
				     const struct west_plevel *l0, float eta,
				     float alpha, const float *x, float *u,
				     float *v, float *w)
{
	const struct west_sor o = west_sor_init(g, 1.0f, eta);
	long rows = (long)(g->ny * g->nz);

	WIDE(west_pot_apply_simd512(g, l0, eta, alpha, x, u, v, w));
	if (!VEC_OK())
		return west_pot_apply_cpu(g, l0, eta, alpha, x, u, v, w);

	#pragma omp parallel
	{
		float *buf = malloc(3 * (g->nx + 1) * sizeof *buf + g->nx + VL);
		#pragma omp for schedule(static)
		for (long r = 0; r < rows; r++) {
			size_t j = (size_t)r % g->ny, k = (size_t)r / g->ny;
			if (buf)
				apply_row(g, l0, &o, alpha, x, u, v, w, j, k, buf);
			else   /* no memory for the rows: the reference, which needs none */
				for (size_t i = 0; i < g->nx; i++)
					west_papply_at(g, l0, &o, alpha, x, u, v, w, i, j, k);
		}
		free(buf);
	}
	return WEST_OK;
}

/*
 * Row (j, k) of the potential solvers' right-hand side and the divergence
 * norms (divmin.c's norms_rhs with level 0): D of VL cells at a time in i
 * order (west_cell_div's arithmetic), then per cell in i order b = vol D
 * on open cells (0 elsewhere) and, on fluid cells, the sum of D^2 in
 * double in the reference's order (a land cell adds 0, which changes no
 * sum); max |D| by vectors (the order of a max does not matter).
 */
VEC static void rhs_row(const struct west_kgrid *g, const struct west_plevel *l0,
			const struct west_sor *o, const float *u, const float *v,
			const float *w, size_t j, size_t k, double *mx, double *sum)
{
	size_t nx = g->nx, ny = g->ny, i = 0, row = l0->hx * (j + l0->ny * k);
	size_t c0 = (j + k) & 1, se = c0 * l0->ncol + row, so = (1 - c0) * l0->ncol + row;
	const float *ur = u + west_kx(nx, ny, 0, j, k), *vr = v + west_ky(nx, ny, 0, j, k);
	const float *wr = w + west_kc(nx, ny, 0, j, k);
	const unsigned char *land = g->land + west_kc(nx, ny, 0, j, k);
	vf rdx = vsplat(o->rdx), rdy = vsplat(o->rdy), rdz = vsplat(g->rdz[k]);
	vf vmax = vsplat(0.0f);
	float vol = l0->vol[k];

	for (; i + VL <= nx; i += VL) {
		vf d = (vload(ur + i + 1) - vload(ur + i)) * rdx +
		       (vload(vr + i + nx) - vload(vr + i)) * rdy +
		       (vload(wr + i + nx * ny) - vload(wr + i)) * rdz;
		vu lb = lane_codes(loadb(land + i)) & 0xffu;
		vf dz = (vf)((vi)d & (vi)(lb == 0));   /* land: 0, adding nothing */
		vf ad = (vf)((vi)dz & 0x7fffffff);      /* |D| */
		vmax = vselect(ad > vmax, ad, vmax);    /* fmax's: a NaN is passed over */
		for (int q = 0; q < VL; q++) {
			size_t c = i + (size_t)q, s = (c & 1 ? so : se) + (c >> 1);
			double dd = dz[q];
			l0->b[s] = l0->code[s] ? vol * d[q] : 0.0f;
			*sum += dd * dd;
		}
	}
	for (int q = 0; q < VL; q++)   /* a float's max is its double's */
		*mx = fmax(*mx, (double)vmax[q]);
	for (; i < nx; i++) {
		int fluid;
		double dd = west_pdiv_at(g, l0, o, u, v, w, i, j, k, &fluid);
		if (fluid) {
			*mx = fmax(*mx, fabs(dd));
			*sum += dd * dd;
		}
	}
}

enum west_status SIMD(west_pot_rhs)(const struct west_kgrid *g,
				   const struct west_plevel *l0, const float *u,
				   const float *v, const float *w, double *norms)
{
	const struct west_sor o = west_sor_init(g, 1.0f, 1.0f);
	size_t own = g->ny - g->jlo - g->jhi;   /* g's own rows (kernels.h) */
	long rows = (long)(own * g->nz);
	double mx = 0.0, sum = 0.0;

	WIDE(west_pot_rhs_simd512(g, l0, u, v, w, norms));
	if (!VEC_OK())
		return west_pot_rhs_cpu(g, l0, u, v, w, norms);

	#pragma omp parallel for schedule(static) reduction(max:mx) reduction(+:sum)
	for (long r = 0; r < rows; r++)
		rhs_row(g, l0, &o, u, v, w, g->jlo + (size_t)r % own, (size_t)r / own, &mx,
			&sum);
	norms[0] = mx;
	norms[1] = sum;
	return WEST_OK;
}
