#!/bin/sh
# Test seams produce no evidence (issue 26). The audit: with FAK_PROC_ROOT
# pointing at a fake /proc of a quiet host, `fak bench system-baseline`
# sealed a clean attestation that --verify called VALID, and attach, then
# the gate passed a receipt built on it. Now the attestation records the
# variable (`simulated`), --verify says so, attach refuses it, and a gate
# request that embeds it anyway is refused by name. `fak bench experiment`
# refuses every test variable before it runs anything. Needs jq.
set -eu
command -v jq >/dev/null || { echo "jq is required"; exit 1; }
. "$ROOT/tests/lib.sh"
np() { "$FAK" native-performance "$@"; }
quiet_host

# the fake host is quiet: a clean attestation, sealed as simulated
for i in 1 2 3; do
	"$FAK" bench system-baseline --baseline-duration 100ms --interval 20ms --out "sim-$i.json" \
		-- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' >/dev/null
done
jq -e '.verdict == "clean" and .simulated == ["FAK_PROC_ROOT"]' sim-1.json >/dev/null ||
	fail "not a clean simulated attestation: $(jq -c '[.verdict, .simulated]' sim-1.json)"
"$FAK" bench system-baseline --verify sim-1.json >verify.out
sed -n 1p verify.out | grep -q '^VALID sha256:' || fail "verify: $(cat verify.out)"
expect_equal "$(sed -n 2p verify.out)" "SIMULATED FAK_PROC_ROOT: sealed while a test variable \
pointed the sampler at fake files; not evidence of a host (attach, compare, gate and promotion \
refuse it)" "--verify"
# the record is sealed: removing it breaks the digest
jq 'del(.simulated)' sim-1.json >stripped.json
expect_failure "$FAK" bench system-baseline --verify stripped.json
grep -q 'canonical digest mismatch' err.txt || fail "stripped: $(cat err.txt)"

# a receipt of the manual loop
lever=$(np --next | sed -n 's/^Lever: //p')
np --baseline "$lever" >template.json
printf 'profile\n' >profile.txt
sha=$(sha256sum profile.txt | cut -d' ' -f1)
fill() {	# fill ROLE REVISION TPS
	jq --arg role "$1" --arg rev "$2" --arg lever "$lever" --arg sha "$sha" --argjson t "$3" '
		.role = $role | .revision = $rev
		| .machine.scrubbed_id = "ci-runner-class"
		| .changed_axes = (if $role == "candidate" then ["lever:" + $lever] else [] end)
		| .repetitions = [range(3) | {end_to_end_milliseconds: (64 / $t * 1000),
			tokens_per_second: ($t + . * 0.01)}]
		| .memory = {peak_bytes: 22548578304, resident_bytes: 21474836480}
		| .quality = {name: "exact_match", score: 1, higher_is_better: true}
		| .module_versions = [{module: "internal/model", revision: $rev}]
		| .commands = ["sh -c loop-workload"]
		| .profiler_artifacts = [{path: "profiles/workload.txt", sha256: $sha}]' template.json
}
fill baseline rev-100 2.61 >baseline.json
fill candidate rev-101 2.71 >candidate.json

# attach refuses it by name, and writes nothing
expect_code 1 np --attach-receipt baseline.json --system-baseline sim-1.json --out b1.json
expect_equal "$(cat err.txt)" "fak native-performance: attach system baseline: system baseline: \
is simulated, not evidence of a host: it was sealed while a test variable pointed the sampler at \
fake files (unset it and run again): FAK_PROC_ROOT" "attach"
[ ! -e b1.json ] || fail "attach wrote b1.json"

# embedded by hand, the gate refuses the request by name: no verdict
embed() {	# embed RECEIPT: the three simulated attestations bound in order
	jq --slurpfile a sim-1.json --slurpfile b sim-2.json --slurpfile c sim-3.json '
		.system_baselines = [$a[0], $b[0], $c[0]]
		| .repetitions = [range(3) as $i | .repetitions[$i]
			| .system_baseline_digest = ([$a[0], $b[0], $c[0]][$i].digest)]' "$1"
}
embed baseline.json >baseline-sim.json
embed candidate.json >candidate-sim.json
# the committed manual loop's request on the Metal envelope, with these receipts
jq --slurpfile a baseline-sim.json --slurpfile c candidate-sim.json '.last_accepted = $a[0]
	| .candidate = $c[0] | .policy.accepted_revision = $a[0].revision' \
	"$FIX/gate/sb-pass.json" >gate-request.json
expect_code 1 np --gate gate-request.json
why="is simulated, not evidence of a host: it was sealed while a test variable pointed the \
sampler at fake files (unset it and run again): FAK_PROC_ROOT"
expect_equal "fak native-performance: gate: last accepted: invalid native-performance receipt \
(3 findings):
  system_baselines[0]: $why
  system_baselines[1]: $why
  system_baselines[2]: $why" "$(cat err.txt)" "gate"
[ ! -s out.txt ] || fail "the gate printed a verdict: $(cat out.txt)"
# and so does the comparison
expect_code 1 np --compare baseline-sim.json --candidate candidate-sim.json
grep -qF '  system_baselines[0]: is simulated, not evidence of a host' err.txt ||
	fail "compare: $(cat err.txt)"

# the runner refuses every test variable before it runs anything
for v in FAK_PROC_ROOT FAK_SYS_ROOT FAK_CENSUS_PROCESS_LIMIT; do
	expect_code 2 env -u FAK_PROC_ROOT "$v=100" "$FAK" bench experiment no.such-lever \
		--baseline true --candidate true --out-dir xp
	expect_equal "$(head -n 1 err.txt)" "fak bench experiment: $v is set: a test variable \
that simulates what the sampler sees (another proc tree, sys tree or census bound); an \
experiment measures this machine, so unset it" "runner: $v"
	[ ! -e xp ] || fail "the runner made its folder under $v"
done
echo "simulated host refused"
