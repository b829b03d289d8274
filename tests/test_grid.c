/*
 * test_grid.c: the 3D grid built from a DEM: levels, base and top checks,
 * size limits, the land mask by the cell-centre rule, and transparencies
 * checked against an independent face-marking of land cells.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "grid.h"

static struct west_config conf;
static struct west_dem dem;
static struct west_grid g;
static char err[WEST_ERRLEN];

/* An nx x ny DEM of constant altitude h, cells of 10 m. */
/* The grid over d, or from a file (path NULL: conf.terrain), with conf's
 * options. */
static enum west_status grid_init(const struct west_dem *d)
{
	struct west_grid_opts o;

	west_grid_opts_from_config(&o, &conf);
	return west_grid_init(&g, d, &o, err, sizeof err);
}

static enum west_status grid_load(const char *path)
{
	struct west_grid_opts o;

	west_grid_opts_from_config(&o, &conf);
	return west_grid_load(&g, path, &o, err, sizeof err);
}

static void make_dem(size_t nx, size_t ny, float h)
{
	memset(&dem, 0, sizeof dem);
	dem.nx = nx, dem.ny = ny, dem.dx = dem.dy = 10.0;
	dem.x0 = 1000.0, dem.y0 = 2000.0;
	dem.z = malloc(nx * ny * sizeof *dem.z);
	cr_assert_not_null(dem.z);
	for (size_t i = 0; i < nx * ny; i++)
		dem.z[i] = h;
	west_config_defaults(&conf);
	conf.nz = 5, conf.dz = 10.0;
	conf.terrain_faces = WEST_FACES_STAIRCASE;   /* cut_cells sets cut */
}

static void teardown(void)
{
	west_grid_free(&g);
	west_dem_free(&dem);
}

TestSuite(grid, .fini = teardown);

Test(grid, flat_terrain_has_no_land_and_closed_ground)
{
	make_dem(4, 3, 100.0f);
	cr_assert_eq(grid_init(&dem), WEST_OK, "%s", err);
	cr_assert_eq(g.nx, 4);
	cr_assert_eq(g.ny, 3);
	cr_assert_eq(g.nz, 5);
	cr_assert_float_eq(g.base, 100.0, 0.0);
	cr_assert_float_eq(g.zf[5], 50.0, 1e-12);
	cr_assert_eq(g.land_cells, 0);
	for (size_t i = 0; i < west_grid_nzfaces(&g); i++)
		cr_assert_float_eq(g.tz[i], i < 12 ? 0.0f : 1.0f, 0.0f, "tz[%zu]", i);
	for (size_t i = 0; i < west_grid_nxfaces(&g); i++)
		cr_assert_float_eq(g.tx[i], 1.0f, 0.0f);
	for (size_t i = 0; i < west_grid_nyfaces(&g); i++)
		cr_assert_float_eq(g.ty[i], 1.0f, 0.0f);
}

/* One raised column: centres at 5, 15, 25 m above base; terrain 25 m up. */
Test(grid, land_by_cell_centre)
{
	make_dem(3, 2, 100.0f);
	dem.z[0] = 125.0f;
	cr_assert_eq(grid_init(&dem), WEST_OK, "%s", err);
	cr_assert_eq(g.land_cells, 2);
	cr_assert_eq(g.land[west_grid_cell(&g, 0, 0, 0)], 1);
	cr_assert_eq(g.land[west_grid_cell(&g, 0, 0, 1)], 1);
	cr_assert_eq(g.land[west_grid_cell(&g, 0, 0, 2)], 0, "centre 25 m equals terrain: open");
	cr_assert_float_eq(g.tx[1 + 4 * (0 + 2 * 1)], 0.0f, 0.0f, "east face of land cell");
	cr_assert_float_eq(g.tx[0 + 4 * (0 + 2 * 1)], 0.0f, 0.0f, "boundary face of land cell");
	cr_assert_float_eq(g.tx[2 + 4 * (0 + 2 * 1)], 1.0f, 0.0f);
	cr_assert_float_eq(g.ty[0 + 3 * (1 + 3 * 0)], 0.0f, 0.0f, "north face of land cell");
	cr_assert_float_eq(g.tz[0 + 3 * (0 + 2 * 2)], 0.0f, 0.0f, "top face of land");
	cr_assert_float_eq(g.tz[0 + 3 * (0 + 2 * 3)], 1.0f, 0.0f);
	cr_assert_float_eq(g.tx[0 + 4 * (0 + 2 * 2)], 1.0f, 0.0f, "open cell on the boundary");
}

