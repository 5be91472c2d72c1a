# fak bench experiment end to end on the fixture benchmark: every file
# written (0600), receipts that --compare and --gate accept as they are,
# every repetition bound to its sealed metrics, the order recorded equals
# the order run (ABBA), logs that --verify --log re-derives, and a tok/s
# edited afterwards refused with the repetition named.
set -u
. "$FIX/experiment/lib.sh"

xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir run >out.txt 2>err.txt
rc=$?
[ $rc = 0 ] || { cat err.txt; fail "exit $rc"; }
[ ! -s err.txt ] || { cat err.txt; fail "--progress never: nothing may be printed on stderr"; }
# the receipts state what fak observed of the host, and which controls it did not
# observe (the criterion requires them; no run reports them, no envelope pins them)
cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -1 | sed 's/@/at/g; s/[[:space:]]\{1,\}/ /g; s/ $//')
for arm in baseline candidate; do
	jq -e --arg k "$(uname -r)" --arg c "${cpu:-unknown}" '.experiment.host.kernel_release == $k
		and (.experiment.host.cpu_model == $c or ($c == "unknown" and .experiment.host.cpu_model != ""))
		and .experiment.controls_not_observed == ["batch", "sampling", "cache_state"]
		and (.experiment | has("engine_runtime") | not)' run/$arm.json >/dev/null ||
		fail "$arm receipt: host $(jq -c '.experiment | {host, controls_not_observed}' run/$arm.json), want $cpu, $(uname -r)"
done
grep -q '^gate       [a-z]*: ' out.txt && grep -q '^           (fak native-performance --gate run/gate-request.json)$' out.txt || fail "no gate line in the summary"
for f in baseline.json candidate.json comparison.json gate-request.json gate.json \
	attestations/baseline-warmup-1.json attestations/candidate-warmup-1.json \
	attestations/baseline-1.json attestations/baseline-3.json attestations/candidate-3.json \
	logs/baseline-1.stdout logs/candidate-2.stderr; do
	[ -f "run/$f" ] || fail "missing $f"
	[ "$(stat -c %a "run/$f")" = 600 ] || fail "$f is not mode 0600"
done
[ "$(ls run/attestations | wc -l)" = 8 ] || fail "expected 8 attestations (2 warm-ups, 6 repetitions)"
grep -q '^run [0-9]*: loading$' run/logs/baseline-1.stdout || fail "the workload's stdout is not in its log"
grep -q 'a diagnostic on stderr' run/logs/candidate-2.stderr || fail "the workload's stderr is not in its log"

# the receipts stand on their own
"$FAK" native-performance --graph graph.json --compare run/baseline.json --candidate run/candidate.json --json \
	>cmp.json || fail "--compare refused the receipts"
"$FAK" native-performance --graph graph.json --gate run/gate-request.json --json >gate.json
rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || fail "--gate exit $rc"
[ "$(jq -r .classification gate.json)" = "$(jq -r .classification run/gate.json)" ] || fail "gate differs"
[ "$(jq '[.candidate_samples.tokens_per_second[]] | unique' cmp.json)" = "$(printf '[\n  120\n]')" ] ||
	fail "candidate tok/s not the measured 120"

# every repetition is bound: a v2 attestation whose sealed metrics are the repetition's
for arm in baseline candidate; do
	jq -e '[.system_baselines[].schema] | all(. == "fak.system-baseline/v2")' run/$arm.json >/dev/null ||
		fail "$arm: not every attestation is v2"
	jq -e '[range(0; .repetitions | length) as $i
		| .repetitions[$i].tokens_per_second == .system_baselines[$i].workload.metrics.tokens_per_second
		  and .repetitions[$i].system_baseline_digest == .system_baselines[$i].digest] | all' \
		run/$arm.json >/dev/null || fail "$arm: a repetition is not bound to its attestation"
done

# the order recorded is the order run: ABBA after the warm-ups, start times increasing,
# and the same schedule in both receipts
order=$(jq -r '[.experiment.schedule[] | (.arm[0:1] + (if .kind == "warmup" then "w" else "" end))] | join(" ")' \
	run/baseline.json)
[ "$order" = "bw cw b c c b b c" ] || fail "schedule order: $order"
jq -e '[.experiment.schedule[].started_at_utc] | . == sort' run/baseline.json >/dev/null ||
	fail "start times are not increasing"
[ "$(jq -c .experiment.schedule run/baseline.json)" = "$(jq -c .experiment.schedule run/candidate.json)" ] ||
	fail "the two receipts record different schedules"
# ... and each entry is the sealed start of that run
jq -e '. as $r | [range(0; .repetitions | length) as $i
	| ($r.experiment.schedule[] | select(.arm == "baseline" and .kind == "repetition" and .index == $i)
	   | .started_at_utc) == $r.system_baselines[$i].command_window.started_at_utc] | all' \
	run/baseline.json >/dev/null || fail "schedule times differ from the sealed command windows"

# logs re-derive their attestations; another run's log with other bytes does not
"$FAK" bench system-baseline --verify run/attestations/candidate-2.json --log run/logs/candidate-2.stdout \
	>v.txt || fail "--verify --log refused the run's own log"
grep -q '^VALID sha256:[0-9a-f]* log matches: json-line/v1, 120 tok/s$' v.txt || { cat v.txt; fail "verify output"; }
if "$FAK" bench system-baseline --verify run/attestations/candidate-2.json --log run/logs/baseline-1.stdout \
	2>verr.txt; then fail "--verify accepted another run's log"; fi
grep -q 'is not the sealed stdout' verr.txt || { cat verr.txt; fail "verify error"; }

# a tok/s edited afterwards is refused, naming the repetition and the field
jq '.repetitions[1].tokens_per_second = 1000' run/candidate.json >edited.json
if "$FAK" native-performance --graph graph.json --compare run/baseline.json --candidate edited.json \
	>/dev/null 2>cerr.txt; then fail "--compare accepted an edited tok/s"; fi
grep -qx '  repetitions\[1\].tokens_per_second: 1000 differs from 120, the value sealed in system_baselines\[1\]' \
	cerr.txt || { cat cerr.txt; fail "compare finding"; }
jq --slurpfile c edited.json '.candidate = $c[0]' run/gate-request.json >edited-gate.json
if "$FAK" native-performance --graph graph.json --gate edited-gate.json >/dev/null 2>gerr.txt; then
	fail "--gate accepted an edited tok/s"; fi
grep -q 'repetitions\[1\].tokens_per_second: 1000 differs from 120' gerr.txt || { cat gerr.txt; fail "gate finding"; }
# so is a memory figure the attestations did not measure
jq '.memory.peak_bytes = 1' run/candidate.json >mem.json
if "$FAK" native-performance --graph graph.json --compare run/baseline.json --candidate mem.json \
	>/dev/null 2>merr.txt; then fail "--compare accepted an edited memory figure"; fi
grep -q '  memory: peak 1 and resident' merr.txt || { cat merr.txt; fail "memory finding"; }

# the same folder again: refused, nothing overwritten
before=$(cat run/baseline.json | sha256sum)
if xp --baseline './bench.sh' --candidate './bench.sh' --out-dir run >/dev/null 2>again.txt; then
	fail "a folder holding evidence was reused"; fi
grep -q "already holds files; fak never overwrites evidence" again.txt || { cat again.txt; fail "reuse message"; }
[ "$(cat run/baseline.json | sha256sum)" = "$before" ] || fail "evidence was overwritten"
echo ok
