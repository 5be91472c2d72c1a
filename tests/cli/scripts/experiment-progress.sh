# fak bench experiment shows where it is (arm, run i/n, tok/s, elapsed, time
# left). --progress auto (the default): on a terminal a live line, redrawn
# during each quiet window; elsewhere (CI, nohup, a pipe) one plain line per
# run, without escapes. --progress always draws the live line anywhere;
# --progress never prints nothing.
set -eu
. "$FIX/experiment/lib.sh"
line5='\[5/8\] candidate repetition 2  120 tok/s  [a-z]*  elapsed [0-9]*:[0-9][0-9]  about [0-9]*:[0-9][0-9] left'
line8='\[8/8\] candidate repetition 3  120 tok/s  [a-z]*  elapsed [0-9]*:[0-9][0-9]  about 0:00 left'
script -qec "$FAK bench experiment cpu.fast --graph graph.json --artifact model.bin --revision r1 \
	--module bench@1 --profile-artifact profile.txt --machine-id-file machine-id --baseline-duration 200ms \
	--interval 50ms --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir run >/dev/null" \
	typescript >/dev/null
grep -q "\[1/8\] baseline warm-up 1: quiet window" typescript
grep -q "$line5" typescript
grep -q "$line8" typescript

# a pipe: one plain line per run, in order, nothing else
xp_progress=auto
xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir plain >out.txt 2>err.txt ||
	{ cat err.txt; fail "auto on a pipe: exit $?"; }
expect_equal 8 "$(wc -l <err.txt | tr -d ' ')" "auto on a pipe: one line per run"
expect_no_grep "$(printf '\033')" err.txt "auto on a pipe: an escape sequence"
expect_no_grep "$(printf '\r')" err.txt "auto on a pipe: a carriage return"
expect_no_grep 'quiet window' err.txt "auto on a pipe: a quiet window's tick"
expect_grep "^\[1/8\] baseline warm-up 1  100 tok/s  [a-z]*  elapsed" err.txt
expect_grep "^$line5\$" err.txt
expect_grep "^$line8\$" err.txt
expect_equal "1 2 3 4 5 6 7 8" "$(sed 's|^\[\([0-9]\)/8\].*|\1|' err.txt | tr '\n' ' ' | sed 's/ $//')" \
	"auto on a pipe: the runs in order"

# always: the live line even on a pipe
xp_progress=always
xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir live >out.txt 2>err.txt ||
	{ cat err.txt; fail "always: exit $?"; }
expect_grep "$(printf '\r\033')\[K\[1/8\] baseline warm-up 1: quiet window" err.txt
expect_grep "$line8" err.txt

# never: nothing
xp_progress=never
xp --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir quiet >out.txt 2>err.txt ||
	{ cat err.txt; fail "never: exit $?"; }
[ ! -s err.txt ] || { cat err.txt; fail "--progress never printed on stderr"; }

# anything else is a usage error, before anything runs
xp_progress=sometimes
expect_code 2 xp --baseline ./bench.sh --candidate ./bench.sh --out-dir bad
expect_grep '^fak bench experiment: --progress must be auto, always or never$' err.txt
[ ! -e bad ] || fail "a usage error created the out dir"
