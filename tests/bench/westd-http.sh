#!/bin/sh
# westd-http.sh: point-query throughput of westd measured with wrk against
# nginx serving a static file of the same size, in one run, on one machine,
# while observations keep arriving.  A benchmark, not a test: never part of
# `make check`.
#
# Usage:
#   tests/bench/westd-http.sh [WESTD_BINARY] [--duration S] [--connections N]
#                             [--threads T] [--http-threads H] [--post-every S]
#   WESTD_BINARY    default build/cpu/westd (relative to the repository top)
#   --duration      seconds of each wrk run (default 20)
#   --connections   wrk connections (default 64)
#   --threads       wrk threads (default 2)
#   --http-threads  westd's http_threads (default nproc)
#   --post-every    seconds between two observation POSTs (default 1; 0: no
#                   observations after the first, the HTTP path alone)
#
# Target (the issue): >= 10,000 requests/s with p99 < 20 ms and no errors,
# 64 connections, observations arriving every second; nginx serving a
# static file of the same size is the ceiling, and the ratio westd / nginx
# is the figure to read (both runs share the machine and its load).
#
# What it does, in a fresh temp directory (removed at exit):
#  1. starts westd --foreground (default terrain data/default.asc, backend
#     cpu, listen 127.0.0.1:0 (the port read back from its log), state and
#     snapshot directories in the temp directory, per_ip_connections 1024),
#     posts data/obs/default.json and waits for field version 1;
#  2. starts a poster: every second it POSTs the three default stations with
#     a slightly different speed (curl), so the worker solves and publishes
#     once a second during both wrk runs;
#  3. wrk --latency on /v1/field/point?x=504850&y=4652050&z=10, the field
#     versions published during it counted from /metrics
#     (westd_field_version) before and after;
#  4. saves that point answer once (curl) as point.json, starts nginx with
#     its own nginx.conf in the temp directory (daemon off, 2 workers,
#     access_log off, keep-alive without a request limit, content type
#     application/json) and runs the same wrk on it while westd and the
#     poster still run;
#  5. prints the machine, the command, both results (requests/s, p50, p90,
#     p99, non-2xx/3xx answers, socket errors) and the ratio.
# Installs wrk and nginx-light with apt-get when they are missing (sudo
# when not root), as scripts/setup.sh does for the build dependencies.
# Exit status: 0 when both runs completed (whether or not the target was
# met: the summary says), 1 on any failure, 2 on a bad option.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
say() { printf '%s\n' "$*"; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }
usage() {
	sed -n '/^# Usage:/,/the HTTP path alone)$/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# ------------------------------------------------------------- arguments
westd_bin=$top/build/cpu/westd
duration=20 conns=64 wthreads=2 hthreads=$(nproc 2>/dev/null || echo 2) post_every=1
posint() { case $2 in ''|*[!0-9]*|0) say "$1: '$2' is not a positive integer" >&2; usage ;; esac; }
while [ $# -gt 0 ]; do
	case $1 in
	--duration) [ $# -ge 2 ] || usage; posint "$1" "$2"; duration=$2; shift 2 ;;
	--connections) [ $# -ge 2 ] || usage; posint "$1" "$2"; conns=$2; shift 2 ;;
	--threads) [ $# -ge 2 ] || usage; posint "$1" "$2"; wthreads=$2; shift 2 ;;
	--http-threads) [ $# -ge 2 ] || usage; posint "$1" "$2"; hthreads=$2; shift 2 ;;
	--post-every) [ $# -ge 2 ] || usage; [ "$2" = 0 ] || posint "$1" "$2"; post_every=$2; shift 2 ;;
	-h|--help) usage ;;
	-*) say "unknown option $1" >&2; usage ;;
	*) westd_bin=$1; shift ;;
	esac
done
[ -x "$westd_bin" ] || die "$westd_bin: not an executable westd (build it, or name it)"

# -------------------------------------------------------------- packages
install_missing() {
	missing=
	command -v wrk >/dev/null 2>&1 || missing="$missing wrk"
	command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing="$missing nginx-light"
	command -v curl >/dev/null 2>&1 || missing="$missing curl"
	[ -z "$missing" ] && return 0
	command -v apt-get >/dev/null 2>&1 || die "not a Debian system: install:$missing"
	say "installing missing Debian packages:$missing"
	sudo=
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null 2>&1 || die "need root or sudo to install:$missing"
		sudo=sudo
	fi
	$sudo apt-get update -qq || die "apt-get update failed"
	# shellcheck disable=SC2086  # $missing is a word list
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing \
		>/dev/null || die "apt-get install failed for:$missing"
}
install_missing
nginx_bin=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)

