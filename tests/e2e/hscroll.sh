#!/bin/bash
# Left/Right scroll every view sideways and '/' searches in every one: the
# list, the detail header with each pane (Status, Memory, FDs, Maps,
# Threads), the stack screen, the help screen; n and N find the next and
# previous match. A view that ignores Right (or a search that does not
# mark its match) fails here.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }

# A command line longer than the screen, its end marked.
LONG=ps-hs-$$-$(printf 'x%.0s' $(seq 1 150))-TAILMARK
start_target family 1 "$LONG" || exit 1
P=$TPID
right() { for _ in $(seq 1 "$1"); do tmux -L "$TMUX_S" send-keys -t "$TMUX_S" Right; done; tui_idle; }
left() { for _ in $(seq 1 "$1"); do tmux -L "$TMUX_S" send-keys -t "$TMUX_S" Left; done; tui_idle; }
not_on_screen() { tui_idle; ! tui_screen | grep -qE "$1"; } # (the keys taken in)
_rows_with() { [ "$(tui_screen | grep -cE "$1")" -ge "$2" ]; }
rows_with() { # rows_with REGEX N: at least N rows hold it
	wait_until _rows_with "$1" "$2" && return 0
	tui_screen | sed 's/^/#   /'
	return 1
}
search() { # search TEXT: '/', clear the prompt, type, Enter
	tui_keys /
	tmux -L "$TMUX_S" send-keys -t "$TMUX_S" C-u
	for _ in $(seq 1 40); do tmux -L "$TMUX_S" send-keys -t "$TMUX_S" BSpace; done
	tui_keys -l "$1"
	tui_keys Enter
}

tui_start 100x40 "env NO_COLOR=1 $PSCOPE -p $P; echo EXIT=\$?; sleep 60"
check "detail screen up" tui_wait_for "PID $P"
check "the header's command line is cut at the edge" not_on_screen TAILMARK
right 16
check "Right: the header's command line scrolls to its end" tui_wait_for TAILMARK
tui_keys End
check "Status pane: its Command line scrolled too (with the header)" rows_with TAILMARK 2
check "Right stops at the end of the longest line: the header's end still shows" tui_wait_for TAILMARK
check "Left: back to the start" tui_left_until "^ PID $P"
check "Left: the pane back to its start too" tui_left_until "^CapEff "
check "still the detail screen (the header and the pane scrolled back together)" tui_wait_for "1 Status"
tui_keys Home
search Seccomp
check "/ in the Status pane marks the line" tui_marked 'Seccomp +(disabled|strict|filter)'
tui_keys 4
check "Memory pane up" tui_wait_for 'Pss'
search Private_Dirty
check "/ in the Memory pane marks the line" tui_marked 'Private_Dirty +[0-9]+ kB'
# (the Threads pane's Right: tests/e2e/threads-lock.sh)
tui_keys Escape
check "back on the list" tui_wait_for 'PID USER'
tui_keys '\'
tui_keys -l "ps-hs-$$"
tui_keys Enter
check "filtered to the long one" tui_wait_for "^ +$P "
check "the list cuts the command line" not_on_screen TAILMARK
right 22
check "Right in the list scrolls the command line" tui_wait_for TAILMARK
left 22
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'

