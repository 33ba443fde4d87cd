#!/bin/bash
# pscope time PID --timeline FILE: the Chrome trace event file of the
# window, validated structurally (the fields of each event by its phase,
# one named track per thread, slices that nest on each track), and a known
# slice: the sleeper's 20 ms sleeps as "blocked: sleep" slices within 5%,
# each inside its nanosleep slice; the reader's wakeups by the waker; the
# cpu-clock samples of a busy thread as instants; bad arguments.
. "$top_srcdir/tests/lib.sh"
tmp=$(mktemp -d)
at_exit "rm -rf $tmp"
if [ "$(id -u)" != 0 ]; then
	skip "the timeline needs the trace tier (root: CAP_PERFMON, tracefs)"
	done_testing
	exit 0
fi

cat >"$tmp/check.py" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
pid = int(sys.argv[2])
ev = d["traceEvents"]
assert isinstance(ev, list) and d["displayTimeUnit"] == "ms", "not a Chrome trace object"
assert d["otherData"]["dropped_events"] == 0 and d["otherData"]["sampled"] is False, d["otherData"]
names = {}
for e in ev:
    assert e["ph"] in ("X", "i", "M") and e["pid"] == pid and isinstance(e["tid"], int), e
    assert isinstance(e["name"], str) and e["name"], e
    if e["ph"] == "M":
        assert e["name"] in ("process_name", "thread_name") and isinstance(e["args"]["name"], str), e
        if e["name"] == "thread_name":
            assert e["tid"] not in names, ("two tracks named for one thread", e)
            names[e["tid"]] = e["args"]["name"]
    elif e["ph"] == "X":
        assert e["ts"] >= 0 and e["dur"] >= 0 and e["cat"] in ("sched", "syscall"), e
    else:
        assert e["ts"] >= 0 and e["s"] == "t" and e["cat"] in ("sched", "sample"), e
for e in ev:
    assert e["ph"] == "M" or e["tid"] in names, ("an event off every named track", e)
# Slices nest on each track (what a viewer needs to draw them as a stack).
for t in names:
    xs = sorted((e for e in ev if e["ph"] == "X" and e["tid"] == t), key=lambda e: (e["ts"], -e["dur"]))
    stack = []
    for e in xs:
        while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"] + 1e-3:
            stack.pop()
        assert not stack or e["ts"] + e["dur"] <= stack[-1]["ts"] + stack[-1]["dur"] + 1e-3, ("overlap", stack[-1], e)
        stack.append(e)
tid = {n: t for t, n in names.items()}
def of(thread, name):
    return [e for e in ev if e["tid"] == tid[thread] and e["name"] == name]
PY

start_target offcpu-nofp
T=$TPID
"$PSCOPE" time $T --timeline "$tmp/tl.json" --duration 2 >"$tmp/out" 2>"$tmp/err"
ok $? "pscope time --timeline exits 0"
no_crash_in "$tmp/err" "the timeline run"
check "the report still comes, from the trace tier" grep -qE "^PID $T \\(offcpu-nofp\\), [0-9.]+ s, tier trace$" "$tmp/out"
check "the file is a Chrome trace: each event's fields, one named track per thread, nested slices" \
	python3 -c "exec(open('$tmp/check.py').read()); assert sorted(names.values()) == sorted(['offcpu-nofp', 'sleeper', 'reader', 'waker']), names" \
	"$tmp/tl.json" "$T"
check "the sleeper's 20 ms sleeps: 'blocked: sleep' slices, the median within 5%" python3 -c "
exec(open('$tmp/check.py').read())
b = [e['dur'] for e in of('sleeper', 'blocked: sleep')]
assert len(b) >= 20, len(b)
m = statistics.median(b) / 1000
assert 19 <= m <= 21, m
" "$tmp/tl.json" "$T"
check "each of them inside a nanosleep slice (the system call it blocked in)" python3 -c "
exec(open('$tmp/check.py').read())
ns = of('sleeper', 'nanosleep')
b = of('sleeper', 'blocked: sleep')
inside = [x for x in b if any(s['ts'] <= x['ts'] and x['ts'] + x['dur'] <= s['ts'] + s['dur'] + 1e-3 for s in ns)]
assert len(ns) >= 20 and len(inside) >= len(b) - 1, (len(ns), len(b), len(inside))
assert all(s['args']['nr'] == 35 and s['args']['ret'] == 0 for s in ns), ns[:3]
" "$tmp/tl.json" "$T"
check "the reader: blocked on the pipe, woken by the waker thread" python3 -c "
exec(open('$tmp/check.py').read())
w = of('reader', 'wakeup')
assert len(of('reader', 'blocked: pipe_socket')) >= 20 and len(w) >= 20, (len(w),)
# sched_wakeup runs where the wakeup completes: one queued to the wakee's
# CPU (ttwu_queue) runs in whatever task is current there, so on a busy
# machine some name another task (sched_waking would always name the waker).
assert sum(x['args']['waker_tid'] == tid['waker'] for x in w) >= len(w) // 2, (tid['waker'], w[:3])
assert len(of('waker', 'write')) >= 20
" "$tmp/tl.json" "$T"
kill -9 $T; wait $T 2>/dev/null

start_target hotloop -t 1
t0=$(_cpu_ticks $TPID)
"$PSCOPE" time $TPID --timeline "$tmp/hot.json" --duration 1 >/dev/null 2>"$tmp/err"
ok $? "a busy target: exit 0"
t1=$(_cpu_ticks $TPID)
# The CPU it got (the machine is shared): 99 samples per CPU-second of it
# (the CPU time read around the whole run, pscope's start included).
check "its cpu-clock samples are instants on its track, about 99 per second of CPU it used" python3 -c "
import json, os, sys
d = json.load(open(sys.argv[1]))
n = sum(1 for e in d['traceEvents'] if e['ph'] == 'i' and e['name'] == 'cpu-clock sample')
cpu = (int(sys.argv[3]) - int(sys.argv[2])) / os.sysconf('SC_CLK_TCK')
assert cpu > 0.05 and 0.5 * 99 * cpu <= n <= 1.3 * 99 * cpu + 3, (n, cpu)
" "$tmp/hot.json" "$t0" "$t1"

for args in "--tier proc" "--tier bpf"; do
	# shellcheck disable=SC2086
	"$PSCOPE" time $TPID --timeline "$tmp/x.json" $args --duration 0.1 >/dev/null 2>"$tmp/bad"
	check "--timeline $args: usage error (the trace tier only)" sh -c "[ $? = 2 ] && grep -q 'trace tier only' '$tmp/bad'"
done
"$PSCOPE" time $TPID --timeline /nonexistent/dir/x.json --duration 0.2 >/dev/null 2>"$tmp/bad"
check "an unwritable path: exit 1 and why" sh -c "[ $? = 1 ] && grep -q 'x.json' '$tmp/bad'"
done_testing
