#!/bin/sh
# fak bench system-baseline against two peers, same workloads, 250 ms:
#   (a) a psutil tree sampler: children(recursive=True) + cpu_times +
#       memory_info of every member each tick, plus host cpu/memory;
#   (b) pidstat (sysstat) on the same tree (it cannot tick faster than 1 s,
#       so its per-report cost is also shown scaled to a 250 ms cadence).
# Figures: sampler CPU as a share of one core (its own CPU time / wall),
# fak's census wall duty, CPU captured / true CPU for 300 short-lived
# processes, and fak's peak RSS. One run; print ratios.
#
#   bench/sampler.sh build/fak [SECONDS]
# Needs: /usr/bin/python3 with python3-psutil, pidstat (sysstat).
set -eu
fak=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
secs=${2:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# An idle 20-process tree: sh and 19 sleeps, for $secs seconds.
cat >tree.sh <<'SH'
i=0
while [ $i -lt 19 ]; do sleep "$1" & i=$((i + 1)); done
wait
SH
# 300 short-lived CPU-burning processes.
cat >churn.sh <<'SH'
i=0
while [ $i -lt 30 ]; do
	k=0
	while [ $k -lt 10 ]; do ( j=0; while [ $j -lt 300 ]; do j=$((j + 1)); done ) & k=$((k + 1)); done
	wait
	i=$((i + 1))
done
SH
# The kernel's total for a tree: run it as a child subreaper, reap all.
cat >truth.py <<'PY'
import ctypes, os, resource, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.6f\n" % (s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime))
os._exit(0)
PY
cat >bench.py <<'PY'
import json, os, resource, subprocess, sys, time
import psutil

fak, secs = sys.argv[1], float(sys.argv[2])
INTERVAL = 0.25

def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def run_fak(cmd, mode="auto"):
    """fak's attestation, and its peak RSS (VmHWM) in KiB."""
    p = subprocess.Popen([fak, "bench", "system-baseline", "--baseline-duration", "1s", "--interval", "250ms",
                          "--attribution", mode, "--"] + cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    peak = 0
    out = b""
    while p.poll() is None:
        try:
            for line in open("/proc/%d/status" % p.pid):
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.1)
    out = p.stdout.read()
    return json.loads(out), peak

def psutil_sampler(cmd):
    """A psutil tree sampler at 250 ms; returns (own CPU s, census wall s,
    window s, captured CPU by deltas, captured CPU by last values)."""
    root = subprocess.Popen(cmd)
    proot = psutil.Process(root.pid)
    seen = {}
    cpu0, t0 = time.process_time(), time.monotonic()
    census = 0.0
    while True:
        c0 = time.monotonic()
        psutil.cpu_times()
        psutil.virtual_memory()
        try:
            procs = [proot] + proot.children(recursive=True)
        except psutil.NoSuchProcess:
            procs = []
        for p in procs:
            try:
                with p.oneshot():
                    t = p.cpu_times()
                    p.memory_info()
                key = (p.pid, p.create_time())
                v = t.user + t.system
                first = seen.get(key, (v, v))[0]
                seen[key] = (first, v)
            except psutil.Error:
                pass
        census += time.monotonic() - c0
        if root.poll() is not None:
            break
        time.sleep(max(0.0, INTERVAL - (time.monotonic() - c0)))
    wall = time.monotonic() - t0
    own = time.process_time() - cpu0
    return own, census, wall, sum(l - f for f, l in seen.values()), sum(l for f, l in seen.values())

def pidstat(cmd):
    """pidstat -u -r on the tree's PIDs at 1 s; its CPU per report."""
    root = subprocess.Popen(cmd)
    time.sleep(0.3)
    pids = [root.pid] + [c.pid for c in psutil.Process(root.pid).children(recursive=True)]
    reports = max(1, int(secs) - 1)
    before = child_cpu()
    t0 = time.monotonic()
    subprocess.run(["pidstat", "-h", "-u", "-r", "-p", ",".join(map(str, pids)), "1", str(reports)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    cpu = child_cpu() - before
    root.wait()
    return cpu, wall, reports

def truth(cmd):
    subprocess.run([sys.executable, "truth.py", "truth.txt"] + cmd, check=True)
    return float(open("truth.txt").read())

tree = ["/bin/sh", "tree.sh", str(secs)]
churn = ["/bin/sh", "churn.sh"]

# ---- idle 20-process tree -------------------------------------------------
att, peak = run_fak(tree)
win = att["command_window"]["duration_ns"] / 1e9
fak_cpu = att["command_sampler"]["process_cpu_ns"] / 1e9 / win * 100
fak_wall = att["command_sampler"]["duty_percent"]["value"]
members = att["coverage"]["processes_observed"] / max(1, att["command_window"]["samples"] - 2)
own, census, wall, _, _ = psutil_sampler(tree)
ps_cpu = own / wall * 100
ps_wall = census / wall * 100
pcpu, pwall, reports = pidstat(tree)
pid_cpu_1s = pcpu / pwall * 100
pid_cpu_250 = pcpu / reports / INTERVAL * 100

print("idle tree of %.0f processes, %.0f s, 250 ms (%s)" % (members, win, att["coverage"]["descendant_attribution"]))
print("  fak      CPU %.4f%% of a core, census wall duty %.4f%%, peak RSS %d KiB" % (fak_cpu, fak_wall, peak))
print("  psutil   CPU %.4f%% of a core, census wall duty %.4f%%" % (ps_cpu, ps_wall))
print("  pidstat  CPU %.4f%% of a core at 1 s; %.4f%% scaled to 250 ms (%.2f ms per report)" %
      (pid_cpu_1s, pid_cpu_250, pcpu / reports * 1000))
print("  ratio    psutil/fak CPU %.1fx, psutil/fak census wall %.1fx, pidstat(250 ms)/fak CPU %.1fx" %
      (ps_cpu / fak_cpu, ps_wall / fak_wall, pid_cpu_250 / fak_cpu))

# ---- 300 short-lived processes ---------------------------------------------
t_exact = truth(churn)
att, _ = run_fak([sys.executable, "truth.py", "truth.txt"] + churn, "auto")
t_fak = float(open("truth.txt").read())
fak_got = att["attribution"]["sut_cpu_seconds"]
att_s, _ = run_fak([sys.executable, "truth.py", "truth.txt"] + churn, "sampled")
t_s = float(open("truth.txt").read())
samp = att_s["attribution"]["sut_cpu_seconds"]
own, census, wall, ps_delta, ps_last = psutil_sampler([sys.executable, "truth.py", "truth.txt"] + churn)
t_ps = float(open("truth.txt").read())
print("300 short-lived processes, 250 ms (true CPU %.3f s)" % t_exact)
print("  fak %-24s captured %.2f%% of true CPU, verdict %s" % (att["coverage"]["descendant_attribution"],
      100 * fak_got["value"] / t_fak, att["verdict"]))
print("  fak %-24s %s" % ("sampled_pid_ppid_tree", "captured %.2f%%" % (100 * samp["value"] / t_s) if samp["available"]
      else "SUT CPU unavailable: " + samp["reason"]))
print("  psutil tree sampler      captured %.2f%% (per-process deltas), %.2f%% (last values)" %
      (100 * ps_delta / t_ps, 100 * ps_last / t_ps))
print("  ratio    fak/psutil captured %.0fx (deltas), %.1fx (last values)" %
      (fak_got["value"] / t_fak / max(ps_delta / t_ps, 1e-9), fak_got["value"] / t_fak / max(ps_last / t_ps, 1e-9)))
PY
/usr/bin/python3 bench.py "$fak" "$secs"
