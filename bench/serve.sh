#!/bin/sh
# Serving load generator, side by side with wrk(1) on one machine in one run,
# against the same scripted server (tests/tools/serve_stub.py, one streamed
# token a request, so the client's cost is the HTTP and not the stream):
#  (a) CPU per request (user + system, whole process: start-up included) of
#      wrk and of fak bench serve at the same request rate (RATE, default 300
#      req/s, for 5 s): wrk paced by its Lua delay() (10 kept-alive
#      connections, each waiting 10 x 1000 / RATE ms before each request, so
#      its rate is a little under RATE by the server's time), then fak open
#      loop (Poisson arrivals) at the rate wrk reached; the ratio fak/wrk;
#      fak's send lag (p50, p99, max) at that rate (wrk has no schedule: its
#      accuracy is the rate it reached against RATE); and, labelled, wrk
#      closed loop (as fast as the server answers, 4 connections);
#  (b) fak's send lag at rising numbers of concurrent streams (a server that
#      takes 2 s per request: the streams in flight are about rate x 2);
#  (c) the same at 500 and 1,000 streams, with a server that takes 10 s per
#      request and writes one token a second (the Python stub cannot write
#      faster to so many streams), and the share of one core fak used;
#  (d) user-space instructions per request (valgrind's callgrind: a count,
#      not seconds, the same however busy the machine is), wrk and fak as
#      in (a), each split by the object that ran them (fak's own code,
#      libcurl, the C library, the loader), and the libcurl floor of (e):
#      what of fak's cost is libcurl's;
#  (e) like for like, interleaved: wrk in step as in (a), wrk with Poisson
#      arrivals (the arrivals fak replays), the floor of any client built on
#      this libcurl (bench/curl_floor.c: the same requests at the same rate,
#      responses thrown away) and fak: how much of (a)'s ratio is the
#      arrivals, how much libcurl's, how much fak's own.
# The Python stub is the ceiling of every figure here: it serves a few
# hundred requests a second on two cores.
# usage: bench/serve.sh BUILD/fak (PARTS=abc by default: any of a b c d e; RATE=N)
set -eu
fak=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
command -v wrk >/dev/null || { echo "serve: wrk is not installed (Debian: wrk)"; exit 1; }
tmp=$(mktemp -d)
pids=
trap 'for p in $pids; do kill $p 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
cd "$tmp"
stub() {	# stub NAME ARGS...: sets port
	name=$1
	shift
	python3 "$root/tests/tools/serve_stub.py" --port-file "$name.port" "$@" 2>/dev/null &
	pids="$pids $!"
	while [ ! -s "$name.port" ]; do sleep 0.05; done
	port=$(cat "$name.port")
}
load() { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"; }
# timed FILE CMD...: CMD's user and system CPU and its wall time, in seconds,
# into FILE ("U S E"), its exit status kept: wait4's rusage of that one child,
# to the microsecond (time(1) rounds to 10 ms, 5% of fak's 0.2 s in (a); and
# RUSAGE_CHILDREN would also count what ran before, such as the processes a
# python3 launcher like pyenv's shim waits for: 45 ms on one machine)
timed() {
	python3 -c 'import os, subprocess, sys, time
t = time.monotonic()
p = subprocess.Popen(sys.argv[2:])
_, status, r = os.wait4(p.pid, 0)
e = time.monotonic() - t
with open(sys.argv[1], "w") as f:
    f.write("%.6f %.6f %.6f\n" % (r.ru_utime, r.ru_stime, e))
rc = os.waitstatus_to_exitcode(status)
sys.exit(rc if rc >= 0 else 128 - rc)' "$@"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) b = 1; printf "%.2f", a / b }'; }

load
stub fast --ttft-ms 0 --itl-ms 0
url=http://127.0.0.1:$port/v1/completions
rate=${RATE:-300}
conns=10
delay=$(awk -v c=$conns -v r="$rate" 'BEGIN { printf "%d", c * 1000 / r + 0.5 }')
cat >post.lua <<LUA
wrk.method = "POST"
wrk.body = '{"prompt":[1,2,3,4,5,6,7,8],"max_tokens":1,"stream":true}'
wrk.headers["Content-Type"] = "application/json"
function delay() return $delay end
LUA
# wrk_run NAME ARGS...: sets n (requests) and per (us of CPU a request)
wrk_run() {
	name=$1
	shift
	timed "$name.time" wrk -t1 "$@" "$url" >"$name.out"
	n=$(awk '/requests in/ { print $1 }' "$name.out")
	per=$(tail -1 "$name.time" | awk -v n="$n" '{ printf "%.1f", ($1 + $2) * 1e6 / n }')
}
case ${PARTS:-abc} in *a*)
wrk_run paced -c$conns -d5s -s post.lua
wrk_n=$n wrk_per=$per
wrk_rate=$(awk -v n="$wrk_n" 'BEGIN { printf "%d", n / 5 + 0.5 }')
"$fak" bench trace --rate "$wrk_rate" --requests $((wrk_rate * 5)) --prompt-tokens 8 \
	--output-tokens 1 --vocab 100 --out t.json 2>/dev/null
