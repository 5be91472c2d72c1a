# fak started with standard input, output or error closed opens /dev/null in
# their place first, so no file it opens later (the cgroup folder, --out)
# becomes the command's output or its own. Each run must succeed and its
# attestation must say the command succeeded.
set -u
O="--baseline-duration 30ms --interval 10ms"
check() {	# check FILE
	$FAK bench system-baseline --verify "$1" >/dev/null || { echo "$1 does not verify"; exit 1; }
	/usr/bin/python3 -c "import json, sys; d = json.load(open('$1')); sys.exit(d['command_exit_code'] != 0 or d['verdict'] == 'invalid')" ||
		{ echo "$1: the command failed"; exit 1; }
}
$FAK bench system-baseline $O --out err.json -- sh -c 'echo out; echo err >&2' 2>&- >/dev/null
[ $? = 0 ] || { echo "stderr closed: fak failed"; exit 1; }
check err.json
$FAK bench system-baseline $O --out out.json -- sh -c 'echo out; echo err >&2' >&- 2>/dev/null
[ $? = 0 ] || { echo "stdout closed: fak failed"; exit 1; }
check out.json
$FAK bench system-baseline $O --out in.json -- sh -c 'echo out; echo err >&2' <&- >/dev/null 2>&1
[ $? = 0 ] || { echo "stdin closed: fak failed"; exit 1; }
check in.json
$FAK bench system-baseline $O --out all.json -- sh -c 'echo out; echo err >&2' <&- >&- 2>&-
[ $? = 0 ] || { echo "all closed: fak failed"; exit 1; }
check all.json
# with stdout closed the readout goes to /dev/null, like any other output
$FAK native-performance --next >&- || { echo "--next with stdout closed failed"; exit 1; }
exit 0
