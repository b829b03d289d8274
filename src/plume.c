/*
 * plume.c: the release plumes' driver (plume.h; docs/model.md, "Release
 * plumes"), plain C over a kernel table: the same code runs the CPU
 * reference and the CUDA kernel.
 *
 * A run: check the release; on the host, each column's lowest resolved
 * level (west_grid_lowest_level), its surface layer (friction velocity
 * from the field's wind at WEST_PLUME_ZREF above the ground through the
 * log law with its class's Monin-Obukhov length, Golder 1972 at the land
 * use's roughness; convective velocity) and its mixing height by class;
 * then into the backend's memory (k->alloc, k->upload) the field's faces,
 * the transparencies, the levels, the terrain and those columns, and a
 * zeroed block of particles; then the kernel k->plume_advance, chunk by
 * chunk (plume.h: WEST_PLUME_PATH_SECONDS, WEST_PLUME_CHUNK_WORK), the
 * centroid's sums brought down at each path point, `progress` called
 * after every chunk; at the end the accumulators and the particles'
 * states come down and become the result.
 *
 * Memory in the backend: the field's three face arrays and three
 * transparencies (4 B a face), zf, per column 4 + 8 + 1 + 12 + 4 B plus
 * the two 8 B accumulators, and 61 B a particle (seven doubles, the draw
 * counter, the state).  Every size is checked for overflow before it is
 * asked for (west_check_alloc).
 */
#include "plume.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "obs.h"
#include "plume_util.h"

#define KAPPA 0.4               /* von Karman's constant */
#define PLUME_ZREF 10.0         /* m: the height of the wind that gives u* */
#define PLUME_SPEED_MIN 0.5     /* m/s: slower winds count as this for u* */
#define PLUME_HCONV 1000.0      /* m: the convective boundary layer's depth */
#define PLUME_HMAX 2000.0       /* m: the greatest mixing height by class */

void west_plume_opts_init(struct west_plume_opts *o)
{
	memset(o, 0, sizeof *o);
	o->ustar = NAN;
	o->mixing_height = NAN;
}

void west_plume_result_free(struct west_plume_result *out)
{
	free(out->conc);
	free(out->arrival);
	free(out->path);
	memset(out, 0, sizeof *out);
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------ checks */

static enum west_status check_positive(const char *name, double v, const char *unit,
				       char *err, size_t errlen)
{
	if (!isfinite(v) || v <= 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s %g %s must be a finite number greater than 0", name, v, unit);
	return WEST_OK;
}

static enum west_status check_point(const struct west_grid *g, const struct west_release *r,
				    char *err, size_t errlen)
{
	double xe = g->x0 + (double)g->nx * g->dx, ye = g->y0 + (double)g->ny * g->dy;
	size_t i, j, k0;
	struct west_kwind kw = { .nx = g->nx, .ny = g->ny, .dx = g->dx, .dy = g->dy };

	if (!isfinite(r->x) || r->x < g->x0 || r->x > xe)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "x %.10g m is outside the domain %.10g .. %.10g m", r->x, g->x0, xe);
	if (!isfinite(r->y) || r->y < g->y0 || r->y > ye)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "y %.10g m is outside the domain %.10g .. %.10g m", r->y, g->y0, ye);
	west_wcolumn_at(&kw, r->x - g->x0, r->y - g->y0, &i, &j);
	if (west_grid_lowest_level(g, i, j, &k0) < 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "x, y: the column at x %.10g, y %.10g m is terrain up to the grid top",
				 r->x, r->y);
	return WEST_OK;
}

static enum west_status check_height(const struct west_grid *g, const struct west_release *r,
				     char *err, size_t errlen)
{
	double ground = west_grid_ground_at(g, r->x - g->x0, r->y - g->y0);
	double room = g->base + g->zf[g->nz] - ground;

	if (!isfinite(r->height) || r->height < 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "height %g m must be a finite number, at least 0", r->height);
	if (r->height > room)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "height %g m is above the grid top (%.2f m above the ground at x %.10g, y %.10g m)",
				 r->height, room, r->x, r->y);
	return WEST_OK;
}

static enum west_status check_times(const struct west_release *r, char *err, size_t errlen)
{
	enum west_status st = check_positive("duration", r->duration, "s", err, errlen);

