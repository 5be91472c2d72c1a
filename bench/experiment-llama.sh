#!/bin/sh
# fak bench experiment's own cost on the real engine: the llama.cpp example's A/B
# (llama.threads-2: llama-bench -p 128 -n 64 -r 3, 1 warm-up and 3 runs per arm, then
# each arm's quality run) against hyperfine running the same commands the same number
# of times (`hyperfine -N --warmup 1 --runs 3` for the two llama-bench commands, then
# each quality command once), alternating which goes first. fak's wall time is taken
# without its quiet windows (each run's baseline_window, from its attestations): what is
# left is the commands plus everything fak adds (sampling, capture, digests, sealing,
# fsync'd writes, receipts, comparison, gate). Prints each round's ratio and the median,
# and fak's cost per run beyond the command windows its attestations record.
# usage: bench/experiment-llama.sh BUILD/fak [ROUNDS]   (after make example-llama-build)
set -eu
fak=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
rounds=${2:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v hyperfine >/dev/null || { echo "bench/experiment-llama.sh: hyperfine is not installed" >&2; exit 1; }
dir=build/llama-cpp
[ -x "$dir/build/bin/llama-bench" ] || { echo "bench/experiment-llama.sh: run make example-llama-build" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
FAK_ARTIFACT=$root/$dir/model-q4_k_m.gguf
export FAK_ARTIFACT
run="$dir/build/bin/llama-bench -m $FAK_ARTIFACT -p 128 -n 64 -r 3 -o jsonl"
base="$run -t 1 -fa off -ctk f16 -ctv f16"
cand="$run -t 2 -fa off -ctk f16 -ctv f16"
q="examples/llama-cpp/quality.sh $dir/build/bin '-t 1 -fa off -ctk f16 -ctv f16' '-t 2 -fa off -ctk f16 -ctv f16'"
now() { date +%s%N; }

fak_once() {	# prints: wall_ns quiet_ns commands_ns runs
	out=$tmp/xp-$1
	t0=$(now)
	GRAPH=examples/llama-cpp/graph.json FAK=$fak LLAMA_DIR=$dir examples/llama-cpp/experiment.sh \
		"$out" --baseline-duration 10ms >/dev/null
	t1=$(now)
	cat "$out"/attestations/*.json | jq -rs --arg w "$((t1 - t0))" \
		'"\($w) \([.[].baseline_window.duration_ns] | add) \([.[].command_window.duration_ns] | add) \(length)"'
}
hf_once() {	# prints: wall_ns
	t0=$(now)
	hyperfine -N --warmup 1 --runs 3 --style none "$base" "$cand" >/dev/null 2>&1
	FAK_ARM=baseline sh -c "$q" >/dev/null
	FAK_ARM=candidate sh -c "$q" >/dev/null
	t1=$(now)
	echo "$((t1 - t0))"
}

. "$root/bench/rounds.sh"
ratio_rounds "$rounds"
