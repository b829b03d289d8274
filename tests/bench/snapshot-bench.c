/*
 * snapshot-bench.c: the NetCDF snapshot writer's storage settings side by
 * side (docs/benchmarks.md, "Snapshots (issue 17)"): for each grid, one
 * solved field written with each setting of --settings in turn, --reps
 * rounds (a round writes every setting once, in order, so that the
 * machine's drift touches all alike), and per setting the median, lowest
 * and highest write time, the file's size, the largest difference between
 * the winds read back and the cell-centre winds written (0 unless the
 * setting quantizes), the time to read one profile, and where a write
 * spends its time.
 *
 * The set-up is solver-bench.c's: the valley-and-ridge terrain of
 * bench_terrain.h on 8 km x 8 km, 20 levels of 20 m, R16 400x400 (20 m),
 * R64 800x800 (10 m) (R1 100x100 and R4 200x200 for a quick check), the six
 * stations of bench_terrain.h.  The CRS is WGS 84 / UTM zone 33N, the one
 * of data/default.prj, built in (that WKT, the transverse Mercator
 * parameters), so that a snapshot holds lat(y, x) and lon(y, x) as the
 * daemon's do with the default terrain; no data file is read.  The field
 * (--field):
 *   solve      (default) the CPU backend's multigrid, to
 *              max|D| h / U_ref <= 1e-4, once per grid: a real field, with
 *              the real field's low-order bits, which decide how well it
 *              compresses;
 *   synthetic  a smooth analytic flow (a south-westerly of about
 *              5 log(1 + (k + 1) / 2) m/s at level k, with long waves),
 *              closed faces 0: no solve, for a quick look; it compresses
 *              better than a real field.
 *
 * Settings (--settings, comma-separated): "before" (issue 17's starting
 * point: deflate 1, shuffle, chunks of 16 x 16 whole columns, no
 * quantization: west_snapshot_opts_v1; lat and lon computed at every
 * write, as then: west_snapshot_forget before each of its writes), "now"
 * (what west_snapshot_write uses: west_snapshot_opts_default), or a spec
 * of '+'-joined items, the rest as in "before":
 *   dN     deflate level N (d0: none)    sN    shuffle off (s0) or on (s1)
 *   cN     chunks of N x N whole columns planes  a level plane per chunk
 *   contiguous  not chunked (needs d0)
 *   brN    BitRound, N significant bits  gbrN  GranularBR, N digits
 *   bgN    BitGroom, N digits
 * e.g. "d1+s1+c64+br12" or "d0+contiguous" (= "now").  "before" is the
 * first setting whatever the order given, so that "before / this" has it.
 * Every setting but "before" reuses lat and lon after the first write of
 * a grid, as the daemon does (snapshot.c): that first write is the
 * "highest" of whichever setting comes first after "before" in round 1.
 * The centres are computed by today's code for "before" too
 * (west_field_centres, 0.1 s against 0.27 s at R64 on this machine): its
 * times are those of the old settings, a little faster than the old code.
 *
 * Columns: "write" is west_snapshot_write_opts whole: the winds at cell
 * centres, NetCDF-4 built in memory, the temp file written, fsynced and
 * renamed, the directory fsynced (--dir chooses the directory: put it on
 * the disk the daemon's snapshot_dir uses; the default is $TMPDIR or
 * /tmp).  "before / this" is the median of "before" over this setting's
 * median, both measured in this run.  "max error" is max |read - written|
 * over air cells (m/s), "max rel error" max |read - written| / |written|
 * over air cells whose wind is not 0 (both 0 unless the setting
 * quantizes).  "profile read" is one column of x_wind read from the file
 * just opened (nc_open, nc_get_vara, nc_close; the mean over 16 columns
 * spread over the grid): what a reader that wants a profile pays for the
 * layout, from the page cache.  The phases (struct west_snapshot_times,
 * medians): define (nc_create_mem, the variables and attributes),
 * coordinates (x, y, z, time, lat, lon), centres (the winds at cell
 * centres from the faces), winds (nc_put_var of the three winds: HDF5's
 * chunking, the filters, the copies into the in-memory image), other (the
 * remaining variables), close (nc_close_memio: what HDF5 still holds,
 * filtered, and the image handed back), file (write(2), fsync, rename,
 * directory fsync).
 *
 * Usage: snapshot-bench [--grids R16,R64] [--reps N] [--field solve|synthetic]
 *                       [--settings before,now,...] [--dir DIR]
 * Defaults: --grids R16,R64 --reps 5 --field solve --settings before,now.
 * Output: markdown tables on stdout, progress on stderr.  Exit 0, 1 on an
 * error, 2 on a bad option.  Built with `make tests/bench/snapshot-bench`;
 * it needs only the shared libraries libwest links (no data files).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <netcdf.h>

#include "backend.h"
#include "bench_terrain.h"
#define BENCH_NAME "snapshot-bench"
#include "bench_util.h"
#include "config.h"
#include "snapshot.h"

#define SN_NZ 20
#define SN_DZ 20.0
#define SN_TOL 1e-4
#define SN_MAX_SETTINGS 20
#define SN_MAX_REPS 64
#define SN_PROFILES 16

/* data/default.prj: WGS 84 / UTM zone 33N (ESRI WKT1). */
static const char utm33n_wkt[] =
	"PROJCS[\"WGS_1984_UTM_Zone_33N\",GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\","
	"SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],PRIMEM[\"Greenwich\",0.0],"
	"UNIT[\"Degree\",0.0174532925199433]],PROJECTION[\"Transverse_Mercator\"],"
	"PARAMETER[\"False_Easting\",500000.0],PARAMETER[\"False_Northing\",0.0],"
	"PARAMETER[\"Central_Meridian\",15.0],PARAMETER[\"Scale_Factor\",0.9996],"
	"PARAMETER[\"Latitude_Of_Origin\",0.0],UNIT[\"Meter\",1.0]]";

