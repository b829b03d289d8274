/*
 * test_snapshot.c: NetCDF snapshots (snapshot.h): a full round trip
 * (cell-centre means, fill in land, coordinates, CRS, stations, every
 * report field), the CF and storage attributes as ncdump shows them (the
 * winds, lat and lon contiguous and unfiltered since issue 17; the
 * options of west_snapshot_write_opts: the old storage, BitRound within
 * its bound), lat and lon kept between writes of one grid, the winds at
 * cell centres, the atomic write (a write cut short by RLIMIT_FSIZE leaves
 * the old file and no temp; a missing directory leaves nothing; a file
 * written in several pieces), and the reader's refusals.
 *
 * The grid is data/hill.nc (32 x 32 columns of 50 m, transverse_mercator
 * with crs_wkt) with 8 levels of 25 m; data/hill.asc (no .prj) for a grid
 * without a CRS.  Face velocities are an arbitrary function of the face
 * index, so any mix-up of faces or cells shows.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netcdf.h>

#include "proj.h"

#include "config.h"
#include "fileio.h"
#include "snapshot.h"

#define NZ 8
#define VALID_TIME 1700000123LL

static struct west_config conf;
static struct west_grid g;
static struct west_field f;
static struct west_obs stations[2];
static struct west_obs_set obs;
static struct west_snapshot snap;
static char dir[64], path[128], err[WEST_ERRLEN];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/test_snapshot.XXXXXX");
	cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof path, "%s/snap.nc", dir);
}

/* Remove what the test left in dir (files only), then dir itself. */
static void teardown(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];

	while (d && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			unlink(p);
		}
	}
	if (d)
		closedir(d);
	rmdir(dir);
	west_snapshot_free(&snap);
	west_field_free(&f);
	west_grid_free(&g);
}

TestSuite(snapshot, .init = setup, .fini = teardown);

/* Face value of face `idx` of orientation `o`: distinct, signed, exact. */
static float face_value(int o, size_t idx)
{
	return (float)((idx * 7919u + 31u * (unsigned)o) % 2003u) * 0.01f - 10.0f;
}

static void fill_report(struct west_report *r, long iterations)
{
	memset(r, 0, sizeof *r);
	snprintf(r->backend, sizeof r->backend, "cpu");
	snprintf(r->solver, sizeof r->solver, "sor-velocity");
	snprintf(r->indexing, sizeof r->indexing, "compact");
	r->omega = 1.78, r->eta = 1.5, r->tolerance = 1e-4;
	r->iterations_max = 2000, r->iterations = iterations, r->converged = 1;
	r->h = 25.0, r->u_ref = 7.25;
	r->start = (struct west_convergence){ 0.125, 0.43, 1.0 };
	r->end = (struct west_convergence){ 1e-5, 3.4e-5, 2.5e-3 };
	r->final = (struct west_convergence){ 2e-7, 6.9e-7, 1.5e-6 };
	for (int s = 0; s < WEST_NSTEPS; s++)
		r->step_seconds[s] = 0.001 * (s + 1) + 1e-9;
	r->total_seconds = 0.0456;
}

/* The grid over data/<name>, NZ levels of 25 m, and a field on it. */
static void make_field(const char *name, long iterations)
{
	char p[512];

	snprintf(p, sizeof p, "%s/data/%s", WEST_SRCDIR, name);
	west_config_defaults(&conf);
	conf.nz = NZ, conf.dz = 25.0;
	struct west_grid_opts go;
	west_grid_opts_from_config(&go, &conf);
	cr_assert_eq(west_grid_load(&g, p, &go, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_field_init(&f, &g, err, sizeof err), WEST_OK, "%s", err);
	for (size_t i = 0; i < west_grid_nxfaces(&g); i++)
		f.u[i] = face_value(0, i);
	for (size_t i = 0; i < west_grid_nyfaces(&g); i++)
		f.v[i] = face_value(1, i);
	for (size_t i = 0; i < west_grid_nzfaces(&g); i++)
		f.w[i] = face_value(2, i);
	for (size_t c = 0; c < g.nx * g.ny; c++)
		f.stability[c] = (unsigned char)((c * 5 + 1) % 6);
	f.valid_time = VALID_TIME;
	fill_report(&f.report, iterations);
}

static void make_obs(void)
{
	stations[0] = (struct west_obs){ .id = "MAST-1", .x = 500412.5, .y = 4650333.25,
		.height = 10.0, .speed = 5.5, .direction = 270.0, .time = VALID_TIME - 60,
		.stability = WEST_STAB_D, .inv_L = NAN, .z0 = NAN };
	stations[1] = (struct west_obs){ .id = "tower \"east\"", .x = 501200.0,
		.y = 4651001.0, .height = 42.5, .speed = 0.25, .direction = 12.5,
		.time = VALID_TIME, .stability = WEST_STAB_F, .inv_L = NAN, .z0 = NAN };
	obs = (struct west_obs_set){ .n = 2, .obs = stations, .valid_time = VALID_TIME };
}

/* Names in dir other than . and .., joined by spaces. */
static void dir_entries(char *out, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	cr_assert_not_null(d, "opendir %s: %s", dir, strerror(errno));
	out[0] = '\0';
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(out);
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			snprintf(out + n, size - n, "%s%s", n ? " " : "", e->d_name);
	}
	closedir(d);
}

