#!/bin/bash
# Whole call stacks on a binary without frame pointers: pscope top (stack
# copies unwound with the CFI) against perf record --call-graph dwarf +
# perf report, 10 s at 99 Hz and at 999 Hz on a two-thread busy target
# built without frame pointers, in one run. Prints CPU seconds, lost
# samples and pscope's peak RSS.
# Goals: pscope CPU <= 0.5x perf's (record + report); lost <= perf's.
set -u
: "${top_builddir:=.}"
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
SECS=${SECS:-10}
ROUNDS=${ROUNDS:-3}

command -v perf >/dev/null || { echo "perf is not installed (linux-perf)"; exit 1; }
tmp=$(mktemp -d /tmp/pscope-bench-dwarf.XXXXXX)
"$TARGETS/hotloop-nofp" -t 2 >"$tmp/out" 2>&1 &
tpid=$!
trap 'kill -9 $tpid 2>/dev/null; wait $tpid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 1 100); do grep -q ready "$tmp/out" && break; sleep 0.05; done

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
timed() { # timed FILE CMD...: user+sys seconds and peak KiB into FILE
	/usr/bin/time -o "$1" -f '%U %S %M' "${@:2}"
}
cpu() { awk '{printf "%.3f", $1 + $2}' "$1"; }
verdict() { awk -v v="$1" -v g="$2" 'BEGIN {print (v <= g) ? "MET" : "MISSED"}'; }

for freq in 99 999; do
	: >"$tmp/rows"
	for r in $(seq 1 "$ROUNDS"); do
		timed "$tmp/t.ps" "$PSCOPE" top "$tpid" --duration "$SECS" --freq "$freq" >"$tmp/ps.txt" 2>&1
		ps_cpu=$(cpu "$tmp/t.ps") ps_rss=$(awk '{print $3}' "$tmp/t.ps")
		ps_lost=$(sed -n 's/^samples [0-9]*, lost \([0-9]*\).*/\1/p' "$tmp/ps.txt")
		ps_samples=$(sed -n 's/^samples \([0-9]*\),.*/\1/p' "$tmp/ps.txt")
		ps_trunc=$(sed -n 's/.*truncated stacks \([0-9.]*\)%.*/\1/p' "$tmp/ps.txt")
		timed "$tmp/t.rec" perf record -q -F "$freq" --call-graph dwarf -o "$tmp/perf.data" -p "$tpid" -- sleep "$SECS" \
			>/dev/null 2>&1
		timed "$tmp/t.rep" perf report -i "$tmp/perf.data" --stdio >"$tmp/rep.txt" 2>/dev/null
		rec_cpu=$(cpu "$tmp/t.rec") rep_cpu=$(cpu "$tmp/t.rep")
		pf_lost=$(sed -n 's/^# Total Lost Samples: \([0-9]*\)/\1/p' "$tmp/rep.txt")
		pf_samples=$(sed -n "s/^# Samples: \([0-9.]*[KM]*\) .*/\1/p" "$tmp/rep.txt" | head -1)
		echo "$ps_cpu $rec_cpu $rep_cpu ${ps_lost:-0} ${pf_lost:-0} $ps_rss" >>"$tmp/rows"
		printf '  %4d Hz round %d: pscope %s s CPU (%s samples, lost %s, truncated %s%%, peak %s KiB); perf record %s s + report %s s (%s samples, lost %s)\n' \
			"$freq" "$r" "$ps_cpu" "${ps_samples:-?}" "${ps_lost:-?}" "${ps_trunc:-?}" "$ps_rss" "$rec_cpu" "$rep_cpu" \
			"${pf_samples:-?}" "${pf_lost:-?}"
	done
	col() { awk -v c="$1" '{print $c}' "$tmp/rows" | median; }
	ps_cpu=$(col 1) rec_cpu=$(col 2) rep_cpu=$(col 3) ps_lost=$(col 4) pf_lost=$(col 5) ps_rss=$(col 6)
	perf_cpu=$(awk -v a="$rec_cpu" -v b="$rep_cpu" 'BEGIN {printf "%.3f", a + b}')
	ratio=$(awk -v a="$ps_cpu" -v b="$perf_cpu" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}')
	echo "$freq Hz, $SECS s, medians of $ROUNDS rounds: pscope $ps_cpu s CPU, peak RSS $ps_rss KiB, lost $ps_lost;" \
		"perf record --call-graph dwarf + perf report $perf_cpu s CPU ($rec_cpu + $rep_cpu), lost $pf_lost"
	echo "  pscope CPU / perf CPU = $ratio   goal <= 0.5: $(verdict "$ratio" 0.5)"
	echo "  lost samples: pscope $ps_lost vs perf $pf_lost   goal pscope <= perf: $(verdict "$ps_lost" "$pf_lost")"
done
echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
