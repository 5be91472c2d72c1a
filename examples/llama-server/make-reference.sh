#!/bin/sh
# The serving example's quality reference (quality-reference.json, what experiment.sh gives
# fak bench experiment --quality-prompts): llama-server in the plainest configuration of
# the levers (one slot, no continuous batching, no prompt cache; the envelopes' base
# flags), started alone on a port the OS picks, answers each prompt of quality-prompts.json
# greedily, and fak bench serve --write-reference records its outputs as the references of
# a new file OUT.
#
#   examples/llama-server/make-reference.sh OUT
#
# FAK (build/fak) and LLAMA_DIR (build/llama-cpp) may be set.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: make-reference.sh OUT}
FAK=${FAK:-$top/build/fak}
dir=${LLAMA_DIR:-$top/build/llama-cpp}
server=$dir/build/bin/llama-server
model=$dir/model-q4_k_m.gguf
[ -x "$server" ] && [ -f "$model" ] ||
	{ echo "make-reference.sh: run make example-llama-build first" >&2; exit 1; }
log=$(mktemp)
pid=
# shellcheck disable=SC2317  # called by the trap
stop() { [ -z "$pid" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || :; }; rm -f "$log"; }
trap stop EXIT
trap 'exit 130' INT TERM
"$server" -m "$model" --host 127.0.0.1 --port 0 -t 1 -tb 1 -c 2048 -fa off --no-webui \
	-np 1 -nocb --no-cache-prompt >"$log" 2>&1 &
pid=$!
port= i=0
while [ -z "$port" ]; do
	kill -0 "$pid" 2>/dev/null || { tail -5 "$log" >&2; echo "make-reference.sh: llama-server exited" >&2; exit 1; }
	[ $i -lt 600 ] || { echo "make-reference.sh: llama-server did not listen within 60 s" >&2; exit 1; }
	port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "$log" | head -1)
	[ -n "$port" ] || { sleep 0.1; i=$((i + 1)); }
done
"$FAK" bench serve --endpoint "http://127.0.0.1:$port" --ready-timeout 60s \
	--quality-prompts "$top/examples/llama-server/quality-prompts.json" --write-reference "$out"
