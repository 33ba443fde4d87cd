#!/bin/bash
# pscope time: the text report, --tid, the machine view, a target that
# exits or execs mid-window, bad arguments, delay accounting (turned on and
# restored), and the BPF tier leaving nothing attached when pscope is
# killed with SIGKILL.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/e2e/time-lib.sh"
TT=$TPID # the time-target (start_quiet_target below sets TPID)

bpf=no
if [ "$(id -u)" = 0 ] && "$PSCOPE" time $TT --tier bpf --duration 0.01 >/dev/null 2>&1; then
	bpf=yes
fi

# ---- the text report ----
"$PSCOPE" time $TT --duration 0.5 >"$tmp/text" 2>"$tmp/text.err"
ok $? "pscope time PID exits 0"
tier=$(sed -n 's/^PID [0-9]* (time-target), [0-9.]* s, tier \([a-z]*\)$/\1/p' "$tmp/text")
check "the first line names the process, the window and the tier ($tier)" test -n "$tier"
check "the thread table's header" grep -q '^ *TID NAME  *ONCPU%  *RUNQ%  *BLOCK%  *STOP%  *VOLCS INVOLCS  *MIGR  *MINFLT MAJFLT FAULT_ms  BLOCKED BY$' "$tmp/text"
check "one row per thread, by name, and the process row" sh -c "
	for n in time-target burn1 burn2 lock1 lock2 io sleeper faulter; do grep -q \"^ *[0-9][0-9]* \$n \" '$tmp/text' || exit 1; done
	grep -q '^ *(process) ' '$tmp/text'"
check "the io thread's row says I/O first" grep -q '^ *[0-9]* io .*  I/O [0-9]*%' "$tmp/text"
if [ "$tier" = bpf ]; then
	check "bpf: the syscall table with its columns" grep -q '^  SYSCALL  *COUNT  *ERRORS  *TOTAL_ms  *AVG_us  *P50_us  *P99_us  *MAX_us  *BLOCKED_ms$' "$tmp/text"
	check "bpf: the run-queue histogram and the worst waits" sh -c "grep -q '^Run-queue wait: [0-9]* waits' '$tmp/text' && grep -q '^Worst waits' '$tmp/text'"
	check "bpf: no cost figure unless asked (bpf_enable_stats times every program)" sh -c "! grep -q 'BPF cost' '$tmp/text'"
	"$PSCOPE" time $TT --duration 0.3 --bpf-stats >"$tmp/cost" 2>&1
	check "bpf --bpf-stats: the cost per event, per program" grep -qE '^  BPF cost: [0-9]+ ns per event \([0-9]+ events\): ps_t_switch [0-9]+ ns' "$tmp/cost"
else
	check "proc: the sampled syscalls, said to be statistical" grep -q '^System calls seen in samples (statistical' "$tmp/text"
fi

# ---- a window the target runs through (not fenced) ----
# Every thread lived through the whole window: its shares add up to the
# window, never more (schedstat counts a wait as it ends, all of it; the
# reads of /proc take a while on a busy machine), and not far less.
for t in $([ "$(id -u)" = 0 ] && echo bpf trace) proc; do
	"$PSCOPE" time $TT --tier $t --duration 0.5 --json >"$tmp/sum-$t.json" 2>"$tmp/sum-$t.err" || {
		no_crash_in "$tmp/sum-$t.err" "probe of the $t tier"
		diag "no $t tier here: $(cat "$tmp/sum-$t.err")"
		continue
	}
	check "$t: each thread's shares add up to the window (<= 100.5%, > 50%)" python3 - "$tmp/sum-$t.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [(t["name"], s) for t in d["threads"]
       for s in [t["on_cpu_pct"] + t["runqueue_pct"] + t["blocked_pct"] + t["stopped_pct"]] if not 50 < s <= 100.5]
assert not bad and len(d["threads"]) == 8, bad
PY
done

