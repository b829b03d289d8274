/*
 * test_backend_cuda.c: the CUDA backend as a whole (struct west_backend,
 * src/backend.h: upload_terrain, run, the resident state, device_bytes)
 * against the CPU backend, on the hills of backend_fixture.h with its five
 * stations (docs/design.md section 4).  Its kernels one by one, against
 * their CPU references, are in test_backends.c; what is here is what a
 * kernel-by-kernel test cannot see: the station upload through pinned
 * memory, the staged download of the field, the hierarchy copied up in
 * one block, and the state kept from one run or terrain to the next.
 *
 * Sor runs (cuda_backend: run_matches_cpu and the rest): tolerance 0 (so
 * both do exactly 200 iterations), check interval 10.  Stability classes:
 * exact.  Faces: the initial faces differ by at most ~10 ulp relative
 * (sinf, cosf in step 3; in step 5 the power law, powf here and exp2f
 * and log2f on the GPU: kernel_util.h); the sweep is linear in the field
 * and does not amplify a perturbation in the energy norm (omega in
 * (0, 2)), and each iteration's rounding adds at most a few ulp of the
 * field's scale, so after N iterations
 *     |cpu - gpu| <= E = 8 (1 + N) 2^-24 U,
 * U = max |face velocity| of the CPU field.  (The factor 8 per iteration
 * leaves room for the max norm, which the energy-norm argument does not
 * bound by 1.)  Divergence removal recomputes w from u and v up each
 * column: w at height z sums dz (du/dx + dv/dy) over the levels below, so
 * its bound is E_w = E (1 + 2 ztop (1/dx + 1/dy)).  The report's max|D|
 * (start, end, final) within rtol 1e-3 of the CPU's plus the change that
 * those face bounds allow in a cell's D, 4 (Eh (1/dx + 1/dy) + Ev / dzmin)
 * (each of the six faces moves by Eh or Ev, doubled for D's own rounding):
 * after divergence removal max|D| is rounding noise on both sides, which a
 * relative bound alone cannot hold.
 *
 * Multigrid run (multigrid_solve_matches_cpu): tolerance 1e-5, eta 0.7.
 * The two differ only where steps 3 and 5 call sinf, cosf and the power
 * law (a few ulp) and in the dot products' order (which moves alpha and beta by
 * ~1e-16 relative before they are rounded to float), so: the same
 * iteration count within 1, and every u, v, w within 1e-4 U_ref.
 *
 * The field handed to each run is poisoned first (faces NaN, classes 255,
 * valid time -1), so an element the backend does not bring back fails.
 * Every test calls gpu_skip_unless_usable() first: in a build without
 * CUDA, or without a usable device, each test still exists and skips with
 * the reason.  No CUDA runtime call is made here, so the file is built
 * alike in every configuration.  Each test frees what it allocated.
 */
#include "backend_fixture.h"
#include "fieldpool.h"
#include "gpu.h"

#define NITER 200        /* iterations of the sor runs */
#define MG_ETA 0.7       /* eta of the multigrid run */

/* A hill with its five stations. */
struct bcase {
	const char *name;
	struct west_grid g;
	struct west_obs_set obs;
	size_t nc;
};

/* check() on each of the first n hills, freeing everything after each. */
static void run_cases(void (*check)(const struct bcase *c), int n)
{
	for (int which = 0; which < n; which++) {
		struct bcase c = { 0 };
		c.name = context = hill_grid(&c.g, which);
		five_stations(&c.obs);
		c.nc = west_grid_ncells(&c.g);
		check(&c);
		west_obs_set_free(&c.obs);
		west_grid_free(&c.g);
	}
}

/* The CUDA backend (after gpu_skip_unless_usable(): built and usable). */
static const struct west_backend *cuda(void)
{
	const struct west_backend *be = west_backend_find("cuda");
	cr_assert_not_null(be, "no cuda backend in the registry");
	return be;
}

