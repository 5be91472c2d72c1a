# fak-test: slow
# The serving mode of fak bench experiment (docs/serving.md, "The serving
# mode"): two configurations of tests/tools/serve_stub.py (first token after
# 150 ms against 20 ms, a gap no loaded host blurs) replay the committed
# trace tests/fixtures/experiment/serve-trace.json, each run against a fresh
# server on $FAK_PORT; the receipts are serving receipts, the comparison
# says the candidate's TTFT p95 fell with its interval, the gate passes, and
# the serving lever's promotion (--dry-run) and --verify-witnesses accept
# them. A candidate whose requests fail, one whose client falls behind, one
# whose engine reports fallbacks and whose quality is below the criterion,
# one whose server dies and one that never gets ready are refused by name;
# --until-decisive looks at the primary metric; a server deaf to SIGTERM is
# killed after --stop-grace.
set -u
. "$FIX/experiment/lib.sh"
# the envelope pins the trace and its primary metric; its lever asks for a
# serving witness
serving_graph
cp "$ROOT/examples/cpu-decode/index.json" index.json
"$FAK" native-performance --graph graph.json >/dev/null || fail "the serving graph is refused"
cat >quality.sh <<'SH'
#!/bin/sh
sleep 0.3 <"$FAK_ARTIFACT"
score=1
[ "${QBAD:-}" = "$FAK_ARM" ] && score=0.5
echo "{\"name\": \"exact_match\", \"score\": $score, \"higher_is_better\": true}"
SH
chmod +x quality.sh
# a server holds the model open (fd 3) while it serves, as an engine does
srv='python3 serve_stub.py --port-file "$FAK_RUN.port" --bind-port "$FAK_PORT" --itl-ms 5 --engine fak-native --forward-path cpu/test-v1 3<"$FAK_ARTIFACT"'
lag=100ms
sx() { xp --serve-trace serve-trace.json --quality-command ./quality.sh --max-lag "$lag" "$@"; }
# refused before anything runs: another trace than the pinned one, no quality
# command, an envelope that pins no trace
"$FAK" bench trace --rate 20 --requests 3 --out other.json 2>/dev/null || fail "other trace"
other=$("$FAK" bench trace --check other.json | sed -n 's/^valid \(sha256:[0-9a-f]*\):.*/\1/p')
if xp --serve-trace other.json --quality-command ./quality.sh --baseline "$srv" --candidate "$srv" \
	--out-dir pre1 >/dev/null 2>e.txt; then fail "another trace was accepted"; fi
grep -q "^  --serve-trace: 'other.json' is trace $other; envelope \"test-cpu-p4-t8\" pins $trace (give the pinned trace, or pin this one in the envelope)\$" e.txt ||
	{ cat e.txt; fail "other trace: finding"; }
if xp --serve-trace serve-trace.json --baseline "$srv" --candidate "$srv" --out-dir pre2 \
	>/dev/null 2>e.txt; then fail "no quality command was accepted"; fi
grep -q '^  --quality-prompts FILE (or --quality-command CMD) is required with --serve-trace' e.txt || { cat e.txt; fail "quality: finding"; }
jq 'del(.envelopes[0].serving)' graph.json >g.json && cp graph.json g1.json && mv g.json graph.json
if xp --serve-trace serve-trace.json --quality-command ./quality.sh --baseline "$srv" \
	--candidate "$srv" --out-dir pre3 >/dev/null 2>e.txt; then fail "a decode envelope was accepted"; fi
mv g1.json graph.json
grep -q '^  --serve-trace: envelope "test-cpu-p4-t8" has no serving member' e.txt ||
	{ cat e.txt; fail "decode envelope: finding"; }
[ ! -e pre1/baseline.json ] && [ ! -e pre3/logs/baseline-warmup-1.stdout ] || fail "a refused experiment ran"
sx --baseline "$srv --ttft-ms 150" --candidate "$srv --ttft-ms 20" --out-dir run >out.txt 2>err.txt ||
	{ cat out.txt err.txt; fail "the serving experiment failed"; }
for r in run/baseline.json run/candidate.json; do
	jq -e --arg t "$trace" '.serving == {trace_sha256: $t, primary_metric: "ttft_p95_ms", direction: "lower"}
		and .experiment.metrics_parser == "serving/v1" and (.repetitions | length) == 3
		and all(.repetitions[]; .serving.requests == 8 and .serving.failed == 0
			and .serving.trace_sha256 == $t and .serving.warmup_requests == 2
			and (.serving.stop_status | test("^(signal 15|exit 143|exit 0)$")) and .serving.startup_ms > 0)
		and .engine_identity == "observed"' "$r" >/dev/null || { jq . "$r"; fail "$r"; }