	if (!st)
		st = check_positive("seconds", r->seconds, "s", err, errlen);
	if (st)
		return st;
	if (r->seconds < r->duration)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "seconds %g s is shorter than the duration %g s: the run must see the whole release",
				 r->seconds, r->duration);
	if (r->seconds > WEST_PLUME_MAX_SECONDS)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "seconds %g s is more than the limit of %g s", r->seconds,
				 WEST_PLUME_MAX_SECONDS);
	return WEST_OK;
}

static enum west_status check_release(const struct west_grid *g, const struct west_release *r,
				      char *err, size_t errlen)
{
	enum west_status st = check_point(g, r, err, errlen);

	if (!st)
		st = check_height(g, r, err, errlen);
	if (!st)
		st = check_times(r, err, errlen);
	if (!st && (r->particles <= 0 || r->particles > WEST_PLUME_MAX_PARTICLES))
		st = west_fail(err, errlen, WEST_ERR_INVALID, "particles %ld must be in 1 .. %ld",
			       r->particles, WEST_PLUME_MAX_PARTICLES);
	if (!st)
		st = check_positive("layer", r->layer, "m", err, errlen);
	if (!st && r->layer > g->zf[g->nz])
		st = west_fail(err, errlen, WEST_ERR_INVALID,
			       "layer %g m is deeper than the grid (%g m)", r->layer, g->zf[g->nz]);
	return st;
}

static enum west_status check_opts(const struct west_plume_opts *o, char *err, size_t errlen)
{
	if (!isnan(o->ustar) && (!isfinite(o->ustar) || o->ustar <= 0))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "ustar %g m/s must be greater than 0 (or NaN: from the field)", o->ustar);
	if (!isnan(o->mixing_height) &&
	    (!isfinite(o->mixing_height) || o->mixing_height < WEST_PLUME_HMIN))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "mixing_height %g m must be at least %g m (or NaN: by class)",
				 o->mixing_height, WEST_PLUME_HMIN);
	if (!(o->chunk_work == 0 || (isfinite(o->chunk_work) && o->chunk_work >= 1)))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "chunk_work %g particle-seconds must be at least 1 (or 0: the "
				 "backend's rule)", o->chunk_work);
	if (!(o->launch_seconds == 0 || (isfinite(o->launch_seconds) && o->launch_seconds > 0)))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "launch_seconds %g must be greater than 0 (or 0: the backend's)",
				 o->launch_seconds);
	if (o->t_l == 0)
		return WEST_OK;
	if (!isfinite(o->t_l) || o->t_l < 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "t_l %g s must be greater than 0 (or 0: the profiles)", o->t_l);
	if (!(o->sigma_u >= 0 && o->sigma_v >= 0 && o->sigma_w >= 0) ||
	    !isfinite(o->sigma_u + o->sigma_v + o->sigma_w))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "sigma_u, sigma_v, sigma_w %g, %g, %g m/s must be finite, at least 0",
				 o->sigma_u, o->sigma_v, o->sigma_w);
	return WEST_OK;
}

/* ------------------------------------------------- the columns' layers */

/* The roughness length of the land use the field was solved with, known
 * by the power-law exponents it keeps (field.h): urban's, or rural's. */
static double field_z0(const struct west_field *f)
{
	const float *urban = west_power_exponents(WEST_LAND_URBAN);
	int is_urban = memcmp(f->power_exponent, urban, sizeof f->power_exponent) == 0;
	return west_default_z0(is_urban ? WEST_LAND_URBAN : WEST_LAND_RURAL);
}

/* The horizontal wind speed (m/s) at PLUME_ZREF above column (i, j)'s
 * centre (the top face where that is above it), by the shared bodies. */
static double column_speed(const struct west_grid *g, const struct west_field *f,
			   const struct west_kwind *kw, size_t i, size_t j, double zlow)
{
	size_t c = j * g->nx + i;
	double ground = (double)g->terrain[c], top = g->base + g->zf[g->nz];
	double z = fmin(ground + PLUME_ZREF, top), uvw[3];

	west_wind_at(kw, ((double)i + 0.5) * g->dx, ((double)j + 0.5) * g->dy, z, z - ground,
		     ground, g->base, zlow, f->power_exponent[f->stability[c] % 6], uvw);
	return hypot(uvw[0], uvw[1]);
}

