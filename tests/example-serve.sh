#!/bin/sh
# The llama-server example under load (make example-serve-check, a stage of make check):
# the real llama-server, built from the same source as the llama.cpp example, replays the
# committed trace through examples/llama-server/load.sh (fak bench serve, open loop,
# streaming) and the run is checked request by request:
#
#   - every request of the trace completed, none failed, each logged once;
#   - prompt and output tokens are the server's own (usage), and they are exactly the
#     trace's: the token-id prompts' lengths and every max_tokens (ignore_eos honoured);
#   - for every request, send <= first chunk <= end (TTFT <= E2EL), chunks in order;
#   - with prompt caching on (llama-server's default), the requests of the trace's
#     prefix group were served prompt tokens from the cache (timings.cache_n and
#     usage.prompt_tokens_details.cached_tokens); with --no-cache-prompt, none were;
#   - once load.sh has stopped the server, fak bench serve names the failure
#     (connection-refused for every request; "server not ready" with --ready-timeout),
#     and a server that cannot start fails load.sh by name, with no partial output.
#
# No timing threshold: a run whose client fell behind its schedule on a busy host (exit
# 1, FELL BEHIND) is accepted when no request failed, and checked all the same.
#
#   LLAMA_DIR=build/llama-cpp tests/example-serve.sh build/fak
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
FAK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
LLAMA_DIR=$(cd "${LLAMA_DIR:-$root/build/llama-cpp}" && pwd)
export LLAMA_DIR FAK
load=$root/examples/llama-server/load.sh
trace=$root/examples/llama-server/trace.json
fail() { echo "FAIL: example-serve: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
start=$(date +%s)

run() {	# run NAME FLAGS...: one load.sh run into NAME/, summary in NAME.json
	name=$1
	shift
	rc=0
	"$load" "$name" "$@" >"$name.json" 2>"$name.err" || rc=$?
	case $rc in
	0) ;;
	1)	# fell behind on a busy host: accepted only when nothing failed
		jq -e '.failed == 0 and .schedule.fell_behind' "$name.json" >/dev/null 2>&1 ||
			{ cat "$name.err"; fail "$name: load.sh exit 1 with failed requests"; }
		grep -q 'fell behind its schedule' "$name.err" ||
			{ cat "$name.err"; fail "$name: exit 1 without saying why"; }
		echo "example-serve: $name: the client fell behind its schedule on this host" \
			"($(jq .schedule.late "$name.json") late sends, max" \
			"$(jq .schedule.lag_ms.max "$name.json") ms); checked all the same" ;;
	*) cat "$name.err"; fail "$name: load.sh exit $rc" ;;
	esac
	[ -f "$name/requests.jsonl" ] && [ -f "$name/summary.json" ] ||
		fail "$name: load.sh left no log or summary"
	cmp -s "$name.json" "$name/summary.json" || fail "$name: stdout is not summary.json"
}

# what the trace asks for
n=$(jq '.requests | length' "$trace")
want_out=$(jq '[.requests[].max_tokens] | add' "$trace")
want_prompt=$(jq '[.requests[].prompt_token_ids | length] | add' "$trace")
jq '[.requests[] | .prefix_group != null]' "$trace" >prefix.json
[ "$(jq 'map(select(.)) | length' prefix.json)" -gt 1 ] || fail "the trace has no prefix group"

# 1. llama-server's defaults with four slots: continuous batching, prompt caching
run cached -np 4
jq -e --argjson n "$n" --argjson o "$want_out" --argjson p "$want_prompt" '
	.requests == $n and .completed == $n and .failed == 0 and .failures == {}
	and .output_tokens_from == "usage" and .output_tokens == $o and .prompt_tokens == $p
	and .trace_sha256 == "sha256:0ed6f824c4016e8e0ce5599a8eab471b1f1d0e5e91e92d8e1a502e3fcdf503a8"
	and .ttft_ms.n == $n and .e2el_ms.n == $n and .ttft_ms.max <= .e2el_ms.max' \
	cached.json >/dev/null || fail "the summary: $(cat cached.json)"
