/*
 * plume_simd.c: the release plumes' kernel (kernels.h, plume_advance) on
 * the CPU with a particle in each lane of a vector of doubles: AVX2's 4
 * lanes (west_plume_advance_simd) or, built again by plume_simd512.c,
 * AVX-512's 8 (west_plume_advance_simd512, which the first calls where the
 * processor has AVX-512F and DQ and west_pot_simd_width did not say 256).
 * It must match kernels/plume.c (west_plume_advance_cpu), as
 * kernels/plume.cu does: every lane computes plume_util.h's and
 * wind_util.h's expressions in their order (contraction off), so that the
 * only differences are the last bits of the vector library's log, sin,
 * cos, exp, expm1, pow and cbrt (glibc's libmvec, within 4 ulp, where
 * libm's are within 1), as on the GPU; tests/test_plume.c compares them
 * particle by particle.  Where the build has no libmvec or the processor
 * no AVX2, the reference runs.
 *
 * How the lanes stay busy: each thread takes particles from a shared
 * counter 64 at a time (PLUME_TAKE) and keeps its lanes full, a lane
 * that ends its particle (its time at t_end or later, or out of the
 * domain) taking the next at once, so the lanes of a vector need not
 * take the same number of steps.  A lane
 * begins and ends its particle with plume_util.h's own scalar code
 * (release or reload, the sampling of its runs, the store); the steps in
 * between are west_plume_step's, a vector of particles at a time.  The
 * accumulators are integers added atomically and the centroid's an
 * integer reduction, so the result is the same on any number of threads
 * in any order.  A lane without a particle holds particle 0's state at
 * its release (a place in the domain) and is stepped with the others, its
 * results dropped: as a profile's branches are taken only where an active
 * lane needs them, its values may be anything, NaN included, so every
 * index is made NaN-safe (a NaN clamps to the first position).
 */
#include <stdint.h>
#include <string.h>

#include "plume_util.h"

#if defined(__x86_64__) && defined(WEST_HAVE_MVEC)
#include <immintrin.h>

/* The processor has what the AVX-512 build uses. */
#define POK512() (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"))

#ifdef WEST_SIMD512
#define PW 8
#define PTARGET "avx512f,avx512dq"
#define PNAME(n) n##_simd512
#define MV(f) _ZGVeN8v_##f
#define MV2(f) _ZGVeN8vv_##f
#define PM(f) _mm512_##f
#define PMD __m512d
#define PMI __m512i
#define POK() POK512()
#else
#define PW 4
#define PTARGET "avx2"
#define PNAME(n) n##_simd
#define MV(f) _ZGVdN4v_##f
#define MV2(f) _ZGVdN4vv_##f
#define PM(f) _mm256_##f
#define PMD __m256d
#define PMI __m256i
#define POK() __builtin_cpu_supports("avx2")
#endif
#define PV static inline __attribute__((always_inline, target(PTARGET)))

typedef double vd __attribute__((vector_size(8 * PW)));
typedef int64_t vl __attribute__((vector_size(8 * PW)));
typedef uint64_t vu __attribute__((vector_size(8 * PW)));
typedef float vf __attribute__((vector_size(4 * PW)));

/* glibc's vector math (libmvec), by the x86-64 vector function ABI's
 * names, for the width's registers. */
#define MVDECL __attribute__((target(PTARGET))) vd
MVDECL MV(log)(vd);
MVDECL MV(exp)(vd);
MVDECL MV(expm1)(vd);
MVDECL MV(cbrt)(vd);
MVDECL MV(sin)(vd);
MVDECL MV(cos)(vd);
MVDECL MV2(pow)(vd, vd);

/* ------------------------------------------------------------ helpers */

PV vd vsp(double x)
{
	return x - (vd){ 0 };
}

PV vl vspl(int64_t x)
{
	return x - (vl){ 0 };
}

/* a where m (all bits of the lane), else b. */
PV vd vsel(vl m, vd a, vd b)
{
#ifdef WEST_SIMD512
	return (vd)_mm512_mask_blend_pd(_mm512_movepi64_mask((__m512i)m), (__m512d)b, (__m512d)a);
#else
	return (vd)_mm256_blendv_pd((__m256d)b, (__m256d)a, (__m256d)m);
#endif
}

PV vl vsell(vl m, vl a, vl b)
{
	return (m & a) | (~m & b);
}

/* west_dmin, west_dmax lane by lane (the same choice when one is NaN):
 * the instructions' own, a < b ? a : b and a > b ? a : b. */
PV vd vmin(vd a, vd b)
{
	return (vd)PM(min_pd)((PMD)a, (PMD)b);
}

PV vd vmax(vd a, vd b)
{
	return (vd)PM(max_pd)((PMD)a, (PMD)b);
}

PV vd vfabs(vd a)
{
	return (vd)((vl)a & vspl(INT64_MAX));
}

PV vd vsqrt(vd a)
{
	return (vd)PM(sqrt_pd)((PMD)a);
}

PV vd vfloor(vd a)
{
	return (vd)PM(floor_pd)((PMD)a);
}

PV int vany(vl m)
{
#ifdef WEST_SIMD512
	return _mm512_test_epi64_mask((__m512i)m, (__m512i)m) != 0;
#else
	return _mm256_movemask_pd((__m256d)m) != 0;
#endif
}