/* The mixing height (m) by class: 0.4 sqrt(u* L / f) stable, 0.3 u* / f
 * neutral, PLUME_HCONV unstable; within [WEST_PLUME_HMIN, PLUME_HMAX]. */
static double class_mixing_height(double ustar, double inv_l)
{
	double f = WEST_PLUME_FCOR, h;

	if (inv_l > 0)
		h = 0.4 * sqrt(ustar / (f * inv_l));
	else if (inv_l == 0)
		h = 0.3 * ustar / f;
	else
		h = PLUME_HCONV;
	return fmin(fmax(h, WEST_PLUME_HMIN), PLUME_HMAX);
}

/* Column c's surface layer and mixing height, its wind speed at
 * PLUME_ZREF being `speed`. */
static void column_layer(const struct west_plume_opts *o, int cls, double z0, double speed,
			 struct west_kturb *t, float *hmix)
{
	double inv_l = west_golder_inv_l(cls, z0), z = PLUME_ZREF, us, h;
	double denom = log(fmax(z / z0, 1.01)) + (inv_l > 0 ? 5.0 * z * inv_l : 0.0);

	us = isnan(o->ustar) ? KAPPA * fmax(speed, PLUME_SPEED_MIN) / denom : o->ustar;
	h = isnan(o->mixing_height) ? class_mixing_height(us, inv_l) : o->mixing_height;
	t->ustar = (float)us;
	t->inv_l = (float)inv_l;
	t->wstar = inv_l < 0 ? (float)(us * cbrt(h * -inv_l / KAPPA)) : 0.0f;
	*hmix = (float)h;
}

/* Every column's lowest resolved level, surface layer and mixing height. */
static void columns(const struct west_grid *g, const struct west_field *f,
		    const struct west_plume_opts *o, double *zlow, struct west_kturb *turb,
		    float *hmix)
{
	struct west_kwind kw = {
		.nx = g->nx, .ny = g->ny, .nz = g->nz, .dx = g->dx, .dy = g->dy, .zf = g->zf,
		.u = f->u, .v = f->v, .w = f->w, .tx = g->tx, .ty = g->ty, .tz = g->tz,
	};
	double z0 = field_z0(f);

	for (size_t j = 0; j < g->ny; j++)
		for (size_t i = 0; i < g->nx; i++) {
			size_t c = j * g->nx + i, k0;
			zlow[c] = west_grid_lowest_level(g, i, j, &k0);
			double s = zlow[c] < 0 ? 0.0 : column_speed(g, f, &kw, i, j, zlow[c]);
			column_layer(o, f->stability[c] % WEST_NSTAB, z0, s, &turb[c], &hmix[c]);
		}
}

/* ------------------------------------------------------ backend memory */

struct plume_mem {
	const struct west_kernel_ops *k;
	void *p[32];   /* 12 inputs, 10 particle blocks, 5 for their order */
	int n;
};

static enum west_status mem_alloc(struct plume_mem *m, void **p, size_t count, size_t size,
				  const char *what, char *err, size_t errlen)
{
	enum west_status st = west_check_alloc(count, size, what, err, errlen);

	*p = NULL;
	if (st)
		return st;
	if (m->n == (int)(sizeof m->p / sizeof *m->p))
		return west_fail(err, errlen, WEST_ERR_NOMEM, "%s: more than %zu blocks", what,
				 sizeof m->p / sizeof *m->p);
	if ((st = m->k->alloc(p, count * size > 0 ? count * size : 1, err, errlen)))
		return st;
	m->p[m->n++] = *p;
	return WEST_OK;
}

/* A copy of host src (count items of size bytes) in the backend. */
static enum west_status mem_copy(struct plume_mem *m, const void **p, const void *src,
				 size_t count, size_t size, const char *what, char *err,
				 size_t errlen)
{
	void *d;
	enum west_status st = mem_alloc(m, &d, count, size, what, err, errlen);

	if (!st)
		st = m->k->upload(d, src, count * size, err, errlen);
	*p = d;
	return st;
}

