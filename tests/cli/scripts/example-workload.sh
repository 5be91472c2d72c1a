# The runnable example (examples/cpu-decode): `make example-build` builds the
# workload, generates or reuses the weights whose sha256 the example graph
# pins and writes a profile; every kernel speaks the metrics line with
# exact_match 1 and the same tokens and logits; corrupted weights lower the
# score or are refused; a reference made for another P/T is refused.
# fak-test: slow
set -eu
build=$(dirname "$FAK")
dec=$build/example/decode
w=$build/example/weights.bin
ref=$ROOT/examples/cpu-decode/reference.txt
graph=$ROOT/examples/cpu-decode/graph.json

make -s -C "$ROOT" BUILD="$build" example-build >build.log 2>&1 || { cat build.log; exit 1; }
pin=$(jq -r '.envelopes[0].artifact_sha256' "$graph")
[ "$(sha256sum <"$w" | cut -d' ' -f1)" = "$pin" ] || { echo "weights do not match the pin $pin"; exit 1; }
# the profile: six phases in order, each with a start and a positive duration
jq -e '.schema == "fak-example-cpu-decode-profile/v1" and
       ([.phases[].name] == ["load-setup", "prefill", "first-token", "steady-decode", "verification", "teardown"]) and
       all(.phases[]; .start_milliseconds >= 0 and .duration_milliseconds >= 0)' \
	"$build/example/profile.json" >/dev/null || { echo "bad profile"; cat "$build/example/profile.json"; exit 1; }
# the envelope's P/T and the reference agree
p=$(jq '.envelopes[0].prompt_tokens' "$graph")
t=$(jq '.envelopes[0].decode_tokens' "$graph")
grep -qx "prompt_tokens $p" "$ref" && grep -qx "decode_tokens $t" "$ref" || { echo "reference is not for P=$p T=$t"; exit 1; }

# metrics LINE: the protocol fak bench experiment reads; exactly the allowed
# members, positive times, a score, and the engine and forward path of the
# example's envelope (what ran, in its own words)
metrics_ok() {
	printf '%s\n' "$1" | jq -e '
	  (keys - ["tokens_per_second", "end_to_end_milliseconds", "ttft_milliseconds",
	           "prefill_milliseconds", "decode_milliseconds", "quality", "engine",
	           "forward_path"]) == [] and
	  .engine == "fak-native" and .forward_path == "cpu/q8-matvec-v1" and
	  .tokens_per_second > 0 and .end_to_end_milliseconds > 0 and .ttft_milliseconds > 0 and
	  .prefill_milliseconds > 0 and .decode_milliseconds > 0 and
	  .end_to_end_milliseconds >= .decode_milliseconds and
	  (.quality | keys) == ["higher_is_better", "name", "score"] and
	  .quality.name == "exact_match" and .quality.higher_is_better == true' >/dev/null
}

first=
for run in "--kernel scalar" "--kernel blocked" "--kernel blocked --no-row-check"; do
	# shellcheck disable=SC2086
	"$dec" --weights "$w" --reference "$ref" --prompt-tokens "$p" --decode-tokens "$t" $run >out.txt
	last=$(grep -v '^$' out.txt | tail -1)
	metrics_ok "$last" || { echo "bad metrics line for $run: $last"; exit 1; }
	[ "$(printf '%s\n' "$last" | jq '.quality.score')" = 1 ] || { echo "score is not 1 for $run"; cat out.txt; exit 1; }
	# tokens and a digest of every logit: bit-identical across kernels
	same=$(grep -E '^(tokens|logits):' out.txt)
	[ "$(echo "$same" | wc -l)" = 2 ] || { echo "no tokens/logits lines for $run"; exit 1; }
	if [ -z "$first" ]; then first=$same; elif [ "$same" != "$first" ]; then
		echo "output differs for $run:"; echo "$first"; echo "$same"; exit 1
	fi
done

# 4 MiB of the first layer zeroed: the tokens change, the score drops
cp "$w" bad.bin
dd if=/dev/zero of=bad.bin bs=1M seek=1 count=4 conv=notrunc status=none
"$dec" --weights bad.bin --reference "$ref" --kernel blocked >out.txt
last=$(tail -1 out.txt)
metrics_ok "$last" || { echo "bad metrics line for corrupted weights: $last"; exit 1; }
printf '%s\n' "$last" | jq -e '.quality.score < 1' >/dev/null || { echo "corrupted weights scored 1: $last"; exit 1; }
# two bytes changed: the logits differ, but greedy tokens may not (the
# artifact sha256 pin is what catches this; the runner checks it)
cp "$w" bad.bin
printf 'XX' | dd of=bad.bin bs=1 seek=100000000 conv=notrunc status=none
"$dec" --weights bad.bin --reference "$ref" --kernel blocked >out.txt
[ "$(grep '^logits:' out.txt)" != "$(echo "$first" | grep '^logits:')" ] || { echo "a changed weight left the logits equal"; exit 1; }
# a broken header, a truncated file: refused, exit 1, no metrics line
printf 'Z' | dd of=bad.bin bs=1 seek=3 conv=notrunc status=none
if "$dec" --weights bad.bin --reference "$ref" >out.txt 2>err.txt; then echo "bad magic accepted"; exit 1; fi
grep -q "is not a weights file of this workload (bad magic)" err.txt || { cat err.txt; exit 1; }
[ ! -s out.txt ] || { echo "refusal wrote to stdout"; exit 1; }
head -c 1000 "$w" >short.bin
if "$dec" --weights short.bin --reference "$ref" >out.txt 2>err.txt; then echo "short file accepted"; exit 1; fi
grep -q "has 1000 bytes; the model needs" err.txt || { cat err.txt; exit 1; }
# a reference for another decode length, and usage errors
set +e
"$dec" --weights "$w" --reference "$ref" --decode-tokens 6 >out.txt 2>err.txt
rc=$?
set -e
[ $rc = 1 ] && grep -q "was made for another model or another prompt/decode length" err.txt || { echo "rc $rc"; cat err.txt; exit 1; }
set +e
"$dec" --weights "$w" --reference "$ref" --kernel avx9 >/dev/null 2>err.txt
rc=$?
set -e
[ $rc = 2 ] && grep -q "unknown kernel 'avx9'" err.txt || { echo "rc $rc"; cat err.txt; exit 1; }
# --generate never replaces an existing file
if "$dec" --generate "$w" 2>err.txt; then echo "--generate replaced the weights"; exit 1; fi
grep -q "already exists; remove it first" err.txt || { cat err.txt; exit 1; }
echo ok
