# Typed next witnesses (docs/graph.md): --promote checks a passing A/B
# against its lever's next_witness_requirement and names what is missing. A
# numerical witness needs every named metric at its threshold in every run of
# the candidate (the fixture benchmark states exact_match 1, and with
# NUMERICAL the line's named metrics); a missing metric names the run that
# lacks it, a missed threshold the worst run; a
# parity witness is a matched campaign of two engines, never a throughput A/B;
# a serving witness is a serving receipt (experiment-serving.sh promotes one),
# never a decode A/B. Each refusal changes nothing; the
# met requirement promotes.
# A busy host changes nothing: the fixture criterion's host policy
# (tests/fixtures/experiment/promote.sh).
# fak-test: slow
set -u
. "$FIX/experiment/lib.sh"
. "$FIX/experiment/promote.sh"
cp "$ROOT/examples/cpu-decode/index.json" index.json
cp graph.json graph.orig
# the requirement is part of the graph, as written
need '{"kind": "numerical", "metrics": [{"metric": "exact_match", "op": "==", "value": 1}]}'
"$FAK" native-performance --graph graph.json --next --json |
	jq -e '.lever.next_witness_requirement == {"kind": "numerical", "metrics": [{"metric": "exact_match", "op": "==", "value": 1}]}' \
	>/dev/null || fail "--next does not show the requirement"
pass_run a
rm -rf wit/test-cpu-p4-t8	# no witness yet; the ledger stays
cp -r wit wit.start
again() { rm -rf wit && cp -r wit.start wit && cp "$ROOT/examples/cpu-decode/index.json" index.json; }

need '{"kind": "numerical", "metrics": [{"metric": "cosine", "op": ">=", "value": 0.995}, {"metric": "exact_match", "op": "==", "value": 1}, {"metric": "max_abs", "op": "<=", "value": 0.02}]}'
refused a '^  lever "cpu.fast" needs a numerical witness: metric "cosine" >= 0.995 is missing: candidate.json.s run candidate-1 states only "exact_match"$'
grep -q '^  lever "cpu.fast" needs a numerical witness: metric "max_abs" <= 0.02 is missing: candidate.json.s run candidate-1 states only "exact_match"$' err.txt ||
	{ cat err.txt; fail "max_abs not named"; }
# the met threshold (exact_match == 1) is no finding: two, not three
grep -q '^fak native-performance: promote: refused; nothing written (2 findings):$' err.txt ||
	{ cat err.txt; fail "findings count"; }

need '{"kind": "numerical", "metrics": [{"metric": "exact_match", "op": ">=", "value": 2}]}'
refused a '^  lever "cpu.fast" needs a numerical witness: metric "exact_match" is 1 in candidate.json.s run candidate-1 (the worst of 3), not >= 2$'

need '{"kind": "parity", "metrics": [], "engines": ["fak-native", "llama.cpp"]}'
refused a '^  lever "cpu.fast" needs a parity campaign of fak-native against llama.cpp on one artifact and envelope (its next_witness_requirement): its result is a ratio labelled parity, never a throughput witness of either engine; a throughput A/B does not witness it$'

need '{"kind": "serving", "metrics": []}'
refused a '^  lever "cpu.fast" needs a serving receipt (its next_witness_requirement): candidate.json is a decode A/B, which does not witness it; run fak bench experiment --serve-trace in an envelope that pins a trace (docs/serving.md)$'

# met: every threshold holds, and a decode requirement is the A/B itself
need '{"kind": "numerical", "metrics": [{"metric": "exact_match", "op": "==", "value": 1}]}'
promote a >out.txt 2>err.txt || { cat err.txt; fail "a met numerical requirement was refused"; }
again
need '{"kind": "decode", "metrics": []}'
promote a >out.txt 2>err.txt || { cat err.txt; fail "a decode requirement was refused"; }

# several named metrics (the line's numerical member, Q8_1's gate): every threshold on every
# candidate run; the candidate's third repetition (the 8th run of the interleaved schedule
# 1 warm-up + 3 repetitions per arm) drifts: its max_abs is the worst, and misses
q8='{"kind": "numerical", "metrics": [{"metric": "cosine", "op": ">=", "value": 0.995}, {"metric": "argmax_match", "op": "==", "value": 1}, {"metric": "max_abs", "op": "<=", "value": 0.02}]}'
need "$q8"
again
rm -rf wit b runs.count	# a fresh ledger: run b is its lever's first attempt
NUMERICAL='{"cosine": 0.9991, "argmax_match": 1, "max_abs": 0.004}' NUMERICAL_FROM=8 \
	NUMERICAL_THEN='{"cosine": 0.9990, "argmax_match": 1, "max_abs": 0.031}' \
	xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir b >b.out 2>&1 ||
	{ cat b.out; fail "run b"; }
[ "$(jq -r .classification b/gate.json)" = pass ] || fail "run b: gate $(jq -r .reason b/gate.json)"
[ "$(jq -r '.experiment.schedule[7] | .arm + "-" + (.index + 1 | tostring)' b/candidate.json)" = candidate-3 ] ||
	fail "the 8th run is not the candidate's third repetition"
