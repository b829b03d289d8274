/*
 * field.c: allocation of a solved field and its cell-centre view (field.h),
 * the names of the WEST steps, and the report as JSON.
 */
#include "field.h"
#include "fieldpool.h"
#include "simd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static const char *const step_names[WEST_NSTEPS][2] = {
	[WEST_STEP_STABILITY] = { "stability interpolation", "stability" },
	[WEST_STEP_EXTRAPOLATE] = { "vertical extrapolation", "extrapolate" },
	[WEST_STEP_INITIALIZE] = { "initialization", "initialize" },
	[WEST_STEP_LAND] = { "land addition", "land" },
	[WEST_STEP_INTERPOLATE] = { "speed interpolation", "interpolate" },
	[WEST_STEP_SPEED_ZERO] = { "speed zero", "speed_zero" },
	[WEST_STEP_TRANSPARENCY] = { "transparency calculation", "transparency" },
	[WEST_STEP_DIVMIN] = { "divergence minimization", "divmin" },
	[WEST_STEP_DIVREMOVAL] = { "divergence removal", "divremoval" },
};

const char *west_step_name(int step)
{
	return step >= 0 && step < WEST_NSTEPS ? step_names[step][0] : NULL;
}

const char *west_step_key(int step)
{
	return step >= 0 && step < WEST_NSTEPS ? step_names[step][1] : NULL;
}

enum west_status west_field_init(struct west_field *f, const struct west_grid *g,
				 char *err, size_t errlen)
{
	memset(f, 0, sizeof *f);
	f->nx = g->nx, f->ny = g->ny, f->nz = g->nz;
	f->u = malloc(west_grid_nxfaces(g) * sizeof *f->u);
	f->v = malloc(west_grid_nyfaces(g) * sizeof *f->v);
	f->w = malloc(west_grid_nzfaces(g) * sizeof *f->w);
	f->stability = malloc(g->nx * g->ny);
	if (!f->u || !f->v || !f->w || !f->stability) {
		west_field_free(f);
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "field: out of memory for %zu cells", west_grid_ncells(g));
	}
	return WEST_OK;
}

void west_field_shape(struct west_field *f, const struct west_grid *g)
{
	memset(f, 0, sizeof *f);
	f->nx = g->nx, f->ny = g->ny, f->nz = g->nz;
}

void west_field_free(struct west_field *f)
{
	if (f->pool) {
		west_field_pool_put(f->pool, f);
	} else {
		free(f->u);
		free(f->v);
		free(f->w);
		free(f->stability);
	}
	memset(f, 0, sizeof *f);
}

/* The mean of two opposite faces' winds, each face's flux per unit area
 * over its transparency, closed faces left out (0 when both are). */
static float open_mean(float a, float ta, float b, float tb)
{
	if (ta == 0.0f)
		return tb == 0.0f ? 0.0f : b / tb;
	if (tb == 0.0f)
		return a / ta;
	return 0.5f * (a / ta + b / tb);
}

int west_field_centre(const struct west_field *f, const struct west_grid *g,
		      size_t i, size_t j, size_t k, float out[3])
{
	size_t nx = g->nx, ny = g->ny;
	if (g->land[west_grid_cell(g, i, j, k)])
		return 0;
	size_t xf = i + (nx + 1) * (j + ny * k);
	size_t yf = i + nx * (j + (ny + 1) * k);
	size_t zf = i + nx * (j + ny * k);
	out[0] = open_mean(f->u[xf], g->tx[xf], f->u[xf + 1], g->tx[xf + 1]);
	out[1] = open_mean(f->v[yf], g->ty[yf], f->v[yf + nx], g->ty[yf + nx]);
	out[2] = open_mean(f->w[zf], g->tz[zf], f->w[zf + nx * ny], g->tz[zf + nx * ny]);
	return 1;
}

/*
 * The first cells of centre_row VL at a time (simd.h: with AVX2 where the
 * processor has it), each lane open_mean's arithmetic on its cell: the
 * divisions by a closed face's transparency become divisions by 1 whose
 * quotient is then not chosen, so every lane gives open_mean's bits.
 * Returns the cells done (a multiple of VL); 0 without the vectors.  At
 * R64 a snapshot's centres took 0.13 s a cell at a time (docs/benchmarks.md).
 */