# --------------------------------------------------------- temp, cleanup
tmp=$(mktemp -d "${TMPDIR:-/tmp}/westd-http.XXXXXX") || die "mktemp failed"
westd_pid='' nginx_pid='' poster_pid=''
cleanup() {
	for p in $poster_pid $nginx_pid $westd_pid; do
		kill "$p" 2>/dev/null || true
	done
	for p in $poster_pid $nginx_pid $westd_pid; do
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# -------------------------------------------------------------- helpers
# metric NAME: a Prometheus sample without labels from westd's /metrics.
metric() {
	curl -sf "$westd_url/metrics" | awk -v n="$1" '$1 == n { print $2; exit }'
}

# obs_json I: the three default stations, the valley speed varied by I.
obs_json() {
	awk -v i="$1" -v t="$(date -u +%Y-%m-%dT%H:%M:%SZ)" 'BEGIN {
		s = 4.0 + (i % 7) * 0.25
		printf "{\"observations\": ["
		printf "{\"id\": \"VAL01\", \"x\": 504850, \"y\": 4652050, \"height\": 10, "
		printf "\"speed\": %.2f, \"direction\": %d, \"time\": \"%s\", \"stability\": \"D\"}, ", s, 245 + i % 10, t
		printf "{\"id\": \"RDG-W\", \"x\": 502450, \"y\": 4655050, \"height\": 9.144, "
		printf "\"speed\": %.2f, \"direction\": 260, \"time\": \"%s\", \"stability\": \"D\"}, ", s + 2.5, t
		printf "{\"id\": \"RDG-E\", \"x\": 507250, \"y\": 4654050, \"height\": 10, "
		printf "\"speed\": %.2f, \"direction\": 235, \"time\": \"%s\", \"stability\": \"D\"}", s + 1.5, t
		printf "]}\n"
	}'
}

# poster: one observation set every $post_every s until killed; each answer's HTTP
# code goes to $tmp/post.codes.
poster() {
	i=0
	while :; do
		i=$((i + 1))
		obs_json "$i" | curl -s -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' \
			-H 'Expect:' --data-binary @- "$westd_url/v1/observations" >>"$tmp/post.codes" || true
		sleep "$post_every"
	done
}

# wait_for CMD...: retry CMD for up to 60 s.
wait_for() {
	n=0
	until "$@"; do
		n=$((n + 1))
		[ $n -lt 600 ] || return 1
		sleep 0.1
	done
}

# ms VALUE: wrk's "1.23ms" / "456.00us" / "1.02s" / "1.50m" in milliseconds.
ms() {
	awk -v v="$1" 'BEGIN {
		n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
		if (u == "us") n /= 1000; else if (u == "ms") n *= 1; else if (u == "s") n *= 1000
		else if (u == "m") n *= 60000; else if (u == "h") n *= 3600000
		else { print "nan"; exit }
		printf "%.3f\n", n
	}'
}

# parse_wrk FILE: sets rps p50 p90 p99 (ms) non2xx sockerr from wrk --latency.
parse_wrk() {
	rps=$(awk '/^Requests\/sec:/ { print $2 }' "$1")
	p50=$(ms "$(awk '$1 == "50%" { print $2 }' "$1")")
	p90=$(ms "$(awk '$1 == "90%" { print $2 }' "$1")")
	p99=$(ms "$(awk '$1 == "99%" { print $2 }' "$1")")
	non2xx=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$1")
	non2xx=${non2xx:-0}
	sockerr=$(awk '/Socket errors:/ { gsub(",", ""); s = $4 + $6 + $8 + $10 } END { print s + 0 }' "$1")
	total=$(awk '/requests in/ { print $1 }' "$1")
	{ [ -n "$rps" ] && [ -n "$total" ]; } || die "cannot read wrk's output $1"
}

run_wrk() {   # run_wrk URL OUTFILE
	wrk -t"$wthreads" -c"$conns" -d"${duration}s" --latency "$1" >"$2" 2>&1 ||
		{ cat "$2"; die "wrk failed on $1"; }
}

# ------------------------------------------------------------------ westd
say "temp directory $tmp"
"$westd_bin" --foreground --set terrain="$top/data/default.asc" --set backend=cpu \
	--set listen=127.0.0.1:0 --set state_dir="$tmp/state" --set snapshot_dir="$tmp/snapshots" \
	--set http_threads="$hthreads" --set per_ip_connections=1024 --set log_level=notice \
	--set obs_max_age=0 \
	>"$tmp/westd.log" 2>&1 &
