#!/bin/sh
# `make bench`: every benchmark script, each printing its own ratios.
set -eu
fak=$1
dir=$(dirname "$0")
for b in "$dir"/*.sh; do
	[ "$(basename "$b")" = run.sh ] && continue
	echo "== $(basename "$b")"
	sh "$b" "$fak"
done
