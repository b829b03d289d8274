#!/bin/sh
# mpi-exchange.sh: the overlapped halo exchange against the blocking one
# over MPI ranks (config exchange; docs/design.md section 5), side by side
# in one run: `west run` under mpirun with each in turn, alternating, and
# one process with as many threads as ranks beside them; the medians of
# the report's step 8 time, of its exchange time (the wall time rank 0
# spent in the partitions' exchanges, parts.h) and of the whole run.
# Every run's field is the same bit for bit (tests/mpi_ranks.sh).
#
# usage: tests/bench/mpi-exchange.sh BUILD_DIR [RANKS [RUNS [--set KEY=VALUE]...]]
#   e.g. tests/bench/mpi-exchange.sh build/cpu 2 9 --set resolution=25
# Terrain data/default.asc, observations data/obs/default.json; RANKS
# (default 2) ranks of one OpenMP thread each; RUNS (default 7) of each.
# BACKEND=cuda in the environment runs GPU ranks (each on a GPU of its
# host, docs/operations.md) against one process on one GPU, and adds the
# overlapped exchange with the rows staged through host memory
# (WEST_NCCL=0) beside the NCCL one; default cpu.
set -eu
build=${1:?usage: $0 BUILD_DIR [RANKS [RUNS [--set KEY=VALUE]...]]}
ranks=${2:-2}
runs=${3:-7}
shift $(($# < 3 ? $# : 3))
top=$(cd "$(dirname "$0")/../.." && pwd)
west=$build/west
[ -x "$west" ] || { echo "$0: no $west (build first)" >&2; exit 1; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
args="run --terrain $top/data/default.asc --obs $top/data/obs/default.json
	--backend ${BACKEND:-cpu} --out $tmp/f.nc --json"

# run KIND [--set ...]: overlap, blocking or staged (overlap, WEST_NCCL=0)
# under mpirun, or process alone
run() {
	kind=$1
	shift
	if [ "$kind" = process ]; then
		OMP_NUM_THREADS=$ranks "$west" $args "$@"
	elif [ "$kind" = staged ]; then
		WEST_NCCL=0 OMP_NUM_THREADS=1 mpirun --oversubscribe -np "$ranks" -x WEST_NCCL \
			"$west" $args --set exchange=overlap "$@"
	else
		OMP_NUM_THREADS=1 mpirun --oversubscribe -np "$ranks" "$west" $args \
			--set exchange="$kind" "$@"
	fi
}
kinds="overlap blocking process"
[ "${BACKEND:-cpu}" = cuda ] && kinds="overlap blocking staged process"

for n in $(seq "$runs"); do
	for kind in $kinds; do
		run "$kind" "$@" >"$tmp/$kind.$n.json" 2>"$tmp/$kind.err" ||
			{ cat "$tmp/$kind.err" >&2; exit 1; }
	done
done

"$py" - "$tmp" "$runs" "$ranks" "${BACKEND:-cpu}" <<'PY'
import json
import statistics
import sys

tmp, runs, ranks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
gpu = sys.argv[4] == "cuda"
rows = {}
kinds = ("overlap", "blocking", "staged", "process") if gpu else ("overlap", "blocking", "process")
for kind in kinds:
    r = [json.load(open(f"{tmp}/{kind}.{n}.json"))["report"] for n in range(1, runs + 1)]
    its = {x["iterations"] for x in r}
    rows[kind] = [1e3 * statistics.median(x["seconds"][k] for x in r)
                  for k in ("divmin", "exchange", "total")] + [its, r[0]["partitions"]]
g = json.load(open(f"{tmp}/process.1.json"))["grid"]
print(f"grid {g.get('nx')} x {g.get('ny')} x {g.get('nz')}, {runs} runs each, medians (ms)")
print()
print("| run | partitions | iterations | step 8 | of it exchanges | whole run |")
print("| --- | ---: | --- | ---: | ---: | ---: |")
names = {"overlap": f"{ranks} ranks, overlapped exchange",
         "blocking": f"{ranks} ranks, blocking exchange",
         "staged": f"{ranks} ranks, overlapped, rows through host memory (WEST_NCCL=0)",
         "process": "1 process, 1 GPU" if gpu else f"1 process, {ranks} threads"}
for kind, (d, e, t, its, p) in rows.items():
    print(f"| {names[kind]} | {p} | {','.join(map(str, sorted(its)))} | {d:.1f} | {e:.2f} | {t:.1f} |")
o, b = rows["overlap"], rows["blocking"]
print(f"| overlapped / blocking | | | {o[0] / b[0]:.3f} | {o[1] / b[1]:.3f} | {o[2] / b[2]:.3f} |")
PY