VEC static size_t centre_row_vec(size_t nx, const float *a, const float *t, size_t face,
				 size_t step, const unsigned char *land, float fill, float *out)
{
	const vf zero = vsplat(0.0f), one = vsplat(1.0f), half = vsplat(0.5f);
	const vf vfill = vsplat(fill);
	size_t i = 0;

	if (!VEC_OK())
		return 0;
	for (; i + VL <= nx; i += VL, face += VL) {
		vf fa = vload(a + face), ta = vload(t + face);
		vf fb = vload(a + face + step), tb = vload(t + face + step);
		vi za = ta == zero, zb = tb == zero;
		vi dry = (vi)(lane_codes(loadb(land + i)) & 0xffu) != 0;
		vf qa = fa / vselect(za, one, ta), qb = fb / vselect(zb, one, tb);
		vf both = half * (qa + qb);
		vf r = vselect(za, vselect(zb, zero, qb), vselect(zb, qa, both));
		vstore(out + i, vselect(dry, vfill, r));
	}
	return i;
}

/* Row (j, k) of component comp: faces at face index `face` and `face +
 * step` of the component's face array, transparencies t. */
static void centre_row(size_t nx, const float *a, const float *t, size_t face, size_t step,
		       const unsigned char *land, float fill, float *out)
{
	size_t i = centre_row_vec(nx, a, t, face, step, land, fill, out);

	for (face += i; i < nx; i++, face++)
		out[i] = land[i] ? fill : open_mean(a[face], t[face], a[face + step],
						    t[face + step]);
}

void west_field_centres(const struct west_field *f, const struct west_grid *g, int comp,
			size_t r0, size_t r1, float fill, float *out)
{
	const size_t nx = g->nx, ny = g->ny;
	const float *a = comp == 0 ? f->u : comp == 1 ? f->v : f->w;
	const float *t = comp == 0 ? g->tx : comp == 1 ? g->ty : g->tz;
	const size_t step = comp == 0 ? 1 : comp == 1 ? nx : nx * ny;

	for (size_t r = r0; r < r1; r++) {   /* r: row j of level k */
		size_t j = r % ny, k = r / ny, c = r * nx;
		size_t face = comp == 0 ? (nx + 1) * r : comp == 1 ? nx * (j + (ny + 1) * k) : c;
		centre_row(nx, a, t, face, step, g->land + c, fill, out + (r - r0) * nx);
	}
}

static json_t *convergence_json(const struct west_convergence *c)
{
	return json_pack("{s:f, s:f, s:f}", "max_div", c->max_div,
			 "rel_max", c->rel_max, "rel_l2", c->rel_l2);
}

/* The slabs of r (west_report_slab), one per partition. */
static json_t *slabs_json(const struct west_report *r)
{
	json_t *a = json_array();
	for (int p = 0; p < r->partitions && p < WEST_MAX_PARTS; p++) {
		const struct west_report_slab *s = &r->slab[p];
		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:[I, I], s:I}", "backend",
						   s->backend, "device", s->device, "rank",
						   s->rank, "rows",
						   (json_int_t)s->j0, (json_int_t)s->j1, "cells",
						   (json_int_t)s->cells));
	}
	return a;
}

double west_report_exchange_share(const struct west_report *r)
{
	return r->total_seconds > 0 ? r->exchange_seconds / r->total_seconds : 0.0;
}

json_t *west_report_json(const struct west_report *r)
{
	json_t *sec = json_object();
	for (int s = 0; s < WEST_NSTEPS; s++)
		json_object_set_new(sec, west_step_key(s), json_real(r->step_seconds[s]));
	json_object_set_new(sec, "total", json_real(r->total_seconds));
	json_object_set_new(sec, "exchange", json_real(r->exchange_seconds));
	return json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:I, s:I, s:b, s:f, s:f, s:o, s:o, s:o, s:o, s:i, s:o, s:f}",
			 "backend", r->backend, "solver", r->solver,
			 "indexing", r->indexing, "omega", r->omega, "eta", r->eta,
			 "tolerance", r->tolerance,
			 "iterations", (json_int_t)r->iterations,
			 "iterations_max", (json_int_t)r->iterations_max,
			 "converged", r->converged, "h", r->h, "u_ref", r->u_ref,
			 "start", convergence_json(&r->start),
			 "end", convergence_json(&r->end),
			 "final", convergence_json(&r->final), "seconds", sec,
			 "partitions", r->partitions > 1 ? r->partitions : 1,
			 "slabs", slabs_json(r),
			 "exchange_share", west_report_exchange_share(r));
}
