/*
 * fuzz_dem_asc.c: libFuzzer target for the ESRI ASCII grid reader and its
 * .prj check, west_dem_load_asc (src/terrain_asc.c, src/terrain_wkt.c).
 *
 * The reader takes a path and looks for FILE.prj beside FILE.asc, so the
 * input is written to two files of a private directory: the bytes before
 * the first line "#prj#" go to dem.asc; when that line is there, the bytes
 * after it go to dem.prj, else there is no dem.prj.  NODATA is refused or
 * filled by the input's length (fuzz_dem.h); max_cells is 2^20.
 */
#include "fuzz_dem.h"

#define PRJ_SEP "\n#prj#\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char asc[4200], prj[4200], err[WEST_ERRLEN] = "";
	const uint8_t *rest;
	size_t n1, n2;
	struct west_dem dem;
	struct west_dem_opts opts = fuzz_dem_opts(size);
	enum west_status s;

	fuzz_init();
	int fd_mark = fuzz_fd_mark();
	fuzz_path("dem.asc", asc, sizeof asc);
	fuzz_path("dem.prj", prj, sizeof prj);
	if (fuzz_split(data, size, PRJ_SEP, &n1, &rest, &n2))
		fuzz_write(prj, rest, n2);
	else
		unlink(prj);
	fuzz_write(asc, data, n1);
	s = west_dem_load_asc(&dem, asc, &opts, err, sizeof err);
	fuzz_dem_check(s, &dem, err);
	west_dem_free(&dem);
	fuzz_fd_check(fd_mark);
	return 0;
}
