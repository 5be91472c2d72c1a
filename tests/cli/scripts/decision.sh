# One decision (issue 24): scripted benchmarks that print tok/s from
# committed lists by FAK_RUN (tests/fixtures/decision), so every verdict is
# exact. A disguised A/A (the same work, one unused word different) and the
# new user's false witness are never promoted as gains; the comparison and
# the gate show one verdict and one effect size; a verdict under the
# criterion's host policy says so in every summary; --until-decisive stops
# at a decided look and its receipts replay every look; an equivalent
# verdict is a witnessed null, a slower one is refused.
# fak-test: slow
set -u
. "$FIX/experiment/lib.sh"
. "$FIX/experiment/promote.sh"
cp "$FIX"/decision/* .
cp "$ROOT/examples/cpu-decode/index.json" index.json
cp graph.json graph.orig
lb=./listbench.sh
verdict() { jq -r .decision.verdict "$1/comparison.json"; }
flat() { tr -s ' \n' '  ' <"$1"; }	# wrapped text as one line

# 1. six disguised A/As, 1000 tok/s +- 2%: none is faster, none promoted
for k in 1 2 3 4 5 6; do
	xp --baseline "$lb aa$k" --candidate "$lb aa$k --unused" --out-dir aa$k >aa$k.out 2>&1 ||
		{ cat aa$k.out; fail "aa$k"; }
	v=$(verdict aa$k)
	[ "$v" != faster ] || fail "disguised A/A $k judged faster: $(jq .decision aa$k/comparison.json)"
	[ "$(jq -r .classification aa$k/gate.json)" != pass ] || [ "$v" = equivalent ] ||
		fail "aa$k: gate pass on $v"
	[ "$v" = equivalent ] || refused aa$k "decision: $v: only a faster verdict is witnessed as a gain"
done
[ "$(verdict aa1)" = undecided ] || fail "aa1: $(verdict aa1)"

# 2. the new user's false witness: medians down, the criterion loosened to 25%
jq '.criteria[].maximum_noise_percent = 25' graph.orig >graph.json
xp --baseline "$lb false" --candidate "$lb false --unused" --out-dir false >false.out 2>&1 ||
	{ cat false.out; fail "false"; }
grep -q '^decision   undecided: -5.7% \[-27.8%, +25.4%\] at 90%; the interval straddles' false.out ||
	{ cat false.out; fail "false: the decision line"; }
[ "$(jq -r .classification false/gate.json)" = investigate ] || fail "false: $(jq -r .reason false/gate.json)"
refused false 'decision: undecided: only a faster verdict is witnessed as a gain, and an equivalent one as a witnessed null; run more repetitions'
cp graph.orig graph.json

# 3. one verdict and one effect size in the comparison, the gate and the summary
for doc in comparison gate; do
	jq -e '.decision | .verdict == "undecided" and .metric == "tokens_per_second"
		and .level == 0.9 and .attempts == 1 and .rule == "fixed"' aa1/$doc.json >/dev/null ||
		fail "$doc: $(jq .decision aa1/$doc.json)"
	for k in delta_percent delta_tokens_per_second throughput_delta_percent throughput_shift \
		accepted_mean_tokens_per_second baseline_mean_tokens_per_second; do
		jq -e "has(\"$k\") | not" aa1/$doc.json >/dev/null || fail "$doc has $k"
	done
done
[ "$(jq -c '.decision | del(.population)' aa1/gate.json)" = "$(jq -c .decision aa1/comparison.json)" ] ||
	fail "the gate and the comparison decide differently"
[ "$(grep -c 'undecided: ' aa1.out)" = 2 ] || { cat aa1.out; fail "aa1: the decision twice (decision and gate lines)"; }
! grep -qE 'means of|noise at most|dropped' aa1.out || { cat aa1.out; fail "aa1: a second effect size"; }

# 4. the host policy in every verdict line: text, Markdown, JSON
flat aa1.out | grep -q "host judged by the criterion's host policy (non-SUT CPU <= 100%, sampler duty <= 100%, PSI stall <= 100%)" ||
	{ cat aa1.out; fail "text: no host policy"; }
"$FAK" native-performance --graph graph.json --gate aa1/gate-request.json --format md >gate.md || true
flat gate.md | grep -q "host judged by the criterion's host policy" || { cat gate.md; fail "md: no host policy"; }
jq -e '.decision.host_policy.maximum_non_sut_cpu_percent == 100' aa1/gate.json >/dev/null || fail "json: no host policy"

# 5. --until-decisive: a real +6% gain under 3% noise is decided before the maximum
xp --baseline "$lb gain" --candidate "$lb gain --on" --until-decisive --max-repetitions 40 --out-dir gain \
	>gain.out 2>&1 || { cat gain.out; fail "gain"; }
[ "$(verdict gain)" = faster ] || fail "gain: $(jq .decision gain/comparison.json)"
n=$(jq .controls.repetitions gain/candidate.json)
jq -e --argjson n "$n" '.experiment.sequential | .rule == "bonferroni-repeated-intervals/v1"
	and .max_repetitions == 40 and .first_repetitions == 3 and (.looks | length) >= 1
	and .looks[-1].repetitions == $n and .looks[-1].verdict == "faster"
	and ([.looks[:-1][] | .verdict == "undecided"] | all)' gain/candidate.json >/dev/null ||
	fail "gain: $(jq .experiment.sequential gain/candidate.json)"
[ "$n" -lt 40 ] || fail "gain: ran to the maximum ($n)"
jq -e '.decision.rule == "bonferroni-repeated-intervals/v1" and .decision.level >= .decision.requested_level
	and .decision.requested_level > 0.9' gain/comparison.json >/dev/null ||
	fail "gain: $(jq .decision gain/comparison.json)"
"$FAK" native-performance --graph graph.json --compare gain/baseline.json --candidate gain/candidate.json \
	--json >again.json || fail "gain: compare again"
[ "$(jq -c .decision again.json)" = "$(jq -c .decision gain/comparison.json)" ] || fail "gain: compare replays differently"
# a look edited in both receipts (as a rerun-until-pass would) is replayed and refused
for a in baseline candidate; do
	jq '.experiment.sequential.looks[0].verdict = "faster"' gain/$a.json >edited-$a.json
done
if "$FAK" native-performance --graph graph.json --compare edited-baseline.json --candidate edited-candidate.json \
	>out.txt 2>err.txt; then fail "an edited look was accepted"; fi
grep -q 'experiment.sequential.looks\[0\]: records faster; the first [0-9]* repetitions give undecided' err.txt ||
	{ cat err.txt; fail "edited look: finding"; }
# every other edit of the record is replayed and refused by name
edited() {	# edited JQ FINDING: the record edited in both receipts is refused with FINDING
	for a in baseline candidate; do jq "$1" gain/$a.json >edited-$a.json; done
	if "$FAK" native-performance --graph graph.json --compare edited-baseline.json \
		--candidate edited-candidate.json >out.txt 2>err.txt; then fail "accepted: $1"; fi
	grep -q -- "$2" err.txt || { cat err.txt; fail "$1: no finding $2"; }
}
edited '.experiment.sequential.rule = "pocock/v1"' 'experiment.sequential.rule: "pocock/v1"; fak knows'
edited '.experiment.sequential.looks[0].level = 0.9' 'experiment.sequential.looks\[0\]: 6 repetitions at level 0.9; the rule looks at 6 at 0.983333'
edited '.experiment.sequential.max_repetitions = 1000' 'the rule looks at'
edited '.experiment.sequential.looks = []' 'experiment.sequential.looks: 0 looks; the rule plans 1 to'
# an A/A under 3% noise never becomes faster, however long it runs; its
# progress (--progress auto on a pipe: a plain line per run) says each look
xp_progress=auto
xp --baseline "$lb null" --candidate "$lb null --off" --until-decisive --max-repetitions 24 --out-dir null \
	>null.out 2>&1 || { cat null.out; fail "null"; }
xp_progress=never
[ "$(verdict null)" != faster ] || fail "null: faster"
grep -q '^look [0-9] of [0-9] at [0-9]*+[0-9]*: .*at [0-9.]*%: ' null.out || { cat null.out; fail "null: no look in the progress"; }
# usage
xp --baseline "$lb null" --candidate "$lb null --off" --max-repetitions 24 --out-dir u1 >out.txt 2>err.txt && fail "max without until"
grep -q 'max-repetitions goes with --until-decisive' err.txt || { cat err.txt; fail "usage: max"; }
xp --baseline "$lb null" --candidate "$lb null --off" --until-decisive --order blocked --out-dir u2 >out.txt 2>err.txt &&
	fail "until-decisive with blocked"
grep -q 'needs interleaved or random pairs' err.txt || { cat err.txt; fail "usage: blocked"; }
xp --baseline "$lb null" --candidate "$lb null --off" --until-decisive --max-repetitions 2 --out-dir u3 >out.txt 2>err.txt &&
	fail "max below the envelope"
grep -q 'max-repetitions 2: below the 3 repetitions envelope "test-cpu-p4-t8" pins' err.txt || { cat err.txt; fail "usage: below"; }
[ ! -e u1 ] && [ ! -e u2 ] && [ ! -e u3 ] || fail "a refused experiment wrote its folder"

# 6. a slower verdict is refused; an equivalent one is a witnessed null
# (a fresh ledger: the ten attempts above would widen these decisions past 3 + 3's reach,
# docs/receipts.md "Attempts"; tests/cli/scripts/promote-attempts.sh tests that)
rm -rf wit
xp --baseline "$lb loss" --candidate "$lb loss --on" --out-dir loss >loss.out 2>&1 || true
[ "$(verdict loss)" = slower ] && [ "$(jq -r .classification loss/gate.json)" = regression ] ||
	fail "loss: $(verdict loss)"
refused loss 'decision: slower'
rm -rf wit
xp --baseline "$lb same" --candidate "$lb same --on" --out-dir same >same.out 2>&1 || { cat same.out; fail "same"; }
[ "$(verdict same)" = equivalent ] || fail "same: $(jq .decision same/comparison.json)"
promote same >out.txt 2>err.txt || { cat err.txt; fail "same: not promoted"; }
jq -e '.levers[] | select(.id == "cpu.fast") | (.enabled | not) and .status == "absent"
	and (.witnessed.summary | startswith("equivalent: no effect beyond \u00b12%"))' graph.json >/dev/null ||
	fail "same: $(jq '.levers[] | select(.id == "cpu.fast")' graph.json)"
jq -e '.results[-1] | .lifecycle == "DIAGNOSTIC" and .quotes_gain == false
	and (.status | startswith("NULL RESULT"))' index.json >/dev/null || fail "same: $(jq '.results[-1]' index.json)"
[ "$("$FAK" native-performance --graph graph.json --next --json | jq -r '.id // .lever.id // empty' 2>/dev/null)" != cpu.fast ] ||
	fail "a witnessed null is offered again by --next"
"$FAK" native-performance --graph graph.json --index index.json --verify-witnesses wit >/dev/null ||
	fail "same: --verify-witnesses"
