#!/bin/bash
# pscope top on a process of 1,000 threads, 4 of them busy: per-CPU events
# (a number of fds that does not grow with threads: at most 64, where one
# event per thread and CPU would take 2,000), the busy function first, no
# false "exited"; and per-thread events under a small fd limit (60, room for
# 30 threads): the threads left out are counted with the reason, and still
# no false exit.
. "$top_srcdir/tests/lib.sh"

tmp=$(mktemp -d /tmp/pscope-threads.XXXXXX)
at_exit "rm -rf $tmp"

"$TARGETS/manythreads" 1000 4 >"$tmp/target.out" 2>&1 &
TPID=$!
kill_at_exit $TPID
wait_until -t 300 sh -c "grep -q ready '$tmp/target.out' || ! kill -0 $TPID" # (1,000 threads: a while on a busy machine)
grep -q ready "$tmp/target.out" || diag "target: $(cat "$tmp/target.out")"
n=$(ls /proc/$TPID/task | wc -l)
check "the target runs 1,000 threads (got $n)" test "$n" -ge 1000

# Per CPU (root here): watch pscope's fds while it samples.
"$PSCOPE" top "$TPID" --duration 120 --samples 300 --freq 999 --json >"$tmp/cpu.json" 2>"$tmp/cpu.err" &
ppid=$!
maxfd=0
wait_until sh -c "ls -l /proc/$ppid/fd 2>/dev/null | grep -q perf_event || ! kill -0 $ppid"
while kill -0 "$ppid" 2>/dev/null; do
	c=$(ls "/proc/$ppid/fd" 2>/dev/null | wc -l)
	[ "$c" -gt "$maxfd" ] && maxfd=$c
	sleep 0.05
done
wait "$ppid"
ok $? "per-CPU sampling of 1,000 threads exits 0"
check "at most 64 fds open while sampling (saw $maxfd)" test "$maxfd" -gt 0 -a "$maxfd" -le 64
check "per-CPU events, busy_work first, the threads followed" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["events"] == "cpu", d["events"]
assert d["samples"] > 0 and d["functions"][0]["name"] == "busy_work", d["functions"][:3]
assert d["threads_unsampled"] == 0
' "$tmp/cpu.json"
check "no false exit" sh -c "! grep -q exited '$tmp/cpu.err'"

# Per thread with 60 fds: most threads cannot have events.
(ulimit -n 60 && exec "$PSCOPE" top "$TPID" --duration 120 --samples 300 --freq 999 --events thread) >"$tmp/thr.txt" 2>"$tmp/thr.err"
ok $? "per-thread sampling under a 60-fd limit exits 0"
check "the threads not sampled are counted, with the fd limit as the reason" \
	grep -qE '^[0-9]+ threads not sampled: one event per thread and CPU, and the fd limit \(60\) allows [0-9]+' "$tmp/thr.txt"
check "busy_work still first (busy threads came first)" sh -c "awk '/SELF%/ { getline; print; exit }' '$tmp/thr.txt' | grep -q busy_work"
check "no false exit" sh -c "! grep -q exited '$tmp/thr.err' '$tmp/thr.txt'"
check "the target runs on" kill -0 "$TPID"
kill -9 "$TPID"

done_testing
