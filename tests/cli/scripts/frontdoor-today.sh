#!/bin/sh
# Without --as-of the page is built for today's date in UTC, and today every
# review window of the committed rows (the last one: 2026-09-17) has passed:
# the page says so instead of presenting stale rows as current.
set -eu
for try in 1 2; do
	day=$(date -u +%F)
	"$FAK" native-performance --frontdoor-md >default.md
	"$FAK" native-performance --frontdoor-md --as-of "$day" >dated.md
	[ "$(date -u +%F)" = "$day" ] && break	# retry once across midnight
done
cmp default.md dated.md
echo "ok: the default as-of date is $day (UTC)"

[ "$(echo "$day" | tr -d -)" -gt 20260917 ] || { echo "the clock reads $day, before 2026-09-18"; exit 1; }
grep -qx '\*\*No CURRENT row remains in active presentation:\*\* every CURRENT row passed its review date without a promoted or renewed receipt.' default.md
grep -qx '\*\*No candidate remains awaiting remeasurement:\*\* every AWAITING REMEASURE entry passed its review date without a renewed reason to retain it.' default.md
grep -qx '_13 reviewed row(s) are reaped from active presentation; immutable witnesses remain._' default.md
if grep -q '^| \*\*\(CURRENT\|DIAGNOSTIC\|AWAITING REMEASURE\)\*\*' default.md; then
	echo "an active row is still presented:"
	grep '^| \*\*\(CURRENT\|DIAGNOSTIC\|AWAITING REMEASURE\)\*\*' default.md
	exit 1
fi
[ "$(grep -c '^| \*\*HISTORICAL\*\*' default.md)" = 4 ]
echo "ok: every review window has passed; 4 HISTORICAL rows remain as dated evidence"

# --write-doc and --check-doc use the same default date
printf 'notes\n<!-- qwen38-frontdoor:begin -->\n<!-- qwen38-frontdoor:end -->\n' >doc.md
"$FAK" native-performance --frontdoor-md --write-doc doc.md
"$FAK" native-performance --frontdoor-md --check-doc doc.md
echo "ok: a document written today checks fresh today"
