#!/bin/bash
# The selection follows the process, not the row: a search match stays
# selected through refreshes, a change of sort and a filter, with 2000
# more processes on the machine.
PSCOPE_HEAVY=1 # runs alone: see tests/lib.sh
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }
command -v setsid >/dev/null || { skip "setsid is not installed"; done_testing; exit 0; }
tmp=$(mktemp -d /tmp/pscope-list-select.XXXXXX)
at_exit "rm -rf $tmp"

# 2000 sleeping children in their own process group: one kill ends them.
setsid "$TARGETS/family" 2000 ps-crowd-$$ >"$tmp/crowd.out" 2>&1 &
crowd=$!
at_exit "kill -KILL -$crowd 2>/dev/null"
wait_until grep -q ready "$tmp/crowd.out"
check "2000 extra processes running" grep -q ready "$tmp/crowd.out"

PNAME=ps-sel-$$
start_target family 1 "$PNAME" || exit 1
FPID=$TPID

tui_start 200x50 "$PSCOPE -d 5; echo EXIT=\$?; sleep 60"
check "list up" tui_wait_for 'Load average'
tui_keys /
tui_keys -l "$PNAME"
tui_keys Enter

# Five refreshes at least (0.5 s each): wait for the uptime clock to show
# four more seconds.
uptime_now() { tui_screen | grep -oE 'Uptime: [0-9:, a-z]+' | head -1; }
seen=0 last=$(uptime_now)
for _ in $(seq 1 200); do
	u=$(uptime_now)
	[ "$u" != "$last" ] && { seen=$((seen + 1)); last=$u; }
	[ $seen -ge 4 ] && break
	sleep 0.1
done
ok $([ $seen -ge 4 ] && echo 0 || echo 1) "four seconds of refreshes went by ($seen clock changes)"
tui_keys M
tui_keys '\'
tui_keys -l ps-
tui_keys Enter
tui_keys F
check "the search match is still selected after the refreshes, a new sort and a filter" tui_wait_for "\\[following $FPID\\]"
tui_keys F q
check "q: exit 0" tui_wait_for '^EXIT=0'
done_testing
