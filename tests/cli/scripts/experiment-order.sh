# The order a comparison reports is the one that ran: blocked runs warn,
# random runs record their seed and replay it, and the two receipts of
# different experiments are refused as a pair.
set -u
. "$FIX/experiment/lib.sh"
cmp_text() { "$FAK" native-performance --graph graph.json --compare "$1/baseline.json" --candidate "$2/candidate.json"; }

xp --order blocked --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=101 ./bench.sh' --out-dir blocked >/dev/null ||
	fail "blocked run"
order=$(jq -r '[.experiment.schedule[] | .arm[0:1]] | join("")' blocked/baseline.json)
[ "$order" = bbbbcccc ] || fail "blocked schedule: $order"
cmp_text blocked blocked >b.txt || fail "compare blocked"
grep -q '^order      blocked$' b.txt || { cat b.txt; fail "arrangement"; }
grep -q '^warning    every repetition of one arm ran before the other' b.txt || { cat b.txt; fail "no warning"; }
[ "$(jq -r .order.arrangement blocked/comparison.json)" = blocked ] || fail "comparison.json arrangement"

xp --order random --seed 7 --baseline './bench.sh' --candidate './bench.sh' --out-dir r1 >/dev/null || fail "random"
xp --order random --seed 7 --baseline './bench.sh' --candidate './bench.sh' --out-dir r2 >/dev/null || fail "random 2"
[ "$(jq .experiment.seed r1/candidate.json)" = 7 ] || fail "seed not recorded"
[ "$(jq -c '[.experiment.schedule[] | [.arm, .index]]' r1/baseline.json)" = \
	"$(jq -c '[.experiment.schedule[] | [.arm, .index]]' r2/baseline.json)" ] || fail "seed 7 did not replay"
cmp_text r1 r1 | grep -q '^order      interleaved, requested random$' || fail "random arrangement"

# a baseline of one experiment and a candidate of another are not one experiment
if cmp_text r1 r2 >/dev/null 2>mix.txt; then fail "receipts of two experiments were compared"; fi
grep -q '^fak native-performance: compare: the receipts are not the two arms of one experiment' mix.txt ||
	{ cat mix.txt; fail "mix header"; }
grep -q '^  experiment.schedule: the receipts record different schedule; they come from different experiments$' \
	mix.txt || { cat mix.txt; fail "mix finding"; }
echo ok