done
# each repetition's per-request log is in logs/ and its digest sealed
for i in 1 2 3; do
	d=$(sha256sum run/logs/candidate-$i.requests.jsonl | cut -d' ' -f1)
	[ "$(jq -r .workload.serving.log_sha256 run/attestations/candidate-$i.json)" = "$d" ] ||
		fail "candidate-$i: log digest"
done
# TTFT p95 150 ms against 20 ms: lower is better, so the fall is a gain
jq -e '.decision.metric == "ttft_p95_ms" and .decision.verdict == "faster"
	and .decision.interval_percent.upper < -2 and .serving.ttft_p95_ms.role == "primary"
	and .serving.output_tokens_per_second.role == "secondary"
	and .statistics.primary.unit == "ttft_p95_ms"' run/comparison.json >/dev/null ||
	{ jq '.decision, .statistics.primary' run/comparison.json; fail "comparison"; }
# chart.svg plots what decided: the primary metric of every run, in its
# direction, with the medians of the comparison; never tok/s
jq -e '.baseline_samples.primary | length == 3 and all(.[]; . > 100)' run/comparison.json >/dev/null &&
	jq -e '.candidate_samples.primary | length == 3 and all(.[]; . < 100)' run/comparison.json \
	>/dev/null || { jq '.baseline_samples, .candidate_samples' run/comparison.json; fail "primary samples"; }