/* ---- running a backend ------------------------------------------------------ */

static void be_upload(const struct west_backend *be, void *state, const struct west_grid *g)
{
	char err[WEST_ERRLEN] = "";
	cr_assert_eq(be->upload_terrain(state, g, err, sizeof err), WEST_OK,
		     "%s: %s upload_terrain: %s", context, be->name, err);
}

/* A new state of be, with g uploaded unless g is NULL. */
static void *be_open(const struct west_backend *be, const struct west_grid *g)
{
	void *state = NULL;
	char err[WEST_ERRLEN] = "";

	cr_assert_eq(be->init(&state, err, sizeof err), WEST_OK, "%s init: %s", be->name, err);
	if (g)
		be_upload(be, state, g);
	return state;
}

/* A run into f, made here for g and poisoned first. */
static void be_run(const struct west_backend *be, void *state, const struct west_grid *g,
		   const struct west_obs_set *obs, const struct west_solve_opts *o,
		   struct west_field *f)
{
	char err[WEST_ERRLEN] = "";

	cr_assert_not_null(be->run, "the %s backend has no run", be->name);
	cr_assert_eq(west_field_init(f, g, err, sizeof err), WEST_OK, "%s", err);
	memset(f->u, 0xFF, west_grid_nxfaces(g) * sizeof(float));
	memset(f->v, 0xFF, west_grid_nyfaces(g) * sizeof(float));
	memset(f->w, 0xFF, west_grid_nzfaces(g) * sizeof(float));
	memset(f->stability, 0xFF, g->nx * g->ny);
	f->valid_time = -1;
	cr_assert_eq(be->run(state, obs, o, f, NULL, NULL, err, sizeof err), WEST_OK,
		     "%s: %s run: %s", context, be->name, err);
}

/* One run on a fresh state of be. */
static void be_solve(const struct west_backend *be, const struct west_grid *g,
		     const struct west_obs_set *obs, const struct west_solve_opts *o,
		     struct west_field *f)
{
	void *state = be_open(be, g);
	be_run(be, state, g, obs, o, f);
	be->free(state);
}

/* ---- comparing runs --------------------------------------------------------- */

/* The relative-plus-absolute bound on a reported max|D| (top of file). */
static void expect_div(const char *what, const struct west_grid *g, double cpu,
		       double gpu, double eh, double ev)
{
	double hz = INFINITY;
	for (size_t k = 0; k < g->nz; k++)
		hz = fmin(hz, g->zf[k + 1] - g->zf[k]);
	double atol = 4 * (eh * (1 / g->dx + 1 / g->dy) + ev / hz);
	cr_expect_leq(fabs(gpu - cpu), 1e-3 * cpu + atol,
		      "%s: %s max|D|: cpu %.9g, gpu %.9g 1/s (bound 1e-3 |cpu| + %.3g)",
		      context, what, cpu, gpu, atol);
}

/* A CUDA sor solve against the CPU's solve of the same problem (top of
 * file). */