static void check_report(const struct west_report *got, const struct west_report *want)
{
	cr_assert_str_eq(got->backend, want->backend);
	cr_assert_str_eq(got->solver, want->solver);
	cr_assert_str_eq(got->indexing, want->indexing);
	cr_assert_eq(got->omega, want->omega);
	cr_assert_eq(got->eta, want->eta);
	cr_assert_eq(got->tolerance, want->tolerance);
	cr_assert_eq(got->iterations_max, want->iterations_max);
	cr_assert_eq(got->iterations, want->iterations);
	cr_assert_eq(got->converged, want->converged);
	cr_assert_eq(got->h, want->h);
	cr_assert_eq(got->u_ref, want->u_ref);
	cr_assert_eq(memcmp(&got->start, &want->start, sizeof got->start), 0, "start");
	cr_assert_eq(memcmp(&got->end, &want->end, sizeof got->end), 0, "end");
	cr_assert_eq(memcmp(&got->final, &want->final, sizeof got->final), 0, "final");
	for (int s = 0; s < WEST_NSTEPS; s++)
		cr_assert_eq(got->step_seconds[s], want->step_seconds[s], "step %s",
			     west_step_key(s));
	cr_assert_eq(got->total_seconds, want->total_seconds);
}

/* A cell's wind from its two faces: each flux over its transparency, the
 * closed ones left out (field.h). */
static float face_mean(float a, float ta, float b, float tb)
{
	if (ta == 0.0f || tb == 0.0f)
		return ta != 0.0f ? a / ta : tb != 0.0f ? b / tb : 0.0f;
	return 0.5f * (a / ta + b / tb);
}

/* Every cell: face_mean of its two faces, exactly, or NaN in land. */
static void check_winds(void)
{
	size_t nx = g.nx, ny = g.ny, nan = 0, cut = 0;

	for (size_t k = 0; k < g.nz; k++)
		for (size_t j = 0; j < ny; j++)
			for (size_t i = 0; i < nx; i++) {
				size_t c = west_grid_cell(&g, i, j, k);
				size_t xf = i + (nx + 1) * (j + ny * k);
				size_t yf = i + nx * (j + (ny + 1) * k);
				size_t zf = c;
				if (g.land[c]) {
					cr_assert(isnan(snap.u[c]) && isnan(snap.v[c]) && isnan(snap.w[c]),
						  "land cell %zu,%zu,%zu not NaN", i, j, k);
					nan++;
					continue;
				}
				cut += g.tx[xf] > 0.0f && g.tx[xf] < 1.0f;
				cr_assert_eq(snap.u[c], face_mean(f.u[xf], g.tx[xf], f.u[xf + 1], g.tx[xf + 1]),
					     "u at %zu,%zu,%zu", i, j, k);
				cr_assert_eq(snap.v[c], face_mean(f.v[yf], g.ty[yf], f.v[yf + nx], g.ty[yf + nx]),
					     "v at %zu,%zu,%zu", i, j, k);
				cr_assert_eq(snap.w[c], face_mean(f.w[zf], g.tz[zf], f.w[zf + nx * ny],
								  g.tz[zf + nx * ny]),
					     "w at %zu,%zu,%zu", i, j, k);
			}
	cr_assert_gt(cut, 0, "the hill must make cut cells");
	cr_assert_gt(g.land_cells, 0, "the hill must make land cells");
	cr_assert_eq(nan, g.land_cells);
}

static void check_grid(void)
{
	cr_assert_eq(snap.nx, g.nx);
	cr_assert_eq(snap.ny, g.ny);
	cr_assert_eq(snap.nz, NZ);
	for (size_t i = 0; i < g.nx; i++)
		cr_assert_eq(snap.x[i], g.x0 + ((double)i + 0.5) * g.dx, "x[%zu]", i);
	for (size_t j = 0; j < g.ny; j++)
		cr_assert_eq(snap.y[j], g.y0 + ((double)j + 0.5) * g.dy, "y[%zu]", j);
	for (size_t k = 0; k < g.nz; k++)
		cr_assert_eq(snap.z[k], g.base + (g.zf[k] + g.zf[k + 1]) / 2.0, "z[%zu]", k);
	cr_assert_eq(snap.base_altitude, g.base);
	cr_assert_eq(memcmp(snap.terrain, g.terrain, g.nx * g.ny * sizeof *g.terrain), 0);
	cr_assert_eq(memcmp(snap.land, g.land, west_grid_ncells(&g)), 0);
	cr_assert_eq(memcmp(snap.stability, f.stability, g.nx * g.ny), 0);
	cr_assert_eq(snap.time, VALID_TIME);
	cr_assert_str_eq(snap.conventions, "CF-1.10");
}

