#!/bin/sh
# mpi_ranks.sh (TAP): one field over MPI ranks (docs/design.md section 5)
# is the one-rank field bit for bit: tests/test_mpi under mpirun (1-5: each
# solver through the CPU backend, the potential solvers with the halo
# exchange overlapped and blocking; 6-10: the same with the rows staged
# through host buffers, as GPU ranks move them), `mpirun west run` against
# `west run` (11: the snapshots' winds), and westd under mpirun against
# westd alone (12: /v1/status's partitions, the wind at a point; 13: after
# a terrain reload, SIGHUP to rank 0, the wind on the new terrain; 14: a
# reload whose terrain kills the reader of ranks 1 and 2 is refused, and
# every rank keeps the old terrain).  GPU
# ranks (test_mpi --backend cuda) run on the GPU machine: docs/building.md.
# 3 ranks on however
# many cores there are (--oversubscribe), one OpenMP thread each.  Skips in
# a build without MPI (configure --with-mpi).
echo "1..14"
if [ "$west_mpi" != yes ]; then
	for n in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do
		echo "ok $n - MPI ranks # SKIP this build has no MPI (configure --with-mpi=yes; Debian: libopenmpi-dev openmpi-bin)"
	done
	exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# Open MPI refuses root without these (CI runs as root); shared-memory
# transport without the kernel's cross-memory attach, which containers
# often forbid.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMP_NUM_THREADS=1
mpi() { timeout 600 "$west_mpirun" --oversubscribe -np 3 "$@"; }

# each run prints its five lines, or its errors become comments (and the
# plan's count then fails the run)
mpi "$top_builddir/tests/test_mpi" 2>"$tmp/test_mpi.err" | grep '^\(not \)\{0,1\}ok ' ||
	sed 's/^/# /' "$tmp/test_mpi.err"
WEST_MPI_STAGE=1 mpi -x WEST_MPI_STAGE "$top_builddir/tests/test_mpi" --first 6 \
	2>"$tmp/test_mpi.err" | grep '^\(not \)\{0,1\}ok ' || sed 's/^/# /' "$tmp/test_mpi.err"

# Debian's python3-netcdf4 belongs to the system python3
py=/usr/bin/python3
[ -x "$py" ] || py=python3
west=$top_builddir/west
args="run --terrain $top_srcdir/data/default.asc --obs $top_srcdir/data/obs/default.json --backend cpu"
if "$west" $args --out "$tmp/one.nc" >"$tmp/one.log" 2>&1 &&
   mpi "$west" $args --out "$tmp/three.nc" >"$tmp/three.log" 2>&1 &&
   "$py" - "$tmp/one.nc" "$tmp/three.nc" >"$tmp/cmp.log" 2>&1 <<'PY'
import sys
import netCDF4
import numpy as np
a, b = netCDF4.Dataset(sys.argv[1]), netCDF4.Dataset(sys.argv[2])
for v in ("x_wind", "y_wind", "upward_air_velocity"):
    x, y = np.asarray(a[v][:]), np.asarray(b[v][:])
    if x.shape != y.shape or x.tobytes() != y.tobytes():
        sys.exit(f"{v} differs")
print("same winds")
PY
then
	echo "ok 11 - mpirun -np 3 west run writes the one-process snapshot's winds bit for bit"
else
	echo "not ok 11 - mpirun -np 3 west run writes the one-process snapshot's winds bit for bit"
	tail -n 5 "$tmp/one.log" "$tmp/three.log" "$tmp/cmp.log" 2>/dev/null | sed 's/^/# /'
fi

