#!/bin/bash
# The list's newer columns as sort keys: each chosen in the F6 menu carries
# the sort mark on its header (a title as wide as its column: in the gap
# after it); the rows follow NLWP and PPID (both ways,
# I inverts); a sort column that is not shown is named in the header.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }
rc=$XDG_CONFIG_HOME/pscope/pscoperc

# A parent with 3 threads and two single-threaded children (their command
# line is the parent's): NLWP 3, 1, 1; PPID: the parent's is this shell's.
N=ps-sc-$$
start_target family 2 "$N" || exit 1
P=$TPID
K1=$(awk '{ print $1 }' /proc/$P/task/$P/children)
check "the parent has 3 threads" test "$(awk '/^Threads/ { print $2 }' /proc/$P/status)" = 3

# Every column of the menu shown (the setting written as F2 writes it).
mkdir -p "${rc%/*}"
cat >"$rc" <<RC
config_version=1
columns=pid ppid pgrp sid tty nlwp processor starttime majflt io_read_rate io_write_rate io_rate io_rbytes io_wbytes io_priority ctxt oom cgroup container state command
sort_key=pid
sort_direction=asc
RC
TUI_KEEP_SETTINGS=1 tui_start 320x40 "env NO_COLOR=1 $PSCOPE; echo EXIT=\$?; sleep 60"
check "list up with the new columns" tui_wait_for 'PID△ +PPID +PGRP +SID +TTY +NLWP +CPU# +START +MAJFLT +IO_READ_RATE +IO_WRITE_RATE +IO_RATE +IO_RBYTES +IO_WBYTES +IO +CTXT/s +OOM +CGROUP +CONTAINER +S COMMAND'
tui_keys '\'
tui_keys -l "$N"
tui_keys Enter
family_rows() { [ "$(tui_screen | grep -cE "^ +[0-9]+ .*$N")" = "$1" ]; }
check "filtered to the family" wait_until family_rows 3

# F6, the menu in its order (PID first), Down to the key, Enter.
i=12
for t in PPID PGRP SID TTY NLWP 'CPU#' START IO_READ_RATE IO_WRITE_RATE IO_RATE IO_RBYTES IO_WBYTES IO MAJFLT CTXT/s OOM CGROUP CONTAINER; do
	tui_keys F6
	tmux -L "$TMUX_S" send-keys -t "$TMUX_S" Home
	tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -N "$i" Down
	tui_keys Enter
	check "F6 $t: the sort mark on its header" tui_wait_for " $t(△|▽)"
	i=$((i + 1))
done

pids_in_order() { tui_screen | grep -E "^ +[0-9]+ .*$N" | awk '{ print $1 }' | tr '\n' ' '; }
_order_is() { case "$(pids_in_order)" in "$1"*) return 0 ;; esac; return 1; }
order_is() { # order_is "PID PID...": the family's rows in that order (first ones)
	wait_until _order_is "$1" && return 0
	diag "rows: $(pids_in_order)"
	return 1
}
tui_keys F6
tmux -L "$TMUX_S" send-keys -t "$TMUX_S" Home
tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -N 16 Down
tui_keys Enter
check "NLWP: biggest first (▽)" tui_wait_for ' NLWP▽'
check "NLWP▽: the 3-thread parent first" order_is "$P "
tui_keys I
check "I: NLWP△" tui_wait_for ' NLWP△'
parent_last() { tui_screen | grep -E "^ +[0-9]+ .*$N" | tail -1 | grep -qE "^ +$P "; }
check "NLWP△: the parent last" wait_until parent_last
tui_keys F6
tmux -L "$TMUX_S" send-keys -t "$TMUX_S" Home
tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -N 12 Down
tui_keys Enter
check "PPID: ascending (△)" tui_wait_for ' PPID△ '
check "PPID△: the parent (child of this shell, $$) before its children" order_is "$P "
tui_keys I
child_first() { ! pids_in_order | grep -qE "^$P " && parent_last; }
check "PPID▽: a child ($K1 or its sibling) first, the parent last" wait_until child_first
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
tmux -L "$TMUX_S" kill-server 2>/dev/null

# The default columns: sorted by NLWP, which is not shown, the header says so.
tui_start 200x40 "env NO_COLOR=1 $PSCOPE; echo EXIT=\$?; sleep 60"
check "list up (default columns)" tui_wait_for 'Load average'
tui_keys F6
tmux -L "$TMUX_S" send-keys -t "$TMUX_S" Home
tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -N 16 Down
tui_keys Enter
check "a hidden sort column is named: [sorted by NLWP▽]" tui_wait_for '\[sorted by NLWP▽\]'
tui_keys N
check "sorted by PID (shown): the mark on its header" tui_wait_for ' PID△ '
check "... and no [sorted by] note" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'sorted by'"
tui_keys q
check "q: exit 0 (default columns)" tui_wait_for '^EXIT=0'
done_testing
