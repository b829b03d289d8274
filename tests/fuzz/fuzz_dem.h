/*
 * fuzz_dem.h: the checks the DEM targets (fuzz_dem_asc.c, fuzz_dem_nc.c,
 * fuzz_dem_gdal.c) share: the load options, and terrain.h's load rules on
 * a DEM that was accepted (its grid's edges among them: the corner and
 * the far corner, x0 + nx dx and y0 + ny dy, finite).
 */
#ifndef WEST_FUZZ_DEM_H
#define WEST_FUZZ_DEM_H

#include "fuzz_common.h"
#include "proj.h"
#include "terrain.h"

/* A target may set a lower limit before including this (fuzz_dem_gdal.c). */
#ifndef FUZZ_DEM_MAX_CELLS
#define FUZZ_DEM_MAX_CELLS (1ull << 20)
#endif

/* Options by the input's length: NODATA refused (even) or filled (odd),
 * so both rules are reached and each input is deterministic; the cell
 * limit keeps one input's allocation small. */
static inline struct west_dem_opts fuzz_dem_opts(size_t size)
{
	return (struct west_dem_opts){
		.nodata = (size & 1) ? WEST_NODATA_FILL : WEST_NODATA_REFUSE,
		.variable = NULL,
		.max_cells = FUZZ_DEM_MAX_CELLS,
	};
}

/* terrain.h's rules for a DEM that loaded; a refused one is all zero. */
static inline void fuzz_dem_check(enum west_status s, const struct west_dem *dem,
			   const char *err)
{
	if (s != WEST_OK) {
		FUZZ_ASSERT(dem->z == NULL && dem->nx == 0 && dem->ny == 0 && dem->crs.wkt == NULL,
			    "a refused DEM is not zeroed (%s)", err);
		FUZZ_ASSERT(err[0] != '\0', "refused (%s) without a message", west_status_str(s));
		return;
	}
	FUZZ_ASSERT(dem->z && dem->nx >= 1 && dem->ny >= 1, "%zu x %zu", dem->nx, dem->ny);
	FUZZ_ASSERT(dem->nx * dem->ny <= FUZZ_DEM_MAX_CELLS, "%zu x %zu over max_cells",
		    dem->nx, dem->ny);
	FUZZ_ASSERT(isfinite(dem->dx) && dem->dx > 0.0 && isfinite(dem->dy) && dem->dy > 0.0,
		    "cell %g x %g", dem->dx, dem->dy);
	FUZZ_ASSERT(isfinite(dem->x0) && isfinite(dem->y0), "corner %g, %g", dem->x0, dem->y0);
	FUZZ_ASSERT(isfinite(dem->x0 + (double)dem->nx * dem->dx) &&
		    isfinite(dem->y0 + (double)dem->ny * dem->dy), "far corner %g, %g",
		    dem->x0 + (double)dem->nx * dem->dx, dem->y0 + (double)dem->ny * dem->dy);
	for (size_t k = 0; k < dem->nx * dem->ny; k++)
		FUZZ_ASSERT(dem->z[k] >= -12000.0f && dem->z[k] <= 10000.0f,
			    "cell %zu: %g m", k, (double)dem->z[k]);
	if (dem->crs.has_tm)
		FUZZ_ASSERT(west_tm_params_ok(&dem->crs), "has_tm with k0 %g, lat0 %g, lon0 %g, "
			    "FE %g, FN %g", dem->crs.k0, dem->crs.lat0, dem->crs.lon0,
			    dem->crs.false_easting, dem->crs.false_northing);
}

#endif
