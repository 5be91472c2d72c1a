# The loop closed on the example: fak bench experiment, then --promote into
# copies of the example graph and the committed index: --next names the
# following lever, the front-door page shows the new CURRENT row,
# --verify-witnesses passes, and changing any byte of the witness makes it
# fail with the file named. The copy of the example graph asks for noise
# within 25% instead of 2%: a shared test machine's memory bandwidth varies
# far more from run to run than the example's own criterion allows (17% seen
# on the development VM); this test is about promotion, not noise. Its
# criterion also carries a host policy that lets other work use every core
# (docs/graph.md), so a busy host does not stop the gate from passing; a run
# noisier than even 25% is measured again, up to six times.
# fak-test: slow
set -u
. "$ROOT/tests/lib.sh"
. "$FIX/cpu-example.sh"
jq '.criteria[] |= (.maximum_noise_percent = 25 | .host_policy = {"maximum_non_sut_cpu_percent": 100,
	"maximum_sampler_duty_percent": 100, "maximum_psi_stall_percent": 100})' \
	"$ROOT/examples/cpu-decode/graph.json" >graph.json
cp graph.json before.json	# the graph before the promotion
cp "$ROOT/examples/cpu-decode/index.json" index.json
cp "$ROOT/docs/QWEN-PERFORMANCE-INDEX.md" page.md
np() { "$FAK" native-performance --graph graph.json "$@"; }

example_until_pass

# a numerical next witness on the real example: its quality run states exact_match (the
# fraction of greedy tokens equal to the reference, Q8_1's "exact argmax"); a gate that also
# names cosine and max_abs is refused with both named, nothing written
cp graph.json graph.keep
jq '(.levers[] | select(.id == "cpu.q8-row-blocked-sse2-matvec") | .next_witness_requirement) =
	{"kind": "numerical", "metrics": [{"metric": "cosine", "op": ">=", "value": 0.995},
	 {"metric": "exact_match", "op": "==", "value": 1}, {"metric": "max_abs", "op": "<=", "value": 0.02}]}' \
	graph.keep >graph.json
if np --index index.json --witness-root witnesses --promote $run >out.txt 2>err.txt; then
	fail "a numerical witness with missing metrics was promoted"; fi
grep -q '^fak native-performance: promote: refused; nothing written (2 findings):$' err.txt &&
	grep -q '^  lever "cpu.q8-row-blocked-sse2-matvec" needs a numerical witness: metric "cosine" >= 0.995 is missing: candidate.json.s run candidate-1 states only "exact_match"$' err.txt &&
	grep -q '^  lever "cpu.q8-row-blocked-sse2-matvec" needs a numerical witness: metric "max_abs" <= 0.02 is missing' err.txt ||
	{ cat err.txt; fail "the numerical refusal"; }
jq '(.levers[] | select(.id == "cpu.q8-row-blocked-sse2-matvec") | .next_witness_requirement) =
	{"kind": "numerical", "metrics": [{"metric": "exact_match", "op": "==", "value": 1}]}' \
	graph.keep >graph.json
np --index index.json --witness-root witnesses --promote $run >promote.txt || { cat promote.txt; fail "promote"; }
grep -q '^promoted cpu.q8-row-blocked-sse2-matvec in cpu-decode-synthetic-q8-linux-amd64-p2-t5: faster: median ' promote.txt ||
	{ cat promote.txt; fail "promote output"; }
grep -qx 'next: cpu.drop-row-recheck' promote.txt || fail "promote does not name the next lever"
np --next --json | jq -e '.lever.id == "cpu.drop-row-recheck"' >/dev/null || fail "--next did not advance"
np --json | jq -e '.levers[] | select(.id == "cpu.q8-row-blocked-sse2-matvec")
	| (.enabled | not) and .status == "partial" and .witnessed.classification == "witnessed"
	  and (.witnessed.receipt | startswith("witness cpu-decode-synthetic-q8-linux-amd64-p2-t5/"))' >/dev/null ||
	fail "the lever is not witnessed, or --promote enabled it (step 6 is --enable)"
