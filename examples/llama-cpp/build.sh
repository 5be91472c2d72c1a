#!/bin/sh
# Builds the llama.cpp example from registry packages alone (make example-llama-build):
#
#   1. the npm package node-llama-cpp, pinned in node-llama-cpp.version: `npm pack` fetches
#      that one package (not its dependencies, not the CUDA/Vulkan builds a full install
#      pulls, and nothing it would download at run time) into LLAMA_DIR/npm/;
#   2. the llama.cpp source it ships as a git bundle, cloned offline into
#      LLAMA_DIR/src/ (cloned again only when the bundle's commit changes);
#   3. llama-bench, llama-quantize and llama-server (for examples/llama-server), built
#      with Debian's cmake and a portable CPU set (AVX2, FMA, F16C; GGML_NATIVE=OFF: a native build on some VMs
#      emits AMX instructions the VM then refuses with SIGILL), incrementally in
#      LLAMA_DIR/build/;
#   4. the model: gguf_gen writes the F32 GGUF from a fixed seed, llama-quantize makes the
#      Q4_K_M file, and its sha256 must equal the pin of graph.json.
#
#   [LLAMA_DIR=build/llama-cpp] [CC=cc] examples/llama-cpp/build.sh
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
CC=${CC:-cc}
ex=examples/llama-cpp
dir=${LLAMA_DIR:-build/llama-cpp}
say() { echo "example-llama-build: $*"; }
die() { echo "example-llama-build: $*" >&2; exit 1; }

# A build folder configured for another checkout (a copy of another LLAMA_DIR) would build
# there: its CMake cache names that checkout's source and build folders, and cmake --build
# follows them. Refuse it before anything else.
cache=$dir/build/CMakeCache.txt
if [ -f "$cache" ]; then
	for key in CMAKE_HOME_DIRECTORY:INTERNAL=src CMAKE_CACHEFILE_DIR:INTERNAL=build; do
		want=$(cd "$dir" && pwd -P)/${key#*=}
		got=$(sed -n "s|^${key%=*}=||p" "$cache")
		# the same folder by another name (a symbolic link) is the same folder
		real=$(cd "$got" 2>/dev/null && pwd -P) || real=$got
		[ "$real" = "$want" ] || die "$dir/build belongs to another checkout: its CMake cache" \
			"($cache) records ${key%%:*} '$got', not '$want'; remove $dir/build" \
			"(rm -rf $dir/build) or pick another LLAMA_DIR"
	done
fi
for tool in npm git cmake "$CC" "${CXX:-c++}" jq sha256sum; do
	command -v "$tool" >/dev/null 2>&1 || die "'$tool' is missing: run sh tools/install-deps.sh"
done
for flag in avx2 fma f16c; do
	grep -qw "$flag" /proc/cpuinfo || die "this CPU has no $flag: the example's portable build needs AVX2, FMA and F16C"
done
version=$(cat "$ex/node-llama-cpp.version")
mkdir -p "$dir"

# 1. the package
pkg=$dir/npm/package
if [ "$(jq -r .version "$pkg/package.json" 2>/dev/null)" != "$version" ]; then
	rm -rf "$dir/npm"
	mkdir -p "$dir/npm"
	say "fetching node-llama-cpp@$version"
	(cd "$dir/npm" && npm pack --silent --no-fund "node-llama-cpp@$version" >/dev/null &&
		tar xzf "node-llama-cpp-$version.tgz" package/package.json \
			package/llama/gitRelease.bundle package/llama/llama.cpp.info.json &&
		rm "node-llama-cpp-$version.tgz")
fi
bundle=$pkg/llama/gitRelease.bundle

# 2. the source
head=$(git bundle list-heads "$bundle" | awk '$2 == "HEAD" { print $1 }')
[ -n "$head" ] || die "$bundle names no HEAD"
if [ "$(git -C "$dir/src" rev-parse HEAD 2>/dev/null)" != "$head" ]; then
	rm -rf "$dir/src"
	say "cloning llama.cpp $(echo "$head" | cut -c1-7) from the package's bundle"
	git -c advice.detachedHead=false clone --quiet "$bundle" "$dir/src"
fi

# 3. the tools; the server without its web UI (LLAMA_USE_PREBUILT_UI=OFF: the UI would
# be downloaded at build time; the API needs none). A build configured before the server
# was built here (LLAMA_BUILD_SERVER=OFF) is configured again with the same flags: the
# libraries already built stay as they are.
if [ ! -f "$dir/build/CMakeCache.txt" ] ||
	! grep -q '^LLAMA_BUILD_SERVER:BOOL=ON$' "$dir/build/CMakeCache.txt"; then
	cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
		-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
		-DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
		-DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
		>"$dir/cmake.log" 2>&1 ||
		{ tail -20 "$dir/cmake.log" >&2; die "cmake failed; see $dir/cmake.log"; }
fi
say "building llama-bench, llama-quantize and llama-server (about 12 minutes on 2 cores the first time)"
cmake --build "$dir/build" -j"$(nproc)" --target llama-bench llama-quantize llama llama-server \
	>"$dir/build.log" 2>&1 || { tail -20 "$dir/build.log" >&2; die "the build failed; see $dir/build.log"; }
# the example's warning flags are the project's (DESIGN.md)
warn="-std=c17 -Wall -Wextra -Wpedantic -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes
	-Wwrite-strings -Wcast-qual -Wvla -Wnull-dereference -Werror"
b=$dir/build
# word splitting of $warn is wanted
# shellcheck disable=SC2086
$CC $warn -O2 -I"$dir/src/include" -I"$dir/src/ggml/include" -c -o "$b/greedy.o" "$ex/greedy.c"
# llama.cpp is C++ and its CPU backend uses OpenMP: link with the C++ driver
${CXX:-c++} -o "$b/bin/greedy" "$b/greedy.o" "$b/src/libllama.a" "$b/ggml/src/libggml.a" \
	"$b/ggml/src/libggml-cpu.a" "$b/ggml/src/libggml-base.a" -fopenmp -lpthread -lm

# 4. the model
pin=$(jq -r '[.envelopes[].artifact_sha256] | unique | if length == 1 then .[0] else empty end' "$ex/graph.json")
[ -n "$pin" ] || die "$ex/graph.json must pin exactly one artifact_sha256"
model=$dir/model-q4_k_m.gguf
if [ -f "$model" ] && [ "$(sha256sum <"$model" | cut -d' ' -f1)" = "$pin" ]; then
	say "$model: present, sha256 $pin"
else
	rm -f "$model" "$dir/model-f32.gguf"
	# shellcheck disable=SC2086
	$CC $warn -O2 -o "$b/gguf_gen" "$ex/gguf_gen.c" -lm
	"$b/gguf_gen" "$dir/model-f32.gguf"
	"$dir/build/bin/llama-quantize" "$dir/model-f32.gguf" "$model" Q4_K_M >"$dir/quantize.log" 2>&1 ||
		{ tail -5 "$dir/quantize.log" >&2; die "llama-quantize failed; see $dir/quantize.log"; }
	rm -f "$dir/model-f32.gguf"
	got=$(sha256sum <"$model" | cut -d' ' -f1)
	[ "$got" = "$pin" ] || die "generated $model has sha256 $got; $ex/graph.json pins $pin"
	say "$model: generated, sha256 $pin"
fi
