# On a terminal, fak bench experiment shows where it is (arm, run i/n, tok/s,
# elapsed, time left); on a pipe it prints nothing on stderr (see
# experiment-e2e).
set -eu
. "$FIX/experiment/lib.sh"
script -qec "$FAK bench experiment cpu.fast --graph graph.json --artifact model.bin --revision r1 \
	--module bench@1 --profile-artifact profile.txt --machine-id-file machine-id --baseline-duration 200ms \
	--interval 50ms --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir run >/dev/null" \
	typescript >/dev/null
grep -q "\[1/8\] baseline warm-up 1: quiet window" typescript
grep -q "\[5/8\] candidate repetition 2  120 tok/s  [a-z]*  elapsed [0-9]*:[0-9][0-9]  about [0-9]*:[0-9][0-9] left" typescript
grep -q "\[8/8\] candidate repetition 3  120 tok/s  [a-z]*  elapsed [0-9]*:[0-9][0-9]  about 0:00 left" typescript
