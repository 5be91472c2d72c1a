#!/bin/sh
# The llama-server example's serving A/B end to end (make example-serve-ab-check, a stage
# of make check): examples/llama-server/experiment.sh runs lever
# llama-server.shared-prefix-cache (--no-cache-prompt against --cache-prompt, four slots, on
# trace-prefix.json, whose prompts share a 256-token prefix) through fak bench experiment
# --serve-trace,
# every run a fresh real llama-server under the sampler; then the receipts and comparison,
# the verdict on the envelope's primary metric (TTFT p50, lower), the gate, a promotion
# into copies of the example graph and index with a temporary witness root, and
# --verify-witnesses; every sealed run shows the server's CPU and peak memory and the
# model in use (artifact_observed), and its quality prompts' outputs equal the committed
# reference (examples/llama-server/quality-reference.json, which make-reference.sh must
# write again byte for byte).
#
#   LLAMA_DIR=build/llama-cpp tests/example-serve-ab.sh build/fak
#
# The verdict must be `faster` on every run, on a busy two-core host too: without the
# cache every prompt prefills its 256-token prefix again on one CPU thread, the server
# cannot keep up with the trace and its queue grows; with it most prompts prefill only
# their own 16 to 32 tokens (TTFT p50 many times shorter; examples/llama-server/README.md). The
# copy's criterion carries a host policy that lets other work use every core and a noise
# ceiling of 1000% (docs/graph.md#host-policy), so a busy host does not stop the gate;
# the decision's 2% practical threshold is the example's own. The client's send bound is
# 50 ms (--max-lag): on a loaded host a send can leave a few ms late, which would fail the
# gate's schedule check without saying anything of the server.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
FAK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
LLAMA_DIR=$(cd "${LLAMA_DIR:-$root/build/llama-cpp}" && pwd)
export LLAMA_DIR
fail() { echo "FAIL: example-serve-ab: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
start=$(date +%s)
lever=llama-server.shared-prefix-cache
printf '0123456789abcdef0123456789abcdef\n' >machine-id
jq '.criteria[] |= (.maximum_noise_percent = 1000
	| .host_policy = {"maximum_non_sut_cpu_percent": 100, "maximum_sampler_duty_percent": 100,
		"maximum_psi_stall_percent": 100})' "$root/examples/llama-server/graph.json" >graph.json
cp "$root/examples/llama-cpp/index.json" index.json
cp graph.json graph.before.json
np() { "$FAK" native-performance --graph graph.json "$@"; }

GRAPH=$PWD/graph.json WITNESS_ROOT=$PWD/witnesses FAK=$FAK \
	"$root/examples/llama-server/experiment.sh" "$PWD/run" "$lever" \
	--max-lag 50ms --baseline-duration 200ms --machine-id-file "$PWD/machine-id" >xp.txt 2>&1 ||
	{ cat xp.txt; fail "experiment.sh failed"; }
for f in baseline.json candidate.json comparison.json gate.json attempt.json chart.svg; do
	[ -s "run/$f" ] || fail "the experiment wrote no $f"
done
# the decision: the envelope's primary metric, in its direction, faster
jq -e '.decision.metric == "ttft_p50_ms" and .decision.verdict == "faster"
	and .decision.interval_percent.upper < -2' run/comparison.json >/dev/null ||
	{ cat xp.txt; fail "not faster on ttft_p50_ms: $(jq -c .decision run/comparison.json)"; }
[ "$(jq -r .classification run/gate.json)" = pass ] ||
	{ cat xp.txt; fail "gate: $(jq -r '.classification + ": " + .reason' run/gate.json)"; }
grep -q '^decision   faster: ' xp.txt || { cat xp.txt; fail "the summary does not say faster"; }
# every sealed serving run: the whole trace, the server's own CPU and peak memory, the model
n=$(jq '.requests | length' "$root/examples/llama-server/trace-prefix.json")
for a in baseline candidate; do
	for i in 1 2 3; do
		f=run/attestations/$a-$i.json
		jq -e --argjson n "$n" '.workload.parser == "serving/v1"
			and .workload.serving.requests == $n and .workload.serving.completed == $n
			and .workload.serving.failed == 0
			and .workload.serving.trace_sha256 == "sha256:c18b7c5f03edf1e4191ef6b40ec5999a26f01ab323c9e68c7b018de31618cc63"
			and .workload.artifact_observed == true
			and .workload.metrics.engine == "llama.cpp"
			and .workload.metrics.build_commit == "de3ff81"' "$f" >/dev/null ||
			fail "$f: not a complete serving run of the model: $(jq -c .workload "$f")"
		jq -e '.attribution.sut_cpu_seconds.available and .attribution.sut_cpu_seconds.value > 0
			and .attribution.sut_rss_bytes.available and .attribution.sut_rss_bytes.value > 0
			and .workload.peak_rss_bytes > 0' "$f" >/dev/null ||
			fail "$f: the server's CPU or peak memory is not sealed: $(jq -c .attribution "$f")"
	done
done
# the engine's identity is observed: llama-server's GET /props names its build
jq -e '.engine_identity == "observed"' run/baseline.json run/candidate.json >/dev/null ||
	fail "the receipts' engine identity is not observed"
# the quality: every run's own server, before the trace, answered each quality prompt
# alone exactly as the committed reference says (exact_match 1, the receipts' quality)
for f in run/attestations/*.json; do
	jq -e '.workload.serving.quality.prompts == 3 and .workload.serving.quality.matched == 3
		and .workload.metrics.quality == {name: "exact_match", score: 1, higher_is_better: true}' \
		"$f" >/dev/null || fail "$f: the quality prompts: $(jq -c .workload.serving.quality "$f")
$(cat "run/logs/$(basename "$f" .json).quality.jsonl")"
done
jq -e '.quality.score == 1 and (.experiment | has("quality_attestation") | not)' \
	run/baseline.json run/candidate.json >/dev/null || fail "the receipts' quality"
# the committed reference is what this build of llama-server answers
FAK=$FAK "$root/examples/llama-server/make-reference.sh" "$PWD/reference.json" >ref.txt 2>&1 ||
	{ cat ref.txt; fail "make-reference.sh"; }
cmp -s reference.json "$root/examples/llama-server/quality-reference.json" ||
	fail "make-reference.sh no longer writes the committed reference: $(cat reference.json)"

# the promotion into the copies: a dry run changes nothing, the real one writes the witness
np --index index.json --witness-root witnesses --promote run --dry-run >dry.txt ||
	{ cat dry.txt; fail "--promote --dry-run"; }
cmp -s graph.json graph.before.json || fail "--promote --dry-run changed the graph"
np --index index.json --witness-root witnesses --promote run >promote.txt ||
	{ cat promote.txt; fail "--promote"; }
grep -q "^promoted $lever in llama-server-random-512x8-q4km-linux-amd64-prefix12: faster: " \
	promote.txt || { cat promote.txt; fail "promote output"; }
jq -e --arg l "$lever" '.levers[] | select(.id == $l) | (.enabled | not) and .witnessed != null' \
	graph.json >/dev/null || fail "--promote did not witness $lever (or enabled it)"
[ "$(find witnesses -name '*.json' | wc -l)" -gt 0 ] || fail "no witness written"
np --index index.json --verify-witnesses witnesses >v.txt || { cat v.txt; fail "--verify-witnesses"; }
grep -q '^VERIFIED 1 witness folder under witnesses; ' v.txt || { cat v.txt; fail "verify output"; }
sed -n 's/^\(ttft_p50_ms\)  */\1 /p' xp.txt
echo "example-serve-ab: passed in $(($(date +%s) - start)) s"
