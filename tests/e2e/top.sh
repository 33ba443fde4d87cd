#!/bin/bash
# pscope top: sampling a target with a known profile (hot_work 75%, cold_work
# 25%, both called from loop), with and without frame pointers, threads born
# during sampling, folded output, the door message for an unprivileged user,
# a target exiting mid-run, and bad arguments.
. "$top_srcdir/tests/lib.sh"

tmp=$(mktemp -d /tmp/pscope-top.XXXXXX)
chmod 755 "$tmp"
at_exit "rm -rf $tmp"

# A function's field from the JSON: fn FILE NAME FIELD
fn() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["functions"] if x["name"] == sys.argv[2]]
print(f[0][sys.argv[3]] if f else "none")' "$@"
}

# ---- the known profile, frame pointers on ----
start_target hotloop -w # fixed work: the 75/25 split holds under any CPU contention
"$PSCOPE" top "$TPID" --duration 120 --samples 600 --freq 499 --json --folded "$tmp/fp.folded" >"$tmp/fp.json" 2>"$tmp/err"
ok $? "pscope top --json --folded exits 0"
check "JSON has exactly the documented keys" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(d) == ["event", "events", "freq", "functions", "lost", "pid", "samples", "threads_unsampled", "truncated", "unwind"], sorted(d)
assert d["pid"] == int(sys.argv[2]) and d["freq"] == 499 and d["event"] in ("cycles", "cpu-clock"), d
assert d["samples"] > 100, d["samples"]
for f in d["functions"]:
    assert sorted(f) == ["file", "kind", "line", "module", "name", "samples", "self_pct", "total_pct"], f
    assert f["kind"] == "native", f
s = [f["self_pct"] for f in d["functions"]]
assert s == sorted(s, reverse=True), "not sorted by self_pct"
' "$tmp/fp.json" "$TPID"
first=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["functions"][0]["name"])' "$tmp/fp.json")
[ "$first" = hot_work ]
ok $? "hot_work is the hottest function (got $first)"
hot=$(fn "$tmp/fp.json" hot_work self_pct)
check "hot_work Self% within 10 points of 75 (got $hot)" python3 -c "assert abs($hot - 75) <= 10"
cold=$(fn "$tmp/fp.json" cold_work self_pct)
check "cold_work Self% within 10 points of 25 (got $cold)" python3 -c "assert abs($cold - 25) <= 10"
loop=$(fn "$tmp/fp.json" loop total_pct)
check "loop Total% near 100 (got $loop)" python3 -c "assert $loop >= 90"
[ "$(fn "$tmp/fp.json" hot_work file)" != None ] && [ "$(fn "$tmp/fp.json" hot_work module)" = "$TARGETS/hotloop" ]
ok $? "hot_work has its module and source file"
# The folded stacks: the caller of hot_work is loop.
check "folded file: every line is 'stack count'" python3 -c '
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines, "empty"
for l in lines:
    assert re.match(r"^(.+) (\d+)$", l), repr(l)
' "$tmp/fp.folded"
check "folded counts add up to the samples" python3 -c '
import json, re, sys
total = sum(int(re.match(r"^(.+) (\d+)$", l).group(2)) for l in open(sys.argv[1]))
n = json.load(open(sys.argv[2]))["samples"]
assert total == n, (total, n)
' "$tmp/fp.folded" "$tmp/fp.json"
check "callers of hot_work: loop in at least 90% of its samples" python3 -c '
import re, sys
hot = vialoop = 0
for l in open(sys.argv[1]):
    stack, n = re.match(r"^(.+) (\d+)$", l.rstrip("\n")).groups()
    frames = stack.split(";")
    if "hot_work" in frames:
        hot += int(n)
        i = frames.index("hot_work")
        vialoop += int(n) if frames[i - 1] == "loop" else 0
assert hot and vialoop >= 0.9 * hot, (hot, vialoop)
' "$tmp/fp.folded"
runs_on_soon "$TPID"
ok $? "the target runs on, untraced"
kill -9 "$TPID"

