# Memory that adds up (issue 16): a workload of two processes that hold
# 24 MiB each at the same time. No one process's wait4 ru_maxrss sees both,
# the sampled tree does: every attestation's workload.peak_rss_bytes is at
# least its sampled SUT-tree RSS and says how it was found, each receipt's
# memory.peak_bytes is never below its resident_bytes and counts both
# processes, and the gate's memory check reads that peak.
# fak-test: slow
set -u
. "$FIX/experiment/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
cat >hog.sh <<'HOG'
python3 -c 'import time; b = b"\1" * (24 << 20); time.sleep(0.8)' &
python3 -c 'import time; b = b"\1" * (24 << 20); time.sleep(0.8)' &
wait
exec ./bench.sh
HOG
# a census every 100 ms sees both processes together for 0.8 s; a generous
# duty ceiling, so that one slow census on a busy machine does not end the run
"$FAK" bench experiment cpu.fast --graph graph.json --artifact model.bin --revision r1 \
	--module bench@1 --profile-artifact profile.txt --machine-id-file machine-id \
	--baseline-duration 20ms --interval 100ms --max-sampler-duty-percent 50 \
	--baseline 'sh hog.sh' --candidate 'sh hog.sh' \
	--out-dir run >out.txt 2>err.txt || { cat err.txt; fail "the experiment did not run"; }
n=0
for a in run/attestations/*.json; do
	n=$((n + 1))
	jq -e '.workload.peak_rss_bytes.available' "$a" >/dev/null || fail "$a: no peak"
	jq -e '(.workload.peak_rss_bytes.source | test("^(estimate: |cgroup v2 memory.peak)"))' \
		"$a" >/dev/null || fail "$a: peak source $(jq .workload.peak_rss_bytes.source "$a")"
	jq -e '(.attribution.sut_rss_bytes.available | not) or
		.workload.peak_rss_bytes.value >= .attribution.sut_rss_bytes.value' "$a" >/dev/null ||
		fail "$a: peak $(jq .workload.peak_rss_bytes.value "$a") below the sampled tree"
done
[ "$n" -ge 8 ] || fail "only $n attestations"
for r in baseline candidate; do
	jq -e '.memory.peak_bytes >= .memory.resident_bytes' "run/$r.json" >/dev/null ||
		fail "$r: $(jq -c .memory "run/$r.json")"
	# both processes at once: 48 MiB of written pages, more than either holds
	jq -e '.memory.peak_bytes >= 48 * 1048576' "run/$r.json" >/dev/null ||
		fail "$r: peak $(jq .memory.peak_bytes "run/$r.json") does not count both processes"
done
want="peak=$(jq .memory.peak_bytes run/candidate.json) ceiling=1073741824"
got=$(jq -r '.checks[] | select(.name == "memory") | .detail' run/gate.json)
[ "$got" = "$want" ] || fail "gate memory check: $got, want $want"
echo "peak $(jq .memory.peak_bytes run/candidate.json) bytes: $(jq -r .workload.peak_rss_bytes.source \
	run/attestations/candidate-1.json)"
