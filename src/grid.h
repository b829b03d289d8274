/*
 * grid.h: the 3D model grid built from a DEM (docs/design.md section 3).
 *
 * nx * ny * nz cells of dx * dy (m) horizontally; level k spans heights
 * zf[k] .. zf[k+1] (m) above the grid base altitude `base`, zf[0] = 0, and
 * the top face zf[nz] lies above the highest terrain point.  Columns take
 * the DEM's cells one to one (after optional resampling).
 *
 * Layout: i (west to east) fastest, then j (south to north), then k (up):
 *   cell (i, j, k)    -> i + nx * (j + ny * k)           nx * ny * nz
 *   x-face (i, j, k)  -> i + (nx + 1) * (j + ny * k)     (nx + 1) * ny * nz
 *                        (face i is the west face of cell i)
 *   y-face (i, j, k)  -> i + nx * (j + (ny + 1) * k)     nx * (ny + 1) * nz
 *   z-face (i, j, k)  -> i + nx * (j + ny * k)           nx * ny * (nz + 1)
 *                        (face k is the bottom face of cell k)
 *
 * Land and transparencies by the config's terrain_faces (docs/model.md,
 * "Grid"):
 *  - staircase: a cell is land when its centre, base + (zf[k] + zf[k+1]) / 2,
 *    is below the terrain altitude of its column;
 *  - cut (cut cells): a cell is land when less than WEST_CUT_MIN of its
 *    height lies above its column's ground (its threshold altitude
 *    base + zf[k+1] - WEST_CUT_MIN dz_k is below the terrain).
 * Transparencies in [0, 1]: 0 on a face touching a land cell and on the
 * ground (z-face k = 0); on every other face 1, the open domain boundary
 * (sides, top) included, except with cut cells on the x- and y-faces: the
 * fraction of the level's height above the face's ground (the mean
 * altitude of the one or two columns it borders), at least about
 * WEST_CUT_MIN.  z-faces are 0 or 1 either way.
 */
#ifndef WEST_GRID_H
#define WEST_GRID_H

#include <stddef.h>

#include "status.h"
#include "terrain.h"

struct west_config;

/* How the terrain closes the faces (config terrain_faces). */
enum west_terrain_faces { WEST_FACES_CUT, WEST_FACES_STAIRCASE };

struct west_grid {
	size_t nx, ny, nz;
	double dx, dy;        /* m */
	double x0, y0;        /* outer lower-left corner in the CRS (m) */
	double base;          /* altitude of z-face 0 (m) */
	double *zf;           /* nz + 1 face heights above base (m) */
	float *terrain;       /* nx * ny ground altitude (m), j * nx + i */
	float terrain_min, terrain_max; /* m */
	unsigned char *land;  /* nx * ny * nz, 1 = land */
	float *tx, *ty, *tz;  /* face transparencies, layouts above */
	int cut;              /* cut cells (1) or staircase (0) */
	size_t land_cells;
	size_t cut_cells;     /* air cells with a side face open by a fraction */
	double land_seconds, transparency_seconds; /* steps 4, 7 at build */
	/* The lowest resolved level (the centre of a column's lowest air
	 * cell) where it is highest above the column's ground: its height
	 * there (m), the thickness of that cell (m) and the column. */
	double lowest_agl_max, lowest_dz_there;
	size_t lowest_i, lowest_j;
	/* "" when the levels resolve high ground as they resolve the lowest
	 * (the lowest air cell of that column at most twice as thick as level
	 * 0); otherwise a sentence for the log and the summaries saying where
	 * they do not (levels count from the grid base, so stretched levels
	 * put high ground in thick cells, and near-ground answers there rest on
	 * the power law over a greater height). */
	char levels_warning[512];
	/* The meridian convergence (radians: the angle from true north to
	 * grid north, clockwise positive) at the centres of the corner
	 * columns, south-west, south-east, north-west, north-east, when the
	 * CRS is transverse Mercator (has_convergence); answers rotate the
	 * grid's u, v to true east and north by it (west_grid_convergence). */
	int has_convergence;
	double convergence[4];
	struct west_crs crs;
};

static inline size_t west_grid_cell(const struct west_grid *g, size_t i,
				    size_t j, size_t k)
{
	return i + g->nx * (j + g->ny * k);
}

static inline size_t west_grid_ncells(const struct west_grid *g)
{
	return g->nx * g->ny * g->nz;
}

