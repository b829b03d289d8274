/*
 * plume_util.h: the per-particle body of the release plumes' kernel
 * (kernels.h, plume_advance), shared by the CPU reference (kernels/plume.c,
 * a loop over the particles) and the CUDA kernel (kernels/plume.cu, a
 * thread per particle), so that both move each particle with the same
 * expressions in the same order: the random numbers, the turbulence
 * profiles, the mean wind (wind_util.h, the point query's own bodies),
 * the time step, the Langevin update, the reflections and the sampling.
 * docs/model.md, "Release plumes", gives the physics and its sources.
 *
 * Arithmetic: double throughout (positions, velocities, times), so that
 * the only differences between the two sides are the last bits of the
 * libraries' log, sin, cos, exp, expm1, pow and cbrt (CUDA's double
 * functions are within 1 or 2 ulp, as glibc's), and a particle follows
 * the same branches (step counts, reflections, columns) on both unless a
 * rounding difference of ~1e-16 falls across a branch point.  Units:
 * metres, seconds; heights above the ground are "agl", altitudes are
 * above sea level as the grid's terrain.
 *
 * Random numbers: Philox4x32-10 (Salmon, Moraes, Dror and Shaw 2011,
 * "Parallel random numbers: as easy as 1, 2, 3", SC11), written here from
 * the paper's description: the counter is (particle index low and high
 * words, the particle's draw number n, a stream constant), the key the
 * 64-bit seed; each draw gives four 32-bit words, four uniforms in (0, 1)
 * and three Gaussians by the Box-Muller transform (Box and Muller 1958).
 * Draw 0 gives a particle's velocity at release, draw n its n-th step.
 */
#ifndef WEST_PLUME_UTIL_H
#define WEST_PLUME_UTIL_H

#include "wind_util.h"

#define WEST_PLUME_FCOR 1e-4       /* Coriolis parameter f (1/s), mid-latitudes */
#define WEST_PLUME_ZS 2.0          /* m: profiles below this height take its values */
#define WEST_PLUME_ZETA_TOP 0.96   /* z / h above which profiles take its values */
#define WEST_PLUME_FRAC 0.1        /* time step: this fraction of the least T_L */
#define WEST_PLUME_DT_MIN 1e-3     /* s: the least step (but a chunk's last) */
#define WEST_PLUME_TL_MIN 0.1      /* s: the least Lagrangian time scale */
#define WEST_PLUME_VAR_MIN 1e-6    /* m^2/s^2: the least velocity variance */
/* s: the least horizontal T_L in stable air, for meander: Draxler's (1976)
 * lateral dispersion, sigma_y = sigma_v t / (1 + 0.9 (t / T_i)^(1/2)) with
 * T_i = 1000 s for releases near the ground (Irwin 1983 recommends it for
 * every class), grows as sigma_v (t T_i)^(1/2) / 0.9 at long times, as the
 * Langevin model's sigma_v (2 T_L t)^(1/2) does when T_L = T_i / (2 0.9^2). */
#define WEST_PLUME_TL_MEANDER (1000.0 / (2.0 * 0.9 * 0.9))
#define WEST_PLUME_STREAM 0x706c756du   /* the counter's fourth word, "plum" */

/* ------------------------------------------------------ Philox4x32-10 */

WEST_HD void west_mulhilo32(unsigned a, unsigned b, unsigned *hi, unsigned *lo)
{
	unsigned long long p = (unsigned long long)a * (unsigned long long)b;
	*hi = (unsigned)(p >> 32);
	*lo = (unsigned)p;
}

/*
 * out = Philox4x32-10(ctr, key): ten rounds of the S-box
 *   (c0, c1, c2, c3) -> (hi(M1 c2) ^ c1 ^ k0, lo(M1 c2), hi(M0 c0) ^ c3 ^ k1, lo(M0 c0))
 * with M0 = 0xD2511F53, M1 = 0xCD9E8D57, the key bumped by the Weyl
 * constants (0x9E3779B9, 0xBB67AE85) before every round but the first.
 */