/*
 * Cut cells: 10 m levels over ground 100 m (the base), 100.5, 109.5, 109
 * and 125 m, one row.  A cell is land when less than 1 m (a tenth) of it
 * is above its column's ground: 109.5 m takes level 0, 109 m does not
 * (exactly 1 m is air), 125 m levels 0 and 1.  Side faces are open by the
 * part of their level above the mean ground of their columns (the one
 * column at an edge), 0 beside land: by hand below.  Tolerance 1e-6.
 */
Test(grid, cut_cells)
{
	const float z[5] = { 100.0f, 100.5f, 109.5f, 109.0f, 125.0f };
	const unsigned char land[3][5] = { { 0, 0, 1, 0, 1 }, { 0, 0, 0, 0, 1 }, { 0 } };
	const float tx[3][6] = { { 1, 0.975f, 0, 0, 0, 0 },       /* mean 100.25 */
				 { 1, 1, 1, 1, 0, 0 },
				 { 1, 1, 1, 1, 1, 0.5f } };        /* 125 at the edge */
	const float ty[3][5] = { { 1, 0.95f, 0, 0.1f, 0 },       /* own columns */
				 { 1, 1, 1, 1, 0 },
				 { 1, 1, 1, 1, 0.5f } };

	make_dem(5, 1, 0.0f);
	memcpy(dem.z, z, sizeof z);
	conf.terrain_faces = WEST_FACES_CUT;
	cr_assert_eq(grid_init(&dem), WEST_OK, "%s", err);
	cr_assert(g.cut);
	cr_expect_eq(g.land_cells, 3);
	for (size_t k = 0; k < 3; k++) {
		for (size_t i = 0; i < 5; i++) {
			cr_expect_eq(g.land[west_grid_cell(&g, i, 0, k)], land[k][i],
				     "cell (%zu, 0, %zu)", i, k);
			for (size_t j = 0; j < 2; j++)
				cr_expect_float_eq(g.ty[i + 5 * (j + 2 * k)], ty[k][i], 1e-6f,
						   "ty (%zu, %zu, %zu)", i, j, k);
		}
		for (size_t i = 0; i < 6; i++)
			cr_expect_float_eq(g.tx[i + 6 * k], tx[k][i], 1e-6f, "tx (%zu, 0, %zu)",
					   i, k);
	}
	/* the lowest resolved level over 109 m: the middle of its 1 m */
	size_t k;
	cr_expect_float_eq(west_grid_lowest_level(&g, 3, 0, &k), 9.5, 1e-9);
	cr_expect_eq(k, 0);
	cr_expect_float_eq(west_grid_lowest_level(&g, 4, 0, &k), 27.5, 1e-9);
	cr_expect_eq(k, 2);
}

Test(grid, level_list_sets_nz_and_heights)
{
	double lv[] = {0, 5, 15, 40};
	make_dem(2, 2, 0.0f);
	dem.z[3] = 12.0f;
	memcpy(conf.levels, lv, sizeof lv);
	conf.nlevels = 4;
	cr_assert_eq(grid_init(&dem), WEST_OK, "%s", err);
	cr_assert_eq(g.nz, 3);
	cr_assert_float_eq(g.terrain_min, 0.0f, 0.0f);
	cr_assert_float_eq(g.terrain_max, 12.0f, 0.0f);
	for (int k = 0; k < 4; k++)
		cr_assert_float_eq(g.zf[k], lv[k], 0.0);
	/* centres 2.5, 10, 27.5 m: the 12 m column has two land cells */
	cr_assert_eq(g.land_cells, 2);
	cr_assert_eq(g.land[west_grid_cell(&g, 1, 1, 1)], 1);
}

/*
 * The lowest resolved level on high ground: levels 0, 5, 15, 40 m over
 * ground 0 and one 12 m column, whose lowest air cell (15 .. 40 m, centre
 * 27.5 m) is 25 m thick against 5 m at the base: 15.5 m above its ground,
 * and said.  Uniform levels over the same DEM say nothing.
 */