# the claim says that the host was judged by the criterion's loosened ceilings
host="the host judged by the criterion's host policy (non-SUT CPU at most 100%, sampler duty at most 100%, PSI stall at most 100%), not the sampler's defaults"
np --json | jq -e --arg h "$host" '.levers[] | select(.id == "cpu.q8-row-blocked-sse2-matvec")
	| .witnessed.provenance | startswith("fak bench experiment (sealed metrics), " + $h)' \
	>/dev/null || { np --json | jq '.levers[].witnessed'; fail "the graph's claim hides the host policy"; }
jq -e --arg h "$host" '[.results[] | select(.lifecycle == "CURRENT")] | last | .status
	| contains("every repetition measured and sealed by fak, " + $h + "; decision faster: ")' index.json \
	>/dev/null || { jq '.results' index.json; fail "the index row hides the host policy"; }
day=$(jq -r .observed_on witnesses/*/*/*/MANIFEST.json)
np --frontdoor-md --index index.json --as-of "$day" --write-doc page.md || fail "--write-doc"
grep -q '^| \*\*CURRENT\*\* | `cpu-decode-synthetic-q8-linux-amd64-p2-t5` |' page.md || fail "no CURRENT row on the page"
np --index index.json --verify-witnesses witnesses >v.txt || { cat v.txt; fail "--verify-witnesses"; }
grep -q '^VERIFIED 1 witness folder under witnesses; ' v.txt || { cat v.txt; fail "verify output"; }

# the graph may only quote what the witness proves
cp graph.json graph.good
jq '(.levers[] | select(.id == "cpu.q8-row-blocked-sse2-matvec") | .witnessed.summary) |= sub("median [^;]*"; "median 1 -> 99 tok/s")' \
	graph.good >graph.json
if np --index index.json --verify-witnesses witnesses >/dev/null 2>err.txt; then fail "an edited witnessed summary verified"; fi
grep -q 'lever "cpu.q8-row-blocked-sse2-matvec": does not quote what its witness proves' err.txt || { cat err.txt; fail "quote"; }
cp graph.good graph.json

# any byte of any file of the witness: --verify-witnesses fails naming that file
w=$(cd witnesses && echo */*/*)
for f in $(cd "witnesses/$w" && find . -type f | sed 's|^\./||' | sort); do
	cp "witnesses/$w/$f" saved
	printf 'X' | dd of="witnesses/$w/$f" bs=1 seek=10 conv=notrunc 2>/dev/null
	if np --index index.json --verify-witnesses witnesses >/dev/null 2>err.txt; then
		fail "a changed byte in $f went unnoticed"; fi
	grep -q "$w/$f" err.txt || { cat err.txt; fail "the finding does not name $f"; }
	cp saved "witnesses/$w/$f"
done
np --index index.json --verify-witnesses witnesses >/dev/null || fail "restored witness does not verify"
# a copied (moved) folder, an orphaned one, a missing one
cp -r "witnesses/$w" "witnesses/$w-copy"
if np --index index.json --verify-witnesses witnesses >/dev/null 2>err.txt; then fail "a moved copy went unnoticed"; fi
grep -q "$w-copy/MANIFEST.json: its sha256 .* names the folder $w; the manifest was changed or the folder moved" \
	err.txt || { cat err.txt; fail "moved finding"; }
rm -rf "witnesses/$w-copy"
if "$FAK" native-performance --graph before.json --index "$ROOT/examples/cpu-decode/index.json" \
	--verify-witnesses witnesses >/dev/null 2>err.txt; then fail "an orphan went unnoticed"; fi
grep -q "^  $w: orphaned: no lever and no index row names it$" err.txt || { cat err.txt; fail "orphan finding"; }
rm -rf "witnesses/$w"
if np --index index.json --verify-witnesses witnesses >/dev/null 2>err.txt; then fail "a missing witness went unnoticed"; fi
grep -q 'lever "cpu.q8-row-blocked-sse2-matvec": its witness .* does not verify or does not exist' err.txt ||
	{ cat err.txt; fail "missing witness finding"; }
echo ok
