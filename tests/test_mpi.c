/*
 * test_mpi.c (TAP, under mpirun: tests/mpi_ranks.sh): one field over MPI
 * ranks (ranks.h, parts.h).  Every rank builds the same cut-cell hill;
 * rank 0 holds the stations and shares them (west_ranks_share_obs); each
 * solver solves once on rank 0 alone (one partition) and once across
 * every rank (one slab each, as `west run` does under mpirun); rank 0
 * compares the two fields bit for bit (the bound is 0: docs/design.md
 * section 5) and prints the TAP lines.  The potential solvers run with the
 * halo exchange overlapped (the default) and blocking (config exchange).
 *
 *     test_mpi [--backend cpu|cuda] [--first N]
 *
 * The backend is the CPU's unless --backend cuda (GPU ranks: skipped,
 * saying why, without a CUDA device); the TAP lines are numbered from N
 * (1).  With WEST_MPI_STAGE=1 in every rank's environment the CPU ranks'
 * rows travel through host buffers as GPU ranks' do (parts.c), and the
 * lines say so.  Not Criterion: its forked test processes and MPI do not
 * mix.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "parts.h"
#include "ranks.h"

#define NX 128
#define NY 192
#define DX 100.0

static void die(const char *what, const char *err)
{
	fprintf(stderr, "test_mpi rank %d: %s: %s\n", west_ranks_me(), what, err);
	west_ranks_abort(1);
}

/* A 180 m Gaussian hill on a plain, 12 levels of 25 m, cut cells. */
static void grid(struct west_grid *g)
{
	struct west_config *c = malloc(sizeof *c);
	struct west_dem dem = { .nx = NX, .ny = NY, .dx = DX, .dy = DX, .x0 = 500000.0,
				.y0 = 4650000.0 };
	struct west_grid_opts go;
	char err[WEST_ERRLEN];

	if (!c || !(dem.z = malloc(NX * NY * sizeof *dem.z)))
		die("grid", "out of memory");
	for (size_t j = 0; j < NY; j++)
		for (size_t i = 0; i < NX; i++) {
			double x = ((double)i + 0.5) * DX - 0.5 * NX * DX;
			double y = ((double)j + 0.5) * DX - 0.5 * NY * DX;
			dem.z[j * NX + i] = (float)(100.0 + 180.0 * exp(-(x * x + y * y) /
									(2 * 700.0 * 700.0)));
		}
	west_config_defaults(c);
	c->nz = 12, c->dz = 25.0;
	west_grid_opts_from_config(&go, c);
	if (west_grid_init(g, &dem, &go, err, sizeof err))
		die("grid", err);
	free(dem.z);
	free(c);
}

/* Rank 0's three stations, in different slabs. */
static void stations(struct west_obs_set *set)
{
	static const double at[3][6] = {
		{ 450, 520, 10, 6, 250, 3 }, { 5760, 9980, 10, 4, 300, 4 },
		{ 11520, 17850, 20, 7, 210, 2 },
	};
	set->n = 3;
	if (!(set->obs = calloc(3, sizeof *set->obs)))
		die("stations", "out of memory");
	for (int s = 0; s < 3; s++) {
		struct west_obs *o = &set->obs[s];
		snprintf(o->id, sizeof o->id, "s%d", s);
		o->x = 500000.0 + at[s][0], o->y = 4650000.0 + at[s][1];
		o->height = at[s][2], o->speed = at[s][3], o->direction = at[s][4];
		o->stability = (int)at[s][5];
		o->time = 1795435200, o->inv_L = NAN, o->z0 = NAN;
	}
	set->valid_time = 1795435200;
}

static const struct west_backend *be = &west_backend_cpu;

static void solve(void *state, const struct west_obs_set *obs, const struct west_solve_opts *o,
		  struct west_field *f)
{
	char err[WEST_ERRLEN];
	if (be->run(state, obs, o, f, NULL, NULL, err, sizeof err))
		die("solve", err);
}

static int same(const struct west_grid *g, const struct west_field *a,
		const struct west_field *b, char *why, size_t len)
{
	const float *x[3] = { a->u, a->v, a->w }, *y[3] = { b->u, b->v, b->w };
	size_t n[3] = { west_grid_nxfaces(g), west_grid_nyfaces(g), west_grid_nzfaces(g) };
	for (int f = 0; f < 3; f++)
		for (size_t c = 0; c < n[f]; c++)
			if (memcmp(&x[f][c], &y[f][c], sizeof(float))) {
				snprintf(why, len, "%c[%zu] %.9g, one rank %.9g", "uvw"[f], c,
					 y[f][c], x[f][c]);
				return 0;
			}
	if (memcmp(a->stability, b->stability, g->nx * g->ny)) {
		snprintf(why, len, "the stability classes differ");
		return 0;
	}
	if (a->report.iterations != b->report.iterations) {
		snprintf(why, len, "%ld iterations, one rank %ld", b->report.iterations,
			 a->report.iterations);
		return 0;
	}
	if (b->report.partitions != west_ranks_count() || !(b->report.exchange_seconds > 0)) {
		snprintf(why, len, "the report gives %d partitions, %g s of exchanges",
			 b->report.partitions, b->report.exchange_seconds);
		return 0;
	}
	for (int p = 0; p < b->report.partitions; p++)
		if (b->report.slab[p].rank != p ||
		    b->report.slab[p].j1 <= b->report.slab[p].j0 ||
		    b->report.slab[p].j0 != (p ? b->report.slab[p - 1].j1 : 0)) {
			snprintf(why, len, "slab %d: rank %d, rows [%zu, %zu)", p,
				 b->report.slab[p].rank, b->report.slab[p].j0, b->report.slab[p].j1);
			return 0;
		}
	return 1;
}

