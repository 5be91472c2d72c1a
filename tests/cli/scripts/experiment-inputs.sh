# Everything that can be checked before the first run is: a lever already
# enabled, a value too long for the label every run seals, control
# characters and invalid UTF-8 in revisions and modules (nothing runs,
# nothing is written); a quality metric judged the wrong way round stops
# at the first run; commands with shell escapes run, a Windows path does
# not; a stage time longer than the end-to-end time fails its run, and so
# does a rate its own stage times contradict (the verifier derives that
# finding again); control characters never reach the terminal in CSV or in
# messages.
set -u
. "$FIX/experiment/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
metrics() {	# metrics FILE JSON: a benchmark that reads the model for 90 ms and prints JSON
	printf '#!/bin/sh\nsleep 0.09 <"$FAK_ARTIFACT"\necho '"'%s'"'\n' "$2" >"$1"
}
xp_try() {	# xp ARGS... into out/ (a busy host may starve the census: try again)
	for t in 1 2 3 4; do
		rm -rf out runs.count
		xp "$@" --out-dir out >o.txt 2>e.txt
		rc=$?
		grep -q SAMPLER_COVERAGE_LIMITED e.txt || return $rc
	done
	return $rc
}
xq() {	# xp with the revision and module given by the caller
	"$FAK" bench experiment cpu.fast --graph graph.json --artifact model.bin \
		--profile-artifact profile.txt --machine-id-file machine-id \
		--baseline-duration 20ms --interval 10ms "$@"
}
refused() {	# refused PATTERN ARGS...: exit 1 before any run, the finding, no folder
	pattern=$1
	shift
	rm -rf out runs.count
	if xq --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir out "$@" \
		>o.txt 2>e.txt; then fail "accepted: $*"; fi
	grep -q -- "$pattern" e.txt || { cat e.txt; fail "no finding '$pattern'"; }
	[ ! -e out ] && [ ! -e runs.count ] || fail "something ran or was written: $*"
}

# a lever that is enabled already (cpu.base) has nothing to witness
rm -rf out
if "$FAK" bench experiment cpu.base --graph graph.json --artifact model.bin --revision r1 --module bench@1 \
	--profile-artifact profile.txt --machine-id-file machine-id --baseline 'TPS=100 ./bench.sh' \
	--candidate 'TPS=120 ./bench.sh' --out-dir out >o.txt 2>e.txt; then fail "an enabled lever was measured"; fi
grep -q '^  lever "cpu.base" is not ready: it is enabled already; an experiment witnesses a disabled, unwitnessed lever$' e.txt ||
	{ cat e.txt; fail "enabled lever: finding"; }
[ ! -e out ] || fail "enabled lever: folder written"

# the label's limits, before the first run (a 256-byte revision ran all 8 runs)
long=$(printf 'r%.0s' $(seq 256))
refused "^  --candidate-revision (or --revision): 256 bytes; a value sealed into every run's label takes at most 255$" \
	--revision "$long" --module bench@1
# control characters and invalid UTF-8 (the finding shows neither)
refused '^  --baseline-revision (or --revision): goes into public receipts and cannot: a control character (U+001B) at byte 2$' \
	--revision "$(printf 'r1\033[31m')" --module bench@1
refused '^  --module: goes into public receipts and cannot: a control character (U+009B) at byte 5$' \
	--module "$(printf 'bench\302\2332J@1')" --revision r1
refused '^  --baseline-revision (or --revision): goes into public receipts and cannot: invalid UTF-8 at byte 1$' \
	--revision "$(printf 'r\377')" --module bench@1
! grep -q "$(printf '\033')" e.txt o.txt || fail "a raw ESC reached the terminal"

# a command's shell escapes are not a Windows path; a Windows path is
xp_try --baseline "TPS=100 ./bench.sh; printf 'done\\n' >done.txt" --candidate 'TPS=120 ./bench.sh; echo \"ok\" >ok.txt' ||
	{ cat e.txt; fail "commands with shell escapes were refused"; }
