#!/bin/sh
# fak bench system-check on this machine: whatever it finds, every line is
# well formed, the summary counts the lines, the exit status follows the
# disturbing findings, and --json says the same thing as the text.
# A test of the sampler's judgement: it reads the real host on purpose, and
# passes whether that host is quiet or busy.
set -eu
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "syscheck-real: $*" >&2; exit 1; }

rc=0
"$FAK" bench system-check --sample 200ms >"$out/text" 2>"$out/err" || rc=$?
[ "$rc" -le 1 ] || fail "exit status $rc: $(cat "$out/err")"
[ ! -s "$out/err" ] || fail "stderr is not empty: $(cat "$out/err")"
body=$(sed '$d' "$out/text")
n=$(printf '%s\n' "$body" | wc -l)
[ "$n" -ge 11 ] || fail "expected at least 11 findings, got $n"
bad=$(printf '%s\n' "$body" |
	grep -Ev '^(ok      |advice  |unknown |disturbs)  [a-z]+\.[a-z]+ +[^ ]' || true)
[ -z "$bad" ] || fail "malformed finding lines: $bad"
# a fix goes with disturbs and advice, never with ok or unknown
printf '%s\n' "$body" | grep -E '^(ok|unknown) ' | grep -q '; fix: ' &&
	fail "an ok or unknown finding carries a fix"
printf '%s\n' "$body" | grep -E '^(disturbs|advice) ' | grep -vq '; fix: ' &&
	fail "a disturbs or advice finding has no fix"
for s in disturbs advice ok unknown; do
	eval "c_$s=\$(printf '%s\n' \"\$body\" | grep -c \"^$s \" || true)"
done
want="$c_disturbs disturb, $c_advice advice, $c_ok ok, $c_unknown unknown"
[ "$c_disturbs" = 1 ] && want="1 disturbs, $c_advice advice, $c_ok ok, $c_unknown unknown"
last=$(tail -n 1 "$out/text")
[ "$last" = "$want" ] || fail "summary '$last', counted '$want'"
if [ "$c_disturbs" -gt 0 ]; then [ "$rc" = 1 ] || fail "disturbs but exit $rc"; else
	[ "$rc" = 0 ] || fail "nothing disturbs but exit $rc"; fi

# the JSON document: same names in the same order, a schema, a count
rc2=0
"$FAK" bench system-check --sample 200ms --json >"$out/json" || rc2=$?
[ "$rc2" -le 1 ] || fail "--json exit status $rc2"
jq -e '.schema == "fak.system-check/v1" and (.disturbing | type) == "number"
	and ([.findings[] | select(.status == "disturbs")] | length) == .disturbing
	and all(.findings[]; (.status | IN("ok", "advice", "unknown", "disturbs"))
		and (.detail | length) > 0
		and ((.fix == null) == (.status == "ok" or .status == "unknown")))' \
	"$out/json" >/dev/null || fail "the JSON document is malformed: $(cat "$out/json")"
[ "$(jq -r '.findings[].name' "$out/json")" = "$(printf '%s\n' "$body" | awk '{print $2}')" ] ||
	fail "the JSON findings differ from the text"
echo "syscheck-real: $n findings, exit $rc"