static void expect_solve_matches(const struct west_grid *g, const struct west_obs_set *obs,
				 const struct west_field *cpu, const struct west_field *gpu)
{
	const struct west_report *rc = &cpu->report, *rg = &gpu->report;
	size_t nxf = west_grid_nxfaces(g), nyf = west_grid_nyfaces(g);
	size_t nzf = west_grid_nzfaces(g);
	double U = fmax(fmax(max_abs(cpu->u, nxf), max_abs(cpu->v, nyf)), max_abs(cpu->w, nzf));
	double e0 = 8 * 0x1p-24 * U, e = (double)(1 + rc->iterations) * e0;
	double ew = e * (1 + 2 * g->zf[g->nz] * (1 / g->dx + 1 / g->dy));
	double du, dv, dw;

	cr_expect_str_eq(rc->backend, "cpu");
	cr_expect_str_eq(rg->backend, "cuda");
	expect_identical("stability", cpu->stability, gpu->stability, g->nx * g->ny, 1);
	du = expect_close("u", cpu->u, gpu->u, nxf, e, 0);
	dv = expect_close("v", cpu->v, gpu->v, nyf, e, 0);
	dw = expect_close("w", cpu->w, gpu->w, nzf, ew, 0);
	cr_log_info("%s: cuda vs cpu after %ld iterations: max |du| %.3g, |dv| %.3g, |dw| %.3g m/s"
		    " (bounds %.3g, %.3g m/s; U %.3g m/s)", context, rc->iterations, du, dv, dw,
		    e, ew, U);
	cr_expect_eq(gpu->valid_time, obs->valid_time, "%s: valid time", context);
	cr_expect_eq(rg->iterations, rc->iterations, "%s: iterations cpu %ld, gpu %ld", context,
		     rc->iterations, rg->iterations);
	cr_expect_eq(rg->converged, rc->converged, "%s: converged", context);
	expect_div("start", g, rc->start.max_div, rg->start.max_div, e0, e0);
	expect_div("end", g, rc->end.max_div, rg->end.max_div, e, e);
	expect_div("final", g, rc->final.max_div, rg->final.max_div, e, ew);
}

/* Two CUDA solves that must agree bit for bit. */
static void expect_same_field(const char *what, const struct west_grid *g,
			      const struct west_field *a, const struct west_field *b)
{
	char name[96];

	snprintf(name, sizeof name, "%s, u", what);
	expect_identical(name, a->u, b->u, west_grid_nxfaces(g), sizeof(float));
	snprintf(name, sizeof name, "%s, v", what);
	expect_identical(name, a->v, b->v, west_grid_nyfaces(g), sizeof(float));
	snprintf(name, sizeof name, "%s, w", what);
	expect_identical(name, a->w, b->w, west_grid_nzfaces(g), sizeof(float));
	snprintf(name, sizeof name, "%s, stability", what);
	expect_identical(name, a->stability, b->stability, g->nx * g->ny, 1);
	cr_expect_eq(a->report.iterations, b->report.iterations, "%s: %s: iterations",
		     context, what);
	cr_expect_eq(a->report.end.max_div, b->report.end.max_div, "%s: %s: end max|D|",
		     context, what);
	cr_expect_eq(a->valid_time, b->valid_time, "%s: %s: valid time", context, what);
}

static void solve_opts(struct west_solve_opts *o, enum west_indexing ix)
{
	fix_opts(o, NITER, 0, 1.25, ix);   /* tolerance 0: all NITER iterations */
}

/* ---- the checks ------------------------------------------------------------- */

/* The CUDA run against the CPU run. */
static void backend_matches_cpu(const struct bcase *c)
{
	struct west_solve_opts o;
	struct west_field fc, fg;

	solve_opts(&o, WEST_INDEXING_COMPACT);
	be_solve(&west_backend_cpu, &c->g, &c->obs, &o, &fc);
	be_solve(cuda(), &c->g, &c->obs, &o, &fg);
	cr_expect_eq(fc.report.iterations, NITER, "tolerance 0: every iteration is done");
	expect_solve_matches(&c->g, &c->obs, &fc, &fg);
	west_field_free(&fc);
	west_field_free(&fg);
}

/* Two observation sets on one state = the same on two fresh states. */
static void backend_resident(const struct bcase *c)
{
	const struct west_backend *be = cuda();
	struct west_obs_set other = { 0 };
	struct west_solve_opts o;
	struct west_field a1, b1, a2, b2;
	void *state;

	spread_stations(&other, 3, &c->g);
	solve_opts(&o, WEST_INDEXING_COMPACT);
	state = be_open(be, &c->g);
	be_run(be, state, &c->g, &c->obs, &o, &a1);
	be_run(be, state, &c->g, &other, &o, &b1);
	be->free(state);
	be_solve(be, &c->g, &c->obs, &o, &a2);
	be_solve(be, &c->g, &other, &o, &b2);
	expect_same_field("first set, resident vs fresh", &c->g, &a1, &a2);
	expect_same_field("second set, resident vs fresh", &c->g, &b1, &b2);
	west_field_free(&a1);
	west_field_free(&b1);
	west_field_free(&a2);
	west_field_free(&b2);
	west_obs_set_free(&other);
}

