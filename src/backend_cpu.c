/*
 * backend_cpu.c: the CPU backend, the reference every other backend is
 * checked against, and the production path on machines without a GPU.
 * Host memory is its device: upload_terrain keeps a pointer to the caller's
 * grid, which must outlive the state (or be re-uploaded), and builds the
 * level arrays of the kernels' grid view.  run allocates the per-station
 * arrays (a few kB) and runs the driver (model.c) over west_kernels_cpu
 * (defined here), the plain-C references in kernels/, parallel with
 * OpenMP, writing into the caller's field directly.  The potential
 * solvers' hierarchy (multigrid.h) is built by the first run that needs it
 * and again when eta changes or a new terrain comes.
 */
#include "backend.h"
#include "parts.h"
#include "ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

struct cpu_state {
	const struct west_kernel_ops *ops;   /* west_kernels_cpu, or _ref */
	int avx2;                    /* WEST_CPU_KERNELS=avx2 */
	const struct west_grid *grid;
	struct west_levels levels;
	struct west_mg mg;           /* built for the grid, or nlevels 0 */
	struct west_parts *parts;    /* the grid in slabs (config devices), or NULL */
	struct west_solve_opts popts;   /* planned for slabs (cpu_plan): popts.partitions
					   > 1, the set built at upload */
};

/* Host memory, the kernel table's memory operations on the CPU (model.h).
 * Blocks begin on a cache line (WEST_CPU_ALIGN), so that threads writing
 * runs of a line's items (the plume lanes' particles: plume_simd.c) never
 * write to one line. */
#define WEST_CPU_ALIGN 64

static enum west_status cpu_alloc(void **p, size_t bytes, char *err, size_t errlen)
{
	size_t whole = (bytes + WEST_CPU_ALIGN - 1) / WEST_CPU_ALIGN * WEST_CPU_ALIGN;

	if (whole < bytes || !(*p = aligned_alloc(WEST_CPU_ALIGN, whole)))
		return west_fail(err, errlen, WEST_ERR_NOMEM, "cpu: %zu bytes of memory: out of memory",
				 bytes);
	return WEST_OK;
}

static enum west_status cpu_copy(void *dst, const void *src, size_t bytes, char *err,
				 size_t errlen)
{
	(void)err, (void)errlen;
	memcpy(dst, src, bytes);
	return WEST_OK;
}

static enum west_status cpu_fill(void *dst, int byte, size_t bytes, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	memset(dst, byte, bytes);
	return WEST_OK;
}

static enum west_status cpu_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
				   size_t width, size_t height, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	for (size_t r = 0; r < height; r++)
		memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
	return WEST_OK;
}

static enum west_status cpu_release(void *p, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	free(p);
	return WEST_OK;
}

/*
 * The CPU backend's kernel tables: the plain-C references (kernels.h), the
 * reference every other table is tested against, with the right-hand side,
 * field update, colour pass (and the first from e = 0), operator,
 * restriction and prolongation from
 * potential_simd.c (vectorized, the same bits) or from the references
 * themselves (_ref: run with WEST_CPU_KERNELS=reference, for comparisons).
 */
#define CPU_KERNELS(rhs, apply, smooth, smooth0, restrict_, prolong, matvec, plume) { \
	.backend = "cpu", \
	.stability = west_stability_cpu, \
	.extrapolate = west_extrapolate_cpu, \
	.initialize = west_initialize_cpu, \
	.land = west_land_cpu, \
	.interpolate = west_interpolate_cpu, \
	.speed_zero = west_speed_zero_cpu, \
	.transparency = west_transparency_cpu, \
	.sweep = west_divmin_sweep_cpu, \
	.norms = west_divergence_norms_cpu, \
	.divremoval = west_divremoval_cpu, \
	.pot_rhs = rhs, \
	.pot_apply = apply, \
	.pot_smooth = smooth, \
	.pot_smooth0 = smooth0, \
	.pot_restrict = restrict_, \
	.pot_prolong = prolong, \
	.pot_coarse = west_pot_coarse_cpu, \
	.pot_matvec = matvec, \
	.pot_dot = west_pot_dot_cpu, \
	.pot_xpby = west_pot_xpby_cpu, \
	.pot_axpy = west_pot_axpy_cpu, \
	.pot_resid = west_pot_resid_cpu, \
	.pot_zero = west_pot_zero_cpu, \
	.mg_codes = west_mg_codes_cpu, \
	.mg_coarse = west_mg_coarse_cpu, \
	.mg_cuts = west_mg_cuts_cpu, \
	.plume_advance = plume, \
	.alloc = cpu_alloc, \
	.upload = cpu_copy, \
	.download = cpu_copy, \
	.fill = cpu_fill, \
	.copy2d = cpu_copy2d, \
	.free = cpu_release, \
}
const struct west_kernel_ops west_kernels_cpu =
	CPU_KERNELS(west_pot_rhs_simd, west_pot_apply_simd, west_pot_smooth_simd,
		    west_pot_smooth0_simd, west_pot_restrict_simd, west_pot_prolong_simd,
		    west_pot_matvec_simd, west_plume_advance_simd);