# ---- --tid: one thread ----
io=$(grep -l '^io$' /proc/$TT/task/*/comm | sed 's|/proc/[0-9]*/task/\([0-9]*\)/comm|\1|')
"$PSCOPE" time $TT --tid "$io" --duration 0.3 --json >"$tmp/tid.json"
ok $? "--tid exits 0"
check "--tid: only that thread" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [t["tid"] for t in d["threads"]] == [int(sys.argv[2])], d["threads"]
' "$tmp/tid.json" "$io"
"$PSCOPE" time $TT --tid 1 --duration 0.1 >/dev/null 2>"$tmp/tid.err"
check "--tid of another process's thread: exit 1 and why" sh -c "[ $? = 1 ] && grep -q '^pscope time: 1 is not a thread of process $TT' '$tmp/tid.err'"

# ---- bad arguments: exit 2 ----
for args in "--tier foo" "--duration 0" "--hz 0" "--hz 101" "--tid x" "--top 0" "--rate 5"; do
	# shellcheck disable=SC2086
	"$PSCOPE" time $TT $args >/dev/null 2>"$tmp/bad.err"
	check "'$args': usage error (exit 2)" sh -c "[ $? = 2 ] && grep -q \"^pscope: invalid\" '$tmp/bad.err'"
done
"$PSCOPE" time --tid 5 >/dev/null 2>"$tmp/bad.err"
check "--tid without a PID: usage error" sh -c "[ $? = 2 ] && grep -q '^pscope: --tid, --rate, --no-syscalls and --bpf-stats need a PID' '$tmp/bad.err'"
"$PSCOPE" time --tier bpf --duration 0.1 >/dev/null 2>"$tmp/bad.err"
check "the machine with --tier bpf: usage error naming the proc tier" sh -c "[ $? = 2 ] && grep -q 'the bpf tier needs a PID' '$tmp/bad.err'"
"$PSCOPE" time 999999999 >/dev/null 2>"$tmp/bad.err"
check "a PID that does not exist: usage error" test $? = 2

# ---- the machine: processes ranked by run-queue wait and by blocked time ----
"$PSCOPE" time --duration 1 --json >"$tmp/machine.json"
ok $? "pscope time (no PID) --json exits 0"
check "machine: the target with its 8 threads, run-queue and blocked shares" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tier"] == "proc" and d["window_s"] > 0.9, d["tier"]
p = [x for x in d["processes"] if x["pid"] == int(sys.argv[2])]
assert p and p[0]["threads"] == 8 and p[0]["name"] == "time-target", p
assert p[0]["runqueue_pct"] > 0 and p[0]["blocked_pct"] > 0 and p[0]["on_cpu_pct"] > 0, p
r = [x["runqueue_ns"] for x in d["processes"]]
assert r == sorted(r, reverse=True), "not ranked by run-queue wait"
b = {x["pid"]: x["blocked_ns"] for x in d["processes"]}
bl = [b[pid] for pid in d["by_blocked"]]
assert bl == sorted(bl, reverse=True) and len(bl) == len(r), "by_blocked not ranked"
' "$tmp/machine.json" $TT
"$PSCOPE" time --duration 0.3 --top 3 >"$tmp/machine.txt"
check "machine text: both rankings, 3 rows each" python3 -c '
import re, sys
t = open(sys.argv[1]).read()
assert re.search(r"^Every process, [0-9.]+ s, tier proc$", t, re.M), t[:200]
a, b = t.split("\nBy run-queue wait")[1].split("\nBy blocked time")
rows = lambda s: [l for l in s.splitlines() if re.match(r"^ *[0-9]+ ", l)]
assert len(rows(a)) == 3 and len(rows(b)) == 3, (rows(a), rows(b))
' "$tmp/machine.txt"

# ---- a target that exits mid-window ----
mkdir "$tmp/x"
"$TARGETS/time-target" "$tmp/x" >"$tmp/x/out" 2>&1 &
SP=$!
at_exit "kill -9 $SP 2>/dev/null"
poll 100 grep -q ready "$tmp/x/out"
PSCOPE_TEST_PAUSE=time-window PSCOPE_TEST_PAUSE_MS=1 "$PSCOPE" time $SP --duration 60 >"$tmp/exit.out" 2>"$tmp/exit.err" &
BG=$!
poll 300 grep -q "paused at time-window" "$tmp/exit.err"
kill -TERM $SP # the target's own exit (main returns)
wait $BG
ok $? "a target that exits: exit 0 with what was measured"
check "it says the process exited" grep -qE "^pscope time: after [0-9.]+ s, the process exited$" "$tmp/exit.err"
check "and reports its threads, marked exited" grep -q "^ *$SP time-target (exited) " "$tmp/exit.out"

# ---- a target that execs mid-window: ends there, with the old program's figures ----
ln -s "$TARGETS/execer" "$tmp/execed"
start_quiet_target execer --exec-to "$tmp/execed" || { done_testing; exit 1; }
EP=$TPID
PSCOPE_TEST_PAUSE=time-window PSCOPE_TEST_PAUSE_MS=1 "$PSCOPE" time $EP --duration 60 >"$tmp/exec.out" 2>"$tmp/exec.err" &
BG=$!
poll 300 grep -q "paused at time-window" "$tmp/exec.err"
kill -USR1 $EP
poll 300 sh -c "! kill -0 $BG 2>/dev/null"
check "exec: pscope time ends at the exec, not at --duration" sh -c "! kill -0 $BG 2>/dev/null"
wait $BG
ok $? "exec: exit 0"
check "exec: says it exec'd" grep -qE "^pscope time: after [0-9.]+ s, the process exec'd \(it now runs execed\): the table covers the program before$" "$tmp/exec.err"
kill -9 $EP

# ---- delay accounting, turned on for a target started after it ----
if [ "$(id -u)" = 0 ] && [ -w /proc/sys/kernel/task_delayacct ]; then
	old=$(cat /proc/sys/kernel/task_delayacct)
	at_exit "echo $old >/proc/sys/kernel/task_delayacct"
	echo 1 >/proc/sys/kernel/task_delayacct
	mkdir "$tmp/d"
	"$TARGETS/time-target" "$tmp/d" >"$tmp/d/out" 2>&1 &
	DP=$!
	at_exit "kill -9 $DP 2>/dev/null"
	poll 100 grep -q ready "$tmp/d/out"
	"$PSCOPE" time $DP --tier proc --duration 1 --json >"$tmp/delay.json"
	ok $? "delay accounting on: pscope time exits 0"
	echo "$old" >/proc/sys/kernel/task_delayacct
	check "delay accounting: the io thread's block I/O delay, and I/O its first reason" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert "tasks started after" in d["delay_accounting"], d["delay_accounting"]
io = [t for t in d["threads"] if t["name"] == "io"][0]
assert io["delay"] and io["delay"]["blkio_ns"] > 0, io["delay"]
assert max(io["blocked"], key=io["blocked"].get) == "io", io["blocked"]
' "$tmp/delay.json"
	"$PSCOPE" time $DP --tier proc --duration 0.1 --json >"$tmp/nodelay.json"
	check "delay accounting off: the note says how to turn it on" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert "sysctl -w kernel.task_delayacct=1" in d["delay_accounting"], d["delay_accounting"]
assert all(t["delay"] is None for t in d["threads"])
' "$tmp/nodelay.json"
else
	skip "delay accounting: needs root to set kernel.task_delayacct"
fi

# ---- SIGKILL of pscope leaves no BPF program or link behind ----
if [ $bpf = yes ]; then
	rm -f "$tmp/kill.err"
	PSCOPE_TEST_PAUSE=time-window PSCOPE_TEST_PAUSE_MS=60000 "$PSCOPE" time $TT --duration 60 >/dev/null 2>"$tmp/kill.err" &
	KP=$!
	at_exit "kill -9 $KP 2>/dev/null"
	poll 300 grep -q "paused at time-window" "$tmp/kill.err"
	progs=$(cat /proc/$KP/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:[[:space:]]*//p' | sort -un | tr '\n' ' ')
	links=$(cat /proc/$KP/fdinfo/* 2>/dev/null | sed -n 's/^link_id:[[:space:]]*//p' | sort -un | tr '\n' ' ')
	check "bpf: pscope holds its programs and links ($progs/ $links)" sh -c "[ -n '$progs' ] && [ -n '$links' ] &&
		for p in $progs; do bpftool prog show id \$p | grep -q ' name ps_' || exit 1; done"
	kill -9 $KP
	wait $KP 2>/dev/null
	gone() {
		for p in $progs; do bpftool prog show id "$p" >/dev/null 2>&1 && return 1; done
		for l in $links; do bpftool link show id "$l" >/dev/null 2>&1 && return 1; done
		return 0
	}
	poll 300 gone
	ok $? "bpf: after SIGKILL no program and no link of it is left"
	check "the target runs on, neither stopped nor traced" sh -c "
		grep -q '^TracerPid:[[:space:]]*0$' /proc/$TT/status &&
		! cut -d' ' -f3 /proc/$TT/task/*/stat | grep -q '[tT]'"
else
	skip "SIGKILL and BPF: no BPF tier here"
fi

done_testing
