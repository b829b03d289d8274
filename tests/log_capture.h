/*
 * log_capture.h: what the code under test logged, for tests that check a
 * warning or a notice.  log_capture() sends the log to a temp file;
 * log_text() stops the capture and returns the text (in log_buf);
 * log_release() stops it unread (a fixture's teardown).
 */
#ifndef WEST_TESTS_LOG_CAPTURE_H
#define WEST_TESTS_LOG_CAPTURE_H

#include <criterion/criterion.h>
#include <stdio.h>

#include "log.h"

static FILE *log_file;
static char log_buf[8192];

static inline void log_capture(void)
{
	log_file = tmpfile();
	cr_assert_not_null(log_file);
	west_log_set_journal(0);
	west_log_set_stream(log_file);
}

static inline void log_release(void)
{
	if (!log_file)
		return;
	west_log_set_stream(NULL);
	fclose(log_file);
	log_file = NULL;
}

static inline const char *log_text(void)
{
	size_t n;

	fflush(log_file);
	rewind(log_file);
	n = fread(log_buf, 1, sizeof log_buf - 1, log_file);
	log_buf[n] = '\0';
	log_release();
	return log_buf;
}

#endif
