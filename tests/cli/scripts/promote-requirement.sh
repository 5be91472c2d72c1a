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
echo ok
