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

echo "round  fak (ms, quiet windows excluded)  hyperfine (ms)  ratio  fak's own ms per run"
: >"$tmp/ratios"
: >"$tmp/own"
i=1
while [ "$i" -le "$rounds" ]; do
	if [ $((i % 2)) = 1 ]; then
		set -- $(fak_once $i) $(hf_once)
	else
		h=$(hf_once)
		set -- $(fak_once $i) $h
	fi
	# $1 fak wall, $2 its quiet windows, $3 its command windows, $4 its runs, $5 hyperfine wall
	awk -v fw="$1" -v q="$2" -v fc="$3" -v n="$4" -v hw="$5" -v i="$i" 'BEGIN {
		f = fw - q; r = f / hw
		fo = (f - fc) / n / 1e6
		printf "%5d  %33.1f  %14.1f  %.3f  %20.1f\n", i, f / 1e6, hw / 1e6, r, fo
		printf "%.4f\n", r >> "'"$tmp"'/ratios"
		printf "%.3f\n", fo >> "'"$tmp"'/own"
	}'
	i=$((i + 1))
done
med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "median ratio fak/hyperfine: $(med <"$tmp/ratios")"
echo "median cost of fak per run beyond the command's run time: $(med <"$tmp/own") ms"