timed fak.time "$fak" bench serve --endpoint "http://127.0.0.1:$port" \
	--trace t.json --format json --max-lag 1h >fak.json 2>fak.err || true
fak_n=$(jq .completed fak.json)
fak_per=$(tail -1 fak.time | awk -v n="$fak_n" '{ printf "%.1f", ($1 + $2) * 1e6 / (n ? n : 1) }')
echo "(a) at $wrk_rate req/s: wrk $wrk_per us CPU/request ($wrk_n requests in 5 s, asked" \
	"$rate req/s: $conns connections, delay() $delay ms); fak $fak_per us CPU/request" \
	"($fak_n completed, open loop); fak/wrk $(ratio "$fak_per" "$wrk_per")"
jq -r '"    fak send lag at \(.request_throughput | floor) req/s: p50 \(.schedule.lag_ms.p50)" +
	" ms, p99 \(.schedule.lag_ms.p99) ms, max \(.schedule.lag_ms.max) ms"' fak.json
sed 's/function delay.*//' post.lua >closed.lua
wrk_run closed -c4 -d5s -s closed.lua
echo "    wrk closed loop (4 connections, no delay): $((n / 5)) req/s, $per us CPU/request"
;; esac

# streams LABEL RATE SECONDS_OF_ARRIVALS OUTPUT_TOKENS SECONDS_A_REQUEST: one
# open-loop run at RATE against the running stub; its send lag, and fak's CPU
# time and share of one core
streams() {
	"$fak" bench trace --rate "$2" --requests $(($2 * $3)) --prompt-tokens 8 \
		--output-tokens "$4" --vocab 100 --seed "$2" --out s.json 2>/dev/null
	timed s.time "$fak" bench serve --endpoint \
		"http://127.0.0.1:$port" --trace s.json --format json --max-lag 1ms --timeout 60s \
		>s.out 2>/dev/null || true
	cpu=$(tail -1 s.time | awk '{ printf "%.2f s, %.0f%% of a core", $1 + $2,
		100 * ($1 + $2) / $3 }')
	jq -r --arg l "$1" --arg r "$2" --arg k "$5" --arg cpu "$cpu" '
		"\($l) \($r) req/s, ~\(($r | tonumber) * ($k | tonumber)) streams:" +
		" lag p50 \(.schedule.lag_ms.p50 * 1000 | floor / 1000) ms, p99" +
		" \(.schedule.lag_ms.p99 * 1000 | floor / 1000) ms, max" +
		" \(.schedule.lag_ms.max * 1000 | floor / 1000) ms, late \(.schedule.late);" +
		" \(.completed) of \(.requests) completed; fak CPU \($cpu)"' s.out
}

# floor: builds bench/curl_floor.c (parts (d) and (e))
floor() {
	[ -x floor ] || cc -std=c17 -O2 -o floor "$root/bench/curl_floor.c" -lcurl -lm ||
		{ echo "serve: (d) and (e) need a C compiler and libcurl's headers"; exit 1; }
}

