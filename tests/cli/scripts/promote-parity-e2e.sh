# A parity campaign end to end on the CPU example (docs/experiments.md, "A parity
# campaign"): a copy of the example graph makes the blocked-kernel lever's next
# witness a parity campaign of fak-native (the scalar kernel, the envelope's
# engine) against example-blocked (the blocked kernel, whose runs state that
# engine with decode --engine), on the one pinned weights file. fak bench
# experiment --parity runs them interleaved, each run's engine observed and the
# artifact seen in use, and writes parity.json; --promote derives the ratio again
# from the sealed runs and records it as the lever's witness, labelled parity, with
# a DIAGNOSTIC index row that quotes no gain; --verify-witnesses passes. A plain A/B
# of the same lever is refused before it runs.
# fak-test: slow
set -u
. "$ROOT/tests/lib.sh"
. "$FIX/cpu-example.sh"
lever=cpu.q8-row-blocked-sse2-matvec
env=cpu-decode-synthetic-q8-linux-amd64-p2-t5
jq --arg l "$lever" '.criteria[] |= (.host_policy = {"maximum_non_sut_cpu_percent": 100,
		"maximum_sampler_duty_percent": 100, "maximum_psi_stall_percent": 100})
	| (.levers[] | select(.id == $l) | .next_witness_requirement) =
		{"kind": "parity", "metrics": [], "engines": ["fak-native", "example-blocked"]}' \
	"$ROOT/examples/cpu-decode/graph.json" >graph.json
cp "$ROOT/examples/cpu-decode/index.json" index.json
np() { "$FAK" native-performance --graph graph.json "$@"; }
xp() {	# xp OUT [env...]: the example's experiment.sh on this graph
	out=$1
	shift
	env "$@" GRAPH=$PWD/graph.json WITNESS_ROOT=$PWD/witnesses BUILD=${build#"$ROOT"/} FAK=$FAK \
		"$ROOT/examples/cpu-decode/experiment.sh" "$PWD/$out" $lever \
		--baseline-duration 100ms --interval 20ms --machine-id-file "$PWD/machine-id"
}

# a throughput A/B does not witness a parity lever: refused before anything runs
if xp ab >ab.txt 2>&1; then fail "an A/B of a parity lever ran"; fi
grep -q "^  lever \"$lever\" needs a parity campaign of fak-native against example-blocked (its next_witness_requirement), not an A/B: run it with --parity" ab.txt ||
	{ cat ab.txt; fail "the A/B refusal"; }

# a repetition on a host busier than the criterion's policy makes the campaign fail
# (every repetition must be clean): measured again, up to four times
for try in 1 2 3 4; do
	rm -rf run witnesses
	xp run PARITY_ENGINE=example-blocked >xp.txt 2>&1 && break
	grep -q 'not clean: a parity ratio counts only repetitions measured on a quiet host' xp.txt &&
		[ $try -lt 4 ] || { cat xp.txt; fail "the campaign"; }
	echo "try $try: a repetition was not clean"
done
grep -q '^parity: fak-native / example-blocked tok/s [0-9.]* (90% interval ' xp.txt || { cat xp.txt; fail "summary"; }
jq -e '.result == "parity" and ([.arms[].engine] == ["fak-native", "example-blocked"])
	and .parity.ratio < 1 and (.arms[1].command | contains("--kernel blocked --engine example-blocked"))' \
	run/parity.json >/dev/null || { cat run/parity.json; fail "parity.json"; }
# every run states its engine and used the one pinned artifact
for a in run/attestations/*.json; do
	case $a in */candidate-*) want=example-blocked ;; *) want=fak-native ;; esac
	jq -e --arg e "$want" '.workload.metrics.engine == $e and .workload.artifact_observed == true' "$a" \
		>/dev/null || { jq .workload "$a"; fail "$a: engine $want, artifact in use"; }
done

np --index index.json --witness-root witnesses --promote run >promote.txt 2>err.txt ||
	{ cat err.txt; fail "promote"; }
grep -q "^promoted $lever in $env: parity: fak-native / example-blocked tok/s " promote.txt ||
	{ cat promote.txt; fail "promote output"; }
np --json | jq -e --arg l "$lever" '.levers[] | select(.id == $l) | (.enabled | not)
	and (.witnessed.summary | startswith("parity: fak-native / example-blocked tok/s"))' >/dev/null ||
	fail "the lever's witness is not the parity ratio"
jq -e '.results[-1] | .lifecycle == "DIAGNOSTIC" and .quotes_gain == false' index.json >/dev/null ||
	{ jq '.results[-1]' index.json; fail "the index row"; }
np --index index.json --verify-witnesses witnesses >v.txt || { cat v.txt; fail "--verify-witnesses"; }
grep -q '^VERIFIED 1 witness folder under witnesses; ' v.txt || { cat v.txt; fail "verify output"; }
echo ok
