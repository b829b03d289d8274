/*
 * backend.h: where the model computes (docs/design.md section 4).
 *
 * A backend is a constant table of function pointers.  The CPU backend is
 * always built and is the reference; the CUDA backend is built with
 * --with-cuda and registered beside it.  The chosen backend is set up once:
 * init, then upload_terrain at start and on every terrain reload (the
 * terrain, land mask and transparencies stay resident until the next
 * upload), then `run` once per observation set, then free.
 * A backend's state belongs to one thread at a time (the compute worker).
 */
#ifndef WEST_BACKEND_H
#define WEST_BACKEND_H

#include <stddef.h>

#include "config.h"
#include "field.h"
#include "fieldpool.h"
#include "grid.h"
#include "model.h"
#include "obs.h"
#include "status.h"

/* Which backend computes (config backend). */
enum west_backend_choice { WEST_BACKEND_AUTO, WEST_BACKEND_CPU, WEST_BACKEND_CUDA };

struct west_backend {
	const char *name;
	/* WEST_OK when this backend can compute on this machine; else why. */
	enum west_status (*probe)(char *err, size_t errlen);
	enum west_status (*init)(void **state, char *err, size_t errlen);
	void (*free)(void *state);
	/*
	 * Solves of this state will be cut as o says (o->partitions slabs on
	 * o->device: config devices; on CUDA, o->devices_auto: a slab on each
	 * GPU seen when there are two or more), from the next upload_terrain
	 * on, which builds the slabs then (west_parts_prepare; a grid too
	 * small for listed slabs is refused there, one too small for auto's
	 * stays whole), so that the first field costs what a steady one does
	 * and the backend may leave out what only a one-device solve uses
	 * (CUDA: the whole grid's arrays on its device, then made by the
	 * first one-device solve if one comes), after checking that the
	 * devices exist (else the error names them).  Optional (a state
	 * solves either way).  westd and west run call it through
	 * west_backend_plan.
	 */
	enum west_status (*plan)(void *state, const struct west_solve_opts *o, char *err,
				 size_t errlen);
	/* Make g's terrain, land mask and transparencies resident. */
	enum west_status (*upload_terrain)(void *state, const struct west_grid *g,
					   char *err, size_t errlen);
	/*
	 * Solve the WEST model for obs on the uploaded terrain into out (made
	 * by west_field_init for that grid): stability, faces, valid time and
	 * report.
	 */
	enum west_status (*run)(void *state, const struct west_obs_set *obs,
				const struct west_solve_opts *o,
				struct west_field *out, west_progress_fn progress,
				void *ctx, char *err, size_t errlen);
	/* One line naming the processor this state computes on. */
	void (*describe)(void *state, char *buf, size_t len);
	/* Bytes this state holds in device memory (0 for the CPU). */
	size_t (*device_bytes)(void *state);
	/* Its kernels and memory operations (model.h), for callers that run
	 * kernels themselves: tests/test_backends.c. */
	const struct west_kernel_ops *kernels;
	/* Host memory for the fields it solves into (fieldpool.h): page-locked
	 * on CUDA, which run() then copies the field straight into. */
	const struct west_host_alloc *host;
};

extern const struct west_backend west_backend_cpu;
#ifdef WEST_HAVE_CUDA
extern const struct west_backend west_backend_cuda;
#endif

/* The backend of that name, or NULL when unknown or not built. */
const struct west_backend *west_backend_find(const char *name);

/* WEST_OK when backend `name` is built and usable here; else why not. */
enum west_status west_backend_probe(const char *name, char *err, size_t errlen);

/*
 * Pick the backend for `choice`.  auto takes CUDA when it probes well and
 * otherwise the CPU, logging why and writing the reason into note (for
 * /v1/status).  cpu always succeeds; cuda fails with WEST_ERR_UNSUPPORTED
 * and the reason when it is not built or not usable here.
 */
/* The backend config c asks for: its devices list's when that is not auto
 * (cpu partitions: the CPU backend; cuda:N: CUDA), else its backend key;
 * the two must agree when both are set.  Under mpirun (ranks.h) devices
 * is not used, and auto is the CPU. */
enum west_status west_backend_choice_of(const struct west_config *c,
					enum west_backend_choice *out, char *err,
					size_t errlen);

/* be's plan (when it has one) for the solves config c asks for, before
 * the terrain goes up: fails, naming the devices list, when a device it
 * lists does not exist. */
enum west_status west_backend_plan(const struct west_backend *be, void *state,
				   const struct west_config *c, char *err, size_t errlen);

enum west_status west_backend_select(enum west_backend_choice choice,
				     const struct west_backend **out,
				     char *note, size_t notelen,
				     char *err, size_t errlen);

#endif
