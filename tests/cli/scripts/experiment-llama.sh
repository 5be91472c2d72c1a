# fak bench experiment --metrics llama-bench with --quality-command: each
# repetition's row (n_prompt and n_gen of the envelope) is sealed, each arm's
# quality run follows its last repetition and is sealed into the receipt;
# the receipts compare; an edited quality is refused.
set -u
. "$FIX/experiment/lib.sh"
llama_graph
# a stand-in for llama-bench -o jsonl -pg 4,8 -r 1: one matching row, one other
cat >llama.sh <<'SH'
#!/bin/sh
echo "llama-bench log lines go to stderr" >&2
sleep 0.1 <"$FAK_ARTIFACT"
printf '{"build_commit": "de3ff81", "n_prompt": 4, "n_gen": 0, "n_depth": 0, "avg_ns": 1000000}
'
printf '{"build_commit": "de3ff81", "n_prompt": 4, "n_gen": %s, "n_depth": 0, "avg_ns": %s}
' "${2:-8}" "$1"
SH
chmod +x llama.sh
cat >quality.sh <<'SH'
#!/bin/sh
echo "checking the generated text against the reference"
sleep 0.05 <"$FAK_ARTIFACT"
echo '{"name": "exact_match", "score": 1, "higher_is_better": true}'
SH
chmod +x quality.sh
q=./quality.sh
xp --metrics llama-bench --quality-command "$q" --baseline './llama.sh 80000000' --candidate './llama.sh 64000000' \
	--out-dir run >out.txt 2>err.txt || { cat err.txt; fail "the experiment failed"; }
[ "$(ls run/attestations | tr '\n' ' ')" = \
	"baseline-1.json baseline-2.json baseline-3.json baseline-quality.json baseline-warmup-1.json candidate-1.json candidate-2.json candidate-3.json candidate-quality.json candidate-warmup-1.json " ] ||
	{ ls run/attestations; fail "attestations"; }
order=$(jq -r '[.experiment.schedule[] | .arm[0:1] + (if .kind == "warmup" then "w" elif .kind == "quality" then "q" else "" end)] | join(" ")' run/baseline.json)
[ "$order" = "bw cw b c c b b c bq cq" ] || fail "schedule: $order"
# 8 generated tokens in 80 ms end to end: 100 tok/s; 64 ms: 125 tok/s
[ "$(jq -c '[.repetitions[].tokens_per_second]' run/baseline.json)" = "[100,100,100]" ] || fail "baseline tok/s"
[ "$(jq -c '[.repetitions[].end_to_end_milliseconds]' run/candidate.json)" = "[64,64,64]" ] || fail "candidate ms"
jq -e '.experiment.metrics_parser == "llama-bench/v1" and .experiment.quality_attestation.workload.parser == "quality-line/v1"
	and .quality.score == 1 and (.commands | length) == 2' run/candidate.json >/dev/null || fail "candidate receipt"
# the engine's runtime as every repetition's row states it (no backends: the rows say none)
jq -e '.experiment.engine_runtime == {"build_commit": "de3ff81"}' run/candidate.json >/dev/null ||
	fail "candidate receipt: engine_runtime $(jq -c .experiment.engine_runtime run/candidate.json)"
"$FAK" native-performance --graph graph.json --compare run/baseline.json --candidate run/candidate.json >/dev/null ||
	fail "--compare refused"
jq '.quality.score = 0.5' run/candidate.json >q.json
if "$FAK" native-performance --graph graph.json --compare run/baseline.json --candidate q.json >/dev/null 2>e.txt; then
	fail "an edited quality was accepted"; fi
grep -q '^  quality: exact_match=0.5 differs from exact_match=1, sealed by the quality run$' e.txt || { cat e.txt; fail "finding"; }
# a row that does not match the envelope's P/T is a failed run
rm -rf run2
if xp --metrics llama-bench --quality-command "$q" --baseline './llama.sh 80000000' \
	--candidate './llama.sh 64000000 9' --out-dir run2 >/dev/null 2>e2.txt; then
	fail "a run without the envelope's row was accepted"; fi
grep -q "candidate warm-up 1 failed: WORKLOAD_METRICS_INVALID: no llama-bench pp4+tg8 result (-pg 4,8), nor both pp4 and tg8 (-p 4 -n 8), at depth 0; results found: #1 pp4, #2 pp4+tg9; see" e2.txt || { cat e2.txt; fail "row finding"; }
echo ok
