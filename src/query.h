/*
 * query.h: answers to the API's point, profile and slice queries on a solved
 * wind field (docs/design.md sections 3 and 6), as plain C: no HTTP, no
 * JSON.
 *
 * Coordinates: x, y in the grid's projected CRS (m); the domain is
 * x0 .. x0 + nx * dx by y0 .. y0 + ny * dy, its outer edges included.
 * Heights: z_msl is altitude above mean sea level (m); z_agl is height above
 * the local ground (m), the ground being the terrain interpolated bilinearly
 * between column centres (clamped to the outermost centres), the rule the
 * model uses for station heights.  A query point must be in the air: z_agl
 * >= 0 and z_msl at most the top face; every such point is answered.
 *
 * Values: u, v, w (m/s) interpolated trilinearly on the Arakawa-C grid, each
 * component among its own eight nearest face positions, open faces only
 * (query.c says where they lie, how the edges are clamped, and how the
 * lowest resolved level is carried down to the ground below it);
 * speed = hypot(u, v) (m/s);
 * direction is meteorological "from", degrees clockwise from north, in
 * [0, 360), and 0 when the speed is 0.  u, v and the direction are
 * relative to true north when the grid's CRS is transverse Mercator (u, v
 * rotated by the meridian convergence: query.c), to the grid's y axis
 * otherwise.
 *
 * Every function is read-only on the grid and field, so many threads may
 * query one published field at once.
 */
#ifndef WEST_QUERY_H
#define WEST_QUERY_H

#include <stddef.h>

#include "field.h"
#include "grid.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a query's z means. */
enum west_zref {
	WEST_ZREF_AGL,  /* height above the local ground (m) */
	WEST_ZREF_MSL,  /* altitude above mean sea level (m) */
};

struct west_point {
	double x, y;                    /* CRS (m) */
	double z_agl, z_msl, ground;    /* m; ground is the altitude of the
					 * local ground under (x, y) */
	float u, v, w;                  /* m/s */
	float speed;                    /* m/s, horizontal */
	float direction;                /* degrees "from", [0, 360) */
};

/*
 * The wind at (x, y, z).  WEST_ERR_INVALID, naming the parameter and the
 * bounds, when x or y is not finite or outside the domain, z is not
 * finite, below the ground or above the top face, zref is unknown, or the
 * column holding it is terrain up to the top.
 */
enum west_status west_query_point(const struct west_grid *g,
				  const struct west_field *f,
				  double x, double y, double z,
				  enum west_zref zref, struct west_point *out,
				  char *err, size_t errlen);

/*
 * The vertical profile at (x, y): one entry per level of the column holding
 * (x, y) whose centre (z_msl = base + (zf[k] + zf[k+1]) / 2) is in the air
 * (not below the local ground), low to high, each the point query there.  out has room for g->nz entries; *n
 * gets the count.  WEST_ERR_INVALID for x, y as in point queries, and when
 * no level of the column is in the air ("all terrain").
 */
enum west_status west_query_profile(const struct west_grid *g,
				    const struct west_field *f,
				    double x, double y, struct west_point *out,
				    size_t *n, char *err, size_t errlen);

/*
 * A horizontal slice at height z: the wind at the centre of every stride-th
 * column (i = 0, stride, ... < nx; j likewise), z above that column's own
 * ground (AGL) or an altitude (MSL).  u, v, w each have room for
 * ceil(nx / stride) * ceil(ny / stride) values, row-major: entry
 * (jo, io) = [jo * nx_out + io] is column (io * stride, jo * stride).  An
 * entry is NaN where the point query would fail (below the ground, above
 * the top).  WEST_ERR_INVALID when stride is 0, z is not finite or
 * zref is unknown.
 */
enum west_status west_query_slice(const struct west_grid *g,
				  const struct west_field *f,
				  double z, enum west_zref zref, size_t stride,
				  float *u, float *v, float *w,
				  size_t *nx_out, size_t *ny_out,
				  char *err, size_t errlen);

/*
 * Speed (m/s) and meteorological direction (degrees "from", clockwise from
 * north, [0, 360); 0 for calm) of the horizontal wind (u east, v north),
 * computed in double and rounded once.
 */
void west_query_speed_direction(float u, float v, float *speed,
				float *direction);

#ifdef __cplusplus
}
#endif

#endif
