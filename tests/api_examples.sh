#!/bin/sh
# api_examples.sh: start westd on the default terrain (CPU backend, a free
# port, state and snapshots in a temp dir), post the sample observations as
# they are, wait for the field, then run docs/api.md's examples against it
# (tests/api_examples.py; TAP).  The examples show the sample's valid time
# 2026-11-22T12:00:00Z, days before the test runs, so westd runs with
# obs_max_age=0 (take a set of any age) and max_field_age=0 (a field of any
# age is ready: its age counts from the valid time).
set -u
src=${top_srcdir:-.}
bin=${top_builddir:-.}/westd
tmp=$(mktemp -d /tmp/westd-api-XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid"; rm -rf "$tmp"; }
trap cleanup EXIT
bail() { echo "Bail out! $*"; [ -f "$tmp/log" ] && sed 's/^/# /' "$tmp/log"; exit 1; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
addr=127.0.0.1:$port
"$bin" --foreground --set terrain="$src/data/default.asc" --set listen="$addr" \
	--set state_dir="$tmp/state" --set snapshot_dir="$tmp/snapshots" \
	--set backend="${WESTD_BACKEND:-cpu}" --set obs_max_age=0 --set max_field_age=0 \
	2>"$tmp/log" &
pid=$!
i=0
until curl -s -o /dev/null "http://$addr/livez"; do
	i=$((i + 1)); [ $i -gt 300 ] && bail "westd did not start"; sleep 0.1
done
curl -s -X POST -H 'Content-Type: application/json' \
	--data-binary @"$src/data/obs/default.json" "http://$addr/v1/observations" >/dev/null ||
	bail "POST failed"
i=0
until curl -s "http://$addr/readyz" | grep -q '"status":"ready"'; do
	i=$((i + 1)); [ $i -gt 1200 ] && bail "no field after 120 s"; sleep 0.1
done
python3 "$src/tests/api_examples.py" "$src/docs/api.md" "$addr" "$src"
