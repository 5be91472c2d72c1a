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
		jq -rs --arg w "$((t1 - t0))" '"\($w) \([.[].baseline_window.duration_ns] | add) \([.[].command_window.duration_ns] | add) \(length)"'
}
hf_once() {	# prints: wall_ns
	t0=$(now)
	hyperfine -N --warmup 1 --runs 3 --style none "$base" "$cand" >/dev/null 2>&1 ||
		hyperfine --warmup 1 --runs 3 --style none "$base" "$cand" >/dev/null
	t1=$(now)
	echo "$((t1 - t0))"
}

. "$root/bench/rounds.sh"
ratio_rounds "$rounds"
echo "(including its two sha256 of the 288 MiB artifact, before the first run and after the last, spread over the 8 runs)"
