# fak-test: slow
# Every fault of a server gives a clear, named failure and loses nothing:
# each request of the trace has its line in the log, the failed ones with
# the name of what went wrong, the others ok; the exit status is 1 and
# stderr names the failures. Server never ready, dies mid-run, 429 and 500,
# malformed and truncated SSE, a stalled stream, a response that never ends,
# connection refused, a port already taken, not OpenAI-compatible, and an
# interrupted run.
set -eu
. "$ROOT/tests/lib.sh"

# one request at a time, so the stub's count (--fault-every) follows the
# trace's order
"$FAK" bench trace --concurrency 1 --requests 6 --output-tokens 4 --seed 9 --out t.json \
	2>/dev/null

# run NAME WANT...: fak bench serve against the stub of port $STUB_PORT
# (or $1's endpoint); WANT is the "result" of each of the 6 requests, in
# trace order
run() {
	name=$1
	shift
	expect_code 1 "$FAK" bench serve --endpoint "$endpoint" --trace t.json --log "$name.jsonl" \
		--stall-timeout 700ms --timeout 2s --connect-timeout 2s
	cp out.txt "$name.out"
	cp err.txt "$name.stderr"
	got=$(python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert lines[0]["requests"] == 6 and len(lines) == 7, "lost lines"
print(" ".join(r["result"] for r in sorted(lines[1:], key=lambda r: r["index"])))
' "$name.jsonl") || fail "$name: the log lost requests"
	expect_equal "$*" "$got" "$name: the results of the 6 requests"
	expect_grep 'requests failed' "$name.stderr" "$name: stderr names the failures"
}

start() {	# start NAME ARGS...: a fresh stub for one fault
	serve_stub "$@"
	endpoint="http://127.0.0.1:$STUB_PORT"
}

# no fault, but no usage either: output tokens are counted chunks, and
# llama-server's timings.cache_n gives the cached prompt tokens (8 of 32)
start plain --no-usage --cache-n 8 --ttft-ms 5 --itl-ms 2
expect_code 0 "$FAK" bench serve --endpoint "$endpoint" --trace t.json --format json
jq -e '.completed == 6 and .output_tokens == 24 and .output_tokens_from == "chunks" and
	.prompt_tokens == 192 and .cached_prompt_tokens == 48 and .prefix_hit_rate == 0.25' \
	out.txt >/dev/null || fail "no usage: $(cat out.txt)"

start s429 --fault status429 --fault-every 2
run status-429 ok http-status ok http-status ok http-status
expect_grep 'request 1: http-status: HTTP 429: {"error":{"message":"scripted 429"' status-429.stderr
expect_grep 'requests  *6: 3 completed, 3 failed (3 http-status)' status-429.out

start s500 --fault status500 --fault-every 3
run status-500 ok ok http-status ok ok http-status
expect_grep 'HTTP 500' status-500.stderr

start mal --fault malformed --fault-every 2
run malformed ok malformed-stream ok malformed-stream ok malformed-stream
expect_grep 'malformed-stream: event 2: chunk: line 1' malformed.stderr

start trunc --fault truncated --fault-every 3
run truncated ok ok truncated-stream ok ok truncated-stream
expect_grep 'the stream ended without data: \[DONE\] after 4 chunks' truncated.stderr

start stall --fault stall --fault-every 3
run stalled ok ok stalled ok ok stalled
expect_grep 'stalled: no byte for 0.7s (stalled after 2 chunks)' stalled.stderr

start endless --fault endless --fault-every 3 --itl-ms 50
run endless ok ok timeout ok ok timeout
expect_grep 'timeout: the response did not end within 2s' endless.stderr

start html --fault notopenai
run not-openai not-openai-compatible not-openai-compatible not-openai-compatible \
	not-openai-compatible not-openai-compatible not-openai-compatible
expect_grep "a 200 response of type 'text/html', not an event stream" not-openai.stderr
# a path that is no completions route: 404, by status
endpoint="http://127.0.0.1:$STUB_PORT/v2/generate"
run wrong-path http-status http-status http-status http-status http-status http-status
expect_grep 'HTTP 404' wrong-path.stderr

# dies mid-run: the third request's stream kills the server after 2 chunks;
# it is lost by name, the ones after it are refused. The fourth leaves as
# soon as the third failed, while the stub's process may still be going
# down: on a kept-alive connection it is then reset (lost), on a new one
# refused; either is named
start die --fault die --fault-every 3
expect_code 1 "$FAK" bench serve --endpoint "$endpoint" --trace t.json --log die.jsonl
python3 - <<'PY' || fail "dies mid-run: $(cat out.txt err.txt)"
import json
lines = [json.loads(l) for l in open("die.jsonl")]
assert len(lines) == 7, "lost lines"
res = [r["result"] for r in sorted(lines[1:], key=lambda r: r["index"])]
assert res[:3] == ["ok", "ok", "connection-lost"], res
assert res[3] in ("connection-lost", "connection-refused"), res
assert res[4:] == ["connection-refused"] * 2, res
PY
expect_grep 'request 2: connection-lost: the connection broke after 2 chunks' err.txt
expect_grep 'request 4: connection-refused: connection refused (nothing listens there)' err.txt

# connection refused: a port nothing listens on (the dead stub's)
run refused connection-refused connection-refused connection-refused connection-refused \
	connection-refused connection-refused

# a port already taken: a second stub cannot listen there and says so
start first
expect_code 98 python3 "$ROOT/tests/tools/serve_stub.py" --port-file second.port \
	--bind-port "$STUB_PORT"
expect_grep "cannot listen on 127.0.0.1:$STUB_PORT" err.txt

# never ready: /health answers 503 until --ready-timeout runs out; nothing is sent
start loading --fault never-ready
expect_code 1 "$FAK" bench serve --endpoint "$endpoint" --trace t.json --log never.jsonl \
	--ready-timeout 600ms
expect_grep "server not ready: GET http://127.0.0.1:$STUB_PORT/health did not answer 200 within 0.6s (last: HTTP 503)" err.txt
[ ! -e never.jsonl ] || fail "a run that never started wrote a log"

# interrupted: SIGINT stops the run; what was in flight is lost by name, what
# was not sent yet is not-sent, the log still holds every request, exit 130
start slow --ttft-ms 50 --itl-ms 20
"$FAK" bench trace --rate 10 --requests 40 --output-tokens 10 --seed 4 --out forty.json \
	2>/dev/null
"$FAK" bench serve --endpoint "$endpoint" --trace forty.json --log int.jsonl >int.out \
	2>int.err &
pid=$!
sleep 1
kill -INT $pid
rc=0
wait $pid || rc=$?
expect_equal 130 "$rc" "exit status after SIGINT"
expect_grep 'interrupted by Interrupt' int.err
python3 - <<'PY' || fail "interrupted: the log"
import json
lines = [json.loads(l) for l in open("int.jsonl")]
assert len(lines) == 41, "lost lines"
res = [r["result"] for r in lines[1:]]
assert set(res) <= {"ok", "connection-lost", "not-sent"} and res[-1] == "not-sent", res
assert res.count("ok") >= 3, res
PY
