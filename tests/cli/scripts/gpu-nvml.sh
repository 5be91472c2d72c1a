# GPU evidence through the test double of NVML (tests/nvml/fake_nvml.c,
# built by `make test` next to fak): every scripted state ends up in the
# sealed "gpu" section, and the attestation verifies. Without the library
# the section says why it is unreadable and nothing else changes.
set -eu
lib=$(dirname "$FAK")/tests/nvml
[ -f "$lib/libnvidia-ml.so.1" ] || { echo "$lib/libnvidia-ml.so.1 is not built (make test builds it)"; exit 1; }

run() {	# run NAME MODE [COMMAND...]: one sealed run under FAKE_NVML=MODE
	name=$1 mode=$2
	shift 2
	LD_LIBRARY_PATH=$lib FAKE_NVML=$mode FAKE_NVML_AFTER_MS=250 \
		$FAK bench system-baseline --baseline-duration 40ms --interval 20ms --out "$name.json" \
		-- "$@" >/dev/null
	$FAK bench system-baseline --verify "$name.json" | grep -qx 'VALID sha256:[0-9a-f]\{64\}'
}

# no library on the search path: unreadable, and why
LD_LIBRARY_PATH= $FAK bench system-baseline --baseline-duration 40ms --interval 20ms --out none.json \
	-- true >/dev/null
$FAK bench system-baseline --verify none.json >/dev/null
jq -e '.gpu == {"schema": "fak-native-gpu-clock-observation/v1", "status": "unreadable",
	"reason": "no libnvidia-ml.so.1", "sampler_wall_ns": 0, "devices": []}' none.json >/dev/null

run steady steady sh -c 'sleep 0.5 & sleep 0.5; wait; ls -l /proc/$$/fd >&2' 2>fds.txt
# the double opens /dev/zero without O_CLOEXEC, as a careless driver would: not inherited
grep -q ' -> ' fds.txt
if grep /dev/zero fds.txt; then echo "the command inherited NVML's descriptor"; exit 1; fi
run drop drop sleep 0.6
run powercap powercap sleep 0.6
run nosupport nosupport sleep 0.2
run vanish vanish sleep 0.6
run nodevice nodevice true
# more censuses than a device keeps readings: decimated, still spread over the window
LD_LIBRARY_PATH=$lib $FAK bench system-baseline --baseline-duration 40ms --interval 10ms --out long.json \
	-- sleep 1.2 >/dev/null
$FAK bench system-baseline --verify long.json >/dev/null
jq -e '.gpu.devices[0] | .reading_stride >= 2 and (.readings | length) <= 64
	and (.readings | length) > 16 and .readings[-1].offset_ms >= 1000
	and .summary.readings == (.readings | length)' long.json >/dev/null
run initfail initfail true

/usr/bin/python3 - <<'PY'
import json
def gpu(name):
    return json.load(open(name + ".json"))["gpu"]
def dev(name):
    g = gpu(name)
    assert len(g["devices"]) == 1, g
    return g["devices"][0]

g = gpu("steady")
assert g["status"] == "observed" and "reason" not in g and g["driver_version"] == "535.104.05", g
d = dev("steady")
assert d["name"] == "NVIDIA A100-SXM4-80GB" and len(d["identity"]) == 16, d
assert "GPU-" not in json.dumps(g), "the raw UUID must not leave the machine"
assert d["state"]["persistence_mode"] == "enabled" and d["state"]["applications_sm_clock_mhz"] == 1410
s = d["summary"]
assert s["observed"] == s["readings"] >= 10 and s["coverage_ratio"] == 1, s
assert s["sm_clock_mhz"] == {"min": 1410, "max": 1410, "mean": 1410}, s
assert s["memory_clock_mhz"]["min"] == 1593 and s["clocks_event_reasons"] == [], s
assert s["max_temperature_c"] == 45 and s["max_power_mw"] == 250000, s
# the shell and its two sleeps hold 1 GiB each; the 5 GiB of PID 1 are not the command's
assert s["max_process_memory_bytes"] == 3 << 30, s

s = dev("drop")["summary"]
assert s["sm_clock_mhz"]["min"] == 1005 and s["sm_clock_mhz"]["max"] == 1410, s
assert 1005 < s["sm_clock_mhz"]["mean"] < 1410, s

s = dev("powercap")["summary"]
assert s["clocks_event_reasons"] == ["sw_power_cap"] and s["clocks_event_reasons_bits"] == 4, s
assert s["sm_clock_mhz"]["min"] == 1200 and s["max_power_mw"] == 400000, s

d = dev("nosupport")
assert gpu("nosupport")["status"] == "observed" and d["not_supported"] == "power", d
assert "max_power_mw" not in d["summary"] and all("power_mw" not in r for r in d["readings"]), d

g = gpu("vanish")
d = dev("vanish")
assert g["status"] == "failed", g
assert g["reason"] == "device 0: nvmlDeviceGetClockInfo: GPU is lost", g
assert d["summary"]["failed"] >= 1 and d["summary"]["observed"] >= 1, d["summary"]
assert d["readings"][-1] == {"status": "failed", "offset_ms": d["readings"][-1]["offset_ms"],
                             "error": "nvmlDeviceGetClockInfo: GPU is lost"}, d["readings"][-1]

for name, why in (("nodevice", "no NVIDIA device"), ("initfail", "nvmlInit_v2 failed")):
    g = gpu(name)
    assert g["status"] == "unreadable" and g["reason"] == why and g["devices"] == [], g
PY

# --verify re-derives each summary from the readings; other edits break the digest
jq '.gpu.devices[0].summary.sm_clock_mhz.min = 1410' drop.json >edited.json
if $FAK bench system-baseline --verify edited.json 2>err.txt; then exit 1; fi
grep -qx "fak bench system-baseline: verify 'edited.json': gpu.devices\[0\].summary: differs from the summary derived from the readings" err.txt
jq '.gpu.devices[0].state.applications_sm_clock_mhz = 1005' drop.json >edited.json
if $FAK bench system-baseline --verify edited.json 2>err.txt; then exit 1; fi
grep -q "canonical digest mismatch" err.txt
