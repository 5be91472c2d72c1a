# A parity campaign end to end on the fixture benchmark (docs/experiments.md, "A
# parity campaign"; docs/receipts.md, "Parity witnesses"): cpu.fast's next witness
# is a parity campaign of fak-native against llama.cpp. The runner refuses an A/B
# of it, --parity for a lever that needs none, and the options a campaign does not
# take; a run whose engine is not its arm's fails by name. A campaign writes
# parity.json (the ratio, labelled parity; no receipts, no gate). --promote
# derives the ratio again from the sealed runs, refuses a parity.json that differs
# from them, a lever that needs another kind or the engines the other way round;
# then records the ratio as the lever's witness and a DIAGNOSTIC index row that
# quotes no gain (the envelope's CURRENT row stands); --verify-witnesses verifies it,
# and --enable refuses it (a ratio of two engines is no effect of the lever). The
# other engine may be read by its own benchmark's parser (--candidate-metrics
# llama-bench), its identity then what llama-bench states.
# fak-test: slow
set -u
. "$FIX/experiment/lib.sh"
. "$FIX/experiment/promote.sh"
cp "$ROOT/examples/cpu-decode/index.json" index.json
cp graph.json graph.orig
parity='{"kind": "parity", "metrics": [], "engines": ["fak-native", "llama.cpp"]}'
need "$parity"
refused_start() {	# refused_start PATTERN ARGS...: nothing ran, the finding names the cause
	p=$1
	shift
	rm -rf x
	if xp "$@" --out-dir x >out.txt 2>err.txt; then fail "started: $*"; fi
	grep -q '^fak bench experiment: cannot start; nothing ran' err.txt && grep -q -- "$p" err.txt ||
		{ cat err.txt; fail "no finding '$p'"; }
	[ ! -e x/parity.json ] || fail "wrote parity.json: $*"
}
refused_start '^  lever "cpu.fast" needs a parity campaign of fak-native against llama.cpp (its next_witness_requirement), not an A/B: run it with --parity, the baseline arm fak-native.s command and the candidate arm llama.cpp.s$' \
	--baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh'
refused_start '^  --parity runs the two engines interleaved (ABBA), not --order random: a matched campaign sees both engines alike$' \
	--parity --order random --seed 1 --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ENGINE=llama.cpp ./bench.sh'
refused_start '^  --parity takes the envelope.s repetitions, not --until-decisive: a parity ratio has no decision to reach$' \
	--parity --until-decisive --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ENGINE=llama.cpp ./bench.sh'
need '{"kind": "decode", "metrics": []}'
refused_start '^  --parity: lever "cpu.fast" needs no parity campaign (its next_witness_requirement is decode); run its A/B without --parity$' \
	--parity --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ENGINE=llama.cpp ./bench.sh'
need "$parity"

# each arm's engine is observed: a candidate that shows fak-native, or states none, fails
failed_run() {	# failed_run PATTERN CANDIDATE
	rm -rf x runs.count
	if xp --parity --baseline 'TPS=100 ./bench.sh' --candidate "$2" --out-dir x >out.txt 2>err.txt; then
		fail "a campaign with candidate '$2' passed"; fi
	grep -q '^fak bench experiment: no receipt written' err.txt && grep -q -- "$1" err.txt ||
		{ cat err.txt; fail "no finding '$1'"; }
	[ ! -e x/parity.json ] || fail "a failed campaign wrote parity.json"
}
failed_run '^  candidate warm-up 1 shows engine "fak-native", but the candidate arm of lever "cpu.fast".s parity campaign is llama.cpp.s (its requirement.s engines, in order); see x/logs/candidate-warmup-1.stdout$' \
	'TPS=120 ./bench.sh'
failed_run '^  candidate warm-up 1 states no engine: a parity campaign observes each arm.s engine, so the candidate arm.s metrics line must state "engine": "llama.cpp"; see ' \
	'TPS=120 DECLARED=1 ./bench.sh'

# the campaign: fak-native at 100 tok/s against llama.cpp at 120
rm -rf wit p runs.count
xp --parity --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ENGINE=llama.cpp ./bench.sh' --out-dir p \
	>p.out 2>p.err || { cat p.err; fail "the campaign"; }
grep -qx 'parity: fak-native / llama.cpp tok/s 0.8333 (90% interval 0.8333..0.8333, n=3+3); a parity ratio, not a throughput gain of either engine' p.out ||
	{ cat p.out; fail "the campaign's summary"; }
