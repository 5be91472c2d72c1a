# fak bench serve --chart (docs/serving.md, "The latency chart"): a run
# against the stub draws the CDFs of TTFT, ITL and E2EL, one step per
# value, on a linear axis or in decades as the log's latencies span less or
# more than a factor 20, the schedule kept; --from-log of the run's own log
# draws the same bytes. A closed loop says so, and its 2,400 ITLs are drawn
# through 2,000 steps. The committed log with failures and a late send: a
# log-scale axis, "3 failed" in the title, the failures named, the schedule
# FELL BEHIND, and the p50/p95/p99 listed are the summary's. Every chart
# passes the geometry check and renders in librsvg. Output paths are
# refused before any work: a folder, an input of the run, the --log itself.
set -eu
. "$ROOT/tests/lib.sh"

geo() {	# geo FILE: a real consumer renders it and no label overlaps
	xmllint --noout "$1" || fail "$1: not XML"
	rsvg-convert "$1" >/dev/null || fail "$1: librsvg refused it"
	python3 "$ROOT/tests/tools/svg_geometry.py" "$1" || fail "$1: geometry"
}
# the CDF of n values is a staircase of 2n+1 points rising from 0% (y 360)
# to 100% (y 120); the summary's percentiles are listed beside it
check_chart() {	# check_chart SVG SUMMARY-JSON LOG
	python3 - "$1" "$2" "$3" <<'PY' || fail "$1: the curves or the percentiles"
import json, math, re, sys
svg, s = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
lines = re.findall(r'<polyline points="([^"]*)"', svg)
n = {"TTFT": s["ttft_ms"]["n"], "ITL": s["itl_ms"]["n"], "E2EL": s["e2el_ms"]["n"]}
assert len(lines) == 3, lines
for pts, (name, k) in zip(lines, n.items()):
    xy = [tuple(map(float, p.split(","))) for p in pts.split()]
    assert len(xy) == 2 * k + 1, (name, len(xy), k)
    assert xy[0][1] == 360.0 and xy[-1][1] == 120.0, (name, xy[0], xy[-1])
    assert all(b[0] >= a[0] and b[1] <= a[1] for a, b in zip(xy, xy[1:])), name
# decades when the values span more than a factor 20 (the log's own
# latencies), else linear from zero
recs = [json.loads(l) for l in open(sys.argv[3])][1:]
v = []
for r in recs:
    if r["result"] == "ok":
        c = r["chunks_ns"]
        v += [(r["first_chunk_ns"] - r["sent_ns"]) / 1e6, (r["end_ns"] - r["sent_ns"]) / 1e6]
        v += [(b - a) / 1e6 for a, b in zip(c, c[1:])]
wide = max(v) / min(x for x in v if x > 0) > 20
axis = ">latency, ms%s: the share of values at or below it</text>" % (
    " (log scale)" if wide else "")
assert axis in svg, (axis, wide)
def four(v):    # fmt_value: four significant digits
    return "%.*f" % (max(0, 3 - math.floor(math.log10(abs(v)))), v)
for name, key in (("TTFT", "ttft_ms"), ("ITL", "itl_ms"), ("E2EL", "e2el_ms")):
    d = s[key]
    want = ">%s (n=%d)</text>" % (name, d["n"])
    assert want in svg, want
    want = ">p50 %s \u00b7 p95 %s \u00b7 p99 %s</text>" % (four(d["p50"]), four(d["p95"]),
                                                       four(d["p99"]))
    assert want in svg, want
PY
}

serve_stub s --ttft-ms 20 --itl-ms 5
"$FAK" bench trace --rate 40 --requests 8 --output-tokens 6 --seed 3 --out t.json 2>/dev/null
expect_code 0 "$FAK" bench serve --endpoint "http://127.0.0.1:$STUB_PORT" --trace t.json \
	--max-lag 50ms --log l.jsonl --chart c.svg --format json
cp out.txt live.json
geo c.svg
check_chart c.svg live.json l.jsonl
expect_grep '<title>Serving latency: 8 requests, 0 failed</title>' c.svg
expect_grep '>schedule: kept</text>' c.svg
expect_grep '>every send within 50 ms (max ' c.svg
expect_no_grep '>failed: ' c.svg
# the chart of a log is the chart of its run
expect_code 0 "$FAK" bench serve --from-log l.jsonl --trace t.json --chart c2.svg
expect_file c.svg c2.svg

# a closed loop has no schedule; more than 2,000 ITLs are drawn through
# 2,000 steps of them, still from 0% to 100%
serve_stub s2 --ttft-ms 2 --itl-ms 0.2
"$FAK" bench trace --concurrency 8 --requests 40 --output-tokens 61 --seed 4 --out cl.json \
	2>/dev/null
expect_code 0 "$FAK" bench serve --endpoint "http://127.0.0.1:$STUB_PORT" --trace cl.json \
	--chart cl.svg --format json
geo cl.svg
expect_grep '>schedule: closed loop</text>' cl.svg
python3 - cl.svg out.txt <<'PY' || fail "cl.svg: the thinned ITL curve"
import json, re, sys
svg, s = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
n = s["itl_ms"]["n"]
assert n == 2400, n
line = re.findall(r'<polyline points="([^"]*)"', svg)[1]
itl = [tuple(map(float, q.split(","))) for q in line.split()]
stride = -(-n // 2000)
assert len(itl) == 2 * -(-n // stride) + 1 and itl[0][1] == 360.0 and itl[-1][1] == 120.0, len(itl)
PY

# failures and a late send (the committed log)
expect_code 1 "$FAK" bench serve --from-log "$FIX/serve/log.jsonl" --format json --chart f.svg
cp out.txt fix.json
geo f.svg
check_chart f.svg fix.json "$FIX/serve/log.jsonl"
expect_grep '<title>Serving latency: 10 requests, 3 failed</title>' f.svg
expect_grep '>Serving latency: 10 requests, 3 failed</text>' f.svg
expect_grep '>latency, ms (log scale): the share of values at or below it</text>' f.svg
expect_grep '>failed: 3 http-status</text>' f.svg
expect_grep '>schedule: FELL BEHIND</text>' f.svg
expect_grep '>1 of 10 sends later than 1 ms</text>' f.svg
expect_grep '>completed: 7 of 10 requests</text>' f.svg

# refused before any work, nothing written
mkdir d
expect_code 1 "$FAK" bench serve --from-log "$FIX/serve/log.jsonl" --chart d
expect_grep "^fak bench serve: --chart: cannot write 'd': it is a folder; give the name of a file inside it\$" err.txt
cp "$FIX/serve/log.jsonl" in.jsonl
expect_code 1 "$FAK" bench serve --from-log in.jsonl --chart in.jsonl
expect_grep "^fak bench serve: --chart: 'in.jsonl' is an input of the run; give the chart another name\$" err.txt
expect_file "$FIX/serve/log.jsonl" in.jsonl
expect_code 1 "$FAK" bench serve --endpoint "http://127.0.0.1:$STUB_PORT" --trace t.json \
	--log same.svg --chart same.svg
expect_grep "^fak bench serve: --chart: 'same.svg' is also the --log; give each its own name\$" err.txt
cp t.json t0.json
expect_code 1 "$FAK" bench serve --endpoint "http://127.0.0.1:$STUB_PORT" --trace t.json \
	--chart t.json
expect_grep "^fak bench serve: --chart: 't.json' is an input of the run" err.txt
expect_file t0.json t.json
[ ! -e same.svg ] || fail "a refused run wrote its log or chart"
