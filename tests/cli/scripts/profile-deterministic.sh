#!/bin/sh
# --profile and --profile-next print the same bytes on every run, for every
# accepted fixture, and nothing on stderr.
set -eu
for f in "$FIX"/profiles/synthetic-*.json; do
	for mode in --profile --profile-next; do
		"$FAK" native-performance $mode "$f" >a.out 2>a.err
		"$FAK" native-performance $mode "$f" >b.out 2>b.err
		cmp a.out b.out
		[ -s a.out ] || { echo "$mode $f: empty output"; exit 1; }
		[ ! -s a.err ] && [ ! -s b.err ] || { echo "$mode $f: stderr not empty"; exit 1; }
	done
done
