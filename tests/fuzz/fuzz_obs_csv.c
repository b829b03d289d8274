/*
 * fuzz_obs_csv.c: libFuzzer target for the WindNinja CSV observation
 * reader, west_obs_parse_csv (src/obs_csv.c), the text/csv body of POST
 * /v1/observations and NAME.csv in the spool.  Input: an options byte,
 * then the text (fuzz_obs.h).
 */
#include "fuzz_obs.h"

FUZZ_OBS_TARGET(west_obs_parse_csv)
