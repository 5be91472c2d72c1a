# A witness is bound to the complete envelope it was made in (issue 26):
# after a real promotion, editing any member of the witnessed envelope
# (hardware, model, model revision, quantization, memory, throughput
# metric) fails the graph's load, --verify-witnesses names the member that
# changed, and --compare, --gate and --promote refuse the receipts made in
# the envelope as it was. Restoring the envelope verifies again; the change
# belongs in a new envelope.
# fak-test: slow
set -u
. "$FIX/experiment/lib.sh"
. "$FIX/experiment/promote.sh"
cp "$ROOT/examples/cpu-decode/index.json" index.json

# a second lever of the envelope, ready like cpu.fast: its run b is
# measured before the edit
jq '.levers += [(.levers[] | select(.id == "cpu.fast") | .id = "cpu.other" | .name = "other")]' \
	graph.json >graph.two && mv graph.two graph.json
pass_run a
rm -rf b runs.count
"$FAK" bench experiment cpu.other --graph graph.json --artifact model.bin --revision r1 \
	--module bench@1 --profile-artifact profile.txt --machine-id-file machine-id \
	--baseline-duration 20ms --interval 10ms --witness-root wit \
	--baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir b >b.out 2>&1 ||
	{ cat b.out; fail "run b"; }

# the receipts, the witnessed effect and the manifest record the envelope
edig=$(jq -r .envelope_state.envelope_digest a/candidate.json)
echo "$edig" | grep -qE '^sha256:[0-9a-f]{64}$' || fail "the receipt's envelope_digest: $edig"
[ "$(jq -r .envelope_state.envelope.hardware a/candidate.json)" = "$(jq -r '.envelopes[0].hardware' graph.json)" ] ||
	fail "the receipt's envelope"
promote a >/dev/null || fail "a was not promoted"
[ "$(jq -r '.levers[] | select(.id == "cpu.fast") | .witnessed.envelope_digest' graph.json)" = "$edig" ] ||
	fail "the witnessed effect's envelope_digest"
