# The source's steps 5 and 6, apart: --promote witnesses a lever and leaves
# it off; --enable LEVER --default-path RECEIPT turns it on only when a
# receipt of the envelope's default command (the witness's baseline command
# at the revision whose default path uses the lever) shows the witnessed
# effect, turning conflicting levers off in the same atomic step. Every
# refusal changes nothing; a kill at any point of the journal leaves all of
# the enablement or none of it once the next command has run.
# A busy host changes nothing: the fixture criterion's host policy
# (tests/fixtures/experiment/promote.sh).
# fak-test: slow
set -u
. "$FIX/experiment/lib.sh"
. "$FIX/experiment/promote.sh"
# cpu.alt: an enabled lever that conflicts with cpu.fast (the other arm of
# the same seam)
jq '(.levers[] | select(.id == "cpu.fast") | .conflict_ids) = ["cpu.alt"]
	| .levers += [(.levers[] | select(.id == "cpu.base") | .id = "cpu.alt" | .name = "alt"
		| .conflict_ids = ["cpu.fast"])]' graph.json >graph.new && mv graph.new graph.json
cp "$ROOT/examples/cpu-decode/index.json" index.json
np() { "$FAK" native-performance --graph graph.json --index index.json --witness-root wit "$@"; }
lever() { jq -c --arg id "$1" '.levers[] | select(.id == $id) | [.enabled, .status]' graph.json; }

# an unwitnessed lever cannot be enabled
"$FAK" native-performance --graph graph.json --baseline cpu.fast >tpl.json || fail "template"
before=$(state)
expect_code 1 np --enable cpu.fast --default-path tpl.json
expect_grep '^fak native-performance: enable: refused; nothing written (1 finding):$' err.txt
expect_grep '^  lever "cpu.fast" is not witnessed: promote a passing experiment of it first (--promote, the source.s step 5); a lever is enabled only once witnessed$' err.txt
expect_code 1 np --enable cpu.nothing --default-path tpl.json
expect_grep '^  unknown lever "cpu.nothing"$' err.txt
expect_code 2 np --enable cpu.fast
expect_grep 'default-path' err.txt
expect_code 1 "$FAK" native-performance --graph - --index index.json --witness-root wit \
	--enable cpu.fast --default-path tpl.json <graph.json
expect_grep '^fak native-performance: --enable writes the graph: give it as a file, not standard input$' err.txt
[ "$(state)" = "$before" ] || fail "a refused enable changed something"

# step 5: --promote witnesses the lever and leaves it (and its conflict) as it was
pass_run a
promote a >promote.txt || { cat promote.txt; fail "promote"; }
expect_grep '^  graph    graph.json: cpu.fast witnessed; not enabled: once the default path uses it, --enable cpu.fast --default-path RECEIPT (step 6)$' promote.txt
expect_equal '[false,"absent"]' "$(lever cpu.fast)" "cpu.fast after --promote"
expect_equal '[true,"present"]' "$(lever cpu.alt)" "cpu.alt after --promote"
# --next does not pick the witnessed lever again
"$FAK" native-performance --graph graph.json --next --json | jq -e '.lever == null' >/dev/null ||
	fail "--next picked a witnessed lever"
"$FAK" native-performance --graph graph.json >readout.txt || fail "the readout"
w=$(jq -r '.levers[] | select(.id == "cpu.fast") | .witnessed.receipt | sub("^witness "; "")' graph.json)

