#!/bin/sh
# Left never leaves a screen (it scrolls; at the left edge it does
# nothing), Esc goes back one screen, q quits pscope from every screen
# (help too), as the help says. Five Lefts on the Stacks and detail
# screens, then ? and Esc: still the same screen, the dump not made again.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
export PSCOPE_DATA="${PSCOPE_DATA:-$top_srcdir/data}"

start_quiet_target stack-threads 4 || exit 1
P=$TPID

tui_start 100x30 "$PSCOPE -p $P; echo EXIT=\$?; sleep 60"
check "detail screen up" tui_wait_for "Status.*FDs"
tui_keys Left Left Left Left Left
tui_keys '?'
check "help over the detail screen" tui_wait_for "Esc"
tui_keys Escape
check "five Lefts on the detail screen: still on it" tui_wait_for "Status.*FDs"
ok $(tui_screen | grep -q 'PID USER'; echo $((! $?))) "not the process list"

tui_keys s
check "s: the dump" tui_wait_for "Stacks of $P .*stopped 5 threads"
n1=$(tui_screen | grep -oE 'stopped 5 threads for [0-9.]+ ms')
tui_keys Left Left Left Left Left
tui_keys '?'
check "help over the Stacks screen" tui_wait_for "Esc"
tui_keys Escape
check "five Lefts on the Stacks screen: still on it" tui_wait_for "Stacks of $P .*stopped 5 threads"
n2=$(tui_screen | grep -oE 'stopped 5 threads for [0-9.]+ ms')
ok $([ "$n1" = "$n2" ]; echo $?) "the same dump, not a new one ($n1 / $n2)"
check "the target runs on" runs_on_soon $P

tui_keys '?'
check "help" tui_wait_for "Esc"
check "the help says what Esc and q do" tui_wait_for "Esc returns, q quits"
tui_keys q
check "q in help quits pscope" tui_wait_for '^EXIT=0'
done_testing