struct opts {
	char grids[64], field[16], settings[512], dir[256];
	int reps;
};

struct setting {
	char name[64];
	struct west_snapshot_opts o;
	double t[SN_MAX_REPS];
	struct west_snapshot_times ph[SN_MAX_REPS];
	double size, max_err, max_rel, profile;
};

static double median(const double *v, int n)
{
	double s[SN_MAX_REPS];
	memcpy(s, v, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmp_double);
	return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* ------------------------------------------------------------- settings */

/* One spec ("before", "now", or items) into s; 0 when it is not one. */
static int parse_setting(const char *spec, struct setting *s)
{
	char buf[64], *save = NULL;

	memset(s, 0, sizeof *s);
	snprintf(s->name, sizeof s->name, "%s", spec);
	s->o = west_snapshot_opts_v1;
	if (!strcmp(spec, "before"))
		return 1;
	if (!strcmp(spec, "now")) {
		s->o = west_snapshot_opts_default;
		return 1;
	}
	snprintf(buf, sizeof buf, "%s", spec);
	for (char *it = strtok_r(buf, "+", &save); it; it = strtok_r(NULL, "+", &save)) {
		char *end;
		long v;
		const char *num = it + (!strncmp(it, "gbr", 3) ? 3 :
					!strncmp(it, "br", 2) || !strncmp(it, "bg", 2) ? 2 : 1);
		if (!strcmp(it, "planes") || !strcmp(it, "contiguous")) {
			s->o.layout = it[0] == 'p' ? WEST_SNAPSHOT_PLANES : WEST_SNAPSHOT_CONTIGUOUS;
			continue;
		}
		v = strtol(num, &end, 10);
		if (!*num || *end || v < 0 || v > 100000)
			return 0;
		if (it[0] == 'd')
			s->o.deflate = (int)v;
		else if (it[0] == 's')
			s->o.shuffle = (int)v;
		else if (it[0] == 'c' && v > 0)
			s->o.layout = WEST_SNAPSHOT_COLUMNS, s->o.chunk_xy = (size_t)v;
		else if (!strncmp(it, "gbr", 3))
			s->o.quantize = NC_QUANTIZE_GRANULARBR, s->o.nsd = (int)v;
		else if (!strncmp(it, "br", 2))
			s->o.quantize = NC_QUANTIZE_BITROUND, s->o.nsd = (int)v;
		else if (!strncmp(it, "bg", 2))
			s->o.quantize = NC_QUANTIZE_BITGROOM, s->o.nsd = (int)v;
		else
			return 0;
	}
	return 1;
}

/* "deflate 1, shuffle, 16 x 16 columns, BitRound 12 bits" */
static void describe(const struct west_snapshot_opts *o, char *buf, size_t size)
{
	char chunk[64], q[48] = "";

	if (o->layout == WEST_SNAPSHOT_COLUMNS)
		snprintf(chunk, sizeof chunk, "%zu x %zu columns", o->chunk_xy, o->chunk_xy);
	else
		snprintf(chunk, sizeof chunk, "%s", o->layout == WEST_SNAPSHOT_PLANES ?
			 "level planes" : "contiguous");
	if (o->quantize)
		snprintf(q, sizeof q, ", %s %d %s",
			 o->quantize == NC_QUANTIZE_BITROUND ? "BitRound" :
			 o->quantize == NC_QUANTIZE_GRANULARBR ? "GranularBR" : "BitGroom",
			 o->nsd, o->quantize == NC_QUANTIZE_BITROUND ? "bits" : "digits");
	if (o->deflate)
		snprintf(buf, size, "deflate %d%s, %s%s", o->deflate,
			 o->shuffle ? ", shuffle" : "", chunk, q);
	else
		snprintf(buf, size, "no deflate, %s%s", chunk, q);
}

/* -------------------------------------------------------------- set-up */

static size_t grid_nx(const char *name)
{
	static const struct { const char *name; size_t nx; } g[] = {
		{ "R1", 100 }, { "R4", 200 }, { "R16", 400 }, { "R64", 800 },
	};
	for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
		if (!strcmp(name, g[i].name))
			return g[i].nx;
	return 0;
}

static void grid_build(struct west_grid *g, size_t nx)
{
	struct west_config *c = calloc(1, sizeof *c);
	struct west_dem dem = { .nx = nx, .ny = nx, .dx = BENCH_TERRAIN_L / (double)nx,
				.dy = BENCH_TERRAIN_L / (double)nx, .x0 = BENCH_X0,
				.y0 = BENCH_Y0 };
	struct west_grid_opts go;
	char err[WEST_ERRLEN];

	dem.z = malloc(nx * nx * sizeof *dem.z);
	if (!c || !dem.z)
		die("grid", "out of memory");
	bench_dem_fill(&dem);
	dem.crs = (struct west_crs){
		.grid_mapping_name = "transverse_mercator", .wkt = (char *)utm33n_wkt,
		.has_tm = 1, .lon0 = 15.0, .lat0 = 0.0, .k0 = 0.9996,
		.false_easting = 500000.0, .false_northing = 0.0,
	};
	west_config_defaults(c);
	c->nz = SN_NZ, c->dz = SN_DZ, c->max_cells = 4000000000LL;
	west_grid_opts_from_config(&go, c);
	if (west_grid_init(g, &dem, &go, err, sizeof err))   /* copies the CRS */
		die("grid", err);
	free(dem.z);
	free(c);
}

/* The CPU backend's multigrid to SN_TOL: a real field. */
static void field_solve(const struct west_grid *g, const struct west_obs_set *obs,
			struct west_field *f)
{
	const struct west_backend *be = west_backend_find("cpu");
	struct west_solve_opts o = {
		.solver = WEST_SOLVER_MULTIGRID, .cycles = 100, .tolerance = SN_TOL,
		.omega = 1.0, .eta = 1.0, .indexing = WEST_INDEXING_COMPACT,
		.check_interval = 20, .land_use = WEST_LAND_RURAL,
	};
	char err[WEST_ERRLEN];
	void *state;

	if (!be || be->init(&state, err, sizeof err))
		die("cpu backend", be ? err : "not built");
	if (be->upload_terrain(state, g, err, sizeof err) ||
	    be->run(state, obs, &o, f, NULL, NULL, err, sizeof err))
		die("solve", err);
	be->free(state);
}

/* A smooth flow: a south-westerly growing with height, long waves; the
 * faces' fluxes (velocity times transparency), 0 on closed faces. */
static void field_synthetic(const struct west_grid *g, struct west_field *f)
{
	size_t nx = g->nx, ny = g->ny, nz = g->nz;

	for (size_t k = 0; k < nz; k++) {
		double prof = log(1.0 + 0.5 * (double)(k + 1));
		for (size_t j = 0; j <= ny; j++)
			for (size_t i = 0; i <= nx; i++) {
				double a = 2.0 * M_PI * (double)i / (double)nx;
				double b = 2.0 * M_PI * (double)j / (double)ny;
				if (j < ny) {
					size_t x = i + (nx + 1) * (j + ny * k);
					f->u[x] = (float)(prof * (3.5 + 0.8 * sin(a) * cos(2 * b))) * g->tx[x];
				}
				if (i < nx) {
					size_t y = i + nx * (j + (ny + 1) * k);
					f->v[y] = (float)(prof * (3.5 + 0.6 * cos(3 * a + b))) * g->ty[y];
				}
			}
	}
	for (size_t k = 0; k <= nz; k++)
		for (size_t c = 0; c < nx * ny; c++) {
			size_t z = c + nx * ny * k;
			f->w[z] = (float)(0.05 * sin((double)c * 1e-3) * (double)k / (double)nz) *
				  g->tz[z];
		}
	memset(f->stability, WEST_STAB_D, nx * ny);
	f->valid_time = BENCH_TIME;
	snprintf(f->report.backend, sizeof f->report.backend, "synthetic");
}

/* ------------------------------------------------------------- measure */

static double file_size(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? (double)sb.st_size : NAN;
}

/* Max |read - written| and max relative error over air cells. */
static void read_back(const char *path, const struct west_grid *g,
		      const struct west_field *f, struct setting *s)
{
	struct west_snapshot snap;
	char err[WEST_ERRLEN];

	if (west_snapshot_read(path, &snap, err, sizeof err))
		die("read back", err);
	s->max_err = s->max_rel = 0;
	for (size_t k = 0; k < g->nz; k++)
		for (size_t j = 0; j < g->ny; j++)
			for (size_t i = 0; i < g->nx; i++) {
				size_t c = west_grid_cell(g, i, j, k);
				float want[3];
				const float got[3] = { snap.u[c], snap.v[c], snap.w[c] };
				if (!west_field_centre(f, g, i, j, k, want))
					continue;
				for (int m = 0; m < 3; m++) {
					double e = fabs((double)got[m] - (double)want[m]);
					if (!(e <= s->max_err))   /* NaN read back counts */
						s->max_err = e;
					if (want[m] != 0.0f && !(e / fabs(want[m]) <= s->max_rel))
						s->max_rel = e / fabs(want[m]);
				}
			}
	west_snapshot_free(&snap);
}

/* The mean time of one x_wind profile read from a freshly opened file. */
static double profile_read(const char *path, const struct west_grid *g)
{
	float col[256];
	double t = 0;
	int ncid, var, rc;

	for (int p = 0; p < SN_PROFILES; p++) {
		size_t i = (size_t)p * 131 % g->nx, j = (size_t)p * 977 % g->ny;
		size_t start[4] = { 0, 0, j, i }, count[4] = { 1, g->nz < 256 ? g->nz : 256, 1, 1 };
		double t0 = now_s();
		rc = nc_open(path, NC_NOWRITE, &ncid);
		if (rc == NC_NOERR && (rc = nc_inq_varid(ncid, "x_wind", &var)) == NC_NOERR)
			rc = nc_get_vara_float(ncid, var, start, count, col);
		if (rc != NC_NOERR)
			die("profile read", nc_strerror(rc));
		nc_close(ncid);
		t += now_s() - t0;
	}
	return t / SN_PROFILES;
}

static void write_one(const char *path, const struct west_grid *g, const struct west_field *f,
		      const struct west_obs_set *obs, struct setting *s, int rep)
{
	char err[WEST_ERRLEN];
	double t0;

	if (!strcmp(s->name, "before"))
		west_snapshot_forget();   /* it computed lat and lon at every write */
	t0 = now_s();
	if (west_snapshot_write_opts(path, g, f, obs, &s->o, &s->ph[rep], err, sizeof err))
		die(s->name, err);
	s->t[rep] = now_s() - t0;
}

/* The median of each phase over the reps. */
static struct west_snapshot_times phase_median(const struct setting *s, int reps)
{
	struct west_snapshot_times m;
	double v[SN_MAX_REPS];
	double *dst = (double *)&m;
	size_t n = sizeof m / sizeof(double);

	for (size_t p = 0; p < n; p++) {
		for (int r = 0; r < reps; r++)
			v[r] = ((const double *)&s->ph[r])[p];
		dst[p] = median(v, reps);
	}
	return m;
}

static void tables(const char *grid, const struct west_grid *g, struct setting *s, int ns,
		   int reps)
{
	double base = median(s[0].t, reps), raw = 3.0 * (double)west_grid_ncells(g) * 4.0;
	char d[128];

	printf("\n### %s: %zu x %zu x %zu cells, the winds %.1f MB as float\n\n", grid, g->nx,
	       g->ny, g->nz, raw / 1e6);
	printf("| settings | write median (s) | lowest (s) | highest (s) | file (MB) | "
	       "%s / this | max error (m/s) | max rel error | profile read (ms) |\n"
	       "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n", s[0].name);
	for (int k = 0; k < ns; k++) {
		double lo = s[k].t[0], hi = s[k].t[0];
		for (int r = 1; r < reps; r++)
			lo = fmin(lo, s[k].t[r]), hi = fmax(hi, s[k].t[r]);
		describe(&s[k].o, d, sizeof d);
		printf("| %s: %s | %.3f | %.3f | %.3f | %.1f | %.2f | %.2g | %.2g | %.2f |\n",
		       s[k].name, d, median(s[k].t, reps), lo, hi, s[k].size / 1e6,
		       base / median(s[k].t, reps), s[k].max_err, s[k].max_rel,
		       1e3 * s[k].profile);
	}
	printf("\n| settings (%s, medians in s) | define | coordinates | centres | winds | "
	       "other | close | file | total |\n"
	       "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n", grid);
	for (int k = 0; k < ns; k++) {
		struct west_snapshot_times m = phase_median(&s[k], reps);
		printf("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
		       s[k].name, m.define, m.coords, m.centres, m.winds, m.other, m.close,
		       m.file, m.total);
	}
	fflush(stdout);
}

static void bench_grid(const struct opts *op, const char *grid, struct setting *s, int ns,
		       const struct west_obs_set *obs)
{
	struct west_grid g;
	struct west_field f;
	char err[WEST_ERRLEN], path[512];
	double t0 = now_s();

	grid_build(&g, grid_nx(grid));
	if (west_field_init(&f, &g, err, sizeof err))
		die("field", err);
	if (!strcmp(op->field, "solve"))
		field_solve(&g, obs, &f);
	else
		field_synthetic(&g, &f);
	fprintf(stderr, "%s: grid and %s field in %.1f s\n", grid, op->field, now_s() - t0);
	for (int r = 0; r < op->reps; r++)
		for (int k = 0; k < ns; k++) {
			snprintf(path, sizeof path, "%s/snapshot-bench-%d.nc", op->dir, k);
			write_one(path, &g, &f, obs, &s[k], r);
			fprintf(stderr, "%s round %d %s: %.3f s\n", grid, r + 1, s[k].name, s[k].t[r]);
		}
	for (int k = 0; k < ns; k++) {
		snprintf(path, sizeof path, "%s/snapshot-bench-%d.nc", op->dir, k);
		s[k].size = file_size(path);
		read_back(path, &g, &f, &s[k]);
		s[k].profile = profile_read(path, &g);
		unlink(path);
	}
	tables(grid, &g, s, ns, op->reps);
	west_field_free(&f);
	west_grid_free(&g);
}

/* ---------------------------------------------------------------- main */

/* "MODEL, N cores, load L" from /proc (Linux); what is known. */
static void machine(char *buf, size_t size)
{
	char line[256], model[128] = "unknown CPU";
	double load = NAN;
	FILE *p = fopen("/proc/cpuinfo", "r");

	while (p && fgets(line, sizeof line, p))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	if (p)
		fclose(p);
	p = fopen("/proc/loadavg", "r");
	if (p && fscanf(p, "%lf", &load) != 1)
		load = NAN;
	if (p)
		fclose(p);
	snprintf(buf, size, "%s, %ld cores online, load average %.2f", model,
		 sysconf(_SC_NPROCESSORS_ONLN), load);
}

static int parse(int argc, char **argv, struct opts *o)
{
	const char *tmp = getenv("TMPDIR");

	*o = (struct opts){ "R16,R64", "solve", "before,now", "", 5 };
	snprintf(o->dir, sizeof o->dir, "%s", tmp && *tmp ? tmp : "/tmp");
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *a = argv[i], *v = argv[i + 1];
		if (!strcmp(a, "--grids"))
			snprintf(o->grids, sizeof o->grids, "%s", v);
		else if (!strcmp(a, "--field"))
			snprintf(o->field, sizeof o->field, "%s", v);
		else if (!strcmp(a, "--settings"))
			snprintf(o->settings, sizeof o->settings, "%s", v);
		else if (!strcmp(a, "--dir"))
			snprintf(o->dir, sizeof o->dir, "%s", v);
		else if (!strcmp(a, "--reps"))
			o->reps = atoi(v);
		else
			return 0;
	}
	return argc % 2 == 1 && o->reps > 0 && o->reps <= SN_MAX_REPS &&
	       (!strcmp(o->field, "solve") || !strcmp(o->field, "synthetic"));
}

