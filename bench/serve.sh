#!/bin/sh
# Serving load generator, side by side with wrk(1) on one machine in one run,
# against the same scripted server (tests/tools/serve_stub.py, one streamed
# token a request, so the client's cost is the HTTP and not the stream):
#  (a) CPU per request (user + system) of fak bench serve, open loop at a
#      quarter of the rate wrk reached (at most 500 req/s), against wrk's
#      own; wrk is closed loop (as fast as the server answers, over 4
#      kept-alive connections) and has no schedule, so the rates differ;
#  (b) fak's send lag (p50, p99, max) at that rate, and at rising numbers of
#      concurrent streams (a server that takes 2 s per request: the streams
#      in flight are about rate x 2) until a send is later than 1 ms;
#  (c) the same at 500 and 1,000 streams, with a server that takes 10 s per
#      request and writes one token a second (the Python stub cannot write
#      faster to so many streams), and the share of one core fak used.
# The Python stub is the ceiling of every figure here: it serves a few
# hundred requests a second on two cores.
# usage: bench/serve.sh BUILD/fak
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
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) b = 1; printf "%.2f", a / b }'; }

stub fast --ttft-ms 0 --itl-ms 0
cat >post.lua <<'LUA'
wrk.method = "POST"
wrk.body = '{"prompt":[1,2,3,4,5,6,7,8],"max_tokens":1,"stream":true}'
wrk.headers["Content-Type"] = "application/json"
LUA
# wrk: 4 connections, 5 s
/usr/bin/time -f '%U %S' -o wrk.time wrk -t1 -c4 -d5s -s post.lua \
	"http://127.0.0.1:$port/v1/completions" >wrk.out
wrk_n=$(awk '/requests in/ { print $1 }' wrk.out)
wrk_cpu=$(tail -1 wrk.time | awk '{ print ($1 + $2) * 1e6 }')
# open loop opens a connection per overlapping request, which the stub takes
# far more slowly than wrk's 4 kept-alive ones: a quarter of wrk's rate, at
# most 500 req/s, for 5 s
rate=$(awk -v n="$wrk_n" 'BEGIN { r = int(n / 20); if (r > 500) r = 500; if (r < 1) r = 1; print r }')
"$fak" bench trace --rate "$rate" --requests $((rate * 5)) --prompt-tokens 8 --output-tokens 1 \
	--vocab 100 --out t.json 2>/dev/null
/usr/bin/time -f '%U %S' -o fak.time "$fak" bench serve --endpoint "http://127.0.0.1:$port" \
	--trace t.json --format json --max-lag 1h >fak.json 2>fak.err || true
fak_n=$(jq .completed fak.json)
fak_cpu=$(tail -1 fak.time | awk '{ print ($1 + $2) * 1e6 }')
wrk_per=$(awk -v c="$wrk_cpu" -v n="$wrk_n" 'BEGIN { printf "%.1f", c / n }')
fak_per=$(awk -v c="$fak_cpu" -v n="$fak_n" 'BEGIN { printf "%.1f", c / (n ? n : 1) }')
echo "(a) wrk $wrk_per us CPU/request ($wrk_n requests, closed loop, 4 connections);" \
	"fak $fak_per us CPU/request ($fak_n completed, open loop at $rate req/s);" \
	"fak/wrk $(ratio "$fak_per" "$wrk_per")"
jq -r '"    fak send lag at \(.request_throughput | floor) req/s: p50 \(.schedule.lag_ms.p50)" +
	" ms, p99 \(.schedule.lag_ms.p99) ms, max \(.schedule.lag_ms.max) ms"' fak.json

# streams LABEL RATE SECONDS_OF_ARRIVALS OUTPUT_TOKENS SECONDS_A_REQUEST: one
# open-loop run at RATE against the running stub; its send lag, and fak's CPU
# time and share of one core
streams() {
	"$fak" bench trace --rate "$2" --requests $(($2 * $3)) --prompt-tokens 8 \
		--output-tokens "$4" --vocab 100 --seed "$2" --out s.json 2>/dev/null
	/usr/bin/time -f '%U %S %e' -o s.time "$fak" bench serve --endpoint \
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

for p in $pids; do kill $p 2>/dev/null || true; done
pids=
# (b) streams in flight: each request takes 2 s (first token at 1 s, 20
# tokens 50 ms apart); rate r keeps about 2r streams open
stub slow --ttft-ms 1000 --itl-ms 50
for r in 25 50 100 200; do
	streams "(b)" "$r" 4 21 2
done

for p in $pids; do kill $p 2>/dev/null || true; done
pids=
# (c) 10 s a request (first token at 1 s, 10 tokens 1 s apart), 20 s of
# arrivals: rate r keeps about 10r streams open
ulimit -n 8192 2>/dev/null || true
stub long --ttft-ms 1000 --itl-ms 1000
for r in 50 100; do
	streams "(c)" "$r" 20 10 10
done
