#!/bin/sh
# When the terminal goes away (ssh dropped, tmux killed) or SIGTERM comes,
# pscope exits: from the main loop and from inside a prompt, never spinning
# on a dead tty.
. "$top_srcdir/tests/lib.sh"

gone_within() { # gone_within PID SECONDS
	for _ in $(seq 1 $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

for where in list prompt; do
	pidfile=$(mktemp)
	at_exit "rm -f $pidfile"
	tui_start 100x20 "sh -c 'echo \$\$ > $pidfile; exec $PSCOPE'"
	tui_wait_for 'PID USER' >/dev/null
	P=$(cat "$pidfile")
	[ "$where" = prompt ] && { tui_keys $(echo "$P" | sed 's/./& /g') a; tui_wait_for 'CPUs for PID' >/dev/null; }
	tmux -L "$TMUX_S" kill-server
	if gone_within "$P" 5; then ok 0 "terminal hung up in the $where: pscope exits"
	else ok 1 "terminal hung up in the $where: pscope exits"; kill -9 "$P" 2>/dev/null; fi
done
# SIGTERM while a prompt waits for input: pscope still quits, terminal restored.
pidfile=$(mktemp)
at_exit "rm -f $pidfile"
tui_start 100x20 "sh -c 'echo \$\$ > $pidfile; exec $PSCOPE'; echo EXIT=\$?"
tui_wait_for 'PID USER' >/dev/null
P=$(cat "$pidfile")
tui_keys $(echo "$P" | sed 's/./& /g') a # digits select pscope's own row; a prompts
tui_wait_for 'CPUs for PID' >/dev/null
kill -TERM "$P"
if gone_within "$P" 5; then ok 0 "SIGTERM inside a prompt: pscope exits"
else ok 1 "SIGTERM inside a prompt: pscope exits"; kill -9 "$P" 2>/dev/null; fi
check "SIGTERM inside a prompt: exit status 0 and the shell is back" tui_wait_for '^EXIT=0'
done_testing
