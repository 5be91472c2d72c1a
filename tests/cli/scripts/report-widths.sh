# Human text fits 100 columns: the readout of the committed graph (the
# issue's bar), and every text report of every mode on the committed,
# example and hostile fixtures. Columns are code points; a line over 100
# fails with its text.
set -u
. "$FIX/experiment/lib.sh"
R=$FIX/reports
# check NAME: stdin is the text; the lines over 100 columns go to ./wide
# (each check runs in a pipeline, so a variable would not survive it)
: >wide
check() {
	python3 -c '
import sys
bad = [l for l in sys.stdin.read().split("\n") if len(l) > 100]
for l in bad:
	print("%s: %d columns: %s" % (sys.argv[1], len(l), l))
sys.exit(1 if bad else 0)' "$1" >>wide
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
for q in "$FIX"/gate/*.json; do
	np --gate "$q" 2>/dev/null | check "--gate $(basename "$q")"
done
np --graph "$R/hostile-graph.json" --gate "$R/hostile-gate.json" | check "--gate hostile"
for p in "$FIX"/profiles/synthetic-*.json; do
	np --profile "$p" | check "--profile $(basename "$p")"
	np --profile-next "$p" | check "--profile-next $(basename "$p")"
done
np --graph "$R/hostile-graph.json" --profile-next "$R/hostile-profile.json" | check "--profile-next hostile"
xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir run | check "bench experiment"
cat wide
[ ! -s wide ] || exit 1
# the check itself must be able to fail
printf '%100s\n' x | check "a line of 100 columns"
[ ! -s wide ] || { echo "FAIL a line of 100 columns counted as too wide"; exit 1; }
printf '%101s\n' x | check "a line of 101 columns"
[ -s wide ] || { echo "FAIL a line of 101 columns went unnoticed"; exit 1; }
echo "every text report fits 100 columns"