m=$(ls wit/test-cpu-p4-t8/cpu.fast/*/MANIFEST.json)
[ "$(jq -r .schema "$m")" = fak-witness-manifest/v3 ] || fail "manifest schema"
[ "$(jq -r .envelope_digest "$m")" = "$edig" ] || fail "the manifest's envelope_digest"
verify() { "$FAK" native-performance --graph "$1" --index index.json --verify-witnesses wit; }
verify graph.json >v.txt 2>&1 || { cat v.txt; fail "the promoted witness does not verify"; }
cp graph.json graph.orig

# every member of the envelope: the graph refuses it, --verify-witnesses names it
for edit in 'hardware = "NVIDIA H200"' 'model = "other-model"' 'model_revision = "r9"' \
	'quantization = "q8_0"' 'memory_gib = 999' 'throughput_metric = "prefill_tokens_per_second"'; do
	field=${edit%% *}
	jq "(.envelopes[0], .envelope) |= (.$edit)" graph.orig >graph.json
	if "$FAK" native-performance --graph graph.json >out.txt 2>err.txt; then
		fail "$field: the graph still loads"
	fi
	grep -q "^  lever \"cpu.fast\" was witnessed in envelope \"test-cpu-p4-t8\" as $edig; the envelope is sha256:[0-9a-f]* now: an envelope changed under its witness; changing any envelope field creates a new envelope: restore envelope \"test-cpu-p4-t8\" as it was and put the change in a new envelope (a new id)" err.txt ||
		{ cat err.txt; fail "$field: graph finding"; }
	if verify graph.json >v.txt 2>&1; then cat v.txt; fail "$field: VERIFIED"; fi
	grep -q "VERIFIED" v.txt && fail "$field: says VERIFIED"
	grep -q "^  test-cpu-p4-t8/cpu.fast/[^:]*: witnessed in envelope \"test-cpu-p4-t8\" as $edig; the graph has sha256:[0-9a-f]* now ($field: [^;]* then, [^;]* now): changing any envelope field creates a new envelope" v.txt ||
		{ cat v.txt; fail "$field: --verify-witnesses does not name it"; }
	grep -q "^  graph: lever \"cpu.fast\" was witnessed in envelope" v.txt || { cat v.txt; fail "$field: the graph finding"; }
done

# the receipts made in the envelope as it was: compare, gate and promote refuse them
# (the graph without the witness, so that it loads)
jq '(.envelopes[0], .envelope).hardware = "NVIDIA H200" | (.levers[] | select(.id == "cpu.fast")) |= (.witnessed = null | .enabled = false | .status = "absent")' \
	graph.orig >unwitnessed.json
"$FAK" native-performance --graph unwitnessed.json --compare b/baseline.json --candidate b/candidate.json >out.txt 2>err.txt &&
	fail "--compare of receipts of another envelope"
grep -q '^  envelope_state.envelope_digest: the receipt was made in envelope "test-cpu-p4-t8" as sha256:[0-9a-f]*, the graph has sha256:[0-9a-f]* now (hardware: "[^"]*" then, "NVIDIA H200" now): changing any envelope field creates a new envelope' err.txt ||
	{ cat err.txt; fail "--compare finding"; }
"$FAK" native-performance --graph unwitnessed.json --gate b/gate-request.json >out.txt 2>err.txt &&
	fail "--gate of receipts of another envelope"
grep -q '^  envelope_state.envelope_digest: the receipt was made in envelope "test-cpu-p4-t8"' err.txt ||
	{ cat err.txt; fail "--gate finding"; }
cp unwitnessed.json graph.json
refused b 'envelope_state.envelope_digest: the receipt was made in envelope "test-cpu-p4-t8" as sha256:[0-9a-f]*, the graph has sha256:[0-9a-f]* now (hardware: '

# a receipt whose recorded envelope was edited to match no longer digests
jq '.envelope_state.envelope.hardware = "NVIDIA H200"' b/candidate.json >forged.json
"$FAK" native-performance --graph graph.orig --compare b/baseline.json --candidate forged.json \
	>out.txt 2>err.txt && fail "--compare of a forged envelope"
grep -q '^  envelope_state.envelope_digest: sha256:[0-9a-f]* is not the digest of envelope_state.envelope: the receipt was edited$' err.txt ||
	{ cat err.txt; fail "forged receipt finding"; }

# restored, the witness verifies again
cp graph.orig graph.json
verify graph.json >v.txt 2>&1 || { cat v.txt; fail "restored: does not verify"; }
grep -q '^VERIFIED 1 witness folder' v.txt || { cat v.txt; fail "restored: VERIFIED"; }

# the binding removed from the graph: it loads, and --verify-witnesses says so
jq '(.levers[] | select(.id == "cpu.fast")).witnessed |= del(.envelope_digest)' graph.orig >graph.json
"$FAK" native-performance --graph graph.json >/dev/null || fail "the graph without the binding"
verify graph.json >v.txt 2>&1 && fail "a witness without witnessed.envelope_digest verifies"
grep -q '^  lever "cpu.fast": names witness test-cpu-p4-t8/cpu.fast/[^ ]* but records no witnessed.envelope_digest, so nothing binds it to its envelope when the graph loads' v.txt ||
	{ cat v.txt; fail "unbound witness finding"; }
cp graph.orig graph.json

# a v2 manifest (written before fak recorded the envelope) is refused by name
jq '.schema = "fak-witness-manifest/v2" | del(.envelope_digest, .envelope)' "$m" >m2.json && cp m2.json "$m"
verify graph.json >v.txt 2>&1 && fail "a v2 manifest verifies"
grep -q '^  test-cpu-p4-t8/cpu.fast/[^/]*/MANIFEST.json: fak-witness-manifest/v2 records no envelope digest (written before fak bound a witness to its envelope): it cannot show the envelope it witnesses; run the experiment again and promote it$' v.txt ||
	{ cat v.txt; fail "v2 manifest finding"; }
echo ok