jq -e '.schema == "fak-parity-campaign/v1" and .result == "parity" and .experiment.order == "interleaved"
	and ([.arms[].engine] == ["fak-native", "llama.cpp"]) and (.parity.ratio - 100 / 120 | fabs) < 1e-9
	and .parity.numerator == "fak-native" and .parity.denominator == "llama.cpp"' p/parity.json >/dev/null ||
	{ cat p/parity.json; fail "parity.json"; }
for f in baseline.json candidate.json comparison.json gate-request.json gate.json; do
	[ ! -e "p/$f" ] || fail "a parity campaign wrote $f: it is no throughput A/B"
done
jq -e 'select(.event == "ended") | .verdict == "parity"' wit/attempts.jsonl >/dev/null || fail "the ledger's verdict"
cp -r wit wit.start
cp index.json index.start
again() { rm -rf wit && cp -r wit.start wit && cp index.start index.json; }

# promotion derives the ratio again from the sealed runs
cp p/parity.json parity.keep
jq '.parity.ratio = 0.99' parity.keep >p/parity.json
refused p '^  parity.json: its parity member is not what its sealed runs give '
cp parity.keep p/parity.json
# a run of another campaign, its files and its digest in the schedule: sealed as another run
xp_witnesses=wq
rm -rf q runs.count
xp --parity --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ENGINE=llama.cpp ./bench.sh' --out-dir q \
	>q.out 2>&1 || { cat q.out; fail "campaign q"; }
xp_witnesses=wit
rm -rf p2 && cp -r p p2
cp q/attestations/candidate-1.json p2/attestations/ && cp q/logs/candidate-1.* p2/logs/
jq --arg d "$(jq -r '.experiment.schedule[] | select(.arm == "candidate" and .kind == "repetition" and .index == 0)
	| .attestation_digest' q/parity.json)" '(.experiment.schedule[] | select(.arm == "candidate"
	and .kind == "repetition" and .index == 0) | .attestation_digest) = $d' p/parity.json >p2/parity.json
refused p2 '^  attestations/candidate-1.json: sealed as another run than parity.json.s candidate-1 (experiment, envelope, lever, arm, machine or envelope state)$'
# only a parity lever, of these engines in this order
need '{"kind": "numerical", "metrics": [{"metric": "exact_match", "op": "==", "value": 1}]}'
refused p '^  lever "cpu.fast" needs numerical (its next_witness_requirement), not a parity campaign: a ratio of two engines witnesses no lever of one$'
need '{"kind": "parity", "metrics": [], "engines": ["llama.cpp", "fak-native"]}'
refused p '^  lever "cpu.fast" needs a parity campaign of llama.cpp against fak-native; parity.json ran fak-native against llama.cpp$'

# promoted: the ratio is the witness, labelled parity; no gain is quoted
need "$parity"
again
current=$(jq -c '[.results[] | select(.lifecycle == "CURRENT")]' index.json)
promote p >out.txt 2>err.txt || { cat err.txt; fail "the campaign was not promoted"; }
grep -qx 'promoted cpu.fast in test-cpu-p4-t8: parity: fak-native / llama.cpp tok/s 0.8333 (90% interval 0.8333..0.8333, n=3+3); a parity ratio, not a throughput gain of either engine' out.txt &&
	grep -q '^  index    index.json: a DIAGNOSTIC row for test-cpu-p4-t8 (it quotes no gain; the envelope.s CURRENT row stands)$' out.txt ||
	{ cat out.txt; fail "promote output"; }
"$FAK" native-performance --graph graph.json --json | jq -e '.levers[] | select(.id == "cpu.fast")
	| (.enabled | not) and .witnessed.classification == "witnessed"
	  and (.witnessed.summary | startswith("parity: fak-native / llama.cpp tok/s 0.8333"))
	  and (.witnessed.provenance | startswith("fak bench experiment --parity (sealed metrics)"))' >/dev/null ||
	fail "the lever's witness is not the parity ratio"
jq -e '.results[-1] | .lifecycle == "DIAGNOSTIC" and .quotes_gain == false and (.status | startswith("PARITY: "))
	and .engine == "fak-native against llama.cpp (parity)"' index.json >/dev/null ||
	{ jq '.results[-1]' index.json; fail "the index row"; }
[ "$(jq -c '[.results[] | select(.lifecycle == "CURRENT")]' index.json)" = "$current" ] ||
	fail "a parity ratio changed the envelope's CURRENT row"
