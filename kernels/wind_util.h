/*
 * wind_util.h: the wind at a point of a solved field, written once for the
 * point query (src/query.c) and the release plumes' particles
 * (kernels/plume_util.h, on the CPU and the GPU), so that a particle moves
 * with exactly the wind a query answers there (docs/model.md, "Near the
 * ground" and "Release plumes").  WEST_HD bodies (kernel_util.h), in
 * double as the query always computed them.
 *
 * Where each component lives (grid-local x, y from the outer corner; h
 * above the grid base; zc[k] = (zf[k] + zf[k+1]) / 2):
 *   u: x-face (i, j, k) at (i dx,         (j + 1/2) dy, zc[k])
 *   v: y-face (i, j, k) at ((i + 1/2) dx, j dy,         zc[k])
 *   w: z-face (i, j, k) at ((i + 1/2) dx, (j + 1/2) dy, zf[k])
 * Along each axis a component's positions are either the faces (its own
 * axis) or the centres (the other two); a point is placed among each set
 * by a fractional index, clamped to the outermost positions (constant
 * extrapolation), and the component is the trilinear blend of its eight
 * surrounding values, open faces only (transparency > 0; a face open by a
 * fraction T is read as its flux over T), the weights renormalized (0 when
 * none is open).
 *
 * Near the ground: below the lowest resolved level of the column holding
 * the point (zlow above the base, west_grid_lowest_level), the blend at
 * that level carried down: u, v times (z_agl / zref)^p, p the exponent of
 * the column's class, and w times z_agl / zref, zref being zlow above the
 * local ground.  u and v are the grid's (x and y); query.c turns them to
 * true north for its answers.
 */
#ifndef WEST_WIND_UTIL_H
#define WEST_WIND_UTIL_H

#include "kernel_util.h"

/* The lesser and the greater of two numbers that are not NaN (fmin and
 * fmax are library calls on the CPU). */
WEST_HD double west_dmin(double a, double b)
{
	return a < b ? a : b;
}

WEST_HD double west_dmax(double a, double b)
{
	return a > b ? a : b;
}

/* One axis of a trilinear stencil: positions i0, i1; weight a on i1. */
struct west_wstencil {
	size_t i0, i1;
	double a;
};

/* A point placed on the grid: per axis (x, y, z), among faces and centres. */
struct west_wwhere {
	struct west_wstencil face[3], centre[3];
};

/* The stencil at fractional index fi among n positions, clamped to them. */
WEST_HD struct west_wstencil west_wstencil_at(double fi, size_t n)
{
	struct west_wstencil s = { 0, 0, 0.0 };

	if (n < 2)
		return s;
	fi = west_dmin(west_dmax(fi, 0.0), (double)(n - 1));
	s.i0 = (size_t)fi;
	if (s.i0 > n - 2)
		s.i0 = n - 2;
	s.i1 = s.i0 + 1;
	s.a = fi - (double)s.i0;
	return s;
}

/* Height above base (m) of level position k: face zf[k] or centre zc[k]. */
WEST_HD double west_wlevel_z(const double *zf, int faces, size_t k)
{
	return faces ? zf[k] : 0.5 * (zf[k] + zf[k + 1]);
}

/* h's fractional index among the nz + faces level positions (stretched
 * levels allowed: binary search), clamped to them. */
WEST_HD double west_wlevel_index(const double *zf, size_t nz, int faces, double h)
{
	size_t lo = 0, hi = nz + (size_t)faces - 1;

	if (hi == 0 || h <= west_wlevel_z(zf, faces, 0))
		return 0.0;
	if (h >= west_wlevel_z(zf, faces, hi))
		return (double)hi;
	/* a first guess as if the levels were uniform: where it brackets h,
	 * it is the interval the search would find (the only one) */
	double g = h / (zf[nz] - zf[0]) * (double)nz - 0.5 * (double)(1 - faces);
	if (g >= 0.0 && g < (double)hi) {
		size_t m = (size_t)g;
		if (west_wlevel_z(zf, faces, m) <= h && h < west_wlevel_z(zf, faces, m + 1))
			lo = m, hi = m + 1;
	}
	while (hi - lo > 1) {   /* level_z(lo) < h < level_z(hi) */
		size_t mid = lo + (hi - lo) / 2;
		if (west_wlevel_z(zf, faces, mid) <= h)
			lo = mid;
		else
			hi = mid;
	}
	return (double)lo + (h - west_wlevel_z(zf, faces, lo)) /
			    (west_wlevel_z(zf, faces, hi) - west_wlevel_z(zf, faces, lo));
}

WEST_HD void west_wlocate(const struct west_kwind *k, double xl, double yl, double h,
			  struct west_wwhere *wh)
{
	wh->face[0] = west_wstencil_at(xl / k->dx, k->nx + 1);
	wh->centre[0] = west_wstencil_at(xl / k->dx - 0.5, k->nx);
	wh->face[1] = west_wstencil_at(yl / k->dy, k->ny + 1);
	wh->centre[1] = west_wstencil_at(yl / k->dy - 0.5, k->ny);
	wh->face[2] = west_wstencil_at(west_wlevel_index(k->zf, k->nz, 1, h), k->nz + 1);
	wh->centre[2] = west_wstencil_at(west_wlevel_index(k->zf, k->nz, 0, h), k->nz);
}

