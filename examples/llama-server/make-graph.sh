#!/bin/sh
# Writes the example's graph with fak's own commands (docs/graph.md, "Graphs written by
# fak"): --new-graph, --add-envelope for each of the two serving envelopes (the model's
# sha256 read from the file itself, the trace's with --serve-trace, and the primary
# metric), --add-lever for each lever. What those flags do not set is added with jq and the result
# is validated and laid out by fak native-performance --json: each lever's typed next
# witness (kind "serving", as the seed's four serving levers have it).
#
#   LLAMA_DIR=build/llama-cpp examples/llama-server/make-graph.sh examples/llama-server/graph.json
#
# OUT must not exist (remove the committed graph first to write it again).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
FAK=${FAK:-$top/build/fak}
LLAMA_DIR=${LLAMA_DIR:-$top/build/llama-cpp}
die() { echo "make-graph: $*" >&2; exit 1; }
[ $# = 1 ] || die "usage: examples/llama-server/make-graph.sh OUT"
out=$1
[ ! -e "$out" ] || die "'$out' exists: remove it first"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g=$tmp/graph.json
np() { "$FAK" native-performance --graph "$g" "$@" >/dev/null; }
env=llama-server-random-512x8-q4km-linux-amd64-trace24
env2=llama-server-random-512x8-q4km-linux-amd64-prefix12
summary() {	# summary TRACE: its size in words
	jq -r '"\(.requests | length) requests, \([.requests[].prompt_token_ids | length] | add) prompt and \([.requests[].max_tokens] | add) output tokens"' "$1"
}
sha() {	# sha TRACE: its canonical sha256, as fak bench trace --check prints it
	"$FAK" bench trace --check "$1" 2>&1 | sed -n 's/.*\(sha256:[0-9a-f]\{64\}\).*/\1/p'
}
trace=$(summary "$top/examples/llama-server/trace.json")
digest=$(sha "$top/examples/llama-server/trace.json")
trace2=$top/examples/llama-server/trace-prefix.json
digest2=$(sha "$trace2")
[ -n "$digest" ] && [ -n "$digest2" ] || die "cannot read the traces' digests"
# the command as receipts name it: $FAK_ARTIFACT and $FAK_PORT are the runner's, not ours
# shellcheck disable=SC2016
base='llama-server -m "$FAK_ARTIFACT" --port "$FAK_PORT" -t 1 -tb 1 -c 2048 -fa off --no-webui'
issue=25
witness() {	# witness OFF ON [TRACE DIGEST]: the next witness of a lever, in words
	echo "an isolated serving A/B: $base $1 against $2, every other flag as the graph has it, each run a fresh server replaying examples/llama-server/${3:-trace.json} (${4:-$digest}) through fak bench serve; one warm-up and three repetitions per arm, each with its complete serving summary: TTFT, TPOT, ITL and E2EL p50/p95, output tok/s, prefix-hit rate, failed requests and the client's schedule lag"
}
prov="examples/llama-server/README.md: load.sh runs of both arms on the development VM (one run is one sample)"

"$FAK" native-performance --new-graph "$g" >/dev/null
envelope() {	# envelope ID TRACE DIGEST WHAT METRIC WORDS: a serving envelope pinning TRACE
	np --add-envelope "$1" --artifact "$LLAMA_DIR/model-q4_k_m.gguf" \
	--model "fak example llama-architecture model: 8 layers of 512, 8 heads, feed-forward 1536, 512-token vocabulary (generated random weights, not trained)" \
	--model-revision "examples/llama-cpp/gguf_gen.c v1 (seed 0x66616b2d6c6c616d), quantized by llama-quantize of llama.cpp de3ff81 (node-llama-cpp 3.22.1)" \
	--quantization "Q4_K_M (llama-quantize)" \
	--hardware "any x86-64 CPU with AVX2, FMA and F16C and two cores (an example: each receipt names its machine by scrubbed id)" \
	--engine llama.cpp --backend cpu --platform linux/amd64 \
	--forward-path "llama.cpp de3ff81 llama-server ggml-cpu avx2-fma-f16c" \
	--prompt-tokens "$(jq '[.requests[].prompt_token_ids | length] | add' "$2")" \
	--decode-tokens "$(jq '[.requests[].max_tokens] | add' "$2")" \
	--warmups 1 --repetitions 3 --required-evidence module_versions \
	--set memory_gib=1 \
	--set "throughput_metric=output tokens per second of one replay of examples/llama-server/$(basename "$2") ($3: $4, open loop) by fak bench serve against $base; P and T are the trace's totals. Serving receipts decide on the envelope's serving member: the trace's sha256 and the primary metric, $6, lower is better" \
	--set "comparability_rule=same model sha256, llama.cpp commit and build flags, trace sha256, $base and every lever's flags, fak bench serve's client, warm-ups, repetitions and machine" \
	--serve-trace "$2" --primary-metric "$5" --direction lower \
	--set criterion.maximum_noise_percent=10
}
envelope "$env" "$top/examples/llama-server/trace.json" "$digest" "$trace" ttft_p95_ms "TTFT p95"
envelope "$env2" "$trace2" "$digest2" "$(summary "$trace2")" ttft_p50_ms "TTFT p50"
lever() {	# lever ID NAME EXPECTED OFF ON [DEPENDS-ON]
	set -- "$@" ""
	np --add-lever "$1" --envelope "$env" --name "$2" --expected "$3" --provenance "$prov" --issue "$issue" --set owning_issue.url=examples/llama-server/README.md#levers \
		--set "next_witness=$(witness "$4" "$5")" ${6:+--depends-on "$6"}
}
lever llama-server.slots-4 "Four server slots" \
	"Serve four requests at once (-np 4: four slots of 512 context tokens) instead of one (-np 1), the KV room for concurrent sequences that the seed's paged KV bounds; without continuous batching a new prompt waits until every running request has finished. Hypothesis: a lower TTFT and E2EL on the trace's overlapping arrivals (requests no longer queue for one slot) and a longer ITL (decode steps shared by up to four streams); hand runs, medians of three at load 4 to 6: TTFT p50 201 to 123 ms, E2EL p50 267 to 195 ms, ITL p50 1.7 to 2.4 ms" \
	"-np 1 -nocb --no-cache-prompt" "-np 4 -nocb --no-cache-prompt"
lever llama-server.continuous-batching "Continuous batching" \
	"Let a new request's prompt join the running decode steps (llama-server's default; -nocb turns it off) with four slots. Hypothesis: a lower TTFT under overlapping arrivals, and a longer ITL p95 for the running streams, whose steps now carry a whole prompt; no single-request gain. Hand runs, medians of three at load 4 to 6: TTFT p50 123 to 111 ms, ITL p95 9 to 32 ms, E2EL p50 195 to 275 ms" \
	"-np 4 -nocb --no-cache-prompt" "-np 4 --no-cache-prompt" llama-server.slots-4
lever llama-server.prompt-cache "Prompt caching (prefix reuse)" \
	"Keep each slot's KV cache after a request and reuse the longest common prefix of the next prompt given to that slot (--cache-prompt, llama-server's default; a slot is chosen by prompt similarity): half of the trace's requests share a 96-token prefix. Hypothesis: a lower TTFT for those requests; hand runs served 960 to 1056 of the trace's 1899 prompt tokens from the cache (none with --no-cache-prompt), while their TTFT moved within the host's noise at load 4 to 7" \
	"-np 4 -nocb --no-cache-prompt" "-np 4 -nocb --cache-prompt" llama-server.slots-4
lever llama-server.cache-reuse "Cache reuse by KV shifting" \
	"Reuse cached chunks of at least 32 tokens that are not a prefix, by shifting them in the KV cache (--cache-reuse 32; 0 is off). Hypothesis: no change on this trace, whose shared tokens are all a prefix, which prompt caching already reuses (hand runs: 864 to 960 cached prompt tokens against 960 to 1056 without it)" \
	"-np 4 -nocb --cache-prompt --cache-reuse 0" "-np 4 -nocb --cache-prompt --cache-reuse 32" llama-server.prompt-cache
lever llama-server.chunked-prefill "Chunked prefill" \
	"Process prompts in chunks of 32 tokens (-b 32 -ub 32) instead of whole (-b 2048 -ub 512), so that a long prompt shares each step with the running streams' decode instead of stalling them. Hypothesis: a shorter ITL p95 for the running streams, a longer TTFT for prompts over 32 tokens; but 32-token steps prefill slowly on one CPU thread: hand runs at load 6 to 8 measured TTFT p50 111 to 643 ms and output throughput 112 to 64 tok/s (the server fell behind the trace), so a larger chunk is the next arm to try" \
	"-np 4 --no-cache-prompt -b 2048 -ub 512" "-np 4 --no-cache-prompt -b 32 -ub 32" llama-server.continuous-batching
# the prefix trace's lever: 12 prompts of a shared 256-token prefix and 16 to 32 tokens
# of their own, 4 output tokens each
np --add-lever llama-server.shared-prefix-cache --envelope "$env2" \
	--name "Prompt caching of a shared prefix" \
	--expected "Keep each slot's KV cache after a request (--cache-prompt, llama-server's default) so that a prompt sharing its first 256 tokens with an earlier one on that slot prefills only its own 16 to 32 tokens, instead of all of them (--no-cache-prompt): the seed's prefix reuse on a trace where every prompt shares the prefix (examples/llama-server/trace-prefix.json). On one CPU thread prefill is compute-bound, so without the cache the server cannot keep up with 4 requests a second and its queue grows. Hypothesis: TTFT p50 several times shorter; TTFT p95 much less so, since each of the four slots misses once (2048 of the trace's 3072 prefix tokens come from the cache); hand runs at load 3 (one run each): TTFT p50 585 to 37 ms, p95 858 to 626 ms" \
	--provenance "$prov" --issue "$issue" --set owning_issue.url=examples/llama-server/README.md#levers \
	--set "next_witness=$(witness "-np 4 --no-cache-prompt" "-np 4 --cache-prompt" trace-prefix.json "$digest2")"

jq '.levers[] |= (.next_witness_requirement = {"kind": "serving", "metrics": []})' "$g" >"$tmp/typed.json"
"$FAK" native-performance --graph "$tmp/typed.json" --json >"$tmp/out.json"
mv "$tmp/out.json" "$out"
echo "make-graph: wrote $out"