const struct west_kernel_ops west_kernels_cpu_ref =
	CPU_KERNELS(west_pot_rhs_cpu, west_pot_apply_cpu, west_pot_smooth_cpu,
		    west_pot_smooth0_cpu, west_pot_restrict_cpu, west_pot_prolong_cpu,
		    west_pot_matvec_cpu, west_plume_advance_cpu);

static enum west_status cpu_probe(char *err, size_t errlen)
{
	(void)err, (void)errlen;
	return WEST_OK;
}

/* WEST_CPU_KERNELS: unset or empty for the vectorized kernels (AVX-512
 * where the processor has it, else AVX2), "avx2" for AVX2 alone,
 * "reference" for the plain references alone (docs/operations.md). */
static enum west_status cpu_init(void **state, char *err, size_t errlen)
{
	const char *which = getenv("WEST_CPU_KERNELS");
	int ref = which && !strcmp(which, "reference"), avx2 = which && !strcmp(which, "avx2");
	struct cpu_state *s;

	if (which && which[0] && !ref && !avx2)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "cpu backend: WEST_CPU_KERNELS=%s: unknown (\"reference\", "
				 "\"avx2\", or unset)", which);
	if (!(s = calloc(1, sizeof *s)))
		return west_fail(err, errlen, WEST_ERR_NOMEM, "cpu backend: out of memory");
	s->ops = ref ? &west_kernels_cpu_ref : &west_kernels_cpu;
	s->avx2 = avx2;
	if (!ref)   /* the width is the process's: the last vectorized state's */
		west_pot_simd_width(avx2 ? 256 : 512);
	*state = s;
	return WEST_OK;
}

static void cpu_free(void *state)
{
	struct cpu_state *s = state;
	if (s) {
		west_levels_free(&s->levels);
		west_mg_free(&s->mg);
		west_parts_drop(&s->parts);
	}
	free(s);
}

/* config devices = cpu,cpu,...: the slabs built with the terrain (not
 * under mpirun, where every rank builds them at the first solve). */
static enum west_status cpu_plan(void *state, const struct west_solve_opts *o, char *err,
				 size_t errlen)
{
	struct cpu_state *s = state;
	(void)err, (void)errlen;
	s->popts = *o;
	if (west_ranks_count() > 1)
		s->popts.partitions = 1;
	return WEST_OK;
}

static enum west_status cpu_upload_terrain(void *state, const struct west_grid *g,
					   char *err, size_t errlen)
{
	struct cpu_state *s = state;
	struct west_levels l;
	enum west_status st = west_levels_init(&l, g, err, errlen);
	if (st)
		return st;
	west_levels_free(&s->levels);
	west_mg_free(&s->mg);
	west_parts_drop(&s->parts);
	s->levels = l;
	s->grid = g;
	if (s->popts.partitions > 1 &&
	    (st = west_parts_prepare(&s->parts, g, s->ops, &s->popts, err, errlen)))
		s->grid = NULL;
	return st;
}

/* The hierarchy for o, built when the solver needs one and there is none
 * for this eta. */
static enum west_status cpu_hierarchy(struct cpu_state *s, const struct west_solve_opts *o,
				      char *err, size_t errlen)
{
	if (o->solver == WEST_SOLVER_SOR || (s->mg.nlevels && s->mg.eta == o->eta))
		return WEST_OK;
	west_mg_free(&s->mg);
	return west_mg_build(&s->mg, s->grid, o->eta, err, errlen);
}

