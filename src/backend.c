/*
 * backend.c: the registry of built backends and the start-up choice among
 * them (see backend.h).
 */
#include "backend.h"

#include <string.h>

#include "log.h"
#include "ranks.h"

static const struct west_backend *const registry[] = {
	&west_backend_cpu,
#ifdef WEST_HAVE_CUDA
	&west_backend_cuda,
#endif
};

const struct west_backend *west_backend_find(const char *name)
{
	for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

enum west_status west_backend_probe(const char *name, char *err, size_t errlen)
{
	const struct west_backend *be = west_backend_find(name);
	if (!be)
		return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
				 "this build has no %s backend (configured --with-cuda=no or without nvcc)",
				 name);
	return be->probe(err, errlen);
}

enum west_status west_backend_select(enum west_backend_choice choice,
				     const struct west_backend **out,
				     char *note, size_t notelen,
				     char *err, size_t errlen)
{
	char why[WEST_ERRLEN];

	west_fail(note, notelen, WEST_OK, "backend %s requested",
		  choice == WEST_BACKEND_AUTO ? "auto" :
		  choice == WEST_BACKEND_CUDA ? "cuda" : "cpu");
	*out = &west_backend_cpu;
	if (choice == WEST_BACKEND_CPU)
		return WEST_OK;
	if (west_backend_probe("cuda", why, sizeof why) == WEST_OK) {
		*out = west_backend_find("cuda");
		if (choice == WEST_BACKEND_AUTO)
			west_fail(note, notelen, WEST_OK, "backend auto chose cuda");
		return WEST_OK;
	}
	if (choice == WEST_BACKEND_CUDA)
		return west_fail(err, errlen, WEST_ERR_UNSUPPORTED,
				 "backend cuda: %s", why);
	west_fail(note, notelen, WEST_OK, "backend auto chose cpu: %s", why);
	west_log(WEST_LOG_NOTICE, "%s", note);
	return WEST_OK;
}

enum west_status west_backend_choice_of(const struct west_config *c,
					enum west_backend_choice *out, char *err,
					size_t errlen)
{
	static const char *const names[] = { "auto", "cpu", "cuda" };
	struct west_devices d;
	enum west_backend_choice want;
	char why[WEST_ERRLEN];

	*out = (enum west_backend_choice)c->backend;
	if (west_devices_parse(c->devices, &d, why, sizeof why))
		return west_fail(err, errlen, WEST_ERR_INVALID, "devices: %s", why);
	/* under mpirun every rank takes the one backend asked for (auto: the
	 * CPU, which every host has); with cuda each rank a GPU of its host
	 * (backend_cuda.c) */
	if (west_ranks_count() > 1 && *out == WEST_BACKEND_AUTO)
		*out = WEST_BACKEND_CPU;
	if (!d.n || west_ranks_count() > 1)   /* under mpirun: a slab per rank */
		return WEST_OK;
	want = d.cuda ? WEST_BACKEND_CUDA : WEST_BACKEND_CPU;
	if (*out != WEST_BACKEND_AUTO && *out != want)
		return west_fail(err, errlen, WEST_ERR_INVALID,
				 "backend = %s and devices = %s disagree (set backend = auto, "
				 "or leave devices = auto)", names[*out], c->devices);
	*out = want;
	return WEST_OK;
}

enum west_status west_backend_plan(const struct west_backend *be, void *state,
				   const struct west_config *c, char *err, size_t errlen)
{
	struct west_solve_opts o;
	char why[WEST_ERRLEN];

	if (!be->plan)
		return WEST_OK;
	west_solve_opts_from_config(&o, c);
	if (be->plan(state, &o, why, sizeof why))
		return west_fail(err, errlen, WEST_ERR_INVALID, "devices = %s: %s", c->devices,
				 why);
	return WEST_OK;
}