[ "$(cat done.txt)" = done ] && [ "$(cat ok.txt)" = '"ok"' ] || fail "the escapes did not reach the shell"
jq -e '.commands[0] | endswith("printf '"'"'done\\n'"'"' >done.txt")' out/baseline.json >/dev/null || fail "the receipt's command"
rm -rf out runs.count
if xp --baseline 'TPS=100 ./bench.sh' --candidate 'type C:\bench\run.bat' --out-dir out >o.txt 2>e.txt; then
	fail "a Windows path was accepted"
fi
grep -q '^  --candidate "type C:\\bench\\run.bat": goes into public receipts and cannot: a Windows path$' e.txt ||
	{ cat e.txt; fail "Windows path: finding"; }

fails() {	# fails NAME BASELINE CANDIDATE PATTERN: the experiment fails with the finding
	if xp_try --baseline "$2" --candidate "$3"; then fail "$1: accepted"; fi
	grep -q -- "$4" e.txt || { cat e.txt; fail "$1: no finding '$4'"; }
}
q='"quality": {"name": "exact_match", "score"'
# the quality metric's direction against the criterion: the first run stops it
metrics lower.sh '{"tokens_per_second": 100, "end_to_end_milliseconds": 80, '"$q"': 1, "higher_is_better": false}}'
fails direction 'sh lower.sh' 'sh lower.sh' '^  baseline warm-up 1 reports quality "exact_match" with higher_is_better false; envelope "test-cpu-p4-t8"'"'"'s criterion says true: the score would be judged the wrong way round; see out/logs/baseline-warmup-1.stdout$'
[ "$(ls out/attestations | wc -l)" = 1 ] || fail "quality direction: more than the first run ran"
# stage times that contradict the end-to-end time fail the run
metrics stages.sh '{"tokens_per_second": 100, "end_to_end_milliseconds": 80, "decode_milliseconds": 800, '"$q"': 1, "higher_is_better": true}}'
fails stages 'sh stages.sh' 'sh stages.sh' 'WORKLOAD_STAGES_EXCEED_END_TO_END: decode_milliseconds 800 is longer than end_to_end_milliseconds 80: the stage times contradict each other'
# a rate its own decode time cannot give (a timer-unit bug) fails the run,
# and the verifier derives the finding again: sealing the attestation anew
# without it does not remove it
fails rate 'TPS=100 REPORT_TPS=100000 ./bench.sh' 'TPS=100 ./bench.sh' '^  baseline warm-up 1 failed: WORKLOAD_RATE_DISAGREES_WITH_STAGES: tokens_per_second 100000 but 8 decode tokens in decode_milliseconds 80 are 100 tok/s: the rate is more than 10% above what its own decode time allows; see out/logs/baseline-warmup-1.stdout and .stderr, and out/attestations/baseline-warmup-1.json$'
a=out/attestations/baseline-warmup-1.json
"$FAK" bench system-baseline --verify "$a" --log out/logs/baseline-warmup-1.stdout >v.txt 2>&1 ||
	{ cat v.txt; fail "rate: --verify"; }
[ "$(jq -r '.verdict + " " + .findings[0].code' "$a")" = 'invalid WORKLOAD_RATE_DISAGREES_WITH_STAGES' ] ||
	fail "rate: the sealed verdict"
resealed_refused "$a" rate
# a baseline arm whose quality fails is named as such
metrics q0.sh '{"tokens_per_second": 100, "end_to_end_milliseconds": 80, '"$q"': 0, "higher_is_better": true}}'
fails 'baseline quality' 'sh q0.sh' 'TPS=120 ./bench.sh' '^  gate: the baseline arm failed quality (without --last-accepted it is the gate'"'"'s last accepted receipt)$'

