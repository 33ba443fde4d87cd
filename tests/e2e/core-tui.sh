#!/bin/bash
# The core screen in the TUI: C on a process, the destination prompt, the
# confirmation with the estimate, progress, the result with the gdb
# command; Esc cancelling a slow dump; b returning to the list while the
# core is written.
. "$top_srcdir/tests/lib.sh"

dir=$(mktemp -d /tmp/pscope-core-tui.XXXXXX)
at_exit "rm -rf $dir"

start_copied_target core-threads 2 || { done_testing; exit 1; }
P=$TPID

# Open the core prompt for $P; fails (and backs out) if the prompt is for
# another process.
open_prompt() { # open_prompt PID
	tui_keys C
	if ! tui_wait_for "Write the core to: .*core\.[^ ]*\.$1\." 25; then
		tui_keys Escape
		return 1
	fi
}

tui_start 150x30 "cd $dir && $PSCOPE -p $P"
open_prompt $P
ok $? "C on the detail screen asks for the destination, default core.COMM.PID.TIME"
tui_keys Enter
check "the confirmation shows the estimate and the free space" tui_wait_for "Write the core of PID $P\\? It needs about .* on disk \\(.* in all\\); .* is free\\." 20
check "the confirmation names the fork snapshot's copy-on-write cost" tui_wait_for_joined 'It ?is ?taken ?by ?a ?fork ?snapshot: ?until ?it ?is ?written, ?each ?first ?write ?of ?the ?process ?to ?a ?page ?takes ?about ?2\.9 ?us ?longer\.' 5
tui_keys y
check "the result: written, size, pause, the gdb command" tui_wait_for_joined 'Open it with *gdb .*core-threads .*core\.core-threads\.'"$P" 50
check "the gdb command on a row of its own, unindented" tui_wait_for '^gdb .*core-threads' 5
check "the screen shows the pause" tui_wait_for 'Pause +[0-9.]+ ms' 5
f=$(ls $dir/core.core-threads.$P.* 2>/dev/null | head -1)
check "the core exists, mode 0600" test -n "$f" -a "$(stat -c %a "$f" 2>/dev/null)" = 600
check "gdb loads it" sh -c "gdb -batch -nx -ex 'print the_global' $TARGETS/core-threads '$f' 2>&1 | grep -q '= 271828'"
check "the target runs on" runs_on_soon $P
tui_keys Escape
rm -f $dir/core.*

# Cancel: a slow dump (the test hook delays every memory read) of a bigger target.
if true; then
	tmux -L $TMUX_S kill-server 2>/dev/null
	start_copied_target core-big 128 || { done_testing; exit 1; }
	B=$TPID
	tui_start 150x30 "cd $dir && PSCOPE_TEST_SLOW_CORE=300000 $PSCOPE -p $B"
	# C, accept the default destination, confirm, wait for the copy.
	slow_dump() { # slow_dump DESCRIPTION
		open_prompt $B
		ok $? "$1"
		tui_keys Enter
		tui_wait_for 'Write the core\?' 20 >/dev/null
		tui_keys y
		tui_wait_for 'writing from the snapshot' 40 >/dev/null
	}
	slow_dump "slow dump: the prompt"
	tui_keys Escape
	check "Esc cancels: the screen says so" tui_wait_for 'Cancelled.*no file' 60
	check "cancel: no file left" sh -c "! ls -A $dir | grep -q ."
	check "cancel: the target runs on" runs_on_soon $B

	# b: back to the detail screen while the core is written; the
	# status line follows it, C shows it again.
	tui_keys Escape
	slow_dump "slow dump again: the prompt"
	tui_keys b
	check "b: the previous screen is back, the status line follows the core" \
		tui_wait_for "core of $B: (writing|syncing)" 40
	check "b: the status line says when it is written" tui_wait_for "core written: $dir/core\.core-big\.$B\." 100
	tui_keys C
	check "C shows the result again" tui_wait_for_joined 'Open it with *gdb ' 20
	check "the core exists" sh -c "ls $dir/core.core-big.$B.* >/dev/null"
	check "the target runs on" runs_on_soon $B
fi

done_testing