/* Face counts per orientation. */
static inline size_t west_grid_nxfaces(const struct west_grid *g)
{
	return (g->nx + 1) * g->ny * g->nz;
}
static inline size_t west_grid_nyfaces(const struct west_grid *g)
{
	return g->nx * (g->ny + 1) * g->nz;
}
static inline size_t west_grid_nzfaces(const struct west_grid *g)
{
	return g->nx * g->ny * (g->nz + 1);
}

/* How a grid is built (west_grid_opts_from_config fills it from the
 * config's terrain, DEM and level keys). */
struct west_grid_opts {
	const char *terrain;          /* the DEM, for west_grid_load without a path */
	struct west_dem_opts dem;     /* how to read it; dem.resolution > 0: the
				       * cell size to resample to */
	const char *dem_reader;       /* an executable that reads it in a child
				       * process (west_dem_load_child: westd), or
				       * NULL: read in this process */
	size_t nz;                    /* uniform levels, when nlevels is 0 ... */
	double dz;                    /* ... of dz m each */
	const double *levels;         /* else nlevels face heights above the base */
	size_t nlevels;
	double base_altitude;         /* m; NaN: the lowest terrain, floored */
	unsigned long long max_cells; /* refuse grids with more 3D cells */
	enum west_terrain_faces faces;
	int columns_only;             /* the columns (terrain, levels) alone: land,
				       * tx, ty, tz NULL, land_cells, cut_cells and
				       * the lowest level's figures 0; set for MPI
				       * ranks other than 0 (ranks.h), which hold
				       * their slab only (west_grid_slab) */
};

/* o from c (which must outlive o: o points into it); columns_only on MPI
 * ranks other than 0. */
void west_grid_opts_from_config(struct west_grid_opts *o, const struct west_config *c);

/*
 * Build the grid over `dem` with the vertical levels of o (levels, or nz
 * and dz), its base altitude and max_cells.  Refuses a base above the
 * lowest terrain, a top not above the highest terrain, and grids over
 * max_cells or memory, before allocating.  On error g is zeroed.
 */
enum west_status west_grid_init(struct west_grid *g, const struct west_dem *dem,
				const struct west_grid_opts *o,
				char *err, size_t errlen);

/* Load o->terrain (or `path` when not NULL), resample, build. */
enum west_status west_grid_load(struct west_grid *g, const char *path,
				const struct west_grid_opts *o,
				char *err, size_t errlen);

void west_grid_free(struct west_grid *g);

/* out = rows [j0, j1) of g as a grid of its own (a partition's slab,
 * parts.h): the terrain, land mask and transparencies of those rows (the
 * y-faces j0 to j1), y0 moved up, no CRS; free with west_grid_free.  The
 * mask and transparencies are built from the terrain of those rows and
 * the row beside each end (the same values as g's: each depends on the
 * columns of its cell or face alone), so g may be columns only. */
enum west_status west_grid_slab(const struct west_grid *g, size_t j0, size_t j1,
				struct west_grid *out, char *err, size_t errlen);

/* Bytes the grid's arrays take on the host (the columns' alone when it
 * holds no volume). */
size_t west_grid_bytes(const struct west_grid *g);

/* Ground altitude (m) at (x, y) m east and north of the corner (x0, y0):
 * bilinear between column centres, clamped to the outermost centres. */
double west_grid_ground_at(const struct west_grid *g, double x, double y);

/* The least open fraction of a cut cell that is not land. */
#define WEST_CUT_MIN 0.1

/*
 * The meridian convergence (radians) at (x, y) m east and north of the
 * corner (x0, y0): bilinear between the corner columns' values, clamped
 * to them (across a domain of tens of kilometres it varies smoothly and
 * almost linearly); 0 without a transverse Mercator CRS.
 */
double west_grid_convergence(const struct west_grid *g, double x, double y);

/* zcalt[k] = the land threshold altitude of level k (m), k < nz: a cell is
 * land when it is below its column's terrain (the rules above). */
void west_grid_land_altitudes(const struct west_grid *g, double *zcalt);

/*
 * The lowest resolved level of column (i, j): the height above the base
 * (m) of the centre of the open part of its lowest air cell (the part above
 * the column's ground), *k that cell; -1 when the column is land to the
 * top.
 */
double west_grid_lowest_level(const struct west_grid *g, size_t i, size_t j, size_t *k);

#endif