/* A second, larger terrain on the same state, against the CPU on it. */
static void backend_reupload(const struct bcase *c)
{
	const struct west_backend *be = cuda();
	struct west_grid g2;
	struct west_obs_set obs2 = { 0 };
	struct west_solve_opts o;
	struct west_field f1, f2, f2c;
	void *state;

	fix_grid(&g2, 41, 33, 30, 12, 12.5, 70, 180);   /* more cells than c->g */
	cr_assert_gt(west_grid_ncells(&g2), c->nc);
	spread_stations(&obs2, 7, &g2);
	solve_opts(&o, WEST_INDEXING_COMPACT);
	state = be_open(be, &c->g);
	be_run(be, state, &c->g, &c->obs, &o, &f1);
	be_upload(be, state, &g2);
	context = "second terrain, 41 x 33 x 12";
	be_run(be, state, &g2, &obs2, &o, &f2);
	be->free(state);
	be_solve(&west_backend_cpu, &g2, &obs2, &o, &f2c);
	expect_solve_matches(&g2, &obs2, &f2c, &f2);
	west_field_free(&f1);
	west_field_free(&f2);
	west_field_free(&f2c);
	west_obs_set_free(&obs2);
	west_grid_free(&g2);
}

/* run before any upload_terrain: an error with a message. */
static void backend_no_terrain(const struct bcase *c)
{
	const struct west_backend *be = cuda();
	struct west_solve_opts o;
	struct west_field f;
	char err[WEST_ERRLEN] = "";
	void *state = be_open(be, NULL);
	enum west_status st;

	cr_assert_not_null(be->run, "the cuda backend has no run");
	solve_opts(&o, WEST_INDEXING_COMPACT);
	cr_assert_eq(west_field_init(&f, &c->g, err, sizeof err), WEST_OK, "%s", err);
	st = be->run(state, &c->obs, &o, &f, NULL, NULL, err, sizeof err);
	cr_expect_neq(st, WEST_OK, "run without terrain must fail");
	cr_expect_neq(err[0], '\0', "run without terrain must say why");
	cr_log_info("run before upload_terrain: %s: %s", west_status_str(st), err);
	be->free(state);
	west_field_free(&f);
}

/* 3 stations, then 40 (capacity growth), then 3 again, on one state. */
static void backend_station_growth(const struct bcase *c)
{
	const struct west_backend *be = cuda();
	struct west_obs_set few = { 0 }, many = { 0 };
	struct west_solve_opts o;
	struct west_field f3, f40, f3b, f40c;
	void *state;

	spread_stations(&few, 3, &c->g);
	spread_stations(&many, 40, &c->g);
	solve_opts(&o, WEST_INDEXING_COMPACT);
	state = be_open(be, &c->g);
	be_run(be, state, &c->g, &few, &o, &f3);
	be_run(be, state, &c->g, &many, &o, &f40);
	be_run(be, state, &c->g, &few, &o, &f3b);
	be->free(state);
	be_solve(&west_backend_cpu, &c->g, &many, &o, &f40c);
	expect_solve_matches(&c->g, &many, &f40c, &f40);
	expect_same_field("3 stations, before and after 40", &c->g, &f3, &f3b);
	west_field_free(&f3);
	west_field_free(&f40);
	west_field_free(&f3b);
	west_field_free(&f40c);
	west_obs_set_free(&few);
	west_obs_set_free(&many);
}

