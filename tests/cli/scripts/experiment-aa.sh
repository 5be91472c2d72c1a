# The A/A guard reads what ran, not text (issue 26): two arms are an A/A when
# their commands are the same shell words after quote removal and the
# executable each names has the same sha256 (sealed per run as
# workload.program_sha256), whatever the revision labels say. The audit's two
# cases: identical commands under --baseline-revision r1 --candidate-revision r2
# (the forgot-to-rebuild case), and ./bench.sh ok against ./bench.sh 'ok'. The
# summary says so, with the labels that differ, and --promote refuses both.
set -u
. "$FIX/experiment/lib.sh"
. "$FIX/experiment/promote.sh"
cp "$ROOT/examples/cpu-decode/index.json" index.json
sha=$(sha256sum bench.sh | cut -c1-64)
labels() {	# labels DIR BASELINE CANDIDATE: an experiment with revision labels per arm
	rm -rf "$1" runs.count
	"$FAK" bench experiment cpu.fast --graph graph.json --artifact model.bin \
		--baseline-revision r1 --candidate-revision r2 --module bench@1 \
		--profile-artifact profile.txt --machine-id-file machine-id \
		--baseline-duration 20ms --interval 10ms --witness-root scratch \
		--baseline "$2" --candidate "$3" --out-dir "$1" >"$1.txt" 2>e.txt || { cat e.txt; fail "run $1"; }
}

# 1. the same command, two revision labels, one executable
labels rev 'TPS=100 ./bench.sh' 'TPS=100 ./bench.sh'
jq -e --arg s "$sha" '[.system_baselines[].workload.program_sha256 == $s] | all' rev/baseline.json >/dev/null ||
	fail "rev: the sealed executable digest is not bench.sh's"
"$FAK" native-performance --graph graph.json --compare rev/baseline.json --candidate rev/candidate.json >/dev/null ||
	fail "rev: --compare refused"
tr -s ' \n' ' ' <rev.txt >rev.flat
grep -q "note A/A: calibration, not a witness (both arms ran the same command and the same executable (sha256 $(echo "$sha" | cut -c1-12)); the revision labels differ (r1, r2) but the executables do not: was the candidate rebuilt?; --promote refuses it)" rev.flat ||
	{ cat rev.txt; fail "rev: A/A note"; }
refused rev "^  baseline.json and candidate.json: both arms ran the same command and the same executable (sha256 $(echo "$sha" | cut -c1-12)); the revision labels differ (r1, r2) but the executables do not: was the candidate rebuilt?: A/A: calibration, not a witness; an A/B needs a candidate that differs$"

# 2. the same words once the shell removed the quotes
rm -rf q runs.count
xp --baseline './bench.sh ok' --candidate "./bench.sh 'ok'" --out-dir q >q.txt 2>e.txt || { cat e.txt; fail "run q"; }
tr -s ' \n' ' ' <q.txt >q.flat
grep -q "note A/A: calibration, not a witness (both arms ran the same command and the same executable (sha256 $(echo "$sha" | cut -c1-12)); --promote refuses it)" q.flat ||
	{ cat q.txt; fail "quotes: A/A note"; }
refused q "^  baseline.json and candidate.json: both arms ran the same command and the same executable"

# 3. words that differ are an A/B, whatever the executable
rm -rf ab runs.count
xp --baseline './bench.sh ok' --candidate "./bench.sh 'o k'" --out-dir ab >ab.txt 2>e.txt || { cat e.txt; fail "run ab"; }
if grep -q "A/A" ab.txt; then cat ab.txt; fail "ab: an A/B called an A/A"; fi
exit 0