static void mem_free(struct plume_mem *m)
{
	char ignore[WEST_ERRLEN];

	while (m->n > 0)
		m->k->free(m->p[--m->n], ignore, sizeof ignore);
}

/* ----------------------------------------------------------- the run */

struct plume_run {
	const struct west_grid *g;
	const struct west_release *r;
	struct west_kplume kp;
	struct west_kparticles ps;
	struct plume_mem mem;
	double *zlow;                /* host: nx * ny */
	struct west_kturb *turb;     /* host: nx * ny */
	float *hmix;                 /* host: nx * ny */
};

/* The field, grid and columns into the backend: rn->kp. */
static enum west_status upload_inputs(struct plume_run *rn, const struct west_field *f,
				      char *err, size_t errlen)
{
	const struct west_grid *g = rn->g;
	struct plume_mem *m = &rn->mem;
	struct west_kwind *w = &rn->kp.wind;
	size_t ncol = g->nx * g->ny;
	const void *p[12];
	enum west_status st = WEST_OK;

	st = mem_copy(m, &p[0], f->u, west_grid_nxfaces(g), sizeof(float), "plume: u", err, errlen);
	if (!st) st = mem_copy(m, &p[1], f->v, west_grid_nyfaces(g), sizeof(float), "plume: v", err, errlen);
	if (!st) st = mem_copy(m, &p[2], f->w, west_grid_nzfaces(g), sizeof(float), "plume: w", err, errlen);
	if (!st) st = mem_copy(m, &p[3], g->tx, west_grid_nxfaces(g), sizeof(float), "plume: tx", err, errlen);
	if (!st) st = mem_copy(m, &p[4], g->ty, west_grid_nyfaces(g), sizeof(float), "plume: ty", err, errlen);
	if (!st) st = mem_copy(m, &p[5], g->tz, west_grid_nzfaces(g), sizeof(float), "plume: tz", err, errlen);
	if (!st) st = mem_copy(m, &p[6], g->zf, g->nz + 1, sizeof(double), "plume: levels", err, errlen);
	if (!st) st = mem_copy(m, &p[7], g->terrain, ncol, sizeof(float), "plume: terrain", err, errlen);
	if (!st) st = mem_copy(m, &p[8], rn->zlow, ncol, sizeof(double), "plume: lowest levels", err, errlen);
	if (!st) st = mem_copy(m, &p[9], f->stability, ncol, 1, "plume: classes", err, errlen);
	if (!st) st = mem_copy(m, &p[10], rn->turb, ncol, sizeof(struct west_kturb), "plume: columns", err, errlen);
	if (!st) st = mem_copy(m, &p[11], rn->hmix, ncol, sizeof(float), "plume: mixing heights", err, errlen);
	if (st)
		return st;
	*w = (struct west_kwind){ .nx = g->nx, .ny = g->ny, .nz = g->nz, .dx = g->dx, .dy = g->dy,
				  .zf = p[6], .u = p[0], .v = p[1], .w = p[2],
				  .tx = p[3], .ty = p[4], .tz = p[5] };
	rn->kp.terrain = p[7];
	rn->kp.zlow = p[8];
	rn->kp.cls = p[9];
	rn->kp.turb = p[10];
	rn->kp.hmix = p[11];
	return WEST_OK;
}

/* The thinnest level (m). */
static double thinnest(const struct west_grid *g)
{
	double d = INFINITY;
	for (size_t k = 0; k < g->nz; k++)
		d = fmin(d, g->zf[k + 1] - g->zf[k]);
	return d;
}

/* The kernel's scalars: the release, the grid's, the options'. */
static void kernel_scalars(struct plume_run *rn, const struct west_field *f,
			   const struct west_plume_opts *o)
{
	const struct west_grid *g = rn->g;
	const struct west_release *r = rn->r;
	struct west_kplume *kp = &rn->kp;

	kp->base = g->base;
	kp->top = g->base + g->zf[g->nz];
	kp->dzmin = thinnest(g);
	memcpy(kp->pexp, f->power_exponent, sizeof kp->pexp);
	kp->tl = o->t_l;
	kp->sigma[0] = o->sigma_u, kp->sigma[1] = o->sigma_v, kp->sigma[2] = o->sigma_w;
	kp->np = (size_t)r->particles;
	kp->seed = r->seed;
	kp->x = r->x - g->x0;
	kp->y = r->y - g->y0;
	kp->height = r->height;
	kp->duration = r->duration;
	kp->uniform_z = o->uniform_z;
	kp->layer = r->layer;
}

