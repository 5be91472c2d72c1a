#!/bin/sh
# On a real Mac (not part of `make check`, which cannot run it): the first run
# of fak's darwin backend. Runs the platform unit suite, then wraps a command
# of known CPU cost (a grandchild running `yes` for two seconds) in
# `fak bench system-baseline`, and checks the sealed attestation against
# what macOS itself says (sysctl). docs/platforms.md says what it proves.
#
#   brew install jansson openssl@3 criterion jq && make && make build/test_unit
#   tests/device/macos.sh build/fak [build/test_unit]
#
# Exit 0 when every check holds; each failed check is printed. Send its output
# with the issue when one fails: nothing of this has run on a Mac before.
set -u
fak=${1:?usage: tests/device/macos.sh build/fak [build/test_unit]}
unit=${2:-$(dirname "$fak")/test_unit}
fail=0
no() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }
[ "$(uname -s)" = Darwin ] || { echo "this is $(uname -s), not macOS"; exit 2; }
command -v jq >/dev/null || { echo "jq not found: brew install jq"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "host: $(sysctl -n machdep.cpu.brand_string) $(uname -m), macOS $(sw_vers -productVersion)"

# 1. the platform interface on the darwin backend
if [ -x "$unit" ]; then
	"$unit" --filter 'platform/*' && ok "platform unit suite" || no "platform unit suite"
else
	no "no unit test binary at $unit (make build/test_unit)"
fi

# 2. fak runs its portable commands
"$fak" native-performance >/dev/null && ok "native-performance" ||
	no "fak native-performance exited $?"

# 3. one attestation around two seconds of CPU in a grandchild
"$fak" bench system-baseline --baseline-duration 1s --interval 100ms \
	--max-non-sut-cpu-percent 100 --out "$work/att.json" -- \
	sh -c 'sh -c "yes >/dev/null & y=\$!; sleep 2; kill \$y; wait \$y" </dev/null' \
	>"$work/out" 2>"$work/err" || no "fak bench system-baseline exited $?: $(cat "$work/err")"
[ -s "$work/att.json" ] || { echo "no attestation written"; exit 1; }
"$fak" bench system-baseline --verify "$work/att.json" >/dev/null && ok "the attestation verifies" ||
	no "the attestation does not verify"
a=$work/att.json
j() { jq -r "$1" "$a"; }

mem=$(j .host_totals.memory_total_bytes.value)
hw=$(sysctl -n hw.memsize)
[ "$mem" = "$hw" ] && ok "host memory $mem = sysctl hw.memsize" ||
	no "host memory: fak $mem, sysctl hw.memsize $hw ($(j .host_totals.memory_total_bytes.reason))"
avail=$(j .host_totals.memory_available_bytes.value)
awk -v a="$avail" -v t="$hw" 'BEGIN { exit !(a > 0 && a <= t) }' && ok "available memory $avail" ||
	no "available memory $avail of $hw ($(j .host_totals.memory_available_bytes.reason))"
[ "$(j .host_totals.cpu_percent.available)" = true ] &&
	ok "host CPU $(j .host_totals.cpu_percent.value) % ($(j .host_totals.cpu_percent.source))" ||
	no "host CPU unavailable: $(j .host_totals.cpu_percent.reason)"
for axis in cpu memory io; do
	p=".host_totals.pressure.$axis.some_total_us"
	[ "$(j "$p.available")" = false ] && j "$p.reason" | grep -q PSI &&
		ok "pressure $axis: unavailable ($(j "$p.reason"))" ||
		no "pressure $axis: $(jq -c "$p" "$a") (macOS has no PSI: expected unavailable)"
done
cov=$(j .coverage.descendant_attribution)
[ "$cov" = sampled_pid_ppid_tree ] && ok "attribution $cov" || no "attribution $cov"
[ "$(j .coverage.process_snapshots)" -gt 5 ] 2>/dev/null &&
	ok "$(j .coverage.process_snapshots) tree censuses, $(j .coverage.processes_observed) members seen" ||
	no "tree censuses: $(j .coverage.process_snapshots)"
cpu=$(j .attribution.sut_cpu_seconds.value)
if [ "$(j .attribution.sut_cpu_seconds.available)" = true ]; then
	awk -v c="$cpu" 'BEGIN { exit !(c >= 1.0 && c <= 3.0) }' &&
		ok "SUT CPU $cpu s for two seconds of yes" ||
		no "SUT CPU $cpu s for two seconds of yes (expected 1 to 3 s)"
else
	no "SUT CPU unavailable: $(j .attribution.sut_cpu_seconds.reason)"
fi
rss=$(j .attribution.sut_rss_bytes.value)
[ "$(j .attribution.sut_rss_bytes.available)" = true ] && ok "SUT RSS $rss bytes" ||
	no "SUT RSS unavailable: $(j .attribution.sut_rss_bytes.reason)"
echo "verdict: $(j .verdict) $(jq -c '[.findings[]?.code]' "$a")"
cp "$a" "${TMPDIR:-/tmp}/fak-macos-attestation.json" &&
	echo "attestation kept in ${TMPDIR:-/tmp}/fak-macos-attestation.json"
exit $fail
