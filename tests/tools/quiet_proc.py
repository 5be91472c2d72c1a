#!/usr/bin/env python3
"""A fake /proc for tests about something other than the host: the host it
shows is quiet, whatever else the machine is doing.

    quiet_proc.py ROOT PID

makes ROOT a proc tree for fak (FAK_PROC_ROOT=ROOT, tests/lib.sh's
quiet_host) and keeps its /proc/stat current until killed. The host's busy
time is the CPU time of PID and its descendants (the test script, fak and
the commands fak runs), read from the real /proc; its total is the wall
time since the start on every CPU; nothing else runs on this host. Pressure
totals stay zero, meminfo is the real one at the start, and there are no
per-process folders and no self/ (so no cgroup: fak attributes the command
by wait4's rusage, exact, and censuses no other process).

fak keeps /proc/stat open and reads it with pread, so the file is rewritten
in place, with fixed-width numbers, never replaced. The writer exits when
PID does. Busy never decreases
(a child moving from its own counters to its parent's cumulative ones can
be read twice or not at all for a moment) and never exceeds the total.
"""
import os
import sys
import time

root, top = sys.argv[1], int(sys.argv[2])
hz = os.sysconf("SC_CLK_TCK")
ncpu = os.cpu_count() or 1
me = os.getpid()


def tree_ticks():
    """utime + stime + cutime + cstime over top and its live descendants."""
    parent, ticks = {}, {}
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                s = f.read()
        except OSError:
            continue
        f = s[s.rindex(b")") + 2:].split()
        pid = int(name)
        parent[pid] = int(f[1])
        ticks[pid] = int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])
    children = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = 0, [top]
    while todo:
        pid = todo.pop()
        total += ticks.get(pid, 0)
        todo.extend(children.get(pid, ()))
    return total


os.makedirs(root + "/pressure", exist_ok=True)
for axis in ("cpu", "memory", "io"):
    with open("%s/pressure/%s" % (root, axis), "w") as f:
        f.write("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
                "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
with open("/proc/meminfo") as src, open(root + "/meminfo", "w") as dst:
    dst.write(src.read())

start = time.monotonic()
base = tree_ticks()
busy = 0


def stat_text():
    global busy
    total = int((time.monotonic() - start) * hz * ncpu) + 100 * ncpu
    busy = min(max(busy, tree_ticks() - base), total)
    idle = total - busy

    def line(name, b, i):
        return "%-5s%012d 000000000000 000000000000 %012d 000000000000 000000000000 " \
               "000000000000 000000000000 000000000000 000000000000\n" % (name, b, i)
    # the per-CPU lines share the totals out; fak reads the first line
    out = line("cpu", busy, idle)
    for c in range(ncpu):
        out += line("cpu%d" % c, busy // ncpu, idle // ncpu)
    return out.encode()


fd = os.open(root + "/stat", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
os.pwrite(fd, stat_text(), 0)
with open(root + "/ready", "w"):
    pass
while True:
    time.sleep(0.01)
    try:
        os.kill(top, 0)
    except ProcessLookupError:
        sys.exit(0)
    os.pwrite(fd, stat_text(), 0)
