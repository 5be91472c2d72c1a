# Real consumers read every report: cmark-gfm parses each Markdown table cell
# by cell, Python's csv module reads each CSV back, xmllint parses and
# rsvg-convert renders each chart; every value is compared with the JSON
# documents, receipts and graph it stands for (tests/tools/report_check.py),
# on the committed fixtures, the hostile-text ones and a run of the runner.
set -u
for tool in cmark-gfm xmllint rsvg-convert python3 jq; do
	command -v "$tool" >/dev/null || { echo "$tool is not installed"; exit 1; }
done
. "$FIX/experiment/lib.sh"
busy_host_flags=$busy_host_flags python3 "$ROOT/tests/tools/report_check.py"