/* Resident bytes: at least u, v, w, tx, ty, tz (floats) and land per cell. */
static void backend_device_bytes(const struct bcase *c)
{
	const struct west_backend *be = cuda();
	struct west_solve_opts o;
	struct west_field f;
	void *state = be_open(be, &c->g);
	size_t up = be->device_bytes(state), ran;

	solve_opts(&o, WEST_INDEXING_COMPACT);
	be_run(be, state, &c->g, &c->obs, &o, &f);
	ran = be->device_bytes(state);
	cr_log_info("device bytes: %zu after upload (%.1f per cell), %zu after a run (%.1f per cell)",
		    up, (double)up / (double)c->nc, ran, (double)ran / (double)c->nc);
	cr_expect_gt(up, 0);
	cr_expect_geq(up, 25 * c->nc, "%zu bytes for %zu cells after upload", up, c->nc);
	cr_expect_geq(ran, 25 * c->nc, "%zu bytes for %zu cells after a run", ran, c->nc);
	be->free(state);
	west_field_free(&f);
}

/* masked and compact through the backend: bit-identical fields. */
static void backend_masked_compact(const struct bcase *c)
{
	struct west_solve_opts o;
	struct west_field fm, fc;

	solve_opts(&o, WEST_INDEXING_MASKED);
	be_solve(cuda(), &c->g, &c->obs, &o, &fm);
	solve_opts(&o, WEST_INDEXING_COMPACT);
	be_solve(cuda(), &c->g, &c->obs, &o, &fc);
	cr_expect_str_eq(fm.report.indexing, "masked");
	cr_expect_str_eq(fc.report.indexing, "compact");
	expect_same_field("masked vs compact", &c->g, &fm, &fc);
	west_field_free(&fm);
	west_field_free(&fc);
}

/* A multigrid solve on both backends (bounds at the top). */
static void backend_multigrid(const struct bcase *c)
{
	struct west_obs_set obs = { 0 };
	struct west_solve_opts o;
	struct west_field fc, fg;
	double w = (double)c->g.nx * c->g.dx, h = (double)c->g.ny * c->g.dy, U, du, dv, dw;

	fix_obs(&obs, "a", 0.15 * w, 0.3 * h, 10, 6, 250, WEST_STAB_D);
	fix_obs(&obs, "b", 0.8 * w, 0.55 * h, 10, 4, 280, WEST_STAB_C);
	fix_obs(&obs, "c", 0.45 * w, 0.9 * h, 15, 5, 230, WEST_STAB_E);
	fix_opts(&o, 0, 1e-5, 1.25, WEST_INDEXING_COMPACT);
	o.solver = WEST_SOLVER_MULTIGRID;
	o.eta = MG_ETA;
	be_solve(&west_backend_cpu, &c->g, &obs, &o, &fc);
	be_solve(cuda(), &c->g, &obs, &o, &fg);
	cr_expect_str_eq(fc.report.backend, "cpu");
	cr_expect_str_eq(fg.report.backend, "cuda");
	cr_expect_str_eq(fg.report.solver, "multigrid");
	cr_expect(fc.report.converged && fg.report.converged, "%s: converged cpu %d, gpu %d",
		  context, fc.report.converged, fg.report.converged);
	cr_expect_leq(labs(fg.report.iterations - fc.report.iterations), 1,
		      "%s: iterations cpu %ld, gpu %ld", context, fc.report.iterations,
		      fg.report.iterations);
	U = fc.report.u_ref;
	du = expect_close("u", fc.u, fg.u, west_grid_nxfaces(&c->g), 1e-4 * U, 0);
	dv = expect_close("v", fc.v, fg.v, west_grid_nyfaces(&c->g), 1e-4 * U, 0);
	dw = expect_close("w", fc.w, fg.w, west_grid_nzfaces(&c->g), 1e-4 * U, 0);
	cr_log_info("%s: multigrid cuda vs cpu: %ld and %ld iterations, max |du| %.3g, |dv| %.3g, "
		    "|dw| %.3g m/s (bound %.3g)", context, fg.report.iterations,
		    fc.report.iterations, du, dv, dw, 1e-4 * U);
	west_field_free(&fc);
	west_field_free(&fg);
	west_obs_set_free(&obs);
}

