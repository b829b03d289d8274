/*
 * plume_interim.c: INTERIM stand-in for west_plume_run (plume.h) while the
 * particle model (issue 18 part 1) is built on branch plume-model; this
 * file is deleted when that branch is merged.  It is not the model: a
 * random walk around the mean wind at the release height, for the API's
 * plumbing only.
 */
#include "plume.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "query.h"

void west_plume_result_free(struct west_plume_result *out)
{
	free(out->conc);
	free(out->arrival);
	free(out->path);
	memset(out, 0, sizeof *out);
}

static double unit(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
}

enum west_status west_plume_run(const struct west_grid *g, const struct west_field *f,
				const struct west_release *r,
				const struct west_kernel_ops *k,
				west_plume_progress_fn progress, void *ctx,
				struct west_plume_result *out, char *err, size_t errlen)
{
	struct west_point pt;
	size_t n = g->nx * g->ny, steps = 60;
	double dt = r->seconds / (double)steps, sigma, t0;
	uint64_t s = r->seed * 2654435761ULL + 1;
	enum west_status st;
	struct timespec ts;
	(void)k;

	memset(out, 0, sizeof *out);
	st = west_query_point(g, f, r->x, r->y, r->height, WEST_ZREF_AGL, &pt, err, errlen);
	if (st)
		return st;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
	out->nx = g->nx, out->ny = g->ny, out->x0 = g->x0, out->y0 = g->y0;
	out->dx = g->dx, out->dy = g->dy, out->layer = r->layer;
	out->conc = calloc(n, sizeof *out->conc);
	out->arrival = malloc(n * sizeof *out->arrival);
	out->path = calloc(steps, sizeof *out->path);
	if (!out->conc || !out->arrival || !out->path) {
		west_plume_result_free(out);
		return west_fail(err, errlen, WEST_ERR_NOMEM, "out of memory");
	}
	for (size_t c = 0; c < n; c++)
		out->arrival[c] = NAN;
	for (size_t q = 0; q < steps; q++) {
		double t = (double)(q + 1) * dt, cx = 0, cy = 0;
		long in = 0;
		sigma = 0.5 + 0.15 * hypot(pt.u, pt.v) * t / 10.0;
		for (long p = 0; p < r->particles; p++) {
			double tp = t - r->duration * (double)p / (double)r->particles;
			double gx = sqrt(-2 * log(unit(&s))) * cos(2 * M_PI * unit(&s));
			double gy = sqrt(-2 * log(unit(&s))) * cos(2 * M_PI * unit(&s));
			double x, y;
			size_t i, j;
			if (tp < 0)
				continue;
			x = r->x + pt.u * tp + sigma * gx - g->x0;
			y = r->y + pt.v * tp + sigma * gy - g->y0;
			if (x < 0 || y < 0 || x >= (double)g->nx * g->dx || y >= (double)g->ny * g->dy)
				continue;
			i = (size_t)(x / g->dx), j = (size_t)(y / g->dy);
			out->conc[j * g->nx + i] += (float)(dt / ((double)r->particles * g->dx * g->dy *
								 r->layer));
			if (isnan(out->arrival[j * g->nx + i]))
				out->arrival[j * g->nx + i] = (float)t;
			cx += x + g->x0, cy += y + g->y0, in++;
		}
		out->path[q] = (struct west_plume_point){ t, in ? cx / (double)in : r->x,
							  in ? cy / (double)in : r->y, r->height, in };
		if (progress && progress(ctx, t)) {
			west_plume_result_free(out);
			return west_fail(err, errlen, WEST_ERR_INVALID, "cancelled");
		}
	}
	out->npath = steps;
	out->particles = r->particles;
	out->outside = 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	out->wall_seconds = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - t0;
	return WEST_OK;
}