Test(grid, stretched_levels_on_high_ground_are_said)
{
	double lv[] = {0, 5, 15, 40};

	make_dem(2, 2, 0.0f);
	dem.z[3] = 12.0f;
	memcpy(conf.levels, lv, sizeof lv);
	conf.nlevels = 4;
	cr_assert_eq(grid_init(&dem), WEST_OK, "%s", err);
	cr_assert_float_eq(g.lowest_agl_max, 15.5, 1e-9);
	cr_assert_float_eq(g.lowest_dz_there, 25.0, 1e-9);
	cr_assert(g.lowest_i == 1 && g.lowest_j == 1);
	cr_assert(strstr(g.levels_warning, "column 1, 1") &&
		  strstr(g.levels_warning, "25.0 m thick against 5.0 m"), "%s", g.levels_warning);
	west_grid_free(&g);
	conf.nlevels = 0, conf.nz = 4, conf.dz = 10.0;
	cr_assert_eq(grid_init(&dem), WEST_OK, "%s", err);
	cr_assert_float_eq(g.lowest_agl_max, 5.0, 1e-9);   /* 3 m on the 12 m column */
	cr_assert_str_eq(g.levels_warning, "");
}

Test(grid, explicit_base_below_terrain)
{
	make_dem(2, 2, 100.0f);
	conf.base_altitude = 80.0;
	cr_assert_eq(grid_init(&dem), WEST_OK, "%s", err);
	cr_assert_float_eq(g.base, 80.0, 0.0);
	cr_assert_eq(g.land_cells, 2 * 2 * 2, "centres 5 and 15 m are below 20 m");
}

Test(grid, refuses_base_above_lowest_terrain)
{
	make_dem(2, 2, 100.0f);
	conf.base_altitude = 100.5;
	cr_assert_eq(grid_init(&dem), WEST_ERR_INVALID);
	cr_assert(strstr(err, "base_altitude 100.50 m is above the lowest terrain point") != NULL, "%s", err);
	cr_assert_null(g.land);
}

Test(grid, refuses_top_not_above_terrain)
{
	make_dem(2, 2, 100.0f);
	dem.z[1] = 150.0f;  /* 5 levels of 10 m reach 150 m: not above */
	cr_assert_eq(grid_init(&dem), WEST_ERR_INVALID);
	cr_assert(strstr(err, "is not above the highest terrain point 150.00 m") != NULL, "%s", err);
	cr_assert_null(g.zf);
}

Test(grid, refuses_more_than_max_cells_before_allocating)
{
	make_dem(10, 10, 0.0f);
	conf.max_cells = 499;
	cr_assert_eq(grid_init(&dem), WEST_ERR_NOMEM);
	cr_assert(strstr(err, "10 x 10 x 5 = 500 cells exceeds max_cells 499") != NULL, "%s", err);
	cr_assert_null(g.land);
}

Test(grid, alloc_check_refuses_overflow_and_memory)
{
	cr_assert_eq(west_check_alloc(SIZE_MAX / 2, 4, "x", err, sizeof err), WEST_ERR_NOMEM);
	cr_assert(strstr(err, "overflow") != NULL, "%s", err);
	cr_assert_eq(west_check_alloc(SIZE_MAX / 8, 4, "big thing", err, sizeof err), WEST_ERR_NOMEM);
	cr_assert(strstr(err, "big thing: needs") != NULL, "%s", err);
	cr_assert_eq(west_check_alloc(1024, 4, "small", err, sizeof err), WEST_OK);
}

/* The open fraction of an open side face of level k over the columns a
 * and b (the same at an edge): 1 on a staircase grid. */
static double side_open(const struct west_grid *gr, size_t a, size_t b, size_t k)
{
	double gf = 0.5 * ((double)gr->terrain[a] + (double)gr->terrain[b]) - gr->base;
	double dz = gr->zf[k + 1] - gr->zf[k];
	return gr->cut ? fmin(1.0, (gr->zf[k + 1] - gf) / dz) : 1.0;
}

/* Mark every face of every land cell and the ground closed; the others
 * open, by side_open on the side faces.  Tolerance 1e-5 (float). */
