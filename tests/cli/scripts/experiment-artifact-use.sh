# The pinned artifact seen in use (issue 26): every census of a run's tree
# looks whether a process has "$FAK_ARTIFACT" open (/proc/PID/fd) or mapped
# (/proc/PID/maps), by device and inode, until one has; the run seals
# artifact_observed. A command that never touches the artifact fails at its
# first run by name (ARTIFACT_NOT_OBSERVED, derived again by --verify, so
# resealing the attestation without it does not remove it); a reader that
# only maps the file is seen; the file named by another path is the same file;
# a reader that holds it for less than a census interval is seen at its open.
set -u
. "$FIX/experiment/lib.sh"
run() {	# run DIR ARGS...: xp into DIR (a busy host may starve the census: try again)
	d=$1
	shift
	for t in 1 2 3 4; do
		rm -rf "$d" runs.count
		xp "$@" --out-dir "$d" >o.txt 2>e.txt
		rc=$?
		grep -q SAMPLER_COVERAGE_LIMITED e.txt || return $rc
	done
	return $rc
}

# 1. a command that ignores the artifact (the audit's case): no receipt
grep -v '^exec 3<' bench.sh >ignore.sh
chmod +x ignore.sh
if run ign --baseline ./ignore.sh --candidate 'TPS=120 ./ignore.sh'; then
	fail "a command that never opened the artifact was measured"
fi
grep -q "^  baseline warm-up 1 failed: ARTIFACT_NOT_OBSERVED: no process of the command's tree had the pinned artifact open or mapped at any census while it ran; the command must read the model \"\$FAK_ARTIFACT\" names (or the same file), and keep it open or mapped for more than a millisecond; see ign/logs/baseline-warmup-1.stdout and .stderr, and ign/attestations/baseline-warmup-1.json$" e.txt ||
	{ cat e.txt; fail "ignored: finding"; }
[ ! -e ign/baseline.json ] || fail "ignored: a receipt was written"
a=ign/attestations/baseline-warmup-1.json
[ "$(jq -r '[.verdict, .workload.artifact_observed, .findings[0].code] | join(" ")' "$a")" = \
	"invalid false ARTIFACT_NOT_OBSERVED" ] || fail "ignored: the sealed observation"
"$FAK" bench system-baseline --verify "$a" >v.txt 2>&1 || { cat v.txt; fail "ignored: --verify"; }
# an edited observation breaks the seal; one sealed anew is derived again
jq '.workload.artifact_observed = true' "$a" >edited.json
if "$FAK" bench system-baseline --verify edited.json >v.txt 2>&1; then fail "an edited observation verified"; fi
grep -q "canonical digest mismatch" v.txt || { cat v.txt; fail "edited: message"; }
resealed_refused "$a" ignored

# 2. a reader that maps the model and closes its descriptor is seen (open at the
# census its open woke, or in its maps); another path to the same file is the same
# file (device and inode)
ln -s model.bin alias.bin
cat >mapper.py <<'PY'
import ctypes, os, sys, time
# mmap(2) by hand: Python's mmap module keeps a descriptor of its own
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
fd = os.open(sys.argv[1], os.O_RDONLY)
p = libc.mmap(None, os.fstat(fd).st_size, 1, 2, fd, 0)  # PROT_READ, MAP_PRIVATE
os.close(fd)
assert p not in (None, ctypes.c_void_p(-1).value)
t = float(sys.argv[2])
time.sleep(8 / t)
print('{"tokens_per_second": %s, "end_to_end_milliseconds": %.3f, "quality": {"name": "exact_match", "score": 1, "higher_is_better": true}}' % (t, 8000 / t))
PY
run map --baseline 'python3 mapper.py alias.bin 50' --candidate 'python3 mapper.py alias.bin 60' ||
	{ cat e.txt; fail "mapper: the experiment failed"; }
for f in map/attestations/*.json; do
	# seen open at the census its open woke, or mapped at a later one
	jq -e '.workload.artifact_observed == true and (.workload.artifact_observation |
		test("^(open|mapped) by a process of the command'"'"'s tree at look [0-9]+ "))' \
		"$f" >/dev/null || { jq .workload "$f"; fail "mapper: $f"; }
done

# 3. a reader that holds it for 100 ms, between two censuses 250 ms apart: the open
# wakes the sampler, which looks at once. (100 ms, not less, so that a busy host's
# scheduling delay does not make the look late; without the wake, the 250 ms
# censuses would see it in each run only by chance, about 2 in 5, and every run
# of the experiment must show it)
short='sleep 0.3; (exec 4<"$FAK_ARTIFACT"; sleep 0.1); TPS=20 ./ignore.sh'
"$FAK" bench experiment cpu.fast --graph graph.json --artifact model.bin --revision r1 \
	--module bench@1 --profile-artifact profile.txt --machine-id-file machine-id \
	--baseline-duration 20ms --interval 250ms --witness-root "$xp_witnesses" \
	--baseline "$short" --candidate "$short x" --out-dir short >o.txt 2>e.txt ||
	{ cat e.txt; fail "short: the experiment failed"; }
for f in short/attestations/*.json; do
	jq -e '.workload.artifact_observed == true' "$f" >/dev/null || { jq .workload "$f"; fail "short: $f"; }
done

# 4. the fixture benchmark holds it open: seen, in every run, and the receipts pass
run open --baseline 'TPS=100 ./bench.sh' --candidate 'TPS=120 ./bench.sh' ||
	{ cat e.txt; fail "open: the experiment failed"; }
jq -e '[.system_baselines[].workload | .artifact_observed == true and
	(.artifact_observation | startswith("open by a process"))] | all and length == 3' open/candidate.json >/dev/null ||
	fail "open: a repetition does not show the artifact in use"
"$FAK" native-performance --graph graph.json --gate open/gate-request.json --json >g.json
[ "$(jq -r .classification g.json)" = pass ] || fail "open: gate $(jq -r .reason g.json)"
exit 0
