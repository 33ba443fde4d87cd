#!/bin/sh
# The detail screen in tmux: every pane, the fd highlight, help, Esc, and
# the process exiting while viewed.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/e2e/detail-lib.sh"

start_detail_target || { done_testing; exit 1; }
tui_start 150x45 "PSCOPE_DATA=$top_srcdir/data $PSCOPE -d 5 -p $TPID"
check "header names the process"  tui_wait_for "PID $TPID detail-target +user root +S sleeping"
check "status pane by default"     tui_wait_for "^Source: /proc/$TPID/\{stat,status"
check "status: threads 4"          tui_wait_for "^Threads +4"
check "status: rates per second"   tui_wait_for "per second"

tui_keys 2
check "FDs pane: source line"      tui_wait_for "^Source: /proc/$TPID/fd \+ fdinfo"
check "FDs pane: tcp listener"     tui_wait_for "tcp 127\.0\.0\.1:$DT_tcp_port LISTEN"
check "FDs pane: established"      tui_wait_for "tcp 127\.0\.0\.1:$DT_client_port -> 127\.0\.0\.1:$DT_tcp_port ESTABLISHED"
check "FDs pane: deleted file"     tui_wait_for "deleted-file \(deleted\)"
check "FDs pane: counts"           tui_wait_for "fds:.*socket 6 eventfd 1 epoll 1"
kill -USR1 "$TPID"
check "a new fd is counted"        tui_wait_for "since opened: 1 new, 0 closed" 60
check "and listed"                 tui_wait_for "/dev/zero"
kill -USR2 "$TPID"
check "a closed fd is shown"       tui_wait_for "\(closed\) /dev/zero" 60

tui_keys 3
check "Maps pane: mapped file"     tui_wait_for "rw-s .*mapped-file"
check "Maps pane: VMA count"       tui_wait_for "^[0-9]+ mappings \(VMAs\)"
tui_keys r
check "Maps pane: smaps columns"   tui_wait_for "SIZE +RSS +PSS +SWAP PATH"
tui_keys a
check "Maps pane: per file"        tui_wait_for "MAPS +SIZE. +RSS +PSS +SWAP +DIRTY FILE"

tui_keys Tab
check "Tab: Memory pane"           tui_wait_for "^Source: /proc/$TPID/smaps_rollup"
check "Memory pane: rollup fields" tui_wait_for "^Pss_Anon +[0-9]+ kB"
check "Memory pane: RSS trend"     tui_wait_for "RSS, last minute"

tui_keys Tab
check "Threads pane: sleeper"      tui_wait_for "dt-sleeper +S .*clock_nanosleep\(0x0\)"
check "Threads pane: reader"       tui_wait_for "dt-reader +S .*read\(0x$DT_pipe_r\)"
check "Threads pane: hostile name escaped" tui_wait_for 'dt-\\e\[31mred'
tui_keys BTab
check "Shift-Tab: back to Memory"  tui_wait_for "^Source: /proc/$TPID/smaps_rollup"

tui_keys F1
check "F1 explains the pane"       tui_wait_for "pscope help: Memory"
tui_keys Escape
check "Esc closes the help"        tui_wait_for "^Source: /proc/$TPID/smaps_rollup"

tui_keys 1
kill -TERM "$TPID"
check "exit is reported with its status" tui_wait_for "process $TPID has exited \(killed by signal 15 \(SIGTERM\)\)" 60
check "last data stays frozen"     tui_wait_for "^Threads +4"
tui_keys Escape

tui_screen | grep -q "^Source:"
ok $([ $? != 0 ] && tui_alive; echo $?) "back on the list, still running"

# A process reaped by its parent: no exit status left, and its PID must not
# be shown as whatever takes it next.
"$TARGETS/detail-target" "$DT_DIR" >"$DT_DIR/out2" 2>&1 &
RPID=$!
kill_at_exit $RPID
wait_until grep -q ready "$DT_DIR/out2"
RANDOM=101 # a new tmux socket name (bash: a new seed; dash: a plain variable)
tui_start 150x45 "PSCOPE_DATA=$top_srcdir/data $PSCOPE -d 5 -p $RPID"
check "second target shown"        tui_wait_for "PID $RPID detail-target"
kill -KILL "$RPID"; wait "$RPID" 2>/dev/null
check "reaped: exit status unknown" tui_wait_for "process $RPID has exited \(exit code unknown: already reaped by its parent\)" 60
check "still the old process's data" tui_wait_for "PID $RPID detail-target"

# A tiny terminal: every pane still draws, nothing breaks.
RANDOM=202
tui_start 30x7 "PSCOPE_DATA=$top_srcdir/data $PSCOPE -d 5 -p $$"
check "tiny terminal: header"      tui_wait_for "PID $$"
for k in 2 3 4 5 1 Tab BTab F1 Escape; do tui_keys "$k"; done
check "tiny terminal: still running" tui_alive
done_testing
