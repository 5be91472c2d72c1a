# fak bench experiment on a CUDA-like envelope (linux/<arch>+nvidia-a100 with a
# GPU policy), against the test double of NVML: the accelerator is verified
# before anything runs, every run seals the GPU, the comparison shows each
# arm's clocks, and the gate investigates a throttled run, naming it.
set -u
. "$FIX/experiment/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
lib=$(dirname "$FAK")/tests/nvml
[ -f "$lib/libnvidia-ml.so.1" ] || fail "$lib/libnvidia-ml.so.1 is not built (make test builds it)"
p="linux/$arch+nvidia-a100"
jq --arg p "$p" '.envelopes[0].platform = $p | .levers[].applicability.platform = $p
	| .criteria[] += {"gpu_policy": {"minimum_coverage_ratio": 1, "allow_unreadable": false,
		"maximum_sm_clock_drift_percent": 3, "maximum_memory_clock_drift_percent": 1,
		"disqualifying_clocks_event_reasons": ["sw_power_cap", "hw_slowdown"]}}' \
	graph.json >gpu-graph.json && mv gpu-graph.json graph.json
arms() { xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' "$@"; }

# the accelerator: no NVML, or a device that is not an A100, and nothing runs
LD_LIBRARY_PATH= arms --out-dir none >out.txt 2>err.txt
[ $? = 1 ] || fail "ran without NVML"
grep -qx "  platform: the envelope needs an NVIDIA A100 ($p), and NVML cannot be read here: no libnvidia-ml.so.1" \
	err.txt || { cat err.txt; fail "no-NVML refusal"; }
LD_LIBRARY_PATH=$lib FAKE_NVML_NAME="NVIDIA H100 80GB HBM3" arms --out-dir h100 >out.txt 2>err.txt
[ $? = 1 ] || fail "ran on an H100"
grep -qx "  platform: the envelope needs an NVIDIA A100 ($p), and NVML lists \"NVIDIA H100 80GB HBM3\"" \
	err.txt || { cat err.txt; fail "H100 refusal"; }
LD_LIBRARY_PATH=$lib FAKE_NVML=nodevice arms --out-dir nodev >out.txt 2>err.txt
grep -qx "  platform: the envelope needs an NVIDIA A100 ($p), and NVML lists no device here" err.txt ||
	{ cat err.txt; fail "no-device refusal"; }
[ ! -e none ] && [ ! -e h100 ] && [ ! -e nodev ] || fail "a refused experiment wrote files"

# steady clocks: every run sealed its GPU, the gpu check passes, the comparison shows clocks
LD_LIBRARY_PATH=$lib arms --out-dir steady >out.txt 2>err.txt || { cat err.txt; fail "steady run"; }
grep -q '^gpu    SM 1410 MHz \[1410, 1410\] → 1410 MHz \[1410, 1410\]; memory 1593 MHz' out.txt ||
	{ cat out.txt; fail "the summary does not show the clocks"; }
jq -e '.checks[] | select(.name == "gpu") | .status == "pass"' steady/gate.json >/dev/null ||
	fail "steady: gpu check"
jq -e '.gpu_clocks.baseline.runs == 3 and .gpu_clocks.candidate.sm_clock_mhz.mean == 1410
	and .gpu_clocks.candidate.clocks_event_reasons == []' steady/comparison.json >/dev/null ||
	fail "steady: comparison gpu_clocks"
for a in steady/attestations/*.json; do
	jq -e '.gpu.status == "observed" and .gpu.devices[0].summary.observed >= 1' "$a" >/dev/null ||
		fail "$a: no observed GPU section"
	"$FAK" bench system-baseline --verify "$a" >/dev/null || fail "$a does not verify"
done

# a power-capped card: the gate investigates and its gpu check names run, reason and clocks
LD_LIBRARY_PATH=$lib FAKE_NVML=powercap FAKE_NVML_AFTER_MS=0 arms --out-dir capped >out.txt 2>err.txt ||
	{ cat err.txt; fail "capped run"; }
"$FAK" native-performance --graph graph.json --gate capped/gate-request.json --json >gate.json
[ $? = 0 ] || fail "--gate exit"
[ "$(jq -r .classification gate.json)" = investigate ] || fail "the gate did not investigate"
jq -r '.checks[] | select(.name == "gpu") | .status + ": " + .detail' gate.json >gpu.txt
grep -qx 'investigate: last_accepted run 3 (baseline repetition 1): device 0 (NVIDIA A100-SXM4-80GB): clock-event reason(s) sw_power_cap (SM 1200..1200 MHz, mean 1200; memory 1593..1593 MHz, mean 1593)' \
	gpu.txt || { cat gpu.txt; fail "gpu check detail"; }
jq -e '.gpu_clocks.candidate.clocks_event_reasons == ["sw_power_cap"]' capped/comparison.json >/dev/null ||
	fail "capped: comparison reasons"
"$FAK" native-performance --graph graph.json --compare capped/baseline.json --candidate capped/candidate.json \
	--format md >cmp.md || fail "--compare --format md"
grep -qxF '| GPU SM clock | 1200 MHz \[1200, 1200\] | 1200 MHz \[1200, 1200\] | | | | | |' cmp.md &&
	grep -qxF '| clock events | sw_power_cap | sw_power_cap | | | | | |' cmp.md ||
	{ cat cmp.md; fail "the Markdown comparison does not show the clocks"; }

# the policy is part of the criterion the receipts bind: dropping it from the graph
# does not let the same receipts through unchecked
jq 'del(.criteria[].gpu_policy)' graph.json >plain.json
"$FAK" native-performance --graph plain.json --gate steady/gate-request.json >plain.txt 2>plain.err
[ $? = 1 ] || fail "the gate judged receipts bound to another criterion"
grep -q 'comparison: does not match the criterion resolved from run identity' plain.err ||
	{ cat plain.err; fail "criterion refusal"; }
exit 0