jq -e '.workload.metrics.numerical == {"argmax_match": 1, "cosine": 0.9991, "max_abs": 0.004}' \
	b/attestations/candidate-1.json >/dev/null || fail "the named metrics are not sealed"
refused b '^  lever "cpu.fast" needs a numerical witness: metric "max_abs" is 0.031 in candidate.json.s run candidate-3 (the worst of 3), not <= 0.02$'
grep -q '^fak native-performance: promote: refused; nothing written (1 finding):$' err.txt ||
	{ cat err.txt; fail "cosine and argmax_match are met: one finding"; }
# met on every run: promoted
rm -rf wit b runs.count
NUMERICAL='{"cosine": 0.9991, "argmax_match": 1, "max_abs": 0.004}' \
	xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir b >b.out 2>&1 ||
	{ cat b.out; fail "run b"; }
promote b >out.txt 2>err.txt || { cat err.txt; fail "a met numerical gate of three metrics was refused"; }

# the requirement tightened after the promotion (max_abs <= 0.02 becomes <= 0.0001): the
# graph would claim the lever witnessed under a gate its evidence misses; verification and
# --enable name the metric and say to witness it again
np() { "$FAK" native-performance --graph graph.json --index index.json --witness-root wit "$@"; }
np --verify-witnesses wit >v.txt 2>&1 || { cat v.txt; fail "the promoted numerical witness does not verify"; }
w=$(cd wit && echo test-cpu-p4-t8/cpu.fast/*)
tighten() {	# tighten JQ: graph.json with cpu.fast's requirement edited by JQ
	jq "(.levers[] | select(.id == \"cpu.fast\") | .next_witness_requirement) |= ($1)" \
		graph.json >graph.new && mv graph.new graph.json || fail "tighten $1"
}
cp graph.json graph.promoted
tighten '.metrics[2].value = 0.0001'
again_msg='the requirement changed since the promotion: the graph would claim the lever witnessed under a requirement its evidence does not meet; witness it again under it (a new experiment, --promote) or restore the requirement$'
if np --verify-witnesses wit >v.txt 2>&1; then fail "a witness under a tightened max_abs verified"; fi
grep -q "^  $w: lever \"cpu.fast\" needs a numerical witness: metric \"max_abs\" is 0.004 in candidate.json.s run candidate-[123] (the worst of 3), not <= 0.0001 now (its next_witness_requirement): $again_msg" v.txt ||
	{ cat v.txt; fail "verify: the tightened max_abs not named"; }
grep -q 'cosine\|argmax_match' v.txt && { cat v.txt; fail "verify: a met threshold named"; }
if np --enable cpu.fast --default-path wit/$w/baseline.json >out.txt 2>err.txt; then
	fail "enabled under a tightened max_abs"; fi
grep -q "^  witness $w: lever \"cpu.fast\" needs a numerical witness: metric \"max_abs\" is 0.004 in candidate.json.s run candidate-[123] (the worst of 3), not <= 0.0001 now (its next_witness_requirement): $again_msg" err.txt ||
	{ cat err.txt; fail "enable: the tightened max_abs not named"; }
# another kind now: a parity campaign, which an A/B is not
cp graph.promoted graph.json
tighten '{"kind": "parity", "metrics": [], "engines": ["fak-native", "llama.cpp"]}'
if np --verify-witnesses wit >v.txt 2>&1; then fail "an A/B verified as a parity witness"; fi
grep -q "^  $w: lever \"cpu.fast\" needs a parity campaign now (its next_witness_requirement), and this witness is a decode A/B: $again_msg" v.txt ||
	{ cat v.txt; fail "verify: the parity requirement not named"; }
# as promoted: verified; the default path must meet the numerical gate as well
cp graph.promoted graph.json
np --verify-witnesses wit >v.txt 2>&1 || { cat v.txt; fail "the restored requirement does not verify"; }
# a default-path receipt as promote-enable.sh makes one (the witness's baseline command at
# r2, at the witnessed effect): it states no cosine, argmax_match or max_abs
"$FAK" native-performance --graph graph.json --baseline cpu.fast >tpl.json || fail "template"
jq --slurpfile t tpl.json 'del(.system_baselines, .experiment) | .engine_identity = "declared"
	| .revision = "r2" | .repetitions |= map(del(.system_baseline_digest) | .tokens_per_second = 120
		| .end_to_end_milliseconds = 66.667 | .decode_milliseconds = 66.667)
	| .envelope_state = $t[0].envelope_state' "wit/$w/baseline.json" >def.json || fail "def.json"
if np --enable cpu.fast --default-path def.json >out.txt 2>err.txt; then
	fail "enabled by a default path without the numerical gate's metrics"; fi
grep -q '^fak native-performance: enable: refused; nothing written (3 findings):$' err.txt &&
	grep -q "^  lever \"cpu.fast\" needs a numerical witness: metric \"max_abs\" <= 0.02 is missing: 'def.json' states only \"exact_match\"\$" err.txt ||
	{ cat err.txt; fail "enable: the default path's numerical gate not checked"; }
echo ok
