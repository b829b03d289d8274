/* api_releases.c: the release routes (being written). */
#include "api.h"
