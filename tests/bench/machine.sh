#!/bin/bash
# Every process on every CPU: `pscope top` (no PID) against `perf top` at
# the same rate, and against `perf record -a -g` + `perf report`, SECS
# seconds at 99 Hz with two busy processes built without frame pointers
# (hotloop-nofp with two threads, leafchain-nofp) and the machine's usual
# others, in one run. pscope samples call stacks (frame pointers, else the
# stack copies unwound with the CFI); perf top samples only the IP (its
# default) and refreshes its screen every 2 s. Prints CPU seconds and peak
# RSS of each, and the ratios.
# Goal: pscope CPU <= 0.5x perf top's.
set -u
: "${top_builddir:=.}"
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
SECS=${SECS:-20}
ROUNDS=${ROUNDS:-3}
FREQ=${FREQ:-99}

command -v perf >/dev/null || { echo "perf is not installed (linux-perf)"; exit 1; }
tmp=$(mktemp -d /tmp/pscope-bench-machine.XXXXXX)
"$TARGETS/hotloop-nofp" -t 2 >"$tmp/out1" 2>&1 &
t1=$!
"$TARGETS/leafchain-nofp" >"$tmp/out2" 2>&1 &
t2=$!
trap 'kill -9 $t1 $t2 2>/dev/null; wait $t1 $t2 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 1 100); do grep -q ready "$tmp/out1" && grep -q ready "$tmp/out2" && break; sleep 0.05; done

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
timed() { # timed FILE CMD...: user+sys seconds and peak KiB into FILE
	/usr/bin/time -o "$1" -f '%U %S %M' "${@:2}"
}
# time's last line: "Command exited with non-zero status" may come first
# (perf top ends by timeout's signal).
cpu() { tail -1 "$1" | awk '{printf "%.3f", $1 + $2}'; }
rss() { tail -1 "$1" | awk '{print $3}'; }
verdict() { awk -v v="$1" -v g="$2" 'BEGIN {print (v <= g) ? "MET" : "MISSED"}'; }

: >"$tmp/rows"
for r in $(seq 1 "$ROUNDS"); do
	timed "$tmp/t.ps" "$PSCOPE" top --duration "$SECS" --freq "$FREQ" >"$tmp/ps.txt" 2>&1
	ps_cpu=$(cpu "$tmp/t.ps") ps_rss=$(rss "$tmp/t.ps")
	ps_samples=$(sed -n 's/^samples \([0-9]*\) .*/\1/p' "$tmp/ps.txt")
	ps_lost=$(sed -n 's/.*, lost \([0-9]*\),.*/\1/p' "$tmp/ps.txt" | head -1)
	ps_trunc=$(sed -n 's/.*truncated stacks \([0-9.]*\)%.*/\1/p' "$tmp/ps.txt")
	# perf top reads keys from stdin: a pipe that stays open, never EOF.
	timed "$tmp/t.top" sh -c "sleep $((SECS + 5)) | timeout -s INT $SECS perf top -F $FREQ --stdio >'$tmp/top.txt' 2>&1"
	top_cpu=$(cpu "$tmp/t.top") top_rss=$(rss "$tmp/t.top")
	timed "$tmp/t.rec" perf record -q -a -g -F "$FREQ" -o "$tmp/perf.data" -- sleep "$SECS" >/dev/null 2>&1
	timed "$tmp/t.rep" perf report -i "$tmp/perf.data" --stdio >"$tmp/rep.txt" 2>/dev/null
	rec_cpu=$(awk -v a="$(cpu "$tmp/t.rec")" -v b="$(cpu "$tmp/t.rep")" 'BEGIN {printf "%.3f", a + b}')
	echo "$ps_cpu $top_cpu $rec_cpu $ps_rss $top_rss" >>"$tmp/rows"
	printf '  round %d: pscope %s s CPU (%s samples, lost %s, truncated %s%%, peak %s KiB); perf top %s s (peak %s KiB); perf record -a -g + report %s s\n' \
		"$r" "$ps_cpu" "${ps_samples:-?}" "${ps_lost:-?}" "${ps_trunc:-?}" "$ps_rss" "$top_cpu" "$top_rss" "$rec_cpu"
done
col() { awk -v c="$1" '{print $c}' "$tmp/rows" | median; }
ps_cpu=$(col 1) top_cpu=$(col 2) rec_cpu=$(col 3) ps_rss=$(col 4) top_rss=$(col 5)
r_top=$(awk -v a="$ps_cpu" -v b="$top_cpu" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}')
r_rec=$(awk -v a="$ps_cpu" -v b="$rec_cpu" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}')
echo "every process, $FREQ Hz, $SECS s, medians of $ROUNDS rounds: pscope $ps_cpu s CPU (peak RSS $ps_rss KiB);" \
	"perf top $top_cpu s (peak RSS $top_rss KiB); perf record -a -g + perf report $rec_cpu s"
echo "  pscope CPU / perf top CPU = $r_top   goal <= 0.5: $(verdict "$r_top" 0.5)"
echo "  pscope CPU / perf record -a -g + report CPU = $r_rec"
echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
