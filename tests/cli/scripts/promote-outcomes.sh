# What a promotion says when it does not run straight through: a SIGTERM
# while staging (nothing changed; the next command rolls back) or after the
# commit point (the next command completes it), and a step that fails after
# the commit point (promoted, exit 0, what was left said on stderr). Needs
# one passing run, on a busy host too (tests/fixtures/experiment/promote.sh).
# fak-test: slow
set -u
. "$FIX/experiment/lib.sh"
. "$FIX/experiment/promote.sh"
cp "$ROOT/examples/cpu-decode/index.json" index.json
cp graph.json graph.orig
pass_run good
# graph, index, witness root and staged files (the lock file stays by design)
files() { find graph.json index.json wit -type f 2>/dev/null | sort | xargs sha256sum 2>/dev/null; ls -a . | grep -c '^\.fak-promote-'; }

stopped() {	# stopped STEP MESSAGE OUTCOME: SIGTERM at STEP, the message, the next command's OUTCOME
	FAK_PROMOTE_FAULT=stop:$1 promote good >out.txt 2>err.txt
	[ $? = 143 ] || fail "stop at $1: exit status"
	grep -q "^fak native-performance: promote: interrupted $2\$" err.txt || { cat err.txt; fail "stop at $1: message"; }
	"$FAK" native-performance --graph graph.json --next >/dev/null 2>next.txt
	grep -q "an interrupted promotion was found in '.*' and $3\$" next.txt || { cat next.txt; fail "stop at $1: not $3"; }
}
# SIGTERM while staging: says so, and the next command rolls back
before=$(files)
stopped 2 'while staging; nothing visible changed: the next fak command rolls the promotion back (removes the staged files)' 'rolled back'
[ "$(files)" = "$before" ] || fail "stop while staging: something changed"

# SIGTERM after the commit point: says so, and the next command completes it
stopped 6 'after the commit point; the promotion happens: the next fak command completes it' completed
jq -e '.levers[] | select(.id == "cpu.fast") | .witnessed' graph.json >/dev/null || fail "stop after commit: not promoted"
"$FAK" native-performance --graph graph.json --index index.json --verify-witnesses wit >/dev/null || fail "witness"

# a step that fails after the commit point: promoted, exit 0, said on stderr
cp graph.orig graph.json
cp "$ROOT/examples/cpu-decode/index.json" index.json
rm -rf wit/test-cpu-p4-t8	# the witness, not the attempt ledger
FAK_PROMOTE_FAULT=fail:7 promote good >out.txt 2>err.txt || { cat err.txt; fail "fail after commit: exit status"; }
grep -q '^promoted cpu.fast in test-cpu-p4-t8: ' out.txt || { cat out.txt; fail "fail after commit: stdout"; }
grep -q '^fak native-performance: promote: promoted, but a step after the commit point failed (step 7 of the promotion (a test fault): Invalid cross-device link); fak completed it at once: nothing is left to clean$' err.txt ||
	{ cat err.txt; fail "fail after commit: message"; }
"$FAK" native-performance --graph graph.json --index index.json --verify-witnesses wit >/dev/null || fail "witness after fail"
echo ok
