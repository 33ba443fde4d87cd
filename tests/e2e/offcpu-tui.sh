#!/bin/bash
# The off-CPU view of the hot functions screen at 80x24, through tmux: o
# turns it on (status, BLOCK_ms column, the sleeper's inner_sleep a third
# of the blocked time), b shows the wakers ([waker-TID] over wake_reader),
# b turns them off, > and < step the shortest block, o turns the view off,
# Esc closes the events; the same in Korean.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
if [ "$(id -u)" != 0 ]; then
	skip "the off-CPU view traces every CPU's scheduler: root (CAP_PERFMON) only"
	done_testing
	exit 0
fi
export PSCOPE_DATA="${PSCOPE_DATA:-$top_srcdir/data}"
export LC_ALL=C.UTF-8 # tmux and the checks read UTF-8
tmp=$(mktemp -d /tmp/pscope-offcpu.XXXXXX)
at_exit "rm -rf $tmp"
start_target offcpu-fp
T=$TPID
waker=$(grep -l '^waker$' /proc/$T/task/*/comm | sed 's|/proc/[0-9]*/task/\([0-9]*\)/comm|\1|')

# No line of the screen wider than the terminal (Hangul is two columns).
fits() { # fits COLS
	tui_screen | python3 -c '
import sys, unicodedata
cols = int(sys.argv[1])
for line in sys.stdin.read().split("\n"):
    if sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line) > cols:
        sys.exit(1)
' "$1"
}
perf_fds() { ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'perf_event'; }

tui_start 80x24 "cd $tmp && $PSCOPE -p $T"
tui_keys h
tui_wait_for "Hot functions: PID $T " >/dev/null
ok $? "h opens the hot functions"
pspid=$(pgrep -n -x pscope -P "$TUI_PANE_PID")
tui_keys o
tui_wait_for '^ off CPU: each block of 1\.0ms\+ weighed until the thread ran again; b: wakers' >/dev/null
ok $? "o: the off-CPU view says what it weighs"
tui_wait_for '^ SELF% TOTAL% BLOCK_ms  FUNCTION ' >/dev/null
ok $? "o: the weight column is BLOCK_ms"
tui_wait_for '^ +0\.0 +(3[0-9])\.[0-9] +0\.0  inner_sleep(:[0-9]+)? +offcpu-fp ' 150 >/dev/null
ok $? "the sleeper's inner_sleep holds a third of the blocked time (three threads, always blocked)"
check "the status line: blocks and their time, the shorter ones, wakers unknown, records lost" sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S |
	grep -Eq '^ blocks [0-9]+, [0-9.]+m?s blocked \\(window [0-9.]+ ms\\)  shorter [0-9]+  waker unknown [0-9]+  lost [0-9]+'"
check "the screen fits 80 columns" fits 80
tui_keys b
tui_wait_for "^ +0\\.0 +(3[0-9])\\.[0-9] +0\\.0  \\[waker-$waker\\] +\\[category\\]" 150 >/dev/null
ok $? "b: the reader's waker is [waker-$waker], a third of the time"
tui_keys /
tui_keys -l wake_reader
tui_keys Enter
tui_wait_for '^ +0\.0 +(3[0-9])\.[0-9] +0\.0  wake_reader(:[0-9]+)? +offcpu-fp ' >/dev/null
ok $? "b: ... from wake_reader (found with /)"
tui_wait_for '\[interrupt\] +\[category\]' >/dev/null
ok $? "b: the sleeps are ended by an interrupt (their timer)"
tui_keys b
tui_wait_for '^ off CPU: each block' >/dev/null
ok $? "b again: the blocks"
tui_keys '>'
tui_wait_for '^ off CPU: each block of 2\.0ms\+ weighed' >/dev/null
ok $? "> : blocks of 2 ms or more"
tui_keys '<' '<'
tui_wait_for '^ off CPU: each block of 500\.0us\+ weighed' >/dev/null
ok $? "< < : blocks of 0.5 ms or more"
tui_wait_for '^ +0\.0 +(3[0-9])\.[0-9] +0\.0  inner_sleep(:[0-9]+)? +offcpu-fp ' 150 >/dev/null
ok $? "... traced again: inner_sleep a third of the time"
tui_keys o
tui_wait_for '^ SELF% TOTAL%  SAMPLES  FUNCTION' >/dev/null
ok $? "o again: the on-CPU view (samples)"
tui_keys Escape
wait_until sh -c "[ \"\$(ls -l /proc/$pspid/fd 2>/dev/null | grep -c perf_event)\" = 0 ]"
ok $? "Esc: no perf event left open"
tmux -L "$TMUX_S" kill-server 2>/dev/null

# ---- Korean ----
if grep -q '^#define ENABLE_NLS 1' "$top_builddir/config.h" && locale -a 2>/dev/null | grep -qi '^ko_KR\.utf-\?8$'; then
	tui_start 80x24 "cd $tmp && env LANG=ko_KR.UTF-8 LC_ALL= LANGUAGE= $PSCOPE -p $T"
	tui_keys h
	tui_keys o
	tui_wait_for '^ off-CPU: 1\.0ms 이상 블록마다 다시 돌 때까지의 시간; b: 깨운 스레드' 150 >/dev/null
	ok $? "Korean: the off-CPU status line"
	tui_wait_for '^ 블록 [0-9]+개, ' >/dev/null
	ok $? "Korean: the blocks line"
	check "Korean: the screen fits 80 columns" fits 80
	tui_keys b
	tui_wait_for '^ 1\.0ms 이상 블록을 깨운 스레드: 누가 어디서 깨웠는지; b: 블록' >/dev/null
	ok $? "Korean: the wakers' status line"
	tui_keys Escape
else
	skip "Korean: the ko_KR.UTF-8 locale or NLS is missing here"
fi
done_testing