# default-path receipts: the witness's baseline command at revision r2,
# recorded against the graph as it stands now (a template's envelope_state)
"$FAK" native-performance --graph graph.json --baseline cpu.fast >tpl.json || fail "template"
receipt() {	# receipt OUT TPS [JQ]: a default-path receipt at TPS tok/s
	ms=$(awk -v t="$2" 'BEGIN { printf "%.3f", 8000 / t }')
	jq --slurpfile t tpl.json --slurpfile b "wit/$w/baseline.json" --argjson tps "$2" --argjson ms "$ms" \
		"del(.system_baselines, .experiment) | .engine_identity = \"declared\" | .revision = \"r2\"
		| .repetitions |= map(del(.system_baseline_digest) | .tokens_per_second = \$tps
			| .end_to_end_milliseconds = \$ms | .decode_milliseconds = \$ms)
		| .envelope_state = \$t[0].envelope_state ${3:+| $3}" \
		"wit/$w/baseline.json" >"$1" || fail "receipt $1"
}
refused_enable() {	# refused_enable RECEIPT PATTERN
	before=$(state)
	expect_code 1 np --enable cpu.fast --default-path "$1"
	expect_grep '^fak native-performance: enable: refused; nothing written' err.txt
	expect_grep "$2" err.txt
	[ "$(state)" = "$before" ] || fail "$1: something changed"
}
receipt slow.json 100
refused_enable slow.json "^  'slow.json': the default path is +0.0% against the witness's baseline, outside the witnessed interval +20.0%..+20.0%: it does not show the lever's effect"
receipt fast.json 150
refused_enable fast.json "^  'fast.json': the default path is +50.0% against the witness's baseline, outside the witnessed interval +20.0%..+20.0%"
receipt cand.json 120 '.commands = ["TPS=120 ./bench.sh"]'
refused_enable cand.json "^  'cand.json': its command is \"TPS=120 ./bench.sh\", not the envelope's default command \"TPS=100 ./bench.sh\""
receipt samerev.json 120 '.revision = "r1"'
refused_enable samerev.json "^  'samerev.json': revision r1 is the witness's baseline revision: the default path there does not use the lever"
receipt fallback.json 120 '.execution.fallback_count = 1'
refused_enable fallback.json "^  'fallback.json': execution.fallback_count is 1: the default path fell back"
receipt drift.json 120 '.controls.batch = 2'
refused_enable drift.json "^  'drift.json' against the witness's baseline: "
receipt stale.json 120 '.envelope_state = $b[0].envelope_state'
refused_enable stale.json "^  stale.json: envelope_state: lever \"cpu.fast\" changed since"
receipt quality.json 120 '.quality.score = 0'
refused_enable quality.json "^  'quality.json': quality exact_match 0 misses the criterion's 1$"
receipt other.json 120 '.changed_lever_id = "cpu.base"'
refused_enable other.json "^  'other.json': a receipt of lever \"cpu.base\" in \"test-cpu-p4-t8\", not of lever \"cpu.fast\" in \"test-cpu-p4-t8\"$"
receipt good.json 120
# the witness's manifest must be the one its folder's name proves
cp "wit/$w/MANIFEST.json" saved.json
jq '.fak_version = "9.9.9"' saved.json >"wit/$w/MANIFEST.json"
refused_enable good.json "^  witness $w: its MANIFEST.json is not the one the folder names; run --verify-witnesses$"
cp saved.json "wit/$w/MANIFEST.json"
# the witness is checked against its manifest
cp "wit/$w/comparison.json" saved.json
jq '.decision.interval_percent.upper = 99' saved.json >"wit/$w/comparison.json"
refused_enable good.json "^  witness $w: comparison.json is not what its manifest lists; run --verify-witnesses$"
cp saved.json "wit/$w/comparison.json"

# the graph names a witness of this lever only: not a path elsewhere
cp graph.json graph.saved
jq --arg w "witness test-cpu-p4-t8/cpu.fast/../../../elsewhere" \
	'(.levers[] | select(.id == "cpu.fast") | .witnessed.receipt) = $w' graph.saved >graph.json
refused_enable good.json '^  lever "cpu.fast": its witness test-cpu-p4-t8/cpu.fast/../../../elsewhere is not a folder of its envelope and lever; run --verify-witnesses$'
cp graph.saved graph.json

# the dry run prints the change and writes nothing
before=$(state)
np --enable cpu.fast --default-path good.json --dry-run >dry.txt || fail "dry run"
[ "$(state)" = "$before" ] || fail "the dry run wrote"
expect_grep '^dry run: nothing written. cpu.fast would be enabled with:$' dry.txt
expect_grep '^+      "enabled": true,$' dry.txt

# a kill at any point of the journal: none of it (1-4) or all of it (5-7)
mkdir start && cp -r graph.json index.json wit start/
snap() { (cd "$1" && find . -type f ! -name .fak-promotion.lock | sort | xargs sha256sum); }
rm -rf done && cp -r start done
(cd done && "$FAK" native-performance --graph graph.json --index index.json --witness-root wit \
	--enable cpu.fast --default-path ../good.json >/dev/null) || fail "a whole enable"
