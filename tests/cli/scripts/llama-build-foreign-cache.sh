# fak-test: once
# examples/llama-cpp/build.sh refuses a build folder whose CMake cache belongs to another
# checkout (a LLAMA_DIR copied from elsewhere: cmake --build would build in, and write to,
# the checkout the cache names), before anything else, with what to do instead. A cache of
# this LLAMA_DIR, by its own or a linked name, passes that check (the run then stops at a
# compiler that does not exist, before any download or build).
set -eu
. "$ROOT/tests/lib.sh"
test_tmp
cache() {	# cache DIR HOME BUILD: a CMake cache in DIR/build recording HOME and BUILD
	mkdir -p "$1/build"
	printf '# This is the CMakeCache file.\nCMAKE_CACHEFILE_DIR:INTERNAL=%s\nCMAKE_HOME_DIRECTORY:INTERNAL=%s\n' \
		"$3" "$2" >"$1/build/CMakeCache.txt"
}
other=$TEST_TMP/other-checkout/build/llama-cpp
mine=$TEST_TMP/mine
real=$(cd "$TEST_TMP" && pwd -P)/mine
cache "$mine" "$other/src" "$other/build"
expect_code 1 env LLAMA_DIR="$mine" CC=/nonexistent/cc sh "$ROOT/examples/llama-cpp/build.sh"
expect_equal "example-llama-build: $mine/build belongs to another checkout: its CMake cache ($mine/build/CMakeCache.txt) records CMAKE_HOME_DIRECTORY '$other/src', not '$real/src'; remove $mine/build (rm -rf $mine/build) or pick another LLAMA_DIR" \
	"$(cat err.txt)" "a foreign cache: the refusal"
[ ! -s out.txt ] || fail "a foreign cache: something was done: $(cat out.txt)"
[ "$(ls "$mine")" = build ] || fail "a foreign cache: $mine now holds $(ls "$mine")"
# the source is this checkout's, the build folder another's
cache "$mine" "$real/src" "$other/build"
expect_code 1 env LLAMA_DIR="$mine" CC=/nonexistent/cc sh "$ROOT/examples/llama-cpp/build.sh"
expect_grep "records CMAKE_CACHEFILE_DIR '$other/build', not '$real/build'" err.txt
# this LLAMA_DIR's own cache, also through a symbolic link: on to the next check
cache "$mine" "$real/src" "$real/build"
ln -s "$mine" "$TEST_TMP/link"
for d in "$mine" "$TEST_TMP/link"; do
	expect_code 1 env LLAMA_DIR="$d" CC=/nonexistent/cc sh "$ROOT/examples/llama-cpp/build.sh"
	expect_equal "example-llama-build: '/nonexistent/cc' is missing: run sh tools/install-deps.sh" \
		"$(cat err.txt)" "$d: this checkout's cache"
done
