/*
 * model_internal.h: what the model driver (model.c) and its step 8
 * solvers (solvers.c) share: the state of one solve, and the solvers'
 * entry points.  Not for use outside src/.
 */
#ifndef WEST_MODEL_INTERNAL_H
#define WEST_MODEL_INTERNAL_H

#include "model.h"
#include "parts.h"

/* The multigrid smoother's over-relaxation (solvers.c says why 1.15). */
#define WEST_MG_OMEGA 1.15

/* One solve in progress, over a set of partitions (parts.h; one for the
 * one-device solve). */
struct run {
	struct west_parts *ps;
	struct west_report *r;
	west_progress_fn progress;
	void *ctx;
	double t0, l2_start;          /* step start; ||D|| at the start */
	int step;                     /* the step running */
};

/* Step 8 with o's solver, from the field in x->wk to the convergence test
 * or the iteration limit; the report's start, end, iterations and
 * converged are set. */
enum west_status west_minimize(struct run *x, const struct west_solve_opts *o);

/* Both convergence measures of the current field into c. */
enum west_status west_measure(struct run *x, struct west_convergence *c);

#endif
