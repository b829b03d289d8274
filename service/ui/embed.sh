#!/bin/sh
# embed.sh FILE...: write to stdout the C source (ui_files.c) that holds
# each FILE's bytes as a west_ui_file (service/ui_files.h), named by its
# base name, with an ETag made of its POSIX cksum (CRC) and size.  Only
# POSIX tools (od, sed, cksum, wc), so any build machine can run it; the
# Makefile runs it on service/ui/* in the source directory.
set -eu
cat <<'HEAD'
/* ui_files.c: generated from service/ui/ by service/ui/embed.sh; do not edit. */
#include "ui_files.h"
HEAD
n=0
for f in "$@"; do
	printf '\nstatic const unsigned char file%d[] = {\n' "$n"
	od -An -v -tx1 "$f" |
		sed -e 's/[[:space:]]*$//' -e '/^$/d' -e 's/[[:space:]]*\([0-9a-f][0-9a-f]\)/0x\1,/g'
	printf '0x00\n};\n'
	n=$((n + 1))
done
printf '\nconst struct west_ui_file west_ui_files[] = {\n'
n=0
for f in "$@"; do
	sum=$(cksum <"$f" | sed 's/ .*//')
	size=$(wc -c <"$f" | tr -d ' ')
	printf '\t{ "%s", "\\"ui-%s-%s\\"", file%d, %s },\n' "${f##*/}" "$sum" "$size" "$n" "$size"
	n=$((n + 1))
done
printf '};\n\nconst size_t west_ui_nfiles = %d;\n' "$n"
