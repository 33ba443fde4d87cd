#!/bin/bash
# The every-process hot view (A) keeps no sticky selection: until the user
# moves it stays on the top row, and a process that has exited does not
# hold it. A busy loop is sampled (likely the top row when the view
# opens), then killed; once it is no longer the first row the selection is
# on the first row.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }

tmp=$(mktemp -d /tmp/pscope-mwfirst.XXXXXX)
chmod 755 "$tmp"
at_exit "rm -rf $tmp"
N=mwf$$
cp "$TARGETS/hotloop" "$tmp/$N"
"$tmp/$N" -t 2 >"$tmp/out" 2>&1 &
TPID=$!
kill_at_exit $TPID
wait_until grep -q ready "$tmp/out"

export PSCOPE_DATA="${PSCOPE_DATA:-$top_srcdir/data}"
tui_start 100x30 "cd $tmp && env NO_COLOR=1 $PSCOPE; echo EXIT=\$?; sleep 60"
check "list up" tui_wait_for 'PID USER'
tui_keys A
check "A: the process table" tui_wait_for "^SHARE%v? +SAMPLES +SAMPLED +/PROC +PID +COMMAND" 50
check "the busy loop has its row" tui_wait_for " $TPID $N\$" 100
kill -9 $TPID
check "its row says it exited" tui_wait_for " $TPID $N \\(exited\\)" 100
first_pid() { tui_screen | awk '/^SHARE%/ { t = NR } t && NR == t + 1 { print $5; exit }'; }
not_first() { p=$(first_pid); [ -n "$p" ] && [ "$p" != "$TPID" ]; }
# Its samples leave the 10 s window: another process becomes the first row.
check "another process is the first row" wait_until not_first
check "the selection is on the first row, not on the exited process" wait_until -t 6 tui_selected_below '^SHARE%'
tui_screen | grep -q "has exited"
ok $((! $?)) "no 'has exited' message"
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
done_testing
