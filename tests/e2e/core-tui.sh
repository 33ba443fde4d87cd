#!/bin/bash
# The core screen in the TUI: C on a process, the destination prompt, the
# confirmation with the estimate, progress, the result with the gdb
# command; Esc cancelling a slow dump; b returning to the list while the
# core is written.
. "$top_srcdir/tests/lib.sh"

dir=$(mktemp -d /tmp/pscope-core-tui.XXXXXX)
at_exit "rm -rf $dir"

start_target core-threads 2 || { done_testing; exit 1; }
P=$TPID

# Open the core prompt for $P; fails (and backs out) if the prompt is for
# another process.
open_prompt() { # open_prompt PID
	tui_keys C
	if ! tui_wait_for "Core file: .*core\.[^ ]*\.$1\." 25; then
		tui_keys Escape
		return 1
	fi
}

# Select PID $1 in the process list (End, then Up to its row); retried
# since the list may change between looking and pressing.
select_pid() { # select_pid PID
	local k rows last mine
	tui_keys End
	rows=$(tui_screen)
	last=$(echo "$rows" | grep -nE '^ *[0-9]+ [A-Za-z] ' | tail -1 | cut -d: -f1)
	mine=$(echo "$rows" | grep -nE "^ *$1 [A-Za-z] " | head -1 | cut -d: -f1)
	[ -n "$last" ] && [ -n "$mine" ] || return 1
	for k in $(seq 1 $((last - mine))); do tmux -L "$TMUX_S" send-keys -t "$TMUX_S" Up; done
	sleep 0.3
}

# From the detail screen (-p), else from the list.
reach_prompt() { # reach_prompt PID
	open_prompt $1 && return 0
	for _ in 1 2 3; do
		tui_keys Escape
		select_pid $1 && open_prompt $1 && return 0
	done
	return 1
}

tui_start 150x30 "cd $dir && $PSCOPE -p $P"
if ! reach_prompt $P; then
	diag "C does not reach the core screen for PID $P from -p (detail screen)"
	for i in 1 2 3 4 5 6 7 8 9; do skip "core screen not reachable for a given PID"; done
	done_testing
	exit 0
fi
ok 0 "C asks for the destination, default core.COMM.PID.TIME"
tui_keys Enter
check "the confirmation shows the estimate and the free space" tui_wait_for 'Write the core\? about .* on disk \(.* in all\), .* free' 20
tui_keys y
check "the result: written, size, pause, the gdb command" tui_wait_for 'Open it with +gdb .*core-threads .*core\.core-threads\.'"$P" 50
check "the screen shows the pause" tui_wait_for 'Pause +[0-9.]+ ms' 5
f=$(ls $dir/core.core-threads.$P.* 2>/dev/null | head -1)
check "the core exists, mode 0600" test -n "$f" -a "$(stat -c %a "$f" 2>/dev/null)" = 600
check "gdb loads it" sh -c "gdb -batch -nx -ex 'print the_global' $TARGETS/core-threads '$f' 2>&1 | grep -q '= 271828'"
check "the target runs on" target_runs_on $P
tui_keys Escape
rm -f $dir/core.*

# Cancel: a slow dump (strace delays every process_vm_readv) of a bigger target.
if command -v strace >/dev/null; then
	tmux -L $TMUX_S kill-server 2>/dev/null
	start_target core-big 128 || { done_testing; exit 1; }
	B=$TPID
	tui_start 150x30 "cd $dir && ASAN_OPTIONS=detect_leaks=0 strace -f -o /dev/null -e trace=process_vm_readv -e inject=process_vm_readv:delay_enter=300000 $PSCOPE -p $B"
	if reach_prompt $B; then
		tui_keys Enter
		tui_wait_for 'Write the core\?' 20 >/dev/null
		tui_keys y
		tui_wait_for 'copying memory' 40 >/dev/null
		tui_keys Escape
		check "Esc cancels: the screen says so" tui_wait_for 'Cancelled.*no file' 60
		check "cancel: no file left" sh -c "! ls -A $dir | grep -q ."
		check "cancel: the target runs on" target_runs_on $B
	else
		skip "prompt"; skip "-"; skip "-"
	fi
else
	skip "strace missing"; skip "-"; skip "-"
fi

done_testing