static void check_obs(void)
{
	cr_assert_eq(snap.obs.n, 2);
	cr_assert_eq(snap.obs.valid_time, VALID_TIME);
	for (size_t s = 0; s < 2; s++) {
		const struct west_obs *a = &snap.obs.obs[s], *b = &stations[s];
		cr_assert_str_eq(a->id, b->id);
		cr_assert_eq(a->x, b->x);
		cr_assert_eq(a->y, b->y);
		cr_assert_eq(a->height, b->height);
		cr_assert_eq(a->speed, b->speed);
		cr_assert_eq(a->direction, b->direction);
		cr_assert_eq(a->time, b->time);
		cr_assert_eq(a->stability, b->stability);
		cr_assert(isnan(a->inv_L) && isnan(a->z0));
	}
}

Test(snapshot, round_trip)
{
	make_field("hill.nc", 1234);
	make_obs();
	cr_assert_eq(west_snapshot_write(path, &g, &f, &obs, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_snapshot_read(path, &snap, err, sizeof err), WEST_OK, "%s", err);
	check_grid();
	check_winds();
	check_obs();
	check_report(&snap.report, &f.report);
	cr_assert_str_eq(snap.grid_mapping, "transverse_mercator");
}

/* The winds handed to NetCDF three rows at a time (the default is a
 * whole level here): every block lands where it belongs, the last of
 * each level shorter (32 rows), read back as written. */
Test(snapshot, round_trip_in_blocks_of_rows)
{
	struct west_snapshot_opts o = west_snapshot_opts_default;

	make_field("hill.nc", 1234);
	cr_assert_eq(g.ny % 3, 2);
	o.block_bytes = 3 * g.nx * sizeof(float);
	cr_assert_eq(west_snapshot_write_opts(path, &g, &f, NULL, &o, NULL, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_eq(west_snapshot_read(path, &snap, err, sizeof err), WEST_OK, "%s", err);
	check_winds();
}

/* The whole output of `ncdump ARGS path`, or skip when ncdump is missing. */
static char *ncdump(const char *args)
{
	char cmd[512];
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap);
	FILE *p;

	if (system("command -v ncdump >/dev/null 2>&1") != 0) {
		free(out);
		cr_skip_test("ncdump is not on PATH (install netcdf-bin)");
	}
	snprintf(cmd, sizeof cmd, "ncdump %s '%s'", args, path);
	p = popen(cmd, "r");
	cr_assert_not_null(p, "popen %s", cmd);
	for (size_t n; (n = fread(out + len, 1, cap - 1 - len, p)) > 0;) {
		len += n;
		if (len == cap - 1)
			out = realloc(out, cap *= 2);
		cr_assert_not_null(out);
	}
	out[len] = '\0';
	cr_assert_eq(pclose(p), 0, "%s failed:\n%s", cmd, out);
	return out;
}

static void expect(const char *text, const char *want)
{
	cr_expect_not_null(strstr(text, want), "ncdump lacks: %s", want);
}

/* Each of the n variables deflated at level 1 with the shuffle filter, in
 * ncdump -hs output h. */
static void expect_deflated(const char *h, const char *const *names, size_t n)
{
	char line[128];
	for (size_t k = 0; k < n; k++) {
		snprintf(line, sizeof line, "%s:_DeflateLevel = 1 ;", names[k]);
		expect(h, line);
		snprintf(line, sizeof line, "%s:_Shuffle = \"true\" ;", names[k]);
		expect(h, line);
	}
}

Test(snapshot, cf_and_storage_attributes)
{
	static const char *const deflated[] = {
		"time", "z", "y", "x", "surface_altitude", "land_mask", "stability_class",
		"station_x", "station_y", "station_height", "station_wind_speed",
		"station_wind_from_direction", "station_time", "station_stability",
	};
	char *h;

	make_field("hill.nc", 1);
	make_obs();
	cr_assert_eq(west_snapshot_write(path, &g, &f, &obs, err, sizeof err), WEST_OK, "%s", err);
	h = ncdump("-hs");
	expect(h, ":Conventions = \"CF-1.10\" ;");
	expect(h, ":source = \"WEST diagnostic wind model (westd ");
	expect(h, ":west_backend = \"cpu\" ;");
	expect(h, ":west_iterations = 1LL ;");
	expect(h, "x_wind:standard_name = \"x_wind\" ;");
	expect(h, "y_wind:standard_name = \"y_wind\" ;");
	expect(h, "upward_air_velocity:standard_name = \"upward_air_velocity\" ;");
	expect(h, "upward_air_velocity:units = \"m s-1\" ;");
	expect(h, "x_wind:_FillValue = 9.96921e+36f ;");
	expect(h, "x_wind:grid_mapping = \"crs\" ;");
	expect(h, "surface_altitude:standard_name = \"surface_altitude\" ;");
	expect(h, "crs:grid_mapping_name = \"transverse_mercator\" ;");
	expect(h, "crs:longitude_of_central_meridian = 15. ;");
	expect(h, "crs:scale_factor_at_central_meridian = 0.9996 ;");
	expect(h, "crs:crs_wkt = \"PROJCS[");
	expect(h, "x:standard_name = \"projection_x_coordinate\" ;");
	expect(h, "y:standard_name = \"projection_y_coordinate\" ;");
	expect(h, "z:positive = \"up\" ;");
	expect(h, "z:standard_name = \"altitude\" ;");
	expect(h, "time:units = \"seconds since 1970-01-01T00:00:00Z\" ;");
	expect(h, "land_mask:flag_meanings = \"air land\" ;");
	expect(h, "stability_class:flag_meanings = \"A B C D E F\" ;");
	expect(h, "station_wind_from_direction:standard_name = \"wind_from_direction\" ;");
	expect(h, "double lat(y, x) ;");
	expect(h, "lat:standard_name = \"latitude\" ;");
	expect(h, "lon:units = \"degrees_east\" ;");
	expect(h, "x_wind:coordinates = \"time z y x lat lon\" ;");
	expect(h, "surface_altitude:coordinates = \"lat lon\" ;");
	expect(h, "land_mask:coordinates = \"lat lon\" ;");
	expect(h, ":_Format = \"netCDF-4\" ;");
	expect(h, "land_mask:_ChunkSizes = 8, 16, 16 ;");
	expect_deflated(h, deflated, sizeof deflated / sizeof deflated[0]);
	free(h);
}

/* The winds, lat and lon: contiguous, no filter, no quantization (issue
 * 17: deflating them was most of a write's time); the winds never filled
 * by HDF5 (they are written a block at a time, and a fill of the whole
 * variable would come first), with their _FillValue kept. */
Test(snapshot, winds_and_lat_lon_are_contiguous_and_unfiltered)
{
	static const char *const raw[] = { "x_wind", "y_wind", "upward_air_velocity",
					   "lat", "lon" };
	static const char *const absent[] = { "_DeflateLevel", "_Shuffle", "_Quantize",
					      "_ChunkSizes" };
	char line[128];
	char *h;

	make_field("hill.nc", 1);
	cr_assert_eq(west_snapshot_write(path, &g, &f, NULL, err, sizeof err), WEST_OK, "%s", err);
	h = ncdump("-hs");
	for (size_t k = 0; k < sizeof raw / sizeof raw[0]; k++) {
		snprintf(line, sizeof line, "%s:_Storage = \"contiguous\" ;", raw[k]);
		expect(h, line);
		for (size_t a = 0; a < sizeof absent / sizeof absent[0]; a++) {
			snprintf(line, sizeof line, "%s:%s", raw[k], absent[a]);
			cr_expect_null(strstr(h, line), "%s is there", line);
		}
		if (k < 3) {
			snprintf(line, sizeof line, "%s:_NoFill = \"true\" ;", raw[k]);
			expect(h, line);
			snprintf(line, sizeof line, "%s:_FillValue = 9.96921e+36f ;", raw[k]);
			expect(h, line);
		}
	}
	free(h);
}

/* west_snapshot_opts_v1, the storage before issue 17 (the benchmark's
 * "before"): the winds deflated in chunks of 16 x 16 whole columns, lat
 * and lon deflated, the same values read back. */
Test(snapshot, v1_options_keep_the_old_storage)
{
	static const char *const deflated[] = { "x_wind", "y_wind", "upward_air_velocity",
						"lat", "lon" };
	char *h;

	make_field("hill.nc", 1234);
	make_obs();
	cr_assert_eq(west_snapshot_write_opts(path, &g, &f, &obs, &west_snapshot_opts_v1, NULL,
					      err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_snapshot_read(path, &snap, err, sizeof err), WEST_OK, "%s", err);
	check_grid();
	check_winds();
	check_obs();
	check_report(&snap.report, &f.report);
	h = ncdump("-hs");
	expect(h, "x_wind:_ChunkSizes = 1, 8, 16, 16 ;");
	expect(h, "upward_air_velocity:_ChunkSizes = 1, 8, 16, 16 ;");
	expect_deflated(h, deflated, sizeof deflated / sizeof deflated[0]);
	free(h);
}

Test(snapshot, contradictory_options_refused)
{
	struct west_snapshot_opts o = { .deflate = 1, .layout = WEST_SNAPSHOT_CONTIGUOUS };
	char names[256];

	make_field("hill.nc", 1);
	cr_assert_eq(west_snapshot_write_opts(path, &g, &f, NULL, &o, NULL, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_assert_not_null(strstr(err, "contiguous variable cannot be deflated"), "%s", err);
	o = west_snapshot_opts_v1;
	o.chunk_xy = 0;
	cr_assert_eq(west_snapshot_write_opts(path, &g, &f, NULL, &o, NULL, err, sizeof err),
		     WEST_ERR_INVALID);
	dir_entries(names, sizeof names);
	cr_assert_str_eq(names, "", "left: %s", names);
}

/*
 * BitRound to nsb bits (the benchmark's quantized rows): every air value
 * read back within 2^-(nsb+1) of its magnitude (the mantissa rounded to nsb
 * bits), land still the fill value (read as NaN), and the attribute that
 * says so.  Snapshots do not quantize; this holds the option to its bound.
 */
Test(snapshot, bitround_option_stays_within_its_bound)
{
	struct west_snapshot_opts o = west_snapshot_opts_v1;
	size_t n, changed = 0;
	float want[3];
	char *h;

	o.quantize = NC_QUANTIZE_BITROUND, o.nsd = 10;
	make_field("hill.nc", 1);
	cr_assert_eq(west_snapshot_write_opts(path, &g, &f, NULL, &o, NULL, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_eq(west_snapshot_read(path, &snap, err, sizeof err), WEST_OK, "%s", err);
	n = 0;
	for (size_t k = 0; k < g.nz; k++)
		for (size_t j = 0; j < g.ny; j++)
			for (size_t i = 0; i < g.nx; i++, n++) {
				const float got[3] = { snap.u[n], snap.v[n], snap.w[n] };
				if (!west_field_centre(&f, &g, i, j, k, want)) {
					cr_assert(isnan(got[0]) && isnan(got[1]) && isnan(got[2]));
					continue;
				}
				for (int c = 0; c < 3; c++) {
					double e = fabs((double)got[c] - want[c]);
					cr_assert_leq(e, ldexp(fabs(want[c]), -11), "%zu,%zu,%zu: %.9g for %.9g",
						      i, j, k, got[c], want[c]);
					changed += e > 0;
				}
			}
	cr_assert_gt(changed, 0, "nothing was rounded");
	h = ncdump("-h");
	expect(h, "x_wind:_QuantizeBitRoundNumberOfSignificantBits = 10 ;");
	free(h);
}

/* west_field_centres is west_field_centre bit for bit, fill in land,
 * for a whole component and in blocks of rows (two levels and 5 rows,
 * then the rest). */
Test(snapshot, centres_of_a_whole_component_match_the_cell_function)
{
	float *out, c[3];
	size_t n;

	make_field("hill.nc", 1);
	out = malloc(west_grid_ncells(&g) * sizeof *out);
	cr_assert_not_null(out);
	cr_assert_gt(g.nz, 3);
	for (int t = 0; t < 6; t++) {   /* each component whole, then split */
		int comp = t % 3, split = t / 3;
		size_t r = split ? 2 * g.ny + 5 : g.ny * g.nz;   /* the first block's rows */
		memset(out, 0xff, west_grid_ncells(&g) * sizeof *out);   /* NaN: unwritten */
		west_field_centres(&f, &g, comp, 0, r, -1.5f, out);
		west_field_centres(&f, &g, comp, r, g.ny * g.nz, -1.5f, out + r * g.nx);
		n = 0;
		for (size_t k = 0; k < g.nz; k++)
			for (size_t j = 0; j < g.ny; j++)
				for (size_t i = 0; i < g.nx; i++, n++) {
					float want = west_field_centre(&f, &g, i, j, k, c) ? c[comp] : -1.5f;
					cr_assert_eq(memcmp(&out[n], &want, sizeof want), 0,
						     "component %d (split %d) at %zu,%zu,%zu: %.9g, not "
						     "%.9g", comp, split, i, j, k, out[n], want);
				}
	}
	free(out);
}

/* lat and lon in the file at path: each column (every 7th row, 5th
 * column) exactly proj.c's inverse of its centre on grid gr; lat[0],
 * lon[0] returned. */
static void check_lonlat(const struct west_grid *gr, double *lat0, double *lon0)
{
	int ncid, vlat, vlon;
	size_t n = gr->nx * gr->ny;
	double *lat = malloc(2 * n * sizeof *lat), *lon = lat + n;

	cr_assert_not_null(lat);
	cr_assert_eq(nc_open(path, NC_NOWRITE, &ncid), NC_NOERR);
	cr_assert_eq(nc_inq_varid(ncid, "lat", &vlat), NC_NOERR);
	cr_assert_eq(nc_inq_varid(ncid, "lon", &vlon), NC_NOERR);
	cr_assert_eq(nc_get_var_double(ncid, vlat, lat), NC_NOERR);
	cr_assert_eq(nc_get_var_double(ncid, vlon, lon), NC_NOERR);
	nc_close(ncid);
	for (size_t j = 0; j < gr->ny; j += 7)
		for (size_t i = 0; i < gr->nx; i += 5) {
			double wlon, wlat;
			cr_assert_eq(west_tm_inverse(&gr->crs, gr->x0 + (i + 0.5) * gr->dx,
						     gr->y0 + (j + 0.5) * gr->dy, &wlon, &wlat,
						     err, sizeof err), WEST_OK, "%s", err);
			cr_assert_eq(lat[j * gr->nx + i], wlat, "lat (%zu, %zu)", i, j);
			cr_assert_eq(lon[j * gr->nx + i], wlon, "lon (%zu, %zu)", i, j);
		}
	cr_expect_gt(lat[(gr->ny - 1) * gr->nx], lat[0], "north is up");
	*lat0 = lat[0], *lon0 = lon[0];
	free(lat);
}

/*
 * lat and lon of the column centres (hill.nc: UTM zone 33N, 50 m columns
 * from (500000, 4650000)): row-major (y, x), each the inverse transverse
 * Mercator of its centre (proj.c, held to pyproj within 1 mm by
 * test_obs); column (0, 0) lies just east of 15 E, the central meridian,
 * at about 42.0 N.  Exact against proj.c, 1e-4 degrees by hand.
 */
Test(snapshot, lat_lon_auxiliary_coordinates)
{
	double lat0, lon0;

	make_field("hill.nc", 1);
	cr_assert(g.crs.has_tm);
	cr_assert_eq(west_snapshot_write(path, &g, &f, NULL, err, sizeof err), WEST_OK, "%s", err);
	check_lonlat(&g, &lat0, &lon0);
	cr_expect(lon0 > 15.0 && lon0 < 15.001, "lon %g", lon0);
	cr_expect(lat0 > 41.99 && lat0 < 42.01, "lat %g", lat0);
}

/*
 * lat and lon are kept from one snapshot to the next (snapshot.c): the
 * same grid again gives the same values, and a grid that differs in
 * anything they depend on (the origin, the cell size, the central
 * meridian) gets its own, also after west_snapshot_forget.
 */
Test(snapshot, kept_lat_lon_follow_the_grid)
{
	double lat0, lon0, lat1, lon1;

	make_field("hill.nc", 1);
	cr_assert_eq(west_snapshot_write(path, &g, &f, NULL, err, sizeof err), WEST_OK, "%s", err);
	check_lonlat(&g, &lat0, &lon0);
	cr_assert_eq(west_snapshot_write(path, &g, &f, NULL, err, sizeof err), WEST_OK, "%s", err);
	check_lonlat(&g, &lat1, &lon1);
	cr_assert(lat1 == lat0 && lon1 == lon0);
	g.y0 += 1000.0;
	cr_assert_eq(west_snapshot_write(path, &g, &f, NULL, err, sizeof err), WEST_OK, "%s", err);
	check_lonlat(&g, &lat1, &lon1);
	cr_assert_gt(lat1, lat0 + 0.005, "moved 1 km north: %.6f, %.6f", lat1, lat0);
	g.dx *= 2.0;
	cr_assert_eq(west_snapshot_write(path, &g, &f, NULL, err, sizeof err), WEST_OK, "%s", err);
	check_lonlat(&g, &lat1, &lon1);
	g.crs.lon0 = 9.0;
	cr_assert_eq(west_snapshot_write(path, &g, &f, NULL, err, sizeof err), WEST_OK, "%s", err);
	check_lonlat(&g, &lat1, &lon1);
	cr_assert_lt(lon1, lon0 - 5.9, "the central meridian moved 6 degrees west");
	west_snapshot_forget();
	cr_assert_eq(west_snapshot_write(path, &g, &f, NULL, err, sizeof err), WEST_OK, "%s", err);
	check_lonlat(&g, &lat1, &lon1);
}

/* No CRS (hill.asc has no .prj) and no stations: no crs, no station dim. */
Test(snapshot, without_crs_or_stations)
{
	char *h;

	make_field("hill.asc", 7);
	cr_assert_eq(g.crs.grid_mapping_name[0], '\0');
	cr_assert_eq(west_snapshot_write(path, &g, &f, NULL, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_snapshot_read(path, &snap, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_str_eq(snap.grid_mapping, "");
	cr_assert_eq(snap.obs.n, 0);
	cr_assert_null(snap.obs.obs);
	check_grid();
	check_winds();
	h = ncdump("-h");
	cr_expect_null(strstr(h, "grid_mapping"), "no CRS, yet:\n%s", h);
	cr_expect_null(strstr(h, "station"), "no stations, yet:\n%s", h);
	cr_expect_null(strstr(h, "lat lon"), "no lat, lon without a CRS, yet:\n%s", h);
	free(h);
}

/* A WKT that names no CF mapping: kept as west_crs_wkt, no grid_mapping. */
Test(snapshot, wkt_without_mapping_name)
{
	char *h;

	make_field("hill.asc", 7);
	g.crs.wkt = strdup("LOCAL_CS[\"site grid\",UNIT[\"metre\",1]]");
	cr_assert_not_null(g.crs.wkt);
	cr_assert_eq(west_snapshot_write(path, &g, &f, NULL, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_snapshot_read(path, &snap, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_str_eq(snap.grid_mapping, "");
	h = ncdump("-h");
	expect(h, ":west_crs_wkt = \"LOCAL_CS[");
	cr_expect_null(strstr(h, "grid_mapping"), "no CF mapping, yet:\n%s", h);
	free(h);
}

Test(snapshot, overwrite_replaces_whole_file)
{
	char names[256];

	make_field("hill.nc", 111);
	cr_assert_eq(west_snapshot_write(path, &g, &f, NULL, err, sizeof err), WEST_OK, "%s", err);
	f.report.iterations = 222;
	cr_assert_eq(west_snapshot_write(path, &g, &f, NULL, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_snapshot_read(path, &snap, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(snap.report.iterations, 222);
	dir_entries(names, sizeof names);
	cr_assert_str_eq(names, "snap.nc");
}

/* A write cut short (file size limit) keeps the old snapshot, no temp. */
Test(snapshot, interrupted_write_keeps_old_file)
{
	struct rlimit old, small;
	enum west_status st;
	char names[256];

	make_field("hill.nc", 111);
	make_obs();
	cr_assert_eq(west_snapshot_write(path, &g, &f, &obs, err, sizeof err), WEST_OK, "%s", err);
	f.report.iterations = 222;
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 4096;
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &small), 0, "%s", strerror(errno));
	err[0] = '\0';
	st = west_snapshot_write(path, &g, &f, &obs, err, sizeof err);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &old), 0, "%s", strerror(errno));
	cr_assert_neq(st, WEST_OK, "a write over the file size limit succeeded");
	cr_assert_not_null(strstr(err, path), "message does not name %s: %s", path, err);
	cr_assert_eq(west_snapshot_read(path, &snap, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(snap.report.iterations, 111, "the old snapshot was changed");
	dir_entries(names, sizeof names);
	cr_assert_str_eq(names, "snap.nc", "left behind: %s", names);
}

/*
 * west_file_replace (fileio.h) writes a file in pieces of 8 MB, starting
 * each piece's writeback before the next: a file of two pieces and a
 * part comes back byte for byte with mode 0644 and no temp left; a write
 * stopped by the file size limit after the first piece keeps the old
 * file and leaves no temp.
 */
Test(snapshot, file_replace_in_pieces)
{
	const size_t len = (16u << 20) + 12345;
	unsigned char *buf = malloc(len), *back = malloc(len);
	struct rlimit old, small;
	struct stat sb;
	char names[256];
	FILE *fp;

	cr_assert(buf && back);
	for (size_t i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 2654435761u >> 13);
	cr_assert_eq(west_file_replace(path, buf, len, 0644, err, sizeof err), WEST_OK, "%s", err);
	fp = fopen(path, "rb");
	cr_assert_not_null(fp);
	cr_assert_eq(fread(back, 1, len, fp), len);
	cr_assert_eq(fgetc(fp), EOF, "the file is longer than what was written");
	fclose(fp);
	cr_assert_eq(memcmp(buf, back, len), 0, "the file is not what was written");
	cr_assert_eq(stat(path, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0644);
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 9u << 20;   /* the second piece fails */
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &small), 0, "%s", strerror(errno));
	buf[0] ^= 1;
	cr_expect_eq(west_file_replace(path, buf, len, 0644, err, sizeof err), WEST_ERR_IO);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &old), 0, "%s", strerror(errno));
	cr_expect_not_null(strstr(err, "write to"), "%s", err);
	fp = fopen(path, "rb");
	cr_assert_not_null(fp);
	cr_assert_eq(fread(back, 1, len, fp), len);
	fclose(fp);
	cr_expect_eq(back[0], (unsigned char)(buf[0] ^ 1), "the old file was changed");
	dir_entries(names, sizeof names);
	cr_expect_str_eq(names, "snap.nc", "left behind: %s", names);
	free(buf);
	free(back);
}

Test(snapshot, missing_directory_fails_and_leaves_nothing)
{
	char bad[256], names[256];

	make_field("hill.nc", 1);
	snprintf(bad, sizeof bad, "%s/no/such/dir/snap.nc", dir);
	cr_assert_eq(west_snapshot_write(bad, &g, &f, NULL, err, sizeof err), WEST_ERR_IO);
	cr_assert_not_null(strstr(err, bad), "message does not name the path: %s", err);
	dir_entries(names, sizeof names);
	cr_assert_str_eq(names, "");
}

Test(snapshot, field_grid_mismatch_refused)
{
	char names[256];

	make_field("hill.nc", 1);
	f.nz = NZ - 1;
	cr_assert_eq(west_snapshot_write(path, &g, &f, NULL, err, sizeof err), WEST_ERR_INVALID);
	f.nz = NZ;
	cr_assert_not_null(strstr(err, "grid"), "%s", err);
	dir_entries(names, sizeof names);
	cr_assert_str_eq(names, "");
}

Test(snapshot, terrain_raster_is_not_a_snapshot)
{
	cr_assert_eq(west_snapshot_read(WEST_SRCDIR "/data/hill.nc", &snap, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_assert_not_null(strstr(err, "x_wind"), "%s", err);
	cr_assert_not_null(strstr(err, "hill.nc"), "%s", err);
	cr_assert_null(snap.u);
}

/* A classic file whose header declares more than it holds (a variable of
 * 2^31 - 1 floats in 80 bytes) is refused before libnetcdf allocates for it
 * (src/nc_header.c). */
Test(snapshot, oversized_classic_header_refused)
{
	static const unsigned char hdr[80] = {
		'C', 'D', 'F', 1, 0, 0, 0, 0,           /* numrecs 0 */
		0, 0, 0, 0x0a, 0, 0, 0, 1,              /* one dimension */
		0, 0, 0, 1, 'x', 0, 0, 0, 0x7f, 0xff, 0xff, 0xff,
		0, 0, 0, 0, 0, 0, 0, 0,                 /* no global attributes */
		0, 0, 0, 0x0b, 0, 0, 0, 1,              /* one variable */
		0, 0, 0, 1, 'z', 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,                 /* no attributes */
		0, 0, 0, 5, 0xff, 0xff, 0xff, 0xfc, 0, 0, 0, 80,
	};
	FILE *fp = fopen(path, "wb");

	cr_assert_not_null(fp);
	cr_assert_eq(fwrite(hdr, 1, sizeof hdr, fp), sizeof hdr);
	cr_assert_eq(fclose(fp), 0);
	cr_assert_eq(west_snapshot_read(path, &snap, err, sizeof err), WEST_ERR_INVALID);
	cr_assert_not_null(strstr(err, "NetCDF header: variable 'z' has data up to byte"),
			   "%s", err);
	cr_assert_not_null(strstr(err, path), "%s", err);
	cr_assert_null(snap.u);
}

Test(snapshot, missing_file_named)
{
	cr_assert_eq(west_snapshot_read(path, &snap, err, sizeof err), WEST_ERR_IO);
	cr_assert_not_null(strstr(err, path), "%s", err);
}

/*
 * A snapshot without one report attribute is refused, naming it.  The
 * attribute is removed from an nccopy copy: snapshots themselves open
 * read-only in netCDF-C (snapshot.c says why).
 */
Test(snapshot, missing_report_attribute_named)
{
	char copy[160], cmd[512];
	int ncid;

	if (system("command -v nccopy >/dev/null 2>&1") != 0)
		cr_skip_test("nccopy is not on PATH (install netcdf-bin)");
	make_field("hill.nc", 1);
	cr_assert_eq(west_snapshot_write(path, &g, &f, NULL, err, sizeof err), WEST_OK, "%s", err);
	snprintf(copy, sizeof copy, "%s/copy.nc", dir);
	snprintf(cmd, sizeof cmd, "nccopy '%s' '%s'", path, copy);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	cr_assert_eq(nc_open(copy, NC_WRITE, &ncid), NC_NOERR);
	cr_assert_eq(nc_redef(ncid), NC_NOERR);
	cr_assert_eq(nc_del_att(ncid, NC_GLOBAL, "west_u_ref"), NC_NOERR);
	cr_assert_eq(nc_close(ncid), NC_NOERR);
	cr_assert_eq(west_snapshot_read(copy, &snap, err, sizeof err), WEST_ERR_INVALID);
	cr_assert_not_null(strstr(err, "west_u_ref"), "%s", err);
	cr_assert_null(snap.u);
}
