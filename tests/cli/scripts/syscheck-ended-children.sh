#!/bin/sh
# A host kept busy by processes that each start and end within the sample (a
# shell loop of short commands, a build's compilers) is in neither process
# scan of `fak bench system-check`; host.consumers must still name who
# spawned them, with the CPU of its children that ended. A fake /proc that
# the script changes between the two scans (the sample is 3 s, the change
# comes 1 s in), so other work on the machine cannot crowd the rows out:
#   pid 300 (sshd) is in both scans; its waited-for children used 150 ticks;
#   pid 400 (make) started in between; its children used 120 ticks, itself 4.
set -eu
. "$ROOT/tests/lib.sh"

cp -R "$FIX/syscheck/quiet" tree
proc=tree/proc
# put: file CONTENT, replaced atomically (a scan never reads half a file)
put() {
	printf '%s\n' "$2" >"$1.tmp"
	mv "$1.tmp" "$1"
}

FAK_PROC_ROOT=$proc FAK_SYS_ROOT=tree/sys "$FAK" bench system-check --sample 3s --json \
	>out.json &
check=$!
sleep 1
put $proc/stat "cpu  800 0 100 9400 0 0 0 0 0 0
cpu0 425 0 25 2350 0 0 0 0 0 0"
put $proc/300/stat "300 (sshd) S 1 300 300 0 -1 4194560 100 0 0 0 20 10 140 10 20 0 1 0 100 \
10000000 64 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0"
mkdir $proc/400
put $proc/400/stat "400 (make) S 1 400 400 0 -1 4194560 100 0 0 0 3 1 100 20 20 0 1 0 \
99950 10000000 64 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0"
rc=0
wait $check || rc=$?
expect_equal 1 "$rc" "system-check's exit status (something disturbs)"
jq -r '.findings[] | select(.name == "host.consumers") | .status + " " + .detail' \
	out.json >consumers.txt
cat consumers.txt
expect_grep '^disturbs processes above 5% of one CPU (in the sample): ' consumers.txt
expect_grep 'sshd (pid 300) [0-9.]*% in children that ended' consumers.txt "the waited-for children of a process in both scans"
expect_grep 'make (pid 400) [0-9.]*% in children that ended' consumers.txt "the children of a process that started in the sample"
expect_no_grep 'sshd (pid 300) [0-9.]*%[,]' consumers.txt "sshd's own CPU did not change"
