# --wait-quiet end to end. A burner keeps the host busy for 2 s, then
# stops; with --wait-quiet the busy quiet windows are rejected, the command
# starts after the burner stopped, every rejected window is sealed and the
# evidence is clean; without the option the same set-up investigates.
#
# The host this test runs on is shared and may be busy for reasons of its
# own, so for the "clean after the burner" half the burner is simulated
# where fak reads host CPU: FAK_PROC_ROOT points at a tree of links to the
# real /proc in which only "stat" is a file of our own, whose busy ticks
# climb while the burner runs and whose idle ticks climb after. Everything
# else fak reads (the command's cgroup, its children, wait4) is real.
# `fak bench experiment` refuses FAK_PROC_ROOT (it measures this machine),
# so it runs next to real burners: busy is busy on any machine, and it
# must investigate without the option and seal its waits with it.
# A test of the sampler's judgement of a quiet host: it reads the real host
# on purpose, and passes on a busy one (burners or not, busy is busy).
# fak-test: slow
set -u
. "$FIX/experiment/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }

proc=$PWD/proc
mkdir "$proc"
for e in /proc/*; do
	[ "${e##*/}" = stat ] || ln -s "$e" "$proc/${e##*/}"
done

# burner STATE_FILE SECONDS: rewrite proc/stat in place every 20 ms (same
# inode, same length: fak keeps it open), busy for SECONDS, then idle; the
# time just before its last busy write goes to STATE_FILE.
burner() {
	busy=0 idle=0 i=0 steps=$(($2 * 50))
	while [ -e "$proc/run" ]; do
		if [ $i -lt $steps ]; then busy=$((busy + 4)); else idle=$((idle + 4)); fi
		[ $i = $((steps - 1)) ] && date -u +%Y-%m-%dT%H:%M:%S.%NZ >"$1"
		printf 'cpu  %012d 0 0 %012d 0 0 0 0 0 0\n' $busy $idle 1<>"$proc/stat"
		i=$((i + 1))
		sleep 0.02
	done
}
start_burner() {
	touch "$proc/run"
	printf 'cpu  %012d 0 0 %012d 0 0 0 0 0 0\n' 0 0 >"$proc/stat"
	rm -f "$1"
	burner "$1" 2 &
	bpid=$!
}
stop_burner() { rm -f "$proc/run"; wait $bpid; }

sb() {	# sb OUT [OPTIONS]: one system-baseline run on the simulated host
	o=$1
	shift
	FAK_PROC_ROOT=$proc "$FAK" bench system-baseline --baseline-duration 200ms --interval 50ms \
		--max-psi-stall-percent 100 --out "$o" "$@" -- sleep 0.2 >/dev/null 2>"$o.err"
}

# with --wait-quiet: the command waits for the burner to stop
start_burner stopped.1
sb waited.json --wait-quiet 20s
rc=$?
stop_burner
[ $rc = 0 ] || { cat waited.json.err; fail "exit $rc"; }
"$FAK" bench system-baseline --verify waited.json >/dev/null || fail "waited.json does not verify"
jq -e '.quiet_wait.quiet_found and (.quiet_wait.rejected_windows | length) >= 1
	and .quiet_wait.rejected_windows[0].host_cpu_percent == 100
	and all(.quiet_wait.rejected_windows[]; .host_cpu_percent > 20)
	and .quiet_wait.waited_ns > 0 and .quiet_wait.limit_ns == 20000000000' waited.json \
	>/dev/null || fail "the wait is not recorded: $(jq -c .quiet_wait waited.json)"
# A 200 ms window that overlaps the burn by at most 20% of its time is
# quiet enough (the ceiling is 20%): the accepted window may start up to
# 40 ms before the last busy write, not more.
stopped=$(date -u -d "$(cat stopped.1)" +%s%N)
started=$(date -u -d "$(jq -r .baseline_window.started_at_utc waited.json)" +%s%N)
[ $((started + 50000000)) -ge "$stopped" ] ||
	fail "the accepted quiet window started at $started ns, the burner stopped at $stopped"
[ "$(jq -r .verdict waited.json)" = clean ] || fail "not clean: $(jq -c .findings waited.json)"

# without it: the same set-up investigates, and nothing about a wait is written
start_burner stopped.2
sb busy.json
rc=$?
stop_burner
[ $rc = 0 ] || { cat busy.json.err; fail "exit $rc without --wait-quiet"; }
jq -e '.quiet_wait == null and .verdict == "investigate"
	and ([.findings[].code] | index("BASELINE_HOST_CPU_HIGH"))' busy.json >/dev/null ||
	fail "the busy window was not flagged: $(jq -c .findings busy.json)"

# the experiment next to two real burners (3 s): without --wait-quiet the
# runs investigate and the summary says why; with a 300 ms wait every
# attestation seals its wait and the first records the windows it rejected
burn() {
	( end=$(($(date +%s) + 3)); while [ "$(date +%s)" -lt "$end" ]; do :; done ) &
	b1=$!
	( end=$(($(date +%s) + 3)); while [ "$(date +%s)" -lt "$end" ]; do :; done ) &
	b2=$!
}
xprun() {	# xprun DIR [OPTIONS]
	d=$1
	shift
	"$FAK" bench experiment cpu.fast --graph graph.json --artifact model.bin --revision r1 \
		--module bench@1 --profile-artifact profile.txt --machine-id-file machine-id \
		--baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' --out-dir "$d" \
		--baseline-duration 100ms --interval 20ms --max-non-sut-cpu-percent 50 "$@" \
		>"$d.txt" 2>"$d.err"
}
burn
xprun busy
rc=$?
kill $b1 $b2 2>/dev/null
wait
[ $rc = 0 ] || { cat busy.err; fail "experiment: exit $rc"; }
jq -e '[.findings[].code] | index("BASELINE_HOST_CPU_HIGH")' \
	busy/attestations/baseline-warmup-1.json >/dev/null || fail "experiment: not flagged busy"
[ "$(jq -r .classification busy/gate.json)" = investigate ] || fail "the gate does not investigate"
grep -q '^why        the host was busy: up to [0-9]*% CPU in the quiet window' busy.txt ||
	{ cat busy.txt; fail "no why line"; }

burn
xprun waited --wait-quiet 300ms
rc=$?
kill $b1 $b2 2>/dev/null
wait
[ $rc = 0 ] || { cat waited.err; fail "experiment --wait-quiet: exit $rc"; }
for a in waited/attestations/*.json; do
	"$FAK" bench system-baseline --verify "$a" >/dev/null || fail "$a does not verify"
	jq -e '.quiet_wait.limit_ns == 300000000' "$a" >/dev/null || fail "$a: no quiet_wait"
done
jq -e '(.quiet_wait.rejected_windows | length) >= 1
	and all(.quiet_wait.rejected_windows[]; .host_cpu_percent > 50)' \
	waited/attestations/baseline-warmup-1.json >/dev/null ||
	fail "the first wait: $(jq -c .quiet_wait waited/attestations/baseline-warmup-1.json)"
exit 0
