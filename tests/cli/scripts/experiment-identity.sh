#!/bin/sh
# A run's engine comes from what ran (issue 26). The audit: `fak bench
# experiment --metrics llama-bench` on a fak-native envelope passed the gate
# and would have been promoted, the receipts' engine copied from the
# envelope. Now the identity a run's output states is sealed with its
# metrics (llama-bench: llama.cpp, its build, backends, model file and type;
# a metrics line: the engine and forward path it states), the runner refuses
# a run whose identity is not the envelope's at that run, and so do compare,
# gate and promotion for receipts whose sealed runs show another engine.
set -u
. "$FIX/experiment/lib.sh"
cp "$FIX"/metrics/llama-bench-real/*.json* .
cp graph.json native.json
printf '#!/bin/sh\nsleep 0.05 <"$FAK_ARTIFACT"\necho "{\\"name\\": \\"exact_match\\", \\"score\\": 1, \\"higher_is_better\\": true}"\n' >q.sh
chmod +x q.sh
fwd=$(jq -r '.envelopes[0].forward_path' graph.json)

# the audit: llama-bench's output on the fak-native envelope, refused at
# the first run, by name
expect_code 1 xp --metrics llama-bench --quality-command ./q.sh \
	--baseline 'sleep 0.05 <"$FAK_ARTIFACT"; cat p4-n8.jsonl' --candidate 'sleep 0.05 <"$FAK_ARTIFACT"; cat p4-n8.json' \
	--out-dir audit
expect_equal "  baseline warm-up 1 shows engine \"llama.cpp\" (build \"de3ff81\", backends \"CPU\", \
model file \"model-q4_k_m.gguf\", model type \"llama ?B Q4_K - Medium\"), but envelope \
\"test-cpu-p4-t8\" names engine \"fak-native\": a run of one engine cannot witness another's \
envelope; see audit/logs/baseline-warmup-1.stdout" "$(sed -n 2p err.txt)" "the audit's run"
[ ! -e audit/baseline.json ] && [ ! -e audit/gate.json ] || fail "the audit wrote receipts"

# a metrics line that states another engine, or another forward path
line='{"tokens_per_second": 100, "end_to_end_milliseconds": 80, "quality": {"name": "exact_match", "score": 1, "higher_is_better": true}'
printf '#!/bin/sh\nsleep 0.1 <"$FAK_ARTIFACT"\necho %s\n' "'$line, \"engine\": \"llama.cpp\"}'" >other-engine.sh
printf '#!/bin/sh\nsleep 0.1 <"$FAK_ARTIFACT"\necho %s\n' "'$line, \"engine\": \"fak-native\", \"forward_path\": \"cpu/other\"}'" >other-path.sh
printf '#!/bin/sh\nsleep 0.1 <"$FAK_ARTIFACT"\necho %s\n' "'$line, \"engine\": \"fak-native\", \"forward_path\": \"$fwd\"}'" >stated.sh
chmod +x other-engine.sh other-path.sh stated.sh
expect_code 1 xp --baseline ./stated.sh --candidate ./other-engine.sh --out-dir engine
expect_grep '^  candidate warm-up 1 shows engine "llama.cpp", but envelope "test-cpu-p4-t8" names engine "fak-native": a run of one engine cannot witness another.s envelope; see engine/logs/candidate-warmup-1.stdout$' err.txt
expect_code 1 xp --baseline ./other-path.sh --candidate ./stated.sh --out-dir path
expect_grep "^  baseline warm-up 1 states forward path \"cpu/other\", but envelope \"test-cpu-p4-t8\" pins \"$fwd\"; see path/logs/baseline-warmup-1.stdout\$" err.txt
# a line that states only llama-bench's members is refused as a metrics line
printf '#!/bin/sh\necho %s\n' "'$line, \"build_commit\": \"abc\"}'" >build.sh
chmod +x build.sh
expect_code 1 xp --baseline ./build.sh --candidate ./build.sh --out-dir build
expect_grep 'metrics line: build_commit: is what fak reads from llama-bench.s output; a metrics line states its engine and forward_path' err.txt

# the llama.cpp envelope: the same output is its evidence; a build the
# forward path does not name is refused
llama_graph
expect_code 0 xp --metrics llama-bench --quality-command ./q.sh \
	--baseline 'sleep 0.05 <"$FAK_ARTIFACT"; cat p4-n8.jsonl' --candidate 'sleep 0.05 <"$FAK_ARTIFACT"; cat p4-n8.json' --out-dir llama
jq -e '.workload.metrics | .engine == "llama.cpp" and .build_commit == "de3ff81"
	and .backends == "CPU" and .model_file == "model-q4_k_m.gguf"' \
	llama/attestations/baseline-1.json >/dev/null || fail "sealed identity"
"$FAK" bench system-baseline --verify llama/attestations/baseline-1.json \
	--log llama/logs/baseline-1.stdout >/dev/null || fail "--verify --log"
sed 's/de3ff81/0badc0de/' p4-n8.jsonl >other-build.jsonl
expect_code 1 xp --metrics llama-bench --quality-command ./q.sh \
	--baseline 'sleep 0.05 <"$FAK_ARTIFACT"; cat other-build.jsonl' --candidate 'sleep 0.05 <"$FAK_ARTIFACT"; cat p4-n8.json' \
	--out-dir build2
expect_grep '^  baseline warm-up 1 shows build "0badc0de", which envelope "test-cpu-p4-t8".s forward path "llama.cpp de3ff81 ggml-cpu" does not name: pin the build in the forward path (a new envelope); see build2/logs/baseline-warmup-1.stdout$' err.txt

# receipts of llama.cpp runs that claim the fak-native envelope (as the
# audit's were written): compare and gate refuse them, naming the runs
for side in baseline candidate; do
	jq --arg f "$fwd" '.execution.engine = "fak-native" | .execution.forward_path = $f' \
		"llama/$side.json" >"claim-$side.json"
done
expect_code 1 "$FAK" native-performance --graph native.json --compare claim-baseline.json \
	--candidate claim-candidate.json
expect_grep '^  system_baselines\[2\]: the run shows engine "llama.cpp" (build "de3ff81", backends "CPU", model file "model-q4_k_m.gguf", model type "llama ?B Q4_K - Medium"), but envelope "test-cpu-p4-t8" names engine "fak-native": a run of one engine cannot witness another.s envelope$' err.txt
jq --arg f "$fwd" --slurpfile a claim-baseline.json --slurpfile c claim-candidate.json '
	.policy.required_engine = "fak-native" | .policy.required_forward_path = $f
	| .last_accepted = $a[0] | .candidate = $c[0]' llama/gate-request.json >request.json
expect_code 1 "$FAK" native-performance --graph native.json --gate request.json
expect_grep '^  system_baselines\[0\]: the run shows engine "llama.cpp" (build "de3ff81"' err.txt
expect_no_grep '^gate ' out.txt
# a benchmark that states its identity: observed, and the gate passes
cp native.json graph.json
. "$FIX/experiment/promote.sh"
cp "$ROOT/examples/cpu-decode/index.json" index.json
rm -rf wit
pass_run observed
jq -e '.engine_identity == "observed"' observed/candidate.json >/dev/null || fail "observed"
expect_equal 'pass observed: every run of both receipts stated engine fak-native' \
	"$(jq -r '.checks[] | select(.name == "identity") | .status + " " + .detail' observed/gate.json)" \
	"the identity check"
# one that states nothing: declared, and the gate investigates by name
rm -rf wit runs.count
xp --baseline 'DECLARED=1 TPS=100 ./bench.sh' --candidate 'DECLARED=1 TPS=120 ./bench.sh' \
	--out-dir declared >/dev/null 2>&1 || fail "declared run"
jq -e '.engine_identity == "declared"' declared/baseline.json >/dev/null || fail "declared"
expect_equal 'investigate: the engine identity is declared, not observed (see the identity check)' \
	"$(jq -r '.classification + ": " + .reason' declared/gate.json)" "declared gate"
expect_equal 'investigate last_accepted declared, candidate declared: no sealed run stated its engine, so fak-native is only the graph'"'"'s word; have the benchmark state it (engine and forward_path in its metrics line), or set allow_declared_identity in the policy' \
	"$(jq -r '.checks[] | select(.name == "identity") | .status + " " + .detail' declared/gate.json)" \
	"declared check"
jq -e 'has("bisect") | not' declared/gate.json >/dev/null || fail "a bisect packet for evidence"
# a receipt that claims observed runs it does not have is refused
jq '.engine_identity = "observed"' declared/candidate.json >claim.json
expect_code 1 "$FAK" native-performance --graph graph.json --compare declared/baseline.json \
	--candidate claim.json
expect_grep '^  engine_identity: records "observed", but not every repetition.s sealed run stated its engine: the identity is the graph.s word ("declared")$' err.txt
# --allow-declared-identity: the gate passes and says why; promotion refuses
rm -rf wit runs.count
xp --baseline 'DECLARED=1 TPS=100 ./bench.sh' --candidate 'DECLARED=1 TPS=120 ./bench.sh' \
	--allow-declared-identity --out-dir allowed >/dev/null 2>&1 || fail "allowed run"
jq -e '.policy.allow_declared_identity == true' allowed/gate-request.json >/dev/null ||
	fail "the policy does not allow it"
expect_equal 'pass pass last_accepted declared, candidate declared; the policy allows a declared identity (allow_declared_identity)' \
	"$(jq -r '.classification + " " + (.checks[] | select(.name == "identity") | .status + " " + .detail)' allowed/gate.json)" \
	"allowed gate"
refused allowed '^  gate-request.json: policy.allow_declared_identity is not what envelope\|policy has members the strict policy has not'
echo "identity from evidence ok"