/*
 * Into a page-locked field (a pool's, as the daemon's: u and v come down
 * on a copy stream while step 9 runs, w and the classes while the last
 * norms run) and into a pageable one (staged, after the run): the same
 * field bit for bit, with one partition and in
 * two slabs (whose download takes every array at the end), on a grid of
 * 128 x 192 x 12 (two slabs need 32768 cells each on the first coarse
 * level) under c's stations.
 */
static void backend_pinned(const struct bcase *c)
{
	const struct west_backend *be = cuda();
	struct west_solve_opts o;
	struct west_field plain, f;
	struct west_grid big;
	char err[WEST_ERRLEN] = "";

	fix_grid(&big, 128, 192, 100.0, 12, 25.0, 180.0, 700.0);
	void *state = be_open(be, &big);
	const struct west_grid *g = &big;

	fix_opts(&o, 0, 1e-5, 1.25, WEST_INDEXING_COMPACT);
	o.solver = WEST_SOLVER_MULTIGRID;
	o.eta = MG_ETA;
	be_run(be, state, g, &c->obs, &o, &plain);
	cr_assert_eq(plain.pinned, 0);
	for (int parts = 1; parts <= 2; parts++) {
		struct west_field_pool *pool = west_field_pool_new(be->host, 1);
		cr_assert_not_null(pool);
		cr_assert_eq(west_field_pool_get(pool, &f, g, err, sizeof err), WEST_OK, "%s",
			     err);
		cr_assert_eq(f.pinned, 1, "the CUDA backend's pool gives page-locked fields");
		memset(f.u, 0xFF, west_grid_nxfaces(g) * sizeof(float));
		memset(f.v, 0xFF, west_grid_nyfaces(g) * sizeof(float));
		memset(f.w, 0xFF, west_grid_nzfaces(g) * sizeof(float));
		memset(f.stability, 0xFF, g->nx * g->ny);
		o.partitions = parts;
		cr_assert_eq(be->run(state, &c->obs, &o, &f, NULL, NULL, err, sizeof err), WEST_OK,
			     "%s: %s", context, err);
		cr_expect_eq(memcmp(f.u, plain.u, west_grid_nxfaces(g) * sizeof(float)), 0,
			     "%s, %d partitions: u", context, parts);
		cr_expect_eq(memcmp(f.v, plain.v, west_grid_nyfaces(g) * sizeof(float)), 0,
			     "%s, %d partitions: v", context, parts);
		cr_expect_eq(memcmp(f.w, plain.w, west_grid_nzfaces(g) * sizeof(float)), 0,
			     "%s, %d partitions: w", context, parts);
		cr_expect_eq(memcmp(f.stability, plain.stability, g->nx * g->ny), 0,
			     "%s, %d partitions: classes", context, parts);
		west_field_free(&f);
		west_field_pool_release(pool);
	}
	west_field_free(&plain);
	be->free(state);
	west_grid_free(&big);
}

/* ---- the tests -------------------------------------------------------------- */

Test(cuda_backend, page_locked_field_is_the_staged_field)
{
	gpu_skip_unless_usable();
	run_cases(backend_pinned, 1);
}


Test(cuda_backend, run_matches_cpu)
{
	gpu_skip_unless_usable();
	run_cases(backend_matches_cpu, NHILLS);
}

Test(cuda_backend, resident_state_matches_fresh_states)
{
	gpu_skip_unless_usable();
	run_cases(backend_resident, 1);
}