med=$(jq -r '[.statistics.primary.baseline.median, .statistics.primary.candidate.median]
	| map(if . >= 100 then "\(. * 10 | round / 10)" else "\(. * 100 | round / 100)" end)
	| "median: baseline \(.[0]), candidate \(.[1])"' run/comparison.json)
grep -q '>ttft_p95_ms per run, lower is better</text>' run/chart.svg &&
	grep -q ">decision: faster</text>" run/chart.svg && ! grep -q 'tok/s of every repetition' run/chart.svg ||
	{ grep '<text' run/chart.svg; fail "chart.svg: the primary metric"; }
python3 - "$med" run/chart.svg <<'PY' || fail "chart.svg: the medians"
import re, sys
want, svg = sys.argv[1], open(sys.argv[2]).read()
got = re.search(r'>(median: baseline [^<]*)</text>', svg).group(1)
nums = lambda s: [float(x) for x in re.findall(r"[0-9.]+", s)]
ok = all(abs(a - b) <= 0.051 * max(1, abs(b) / 100) for a, b in zip(nums(got), nums(want)))
sys.exit(0 if ok and len(nums(got)) == 2 else print(got, "!=", want) or 1)
PY
[ "$(grep -c 'class="base"' run/chart.svg)" = 4 ] && [ "$(grep -c 'class="cand"' run/chart.svg)" = 4 ] ||
	fail "chart.svg: 3 runs of each arm and the legend"
python3 "$ROOT/tests/tools/svg_geometry.py" run/chart.svg || fail "chart.svg: geometry"
rsvg-convert run/chart.svg >/dev/null || fail "chart.svg: librsvg"
"$FAK" native-performance --graph graph.json --compare run/baseline.json --candidate run/candidate.json \
	>cmp.txt || fail "--compare"
grep -q '^ttft_p95_ms ' cmp.txt || { cat cmp.txt; fail "--compare names the primary metric"; }
grep -q 'ttft_p95_ms decides' cmp.txt || { cat cmp.txt; fail "--compare: what decides"; }
"$FAK" native-performance --graph graph.json --compare run/baseline.json --candidate run/candidate.json \
	--format md >cmp.md || fail "--compare --format md"
grep -q '^| ttft_p95_ms | ' cmp.md && grep -q '^\*\*Decision\*\* (ttft_p95_ms decides, tok/s and ms are secondary): faster' cmp.md ||
	{ cat cmp.md; fail "--compare --format md names the primary metric"; }
[ "$(jq -r .classification run/gate.json)" = pass ] ||
	{ jq . run/gate.json; fail "gate: not pass"; }
jq -e '[.checks[] | select(.name | startswith("serving_")) | .name + " " + .status]
	== ["serving_requests pass", "serving_schedule pass", "serving_fallback pass"]' run/gate.json \
	>/dev/null || { jq .checks run/gate.json; fail "serving checks"; }
# an edited serving summary no longer matches its sealed run
jq '.repetitions[0].serving.metrics.ttft_p95_ms = 1' run/candidate.json >edited.json
if "$FAK" native-performance --graph graph.json --compare run/baseline.json --candidate edited.json \
	>/dev/null 2>e.txt; then fail "an edited serving summary was accepted"; fi
grep -q 'repetitions\[0\].serving: differs from what system_baselines\[0\] sealed' e.txt ||
	{ cat e.txt; fail "edited: finding"; }
# a serving receipt witnesses a serving envelope only, of its pinned trace
jq 'del(.envelopes[0].serving)' graph.json >noserve.json
if "$FAK" native-performance --graph noserve.json --compare run/baseline.json --candidate run/candidate.json \
	>/dev/null 2>e.txt; then fail "a serving receipt of a decode envelope was accepted"; fi
grep -q '^  serving: envelope "test-cpu-p4-t8" pins no serving trace: a serving receipt witnesses a serving envelope only' e.txt ||
	{ cat e.txt; fail "decode envelope: finding"; }
jq '.repetitions[1].serving.trace_sha256 = "sha256:" + ("0" * 63) + "1"' run/candidate.json >edited.json
if "$FAK" native-performance --graph graph.json --compare run/baseline.json --candidate edited.json \
	>/dev/null 2>e.txt; then fail "a repetition of another trace was accepted"; fi
grep -q "^  repetitions\[1\].serving.trace_sha256: sha256:0*1, not the receipt's trace $trace\$" e.txt ||
	{ cat e.txt; fail "trace: finding"; }
# the serving lever's promotion accepts the serving receipt of the pinned trace
"$FAK" native-performance --graph graph.json --index index.json --witness-root wit --promote run \
	--dry-run >p.txt 2>&1 || { cat p.txt; fail "--promote --dry-run refused"; }
# a per-request log edited after the run: refused, by its digest and by its summary
cp -r run runx
sed '2s/"first_chunk_ns":\([0-9]*\)/"first_chunk_ns":\19/' run/logs/candidate-2.requests.jsonl \
	>runx/logs/candidate-2.requests.jsonl
cmp -s run/logs/candidate-2.requests.jsonl runx/logs/candidate-2.requests.jsonl && fail "log not edited"
if "$FAK" native-performance --graph graph.json --index index.json --witness-root wit --promote runx \
	--dry-run >/dev/null 2>e.txt; then fail "an edited per-request log was accepted"; fi
grep -q "^  logs/candidate-2.stdout: 'runx/logs/candidate-2.requests.jsonl' is not the per-request log the attestation sealed: " e.txt &&
	grep -q '^  logs/candidate-2.requests.jsonl: ' e.txt || { cat e.txt; fail "edited log: findings"; }
cp graph.json g0.json
"$FAK" native-performance --graph graph.json --index index.json --witness-root wit --promote run \
	>p.txt 2>&1 || { cat p.txt; fail "--promote refused"; }
"$FAK" native-performance --graph graph.json --index index.json --witness-root wit \
	--verify-witnesses >v.txt 2>&1 || { cat v.txt; fail "--verify-witnesses"; }
cp g0.json graph.json
# --until-decisive looks at the primary metric: a candidate with the better TTFT
# but the worse throughput (ITL 60 ms against 5) is faster, decided at one look
sx --until-decisive --max-repetitions 4 --baseline "$srv --ttft-ms 150" \
	--candidate "$srv --ttft-ms 20 --itl-ms 60" --out-dir seq >seq.txt 2>err.txt ||
	{ cat err.txt; fail "the sequential serving experiment failed"; }
jq -e '.experiment.sequential.looks | length == 1
	and .[0].verdict == "faster"' seq/candidate.json >/dev/null ||
	{ jq .experiment.sequential seq/candidate.json; fail "sequential: looks"; }
jq -e '.decision.verdict == "faster" and .statistics.tokens_per_second.verdict == "slower"' \
	seq/comparison.json >/dev/null || { jq '.decision, .statistics.tokens_per_second.verdict' \
	seq/comparison.json; fail "sequential: decision"; }
# faults: every second request answers 500: the gate refuses by name
sx --baseline "$srv --ttft-ms 20" --candidate "$srv --ttft-ms 20 --fault status500 --fault-every 2" \
	--out-dir f500 >/dev/null 2>err.txt || { cat err.txt; fail "the 500 run failed"; }
[ "$(jq -r .classification f500/gate.json)" = regression ] || fail "500: gate"
jq -e '.checks[] | select(.name == "serving_requests") | .status == "fail"
	and (.detail | startswith("failed=12 of 24 requests over 3 repetitions"))' f500/gate.json \
	>/dev/null || { jq .checks f500/gate.json; fail "500: check"; }
# a client that cannot keep the schedule (no send may lag at all): refused by name
lag=0
sx --baseline "$srv --ttft-ms 20" --candidate "$srv --ttft-ms 20" --out-dir flag \
	>/dev/null 2>err.txt || { cat err.txt; fail "the lag run failed"; }
lag=100ms
[ "$(jq -r .classification flag/gate.json)" = regression ] || fail "lag: gate"
jq -e '.checks[] | select(.name == "serving_schedule") | .status == "fail"
	and (.detail | test("^3 repetition\\(s\\) fell behind: [0-9]+ sends later than 0 ms"))' \
	flag/gate.json >/dev/null || { jq .checks flag/gate.json; fail "lag: check"; }
# an engine that reports fallbacks (fallback_count in /health after the trace)
# and whose quality (the quality command's) is below the criterion: refused by name
export QBAD=candidate
sx --baseline "$srv --ttft-ms 20" --candidate "$srv --ttft-ms 20 --fallbacks 2" --out-dir ffb \
	>/dev/null 2>err.txt || { cat err.txt; fail "the fallback run failed"; }
unset QBAD
[ "$(jq -r .classification ffb/gate.json)" = regression ] || fail "fallback: gate"
jq -e '.checks[] | select(.name == "quality") | .status == "fail" and .detail == "exact_match=0.5 floor=1"' \
	ffb/gate.json >/dev/null || { jq .checks ffb/gate.json; fail "quality: check"; }
jq -e '.checks[] | select(.name == "serving_fallback") | .status == "fail" and .detail ==
	"6 fallback(s) reported by the engine in 3 of 3 repetitions (fallback_count of its /health body after the trace)"' \
	ffb/gate.json >/dev/null || { jq .checks ffb/gate.json; fail "fallback: check"; }
jq -e 'all(.repetitions[]; .serving.fallback_count == 2)' ffb/candidate.json >/dev/null ||
	fail "fallback: sealed"
# a server that ignores SIGTERM is killed after --stop-grace; the run still counts
sx --stop-grace 200ms --baseline "trap '' TERM; $srv --ttft-ms 20" --candidate "$srv --ttft-ms 20" \
	--out-dir fkill >/dev/null 2>err.txt || { cat err.txt; fail "the SIGTERM-deaf server failed"; }
jq -e 'all(.repetitions[]; .serving.killed and .serving.stop_status == "killed after the grace period")' \
	fkill/baseline.json >/dev/null || { jq '.repetitions[].serving' fkill/baseline.json; fail "kill: sealed"; }
jq -e 'all(.repetitions[]; .serving.killed | not)' fkill/candidate.json >/dev/null || fail "kill: candidate"
# a server that dies mid-run fails its run, naming it
if sx --baseline "$srv --ttft-ms 20" --candidate "$srv --ttft-ms 20 --fault die" \
	--out-dir fdie >/dev/null 2>err.txt; then fail "a dying server was accepted"; fi
grep -q '^  candidate warm-up 1 failed: COMMAND_FAILED: ' err.txt || { cat err.txt; fail "die: finding"; }
# a server that never gets ready: the finding names its readiness and stderr
if sx --ready-timeout 1s --baseline "$srv --ttft-ms 20" \
	--candidate "echo 'loading model: out of memory' >&2; $srv --fault never-ready" \
	--out-dir fready >/dev/null 2>err.txt; then fail "a server never ready was accepted"; fi
grep -q "candidate warm-up 1 failed: WORKLOAD_METRICS_INVALID: server not ready: GET http://127.0.0.1:[0-9]*/health did not answer 200 within 1s (last: HTTP 503); the server's last stderr lines: loading model: out of memory" err.txt ||
	{ cat err.txt; fail "never ready: finding"; }
# a server whose /health names no engine: llama-server's GET /props build_info
# ("b<number>-<commit>") is its identity, as llama-bench's build_commit is (engine
# llama.cpp, which this envelope does not run: the run is refused by name); a server with
# neither states nothing (declared)
anon='python3 serve_stub.py --port-file "$FAK_RUN.port" --bind-port "$FAK_PORT" --itl-ms 5 3<"$FAK_ARTIFACT"'
if sx --baseline "$anon" --candidate "$anon --build-info b4242-0123abc" --out-dir props \
	>/dev/null 2>err.txt; then fail "a llama.cpp server witnessed another engine's envelope"; fi
jq -e '.workload.metrics.engine == "llama.cpp" and .workload.metrics.build_commit == "0123abc"' \
	props/attestations/candidate-warmup-1.json >/dev/null ||
	{ jq .workload.metrics props/attestations/candidate-warmup-1.json; fail "/props identity"; }
jq -e '.workload.metrics | has("engine") | not' props/attestations/baseline-warmup-1.json \
	>/dev/null || fail "a server that states nothing got an identity"
grep -q '^  candidate warm-up 1 shows engine "llama.cpp" (build "0123abc"), but envelope "test-cpu-p4-t8" names engine "fak-native": a run of one engine cannot witness another.s envelope' err.txt || { cat err.txt; fail "/props: finding"; }
# mixing the modes is refused
if sx --metrics llama-bench --baseline x --candidate y --out-dir mix >/dev/null 2>e.txt; then
	fail "--serve-trace with --metrics"; fi
grep -q 'it takes no --metrics' e.txt || { cat e.txt; fail "mix: message"; }
echo ok
