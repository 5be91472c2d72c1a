#!/bin/sh
# A real Markdown parser must read every generated table as we meant it.
#
# cmark-gfm (Debian package cmark-gfm) parses each page to XML; every table
# cell is read back as plain text and compared with what the rows say,
# computed independently with jq from the same JSON file: which rows are
# shown on the as-of date (observed..review-by, retained ones as HISTORICAL),
# in which lifecycle, and the exact text of every cell. A cell split by an
# unescaped '|', swallowed by emphasis, a link or HTML, or a missing row or
# column fails the comparison. Both markers must parse as HTML blocks (not
# shown), first and last in the document.
set -eu
for tool in cmark-gfm jq awk; do
	command -v "$tool" >/dev/null || { echo "$tool is not installed"; exit 1; }
done

# Table rows as seen by cmark-gfm: one line per row, cells joined by a tab,
# prefixed R (results table) or A (awaiting table); H for header rows.
# Markup nodes other than text, code and strong inside a cell are reported.
cells() {
	cmark-gfm -e table -t xml | awk '
	function unxml(s) {
		gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s)
		gsub(/&amp;/, "\\&", s)
		return s
	}
	/<table>/ { kind = "" }
	/<table_header>/ { row = "H"; ncell = 0; hdr = 1; next }
	/<table_row>/ { row = kind; ncell = 0; hdr = 0; next }
	/<table_cell>/ { cell = ""; incell = 1; next }
	/<\/table_cell>/ {
		incell = 0; ncell++
		row = row "\t" cell
		if (hdr && ncell == 2) kind = (cell == "Envelope key") ? "R" : "A"
		next
	}
	incell && /<(emph|link|image|html_inline|strikethrough|softbreak|linebreak)/ {
		print "MARKUP\t" $0
	}
	incell && /<(text|code) xml:space="preserve">/ {
		s = $0
		sub(/^ *<(text|code) xml:space="preserve">/, "", s)
		sub(/<\/(text|code)>$/, "", s)
		cell = cell unxml(s)
	}
	/<\/table_(header|row)>/ { print row }
	'
}

# The header rows of both tables and, from the JSON, the body rows that must
# be shown on date $2 for index file $1.
expect() {
	jq -r --arg d "$2" '
	def stop: if test("[.!?]$") then . else . + "." end;
	def state: if .observed > $d then "pending"
		elif .review_by == null or $d <= .review_by then "shown"
		elif .at_review == "retain" then "retained" else "reaped" end;
	def lc: if state == "retained" then "HISTORICAL" else .lifecycle end;
	(if [.results[] | select(state == "shown" or state == "retained")] | length > 0 then
		"H\tLifecycle\tEnvelope key\tCurrent accepted highlight\tStatus and comparison\tEvidence and freshness" else empty end),
	(.results[] | select(state == "shown" or state == "retained") |
		["R", lc, .envelope_key, .highlight,
		 (if state == "retained" then .status + " " + .retain_reason else .status end),
		 (.evidence + "; observed " + .observed +
		  (if .review_by == null then "; " + .retention
		   elif state == "retained" then "; reviewed through " + .review_by
		   else "; review by " + .review_by end) | stop)] | join("\t")),
	(if [.awaiting[] | select(state == "shown" or state == "retained")] | length > 0 then
		"H\tLifecycle\tCandidate\tWhy it has not replaced a row\tReap condition" else empty end),
	(.awaiting[] | select(state == "shown" or state == "retained") |
		["A", lc, .candidate, .why,
		 (if state == "retained" then "Reaped at review on " + .review_by + "; " + .retain_reason
		  elif .review_by == null then .reap_condition + "; " + .retention
		  else .reap_condition + "; review by " + .review_by end | stop)] | join("\t"))
	' "$1"
}

fail=0
check() {	# check INDEX DATE [fak options...]
	index=$1
	date=$2
	shift 2
	"$FAK" native-performance --frontdoor-md --as-of "$date" "$@" >page.md
	cells <page.md >got.tsv
	expect "$index" "$date" >want.tsv
	if ! cmp -s want.tsv got.tsv; then
		echo "FAIL tables of $index at $date:"
		diff want.tsv got.tsv | head -20
		fail=1
	fi
	# every table row has as many cells as its header, none empty
	if ! awk -F '\t' '$1 == "H" { n = NF } NF != n || /\t\t/ || /\t$/ { bad = 1 } END { exit bad }' got.tsv; then
		echo "FAIL $index at $date: a row with a missing or empty cell"
		fail=1
	fi
	cmark-gfm -e table -t xml <page.md | awk '
		/^  <[a-z_]+[ >]/ { n++; if (n == 1) first = $0; last = $0 }
		END { exit !(first ~ /^  <html_block/ && last ~ /^  <html_block/) }' || {
		echo "FAIL $index at $date: the markers are not the first and last HTML blocks"
		fail=1
	}
	rows=$(grep -c -v '^H' got.tsv || true)
	echo "ok $(basename "$index") $date: $rows table rows"
}

default="$ROOT/data/performance-index.json"
for d in 2026-06-25 2026-06-26 2026-08-20 2026-08-26 2026-08-27 2026-08-28 2026-09-01 \
	2026-09-02 2026-09-03 2026-09-07 2026-09-08 2026-09-11 2026-09-12 2026-09-17 \
	2026-09-18 "$(date -u +%F)"; do
	check "$default" "$d"
done
for d in 2026-01-01 2026-03-05 2026-03-11 2026-03-21; do
	check "$FIX/index/valid-small.json" "$d" --index "$FIX/index/valid-small.json"
done
check "$FIX/index/valid-hostile-markdown.json" 2026-03-05 --index "$FIX/index/valid-hostile-markdown.json"

# The check itself must be able to fail: a page with an unescaped pipe.
sed 's/Kernel work (#3)/Kernel | work/' "$FIX/index/valid-small.json" >split.json
"$FAK" native-performance --frontdoor-md --as-of 2026-03-05 --index split.json |
	sed 's/Kernel \\| work/Kernel | work/' | cells >got.tsv
expect split.json 2026-03-05 >want.tsv
if cmp -s want.tsv got.tsv; then
	echo "FAIL an unescaped pipe went unnoticed"
	fail=1
fi
exit $fail
