#!/bin/bash
# A PID reused while a screen shows the old process: s, h and C from the
# stale detail screen are refused and the new process is left alone.
. "$top_srcdir/tests/lib.sh"

if [ "$(id -u)" != 0 ] || [ ! -w /proc/sys/kernel/ns_last_pid ]; then
	skip "needs root and /proc/sys/kernel/ns_last_pid to force a PID reuse"
	done_testing
	exit 0
fi

sleep 1000 &
OLD=$!
at_exit "kill -9 $OLD 2>/dev/null"
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
at_exit "kill -9 $NEW 2>/dev/null"

for key in s h C; do
	tui_keys "$key"
	check "'$key' on the stale screen is refused: the PID names another process" \
		tui_wait_for "now names another process"
	# The refusal opened nothing: wait for the message to go, stay on the screen.
	for _ in $(seq 1 75); do tui_screen | grep -q "now names another process" || break; sleep 0.2; done
	ok $([ "$(awk '/^TracerPid/{print $2}' /proc/$NEW/status)" = 0 ] && echo 0 || echo 1) \
		"'$key': the new process with PID $NEW is not traced"
done
check "still on the stale detail screen" tui_wait_for "has exited"
check "the new process was never stopped" target_runs_on "$NEW"
ok $(ls core.sleep.$NEW.* >/dev/null 2>&1 && echo 1 || echo 0) "no core of the new process was written"
done_testing
