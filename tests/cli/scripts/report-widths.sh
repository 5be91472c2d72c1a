# Human text fits 100 columns: the readout of the committed graph (the
# issue's bar), and every text report of every mode on the committed,
# example and hostile fixtures. Columns are code points; a line over 100
# fails with its text.
# fak-test: slow
set -u
. "$FIX/experiment/lib.sh"
R=$FIX/reports
# check NAME: stdin is the text, kept as texts/NAME; widths DIR prints the
# lines over 100 columns of every file in DIR (one python for them all)
mkdir texts
check() {
	cat >"texts/$(printf '%s' "$1" | tr -c 'A-Za-z0-9.-' _)"
}
widths() {
	python3 -c '
import os, sys
for name in sorted(os.listdir(sys.argv[1])):
	for l in open(os.path.join(sys.argv[1], name), encoding="utf-8").read().split("\n"):
		if len(l) > 100:
			print("%s: %d columns: %s" % (name, len(l), l))' "$1"
}
np() { "$FAK" native-performance "$@"; }
np | check "readout of the committed graph"
np --graph "$ROOT/examples/cpu-decode/graph.json" | check "readout of the example graph"
np --graph "$R/hostile-graph.json" | check "readout of the hostile graph"
np --next | check "--next"
np --graph "$R/hostile-graph.json" --next | check "--next hostile"
np --compare "$FIX/receipts/metal-baseline-attested.json" --candidate "$FIX/receipts/metal-candidate-attested.json" |
	check "--compare"
np --graph "$R/hostile-graph.json" --compare "$R/hostile-baseline.json" --candidate "$R/hostile-candidate.json" |
	check "--compare hostile"
np --graph "$R/xp-graph.json" --compare "$R/xp-baseline.json" --candidate "$R/xp-candidate.json" |
	check "--compare ordered"
for q in "$FIX"/gate/*.json; do	# the CUDA ones are pinned to valid-cuda-pinned.json's artifact
	np --graph "$FIX/graphs/valid-cuda-pinned.json" --gate "$q" 2>/dev/null |
		check "--gate $(basename "$q")"
done
np --graph "$R/hostile-graph.json" --gate "$R/hostile-gate.json" | check "--gate hostile"
for p in "$FIX"/profiles/synthetic-*.json; do
	np --profile "$p" | check "--profile $(basename "$p")"
	np --profile-next "$p" | check "--profile-next $(basename "$p")"
done
np --graph "$R/hostile-graph.json" --profile-next "$R/hostile-profile.json" | check "--profile-next hostile"
xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir run | check "bench experiment"
grep -q '^gate ' "texts/bench_experiment" || { cat texts/bench_experiment; echo "FAIL no runner summary"; exit 1; }
[ "$(ls texts | wc -l)" -ge 20 ] || { ls texts; echo "FAIL too few reports checked"; exit 1; }
widths texts >wide
cat wide
[ ! -s wide ] || exit 1
# the check itself must be able to fail
rm -r texts && mkdir texts
printf '%100s\n' x | check "a line of 100 columns"
[ -z "$(widths texts)" ] || { echo "FAIL a line of 100 columns counted as too wide"; exit 1; }
printf '%101s\n' x | check "a line of 101 columns"
[ -n "$(widths texts)" ] || { echo "FAIL a line of 101 columns went unnoticed"; exit 1; }
echo "every text report fits 100 columns"