WEST_HD void west_philox4x32_10(const unsigned ctr[4], const unsigned key[2], unsigned out[4])
{
	unsigned c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
	unsigned k0 = key[0], k1 = key[1];

	for (int r = 0; r < 10; r++) {
		unsigned hi0, lo0, hi1, lo1;
		if (r > 0) {
			k0 += 0x9E3779B9u;
			k1 += 0xBB67AE85u;
		}
		west_mulhilo32(0xD2511F53u, c0, &hi0, &lo0);
		west_mulhilo32(0xCD9E8D57u, c2, &hi1, &lo1);
		c0 = hi1 ^ c1 ^ k0;
		c1 = lo1;
		c2 = hi0 ^ c3 ^ k1;
		c3 = lo0;
	}
	out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

/* A 32-bit word as a uniform number in (0, 1): (r + 1/2) 2^-32. */
WEST_HD double west_plume_uniform(unsigned r)
{
	return ((double)r + 0.5) * 0x1p-32;
}

/* Three standard Gaussians of particle p's draw n under seed. */
WEST_HD void west_plume_normals(unsigned long long seed, size_t p, unsigned n, double g[3])
{
	unsigned long long pp = p;
	unsigned ctr[4] = { (unsigned)pp, (unsigned)(pp >> 32), n, WEST_PLUME_STREAM };
	unsigned key[2] = { (unsigned)seed, (unsigned)(seed >> 32) };
	unsigned r[4];

	west_philox4x32_10(ctr, key, r);
	double a = sqrt(-2.0 * log(west_plume_uniform(r[0])));
	double b = sqrt(-2.0 * log(west_plume_uniform(r[2])));
	double th = 6.283185307179586 * west_plume_uniform(r[1]);
	double th2 = 6.283185307179586 * west_plume_uniform(r[3]);
	g[0] = a * cos(th);
	g[1] = a * sin(th);
	g[2] = b * cos(th2);
}

/* ------------------------------------------------ turbulence profiles */

/* The turbulence at a height: variances of u, v, w (m^2/s^2), their
 * derivatives with height (m/s^2), Lagrangian time scales (s). */
struct west_kprof {
	double s2[3], ds2[3], tl[3];
};

/* Neutral (h |1/L| < 1; Hanna 1982): sigma_u = 2 u* e^(-3fz/u*),
 * sigma_v = sigma_w = 1.3 u* e^(-2fz/u*), T_L = 0.5 z / sigma_w /
 * (1 + 15 f z / u*) on every component. */
WEST_HD void west_plume_neutral(double us, double z, struct west_kprof *o)
{
	double f = WEST_PLUME_FCOR, e = exp(-2.0 * f * z / us);
	double sw = 1.3 * us * e;
	double tl = 0.5 * z / sw / (1.0 + 15.0 * f * z / us);

	o->s2[0] = 4.0 * us * us * e * e * e;
	o->s2[1] = o->s2[2] = sw * sw;
	o->ds2[0] = -6.0 * f / us * o->s2[0];
	o->ds2[1] = o->ds2[2] = -4.0 * f / us * o->s2[2];
	o->tl[0] = o->tl[1] = o->tl[2] = tl;
}

/*
 * Unstable (1/L < 0; Hanna 1982): sigma_u = sigma_v = u* (12 + 0.5 h/|L|)^(1/3),
 * T_Lu = T_Lv = 0.15 h / sigma_u; with zeta = z / h, s = 3 zeta - L/h:
 * sigma_w = 0.763 w* zeta^0.175 for 0.03 <= zeta < 0.4 (Hanna's least of
 * that and 0.96 w* s^(1/3), which it always is there), 0.722 w*
 * (1 - zeta)^0.207 above (to 0.96, where the profiles stop), and below
 * 0.03 Hanna's surface branch 0.96 w* s^(1/3) times c = 0.763 0.03^0.175 /
 * (0.96 (0.09 - L/h)^(1/3)), which makes it meet the branch above:
 * Hanna's own jumps down there (by 4 % to 20 % as -L/h goes from 0 to
 * 0.05), and a jump in sigma_w gathers particles above it (its drift
 * would be a delta function).  T_Lw = 0.1 z / (sigma_w (0.55 - 0.38 z/|L|))
 * (z < |L|), 0.59 z / sigma_w (zeta < 0.1), 0.15 h / sigma_w
 * (1 - e^(-5 zeta)) above.  d(sigma_w^2)/dz is each branch's own
 * (c z^a has c a z^(a-1)).
 */
WEST_HD void west_plume_unstable(double us, double ws, double inv_l, double h, double z,
				 struct west_kprof *o)
{
	double al = -inv_l, zeta = z / h, s = 3.0 * zeta + 1.0 / (h * al);
	double su = us * cbrt(12.0 + 0.5 * h * al), sw, ds;

	o->s2[0] = o->s2[1] = su * su;
	o->ds2[0] = o->ds2[1] = 0.0;
	o->tl[0] = o->tl[1] = 0.15 * h / su;
	if (zeta < 0.03) {
		double c = 0.763 * pow(0.03, 0.175) / (0.96 * cbrt(0.09 + 1.0 / (h * al)));
		sw = ws * c * 0.96 * cbrt(s);
		ds = 2.0 * sw * sw / (s * h);          /* s^(2/3): (2/3) 3 / (s h) */
	} else if (zeta < 0.4) {
		sw = ws * 0.763 * pow(zeta, 0.175);
		ds = 0.35 * sw * sw / z;                /* zeta^0.35 */
	} else {
		sw = ws * 0.722 * pow(1.0 - zeta, 0.207);
		ds = -0.414 * sw * sw / ((1.0 - zeta) * h);   /* (1 - zeta)^0.414 */
	}
	o->s2[2] = sw * sw;
	o->ds2[2] = ds;
	if (z * al < 1.0)
		o->tl[2] = 0.1 * z / (sw * (0.55 - 0.38 * z * al));
	else if (zeta < 0.1)
		o->tl[2] = 0.59 * z / sw;
	else
		o->tl[2] = 0.15 * h / sw * (1.0 - exp(-5.0 * zeta));
}

/* Stable (1/L > 0; Hanna 1982): with a = 1 - z/h, sigma_u = 2 u* a,
 * sigma_v = sigma_w = 1.3 u* a, T_Lu = 0.15 h / sigma_u (z/h)^0.5,
 * T_Lv = 0.467 T_Lu, T_Lw = 0.1 h / sigma_w (z/h)^0.8; T_Lu and T_Lv at
 * least WEST_PLUME_TL_MEANDER (Hanna's are the small eddies' alone: a few
 * seconds near the ground, where stable plumes meander over minutes). */
WEST_HD void west_plume_stable(double us, double h, double z, struct west_kprof *o)
{
	double zeta = z / h, a = 1.0 - zeta;
	double su = 2.0 * us * a, sw = 1.3 * us * a, tu = 0.15 * h / su * sqrt(zeta);

	o->s2[0] = su * su;
	o->s2[1] = o->s2[2] = sw * sw;
	o->ds2[0] = -2.0 * o->s2[0] / (a * h);
	o->ds2[1] = o->ds2[2] = -2.0 * o->s2[2] / (a * h);
	o->tl[0] = west_dmax(tu, WEST_PLUME_TL_MEANDER);
	o->tl[1] = west_dmax(0.467 * tu, WEST_PLUME_TL_MEANDER);
	o->tl[2] = 0.1 * h / sw * pow(zeta, 0.8);
}

/*
 * The turbulence at height z_agl in a column c whose mixing height at the
 * point is h (k's homogeneous values when k->tl > 0).  The profiles are
 * taken at z_agl clamped to [WEST_PLUME_ZS, WEST_PLUME_ZETA_TOP h]; where
 * it is clamped they are constant, so their derivatives are 0 there (the
 * drift stays the derivative of the variances the particle sees).  The
 * regime: neutral when h |1/L| < 1, else unstable or stable by the sign of
 * 1/L (Hanna 1982's criterion).  Variances at least WEST_PLUME_VAR_MIN,
 * time scales at least WEST_PLUME_TL_MIN.
 */
WEST_HD void west_plume_profile(const struct west_kplume *k, const struct west_kturb *c,
				double h, double z_agl, struct west_kprof *o)
{
	double lo = WEST_PLUME_ZS, hi = WEST_PLUME_ZETA_TOP * h;
	double z = west_dmin(west_dmax(z_agl, lo), hi);

	if (k->tl > 0.0) {
		for (int i = 0; i < 3; i++) {
			o->s2[i] = k->sigma[i] * k->sigma[i];
			o->ds2[i] = 0.0;
			o->tl[i] = k->tl;
		}
	} else if (fabs(h * c->inv_l) < 1.0) {
		west_plume_neutral(c->ustar, z, o);
	} else if (c->inv_l < 0.0f) {
		west_plume_unstable(c->ustar, c->wstar, c->inv_l, h, z, o);
	} else {
		west_plume_stable(c->ustar, h, z, o);
	}
	for (int i = 0; i < 3; i++) {
		if (z != z_agl || o->s2[i] < WEST_PLUME_VAR_MIN)
			o->ds2[i] = 0.0;
		o->s2[i] = west_dmax(o->s2[i], WEST_PLUME_VAR_MIN);
		o->tl[i] = west_dmax(o->tl[i], WEST_PLUME_TL_MIN);
	}
}

/* ---------------------------------------------------------- particles */

/* Accumulators: atomic on both sides (integer sums: any order). */
WEST_HD void west_plume_add(unsigned long long *a, unsigned long long v)
{
#ifdef __CUDA_ARCH__
	atomicAdd(a, v);
#else
	__atomic_fetch_add(a, v, __ATOMIC_RELAXED);
#endif
}

WEST_HD void west_plume_min(unsigned long long *a, unsigned long long v)
{
#ifdef __CUDA_ARCH__
	atomicMin(a, v);
#else
	unsigned long long cur = __atomic_load_n(a, __ATOMIC_RELAXED);
	while (v < cur &&
	       !__atomic_compare_exchange_n(a, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
#endif
}

/* A non-negative quantity in integer units (scale per unit), rounded. */
WEST_HD unsigned long long west_plume_fix(double v, double scale)
{
	return (unsigned long long)(v * scale + 0.5);
}

/* A particle in the domain at a launch's end, at[3] its x, y and height
 * above the ground (m), added to a launch's centroid sums (in units of
 * 1 / WEST_PLUME_POS m, and the count). */
WEST_HD void west_plume_centroid(unsigned long long sums[4], const double at[3])
{
	for (int i = 0; i < 3; i++)
		sums[i] += west_plume_fix(at[i], WEST_PLUME_POS);
	sums[3]++;
}

/* A launch's centroid sums added to the run's (kernels.h, struct
 * west_kparticles). */
WEST_HD void west_plume_sums_add(const struct west_kparticles *s,
				 const unsigned long long sums[4])
{
	for (int i = 0; i < 4; i++)
		s->sums[i] += sums[i];
}

/* Where a particle is: its column, the ground's altitude and the mixing
 * height (m above the ground) there. */
struct west_ppos {
	size_t col;
	double ground, hmix;
};

WEST_HD void west_plume_where(const struct west_kplume *k, double x, double y,
			      struct west_ppos *q)
{
	const struct west_kwind *w = &k->wind;
	size_t i, j;

	west_wcolumn_at(w, x, y, &i, &j);
	q->col = j * w->nx + i;
	q->ground = west_wbilinear(k->terrain, w->nx, w->ny, w->dx, w->dy, x, y);
	q->hmix = west_wbilinear(k->hmix, w->nx, w->ny, w->dx, w->dy, x, y);
}

/* The mean wind um (grid's u, v, w in m/s) at grid-local (x, y) and
 * altitude z, the particle's place being q (z_agl = z - q->ground): the
 * point query's wind there (wind_util.h). */
WEST_HD void west_plume_wind(const struct west_kplume *k, double x, double y, double z,
			     double z_agl, const struct west_ppos *q, double um[3])
{
	west_wind_at(&k->wind, x, y, z, z_agl, q->ground, k->base, k->zlow[q->col],
		     k->pexp[k->cls[q->col] % 6], um);
}

/* A particle in registers: u its normalized turbulent velocity
 * (west_plume_langevin). */
struct west_pstate {
	double x, y, z, u[3], t;
	unsigned n;
	unsigned char state;
};

/* Release particle p at its time: its place, and its normalized
 * turbulent velocity (west_plume_langevin) from its first draw (n = 0):
 * standard Gaussians, the velocity distribution wherever it starts. */
WEST_HD void west_plume_release(const struct west_kplume *k, size_t p, struct west_pstate *s,
				struct west_ppos *q)
{
	double h;

	s->x = k->x;
	s->y = k->y;
	west_plume_where(k, s->x, s->y, q);
	h = k->uniform_z ? ((double)p + 0.5) / (double)k->np * q->hmix : k->height;
	s->z = q->ground + h;
	west_plume_normals(k->seed, p, 0, s->u);
	s->n = 1;
	s->t = (double)p * k->duration / (double)k->np;
	s->state = 1;
}

/*
 * The time step (s) from the turbulence at the particle, its mean wind um
 * and its turbulent velocity up (m/s): WEST_PLUME_FRAC of the least T_L,
 * at most the time to cross a column (dx, dy) or the thinnest level at
 * the particle's velocity, at least WEST_PLUME_DT_MIN.
 */
WEST_HD double west_plume_dt(const struct west_kplume *k, const struct west_kprof *pr,
			     const double um[3], const double up[3])
{
	double dt = WEST_PLUME_FRAC * west_dmin(pr->tl[0], west_dmin(pr->tl[1], pr->tl[2]));

	dt = west_dmin(dt, k->wind.dx / fabs(um[0] + up[0]));
	dt = west_dmin(dt, k->wind.dy / fabs(um[1] + up[1]));
	dt = west_dmin(dt, k->dzmin / fabs(um[2] + up[2]));
	return west_dmax(dt, WEST_PLUME_DT_MIN);
}

/*
 * The turbulent velocities over dt, in the normalized form of Thomson's
 * (1987) well-mixed model for Gaussian turbulence whose diagonal
 * covariance varies with height: n_i = u_i / sigma_i(z) obeys
 *   dn_i = -n_i dt / T_i + delta_iw (d sigma_w / dz) dt + sqrt(2 dt / T_i) xi_i,
 * which is Thomson's model for u_i itself (its drifts (1/2) d(sigma_w^2)/dz
 * (1 + w^2 / sigma_w^2) and (1/2) d(sigma_u^2)/dz u w / sigma_u^2 are what
 * the change of sigma along the path adds) with no term quadratic in the
 * velocity.  Each component is integrated exactly over its damping:
 *   n_i' = r n_i + (1 - r) T_i delta_iw sigma_w' + sqrt(1 - r^2) xi_i,
 *   r = e^(-dt / T_i),
 * sigma_w' from the step's start (pr) and T_i from tl (the midpoint's).
 */
WEST_HD void west_plume_langevin(const struct west_kprof *pr, const double tl[3], double dt,
				 const double g[3], double n[3])
{
	double sp = 0.5 * pr->ds2[2] / sqrt(pr->s2[2]);   /* d sigma_w / dz */

	double e = 0.0;

	for (int i = 0; i < 3; i++) {
		if (i == 0 || tl[i] != tl[i - 1])   /* equal scales: one expm1 */
			e = -expm1(-dt / tl[i]);     /* 1 - r */
		double drift = i == 2 ? e * tl[i] * sp : 0.0;
		n[i] = (1.0 - e) * n[i] + drift + sqrt(e * (2.0 - e)) * g[i];
	}
}

/*
 * After a move: reflect at the ground (z below it: mirrored, w reversed)
 * and, for a particle that started the step below the mixing height
 * (below_lid), at the mixing height likewise, then kept between the two.
 * Returns 0 when the particle left the domain: beyond its sides (the
 * outer edges belong to it), above the top, or over a column that is
 * land to the top.
 */
WEST_HD int west_plume_bounds(const struct west_kplume *k, struct west_pstate *s,
			      const struct west_ppos *q, int below_lid)
{
	const struct west_kwind *w = &k->wind;
	double lid = q->ground + q->hmix;

	if (s->x < 0.0 || s->y < 0.0 || s->x > (double)w->nx * w->dx ||
	    s->y > (double)w->ny * w->dy || k->zlow[q->col] < 0.0)
		return 0;
	if (s->z < q->ground) {
		s->z = 2.0 * q->ground - s->z;
		s->u[2] = -s->u[2];
	}
	if (below_lid && s->z > lid) {
		s->z = west_dmax(2.0 * lid - s->z, q->ground);
		s->u[2] = -s->u[2];
	}
	return s->z <= k->top;
}

/*
 * The time a particle spends in the layer over one column, summed while
 * it stays there and added to conc when it leaves (integer ticks: the
 * same sum however it is split); the column's arrival is the run's first
 * tick.
 */
struct west_prun {
	size_t col;
	int on;
	unsigned long long ticks;
};

WEST_HD void west_plume_flush(const struct west_kparticles *s, struct west_prun *r)
{
	if (r->on && r->ticks)
		west_plume_add(&s->conc[r->col], r->ticks);
	r->on = 0;
	r->ticks = 0;
}

WEST_HD void west_plume_sample(const struct west_kparticles *s, struct west_prun *r, int in_layer,
			       size_t col, double t, double dt)
{
	if (!in_layer || (r->on && r->col != col))
		west_plume_flush(s, r);
	if (!in_layer)
		return;
	if (!r->on) {
		r->on = 1;
		r->col = col;
		west_plume_min(&s->arrival[col], west_plume_fix(t, WEST_PLUME_TICK));
	}
	r->ticks += west_plume_fix(dt, WEST_PLUME_TICK);
}

/*
 * One step of particle s (released, in the domain, s->t < t_cut) at q,
 * ending at t_cut at the latest; returns 0 when it left the domain (q is
 * then stale).  The turbulence is
 * taken at the step's start, but the Lagrangian time scales at the
 * height it is predicted to reach half way (mirrored at the ground and
 * the mixing height): where T_L grows with height, as it does near the
 * ground, scales from the start alone keep a descending particle's
 * velocity too long and drop an ascending one's too soon, and gather
 * particles at the ground (docs/model.md gives the measurement).
 */
WEST_HD int west_plume_step(const struct west_kplume *k, const struct west_kparticles *ks,
			    size_t p, double t_cut, struct west_pstate *s, struct west_ppos *q,
			    struct west_prun *run)
{
	const struct west_kturb *c = &k->turb[q->col];
	double zagl = s->z - q->ground, um[3], up[3], g[3], dt, zm;
	int below_lid = zagl <= q->hmix;
	struct west_kprof pr, pm;

	west_plume_profile(k, c, q->hmix, zagl, &pr);
	west_plume_wind(k, s->x, s->y, s->z, zagl, q, um);
	for (int i = 0; i < 3; i++)
		up[i] = sqrt(pr.s2[i]) * s->u[i];
	dt = west_plume_dt(k, &pr, um, up);
	if (dt >= t_cut - s->t)
		dt = t_cut - s->t;
	west_plume_sample(ks, run, zagl < k->layer, q->col, s->t, dt);
	zm = fabs(zagl + 0.5 * (um[2] + up[2]) * dt);
	if (below_lid && zm > q->hmix)
		zm = west_dmax(2.0 * q->hmix - zm, 0.0);
	west_plume_profile(k, c, q->hmix, zm, &pm);
	west_plume_normals(k->seed, p, s->n++, g);
	west_plume_langevin(&pr, pm.tl, dt, g, s->u);
	for (int i = 0; i < 3; i++)
		up[i] = sqrt(pr.s2[i]) * s->u[i];
	s->x += (um[0] + up[0]) * dt;
	s->y += (um[1] + up[1]) * dt;
	s->z += (um[2] + up[2]) * dt;
	s->t = dt == t_cut - s->t ? t_cut : s->t + dt;
	west_plume_where(k, s->x, s->y, q);
	return west_plume_bounds(k, s, q, below_lid);
}

/* The place of particle p, in the domain: x, y and its height above the
 * ground in at[3] (for the centroid's sums). */
WEST_HD void west_plume_at(const struct west_kplume *k, const struct west_kparticles *ks,
			   size_t p, double at[3])
{
	struct west_ppos q;

	west_plume_where(k, ks->x[p], ks->y[p], &q);
	at[0] = ks->x[p], at[1] = ks->y[p], at[2] = ks->z[p] - q.ground;
}

/*
 * Particle p over one launch (kernels.h, plume_advance): released when
 * its time comes, stepped while its time is before t_end, no step going
 * past t_cut (>= t_end, the next path point), until it leaves.  A
 * particle whose time has reached t_end is neither read nor written
 * beyond its state and time.  Returns 1 when `centroid` asks for the
 * places (then t_cut == t_end, and every particle in the domain is at
 * t_end) and the particle is in the domain, with its place in at[3]
 * (west_plume_at); else 0.
 */
WEST_HD int west_plume_particle(const struct west_kplume *k, const struct west_kparticles *ks,
				size_t p, double t_end, double t_cut, int centroid, double at[3])
{
	struct west_pstate s;
	struct west_ppos q;
	struct west_prun run = { 0, 0, 0 };

	s.state = ks->state[p];
	if (s.state == 2)
		return 0;
	if (s.state == 0) {
		if ((double)p * k->duration / (double)k->np >= t_end)
			return 0;
		west_plume_release(k, p, &s, &q);
	} else {
		s.t = ks->t[p];
		if (s.t >= t_end) {
			if (centroid)
				west_plume_at(k, ks, p, at);
			return centroid;
		}
		s.x = ks->x[p], s.y = ks->y[p], s.z = ks->z[p];
		s.u[0] = ks->up[p], s.u[1] = ks->vp[p], s.u[2] = ks->wp[p];
		s.n = ks->n[p];
		west_plume_where(k, s.x, s.y, &q);
	}
	while (s.t < t_end) {
		if (!west_plume_step(k, ks, p, t_cut, &s, &q, &run)) {
			s.state = 2;
			break;
		}
	}
	west_plume_flush(ks, &run);
	ks->x[p] = s.x, ks->y[p] = s.y, ks->z[p] = s.z;
	ks->up[p] = s.u[0], ks->vp[p] = s.u[1], ks->wp[p] = s.u[2];
	ks->t[p] = s.t;
	ks->n[p] = s.n;
	ks->state[p] = s.state;
	if (s.state != 1 || !centroid)
		return 0;
	at[0] = s.x, at[1] = s.y, at[2] = s.z - q.ground;
	return 1;
}

#endif
