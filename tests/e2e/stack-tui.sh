#!/bin/sh
# The Stacks screen in tmux: `s` dumps, groups and deadlocks show, file:line
# toggles; while a dump holds the target, the screen below stays live and
# Esc cancels it and lets the target go.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
export PSCOPE_DATA

traced() { [ "$(awk '/^TracerPid/{print $2}' /proc/$1/status)" != 0 ]; }

start_quiet_target stack-threads 16 || exit 1
P=$TPID
tui_start 120x40 "$PSCOPE -p $P"
tui_wait_for "PID $P" >/dev/null
check "detail screen up" tui_wait_for "PID $P"
tui_keys s
check "s: the dump is shown with its pause" tui_wait_for "Stacks of $P .*stopped 17 threads for [0-9.]+ ms"
check "identical worker stacks grouped" tui_wait_for "16 threads: leaf_wait <- level3 <- level2 <- level1 <- worker"
check "frames with function+offset and module" tui_wait_for "#2 +0x[0-9a-f]+ leaf_wait\+0x[0-9a-f]+ +\(stack-threads\)"
check "the group's threads as a count after its frames" tui_wait_for '^ +\[\+\] 16 threads with this stack \(Enter: list them\)'
check "no thread rows until asked" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -qE 'TID [0-9]+ +stack-threads +S +futex'"
order_ok() { # the frames (#0...) come between the group's header and its count
	tui_screen | awk '/16 threads: leaf_wait/ { h = NR } / #0 +0x/ && h && !f { f = NR } /\[\+\] 16 threads with this stack/ { c = NR } END { exit !(h && f > h && c > f) }'
}
check "frames first, then the thread count" order_ok
hy=$(tui_screen | grep -n '16 threads: leaf_wait' | cut -d: -f1)
ty=$(tui_screen | grep -n '16 threads with this stack' | cut -d: -f1)
tui_keys Home
for _ in $(seq 1 $((ty - hy))); do tmux -L "$TMUX_S" send-keys -t "$TMUX_S" Down; done
tui_keys Enter
check "Enter on the count lists the threads with state, syscall, wchan" tui_wait_for "TID [0-9]+ +stack-threads +S +futex +wchan"
numbered_once() { # in the group's block, each frame number once
	tui_screen | awk '/16 threads: leaf_wait/ { b = 1 } /16 threads with this stack/ { b = 0 } b && /^ +#[0-9]+ +0x/ { n[$1]++ } END { for (k in n) if (n[k] != 1) exit 1; exit !length(n) }'
}
check "frames numbered once each" numbered_once
tui_keys l
check "l: file:line shown" tui_wait_for "level3\+0x[0-9a-f]+ +\(stack-threads\) +.*stack-threads\.c:[0-9]+"
tui_keys e
check "e: groups collapse" wait_until sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q '^\[+\] 16 threads'"
check "target runs on after the dump" runs_on_soon "$P"
tui_keys Escape
check "Esc: back to the detail screen" tui_wait_for "TracerPid"
tui_keys q

# A dump held long (test hook): the panel shows, the screen below stays
# drawn, Esc cancels and the target runs on.
tui_start 120x40 "PSCOPE_STACK_HOLD_MS=60000 $PSCOPE -p $P"
check "detail screen up (held run)" tui_wait_for "PID $P"
tui_keys s
check "progress panel with the cancel key" tui_wait_for "Esc cancels"
check "the target is frozen while the panel shows" wait_until traced "$P"
check "the screen below is still drawn" tui_wait_for "TracerPid"
tui_keys Escape
check "Esc cancels: the target runs on, TracerPid 0" runs_on_soon "$P"
check "cancel is said on the status line" tui_wait_for "cancelled; the process runs on"
tui_keys q

# pscope's UI killed by SIGTERM (and SIGKILL) while a dump holds the target.
for sig in TERM KILL; do
	tui_start 120x40 "PSCOPE_STACK_HOLD_MS=60000 $PSCOPE -p $P"
	tui_wait_for "PID $P" >/dev/null
	tui_keys s
	check "SIG$sig run: the target is frozen by the UI's dump" wait_until traced "$P"
	# TracerPid: the thread of pscope that froze it (never 0 here: that
	# would signal our own process group).
	UIPID=$(awk '/^TracerPid/{print $2}' /proc/$P/status)
	[ "${UIPID:-0}" -gt 1 ] && kill -$sig "$UIPID" 2>/dev/null
	check "UI killed by SIG$sig mid-dump: the target runs on, TracerPid 0" runs_on_soon "$P"
done

# Refused: an unprivileged pscope on a root process names the door.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	d=$(mktemp -d /tmp/pscope-stack-tui.XXXXXX)
	at_exit "rm -rf $d"
	cp "$PSCOPE" "$d/pscope" && cp -r "$PSCOPE_DATA" "$d/data" && chmod -R a+rX "$d"
	tui_start 120x40 "PSCOPE_DATA=$d/data setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all $d/pscope -p $P"
	tui_wait_for "PID $P" >/dev/null
	tui_keys s
	check "unprivileged: the refusal names the door" tui_wait_for "CAP_SYS_PTRACE"
	check "and says how to try again" tui_wait_for "r: try again"
	check "the target was not touched" runs_on_soon "$P"
	tui_keys q
else
	skip "needs root and setpriv"
	skip "needs root and setpriv"
	skip "needs root and setpriv"
fi
kill -9 "$P"

start_quiet_target deadlock 3 || exit 1
tui_start 120x40 "$PSCOPE -p $TPID"
tui_wait_for "PID $TPID" >/dev/null
tui_keys s
check "deadlock cycle at the top" tui_wait_for "DEADLOCK: 3 threads wait for each other"
check "deadlock edge names the lock and the frame" tui_wait_for "waits for lock ledger \(0x[0-9a-f]+\) held by TID [0-9]+, in transfer\+0x"
tui_keys q
done_testing
