# Descendants still alive when the command's root exits are killed, reaped
# and counted, with the subreaper and with cgroup v2.
set -eu
for mode in subreaper cgroup; do
	rm -f bg.pid
	start=$(date +%s)
	$FAK bench system-baseline --baseline-duration 20ms --interval 20ms --attribution $mode \
		-- sh -c 'sleep 60 & echo $! >bg.pid; (sleep 60 &); exit 0' >att.json
	[ $(($(date +%s) - start)) -lt 20 ]
	if kill -0 "$(cat bg.pid)" 2>/dev/null; then echo "$mode: a descendant survived"; exit 1; fi
	$FAK bench system-baseline --verify att.json >/dev/null
	/usr/bin/python3 - $mode <<'PY'
import json, sys
d = json.load(open("att.json"))
c = d["coverage"]
assert c["descendants_killed_after_root_exit"] == 2, c
assert c["descendants_unreaped"] == 0, c
assert d["attribution"]["sut_cpu_seconds"]["available"]
if sys.argv[1] == "cgroup":
    g = d["cgroup_v2"]
    assert g["state"] == "measured" and g["members_at_root_exit"]["value"] == 2, g
    assert g["cleanup"] == {"attempted": True, "killed_remaining": True, "empty": True, "removed": True}, g
else:
    assert c["descendants_reaped"] >= 3, c
PY
done