/* The GPU's order of the particles (kernels.h, struct west_kparticles);
 * the first launch takes them as they are. */
static enum west_status alloc_order(struct plume_mem *m, struct west_kparticles *s, size_t np,
				    char *err, size_t errlen)
{
	const char *what = "plume: the particles' order";
	void *order, *ids, *steps, *keys;
	enum west_status st;

	s->scratch_bytes = m->k->plume_order_bytes(np);
	if (s->scratch_bytes == 0)
		return west_fail(err, errlen, WEST_ERR_CUDA, "%s: no size for %zu particles",
				 what, np);
	st = mem_alloc(m, &order, np, sizeof(unsigned), what, err, errlen);
	if (!st) st = mem_alloc(m, &ids, np, sizeof(unsigned), what, err, errlen);
	if (!st) st = mem_alloc(m, &steps, np, 1, what, err, errlen);
	if (!st) st = mem_alloc(m, &keys, np, 1, what, err, errlen);
	if (!st) st = mem_alloc(m, &s->scratch, s->scratch_bytes, 1, what, err, errlen);
	if (st)
		return st;
	s->order = order, s->ids = ids, s->steps = steps, s->keys = keys;
	s->ordered = 0;
	return WEST_OK;
}

/* The particles (zeroed: none released) and the accumulators (conc 0,
 * arrival ~0 = none) in the backend. */
static enum west_status alloc_particles(struct plume_run *rn, char *err, size_t errlen)
{
	size_t np = rn->kp.np, ncol = rn->g->nx * rn->g->ny;
	struct plume_mem *m = &rn->mem;
	struct west_kparticles *s = &rn->ps;
	double *d[7];
	void *n, *state, *acc;
	enum west_status st = WEST_OK;

	for (int i = 0; i < 7 && !st; i++)
		st = mem_alloc(m, (void **)&d[i], np, sizeof(double), "plume: particles", err, errlen);
	if (!st) st = mem_alloc(m, &n, np, sizeof(unsigned), "plume: particle counters", err, errlen);
	if (!st) st = mem_alloc(m, &state, np, 1, "plume: particle states", err, errlen);
	if (!st) st = mem_alloc(m, &acc, 2 * ncol + 4, sizeof(unsigned long long), "plume: accumulators", err, errlen);
	if (st)
		return st;
	*s = (struct west_kparticles){ .x = d[0], .y = d[1], .z = d[2], .up = d[3], .vp = d[4],
				       .wp = d[5], .t = d[6], .n = n, .state = state,
				       .conc = acc, .arrival = (unsigned long long *)acc + ncol,
				       .sums = (unsigned long long *)acc + 2 * ncol };
	st = m->k->fill(state, 0, np, err, errlen);
	if (!st) st = m->k->fill(s->conc, 0, ncol * sizeof(unsigned long long), err, errlen);
	if (!st) st = m->k->fill(s->arrival, 0xFF, ncol * sizeof(unsigned long long), err, errlen);
	if (!st && m->k->plume_order_bytes)
		st = alloc_order(m, s, np, err, errlen);
	return st;
}

/* Append the centroid at time t from the sums sm (kernels.h units). */
static void add_point(struct west_plume_result *out, const struct west_grid *g, double t,
		      const unsigned long long sm[4])
{
	if (sm[3] == 0)
		return;
	double n = (double)sm[3], s = WEST_PLUME_POS * n;
	out->path[out->npath++] = (struct west_plume_point){
		.t = t, .x = g->x0 + (double)sm[0] / s, .y = g->y0 + (double)sm[1] / s,
		.z_agl = (double)sm[2] / s, .n = (long)sm[3] };
}

/* One chunk to t_end, no step past the path point t_cut; at the path
 * point (t_end == t_cut) its centroid. */
