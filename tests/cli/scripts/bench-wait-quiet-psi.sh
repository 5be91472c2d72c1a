# --wait-quiet waits for the host's PSI stall too: a host that just
# finished heavy I/O has a quiet CPU and a high io stall, and the command's
# cgroup would seal IO_PSI_STALL_HIGH. FAK_PROC_ROOT points the readers at a
# tree of links to the real /proc in which "stat" and "pressure/" are files
# of our own: a writer keeps the CPU idle (idle ticks climb) and, for the
# busy half, the io stall's total climbing with the wall clock (a 100%
# stall). The wait continues on it, runs out, and says so naming the io
# stall; with a still io total the first window is quiet.
set -u
fail() { echo "FAIL: $*"; exit 1; }

proc=$PWD/proc
mkdir "$proc" "$proc/pressure"
for e in /proc/*; do
	case ${e##*/} in stat | pressure) ;; *) ln -s "$e" "$proc/${e##*/}" ;; esac
done
psi() {	# psi FILE TOTAL_US: rewrite in place (same inode, same length)
	printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=%015d\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=%015d\n' \
		"$2" 0 1<>"$1"
}
# writer STALL: every 20 ms the idle ticks climb; with STALL=1 the io
# stall's total is the microseconds since the writer began
writer() {
	idle=0 t0=$(date +%s%N)
	while [ -e "$proc/run" ]; do
		idle=$((idle + 4))
		printf 'cpu  %012d 0 0 %012d 0 0 0 0 0 0\n' 0 $idle 1<>"$proc/stat"
		[ "$1" = 1 ] && psi "$proc/pressure/io" $((($(date +%s%N) - t0) / 1000))
		sleep 0.02
	done
}
run() {	# run NAME STALL [OPTIONS]: one system-baseline run on the simulated host
	n=$1 stall=$2
	shift 2
	printf 'cpu  %012d 0 0 %012d 0 0 0 0 0 0\n' 0 0 >"$proc/stat"
	for a in cpu memory io; do psi "$proc/pressure/$a" 0; done
	touch "$proc/run"
	writer "$stall" &
	w=$!
	FAK_PROC_ROOT=$proc "$FAK" bench system-baseline --baseline-duration 200ms --interval 50ms \
		--max-psi-stall-percent 5 --out "$n.json" "$@" -- true >/dev/null 2>"$n.err"
	rc=$?
	rm -f "$proc/run"
	wait $w
	[ $rc = 0 ] || { cat "$n.err"; fail "$n: exit $rc"; }
	"$FAK" bench system-baseline --verify "$n.json" >/dev/null || fail "$n.json does not verify"
}

# an io stall of about 100%: every window is rejected for it, on a quiet CPU
run stalled 1 --wait-quiet 700ms
jq -e '.quiet_wait.psi_stall_judged and (.quiet_wait.quiet_found | not)
	and (.quiet_wait.rejected_windows | length) >= 1
	and all(.quiet_wait.rejected_windows[]; .host_cpu_percent == 0
		and .psi_stall_axis == "io" and .psi_stall_percent > 5)
	and .quiet_wait.limit_ns == 700000000' stalled.json >/dev/null ||
	fail "the io stall did not keep the wait going: $(jq -c .quiet_wait stalled.json)"
grep -q '^fak bench system-baseline: --wait-quiet 0.7s ran out: the command ran after a window that was not quiet (io PSI stall [0-9.]*% is above the 5.00% ceiling)$' stalled.err ||
	{ cat stalled.err; fail "the run-out message does not name the io stall"; }

# the io total stands still: the first window is quiet, nothing is said
run still 0 --wait-quiet 700ms
jq -e '.quiet_wait.psi_stall_judged and .quiet_wait.quiet_found
	and .quiet_wait.rejected_windows == [] and .quiet_wait.waited_ns == 0' still.json \
	>/dev/null || fail "a still io total was waited for: $(jq -c .quiet_wait still.json)"
[ ! -s still.err ] || { cat still.err; fail "a quiet window was reported"; }

# without --wait-quiet the stall is not waited for, and no quiet_wait is sealed
run nowait 1
jq -e '.quiet_wait == null' nowait.json >/dev/null || fail "a quiet_wait without the option"
exit 0
