#!/bin/sh
# pscope -r FILE in tmux at 80x24: the recorded list with its time bar,
# [ ] { } stepping through the intervals, : jumping to a time, the
# recorded process found in its interval and gone after it exited, keys
# that act on live processes refused, a file that is no recording refused
# before the screen opens; pscope replay FILE --at TIME and -r FILE --at
# TIME opening on the interval asked for.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
T=$_tlinks
rec=$T/tui.rec

start_target family 1 || exit 1
FPID=$TPID
"$PSCOPE" record -o "$rec" -i 0.2 -v 2>"$T/rec.err" &
RP=$!
kill_at_exit $RP
check "the recorder wrote three intervals" wait_until grep -q 'interval 3 written' "$T/rec.err"
kill -9 $FPID
wait $FPID 2>/dev/null
n=$(grep -c written "$T/rec.err")
check "and two more after the family exited" wait_until sh -c "[ \$(grep -c written '$T/rec.err') -ge $((n + 2)) ]"
kill -INT $RP
wait $RP
ok $? "pscope record exits 0"
last=$(grep -c written "$T/rec.err")

tui_start 80x24 "$PSCOPE" -r "$rec"
check "the time bar names the last interval" tui_wait_for "interval $last/$last +[+][0-9.]+ s \\["
no_row() { ! tui_screen | grep -qE "$1"; }
check "the family is gone from the last interval" no_row "^ *$FPID "
tui_keys :
check "the : prompt asks for a time" tui_wait_for '^Go to \(HH:MM'
tui_keys -l "+0s"
tui_keys Enter
check ": +0s jumps to the first interval" tui_wait_for "interval 1/$last +[+]0\\.[0-9] s"
tui_keys F4
tui_keys -l "ps-parent"
tui_keys Enter
check "the family is there in the first interval (filtered)" tui_wait_for "^ *$FPID .*ps-parent"
tui_keys '}'
check "} jumps to the last interval" tui_wait_for "interval $last/$last "
check "the family is gone from it" no_row "^ *$FPID "
tui_keys F4 C-u Enter
tui_keys '{'
tui_keys ']'
check "] steps to the next interval" tui_wait_for "interval 2/$last "
tui_keys '}'
check "} jumps ten (to the last)" tui_wait_for "interval $last/$last "
tui_keys '{'
check "{ jumps back ten (to the first)" tui_wait_for "interval 1/$last "
tui_keys ']' '['
check "[ steps back" tui_wait_for "interval 1/$last "
tui_keys :
tui_keys -l "tomorrow"
tui_keys Enter
check "a bad time is said with the forms" tui_wait_for_joined "invalid time 'tomorrow' \\(HH:MM"
tui_keys k
check "k (a signal) is refused on a recording" tui_wait_for_joined "a recording is shown: this key acts on live processes"
tui_keys Enter
check "Enter (the detail screen) too" tui_wait_for_joined "a recording is shown"
check "still on the list" tui_wait_for "interval 1/$last "
tui_keys q
gone() { ! tui_alive; }
check "q quits" wait_until gone

# pscope replay FILE --at TIME: the same screen, opened on that interval.
tui_start 80x24 "$PSCOPE" replay "$rec" --at +0s
check "pscope replay --at +0s opens on the first interval" tui_wait_for "interval 1/$last +[+]0\\.0 s \\["
tui_keys F4
tui_keys -l "ps-parent"
tui_keys Enter
check "with the family in it (filtered)" tui_wait_for "^ *$FPID .*ps-parent"
tui_keys ']'
check "and steps from there" tui_wait_for "interval 2/$last "
tui_keys q
check "q quits" wait_until gone
tui_start 80x24 "$PSCOPE" -r "$rec" --at -0s
check "-r FILE --at -0s: the last interval" tui_wait_for "interval $last/$last "
tui_keys q
check "q quits" wait_until gone
"$PSCOPE" replay "$rec" --at 'yesterday' >/dev/null 2>"$T/bad.err"
ok $(($? != 2)) "a bad --at is a usage error before the screen opens"
check "naming the forms" grep -qF "pscope: invalid time 'yesterday' (HH:MM" "$T/bad.err"
"$PSCOPE" replay >/dev/null 2>"$T/bad.err"
ok $(($? != 2)) "pscope replay without a FILE is a usage error"
"$PSCOPE" --at +1s >/dev/null 2>"$T/bad.err"
ok $(($? != 2)) "--at without a recording is a usage error"

printf 'not a recording at all, just text\n' >"$T/bad.rec"
"$PSCOPE" -r "$T/bad.rec" >/dev/null 2>"$T/bad.err"
ok $(($? != 1)) "a file that is no recording: exit 1"
check "before the screen opens, naming the file and offset" \
	grep -qF "pscope: $T/bad.rec: offset 0: not a pscope recording" "$T/bad.err"
done_testing
