#!/bin/bash
# Sampler overhead at 999 Hz for 10 s on a two-thread busy target that
# reports its own iterations, in one run:
#   (unsampled | pscope top -F 999 | perf record -F 999 -g + perf report) x ROUNDS
# Prints pscope's CPU next to perf's and the target's slowdown under each,
# both in iterations per wall second and per CPU-second of the target (the
# second is what sampling costs the target itself; the first also counts
# CPU the sampler or anything else on the machine took from it).
# Goals: pscope <= 0.5x perf's CPU; target slowdown <= 3%.
set -u
: "${top_builddir:=.}"
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
SECS=${SECS:-10}
FREQ=999
TCK=$(getconf CLK_TCK)

command -v perf >/dev/null || { echo "perf is not installed (linux-perf)"; exit 1; }
tmp=$(mktemp -d /tmp/pscope-bench-sample.XXXXXX)
"$TARGETS/hotloop" -t 2 -r -w >"$tmp/ips" 2>&1 &
tpid=$!
trap 'kill -9 $tpid 2>/dev/null; wait $tpid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 1 100); do grep -q ready "$tmp/ips" && break; sleep 0.05; done
sleep 2 # let the rate settle

total_now() { # the target's latest cumulative iteration count
	grep '^ips' "$tmp/ips" | tail -1 | awk '{print $4}'
}
ticks_now() { # the target's CPU time in ticks
	awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$tpid/stat"
}

# run CMD...: CPU = its user+sys seconds; WALL = target iterations per
# second; PERCPU = target iterations per CPU-second of the target.
run() {
	local n0 n1 k0 k1 t0 t1
	n0=$(total_now) k0=$(ticks_now) t0=$(date +%s.%N)
	/usr/bin/time -o "$tmp/time" -f '%U %S' "$@" >"$tmp/out" 2>"$tmp/err"
	sleep 1.1 # the next line of the target covers the end of CMD
	n1=$(total_now) k1=$(ticks_now) t1=$(date +%s.%N)
	CPU=$(awk '{printf "%.3f", $1 + $2}' "$tmp/time")
	WALL=$(awk -v a="$n0" -v b="$n1" -v s="$t0" -v e="$t1" 'BEGIN {printf "%.0f", (b - a) / (e - s)}')
	PERCPU=$(awk -v a="$n0" -v b="$n1" -v k="$k0" -v l="$k1" -v t="$TCK" 'BEGIN {printf "%.0f", (l > k) ? (b - a) / ((l - k) / t) : 0}')
}
pct() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", (b > 0) ? 100 * (1 - a / b) : 0}'; }

# Rounds of (unsampled, pscope, perf) so drift and other load on the
# machine hit all three alike; the figures are medians over the rounds.
ROUNDS=${ROUNDS:-3}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
: >"$tmp/rows"
for r in $(seq 1 "$ROUNDS"); do
	run sleep "$SECS"
	b_wall=$WALL b_cpu=$PERCPU
	run "$PSCOPE" top "$tpid" --duration "$SECS" --freq $FREQ --folded "$tmp/pscope.folded"
	ps_cpu=$CPU ps_wall=$WALL ps_percpu=$PERCPU
	ps_samples=$(awk '{s += $NF} END {print s + 0}' "$tmp/pscope.folded")
	ps_lost=$(sed -n 's/.*lost \([0-9]*\).*/\1/p' "$tmp/out" | head -1)
	run perf record -q -F $FREQ -g -o "$tmp/perf.data" -p "$tpid" -- sleep "$SECS"
	pr_cpu=$CPU pr_wall=$WALL pr_percpu=$PERCPU
	run perf report -i "$tmp/perf.data" --stdio
	rep_cpu=$CPU
	perf_samples=$(perf script -i "$tmp/perf.data" -F tid 2>/dev/null | wc -l)
	echo "$b_wall $b_cpu $ps_cpu $ps_wall $ps_percpu $pr_cpu $pr_wall $pr_percpu $rep_cpu $ps_samples ${ps_lost:-0} $perf_samples" >>"$tmp/rows"
	printf '  round %d: unsampled %s it/CPU-s, pscope %s s CPU %s it/CPU-s (%s samples), perf record %s s + report %s s CPU %s it/CPU-s\n' \
		"$r" "$b_cpu" "$ps_cpu" "$ps_percpu" "$ps_samples" "$pr_cpu" "$rep_cpu" "$pr_percpu"
done
col() { awk -v c="$1" '{print $c}' "$tmp/rows" | median; }
base_wall=$(col 1) base_cpu=$(col 2) ps_cpu=$(col 3) ps_wall=$(col 4) ps_percpu=$(col 5)
pr_cpu=$(col 6) pr_wall=$(col 7) pr_percpu=$(col 8) rep_cpu=$(col 9) ps_samples=$(col 10) ps_lost=$(col 11)
perf_samples=$(col 12)

perf_cpu=$(awk -v a="$pr_cpu" -v b="$rep_cpu" 'BEGIN {printf "%.3f", a + b}')
ratio=$(awk -v a="$ps_cpu" -v b="$perf_cpu" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}')
ratio_rec=$(awk -v a="$ps_cpu" -v b="$pr_cpu" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}')
slow_ps=$(pct "$ps_percpu" "$base_cpu")
slow_ps_wall=$(pct "$ps_wall" "$base_wall")
slow_pr=$(pct "$pr_percpu" "$base_cpu")
slow_pr_wall=$(pct "$pr_wall" "$base_wall")
verdict() { awk -v v="$1" -v g="$2" 'BEGIN {print (v <= g) ? "MET" : "MISSED"}'; }

echo "sampler: $FREQ Hz for $SECS s, target with two busy threads; medians of $ROUNDS rounds"
printf '  %-36s %8s %14s %14s %9s %9s\n' "" "CPU s" "it/s (wall)" "it/CPU-s" "slow" "slow(wall)"
printf '  %-36s %8s %14s %14s\n' "unsampled" "-" "$base_wall" "$base_cpu"
printf '  %-36s %8s %14s %14s %8s%% %8s%%\n' "pscope top ($ps_samples samples, lost ${ps_lost:-?})" "$ps_cpu" "$ps_wall" "$ps_percpu" "$slow_ps" "$slow_ps_wall"
printf '  %-36s %8s %14s %14s %8s%% %8s%%\n' "perf record -g ($perf_samples samples)" "$pr_cpu" "$pr_wall" "$pr_percpu" "$slow_pr" "$slow_pr_wall"
printf '  %-36s %8s\n' "perf report --stdio" "$rep_cpu"
echo "pscope CPU / (perf record + perf report) CPU = $ratio   goal <= 0.5: $(verdict "$ratio" 0.5)"
echo "pscope CPU / perf record CPU alone          = $ratio_rec"
echo "target slowdown under pscope (per CPU-second) = ${slow_ps}%   goal <= 3%: $(verdict "$slow_ps" 3)"
echo "target slowdown under pscope (wall)           = ${slow_ps_wall}%   (includes CPU taken by everything else)"
echo "noise floor: unsampled rounds ranged $(awk '{print $2}' "$tmp/rows" | sort -n | head -1)..$(awk '{print $2}' "$tmp/rows" | sort -n | tail -1) it/CPU-s"
echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
