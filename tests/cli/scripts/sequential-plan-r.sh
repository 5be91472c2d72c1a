# The looks fak plans for --until-decisive (stats_plan_looks) equal those of
# the R oracle's own implementation of the rule (Rscript bench/sequential.R
# --plan R N): an experiment whose every look is undecided records them all,
# with their repetitions and levels. Two plans: 3 up to 12 drops the look at
# 3 (3 + 3 values cannot reach 97.5%), 5 up to 24 keeps all four looks.
# fak-test: slow once
set -eu
. "$FIX/experiment/lib.sh"
command -v Rscript >/dev/null || { echo "missing Rscript: apt-get install r-base-core"; exit 1; }
cp "$FIX/decision/listbench.sh" .
cp graph.json graph.orig
# 24 distinct values per arm around 1000 tok/s, the arms interleaved; with a
# practical threshold of 0 no interval of them is faster, slower or equivalent
list() {
	awk -v a="$1" -v m="$2" 'BEGIN {
		for (i = 1; i <= 24; i++) printf "%.2f\n", a + (i * m % 100) / 10 }'
}
list 1000 37 >flat.baseline
list 1000.05 53 >flat.candidate
for plan in "3 12" "5 24"; do
	set -- $plan
	jq --argjson r "$1" '.envelopes[0].repetitions = $r | .envelope.repetitions = $r
		| .criteria[].practical_threshold_percent = 0' graph.orig >graph.json
	xp --baseline "./listbench.sh flat" --candidate "./listbench.sh flat --unused" \
		--until-decisive --max-repetitions "$2" --out-dir "x$1" >"x$1.out" 2>&1 ||
		{ cat "x$1.out"; fail "experiment $plan"; }
	jq -r '.experiment.sequential.looks[] | "\(.repetitions) \(.level) \(.verdict)"' \
		"x$1/candidate.json" >fak.txt
	! grep -v ' undecided$' fak.txt || fail "plan $plan: a decided look stopped the experiment"
	Rscript --vanilla "$ROOT/bench/sequential.R" --plan "$1" "$2" >r.txt || fail "R plan $plan"
	# the same looks, the same repetitions, levels equal within 1e-12
	awk 'NR == FNR { n[FNR] = $1; l[FNR] = $2; nr = FNR; next }
		{ k++; if (k > nr || $1 != n[k] || ($2 - l[k]) ^ 2 > 1e-24) bad = 1 }
		END { exit bad || k != nr }' r.txt fak.txt ||
		fail "plan $plan: fak looks at $(tr '\n' ' ' <fak.txt), R at $(tr '\n' ' ' <r.txt)"
done