Test(cuda_backend, second_terrain_upload)
{
	gpu_skip_unless_usable();
	run_cases(backend_reupload, 1);
}

Test(cuda_backend, run_before_upload_fails)
{
	gpu_skip_unless_usable();
	run_cases(backend_no_terrain, 1);
}

Test(cuda_backend, station_capacity_grows)
{
	gpu_skip_unless_usable();
	run_cases(backend_station_growth, 1);
}

Test(cuda_backend, device_bytes_per_cell)
{
	gpu_skip_unless_usable();
	run_cases(backend_device_bytes, 1);
}

Test(cuda_backend, masked_equals_compact)
{
	gpu_skip_unless_usable();
	run_cases(backend_masked_compact, NHILLS);
}

Test(cuda_backend, multigrid_solve_matches_cpu)
{
	gpu_skip_unless_usable();
	run_cases(backend_multigrid, NHILLS);
}

/*
 * join between two GPUs (parts.h's exchanges): GPU 1 queues a chain of
 * copies a -> b -> c -> d (256 MiB each, a filled with 0x5a, the others
 * zero), then GPU 0 queues a copy of d's last MiB into its own memory.
 * After a join GPU 0's copy must see the chain's end; without one (done
 * first, as the control, and only logged) it starts at once and reads
 * zeros.  Skipped with fewer than two GPUs.
 */
