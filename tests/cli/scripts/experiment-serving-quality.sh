# fak-test: slow
# The serving mode's quality prompts (docs/serving.md, "Quality"): with
# --quality-prompts every serving run sends each prompt alone, greedy, to its
# own server before the warm-up requests and the trace, and its exact match
# against the references is the run's sealed quality. tests/tools/serve_stub.py
# answers a prompt with a text of the prompt alone (--wrong-every N answers
# every Nth otherwise) and logs the port that served it. A pass, a candidate
# below the criterion, a malformed and a reference-less prompts file, and the
# references made by fak bench serve --write-reference.
set -u
. "$FIX/experiment/lib.sh"
serving_graph
cp "$FIX/serve/quality/no-reference.json" "$FIX/serve/quality/reject-both.json" .
srv='python3 serve_stub.py --port-file "$FAK_RUN.port" --bind-port "$FAK_PORT" --itl-ms 5 --engine fak-native --forward-path cpu/test-v1 3<"$FAK_ARTIFACT"'
sx() { xp --serve-trace serve-trace.json --max-lag 100ms "$@"; }

# the references: a known-good server's outputs, written into a new file
serve_stub ref
port=$STUB_PORT
"$FAK" bench serve --endpoint "http://127.0.0.1:$port" --quality-prompts no-reference.json \
	--write-reference prompts.json >out.txt 2>err.txt || { cat out.txt err.txt; fail "--write-reference"; }
d=$("$FAK" bench serve --endpoint "http://127.0.0.1:$port" --quality-prompts prompts.json 2>&1)
[ "$d" = "exact_match 1: 2 of 2 prompts matched their reference" ] || fail "compare: $d"
jq -e '.schema == "fak-quality-prompts/v1" and .max_tokens == 4
	and [.prompts[].reference] == [" w75 w76 w77 w78", " w6 w7 w8 w9"]' prompts.json >/dev/null ||
	{ cat prompts.json; fail "the references written"; }
grep -q "^wrote 'prompts.json': 2 prompts with their references, sha256:[0-9a-f]\{64\}\$" out.txt ||
	{ cat out.txt; fail "--write-reference: what it says"; }
# never over an existing file
if "$FAK" bench serve --endpoint "http://127.0.0.1:$port" --quality-prompts no-reference.json \
	--write-reference prompts.json >/dev/null 2>e.txt; then fail "a reference was written over"; fi
grep -qx "fak bench serve: --write-reference: 'prompts.json' exists; references are never written over (remove it or choose another name)" e.txt ||
	{ cat e.txt; fail "--write-reference over a file: message"; }

# refused before anything runs: a malformed file, one without references, both
# quality flags, neither
if sx --quality-prompts reject-both.json --baseline "$srv" --candidate "$srv" --out-dir pre1 \
	>/dev/null 2>e.txt; then fail "a malformed prompts file was accepted"; fi
grep -qx "  --quality-prompts: 'reject-both.json': prompts\[0\]: give exactly one of prompt_token_ids and prompt" e.txt ||
	{ cat e.txt; fail "malformed: finding"; }
if sx --quality-prompts no-reference.json --baseline "$srv" --candidate "$srv" --out-dir pre2 \
	>/dev/null 2>e.txt; then fail "a prompts file without references was accepted"; fi
grep -qx "  --quality-prompts: 'no-reference.json': prompts\[0\] has no reference (make them with fak bench serve --quality-prompts FILE --write-reference OUT against a known-good server)" e.txt ||
	{ cat e.txt; fail "no reference: finding"; }
if sx --quality-prompts prompts.json --quality-command true --baseline "$srv" --candidate "$srv" \
	--out-dir pre3 >/dev/null 2>e.txt; then fail "both quality flags were accepted"; fi
grep -qx '  --quality-command and --quality-prompts do not go together: give one' e.txt ||
	{ cat e.txt; fail "both: finding"; }
if xp --quality-prompts prompts.json --baseline "$srv" --candidate "$srv" --out-dir pre4 \
	>/dev/null 2>e.txt; then fail "--quality-prompts without --serve-trace"; fi
grep -q '^fak bench experiment: --quality-prompts goes with --serve-trace' e.txt ||
	{ cat e.txt; fail "no trace: message"; }
[ ! -e pre1/logs ] && [ ! -e pre2/logs ] && [ ! -e pre3/logs ] || fail "a refused experiment ran"

# a pass: every run measured its own server before the trace
sx --quality-prompts prompts.json --baseline "$srv --ttft-ms 150" --candidate "$srv --ttft-ms 20" \
	--out-dir run >out.txt 2>err.txt || { cat out.txt err.txt; fail "the serving experiment failed"; }