pre=$(snap start)
post=$(snap done)
k=1
while [ $k -le 7 ]; do
	rm -rf t$k && cp -r start t$k
	(cd t$k && FAK_PROMOTE_FAULT=$k "$FAK" native-performance --graph graph.json --index index.json \
		--witness-root wit --enable cpu.fast --default-path ../good.json >/dev/null 2>&1)
	rc=$?
	[ $rc = 137 ] || fail "point $k: exit $rc, not killed"
	(cd t$k && "$FAK" native-performance --graph graph.json --next >/dev/null 2>recover.txt) ||
		fail "point $k: the next command failed"
	grep -q "an interrupted promotion was found in '.*' and \(rolled back\|completed\)$" t$k/recover.txt ||
		{ cat t$k/recover.txt; fail "point $k: no recovery"; }
	rm t$k/recover.txt
	if [ $k -le 4 ]; then want=$pre; else want=$post; fi
	[ "$(snap t$k)" = "$want" ] || fail "point $k: not all or nothing"
	k=$((k + 1))
done

# step 6: the lever on, its conflict off, the index row and the provenance say by what
np --enable cpu.fast --default-path good.json >enable.txt 2>err.txt || { cat err.txt; fail "enable"; }
sha=$(sha256sum good.json | cut -d' ' -f1)
expect_grep "^enabled cpu.fast in test-cpu-p4-t8: enabled on the default path (step 6): receipt sha256:$sha, the default command at revision r2 (values typed in, not sealed by fak), +20.0% against the witness's baseline, within the witnessed interval +20.0%..+20.0%$" enable.txt
expect_grep '^  graph    graph.json: cpu.fast enabled, present; conflicting lever turned off: cpu.alt$' enable.txt
expect_equal '[true,"present"]' "$(lever cpu.fast)" "cpu.fast after --enable"
expect_equal '[false,"partial"]' "$(lever cpu.alt)" "cpu.alt after --enable"
jq -e --arg s "$sha" '.levers[] | select(.id == "cpu.fast") | .witnessed.provenance
	| contains("; enabled on the default path (step 6): receipt sha256:" + $s)' graph.json >/dev/null ||
	fail "the provenance does not record the enablement"
jq -e --arg s "$sha" --arg w "witness $w" '.results[] | select(.evidence == $w) | .status
	| endswith("attempt 1 of 1; enabled on the default path (step 6): receipt sha256:" + $s
		+ ", the default command at revision r2 (values typed in, not sealed by fak), +20.0% against the witness'"'"'s baseline, within the witnessed interval +20.0%..+20.0%.")' \
	index.json >/dev/null || { jq .results index.json; fail "the index row does not record the enablement"; }
np --verify-witnesses wit >v.txt 2>&1 || { cat v.txt; fail "--verify-witnesses after --enable"; }
refused_enable good.json '^  lever "cpu.fast" is enabled already$'

# a witnessed null keeps the lever off: nothing to enable (+1% is within the
# criterion's 2% threshold)
rm -rf null && mkdir null && cd null
. "$FIX/experiment/lib.sh"
cp "$ROOT/examples/cpu-decode/index.json" index.json
xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=101 ./bench.sh' --out-dir n >n.out 2>&1 || { cat n.out; fail "null run"; }
[ "$(jq -r .decision.verdict n/comparison.json)" = equivalent ] || fail "the null run: $(jq -r .decision.verdict n/comparison.json)"
promote n >/dev/null 2>err.txt || { cat err.txt; fail "promote the null"; }
"$FAK" native-performance --graph graph.json --baseline cpu.fast >tpl.json || fail "template"
w=$(jq -r '.levers[] | select(.id == "cpu.fast") | .witnessed.receipt | sub("^witness "; "")' graph.json)
receipt nul.json 101
refused_enable nul.json '^  lever "cpu.fast" is witnessed as equivalent, not faster: a witnessed null keeps the lever off; nothing to enable$'
cd ..

# an external witness (the seeds' evidence) names no interval to check against
cp "$ROOT/data/native-performance-graph.json" seed.json
jq '(.levers[] | select(.id == "metal.resident-q4k-weights")) |= (.enabled = false | .status = "partial")
	| (.levers[] | select(.id == "metal.command-buffer-amortization") | .dependency_ids) = []
	| (.levers[] | select(.id == "metal.fused-hybrid-graph-coverage") | .dependency_ids) = []' seed.json >seed2.json
expect_code 1 "$FAK" native-performance --graph seed2.json --index "$ROOT/data/performance-index.json" \
	--witness-root wit --enable metal.resident-q4k-weights --default-path good.json
expect_grep '^  lever "metal.resident-q4k-weights" is witnessed by no witness folder (external evidence): no witnessed interval to check a default path against' err.txt
echo ok
