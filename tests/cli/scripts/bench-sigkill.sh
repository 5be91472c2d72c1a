# fak killed with SIGKILL mid-run (issue 9 item 8): the command it started
# must not outlive it (the measurement is void). The direct child dies with
# fak (parent-death signal). With a delegated cgroup v2, whatever the
# command left running is in fak's cgroup, and the next run kills it and
# removes that stale cgroup. Where this machine has no delegated cgroup the
# second half cannot apply; the script says so and checks the first half.
set -u
await() { i=0; while [ ! -s "$1" ]; do sleep 0.05; i=$((i + 1)); [ $i -lt 200 ] || { echo "no $1"; exit 1; }; done; }
alive() { kill -0 "$1" 2>/dev/null; }
gone() { i=0; while alive "$1"; do sleep 0.05; i=$((i + 1)); [ $i -lt 100 ] || return 1; done; return 0; }

"$FAK" bench system-baseline --baseline-duration 10ms -- true >probe.json 2>/dev/null
coverage=$(jq -r .coverage.descendant_attribution probe.json)

# sh stays the parent of a backgrounded sleep: root sh, grandchild sleep
"$FAK" bench system-baseline --baseline-duration 10ms \
	-- sh -c 'echo $$ >root.pid; sleep 300 & echo $! >grandchild.pid; wait' >/dev/null 2>&1 &
fak=$!
await grandchild.pid
await root.pid
root=$(cat root.pid)
grandchild=$(cat grandchild.pid)
kill -KILL $fak
wait $fak 2>/dev/null
gone "$root" || { echo "the command's root outlived fak"; kill -KILL "$root" "$grandchild"; exit 1; }

if [ "$coverage" != exact_cgroup_v2 ]; then
	echo "no delegated cgroup v2 here (coverage $coverage): only the root's death is checked"
	kill -KILL "$grandchild" 2>/dev/null
	exit 0
fi
# (another fak on this machine may reap the stale cgroup first: either way,
# after the next run the grandchild is gone and so is the cgroup)
stale=$(find /sys/fs/cgroup -maxdepth 6 -type d -name "fak-system-baseline-$fak" 2>/dev/null | head -1)
"$FAK" bench system-baseline --baseline-duration 10ms -- true >next.json 2>/dev/null || { echo "next run failed"; exit 1; }
gone "$grandchild" || { echo "the next run did not kill what the killed run left"; kill -KILL "$grandchild"; exit 1; }
[ -z "$stale" ] || [ ! -d "$stale" ] || { echo "stale cgroup not removed: $stale"; exit 1; }
echo ok
