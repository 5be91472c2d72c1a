# 500 short-lived CPU-burning processes must be attributed within 2% of the
# kernel's own total for the tree.
#   waited: truth.py runs the workload as a child subreaper, reaps every
#           process and reports its RUSAGE_SELF + RUSAGE_CHILDREN;
#   orphans: every burner is orphaned and re-parented to fak; outer.py runs
#           fak and reports wait4(fak) minus fak's own CPU (read from
#           /proc/PID/schedstat while fak is a zombie).
# An accuracy measurement of the optimised build: under AddressSanitizer fak's
# own CPU, which the orphans case subtracts, is several times larger and
# noisier, and the base commit of 2026-12-02 missed 2% there as often as not
# on a quiet host (3.8 to 4.3%); the census code runs under ASan in the other
# bench-* scripts.
# fak-test: once
set -eu
cat >work.sh <<'SH'
i=0
while [ $i -lt 50 ]; do
	k=0
	while [ $k -lt 10 ]; do
		if [ "$1" = orphans ]; then
			( ( j=0; while [ $j -lt 200 ]; do j=$((j + 1)); done ) & )
		else
			( j=0; while [ $j -lt 200 ]; do j=$((j + 1)); done ) &
		fi
		k=$((k + 1))
	done
	wait
	i=$((i + 1))
done
SH
cat >truth.py <<'PY'
import ctypes, os, resource, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)	# PR_SET_CHILD_SUBREAPER
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
open("truth.txt", "w").write("%.6f\n" % (s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime))
os._exit(0)	# no interpreter teardown after the measurement
PY
cat >outer.py <<'PY'
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
own = int(open("/proc/%d/schedstat" % pid).read().split()[0]) / 1e9
_, status, ru = os.wait4(pid, 0)
open("truth.txt", "w").write("%.6f\n" % (ru.ru_utime + ru.ru_stime - own))
sys.exit(os.waitstatus_to_exitcode(status))
PY
compare() {	# compare LABEL MIN-REAPED
	/usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open("att.json"))
truth = float(open("truth.txt").read())
m = d["attribution"]["sut_cpu_seconds"]
assert m["available"], m
err = abs(m["value"] - truth) / truth
print("%s: fak %.4f s, kernel %.4f s, error %.2f%%, reaped %d, vanished %d" % (sys.argv[1], m["value"], truth,
      100 * err, d["coverage"]["descendants_reaped"], d["coverage"]["process_vanished"]))
assert err <= 0.02, "attribution error above 2%"
assert d["coverage"]["descendants_reaped"] >= int(sys.argv[2])
assert d["coverage"]["process_unreadable"] == 0, "vanishing processes are not read errors"
PY
	$FAK bench system-baseline --verify att.json >/dev/null
}
O="--baseline-duration 20ms --interval 50ms"
$FAK bench system-baseline $O --attribution cgroup -- /usr/bin/python3 truth.py /bin/sh work.sh waited >att.json
compare "waited, cgroup v2" 1
/usr/bin/python3 outer.py $FAK bench system-baseline $O --attribution subreaper -- /bin/sh work.sh orphans >att.json
compare "orphans, subreaper" 501
