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

#include "grid.h"

static struct west_config conf;
static struct west_dem dem;
static struct west_grid g;
static char err[WEST_ERRLEN];

/* An nx x ny DEM of constant altitude h, cells of 10 m. */
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
	cr_assert_eq(west_grid_init(&g, &dem, &conf, err, sizeof err), WEST_OK, "%s", err);
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
	cr_assert_eq(west_grid_init(&g, &dem, &conf, err, sizeof err), WEST_OK, "%s", err);
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

Test(grid, level_list_sets_nz_and_heights)
{
	double lv[] = {0, 5, 15, 40};
	make_dem(2, 2, 0.0f);
	dem.z[3] = 12.0f;
	memcpy(conf.levels, lv, sizeof lv);
	conf.nlevels = 4;
	cr_assert_eq(west_grid_init(&g, &dem, &conf, err, sizeof err), WEST_OK, "%s", err);
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
	char msg[512] = "";

	make_dem(2, 2, 0.0f);
	dem.z[3] = 12.0f;
	memcpy(conf.levels, lv, sizeof lv);
	conf.nlevels = 4;
	cr_assert_eq(west_grid_init(&g, &dem, &conf, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_float_eq(g.lowest_agl_max, 15.5, 1e-9);
	cr_assert_float_eq(g.lowest_dz_there, 25.0, 1e-9);
	cr_assert(g.lowest_i == 1 && g.lowest_j == 1);
	cr_assert_eq(west_grid_coarse_on_high_ground(&g, msg, sizeof msg), 1);
	cr_assert(strstr(msg, "column 1, 1") && strstr(msg, "25.0 m thick against 5.0 m"),
		  "%s", msg);
	west_grid_free(&g);
	conf.nlevels = 0, conf.nz = 4, conf.dz = 10.0;
	cr_assert_eq(west_grid_init(&g, &dem, &conf, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_float_eq(g.lowest_agl_max, 5.0, 1e-9);   /* 3 m on the 12 m column */
	cr_assert_eq(west_grid_coarse_on_high_ground(&g, msg, sizeof msg), 0);
}

Test(grid, explicit_base_below_terrain)
{
	make_dem(2, 2, 100.0f);
	conf.base_altitude = 80.0;
	cr_assert_eq(west_grid_init(&g, &dem, &conf, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_float_eq(g.base, 80.0, 0.0);
	cr_assert_eq(g.land_cells, 2 * 2 * 2, "centres 5 and 15 m are below 20 m");
}

Test(grid, refuses_base_above_lowest_terrain)
{
	make_dem(2, 2, 100.0f);
	conf.base_altitude = 100.5;
	cr_assert_eq(west_grid_init(&g, &dem, &conf, err, sizeof err), WEST_ERR_INVALID);
	cr_assert(strstr(err, "base_altitude 100.50 m is above the lowest terrain point") != NULL, "%s", err);
	cr_assert_null(g.land);
}

Test(grid, refuses_top_not_above_terrain)
{
	make_dem(2, 2, 100.0f);
	dem.z[1] = 150.0f;  /* 5 levels of 10 m reach 150 m: not above */
	cr_assert_eq(west_grid_init(&g, &dem, &conf, err, sizeof err), WEST_ERR_INVALID);
	cr_assert(strstr(err, "is not above the highest terrain point 150.00 m") != NULL, "%s", err);
	cr_assert_null(g.zf);
}

Test(grid, refuses_more_than_max_cells_before_allocating)
{
	make_dem(10, 10, 0.0f);
	conf.max_cells = 499;
	cr_assert_eq(west_grid_init(&g, &dem, &conf, err, sizeof err), WEST_ERR_NOMEM);
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

/* Mark every face of every land cell and the ground; all others open. */
static void check_transparency_independently(const struct west_grid *gr)
{
	size_t nx = gr->nx, ny = gr->ny, nz = gr->nz;
	unsigned char *cx = calloc(west_grid_nxfaces(gr), 1);
	unsigned char *cy = calloc(west_grid_nyfaces(gr), 1);
	unsigned char *cz = calloc(west_grid_nzfaces(gr), 1);
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
	for (size_t f = 0; f < west_grid_nxfaces(gr); f++)
		cr_assert_eq(gr->tx[f], cx[f] ? 0.0f : 1.0f, "tx[%zu]", f);
	for (size_t f = 0; f < west_grid_nyfaces(gr); f++)
		cr_assert_eq(gr->ty[f], cy[f] ? 0.0f : 1.0f, "ty[%zu]", f);
	for (size_t f = 0; f < west_grid_nzfaces(gr); f++)
		cr_assert_eq(gr->tz[f], cz[f] ? 0.0f : 1.0f, "tz[%zu]", f);
	free(cx), free(cy), free(cz);
}

static size_t count_land_by_centres(const struct west_grid *gr)
{
	size_t n = 0;
	for (size_t k = 0; k < gr->nz; k++)
		for (size_t c = 0; c < gr->nx * gr->ny; c++)
			n += gr->base + 0.5 * (gr->zf[k] + gr->zf[k + 1]) < gr->terrain[c];
	return n;
}

Test(grid, hill_mask_and_transparency)
{
	west_config_defaults(&conf);
	conf.nz = 12, conf.dz = 15.0;
	cr_assert_eq(west_grid_load(&g, WEST_SRCDIR "/data/hill.asc", &conf, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_gt(g.land_cells, 0);
	cr_assert_eq(g.land_cells, count_land_by_centres(&g));
	check_transparency_independently(&g);
}

Test(grid, default_terrain_transparency)
{
	west_config_defaults(&conf);
	cr_assert_eq(west_grid_load(&g, WEST_SRCDIR "/data/default.asc", &conf, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_eq(g.land_cells, count_land_by_centres(&g));
	check_transparency_independently(&g);
}

Test(grid, load_resamples_to_resolution)
{
	west_config_defaults(&conf);
	conf.nz = 12, conf.dz = 15.0, conf.resolution = 100.0;
	cr_assert_eq(west_grid_load(&g, WEST_SRCDIR "/data/hill.asc", &conf, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_eq(g.nx, 16);
	cr_assert_eq(g.ny, 16);
	cr_assert_float_eq(g.dx, 100.0, 0.0);
}

Test(grid, load_without_terrain_says_so)
{
	west_config_defaults(&conf);
	cr_assert_eq(west_grid_load(&g, NULL, &conf, err, sizeof err), WEST_ERR_INVALID);
	cr_assert(strstr(err, "no terrain") != NULL, "%s", err);
}

Test(grid, load_names_the_file_in_grid_errors)
{
	west_config_defaults(&conf);
	conf.nz = 1, conf.dz = 1.0;
	cr_assert_eq(west_grid_load(&g, WEST_SRCDIR "/data/hill.asc", &conf, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_assert(strstr(err, "data/hill.asc: grid top") != NULL, "%s", err);
}
