#!/bin/sh
# fak bench experiment's own cost against hyperfine running the same two
# commands the same number of times (1 warm-up and 3 runs each, the example
# envelope's), on the real example workload, alternating which goes first.
# fak's wall time is taken without its quiet windows (each run's
# baseline_window, read from its attestations): what is left is the
# commands plus everything fak adds (sampling, capture, digests, sealing,
# fsync'd writes, receipts, comparison, gate). Prints each pair's ratio and
# the median; the target is <= 1.05.
# usage: bench/experiment.sh BUILD/fak [ROUNDS]
set -eu
fak=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
rounds=${2:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(dirname "$fak")
cd "$root"
rel=${build#"$root"/}
command -v hyperfine >/dev/null || { echo "bench/experiment.sh: hyperfine is not installed" >&2; exit 1; }
make -s BUILD="$rel" example-build >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run="$rel/example/decode --weights $rel/example/weights.bin --reference examples/cpu-decode/reference.txt"
run="$run --prompt-tokens 2 --decode-tokens 5"
base="$run --kernel scalar"
cand="$run --kernel blocked"
now() { date +%s%N; }

fak_once() {	# prints: wall_ns quiet_ns
	out=$tmp/xp-$1
	t0=$(now)
	BUILD=$rel FAK=$fak examples/cpu-decode/experiment.sh "$out" --baseline-duration 10ms >/dev/null
	t1=$(now)
	q=$(cat "$out"/attestations/*.json | jq -s '[.[].baseline_window.duration_ns] | add')
	echo "$((t1 - t0)) $q"
}
hf_once() {	# prints: wall_ns
	t0=$(now)
	hyperfine -N --warmup 1 --runs 3 --style none "$base" "$cand" >/dev/null 2>&1 ||
		hyperfine --warmup 1 --runs 3 --style none "$base" "$cand" >/dev/null
	t1=$(now)
	echo "$((t1 - t0))"
}

echo "round  fak (ms, quiet windows excluded)  hyperfine (ms)  ratio"
: >"$tmp/ratios"
i=1
while [ "$i" -le "$rounds" ]; do
	if [ $((i % 2)) = 1 ]; then
		set -- $(fak_once $i)
		h=$(hf_once)
	else
		h=$(hf_once)
		set -- $(fak_once $i)
	fi
	f=$(($1 - $2))
	r=$(awk -v a="$f" -v b="$h" 'BEGIN { printf "%.3f", a / b }')
	awk -v i="$i" -v f="$f" -v h="$h" -v r="$r" 'BEGIN { printf "%5d  %33.1f  %14.1f  %s\n", i, f / 1e6, h / 1e6, r }'
	echo "$r" >>"$tmp/ratios"
	i=$((i + 1))
done
med=$(sort -n "$tmp/ratios" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo "median ratio fak/hyperfine: $med (target <= 1.05)"
