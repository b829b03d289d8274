#!/bin/sh
# plume_gaussian.sh BUILD_DIR [PARTICLES] [--cuda | --reference]: release plumes against
# the Gaussian plume with the Briggs rural curves, each stability class
# (tests/validation/plume_gaussian.c; docs/validation.md, "Release
# plumes").  Compiles the program against BUILD_DIR's libwest.a into a
# temporary directory and prints the table.  Not part of make check.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build/cpu}" && pwd)
shift $(($# > 0 ? 1 : 0))
[ -f "$build/libwest.a" ] || { echo "plume_gaussian.sh: no $build/libwest.a (run make there)" >&2; exit 2; }
mkvar() { sed -n "s/^$1 = //p" "$build/Makefile" | head -n 1; }
src=$(cd "$(mkvar abs_top_srcdir)" && pwd)
cc=$(mkvar CC)
libs="$(mkvar NETCDF_LIBS) $(mkvar JANSSON_LIBS) $(mkvar GDAL_LIBS) $(mkvar CUDA_LIBS) $(mkvar MPI_LIBS) $(mkvar OPENMP_CFLAGS)"
cuda=
mkvar DEFS | grep -q WEST_HAVE_CUDA && cuda=-DWEST_HAVE_CUDA
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plume_gaussian.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
$cc -std=gnu11 -O2 -ffp-contract=off $cuda $(mkvar OPENMP_CFLAGS) \
	-I"$src/src" -I"$src/kernels" -I"$build" $(mkvar NETCDF_CFLAGS) \
	-o "$tmp/plume_gaussian" "$here/plume_gaussian.c" "$build/libwest.a" $libs -lm
echo "Source: $src ($(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo 'not a git tree'))."
echo "Machine: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"), $(nproc) cores, $(date -u +%Y-%m-%d)."
echo
[ -n "${KEEP:-}" ] && cp "$tmp/plume_gaussian" "$KEEP"   # KEEP=PATH: keep the program
"$tmp/plume_gaussian" "$@"
