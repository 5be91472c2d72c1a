#!/bin/sh
# The serving example's quality check (fak bench experiment --quality-command): the arm's
# own llama-server configuration, started on a port the OS picks, decodes 24 tokens
# greedily (temperature 0, ignore_eos) from the llama.cpp example's fixed prompt of token
# ids (BOS 1, then 300..307), sent alone, and the token ids must equal the llama.cpp
# example's committed reference (examples/llama-cpp/reference.txt: what greedy.c decodes
# with -t 1 -fa off). exact_match 1, else 0. fak sets FAK_ARM and FAK_ARTIFACT.
#
#   quality.sh LLAMA_SERVER BASELINE_FLAGS CANDIDATE_FLAGS
set -eu
[ $# = 3 ] || { echo "usage: quality.sh LLAMA_SERVER BASELINE_FLAGS CANDIDATE_FLAGS" >&2; exit 2; }
case "${FAK_ARM:-}" in
baseline) flags=$2 ;;
candidate) flags=$3 ;;
*) echo "quality.sh: FAK_ARM must be baseline or candidate (fak bench experiment sets it)" >&2; exit 2 ;;
esac
: "${FAK_ARTIFACT:?fak bench experiment sets FAK_ARTIFACT to the --artifact file}"
want=$(cat "$(dirname "$0")/../llama-cpp/reference.txt")
log=$(mktemp)
pid=
# shellcheck disable=SC2317  # called by the trap
stop() { [ -z "$pid" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || :; }; rm -f "$log"; }
trap stop EXIT
trap 'exit 130' INT TERM
# word splitting of $flags is wanted
# shellcheck disable=SC2086
"$1" -m "$FAK_ARTIFACT" --host 127.0.0.1 --port 0 $flags --no-webui >"$log" 2>&1 &
pid=$!
port= i=0
while [ -z "$port" ]; do
	kill -0 "$pid" 2>/dev/null || { tail -5 "$log" >&2; echo "quality.sh: llama-server exited" >&2; exit 1; }
	[ $i -lt 600 ] || { echo "quality.sh: llama-server did not listen within 60 s" >&2; exit 1; }
	port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "$log" | head -1)
	[ -n "$port" ] || { sleep 0.1; i=$((i + 1)); }
done
i=0
until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do
	[ $i -lt 600 ] || { echo "quality.sh: /health did not answer 200 within 60 s" >&2; exit 1; }
	sleep 0.1; i=$((i + 1))
done
got=$(curl -sf "http://127.0.0.1:$port/completion" -d '{"prompt": [1, 300, 301, 302, 303, 304, 305, 306, 307],
	"n_predict": 24, "temperature": 0, "ignore_eos": true, "return_tokens": true,
	"cache_prompt": false}' | jq -r '.tokens | map(tostring) | join(" ")')
score=0
[ "$got" = "$want" ] && score=1
echo "$FAK_ARM ($flags): greedy token ids $got"
echo "reference: $want"
printf '{"name": "exact_match", "score": %d, "higher_is_better": true}\n' "$score"
