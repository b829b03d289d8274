/*
 * plume_flat.h: the release plumes' flat set-up, shared by the validation
 * against the Gaussian plume (plume_gaussian.c) and the run-time benchmark
 * (tests/bench/plume-bench.c).  Include it after plume_gaussian's or the
 * bench's headers; it defines static functions only.
 *
 * A flat terrain at 100 m (140 x 121 columns of 50 m, 60 levels of 20 m),
 * a uniform wind U along x on every face (v = w = 0), every column of one
 * class, the rural power-law exponents; a release 10 m above the ground
 * at column (20, 60), 600 s long, run for 3600 s (the whole plume passes
 * 5 km at the slowest wind, 2 m/s: 600 + 2500 s), seed 1, layer 10 m.
 */
#ifndef WEST_PLUME_FLAT_H
#define WEST_PLUME_FLAT_H

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "field.h"
#include "grid.h"
#include "plume.h"

#define NX 140
#define NY 121
#define DX 50.0
#define RI 20           /* the release column */
#define RJ 60
#define H 10.0
#define LAYER 10.0

/* The wind of each class A to F (m/s). */
static const double speeds[6] = { 2.0, 3.0, 5.0, 5.0, 3.0, 2.0 };

/* The flat grid; 0, or nonzero with err. */
static int flat_grid(struct west_grid *g, char *err, size_t errlen)
{
	struct west_config *conf = calloc(1, sizeof *conf);
	struct west_dem dem = { .nx = NX, .ny = NY, .dx = DX, .dy = DX, .x0 = 500000.0,
				.y0 = 4650000.0 };
	struct west_grid_opts go;
	int rc = -1;

	if (conf && (dem.z = malloc(NX * NY * sizeof *dem.z))) {
		for (size_t c = 0; c < NX * NY; c++)
			dem.z[c] = 100.0f;
		west_config_defaults(conf);
		conf->nz = 60, conf->dz = 20.0;
		west_grid_opts_from_config(&go, conf);
		rc = west_grid_init(g, &dem, &go, err, errlen) ? -1 : 0;
	} else {
		snprintf(err, errlen, "out of memory");
	}
	free(dem.z);
	free(conf);
	return rc;
}

/* The field of class c (0 to 5) on g; 0, or nonzero with err. */
static int flat_field(const struct west_grid *g, int c, struct west_field *f, char *err,
		      size_t errlen)
{
	if (west_field_init(f, g, err, errlen))
		return -1;
	for (size_t i = 0; i < west_grid_nxfaces(g); i++)
		f->u[i] = (float)speeds[c];
	memset(f->v, 0, west_grid_nyfaces(g) * sizeof *f->v);
	memset(f->w, 0, west_grid_nzfaces(g) * sizeof *f->w);
	memset(f->stability, c, NX * NY);
	memcpy(f->power_exponent, west_power_exponents(WEST_LAND_RURAL),
	       sizeof f->power_exponent);
	f->valid_time = 1795435200LL;
	return 0;
}

/* The release of n particles. */
static struct west_release flat_release(const struct west_grid *g, long n)
{
	struct west_release r = {
		.x = g->x0 + (RI + 0.5) * DX, .y = g->y0 + (RJ + 0.5) * DX, .height = H,
		.duration = 600.0, .seconds = 3600.0, .particles = n, .seed = 1,
		.start = 1795435200LL, .layer = LAYER,
	};
	return r;
}

#endif
