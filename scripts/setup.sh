# scripts/setup.sh: the set-up shared by scripts/demo and scripts/test
# (sourced, not run).  Installs missing Debian packages (only those
# missing, saying which), finds nvcc, runs autoreconf when the autotools
# inputs changed, and configures + builds one VPATH build directory under
# build/.  Every step is skipped when its outputs are current.

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)

# Build and test dependencies, as Debian 12 packages (chromium,
# chromium-driver and python3-selenium: the map page's browser test;
# python3-owslib: the OGC API client test, about 8 MB installed with its
# dependencies, mostly python3-lxml; libgdal-dev: terrain through GDAL in
# the cpu and asan builds, and gdal-bin's gdal_translate and gdalwarp for
# tests/west_cli.sh, gdalinfo and gdallocationinfo for
# tests/geotiff_gdal.sh: westd writes its own GeoTIFFs without GDAL;
# openmpi-bin and libopenmpi-dev: partitions as MPI ranks in the cpu build,
# tests/test_mpi under mpirun).
# Not here: prometheus, whose promtool checks /metrics where installed
# (the test skips without it): the package is the whole Prometheus server
# (96 MB) with a service of its own, too much to install for one check.
west_pkgs="gcc libc6-dev make autoconf automake pkgconf libmicrohttpd-dev libjansson-dev
libnetcdf-dev netcdf-bin libcriterion-dev libcurl4-gnutls-dev curl python3-netcdf4
chromium chromium-driver python3-selenium python3-owslib libgdal-dev gdal-bin
openmpi-bin libopenmpi-dev"

say() { printf '%s\n' "$*"; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

install_missing() {
	command -v dpkg-query >/dev/null 2>&1 || {
		say "not a Debian system: make sure these (or your system's equivalents) are installed: $(echo $west_pkgs)"
		return 0
	}
	missing=
	for p in $west_pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	say "installing missing Debian packages:$missing"
	sudo=
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null 2>&1 || die "need root or sudo to install:$missing"
		sudo=sudo
	fi
	$sudo apt-get update -qq || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing \
		>/dev/null || die "apt-get install failed for:$missing"
}

# Sets NVCC to the CUDA compiler's path, or to "" when there is none.
find_nvcc() {
	NVCC=$(command -v nvcc 2>/dev/null || true)
	[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
	[ -n "$NVCC" ] && return 0
	say "nvcc not found: building the CPU-only westd. For the CUDA backend install the"
	say "CUDA Toolkit (NVIDIA's packages put nvcc in /usr/local/cuda/bin; Debian's"
	say "nvidia-cuda-toolkit from non-free also works) and run this command again."
}

bootstrap() {
	cd "$top"
	if [ ! -x configure ] || [ ! -f Makefile.in ] || [ configure.ac -nt configure ] ||
	   [ Makefile.am -nt Makefile.in ]; then
		say "autoreconf: generating configure and Makefile.in"
		autoreconf -fi || die "autoreconf failed"
	fi
}

# build DIR CONFIGURE-ARGS...: configure build/DIR when its arguments
# changed or it has no Makefile, then make.  The make log is kept in
# build/DIR/make.log; a compiler warning fails the build (the tree is
# warning-free).
build() {
	dir=$top/build/$1
	shift
	mkdir -p "$dir"
	if [ ! -f "$dir/Makefile" ] || [ "$(cat "$dir/.configure-args" 2>/dev/null)" != "$*" ]; then
		say "configure build/${dir##*/}: $*"
		(cd "$dir" && "$top/configure" "$@" >configure.log 2>&1) ||
			{ tail -n 30 "$dir/configure.log"; die "configure failed (build/${dir##*/}/configure.log)"; }
		printf '%s' "$*" >"$dir/.configure-args"
	fi
	say "make build/${dir##*/}"
	(cd "$dir" && make -j"$jobs" all >make.log 2>&1) ||
		{ tail -n 40 "$dir/make.log"; die "build failed (build/${dir##*/}/make.log)"; }
	if grep -q 'warning:' "$dir/make.log"; then
		grep 'warning:' "$dir/make.log"
		die "the build has compiler warnings (build/${dir##*/}/make.log)"
	fi
}
