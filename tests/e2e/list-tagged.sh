#!/bin/bash
# Actions on a tagged set (Space): F8/F7 nice, a CPU affinity, i I/O
# priority and F9 (as k) a signal reach every tagged process and no other,
# as the kernel then shows (ps -o ni, taskset -p, ionice -p, the process
# gone on SIGTERM). A third, untagged process is left alone.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }

N=ps-tg-$$
start_target family 0 "$N-a" || exit 1
A=$TPID
start_target family 0 "$N-b" || exit 1
B=$TPID
start_target family 0 "$N-c" || exit 1
C=$TPID
ni() { ps -o ni= -p "$1" | tr -d ' '; }
state() { awk '{ sub(/.*\) /, ""); print substr($0, 1, 1) }' "/proc/$1/stat" 2>/dev/null || echo gone; }
_gone() { case $(state "$1") in Z|X|gone) return 0 ;; esac; return 1; }
gone() { wait_until _gone "$1"; } # gone PID: exited (a zombie until this shell reaps it) or reaped
nice0=$(ni "$A")

tui_start 200x40 "env NO_COLOR=1 $PSCOPE; echo EXIT=\$?; sleep 60"
check "list up" tui_wait_for 'Load average'
# The three, in PID order (N: by PID, ascending); tag the first two.
tui_keys '\'
tui_keys -l "$N-"
tui_keys Enter
tui_keys N
three_rows() { [ "$(tui_screen | grep -cE "^ +($A|$B|$C) ")" = 3 ]; }
check "filtered to the three" wait_until three_rows
first=$(tui_screen | grep -E "^ +($A|$B|$C) " | head -1 | awk '{ print $1 }')
check "sorted by PID: $A first" test "$first" = "$A"
tui_keys Home Space Space
check "Space Space: 2 tagged" tui_wait_for '\[2 tagged\]'

# F8 / F7: nice of both tagged ones, not the third.
tui_keys F8
check "F8: said for the 2 processes" tui_wait_for "nice \\+1 for 2 processes"
check "F8: the kernel has nice $((nice0 + 1)) for both tagged ones" sh -c "[ \$(ps -o ni= -p $A) = $((nice0 + 1)) ] && [ \$(ps -o ni= -p $B) = $((nice0 + 1)) ]"
check "F8: the untagged one keeps nice $nice0" test "$(ni "$C")" = "$nice0"
tui_keys F7
check "F7: said for the 2 processes" tui_wait_for "nice -1 for 2 processes"
check "F7: both back to nice $nice0" sh -c "[ \$(ps -o ni= -p $A) = $nice0 ] && [ \$(ps -o ni= -p $B) = $nice0 ]"

# a: CPU affinity of both.
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
	mask0=$(taskset -p "$C" | awk '{ print $NF }')
	tui_keys a
	check "a asks for the CPUs of the 2 tagged" tui_wait_for "CPUs for 2 tagged processes \\(0-[0-9]+\\): "
	tui_keys C-u BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace
	tui_keys -l 1
	tui_keys Enter
	check "a: said for the 2 processes" tui_wait_for '2 processes now run on CPU 1$'
	check "a: taskset -p shows CPU 1 only (mask 2) for both" sh -c "taskset -p $A | grep -q 'mask: 2\$' && taskset -p $B | grep -q 'mask: 2\$'"
	check "a: every thread of them too" sh -c "for t in /proc/$A/task/* /proc/$B/task/*; do grep -q '^Cpus_allowed_list:.1\$' \$t/status || exit 1; done"
	check "a: the untagged one keeps mask $mask0" test "$(taskset -p "$C" | awk '{ print $NF }')" = "$mask0"
else
	skip "needs 2 CPUs and taskset"
fi

# i: I/O priority of both.
if command -v ionice >/dev/null; then
	io0=$(ionice -p "$C")
	tui_keys i
	check "i asks for the I/O priority of the 2 tagged" tui_wait_for "I/O priority of 2 tagged \\(be0-be7, rt0-rt7, idle, none\\): "
	tui_keys C-u BSpace BSpace BSpace BSpace BSpace BSpace
	tui_keys -l be6
	tui_keys Enter
	check "i: said for the 2 processes" tui_wait_for 'I/O priority be6 for 2 processes'
	check "i: ionice -p shows best-effort: prio 6 for both" sh -c "ionice -p $A | grep -qx 'best-effort: prio 6' && ionice -p $B | grep -qx 'best-effort: prio 6'"
	check "i: the untagged one keeps '$io0'" test "$(ionice -p "$C")" = "$io0"
else
	skip "ionice is not installed"
fi

# F9: the signal menu for the tagged set; SIGTERM (first), y sends it.
tui_keys F9
check "F9 opens the signal menu for the 2 tagged" tui_wait_for '^ *Signal 2 tagged'
check "F9: SIGTERM offered first" tui_wait_for '^ *15 SIGTERM'
tui_keys Enter
check "F9: the confirmation counts them" tui_wait_for 'Send SIGTERM to the 2 tagged processes\? \[y/N\]'
tui_keys y
check "F9 y: the first tagged one got SIGTERM (exited)" gone "$A"
check "F9 y: the second tagged one too" gone "$B"
check "F9 y: the untagged one still runs" sh -c "sleep 0.5; [ \"\$(awk '{ sub(/.*\\) /, \"\"); print substr(\$0, 1, 1) }' /proc/$C/stat)\" = S ]"
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
done_testing
