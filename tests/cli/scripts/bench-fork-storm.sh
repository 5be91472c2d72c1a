# A command that forks 1500 processes: fak's per-census work stays within
# its bound (FAK_CENSUS_PROCESS_LIMIT lowers it to 100 here), the coverage
# says the census was limited, its own memory grows by less than 4 MiB over
# a run of `true` (the same binary, so sanitizer builds compare alike), and
# the SUT CPU is still exact.
set -eu
cat >storm.py <<'PY'
import os, time
kids = []
for i in range(1500):
    pid = os.fork()
    if pid == 0:
        time.sleep(0.5)
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
PY
cat >watch.py <<'PY'
import os, sys, time
out = sys.argv.pop(1)
pid = os.fork()
if pid == 0:
    os.environ["FAK_CENSUS_PROCESS_LIMIT"] = "100"
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.execv(sys.argv[1], sys.argv[1:])
peak = 0
while True:
    try:
        for line in open("/proc/%d/status" % pid):
            if line.startswith("VmHWM:"):
                peak = max(peak, int(line.split()[1]))
    except OSError:
        pass
    p, status = os.waitpid(pid, os.WNOHANG)
    if p:
        break
    time.sleep(0.02)
open(out + ".rss", "w").write("%d\n" % peak)
sys.exit(os.waitstatus_to_exitcode(status))
PY
/usr/bin/python3 watch.py idle.json $FAK bench system-baseline --baseline-duration 20ms --interval 100ms \
	--attribution subreaper -- true
/usr/bin/python3 watch.py att.json $FAK bench system-baseline --baseline-duration 20ms --interval 100ms \
	--attribution subreaper -- /usr/bin/python3 storm.py
$FAK bench system-baseline --verify att.json >/dev/null
/usr/bin/python3 - <<'PY'
import json
idle, storm = int(open("idle.json.rss").read()), int(open("att.json.rss").read())
print("fak peak RSS: %d KiB idle, %d KiB during the storm" % (idle, storm))
assert 0 < idle and storm - idle < 4096, "fak's own memory grew with the storm"
d = json.load(open("att.json"))
c, a = d["coverage"], d["attribution"]
assert c["census_process_limit"] == 100 and c["census_limited"], c
assert not a["sut_rss_bytes"]["available"] and "incomplete" in a["sut_rss_bytes"]["reason"], a
assert a["sut_cpu_seconds"]["available"], a
assert c["descendants_reaped"] == 1 and d["command_exit_code"] == 0, c
PY