# ---- no frame pointers: Self% still right (it needs only the IP) ----
start_target hotloop-nofp -w
"$PSCOPE" top "$TPID" --duration 120 --samples 600 --freq 499 --json >"$tmp/nofp.json" 2>"$tmp/err"
ok $? "pscope top on a -fomit-frame-pointer build"
first=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["functions"][0]["name"])' "$tmp/nofp.json")
hot=$(fn "$tmp/nofp.json" hot_work self_pct)
check "no frame pointers: hot_work first ($first) with Self% within 10 points of 75 ($hot)" \
	python3 -c "assert '$first' == 'hot_work' and abs($hot - 75) <= 10"
"$PSCOPE" top "$TPID" --duration 120 --samples 50 --freq 999 --stack-copy 0 >"$tmp/nofp.txt" 2>&1
check "no frame pointers and no stack copies: the text report shows the truncated-stack share" grep -Eq 'truncated stacks [1-9][0-9.]*%' "$tmp/nofp.txt"
kill -9 "$TPID"

# ---- threads born after sampling starts ----
# 2000 samples at 999 Hz: at most 999 come before the thread starts (a
# second of the target's time), so at least half the rest are the thread's.
start_target hotloop -t 1 -l 1
"$PSCOPE" top "$TPID" --duration 120 --samples 2000 --freq 999 --json --folded "$tmp/late.folded" >"$tmp/late.json" 2>"$tmp/err"
ok $? "pscope top while a thread is created"
check "the thread created during sampling is sampled" grep -q '^late-[0-9]*;.*late_work' "$tmp/late.folded"
check "its function is in the table" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
b = [f for f in d["functions"] if f["name"].startswith("burn")]
assert b and b[0]["self_pct"] > 10, d["functions"][:4]
' "$tmp/late.json"
kill -9 "$TPID"

# ---- a library loaded during sampling: the new mapping is re-reported ----
# Sampling starts first (pscope holds perf events), then SIGUSR1 makes the
# target dlopen the library and run it.
start_target hotloop -d "$TARGETS/hotplugin.so"
"$PSCOPE" top "$TPID" --duration 120 --samples 1500 --freq 999 --json >"$tmp/plugin.json" 2>&1 &
ppid=$!
wait_until sh -c "ls -l /proc/$ppid/fd 2>/dev/null | grep -q perf_event"
kill -USR1 "$TPID"
wait "$ppid"
[ "$(fn "$tmp/plugin.json" plugin_work module)" = "$TARGETS/hotplugin.so" ]
ok $? "code of a library dlopen()ed while sampled is named, with its module"
[ "$(fn "$tmp/plugin.json" plugin_work module)" = "$TARGETS/hotplugin.so" ] || head -c 600 "$tmp/plugin.json" | sed 's/^/#   /'
kill -9 "$TPID"

# ---- a deleted program still has names; a stripped one is labelled ----
cp "$TARGETS/hotloop" "$tmp/del-hotloop"
cp "$TARGETS/hotloop" "$tmp/stripped-hotloop"
strip "$tmp/stripped-hotloop"
"$tmp/del-hotloop" >"$tmp/del.out" 2>&1 &
dpid=$!
"$tmp/stripped-hotloop" >"$tmp/strip.out" 2>&1 &
spid=$!
kill_at_exit $dpid $spid
wait_until sh -c "grep -q ready '$tmp/del.out' && grep -q ready '$tmp/strip.out'"
rm -f "$tmp/del-hotloop"
"$PSCOPE" top "$dpid" --duration 120 --samples 100 --freq 999 --json >"$tmp/del.json" 2>&1
[ "$(fn "$tmp/del.json" hot_work module)" = "$tmp/del-hotloop (deleted)" ]
ok $? "deleted program: functions named, module labelled (deleted)"
"$PSCOPE" top "$spid" --duration 120 --samples 300 --freq 999 --json >"$tmp/strip.json" 2>&1
# Each address of the stripped copy is its own module+0xoffset row (same
# layout as the unstripped build): the rows inside hot_work outweigh those
# inside cold_work.
nm -S "$TARGETS/hotloop" | awk '$4 == "hot_work" || $4 == "cold_work" {print $4, $1, $2}' >"$tmp/syms"
check "stripped program: module+0xoffset rows, more of them in hot_work than in cold_work" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
syms = {n: (int(a, 16), int(z, 16)) for n, a, z in (l.split() for l in open(sys.argv[3]))}
name = "stripped-hotloop+0x"
per = {"hot_work": 0, "cold_work": 0}
for f in d["functions"]:
    assert f["name"] != "[stripped]", f
    if f["module"] != sys.argv[2]:
        continue
    assert f["name"].startswith(name), f
    off = int(f["name"][len(name):], 16)
    for n, (lo, size) in syms.items():
        if lo <= off < lo + size:
            per[n] += f["samples"]
