#!/bin/bash
# The off-CPU profile's /proc tier, as nobody on nobody's own target
# (offcpu-target.c, with and without frame pointers): the tracepoints
# are refused without CAP_PERFMON, so the blocked threads are sampled
# (their stacks on a short freeze) and weighed by the interval -- said in
# the JSON ("tier": "proc", "statistical"), the text report and the hot
# screen's status line; the sleeper's stack two calls deep under its
# kernel part (wchan, the system call), its weight about the window; the
# target left running, untraced.
. "$top_srcdir/tests/lib.sh"
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip "needs root and setpriv to run pscope and its target as nobody"
	done_testing
	exit 0
fi
bin=$(mktemp -d /tmp/pscope-offcpu-proc.XXXXXX)
at_exit "rm -rf $bin"
cp "$PSCOPE" "$bin/pscope" && cp "$TARGETS/offcpu-fp" "$TARGETS/offcpu-nofp" "$bin/" && chmod 755 "$bin" "$bin"/*
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all"
nobody() { $NOBODY "$@"; }

for build in fp nofp; do
	$NOBODY "$bin/offcpu-$build" >"$bin/$build.out" 2>&1 & # (setpriv execs it: $! is the target)
	T=$!
	kill_at_exit $T
	wait_until grep -q ready "$bin/$build.out" || { ok 1 "$build: the target started"; continue; }
	nobody "$bin/pscope" top $T --off-cpu --duration 2 --json >"$bin/$build.json" 2>"$bin/$build.err"
	ok $? "$build: as nobody, pscope top --off-cpu --json exits 0 (the /proc tier)" || diag "$(cat "$bin/$build.err")"
	no_crash_in "$bin/$build.err" "$build: the run"
	check "$build: the tier named, statistical, the sleeper's stack and its weight" python3 - "$bin/$build.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tier"] == "proc" and d["statistical"] is True and d["interval_ns"] == 100000000, d
assert d["event"] == "proc:blocked-threads" and d["unit"] == "ns-blocked", d
st = [s for s in d["stacks"] if s["thread"] == "sleeper"]
assert st, d["stacks"]
s = max(st, key=lambda s: s["weight"])
user = ",".join(f["name"] for f in s["frames"] if f["kind"] != "kernel")
assert user.startswith("inner_sleep,outer,sleeper_main,start_thread"), user
kernel = [f["name"] for f in s["frames"] if f["kind"] == "kernel"]
assert kernel and kernel[-1] in ("sys_nanosleep", "sys_clock_nanosleep"), kernel
# Asleep nearly all the time: about the window, in 100 ms steps.
win = d["elapsed_s"] * 1e9
assert 0.7 * win <= sum(x["weight"] for x in st) <= 1.05 * win, (s["weight"], win)
assert s["blocks"] >= 10, s
PY
	nobody "$bin/pscope" top $T --off-cpu --duration 0.5 >"$bin/$build.txt" 2>&1
	check "$build: the text report says it is statistical, and why" sh -c "
		grep -qE '^PID $T \\(offcpu-$build\\), [0-9.]+ s off CPU, STATISTICAL: [0-9]+ samples of blocked threads, every 100.0ms, ' '$bin/$build.txt' &&
		grep -q '^the /proc tier: the scheduler.s tracepoints need CAP_PERFMON' '$bin/$build.txt' &&
		grep -qE '^stack 1: .* blocked \\(sampled\\), [0-9]+ samples, thread ' '$bin/$build.txt'"
	check "$build: the target is left running, untraced" sh -c "
		grep -qE '^State:.*[SR]' /proc/$T/status && grep -qE '^TracerPid:[[:space:]]+0$' /proc/$T/status"
	kill -9 $T
	wait $T 2>/dev/null
done

# Refused both ways (nobody on root's process): exit 1, both doors named.
start_target offcpu-fp
nobody "$bin/pscope" top $TPID --off-cpu --duration 0.1 >/dev/null 2>"$bin/refused.err"
check "nobody on root's process: exit 1, CAP_PERFMON and the refused freeze named" sh -c "
	[ $? = 1 ] && grep -q 'CAP_PERFMON' '$bin/refused.err' && grep -q 'sampling the blocked threads instead was refused too' '$bin/refused.err'"

# The hot screen's status line, through tmux.
if command -v tmux >/dev/null; then
	export LC_ALL=C.UTF-8
	$NOBODY "$bin/offcpu-fp" >"$bin/tui.out" 2>&1 &
	T=$!
	kill_at_exit $T
	wait_until grep -q ready "$bin/tui.out"
	tui_start 100x24 "cd $bin && HOME=$bin XDG_CONFIG_HOME=$bin $NOBODY $bin/pscope -p $T"
	tui_keys h
	tui_wait_for "Hot functions: PID $T " >/dev/null
	ok $? "tui: h opens the hot functions"
	tui_keys o
	tui_wait_for '^ off CPU, STATISTICAL \(/proc tier, no CAP_PERFMON\): blocked threads sampled every 100\.0ms; no wakers' >/dev/null
	ok $? "tui: o shows the /proc tier's status line, statistical"
	tui_wait_for 'inner_sleep' >/dev/null
	ok $? "tui: the sleeper's inner_sleep is listed"
	tui_keys q
else
	skip "tmux not installed: the status line not checked"
fi
done_testing
