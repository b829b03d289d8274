/*
 * test_parts.c: one field over several partitions (parts.h, docs/design.md
 * section 5).  The grid cut into 2, 3 and 5 slabs of rows, each solved by
 * the CPU kernels with halo exchanges, gives the one-device field bit for
 * bit with every solver: the bound is 0, since every partition computes
 * each cell from the same inputs in the same order and every sum is taken
 * per row and added in the whole grid's row order.  The hierarchy is cut
 * as deep as the slabs allow (1 row and 1 cell: every level but the
 * coarsest), and as the daemon cuts it (4 rows and 32768 cells).  On a GPU
 * (the tests skip, saying why, without one) slabs of one GPU give that
 * GPU's one-device field bit for bit, and agree with the CPU's to the
 * rounding of the dot products.
 */
#include "model_fixture.h"
#include "gpu.h"
#include "log_capture.h"
#include "parts.h"

#include <criterion/parameterized.h>

#define NX 40
#define NY 61
#define NZ 12

/* A cut-cell hill under three stations in different slabs. */
static void setup(struct west_grid *g, struct west_obs_set *obs, size_t nx, size_t ny)
{
	fix_grid(g, nx, ny, 100.0, NZ, 25.0, 180.0, 700.0);
	*obs = (struct west_obs_set){ 0 };
	fix_obs(obs, "sw", 450.0, 520.0, 10.0, 6.0, 250.0, 3);
	fix_obs(obs, "c", 0.45 * (double)nx * 100.0, 0.52 * (double)ny * 100.0, 10.0, 4.0,
		300.0, 4);
	fix_obs(obs, "ne", 0.9 * (double)nx * 100.0, 0.93 * (double)ny * 100.0, 20.0, 7.0,
		210.0, 2);
}

/* The one-device solve: the CPU backend as it always ran. */
static void solve_one(const struct west_grid *g, const struct west_obs_set *obs,
		      const struct west_solve_opts *o, struct west_field *f)
{
	fix_solve(g, obs, o, f);
}

/* The same over n partitions of the CPU kernels, cut with po; *lp: the
 * first level held whole. */
