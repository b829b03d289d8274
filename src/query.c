/*
 * query.c: point, profile and slice queries on a solved field (query.h).
 * The interpolation below is written once, in kernels/wind_util.h, whose
 * bodies the release plumes' particles run too (on the CPU and the GPU),
 * so a particle moves with the wind a query answers at its position.
 *
 * Where each component lives (grid-local x, y from the outer corner x0, y0;
 * h above the grid base; zc[k] = (zf[k] + zf[k+1]) / 2):
 *   u: x-face (i, j, k) at (i dx,         (j + 1/2) dy, zc[k])
 *   v: y-face (i, j, k) at ((i + 1/2) dx, j dy,         zc[k])
 *   w: z-face (i, j, k) at ((i + 1/2) dx, (j + 1/2) dy, zf[k])
 * Along each axis a component's positions are either the faces (its own
 * axis) or the centres (the other two); a query point is placed among each
 * set by a fractional index, and the component is the trilinear blend of
 * its eight surrounding values.
 *
 * Clamping (constant extrapolation): a point beyond a component's outermost
 * positions takes the value at the nearest one along that axis.  So u and
 * v are constant above the highest level centre zc[nz-1]; v and w are
 * constant within half a cell of the west and east edges, u and w within
 * half a cell of the south and north edges.
 *
 * Open faces only: a face touching land (or the ground) holds 0 in the
 * field as the no-flux condition, not as a wind, so the blend takes only
 * the corners on open faces, their weights renormalized (0 when none is
 * open).  The field holds each face's flux per unit face area; a face open
 * by a fraction T (cut cells, grid.h) is read as that over T, the wind in
 * its open part.
 *
 * Near the ground (docs/model.md, "Near the ground"): the lowest resolved
 * level of the column holding (x, y) is the centre of the open part of its
 * lowest air cell (west_grid_lowest_level), z_ref above the local ground.
 * A point in the air below it (z_agl < z_ref, including a point inside a
 * land cell) gets the blend at z_ref carried down by the column's power law:
 * u, v times (z_agl / z_ref)^p, p the exponent of the column's class that
 * the solve used (field.h), and w times z_agl / z_ref, so the wind is 0 at
 * the ground.
 *
 * True north: with a transverse Mercator CRS, u and v are rotated from the
 * grid's x and y to true east and north by the meridian convergence at the
 * point (west_grid_convergence), so the direction is from true north; the
 * field (and the snapshots' x_wind, y_wind) stay grid-relative.  Without
 * such a CRS they are the grid's.
 *
 * Validity: the domain includes its outer edges; a point is in the air when
 * z_agl >= 0 (ground: west_grid_ground_at, bilinear between column
 * centres) and z_msl is at most the top face.  A point on a face belongs to
 * the cell above (or east, north), the top face and the east and north
 * edges to the last cell.
 */
#include "query.h"

#include <assert.h>
#include <math.h>

#include "wind_util.h"

#define DEG_PER_RAD 57.29577951308232

/* The field and grid as the shared wind bodies take them (wind_util.h). */
static struct west_kwind kwind(const struct west_grid *g, const struct west_field *f)
{
	struct west_kwind k = {
		.nx = g->nx, .ny = g->ny, .nz = g->nz, .dx = g->dx, .dy = g->dy, .zf = g->zf,
		.u = f->u, .v = f->v, .w = f->w, .tx = g->tx, .ty = g->ty, .tz = g->tz,
	};
	return k;
}

static enum west_status check_coord(const char *name, double v, double lo,
				    double hi, char *err, size_t errlen)
{
	if (!isfinite(v))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s %g is not a finite number", name, v);
	if (v < lo || v > hi)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "%s %.10g m is outside the domain %.10g .. %.10g m",
				 name, v, lo, hi);
	return WEST_OK;
}

static enum west_status check_xy(const struct west_grid *g, double x, double y,
				 char *err, size_t errlen)
{
	enum west_status st = check_coord("x", x, g->x0,
					  g->x0 + (double)g->nx * g->dx, err, errlen);
	if (st)
		return st;
	return check_coord("y", y, g->y0, g->y0 + (double)g->ny * g->dy, err, errlen);
}

static enum west_status check_z(double z, enum west_zref zref,
				char *err, size_t errlen)
{
	if (zref != WEST_ZREF_AGL && zref != WEST_ZREF_MSL)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "zref %d is neither AGL (%d) nor MSL (%d)",
				 (int)zref, WEST_ZREF_AGL, WEST_ZREF_MSL);
	if (!isfinite(z))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "z %g is not a finite number", z);
	return WEST_OK;
}

/* Below the ground or above the top: the messages echo z as the caller
 * gave it. */
static enum west_status check_air(const struct west_grid *g,
				  const struct west_point *p, enum west_zref zref,
				  char *err, size_t errlen)
{
	const char *ref = zref == WEST_ZREF_AGL ? "AGL" : "MSL";
	double z = zref == WEST_ZREF_AGL ? p->z_agl : p->z_msl;
	double top = g->base + g->zf[g->nz];

	if (p->z_agl < 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "z %.10g m %s is below the ground at x %.10g, y %.10g m (ground %.2f m MSL)",
				 z, ref, p->x, p->y, p->ground);
	if (p->z_msl > top)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "z %.10g m %s is above the grid top (top %.2f m MSL, %.2f m above the ground here)",
				 z, ref, top, top - p->ground);
	return WEST_OK;
}

