/*
 * obs_internal.h: what the observation readers (obs_json.c, obs_csv.c)
 * share with obs.c: field checks, set allocation, placement on the grid,
 * duplicate ids.  Not part of libwest's interface.
 */
#ifndef WEST_OBS_INTERNAL_H
#define WEST_OBS_INTERNAL_H

#include "obs.h"

/*
 * For the readers (obs_json.c, obs_csv.c).  `rec` labels the record in
 * messages (station 2 (id "T1"), line 3 (station "T1")), `what`
 * the field or fields.  Range checks return NULL when v is acceptable, else
 * the problem, e.g. "must be in [0, 100] m/s".
 */
const char *west_obs_check_id(const char *id, size_t n);
const char *west_obs_check_height(double v);
const char *west_obs_check_speed(double v);
const char *west_obs_check_direction(double v);
const char *west_obs_check_z0(double v);

/* Empty set ("no observations") or more than o->max_stations (0: no limit). */
enum west_status west_obs_check_count(size_t n, const struct west_obs_opts *o,
				      char *err, size_t errlen);

/* set->obs as n zeroed records (inv_L and z0 NaN), set->n = n. */
enum west_status west_obs_set_alloc(struct west_obs_set *set, size_t n,
				    char *err, size_t errlen);

/* Check ob->x, ob->y against the grid extent (allow_outside: mark it). */
enum west_status west_obs_place(const struct west_obs_opts *o, struct west_obs *ob,
				const char *rec, const char *what,
				char *err, size_t errlen);

/* Project lon/lat (degrees) with the grid's TM into ob, then place it. */
enum west_status west_obs_project(const struct west_obs_opts *o, double lon,
				  double lat, struct west_obs *ob, const char *rec,
				  const char *what, char *err, size_t errlen);

/*
 * Two records with one id: 1 and their indices (first < second, second the
 * smallest such), 0 when ids are unique, -1 when out of memory.
 */
int west_obs_find_duplicate(const struct west_obs_set *set, size_t *first,
			    size_t *second);

/* valid_time = the latest time; log each station accepted off the grid. */
void west_obs_set_finish(struct west_obs_set *set);

/* A printable copy of s for messages (non-printing bytes as ?), cut at 40
 * characters. */
const char *west_obs_show(const char *s, char *buf, size_t size);

#endif
