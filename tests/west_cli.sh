#!/bin/sh
# west_cli.sh (TAP): the one-shot command `west grid` end to end: summary,
# JSON, backend choice, and the exit code and message of each kind of
# failure (docs in `west --help`).
west=$top_builddir/west
data=$top_srcdir/data
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
# check DESCRIPTION WANT-EXIT PATTERN ARGS...: run west, compare exit code,
# grep stdout+stderr for PATTERN (fixed string).
check() {
	desc=$1 want=$2 pat=$3
	shift 3
	n=$((n + 1))
	"$west" "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -qF -- "$pat" "$tmp/out"; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc (exit $rc, want $want and '$pat')"
		sed 's/^/# /' "$tmp/out"
	fi
}
echo "1..11"
check "summary of the default terrain" 0 "nx 96, ny 80, nz 30 = 230400 cells" \
	grid --terrain "$data/default.asc" --backend cpu
check "CRS from the .prj beside the terrain" 0 "crs      WGS_1984_UTM_Zone_33N" \
	grid --terrain "$data/default.asc" --backend cpu
check "one line of JSON" 0 '"nx":96,' grid --terrain "$data/default.asc" --json --backend cpu
check "config file and --set" 0 "nz 8 = " \
	grid --config "$top_srcdir/conf/westd.conf" --set nz=8 --set dz=50 --terrain "$data/hill.nc"
check "missing terrain file names it" 3 "nosuch.asc" grid --terrain "$tmp/nosuch.asc"
check "bad --set names the key" 3 "--set: unknown key 'nosuch'" grid --set nosuch=1 --terrain "$data/flat.asc"
printf 'nz = 10\nbackend = gpu\n' >"$tmp/bad.conf"
check "bad config value names file and line" 3 "$tmp/bad.conf:2: backend" \
	grid --config "$tmp/bad.conf" --terrain "$data/flat.asc"
check "no command is a usage error" 2 "no command given"
check "unknown command is a usage error" 2 "unknown command 'fly'" fly
check "help lists the exit codes" 0 "exit codes:" --help
n=$((n + 1))
"$west" grid --terrain "$data/flat.asc" --backend cuda >"$tmp/out" 2>&1
rc=$?
if { [ $rc -eq 0 ] && grep -q '^backend  cuda: CUDA device' "$tmp/out"; } ||
   { [ $rc -eq 1 ] && grep -qE 'backend cuda: (no CUDA device|this build has no cuda backend)' "$tmp/out"; }; then
	echo "ok $n - --backend cuda runs on a GPU or says why not (exit $rc)"
else
	echo "not ok $n - --backend cuda (exit $rc)"
	sed 's/^/# /' "$tmp/out"
fi
