# The runs chart shows the decision it was drawn for (issue 27, item 4): the
# comparison's verdict with its interval and, in an experiment's folder, the
# gate's class (a chart once said "~" while the gate said regression); a
# chart of --compare alone says "gate: not run". An A/A is titled A/A (a
# calibration), never A/B. The tok/s axis never runs below zero, even when
# one arm is 25 times slower than the other. Every chart passes the label
# geometry check (tests/tools/svg_geometry.py).
set -u
. "$FIX/experiment/lib.sh"
for tool in python3 rsvg-convert; do
	command -v "$tool" >/dev/null || fail "$tool is not installed"
done
# texts FILE: the chart's texts, one a line, as a consumer reads them (a cut
# text shows what follows its <title>)
texts() {
	python3 - "$1" <<'EOF'
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
for t in ET.parse(sys.argv[1]).getroot().iter(NS + "text"):
    title = t.find(NS + "title")
    print((title.tail if title is not None else t.text) or "", t.get("class") or "", sep="\t")
EOF
}
# ticks FILE: the labels of the runs panel's tok/s axis (end-anchored left of it)
ticks() {
	sed -n 's/^<text x="78.0" y="[0-9.]*" class="small" text-anchor="end">\(.*\)<\/text>$/\1/p' "$1"
}

# 1. a regression: the candidate 25 times slower
xp --baseline 'TPS=1000 ./bench.sh' --candidate 'TPS=40 ./bench.sh' --out-dir slow >slow.txt 2>&1 ||
	true
[ -f slow/chart.svg ] || { cat slow.txt; fail "slow: no chart"; }
expect_equal regression "$(jq -r .classification slow/gate.json)" "slow: the gate's class"
texts slow/chart.svg >slow.texts
expect_grep "^decision: slower	verdict$" slow.texts "slow: the decision"
iv=$(jq -r '.decision | "\(.interval_percent.lower) \(.interval_percent.upper)"' slow/comparison.json |
	awk '{ printf "\\[%+.1f%%, %+.1f%%\\]", $1, $2 }')
expect_grep "^-96.0% $iv at 90%	$" slow.texts "slow: the decision's interval"
expect_grep "^gate: regression	verdict gate-regression$" slow.texts "slow: the gate's class"
ticks slow/chart.svg >slow.ticks
[ -s slow.ticks ] || { cat slow/chart.svg; fail "slow: no axis"; }
awk '$1 < 0 { print "tick " $1 " is below zero"; bad = 1 } END { exit bad }' slow.ticks ||
	fail "slow: the tok/s axis runs below zero"
expect_equal 0 "$(head -1 slow.ticks)" "slow: the axis starts at zero"

# 2. an A/A: the same command in both arms
xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=100 ./bench.sh' --out-dir aa >aa.txt 2>&1 ||
	{ cat aa.txt; fail "aa: the experiment failed"; }
texts aa/chart.svg >aa.texts
expect_grep '^A/A · cpu.fast · calibration, not a witness	title$' aa.texts "aa: the title"
expect_grep '^<title>A/A of cpu.fast on test-cpu-p4-t8 (A/A: calibration, not a witness)</title>$' \
	aa/chart.svg "aa: the document's title"
expect_no_grep 'A/B' aa/chart.svg "aa: an A/A titled A/B"
expect_grep "^gate: pass	verdict gate-pass$" aa.texts "aa: the gate's class"
expect_grep "^decision: equivalent	verdict$" aa.texts "aa: the decision"

# 3. --compare alone: the same receipts, no gate ran
"$FAK" native-performance --graph graph.json --compare aa/baseline.json --candidate aa/candidate.json \
	--chart aa-compare.svg >/dev/null || fail "aa: --compare --chart"
texts aa-compare.svg >aac.texts
expect_grep '^A/A · cpu.fast · calibration, not a witness	title$' aac.texts "aa --compare: the title"
expect_grep "^gate: not run	verdict$" aac.texts "aa --compare: the gate"
"$FAK" native-performance --graph graph.json --compare slow/baseline.json \
	--candidate slow/candidate.json --chart slow-compare.svg >/dev/null || fail "slow: --compare --chart"
texts slow-compare.svg >sc.texts
expect_grep '^A/B · cpu.fast	title$' sc.texts "slow --compare: the title"
expect_grep "^gate: not run	verdict$" sc.texts "slow --compare: the gate"
expect_grep "^decision: slower	verdict$" sc.texts "slow --compare: the decision"

# every chart renders and no label overlaps
for f in slow/chart.svg aa/chart.svg aa-compare.svg slow-compare.svg; do
	rsvg-convert -o chart.png "$f" || fail "$f: rsvg-convert refused it"
done
python3 "$ROOT/tests/tools/svg_geometry.py" slow/chart.svg aa/chart.svg aa-compare.svg \
	slow-compare.svg || fail "labels overlap"
echo ok
