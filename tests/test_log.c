/*
 * test_log.c: levelled logging (src/log.c).
 *
 * Output goes to an open_memstream buffer through west_log_set_stream;
 * west_log flushes after every line, so the buffer holds everything written
 * so far.  Criterion runs each test in its own process, so the global level,
 * form and stream start fresh in every test.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static char *buf;
static size_t len;
static FILE *mem;

static void setup(void)
{
	mem = open_memstream(&buf, &len);
	cr_assert_not_null(mem);
	west_log_init("test");
	west_log_set_journal(0);
	west_log_set_stream(mem);
}

static void teardown(void)
{
	west_log_set_stream(NULL);
	fclose(mem);
	free(buf);
}

TestSuite(log, .init = setup, .fini = teardown);

Test(log, default_level_is_info)
{
	cr_expect_eq(west_log_get_level(), WEST_LOG_INFO);
}

Test(log, level_filtering)
{
	west_log_set_level(WEST_LOG_INFO);
	cr_assert_eq(west_log_get_level(), WEST_LOG_INFO);
	west_log(WEST_LOG_DEBUG, "dropped %d", 1);
	cr_expect_eq(len, 0, "debug written at info level: '%s'", buf);
	west_log(WEST_LOG_INFO, "kept %d", 2);
	west_log(WEST_LOG_ERR, "kept %d", 3);
	cr_expect_str_eq(buf, "test: info: kept 2\ntest: error: kept 3\n");

	west_log_set_level(WEST_LOG_ERR);
	west_log(WEST_LOG_WARNING, "dropped");
	cr_expect_str_eq(buf, "test: info: kept 2\ntest: error: kept 3\n");
	west_log_set_level(WEST_LOG_DEBUG);
	west_log(WEST_LOG_DEBUG, "now kept");
	cr_expect(strstr(buf, "test: debug: now kept\n"), "got '%s'", buf);
}

Test(log, journal_form)
{
	west_log_set_journal(1);
	west_log(WEST_LOG_WARNING, "text");
	cr_expect_str_eq(buf, "<4>text\n");
	west_log(WEST_LOG_ERR, "disk %s", "full");
	cr_expect_str_eq(buf, "<4>text\n<3>disk full\n");
}

Test(log, plain_form)
{
	west_log(WEST_LOG_WARNING, "text");
	cr_expect_str_eq(buf, "test: warning: text\n");
}

Test(log, newlines_become_spaces)
{
	west_log(WEST_LOG_NOTICE, "a\nb\r\nc\n");
	cr_expect_str_eq(buf, "test: notice: a b  c \n");
}

Test(log, long_message_is_one_truncated_line)
{
	size_t n = 10000;
	char *msg = malloc(n + 1);

	memset(msg, 'x', n);
	msg[n] = '\0';
	msg[5000] = '\n';
	west_log(WEST_LOG_ERR, "%s", msg);
	west_log(WEST_LOG_ERR, "next");
	cr_assert_gt(len, 1000, "the long message was not written");
	cr_expect_lt(len, n, "the long message was not truncated");
	cr_expect_eq(strncmp(buf, "test: error: xxx", 16), 0, "got '%.40s'", buf);
	cr_expect_eq(strchr(buf, '\n'), buf + len - strlen("test: error: next\n") - 1,
		     "the first line does not end right before the second");
	cr_expect_str_eq(buf + len - strlen("test: error: next\n"),
			 "test: error: next\n");
	free(msg);
}

Test(log, level_names_round_trip)
{
	static const char *const names[] = { "error", "warning", "notice", "info", "debug" };

	for (int l = WEST_LOG_ERR; l <= WEST_LOG_DEBUG; l++) {
		enum west_log_level back = WEST_LOG_ERR;
		const char *name = west_log_level_name((enum west_log_level)l);
		cr_expect_str_eq(name, names[l - WEST_LOG_ERR]);
		cr_expect_eq(west_log_level_parse(name, &back), WEST_OK, "%s", name);
		cr_expect_eq((int)back, l, "%s parsed to %d", name, (int)back);
	}
}

Test(log, level_parse_rejects_unknown)
{
	enum west_log_level out = WEST_LOG_NOTICE;

	cr_expect_eq(west_log_level_parse("loud", &out), WEST_ERR_INVALID);
	cr_expect_eq(out, WEST_LOG_NOTICE, "a rejected name changed the output");
	cr_expect_eq(west_log_level_parse("", &out), WEST_ERR_INVALID);
	cr_expect_str_eq(west_log_level_name((enum west_log_level)9), "unknown");
}
