#!/bin/sh
# The list's fd budget: a quarter of the soft limit (at most 4096) of held
# /proc/PID/stat fds, the rest read by path; with a tiny limit and hundreds
# of processes nothing fails.
PSCOPE_HEAVY=1 # runs alone: see tests/lib.sh
. "$top_srcdir/tests/lib.sh"
T=$(mktemp -d)
at_exit "rm -rf $T"
N=600
start_target family $N || { done_testing; exit 1; }

# A tiny limit: every process still listed, nothing on stderr.
(ulimit -n 40 && exec "$PSCOPE" list --json) >"$T/l.json" 2>"$T/err"
ok $? "list --json under ulimit -n 40 exits 0"
check "nothing on stderr" test ! -s "$T/err"
check "every child listed" test "$(grep -c '"comm":"ps-child"' "$T/l.json")" -ge $N

# Under a limit of 2048 the list holds at most 512 stat fds.
(ulimit -n 2048 && exec "$PSCOPE" list --interval 4 >"$T/l.txt" 2>&1) &
P=$!
kill_at_exit $P
peak=0
for _ in $(seq 1 1200); do # until past 400, at most 60 s
	n=$(ls /proc/$P/fd 2>/dev/null | wc -l)
	[ "$n" -gt "$peak" ] && peak=$n
	[ "$n" -gt 400 ] && break
	sleep 0.05
done
for _ in $(seq 1 20); do
	n=$(ls /proc/$P/fd 2>/dev/null | wc -l)
	[ "$n" -gt "$peak" ] && peak=$n
	sleep 0.05
done
diag "peak fds with $N processes under ulimit -n 2048: $peak"
check "held fds within the budget (512 + a few)" test "$peak" -le 530
check "and some held (the budget is used)" test "$peak" -ge 400
wait $P
ok $? "list --interval 4 exits 0"
check "every child listed" test "$(grep -c ' ps-child' "$T/l.txt")" -ge $N

# The TUI under a tiny limit: the list and a detail screen with its panes.
tui_start 120x30 "ulimit -n 48; exec $PSCOPE"
check "TUI under ulimit -n 48 shows every task" tui_wait_for "Tasks: [0-9]{3,}"
tui_keys F4
tui_keys -l "ps-parent"
tui_keys Enter
# Enter once the filtered row is there (a loaded machine may take a while)
tui_wait_for "^ +[0-9]+ .*ps-parent" 150 >/dev/null
tui_keys Enter
check "the detail screen opens" tui_wait_for "^ PID [0-9]+ +ps-parent" 150
tui_keys 2
check "its FDs pane reads" tui_wait_for "fds:"
tui_keys q
done_testing
