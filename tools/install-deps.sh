#!/bin/sh
# Installs what fak needs to build and run every test on Debian 12: the
# Debian packages of tools/packages.txt, Node.js with npm, and the npm
# packages of tests/node (the independent RFC 8785 implementation the digest
# tests compare against; on x86_64 Linux, Zig's compiler for the macOS
# cross-compile check, an optional dependency npm skips elsewhere). The
# README's first command and .ci/run both call it, so they cannot drift apart.
#
#   sh tools/install-deps.sh [--dry-run]
#
# As root it runs apt-get itself (no sudo needed); as another user it uses
# sudo. A Node.js that already has npm (NodeSource, nvm, a tarball) is kept:
# Debian's npm conflicts with a nodejs package from elsewhere, so Debian's
# nodejs and npm are installed only when no npm is found. --dry-run prints
# the commands instead of running them.
set -eu
cd "$(dirname "$0")/.."
dry=
case "${1:-}" in
--dry-run) dry=1 ;;
"") ;;
*)
	echo "usage: sh tools/install-deps.sh [--dry-run]" >&2
	exit 2
	;;
esac

run() {
	if [ -n "$dry" ]; then
		echo "$*"
	else
		"$@"
	fi
}

if [ "$(id -u)" = 0 ]; then
	as_root=
elif command -v sudo >/dev/null 2>&1; then
	as_root=sudo
else
	echo "install-deps: apt-get needs root: run this as root, or install sudo" >&2
	exit 1
fi

node=
command -v npm >/dev/null 2>&1 || node="nodejs npm"

# word splitting of $as_root, $node and the package list is wanted
# shellcheck disable=SC2086
run $as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2046,SC2086
run $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
	$(cat tools/packages.txt) $node
run npm install --prefix tests/node --no-audit --no-fund --loglevel=error
