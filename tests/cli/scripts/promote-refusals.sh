# --promote refuses, with graph, index and witness root left byte for byte
# unchanged: an undecided (investigate) run, a slower (regression) run, the same run twice, a
# graph whose lever changed since the experiment; --dry-run writes nothing.
# A busy host changes nothing: the fixture criterion's host policy
# (tests/fixtures/experiment/promote.sh).
# fak-test: slow
set -u
. "$FIX/experiment/lib.sh"
. "$FIX/experiment/promote.sh"
cp "$ROOT/examples/cpu-decode/index.json" index.json

# an undecided A/B investigates (tests/fixtures/decision: listed tok/s, exact)
cp "$FIX"/decision/listbench.sh "$FIX"/decision/aa1.* .
xp --baseline './listbench.sh aa1' --candidate './listbench.sh aa1 --unused' --out-dir drop >/dev/null ||
	fail "drop run"
refused drop "^  gate: investigate ("
refused drop "^  decision: undecided: only a faster verdict is witnessed as a gain"
# a fresh ledger: a second attempt would widen the decision past 3 + 3's reach
rm -rf wit
xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=50 ./bench.sh' --out-dir slow >/dev/null || fail "slow run"
refused slow "^  gate: $(jq -r .classification slow/gate.json) ("

rm -rf wit	# the passing run alone in its ledger: promoted at 90%
pass_run good
before=$(state)
promote good --dry-run >dry.txt || fail "--dry-run"
[ "$(state)" = "$before" ] || fail "--dry-run wrote something"
# the lever gets its witnessed effect and stays off (enabling is --enable, step 6)
grep -q '^+        "classification": "witnessed",$' dry.txt && ! grep -q '"enabled"' dry.txt ||
	{ cat dry.txt; fail "dry-run diff"; }
grep -q '^new witness folder wit/test-cpu-p4-t8/cpu.fast/' dry.txt || fail "dry-run witness"
grep -qx '  attempt  1 of 1 of cpu.fast in this envelope (ledger wit/attempts.jsonl, line 1 of 2)' dry.txt ||
	{ cat dry.txt; fail "dry-run attempt"; }

# the graph changed since the experiment: the lever was enabled by hand
cp graph.json graph.orig
jq '(.levers[] | select(.id == "cpu.fast")) |= (.enabled = true | .status = "present")' graph.orig >graph.json
refused good "^  lever \"cpu.fast\" is not ready in 'graph.json' any more"
cp graph.orig graph.json

promote good >/dev/null || fail "the passing run was not promoted"
refused good "^  lever \"cpu.fast\" is not ready"
# the same folder again, into the graph as it was: the witness exists
cp graph.json graph.promoted
cp graph.orig graph.json
cp index.json index.promoted
cp "$ROOT/examples/cpu-decode/index.json" index.json
refused good "^  witness folder 'wit/test-cpu-p4-t8/cpu.fast/.*' exists already: this run was promoted$"

# evidence edited inside the folder is refused
cp -r good edited
jq '.repetitions[0].tokens_per_second = 130' good/candidate.json >edited/candidate.json
refused edited "^  gate-request.json: its candidate is not candidate.json$"
jq --slurpfile c edited/candidate.json '.candidate = $c[0]' good/gate-request.json >edited/gate-request.json
refused edited "repetitions\[0\].tokens_per_second: 130 differs from 120"
cp -r good badlog
printf 'x' >>badlog/logs/candidate-1.stdout
refused badlog "^  logs/candidate-1.stdout: not the output attestations/candidate-1.json sealed$"

# a manual loop promotes its gate request (the receipts inside it)
cp graph.orig graph.json
cp "$ROOT/examples/cpu-decode/index.json" index.json
"$FAK" native-performance --graph graph.json --index index.json --witness-root wit2 --promote good/gate-request.json \
	>manual.txt || { cat manual.txt; fail "the gate request was not promoted"; }
"$FAK" native-performance --graph graph.json --index index.json --verify-witnesses wit2 >/dev/null ||
	fail "the manual witness does not verify"
[ -f wit2/test-cpu-p4-t8/cpu.fast/*/candidate.json ] && [ ! -e wit2/test-cpu-p4-t8/cpu.fast/*/attestations ] ||
	fail "the manual witness holds the receipts, not attestation files"
echo ok
