# A real run: stdout carries only the attestation, identical to --out (mode
# 0600); the command's stdout and stderr go to fak's stderr; the result
# verifies, and an independent RFC 8785 implementation (node) agrees with
# its digest.
set -eu
$FAK bench system-baseline --baseline-duration 100ms --interval 20ms --out att.json \
	-- sh -c 'echo child-stdout; echo child-stderr >&2' >out.json 2>err.txt
cmp out.json att.json
grep -qx child-stdout err.txt
grep -qx child-stderr err.txt
! grep -q "quiet baseline window" err.txt	# stderr is not a terminal: no progress line
[ "$(stat -c %a att.json)" = 600 ]
$FAK bench system-baseline --verify att.json | grep -qx 'VALID sha256:[0-9a-f]\{64\}'
/usr/bin/python3 - att.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "fak.system-baseline/v1"
assert d["coverage"]["descendant_attribution"] in ("exact_subreaper_rusage", "exact_cgroup_v2"), d["coverage"]
for w in ("baseline", "command"):
    win, smp = d[w + "_window"], d[w + "_sampler"]
    assert win["samples"] >= 2 and smp["counted_samples"] == win["samples"] - 1, (w, win, smp)
    assert smp["duty_percent"]["available"], smp
assert d["baseline_window"]["ended_at_utc"] <= d["command_window"]["started_at_utc"]
assert d["attribution"]["sut_cpu_seconds"]["available"], d["attribution"]
assert d["coverage"]["descendants_reaped"] >= 1
assert d["coverage"]["clock_ticks_per_second"] > 0 and d["coverage"]["page_size_bytes"] > 0
assert d["command_exit_code"] == 0 and d["top_non_sut_consumers"] == []
PY
node - att.json <<'JS'
const fs = require("fs"), crypto = require("crypto");
const d = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const want = d.digest;
delete d.digest;
const jcs = v => v === null || typeof v !== "object" ? JSON.stringify(v)
	: Array.isArray(v) ? "[" + v.map(jcs).join(",") + "]"
	: "{" + Object.keys(v).sort().map(k => JSON.stringify(k) + ":" + jcs(v[k])).join(",") + "}";
const got = "sha256:" + crypto.createHash("sha256").update(jcs(d), "utf8").digest("hex");
if (got !== want) { console.error("node digest", got, "fak digest", want); process.exit(1); }
JS

# The opt-in figures on a real run: top consumers (scrubbed, at most five,
# ordered) and every process's RSS.
$FAK bench system-baseline --baseline-duration 50ms --interval 20ms --top-consumers --require-process-memory \
	--attribution subreaper -- sleep 0.2 >opt.json
$FAK bench system-baseline --verify opt.json >/dev/null
/usr/bin/python3 - opt.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k = d["top_non_sut_consumers"]
assert 1 <= len(k) <= 5 and d["policy"]["include_top_consumers"], k
for c in k:
    assert "/" not in c["image"] and c["pid"] > 0 and c["rss_available"], c
assert k == sorted(k, key=lambda c: (-c["cpu_seconds"], -c["rss_bytes"], c["pid"])), k
a = d["attribution"]
assert a["non_sut_rss_bytes"]["available"] and a["non_sut_rss_bytes"]["value"] > 0, a
PY
