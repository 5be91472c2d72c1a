# fak-test: slow
# Open loop: while the server is slow (first chunk 300 ms after the request,
# 30 more 20 ms apart, so about 40 requests are in flight at once), each
# request still leaves at its scheduled time: the median send lag is at most
# 2 ms and every lag within --max-lag 30ms, the summary says "on time", and
# every request completes. The bound is what a busy 2-core VM holds (load 9,
# other builds running): the median is the client (about 0.1 ms), the few
# late sends are the host not running it (docs/serving.md).
# The same trace sent with a 0.001 ms bound is flagged as fallen behind,
# exit 1, by name.
set -eu
. "$ROOT/tests/lib.sh"

serve_stub s --ttft-ms 300 --itl-ms 20
"$FAK" bench trace --rate 50 --requests 60 --output-tokens 31 --seed 5 --out t.json 2>/dev/null
expect_code 0 "$FAK" bench serve --endpoint "http://127.0.0.1:$STUB_PORT" --trace t.json \
	--log l.jsonl --max-lag 30ms --format json
python3 - <<'PY' || fail "the schedule was not kept: $(cat out.txt)"
import json, statistics
s = json.load(open("out.txt"))
lag = s["schedule"]["lag_ms"]
print("lag ms: p50 %.3f p99 %.3f max %.3f over %d sends; %d completed" % (
      lag["p50"], lag["p99"], lag["max"], lag["n"], s["completed"]))
assert s["completed"] == 60 and s["failed"] == 0
assert not s["schedule"]["fell_behind"] and lag["max"] <= 30 and lag["n"] == 60
assert lag["p50"] <= 2
# the server was slow: most requests overlapped (E2EL ~ 900 ms, 20 ms apart)
assert s["e2el_ms"]["p50"] > 850
recs = [json.loads(l) for l in open("l.jsonl")][1:]
inflight = max(sum(1 for r in recs if r["sent_ns"] <= t["sent_ns"] < r["end_ns"]) for t in recs)
print("at most %d requests in flight" % inflight)
assert inflight >= 30
PY

# a bound no client can keep: flagged, by name, the report still printed
expect_code 1 "$FAK" bench serve --endpoint "http://127.0.0.1:$STUB_PORT" --trace t.json \
	--max-lag 0.001ms
expect_grep 'fell behind its schedule' err.txt
expect_grep '^schedule           FELL BEHIND' out.txt