w=$(cd wit && echo test-cpu-p4-t8/cpu.fast/*)
[ -f "wit/$w/parity.json" ] && [ ! -e "wit/$w/comparison.json" ] || fail "the witness folder's files"
"$FAK" native-performance --graph graph.json --index index.json --verify-witnesses wit >v.txt 2>&1 ||
	{ cat v.txt; fail "--verify-witnesses"; }
grep -q '^VERIFIED 1 witness folder under wit; ' v.txt || { cat v.txt; fail "verify output"; }
# the requirement's engines changed after the promotion: the witness no longer meets it
cp graph.json graph.promoted
jq '(.levers[] | select(.id == "cpu.fast") | .next_witness_requirement.engines) = ["fak-native", "vllm"]' \
	graph.promoted >graph.json
if "$FAK" native-performance --graph graph.json --index index.json --verify-witnesses wit >v.txt 2>&1; then
	fail "a parity witness of other engines verified"; fi
grep -q "^  $w: lever \"cpu.fast\" needs a parity campaign of fak-native against vllm now (its next_witness_requirement); this witness ran fak-native against llama.cpp: the requirement changed since the promotion: .* witness it again under it (a new experiment, --promote) or restore the requirement\$" v.txt ||
	{ cat v.txt; fail "verify: the changed engines not named"; }
jq '(.levers[] | select(.id == "cpu.fast") | .next_witness_requirement) = {"kind": "decode", "metrics": []}' \
	graph.promoted >graph.json
if "$FAK" native-performance --graph graph.json --index index.json --verify-witnesses wit >v.txt 2>&1; then
	fail "a parity witness of a decode lever verified"; fi
grep -q "^  $w: lever \"cpu.fast\" needs a decode A/B now (its next_witness_requirement), and this witness is a parity campaign: the requirement changed since the promotion: " v.txt ||
	{ cat v.txt; fail "verify: the changed kind not named"; }
cp graph.promoted graph.json
# a parity ratio enables nothing
if "$FAK" native-performance --graph graph.json --index index.json --witness-root wit \
	--enable cpu.fast --default-path p/parity.json >out.txt 2>err.txt; then fail "a parity witness enabled"; fi
grep -q "^  lever \"cpu.fast\": its witness $w is a parity campaign, a ratio of two engines, not an effect of the lever that a default path can show: it enables nothing\$" err.txt ||
	{ cat err.txt; fail "the --enable refusal"; }
# the witness's sealed runs decide what it proves: a parity.json edited in the folder is named
jq '.parity.ratio = 0.99' "wit/$w/parity.json" >edited.json && cp edited.json "wit/$w/parity.json"
if "$FAK" native-performance --graph graph.json --index index.json --verify-witnesses wit >v.txt 2>&1; then
	fail "an edited parity.json verified"; fi
grep -q "$w/parity.json: .* bytes with sha256 " v.txt || { cat v.txt; fail "the edited witness file"; }

# the other engine's own benchmark: llama-bench output for the candidate arm
# (--candidate-metrics), its engine observed by its parser, a quality run per arm
cp "$FIX"/metrics/llama-bench-real/pg4-8.json .
printf '#!/bin/sh\nsleep 0.2 <"$FAK_ARTIFACT"\necho "{\\"name\\": \\"exact_match\\", \\"score\\": 1, \\"higher_is_better\\": true}"\n' >q.sh
chmod +x q.sh
need "$parity"
xp_witnesses=wl
rm -rf l runs.count
xp --parity --candidate-metrics llama-bench --quality-command ./q.sh --baseline 'TPS=100 ./bench.sh' \
	--candidate 'sleep 0.2 <"$FAK_ARTIFACT"; cat pg4-8.json' --out-dir l >l.out 2>&1 || { cat l.out; fail "campaign l"; }
jq -e '.experiment.metrics_parser == "json-line/v1" and .experiment.candidate_metrics_parser == "llama-bench/v1"
	and ([.experiment.schedule[] | select(.kind == "quality")] | length) == 2' l/parity.json >/dev/null ||
	{ cat l/parity.json; fail "campaign l: parity.json"; }
jq -e '.workload.parser == "llama-bench/v1" and .workload.metrics.engine == "llama.cpp"' \
	l/attestations/candidate-1.json >/dev/null || fail "campaign l: the candidate's sealed identity"
"$FAK" native-performance --graph graph.json --index index.start --witness-root wl --promote l >out.txt 2>err.txt &&
	grep -q '^promoted cpu.fast in test-cpu-p4-t8: parity: fak-native / llama.cpp tok/s ' out.txt ||
	{ cat out.txt err.txt; fail "campaign l: promote"; }
echo ok
