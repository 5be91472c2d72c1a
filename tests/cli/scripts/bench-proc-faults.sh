# With a proc tree whose host files are malformed or missing
# (tests/fixtures/proc/vanish via FAK_PROC_ROOT), every figure that cannot
# be measured is unavailable with its reason, never a zero, and the
# attestation is still sealed and verifies.
set -eu
FAK_PROC_ROOT=$FIX/proc/vanish $FAK bench system-baseline --baseline-duration 30ms --interval 10ms -- true >att.json
$FAK bench system-baseline --verify att.json >/dev/null
/usr/bin/python3 - <<'PY'
import json
d = json.load(open("att.json"))
h, b = d["host_totals"], d["baseline_host_totals"]
assert d["verdict"] == "investigate", d["verdict"]
codes = [f["code"] for f in d["findings"]]
assert codes[:3] == ["BASELINE_HOST_CPU_UNKNOWN", "HOST_CPU_UNKNOWN", "SUT_CPU_UNKNOWN"], codes
for t in (h, b):
    assert t["cpu_percent"] == {"available": False, "unit": "percent", "reason": "/proc/stat has no valid cpu line"}, t
    assert t["memory_available_bytes"]["reason"] == "/proc/meminfo lacks MemAvailable or MemTotal" or \
        t["memory_available_bytes"]["reason"] == "/proc/meminfo lacks MemTotal or MemAvailable", t
    assert t["pressure"]["io"]["full_total_us"]["reason"].startswith("cannot open /proc/pressure/io"), t
assert d["attribution"]["sut_cpu_seconds"]["available"], "the SUT's own CPU does not need /proc"
assert d["cgroup_v2"]["state"] == "unavailable" and "mountinfo" in d["cgroup_v2"]["reason"], d["cgroup_v2"]
PY