/*
 * Component c (0: u on x-faces, 1: v on y-faces, 2: w on z-faces): the
 * blend of its eight values around the point, open faces only, each face's
 * flux per unit area over its open fraction (the wind in its open part).
 * A component's values and its faces' transparencies share one index.
 * The corners go x fastest, then y, then z, each weighted (wx wy) wz.
 */
WEST_HD float west_wcomponent(const struct west_kwind *k, const float *val, int c,
			      const struct west_wwhere *wh)
{
	size_t px = k->nx + (c == 0), py = k->ny + (c == 1);
	const float *tr = c == 0 ? k->tx : c == 1 ? k->ty : k->tz;
	const struct west_wstencil *sx = c == 0 ? &wh->face[0] : &wh->centre[0];
	const struct west_wstencil *sy = c == 1 ? &wh->face[1] : &wh->centre[1];
	const struct west_wstencil *sz = c == 2 ? &wh->face[2] : &wh->centre[2];
	const size_t ix[2] = { sx->i0, sx->i1 }, jy[2] = { sy->i0, sy->i1 };
	const size_t kz[2] = { sz->i0, sz->i1 };
	const double wx[2] = { 1.0 - sx->a, sx->a }, wy[2] = { 1.0 - sy->a, sy->a };
	const double wz[2] = { 1.0 - sz->a, sz->a };
	const double wxy[2][2] = { { wx[0] * wy[0], wx[1] * wy[0] },
				   { wx[0] * wy[1], wx[1] * wy[1] } };
	double sum = 0.0, wsum = 0.0;

	for (int b = 0; b < 2; b++)
		for (int a = 0; a < 2; a++) {
			size_t row = px * (jy[a] + py * kz[b]);
			for (int e = 0; e < 2; e++) {
				double wgt = wxy[a][e] * wz[b];
				float t = wgt == 0.0 ? 0.0f : tr[row + ix[e]];

				if (t == 0.0f)
					continue;
				double flux = wgt * val[row + ix[e]];
				/* a face open whole needs no division (x / 1 is x) */
				sum += t == 1.0f ? flux : flux / t;
				wsum += wgt;
			}
		}
	return wsum > 0.0 ? (float)(sum / wsum) : 0.0f;
}

/* The column (i, j) holding grid-local (xl, yl): the east and north edges
 * to the last column. */
WEST_HD void west_wcolumn_at(const struct west_kwind *k, double xl, double yl,
			     size_t *i, size_t *j)
{
	double fi = floor(xl / k->dx), fj = floor(yl / k->dy);
	*i = fi < 0 ? 0 : fi >= (double)k->nx ? k->nx - 1 : (size_t)fi;
	*j = fj < 0 ? 0 : fj >= (double)k->ny ? k->ny - 1 : (size_t)fj;
}

/*
 * A per-column float (the terrain's altitudes, a mixing height) at
 * grid-local (x, y): bilinear between column centres, clamped to the
 * outermost centres; with the terrain, the ground of grid.h's
 * west_grid_ground_at, operation for operation.
 */
WEST_HD double west_wbilinear(const float *t, size_t nx, size_t ny, double dx, double dy,
			      double x, double y)
{
	double fi = x / dx - 0.5, fj = y / dy - 0.5;
	fi = west_dmin(west_dmax(fi, 0.0), (double)(nx - 1));
	fj = west_dmin(west_dmax(fj, 0.0), (double)(ny - 1));
	size_t i0 = (size_t)fi, j0 = (size_t)fj;
	size_t i1 = i0 + 1 < nx ? i0 + 1 : i0, j1 = j0 + 1 < ny ? j0 + 1 : j0;
	double a = fi - (double)i0, b = fj - (double)j0;
	return (1 - b) * ((1 - a) * t[j0 * nx + i0] + a * t[j0 * nx + i1]) +
	       b * ((1 - a) * t[j1 * nx + i0] + a * t[j1 * nx + i1]);
}

/*
 * The wind (grid's u, v, w in m/s) at grid-local (xl, yl) and altitude
 * z_msl, z_agl above the local ground `ground` (altitudes in m; base the
 * grid's), in a column whose lowest resolved level is zlow above the base
 * (>= 0) and whose class has the power-law exponent pexp: the rule at the
 * top of this file.
 */
WEST_HD void west_wind_at(const struct west_kwind *k, double xl, double yl, double z_msl,
			  double z_agl, double ground, double base, double zlow, float pexp,
			  double out[3])
{
	double h = z_msl - base, zref = zlow, scale_uv = 1.0, scale_w = 1.0;
	struct west_wwhere wh;

	zref += base - ground;
	if (z_agl < zref) {
		scale_uv = pow(z_agl / zref, (double)pexp);
		scale_w = z_agl / zref;
		h = ground + zref - base;
	}
	west_wlocate(k, xl, yl, h, &wh);
	out[0] = scale_uv * west_wcomponent(k, k->u, 0, &wh);
	out[1] = scale_uv * west_wcomponent(k, k->v, 1, &wh);
	out[2] = scale_w * west_wcomponent(k, k->w, 2, &wh);
}

#endif
