# A run whose command exits leaving processes behind: the sampler kills them
# and its attestation counts them; the experiment's summary says so, with
# how many per run, their names and the command that left them (text, md
# and json); a summary without leftovers has no such line (the goldens).
set -eu
. "$FIX/experiment/lib.sh"
cat >leave.sh <<'SH'
#!/bin/sh
sleep 60 &
sleep 0.2
exec ./bench.sh
SH
chmod +x leave.sh
expect_code 0 xp --baseline ./bench.sh --candidate ./leave.sh --out-dir run
tr -s ' \n' '  ' <out.txt >flat.txt
expect_grep "leftovers 4 processes were still running when their command exited, killed: candidate warm-up 1: 1 (sleep); candidate repetition 1: 1 (sleep); candidate repetition 2: 1 (sleep); candidate repetition 3: 1 (sleep); left by --candidate './leave.sh'; a benchmark should wait for what it starts written" flat.txt
for f in run/attestations/*.json; do
	case $f in *candidate*) n=1 ;; *) n=0 ;; esac
	jq -e --argjson n $n '.coverage.descendants_killed_after_root_exit == $n' "$f" >/dev/null ||
		fail "$f: not $n leftover sealed"
done
expect_code 0 xp --baseline ./leave.sh --candidate ./bench.sh --out-dir json --format json
jq -e '.leftovers.killed == 4 and (.leftovers.runs | map(.run)) ==
	["baseline-warmup-1", "baseline-1", "baseline-2", "baseline-3"]
	and all(.leftovers.runs[]; .killed == 1 and .processes == "sleep")
	and (.leftovers.text | test("; left by --baseline .[.]/leave[.]sh.; a benchmark"))' out.txt >/dev/null ||
	{ jq .leftovers out.txt; fail "json summary: leftovers"; }
expect_code 0 xp --baseline ./bench.sh --candidate ./leave.sh --out-dir md --format md
expect_grep '^\*\*Leftovers:\*\* 4 processes were still running' out.txt
