#!/bin/sh
# The whole receipt loop on real attestations: --next, --baseline, fill,
# three `fak bench system-baseline` runs per side around a small real
# workload (the envelope pins three repetitions), attach, compare, gate.
# Also: the input receipt is never modified, --out is mode 0600 with nothing
# on stdout, a fourth attachment and a reused attestation are refused.
# Needs jq. Runs in a fresh empty folder (tests/cli/run.sh). The test is
# about receipts and the gate, not the host, and it measures this host: a
# fake /proc (quiet_host) seals attestations that every reader refuses as
# simulated (tests/cli/scripts/simulated-host.sh). So it runs on a copy of
# the committed graph whose Metal criterion carries a host policy that
# accepts a busy host, the attestations are sealed under those ceilings
# ($busy_host_flags), and the gate passes under that policy and says so,
# whatever else the machine is doing.
set -eu
command -v jq >/dev/null || { echo "jq is required"; exit 1; }
. "$ROOT/tests/lib.sh"
jq '.criteria["qwen38-27b-q4km-m3pro-p32-t64"].host_policy = {maximum_non_sut_cpu_percent: 100,
	maximum_sampler_duty_percent: 100, maximum_psi_stall_percent: 100}' \
	"$ROOT/data/native-performance-graph.json" >graph.json
np() { "$FAK" native-performance --graph graph.json "$@"; }

lever=$(np --next | sed -n 's/^Lever: //p')
[ "$lever" = metal.command-buffer-amortization ] || fail "--next chose '$lever'"
np --baseline "$lever" >template.json

# A small real workload: a CPU-bound shell loop (~0.1 s).
work='i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done'
printf 'profile of the workload\n' >profile.txt
sha=$(sha256sum profile.txt | cut -d' ' -f1)

# fill ROLE REVISION TPS1 TPS2 TPS3 > receipt
fill() {
	jq --arg role "$1" --arg rev "$2" --arg lever "$lever" --arg sha "$sha" \
		--argjson t "[$3, $4, $5]" '
		.role = $role | .revision = $rev
		| .machine.scrubbed_id = "ci-runner-class"
		| .changed_axes = (if $role == "candidate" then ["lever:" + $lever] else [] end)
		| .repetitions = [$t[] | {end_to_end_milliseconds: (64 / . * 1000), tokens_per_second: .}]
		| .memory = {peak_bytes: 22548578304, resident_bytes: 21474836480}
		| .quality = {name: "exact_match", score: 1, higher_is_better: true}
		| .module_versions = [{module: "internal/model", revision: $rev}]
		| .commands = ["sh -c loop-workload"]
		| .profiler_artifacts = [{path: "profiles/workload.txt", sha256: $sha}]' template.json
}
fill baseline rev-100 2.61 2.63 2.62 >baseline.json
fill candidate rev-101 2.71 2.70 2.72 >candidate.json
cp baseline.json baseline.orig

for side in base cand; do
	for i in 1 2 3; do
		"$FAK" bench system-baseline --baseline-duration 200ms --interval 50ms \
			$busy_host_flags --out "$side-$i.json" -- sh -c "$work" >/dev/null
		"$FAK" bench system-baseline --verify "$side-$i.json" | grep -q '^VALID sha256:' ||
			fail "$side-$i.json does not verify"
	done
done

attach() {	# attach RECEIPT SIDE -> RECEIPT-attested.json
	r=$1
	for i in 1 2 3; do
		out=$(np --attach-receipt "$r" --system-baseline "$2-$i.json" --out "step-$2-$i.json")
		[ -z "$out" ] || fail "--out printed to stdout"
		r=step-$2-$i.json
	done
	cp "$r" "${1%.json}-attested.json"
}
attach baseline.json base
attach candidate.json cand
cmp -s baseline.json baseline.orig || fail "the input receipt was modified"
[ "$(stat -c %a step-base-3.json)" = 600 ] || fail "--out is not mode 0600"
[ "$(jq '.system_baselines | length' baseline-attested.json)" = 3 ] || fail "not 3 attestations"
for i in 0 1 2; do
	[ "$(jq -r ".repetitions[$i].system_baseline_digest" baseline-attested.json)" = \
		"$(jq -r ".system_baselines[$i].digest" baseline-attested.json)" ] || fail "binding $i"
done

