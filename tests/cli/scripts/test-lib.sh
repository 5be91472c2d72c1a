# tests/lib.sh itself: each helper passes and fails when it should and says
# why, at_exit runs its commands last-first and keeps the exit status,
# test_tmp's folder is removed, and a script's own fail() survives the
# library whether it was defined before or after sourcing it,
# quiet_host's fake /proc makes a clean attestation, and serve_stub's
# server answers and is stopped at exit.
set -u
lib=$ROOT/tests/lib.sh
die() { echo "FAIL: $*"; exit 1; }
# t SCRIPT: run a script that sources the library; its stdout is in t.out
t() { sh -c ". \"$lib\"; $1" >t.out 2>&1; }

t 'fail "the reason"; echo not reached' && die "fail did not exit non-zero"
[ "$(cat t.out)" = "FAIL: the reason" ] || die "fail printed: $(cat t.out)"
t 'expect_equal a a what; echo fine' || die "expect_equal a a failed"
[ "$(cat t.out)" = fine ] || die "expect_equal a a printed: $(cat t.out)"
t 'expect_equal a b "the thing"' && die "expect_equal a b passed"
[ "$(cat t.out)" = "$(printf 'want: a\ngot:  b\nFAIL: the thing')" ] || die "expect_equal printed: $(cat t.out)"

printf 'one\ntwo\n' >f1
printf 'one\ntwo\n' >f2
printf 'one\nthree\n' >f3
t 'expect_file f1 f2' || die "expect_file on equal files failed"
t 'expect_file f1 f3' && die "expect_file on different files passed"
grep -q '^+three$' t.out && grep -q '^FAIL: f3 differs from f1$' t.out || die "expect_file printed: $(cat t.out)"
t 'expect_grep "^tw" f1' || die "expect_grep did not find ^tw"
t 'expect_grep "^three" f1 "no three"' && die "expect_grep found what is not there"
tail -1 t.out | grep -qx 'FAIL: no three' || die "expect_grep printed: $(cat t.out)"
t 'expect_no_grep "^three" f1' || die "expect_no_grep failed on a missing line"
t 'expect_no_grep "^one" f1' && die "expect_no_grep passed on a present line"

t 'expect_code 3 sh -c "echo o; echo e >&2; exit 3"' || die "expect_code 3 on exit 3 failed"
[ "$(cat out.txt)" = o ] && [ "$(cat err.txt)" = e ] || die "expect_code did not keep the output"
t 'expect_code 0 sh -c "echo why >&2; exit 2"' && die "expect_code 0 on exit 2 passed"
grep -q '^why$' t.out && grep -q '^FAIL: exit 2, want 0: sh -c' t.out || die "expect_code printed: $(cat t.out)"
t 'expect_failure false' || die "expect_failure false failed"
t 'expect_failure true' && die "expect_failure true passed"

# at_exit: last registered first, the status kept, test_tmp removed
t 'at_exit "echo first"; at_exit "echo second"; test_tmp; echo "$TEST_TMP" >tmp.path; \
	[ -d "$TEST_TMP" ] || exit 9; exit 7'
rc=$?
[ $rc = 7 ] || die "at_exit changed the exit status to $rc"
[ "$(cat t.out)" = "$(printf 'second\nfirst')" ] || die "at_exit printed: $(cat t.out)"
[ -s tmp.path ] && [ ! -e "$(cat tmp.path)" ] || die "test_tmp's folder was not removed"
t 'at_exit "echo bye"; fail "early"'
[ $? = 1 ] && [ "$(cat t.out)" = "$(printf 'FAIL: early\nbye')" ] || die "at_exit after fail: $(cat t.out)"
sh -c "set -e; . \"$lib\"; at_exit false; at_exit 'echo still'; exit 0" >t.out 2>&1
[ $? = 0 ] && [ "$(cat t.out)" = still ] || die "under set -e, a failing clean-up changed the status or stopped the rest"

# a script's own fail(), defined before or after sourcing, is the one used
sh -c "fail() { echo mine; exit 4; }; . \"$lib\"; fail x" >t.out 2>&1
[ $? = 4 ] && [ "$(cat t.out)" = mine ] || die "a fail() defined before sourcing was replaced"
sh -c ". \"$lib\"; fail() { echo mine; exit 4; }; fail x" >t.out 2>&1
[ $? = 4 ] && [ "$(cat t.out)" = mine ] || die "a fail() defined after sourcing was not used"
# sourcing changes no shell option
[ "$(sh -c ". \"$lib\"; echo \$-")" = "$(sh -c 'echo $-')" ] || die "sourcing changed shell options"
sh -c "set -eu; . \"$lib\"; expect_equal x x y" || die "the library fails under set -eu"

# quiet_host: fak's sampler judges the fake host quiet whatever the real
# one does; the writer and its folder are gone once the script exits
sh -c "set -eu; . \"$lib\"; quiet_host; echo \$FAK_PROC_ROOT >root.path; \
	\"\$FAK\" bench system-baseline --baseline-duration 50ms --interval 10ms -- sleep 0.1 >att.json" ||
	die "quiet_host: system-baseline failed"
root=$(cat root.path)
[ -n "$root" ] && [ ! -e "$root" ] || die "quiet_host: '$root' was not removed"
jq -e '.verdict == "clean" and .findings == [] and .baseline_host_totals.cpu_percent.available
	and .host_totals.cpu_percent.available' att.json >/dev/null ||
	die "quiet_host: the attestation is not clean: $(jq -c '[.verdict, .findings]' att.json)"
# serve_stub: the stub answers on its port while the script runs and is
# gone once it exits
sh -c ". \"$lib\"; serve_stub s; echo \$STUB_PORT \$STUB_PID >stub.txt; python3 -c '
import sys, urllib.request
print(urllib.request.urlopen(\"http://127.0.0.1:%s/health\" % sys.argv[1]).status)' \$STUB_PORT; true" \
	>stub.out 2>&1 || die "serve_stub: $(cat stub.out)"
[ "$(cat stub.out)" = 200 ] || die "serve_stub: /health said $(cat stub.out)"
read -r _ pid <stub.txt
sleep 0.2
# gone, or a zombie its new parent has not reaped yet
state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1)
[ -z "$state" ] || [ "$state" = Z ] || die "serve_stub: the stub (pid $pid) outlived the script"
echo ok
