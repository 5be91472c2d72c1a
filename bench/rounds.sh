# Sourced by bench/experiment.sh and bench/experiment-llama.sh: ROUNDS rounds of
# fak_once (prints: wall_ns quiet_ns command_windows_ns runs) against hf_once
# (prints: wall_ns), alternating which goes first; prints each round's ratio of
# fak's wall time without its quiet windows to hyperfine's, fak's own cost per
# run beyond the command windows, and the medians. $tmp is the caller's scratch.
ratio_rounds() {
	echo "round  fak (ms, quiet windows excluded)  hyperfine (ms)  ratio  fak's own ms per run"
	: >"$tmp/ratios"
	: >"$tmp/own"
	i=1
	while [ "$i" -le "$1" ]; do
		if [ $((i % 2)) = 1 ]; then
			set -- "$1" $(fak_once $i) $(hf_once)
		else
			h=$(hf_once)
			set -- "$1" $(fak_once $i) $h
		fi
		# $2 fak wall, $3 its quiet windows, $4 its command windows, $5 its runs, $6 hyperfine
		awk -v fw="$2" -v q="$3" -v fc="$4" -v n="$5" -v hw="$6" -v i="$i" 'BEGIN {
			f = fw - q; r = f / hw
			fo = (f - fc) / n / 1e6
			printf "%5d  %33.1f  %14.1f  %.3f  %20.1f\n", i, f / 1e6, hw / 1e6, r, fo
			printf "%.4f\n", r >> "'"$tmp"'/ratios"
			printf "%.3f\n", fo >> "'"$tmp"'/own"
		}'
		i=$((i + 1))
	done
	echo "median ratio fak/hyperfine: $(median <"$tmp/ratios")"
	echo "median cost of fak per run beyond the command's run time: $(median <"$tmp/own") ms"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
