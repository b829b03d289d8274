#!/bin/sh
# tests/fuzz/run.sh BUILD_DIR [SECONDS [TARGET...]]: run the libFuzzer
# targets that `make fuzz` built in BUILD_DIR/tests/fuzz, each for SECONDS
# (default 20) from its committed seed corpus and with its dictionary
# (tests/fuzz/corpus/NAME, tests/fuzz/dict/NAME.dict).  New inputs go to a
# temporary directory, never into the source tree; a crash, a leak, a
# sanitizer report or a failed invariant leaves its input in
# BUILD_DIR/tests/fuzz/artifacts/ and the log in BUILD_DIR/tests/fuzz/NAME.log.
# Prints one TAP-like line per target (PASS/FAIL with executions, coverage
# and speed; SKIP for fuzz_dem_gdal in a build configured without GDAL,
# where make fuzz does not build it) and exits non-zero when any target
# failed.  scripts/test runs it; docs/building.md, "Fuzzing", says how to
# run the targets for longer.
set -u
build=${1:?usage: run.sh BUILD_DIR [SECONDS [TARGET...]]}
secs=${2:-20}
[ $# -ge 2 ] && shift 2 || shift $#
src=$(cd "$(dirname "$0")" && pwd)
targets=${*:-obs_json obs_csv obs_list dem_asc dem_nc dem_gdal config edr http}
out=$build/tests/fuzz
mkdir -p "$out/artifacts"
work=$(mktemp -d "${TMPDIR:-/tmp}/westfuzz-run.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
failed=0
for t in $targets; do
	bin=$out/fuzz_$t log=$out/$t.log
	if [ ! -x "$bin" ] && [ "$t" = dem_gdal ] && ! grep -q '^build_gdal = yes' "$build/Makefile"; then
		echo "SKIP: fuzz_$t: $build is configured without GDAL (--with-gdal=yes builds it)"
		continue
	fi
	if [ ! -x "$bin" ]; then
		echo "FAIL: fuzz_$t: $bin is missing (make fuzz)"
		failed=$((failed + 1))
		continue
	fi
	mkdir -p "$work/$t"
	dict=
	[ -f "$src/dict/$t.dict" ] && dict=-dict=$src/dict/$t.dict
	# the sanitizers' options are this script's own (scripts/test exports
	# slower ones for its asan build)
	# (lsan.supp: a library's one allocation per process)
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$src/lsan.supp \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$bin" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$out/artifacts/$t-" $dict "$work/$t" "$src/corpus/$t" \
		>"$log" 2>&1
	rc=$?
	stats=$(grep -E '^#[0-9]+' "$log" | tail -n 1 |
		sed -n 's/^#\([0-9]*\).*cov: \([0-9]*\) ft: \([0-9]*\).*exec\/s: \([0-9]*\).*/\1 runs, cov \2, ft \3, \4 exec\/s/p')
	if [ "$rc" -eq 0 ] && ! grep -qE 'ERROR: (Address|Leak|Undefined)Sanitizer|runtime error:|fuzz invariant failed|ERROR: libFuzzer' "$log"; then
		echo "PASS: fuzz_$t ($stats, ${secs} s)"
	else
		echo "FAIL: fuzz_$t (exit $rc; $(grep -m1 -E 'ERROR:|runtime error:|fuzz invariant failed|SUMMARY' "$log"); log $log; input in $out/artifacts/)"
		failed=$((failed + 1))
	fi
done
[ "$failed" -eq 0 ]
