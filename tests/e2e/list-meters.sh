#!/bin/bash
# The header with some meters hidden (header_meters in pscoperc): no blank
# row is kept for the note ([kernel threads], [filter ...]) while there is
# none; when one appears it gets its row.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }
tmp=$(mktemp -d /tmp/pscope-list-meters.XXXXXX)
at_exit "rm -rf $tmp"
mkdir -p "$tmp/pscope"
printf 'header_meters=memory swap load uptime\n' >"$tmp/pscope/pscoperc"

# line (1-based) of the column titles
titles_line() { tui_screen | grep -nE '^ +PID.? +USER' | head -1 | cut -d: -f1; }
_titles_at() { [ "$(titles_line)" = "$1" ]; }
titles_at() { # titles_at N: poll until the column titles are on line N
	wait_until _titles_at "$1" && return 0
	tui_screen | sed 's/^/#   /'
	return 1
}

tui_start 160x40 "XDG_CONFIG_HOME='$tmp' $PSCOPE -d 5; echo EXIT=\$?; sleep 30"
check "list up, with the load average" tui_wait_for 'Load average'
check "no CPU bars, no Tasks line" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -qE '^ +0\\[|Tasks:'"
check "Mem and Swp on the first two lines" sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | sed -n '1p;2p' | grep -c -E '^ *(Mem|Swp)\\[' | grep -qx 2"
# two meter rows, one blank row, then the titles
check "no note: the column titles on line 4" titles_at 4
tui_keys K # kernel threads shown: the note [kernel threads] appears
check "the note is shown" tui_wait_for '\[kernel threads\]'
check "with a note: the titles move to line 5" titles_at 5
check "the note is on line 3" sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | sed -n 3p | grep -q '\\[kernel threads\\]'"
tui_keys K
check "note gone: the titles back on line 4" titles_at 4
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
done_testing
