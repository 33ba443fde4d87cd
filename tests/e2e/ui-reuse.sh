#!/bin/bash
# A PID reused while a screen shows the old process: s, h and C from the
# stale detail screen are refused and the new process is left alone.
# The reuse is forced through ns_last_pid in a PID namespace of its own, so
# it moves no other process's PIDs (other suites run beside this one).
if [ -z "${PSCOPE_PIDNS:-}" ] && [ "$(id -u)" = 0 ] && unshare --pid --fork --mount-proc true 2>/dev/null; then
	PSCOPE_PIDNS=1 exec unshare --pid --fork --mount-proc "$(readlink /proc/$$/exe)" "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"

if [ -z "${PSCOPE_PIDNS:-}" ] || [ ! -w /proc/sys/kernel/ns_last_pid ]; then
	skip "needs root, a PID namespace and its ns_last_pid to force a PID reuse"
	done_testing
	exit 0
fi

sleep 1000 &
OLD=$!
kill_at_exit $OLD
tui_start 120x30 "$PSCOPE -p $OLD"
tui_wait_for "PID $OLD" >/dev/null
kill -9 "$OLD"; wait "$OLD" 2>/dev/null
check "the detail screen says the process has gone" tui_wait_for "has exited"

# Give the same PID to a new process (retry: other processes may take it).
NEW=""
for _ in 1 2 3 4 5 6 7 8 9 10; do
	echo $((OLD - 1)) > /proc/sys/kernel/ns_last_pid
	sleep 1000 &
	p=$!
	if [ "$p" = "$OLD" ]; then NEW=$p; break; fi
	kill -9 "$p"; wait "$p" 2>/dev/null
done
if [ -z "$NEW" ]; then
	skip "could not get PID $OLD reused (busy machine)"
	done_testing
	exit 0
fi
kill_at_exit $NEW

for key in s h C; do
	# A message of its own first (a search that finds nothing), so the
	# refusal checked below is this key's, not the last one's.
	tui_keys / C-u # (the prompt offers the last search)
	tui_keys -l "no-such-text-$key"
	tui_keys Enter
	tui_wait_for "not found: no-such-text-$key" >/dev/null
	tui_keys "$key"
	check "'$key' on the stale screen is refused: the PID names another process" \
		tui_wait_for "now names another process"
	ok $([ "$(awk '/^TracerPid/{print $2}' /proc/$NEW/status)" = 0 ] && echo 0 || echo 1) \
		"'$key': the new process with PID $NEW is not traced"
done
check "still on the stale detail screen" tui_wait_for "has exited"
check "the new process was never stopped" runs_on_soon "$NEW"
ok $(ls core.sleep.$NEW.* >/dev/null 2>&1 && echo 1 || echo 0) "no core of the new process was written"
done_testing