# --verify --log rounds the figures it prints for people
metrics precise.sh '{"tokens_per_second": 1234.5678901234567, "end_to_end_milliseconds": 6.4801, "quality": {"name": "exact_match", "score": 1, "higher_is_better": true}}'
xp_try --baseline 'sh precise.sh' --candidate 'sh precise.sh' || { cat e.txt; fail "precise run"; }
"$FAK" bench system-baseline --verify out/attestations/baseline-1.json --log out/logs/baseline-1.stdout >v.txt ||
	{ cat v.txt; fail "--verify --log"; }
grep -q '^VALID sha256:[0-9a-f]* log matches: json-line/v1, 1235 tok/s$' v.txt || { cat v.txt; fail "--verify: not rounded"; }

# bounded logs: 3 MiB of output with --max-log-bytes 1M keeps 512 KiB of head
# and of tail, seals the whole stream's size and digest, still reads the
# metrics from the last line, and every reader checks the kept log
printf '#!/bin/sh\nhead -c 3145728 /dev/zero | tr "\\0" x\necho\nhead -c 3145728 /dev/zero | tr "\\0" y >&2\nTPS=$1 ./bench.sh\n' >big.sh
xp_try --baseline 'sh big.sh 100' --candidate 'sh big.sh 120' --max-log-bytes 1M || { cat e.txt; fail "big run"; }
[ "$(wc -c <out/logs/baseline-1.stdout)" -lt 1100000 ] && [ "$(wc -c <out/logs/baseline-1.stderr)" -lt 1100000 ] ||
	fail "the logs are not bounded"
jq -e '.workload.stdout | .bytes > 3145728 and .kept.head_bytes == 524288 and .kept.tail_bytes == 524288' \
	out/attestations/baseline-1.json >/dev/null || fail "the attestation does not seal the whole stream and the kept log"
[ "$(jq -r '.workload.stdout.kept.sha256' out/attestations/baseline-1.json)" = "$(sha256sum <out/logs/baseline-1.stdout | cut -c1-64)" ] ||
	fail "the kept digest"
grep -q '^\[fak: [0-9]* bytes of this stream left out here; it had [0-9]* bytes in all, sha256 [0-9a-f]*\]$' out/logs/baseline-1.stdout ||
	fail "no marker line"
jq -e '.repetitions[0].tokens_per_second == 100' out/baseline.json >/dev/null || fail "the metrics of a big output"
"$FAK" bench system-baseline --verify out/attestations/baseline-1.json --log out/logs/baseline-1.stdout >v.txt ||
	{ cat v.txt; fail "--verify --log of a kept log"; }
printf 'x' >>out/logs/baseline-1.stdout
if "$FAK" bench system-baseline --verify out/attestations/baseline-1.json --log out/logs/baseline-1.stdout >v.txt 2>&1; then
	fail "an edited kept log verified"
fi
if xq --revision r1 --module bench@1 --baseline a --candidate b --out-dir x --max-log-bytes 1000K 2>e.txt; then fail "--max-log-bytes 1000K"; fi
grep -q "^fak bench experiment: --max-log-bytes must be a size from 1M to 1T" e.txt || { cat e.txt; fail "--max-log-bytes: message"; }

# CSV (and text) replace control characters; JSON escapes them
jq '(.levers[] | select(.id == "cpu.fast")).name = "fast\u001b[2J\u009b31m"' graph.json >ctl.json
"$FAK" native-performance --graph ctl.json --next --format csv >next.csv || fail "--next csv"
! grep -q "$(printf '\033')" next.csv && ! grep -q "$(printf '\302\233')" next.csv || fail "a control character in CSV"
grep -q "fast$(printf '\357\277\275')\[2J$(printf '\357\277\275')31m" next.csv || { cat next.csv; fail "CSV: no U+FFFD"; }
"$FAK" native-performance --graph ctl.json --next --json >next.json || fail "--next --json"
grep -q 'fast\\u001b\[2J\\u009b31m' next.json || { cat next.json; fail "JSON: not escaped"; }
[ "$(jq -r '.. | objects | select(.id? == "cpu.fast") | .name' next.json | head -1)" = "$(printf 'fast\033[2J\302\23331m')" ] ||
	fail "JSON: the escaped name does not read back"
echo ok