# The FDs and Maps panes: a path longer than the screen (the binary and
# its output file in a deep directory); Right, one step at a time, brings
# its end into view.
start_deep_family fam-MAPEND out-FDEND 1 "ps-deep-$$"
RIGHTS=0
right_until() { # right_until REGEX: Right until it shows (at most 30); RIGHTS counts them
	RIGHTS=0
	for _ in $(seq 1 30); do
		tui_screen | grep -qE "$1" && return 0
		tmux -L "$TMUX_S" send-keys -t "$TMUX_S" Right
		RIGHTS=$((RIGHTS + 1))
		tui_idle
	done
	tui_screen | sed 's/^/#   /'
	return 1
}
tui_start 100x40 "env NO_COLOR=1 $PSCOPE -p $DP; echo EXIT=\$?; sleep 60"
check "detail screen up (deep paths)" tui_wait_for "PID $DP"
tui_keys 2
check "FDs pane: the output file's path is cut" wait_until sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'pppppppp' && ! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q FDEND"
right_until 'out-FDEND'
ok $? "FDs pane: Right brings the end of the path"
left $RIGHTS
tui_keys 3
check "Maps pane: the binary's path is cut" wait_until sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'pppppppp' && ! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q MAPEND"
right_until 'fam-MAPEND'
ok $? "Maps pane: Right brings the end of the path"
left $RIGHTS
tui_keys D
check "doors screen up" tui_wait_for 'Doors: what the kernel lets pscope do'
search perf_event_paranoid
check "/ in the doors screen marks the line" tui_marked 'perf_event_paranoid'
tui_keys Escape Escape
tui_keys q

# The help screen at 50 columns: its lines are cut, Right shows the rest;
# '/' marks a line, n the next one, N the previous one.
tui_start 50x30 "env NO_COLOR=1 $PSCOPE; echo EXIT=\$?; sleep 60"
check "list up" tui_wait_for 'PID'
tui_keys F1
check "help up" tui_wait_for 'pscope help'
check "a long help line is cut" not_on_screen 'second; F3 or'
search 'incremental search'
check "/ in help marks the line" tui_marked 'F3, / +incremental'
right 4
check "Right in help: the rest of the line" tui_wait_for 'name; F3 or'
right 30
check "Right stops where the longest line ends (the text stays in view)" tui_wait_for 'name; F3 or'
tui_keys Escape
tui_keys F1
check "help again, from its start" tui_wait_for 'pscope help'
tui_keys Home
tui_keys Home
search 'tree view'
check "/ tree view: a line is marked" tui_marked 'tree view'
first=$(tmux -L "$TMUX_S" capture-pane -e -p -t "$TMUX_S" | grep -E $'\e\\[([0-9]+;)*7m' | grep 'tree view' | head -1)
tui_keys -l n
_marked_other() { tmux -L "$TMUX_S" capture-pane -e -p -t "$TMUX_S" | grep -E $'\e\\[([0-9]+;)*7m' | grep -E "$1" | grep -vqxF "$2"; }
marked_other() { # marked_other REGEX LINE: a reverse-video row holds REGEX and is not LINE
	wait_until _marked_other "$1" "$2"
}
check "n: the next match is marked" marked_other 'tree view' "$first"
tui_keys -l N
check "N: back to the first one" tui_marked "$(echo "$first" | sed 's/\x1b\[[0-9;]*m//g; s/[][\\.*^$+?(){}|]/./g' | sed 's/^ *//; s/ *$//')"
search 'no-such-help-text'
check "a miss is said" tui_wait_for 'not found: no-such-help-text'
tui_keys Escape
check "Esc leaves help" tui_wait_for 'PID USER|PID  *USER'
tui_keys q

# The stack screen at 60 columns: a group's chain is cut; Right shows it.
start_target stack-threads 4 || exit 1
S=$TPID
tui_start 60x40 "env NO_COLOR=1 $PSCOPE -p $S; echo EXIT=\$?; sleep 60"
check "detail screen up (stacks)" tui_wait_for "PID $S"
tui_keys s
check "stack screen up" tui_wait_for '4 threads: leaf_wait'
check "the chain is cut at the edge" not_on_screen 'level1 <- worker'
right 5
check "Right in the stack screen: the rest of the chain" tui_wait_for 'level1 <- worker'
right 40
check "Right stops where the longest row on screen ends: the chain's end still shows" tui_wait_for '<- __clone3? *$'
check "Left back to the start (a step at a time)" tui_left_until '^\[-\] 4 threads: leaf_wait'
search level2
check "/ in the stack screen selects a row holding it" tui_marked 'level2'
tui_keys -l n
check "n: the next one (another row)" tui_marked 'level2'
tui_keys Escape Escape
tui_keys q
check "q: exit 0 (stacks)" tui_wait_for '^EXIT=0'
done_testing
