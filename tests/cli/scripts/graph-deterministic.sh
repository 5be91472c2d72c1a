# Same input, same bytes: every view twice, and under other locales and
# time zones (numbers must never pick up a decimal comma).
set -eu
for mode in "" --json --next "--next --json" --dot; do
	# shellcheck disable=SC2086
	LC_ALL=C "$FAK" native-performance $mode >a.out
	for loc in C.UTF-8 de_DE.UTF-8 fr_FR.UTF-8 POSIX; do
		# shellcheck disable=SC2086
		LC_ALL=$loc LANG=$loc TZ=Pacific/Kiritimati "$FAK" native-performance $mode >b.out 2>/dev/null
		cmp a.out b.out || { echo "mode '$mode' differs under $loc"; exit 1; }
	done
done
grep -q '6.966061' a.out || "$FAK" native-performance | grep -q '6.966061 tok/s'
echo ok
