# Descendants still alive when the command's root exits are killed, reaped
# and counted, with the subreaper and with cgroup v2, and said on stderr by
# how many and their names.
set -eu
for mode in subreaper cgroup; do
	rm -f bg.pid
	start=$(date +%s)
	$FAK bench system-baseline --baseline-duration 20ms --interval 20ms --attribution $mode \
		-- sh -c 'sleep 60 & echo $! >bg.pid; (sleep 60 &); exit 0' >att.json 2>err.txt
	[ $(($(date +%s) - start)) -lt 20 ]
	if kill -0 "$(cat bg.pid)" 2>/dev/null; then echo "$mode: a descendant survived"; exit 1; fi
	# and said, with their names (a forked shell may not have become sleep yet)
	want="^fak bench system-baseline: 2 processes were still running when the command exited, killed: \(sleep\|sh\)\( (2)\|, \(sleep\|sh\)\) (the attestation's coverage.descendants_killed_after_root_exit); a benchmark should wait for what it starts\$"
	grep -q "$want" err.txt || { echo "$mode: stderr:"; cat err.txt; exit 1; }
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
