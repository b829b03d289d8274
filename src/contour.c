/*
 * contour.c: filled contours by marching squares (contour.h says what
 * they are).
 *
 * The mesh: the field's nx * ny column centres with a border of nodes
 * around them on the domain's edge, (nx + 2) * (ny + 2) nodes in all
 * (node (I, J) is column (I - 1, J - 1)); the border's value is 0.  A cell
 * of the mesh has four nodes; its edges, walked counter-clockwise (bottom,
 * right, top, left), go from node c[k] to node c[k + 1].  An edge walked
 * from a high node to a low one is where a segment starts (the high side
 * on its left), one walked from low to high where a segment ends.  Each
 * edge of the mesh is walked one way by one of its two cells and the other
 * way by the other, so every crossed edge starts exactly one segment and
 * ends exactly one: `next` maps the edge a segment starts on to the edge
 * it ends on, a permutation of the crossed edges whose cycles are the
 * rings.  Edge ids: 2 (J NX + I) for the edge from node (I, J) to
 * (I + 1, J), 2 (J NX + I) + 1 for the one from (I, J) to (I, J + 1).
 *
 * A saddle cell has four crossed edges, alternating start, end, start,
 * end around it; joined (mean >= level) pairs each start with the end
 * after it counter-clockwise (the low corners are cut off), apart with
 * the end before it (the high corners are cut off).
 */
#include "contour.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proj.h"

struct mesh {
	const struct west_field2d *f;
	size_t NX, NY;
	double level;
	long *next;            /* per edge id: the edge its segment ends on, or -1 */
};

/* ------------------------------------------------------------- the mesh */

static double node_value(const struct mesh *m, size_t I, size_t J)
{
	const struct west_field2d *f = m->f;
	double v;

	if (I == 0 || J == 0 || I > f->nx || J > f->ny)
		return 0.0;
	v = f->v[(J - 1) * f->nx + (I - 1)];
	return isfinite(v) ? v : 0.0;
}

/* The node's coordinate along one axis: the edge for the border. */
static double node_coord(double origin, double d, size_t n, size_t I)
{
	if (I == 0)
		return origin;
	if (I > n)
		return origin + (double)n * d;
	return origin + ((double)I - 0.5) * d;
}

static int high(const struct mesh *m, size_t I, size_t J)
{
	return node_value(m, I, J) >= m->level;
}

/* The vertex on edge e: interpolated from its low node. */
static void edge_point(const struct mesh *m, long e, double *x, double *y)
{
	const struct west_field2d *f = m->f;
	size_t k = (size_t)e / 2, I = k % m->NX, J = k / m->NX;
	size_t I2 = I + (e % 2 == 0), J2 = J + (e % 2 == 1);
	double va = node_value(m, I, J), vb = node_value(m, I2, J2);
	double xa = node_coord(f->x0, f->dx, f->nx, I), ya = node_coord(f->y0, f->dy, f->ny, J);
	double xb = node_coord(f->x0, f->dx, f->nx, I2), yb = node_coord(f->y0, f->dy, f->ny, J2);
	double t;

	if (va >= m->level) {     /* from the low end: b */
		double s = va; va = vb; vb = s;
		s = xa; xa = xb; xb = s;
		s = ya; ya = yb; yb = s;
	}
	t = (m->level - va) / (vb - va);
	*x = xa + t * (xb - xa);
	*y = ya + t * (yb - ya);
}

/* The segments of cell (I, J) into m->next. */
static void cell_segments(struct mesh *m, size_t I, size_t J)
{
	const size_t ci[4] = { I, I + 1, I + 1, I }, cj[4] = { J, J, J + 1, J + 1 };
	const long base = (long)(J * m->NX + I), row = (long)m->NX;
	const long e[4] = { 2 * base, 2 * (base + 1) + 1, 2 * (base + row), 2 * base + 1 };
	int h[4], kind[4], n = 0;   /* kind: 1 start, -1 end, 0 not crossed */
	double mean = 0;

	for (int k = 0; k < 4; k++) {
		h[k] = high(m, ci[k], cj[k]);
		mean += 0.25 * node_value(m, ci[k], cj[k]);
	}
	for (int k = 0; k < 4; k++) {
		kind[k] = h[k] == h[(k + 1) % 4] ? 0 : h[k] ? 1 : -1;
		n += kind[k] != 0;
	}
	if (n == 0)
		return;
	for (int k = 0; k < 4; k++) {
		int step = n == 2 ? 0 : mean >= m->level ? 1 : 3, to = -1;
		if (kind[k] != 1)
			continue;
		if (step)
			to = (k + step) % 4;
		else
			for (int q = 0; q < 4; q++)
				if (kind[q] == -1)
					to = q;
		m->next[e[k]] = e[to];
	}
}

