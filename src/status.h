/*
 * status.h: the one error vocabulary of libwest.
 *
 * Every fallible function returns an enum west_status and, on failure,
 * writes a one-line message into a caller's buffer (char *err, size_t
 * errlen; WEST_ERRLEN bytes is always enough).  The message names the
 * thing at fault (file:line, variable, key) and the problem; callers
 * prefix context, never rewrite it.  Nothing here aborts: abort() is kept
 * for programmer errors (assert).
 */
#ifndef WEST_STATUS_H
#define WEST_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WEST_ERRLEN 512

enum west_status {
	WEST_OK = 0,
	WEST_ERR_INVALID,     /* bad input: a file's content, a value, an argument */
	WEST_ERR_IO,          /* a file cannot be opened, read or written */
	WEST_ERR_NOMEM,       /* allocation failed, or would be too large */
	WEST_ERR_UNSUPPORTED, /* asked for something this build or machine lacks */
	WEST_ERR_CUDA,        /* a CUDA runtime call failed */
	WEST_ERR_NETCDF,      /* a NetCDF library call failed */
};

/* A short constant name for s ("invalid input", "I/O error", ...). */
const char *west_status_str(enum west_status s);

/* Format a message into err (when err is not NULL) and return s. */
enum west_status west_fail(char *err, size_t errlen, enum west_status s,
			   const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Refuse an allocation of `count` items of `size` bytes before it is made:
 * fails with WEST_ERR_NOMEM when count * size overflows or exceeds the
 * machine's physical memory.  `what` names the thing for the message.
 */
enum west_status west_check_alloc(size_t count, size_t size, const char *what,
				  char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