westd_pid=$!
port_in_log() { grep -q 'serving on .*(port [0-9]*)' "$tmp/westd.log" 2>/dev/null || ! kill -0 "$westd_pid"; }
wait_for port_in_log || die "westd did not start (log: $tmp/westd.log)"
kill -0 "$westd_pid" 2>/dev/null || { cat "$tmp/westd.log"; die "westd exited at start"; }
port=$(sed -n 's/.*serving on .*(port \([0-9]*\)).*/\1/p' "$tmp/westd.log" | head -n 1)
westd_url=http://127.0.0.1:$port
wait_for curl -sf -o /dev/null "$westd_url/livez" || die "westd does not answer /livez"
code=$(curl -s -o "$tmp/post1.json" -w '%{http_code}' -H 'Content-Type: application/json' \
	-H 'Expect:' --data-binary @"$top/data/obs/default.json" "$westd_url/v1/observations")
[ "$code" = 202 ] || { cat "$tmp/post1.json"; die "POST data/obs/default.json: HTTP $code"; }
has_v1() { [ "$(metric westd_field_version)" -ge 1 ] 2>/dev/null; }
wait_for has_v1 || { cat "$tmp/westd.log"; die "no field version 1 within 60 s"; }
gridsz=$(curl -sf "$westd_url/v1/status" | tr -d ' \n' |
	sed -n 's/.*"grid":{[^}]*"nx":\([0-9]*\),"ny":\([0-9]*\),"nz":\([0-9]*\).*/\1x\2x\3/p')
solve1=$(metric westd_solve_duration_seconds_sum || true)

load0=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$tmp/post.codes"
if [ "$post_every" != 0 ]; then
	poster &
	poster_pid=$!
	sleep 2        # the poster's first solves, before wrk starts
fi

query='/v1/field/point?x=504850&y=4652050&z=10'
curl -sf -o "$tmp/point.json" "$westd_url$query" || die "GET $query failed"
size=$(wc -c <"$tmp/point.json" | tr -d ' ')

say "wrk on westd ($duration s) ..."
v0=$(metric westd_field_version)
run_wrk "$westd_url$query" "$tmp/wrk-westd.txt"
v1=$(metric westd_field_version)
parse_wrk "$tmp/wrk-westd.txt"
w_rps=$rps w_p50=$p50 w_p90=$p90 w_p99=$p99 w_non2xx=$non2xx w_sock=$sockerr w_total=$total

# ------------------------------------------------------------------ nginx
mkdir -p "$tmp/www" "$tmp/nginx-temp"
cp "$tmp/point.json" "$tmp/www/point.json"
user_line=
[ "$(id -u)" = 0 ] && user_line="user root root;"
start_nginx() {   # start_nginx PORT: 0 when it answers
	cat >"$tmp/nginx.conf" <<EOF
$user_line
daemon off;
worker_processes 2;
pid $tmp/nginx.pid;
error_log $tmp/nginx-error.log warn;
events { worker_connections 4096; }
http {
	access_log off;
	sendfile on;
	tcp_nodelay on;
	keepalive_requests 100000000;
	keepalive_timeout 60s;
	client_body_temp_path $tmp/nginx-temp/body;
	proxy_temp_path $tmp/nginx-temp/proxy;
	fastcgi_temp_path $tmp/nginx-temp/fastcgi;
	default_type application/json;
	types { }
	server {
		listen 127.0.0.1:$1;
		root $tmp/www;
	}
}
EOF
	"$nginx_bin" -p "$tmp" -c "$tmp/nginx.conf" -e "$tmp/nginx-error.log" >>"$tmp/nginx.out" 2>&1 &
	nginx_pid=$!
	n=0
	while [ $n -lt 100 ]; do
		curl -sf -o /dev/null "http://127.0.0.1:$1/point.json" && return 0
		kill -0 "$nginx_pid" 2>/dev/null || { wait "$nginx_pid" 2>/dev/null || true; nginx_pid=; return 1; }
		n=$((n + 1))
		sleep 0.1
	done
	return 1
}
nport=
for try in 1 2 3 4 5 6 7 8 9 10; do
	p=$(( 20000 + ($$ * 7 + try * 7919 + $(date +%N | sed 's/^0*//;s/^$/0/') % 9973) % 40000 ))
	ss -Htln "sport = :$p" 2>/dev/null | grep -q . && continue
	if start_nginx "$p"; then nport=$p; break; fi
