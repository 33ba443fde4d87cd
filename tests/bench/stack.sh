#!/bin/sh
# Stack dump benchmark: pause seen by the target and wall time of
# `pscope stack`, `gdb -batch -ex 'thread apply all bt'` and `eu-stack -p`,
# on a 1000-thread and a 64-thread target, in the same run.
#
# The target measures its own pause: a thread spins reading the clock and
# records the longest gap between two reads; SIGUSR1 prints and resets it.
# Goals: pause <= 50 ms (1000 threads) and <= 5 ms (64 threads); wall of
# pscope <= 0.3x eu-stack.
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
RUNS=${RUNS:-5}
tmp=$(mktemp -d /tmp/pscope-bench-stack.XXXXXX)
tpid=
trap '[ -n "$tpid" ] && kill -9 $tpid 2>/dev/null; rm -rf $tmp' EXIT

ms_now() { date +%s%N; }

# Ask the target for its longest gap since the last ask (µs).
gap() {
	local before after
	before=$(grep -c maxgap "$tmp/out")
	kill -USR1 "$tpid"
	for _ in $(seq 1 200); do
		after=$(grep -c maxgap "$tmp/out")
		[ "$after" -gt "$before" ] && break
		sleep 0.01
	done
	grep maxgap "$tmp/out" | tail -1 | awk '{print $2}'
}

# measure CMD...: "best_wall median_pause worst_pause" (µs) over RUNS runs
measure() {
	local best_wall=999999999 t0 t1 w pauses=""
	for _ in $(seq 1 "$RUNS"); do
		gap >/dev/null
		t0=$(ms_now)
		"$@" >/dev/null 2>"$tmp/err"
		t1=$(ms_now)
		pauses="$pauses $(gap)"
		w=$(( (t1 - t0) / 1000 ))
		[ "$w" -lt "$best_wall" ] && best_wall=$w
	done
	echo "$best_wall $(echo $pauses | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)], a[NR]}')"
}

fmt_ms() { awk -v us="$1" 'BEGIN { printf "%9.1f", us / 1000 }'; }

bench() { # bench NTHREADS PAUSE_GOAL_MS
	local n=$1 goal=$2
	: >"$tmp/out"
	"$TARGETS/stack-threads" "$n" --probe >"$tmp/out" 2>&1 &
	tpid=$!
	for _ in $(seq 1 600); do grep -q ready "$tmp/out" && break; sleep 0.05; done
	grep -q ready "$tmp/out" || { echo "target with $n threads did not start"; exit 1; }
	sleep 0.5
	echo "--- $n worker threads (+ main, probe): best wall, median and worst pause of $RUNS runs (gdb: 1 run)"
	# The noise floor: the longest gap with nobody attached, over ~1 s.
	gap >/dev/null
	sleep 1
	floor=$(gap)
	set -- $(measure "$PSCOPE" stack "$tpid")
	ps_wall=$1 ps_pause=$2 ps_worst=$3
	ps_self=$(tail -1 "$tmp/err")
	eu_wall=0 eu_pause=0 eu_worst=0 gdb_wall=0 gdb_pause=0 gdb_worst=0
	if command -v eu-stack >/dev/null; then
		set -- $(measure eu-stack -p "$tpid")
		eu_wall=$1 eu_pause=$2 eu_worst=$3
	fi
	if command -v gdb >/dev/null; then
		set -- $(RUNS=1 measure gdb -q -batch -ex 'thread apply all bt' -p "$tpid")
		gdb_wall=$1 gdb_pause=$2 gdb_worst=$3
	fi
	printf '%-10s %12s %14s %12s\n' tool "wall ms" "pause ms" "worst ms"
	printf '%-10s %12s %14s %12s   (longest gap with nobody attached, ~1 s)\n' "(idle)" "-" "$(fmt_ms "$floor")" "-"
	printf '%-10s %12s %14s %12s   pscope says: %s\n' pscope "$(fmt_ms "$ps_wall")" "$(fmt_ms "$ps_pause")" "$(fmt_ms "$ps_worst")" "$ps_self"
	[ "$eu_wall" != 0 ] && printf '%-10s %12s %14s %12s   (never stops all threads together)\n' eu-stack "$(fmt_ms "$eu_wall")" "$(fmt_ms "$eu_pause")" "$(fmt_ms "$eu_worst")"
	[ "$gdb_wall" != 0 ] && printf '%-10s %12s %14s %12s\n' gdb "$(fmt_ms "$gdb_wall")" "$(fmt_ms "$gdb_pause")" "$(fmt_ms "$gdb_worst")"
	awk -v p="$ps_pause" -v g="$goal" -v w="$ps_wall" -v e="$eu_wall" -v gw="$gdb_wall" -v gp="$gdb_pause" 'BEGIN {
		printf "pause (median): %.1f ms, goal <= %d ms: %s\n", p / 1000, g, (p / 1000 <= g ? "met" : "MISSED")
		if (e > 0) printf "wall: pscope / eu-stack = %.2fx, goal <= 0.30x: %s\n", w / e, (w / e <= 0.3 ? "met" : "MISSED")
		if (gw > 0) printf "vs gdb: wall %.2fx, pause %.3fx\n", w / gw, p / gp
	}'
	kill -9 "$tpid"
	wait "$tpid" 2>/dev/null
	tpid=
}

bench 1000 50
bench 64 5
