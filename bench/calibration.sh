#!/bin/sh
# Does the comparison cry wolf, and does it see a real effect? On the CPU
# example with fak bench experiment, 10 + 10 interleaved repetitions:
#   A/A: the same command in both arms, N times: the verdict must be
#        "no detectable change" in at least 90% of them;
#   A/B: the lever cpu.drop-row-recheck (the baseline re-computes 1 of
#        every 12 rows; a known cost of about 5%), N times: the verdict must
#        be "faster" in at least 80% of them.
# On the same samples it also reports what the naive rule (the difference of
# the means beyond the envelope's noise threshold) would have called.
# The example envelope pins 3 repetitions; this runs a variant of its graph
# (made here, not committed) that pins 10, everything else equal.
# usage: [REPS=10] [KERNEL=blocked] bench/calibration.sh BUILD/fak [N]
#        (N experiments of each kind, default 20; REPS repetitions per arm)
set -eu
fak=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
n=${2:-20}
reps=${REPS:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(dirname "$fak")
cd "$root"
rel=${build#"$root"/}
make -s BUILD="$rel" example-build >/dev/null
tmp=$(mktemp -d "$rel/calibration.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
graph=$tmp/graph.json
jq --argjson r "$reps" '.envelopes[0].repetitions = $r | .envelope.repetitions = $r' examples/cpu-decode/graph.json >"$graph"
threshold=$(jq '.criteria[].maximum_noise_percent' "$graph")
run="$rel/example/decode --weights $rel/example/weights.bin --reference examples/cpu-decode/reference.txt"
run="$run --prompt-tokens 2 --decode-tokens 5 --kernel ${KERNEL:-blocked}"
rev=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unversioned)

one() {	# one KIND I BASELINE CANDIDATE: prints "verdict naive shift% lower% repetitions_needed"
	out=$tmp/$1-$2
	"$fak" bench experiment cpu.drop-row-recheck --graph "$graph" --baseline "$3" --candidate "$4" \
		--out-dir "$out" --artifact "$rel/example/weights.bin" \
		--profile-artifact "$rel/example/profile.json" --revision "$rev" --module cpu-decode@calibration \
		--baseline-duration 10ms >/dev/null
	jq -r --argjson t "$threshold" '
	  .statistics.tokens_per_second as $s
	  | ($s.verdict | gsub(" "; "_")) + " "
	    + (if .delta_percent > $t then "faster" elif .delta_percent < -$t then "slower"
	       else "no_detectable_change" end) + " "
	    + ($s.shift_percent * 100 | round / 100 | tostring) + " "
	    + ($s.interval_percent.lower * 100 | round / 100 | tostring) + " "
	    + (($s.repetitions_needed // "none") | tostring)' "$out/comparison.json"
	rm -rf "$out"
}

: >"$tmp/aa"
: >"$tmp/ab"
i=1
while [ "$i" -le "$n" ]; do
	one aa "$i" "$run" "$run" >>"$tmp/aa"
	one ab "$i" "$run" "$run --no-row-check" >>"$tmp/ab"
	printf 'round %d/%d  A/A %s  A/B %s\n' "$i" "$n" "$(tail -1 "$tmp/aa")" "$(tail -1 "$tmp/ab")" >&2
	i=$((i + 1))
done
rate() { awk -v w="$2" -v c="$3" '{ t++; if ($c == w) k++ } END { printf "%d/%d (%.0f%%)", k, t, 100 * k / t }' "$1"; }
echo "A/A, same command both arms ($n experiments, $reps+$reps interleaved):"
echo "  fak verdict no_detectable_change: $(rate "$tmp/aa" no_detectable_change 1)   target >= 90%"
echo "  naive rule  no_detectable_change: $(rate "$tmp/aa" no_detectable_change 2)"
echo "A/B, cpu.drop-row-recheck (a known ~5% cost) ($n experiments):"
echo "  fak verdict faster:               $(rate "$tmp/ab" faster 1)   target >= 80%"
echo "  naive rule  faster:               $(rate "$tmp/ab" faster 2)"
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "  shift measured (median):          $(awk '{ print $3 }' "$tmp/ab" | med)%"
echo "  interval's lower end (median):    $(awk '{ print $4 }' "$tmp/ab" | med)%   (faster needs it above the threshold, $threshold%)"
echo "  repetitions per arm fak said would resolve the shift at 95% (median): $(awk '$5 != "none" { print $5 }' "$tmp/ab" | med | grep . || echo "none: every shift was within the threshold")"
