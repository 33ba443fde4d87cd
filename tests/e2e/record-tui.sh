#!/bin/sh
# pscope -r FILE at 80x24: the list on a recording with its time bar;
# [ ] { } step, : jumps to a time; search, filter and tree work on it;
# keys that act on live processes are refused; a file that is no
# recording is said before the screen opens.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
out=$(mktemp -d /tmp/pscope-record-tui.XXXXXX)
at_exit "rm -rf $out"
start_target family 2 ps-recorded || exit 1
FPID=$TPID
f=$out/r.psrec
"$PSCOPE" record -o "$f" --interval 0.2 --duration 2.5 2>"$out/rec.err"
ok $? "a recording of 2.5 s"
n=$("$PSCOPE" list -r "$f" --json | sed -n 's/.*"intervals":\([0-9]*\).*/\1/p')
check "with several intervals ($n)" test "${n:-0}" -ge 5
kill -9 $FPID

tui_start 80x24 "$PSCOPE -r $f"
check "the time bar: the file, the first interval" tui_wait_for "^ Replay .*r\\.psrec  [0-9-]+ [0-9:]+  interval 1/$n "
check "the list below it, as live" tui_wait_for '^ +PID USER +PRI +NI +VIRT +RES +SHR S +CPU%'
tui_keys ']'
check "] steps one interval on" tui_wait_for "interval 2/$n "
tui_keys '}'
check "} ten on (at most the last)" tui_wait_for "interval ([0-9]+)/$n "
tui_keys '['
tui_keys ':'
tui_keys -l -- '-0s'
tui_keys Enter
check ": -0s jumps to the last interval" tui_wait_for "interval $n/$n "
tui_keys ':'
tui_keys -l '+0'
tui_keys Enter
check ": +0 to the first" tui_wait_for "interval 1/$n "
tui_keys ':'
tui_keys -l 'soon'
tui_keys Enter
check "a bad time is said" tui_wait_for "invalid time 'soon'"
tui_keys '\'
tui_keys -l 'ps-recorded'
tui_keys Enter
check "the filter finds the recorded process, gone since" tui_wait_for "^ *$FPID "
check "and its two children, nothing else" sh -c "test \$(tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -cE '^ *[0-9]+ ') -eq 3"
tui_keys t
check "tree view on the recording: tree marks on the rows" tui_wait_for "^ *$FPID .* [│└├]"
tui_keys k
check "k (a signal) is refused on a recording" tui_wait_for "a recording: that key acts on live processes, not in a replay"
tui_keys Enter
check "and Enter (the detail screen) too" tui_wait_for "a recording: that key acts on live processes"
tui_keys q
check "q quits" poll 30 sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q Replay"

"$PSCOPE" -r /etc/passwd 2>"$out/no.err"
ok $(( $? != 1 )) "pscope -r on a file that is no recording: status 1"
check "said with the file and offset" grep -q "passwd: at offset 0: not a pscope recording" "$out/no.err"
done_testing
