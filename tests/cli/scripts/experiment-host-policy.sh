# The criterion's host policy: fak bench experiment seals its three ceilings
# as the sampler's policy where no flag sets them (a flag may tighten one),
# and the gate judges every attestation against it, naming the bound; an
# attestation looser than the bound (the criterion's, or the defaults when
# the criterion has none) makes the gate investigate, whatever the load.
set -u
. "$FIX/experiment/lib.sh"
policy() { jq -c '[.policy.maximum_non_sut_cpu_percent, .policy.maximum_sampler_duty_percent,
	.policy.maximum_psi_stall_percent]' "$1"; }
sb_detail() { jq -r '.checks[] | select(.name == "system_baseline") | .detail' "$1/gate.json"; }

# the criterion's ceilings (100, 100, 100), sealed in every run; the gate passes under them
xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir run >run.txt 2>&1 ||
	{ cat run.txt; fail "run"; }
for a in run/attestations/*.json; do
	expect_equal '[100,100,100]' "$(policy "$a")" "the policy sealed in $a"
done
expect_equal pass "$(jq -r .classification run/gate.json)" "the gate under the host policy"
expect_equal 'every repetition has a clean system baseline with host/SUT/non-SUT CPU attribution under the host policy of criterion "exact-match-native-throughput"' \
	"$(sb_detail run)" "the system_baseline check names its bound"

# a flag tightens one ceiling; the others stay the criterion's
xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir tight \
	--max-psi-stall-percent 99 >tight.txt 2>&1 || { cat tight.txt; fail "tight run"; }
expect_equal '[100,100,99]' "$(policy tight/attestations/candidate-2.json)" "a tighter flag"

# a criterion stricter than the flags: the gate investigates, naming the criterion
cp graph.json graph.host
# the graph writes it out as it read it (and digests it with the criterion)
expect_equal '{"maximum_non_sut_cpu_percent":100,"maximum_sampler_duty_percent":100,"maximum_psi_stall_percent":100}' \
	"$("$FAK" native-performance --graph graph.host --json | jq -c '.criteria[].host_policy')" "--json"
jq '.criteria[].host_policy.maximum_sampler_duty_percent = 50' graph.host >graph.json
xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir loose \
	$busy_host_flags >loose.txt 2>&1 || { cat loose.txt; fail "loose run"; }
expect_equal investigate "$(jq -r .classification loose/gate.json)" "a looser flag"
expect_equal 'last_accepted repetition 0 was sealed under a looser policy than the host policy of criterion "exact-match-native-throughput" (maximum_sampler_duty_percent 100 > 50)' \
	"$(sb_detail loose)" "the finding names the criterion"

# no host policy: the defaults are the bound, as before
jq '.criteria[] |= del(.host_policy)' graph.host >graph.json
xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir plain \
	$busy_host_flags >plain.txt 2>&1 || { cat plain.txt; fail "plain run"; }
expect_equal '[100,100,100]' "$(policy plain/attestations/baseline-1.json)" "the flags, sealed"
expect_equal 'last_accepted repetition 0 was sealed under a looser policy than the defaults (maximum_non_sut_cpu_percent 100 > 20)' \
	"$(sb_detail plain)" "the finding names the defaults"