done
[ -n "$nport" ] || { cat "$tmp/nginx.out" "$tmp/nginx-error.log" 2>/dev/null; die "nginx did not start"; }
nsize=$(curl -sf "http://127.0.0.1:$nport/point.json" | wc -c | tr -d ' ')
nctype=$(curl -sfI "http://127.0.0.1:$nport/point.json" | awk -F': ' 'tolower($1) == "content-type" { sub(/\r$/, "", $2); print $2 }')

say "wrk on nginx ($duration s) ..."
v2=$(metric westd_field_version)
run_wrk "http://127.0.0.1:$nport/point.json" "$tmp/wrk-nginx.txt"
v3=$(metric westd_field_version)
parse_wrk "$tmp/wrk-nginx.txt"
n_rps=$rps n_p50=$p50 n_p90=$p90 n_p99=$p99 n_non2xx=$non2xx n_sock=$sockerr n_total=$total

load1=$(cut -d' ' -f1-3 /proc/loadavg)
if [ -n "$poster_pid" ]; then
	kill "$poster_pid" 2>/dev/null || true
	wait "$poster_pid" 2>/dev/null || true
	poster_pid=
fi
posts=$(wc -l <"$tmp/post.codes" | tr -d ' ')
posts_bad=$(grep -vc '^202$' "$tmp/post.codes" || true)
solve_n=$(metric westd_solve_duration_seconds_count || true)
solve_s=$(metric westd_solve_duration_seconds_sum || true)

# ---------------------------------------------------------------- summary
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
wrkv=$(wrk -v 2>&1 | head -n 1 | awk '{ print $1, $2, $3 }')
nginxv=$("$nginx_bin" -v 2>&1 | sed 's/.*version: //')
ratio=$(awk -v a="$w_rps" -v b="$n_rps" 'BEGIN { printf "%.3f", a / b }')
met=no
awk -v r="$w_rps" -v p="$w_p99" -v e=$((w_non2xx + w_sock)) \
	'BEGIN { exit !(r >= 10000 && p < 20 && e == 0) }' && met=yes
mean_solve=$(awk -v s="$solve_s" -v s1="$solve1" -v n="$solve_n" \
	'BEGIN { if (n > 1) printf "%.0f ms", 1000 * (s - s1) / (n - 1); else print "n/a" }')
first_solve=$(awk -v s="$solve1" 'BEGIN { printf "%.0f ms", 1000 * s }')

say ""
say "## westd point queries against nginx (wrk)"
say ""
say "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
say "- machine: $cpu, nproc $(nproc), $mem, $(uname -sr)"
say "- tools: $wrkv; nginx $nginxv; westd $("$westd_bin" --version | awk '{ print $2 }')"
say "- command: tests/bench/westd-http.sh $westd_bin --duration $duration --connections $conns --threads $wthreads --http-threads $hthreads --post-every $post_every"
say "- wrk: -t$wthreads -c$conns -d${duration}s --latency; westd http_threads $hthreads, backend cpu, terrain data/default.asc"
say "- answer: $size bytes from westd, $nsize bytes ($nctype) from nginx (2 workers)"
say "- load average (1, 5, 15 min) before the runs: $load0; after: $load1"
if [ "$post_every" = 0 ]; then
	say "- observations: none during the runs (--post-every 0), only the first set"
else
	say "- observations: $posts POSTs, one every $post_every s during both runs ($posts_bad not 202), $((solve_n - 1)) solved after the first"
fi
say "- solve (1000 iterations max, tolerance 1e-4, grid ${gridsz:-?}): the first $first_solve (before wrk), the later ones $mean_solve on average (during wrk)"
say ""
say "| server | requests | requests/s | p50 (ms) | p90 (ms) | p99 (ms) | non-2xx/3xx | socket errors | field versions published |"
say "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
say "| westd $query | $w_total | $w_rps | $w_p50 | $w_p90 | $w_p99 | $w_non2xx | $w_sock | $((v1 - v0)) (v$v0 to v$v1) |"
say "| nginx static file | $n_total | $n_rps | $n_p50 | $n_p90 | $n_p99 | $n_non2xx | $n_sock | $((v3 - v2)) (v$v2 to v$v3) |"
say ""
say "westd / nginx requests/s: $ratio"
say "target (>= 10000 requests/s, p99 < 20 ms, no errors): $met"