static void check_transparency_independently(const struct west_grid *gr)
{
	size_t nx = gr->nx, ny = gr->ny, nz = gr->nz;
	unsigned char *cx = calloc(west_grid_nxfaces(gr), 1);
	unsigned char *cy = calloc(west_grid_nyfaces(gr), 1);
	unsigned char *cz = calloc(west_grid_nzfaces(gr), 1);
	size_t fractional = 0;
	cr_assert(cx && cy && cz);
	for (size_t j = 0; j < ny; j++)
		for (size_t i = 0; i < nx; i++)
			cz[i + nx * j] = 1;
	for (size_t k = 0; k < nz; k++)
		for (size_t j = 0; j < ny; j++)
			for (size_t i = 0; i < nx; i++) {
				if (!gr->land[west_grid_cell(gr, i, j, k)])
					continue;
				cx[i + (nx + 1) * (j + ny * k)] = cx[i + 1 + (nx + 1) * (j + ny * k)] = 1;
				cy[i + nx * (j + (ny + 1) * k)] = cy[i + nx * (j + 1 + (ny + 1) * k)] = 1;
				cz[i + nx * (j + ny * k)] = cz[i + nx * (j + ny * (k + 1))] = 1;
			}
	for (size_t k = 0; k < nz; k++)
		for (size_t j = 0; j <= ny; j++)
			for (size_t i = 0; i <= nx; i++) {
				if (j < ny) {
					size_t f = i + (nx + 1) * (j + ny * k);
					size_t a = j * nx + (i ? i - 1 : 0), b = j * nx + (i < nx ? i : nx - 1);
					double want = cx[f] ? 0.0 : side_open(gr, a, b, k);
					cr_assert(fabs(gr->tx[f] - want) <= 1e-5, "tx[%zu] %g, want %g",
						  f, gr->tx[f], want);
					fractional += want > 0 && want < 1;
				}
				if (i < nx) {
					size_t f = i + nx * (j + (ny + 1) * k);
					size_t a = (j ? j - 1 : 0) * nx + i, b = (j < ny ? j : ny - 1) * nx + i;
					double want = cy[f] ? 0.0 : side_open(gr, a, b, k);
					cr_assert(fabs(gr->ty[f] - want) <= 1e-5, "ty[%zu] %g, want %g",
						  f, gr->ty[f], want);
				}
			}
	for (size_t f = 0; f < west_grid_nzfaces(gr); f++)
		cr_assert_eq(gr->tz[f], cz[f] ? 0.0f : 1.0f, "tz[%zu]", f);
	cr_assert(gr->cut ? fractional > 0 : fractional == 0, "%zu fractional x-faces", fractional);
	free(cx), free(cy), free(cz);
}

/* Land by the grid's rule, independently: the level centre (staircase) or
 * a tenth of the level below its top (cut) below the terrain. */
static size_t count_land(const struct west_grid *gr)
{
	size_t n = 0;
	for (size_t k = 0; k < gr->nz; k++) {
		double t = gr->cut ? gr->base + gr->zf[k + 1] - 0.1 * (gr->zf[k + 1] - gr->zf[k])
				   : gr->base + 0.5 * (gr->zf[k] + gr->zf[k + 1]);
		for (size_t c = 0; c < gr->nx * gr->ny; c++)
			n += t < gr->terrain[c];
	}
	return n;
}

/* Both face rules on a bundled terrain. */
static void check_terrain(const char *path, long nz, double dz)
{
	for (int faces = 0; faces < 2; faces++) {
		west_config_defaults(&conf);
		conf.terrain_faces = faces ? WEST_FACES_STAIRCASE : WEST_FACES_CUT;
		if (nz)
			conf.nz = nz, conf.dz = dz;
		cr_assert_eq(grid_load(path), WEST_OK, "%s", err);
		cr_assert_gt(g.land_cells, 0);
		cr_assert_eq(g.land_cells, count_land(&g));
		check_transparency_independently(&g);
		west_grid_free(&g);
	}
}

Test(grid, hill_mask_and_transparency)
{
	check_terrain(WEST_SRCDIR "/data/hill.asc", 12, 15.0);
}

Test(grid, default_terrain_transparency)
{
	check_terrain(WEST_SRCDIR "/data/default.asc", 0, 0.0);
}

