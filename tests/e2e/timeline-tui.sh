#!/bin/bash
# The Timeline screen (t on the Time screen) through tmux, at 80x24 and
# 200x50, on the target with known blocking: the sleeper's row is sleep
# (.), the reader's blocked in a pipe read (-), the waker's sleep; zoomed
# in, the sleeper is woken (!) and the waker marks the row that woke the
# reader (^); b jumps to the sleeper's next block (its nanosleep, 20 ms
# each), m m
# gives the interval's breakdown; without colour (NO_COLOR) the fills
# are the same characters; leaving closes every perf event.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
if [ "$(id -u)" != 0 ]; then
	skip "the timeline needs the trace tier (every CPU's scheduler events): root (CAP_PERFMON) only"
	done_testing
	exit 0
fi
export PSCOPE_DATA="${PSCOPE_DATA:-$top_srcdir/data}"
export LC_ALL=C.UTF-8
tmp=$(mktemp -d /tmp/pscope-tltui.XXXXXX)
at_exit "rm -rf $tmp"
start_target offcpu-fp
T=$TPID
tid_of() { grep -l "^$1\$" /proc/$T/task/*/comm | sed 's|/proc/[0-9]*/task/\([0-9]*\)/comm|\1|'; }
sleeper=$(tid_of sleeper)
reader=$(tid_of reader)
waker=$(tid_of waker)

fits() { # fits COLS
	tui_screen | python3 -c '
import sys, unicodedata
cols = int(sys.argv[1])
for line in sys.stdin.read().split("\n"):
    if sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line) > cols:
        sys.exit(1)
' "$1"
}

run() { # run COLSxROWS COLS [ENV...]
	local size=$1 cols=$2
	shift 2
	tui_start "$size" "cd $tmp && env $* $PSCOPE -p $T"
	tui_keys W
	tui_wait_for "Time: PID $T " >/dev/null
	ok $? "$size: W opens the Time screen"
	pspid=$(pgrep -n -x pscope -P "$TUI_PANE_PID")
	tui_keys t
	tui_wait_for "^ Timeline: PID $T \\(offcpu-fp\\), 10\\.00s across" >/dev/null
	ok $? "$size: t opens the Timeline, 10 s across"
	# (sampled when the machine's switches pass the tier's rate: said so)
	tui_wait_for '^Tier trace(: every scheduler switch, wakeup, system call and page fault|, sampled: it traced part of each second only)' >/dev/null
	ok $? "$size: it names the trace tier and what it records, or that it sampled"
	tui_wait_for "^ +$sleeper sleeper +.*\\.{8}" 150 >/dev/null
	ok $? "$size: the sleeper's row: sleep (.)"
	tui_wait_for "^ +$reader reader +.*-{8}" >/dev/null
	ok $? "$size: the reader's row: blocked in a pipe read (-)"
	tui_wait_for "^ +$waker waker +.*\\.{8}" >/dev/null
	ok $? "$size: the waker's row: sleep (.)"
	check "$size: the screen fits $cols columns" fits "$cols"
	# Zoomed to 156 ms across: wakeups are marked (cells under 5 ms).
	tui_keys + + + + + +
	tui_wait_for '^ Timeline: PID [0-9]+ .*, 156\.[23]ms across  \[frozen: Space\]' >/dev/null
	ok $? "$size: + six times: 156.2 ms across, the view held still"
	# A tier that sampled traced part of each second only: the 156 ms held
	# may fall in a gap, where no wakeup is known. Said, and skipped.
	sampled=$(tui_screen | grep -c '^Tier trace, sampled')
	if [ "$sampled" != 0 ]; then
		diag "$size: $(tui_screen | grep '^Tier trace')"
		for w in "the sleeper is woken (!)" "the waker's row marks the wakeup it made (^)" "... of the reader (!)" \
			"b: the sleeper's next block"; do
			skip "$size: $w: the tier sampled (the machine's switches passed its rate), the held view may be a gap"
		done
	else
	tui_wait_for "^ +$sleeper sleeper +.*!" >/dev/null
	ok $? "$size: the sleeper is woken (!)"
	tui_wait_for "^ +$waker waker +.*\\^" >/dev/null
	ok $? "$size: the waker's row marks the wakeup it made (^)"
	tui_wait_for "^ +$reader reader +.*!" >/dev/null
	ok $? "$size: ... of the reader (!)"
	fi
	# Select the sleeper's row, jump to its next long block.
	while ! tui_screen | grep -qE "^cursor .* $sleeper[ :]"; do
		tui_keys Down
		tui_screen | grep -qE "^cursor .* $waker[ :]" && break
	done
	tui_keys Left Left Left Left Left Left Left Left
	tui_keys b
	if [ "$sampled" = 0 ]; then
	tui_wait_for '^a block of (1[0-9]|2[0-1])\.[0-9]ms' >/dev/null
	ok $? "$size: b: the sleeper's next block, 10-21 ms (its 20 ms nanosleep, cut at the window's end at most)"
	fi
	tui_wait_for "^cursor -[0-9.]+m?s \\(cell [0-9.]+[um]s\\) $sleeper \\[nanosleep\\]: \\. sleep " >/dev/null
	ok $? "$size: the detail line: the cursor's cell is the sleeper's sleep in nanosleep"
	tui_keys m . . . . m
	tui_wait_for "^interval [0-9.]+[um]s, $sleeper: CPU [0-9.]+[um]s \\(syscalls [0-9.]+[um]s\\), CPU wait [0-9.]+[um]s, blocked [0-9.]+[um]s" >/dev/null
	ok $? "$size: m, m: the interval's breakdown"
	tui_keys Escape
	tui_wait_for "Time: PID $T " >/dev/null
	ok $? "$size: Esc: back to the Time screen"
	tui_keys Escape Escape
	tmux -L "$TMUX_S" kill-server 2>/dev/null
	wait_until sh -c "! kill -0 $pspid"
	ok $? "$size: pscope ended"
}

run 80x24 80
run 200x50 200 NO_COLOR=1

# A small terminal still draws the rows (14 cells), within its width;
# Korean fits 80 columns.
tui_start 30x10 "cd $tmp && $PSCOPE -p $T"
tui_keys W
tui_wait_for "Time: PID $T" >/dev/null
tui_keys t
tui_wait_for "^ +$sleeper sleeper +[.!#=+ ]*\\.{4}" 150 >/dev/null
ok $? "30x10: the sleeper's row, in 14 cells"
check "30x10: the screen fits 30 columns" fits 30
tmux -L "$TMUX_S" kill-server 2>/dev/null
if grep -q '^#define ENABLE_NLS 1' "$top_builddir/config.h" && locale -a 2>/dev/null | grep -qi '^ko_KR\.utf-\?8$'; then
	tui_start 80x24 "cd $tmp && env LANG=ko_KR.UTF-8 LC_ALL= LANGUAGE= $PSCOPE -p $T"
	tui_keys W
	tui_wait_for "PID $T" >/dev/null
	tui_keys t
	tui_wait_for "^ 타임라인: PID $T \\(offcpu-fp\\), 폭 10\\.00s" >/dev/null
	ok $? "Korean: the title"
	tui_wait_for "^ +$sleeper sleeper +.*\\.{8}" 150 >/dev/null
	ok $? "Korean: the sleeper's row"
	check "Korean: the screen fits 80 columns" fits 80
	tmux -L "$TMUX_S" kill-server 2>/dev/null
else
	skip "Korean: the ko_KR.UTF-8 locale or NLS is missing here"
fi
done_testing