/* u, v, w of p at its height, the lowest resolved level carried down to
 * it where it lies below that level (the rule at the top of this file). */
static enum west_status wind_at(const struct west_grid *g, const struct west_field *f,
				struct west_point *p, char *err, size_t errlen)
{
	double xl = p->x - g->x0, yl = p->y - g->y0, zlow, uvw[3];
	struct west_kwind k = kwind(g, f);
	size_t i, j, k0;

	west_wcolumn_at(&k, xl, yl, &i, &j);
	zlow = west_grid_lowest_level(g, i, j, &k0);
	if (zlow < 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "the column at x %.10g, y %.10g m is terrain up to the grid top",
				 p->x, p->y);
	west_wind_at(&k, xl, yl, p->z_msl, p->z_agl, p->ground, g->base, zlow,
		     f->power_exponent[f->stability[j * g->nx + i] % 6], uvw);
	double ug = uvw[0], vg = uvw[1];
	double gam = west_grid_convergence(g, xl, yl);
	/* grid x, y to true east, north: grid north lies gam clockwise of true
	 * north */
	p->u = (float)(ug * cos(gam) + vg * sin(gam));
	p->v = (float)(vg * cos(gam) - ug * sin(gam));
	p->w = (float)uvw[2];
	return WEST_OK;
}

void west_query_speed_direction(float u, float v, float *speed, float *direction)
{
	float d;

	*speed = (float)hypot(u, v);
	if (u == 0 && v == 0) {
		*direction = 0.0f;
		return;
	}
	/* 270 - atan2 lies in [90, 450]; fmod takes it to [0, 360) */
	d = (float)fmod(270.0 - atan2(v, u) * DEG_PER_RAD, 360.0);
	*direction = d >= 360.0f ? 0.0f : d;   /* float rounding up to 360 */
}

enum west_status west_query_point(const struct west_grid *g,
				  const struct west_field *f,
				  double x, double y, double z,
				  enum west_zref zref, struct west_point *out,
				  char *err, size_t errlen)
{
	struct west_point p = { .x = x, .y = y };
	enum west_status st;

	assert(f->nx == g->nx && f->ny == g->ny && f->nz == g->nz);
	st = check_xy(g, x, y, err, errlen);
	if (!st)
		st = check_z(z, zref, err, errlen);
	if (st)
		return st;
	p.ground = west_grid_ground_at(g, x - g->x0, y - g->y0);
	p.z_agl = zref == WEST_ZREF_AGL ? z : z - p.ground;
	p.z_msl = zref == WEST_ZREF_AGL ? p.ground + z : z;
	st = check_air(g, &p, zref, err, errlen);
	if (!st)
		st = wind_at(g, f, &p, err, errlen);
	if (st)
		return st;
	west_query_speed_direction(p.u, p.v, &p.speed, &p.direction);
	*out = p;
	return WEST_OK;
}

enum west_status west_query_profile(const struct west_grid *g,
				    const struct west_field *f,
				    double x, double y, struct west_point *out,
				    size_t *n, char *err, size_t errlen)
{
	enum west_status st = check_xy(g, x, y, err, errlen);

	*n = 0;
	if (st)
		return st;
	for (size_t k = 0; k < g->nz; k++) {
		double z = g->base + west_wlevel_z(g->zf, 0, k);
		if (west_query_point(g, f, x, y, z, WEST_ZREF_MSL, &out[*n],
				     NULL, 0) == WEST_OK)
			(*n)++;
	}
	if (*n == 0)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "the column at x %.10g, y %.10g m is all terrain: no level centre there is above the ground (%.2f m MSL)",
				 x, y, west_grid_ground_at(g, x - g->x0, y - g->y0));
	return WEST_OK;
}

/* Slice entry at column (i, j)'s centre, where the bilinear ground is the
 * column's own: the point query there, or NaN where that fails. */
static void slice_entry(const struct west_grid *g, const struct west_field *f,
			size_t i, size_t j, double z, enum west_zref zref,
			float *u, float *v, float *w)
{
	double x = g->x0 + ((double)i + 0.5) * g->dx;
	double y = g->y0 + ((double)j + 0.5) * g->dy;
	struct west_point p;

	if (west_query_point(g, f, x, y, z, zref, &p, NULL, 0) != WEST_OK) {
		*u = *v = *w = NAN;
		return;
	}
	*u = p.u, *v = p.v, *w = p.w;
}

enum west_status west_query_slice(const struct west_grid *g,
				  const struct west_field *f,
				  double z, enum west_zref zref, size_t stride,
				  float *u, float *v, float *w,
				  size_t *nx_out, size_t *ny_out,
				  char *err, size_t errlen)
{
	enum west_status st = check_z(z, zref, err, errlen);

	if (!st && stride == 0)
		st = west_fail(err, errlen, WEST_ERR_INVALID,
			       "stride 0 must be at least 1");
	if (st)
		return st;
	size_t mx = (g->nx - 1) / stride + 1, my = (g->ny - 1) / stride + 1;
	for (size_t jo = 0; jo < my; jo++)
		for (size_t io = 0; io < mx; io++) {
			size_t o = jo * mx + io;
			slice_entry(g, f, io * stride, jo * stride, z, zref,
				    &u[o], &v[o], &w[o]);
		}
	*nx_out = mx;
	*ny_out = my;
	return WEST_OK;
}
