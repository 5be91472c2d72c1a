# --promote refuses evidence that proves nothing, with graph, index and
# witness root left byte for byte unchanged: an experiment measured against
# an envelope that changed since (promote A, then B measured with A off),
# an A/A run (the same command and executable in both arms), and a
# receipt written before fak recorded the envelope state.
set -u
. "$FIX/experiment/lib.sh"
. "$FIX/experiment/promote.sh"
# a second lever of the envelope, ready like cpu.fast
jq '.levers += [(.levers[] | select(.id == "cpu.fast") | .id = "cpu.other" | .name = "other")]' \
	graph.json >graph.two && mv graph.two graph.json
cp "$ROOT/examples/cpu-decode/index.json" index.json
run() {	# run DIR LEVER BASELINE CANDIDATE: an A/B of LEVER
	rm -rf "$1" runs.count
	"$FAK" bench experiment "$2" --graph graph.json --artifact model.bin --revision r1 \
		--module bench@1 --profile-artifact profile.txt --machine-id-file machine-id \
		--baseline-duration 20ms --interval 10ms --baseline "$3" --candidate "$4" \
		--out-dir "$1" --witness-root "${root:-wit}" >"$1.txt" 2>e.txt || { cat e.txt; fail "run $1"; }
}

# the receipts and every sealed run record the envelope state
# (recorded in a scratch ledger: an attempt of cpu.fast in wit would widen A's
# decision below, docs/receipts.md "Attempts")
root=scratch run aa cpu.fast 'TPS=100 ./bench.sh' 'TPS=100 ./bench.sh'
jq -e '.envelope_state.levers == [{"id": "cpu.base", "enabled": true, "witness": null},
	{"id": "cpu.fast", "enabled": false, "witness": null}, {"id": "cpu.other", "enabled": false, "witness": null}]' \
	aa/candidate.json >/dev/null || fail "the receipt's envelope_state"
[ "$(jq -r .envelope_state.criterion_digest aa/candidate.json)" = "$(jq -r .comparison.criterion_digest aa/candidate.json)" ] ||
	fail "envelope_state.criterion_digest"
jq -e '.workload.label.envelope_state | test("^sha256:[0-9a-f]{64}$")' aa/attestations/baseline-1.json >/dev/null ||
	fail "the label's envelope_state"
# A/A: the runner says so, --promote refuses it, whatever the gate says
grep -q '^note       A/A: calibration, not a witness (both arms ran the same command' aa.txt || { cat aa.txt; fail "A/A note"; }
refused aa "^  baseline.json and candidate.json: both arms ran the same command and the same executable (sha256 [0-9a-f]\{12\}): A/A: calibration, not a witness"
# the manual loop's gate request too, named as it was passed
cp aa/gate-request.json aa-request.json
refused aa-request.json "^  aa-request.json: last_accepted and aa-request.json: candidate: both arms ran the same"

# another criterion: the experiment was made against another graph
cp graph.json graph.orig
jq '.criteria[].maximum_noise_percent = 3' graph.orig >graph.json
refused aa "^  the experiment was made against another graph: the criterion of envelope \"test-cpu-p4-t8\" in 'graph.json' is sha256:[0-9a-f]*, the receipts' sha256:[0-9a-f]*; run the experiment again$"
cp graph.orig graph.json

# the template of the manual loop records the state
"$FAK" native-performance --graph graph.json --baseline cpu.other >tpl.json || fail "template"
jq -e '.envelope_state.levers | length == 3' tpl.json >/dev/null || fail "the template's envelope_state"

# stale: A and B measured against the same graph; A promoted, then B.
# Promoting A needs a gate pass, on a busy host too: the fixture criterion's
# host policy (tests/fixtures/experiment/promote.sh)
run b cpu.other 'TPS=100 ./bench.sh' 'TPS=120 ./bench.sh'
run a cpu.fast 'TPS=100 ./bench.sh' 'TPS=120 ./bench.sh'
[ "$(jq -r .classification a/gate.json)" = pass ] ||
	fail "A's gate: $(jq -r '.classification + ": " + .reason' a/gate.json)"
promote a >/dev/null || fail "A was not promoted"
w=$(jq -r '.levers[] | select(.id == "cpu.fast") | .witnessed.receipt' graph.json)
refused b "^  candidate.json: envelope_state: lever \"cpu.fast\" changed since the experiment: it was disabled and unwitnessed when the experiment ran, it is disabled and witnessed by \"$w\" now: run the experiment again$"
refused b/gate-request.json "^  b/gate-request.json: candidate: envelope_state: lever \"cpu.fast\" changed since"

# a sealed run's label names the state it ran against: a receipt whose
# envelope_state was edited to look current no longer binds its runs
mkdir -p edited && cp -r b/* edited/
for f in baseline candidate; do
	jq --slurpfile g graph.json '.envelope_state.levers |= map(if .id == "cpu.fast" then .enabled = true | .witness = "'"$w"'" else . end)' \
		b/$f.json >edited/$f.json
done
jq --slurpfile c edited/candidate.json --slurpfile b edited/baseline.json '.candidate = $c[0] | .last_accepted = $b[0]' \
	b/gate-request.json >edited/gate-request.json
refused edited "system_baselines\[0\].workload.label.envelope_state: sealed against envelope state sha256:[0-9a-f]*; the receipt's envelope_state is sha256:"

# receipts written before fak recorded the state (a manual loop's): they
# still gate, and are never promoted
"$FAK" native-performance --gate "$FIX/gate/sb-pass.json" >/dev/null || fail "an old gate request no longer gates"
cp "$ROOT/data/native-performance-graph.json" graph.json
cp "$ROOT/data/performance-index.json" index.json
rm -rf wit
cp "$FIX/gate/sb-pass.json" old-request.json
refused old-request.json "^  old-request.json: candidate: records no envelope_state (written before fak recorded the levers an experiment ran against): it can be read and compared, never promoted; run the experiment again$"
echo ok
