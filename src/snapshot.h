/*
 * snapshot.h: CF-1.10 NetCDF-4 snapshots of a solved field (docs/design.md
 * section 7), and the reader that `west info` and the tests use.
 *
 * File layout (dimensions time = 1, z = nz, y = ny, x = nx, station = n):
 *   time(time)              double, seconds since 1970-01-01T00:00:00Z (the
 *                           field's valid time), calendar standard
 *   z(z)                    ALTITUDE of the cell centres (m above the datum),
 *                           base + (zf[k] + zf[k+1]) / 2, standard_name
 *                           altitude, positive = "up", axis Z; attribute
 *                           base_altitude = the grid base (m)
 *   y(y), x(x)              projection_y/x_coordinate of cell centres (m):
 *                           y0 + (j + 0.5) dy, x0 + (i + 0.5) dx
 *   crs                     int scalar grid_mapping: grid_mapping_name, the
 *                           transverse_mercator parameters (with the WGS 84
 *                           semi_major_axis and inverse_flattening) when the
 *                           CRS has them, crs_wkt and spatial_ref when it has
 *                           a WKT.  Written only when the terrain's CRS has a
 *                           grid_mapping_name (CF requires one); the grid
 *                           variables then say grid_mapping = "crs".  A
 *                           WKT without a CF mapping name goes to the global
 *                           attribute west_crs_wkt instead.
 *   lat(y, x), lon(y, x)    double, degrees_north and degrees_east (WGS 84)
 *                           of the column centres, CF auxiliary
 *                           coordinates named by every (.., y, x)
 *                           variable's coordinates attribute; written when
 *                           the CRS is transverse Mercator
 *   x_wind, y_wind, upward_air_velocity (time, z, y, x) float, m s-1, at cell
 *                           centres (means of the winds on opposite open
 *                           faces, field.h), _FillValue =
 *                           NC_FILL_FLOAT (9.96921e36f) in land cells
 *   surface_altitude(y, x)  float, m
 *   land_mask(z, y, x)      byte, 1 = land (flag_values 0, 1: "air land")
 *   stability_class(y, x)   byte, 0..5 = Pasquill-Gifford A..F
 *   station_id(station) string, station_x, station_y (m, grid CRS),
 *   station_height (m above ground), station_wind_speed (m s-1),
 *   station_wind_from_direction (degree), station_time (int64, s since
 *   epoch), station_stability (byte 0..5): the observations used; the
 *   station dimension and these variables are left out for an empty set.
 * Global attributes: Conventions = "CF-1.10", title, institution, source,
 * history, and the solver diagnostics (struct west_report) as west_*
 * attributes: west_backend, west_solver, west_indexing (text), west_omega,
 * west_eta, west_tolerance, west_h, west_u_ref, west_total_seconds,
 * west_{start,end,final}_{max_div,rel_max,rel_l2}, west_seconds_<step key>
 * (double), west_iterations_max, west_iterations (int64), west_converged
 * (int).
 *
 * Storage (west_snapshot_opts_default; chosen by measurement, issue 17,
 * docs/benchmarks.md "Snapshots"): the three winds and lat, lon are
 * contiguous and not compressed, full float and double precision (no
 * quantization): what a write spends its time on is deflate, and these
 * are nearly all of the bytes.  Every other variable with dimensions is
 * deflated (level 1, shuffle), except station_id (NetCDF-4 cannot filter
 * strings); land_mask is chunked by whole columns (16 x 16 of them).
 * Before issue 17 (west_snapshot_opts_v1) the winds and lat, lon were
 * deflated too and the winds chunked like land_mask: at R64 a file of
 * 92 MB against 165 MB, written in 2.3 s against 0.43 s.
 *
 * Writing is atomic: a temp file ".<name>.tmp.XXXXXX" in the target's
 * directory (created exclusively, mode 0666 less the umask), fsync,
 * rename, fsync of the directory.  On any failure the temp file is removed
 * and the file already under the final name (if any) is untouched.  The
 * file is built in memory first (snapshot.c says why), so netCDF-C opens
 * snapshots read-only: they are products, not for editing in place.  obs
 * may be NULL (no stations).  NetCDF-C is not thread-safe: these hold the
 * process's NetCDF lock (west_netcdf_lock) while they call it.
 */
#ifndef WEST_SNAPSHOT_H
#define WEST_SNAPSHOT_H

#include <stddef.h>

#include "field.h"
#include "grid.h"
#include "obs.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write with west_snapshot_opts_default. */
enum west_status west_snapshot_write(const char *path, const struct west_grid *g,
				     const struct west_field *f,
				     const struct west_obs_set *obs,
				     char *err, size_t errlen);

/*
 * How the big variables are stored, for the benchmark (snapshot-bench)
 * and the tests: the winds by all of these, lat and lon by deflate and
 * shuffle (contiguous when not deflated).  The rest of the file is the
 * same whatever the options.
 */
