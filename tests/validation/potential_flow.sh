#!/bin/sh
# potential_flow.sh: build tests/validation/potential_flow.c against a build
# directory's libwest.a and run the exact-solution study of
# docs/validation.md ("Exact solutions: potential flow"), printing markdown
# tables.
#
#   tests/validation/potential_flow.sh [BUILD_DIR] [quick]
#
# BUILD_DIR: a configured and built build directory (default build/cpu), its
# source tree the one its Makefile names (abs_top_srcdir).  `quick` runs
# R/dx = 4 and 8 only, without the domain checks.  Each study runs with cut
# cells (the default) and with staircase faces.  The program is compiled
# into $TMPDIR; nothing in the tree changes.  The full study (R/dx = 4, 8,
# 16, 32 for both face rules; the largest grids 67 and 69 M cells, about
# 3 GB) takes about 7 minutes on 2 cores.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build/cpu}" && pwd)
mode=${2:-full}
[ -f "$build/libwest.a" ] || { echo "potential_flow.sh: no $build/libwest.a (run make there)" >&2; exit 2; }

mkvar() { sed -n "s/^$1 = //p" "$build/Makefile" | head -n 1; }
src=$(cd "$(mkvar abs_top_srcdir)" && pwd)
cc=$(mkvar CC)
libs="$(mkvar NETCDF_LIBS) $(mkvar JANSSON_LIBS) $(mkvar GDAL_LIBS) $(mkvar CUDA_LIBS) $(mkvar MPI_LIBS) $(mkvar OPENMP_CFLAGS)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/potential_flow.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
bin=$tmp/potential_flow
# shellcheck disable=SC2046,SC2086
$cc -std=gnu11 -O2 -ffp-contract=off $(mkvar OPENMP_CFLAGS) \
	-I"$src/src" -I"$src/kernels" -I"$build" $(mkvar NETCDF_CFLAGS) \
	-o "$bin" "$here/potential_flow.c" "$build/libwest.a" $libs -lm

echo "Source: $src ($(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo 'not a git tree')$(git -C "$src" diff --quiet HEAD -- src kernels 2>/dev/null || echo ', with local changes'))."
# shellcheck disable=SC1091
echo "Machine: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"), $(nproc) cores, $(date -u +%Y-%m-%d)."
echo

if [ "$mode" = quick ]; then res="4 8"; else res="4 8 16 32"; fi

for faces in cut staircase; do
	flag=
	[ "$faces" = staircase ] && flag=--staircase
	echo "### Hemisphere (exact crest speed 1.5 U), $faces faces"
	echo
	# shellcheck disable=SC2086
	"$bin" hemisphere $flag --header $res
	echo
	echo "### Half-cylinder ridge (exact crest speed 2 U), $faces faces"
	echo
	# shellcheck disable=SC2086
	"$bin" cylinder $flag --header $res
	echo
done
[ "$mode" = quick ] && exit 0

echo
echo "### Domain checks (blockage of the open sides and top)"
echo
echo "Hemisphere, the domain half-width and top A = 4, 8 (the study's), 16, 32 R:"
echo
"$bin" hemisphere --header --domain 4 --top 4 4
for a in 8 16 32; do "$bin" hemisphere --domain $a --top $a 4; done
for a in 8 16; do "$bin" hemisphere --domain $a --top $a 8; done
echo
echo "Cylinder, the half-length and top A = 16, 32 (the study's), 64 R, half-width 2A; and dy = R:"
echo
"$bin" cylinder --header --domain 16 --top 16 --width 32 4
for a in 32 64; do "$bin" cylinder --domain $a --top $a --width $((2 * a)) 4; done
for a in 32 64; do "$bin" cylinder --domain $a --top $a --width $((2 * a)) 8; done
"$bin" cylinder --dy 1 4