/* ------------------------------------------------------------- rings */

double west_ring_area(const struct west_ring *r)
{
	double a = 0;

	for (size_t k = 0; k + 1 < r->n; k++)
		a += r->xy[2 * k] * r->xy[2 * k + 3] - r->xy[2 * k + 2] * r->xy[2 * k + 1];
	return 0.5 * a;
}

struct ring_list {
	struct west_ring *r;
	size_t n, cap;
};

static int ring_push_point(struct west_ring *r, size_t *cap, double x, double y)
{
	if (r->n && r->xy[2 * r->n - 2] == x && r->xy[2 * r->n - 1] == y)
		return 0;
	if (r->n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		double *p = realloc(r->xy, 2 * c * sizeof *p);
		if (!p)
			return -1;
		r->xy = p, *cap = c;
	}
	r->xy[2 * r->n] = x, r->xy[2 * r->n + 1] = y;
	r->n++;
	return 0;
}

/* Follow the cycle through edge e into *r (emptied edges get -1). */
static int trace(struct mesh *m, long e, struct west_ring *r)
{
	size_t cap = 0;
	long cur = e;
	double x, y;

	do {
		long nx = m->next[cur];
		edge_point(m, cur, &x, &y);
		if (ring_push_point(r, &cap, x, y))
			return -1;
		m->next[cur] = -1;
		cur = nx;
	} while (cur != e && cur >= 0);
	if (r->n && (r->xy[0] != r->xy[2 * r->n - 2] || r->xy[1] != r->xy[2 * r->n - 1]))
		return ring_push_point(r, &cap, r->xy[0], r->xy[1]);
	return 0;
}

static int list_push(struct ring_list *l, struct west_ring *r)
{
	if (l->n == l->cap) {
		size_t c = l->cap ? 2 * l->cap : 16;
		struct west_ring *p = realloc(l->r, c * sizeof *p);
		if (!p)
			return -1;
		l->r = p, l->cap = c;
	}
	l->r[l->n++] = *r;
	return 0;
}

static void list_free(struct ring_list *l)
{
	for (size_t k = 0; k < l->n; k++)
		free(l->r[k].xy);
	free(l->r);
	memset(l, 0, sizeof *l);
}

/* Every ring of the mesh into l; exteriors and holes by their sign. */
static int trace_all(struct mesh *m, struct ring_list *l)
{
	size_t nedges = 2 * m->NX * m->NY;

	for (size_t e = 0; e < nedges; e++) {
		struct west_ring r = { 0 };
		if (m->next[e] < 0)
			continue;
		if (trace(m, (long)e, &r) || (r.n >= 4 && west_ring_area(&r) != 0 &&
					      list_push(l, &r))) {
			free(r.xy);
			return -1;
		}
		if (r.n < 4 || west_ring_area(&r) == 0)
			free(r.xy);
	}
	return 0;
}

/* --------------------------------------------------------- polygons */

/* 1 when (x, y) is inside r by the even-odd rule. */
static int ring_contains(const struct west_ring *r, double x, double y)
{
	int in = 0;

	for (size_t k = 0; k + 1 < r->n; k++) {
		double xa = r->xy[2 * k], ya = r->xy[2 * k + 1];
		double xb = r->xy[2 * k + 2], yb = r->xy[2 * k + 3];
		if ((ya > y) != (yb > y) && x < xa + (y - ya) * (xb - xa) / (yb - ya))
			in = !in;
	}
	return in;
}

/* The polygon of out whose exterior holds hole h: the smallest that holds
 * the middle of h's first side; -1 when none does. */
static long container(const struct west_contour *out, const struct west_ring *h)
{
	double x = 0.5 * (h->xy[0] + h->xy[2]), y = 0.5 * (h->xy[1] + h->xy[3]), best = INFINITY;
	long at = -1;

	for (size_t q = 0; q < out->npolys; q++) {
		const struct west_ring *ex = &out->polys[q].rings[0];
		double a = west_ring_area(ex);
		if (a < best && a > -west_ring_area(h) && ring_contains(ex, x, y))
			best = a, at = (long)q;
	}
	return at;
}