int main(int argc, char **argv)
{
	static const struct {
		enum west_solver solver;
		enum west_exchange exchange;
		const char *name;
	} cases[] = {
		{ WEST_SOLVER_MULTIGRID, WEST_EXCHANGE_OVERLAP, "multigrid, overlapped exchange" },
		{ WEST_SOLVER_MULTIGRID, WEST_EXCHANGE_BLOCKING, "multigrid, blocking exchange" },
		{ WEST_SOLVER_SOR_POTENTIAL, WEST_EXCHANGE_OVERLAP,
		  "sor-potential, overlapped exchange" },
		{ WEST_SOLVER_SOR_POTENTIAL, WEST_EXCHANGE_BLOCKING,
		  "sor-potential, blocking exchange" },
		{ WEST_SOLVER_SOR, WEST_EXCHANGE_OVERLAP, "sor (velocity form)" },
	};
	int ranks = west_ranks_start(&argc, &argv), me = west_ranks_me(), failed = 0, ok = 1;
	int first = 1;
	size_t ncases = sizeof cases / sizeof cases[0];
	struct west_grid g;
	struct west_obs_set obs = { 0 };
	void *state;
	char err[WEST_ERRLEN], note[64] = "";
	const char *stage = getenv("WEST_MPI_STAGE");

	for (int a = 1; a + 1 < argc; a += 2)
		if (!strcmp(argv[a], "--first"))
			first = atoi(argv[a + 1]);
		else if (!strcmp(argv[a], "--backend") && !(be = west_backend_find(argv[a + 1])))
			die(argv[a + 1], "no such backend in this build");
	if (be->probe(err, sizeof err)) {   /* the same machine for every rank */
		if (me == 0)
			for (size_t t = 0; t < ncases; t++)
				printf("ok %zu - %s over MPI ranks # SKIP %s\n", first + t,
				       cases[t].name, err);
		west_ranks_stop();
		return 0;
	}
	if (strcmp(be->name, "cpu"))
		snprintf(note, sizeof note, " (%s)", be->name);
	else if (stage && !strcmp(stage, "1"))
		snprintf(note, sizeof note, " (rows staged through host buffers)");
	grid(&g);
	if (me == 0)
		stations(&obs);
	if (west_ranks_share_obs(&obs, &ok, err, sizeof err) || !ok || obs.n != 3)
		die("stations", "not shared");
	if (be->init(&state, err, sizeof err) || be->upload_terrain(state, &g, err, sizeof err))
		die("backend", err);
	for (size_t t = 0; t < ncases; t++) {
		struct west_solve_opts o = {
			.solver = cases[t].solver, .iterations = 60, .cycles = 100,
			.tolerance = 1e-4, .omega = 1.7, .eta = 1.0,
			.indexing = WEST_INDEXING_COMPACT, .check_interval = 10,
			.land_use = WEST_LAND_RURAL, .partitions = 1,
			.exchange = cases[t].exchange,
		};
		struct west_field one, f;
		char why[256] = "";
		if (west_field_init(&one, &g, err, sizeof err) ||
		    west_field_init(&f, &g, err, sizeof err))
			die("field", err);
		if (me == 0)
			solve(state, &obs, &o, &one);
		o.partitions = ranks;
		solve(state, &obs, &o, &f);
		if (me == 0) {
			int good = ranks > 1 && one.report.iterations > 1 && same(&g, &one, &f, why,
										  sizeof why);
			if (ranks < 2)
				snprintf(why, sizeof why, "run under mpirun -np 2 or more");
			printf("%s %zu - %s over %d MPI ranks%s is the one-rank field bit for "
			       "bit%s%s\n", good ? "ok" : "not ok", first + t, cases[t].name, ranks,
			       note, good ? "" : ": ", why);
			failed |= !good;
		}
		west_field_free(&one);
		west_field_free(&f);
	}
	be->free(state);
	west_obs_set_free(&obs);
	west_grid_free(&g);
	west_ranks_stop();
	return failed;
}
