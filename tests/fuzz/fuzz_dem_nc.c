/*
 * fuzz_dem_nc.c: libFuzzer target for the CF NetCDF raster reader,
 * west_dem_load_netcdf (src/terrain_nc.c), on classic files (CDF-1, 2,
 * 5), with the header guard that runs before nc_open (src/nc_header.c).
 *
 * The reader takes a path (libnetcdf opens it), so the input is written
 * to dem.nc in a private directory each time: the library and its file
 * handling are the daemon's.  NODATA is refused or filled by the input's
 * length (fuzz_dem.h); max_cells is 2^20.  libFuzzer's -malloc_limit_mb
 * (default: -rss_limit_mb, 2048) reports any single allocation above it as
 * a crash: the guard exists so that a small header cannot make libnetcdf
 * allocate gigabytes.
 *
 * Only inputs that start with a classic magic number are read (others are
 * refused with -1, kept out of the corpus).  NetCDF-4 (HDF5) files are left
 * out because in-process fuzzing of them is not deterministic: when
 * nc_open fails on a malformed HDF5 file, libnetcdf 4.9.0 / libhdf5 1.10.8 (Debian 12)
 * keep the file open (a descriptor leaks), and the next nc_open of the
 * same path is served from that stale open file.  That is the libraries'
 * defect; past nc_open our reader runs the same code on both formats.
 */
#include "fuzz_dem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4200], err[WEST_ERRLEN] = "";
	struct west_dem dem;
	struct west_dem_opts opts = fuzz_dem_opts(size);
	enum west_status s;

	fuzz_init();
	if (size < 4 || memcmp(data, "CDF", 3) || (data[3] != 1 && data[3] != 2 && data[3] != 5))
		return -1;
	int fd_mark = fuzz_fd_mark();
	fuzz_path("dem.nc", path, sizeof path);
	fuzz_write(path, data, size);
	s = west_dem_load_netcdf(&dem, path, &opts, err, sizeof err);
	fuzz_dem_check(s, &dem, err);
	west_dem_free(&dem);
	fuzz_fd_check(fd_mark);
	return 0;
}
