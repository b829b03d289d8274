/*
 * fuzz_obs_json.c: libFuzzer target for the JSON observation reader,
 * west_obs_parse_json (src/obs_json.c), the body of POST /v1/observations
 * and of NAME.json in the spool.  Input: an options byte, then the
 * document (fuzz_obs.h).
 */
#include "fuzz_obs.h"

FUZZ_OBS_TARGET(west_obs_parse_json)
