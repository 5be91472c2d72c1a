#!/bin/sh
# Writes the stub libraries `make cross-check` links the macOS fak against:
# libjansson.tbd and libcrypto.tbd (Apple's text-based stub format, which
# Zig's linker reads like the libSystem stubs it ships), each listing the
# symbols that the objects take from outside themselves and that belong to
# that library (json_*/jansson_*; OpenSSL's SHA256_* and friends). Every
# other outside symbol must come from libSystem, or the link fails: that
# is the check that fak calls nothing macOS lacks.
#
#   tools/macos-stubs.sh OUT-DIR OBJECT...
set -eu
out=$1
shift
nm=$(command -v llvm-nm-14 || command -v llvm-nm) ||
	{ echo "macos-stubs: llvm-nm is missing: run sh tools/install-deps.sh" >&2; exit 1; }
mkdir -p "$out"
tmp=$out/.symbols
"$nm" -u "$@" | awk 'NF == 1 && !/:$/ { print $1 } NF == 2 && $1 == "U" { print $2 }' |
	sort -u >"$tmp.u"
"$nm" --defined-only "$@" | awk 'NF == 3 { print $3 }' | sort -u >"$tmp.d"
comm -23 "$tmp.u" "$tmp.d" >"$tmp.ext"
# stub NAME INSTALL-NAME REGEX: the outside symbols matching REGEX
stub() {
	{
		echo "--- !tapi-tbd"
		echo "tbd-version: 4"
		echo "targets: [ x86_64-macos, arm64-macos ]"
		echo "install-name: '$2'"
		echo "exports:"
		echo "  - targets: [ x86_64-macos, arm64-macos ]"
		echo "    symbols: [ $(grep -E "$3" "$tmp.ext" | paste -sd, - | sed 's/,/, /g') ]"
		echo "..."
	} >"$out/$1.tbd"
}
stub libjansson /opt/homebrew/opt/jansson/lib/libjansson.4.dylib '^_(json|jansson)_'
stub libcrypto /opt/homebrew/opt/openssl@3/lib/libcrypto.3.dylib \
	'^_(SHA[0-9]*|EVP|OPENSSL|CRYPTO|ERR|RAND|BN)_'
rm -f "$tmp.u" "$tmp.d" "$tmp.ext"
