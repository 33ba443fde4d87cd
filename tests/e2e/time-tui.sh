#!/bin/bash
# The Time pane of the detail screen in tmux, on the time-target: the
# burners' run-queue share, the sleeper's reason, the tier and its source;
# switching to another pane detaches the session (no BPF link held); as
# nobody on another user's process the pane names the door.
. "$top_srcdir/tests/lib.sh"
SLEEPS=1000000 # the sleeper sleeps for the whole test once told to
tmp=$(mktemp -d "$top_builddir/tests/pscope-time.XXXXXX")
chmod 755 "$tmp"
at_exit "rm -rf $tmp"
"$TARGETS/time-target" "$tmp" -1 $SLEEPS 10 >"$tmp/target.out" 2>&1 &
TPID=$!
at_exit "kill -9 $TPID 2>/dev/null"
poll 100 grep -q ready "$tmp/target.out"
ok $? "the target is ready"
kill -USR1 $TPID # the sleeper starts its clock_nanosleep loop

# The pane's place in the tab bar.
tab=$(( $(sed -n 's/^PANE(\(.*\))$/\1/p' "$top_srcdir/src/pane/panes.h" | grep -n '^time$' | cut -d: -f1) ))
tui_start 160x45 "PSCOPE_DATA=$top_srcdir/data $PSCOPE -d 5 -p $TPID"
check "the detail screen is up" tui_wait_for "PID $TPID time-target"
check "the tab bar has the Time pane at $tab" tui_wait_for " $tab Time "
tui_keys "$tab"
check "Time: the source line says where the figures come from" tui_wait_for "^Source: a time session: BPF programs"
check "Time: the tier and what it reads" tui_wait_for "^Tier (bpf|trace|proc): [^ ]"
check "Time: the column titles" tui_wait_for "TID NAME +ONCPU% +RUNQ% +BLOCK% BLOCKED BY"
check "Time: the process line" tui_wait_for "^Process over [0-9.]+ s: on CPU [0-9.]+%, waiting for a CPU [0-9.]+%"
# Both burners share one CPU: each waits for it a good part of the second.
check "Time: burn1 waits on the run queue" tui_wait_for "^ *[0-9]+ burn1 +[0-9.]+ +([1-9][0-9]*|0\.[1-9])[0-9.]* "
check "Time: burn2 waits on the run queue" tui_wait_for "^ *[0-9]+ burn2 +[0-9.]+ +([1-9][0-9]*|0\.[1-9])[0-9.]* "
check "Time: the sleeper is blocked in sleep" tui_wait_for "^ *[0-9]+ sleeper +.* sleep [0-9]+%"
check "Time: the io thread is blocked in I/O" tui_wait_for "^ *[0-9]+ io +.* I/O [0-9]+%"

PP=$(ps -o pid= --ppid "$TUI_PANE_PID" | head -1 | tr -d ' ')
tier=$(tui_screen | sed -n 's/^Tier \([a-z]*\): .*/\1/p' | head -1)
links() { cat /proc/$PP/fdinfo/* 2>/dev/null | sed -n 's/^link_id:[[:space:]]*//p' | sort -un | tr '\n' ' '; }
held=$(links)
if [ "$tier" = bpf ]; then
	check "bpf: while shown, pscope holds BPF links ($held)" test -n "$held"
else
	skip "bpf links: the tier here is '$tier'"
fi
tui_keys 1
check "switched to the Status pane" tui_wait_for "^Source: /proc/$TPID/\{stat,status"
nolinks() { [ -z "$(links)" ]; }
poll 300 nolinks
ok $? "leaving the Time pane detaches: no BPF link held"
if [ -n "$held" ] && command -v bpftool >/dev/null; then
	gone() { for l in $held; do bpftool link show id "$l" >/dev/null 2>&1 && return 1; done; return 0; }
	poll 300 gone
	ok $? "bpftool: none of its links is left"
fi
tui_keys "$tab"
check "back on the Time pane: it measures again" tui_wait_for "^ *[0-9]+ burn1 +[0-9.]"

# ---- the Time screen (W), a thread drilled into ----
tui_keys 1
poll 300 nolinks
tui_keys W
check "W opens the Time screen" tui_wait_for "^ Time: PID $TPID \(time-target\), the last second"
check "Time screen: every column" tui_wait_for "TID NAME +ONCPU% +RUNQ% +BLOCK% +STOP% +VOLCS INVOLCS +MINFLT MAJFLT BLOCKED BY"
check "Time screen: the burners' run-queue share" tui_wait_for "^ *[0-9]+ burn1 +[0-9.]+ +([1-9][0-9]*|0\.[1-9])[0-9.]* "
tui_keys / sleeper Enter
tui_keys Enter
check "/ selects the sleeper, Enter drills into it" tui_wait_for "^ Time: thread [0-9]+ \(sleeper\) of PID $TPID"
if [ "$tier" = bpf ] || [ "$tier" = trace ]; then
	check "its syscall table's columns" tui_wait_for "^  SYSCALL +COUNT +ERRORS +TOTAL +AVG +P50 +P99 +MAX$"
	check "its syscall table has clock_nanosleep" tui_wait_for "^  clock_nanosleep +[1-9][0-9]* +0 "
	check "the system-call latency histogram, in text" tui_wait_for "^ +[0-9.]+[mu]s - [0-9.]+[mu]s +[1-9][0-9]* \|#+"
	check "the run-queue latency histogram" tui_wait_for "^Run-queue latency: [0-9]+ waits"
else
	check "the tier traces no system calls: said" tui_wait_for "^System calls: not traced on this tier"
fi
tui_keys Space
check "Space freezes" tui_wait_for "\[frozen: Space\]"
tui_keys Space Escape
check "Esc: out of the thread, the threads again" tui_wait_for "^ Time: PID $TPID \(time-target\), the last second"
tui_keys Escape
check "Esc again: back on the detail screen" tui_wait_for "Tab/Shift-Tab or 1-"
poll 300 nolinks
ok $? "leaving the Time screen detaches: no BPF link held"
tui_keys q
check "the target runs on, neither stopped nor traced" sh -c "
	grep -q '^TracerPid:[[:space:]]*0$' /proc/$TPID/status && ! grep -q '^State:[[:space:]]*[tT]' /proc/$TPID/status"

# ---- as nobody, on root's process: the door named ----
if [ "$(id -u)" = 0 ]; then
	NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all"
	tui_start 160x45 "PSCOPE_DATA=$top_srcdir/data $NOBODY $PSCOPE -d 5 -p $TPID"
	check "as nobody: the detail screen is up" tui_wait_for "PID $TPID time-target"
	tui_keys "$tab"
	check "as nobody: the Time pane names the door" tui_wait_for "^Permission missing: "
	check "as nobody: ... with the refusal" tui_wait_for "$TPID"
	tui_keys q
else
	skip "as nobody: needs root to drop privileges"
fi
done_testing