int main(int argc, char **argv)
{
	static struct setting s[SN_MAX_SETTINGS];
	struct west_obs_set obs;
	struct opts o;
	char list[512], cpu[256], *save = NULL;
	int ns = 0;

	if (!parse(argc, argv, &o)) {
		fputs("usage: snapshot-bench [--grids R16,R64] [--reps N] [--field solve|synthetic]\n"
		      "                      [--settings before,now,d1+s1+c64+br12,...] [--dir DIR]\n",
		      stderr);
		return 2;
	}
	parse_setting("before", &s[ns++]);   /* always first: the ratios' base */
	snprintf(list, sizeof list, "%s", o.settings);
	for (char *it = strtok_r(list, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
		if (!strcmp(it, "before"))
			continue;
		if (ns == SN_MAX_SETTINGS || !parse_setting(it, &s[ns])) {
			fprintf(stderr, "snapshot-bench: bad or too many settings at '%s'\n", it);
			return 2;
		}
		ns++;
	}
	bench_obs_init(&obs);
	if (!obs.obs)
		die("stations", "out of memory");
	machine(cpu, sizeof cpu);
	printf("## NetCDF snapshots (snapshot-bench)\n\n- command: snapshot-bench --grids %s "
	       "--reps %d --field %s --settings %s --dir %s\n- netCDF %s\n- machine: %s "
	       "(at the start)\n",
	       o.grids, o.reps, o.field, o.settings, o.dir, nc_inq_libvers(), cpu);
	snprintf(list, sizeof list, "%s", o.grids);
	save = NULL;
	for (char *gname = strtok_r(list, ",", &save); gname; gname = strtok_r(NULL, ",", &save)) {
		if (!grid_nx(gname))
			die(gname, "unknown grid (R1, R4, R16, R64)");
		bench_grid(&o, gname, s, ns, &obs);
	}
	machine(cpu, sizeof cpu);
	printf("\n- machine at the end: %s\n", cpu);
	west_obs_set_free(&obs);
	return 0;
}