static enum west_status run_chunk(struct plume_run *rn, struct west_plume_result *out,
				  double t_end, double t_cut, char *err, size_t errlen)
{
	const struct west_kernel_ops *k = rn->mem.k;
	unsigned long long sm[4];
	enum west_status st = WEST_OK;
	int centroid = t_end == t_cut;

	if (centroid)
		st = k->fill(rn->ps.sums, 0, sizeof sm, err, errlen);
	if (!st && (st = k->plume_advance(&rn->kp, &rn->ps, t_end, t_cut, centroid)))
		return west_fail(err, errlen, st, "plume: the %s kernel failed (its log says why)",
				 k->backend);
	rn->ps.ordered = rn->ps.order != NULL;   /* the launch left its order */
	if (!st && centroid && !(st = k->download(sm, rn->ps.sums, sizeof sm, err, errlen)))
		add_point(out, rn->g, t_end, sm);
	if (!st && !centroid && k->sync && (st = k->sync()))
		return west_fail(err, errlen, st, "plume: the %s kernel failed (its log says why)",
				 k->backend);
	return st;
}

/* How the path intervals are cut into launches (plume.h). */
struct pace {
	double target;   /* wall seconds a launch aims at; 0: nsub even launches */
	long nsub;       /* launches a path interval, without target */
	double span;     /* with target: the next launch's simulated seconds */
};

/* The shortest launch the pace asks for: a path interval's 240th (0.25 s
 * simulated).  Where a launch's fixed cost alone is past the target (a
 * slow or crowded host), the pace would otherwise shrink the spans to
 * nothing and pay that cost for every millisecond simulated; at this
 * floor a run is at most 240 launches a path interval, longer each than
 * the target. */
#define PACE_MIN_SPAN (WEST_PLUME_PATH_SECONDS / 240.0)
#define PACE_GROW 1.25       /* the most a span grows from one launch to the next */
#define PACE_SHRINK 0.25     /* and the least it shrinks to */
#define PACE_TAIL 0.25       /* a rest of the interval within this many spans is
				no launch of its own */

static void pace_init(struct pace *pc, const struct plume_run *rn,
		      const struct west_plume_opts *o)
{
	double work = o->chunk_work > 0 ? o->chunk_work : WEST_PLUME_CHUNK_WORK;
	double np = (double)rn->kp.np;

	pc->target = o->chunk_work > 0 ? 0.0 : o->launch_seconds > 0 ? o->launch_seconds
					 : rn->mem.k->plume_launch_seconds;
	pc->nsub = (long)ceil(np * WEST_PLUME_PATH_SECONDS / work);
	pc->nsub = pc->nsub < 1 ? 1 : pc->nsub;
	pc->span = fmax(fmin(work / np, WEST_PLUME_PATH_SECONDS), PACE_MIN_SPAN);
}

/* The end of launch s (from 1) of the interval [ta, tb] that starts at t:
 * even, or the pace's span (taking the interval's rest along when that
 * is within PACE_TAIL spans). */
static double pace_end(const struct pace *pc, double ta, double tb, double t, long s)
{
	if (pc->target <= 0)
		return s >= pc->nsub ? tb : ta + (tb - ta) * (double)s / (double)pc->nsub;
	return t + (1.0 + PACE_TAIL) * pc->span >= tb ? tb : t + pc->span;
}

/* After a launch of `simulated` seconds that took `wall` (one cut short
 * to half its span or less by a path point says too little): the next
 * span from its pace, at most PACE_GROW and at least PACE_SHRINK times
 * the span, and never more than a path interval (so that the pace keeps
 * being measured). */
static void pace_update(struct pace *pc, double simulated, double wall)
{
	double want;

	if (pc->target <= 0 || simulated < 0.5 * pc->span || !(wall > 0))
		return;
	want = simulated * pc->target / wall;
	want = fmax(fmin(want, PACE_GROW * pc->span), PACE_SHRINK * pc->span);
	pc->span = fmax(fmin(want, WEST_PLUME_PATH_SECONDS), PACE_MIN_SPAN);
}

