# The whole loop on the real example workload, with short quiet windows:
# `fak bench experiment` on the example's next lever writes receipts that
# --compare accepts as they are, every repetition bound to what its run
# measured, a gate that decides, and a tok/s edited afterwards is refused
# with the repetition named. The sampler accepts a busy host
# (busy_host_flags, tests/lib.sh): the test is about the runner.
# fak-test: slow
set -u
. "$ROOT/tests/lib.sh"
build=$(dirname "$FAK")
graph=$ROOT/examples/cpu-decode/graph.json
make -s -C "$ROOT" BUILD="$build" example-build >build.log 2>&1 || { cat build.log; fail "example-build"; }
printf '0123456789abcdef0123456789abcdef\n' >machine-id

# receipts carry relative paths: the build folder as seen from the checkout
WITNESS_ROOT=$PWD/wit BUILD=${build#"$ROOT"/} FAK=$FAK "$ROOT/examples/cpu-decode/experiment.sh" "$PWD/run" \
	--baseline-duration 20ms --interval 10ms --machine-id-file "$PWD/machine-id" $busy_host_flags \
	>out.txt 2>err.txt ||
	{ cat err.txt; fail "the experiment failed"; }
grep -q '^lever      cpu.q8-row-blocked-sse2-matvec$' out.txt || { cat out.txt; fail "not the next lever"; }
grep -q '^metrics    sealed: every repetition (6) equals its attestation' out.txt || fail "not every repetition sealed"
grep -q '^order      interleaved$' out.txt || fail "order"
# every run, warm-ups included, saw the weights in use: decode holds them open
for f in run/attestations/*.json; do
	jq -e '.workload.artifact_observed == true' "$f" >/dev/null ||
		fail "$f: artifact_observed is not true: $(jq -r .workload.artifact_observation "$f")"
done
grep -q "^attempt    1 of 1 of lever cpu.q8-row-blocked-sse2-matvec in this envelope (ledger" out.txt ||
	{ cat out.txt; fail "the attempt line"; }

"$FAK" native-performance --graph "$graph" --compare run/baseline.json --candidate run/candidate.json --json \
	>cmp.json || fail "--compare refused the runner's receipts"
jq -e '.metrics_bound.baseline + .metrics_bound.candidate | all' cmp.json >/dev/null || fail "unbound repetition"
# the row-blocked kernel is the real optimization: at least a few percent at 90%
jq -e '.statistics.tokens_per_second.shift_percent > 0' cmp.json >/dev/null || fail "no gain measured"
"$FAK" native-performance --graph "$graph" --gate run/gate-request.json --json >gate.json
rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || fail "--gate exit $rc"
jq -e '.classification | IN("pass", "investigate", "regression")' gate.json >/dev/null || fail "no decision"
# the example's decode states its engine: every run's identity is observed
jq -e '.engine_identity == "observed"' run/baseline.json run/candidate.json >/dev/null ||
	fail "the identity is not observed"
jq -e '.checks[] | select(.name == "identity") | .status == "pass"' gate.json >/dev/null ||
	fail "identity check: $(jq -c '.checks[] | select(.name == "identity")' gate.json)"

jq '.repetitions[2].tokens_per_second *= 2' run/candidate.json >edited.json
if "$FAK" native-performance --graph "$graph" --compare run/baseline.json --candidate edited.json \
	>/dev/null 2>e.txt; then fail "an edited tok/s was accepted"; fi
grep -q '^  repetitions\[2\].tokens_per_second: .* differs from .*, the value sealed in system_baselines\[2\]$' e.txt ||
	{ cat e.txt; fail "the finding does not name the repetition"; }
echo ok
