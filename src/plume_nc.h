/*
 * plume_nc.h: a release plume's outputs (plume.h) as a CF-1.10 NetCDF-4
 * file, built in memory (the API sends it; docs/api.md "Releases").
 *
 * Layout (dimensions y = ny, x = nx: the grid's columns):
 *   y(y), x(x)            projection_y/x_coordinate of the column centres
 *                         (m), as in snapshots (snapshot.h)
 *   crs                   the grid mapping, as in snapshots: written when
 *                         the CRS has a grid_mapping_name (transverse
 *                         Mercator parameters, crs_wkt), the variables
 *                         below then say grid_mapping = "crs"
 *   lat(y, x), lon(y, x)  degrees_north, degrees_east (WGS 84) of the
 *                         column centres, when the CRS is transverse
 *                         Mercator; named by the coordinates attributes
 *   concentration(y, x)   float, "s m-3": the time-integrated concentration
 *                         in the layer from the ground to `layer` m above
 *                         it, per unit mass released
 *   arrival_time(y, x)    float, "s": the time after the release's start
 *                         of the first particle in that layer over the
 *                         column; _FillValue (NC_FILL_FLOAT) where none
 *                         came
 * Global attributes: Conventions, title, institution, source, history,
 * and the release: release_id, release_x, release_y (m), release_lon,
 * release_lat (degrees; when known), release_height (m above ground),
 * release_duration (s), release_simulated_seconds, release_particles,
 * release_seed, release_start (RFC 3339), release_layer (m),
 * release_field_version, release_particles_outside.
 */
#ifndef WEST_PLUME_NC_H
#define WEST_PLUME_NC_H

#include <stddef.h>

#include "grid.h"
#include "plume.h"
#include "status.h"

/* What the file says of the release beside the result. */
struct west_plume_nc_meta {
	unsigned long long id, field_version;
	const struct west_release *r;
	double lon, lat;          /* NaN: not known (no transverse Mercator) */
};

/*
 * The file of result res (on grid g's columns) into *buf (malloc'd,
 * *len bytes; free it).  Holds the process's NetCDF lock (snapshot.h)
 * while it calls netCDF.  WEST_ERR_INVALID when res is not on g's
 * columns; WEST_ERR_NETCDF naming the call and variable; WEST_ERR_NOMEM.
 */
enum west_status west_plume_nc_image(const struct west_grid *g,
				     const struct west_plume_result *res,
				     const struct west_plume_nc_meta *m,
				     void **buf, size_t *len, char *err, size_t errlen);

#endif