# every request, from the log: once, ok, usage's tokens as the trace's, TTFT <= E2EL
jq -e -s --slurpfile t "$trace" --argjson n "$n" '
	(.[0].requests == $n) and (.[1:] | length == $n)
	and ([.[1:][].index] | sort == [range($n)])
	and all(.[1:][]; . as $r | $t[0].requests[$r.index] as $q
		| $r.result == "ok" and $r.http_status == 200
		and $r.output_tokens_from == "usage" and $r.output_tokens == $q.max_tokens
		and $r.prompt_tokens_from == "usage"
		and $r.prompt_tokens == ($q.prompt_token_ids | length)
		and $r.sent_ns <= $r.first_chunk_ns and $r.first_chunk_ns <= $r.end_ns
		and ($r.chunks_ns | length > 0) and $r.chunks_ns[0] == $r.first_chunk_ns
		and $r.chunks_ns == ($r.chunks_ns | sort) and $r.chunks_ns[-1] <= $r.end_ns
		and $r.cached_tokens != null and $r.cached_tokens <= $r.prompt_tokens)' \
	cached/requests.jsonl >/dev/null || fail "a request of the log is not as the trace asked"
# the prefix group's requests were served prompt tokens from the cache
hit=$(jq -s --slurpfile g prefix.json '[.[1:][] | select($g[0][.index]) | .cached_tokens] | add' \
	cached/requests.jsonl)
[ "$hit" -gt 0 ] || fail "prompt caching on: no cached prompt token in the prefix group's requests"
jq -e --argjson h "$hit" '.cached_prompt_tokens >= $h and .prefix_hit_rate > 0' cached.json \
	>/dev/null || fail "the summary's cached prompt tokens: $(jq -c .cached_prompt_tokens cached.json)"
grep -q '^output throughput .*$' cached.err || fail "load.sh printed no text summary"
grep -q '(output from usage)' cached.err || fail "the text summary does not say usage"
port=$(sed -n 's/^example-serve: llama-server .* on port \([0-9]*\): .*/\1/p' cached.err)
[ -n "$port" ] || { cat cached.err; fail "load.sh did not name its port"; }

# 2. the same without prompt caching: the cache figures are the server's, not ours
run nocache -np 4 --no-cache-prompt
jq -e --argjson n "$n" '.completed == $n and .failed == 0 and .cached_prompt_tokens == 0
	and .prefix_hit_rate == 0' nocache.json >/dev/null ||
	fail "--no-cache-prompt: $(jq -c '[.completed, .cached_prompt_tokens]' nocache.json)"

# 3. load.sh stopped the server: every request fails by name, and a wait for it too
rc=0
"$FAK" bench serve --endpoint "http://127.0.0.1:$port" --trace "$trace" --connect-timeout 2s \
	>down.out 2>down.err || rc=$?
[ $rc = 1 ] || fail "a stopped server: exit $rc, not 1"
grep -q "requests  *$n: 0 completed, $n failed ($n connection-refused)" down.out ||
	{ cat down.out; fail "a stopped server: not every request connection-refused"; }
grep -q 'connection-refused: connection refused (nothing listens there)' down.err ||
	{ cat down.err; fail "a stopped server: stderr does not name it"; }
rc=0
"$FAK" bench serve --endpoint "http://127.0.0.1:$port" --trace "$trace" --ready-timeout 1s \
	--log never.jsonl >down.out 2>down.err || rc=$?
[ $rc != 0 ] || fail "--ready-timeout against a stopped server passed"
grep -q "server not ready: " down.err || { cat down.err; fail "--ready-timeout: not named"; }
[ ! -e never.jsonl ] || fail "--ready-timeout wrote a log though nothing was sent"

# 4. a server that cannot start: named, with its last lines, and no run's files
rc=0
"$load" bad --no-such-flag >bad.out 2>bad.err || rc=$?
[ $rc = 2 ] || { cat bad.err; fail "a server that cannot start: exit $rc, not 2"; }
grep -q '^example-serve: llama-server exited (status [1-9][0-9]*) before it listened' bad.err ||
	{ cat bad.err; fail "a server that cannot start: not named"; }
[ ! -s bad.out ] && [ "$(ls -A bad)" = server.log ] || fail "a failed start left output: $(ls -A bad)"
"$load" bad -np 4 >/dev/null 2>bad.err && fail "load.sh wrote into an existing folder"
grep -q "'bad' exists: name a new folder" bad.err || { cat bad.err; fail "an existing OUT-DIR"; }

echo "example-serve: passed in $(($(date +%s) - start)) s ($n requests a run;" \
	"$hit prompt tokens of the prefix group from the cache)"
