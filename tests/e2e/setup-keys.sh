#!/bin/bash
# The F2 setup screen: '/' finds a setting or a column by name (n the next
# one), F7/F8 on what cannot move say why, and a narrow terminal still
# shows the columns' names whole.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }

search() { # search TEXT: '/', clear the prompt, type, Enter
	tui_keys /
	tmux -L "$TMUX_S" send-keys -t "$TMUX_S" C-u
	tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -l "$1"
	tui_keys Enter
}

tui_start 140x40 "env NO_COLOR=1 $PSCOPE; echo EXIT=\$?; sleep 60"
check "list up" tui_wait_for 'Load average'
tui_keys F2
check "F2: the setup screen, '/' named in its keys" tui_wait_for 'Setup .*/ search'
search io_read
check "/io_read: the IO_READ_RATE column selected" tui_marked '\[ \] IO_READ_RATE'
tui_keys F7
check "F7 on a hidden column: says to show it first" tui_wait_for 'a hidden column has no place: show it first'
tui_keys Space
check "Space shows it" tui_marked '\[x\] IO_READ_RATE'
tui_keys F7
check "then F7 moves it (it stays selected)" tui_marked '\[x\] IO_READ_RATE'
search refresh
check "/refresh: the refresh delay selected" tui_marked 'Refresh delay|[0-9]\.[0-9] s'
tui_keys F8
check "F8 on a setting: says what can move" tui_wait_for 'only the detail panes and the shown columns can be moved'
search rate
first=$(tmux -L "$TMUX_S" capture-pane -e -p -t "$TMUX_S" | grep -E "$(printf '\033')\\[([0-9]+;)*7m" | sed 's/\x1b\[[0-9;]*m//g' | grep -oE 'IO_[A-Z]+_RATE')
check "/rate: an I/O rate column ($first)" test -n "$first"
tui_keys n
check "n: the other one" tui_marked "$([ "$first" = IO_READ_RATE ] && echo IO_WRITE_RATE || echo IO_READ_RATE)"
search nosuchsetting
check "a miss is said" tui_wait_for 'not found: nosuchsetting'
tui_keys Escape q
check "q: exit 0" tui_wait_for '^EXIT=0'

# 40 columns: the names get less room, the values still show whole.
RANDOM=7
tui_start 40x20 "env NO_COLOR=1 $PSCOPE; echo EXIT=\$?; sleep 60"
check "40x20: list up" tui_wait_for 'F10'
tui_keys F2
check "40x20: Sort by and its value on one row" tui_wait_for '^ Sort by +CPU%'
search io_write
check "40x20: IO_WRITE_RATE shown whole" tui_marked '\[ \] IO_WRITE_RATE'
tui_keys Escape q
check "40x20: q: exit 0" tui_wait_for '^EXIT=0'
done_testing
