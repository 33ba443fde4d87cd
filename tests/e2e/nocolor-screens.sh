#!/bin/bash
# NO_COLOR=1 leaves no colour escape on the detail, stack and hot screens
# (the list: tests/e2e/list-keys.sh); without it, each of them has colours.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }
tmp=$(mktemp -d /tmp/pscope-nocolor.XXXXXX)
at_exit "rm -rf $tmp"
export PSCOPE_DATA="${PSCOPE_DATA:-$top_srcdir/data}"

start_target hotloop || exit 1
P=$TPID
colours() { tmux -L "$TMUX_S" capture-pane -e -p -t "$TMUX_S" | grep -cE $'\e\\[([0-9;]*;)?(3[0-7]|4[0-7]|9[0-7]|10[0-7]|38;5;[0-9]+|48;5;[0-9]+)(;[0-9;]*)?m'; }
no_colours() { tui_idle; [ "$(colours)" -eq 0 ] || { tmux -L "$TMUX_S" capture-pane -e -p -t "$TMUX_S" | grep -m3 $'\e\\[[0-9;]*3[0-7]' | cat -v | sed 's/^/#   /'; return 1; }; }
_has_colours() { [ "$(colours)" -gt 0 ]; }
has_colours() { wait_until _has_colours; }

for mode in colour none; do
	if [ $mode = none ]; then env=NO_COLOR=1; want=no_colours; what="NO_COLOR=1: no colour escapes"
	else env=NO_COLOR=; want=has_colours; what="by default: colour escapes"; fi
	tui_start 140x40 "cd $tmp && env $env $PSCOPE -p $P; echo EXIT=\$?; sleep 60"
	check "$mode: detail screen up" tui_wait_for "PID $P"
	check "$what on the detail screen" $want
	tui_keys s
	check "$mode: stack screen up" tui_wait_for "Stacks of $P .*stopped [0-9]+ threads? for"
	check "$what on the stack screen" $want
	tui_keys Escape
	check "$mode: back on the detail screen" tui_wait_for "Tab/Shift-Tab or 1-6 switch"
	tui_keys h
	check "$mode: hot screen up, hot_work sampled" tui_wait_for '^ +[0-9.]+ +[0-9.]+ +[0-9]+ +hot_work +hotloop' 75
	check "$what on the hot screen" $want
	tui_keys Escape Escape
	tui_keys q
	check "$mode: q: exit 0" tui_wait_for '^EXIT=0'
	tmux -L "$TMUX_S" kill-server 2>/dev/null
done
done_testing
