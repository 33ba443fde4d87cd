#!/bin/bash
# The mouse wheel (X10 encoding, buttons 64/65 as tmux sends them) moves
# the list's selection three rows a notch and scrolls the list with it.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }

# Rows enough to scroll: 40 sleeping children.
start_target family 40 ps-wheel-$$ || exit 1

wheel() { # wheel up|down N COL ROW (0-based): N notches of the wheel
	local b pos
	[ "$1" = up ] && b='`' || b=a # 32 + 64, 32 + 65
	pos=$(printf "\\$(printf %o $((33 + $3)))\\$(printf %o $((33 + $4)))")
	for _ in $(seq 1 "$2"); do
		tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -l "$(printf '\033[M')$b$pos"
	done
	tui_idle
}
hy=0
row_pid() { tui_screen | sed -n "$((hy + $1))p" | awk '{ print $1 }'; } # row_pid N: the PID on body row N (1-based)
following() { # following PID: F names it
	tui_keys F
	tui_wait_for "\\[following $1\\]"
	local r=$?
	tui_keys F
	return $r
}

tui_start 120x24 "env NO_COLOR=1 $PSCOPE; echo EXIT=\$?; sleep 60"
check "list up" tui_wait_for 'Load average'
tui_keys Z N # updates paused: the rows stay put; by PID
hy=$(tui_screen | grep -nE '^ +PID.? USER' | cut -d: -f1)
tui_keys Home
top0=$(row_pid 1)
check "Home: the first row ($top0) is selected" following "$top0"
wheel down 2 20 10
check "two notches down: the selection moved 6 rows (to $(row_pid 7))" following "$(row_pid 7)"
wheel down 10 20 10
check "more notches down: the list scrolled (first row no longer $top0)" sh -c "[ \"\$(tmux -L $TMUX_S capture-pane -p -t $TMUX_S | sed -n '$((hy + 1))p' | awk '{ print \$1 }')\" != $top0 ]"
wheel up 20 20 10
check "the wheel up: back to the top ($top0 first and selected)" sh -c "[ \"\$(tmux -L $TMUX_S capture-pane -p -t $TMUX_S | sed -n '$((hy + 1))p' | awk '{ print \$1 }')\" = $top0 ]"
check "... and selected" following "$top0"
tui_keys Z q
check "q: exit 0" tui_wait_for '^EXIT=0'
done_testing
