/*
 * log.c: see log.h.  Global state is three words set at start-up (ident,
 * level, form) and read by every thread (the level atomically, since a
 * reload changes it); a line is formatted into a local
 * buffer and written with one locked fputs so lines never interleave.
 */
#include "log.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const char *log_ident = "westd";
static enum west_log_level log_level = WEST_LOG_INFO;
static FILE *log_stream;
static int log_journal;

static const char *const level_names[] = {
	[WEST_LOG_ERR] = "error", [WEST_LOG_WARNING] = "warning",
	[WEST_LOG_NOTICE] = "notice", [WEST_LOG_INFO] = "info",
	[WEST_LOG_DEBUG] = "debug",
};

/* $JOURNAL_STREAM is "DEV:INODE" of the journal socket systemd gave us. */
static int stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2)
		return 0;
	if (fstat(2, &st) != 0)
		return 0;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void west_log_init(const char *ident)
{
	if (ident)
		log_ident = ident;
	log_journal = stderr_is_journal();
}

/* The level may change on reload while other threads log: atomic access. */
void west_log_set_level(enum west_log_level max)
{
	__atomic_store_n(&log_level, max, __ATOMIC_RELAXED);
}

enum west_log_level west_log_get_level(void)
{
	return __atomic_load_n(&log_level, __ATOMIC_RELAXED);
}
void west_log_set_stream(FILE *f) { log_stream = f; }
void west_log_set_journal(int on) { log_journal = on; }

const char *west_log_level_name(enum west_log_level level)
{
	if (level < WEST_LOG_ERR || level > WEST_LOG_DEBUG)
		return "unknown";
	return level_names[level];
}

enum west_status west_log_level_parse(const char *name, enum west_log_level *out)
{
	for (int l = WEST_LOG_ERR; l <= WEST_LOG_DEBUG; l++) {
		if (strcasecmp(name, level_names[l]) == 0) {
			*out = (enum west_log_level)l;
			return WEST_OK;
		}
	}
	return WEST_ERR_INVALID;
}

void west_log(enum west_log_level level, const char *fmt, ...)
{
	char line[2048];
	int n;
	va_list ap;

	if (level > west_log_get_level())
		return;
	if (log_journal)
		n = snprintf(line, sizeof line, "<%d>", (int)level);
	else
		n = snprintf(line, sizeof line, "%.64s: %s: ", log_ident,
			     west_log_level_name(level));
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	for (char *p = line + n; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	strcat(line, "\n");

	FILE *f = log_stream ? log_stream : stderr;
	flockfile(f);
	fputs(line, f);
	fflush(f);
	funlockfile(f);
}
