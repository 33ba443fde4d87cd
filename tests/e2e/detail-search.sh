#!/bin/bash
# '/' in the detail screen's table panes: the row that holds the text is
# selected (reverse video without colour); F3 finds the next; a miss says
# so; a text pane marks the line that holds the text. A click on a tab opens it.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }

PNAME=ps-dsearch-$$
start_target family 1 "$PNAME" || exit 1
FPID=$TPID
_selected_has() {
	tmux -L "$TMUX_S" capture-pane -e -p -t "$TMUX_S" | grep -E $'\e\\[([0-9]+;)*7m' | sed 's/\x1b\[[0-9;]*m//g' | grep -v ' PID ' | grep -qE "$1"
}
selected_line_has() { # selected_line_has REGEX: the reverse-video row holds it (attributes aside)
	wait_until _selected_has "$1" && return 0
	tmux -L "$TMUX_S" capture-pane -p -t "$TMUX_S" | sed 's/^/#   /'
	return 1
}

tui_start 160x40 "env NO_COLOR=1 $PSCOPE -p $FPID; echo EXIT=\$?; sleep 60"
check "detail screen up" tui_wait_for "PID $FPID"
tui_keys 5
check "threads pane" tui_wait_for 'ps-worker'
tui_keys /
tui_keys -l ps-worker
tui_keys Enter
check "/ in the threads pane selects a ps-worker thread" selected_line_has 'ps-worker'
tui_keys 2
tui_keys /
tui_keys BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace
tui_keys -l nosuch-fd-$$
tui_keys Enter
check "a miss is said on the status line" tui_wait_for "not found: nosuch-fd-$$"
tui_keys 1 /
tui_keys BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace
tui_keys -l NoNewPrivs
tui_keys Enter
check "/ in the Status pane (text) marks the line that holds it" selected_line_has 'NoNewPrivs( |\e\[[0-9;]*m)+[01]'
tui_keys -l n
check "n: the next match (the only one: the same line)" selected_line_has 'NoNewPrivs( |\e\[[0-9;]*m)+[01]'
# The mouse: a click on a tab switches to that pane.
click() { # click COL ROW (0-based): an X10 mouse press and release
	local pos
	pos=$(printf "\\$(printf %o $((33 + $1)))\\$(printf %o $((33 + $2)))")
	tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -l "$(printf '\033[M ')$pos"
	tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -l "$(printf '\033[M#')$pos"
}
row=$(tui_screen | grep -n 'Tab/Shift-Tab or 1-6 switch' | head -1 | cut -d: -f1)
col=$(tui_screen | sed -n "${row}p" | awk '{ print index($0, " 3 Maps") }')
click $((col + 1)) $((row - 1))
check "a click on the Maps tab opens the Maps pane" tui_wait_for "Source: /proc/$FPID/maps"
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
done_testing
