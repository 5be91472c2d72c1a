# Labels without overlap (issue 27, item 4), checked geometrically by
# tests/tools/svg_geometry.py (label boxes from font size and text length):
# no label of a chart overlaps another, a plotted point, or a criterion floor
# or comparison line, and none leaves the chart; on the committed fixtures'
# runs charts, the committed, example and hostile climb charts, and the two
# layouts that used to overlap: a panel without rungs whose note lay across
# a low floor line, and rung labels the floor and comparison lines crossed.
# The climb chart draws every witnessed value: a lever whose witness states
# its medians (fak's promotion writes them) gets a point on its panel's
# axis, which grows to hold it, however far past the seeded comparison point.
set -u
. "$ROOT/tests/lib.sh"
geo="$ROOT/tests/tools/svg_geometry.py"
ex="$ROOT/examples/cpu-decode/graph.json"
command -v python3 >/dev/null || fail "python3 is not installed"

# the checker finds what it is for: a label across a point, a label, a floor line
cat >bad.svg <<'EOF'
<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100">
<text x="10.0" y="20.0">a label</text>
<text x="30.0" y="22.0" class="small">another</text>
<circle cx="40.0" cy="50.0" r="5.0" class="base"/>
<text x="36.0" y="54.0" class="small">on a point</text>
<line x1="150.0" y1="60.0" x2="150.0" y2="99.0" class="floor"/>
<text x="140.0" y="80.0" class="small">crossed by the floor</text>
</svg>
EOF
python3 "$geo" bad.svg >bad.txt && fail "the checker passed overlapping labels"
expect_grep "^bad.svg: label 'a label' overlaps label 'another'$" bad.txt
expect_grep "^bad.svg: label 'on a point' overlaps a point base at 35.0,45.0$" bad.txt
expect_grep "^bad.svg: label 'crossed by the floor' overlaps a floor line at 149.2,60.0$" bad.txt
expect_grep "^bad.svg: label 'crossed by the floor' (140.0,71.2..266.5,82.2) leaves the chart$" \
	bad.txt

# runs charts of the committed comparisons
np() { "$FAK" native-performance "$@" >/dev/null || fail "native-performance $*"; }
np --compare "$FIX/receipts/metal-baseline-attested.json" \
	--candidate "$FIX/receipts/metal-candidate-attested.json" --chart metal.svg
np --graph "$FIX/reports/hostile-graph.json" --compare "$FIX/reports/hostile-baseline.json" \
	--candidate "$FIX/reports/hostile-candidate.json" --chart hostile-runs.svg
np --graph "$FIX/reports/xp-graph.json" --compare "$FIX/reports/xp-baseline.json" \
	--candidate "$FIX/reports/xp-candidate.json" --chart xp.svg

# climb charts: committed, example, hostile
np --chart climb --out committed.svg
np --graph "$ex" --chart climb --out example.svg
np --graph "$FIX/reports/hostile-graph.json" --chart climb --out hostile-climb.svg
# no rungs, a floor of 1 tok/s under a comparison point of 25.9: the note
# once lay across the floor line
jq '.rungs = [] | .features = []' "$ex" >no-rungs.json
np --graph no-rungs.json --chart climb --out no-rungs.svg
# a lever witnessed by a promotion at 200 tok/s, far past the comparison
# point (25.9) and the rungs' roofs: the axis set by them ended at 28
jq '.levers[0].witnessed = { "summary": "faster: median 100 -> 200 tok/s (+100.0%, 90% interval +99.0%..+101.0%, n=3+3); gate pass, observed 2026-12-02",
	"classification": "witnessed", "provenance": "fak bench experiment (sealed metrics)",
	"receipt": "witness:cpu-decode/cpu.q8-scalar-matvec/1" }' "$ex" >witnessed.json
np --graph witnessed.json --chart climb --out witnessed.svg

python3 "$geo" metal.svg hostile-runs.svg xp.svg committed.svg example.svg hostile-climb.svg \
	no-rungs.svg witnessed.svg || fail "labels overlap"

# the witnessed lever: a row on the axis, its diamond at 200 tok/s on it
python3 - witnessed.svg <<'EOF' || fail "the witnessed value is not drawn on the axis"
import re, sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
texts = [(t.text or "", t) for t in root.iter(NS + "text")]
# the axis: its tick labels (numbers centred above the panel's plot)
ticks = [(float(t.get("x")), float(s)) for s, t in texts
         if t.get("text-anchor") == "middle" and re.fullmatch(r"[0-9.]+", s)]
(x0, v0), (x1, v1) = ticks[0], ticks[-1]
assert v1 >= 200, "the axis ends at %g, before the witnessed 200 tok/s" % v1
want = x0 + (200 - v0) / (v1 - v0) * (x1 - x0)
label = [t for s, t in texts if s == "witnessed 200 tok/s (median; baseline 100)"]
assert label, "no label for the witnessed value"
diamonds = [p for p in root.iter(NS + "polygon") if p.get("class") == "witness"
            and abs(float(p.get("points").split()[0].split(",")[0]) - want) < 0.1]
assert diamonds, "no witnessed point at x=%.1f (200 tok/s)" % want
assert any(s == "cpu.q8-scalar-matvec" and t.get("class") == "id" for s, t in texts[:40]), \
    "the lever's row on the axis has no id"
EOF
echo ok
