#!/bin/sh
# What `fak bench system-check --sample 0` costs next to one `ps` listing of
# every process by CPU (the usual way to find what keeps a machine busy):
# fak reads every /proc/PID/stat too, plus the machine's settings. Both run
# 30 times under hyperfine (no shell); printed: each mean wall and CPU time,
# and fak's as a ratio of ps's. pyperf's `system show` is the natural peer
# but is not packaged for Debian here. usage: bench/syscheck.sh BUILD/fak
set -eu
fak=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hyperfine -N -i --warmup 3 --runs 30 --export-json "$tmp/h.json" \
	"$fak bench system-check --sample 0" 'ps -e -o pid,comm,pcpu --sort=-pcpu' >/dev/null 2>&1
n=$(ls /proc | grep -c '^[0-9]')
jq -r --arg n "$n" '.results as $r
	| ($r[0].mean) as $fw | ($r[1].mean) as $pw
	| ($r[0].user + $r[0].system) as $fc | ($r[1].user + $r[1].system) as $pc
	| def ms: . * 10000 | round / 10;
	  "processes  \($n)",
	  "fak        wall \($fw | ms) ms  cpu \($fc | ms) ms",
	  "ps         wall \($pw | ms) ms  cpu \($pc | ms) ms",
	  "ratio      wall \($fw / $pw * 100 | round / 100)"
	  + "  cpu \($fc / $pc * 100 | round / 100)  (fak / ps)"' \
	"$tmp/h.json"