# (d) and (e) run here, on the fast stub, before (b) and (c) replace it
# objects FILE N: callgrind's count of FILE by object, a request (N), "k"
objects() {
	callgrind_annotate --inclusive=no "$1" 2>/dev/null | awk -v n="$2" '
		/^ *[0-9,]+ \(/ && /\[/ {
			c = $1; gsub(",", "", c)
			o = $0; sub(/.*\[/, "", o); sub(/\].*/, "", o); sub(/.*\//, "", o)
			sub(/\.so.*/, "", o); k[o] += c; all += c
		}
		END {
			printf "%.1fk", all / n / 1000
			for (o in k) if (k[o] / all >= 0.02) printf " %s %.1fk", o, k[o] / n / 1000
		}'
}
case ${PARTS:-abc} in *d*)
	command -v valgrind >/dev/null || { echo "serve: (d) needs valgrind"; exit 1; }
	[ -n "${wrk_rate:-}" ] || wrk_rate=$(awk -v r="$rate" 'BEGIN { printf "%d", r * 0.98 }')
	valgrind --tool=callgrind --callgrind-out-file=wrk.cg wrk -t1 -c$conns -d5s \
		-s post.lua "$url" >wrk-cg.out 2>/dev/null
	wn=$(awk '/requests in/ { print $1 }' wrk-cg.out)
	"$fak" bench trace --rate "$wrk_rate" --requests $((wrk_rate * 5)) --prompt-tokens 8 \
		--output-tokens 1 --vocab 100 --out d.json 2>/dev/null
	valgrind --tool=callgrind --callgrind-out-file=fak.cg "$fak" bench serve --endpoint \
		"http://127.0.0.1:$port" --trace d.json --format json --max-lag 1h \
		>fak-cg.json 2>/dev/null || true
	fn=$(jq .completed fak-cg.json)
	floor
	timeout 120 valgrind --tool=callgrind --callgrind-out-file=floor.cg ./floor "$url" \
		"$wrk_rate" 5 >floor-cg.out 2>/dev/null || true
	ln=$(cat floor-cg.out)
	w=$(objects wrk.cg "$wn") f=$(objects fak.cg "$fn") l=$(objects floor.cg "$ln")
	echo "(d) user-space instructions a request (callgrind, objects of 2% or more): wrk $w" \
		"($wn requests); libcurl floor $l ($ln requests); fak $f ($fn requests);" \
		"floor/wrk $(ratio "${l%%k*}" "${w%%k*}"), fak/wrk $(ratio "${f%%k*}" "${w%%k*}")"
;; esac

# (e) like for like: wrk paced in step as in (a) (its ten connections wait
# the same delay() after each answer, so their requests leave in bunches and
# one wake-up serves several), wrk with Poisson arrivals (each connection
# waits an exponential time of the same mean: ten Poisson streams make one,
# the arrivals fak replays), the floor of a libcurl client
# (bench/curl_floor.c: wrk's requests, Poisson arrivals at the same rate,
# libcurl driven as fak drives it, responses thrown away: nothing timed,
# parsed or kept) and fak; three rounds, each in another order (the four
# rotate), each run's rate and CPU a request, and the ratios of the medians
# client K: runs client K (0..3) of (e); sets rps and per
client() {
	case $1 in
	0) wrk_run e-wrk -c$conns -d5s -s post.lua; rps=$((n / 5)) ;;
	1) wrk_run e-wrkp -c$conns -d5s -s poisson.lua; rps=$((n / 5)) ;;
	2) timed e-floor.time timeout 60 ./floor "$url" "$wrk_rate" 5 >e-floor.out || true
	   n=$(cat e-floor.out); n=${n:-0}
	   rps=$((n / 5)) per=$(per_of e-floor.time "$n") ;;
	3) timed e-fak.time "$fak" bench serve --endpoint "http://127.0.0.1:$port" \
		--trace e.json --format json --max-lag 1h >e-fak.json 2>/dev/null || true
	   rps=$(jq '.request_throughput | floor' e-fak.json)
	   per=$(per_of e-fak.time "$(jq .completed e-fak.json)") ;;
	esac
}
# per_of FILE N: us of CPU a request from timed's FILE and N requests
per_of() { tail -1 "$1" | awk -v n="$2" '{ printf "%.1f", ($1 + $2) * 1e6 / (n ? n : 1) }'; }
case ${PARTS:-abc} in *e*)
	floor
	[ -n "${wrk_rate:-}" ] || wrk_rate=$(awk -v r="$rate" 'BEGIN { printf "%d", r * 0.98 }')
	"$fak" bench trace --rate "$wrk_rate" --requests $((wrk_rate * 5)) --prompt-tokens 8 \
		--output-tokens 1 --vocab 100 --out e.json 2>/dev/null
	sed 's/function delay.*//' post.lua >poisson.lua
	cat >>poisson.lua <<LUA
math.randomseed(1)
function delay() return math.floor(-math.log(1 - math.random()) * $conns * 1000 / $rate + 0.5) end
LUA
	c0='' c1='' c2='' c3=''
	for r in 0 1 2; do
		line="    round $((r + 1)):"
		for k in 0 1 2 3; do
			i=$(((k + r) % 4))
			client $i
			eval "c$i=\"\$c$i $per\""
			line="$line $(echo "wrk-in-step wrk-Poisson floor fak" | cut -d' ' -f$((i + 1)))"
			line="$line $per us at $rps req/s;"
		done
		echo "$line"
	done
	# shellcheck disable=SC2086 # the list splits into its words
	med() { printf '%s\n' $1 | sort -n | sed -n 2p; }
	mw=$(med "$c0") mp=$(med "$c1") mf=$(med "$c2") mk=$(med "$c3")
	echo "(e) us CPU/request, wrk_rate $wrk_rate req/s asked of the floor and fak: wrk in" \
		"step$c0; wrk Poisson$c1; libcurl floor (Poisson)$c2; fak (Poisson)$c3"
	echo "    medians: wrk Poisson/wrk in step $(ratio "$mp" "$mw"); floor/wrk Poisson" \
		"$(ratio "$mf" "$mp"); fak/floor $(ratio "$mk" "$mf"); fak/wrk Poisson" \
		"$(ratio "$mk" "$mp"); fak/wrk in step $(ratio "$mk" "$mw")"
;; esac

case ${PARTS:-abc} in *b*|*c*) ;; *) load; exit 0 ;; esac
for p in $pids; do kill "$p" 2>/dev/null || true; done
pids=
# (b) streams in flight: each request takes 2 s (first token at 1 s, 20
# tokens 50 ms apart); rate r keeps about 2r streams open
stub slow --ttft-ms 1000 --itl-ms 50
for r in 25 50 100 200; do
	streams "(b)" "$r" 4 21 2
done

for p in $pids; do kill "$p" 2>/dev/null || true; done
pids=
# (c) 10 s a request (first token at 1 s, 10 tokens 1 s apart), 20 s of
# arrivals: rate r keeps about 10r streams open
# shellcheck disable=SC3045 # dash and bash have ulimit -n; without it (c) just keeps the limit
ulimit -n 8192 2>/dev/null || true
stub long --ttft-ms 1000 --itl-ms 1000
for r in 50 100; do
	streams "(c)" "$r" 20 10 10
done
load