for r in run/baseline.json run/candidate.json; do
	jq -e '.quality == {name: "exact_match", score: 1, higher_is_better: true}
		and (.experiment | has("quality_attestation") | not) and (.commands | length) == 1
		and all(.repetitions[]; .serving.quality.prompts == 2 and .serving.quality.matched == 2)' \
		"$r" >/dev/null || { jq '.quality, .repetitions[].serving.quality' "$r"; fail "$r"; }
done
[ ! -e run/attestations/baseline-quality.json ] || fail "a separate quality run ran"
for n in baseline-warmup-1 baseline-1 baseline-2 baseline-3 candidate-warmup-1 candidate-1 candidate-2 candidate-3; do
	a=run/attestations/$n.json
	d=$(sha256sum "run/logs/$n.quality.jsonl" | cut -d' ' -f1)
	jq -e --arg d "$d" '.workload.serving.quality.log_sha256 == $d
		and (.workload.serving.quality.prompts_sha256 | startswith("sha256:"))
		and .workload.metrics.quality == {name: "exact_match", score: 1, higher_is_better: true}' \
		"$a" >/dev/null || { jq .workload.serving.quality "$a"; fail "$n: sealed quality"; }
	# the prompts went to this run's own server ($FAK_PORT), before any trace request
	port=$(cat "$n.port")
	python3 - "run/logs/$n.stderr" "$port" <<'PY' || fail "$n: the quality prompts were not measured on the run's server first"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
q = [i for i, l in enumerate(lines) if "quality" in l]
r = [i for i, l in enumerate(lines) if "request" in l]
ok = len(q) == 2 and all(lines[i]["port"] == int(sys.argv[2]) for i in q) and r and max(q) < min(r)
sys.exit(0 if ok else 1)
PY
	head -1 "run/logs/$n.quality.jsonl" | jq -e '.prompts == 2 and .matched == 2' >/dev/null ||
		fail "$n: quality log head"
done
[ "$(jq -r .classification run/gate.json)" = pass ] || { jq .checks run/gate.json; fail "gate: not pass"; }
jq -e '.checks[] | select(.name == "quality") | .status == "pass" and .detail == "exact_match=1 floor=1"' \
	run/gate.json >/dev/null || { jq .checks run/gate.json; fail "quality: pass check"; }
"$FAK" native-performance --graph graph.json --compare run/baseline.json --candidate run/candidate.json \
	>/dev/null || fail "--compare of receipts whose runs sealed their quality"
# an edited quality is no longer what the runs sealed
jq '.quality.score = 0.9' run/candidate.json >edited.json
if "$FAK" native-performance --graph graph.json --compare run/baseline.json --candidate edited.json \
	>/dev/null 2>e.txt; then fail "an edited quality was accepted"; fi
grep -q '^  quality: exact_match=0.9 differs from exact_match=1, the worst score the bound repetitions sealed' e.txt ||
	{ cat e.txt; fail "edited quality: finding"; }
"$FAK" native-performance --graph graph.json --index "$ROOT/examples/cpu-decode/index.json" \
	--witness-root wit --promote run --dry-run >p.txt 2>&1 || { cat p.txt; fail "--promote --dry-run"; }
# a quality log edited after the run: refused by its sealed digest
cp -r run runq
sed 's/"match":true/"match":false/' run/logs/candidate-1.quality.jsonl >runq/logs/candidate-1.quality.jsonl
if "$FAK" native-performance --graph graph.json --index "$ROOT/examples/cpu-decode/index.json" \
	--witness-root wit --promote runq --dry-run >/dev/null 2>e.txt; then
	fail "an edited quality log was accepted"; fi
grep -q "^  logs/candidate-1.stdout: 'runq/logs/candidate-1.quality.jsonl' is not the quality log the attestation sealed: sha256 " e.txt ||
	{ cat e.txt; fail "edited quality log: finding"; }

# a candidate that answers every second prompt otherwise: exact_match 0.5, below
# the criterion's floor of 1; the gate refuses by name
sx --quality-prompts prompts.json --baseline "$srv --ttft-ms 20" \
	--candidate "$srv --ttft-ms 20 --wrong-every 2" --out-dir low >/dev/null 2>err.txt ||
	{ cat err.txt; fail "the low-quality experiment failed"; }
[ "$(jq -r .classification low/gate.json)" = regression ] || { jq .checks low/gate.json; fail "low: gate"; }
jq -e '.checks[] | select(.name == "quality") | .status == "fail" and .detail == "exact_match=0.5 floor=1"' \
	low/gate.json >/dev/null || { jq .checks low/gate.json; fail "low: quality check"; }
jq -e '.quality.score == 0.5 and all(.repetitions[]; .serving.quality.matched == 1)' low/candidate.json \
	>/dev/null || { jq '.quality, .repetitions[].serving.quality' low/candidate.json; fail "low: sealed"; }
grep -q '"match":false' low/logs/candidate-1.quality.jsonl || fail "low: the log names the miss"
echo ok