static void solve_parts(const struct west_grid *g, const struct west_obs_set *obs,
			const struct west_solve_opts *o, int n,
			const struct west_parts_opts *po, struct west_field *f, int *lp)
{
	const struct west_kernel_ops *ops[WEST_MAX_PARTS];
	struct west_parts ps;
	struct west_kstation st[8];
	float stab[8];
	char err[WEST_ERRLEN];

	for (int p = 0; p < n; p++)
		ops[p] = &west_kernels_cpu;
	cr_assert_eq(west_field_init(f, g, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_parts_build(&ps, g, n, ops, o->solver != WEST_SOLVER_SOR, o->eta, po,
				      err, sizeof err), WEST_OK, "%s", err);
	west_model_stations(g, obs, o->land_use, st, stab);
	cr_assert_eq(west_parts_stations(&ps, obs->n, st, stab, west_power_exponents(o->land_use),
					 err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_model_solve_parts(&ps, g, o, west_obs_max_speed(obs), &f->report,
					    NULL, NULL, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_parts_field(&ps, f->u, f->v, f->w, f->stability, err, sizeof err),
		     WEST_OK, "%s", err);
	*lp = ps.lp;
	west_parts_free(&ps);
}

/* f equals the one-device field one bit for bit, with the same report. */
static void same_field(const struct west_grid *g, const struct west_field *one,
		       const struct west_field *f, const char *what)
{
	size_t nu = west_grid_nxfaces(g), nv = west_grid_nyfaces(g), nw = west_grid_nzfaces(g);
	for (size_t c = 0; c < nu; c++)
		if (memcmp(&one->u[c], &f->u[c], sizeof(float)))
			cr_assert_fail("%s: u[%zu] %.9g, one device %.9g", what, c, f->u[c], one->u[c]);
	for (size_t c = 0; c < nv; c++)
		if (memcmp(&one->v[c], &f->v[c], sizeof(float)))
			cr_assert_fail("%s: v[%zu] %.9g, one device %.9g", what, c, f->v[c], one->v[c]);
	for (size_t c = 0; c < nw; c++)
		if (memcmp(&one->w[c], &f->w[c], sizeof(float)))
			cr_assert_fail("%s: w[%zu] %.9g, one device %.9g", what, c, f->w[c], one->w[c]);
	cr_assert_eq(memcmp(one->stability, f->stability, g->nx * g->ny), 0, "%s: classes",
		     what);
	cr_assert_eq(f->report.iterations, one->report.iterations, "%s: iterations", what);
	cr_assert_eq(f->report.converged, one->report.converged, "%s: converged", what);
	cr_assert_eq(f->report.end.max_div, one->report.end.max_div, "%s: end max|D|", what);
	cr_assert_eq(f->report.final.max_div, one->report.final.max_div, "%s: final max|D|",
		     what);
}

#ifdef WEST_HAVE_CUDA
/* f is one's field to within bound times one's largest speed on every
 * face. */
static void near_field(const struct west_grid *g, const struct west_field *one,
		       const struct west_field *f, double bound, const char *what)
{
	const float *a[3] = { one->u, one->v, one->w }, *b[3] = { f->u, f->v, f->w };
	size_t n[3] = { west_grid_nxfaces(g), west_grid_nyfaces(g), west_grid_nzfaces(g) };
	double most = 0.0, worst = 0.0;

	for (int c = 0; c < 3; c++)
		for (size_t i = 0; i < n[c]; i++)
			most = fmax(most, fabs(a[c][i]));
	for (int c = 0; c < 3; c++)
		for (size_t i = 0; i < n[c]; i++)
			worst = fmax(worst, fabs((double)b[c][i] - a[c][i]));
	cr_log_info("%s: largest difference %.3g m/s, %.3g of the largest speed %.3g m/s", what,
		    worst, worst / most, most);
	cr_expect_leq(worst, bound * most, "%s: the fields differ by %g m/s, bound %g", what,
		      worst, bound * most);
}
#endif

/* r lists n slabs of g that are its rows in order, each one's cells, on
 * the CPU backend in this process. */
static void slabs_cover(const struct west_grid *g, const struct west_report *r, int n,
			const char *what)
{
	size_t j = 0, cells = 0;

	cr_assert_eq(r->partitions, n, "%s: %d slabs reported", what, r->partitions);
	for (int p = 0; p < n; p++) {
		const struct west_report_slab *s = &r->slab[p];
		cr_assert(s->j0 == j && s->j1 > s->j0, "%s: slab %d rows [%zu, %zu) after row %zu",
			  what, p, s->j0, s->j1, j);
		cr_assert_eq(s->cells, g->nx * (s->j1 - s->j0) * g->nz, "%s: slab %d cells", what, p);
		cr_assert_str_eq(s->backend, "cpu", "%s: slab %d", what, p);
		cr_assert_str_eq(s->device, "cpu", "%s: slab %d", what, p);
		cr_assert_eq(s->rank, 0, "%s: slab %d", what, p);
		j = s->j1, cells += s->cells;
	}
	cr_assert(j == g->ny && cells == g->nx * g->ny * g->nz, "%s: the slabs end at row %zu",
		  what, j);
}

struct case_ {
	enum west_solver solver;
	enum west_indexing indexing;
	int n;
	size_t min_rows, min_cells;
};

static struct case_ cases[] = {
	{ WEST_SOLVER_MULTIGRID, WEST_INDEXING_COMPACT, 2, 1, 1 },
	{ WEST_SOLVER_MULTIGRID, WEST_INDEXING_COMPACT, 3, 1, 1 },
	{ WEST_SOLVER_MULTIGRID, WEST_INDEXING_COMPACT, 5, 1, 1 },
	{ WEST_SOLVER_MULTIGRID, WEST_INDEXING_COMPACT, 3, 4, 2000 },
	{ WEST_SOLVER_SOR_POTENTIAL, WEST_INDEXING_COMPACT, 3, 1, 1 },
	{ WEST_SOLVER_SOR, WEST_INDEXING_COMPACT, 2, 1, 1 },
	{ WEST_SOLVER_SOR, WEST_INDEXING_MASKED, 3, 1, 1 },
	{ WEST_SOLVER_SOR, WEST_INDEXING_COMPACT, 5, 1, 1 },
};

ParameterizedTestParameters(parts, bit_identical_to_one_device)
{
	return cr_make_param_array(struct case_, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct case_ *c, parts, bit_identical_to_one_device)
{
	struct west_grid g;
	struct west_obs_set obs;
	struct west_solve_opts o;
	struct west_field one, f;
	struct west_parts_opts po = { .min_rows = c->min_rows, .min_cells = c->min_cells };
	char what[128];
	int lp;

	setup(&g, &obs, NX, NY);
	fix_opts(&o, 60, 1e-4, 1.7, c->indexing);
	o.solver = c->solver;
	o.iterations = c->solver == WEST_SOLVER_SOR_POTENTIAL ? 40 : 60;
	solve_one(&g, &obs, &o, &one);
	solve_parts(&g, &obs, &o, c->n, &po, &f, &lp);
	snprintf(what, sizeof what, "solver %d, %d partitions, hierarchy whole from level %d",
		 c->solver, c->n, lp);
	cr_assert_gt(one.report.iterations, 1, "%s: the solve iterates", what);
	same_field(&g, &one, &f, what);
	slabs_cover(&g, &one.report, 1, "one device");
	slabs_cover(&g, &f.report, c->n, what);
	west_field_free(&one);
	west_field_free(&f);
	west_obs_set_free(&obs);
	west_grid_free(&g);
}

/* The deepest cut keeps a level cut below the first coarse one, and the
 * daemon's thresholds cut less deep: both were exercised above. */
Test(parts, the_cut_follows_the_thresholds)
{
	struct west_grid g;
	struct west_obs_set obs;
	struct west_solve_opts o;
	struct west_field f;
	struct west_parts_opts deep = { .min_rows = 1, .min_cells = 1 },
			       shallow = { .min_rows = 4, .min_cells = 2000 };
	int lp_deep, lp_shallow;

	setup(&g, &obs, NX, NY);
	fix_opts(&o, 60, 1e-4, 1.7, WEST_INDEXING_COMPACT);
	o.solver = WEST_SOLVER_MULTIGRID;
	solve_parts(&g, &obs, &o, 3, &deep, &f, &lp_deep);
	west_field_free(&f);
	solve_parts(&g, &obs, &o, 3, &shallow, &f, &lp_shallow);
	west_field_free(&f);
	cr_expect_gt(lp_deep, 2, "the deep cut keeps more than one level cut");
	cr_expect_lt(lp_shallow, lp_deep, "2000 cells a slab stop the cut sooner");
	cr_expect_geq(lp_shallow, 1);
	west_obs_set_free(&obs);
	west_grid_free(&g);
}

/* Weights 1, 3, 2: the rows in those shares (to the alignment), and the
 * field still the one-device field bit for bit. */
Test(parts, weights_share_the_rows)
{
	struct west_grid g;
	struct west_obs_set obs;
	struct west_solve_opts o;
	struct west_parts ps;
	const struct west_kernel_ops *ops[3] = { &west_kernels_cpu, &west_kernels_cpu,
						 &west_kernels_cpu };
	struct west_parts_opts po = { .min_rows = 4, .min_cells = 2000, .nweights = 3,
				      .weights = { 1, 3, 2 } };
	struct west_field one, f;
	char err[WEST_ERRLEN];
	int lp;

	setup(&g, &obs, NX, NY);
	fix_opts(&o, 60, 1e-4, 1.7, WEST_INDEXING_COMPACT);
	o.solver = WEST_SOLVER_MULTIGRID;
	cr_assert_eq(west_parts_build(&ps, &g, 3, ops, 1, 1.0, &po, err, sizeof err), WEST_OK,
		     "%s", err);
	size_t rows[3];
	for (int p = 0; p < 3; p++)
		rows[p] = ps.part[p].b[0] - ps.part[p].a[0];
	west_parts_free(&ps);
	cr_expect(rows[0] + rows[1] + rows[2] == NY);
	cr_expect(rows[1] > 2 * rows[0] && rows[1] < 4 * rows[0] && rows[2] > rows[0] &&
		  rows[2] < rows[1], "rows %zu, %zu, %zu for weights 1, 3, 2", rows[0], rows[1],
		  rows[2]);
	solve_one(&g, &obs, &o, &one);
	solve_parts(&g, &obs, &o, 3, &po, &f, &lp);
	same_field(&g, &one, &f, "weights 1, 3, 2");
	po.nweights = 2;
	cr_expect_eq(west_parts_build(&ps, &g, 3, ops, 1, 1.0, &po, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_expect(strstr(err, "weights lists 2 numbers for 3 partitions"), "%s", err);
	west_field_free(&one);
	west_field_free(&f);
	west_obs_set_free(&obs);
	west_grid_free(&g);
}

/* A grid too small for its slabs is refused with the reason. */
Test(parts, too_few_rows_are_refused)
{
	struct west_grid g;
	struct west_obs_set obs;
	struct west_parts ps;
	const struct west_kernel_ops *ops[WEST_MAX_PARTS];
	char err[WEST_ERRLEN];

	for (int p = 0; p < WEST_MAX_PARTS; p++)
		ops[p] = &west_kernels_cpu;
	setup(&g, &obs, NX, NY);
	cr_assert_eq(west_parts_build(&ps, &g, 16, ops, 1, 1.0, NULL, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_expect(strstr(err, "too few for 16 slabs"), "%s", err);
	cr_assert_eq(west_parts_build(&ps, &g, 1, ops, 1, 1.0, NULL, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_expect(strstr(err, "2 to 16"), "%s", err);
	west_obs_set_free(&obs);
	west_grid_free(&g);
}

/* The config's devices = cpu,cpu,cpu makes the CPU backend solve in three
 * slabs (it says so) and publish the one-device field; eta = auto. */
Test(parts, devices_config_runs_the_cpu_backend_in_slabs)
{
	struct west_grid g;
	struct west_obs_set obs;
	struct west_config *c = malloc(sizeof *c);
	struct west_solve_opts o;
	struct west_field one, f;
	enum west_backend_choice choice;
	char err[WEST_ERRLEN];

	cr_assert_not_null(c);
	setup(&g, &obs, 128, 192);
	west_config_defaults(c);
	west_solve_opts_from_config(&o, c);
	o.eta = NAN;
	cr_assert_eq(o.partitions, 1);
	solve_one(&g, &obs, &o, &one);
	cr_assert_eq(west_config_set(c, "devices = cpu, cpu,cpu", "test", err, sizeof err),
		     WEST_OK, "%s", err);
	west_solve_opts_from_config(&o, c);
	o.eta = NAN;
	cr_assert_eq(o.partitions, 3);
	cr_assert_eq(west_backend_choice_of(c, &choice, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(choice, WEST_BACKEND_CPU);
	log_capture();
	west_log_set_level(WEST_LOG_INFO);
	fix_solve(&g, &obs, &o, &f);
	cr_expect(strstr(log_text(), "in 3 slabs"), "the backend says it cut the grid: %s",
		  log_buf);
	same_field(&g, &one, &f, "devices = cpu,cpu,cpu");
	west_field_free(&one);
	west_field_free(&f);
	west_obs_set_free(&obs);
	west_grid_free(&g);
	free(c);
}

/* *set solved by west_parts_solve on table ops with o, as a backend's
 * slabs are, into f (made here, freed by the caller): the one-device
 * field of o bit for bit. */
static void set_is_one(struct west_parts **set, const struct west_grid *g,
		       const struct west_obs_set *obs, const struct west_kernel_ops *ops,
		       const struct west_solve_opts *o, struct west_field *f, const char *what)
{
	struct west_solve_opts o1 = *o;
	struct west_field one;
	char err[WEST_ERRLEN];

	o1.partitions = 1;
	solve_one(g, obs, &o1, &one);
	cr_assert_eq(west_field_init(f, g, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_parts_solve(set, g, ops, obs, o, f, NULL, NULL, err, sizeof err),
		     WEST_OK, "%s: %s", what, err);
	same_field(g, &one, f, what);
	west_field_free(&one);
}

/*
 * A set is built before any solve (west_parts_prepare, eta auto taken as
 * 1, as a backend builds its planned slabs with the terrain), and a solve
 * with another eta builds the hierarchy again and keeps the slabs where
 * that eta's levels cut the grid into the same slabs (eta 4 here, whose
 * levels coarsen z alone longer), or builds the whole set again where
 * they do not (eta 0.04: its first coarse level halves x and y too, so
 * the slabs' padding grows); each field is that eta's one-device field.
 */
Test(parts, another_eta_rebuilds_the_hierarchy_alone)
{
	static const struct { double eta; int kept; } runs[] = {
		{ 1.0, 1 }, { 4.0, 1 }, { 1.0, 1 }, { 0.04, 0 }, { 1.0, 0 },
	};
	struct west_grid g;
	struct west_obs_set obs;
	struct west_solve_opts o;
	struct west_field f;
	struct west_parts *set = NULL;
	char err[WEST_ERRLEN], what[64];

	setup(&g, &obs, 128, 384);
	fix_opts(&o, 60, 1e-4, 1.7, WEST_INDEXING_COMPACT);
	o.solver = WEST_SOLVER_MULTIGRID;
	o.partitions = 2;
	o.eta = NAN;
	west_log_set_level(WEST_LOG_DEBUG);
	log_capture();
	cr_assert_eq(west_parts_prepare(&set, &g, &west_kernels_cpu, &o, err, sizeof err),
		     WEST_OK, "%s", err);
	cr_expect(strstr(log_text(), "rows in 2 slabs"), "the set is built: %s", log_buf);
	cr_assert_eq(set->eta, 1.0, "eta auto is built as 1");
	for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
		o.eta = runs[r].eta;
		snprintf(what, sizeof what, "run %zu, eta %g", r, o.eta);
		log_capture();
		set_is_one(&set, &g, &obs, &west_kernels_cpu, &o, &f, what);
		const char *log = log_text();
		cr_expect_eq(!strstr(log, "rows in 2 slabs"), runs[r].kept,
			     "%s: the slabs should be %s: %s", what,
			     runs[r].kept ? "kept" : "built again", log);
		cr_expect_eq(set->eta, o.eta, "%s", what);
		west_field_free(&f);
	}
	west_log_set_level(WEST_LOG_INFO);
	west_parts_drop(&set);
	west_obs_set_free(&obs);
	west_grid_free(&g);
}

/*
 * A CPU state planned for slabs (west_backend_plan, as westd and west run
 * call it, devices = cpu,cpu) builds them when the terrain is uploaded, so
 * that its first solve builds nothing; a grid too small for its slabs is
 * refused there, with the reason.
 */
Test(parts, planned_cpu_slabs_are_built_with_the_terrain)
{
	const struct west_backend *be = &west_backend_cpu;
	struct west_grid g, small;
	struct west_obs_set obs, obs2;
	struct west_config *c = malloc(sizeof *c);
	struct west_solve_opts o;
	struct west_field one, f;
	char err[WEST_ERRLEN];
	void *state = NULL;

	cr_assert_not_null(c);
	setup(&g, &obs, 128, 192);
	setup(&small, &obs2, 128, 24);
	west_config_defaults(c);
	cr_assert_eq(west_config_set(c, "devices = cpu,cpu", "test", err, sizeof err), WEST_OK,
		     "%s", err);
	west_solve_opts_from_config(&o, c);
	cr_assert_eq(be->init(&state, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_backend_plan(be, state, c, err, sizeof err), WEST_OK, "%s", err);
	log_capture();
	cr_assert_eq(be->upload_terrain(state, &g, err, sizeof err), WEST_OK, "%s", err);
	cr_expect(strstr(log_text(), "rows in 2 slabs"), "the upload builds the slabs: %s",
		  log_buf);
	cr_assert_eq(west_field_init(&f, &g, err, sizeof err), WEST_OK, "%s", err);
	log_capture();
	cr_assert_eq(be->run(state, &obs, &o, &f, NULL, NULL, err, sizeof err), WEST_OK, "%s",
		     err);
	cr_expect(!strstr(log_text(), "in 2 slabs"), "the first solve builds none: %s", log_buf);
	cr_expect_eq(f.report.partitions, 2);
	o.partitions = 1;
	o.eta = f.report.eta;
	solve_one(&g, &obs, &o, &one);
	same_field(&g, &one, &f, "devices = cpu,cpu, planned");
	cr_expect_eq(be->upload_terrain(state, &small, err, sizeof err), WEST_ERR_INVALID);
	cr_expect(strstr(err, "too few for 2 slabs"), "%s", err);
	be->free(state);
	west_field_free(&one), west_field_free(&f);
	west_obs_set_free(&obs), west_obs_set_free(&obs2);
	west_grid_free(&g), west_grid_free(&small);
	free(c);
}

/*
 * The CPU's kernels behind a device's hooks (bind, sync, join and peers
 * that do nothing; the syncs counted): slabs on this table stand for GPU slabs, so
 * that a CPU slab beside them (devices = cuda:0,cpu and the like) runs
 * the mixed set's paths here: the CPU's own table for its slab, the copies
 * between the two memories by the device's table, a join at every
 * exchange that waits for the devices, blocking exchanges, the devices'
 * and the CPU's measured speeds.  Both are the CPU's kernels, so the field
 * is the one-device field bit for bit; on a GPU the same set agrees with
 * the GPU's field to the solve's tolerance (gpu_beside_cpu below).
 */
static int hook_syncs;
static enum west_status hook_bind(int dev)
{
	(void)dev;
	return WEST_OK;
}
static enum west_status hook_sync(void)
{
	hook_syncs++;
	return WEST_OK;
}
static enum west_status hook_join(const int *dev, int n)
{
	(void)dev, (void)n;
	return WEST_OK;
}
static enum west_status hook_peers(const int *dev, int n, char *err, size_t errlen)
{
	(void)dev, (void)n, (void)err, (void)errlen;
	return WEST_OK;
}

struct mixed_case {
	enum west_solver solver;
	int n;
	int dev[3];   /* WEST_DEVICE_CPU: the CPU's slab */
};

static struct mixed_case mixed_cases[] = {
	{ WEST_SOLVER_MULTIGRID, 2, { 0, WEST_DEVICE_CPU } },
	{ WEST_SOLVER_MULTIGRID, 2, { WEST_DEVICE_CPU, 0 } },   /* the tail on the CPU */
	{ WEST_SOLVER_MULTIGRID, 3, { 0, WEST_DEVICE_CPU, 1 } },
	{ WEST_SOLVER_SOR_POTENTIAL, 2, { 0, WEST_DEVICE_CPU } },
	{ WEST_SOLVER_SOR, 3, { WEST_DEVICE_CPU, 0, WEST_DEVICE_CPU } },
};

ParameterizedTestParameters(parts, cpu_beside_devices_is_the_one_device_field)
{
	return cr_make_param_array(struct mixed_case, mixed_cases,
				   sizeof mixed_cases / sizeof mixed_cases[0]);
}

ParameterizedTest(struct mixed_case *c, parts, cpu_beside_devices_is_the_one_device_field)
{
	struct west_kernel_ops dev = west_kernels_cpu;
	struct west_grid g;
	struct west_obs_set obs;
	struct west_solve_opts o;
	struct west_field f;
	struct west_parts *set = NULL;
	char what[96];

	dev.bind = hook_bind, dev.sync = hook_sync, dev.join = hook_join;
	dev.peers = hook_peers;
	setup(&g, &obs, 128, 192);
	fix_opts(&o, 60, 1e-4, 1.7, WEST_INDEXING_COMPACT);
	o.solver = c->solver;
	o.partitions = c->n;
	o.exchange = WEST_EXCHANGE_OVERLAP;   /* beside a CPU: blocking all the same */
	memcpy(o.device, c->dev, (size_t)c->n * sizeof *c->dev);
	snprintf(what, sizeof what, "solver %d, devices %d,%d,%d", c->solver, c->dev[0],
		 c->dev[1], c->n > 2 ? c->dev[2] : 99);
	hook_syncs = 0;
	set_is_one(&set, &g, &obs, &dev, &o, &f, what);
	cr_expect(set->cpu > 0 && set->gpu == &dev, "%s: a CPU beside devices", what);
	cr_expect(!west_parts_overlaps(set), "%s: blocking exchanges beside a CPU", what);
	if (c->solver != WEST_SOLVER_SOR) {   /* a halo exchange waits for every device */
		int before = hook_syncs;
		cr_assert_eq(west_parts_halo_e(set, 0, 0), WEST_OK);
		cr_expect_eq(hook_syncs - before, 2 * set->ndev, "%s: %d waits for %d devices",
			     what, hook_syncs - before, set->ndev);
	}
	for (int p = 0; p < c->n; p++) {
		int cpu = c->dev[p] == WEST_DEVICE_CPU;
		cr_expect_eq(set->part[p].ops, cpu ? &west_kernels_cpu : &dev, "%s: slab %d", what,
			     p);
		cr_expect_str_eq(f.report.slab[p].device, cpu ? "cpu" : p == 2 ? "cpu:1" : "cpu:0",
				 "%s: slab %d", what, p);
	}
	west_parts_drop(&set);
	west_field_free(&f);
	west_obs_set_free(&obs);
	west_grid_free(&g);
}

/* What devices and weights accept and refuse, and devices' agreement with
 * backend. */
Test(parts, devices_values)
{
	struct west_devices d;
	struct west_config *c = malloc(sizeof *c);
	enum west_backend_choice choice;
	char err[WEST_ERRLEN];

	cr_assert_not_null(c);
	cr_assert_eq(west_devices_parse("auto", &d, err, sizeof err), WEST_OK);
	cr_expect_eq(d.n, 0);
	cr_assert_eq(west_devices_parse(" cpu ,CPU", &d, err, sizeof err), WEST_OK, "%s", err);
	cr_expect(d.n == 2 && d.cpu == 2 && d.cuda == 0 && d.dev[0] == WEST_DEVICE_CPU &&
		  d.dev[1] == WEST_DEVICE_CPU);
	cr_assert_eq(west_devices_parse("cuda:0", &d, err, sizeof err), WEST_OK, "%s", err);
	cr_expect(d.n == 1 && d.cuda == 1);
	cr_expect_eq(west_devices_parse("cuda:1", &d, err, sizeof err), WEST_ERR_INVALID);
	cr_expect(strstr(err, "cuda:1 alone") && strstr(err, "CUDA_VISIBLE_DEVICES=1"), "%s",
		  err);
	cr_assert_eq(west_devices_parse("cuda:1,cuda:0,cuda:12", &d, err, sizeof err), WEST_OK,
		     "%s", err);
	cr_expect(d.n == 3 && d.cuda == 3 && d.dev[0] == 1 && d.dev[1] == 0 && d.dev[2] == 12);
	cr_expect_eq(west_devices_parse("cuda:0,cuda:100", &d, err, sizeof err), WEST_ERR_INVALID);
	cr_expect(strstr(err, "'cuda:100' is not"), "%s", err);
	cr_expect_eq(west_devices_parse("cuda:0,cuda:x", &d, err, sizeof err), WEST_ERR_INVALID);
	cr_expect(strstr(err, "'cuda:x' is not"), "%s", err);
	cr_assert_eq(west_devices_parse("cuda:0,cpu", &d, err, sizeof err), WEST_OK, "%s", err);
	cr_expect(d.n == 2 && d.cuda == 1 && d.cpu == 1 && d.dev[0] == 0 &&
		  d.dev[1] == WEST_DEVICE_CPU);
	cr_assert_eq(west_devices_parse("cuda:0, cuda:0", &d, err, sizeof err), WEST_OK, "%s",
		     err);
	cr_expect(d.n == 2 && d.cuda == 2);
	cr_expect_eq(west_devices_parse("cpu,,cpu", &d, err, sizeof err), WEST_ERR_INVALID);
	cr_expect(strstr(err, "'' is not"), "%s", err);
	cr_expect_eq(west_devices_parse("gpu", &d, err, sizeof err), WEST_ERR_INVALID);
	cr_expect(strstr(err, "'gpu' is not auto, cpu or cuda:N"), "%s", err);
	cr_expect_eq(west_devices_parse("cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,"
					"cpu,cpu,cpu,cpu", &d, err, sizeof err), WEST_ERR_INVALID);
	cr_expect(strstr(err, "more than 16"), "%s", err);

	double w[16];
	int nw;
	cr_assert_eq(west_weights_parse("auto", w, &nw, err, sizeof err), WEST_OK);
	cr_expect_eq(nw, 0);
	cr_assert_eq(west_weights_parse("1, 2.5,4", w, &nw, err, sizeof err), WEST_OK, "%s", err);
	cr_expect(nw == 3 && w[0] == 1.0 && w[1] == 2.5 && w[2] == 4.0);
	cr_expect_eq(west_weights_parse("1,0", w, &nw, err, sizeof err), WEST_ERR_INVALID);
	cr_expect(strstr(err, "'0' is not a number > 0"), "%s", err);
	cr_expect_eq(west_weights_parse("1,,2", w, &nw, err, sizeof err), WEST_ERR_INVALID);
	cr_expect_eq(west_weights_parse("1,x", w, &nw, err, sizeof err), WEST_ERR_INVALID);
	cr_expect(strstr(err, "'x'"), "%s", err);
	cr_expect_eq(west_weights_parse("nan", w, &nw, err, sizeof err), WEST_ERR_INVALID);

	west_config_defaults(c);
	cr_expect_eq(west_config_set(c, "weights=2,-1", "--set", err, sizeof err),
		     WEST_ERR_INVALID);
	cr_expect(strstr(err, "weights") && strstr(err, "'-1'"), "%s", err);
	cr_expect_eq(west_config_set(c, "devices=cpu,tpu", "--set", err, sizeof err),
		     WEST_ERR_INVALID);
	cr_expect(strstr(err, "devices") && strstr(err, "'tpu'"), "%s", err);
	cr_assert_eq(west_config_set(c, "devices=cpu,cpu", "--set", err, sizeof err), WEST_OK);
	cr_assert_eq(west_config_set(c, "backend=cuda", "--set", err, sizeof err), WEST_OK);
	cr_expect_eq(west_backend_choice_of(c, &choice, err, sizeof err), WEST_ERR_INVALID);
	cr_expect(strstr(err, "disagree"), "%s", err);
	cr_assert_eq(west_config_set(c, "devices=cuda:0", "--set", err, sizeof err), WEST_OK);
	cr_expect_eq(west_backend_choice_of(c, &choice, err, sizeof err), WEST_OK, "%s", err);
	cr_expect_eq(choice, WEST_BACKEND_CUDA);
	/* the CPU beside a GPU: the CUDA backend, which runs the CPU's slab too */
	cr_assert_eq(west_config_set(c, "devices=cpu,cuda:0", "--set", err, sizeof err), WEST_OK);
	cr_expect_eq(west_backend_choice_of(c, &choice, err, sizeof err), WEST_OK, "%s", err);
	cr_expect_eq(choice, WEST_BACKEND_CUDA);
	cr_assert_eq(west_config_set(c, "backend=cpu", "--set", err, sizeof err), WEST_OK);
	cr_expect_eq(west_backend_choice_of(c, &choice, err, sizeof err), WEST_ERR_INVALID);
	cr_expect(strstr(err, "disagree"), "%s", err);
	free(c);
}

#ifdef WEST_HAVE_CUDA
/* A solve through backend be (o->partitions slabs) into f. */
static void solve_backend(const struct west_backend *be, const struct west_grid *g,
			  const struct west_obs_set *obs, const struct west_solve_opts *o,
			  struct west_field *f)
{
	void *state = NULL;
	char err[WEST_ERRLEN];

	cr_assert_eq(west_field_init(f, g, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(be->init(&state, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(be->upload_terrain(state, g, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(be->run(state, obs, o, f, NULL, NULL, err, sizeof err), WEST_OK, "%s", err);
	be->free(state);
}
#endif

static struct case_ gpu_cases[] = {
	{ WEST_SOLVER_MULTIGRID, WEST_INDEXING_COMPACT, 3, 0, 0 },
	{ WEST_SOLVER_SOR_POTENTIAL, WEST_INDEXING_COMPACT, 2, 0, 0 },
	{ WEST_SOLVER_SOR, WEST_INDEXING_MASKED, 2, 0, 0 },
	{ WEST_SOLVER_SOR, WEST_INDEXING_COMPACT, 3, 0, 0 },
};

ParameterizedTestParameters(parts, gpu_slabs_are_the_gpu_field)
{
	return cr_make_param_array(struct case_, gpu_cases,
				   sizeof gpu_cases / sizeof gpu_cases[0]);
}

#ifdef WEST_HAVE_CUDA
/* A solve on state (uploaded) into f. */
static void solve_on(void *state, const struct west_grid *g, const struct west_obs_set *obs,
		     const struct west_solve_opts *o, struct west_field *f)
{
	char err[WEST_ERRLEN];
	cr_assert_eq(west_field_init(f, g, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_backend_cuda.run(state, obs, o, f, NULL, NULL, err, sizeof err),
		     WEST_OK, "%s", err);
}

/* A CUDA state with g uploaded, planned for plan's slabs (NULL: no plan). */
static void *cuda_state_for(const struct west_grid *g, const struct west_solve_opts *plan)
{
	void *state = NULL;
	char err[WEST_ERRLEN];
	cr_assert_eq(west_backend_cuda.init(&state, err, sizeof err), WEST_OK, "%s", err);
	if (plan)
		cr_assert_eq(west_backend_cuda.plan(state, plan, err, sizeof err), WEST_OK, "%s",
			     err);
	cr_assert_eq(west_backend_cuda.upload_terrain(state, g, err, sizeof err), WEST_OK, "%s",
		     err);
	return state;
}
#endif

/*
 * A state planned for slabs (config devices, here cuda:0,cuda:0) holds
 * its slabs and not the whole grid's arrays beside them: it builds them
 * when the terrain goes up (the first solve adds nothing), holds at most
 * 1.25 times what a one-device state holds (the slabs' halos and the tail
 * are the difference), and the whole grid's 25 bytes per cell less than
 * an unplanned state that solved the same slabs.  A one-device solve on
 * it still works (the arrays are made then), and every field is the
 * one-device field.
 */
Test(parts, planned_slabs_hold_only_their_slabs)
{
	gpu_skip_unless_usable();
#ifdef WEST_HAVE_CUDA
	const struct west_backend *be = &west_backend_cuda;
	struct west_grid g;
	struct west_obs_set obs;
	struct west_solve_opts o, two;
	struct west_field one, lean, fat, after;
	size_t cells, b_one, b_planned, b_lean, b_fat, b_after;
	void *s_one, *s_lean, *s_fat;

	setup(&g, &obs, 128, 192);
	cells = west_grid_ncells(&g);
	fix_opts(&o, 60, 1e-4, 1.7, WEST_INDEXING_COMPACT);
	o.solver = WEST_SOLVER_MULTIGRID;
	two = o;
	two.partitions = 2;
	s_one = cuda_state_for(&g, NULL);
	solve_on(s_one, &g, &obs, &o, &one);
	b_one = be->device_bytes(s_one);
	s_lean = cuda_state_for(&g, &two);
	b_planned = be->device_bytes(s_lean);
	char desc[512];
	be->describe(s_lean, desc, sizeof desc);
	cr_expect(strstr(desc, "; slabs on cuda:0,cuda:0"), "the state says where its slabs "
		  "are: %s", desc);
	solve_on(s_lean, &g, &obs, &two, &lean);
	b_lean = be->device_bytes(s_lean);
	s_fat = cuda_state_for(&g, NULL);
	solve_on(s_fat, &g, &obs, &two, &fat);
	b_fat = be->device_bytes(s_fat);
	cr_log_info("device bytes per cell: one device %.1f, planned slabs %.1f before and %.1f "
		    "after the solve, unplanned slabs %.1f", (double)b_one / (double)cells,
		    (double)b_planned / (double)cells, (double)b_lean / (double)cells,
		    (double)b_fat / (double)cells);
	same_field(&g, &one, &lean, "planned slabs");
	same_field(&g, &one, &fat, "unplanned slabs");
	cr_expect(b_planned > 0 && b_planned == b_lean, "a planned state holds %zu bytes after "
		  "the upload and %zu after its first solve: its slabs are built with the "
		  "terrain", b_planned, b_lean);
	cr_expect_leq(b_lean, b_one + b_one / 4, "planned slabs: %zu bytes, one device %zu",
		      b_lean, b_one);
	cr_expect_geq(b_fat, b_lean + 25 * cells, "unplanned slabs: %zu bytes, planned %zu",
		      b_fat, b_lean);
	solve_on(s_lean, &g, &obs, &o, &after);
	b_after = be->device_bytes(s_lean);
	same_field(&g, &one, &after, "one device after planned slabs");
	cr_expect_geq(b_after, b_lean + 25 * cells, "the whole arrays made: %zu bytes, then %zu",
		      b_lean, b_after);
	be->free(s_one), be->free(s_lean), be->free(s_fat);
	west_field_free(&one), west_field_free(&lean), west_field_free(&fat);
	west_field_free(&after);
	west_obs_set_free(&obs);
	west_grid_free(&g);
#endif
}

/*
 * A CPU slab beside a GPU's (devices = cuda:0,cpu and cpu,cuda:0, the
 * second with the tail on the CPU; through the CUDA backend, planned as
 * westd plans it, every solver): the GPU's one-device field to the
 * solves' tolerance.  Each stops when max|D| h / U <= tol (1e-4 here) and
 * the two compute in different orders (the CPU's kernels and sums, the
 * GPU's), so the fields differ by what that test leaves: the bound is 10
 * tol U on every face, U the largest speed of the GPU's field (the
 * velocity form, 60 iterations, differs by rounding alone).
 */
Test(parts, gpu_beside_cpu)
{
	gpu_skip_unless_usable();
#ifdef WEST_HAVE_CUDA
	static const int lists[2][2] = { { 0, WEST_DEVICE_CPU }, { WEST_DEVICE_CPU, 0 } };
	static const enum west_solver solvers[3] = { WEST_SOLVER_MULTIGRID,
						     WEST_SOLVER_SOR_POTENTIAL, WEST_SOLVER_SOR };
	struct west_grid g;
	struct west_obs_set obs;

	setup(&g, &obs, 128, 192);
	for (int s = 0; s < 3; s++)
		for (int l = 0; l < 2; l++) {
			struct west_solve_opts o;
			struct west_field one, f;
			char what[96];
			fix_opts(&o, 60, 1e-4, 1.7, WEST_INDEXING_COMPACT);
			o.solver = solvers[s];
			solve_backend(&west_backend_cuda, &g, &obs, &o, &one);
			o.partitions = 2;
			memcpy(o.device, lists[l], sizeof lists[l]);
			void *state = cuda_state_for(&g, &o);
			solve_on(state, &g, &obs, &o, &f);
			snprintf(what, sizeof what, "solver %d, %s", o.solver,
				 l ? "cpu,cuda:0" : "cuda:0,cpu");
			cr_expect_str_eq(f.report.backend, "cuda", "%s", what);
			for (int p = 0; p < 2; p++)
				cr_expect_str_eq(f.report.slab[p].device,
						 lists[l][p] == WEST_DEVICE_CPU ? "cpu" : "cuda:0",
						 "%s: slab %d", what, p);
			near_field(&g, &one, &f, 10.0 * o.tolerance, what);
			west_backend_cuda.free(state);
			west_field_free(&one), west_field_free(&f);
		}
	west_obs_set_free(&obs);
	west_grid_free(&g);
#endif
}

/* Slabs on several GPUs: each its device (partition 0, which holds the
 * tail, on another than the backend's), exchanging rows by peer copies. */
struct gpus_case {
	enum west_solver solver;
	enum west_indexing indexing;
	int n;
	int dev[3];
	enum west_exchange exchange;
};

static struct gpus_case gpus_cases[] = {
	{ WEST_SOLVER_MULTIGRID, WEST_INDEXING_COMPACT, 2, { 0, 1 }, WEST_EXCHANGE_OVERLAP },
	{ WEST_SOLVER_MULTIGRID, WEST_INDEXING_COMPACT, 2, { 0, 1 }, WEST_EXCHANGE_BLOCKING },
	{ WEST_SOLVER_MULTIGRID, WEST_INDEXING_COMPACT, 3, { 1, 0, 1 }, WEST_EXCHANGE_OVERLAP },
	{ WEST_SOLVER_SOR_POTENTIAL, WEST_INDEXING_COMPACT, 2, { 1, 0 }, WEST_EXCHANGE_OVERLAP },
	{ WEST_SOLVER_SOR_POTENTIAL, WEST_INDEXING_COMPACT, 3, { 0, 1, 0 },
	  WEST_EXCHANGE_BLOCKING },
	{ WEST_SOLVER_SOR, WEST_INDEXING_MASKED, 2, { 0, 1 }, WEST_EXCHANGE_OVERLAP },
	{ WEST_SOLVER_SOR, WEST_INDEXING_COMPACT, 3, { 0, 1, 1 }, WEST_EXCHANGE_OVERLAP },
};

ParameterizedTestParameters(parts, slabs_on_two_gpus_are_the_gpu_field)
{
	return cr_make_param_array(struct gpus_case, gpus_cases,
				   sizeof gpus_cases / sizeof gpus_cases[0]);
}

/* devices = cuda:0,cuda:1 and others naming both GPUs: the one-device
 * field of GPU 0 bit for bit, each slab reported on its device; skipped
 * with fewer than two GPUs. */
ParameterizedTest(struct gpus_case *c, parts, slabs_on_two_gpus_are_the_gpu_field)
{
	gpu_skip_unless_usable();
#ifdef WEST_HAVE_CUDA
	static const int both[2] = { 0, 1 };
	struct west_grid g;
	struct west_obs_set obs;
	struct west_solve_opts o;
	struct west_field one, f;
	char what[128], why[WEST_ERRLEN], dev[16];

	if (west_kernels_cuda.peers(both, 2, why, sizeof why))
		cr_skip_test("needs two GPUs: %s", why);
	setup(&g, &obs, 128, 192);
	fix_opts(&o, 60, 1e-4, 1.7, c->indexing);
	o.solver = c->solver;
	solve_backend(&west_backend_cuda, &g, &obs, &o, &one);
	o.partitions = c->n;
	o.exchange = c->exchange;
	memcpy(o.device, c->dev, c->n * sizeof *c->dev);
	solve_backend(&west_backend_cuda, &g, &obs, &o, &f);
	snprintf(what, sizeof what, "GPUs %d,%d,%d, solver %d, %d partitions, exchange %d",
		 c->dev[0], c->dev[1], c->dev[2], c->solver, c->n, c->exchange);
	same_field(&g, &one, &f, what);
	for (int p = 0; p < c->n; p++) {
		snprintf(dev, sizeof dev, "cuda:%d", c->dev[p]);
		cr_expect_str_eq(f.report.slab[p].device, dev, "%s: slab %d", what, p);
	}
	west_field_free(&one);
	west_field_free(&f);
	west_obs_set_free(&obs);
	west_grid_free(&g);
#else
	(void)c;
#endif
}

#ifdef WEST_HAVE_CUDA
/* The CUDA state and options westd makes from a config of devices = auto
 * (west_backend_plan), g uploaded. */
static void *auto_state(const struct west_grid *g, struct west_solve_opts *o)
{
	struct west_config *c = malloc(sizeof *c);
	void *state = NULL;
	char err[WEST_ERRLEN];

	cr_assert_not_null(c);
	west_config_defaults(c);
	west_solve_opts_from_config(o, c);
	cr_assert(o->devices_auto && o->partitions == 1, "devices = auto");
	cr_assert_eq(west_backend_cuda.init(&state, err, sizeof err), WEST_OK, "%s", err);
	cr_assert_eq(west_backend_plan(&west_backend_cuda, state, c, err, sizeof err), WEST_OK,
		     "%s", err);
	cr_assert_eq(west_backend_cuda.upload_terrain(state, g, err, sizeof err), WEST_OK, "%s",
		     err);
	free(c);
	return state;
}
#endif

/*
 * devices = auto (the default) with two or more GPUs: a slab on each, built
 * when the terrain goes up, the field GPU 0's one-device field bit for
 * bit; a grid too small to cut on GPU 0 alone, the same field as there.
 * With one GPU: that GPU, no slabs (both halves run wherever a GPU is).
 */
Test(parts, devices_auto_takes_every_gpu)
{
	gpu_skip_unless_usable();
#ifdef WEST_HAVE_CUDA
	static const size_t rows[2] = { 192, 24 };   /* cut, too small to cut */
	const struct west_backend *be = &west_backend_cuda;
	static const int all[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	char why[WEST_ERRLEN];
	int count = 1;   /* the GPUs usable together: as many as peers accepts */

	while (count < 16 && !west_kernels_cuda.peers(all, count + 1, why, sizeof why))
		count++;
	for (int k = 0; k < 2; k++) {
		struct west_grid g;
		struct west_obs_set obs;
		struct west_solve_opts o, one_o;
		struct west_field one, f;
		char err[WEST_ERRLEN], desc[512];
		int slabs = count > 1 && k == 0 ? (count < 16 ? count : 16) : 1;
		void *state;

		setup(&g, &obs, 128, rows[k]);
		log_capture();
		state = auto_state(&g, &o);
		const char *log = log_text();
		be->describe(state, desc, sizeof desc);
		cr_expect_eq(strstr(desc, "(devices = auto") != NULL, count > 1, "%s", desc);
		cr_expect_eq(strstr(log, "slabs built with the terrain") != NULL, slabs > 1,
			     "%zu rows on %d GPUs: %s", rows[k], count, log);
		cr_expect_eq(strstr(log, "this grid on one GPU") != NULL, count > 1 && k == 1,
			     "%zu rows on %d GPUs: %s", rows[k], count, log);
		size_t before = be->device_bytes(state);
		one_o = o;
		one_o.devices_auto = 0;
		solve_backend(be, &g, &obs, &one_o, &one);
		cr_assert_eq(west_field_init(&f, &g, err, sizeof err), WEST_OK, "%s", err);
		cr_assert_eq(be->run(state, &obs, &o, &f, NULL, NULL, err, sizeof err), WEST_OK,
			     "%s", err);
		cr_expect_eq(f.report.partitions, slabs,
			     "%zu rows on %d GPUs: %d slabs", rows[k], count, f.report.partitions);
		for (int p = 0; p < slabs && slabs > 1; p++) {
			char dev[16];
			snprintf(dev, sizeof dev, "cuda:%d", p);
			cr_expect_str_eq(f.report.slab[p].device, dev, "slab %d", p);
		}
		if (slabs > 1)
			cr_expect_eq(be->device_bytes(state), before, "the first solve builds "
				     "nothing more: %zu bytes, then %zu", before,
				     be->device_bytes(state));
		same_field(&g, &one, &f, k ? "devices = auto, a small grid" : "devices = auto");
		be->free(state);
		west_field_free(&one), west_field_free(&f);
		west_obs_set_free(&obs);
		west_grid_free(&g);
	}
#endif
}

/*
 * weights = auto on several GPUs: each GPU's measured speed, shared by
 * the slabs it holds.  cuda:0,cuda:0,cuda:1 on two GPUs of one model: the
 * slab of GPU 1 gets about twice the rows of each of GPU 0's (1.5 to 2.5
 * times: the speeds are measured, and rows are dealt out in multiples of
 * the hierarchy's coarsening), and the field is still GPU 0's alone.
 */
Test(parts, auto_weights_follow_the_devices)
{
	gpu_skip_unless_usable();
#ifdef WEST_HAVE_CUDA
	static const int both[2] = { 0, 1 }, dev[3] = { 0, 0, 1 };
	struct west_grid g;
	struct west_obs_set obs;
	struct west_solve_opts o;
	struct west_field one, f;
	char why[WEST_ERRLEN];
	double r0, r1, r2;

	if (west_kernels_cuda.peers(both, 2, why, sizeof why))
		cr_skip_test("needs two GPUs: %s", why);
	setup(&g, &obs, 128, 192);
	fix_opts(&o, 60, 1e-4, 1.7, WEST_INDEXING_COMPACT);
	o.solver = WEST_SOLVER_MULTIGRID;
	solve_backend(&west_backend_cuda, &g, &obs, &o, &one);
	o.partitions = 3;
	memcpy(o.device, dev, sizeof dev);
	solve_backend(&west_backend_cuda, &g, &obs, &o, &f);
	same_field(&g, &one, &f, "cuda:0,cuda:0,cuda:1, auto weights");
	r0 = (double)(f.report.slab[0].j1 - f.report.slab[0].j0);
	r1 = (double)(f.report.slab[1].j1 - f.report.slab[1].j0);
	r2 = (double)(f.report.slab[2].j1 - f.report.slab[2].j0);
	cr_log_info("rows: %.0f, %.0f on GPU 0, %.0f on GPU 1", r0, r1, r2);
	cr_expect(r2 >= 1.5 * r0 && r2 <= 2.5 * r0 && r2 >= 1.5 * r1 && r2 <= 2.5 * r1,
		  "rows %.0f, %.0f on GPU 0 and %.0f on GPU 1: GPU 1's slab should have about "
		  "twice each of GPU 0's", r0, r1, r2);
	west_field_free(&one);
	west_field_free(&f);
	west_obs_set_free(&obs);
	west_grid_free(&g);
#endif
}

/* A list naming a GPU this machine does not have is refused at start, by
 * the backend's plan (west_backend_plan, as westd and west run call it). */
Test(parts, devices_names_a_missing_gpu)
{
	gpu_skip_unless_usable();
#ifdef WEST_HAVE_CUDA
	struct west_config *c = malloc(sizeof *c);
	void *state = NULL;
	char err[WEST_ERRLEN];

	cr_assert_not_null(c);
	west_config_defaults(c);
	cr_assert_eq(west_config_set(c, "devices=cuda:0,cuda:99", "--set", err, sizeof err),
		     WEST_OK, "%s", err);
	cr_assert_eq(west_backend_cuda.init(&state, err, sizeof err), WEST_OK, "%s", err);
	cr_expect_eq(west_backend_plan(&west_backend_cuda, state, c, err, sizeof err),
		     WEST_ERR_INVALID);
	cr_expect(strstr(err, "devices = cuda:0,cuda:99: cuda:99: no such device"), "%s", err);
	west_backend_cuda.free(state);
	free(c);
#endif
}

/* devices = cuda:0 listed n times, through the CUDA backend, on a grid the
 * daemon's thresholds cut (128 x 192 x 12). */
ParameterizedTest(struct case_ *c, parts, gpu_slabs_are_the_gpu_field)
{
	gpu_skip_unless_usable();
#ifdef WEST_HAVE_CUDA
	struct west_grid g;
	struct west_obs_set obs;
	struct west_solve_opts o;
	struct west_field one, f;
	char what[128];

	setup(&g, &obs, 128, 192);
	fix_opts(&o, 60, 1e-4, 1.7, c->indexing);
	o.solver = c->solver;
	solve_backend(&west_backend_cuda, &g, &obs, &o, &one);
	o.partitions = c->n;
	for (int ex = 0; ex < 2; ex++) {   /* overlapped, then blocking */
		o.exchange = ex ? WEST_EXCHANGE_BLOCKING : WEST_EXCHANGE_OVERLAP;
		solve_backend(&west_backend_cuda, &g, &obs, &o, &f);
		snprintf(what, sizeof what, "GPU, solver %d, %d partitions, %s exchange",
			 c->solver, c->n, ex ? "blocking" : "overlapped");
		same_field(&g, &one, &f, what);
		west_field_free(&f);
	}
	west_field_free(&one);
	west_obs_set_free(&obs);
	west_grid_free(&g);
#else
	(void)c;
#endif
}
