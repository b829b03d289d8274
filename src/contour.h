/*
 * contour.h: filled contours of a two-dimensional field on a regular grid
 * of columns (a plume's concentration, plume.h): the region where the
 * field is at or above a level, as polygons with holes, by marching
 * squares.  Plain C: no JSON, no HTTP (the API writes them as GeoJSON).
 *
 * The field: nx * ny values at the column centres x0 + (i + 1/2) dx,
 * y0 + (j + 1/2) dy, entry j * nx + i (plume.h's layout).  Outside the
 * domain the field is taken as 0, on nodes placed on the domain's edge
 * (x0, x0 + nx dx, y0, y0 + ny dy), so that every ring closes inside the
 * domain; a value that is not finite counts as 0 too.
 *
 * Marching squares: a node is high when its value is >= level.  Where an
 * edge between a high and a low node crosses the level, the vertex lies
 * on it by linear interpolation, computed from the low end, so that the
 * two cells sharing the edge give the same point.  A saddle cell (two
 * high nodes diagonally opposite) is resolved by the mean of its four
 * values: at or above the level the two high nodes are joined through the
 * cell, below it they are kept apart.  Segments are oriented with the high
 * side on their left, so that a ring around a high region runs
 * counter-clockwise and a ring around a low region inside one (a hole)
 * clockwise: the orientation RFC 7946 asks of GeoJSON polygons.
 *
 * Result: the level's region as a multipolygon: each polygon its exterior
 * ring (counter-clockwise) and its holes (clockwise), each hole in the
 * smallest exterior that holds it.  Rings are closed (the last vertex is
 * the first), have at least 4 vertices, no two consecutive vertices equal,
 * and non-zero area; a level above the maximum gives no polygon.  Rings
 * of one level never cross; at a node whose value equals the level two
 * rings may touch.  Vertex x, y are in the grid's CRS (m) until
 * west_contour_to_lonlat maps them to longitude, latitude.
 */
#ifndef WEST_CONTOUR_H
#define WEST_CONTOUR_H

#include <stddef.h>

#include "status.h"
#include "terrain.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The field to contour (see above); v is read only. */
struct west_field2d {
	size_t nx, ny;
	double x0, y0, dx, dy;
	const float *v;
};

/* A closed ring: n vertices, (xy[2k], xy[2k+1]) the k-th, the last equal
 * to the first. */
struct west_ring {
	size_t n;
	double *xy;
};

/* rings[0] the exterior (counter-clockwise), rings[1 ..] its holes
 * (clockwise). */
struct west_contour_polygon {
	size_t nrings;
	struct west_ring *rings;
};

/* The region at or above `level`: npolys polygons (0: empty). */
struct west_contour {
	double level;
	size_t npolys;
	struct west_contour_polygon *polys;
};

/*
 * The region of f at or above level into out (free with
 * west_contour_free).  WEST_ERR_INVALID when level is not a finite number
 * > 0 (the field is 0 outside the domain, so a level at or below 0 has
 * no boundary) or f is empty; WEST_ERR_NOMEM.  On error out is zeroed.
 */
enum west_status west_contour_build(const struct west_field2d *f, double level,
				    struct west_contour *out, char *err, size_t errlen);

void west_contour_free(struct west_contour *c);

/* The signed area of a ring (m^2 in the grid's CRS): > 0 counter-clockwise. */
double west_ring_area(const struct west_ring *r);

/* The area of the region (exteriors less holes), in the units of the
 * vertices squared: m^2 before west_contour_to_lonlat. */
double west_contour_area(const struct west_contour *c);

/*
 * Every vertex from the grid's CRS to longitude, latitude (degrees, WGS
 * 84; x becomes the longitude, y the latitude) through crs (proj.h).
 * WEST_ERR_UNSUPPORTED when crs is not transverse Mercator (has_tm 0);
 * WEST_ERR_INVALID naming the vertex the projection refuses.  The
 * projection is conformal and keeps north up, so each ring keeps its
 * orientation.  On error c is left partly mapped: free it.
 */
enum west_status west_contour_to_lonlat(struct west_contour *c, const struct west_crs *crs,
					char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