/* Conversions of grid indices: truncation toward 0 (the C casts'), and
 * back; with AVX2, which has no 64-bit conversions, through 32 bits: every
 * index converted and used is far below 2^31 (lanes out of that range are
 * never chosen: vwhere_at, vlevel_index). */
PV vl vtrunc(vd a)
{
#ifdef WEST_SIMD512
	return __builtin_convertvector(a, vl);
#else
	return (vl)_mm256_cvtepi32_epi64(_mm256_cvttpd_epi32((__m256d)a));
#endif
}

/* A time in ticks (west_plume_fix: non-negative, below 2^52) to an
 * integer, truncated: exactly, through 2^52's exponent. */
PV vl vticks(vd a)
{
#ifdef WEST_SIMD512
	return __builtin_convertvector(a, vl);
#else
	vd t = (vd)_mm256_round_pd((__m256d)a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
	return (vl)(t + 0x1p52) - (vl)vsp(0x1p52);
#endif
}

PV vd vdbl(vl a)
{
#ifdef WEST_SIMD512
	return __builtin_convertvector(a, vd);
#else
	__m256i lo = _mm256_permutevar8x32_epi32((__m256i)a, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
	return (vd)_mm256_cvtepi32_pd(_mm256_castsi256_si128(lo));
#endif
}

/* Gathers of floats and doubles, as doubles. */
PV vd vgetf(const float *p, vl i)
{
#ifdef WEST_SIMD512
	return (vd)_mm512_cvtps_pd(_mm512_i64gather_ps((__m512i)i, p, 4));
#else
	return (vd)_mm256_cvtps_pd(_mm256_i64gather_ps(p, (__m256i)i, 4));
#endif
}

/* Floats i and i + 1 of p as doubles in the lanes m, one gather of 8
 * bytes a lane (the other lanes keep *lo and *hi, and read nothing). */
PV void vgetf2m(const float *p, vl i, vl m, vd *lo, vd *hi)
{
#ifdef WEST_SIMD512
	__m512i q = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(),
						_mm512_movepi64_mask((__m512i)m), (__m512i)i,
						(const void *)p, 4);
	vd l = (vd)_mm512_cvtps_pd(_mm256_castsi256_ps(_mm512_cvtepi64_epi32(q)));
	vd h = (vd)_mm512_cvtps_pd(_mm256_castsi256_ps(_mm512_cvtepi64_epi32(_mm512_srli_epi64(q, 32))));
#else
	__m256i q = _mm256_mask_i64gather_epi64(_mm256_setzero_si256(),
						(const long long *)(const void *)p, (__m256i)i,
						(__m256i)m, 4);
	__m256i e = _mm256_permutevar8x32_epi32(q, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
	vd l = (vd)_mm256_cvtps_pd(_mm_castsi128_ps(_mm256_castsi256_si128(e)));
	vd h = (vd)_mm256_cvtps_pd(_mm_castsi128_ps(_mm256_extracti128_si256(e, 1)));
#endif
	*lo = vsel(m, l, *lo);
	*hi = vsel(m, h, *hi);
}

PV vd vgetd(const double *p, vl i)
{
#ifdef WEST_SIMD512
	return (vd)_mm512_i64gather_pd((__m512i)i, p, 8);
#else
	return (vd)_mm256_i64gather_pd(p, (__m256i)i, 8);
#endif
}

/* ------------------------------------------------ turbulence profiles */

struct vprof {
	vd s2[3], ds2[3], tl[3];
};

/* west_plume_neutral, lane by lane. */
PV void vneutral(vd us, vd z, struct vprof *o)
{
	const double f = WEST_PLUME_FCOR;
	vd e = MV(exp)(-2.0 * f * z / us);
	vd sw = 1.3 * us * e;
	vd tl = 0.5 * z / sw / (1.0 + 15.0 * f * z / us);

	o->s2[0] = 4.0 * us * us * e * e * e;
	o->s2[1] = o->s2[2] = sw * sw;
	o->ds2[0] = -6.0 * f / us * o->s2[0];
	o->ds2[1] = o->ds2[2] = -4.0 * f / us * o->s2[2];
	o->tl[0] = o->tl[1] = o->tl[2] = tl;
}

/* west_plume_unstable, lane by lane: each branch where an active lane
 * (act) takes it, then every lane's own. */
PV void vunstable(vd us, vd ws, vd inv_l, vd h, vd z, vl act, struct vprof *o)
{
	vd al = -inv_l, zeta = z / h, s = 3.0 * zeta + 1.0 / (h * al);
	vd su = us * MV(cbrt)(12.0 + 0.5 * h * al), sw = vsp(0.0), ds = vsp(0.0);
	vl lo = zeta < 0.03, mid = ~lo & (zeta < 0.4), hi = ~lo & ~mid;

	if (vany(act & lo)) {
		vd c = 0.763 * pow(0.03, 0.175) / (0.96 * MV(cbrt)(0.09 + 1.0 / (h * al)));
		vd w = ws * c * 0.96 * MV(cbrt)(s);
		sw = vsel(lo, w, sw);
		ds = vsel(lo, 2.0 * w * w / (s * h), ds);
	}
	if (vany(act & mid)) {
		vd w = ws * 0.763 * MV2(pow)(zeta, vsp(0.175));
		sw = vsel(mid, w, sw);
		ds = vsel(mid, 0.35 * w * w / z, ds);
	}
	if (vany(act & hi)) {
		vd w = ws * 0.722 * MV2(pow)(1.0 - zeta, vsp(0.207));
		sw = vsel(hi, w, sw);
		ds = vsel(hi, -0.414 * w * w / ((1.0 - zeta) * h), ds);
	}
	o->s2[0] = o->s2[1] = su * su;
	o->ds2[0] = o->ds2[1] = vsp(0.0);
	o->tl[0] = o->tl[1] = 0.15 * h / su;
	o->s2[2] = sw * sw;
	o->ds2[2] = ds;

	vl surf = z * al < 1.0, low = ~surf & (zeta < 0.1), top = ~surf & ~low;
	vd tl = 0.1 * z / (sw * (0.55 - 0.38 * z * al));
	tl = vsel(low, 0.59 * z / sw, tl);
	if (vany(act & top))
		tl = vsel(top, 0.15 * h / sw * (1.0 - MV(exp)(-5.0 * zeta)), tl);
	o->tl[2] = tl;
}

/* west_plume_stable, lane by lane. */
PV void vstable(vd us, vd h, vd z, struct vprof *o)
{
	vd zeta = z / h, a = 1.0 - zeta;
	vd su = 2.0 * us * a, sw = 1.3 * us * a, tu = 0.15 * h / su * vsqrt(zeta);

	o->s2[0] = su * su;
	o->s2[1] = o->s2[2] = sw * sw;
	o->ds2[0] = -2.0 * o->s2[0] / (a * h);
	o->ds2[1] = o->ds2[2] = -2.0 * o->s2[2] / (a * h);
	o->tl[0] = vmax(tu, vsp(WEST_PLUME_TL_MEANDER));
	o->tl[1] = vmax(0.467 * tu, vsp(WEST_PLUME_TL_MEANDER));
	o->tl[2] = 0.1 * h / sw * MV2(pow)(zeta, vsp(0.8));
}

PV void vblend(vl m, const struct vprof *a, struct vprof *o)
{
	for (int i = 0; i < 3; i++) {
		o->s2[i] = vsel(m, a->s2[i], o->s2[i]);
		o->ds2[i] = vsel(m, a->ds2[i], o->ds2[i]);
		o->tl[i] = vsel(m, a->tl[i], o->tl[i]);
	}
}

/* The lanes' column values (the turbulence, the lowest level, the
 * power-law exponent), taken where the column changes. */
struct vcol {
	vl col;
	vd ground, hmix, zlow, pexp, ustar, wstar, inv_l;
};

/* west_plume_profile, lane by lane (act has a lane: vstep's); a regime is
 * computed only where an active lane (act) is in it.  With scales_only, only the time scales are
 * finished (of the midpoint, west_plume_step takes no more). */
PV void vprofile(const struct west_kplume *k, const struct vcol *c, vd z_agl, vl act,
		 int scales_only, struct vprof *o)
{
	vd h = c->hmix, z = vmin(vmax(z_agl, vsp(WEST_PLUME_ZS)), WEST_PLUME_ZETA_TOP * h);

	if (k->tl > 0.0) {
		for (int i = 0; i < 3; i++) {
			o->s2[i] = vsp(k->sigma[i] * k->sigma[i]);
			o->ds2[i] = vsp(0.0);
			o->tl[i] = vsp(k->tl);
		}
	} else {
		vl neutral = vfabs(h * c->inv_l) < 1.0;
		vl unstable = ~neutral & (c->inv_l < 0.0), stable = ~neutral & ~unstable;
		struct vprof r;
		int taken = 0;   /* the first regime taken goes to every lane of o:
				    the others are the next regimes' or inactive */

		if (vany(act & neutral)) {
			vneutral(c->ustar, z, o);
			taken = 1;
		}
		if (vany(act & unstable)) {
			vunstable(c->ustar, c->wstar, c->inv_l, h, z, act & unstable, taken ? &r : o);
			if (taken)
				vblend(unstable, &r, o);
			taken = 1;
		}
		if (vany(act & stable)) {
			vstable(c->ustar, h, z, taken ? &r : o);
			if (taken)
				vblend(stable, &r, o);
		}
	}
	for (int i = 0; i < 3; i++) {
		o->tl[i] = vmax(o->tl[i], vsp(WEST_PLUME_TL_MIN));
		if (scales_only)
			continue;
		o->ds2[i] = vsel((z != z_agl) | (o->s2[i] < WEST_PLUME_VAR_MIN), vsp(0.0), o->ds2[i]);
		o->s2[i] = vmax(o->s2[i], vsp(WEST_PLUME_VAR_MIN));
	}
}

/* ------------------------------------------------------------- the wind */

struct vstencil {
	vl i0, i1;
	vd a;
};

/* west_wstencil_at, lane by lane. */
PV struct vstencil vstencil_at(vd fi, size_t n)
{
	struct vstencil s = { vspl(0), vspl(0), vsp(0.0) };

	if (n < 2)
		return s;
	fi = vmin(vmax(fi, vsp(0.0)), vsp((double)(n - 1)));
	s.i0 = vtrunc(fi);
	s.i0 = vsell(s.i0 > (int64_t)(n - 2), vspl((int64_t)(n - 2)), s.i0);
	s.i1 = s.i0 + 1;
	s.a = fi - vdbl(s.i0);
	return s;
}

/* Level position m's height (west_wlevel_z) in each lane. */
PV vd vlevel_z(const double *zf, int faces, vl m)
{
	return faces ? vgetd(zf, m) : 0.5 * (vgetd(zf, m) + vgetd(zf, m + 1));
}

/* west_wlevel_index, lane by lane: its first guess, as if the levels were
 * uniform, in vectors; the lanes where it misses (stretched levels) search
 * as the scalar code does. */
PV vd vlevel_index(const struct west_kwind *k, int faces, vd h, vl act)
{
	const double *zf = k->zf;
	int64_t hi = (int64_t)k->nz + faces - 1;

	if (hi == 0)
		return vsp(0.0);
	vd g = h / (zf[k->nz] - zf[0]) * (double)k->nz - 0.5 * (double)(1 - faces);
	vl guess = (g >= 0.0) & (g < (double)hi);
	vl m = vsell(guess, vtrunc(g), vspl(0));
	vd zm = vlevel_z(zf, faces, m), zn = vlevel_z(zf, faces, m + 1);
	vd r = vdbl(m) + (h - zm) / (zn - zm);
	vl below = h <= west_wlevel_z(zf, faces, 0), above = h >= west_wlevel_z(zf, faces, (size_t)hi);
	vl miss = act & ~below & ~above & ~(guess & (zm <= h) & (h < zn));

	if (vany(miss))
		for (int l = 0; l < PW; l++)
			if (miss[l])
				r[l] = west_wlevel_index(zf, k->nz, faces, h[l]);
	return vsel(below, vsp(0.0), vsel(above, vsp((double)hi), r));
}

struct vwhere {
	struct vstencil face[3], centre[3];
};

/* A component's eight values and transparencies around each lane, as
 * last gathered: corner e + 2 a + 4 b of west_wcomponent's loops, all
 * fixed by the first corner's index (base; -1 for none yet), since the
 * others lie at offsets every lane shares. */
struct vcorners {
	vl base;
	vd t[8], v[8];
};

/* west_wcomponent, lane by lane: the same corners in the same order, their
 * values gathered again only in the lanes whose first corner moved (a
 * gather of all eight lanes whenever one moved took a tenth of class E's
 * time on an EPYC: docs/benchmarks.md). */
PV vd vcomponent(const struct west_kwind *k, const float *val, int c, const struct vwhere *wh,
		 struct vcorners *cc)
{
	int64_t px = (int64_t)(k->nx + (c == 0)), py = (int64_t)(k->ny + (c == 1));
	const float *tr = c == 0 ? k->tx : c == 1 ? k->ty : k->tz;
	const struct vstencil *sx = c == 0 ? &wh->face[0] : &wh->centre[0];
	const struct vstencil *sy = c == 1 ? &wh->face[1] : &wh->centre[1];
	const struct vstencil *sz = c == 2 ? &wh->face[2] : &wh->centre[2];
	const vl ix[2] = { sx->i0, sx->i1 }, jy[2] = { sy->i0, sy->i1 }, kz[2] = { sz->i0, sz->i1 };
	const vd wx[2] = { 1.0 - sx->a, sx->a }, wy[2] = { 1.0 - sy->a, sy->a };
	const vd wz[2] = { 1.0 - sz->a, sz->a };
	const vd wxy[2][2] = { { wx[0] * wy[0], wx[1] * wy[0] }, { wx[0] * wy[1], wx[1] * wy[1] } };
	vd sum = vsp(0.0), wsum = vsp(0.0);
	vl base = px * (jy[0] + py * kz[0]) + ix[0];

	vl moved = base != cc->base;
	if (vany(moved)) {
		/* ix[1] is ix[0] + 1 but where x has one position (then the same) */
		int pairs = c == 0 || k->nx >= 2;
		for (int b = 0; b < 2; b++)
			for (int a = 0; a < 2; a++) {
				vl at = px * (jy[a] + py * kz[b]) + ix[0];
				vd *t = &cc->t[4 * b + 2 * a], *v = &cc->v[4 * b + 2 * a];
				if (pairs) {
					vgetf2m(tr, at, moved, &t[0], &t[1]);
					vgetf2m(val, at, moved, &v[0], &v[1]);
				} else {
					t[0] = t[1] = vgetf(tr, at);
					v[0] = v[1] = vgetf(val, at);
				}
			}
		cc->base = base;
	}
	for (int b = 0; b < 2; b++)
		for (int a = 0; a < 2; a++)
			for (int e = 0; e < 2; e++) {
				vd wgt = wxy[a][e] * wz[b];
				vd t = cc->t[4 * b + 2 * a + e], flux = wgt * cc->v[4 * b + 2 * a + e];
				vl open = (wgt != 0.0) & (t != 0.0), part = open & (t != 1.0);
				vd q = vany(part) ? vsel(part, flux / t, flux) : flux;   /* x / 1 is x */
				sum = vsel(open, sum + q, sum);
				wsum = vsel(open, wsum + wgt, wsum);
			}
	vd r = __builtin_convertvector(__builtin_convertvector(sum / wsum, vf), vd);
	return vsel(wsum > 0.0, r, vsp(0.0));
}

/* west_wind_at for the lanes at grid-local (x, y), altitude z, z_agl above
 * the ground, in the columns c. */
PV void vwind(const struct west_kplume *k, vd x, vd y, vd z, vd z_agl, const struct vcol *c,
	      vl act, struct vcorners cc[3], vd out[3])
{
	const struct west_kwind *w = &k->wind;
	vd h = z - k->base, zref = c->zlow, suv = vsp(1.0), sw = vsp(1.0);
	struct vwhere wh;

	zref = zref + (k->base - c->ground);
	vl low = z_agl < zref;
	if (vany(act & low)) {
		vd r = z_agl / zref;
		suv = vsel(low, MV2(pow)(r, c->pexp), suv);
		sw = vsel(low, r, sw);
		h = vsel(low, c->ground + zref - k->base, h);
	}
	wh.face[0] = vstencil_at(x / w->dx, w->nx + 1);
	wh.centre[0] = vstencil_at(x / w->dx - 0.5, w->nx);
	wh.face[1] = vstencil_at(y / w->dy, w->ny + 1);
	wh.centre[1] = vstencil_at(y / w->dy - 0.5, w->ny);
	wh.face[2] = vstencil_at(vlevel_index(w, 1, h, act), w->nz + 1);
	wh.centre[2] = vstencil_at(vlevel_index(w, 0, h, act), w->nz);
	out[0] = suv * vcomponent(w, w->u, 0, &wh, &cc[0]);
	out[1] = suv * vcomponent(w, w->v, 1, &wh, &cc[1]);
	out[2] = sw * vcomponent(w, w->w, 2, &wh, &cc[2]);
}

/* Lane l's column values, of its column c->col[l]. */
PV void vcol_lane(const struct west_kplume *k, struct vcol *c, int l)
{
	size_t col = (size_t)c->col[l];

	c->zlow[l] = k->zlow[col];
	c->pexp[l] = (double)k->pexp[k->cls[col] % 6];
	if (k->tl > 0.0) {   /* homogeneous: turb is not read */
		c->ustar[l] = c->wstar[l] = c->inv_l[l] = 0.0;
		return;
	}
	c->ustar[l] = k->turb[col].ustar;
	c->wstar[l] = k->turb[col].wstar;
	c->inv_l[l] = k->turb[col].inv_l;
}

/* west_plume_where for the lanes, and their columns' values: taken where
 * a lane's column is not prev's, the lanes' columns before; the
 * terrain (t) and mixing heights (v) of the four column centres around
 * the lanes in cc (corner e + 2 a of west_wbilinear's), gathered again
 * when the first moved. */
PV void vwhere_at(const struct west_kplume *k, vd x, vd y, const struct vcol *prev,
		  struct vcorners *cc, struct vcol *c)
{
	const struct west_kwind *w = &k->wind;
	int64_t nx = (int64_t)w->nx, ny = (int64_t)w->ny;
	vd fi = vfloor(x / w->dx), fj = vfloor(y / w->dy);
	/* west_wcolumn_at's choice, and 0 for a NaN (never a particle's) */
	vl i = vsell(fi >= (double)nx, vspl(nx - 1), vsell(fi >= 0.0, vtrunc(fi), vspl(0)));
	vl j = vsell(fj >= (double)ny, vspl(ny - 1), vsell(fj >= 0.0, vtrunc(fj), vspl(0)));

	c->col = j * nx + i;
	/* west_wbilinear of the terrain and the mixing height: one stencil */
	vd bi = x / w->dx - 0.5, bj = y / w->dy - 0.5;
	bi = vmin(vmax(bi, vsp(0.0)), vsp((double)(nx - 1)));
	bj = vmin(vmax(bj, vsp(0.0)), vsp((double)(ny - 1)));
	vl i0 = vtrunc(bi), j0 = vtrunc(bj);
	vl i1 = vsell(i0 + 1 < nx, i0 + 1, i0), j1 = vsell(j0 + 1 < ny, j0 + 1, j0);
	vd a = bi - vdbl(i0), b = bj - vdbl(j0);
	vl c00 = j0 * nx + i0;   /* fixes the other three */
	if (vany(c00 != cc->base)) {
		vl c01 = j0 * nx + i1, c10 = j1 * nx + i0, c11 = j1 * nx + i1;
		cc->t[0] = vgetf(k->terrain, c00), cc->t[1] = vgetf(k->terrain, c01);
		cc->t[2] = vgetf(k->terrain, c10), cc->t[3] = vgetf(k->terrain, c11);
		cc->v[0] = vgetf(k->hmix, c00), cc->v[1] = vgetf(k->hmix, c01);
		cc->v[2] = vgetf(k->hmix, c10), cc->v[3] = vgetf(k->hmix, c11);
		cc->base = c00;
	}
	c->ground = (1 - b) * ((1 - a) * cc->t[0] + a * cc->t[1]) +
		    b * ((1 - a) * cc->t[2] + a * cc->t[3]);
	c->hmix = (1 - b) * ((1 - a) * cc->v[0] + a * cc->v[1]) +
		  b * ((1 - a) * cc->v[2] + a * cc->v[3]);

	vl moved = c->col != prev->col;
	c->zlow = prev->zlow, c->pexp = prev->pexp;
	c->ustar = prev->ustar, c->wstar = prev->wstar, c->inv_l = prev->inv_l;
	if (vany(moved))
		for (int l = 0; l < PW; l++)
			if (moved[l])
				vcol_lane(k, c, l);
}

/* ---------------------------------------------------------- particles */

/* (x * y) of two words (< 2^32) in 64-bit lanes: the low words' product. */
PV vl vmul32(vl x, int64_t y)
{
	return (vl)PM(mul_epu32)((PMI)x, (PMI)vspl(y));
}

/* A word (< 2^32) as a double, exactly: 2^52 + r, less 2^52. */
PV vd vword(vl r)
{
	return (vd)(r | vspl(0x4330000000000000)) - 0x1p52;
}

/* west_plume_normals for the lanes' particles p and draws n. */
PV void vnormals(unsigned long long seed, vl p, vl n, vd g[3])
{
	const int64_t m32 = 0xffffffff;
	vl c0 = p & m32, c1 = (vl)((vu)p >> 32), c2 = n & m32, c3 = vspl(WEST_PLUME_STREAM);
	uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);

	for (int r = 0; r < 10; r++) {
		if (r > 0) {
			k0 += 0x9E3779B9u;
			k1 += 0xBB67AE85u;
		}
		vl p0 = vmul32(c0, 0xD2511F53), p1 = vmul32(c2, 0xCD9E8D57);
		c0 = ((vl)((vu)p1 >> 32) ^ c1) ^ (int64_t)k0;
		c1 = p1 & m32;
		c2 = ((vl)((vu)p0 >> 32) ^ c3) ^ (int64_t)k1;
		c3 = p0 & m32;
	}
	/* west_plume_uniform of each word, then Box-Muller */
	vd u0 = (vword(c0) + 0.5) * 0x1p-32, u1 = (vword(c1) + 0.5) * 0x1p-32;
	vd u2 = (vword(c2) + 0.5) * 0x1p-32, u3 = (vword(c3) + 0.5) * 0x1p-32;
	vd a = vsqrt(-2.0 * MV(log)(u0)), b = vsqrt(-2.0 * MV(log)(u2));
	vd th = 6.283185307179586 * u1, th2 = 6.283185307179586 * u3;
	g[0] = a * MV(cos)(th);
	g[1] = a * MV(sin)(th);
	g[2] = b * MV(cos)(th2);
}

/* west_plume_langevin, lane by lane: 1 - r for each component, computed
 * again only where a lane's time scale differs from the last one's (the
 * same values either way). */
PV void vlangevin(const struct vprof *pr, const vd tl[3], vd dt, const vd g[3], vd n[3])
{
	vd sp = 0.5 * pr->ds2[2] / vsqrt(pr->s2[2]);
	vd e = vsp(0.0);

	for (int i = 0; i < 3; i++) {
		if (i == 0 || vany(tl[i] != tl[i - 1]))
			e = -MV(expm1)(-dt / tl[i]);
		vd drift = i == 2 ? e * tl[i] * sp : vsp(0.0);
		n[i] = (1.0 - e) * n[i] + drift + vsqrt(e * (2.0 - e)) * g[i];
	}
}

/* The lanes: each a particle p (>= 0) or none (-1), its draws n. */
struct vlanes {
	vd x, y, z, u[3], t;
	vl p, n;
	struct vcol c;
	vl ron, rcol, rticks;   /* each lane's struct west_prun */
	struct west_pstate park; /* a lane's state while it has no particle:
				    particle 0 at its release, in the domain */
	struct vcorners wc[3];  /* u, v, w around each lane */
	struct vcorners bc;     /* the ground and mixing height (vwhere_at) */
};

/* Lane l's run as plume_util.h's struct, and back. */
PV struct west_prun vrun_get(const struct vlanes *L, int l)
{
	return (struct west_prun){ (size_t)L->rcol[l], (int)L->ron[l],
				   (unsigned long long)L->rticks[l] };
}

PV void vrun_put(struct vlanes *L, int l, struct west_prun r)
{
	L->rcol[l] = (int64_t)r.col;
	L->ron[l] = r.on;
	L->rticks[l] = (int64_t)r.ticks;
}

/* west_plume_sample for the active lanes: in vectors where a lane's run
 * goes on (in the layer over the same column) or stays off (out of it),
 * else by the scalar code. */
PV void vsample(const struct west_kplume *k, const struct west_kparticles *ks, struct vlanes *L,
		vl act, vd zagl, vd dt)
{
	vl in = zagl < k->layer, on = L->ron != 0;
	vl same = in & on & (L->rcol == L->c.col), idle = ~in & ~on;
	vl other = act & ~same & ~idle;

	L->rticks = vsell(act & same, L->rticks + vticks(dt * WEST_PLUME_TICK + 0.5), L->rticks);
	if (!vany(other))
		return;
	for (int l = 0; l < PW; l++) {
		if (!other[l])
			continue;
		struct west_prun r = vrun_get(L, l);
		west_plume_sample(ks, &r, in[l] != 0, (size_t)L->c.col[l], L->t[l], dt[l]);
		vrun_put(L, l, r);
	}
}

/* west_plume_step for the active lanes (act), a step ending at t_cut at
 * the latest; returns the lanes that left the domain. */
PV vl vstep(const struct west_kplume *k, const struct west_kparticles *ks, double t_cut,
	    struct vlanes *L, vl act)
{
	const struct west_kwind *w = &k->wind;
	vd zagl = L->z - L->c.ground, um[3], up[3], g[3], nu[3];
	vl below = zagl <= L->c.hmix;
	struct vprof pr, pm;

	vnormals(k->seed, L->p, L->n, g);   /* first: its work overlaps the rest */
	vprofile(k, &L->c, zagl, act, 0, &pr);
	vwind(k, L->x, L->y, L->z, zagl, &L->c, act, L->wc, um);
	for (int i = 0; i < 3; i++)
		up[i] = vsqrt(pr.s2[i]) * L->u[i];
	/* west_plume_dt */
	vd dt = WEST_PLUME_FRAC * vmin(pr.tl[0], vmin(pr.tl[1], pr.tl[2]));
	dt = vmin(dt, w->dx / vfabs(um[0] + up[0]));
	dt = vmin(dt, w->dy / vfabs(um[1] + up[1]));
	dt = vmin(dt, k->dzmin / vfabs(um[2] + up[2]));
	dt = vmax(dt, vsp(WEST_PLUME_DT_MIN));
	dt = vsel(dt >= t_cut - L->t, t_cut - L->t, dt);
	vsample(k, ks, L, act, zagl, dt);
	vd zm = vfabs(zagl + 0.5 * (um[2] + up[2]) * dt);
	zm = vsel(below & (zm > L->c.hmix), vmax(2.0 * L->c.hmix - zm, vsp(0.0)), zm);
	vprofile(k, &L->c, zm, act, 1, &pm);
	for (int i = 0; i < 3; i++)
		nu[i] = L->u[i];
	vlangevin(&pr, pm.tl, dt, g, nu);
	for (int i = 0; i < 3; i++)
		up[i] = vsqrt(pr.s2[i]) * nu[i];

	vd x = L->x + (um[0] + up[0]) * dt, y = L->y + (um[1] + up[1]) * dt;
	vd z = L->z + (um[2] + up[2]) * dt;
	vd t = vsel(dt == t_cut - L->t, vsp(t_cut), L->t + dt);
	struct vcol c;
	vwhere_at(k, x, y, &L->c, &L->bc, &c);

	/* west_plume_bounds */
	vd lid = c.ground + c.hmix;
	vl out = (x < 0.0) | (y < 0.0) | (x > (double)w->nx * w->dx) |
		 (y > (double)w->ny * w->dy) | (c.zlow < 0.0);
	vl m = ~out & (z < c.ground);
	z = vsel(m, 2.0 * c.ground - z, z);
	nu[2] = vsel(m, -nu[2], nu[2]);
	m = ~out & below & (z > lid);
	z = vsel(m, vmax(2.0 * lid - z, c.ground), z);
	nu[2] = vsel(m, -nu[2], nu[2]);
	out |= z > k->top;

	L->x = vsel(act, x, L->x);
	L->y = vsel(act, y, L->y);
	L->z = vsel(act, z, L->z);
	for (int i = 0; i < 3; i++)
		L->u[i] = vsel(act, nu[i], L->u[i]);
	L->t = vsel(act, t, L->t);
	L->n = vsell(act, L->n + 1, L->n);
	L->c.col = vsell(act, c.col, L->c.col);
	L->c.ground = vsel(act, c.ground, L->c.ground);
	L->c.hmix = vsel(act, c.hmix, L->c.hmix);
	L->c.zlow = vsel(act, c.zlow, L->c.zlow);
	L->c.pexp = vsel(act, c.pexp, L->c.pexp);
	L->c.ustar = vsel(act, c.ustar, L->c.ustar);
	L->c.wstar = vsel(act, c.wstar, L->c.wstar);
	L->c.inv_l = vsel(act, c.inv_l, L->c.inv_l);
	return act & out;
}

/* Lane l takes particle p (-1: none) in state s, its column found by the
 * scalar code. */
PV void vput(const struct west_kplume *k, struct vlanes *L, int l, long p,
	     const struct west_pstate *s)
{
	struct west_ppos q;

	L->p[l] = p;
	L->n[l] = s->n;
	L->x[l] = s->x, L->y[l] = s->y, L->z[l] = s->z, L->t[l] = s->t;
	for (int i = 0; i < 3; i++)
		L->u[i][l] = s->u[i];
	vrun_put(L, l, (struct west_prun){ 0, 0, 0 });
	west_plume_where(k, s->x, s->y, &q);
	L->c.col[l] = (int64_t)q.col;
	L->c.ground[l] = q.ground, L->c.hmix[l] = q.hmix;
	vcol_lane(k, &L->c, l);
}

/* Lane l's particle ends the launch in state st (west_plume_particle's
 * end): its run flushed, its state stored, its place added to sums[4]
 * when it is in the domain. */
PV void vend(const struct west_kparticles *ks, struct vlanes *L, int l, unsigned char st,
	     unsigned long long sums[4])
{
	size_t p = (size_t)L->p[l];
	struct west_prun r = vrun_get(L, l);

	west_plume_flush(ks, &r);
	ks->x[p] = L->x[l], ks->y[p] = L->y[l], ks->z[p] = L->z[l];
	ks->up[p] = L->u[0][l], ks->vp[p] = L->u[1][l], ks->wp[p] = L->u[2][l];
	ks->t[p] = L->t[l];
	ks->n[p] = (unsigned)L->n[l];
	ks->state[p] = st;
	L->p[l] = -1;
	if (st == 1)
		west_plume_centroid(sums, (const double[3]){ L->x[l], L->y[l],
							     L->z[l] - L->c.ground[l] });
}

/* Particles a thread takes from the queue at once: a cache line of the
 * smallest item (state, a byte), so that (the blocks beginning on a line:
 * backend_cpu.c) no two threads write the same line of the particles'
 * arrays; with 8, threads taking turns shared the lines of state and n at
 * every turn, and on 2 cores class E ran 1.2x slower (docs/benchmarks.md). */
#define PLUME_TAKE 64

/* The particles 0 .. n - 1 to step, next the first no thread has taken. */
struct vqueue {
	size_t n, next;
};

/* The particles a thread takes from q: [*p, *end). */
PV long vnext(struct vqueue *q, long *p, long *end)
{
	if (*p == *end) {
		*p = (long)__atomic_fetch_add(&q->next, PLUME_TAKE, __ATOMIC_RELAXED);
		*end = *p + PLUME_TAKE;
	}
	if (*p >= (long)q->n)
		return -1;
	return (*p)++;
}

/* Lane l takes the next particle to step, passing over those with no
 * step to take (west_plume_particle's start: a particle in the domain at
 * t_end or later only adds its place to sums, with centroid); when none
 * is left it parks (L->park, p -1). */
PV void vfill(const struct west_kplume *k, const struct west_kparticles *ks, double t_end,
	      int centroid, struct vlanes *L, int l, struct vqueue *qu, long *p, long *end,
	      unsigned long long sums[4])
{
	long q;

	while ((q = vnext(qu, p, end)) >= 0) {
		struct west_pstate s;
		struct west_ppos pos;
		double at[3];

		s.state = ks->state[q];
		if (s.state == 2)
			continue;
		if (s.state == 0) {
			if ((double)q * k->duration / (double)k->np >= t_end)
				continue;
			west_plume_release(k, (size_t)q, &s, &pos);
		} else {
			s.t = ks->t[q];
			if (s.t >= t_end) {
				if (centroid) {
					west_plume_at(k, ks, (size_t)q, at);
					west_plume_centroid(sums, at);
				}
				continue;
			}
			s.x = ks->x[q], s.y = ks->y[q], s.z = ks->z[q];
			s.u[0] = ks->up[q], s.u[1] = ks->vp[q], s.u[2] = ks->wp[q];
			s.n = ks->n[q];
		}
		vput(k, L, l, q, &s);
		return;
	}
	vput(k, L, l, -1, &L->park);
}

__attribute__((target(PTARGET))) static void
PNAME(lanes)(const struct west_kplume *k, const struct west_kparticles *ks, double t_end,
	     double t_cut, int centroid, struct vqueue *qu, unsigned long long sums[4])
{
	struct vlanes L;
	struct west_ppos q0;
	long p = 0, end = 0;

	memset(&L, 0, sizeof L);
	for (int c = 0; c < 3; c++)
		L.wc[c].base = vspl(-1);
	L.bc.base = vspl(-1);
	west_plume_release(k, 0, &L.park, &q0);
	for (int l = 0; l < PW; l++)
		vput(k, &L, l, -1, &L.park);
	for (int l = 0; l < PW; l++)
		vfill(k, ks, t_end, centroid, &L, l, qu, &p, &end, sums);
	for (;;) {
		vl act = L.p >= 0;
		if (!vany(act))
			break;
		vl out = vstep(k, ks, t_cut, &L, act);
		for (int l = 0; l < PW; l++) {
			if (!act[l] || (!out[l] && L.t[l] < t_end))
				continue;
			vend(ks, &L, l, out[l] ? 2 : 1, sums);
			vfill(k, ks, t_end, centroid, &L, l, qu, &p, &end, sums);
		}
	}
}

enum west_status PNAME(west_plume_advance)(const struct west_kplume *k,
					   const struct west_kparticles *s, double t_end,
					   double t_cut, int centroid)
{
	unsigned long long sums[4] = { 0, 0, 0, 0 };
	struct vqueue q = { k->np, 0 };

#ifndef WEST_SIMD512
	if (west_pot_simd_bits() >= 512 && POK512())
		return west_plume_advance_simd512(k, s, t_end, t_cut, centroid);
#endif
	if (!POK() || k->np == 0)
		return west_plume_advance_cpu(k, s, t_end, t_cut, centroid);
	#pragma omp parallel reduction(+ : sums[:4])
	PNAME(lanes)(k, s, t_end, t_cut, centroid, &q, sums);
	if (centroid)
		west_plume_sums_add(s, sums);
	return WEST_OK;
}

#else /* no libmvec or not x86-64: the reference */

#ifdef WEST_SIMD512
enum west_status west_plume_advance_simd512(const struct west_kplume *k,
					    const struct west_kparticles *s, double t_end,
					    double t_cut, int centroid)
#else
enum west_status west_plume_advance_simd(const struct west_kplume *k,
					 const struct west_kparticles *s, double t_end,
					 double t_cut, int centroid)
#endif
{
	return west_plume_advance_cpu(k, s, t_end, t_cut, centroid);
}

#endif