enum west_snapshot_layout {
	WEST_SNAPSHOT_COLUMNS,      /* chunks of chunk_xy x chunk_xy whole columns */
	WEST_SNAPSHOT_PLANES,       /* chunks of one whole level plane */
	WEST_SNAPSHOT_CONTIGUOUS,   /* not chunked, so not deflated */
};

struct west_snapshot_opts {
	int deflate;       /* zlib level 1 to 9; 0: not compressed */
	int shuffle;       /* 1: the shuffle filter before deflate */
	enum west_snapshot_layout layout;
	size_t chunk_xy;   /* WEST_SNAPSHOT_COLUMNS: columns along a chunk's edge */
	int quantize;      /* 0, or NC_QUANTIZE_BITGROOM, _GRANULARBR, _BITROUND */
	int nsd;           /* its significant digits (BITROUND: bits), netcdf.h */
	size_t block_bytes;   /* WEST_SNAPSHOT_CONTIGUOUS: bytes of winds handed to
			       * NetCDF at once, rows of one level (at least a row;
			       * 0: 4 MB, snapshot.c) */
};
/* Contiguous, no deflate, no quantization (what snapshots are). */
extern const struct west_snapshot_opts west_snapshot_opts_default;
/* Before issue 17: deflate 1, shuffle, chunks of 16 x 16 whole columns. */
extern const struct west_snapshot_opts west_snapshot_opts_v1;

/* Seconds spent in each phase of one write (snapshot-bench prints them):
 * define (nc_create_mem, dimensions, variables, attributes), coords (x,
 * y, z, time, lat, lon), centres (the winds at the cell centres from the
 * faces), winds (nc_put_var of the winds: chunking, filters, the copy into
 * the image), other (the remaining variables), close (nc_close_memio),
 * file (west_file_replace: write, fsync, rename), total. */
struct west_snapshot_times {
	double define, coords, centres, winds, other, close, file, total;
};

/* west_snapshot_write with the storage of o; times, when not NULL, gets
 * the phases.  Refuses (WEST_ERR_INVALID) a contiguous layout with deflate
 * and columns of 0. */
enum west_status west_snapshot_write_opts(const char *path, const struct west_grid *g,
					  const struct west_field *f,
					  const struct west_obs_set *obs,
					  const struct west_snapshot_opts *o,
					  struct west_snapshot_times *times,
					  char *err, size_t errlen);

/* The writers keep lat and lon of the last transverse Mercator grid
 * written (snapshot.c says why); this frees them, and the next snapshot
 * computes them again.  Any thread. */
void west_snapshot_forget(void);

/*
 * The process's one NetCDF lock: netCDF-C (4.9) is not thread-safe, and
 * every use of it in libwest (the snapshot writer and reader, the NetCDF
 * terrain reader, a release's NetCDF, plume_nc.h) holds this lock for
 * its calls, so that the daemon's threads may each write or read one.
 */
void west_netcdf_lock(void);
void west_netcdf_unlock(void);

/*
 * The grid's CRS in the NetCDF file ncid (define mode), as snapshots and
 * a release's NetCDF write it (snapshot.c's opening comment): the CF grid
 * mapping variable "crs" (grid_mapping_name; the transverse Mercator
 * parameters on WGS 84 when has_tm; crs_wkt and spatial_ref when there is
 * a WKT), or, without a grid mapping name, the WKT alone as the global
 * attribute west_crs_wkt.  *varid: the variable, -1 when none.  Returns
 * NC_NOERR or the failing call's status, *what naming what it wrote.
 */
int west_nc_def_crs(int ncid, const struct west_crs *c, int *varid, const char **what);

/* The length of an in-memory NetCDF-4 image (nc_close_memio's buffer of
 * size bytes): its HDF5 end of file, which the buffer may run past. */
size_t west_netcdf_image_length(const void *memory, size_t size);

/* What a snapshot holds, read back whole. */
struct west_snapshot {
	size_t nx, ny, nz;
	double *x, *y;                /* cell centres in the grid CRS (m) */
	double *z;                    /* cell-centre altitudes (m above datum) */
	double base_altitude;         /* grid base altitude (m) */
	float *u, *v, *w;             /* nz*ny*nx cell centres, NaN in land */
	float *terrain;               /* ny*nx */
	unsigned char *land;          /* nz*ny*nx */
	unsigned char *stability;     /* ny*nx */
	long long time;               /* s since epoch */
	char conventions[32];
	char grid_mapping[64];        /* grid_mapping_name, "" when none */
	struct west_obs_set obs;      /* id, x, y, height, speed, direction,
					 time, stability (inv_L, z0 NaN); n = 0
					 and obs NULL when there were none */
	struct west_report report;
};

/*
 * Read a snapshot whole.  Refuses (WEST_ERR_INVALID, naming it) a file
 * without one of the variables above or a west_* attribute; on error s is
 * zeroed.  west_snapshot_free frees what a read filled and zeroes s.
 */
enum west_status west_snapshot_read(const char *path, struct west_snapshot *s,
				    char *err, size_t errlen);
void west_snapshot_free(struct west_snapshot *s);

#ifdef __cplusplus
}
#endif

#endif
