#!/bin/bash
# The timeline's memory, in one run beside its anchor (perf record of the
# same tracepoints): a pipe ping-pong (a switch, a wakeup and two system
# calls per hop) measured for SECS (default 10) seconds by
#   pscope time --timeline at --rate 300000 (every record up to 300k/s)
#   pscope time without a timeline (the baseline of its memory)
#   perf record -e sched:sched_switch,sched:sched_wakeup,raw_syscalls:*
# and prints: the records offered per second, those kept and dropped,
# pscope's peak RSS with and without the timeline, its bytes per record
# kept (RSS growth / records) beside perf.data's bytes per record, and
# the cap. Goal (issue "off-CPU stacks"): 10 s at 300k events/s fit in
# <= 64 MiB, or are sampled with the fact shown. A record is 24 bytes
# (struct tm_tlev): 10 s at 300k/s is 3 M records, 68.7 MiB, over the
# goal; so both rings stop at 2 Mi records (48 MiB): pscope time
# --timeline keeps the newest 2 Mi and says how many older ones did not
# fit, the Timeline screen keeps 2 Mi across its 10 s and the trace tier
# samples above 20k records/s, each said on screen.
set -u
: "${top_builddir:=.}"
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
SECS=${SECS:-10}

[ "$(id -u)" = 0 ] || { echo "needs root (the tracepoints of every CPU)"; exit 1; }
tmp=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill -9 $p 2>/dev/null; done; wait 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

"$TARGETS/pingpong" pipe >"$tmp/pp.out" 2>&1 &
PP=$!
pids="$pids $PP"
for _ in $(seq 1 100); do grep -q ready "$tmp/pp.out" && break; sleep 0.05; done

/usr/bin/time -o "$tmp/rss0" -f '%M' "$PSCOPE" time $PP --tier trace --rate 300000 --duration "$SECS" >/dev/null 2>&1
/usr/bin/time -o "$tmp/rss1" -f '%M' "$PSCOPE" time $PP --tier trace --rate 300000 --duration "$SECS" \
	--timeline "$tmp/tl.json" >/dev/null 2>"$tmp/tl.err"
read -r ev dropped sampled < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["otherData"]
print(d["events"], d["dropped_events"], d["sampled"])' "$tmp/tl.json")
rss0=$(tail -1 "$tmp/rss0")
rss1=$(tail -1 "$tmp/rss1")
echo "pscope time --timeline, $SECS s of a pipe ping-pong at --rate 300000:"
echo "  records kept $ev, older ones dropped $dropped ($(awk -v a="$ev" -v b="$dropped" -v s="$SECS" 'BEGIN { printf "%.0f", (a + b) / s }')/s offered), sampled: $sampled"
sed 's/^/  said: /' "$tmp/tl.err"
echo "  peak RSS $((rss1 / 1024)) MiB with the timeline, $((rss0 / 1024)) MiB without"
echo "  bytes per record kept (RSS growth / records): $(awk -v a="$rss0" -v b="$rss1" -v n="$ev" 'BEGIN { printf "%.1f", n ? (b - a) * 1024 / n : 0 }') (a record is 24 bytes; the ring's pages are touched as it fills)"
echo "  cap: 2 Mi records = 48 MiB; 10 s at 300k/s = 3 M records = 68.7 MiB: over 64 MiB, so capped (and said)"

if command -v perf >/dev/null; then
	perf record -q -o "$tmp/perf.data" -e sched:sched_switch -e sched:sched_wakeup -e 'raw_syscalls:*' \
		-p $PP -- sleep "$SECS" >/dev/null 2>&1
	n=$(perf script -i "$tmp/perf.data" 2>/dev/null | wc -l)
	sz=$(stat -c %s "$tmp/perf.data")
	echo "perf record of the same tracepoints, $SECS s: $n records, $((sz / 1048576)) MiB of perf.data,"
	echo "  $(awk -v s="$sz" -v n="$n" 'BEGIN { printf "%.1f", n ? s / n : 0 }') bytes per record; pscope/perf: $(awk -v s="$sz" -v n="$n" 'BEGIN { printf "%.2f", n ? 24 / (s / n) : 0 }') per record"
else
	echo "perf is not installed: no anchor"
fi
