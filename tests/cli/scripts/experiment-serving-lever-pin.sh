# fak-test: slow
# A lever's own serving pin (docs/graph.md, "Serving envelopes", "A lever's
# own trace"): an envelope that keeps decode witnesses pins no trace, and its
# serving lever's next witness pins the trace, primary metric and direction
# instead, as the committed graph's four #8395 Metal levers do. The serving
# experiment reads the lever's pin (another trace is refused naming the
# lever), its receipts carry it, the gate passes and the promotion accepts
# them; after the promotion, a requirement that pins another metric makes
# --verify-witnesses refuse the witness, naming both pins. The committed graph's
# template for metal.paged-kv carries the committed trace's digest.
set -u
. "$FIX/experiment/lib.sh"
serving_fixture
cp "$ROOT/examples/cpu-decode/index.json" index.json
pin() {	# pin METRIC DIRECTION: cpu.fast's serving next witness pins the trace
	jq --arg t "$trace" --arg m "$1" --arg d "$2" '(.levers[] | select(.id == "cpu.fast"))
		.next_witness_requirement = {kind: "serving", metrics: [],
		serving: {trace_sha256: $t, primary_metric: $m, direction: $d}}' graph.orig >graph.json
}
cp graph.json graph.orig
pin ttft_p95_ms lower
"$FAK" native-performance --graph graph.json >/dev/null || fail "the lever's pin is refused"
jq -e '.envelopes[0] | has("serving") | not' graph.json >/dev/null || fail "the envelope pins a trace"
printf '#!/bin/sh\nsleep 0.3 <"$FAK_ARTIFACT"\necho %s\n' \
	"'{\"name\": \"exact_match\", \"score\": 1, \"higher_is_better\": true}'" >quality.sh
chmod +x quality.sh
srv='python3 serve_stub.py --port-file "$FAK_RUN.port" --bind-port "$FAK_PORT" --itl-ms 5 --engine fak-native --forward-path cpu/test-v1 3<"$FAK_ARTIFACT"'
sx() { xp --quality-command ./quality.sh --max-lag 100ms "$@"; }
# another trace: refused before anything runs, naming the lever that pins it
"$FAK" bench trace --rate 20 --requests 3 --out other.json 2>/dev/null || fail "other trace"
other=$(trace_digest other.json)
if sx --serve-trace other.json --baseline "$srv" --candidate "$srv" --out-dir pre >/dev/null \
	2>e.txt; then fail "another trace was accepted"; fi
grep -q "^  --serve-trace: 'other.json' is trace $other; lever \"cpu.fast\" pins $trace (give the pinned trace, or pin this one in the lever's next witness)\$" e.txt ||
	{ cat e.txt; fail "other trace: finding"; }
[ ! -e pre/logs ] || fail "a refused experiment ran"
sx --serve-trace serve-trace.json --baseline "$srv --ttft-ms 150" --candidate "$srv --ttft-ms 20" \
	--out-dir run >out.txt 2>err.txt || { cat out.txt err.txt; fail "the serving experiment failed"; }
for r in run/baseline.json run/candidate.json; do
	jq -e --arg t "$trace" '.serving == {trace_sha256: $t, primary_metric: "ttft_p95_ms",
		direction: "lower"} and ([.repetitions[].serving.trace_sha256] | all(. == $t))' \
		"$r" >/dev/null || fail "$r: $(jq -c .serving "$r")"
done
[ "$(jq -r .classification run/gate.json)" = pass ] ||
	fail "gate: $(jq -r '.classification + ": " + .reason' run/gate.json)"
"$FAK" native-performance --graph graph.json --index index.json --witness-root wit --promote run \
	>p.txt 2>&1 || { cat p.txt; fail "--promote refused"; }
"$FAK" native-performance --graph graph.json --index index.json --witness-root wit \
	--verify-witnesses >v.txt 2>&1 || { cat v.txt; fail "--verify-witnesses"; }
# the requirement now pins another metric: the witness no longer meets it
jq '(.levers[] | select(.id == "cpu.fast")).next_witness_requirement.serving |=
	(.primary_metric = "e2el_p95_ms")' graph.json >g.json && mv g.json graph.json
if "$FAK" native-performance --graph graph.json --index index.json --witness-root wit \
	--verify-witnesses >v.txt 2>&1; then fail "a witness of another metric verified"; fi
grep -q "comparison.json: the receipts no longer compare (compare: baseline: invalid native-performance receipt: serving: trace $trace, primary metric ttft_p95_ms (lower); lever \"cpu.fast\" pins trace $trace, primary metric e2el_p95_ms (lower))\$" v.txt ||
	{ cat v.txt; fail "re-check: finding"; }
# the committed graph: the template of a seed serving lever carries the pinned trace
seed=$(trace_digest "$ROOT/data/traces/qwen38-m3pro-serving.json")
"$FAK" native-performance --baseline metal.paged-kv >t.json || fail "template"
jq -e --arg t "$seed" '.serving == {trace_sha256: $t, primary_metric: "output_tokens_per_second",
	direction: "higher"}' t.json >/dev/null || fail "template: $(jq -c .serving t.json)"
exit 0