/* Every path interval in launches (struct pace), progress after each. */
static enum west_status run_chunks(struct plume_run *rn, struct west_plume_result *out,
				   const struct west_plume_opts *o,
				   west_plume_progress_fn progress, void *ctx,
				   char *err, size_t errlen)
{
	double secs = rn->r->seconds, path = WEST_PLUME_PATH_SECONDS;
	enum west_status st = WEST_OK;
	struct pace pc;

	pace_init(&pc, rn, o);
	for (long m = 0; !st && (double)m * path < secs; m++) {
		double ta = (double)m * path, tb = fmin((double)(m + 1) * path, secs), t = ta;
		for (long s = 1; !st && t < tb; s++) {
			double te = pace_end(&pc, ta, tb, t, s), w0 = now_seconds(), w;
			st = run_chunk(rn, out, te, tb, err, errlen);
			w = now_seconds() - w0;
			out->launches++;
			out->launch_max_seconds = fmax(out->launch_max_seconds, w);
			pace_update(&pc, te - t, w);
			if (!st && progress && progress(ctx, te))
				st = west_fail(err, errlen, WEST_ERR_INVALID, "cancelled");
			t = te;
		}
	}
	return st;
}

/* conc and arrival from the accumulators. */
static enum west_status fetch_columns(struct plume_run *rn, struct west_plume_result *out,
				      char *err, size_t errlen)
{
	size_t ncol = rn->g->nx * rn->g->ny;
	unsigned long long *acc = malloc(2 * ncol * sizeof *acc);
	double per = 1.0 / ((double)rn->r->particles * rn->g->dx * rn->g->dy * rn->r->layer);
	enum west_status st;

	if (!acc)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "plume: no memory for the accumulators");
	st = rn->mem.k->download(acc, rn->ps.conc, 2 * ncol * sizeof *acc, err, errlen);
	for (size_t c = 0; !st && c < ncol; c++) {
		out->conc[c] = (float)((double)acc[c] / WEST_PLUME_TICK * per);
		out->arrival[c] = acc[ncol + c] == ~0ULL ? NAN
				  : (float)((double)acc[ncol + c] / WEST_PLUME_TICK);
	}
	free(acc);
	return st;
}

/* The particles' states (outside), and with `pos` their places (plume.h). */
static enum west_status fetch_particles(struct plume_run *rn, struct west_plume_result *out,
					double *pos, char *err, size_t errlen)
{
	const struct west_grid *g = rn->g;
	const struct west_kernel_ops *k = rn->mem.k;
	size_t np = rn->kp.np;
	unsigned char *state = malloc(np);
	double *xyz = pos ? malloc(3 * np * sizeof *xyz) : NULL;
	enum west_status st;

	if (!state || (pos && !xyz)) {
		free(state), free(xyz);
		return west_fail(err, errlen, WEST_ERR_NOMEM, "plume: no memory for the particles");
	}
	st = k->download(state, rn->ps.state, np, err, errlen);
	if (!st && pos) st = k->download(xyz, rn->ps.x, np * sizeof *xyz, err, errlen);
	if (!st && pos) st = k->download(xyz + np, rn->ps.y, np * sizeof *xyz, err, errlen);
	if (!st && pos) st = k->download(xyz + 2 * np, rn->ps.z, np * sizeof *xyz, err, errlen);
	for (size_t p = 0; !st && p < np; p++) {
		out->outside += state[p] == 2;
		if (!pos)
			continue;
		double x = xyz[p], y = xyz[np + p];
		pos[4 * p] = g->x0 + x;
		pos[4 * p + 1] = g->y0 + y;
		pos[4 * p + 2] = xyz[2 * np + p] -
				 west_wbilinear(g->terrain, g->nx, g->ny, g->dx, g->dy, x, y);
		pos[4 * p + 3] = state[p];
	}
	free(state);
	free(xyz);
	return st;
}

/* out's arrays and scalars, before the run. */
static enum west_status result_init(const struct west_grid *g, const struct west_release *r,
				    struct west_plume_result *out, char *err, size_t errlen)
{
	size_t ncol = g->nx * g->ny, npath = (size_t)ceil(r->seconds / WEST_PLUME_PATH_SECONDS) + 1;

