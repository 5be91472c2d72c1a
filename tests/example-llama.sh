#!/bin/sh
# The llama.cpp example end to end, as a user runs it (make example-llama-check, a stage
# of make check): the real llama-bench through fak bench experiment (--metrics llama-bench:
# llama-bench -p P -n T, a pp row and a tg row), the sealed receipts compared, the gate,
# a promotion of the lever into copies of the example graph and index, and
# --verify-witnesses over the new witness; every run shows the model in use
# (artifact_observed).
#
#   LLAMA_DIR=build/llama-cpp tests/example-llama.sh build/fak
#
# The copy of the graph takes 100000% as its practical threshold (maximum_noise_percent,
# instead of the example's 10%: a factor of 1001 either way), so the decision is
# `equivalent` (a witnessed null) unless the interval is wholly beyond it (two threads
# measured 94% slower than one while other builds loaded both cores, 2026-12-02, and
# slower beyond a 1000% threshold): this test is about the loop on a
# real engine, not about two threads beating one on a shared two-vCPU machine, where
# llama-bench -t 2 measured anywhere from 10% slower to 14% faster than -t 1 on a quiet
# host, and 82% slower, with 63% noise, next to a CPU burner on the other core. Its
# criterion also carries a host policy that lets other work use every core
# (docs/graph.md#host-policy), so a busy host does not stop the gate from passing; a run
# the gate still does not pass is measured again, up to five times.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
FAK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
LLAMA_DIR=$(cd "${LLAMA_DIR:-$root/build/llama-cpp}" && pwd)
export LLAMA_DIR
fail() { echo "FAIL: example-llama: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
start=$(date +%s)
printf '0123456789abcdef0123456789abcdef\n' >machine-id
jq '.criteria[] |= (.maximum_noise_percent = 100000 | .investigate_drop_percent = 95
	| .regression_drop_percent = 99
	| .host_policy = {"maximum_non_sut_cpu_percent": 100, "maximum_sampler_duty_percent": 100,
		"maximum_psi_stall_percent": 100})' "$root/examples/llama-cpp/graph.json" >graph.json
cp "$root/examples/llama-cpp/index.json" index.json
np() { "$FAK" native-performance --graph graph.json "$@"; }
[ "$(np --next --json | jq -r .lever.id)" = llama.threads-2 ] || fail "--next is not llama.threads-2"

try=1
while :; do
	# each try in a fresh ledger: a retry is an attempt, and promotion would widen the
	# decision for it (docs/receipts.md "Attempts")
	rm -rf witnesses
	if GRAPH=$PWD/graph.json WITNESS_ROOT=$PWD/witnesses FAK=$FAK "$root/examples/llama-cpp/experiment.sh" "$PWD/run$try" \
		--baseline-duration 200ms --machine-id-file "$PWD/machine-id" \
		>xp.txt 2>&1; then
		[ "$(jq -r .classification run$try/gate.json)" = pass ] && break
		echo "attempt $try: gate $(jq -r '.classification + ": " + .reason' run$try/gate.json)"
	else
		# a run the sampler could not measure fails the experiment
		echo "attempt $try: $(tail -1 xp.txt)"
	fi
	[ $try -lt 5 ] || { cat xp.txt; fail "no passing run in 5 attempts"; }
	try=$((try + 1))
done
run=run$try

# every repetition sealed a pp+tg derivation of the real llama-bench output
for f in "$run"/attestations/baseline-[123].json "$run"/attestations/candidate-[123].json; do
	jq -e '.workload.parser == "llama-bench/v1" and .workload.metrics.derivation == "pp+tg"
		and .workload.metrics.prefill_milliseconds > 0
		and .workload.metrics.decode_milliseconds > 0' "$f" >/dev/null ||
		fail "$f: not a sealed pp+tg measurement"
	# what llama-bench said about itself: the envelope's engine, build and backend
	jq -e '.workload.metrics | .engine == "llama.cpp" and .build_commit == "de3ff81"
		and .backends == "CPU" and (.model_file | endswith(".gguf"))' "$f" >/dev/null ||
		fail "$f: not llama-bench's identity: $(jq -c .workload.metrics "$f")"
done
jq -e '.engine_identity == "observed"' "$run/baseline.json" "$run/candidate.json" >/dev/null ||
	fail "the receipts' engine identity is not observed"
grep -q '"build_commit": "' "$run/logs/baseline-1.stdout" || fail "the log is not llama-bench's output"
# every run, the quality runs included, had the model open or mapped (llama.cpp maps it)
for f in "$run"/attestations/*.json; do
	jq -e '.workload.artifact_observed == true' "$f" >/dev/null ||
		fail "$f: artifact_observed is not true: $(jq -r .workload.artifact_observation "$f")"
done
jq -e '.execution.engine == "llama.cpp" and (.profiler_artifacts | length) == 0
	and .module_versions[0].module == "llama.cpp"' "$run/candidate.json" >/dev/null ||
	fail "the candidate receipt does not state the llama.cpp engine and module"
np --compare "$run/baseline.json" --candidate "$run/candidate.json" >compare.txt ||
	{ cat compare.txt; fail "--compare"; }
np --gate "$run/gate-request.json" >gate.txt || { cat gate.txt; fail "--gate"; }

# A pass is `faster` (a gain) or `equivalent` (a witnessed null); under a 100000% threshold two
# threads are all but always equivalent to one. Either way --promote only witnesses the lever:
# it stays off until --enable (the source's step 6) sees the default path use it.
verdict=$(jq -r .decision.verdict "$run/comparison.json")
np --index index.json --witness-root witnesses --promote "$run" >promote.txt ||
	{ cat promote.txt; fail "promote"; }
grep -q "^promoted llama.threads-2 in llama-cpp-random-512x8-q4km-linux-amd64-p128-t64: $verdict: " \
	promote.txt || { cat promote.txt; fail "promote output"; }
np --next --json | jq -e '.lever.id == "llama.flash-attention"' >/dev/null || fail "--next did not advance"
np --index index.json --verify-witnesses witnesses >v.txt || { cat v.txt; fail "--verify-witnesses"; }
grep -q '^VERIFIED 1 witness folder under witnesses; ' v.txt || { cat v.txt; fail "verify output"; }
jq -e '.levers[] | select(.id == "llama.threads-2") | (.enabled | not) and .witnessed != null' \
	graph.json >/dev/null || fail "--promote enabled the lever (enabling is --enable, step 6)"
# the next experiment's arms do not carry the witnessed lever's flag: it is not enabled
threads=1
DRY_RUN=1 GRAPH=$PWD/graph.json FAK=$FAK "$root/examples/llama-cpp/experiment.sh" next >next.txt ||
	fail "experiment.sh on the promoted graph"
printf 'lever llama.flash-attention\nbaseline -t %s -fa off -ctk f16 -ctv f16\ncandidate -t %s -fa on -ctk f16 -ctv f16\n' \
	"$threads" "$threads" | cmp -s - next.txt || { cat next.txt; fail "the next arms (verdict $verdict)"; }
echo "example-llama: passed in $(($(date +%s) - start)) s ($try attempt(s))"