Test(cuda_backend, join_orders_copies_across_gpus)
{
	gpu_skip_unless_usable();
#ifdef WEST_HAVE_CUDA
	static const int both[2] = { 0, 1 };
	const struct west_kernel_ops *k = &west_kernels_cuda;
	const size_t big = (size_t)256 << 20, tail = (size_t)1 << 20;
	unsigned char *host = malloc(tail);
	void *a, *b, *c, *d, *e;
	char err[WEST_ERRLEN];

	cr_assert_not_null(host);
	if (k->peers(both, 2, err, sizeof err))
		cr_skip_test("needs two GPUs: %s", err);
	cr_assert_eq(k->bind(1), WEST_OK);
	cr_assert_eq(k->alloc(&a, big, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->alloc(&b, big, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->alloc(&c, big, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->alloc(&d, big, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->fill(a, 0x5a, big, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->bind(0), WEST_OK);
	cr_assert_eq(k->alloc(&e, tail, err, sizeof err), WEST_OK, "%s", err);
	for (int joined = 0; joined < 2; joined++) {
		size_t zeros = 0;
		cr_assert_eq(k->bind(1), WEST_OK);
		cr_assert_eq(k->fill(b, 0, big, err, sizeof err), WEST_OK, "%s", err);
		cr_assert_eq(k->fill(c, 0, big, err, sizeof err), WEST_OK, "%s", err);
		cr_assert_eq(k->fill(d, 0, big, err, sizeof err), WEST_OK, "%s", err);
		cr_assert_eq(k->copy2d(b, big, a, big, big, 1, err, sizeof err), WEST_OK, "%s", err);
		cr_assert_eq(k->copy2d(c, big, b, big, big, 1, err, sizeof err), WEST_OK, "%s", err);
		cr_assert_eq(k->copy2d(d, big, c, big, big, 1, err, sizeof err), WEST_OK, "%s", err);
		if (joined)
			cr_assert_eq(k->join(both, 2), WEST_OK);
		cr_assert_eq(k->bind(0), WEST_OK);
		cr_assert_eq(k->copy2d(e, tail, (char *)d + big - tail, tail, tail, 1, err,
				       sizeof err), WEST_OK, "%s", err);
		cr_assert_eq(k->download(host, e, tail, err, sizeof err), WEST_OK, "%s", err);
		for (size_t i = 0; i < tail; i++)
			zeros += host[i] != 0x5a;
		cr_assert_eq(k->bind(1), WEST_OK);
		cr_assert_eq(k->sync(), WEST_OK);   /* the chain's end, before the next fill */
		if (joined)
			cr_expect_eq(zeros, 0, "after a join GPU 0 read %zu stale bytes of %zu", zeros,
				     tail);
		else
			cr_log_info("control, no join: GPU 0 read %zu stale bytes of %zu%s", zeros,
				    tail, zeros ? " (the join is what orders them)" : "");
	}
	cr_assert_eq(k->bind(1), WEST_OK);
	k->free(a, err, sizeof err), k->free(b, err, sizeof err);
	k->free(c, err, sizeof err), k->free(d, err, sizeof err);
	cr_assert_eq(k->bind(0), WEST_OK);
	k->free(e, err, sizeof err);
	free(host);
#endif
}

/*
 * post and wait (parts.h's overlapped exchange): the chain a -> b -> c ->
 * d (256 MiB each, a filled with 0x5a) on the kernels' stream of the
 * last device of dev, then post, a copy of d's last MiB into e on the
 * first device (on its side stream), wait, and e read back on the
 * kernels' stream: the side copy must start after the chain and the read
 * after the copy.  On one GPU, and on two when there are.
 */
#ifdef WEST_HAVE_CUDA
static void post_wait_case(const int *dev, int n)
{
	const struct west_kernel_ops *k = &west_kernels_cuda;
	const size_t big = (size_t)256 << 20, tail = (size_t)1 << 20;
	unsigned char *host = malloc(tail);
	void *a, *b, *c, *d, *e;
	char err[WEST_ERRLEN];
	size_t stale = 0;

	cr_assert_not_null(host);
	cr_assert_eq(k->bind(dev[n - 1]), WEST_OK);
	cr_assert_eq(k->alloc(&a, big, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->alloc(&b, big, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->alloc(&c, big, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->alloc(&d, big, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->fill(a, 0x5a, big, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->fill(b, 0, big, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->fill(c, 0, big, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->fill(d, 0, big, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->bind(dev[0]), WEST_OK);
	cr_assert_eq(k->alloc(&e, tail, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->fill(e, 0, tail, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->bind(dev[n - 1]), WEST_OK);
	cr_assert_eq(k->copy2d(b, big, a, big, big, 1, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->copy2d(c, big, b, big, big, 1, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->copy2d(d, big, c, big, big, 1, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(k->post(dev, n), WEST_OK);
	cr_assert_eq(k->bind(dev[0]), WEST_OK);
	cr_assert_eq(k->copy2d(e, tail, (char *)d + big - tail, tail, tail, 1, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_eq(k->wait(dev, n), WEST_OK);
	cr_assert_eq(k->bind(dev[0]), WEST_OK);
	cr_assert_eq(k->download(host, e, tail, err, sizeof err), WEST_OK, "%s", err);
	for (size_t i = 0; i < tail; i++)
		stale += host[i] != 0x5a;
	cr_expect_eq(stale, 0, "%d GPU(s): the read after wait found %zu stale bytes of %zu", n,
		     stale, tail);
	k->free(e, err, sizeof err);
	cr_assert_eq(k->bind(dev[n - 1]), WEST_OK);
	cr_assert_eq(k->sync(), WEST_OK);
	k->free(a, err, sizeof err), k->free(b, err, sizeof err);
	k->free(c, err, sizeof err), k->free(d, err, sizeof err);
	cr_assert_eq(k->bind(0), WEST_OK);
	free(host);
}
#endif

Test(cuda_backend, post_and_wait_order_side_copies)
{
	gpu_skip_unless_usable();
#ifdef WEST_HAVE_CUDA
	static const int one[1] = { 0 }, both[2] = { 0, 1 };
	char err[WEST_ERRLEN];
	post_wait_case(one, 1);
	if (west_kernels_cuda.peers(both, 2, err, sizeof err) == WEST_OK)
		post_wait_case(both, 2);
	else
		cr_log_info("one GPU only (%s): the two-GPU case not run", err);
#endif
}
