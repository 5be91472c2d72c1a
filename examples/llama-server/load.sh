#!/bin/sh
# One serving run of the example (make example-serve-load): starts llama-server with the
# example's model on a port the OS picks, waits until /health answers 200, replays the
# committed trace through fak bench serve (open loop, streaming, --format json), stops the
# server (SIGTERM, SIGKILL after 10 s) and prints the summary (fak-serving-summary/v1) on
# stdout, its text form on stderr.
#
#   examples/llama-server/load.sh OUT-DIR [LLAMA-SERVER FLAGS...]
#
# OUT-DIR must not exist; it receives server.log (llama-server's output), requests.jsonl
# (the per-request log, fak-serving-log/v1) and summary.json, written only by a run that
# replayed the trace. The server always gets -m MODEL --host 127.0.0.1 --port 0 and the
# envelope's -t 1 -tb 1 -c 2048 --no-webui; the FLAGS follow (llama.cpp takes the last of a
# repeated flag) and default to -np 4 (llama-server's defaults otherwise: continuous
# batching, prompt caching, -b 2048 -ub 512).
#
# Environment: LLAMA_DIR (build/llama-cpp: make example-llama-build), FAK (build/fak),
# TRACE (examples/llama-server/trace.json), MAX_LAG (fak bench serve --max-lag, 1ms),
# START_TIMEOUT (seconds until llama-server listens, 60).
#
# The exit status is fak bench serve's: 0 for a clean run; 1 when a request failed or the
# client fell behind its schedule (the summary says which); 2 when no run took place.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
me=example-serve
die() { echo "$me: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: examples/llama-server/load.sh OUT-DIR [LLAMA-SERVER FLAGS...]"
out=$1
shift
[ $# -gt 0 ] || set -- -np 4
LLAMA_DIR=${LLAMA_DIR:-$top/build/llama-cpp}
FAK=${FAK:-$top/build/fak}
TRACE=${TRACE:-$top/examples/llama-server/trace.json}
server=$LLAMA_DIR/build/bin/llama-server
model=$LLAMA_DIR/model-q4_k_m.gguf
[ -x "$server" ] || die "'$server' is missing: run make example-llama-build (it builds llama-server)"
[ -f "$model" ] || die "'$model' is missing: run make example-llama-build (it generates the model)"
[ -x "$FAK" ] || die "'$FAK' is missing: run make"
[ -f "$TRACE" ] || die "'$TRACE' is missing: name a trace (fak bench trace)"
[ ! -e "$out" ] && [ ! -L "$out" ] || die "'$out' exists: name a new folder (a run's files are evidence)"
mkdir -p "$(dirname "$out")"
mkdir "$out" || die "cannot create '$out'"
# the run's files land under their own names only when the run took place
tmp=$out/.partial
mkdir "$tmp"

pid=
stop() {	# SIGTERM, then SIGKILL after 10 s; reaps the server
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || true
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "$me: llama-server did not stop within 10 s of SIGTERM: SIGKILL" >&2
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
	pid=
}
trap 'stop; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$server" -m "$model" --host 127.0.0.1 --port 0 -t 1 -tb 1 -c 2048 --no-webui "$@" \
	>"$out/server.log" 2>&1 </dev/null &
pid=$!

# the port: llama-server says "listening on http://127.0.0.1:PORT" once it is bound
port=
i=0
limit=$((${START_TIMEOUT:-60} * 10))
while [ -z "$port" ]; do
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid" && rc=0 || rc=$?
		pid=
		echo "$me: llama-server exited (status $rc) before it listened; the end of $out/server.log:" >&2
		tail -5 "$out/server.log" >&2
		exit 2
	fi
	[ $i -lt "$limit" ] || die "llama-server did not listen within ${START_TIMEOUT:-60} s; see $out/server.log"
	port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "$out/server.log" | head -1)
	[ -n "$port" ] || { sleep 0.1; i=$((i + 1)); }
done

rc=0
"$FAK" bench serve --endpoint "http://127.0.0.1:$port" --trace "$TRACE" --ready-timeout 60s \
	--max-lag "${MAX_LAG:-1ms}" --log "$tmp/requests.jsonl" --format json \
	>"$tmp/summary.json" 2>"$tmp/serve.err" || rc=$?
stop
cat "$tmp/serve.err" >&2
# no log: nothing was sent (the server never became ready)
[ -f "$tmp/requests.jsonl" ] || exit 2
mv "$tmp/requests.jsonl" "$out/requests.jsonl"
mv "$tmp/summary.json" "$out/summary.json"
cat "$out/summary.json"
# the text form (its verdict on the schedule was said above)
"$FAK" bench serve --from-log "$out/requests.jsonl" --trace "$TRACE" >&2 2>/dev/null || true
echo "$me: llama-server $* on port $port: $out" >&2
exit $rc
