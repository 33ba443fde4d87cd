# The target slowdown of the benches whose target prints per-second lines
# "rate N ... CPU_NS" (sourced by tests/bench/time.sh and offcpu.sh; SECS
# set by the caller).
# rate OUT CMD...: "RATE CPU" while CMD runs: the target's mean rate (its
# per-second lines) and its CPU time per unit of work in ns.
rate() {
	local out=$1 n0 n1
	shift
	sleep 1.1
	n0=$(wc -l <"$out")
	"$@" >/dev/null 2>&1
	n1=$(wc -l <"$out")
	sed -n "$((n0 + 2)),$((n1))p" "$out" |
		awk '$1 == "rate" { s += $2; c += $4; n++ } END { printf "%.0f %.1f", n ? s / n : 0, s ? c / s : 0 }'
}
# slowdown OUT CMD...: extra time per unit of work under CMD, against the
# mean of the rates alone just before and just after (the machine drifts),
# and the target's extra CPU time per unit of work (what a tracer running
# in the target's context costs it, whatever else loads the machine).
slowdown() {
	local out=$1 a b w
	shift
	a=$(rate "$out" sleep "$SECS")
	w=$(rate "$out" "$@")
	b=$(rate "$out" sleep "$SECS")
	echo "$a $w $b" | awk '{ m = ($1 + $5) / 2; c = ($2 + $6) / 2
		if ($3 > 0 && c > 0) printf "%+7.1f%% wall, %+7.1f%% CPU", 100 * (m / $3 - 1), 100 * ($4 / c - 1); else print "n/a" }'
}
