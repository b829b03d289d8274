/*
 * ui_files.h: the map page's files (service/ui/: index.html, app.js,
 * style.css, icon.svg), embedded in westd at build time so that the daemon
 * needs no data directory.  Makefile.am runs service/ui/embed.sh over them
 * into ui_files.c in the build directory (generated, never edited); each
 * file's bytes are followed by a NUL that len does not count.
 */
#ifndef WEST_UI_FILES_H
#define WEST_UI_FILES_H
#include <stddef.h>

struct west_ui_file {
	const char *name;            /* the file's name: "index.html", ... */
	const char *etag;            /* "\"ui-CRC-SIZE\"": POSIX cksum and bytes */
	const unsigned char *data;
	size_t len;                  /* bytes */
};

extern const struct west_ui_file west_ui_files[];
extern const size_t west_ui_nfiles;

#endif
