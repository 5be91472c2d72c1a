#!/bin/sh
# fak bench experiment's own cost against hyperfine running the same two
# commands the same number of times (1 warm-up and 3 runs each, the example
# envelope's), on the real example workload, alternating which goes first.
# fak's wall time is taken without its quiet windows (each run's
# baseline_window, read from its attestations): what is left is the
# commands plus everything fak adds (sampling, capture, digests, sealing,
# fsync'd writes, receipts, comparison, gate). Prints each pair's ratio and
# the median; the target is <= 1.05. Because the workload's own run time
# varies by a few percent between rounds, it also prints fak's cost per run
# beyond the command's run time: wall minus quiet windows minus the command
# windows its attestations record.
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
rev=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unversioned)
mod=$(sha256sum examples/cpu-decode/decode.c | cut -c1-12)
now() { date +%s%N; }

fak_once() {	# prints: wall_ns quiet_ns commands_ns
	out=$tmp/xp-$1
	t0=$(now)
	"$fak" bench experiment cpu.q8-row-blocked-sse2-matvec --graph examples/cpu-decode/graph.json \
		--baseline "$base" --candidate "$cand" --out-dir "$out" --artifact "$rel/example/weights.bin" \
		--profile-artifact "$rel/example/profile.json" --revision "$rev" --module "cpu-decode@$mod" \
		--baseline-duration 10ms >/dev/null
	t1=$(now)
	cat "$out"/attestations/*.json |
		jq -rs --arg w "$((t1 - t0))" '"\($w) \([.[].baseline_window.duration_ns] | add) \([.[].command_window.duration_ns] | add)"'
}
hf_once() {	# prints: wall_ns
	t0=$(now)
	hyperfine -N --warmup 1 --runs 3 --style none "$base" "$cand" >/dev/null 2>&1 ||
		hyperfine --warmup 1 --runs 3 --style none "$base" "$cand" >/dev/null
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
	# $1 fak wall, $2 its quiet windows, $3 its command windows (8 runs), $4 hyperfine wall
	awk -v fw="$1" -v q="$2" -v fc="$3" -v hw="$4" -v i="$i" 'BEGIN {
		f = fw - q; r = f / hw
		fo = (f - fc) / 8 / 1e6
		printf "%5d  %33.1f  %14.1f  %.3f  %20.1f\n", i, f / 1e6, hw / 1e6, r, fo
		printf "%.4f\n", r >> "'"$tmp"'/ratios"
		printf "%.3f\n", fo >> "'"$tmp"'/own"
	}'
	i=$((i + 1))
done
med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "median ratio fak/hyperfine: $(med <"$tmp/ratios") (target <= 1.05)"
echo "median cost of fak per run beyond the command's run time: $(med <"$tmp/own") ms"
echo "(including its one sha256 of the 288 MiB artifact before the first run, spread over the 8 runs)"
