/*
 * nc_header.h: a check of a classic NetCDF file's header against the file,
 * made before libnetcdf opens it (nc_header.c).
 *
 * Why: libnetcdf reads a classic header (CDF-1, CDF-2, CDF-5) by
 * allocating what it declares (lists of dimensions, variables and
 * attributes, names, attribute values) before it knows whether the file
 * holds that much: a 53-byte file made nc_open allocate 2.7 GB.  A DEM is
 * read from any path the configuration names, so a header is checked
 * first, here, without allocating anything of the sizes it declares, and a
 * header that declares more than its file holds is refused.  Callers: the
 * DEM reader (terrain_nc.c, with max_cells) and the snapshot reader
 * (snapshot.c, `west info`, with no cell limit).
 *
 * NetCDF-4 files (HDF5) are not checked here: libhdf5 reads its own
 * structures, and a dataset's declared size says nothing about the file's
 * (compressed or never-written chunks are legal), so terrain_nc.c bounds
 * the raster by max_cells before allocating it (west_dem_check_size), and
 * that is all the protection there is for them.
 */
#ifndef WEST_NC_HEADER_H
#define WEST_NC_HEADER_H

#include <stddef.h>

#include "status.h"

/*
 * The classic header of the file at path, checked against the file's size
 * (the classic format specification, NetCDF-C's "File Format
 * Specifications": big-endian, names and values padded to 4 bytes, list
 * tags NC_DIMENSION 0x0A, NC_VARIABLE 0x0B, NC_ATTRIBUTE 0x0C, 64-bit
 * begin offsets in CDF-2 and CDF-5, 64-bit counts in CDF-5).  Refused
 * (WEST_ERR_INVALID, err "PATH: NetCDF header: ..."):
 *   - a header cut short, a list with the wrong tag, an unknown type, a
 *     name longer than NC_MAX_NAME (256) bytes, more than one record
 *     dimension, a dimension id out of range, the record dimension
 *     anywhere but first, numrecs STREAMING;
 *   - anything declared that would lie past the end of the file: each
 *     name, attribute value and list entry; each variable's data (its
 *     begin plus its size; a record variable's last record, numrecs
 *     records of the record size apart);
 *   - a variable of more values than max_cells (0: no limit), numrecs
 *     counted for a record variable.
 * A file that does not start with a classic magic number ("CDF" 1, 2 or
 * 5) is WEST_OK: there is nothing here to check.  WEST_ERR_IO when the
 * file cannot be opened or read.  Nothing of the declared sizes is
 * allocated: memory grows with the entries the file really holds.
 */
enum west_status west_nc_header_check(const char *path, unsigned long long max_cells,
				      char *err, size_t errlen);

#endif
