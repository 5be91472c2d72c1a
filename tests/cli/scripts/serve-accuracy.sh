# fak-test: slow
# fak bench serve measures what a scripted server did: against
# tests/tools/serve_stub.py (first chunk 40 ms after the request is read,
# then one every 10 ms, at absolute times), at 1 and at 64 concurrent
# streams, every request is in the log and ok, and the client's own error
# (its ITL against the interval between the stub's writes) has a median of
# at most 0.5 ms (1 stream) and 1 ms (64) and a maximum of 15 and 40 ms;
# TTFT and E2EL are never below what the stub did and at most 30 and 300 ms
# above the script. These are the bounds a busy 2-core VM holds (load 9,
# other builds running): the medians are what the client does, the maxima
# are the host's scheduling stalls and, at 64 streams, the Python stub
# accepting 64 connections at once (docs/serving.md gives the figures).
set -eu
. "$ROOT/tests/lib.sh"

# check NAME STREAMS SCRIPT_MAX ITL_P50 ITL_MAX: the log NAME.jsonl against the
# script (TTFT 40 ms, ITL 10 ms) and against what the stub wrote (s.err,
# matched by prompt). Every request is there, ok, its output tokens from
# usage. TTFT and E2EL are never below what the stub did (its first write,
# its closing write) and exceed the script by at most SCRIPT_MAX ms (the
# connection and the stub's accept and parse: at 64 streams the Python stub
# takes 64 connections at once). The client's own error, its ITL against
# the interval between the stub's writes, has a median within ITL_P50 and a
# maximum within ITL_MAX ms; the median ITL is within 1 ms of the script.
check() {
	python3 - "$@" <<'PY'
import json, statistics, sys
name, streams = sys.argv[1], int(sys.argv[2])
script_max, itl_p50, itl_max = map(float, sys.argv[3:6])
lines = [json.loads(l) for l in open(name + ".jsonl")]
head, recs = lines[0], lines[1:]
trace = json.load(open(name + ".json"))
assert len(recs) == head["requests"] == len(trace["requests"])
assert sorted(r["index"] for r in recs) == list(range(len(recs)))
server = {}
for l in open("s.err"):
    w = json.loads(l)
    server[tuple(w["prompt_head"])] = w
rows = {"ttft-script": [], "e2el-script": [], "itl-script": [], "ttft-stub": [],
        "e2el-stub": [], "itl-stub": []}
itls = []
for r in recs:
    assert r["result"] == "ok", r
    n = r["output_tokens"]
    assert r["output_tokens_from"] == "usage" and len(r["chunks_ns"]) == n, r
    w = server[tuple(trace["requests"][r["index"]]["prompt_token_ids"][:8])]
    wc = w["chunks_ms"]
    assert len(wc) == n
    sent, c = r["sent_ns"], r["chunks_ns"]
    ttft = (r["first_chunk_ns"] - sent) / 1e6
    e2el = (r["end_ns"] - sent) / 1e6
    rows["ttft-script"].append(ttft - 40)
    rows["e2el-script"].append(e2el - (40 + 10 * (n - 1)))
    rows["ttft-stub"].append(ttft - wc[0])
    rows["e2el-stub"].append(e2el - w["end_ms"])
    for k in range(1, n):
        itl = (c[k] - c[k - 1]) / 1e6
        itls.append(itl)
        rows["itl-script"].append(abs(itl - 10))
        rows["itl-stub"].append(abs(itl - (wc[k] - wc[k - 1])))
print("%d streams, %d requests, %d ITLs, median ITL %.3f ms" % (
      streams, len(recs), len(itls), statistics.median(itls)))
for k, v in rows.items():
    print("  %-12s min %8.3f  p50 %8.3f  max %8.3f ms" % (k, min(v), statistics.median(v), max(v)))
bad = []
for k in ("ttft-script", "e2el-script", "ttft-stub", "e2el-stub"):
    bad += [(k, v) for v in rows[k] if not -0.05 <= v <= script_max]
if statistics.median(rows["itl-stub"]) > itl_p50:
    bad.append(("median itl-stub", statistics.median(rows["itl-stub"])))
bad += [("itl-stub", v) for v in rows["itl-stub"] if v > itl_max]
if abs(statistics.median(itls) - 10) > 1:
    bad.append(("median ITL", statistics.median(itls)))
if bad:
    print("FAIL: outside the tolerance: %s" % bad[:10])
    sys.exit(1)
PY
}

serve_stub s --ttft-ms 40 --itl-ms 10
# one stream: a closed loop of concurrency 1
"$FAK" bench trace --concurrency 1 --requests 8 --output-tokens 12 --seed 1 --out one.json 2>/dev/null
"$FAK" bench serve --endpoint "http://127.0.0.1:$STUB_PORT" --trace one.json --log one.jsonl \
	--ready-timeout 5s >one.txt 2>one.err || fail "one stream: $(cat one.err one.txt)"
check one 1 30 0.5 15 >one.check || fail "one stream: $(cat one.check)"
cat one.check
expect_grep 'closed loop' one.txt

# 64 streams at once
"$FAK" bench trace --concurrency 64 --requests 64 --output-tokens 16 --seed 2 --out many.json \
	2>/dev/null
"$FAK" bench serve --endpoint "http://127.0.0.1:$STUB_PORT" --trace many.json --log many.jsonl \
	>many.txt 2>many.err || fail "64 streams: $(cat many.err many.txt)"
check many 64 300 1 40 >many.check || fail "64 streams: $(cat many.check)"
cat many.check
expect_grep '^requests           64: 64 completed, 0 failed' many.txt
