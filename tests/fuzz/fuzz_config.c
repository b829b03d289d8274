/*
 * fuzz_config.c: libFuzzer target for the configuration parser
 * (src/config.c): a config file through west_config_load and `--set
 * KEY=VALUE` assignments through west_config_set, as westd and west read
 * them, then west_config_check_reload (a reload from the defaults) and
 * west_config_write (what --print-config and the tests write).
 *
 * Input: the file's bytes up to the first line "#set#" (written to
 * westd.conf in a private directory: the parser reads a path); each line
 * after it is one --set assignment, applied in order on top of the file.
 * A failed load or assignment must leave the config as it was.
 */
#include "fuzz_common.h"

#define SET_SEP "\n#set#\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* west_config_write into memory; the text is dropped. */
static void write_config(const struct west_config *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		abort();
	west_config_write(f, c);
	fclose(f);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct west_config defaults, c, before;
	char path[4200], err[WEST_ERRLEN];
	const uint8_t *rest;
	size_t n1, n2;
	int has_sets;

	static int ready;

	fuzz_init();
	int fd_mark = fuzz_fd_mark();
	if (!ready) {
		west_config_defaults(&defaults);
		ready = 1;
	}
	c = defaults;
	fuzz_path("westd.conf", path, sizeof path);
	has_sets = fuzz_split(data, size, SET_SEP, &n1, &rest, &n2);
	fuzz_write(path, data, n1);
	before = c;
	err[0] = '\0';
	if (west_config_load(&c, path, err, sizeof err) != WEST_OK) {
		FUZZ_ASSERT(memcmp(&c, &before, sizeof c) == 0, "a failed load changed the "
			    "config (%s)", err);
		FUZZ_ASSERT(err[0], "a failed load without a message");
	}
	while (has_sets) {
		const uint8_t *nl = memchr(rest, '\n', n2);
		size_t len = nl ? (size_t)(nl - rest) : n2;
		char *line = fuzz_strndup(rest, len);
		before = c;
		err[0] = '\0';
		if (west_config_set(&c, line, "--set", err, sizeof err) != WEST_OK) {
			FUZZ_ASSERT(memcmp(&c, &before, sizeof c) == 0, "a failed --set "
				    "changed the config (%s)", err);
			FUZZ_ASSERT(err[0], "a failed --set without a message");
		}
		free(line);
		if (!nl)
			break;
		rest = nl + 1, n2 -= len + 1;
	}
	(void)west_config_check_reload(&defaults, &c, err, sizeof err);
	write_config(&c);
	fuzz_fd_check(fd_mark);
	return 0;
}