# westd: alone, then under mpirun; each answers one POST with a field, and
# the point's wind and the partitions are read back.
# start OUT TERRAIN [LAUNCHER...]: westd in the background ($pid), on
# TERRAIN and a port free a moment before, once it answers; post: one set;
# field N: wait for version N and read the point's wind into OUT.point
start() {
	out=$1 terrain=$2
	shift 2
	port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	# the launcher's own process is $! (not a subshell), so that TERM
	# reaches it: timeout passes it to mpirun, mpirun to the ranks
	"$@" "$top_builddir/westd" --foreground --set terrain="$terrain" \
		--set listen="127.0.0.1:$port" --set obs_max_age=0 --set state_dir="$out.state" \
		>"$out.log" 2>&1 &
	pid=$!
	for i in $(seq 300); do   # up to a minute (a loaded machine)
		curl -sf "http://127.0.0.1:$port/livez" >/dev/null 2>&1 && break
		sleep 0.2
	done
}
post() {
	curl -s -X POST -H 'Content-Type: application/json' \
		--data-binary @"$top_srcdir/data/obs/default.json" \
		"http://127.0.0.1:$port/v1/observations" >"$out.post" 2>&1
}
field() {
	for i in $(seq 300); do
		curl -s "http://127.0.0.1:$port/v1/status" >"$out.status" 2>/dev/null
		grep -q "\"version\":$1" "$out.status" && break
		sleep 0.2
	done
	curl -s "http://127.0.0.1:$port/v1/field/point?x=504850&y=4652050&z=10" >"$out.point"
}
stop() {
	kill -TERM $pid
	wait $pid 2>/dev/null
}
daemon() {   # daemon OUT TERRAIN [LAUNCHER...]: start, post, read, stop
	start "$@"
	post
	field 1
	stop
}
# same_wind A B [VERSION]: A.point's u, v and w are B.point's (and B's is
# of version VERSION): exit 0; they differ: exit 3; else (an unreadable
# point, another version) exit 1; the reason on stdout
same_wind() {
	"$py" - "$@" <<'PY'
import json
import sys
a, b = (json.load(open(x + ".point")) for x in sys.argv[1:3])
if len(sys.argv) > 3 and b.get("version") != int(sys.argv[3]):
    sys.exit(f"{sys.argv[2]}: version {b.get('version')}, not {sys.argv[3]}")
for k in ("u", "v", "w"):
    if a[k] != b[k]:
        print(f"{k}: {b[k]!r} in {sys.argv[2]}, {a[k]!r} in {sys.argv[1]}")
        sys.exit(3)
PY
}
daemon "$tmp/alone" "$top_srcdir/data/default.asc"
daemon "$tmp/ranks" "$top_srcdir/data/default.asc" timeout 600 "$west_mpirun" --oversubscribe -np 3
if "$py" - "$tmp/alone" "$tmp/ranks" >"$tmp/d.log" 2>&1 <<'PY' &&
import json
import sys
parts = tuple(json.load(open(x + ".status"))["backend"]["partitions"] for x in sys.argv[1:3])
if parts != (1, 3):
    sys.exit(f"partitions {parts}, expected (1, 3)")
PY
   same_wind "$tmp/alone" "$tmp/ranks" >>"$tmp/d.log" 2>&1
then
	echo "ok 12 - westd under mpirun -np 3 serves the one-process field (3 partitions)"
else
	echo "not ok 12 - westd under mpirun -np 3 serves the one-process field (3 partitions)"
	tail -n 5 "$tmp/d.log" "$tmp/alone.log" "$tmp/ranks.log" "$tmp/ranks.post" 2>/dev/null |
		sed 's/^/# /'
fi

# A terrain reload under mpirun: westd on a copy of the default terrain,
# one set solved, the copy replaced by a lower hill (its heights above
# 350 m times 0.7) and SIGHUP to rank 0 (the process whose
# OMPI_COMM_WORLD_RANK is 0); the set solved again on the new grid by
# every rank must give westd alone's wind on the lower hill.
cp "$top_srcdir/data/default.asc" "$tmp/t.asc"
cp "$top_srcdir/data/default.prj" "$tmp/t.prj"
awk 'NR <= 6 { print; next }
     { for (i = 1; i <= NF; i++) $i = sprintf("%.2f", 350 + ($i - 350) * 0.7); print }' \
	"$top_srcdir/data/default.asc" >"$tmp/low.asc"
