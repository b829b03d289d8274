/*
 * log.h: levelled logging to stderr in a form journald understands.
 *
 * Each call writes exactly one line.  Under systemd (stderr connected to the
 * journal, detected from $JOURNAL_STREAM) the line starts with the syslog
 * priority prefix "<N>" (sd-daemon(3)); on a terminal or a pipe it reads
 * "IDENT: LEVEL: message".  Newlines inside a message become spaces so one
 * call is one journal entry.  Messages above the current level are dropped.
 * Safe to call from several threads: a line is written under the stream's
 * lock.
 */
#ifndef WEST_LOG_H
#define WEST_LOG_H

#include <stdio.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The values are the syslog priorities journald expects in "<N>". */
enum west_log_level {
	WEST_LOG_ERR = 3,
	WEST_LOG_WARNING = 4,
	WEST_LOG_NOTICE = 5,
	WEST_LOG_INFO = 6,
	WEST_LOG_DEBUG = 7,
};

/*
 * Set the program name and pick the output form: journal prefixes when
 * $JOURNAL_STREAM names the device and inode of stderr, plain otherwise.
 */
void west_log_init(const char *ident);

void west_log_set_level(enum west_log_level max);
enum west_log_level west_log_get_level(void);

/* Redirect output (tests) and force the form; NULL restores stderr. */
void west_log_set_stream(FILE *f);
void west_log_set_journal(int on);

void west_log(enum west_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "error", "warning", "notice", "info", "debug" (parse ignores case). */
const char *west_log_level_name(enum west_log_level level);
enum west_status west_log_level_parse(const char *name, enum west_log_level *out);

#ifdef __cplusplus
}
#endif

#endif