/* The solve in one piece, into f directly. */
static enum west_status run_one(struct cpu_state *s, const struct west_obs_set *obs,
				const struct west_solve_opts *o, const struct west_kstation *st,
				const float *stab, struct west_field *f, west_progress_fn progress,
				void *ctx, char *err, size_t errlen)
{
	const struct west_grid *g = s->grid;
	size_t ns = obs->n;
	float *prof = malloc(3 * ns * sizeof *prof);
	enum west_status rc;

	if (!prof)
		return west_fail(err, errlen, WEST_ERR_NOMEM, "cpu backend: out of memory");
	if (!(rc = cpu_hierarchy(s, o, err, errlen))) {
		struct west_work wk = {
			.ns = ns, .st = st, .stab = stab,
			.pexp = west_power_exponents(o->land_use),
			.pst = prof, .us = prof + ns, .vs = prof + 2 * ns,
			.cls = f->stability, .u = f->u, .v = f->v, .w = f->w,
			.mg = s->mg.nlevels ? &s->mg : NULL,
			.land_seconds = g->land_seconds,
			.transparency_seconds = g->transparency_seconds,
		};
		west_kgrid_init(&wk.kg, g, &s->levels);
		rc = west_model_solve(s->ops, &wk, g, o, west_obs_max_speed(obs), &f->report,
				      progress, ctx, err, errlen);
	}
	free(prof);
	return rc;
}

static enum west_status cpu_run(void *state, const struct west_obs_set *obs,
				const struct west_solve_opts *opts,
				struct west_field *f, west_progress_fn progress,
				void *ctx, char *err, size_t errlen)
{
	struct cpu_state *s = state;
	const struct west_grid *g = s->grid;
	size_t ns = obs->n;
	struct west_solve_opts o = *opts;
	struct west_kstation *st = malloc(ns * sizeof *st);
	float *stab = malloc(ns * sizeof *stab);
	enum west_status rc;

	if (!g || f->nx != g->nx || f->ny != g->ny || f->nz != g->nz)
		rc = west_fail(err, errlen, WEST_ERR_INVALID,
			       "cpu backend: no terrain uploaded, or the field is not of its grid");
	else if (!g->land && o.partitions < 2)
		rc = west_fail(err, errlen, WEST_ERR_INVALID,
			       "cpu backend: the grid holds its columns only (grid.h), so it "
			       "solves in slabs only");
	else if (ns == 0)
		rc = west_fail(err, errlen, WEST_ERR_INVALID, "cpu backend: no observations");
	else if (o.partitions > 1)
		rc = west_parts_solve(&s->parts, g, s->ops, obs, &o, f, progress, ctx, err,
				      errlen);
	else if (!st || !stab)
		rc = west_fail(err, errlen, WEST_ERR_NOMEM, "cpu backend: out of memory");
	else {
		o.eta = west_model_eta(opts, obs);
		west_model_stations(g, obs, o.land_use, st, stab);
		rc = run_one(s, obs, &o, st, stab, f, progress, ctx, err, errlen);
		f->valid_time = obs->valid_time;
		memcpy(f->power_exponent, west_power_exponents(o.land_use),
		       sizeof f->power_exponent);
	}
	free(st);
	free(stab);
	return rc;
}

static void cpu_describe(void *state, char *buf, size_t len)
{
	const struct cpu_state *s = state;
	int threads = 1;
#ifdef _OPENMP
	threads = omp_get_max_threads();
#endif
	snprintf(buf, len, "CPU, %d OpenMP thread%s%s", threads, threads == 1 ? "" : "s",
		 s && s->ops == &west_kernels_cpu_ref ? ", reference kernels" :
		 s && s->avx2 ? ", AVX2 kernels" : "");
}

static size_t cpu_device_bytes(void *state)
{
	(void)state;
	return 0;
}

const struct west_backend west_backend_cpu = {
	.name = "cpu",
	.probe = cpu_probe,
	.init = cpu_init,
	.free = cpu_free,
	.plan = cpu_plan,
	.upload_terrain = cpu_upload_terrain,
	.run = cpu_run,
	.describe = cpu_describe,
	.device_bytes = cpu_device_bytes,
	.kernels = &west_kernels_cpu,
	.host = &west_host_malloc,
};