assert per["hot_work"] > per["cold_work"], per
' "$tmp/strip.json" "$tmp/stripped-hotloop" "$tmp/syms"
kill -0 "$dpid" || diag "deleted-program target died: $(cat $tmp/del.out)"; kill -0 "$spid" || diag "stripped target died: $(cat $tmp/strip.out)"
kill -9 "$dpid" "$spid" 2>/dev/null

# ---- a frameless leaf two calls deep: its caller is found through the CFI ----
for b in leafchain leafchain-nofp; do
	start_target $b
	"$PSCOPE" top "$TPID" --duration 120 --samples 600 --freq 999 --json --folded "$tmp/$b.folded" >"$tmp/$b.json" 2>"$tmp/err"
	hr=$(fn "$tmp/$b.json" handle_request total_pct)
	check "$b: handle_request, caller of the frameless leaf, has Total >= 90% (got $hr)" python3 -c "assert $hr >= 90"
	check "$b: the folded stacks hold the whole chain" grep -qE ';main;serve;handle_request;parse_payload [0-9]+$' "$tmp/$b.folded"
	check "$b: unwound from the stack copies, under 2% truncated" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["unwind"] in ("dwarf", "mixed"), d["unwind"]
assert d["truncated"] <= 0.02 * d["samples"], (d["truncated"], d["samples"])
' "$tmp/$b.json"
	kill -9 "$TPID"
done
# Frame pointers alone skip the caller of a frameless leaf.
start_target leafchain
"$PSCOPE" top "$TPID" --duration 120 --samples 300 --freq 999 --stack-copy 0 --json >"$tmp/lc-fp.json" 2>"$tmp/err"
hr=$(fn "$tmp/lc-fp.json" handle_request total_pct)
[ "$hr" = none ] && hr=0
check "--stack-copy 0: frame pointers only, handle_request loses the leaf (Total $hr < 60)" python3 -c "
import json; d = json.load(open('$tmp/lc-fp.json')); assert d['unwind'] == 'fp' and $hr < 60, d['unwind']"
"$PSCOPE" top "$TPID" --duration 120 --samples 50 --freq 999 >"$tmp/lc.txt" 2>"$tmp/err"
check "the text report says how the stacks were unwound" grep -qE '^call stacks: (fp|mixed|dwarf) \(frame pointers [0-9]+%, DWARF [0-9]+%\), 16384-byte stack copies$' "$tmp/lc.txt"
kill -9 "$TPID"

# ---- C++: names demangled ----
start_target hotcpp
"$PSCOPE" top "$TPID" --duration 120 --samples 200 --freq 999 --json >"$tmp/cpp.json" 2>&1
check "C++ target: the hot function demangled and first" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["functions"][0]["name"] == "hot::Worker<int>::spin(unsigned int)", d["functions"][:3]
' "$tmp/cpp.json"
kill -9 "$TPID"

# ---- anonymous executable memory: [anon/JIT], or named by /tmp/perf-PID.map ----
case $(uname -m) in
x86_64 | i?86)
	start_target hotloop -j
	"$PSCOPE" top "$TPID" --duration 120 --samples 300 --freq 999 --json >"$tmp/jit.json" 2>&1
	check "JIT code without a perf map: the [anon/JIT] bucket" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["functions"] if x["name"] == "[anon/JIT] (no perf map or jitdump)" and x["module"] == "[anon/JIT]"]
assert f and f[0]["self_pct"] > 10, d["functions"][:4]
' "$tmp/jit.json"
	kill -9 "$TPID"
	start_target hotloop -J
	at_exit "rm -f /tmp/perf-$TPID.map"
	"$PSCOPE" top "$TPID" --duration 120 --samples 300 --freq 999 --json >"$tmp/jitmap.json" 2>&1
	[ "$(fn "$tmp/jitmap.json" jit_spin module)" = "[anon/JIT]" ]
	ok $? "JIT code named by /tmp/perf-PID.map"
	kill -9 "$TPID"
	rm -f "/tmp/perf-$TPID.map"
	;;
