/*
 * fuzz_dem_gdal.c: libFuzzer target for terrain read through GDAL,
 * west_dem_load -> west_dem_load_gdal (src/terrain.c, src/terrain_gdal.c):
 * the checks of the geotransform, the CRS, the band's type, scale, offset
 * and vertical unit, the size limit, the choice between reading a raster
 * as it is and warping it to WGS 84 / UTM, the warp's output grid, the
 * NODATA rule, and the heights.  Built only when configure found GDAL
 * (--with-gdal); make fuzz says so when it skips it.
 *
 * Input: a TIFF (classic or BigTIFF, either byte order), written to
 * dem.tif in a fresh directory per input and loaded as the daemon loads
 * its terrain, by path.  Inputs without a TIFF magic number are skipped
 * (-1, kept out of the corpus): west_dem_load would hand them to the
 * ESRI ASCII or NetCDF readers, which fuzz_dem_asc and fuzz_dem_nc cover
 * (and NetCDF-4 in-process is not deterministic: see fuzz_dem_nc.c).
 *
 * Options, by the input's length (appending a byte to a TIFF changes
 * nothing else in it): bit 0 NODATA refused or filled (fuzz_dem.h); bit 1 terrain_epsg 32632 (UTM 32N: a
 * raster in 33N is then warped too) else 0 (the zone of the raster's
 * centre); bit 2 resolution 75 m else 0 (the raster's own pixel).
 *
 * max_cells is 2^16 here (2^20 in the other DEM targets), so that a header
 * naming a huge raster, or a warp to a huge grid, is refused before
 * anything of its size is allocated: warps of up to 2^20 cells, which the
 * mutations of a geographic seed often ask for, made this target 3.3 times
 * slower (129 against 430 executions a second, 40 s each from the seeds on
 * a 2-core Xeon) for no other code.  The tall warp of
 * corpus/dem_gdal/tall_warp_timeout.tif (3 x 118466 cells) is refused by
 * size now; test_terrain_gdal.c keeps its regression test.
 *
 * GDAL's drivers: only GTiff, and MEM and VRT, which westd's warp uses
 * (its output, and band 1 alone of a raster of several), are registered
 * (GDAL_SKIP lists every other driver before westd's GDALAllRegister
 * runs).  Every westd branch takes its input from what GDAL reports
 * (geotransform, GCPs, CRS, data type, NODATA, scale, offset, unit type,
 * size), and GeoTIFF expresses all of it; other drivers would fuzz GDAL
 * rather than westd, and some of them follow paths or URLs named in the
 * file (VRT, WMS, ...), which a fuzzer must not do: VRT is registered but
 * never opens an input, which starts with a TIFF magic number (VRT's is
 * "<VRTDataset").  The PROJ network is off: a CRS needing a grid file gets
 * the ballpark transformation.  GDAL and libtiff are not instrumented
 * (Debian's libgdal), so coverage comes from westd's code only, and
 * AddressSanitizer sees inside GDAL only what its interceptors see (malloc
 * and free, the string and memory functions); LeakSanitizer sees every
 * allocation.
 *
 * GDAL may write sidecar files (dem.tif.aux.xml) next to a raster; westd
 * opens it read-only and must not cause that: the directory must be empty
 * after dem.tif is removed, or the input aborts.
 */
#define FUZZ_DEM_MAX_CELLS (1ull << 16)
#include "fuzz_dem.h"

#include <cpl_conv.h>
#include <gdal.h>

/* Every driver but GTiff, MEM and VRT into GDAL_SKIP (comma-separated: some
 * names hold spaces, "ESRI Shapefile"). */
static void fuzz_gdal_drivers(void)
{
	static const char *const keep[] = { "GTiff", "MEM", "VRT" };
	size_t size = 1, len = 0;
	char *skip;

	GDALAllRegister();
	for (int i = 0; i < GDALGetDriverCount(); i++)
		size += strlen(GDALGetDriverShortName(GDALGetDriver(i))) + 1;
	skip = calloc(size, 1);
	if (!skip)
		abort();
	for (int i = 0; i < GDALGetDriverCount(); i++) {
		const char *name = GDALGetDriverShortName(GDALGetDriver(i));
		int kept = 0;
		for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++)
			kept |= strcmp(name, keep[k]) == 0;
		if (!kept)
			len += (size_t)snprintf(skip + len, size - len, "%s%s", len ? "," : "", name);
	}
	CPLSetConfigOption("GDAL_SKIP", skip);
	free(skip);
	GDALAllRegister();  /* drops them (AutoSkipDrivers), as westd's own call will */
	FUZZ_ASSERT(GDALGetDriverCount() == 3 && GDALGetDriverByName("GTiff") &&
		    GDALGetDriverByName("MEM") && GDALGetDriverByName("VRT"),
		    "%d GDAL drivers left", GDALGetDriverCount());
}

static int is_tiff(const uint8_t *m, size_t n)
{
	return n >= 4 && ((m[0] == 'I' && m[1] == 'I' && (m[2] == 42 || m[2] == 43) && m[3] == 0) ||
			  (m[0] == 'M' && m[1] == 'M' && m[2] == 0 && (m[3] == 42 || m[3] == 43)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	char dir[sizeof fuzz_dir + 16], path[sizeof dir + 16], err[WEST_ERRLEN] = "";
	struct west_dem dem;
	struct west_dem_opts opts = fuzz_dem_opts(size);
	enum west_status s;
	int fd_mark;

	fuzz_init();
	if (!ready) {
		setenv("PROJ_NETWORK", "OFF", 1);
		fuzz_gdal_drivers();
		ready = 1;
	}
	if (!is_tiff(data, size))
		return -1;
	opts.epsg = (size >> 1) & 1 ? 32632 : 0;
	opts.resolution = (size >> 2) & 1 ? 75.0 : 0.0;
	fd_mark = fuzz_fd_mark();
	snprintf(dir, sizeof dir, "%s/g.XXXXXX", fuzz_dir);
	FUZZ_ASSERT(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
	snprintf(path, sizeof path, "%s/dem.tif", dir);
	fuzz_write(path, data, size);

	s = west_dem_load(&dem, path, &opts, err, sizeof err);
	if (getenv("WEST_FUZZ_VERBOSE")) /* what each input gave, to check seeds */
		fprintf(stderr, "%zu bytes: %s: %zu x %zu%s%s\n", size, west_status_str(s),
			dem.nx, dem.ny, err[0] ? ": " : "", err);
	fuzz_dem_check(s, &dem, err);
	if (s == WEST_OK) /* a transverse Mercator on WGS 84 (the finite extent:
			   * fuzz_dem_check) */
		FUZZ_ASSERT(dem.crs.has_tm && dem.crs.wkt && dem.crs.wkt[0] &&
			    !strcmp(dem.crs.grid_mapping_name, "transverse_mercator"),
			    "has_tm %d, wkt %s", dem.crs.has_tm, dem.crs.wkt ? "set" : "NULL");
	west_dem_free(&dem);

	unlink(path);
	fuzz_rmdir_empty(dir, "a file was left");
	fuzz_fd_check(fd_mark);
	return 0;
}