Test(grid, load_resamples_to_resolution)
{
	west_config_defaults(&conf);
	conf.nz = 12, conf.dz = 15.0, conf.resolution = 100.0;
	cr_assert_eq(grid_load(WEST_SRCDIR "/data/hill.asc"),
		     WEST_OK, "%s", err);
	cr_assert_eq(g.nx, 16);
	cr_assert_eq(g.ny, 16);
	cr_assert_float_eq(g.dx, 100.0, 0.0);
}

Test(grid, load_without_terrain_says_so)
{
	west_config_defaults(&conf);
	cr_assert_eq(grid_load(NULL), WEST_ERR_INVALID);
	cr_assert(strstr(err, "no terrain") != NULL, "%s", err);
}

Test(grid, load_names_the_file_in_grid_errors)
{
	west_config_defaults(&conf);
	conf.nz = 1, conf.dz = 1.0;
	cr_assert_eq(grid_load(WEST_SRCDIR "/data/hill.asc"),
		     WEST_ERR_INVALID);
	cr_assert(strstr(err, "data/hill.asc: grid top") != NULL, "%s", err);
}

/* Rows [j0, j1) of array a (rows of `row` elements, ny + extra rows per
 * plane, n planes) equal slab array b's. */
static int same_rows(const void *a, const void *b, size_t elem, size_t row, size_t ny,
		     size_t extra, size_t n, size_t j0, size_t j1)
{
	size_t bytes = (j1 - j0 + extra) * row * elem;
	for (size_t k = 0; k < n; k++)
		if (memcmp((const char *)a + ((ny + extra) * k + j0) * row * elem,
			   (const char *)b + k * bytes, bytes))
			return 0;
	return 1;
}

/*
 * A slab (west_grid_slab) holds the rows of the whole grid bit for bit,
 * the faces at its ends included, whether the grid holds its volume or
 * only its columns (MPI ranks other than 0): rows at the south edge, in
 * the middle and at the north edge of a rough cut-cell terrain.
 */
Test(grid, slabs_are_the_grid_rows_from_the_columns_alone)
{
	static const size_t cuts[][2] = { { 0, 5 }, { 3, 9 }, { 6, 13 }, { 0, 13 } };
	struct west_grid cols, s;
	struct west_grid_opts o;

	make_dem(11, 13, 0.0f);
	for (size_t c = 0; c < 11 * 13; c++)   /* ridges and holes, 100 to 140 m */
		dem.z[c] = 100.0f + (float)((c * 37) % 41);
	conf.terrain_faces = WEST_FACES_CUT;
	conf.nz = 8, conf.dz = 7.0;
	cr_assert_eq(grid_init(&dem), WEST_OK, "%s", err);
	west_grid_opts_from_config(&o, &conf);
	o.columns_only = 1;
	cr_assert_eq(west_grid_init(&cols, &dem, &o, err, sizeof err), WEST_OK, "%s", err);
	cr_expect_null(cols.land, "columns only: no land mask");
	cr_expect_lt(west_grid_bytes(&cols), west_grid_bytes(&g) / 10);
	for (int from_cols = 0; from_cols < 2; from_cols++)
		for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
			size_t j0 = cuts[c][0], j1 = cuts[c][1], nx = 11, nz = 8;
			cr_assert_eq(west_grid_slab(from_cols ? &cols : &g, j0, j1, &s, err,
						    sizeof err), WEST_OK, "%s", err);
			cr_expect_eq(s.ny, j1 - j0);
			cr_expect(same_rows(g.terrain, s.terrain, 4, nx, 13, 0, 1, j0, j1));
			cr_expect(same_rows(g.land, s.land, 1, nx, 13, 0, nz, j0, j1),
				  "land, rows %zu to %zu%s", j0, j1, from_cols ? " (columns)" : "");
			cr_expect(same_rows(g.tx, s.tx, 4, nx + 1, 13, 0, nz, j0, j1),
				  "tx, rows %zu to %zu%s", j0, j1, from_cols ? " (columns)" : "");
			cr_expect(same_rows(g.ty, s.ty, 4, nx, 13, 1, nz, j0, j1),
				  "ty, rows %zu to %zu%s", j0, j1, from_cols ? " (columns)" : "");
			cr_expect(same_rows(g.tz, s.tz, 4, nx, 13, 0, nz + 1, j0, j1),
				  "tz, rows %zu to %zu%s", j0, j1, from_cols ? " (columns)" : "");
			west_grid_free(&s);
		}
	west_grid_free(&cols);
}
