# Every attempt counts: three experiments of one lever are attempts 1, 2
# and 3 in the witness root's ledger (a failed run too: 4); the first, at
# 3 + 3, is refused once its decision is widened for 4 attempts; the
# promotion of the second (6 + 6) says "attempt 2 of 4" in its output,
# manifest, graph and index row, and its decision is at 97.5%; an experiment run without a witness root, or recorded in
# another one, is refused; a ledger that is not a regular file is refused
# before anything runs; --verify-witnesses names a deleted ledger, a
# deleted middle line, a line cut off its end and an edited line.
# A busy host changes nothing: the fixture criterion's host policy
# (tests/fixtures/experiment/promote.sh).
# fak-test: slow
set -u
. "$FIX/experiment/lib.sh"
. "$FIX/experiment/promote.sh"
cp "$ROOT/examples/cpu-decode/index.json" index.json
verify() { "$FAK" native-performance --graph graph.json --index index.json --verify-witnesses wit "$@"; }

for i in 1 2 3; do
	# the second runs until decisive (6 + 6), so that its decision still holds
	# when promotion widens it for every attempt (docs/receipts.md, "Attempts")
	if [ $i = 2 ]; then
		rm -rf r2 runs.count
		xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --until-decisive \
			--max-repetitions 6 --out-dir r2 >r2.out 2>&1 || { cat r2.out; fail "run r2"; }
	else
		pass_run r$i
	fi
	grep -q "^attempt    $i of $i of lever cpu.fast in this envelope (ledger wit/attempts.jsonl)" r$i.out ||
		{ cat r$i.out; fail "r$i: the attempt line"; }
	if [ $i -gt 1 ]; then
		tr -s ' \n' '  ' <r$i.out | grep -q "; a promotion decides again at the level widened for every attempt so far" ||
			{ cat r$i.out; fail "r$i: no word of the widening"; }
	fi
	jq -e --argjson k "$i" '.schema == "fak-attempt-record/v1" and .attempt == $k and .attempts == $k
		and .started_seq == 2 * $k - 1 and .ended_seq == 2 * $k and .ledger == "wit/attempts.jsonl"' \
		r$i/attempt.json >/dev/null || { cat r$i/attempt.json; fail "r$i/attempt.json"; }
done
# a failed run counts too, and its end says so
rm -f runs.count
FAIL_AT=3 xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir failed >/dev/null 2>&1 &&
	fail "the failing run succeeded"
tail -1 wit/attempts.jsonl | jq -e '.event == "ended" and .verdict == "failed" and .gate == "none"
	and .out_dir == "failed" and .seq == 8' >/dev/null || { tail -1 wit/attempts.jsonl; fail "the failed end"; }
jq -e '.attempt == 4 and .attempts == 4' failed/attempt.json >/dev/null || fail "failed/attempt.json"
[ "$(jq -s 'map(select(.event == "ended" and .verdict == "faster" and .gate == "pass")) | length' \
	wit/attempts.jsonl)" = 3 ] || fail "the ended lines of the passing runs"

# without a witness root the summary says so, and --promote refuses it
"$FAK" bench experiment cpu.fast --graph graph.json --artifact model.bin --revision r1 --module bench@1 \
	--profile-artifact profile.txt --machine-id-file machine-id --baseline-duration 20ms --interval 10ms \
	--baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir bare >bare.out 2>&1 ||
	{ cat bare.out; fail "bare run"; }
grep -qx 'attempt    not recorded: no witness root (--witness-root DIR); this experiment cannot be promoted' \
	bare.out || { cat bare.out; fail "bare: the attempt line"; }
[ ! -e bare/attempt.json ] || fail "bare has an attempt.json"
refused bare "^  cannot read 'bare/attempt.json': No such file or directory; the experiment's attempt was not recorded (run without a witness root): run it again with --witness-root wit so that it counts, and promote that one$"
# recorded in another witness root: not in this one's ledger
xp_witnesses=other xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' \
	--out-dir elsewhere >/dev/null 2>&1 || fail "elsewhere run"
id=$(jq -r .experiment_id elsewhere/attempt.json)
refused elsewhere "^  attempt $id is not in the ledger 'wit/attempts.jsonl': the experiment was recorded in another witness root"
# attempt.json that is not the ledger's: another started digest, another experiment
cp -r r3 other-digest
jq --arg d "$(sed -n 1p wit/attempts.jsonl | jq -r .digest)" '.started_digest = $d' r3/attempt.json \
	>other-digest/attempt.json
refused other-digest "^  attempt.json: its started line is sha256:[0-9a-f]*, the ledger's line 5 for experiment [0-9a-f]* is sha256:[0-9a-f]*$"
cp -r r3 other-id
cp r1/attempt.json other-id/attempt.json
refused other-id "^  attempt.json: names experiment $(jq -r .experiment_id r1/attempt.json), the receipts $(jq -r .experiment_id r3/attempt.json)$"
# an attempt whose end the ledger does not hold: the chain up to its start only
mkdir -p cut && sed -n 1,5p wit/attempts.jsonl >cut/attempts.jsonl
before=$(state)
"$FAK" native-performance --graph graph.json --index index.json --witness-root cut --promote r3 >out.txt 2>err.txt &&
	fail "an attempt without its end was promoted"