	memset(out, 0, sizeof *out);
	out->conc = malloc(ncol * sizeof *out->conc);
	out->arrival = malloc(ncol * sizeof *out->arrival);
	out->path = malloc(npath * sizeof *out->path);
	if (!out->conc || !out->arrival || !out->path) {
		west_plume_result_free(out);
		return west_fail(err, errlen, WEST_ERR_NOMEM, "plume: no memory for the result");
	}
	out->nx = g->nx, out->ny = g->ny;
	out->x0 = g->x0, out->y0 = g->y0, out->dx = g->dx, out->dy = g->dy;
	out->layer = r->layer;
	out->particles = r->particles;
	/* the release itself: particle 0, released at 0 */
	out->path[out->npath++] = (struct west_plume_point){ .t = 0, .x = r->x, .y = r->y,
							     .z_agl = r->height, .n = 1 };
	return WEST_OK;
}

static enum west_status host_columns(struct plume_run *rn, const struct west_field *f,
				     const struct west_plume_opts *o, char *err, size_t errlen)
{
	size_t ncol = rn->g->nx * rn->g->ny;

	rn->zlow = malloc(ncol * sizeof *rn->zlow);
	rn->turb = malloc(ncol * sizeof *rn->turb);
	rn->hmix = malloc(ncol * sizeof *rn->hmix);
	if (!rn->zlow || !rn->turb || !rn->hmix)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "plume: no memory for the columns");
	columns(rn->g, f, o, rn->zlow, rn->turb, rn->hmix);
	return WEST_OK;
}

static enum west_status run(struct plume_run *rn, const struct west_field *f,
			    const struct west_plume_opts *o, west_plume_progress_fn progress,
			    void *ctx, struct west_plume_result *out, char *err, size_t errlen)
{
	enum west_status st = host_columns(rn, f, o, err, errlen);

	if (!st) {
		out->mixing_height = west_wbilinear(rn->hmix, rn->g->nx, rn->g->ny, rn->g->dx,
						    rn->g->dy, rn->r->x - rn->g->x0,
						    rn->r->y - rn->g->y0);
		st = upload_inputs(rn, f, err, errlen);
	}
	if (st)
		return st;
	kernel_scalars(rn, f, o);
	st = alloc_particles(rn, err, errlen);
	if (!st)
		st = run_chunks(rn, out, o, progress, ctx, err, errlen);
	if (!st)
		st = fetch_columns(rn, out, err, errlen);
	if (!st)
		st = fetch_particles(rn, out, o->positions, err, errlen);
	if (!st && o->order && rn->ps.ordered)
		st = rn->mem.k->download(o->order, rn->ps.order, rn->kp.np * sizeof *o->order,
					 err, errlen);
	return st;
}

enum west_status west_plume_run_opts(const struct west_grid *g, const struct west_field *f,
				     const struct west_release *r,
				     const struct west_plume_opts *o,
				     const struct west_kernel_ops *k,
				     west_plume_progress_fn progress, void *ctx,
				     struct west_plume_result *out, char *err, size_t errlen)
{
	struct west_plume_opts dflt;
	struct plume_run rn = { .g = g, .r = r, .mem = { .k = k } };
	double t0 = now_seconds();
	enum west_status st;

	memset(out, 0, sizeof *out);
	if (!o) {
		west_plume_opts_init(&dflt);
		o = &dflt;
	}
	if (f->nx != g->nx || f->ny != g->ny || f->nz != g->nz)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "plume: the field (%zu x %zu x %zu) is not of the grid (%zu x %zu x %zu)",
				 f->nx, f->ny, f->nz, g->nx, g->ny, g->nz);
	if (!k->plume_advance)
		return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
				 "plume: the %s backend has no plume kernel", k->backend);
	if ((st = check_release(g, r, err, errlen)) || (st = check_opts(o, err, errlen)) ||
	    (st = result_init(g, r, out, err, errlen)))
		return st;
	st = run(&rn, f, o, progress, ctx, out, err, errlen);
	mem_free(&rn.mem);
	free(rn.zlow);
	free(rn.turb);
	free(rn.hmix);
	if (st) {
		west_plume_result_free(out);
		return st;
	}
	out->wall_seconds = now_seconds() - t0;
	return WEST_OK;
}

enum west_status west_plume_run(const struct west_grid *g, const struct west_field *f,
				const struct west_release *r, const struct west_kernel_ops *k,
				west_plume_progress_fn progress, void *ctx,
				struct west_plume_result *out, char *err, size_t errlen)
{
	return west_plume_run_opts(g, f, r, NULL, k, progress, ctx, out, err, errlen);
}
