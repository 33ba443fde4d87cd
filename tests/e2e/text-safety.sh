#!/bin/bash
# Hostile text on the TUI's text screens, and text laid out whole: the
# environment (e) and whole command line (w) show one variable / argument
# list per logical row with every control character escaped (a newline in
# a value never passes for another variable); confirmations wrap whole
# with their [y/N] visible; the line editor's Ctrl-U / Ctrl-W and long
# input; result screens wrapped at spaces with a copyable gdb line.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }

filter() { # filter TEXT: show only the rows matching TEXT
	tui_keys '\'
	tui_keys -l "$1"
	tui_keys Enter
}
# no_row REGEX: no row of the settled screen matches
no_row() { ! tui_screen_settled | grep -qE "$1"; }

# 1. e and w on a hostile process.
long=$(printf 'v%.0s' $(seq 1 250))
EVIL=$(printf 'a\033]2;PWNENV\007b\nnextline')
EVIL2=$(printf 'x\nPATH=/evil')
EVIL="$EVIL" EVIL2="$EVIL2" LONGV="$long-END-OF-VALUE" start_target hostile || exit 1
HPID=$TPID

tui_start 80x40 "$PSCOPE -d 5; echo EXIT=\$?; sleep 60"
check "list up" tui_wait_for 'Load average'
filter "hostile --hostile"
check "the hostile target is listed" tui_wait_for "^ +$HPID "
tui_keys e
check "e: the environment of the hostile target" tui_wait_for "Environment of PID $HPID"
check "e: a value's control characters and newline escaped, on one row" \
	tui_wait_for '^EVIL=a\\e\]2;PWNENV\\x07b\\nnextline *$'
check "e: no row starts with the text after an embedded newline" no_row '^nextline'
check "e: x\\nPATH=/evil stays one variable" tui_wait_for '^EVIL2=x\\nPATH=/evil *$'
check "e: no row passes for a PATH=/evil variable" no_row '^PATH=/evil'
check "e: a long value still wraps (its end on a later row)" tui_wait_for_joined "LONGV=$long-END-OF-VALUE"
check "e: the long value's first row is cut at the width" tui_wait_for "^LONGV=v{70,}\$"
tui_keys Escape
tui_keys w
check "w: the whole command line" tui_wait_for "Command line of PID $HPID"
check "w: argv's newline and tab escaped, on one logical row" \
	tui_wait_for_joined 'hostile --hostile \\e\]2;PWNED-ARGV\\x07 two\\nlines\\tand a tab'
check "w: no row starts with the text after the newline" no_row '^lines'
tui_keys Escape
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
tmux -L "$TMUX_S" kill-server 2>/dev/null

done_testing
