# --attach-receipt checks every repetition against the metrics its
# attestation sealed: a runner's attestation attached to a receipt whose
# numbers were typed differently is refused, naming the repetition and the
# field; the same receipt with the sealed numbers takes it.
set -u
. "$FIX/experiment/lib.sh"
xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir run >/dev/null || fail "run"
# the candidate receipt as it was before its attestations: no attestation, no binding
jq 'del(.system_baselines) | .repetitions |= map(del(.system_baseline_digest))' run/candidate.json >bare.json
jq '.repetitions[0].tokens_per_second = 150' bare.json >typed.json
np() { "$FAK" native-performance --graph graph.json "$@"; }
if np --attach-receipt typed.json --system-baseline run/attestations/candidate-1.json --out next.json 2>e.txt; then
	fail "a typed tok/s took a sealed attestation"; fi
grep -q '^  repetitions\[0\].tokens_per_second: 150 differs from 120, the value sealed in system_baselines\[0\]$' e.txt ||
	{ cat e.txt; fail "finding"; }
[ ! -e next.json ] || fail "something was written"
# the attestation of another slot (candidate repetition 2) is refused as well
if np --attach-receipt bare.json --system-baseline run/attestations/candidate-2.json --out next.json 2>e.txt; then
	fail "repetition 2's attestation was attached to repetition 1"; fi
grep -q "system_baselines\[0\].workload.label: sealed for the candidate arm's repetition 1 of lever" e.txt ||
	{ cat e.txt; fail "label finding"; }
np --attach-receipt bare.json --system-baseline run/attestations/candidate-1.json --out next.json ||
	fail "the sealed numbers did not take their attestation"
echo ok