*)
	skip "no x86 JIT code on $(uname -m)"
	skip "(same)"
	;;
esac

# ---- the target exits while it is sampled ----
start_target hotloop
"$PSCOPE" top "$TPID" --duration 60 >"$tmp/exit.txt" 2>"$tmp/exit.err" &
ppid=$!
# Kill the target once pscope samples it (it holds its ring buffers and
# the events on the target: 3 perf fds or more) and the target has run
# long enough since for samples (20 ticks of CPU: 0.2 s, ~20 at 99 Hz).
wait_until sh -c "[ \$(ls -l /proc/$ppid/fd 2>/dev/null | grep -c perf_event) -ge 3 ]"
wait_cpu "$TPID" 20
kill -9 "$TPID"
wait "$ppid"
rc=$?
[ $rc = 0 ]
ok $? "target killed mid-run: exit 0 with what was sampled (got $rc)"
[ $rc = 0 ] || sed 's/^/#   /' "$tmp/exit.err"
check "and says the process exited" grep -q "exited after" "$tmp/exit.err"
check "the table was printed" grep -q hot_work "$tmp/exit.txt"

# ---- doors: an unprivileged user against a root process ----
start_target hotloop
cp "$PSCOPE" "$TARGETS/hotloop" "$tmp/"
chmod 755 "$tmp/pscope" "$tmp/hotloop"
nobody() { (cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$@"); }
nobody "$tmp/pscope" top "$TPID" --duration 1 >"$tmp/door.out" 2>"$tmp/door.err"
rc=$?
[ $rc = 1 ]
ok $? "nobody against a root process: exit 1 (got $rc)"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$paranoid" -ge 3 ] && uname -v | grep -qE 'Debian|Ubuntu'; then
	want="pscope top: cannot sample: kernel.perf_event_paranoid is $paranoid (Debian: no perf_event_open for unprivileged users) (door: kernel.perf_event_paranoid; fix: sysctl -w kernel.perf_event_paranoid=2 (user-space sampling of your own processes), or grant CAP_PERFMON, or run as root)"
else
	want="pscope top: cannot sample: process $TPID belongs to uid 0 and we are uid $(id -u nobody) without CAP_SYS_PTRACE (door: CAP_SYS_PTRACE (process of another user); fix: run pscope as root or as uid 0, or grant it CAP_SYS_PTRACE (perf_event_open on another user's process needs ptrace read access; CAP_PERFMON alone is not enough))"
fi
[ "$(cat "$tmp/door.err")" = "$want" ]
ok $? "the door message, exactly"
[ "$(cat "$tmp/door.err")" = "$want" ] || diag "got: $(cat "$tmp/door.err")"
[ ! -s "$tmp/door.out" ]
ok $? "nothing on stdout"
kill -9 "$TPID"

# ---- an unprivileged user sampling its own process ----
if [ "$paranoid" -le 2 ]; then
	nobody "$tmp/hotloop" >"$tmp/own.out" 2>&1 &
	wait_until grep -q ready "$tmp/own.out"
	opid=$(pgrep -u nobody -f "$tmp/hotloop" | head -1)
	kill_at_exit $opid
	nobody "$tmp/pscope" top "$opid" --duration 120 --samples 100 --freq 999 >"$tmp/own.txt" 2>&1
	ok $? "nobody samples its own process"
	check "kernel samples are excluded and the report says why" \
		grep -q "kernel excluded: perf_event_paranoid $paranoid and no CAP_PERFMON" "$tmp/own.txt"
	check "hot_work leads" sh -c "awk '/SELF%/ { getline; print; exit }' $tmp/own.txt | grep -q hot_work"
	check "its events are per thread" grep -q '^events: one per thread and CPU$' "$tmp/own.txt"
	# Per-CPU events for every task are a door of their own.
	nobody "$tmp/pscope" top "$opid" --duration 1 --events cpu >"$tmp/own-cpu.txt" 2>"$tmp/own-cpu.err"
	rc=$?
	[ $rc = 1 ] && [ ! -s "$tmp/own-cpu.txt" ]
	ok $? "nobody asking for per-CPU events: refused, exit 1 (got $rc)"
	check "the refusal names the door and how to open it" grep -q "cannot sample per CPU: perf events for every task on a CPU need kernel.perf_event_paranoid <= 0 or CAP_PERFMON; it is $paranoid.*door: kernel.perf_event_paranoid.*perf_event_paranoid=0.*CAP_PERFMON" "$tmp/own-cpu.err"
	kill -9 "$opid"
else
	skip "perf_event_paranoid is $paranoid: users cannot sample at all"
	skip "(same)"
	skip "(same)"
	skip "(same)"
	skip "(same)"
	skip "(same)"
fi

# ---- per-CPU events on a small process (root) ----
start_target hotloop
"$PSCOPE" top "$TPID" --duration 120 --samples 300 --freq 999 --events cpu --json >"$tmp/cpu.json" 2>"$tmp/err"
ok $? "--events cpu: sampling with one event per CPU"
check "--events cpu: per-CPU events, hot_work first, nothing of other processes" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["events"] == "cpu", d["events"]
assert d["functions"][0]["name"] == "hot_work", d["functions"][:3]
for f in d["functions"]:
    assert f["module"] in (sys.argv[2], "[kernel]") or f["module"].startswith("/usr/lib") or f["module"].startswith("/lib"), f
' "$tmp/cpu.json" "$TARGETS/hotloop"
kill -9 "$TPID"

# ---- --samples: stop once that many samples are counted ----
start_target hotloop
"$PSCOPE" top "$TPID" --duration 120 --samples 40 --freq 499 --json >"$tmp/n.json" 2>"$tmp/err"
check "--samples 40: stops at 40 samples (a drained ring may add a few), long before --duration" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert 40 <= d["samples"] < 400, d["samples"]
' "$tmp/n.json"
kill -9 "$TPID"

# ---- bad input ----
"$PSCOPE" top 1 --freq 5000 2>"$tmp/e"; [ $? = 2 ] && grep -q "invalid frequency '5000'" "$tmp/e"
ok $? "frequency out of range: usage error"
"$PSCOPE" top 1 --duration -1 2>"$tmp/e"; [ $? = 2 ] && grep -q "invalid duration" "$tmp/e"
ok $? "negative duration: usage error"
"$PSCOPE" top 1 --samples 0 2>"$tmp/e"; [ $? = 2 ] && grep -q "invalid sample count '0'" "$tmp/e"
ok $? "--samples 0: usage error"
"$PSCOPE" top 1 --events all 2>"$tmp/e"; [ $? = 2 ] && grep -q "invalid events 'all'" "$tmp/e"
ok $? "unknown --events: usage error"
"$PSCOPE" top 1 --stack-copy 100 2>"$tmp/e"; [ $? = 2 ] && grep -q "invalid stack copy '100'" "$tmp/e"
ok $? "stack copy not a multiple of 8: usage error"
"$PSCOPE" top 1 --stack-copy 65536 2>"$tmp/e"; [ $? = 2 ] && grep -q "invalid stack copy '65536'" "$tmp/e"
ok $? "stack copy above the kernel's limit: usage error"
"$PSCOPE" top 4194304 --duration 1 2>"$tmp/e"; [ $? = 1 ] && grep -q "no process with PID 4194304" "$tmp/e"
ok $? "no such process: a clear error"
start_target hotloop
"$PSCOPE" top "$TPID" --duration 1 --folded /nonexistent-dir/x.folded >/dev/null 2>"$tmp/e"
[ $? = 1 ] && grep -q "cannot write /nonexistent-dir/x.folded" "$tmp/e"
ok $? "unwritable folded file: a clear error"
kill -9 "$TPID"

# A kernel thread (kthreadd, PID 2) has no user space: refused at once.
"$PSCOPE" top 2 --duration 5 >"$tmp/o" 2>"$tmp/e"
[ $? = 1 ] && grep -q "process 2 is a kernel thread: it has no user space to sample" "$tmp/e" && [ ! -s "$tmp/o" ]
ok $? "kernel thread: refused with a clear error, nothing sampled"

done_testing