# overfill and reuse are refused
if np --attach-receipt baseline-attested.json --system-baseline base-1.json >/dev/null 2>err.txt; then
	fail "a fourth attestation was accepted"
fi
grep -q 'system baselines already cover every repetition (3 of 3)' err.txt || fail "overfill: $(cat err.txt)"
if np --attach-receipt step-base-1.json --system-baseline base-1.json >/dev/null 2>err.txt; then
	fail "a reused attestation was accepted"
fi
grep -q 'system_baselines\[1\]: reuses the attestation digest of system_baselines\[0\]' err.txt ||
	fail "reuse: $(cat err.txt)"

np --compare baseline-attested.json --candidate candidate-attested.json --json >comparison.json
[ "$(jq -r .statistics.tokens_per_second.confidence_level comparison.json)" = 0.9 ] ||
	fail "3 + 3 reaches 90%: $(jq .statistics comparison.json)"
np --compare baseline-attested.json --candidate candidate-attested.json >comparison.txt
grep -q '^tok/s .* 90% CI  p=[0-9.]*  n=3+3  ' comparison.txt || fail "text: $(cat comparison.txt)"
jq -e '.decision.shift_percent > 0 and (.candidate_samples.tokens_per_second | length) == 3' \
	comparison.json >/dev/null || fail "comparison: $(cat comparison.json)"

jq -n --slurpfile a baseline-attested.json --slurpfile c candidate-attested.json --arg lever "$lever" '{
	schema: "fak-native-performance-gate-request/v2",
	policy: {
		schema: "fak-native-performance-gate-policy/v2",
		envelope_id: $a[0].envelope_id, changed_lever_id: $lever,
		accepted_revision: "rev-100", minimum_repetitions: 3,
		maximum_noise_percent: 2, investigate_drop_percent: 2, regression_drop_percent: 5,
		minimum_throughput_tokens_per_second: 2.3, maximum_peak_bytes: 25769803776,
		quality_metric: "exact_match", minimum_quality_score: 1,
		quality_higher_is_better: true, required_engine: "fak-native",
		required_forward_path: $a[0].execution.forward_path,
		require_system_baseline: true, allow_declared_identity: true
	},
	last_accepted: $a[0], candidate: $c[0]}' >gate-request.json
rc=0
np --gate gate-request.json --json >verdict.json || rc=$?
[ $rc = 0 ] || fail "gate exit $rc"
cls=$(jq -r .classification verdict.json)
sb=$(jq -r '.checks[] | select(.name == "system_baseline") | .status' verdict.json)
# The throughput figures pass, and so do the attestations: every one clean
# with exact descendant attribution.
clean=$(jq -s '[.[] | select(.verdict == "clean" and (.coverage.descendant_attribution |
	test("^exact_")))] | length' base-1.json base-2.json base-3.json cand-1.json cand-2.json cand-3.json)
[ "$clean" = 6 ] || fail "$clean of 6 attestations clean: $(jq -c .findings base-*.json cand-*.json)"
[ "$cls" = pass ] && [ "$sb" = pass ] || fail "clean evidence but $cls/$sb: $(cat verdict.json)"
# ... under the criterion's host policy, which the verdict shows
jq -e '.decision.host_policy.maximum_non_sut_cpu_percent == 100 and (.reason | test("host policy"))
	and (.checks[] | select(.name == "system_baseline") | .detail | test("under the host policy"))' \
	verdict.json >/dev/null || fail "the host policy is not shown: $(cat verdict.json)"

# the candidate rebinding the accepted side's attestations investigates
jq '.candidate.system_baselines = .last_accepted.system_baselines
	| .candidate.repetitions = [range(3) as $i | .candidate.repetitions[$i]
		| .system_baseline_digest = $d[$i]]' \
	--argjson d "$(jq '[.system_baselines[].digest]' baseline-attested.json)" \
	gate-request.json >reused.json
np --gate reused.json --json >reused-verdict.json
jq -e '.classification == "investigate" and (has("bisect") | not)' reused-verdict.json >/dev/null ||
	fail "rebinding: $(cat reused-verdict.json)"
jq -r '.checks[] | select(.name == "system_baseline") | .detail' reused-verdict.json |
	grep -q '^candidate repetition 0 reuses system baseline evidence from last_accepted repetition 0$' ||
	fail "reuse detail: $(cat reused-verdict.json)"
echo "receipt loop ok: $cls"
