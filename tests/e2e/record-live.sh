#!/bin/sh
# R on the live list in tmux at 80x24: the session recorded into a new
# file here (the header says [REC n size] while it is on), R again stops
# it; the file replays with the processes of the session (a family started
# before) and was closed cleanly. R where no file can be made says why and
# stays off; on a recording R is refused (it acts on the live machine).
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
T=$_tlinks
mkdir "$T/here"

start_target family 1 || exit 1
FPID=$TPID
cd "$T/here" || exit 1
tui_start 80x24 "$PSCOPE" -d 10
tui_keys R
check "R: the message names the file" tui_wait_for_joined 'recording every refresh into pscope-[0-9]{8}-[0-9]{6}\.rec \(R stops'
check "the header says it records" tui_wait_for '\[REC [0-9]+ [0-9.]+[KMG]?\]'
recs() { tui_screen | sed -n 's/.*\[REC \([0-9]*\) .*/\1/p' | head -1; }
three() { [ "$(recs)" -ge 3 ] 2>/dev/null; }
check "the count of intervals grows to 3" wait_until three
tui_keys R
check "R again stops, naming the file" tui_wait_for_joined 'recording stopped: pscope-[0-9]{8}-[0-9]{6}\.rec holds it'
check "the header no longer says REC" sh -c "! tmux -L '$TMUX_S' capture-pane -p -t '$TMUX_S' | grep -q '\\[REC '"
tui_keys q
gone() { ! tui_alive; }
check "q quits" wait_until gone
set -- pscope-*.rec
check "one file was written here" test -f "$1" -a $# = 1
rec=$T/here/$1
"$PSCOPE" list -r "$rec" --json >"$T/last.json" 2>"$T/list.err"
ok $? "it replays"
check "closed cleanly: nothing said on stderr" test ! -s "$T/list.err"
check "at least 3 intervals, every row read (the family's parent by its name)" sh -c \
	"jq -e '.recording.intervals >= 3 and ([.processes[] | select(.pid == $FPID and .comm == \"ps-parent\")] | length) == 1' '$T/last.json' >/dev/null" 
if [ "$(id -u)" = 0 ]; then
	check "the short-lived processes were listened to (as root)" sh -c "jq -e '.recording.short_lived_recorded' '$T/last.json' >/dev/null"
fi

# Where no file can be made (/proc takes none, even from root).
cd /proc || exit 1
tui_start 80x24 "$PSCOPE" -d 10
tui_keys R
check "R where no file can be made: said, with the file" tui_wait_for_joined 'recording stopped: cannot write pscope-[0-9]{8}-[0-9]{6}\.rec: '
check "and the header does not say REC" sh -c "! tmux -L '$TMUX_S' capture-pane -p -t '$TMUX_S' | grep -q '\\[REC '"
tui_keys q
check "q quits" wait_until gone
cd "$T" || exit 1

# On a recording, R acts on nothing.
tui_start 80x24 "$PSCOPE" -r "$rec"
tui_keys R
check "R on a recording is refused" tui_wait_for_joined "a recording is shown: this key acts on live processes"
tui_keys q
check "q quits" wait_until gone
done_testing