grep -q "^  the ledger 'cut/attempts.jsonl' records no end of attempt $(jq -r .experiment_id r3/attempt.json) (it did not finish); run the experiment again$" err.txt ||
	{ cat err.txt; fail "no end: the finding"; }
[ "$(state)" = "$before" ] || fail "no end: something changed"
rm -rf cut
# the envelope changed since the attempt (whatever else it breaks)
cp graph.json graph.keep
jq '(.envelopes[0], .envelope).comparability_rule += " (changed)"' graph.keep >graph.json
refused r3 "^  envelope \"test-cpu-p4-t8\" is sha256:[0-9a-f]* in 'graph.json', sha256:[0-9a-f]* when attempt [0-9a-f]* ran: the envelope changed since; run the experiment again$"
mv graph.keep graph.json

# a ledger that is not a regular file: refused before the first run, nothing runs
mkdir bad
ln -s ../wit/attempts.jsonl bad/attempts.jsonl
rm -f runs.count
if xp_witnesses=bad xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' \
	--out-dir never >/dev/null 2>never.err; then fail "a symbolic link ledger was accepted"; fi
grep -qx "  --witness-root: ledger 'bad/attempts.jsonl' is not a regular file (a symbolic link): fak appends attempts only to a plain file; move it away and restore attempts.jsonl from version control" never.err ||
	{ cat never.err; fail "the symbolic link finding"; }
[ ! -e runs.count ] || fail "a run ran"

# the first passing attempt, 3 + 3 at 90% on its own, is undecided once widened for the
# 4 attempts: 3 + 3 cannot reach 97.5%
refused r1 "^  decision: undecided: only a faster verdict is witnessed as a gain"
refused r1 "the level widened for 4 attempts of the lever"
# the second of the passing attempts: attempt 2 of 4 (every started line of the lever in
# this envelope in this ledger so far, the failed one included), 6 + 6 at 97.5%
promote r2 >promote.txt || { cat promote.txt; fail "promote r2"; }
jq -e '.decision | .verdict == "faster" and .attempts == 4 and .requested_level == 0.975
	and .level >= 0.975 and .design_level == 0.9 and .rule == "bonferroni-repeated-intervals/v1"' \
	wit/test-cpu-p4-t8/cpu.fast/*/comparison.json >/dev/null ||
	{ jq .decision wit/test-cpu-p4-t8/cpu.fast/*/comparison.json; fail "the widened decision"; }
grep -qx '  attempt  2 of 4 of cpu.fast in this envelope (ledger wit/attempts.jsonl, line 3 of 8)' promote.txt ||
	{ cat promote.txt; fail "the promotion's attempt line"; }
w=$(ls -d wit/test-cpu-p4-t8/cpu.fast/*)
jq -e --arg id "$(jq -r .experiment_id r2/attempt.json)" '.schema == "fak-witness-manifest/v3"
	and .attempt.experiment_id == $id and .attempt.attempt == 2 and .attempt.attempts == 4
	and .attempt.started_seq == 3 and .attempt.ended_seq == 4 and .attempt.ledger_head_seq == 8' \
	"$w/MANIFEST.json" >/dev/null || { cat "$w/MANIFEST.json"; fail "the manifest's attempt"; }
jq -e '.levers[] | select(.id == "cpu.fast") | .witnessed.provenance | contains(", attempt 2 of 4, ")' \
	graph.json >/dev/null || fail "the provenance"
jq -e '.results[-1].status | endswith("; attempt 2 of 4.")' index.json >/dev/null || fail "the index row"
verify >v.txt || { cat v.txt; fail "verify"; }
grep -qx 'VERIFIED the attempt ledger attempts.jsonl: 8 lines, one hash chain, every attempt a witness names in it' \
	v.txt || { cat v.txt; fail "verify: the ledger line"; }

# what --verify-witnesses detects
cp wit/attempts.jsonl keep.jsonl
broken() {	# broken PATTERN: verify fails with the finding
	if verify >v.txt 2>v.err; then fail "verified: $1"; fi
	grep -q -- "$1" v.err || { cat v.err; fail "no finding '$1'"; }
	cp keep.jsonl wit/attempts.jsonl
}
rm wit/attempts.jsonl
broken "^  test-cpu-p4-t8/cpu.fast/[^:]*: records attempt [0-9a-f]* in attempts.jsonl, which does not exist: the attempt ledger was deleted; restore it from version control$"
sed 6d keep.jsonl >wit/attempts.jsonl
broken "^  wit/attempts.jsonl: line 6: seq is 7, expected 6: a line was deleted, inserted or moved$"
sed 4d keep.jsonl >wit/attempts.jsonl
broken "^  wit/attempts.jsonl: line 4: seq is 5, expected 4"
head -3 keep.jsonl >wit/attempts.jsonl
broken "names line 4 of attempts.jsonl (the attempt's end), which ends at line 3: lines were cut off its end"
head -7 keep.jsonl >wit/attempts.jsonl
broken "names line 8 of attempts.jsonl (the ledger's last line at promotion), which ends at line 7"
sed '2s/"out_dir":"r1"/"out_dir":"r9"/' keep.jsonl >wit/attempts.jsonl
broken "^  wit/attempts.jsonl: line 2: its digest is sha256:[0-9a-f]*, but its content digests to sha256:[0-9a-f]*: the line was edited$"
verify >/dev/null || fail "the restored ledger does not verify"
echo ok