static int polygon_add_ring(struct west_contour_polygon *p, struct west_ring *r)
{
	struct west_ring *rs = realloc(p->rings, (p->nrings + 1) * sizeof *rs);

	if (!rs)
		return -1;
	p->rings = rs;
	p->rings[p->nrings++] = *r;
	memset(r, 0, sizeof *r);
	return 0;
}

/* The rings of l (taken over: l keeps what is left) as out's polygons: the
 * exteriors first, then each hole in its container (a hole with none,
 * which only rounding could make, is dropped). */
static int group(struct ring_list *l, struct west_contour *out)
{
	if (!(out->polys = calloc(l->n + 1, sizeof *out->polys)))
		return -1;
	for (size_t k = 0; k < l->n; k++)
		if (west_ring_area(&l->r[k]) > 0 &&
		    polygon_add_ring(&out->polys[out->npolys++], &l->r[k]))
			return -1;
	for (size_t k = 0; k < l->n; k++) {
		long c;
		if (!l->r[k].xy)
			continue;
		c = container(out, &l->r[k]);
		if (c >= 0 && polygon_add_ring(&out->polys[c], &l->r[k]))
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- api */

void west_contour_free(struct west_contour *c)
{
	for (size_t p = 0; p < c->npolys; p++) {
		for (size_t r = 0; r < c->polys[p].nrings; r++)
			free(c->polys[p].rings[r].xy);
		free(c->polys[p].rings);
	}
	free(c->polys);
	memset(c, 0, sizeof *c);
}

enum west_status west_contour_build(const struct west_field2d *f, double level,
				    struct west_contour *out, char *err, size_t errlen)
{
	struct mesh m = { f, f->nx + 2, f->ny + 2, level, NULL };
	struct ring_list l = { 0 };
	size_t nedges = 2 * m.NX * m.NY;
	int rc;

	memset(out, 0, sizeof *out);
	if (!isfinite(level) || !(level > 0))
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "contour level %g: not a number > 0", level);
	if (!f->nx || !f->ny || !f->v)
		return west_fail(err, errlen, WEST_ERR_INVALID, "contour of an empty field");
	if (west_check_alloc(nedges, sizeof *m.next, "the contour's edges", err, errlen))
		return WEST_ERR_NOMEM;
	if (!(m.next = malloc(nedges * sizeof *m.next)))
		return west_fail(err, errlen, WEST_ERR_NOMEM, "out of memory for the contour");
	for (size_t e = 0; e < nedges; e++)
		m.next[e] = -1;
	for (size_t J = 0; J + 1 < m.NY; J++)
		for (size_t I = 0; I + 1 < m.NX; I++)
			cell_segments(&m, I, J);
	rc = trace_all(&m, &l);
	free(m.next);
	out->level = level;
	if (!rc)
		rc = group(&l, out);
	list_free(&l);
	if (rc) {
		west_contour_free(out);
		return west_fail(err, errlen, WEST_ERR_NOMEM, "out of memory for the contour");
	}
	return WEST_OK;
}

double west_contour_area(const struct west_contour *c)
{
	double a = 0;

	for (size_t p = 0; p < c->npolys; p++)
		for (size_t r = 0; r < c->polys[p].nrings; r++)
			a += west_ring_area(&c->polys[p].rings[r]);
	return a;
}

enum west_status west_contour_to_lonlat(struct west_contour *c, const struct west_crs *crs,
					char *err, size_t errlen)
{
	if (!crs->has_tm)
		return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
				 "the grid's CRS is not transverse Mercator: its contours "
				 "cannot be given in longitude and latitude");
	for (size_t p = 0; p < c->npolys; p++)
		for (size_t r = 0; r < c->polys[p].nrings; r++) {
			struct west_ring *g = &c->polys[p].rings[r];
			for (size_t k = 0; k < g->n; k++) {
				double *v = &g->xy[2 * k];
				enum west_status st = west_tm_inverse(crs, v[0], v[1], &v[0], &v[1],
								      err, errlen);
				if (st)
					return st;
			}
		}
	return WEST_OK;
}
