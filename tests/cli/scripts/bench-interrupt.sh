# SIGTERM/SIGINT to fak: forwarded to the command, which exits; then fak
# writes nothing (no --out file, nothing on stdout) and exits 128+N. An
# interrupt during the quiet window never starts the command. A command
# that ignores the forwarded signal is killed by a second one. Every
# command here ends by itself within 10 s, whatever happens to fak.
set -u
# Background jobs of a script ignore SIGINT: start fak with it restored.
# exec keeps $! the PID of fak itself.
run() { exec /usr/bin/python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' "$@"; }
await() { i=0; while [ ! -e "$1" ]; do sleep 0.05; i=$((i + 1)); [ $i -lt 200 ] || { echo "no $1"; exit 1; }; done; }
# wait for $1 at most 20 s
reap() { ( sleep 20; kill -KILL "$1" 2>/dev/null ) & w=$!; wait "$1"; rc=$?; kill "$w" 2>/dev/null; return $rc; }
LOOP='i=0; while [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done'

run $FAK bench system-baseline --baseline-duration 50ms --interval 20ms --out a.json \
	-- sh -c "trap 'echo forwarded >term.txt; exit 3' TERM; touch started; $LOOP" >out.txt 2>err.txt &
pid=$!
await started
kill -TERM $pid
reap $pid
rc=$?
[ $rc = 143 ] || { echo "SIGTERM: exit $rc"; cat err.txt; exit 1; }
grep -qx forwarded term.txt || { echo "SIGTERM was not forwarded"; exit 1; }
[ ! -s out.txt ] || { echo "stdout not empty"; exit 1; }
[ -z "$(ls -a | grep '^a\.json')" ] || { echo "partial --out file"; ls -a; exit 1; }
grep -qx "fak bench system-baseline: interrupted by Terminated; no attestation written" err.txt || { cat err.txt; exit 1; }

run $FAK bench system-baseline --baseline-duration 20s --out b.json -- touch ran.txt >out2.txt 2>err2.txt &
pid=$!
sleep 0.5
kill -INT $pid
reap $pid
rc=$?
[ $rc = 130 ] || { echo "SIGINT: exit $rc"; exit 1; }
[ ! -e ran.txt ] || { echo "the command ran after an interrupt in the quiet window"; exit 1; }
[ ! -e b.json ] && [ ! -s out2.txt ] || { echo "output after SIGINT"; exit 1; }
grep -qx "fak bench system-baseline: interrupted by Interrupt; no attestation written" err2.txt || { cat err2.txt; exit 1; }

run $FAK bench system-baseline --baseline-duration 20ms --interval 20ms \
	-- sh -c "trap '' TERM; touch started2; $LOOP" >out3.txt 2>err3.txt &
pid=$!
await started2
kill -TERM $pid
sleep 0.3
kill -TERM $pid
reap $pid
rc=$?
[ $rc = 143 ] || { echo "second SIGTERM: exit $rc"; exit 1; }
[ ! -s out3.txt ] || exit 1
