#!/bin/sh
# The serving example's A/B (make example-serve): lever LEVER of graph.json (default
# llama-server.shared-prefix-cache) by fak bench experiment --serve-trace, each run a
# fresh llama-server on $FAK_PORT replaying the trace its envelope pins (trace-prefix.json
# for shared-prefix-cache, trace.json for the others); every run's server first answers the
# quality prompts of quality-reference.json alone, greedily, and its exact match against
# their references is the run's quality (make-reference.sh wrote them).
#
#   examples/llama-server/experiment.sh OUT_DIR [LEVER] [fak bench experiment options...]
#
# FAK (build/fak), LLAMA_DIR (build/llama-cpp), GRAPH (examples/llama-server/graph.json)
# and WITNESS_ROOT (build/example-serve/witnesses) may be set; DRY_RUN=1 prints the lever
# and the two arms' flags instead of running them.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: experiment.sh OUT_DIR [LEVER] [options...]}
shift
abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
out=$(abs "$out")
FAK=$(abs "${FAK:-$top/build/fak}")
graph=$(abs "${GRAPH:-$top/examples/llama-server/graph.json}")
dir=$(abs "${LLAMA_DIR:-$top/build/llama-cpp}")
witnesses=$(abs "${WITNESS_ROOT:-$top/build/example-serve/witnesses}")
cd "$top"
# commands go into public receipts: name the tools by a path relative to the repository
case "$dir" in "$top"/*) dir=${dir#"$top"/} ;; esac
lever=llama-server.shared-prefix-cache
case "${1:-}" in
llama-server.*) lever=$1; shift ;;
esac
server=$dir/build/bin/llama-server
model=$dir/model-q4_k_m.gguf
[ -x "$server" ] && [ -f "$model" ] ||
	{ echo "experiment.sh: run make example-llama-build first" >&2; exit 1; }
# each lever's two arms and trace, as make-graph.sh states them
trace=examples/llama-server/trace.json
case "$lever" in
llama-server.shared-prefix-cache) off="-np 4 --no-cache-prompt" on="-np 4 --cache-prompt"
	trace=examples/llama-server/trace-prefix.json ;;
llama-server.slots-4) off="-np 1 -nocb --no-cache-prompt" on="-np 4 -nocb --no-cache-prompt" ;;
llama-server.continuous-batching) off="-np 4 -nocb --no-cache-prompt" on="-np 4 --no-cache-prompt" ;;
llama-server.prompt-cache) off="-np 4 -nocb --no-cache-prompt" on="-np 4 -nocb --cache-prompt" ;;
llama-server.cache-reuse) off="-np 4 -nocb --cache-prompt --cache-reuse 0"
	on="-np 4 -nocb --cache-prompt --cache-reuse 32" ;;
llama-server.chunked-prefill) off="-np 4 --no-cache-prompt -b 2048 -ub 512"
	on="-np 4 --no-cache-prompt -b 32 -ub 32" ;;
*) echo "experiment.sh: the example has no flags for lever '$lever'" >&2; exit 1 ;;
esac
# the envelopes' base command (make-graph.sh): one thread, flash attention off as the
# reference was decoded (with it on, llama-server's greedy output leaves the reference
# after 8 tokens)
flags="-t 1 -tb 1 -c 2048 -fa off --no-webui"
base="$flags $off" cand="$flags $on"
if [ "${DRY_RUN:-}" = 1 ]; then
	printf 'lever %s\nbaseline %s\ncandidate %s\n' "$lever" "$base" "$cand"
	exit 0
fi
run="exec $server -m \"\$FAK_ARTIFACT\" --port \"\$FAK_PORT\""
commit=$(git -C "$dir/src" rev-parse --short=7 HEAD)
rev=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unversioned)
exec "$FAK" bench experiment "$lever" --graph "$graph" --witness-root "$witnesses" \
	--serve-trace "$trace" \
	--baseline "$run $base" --candidate "$run $cand" --out-dir "$out" \
	--quality-prompts examples/llama-server/quality-reference.json \
	--artifact "$model" --revision "$rev" --module "llama.cpp@$commit" "$@"