cp "$top_srcdir/data/default.prj" "$tmp/low.prj"
daemon "$tmp/low" "$tmp/low.asc"
start "$tmp/reload" "$tmp/t.asc" timeout 600 "$west_mpirun" --oversubscribe -np 3
post
field 1
cp "$tmp/reload.point" "$tmp/before.point"
cp "$tmp/low.asc" "$tmp/t.asc.new" && mv "$tmp/t.asc.new" "$tmp/t.asc"
# rank_zero TERRAIN: the pid of rank 0 of the westd on TERRAIN (no pgrep:
# procps is not in every base system)
rank_zero() {
	rank0=
	for p in /proc/[0-9]*; do
		grep -qa "$1" "$p/cmdline" 2>/dev/null || continue
		tr '\0' '\n' <"$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=0 &&
			rank0=${p#/proc/}
	done
}
rank_zero "$tmp/t.asc"
[ -n "$rank0" ] && kill -HUP "$rank0"
field 2
stop
# the wind on the new terrain, alone's, and not the old one's
same_wind "$tmp/before" "$tmp/reload" >"$tmp/r.log" 2>&1
changed=$?
if [ -n "$rank0" ] && same_wind "$tmp/low" "$tmp/reload" 2 >>"$tmp/r.log" 2>&1 &&
   [ "$changed" -eq 3 ]
then
	echo "ok 13 - westd under mpirun -np 3 reloads a new terrain on every rank"
else
	[ -n "$rank0" ] || echo "# no rank 0 found" >"$tmp/r.log"
	echo "not ok 13 - westd under mpirun -np 3 reloads a new terrain on every rank"
	tail -n 5 "$tmp/r.log" "$tmp/reload.log" "$tmp/reload.status" 2>/dev/null | sed 's/^/# /'
fi

# A reload whose terrain the readers of ranks 1 and 2 die on (the test
# hook WEST_TERRAIN_CHILD_FAULT, given to those two ranks only: Open MPI's
# app contexts): rank 0 reads it, the others refuse it, and every rank
# keeps the old terrain; a set posted after it is solved on the old one.
cp "$top_srcdir/data/default.asc" "$tmp/k.asc"
cp "$top_srcdir/data/default.prj" "$tmp/k.prj"
out=$tmp/keep
args="--foreground --set terrain=$tmp/k.asc --set obs_max_age=0 --set state_dir=$out.state"
port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
timeout 600 "$west_mpirun" --oversubscribe -np 1 "$top_builddir/westd" $args \
	--set listen="127.0.0.1:$port" : -np 2 -x WEST_TERRAIN_CHILD_FAULT="$tmp/fault" \
	"$top_builddir/westd" $args --set listen="127.0.0.1:$port" >"$out.log" 2>&1 &
pid=$!
for i in $(seq 300); do
	curl -sf "http://127.0.0.1:$port/livez" >/dev/null 2>&1 && break
	sleep 0.2
done
post
field 1
cp "$out.point" "$tmp/keep1.point"
: >"$tmp/fault"
cp "$tmp/low.asc" "$tmp/k.asc.new" && mv "$tmp/k.asc.new" "$tmp/k.asc"
rank_zero "$tmp/k.asc"
[ -n "$rank0" ] && kill -HUP "$rank0"
for i in $(seq 300); do   # the refusal, in rank 0's log
	grep -q "another MPI rank could not" "$out.log" && break
	sleep 0.2
done
post
field 2
stop
if [ -n "$rank0" ] && grep -q "another MPI rank could not" "$out.log" &&
   [ "$(grep -c 'killed by signal' "$out.log")" -ge 2 ] &&
   same_wind "$tmp/keep1" "$out" 2 >"$tmp/k.log" 2>&1
then
	echo "ok 14 - westd under mpirun keeps the old terrain on every rank when another rank cannot read the new one"
else
	[ -n "$rank0" ] || echo "# no rank 0 found" >"$tmp/k.log"
	echo "not ok 14 - westd under mpirun keeps the old terrain on every rank when another rank cannot read the new one"
	tail -n 8 "$tmp/k.log" "$out.log" 2>/dev/null | sed 's/^/# /'
fi
