/*
 * status.c: status names, message formatting and the pre-allocation size
 * check shared by every loader (see status.h).
 */
#include "status.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

const char *west_status_str(enum west_status s)
{
	switch (s) {
	case WEST_OK: return "ok";
	case WEST_ERR_INVALID: return "invalid input";
	case WEST_ERR_IO: return "I/O error";
	case WEST_ERR_NOMEM: return "out of memory";
	case WEST_ERR_UNSUPPORTED: return "unsupported";
	case WEST_ERR_CUDA: return "CUDA error";
	case WEST_ERR_NETCDF: return "NetCDF error";
	}
	return "unknown status";
}

enum west_status west_fail(char *err, size_t errlen, enum west_status s,
			   const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return s;
}

static double phys_mem_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || page <= 0)
		return (double)SIZE_MAX;
	return (double)pages * (double)page;
}

enum west_status west_check_alloc(size_t count, size_t size, const char *what,
				  char *err, size_t errlen)
{
	double mem = phys_mem_bytes();
	if (size && count > SIZE_MAX / size)
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "%s: %zu items of %zu bytes overflow the address space",
				 what, count, size);
	if ((double)count * (double)size > mem)
		return west_fail(err, errlen, WEST_ERR_NOMEM,
				 "%s: needs %.1f GiB, more than the %.1f GiB of memory on this machine",
				 what, (double)count * (double)size / 1073741824.0,
				 mem / 1073741824.0);
	return WEST_OK;
}
