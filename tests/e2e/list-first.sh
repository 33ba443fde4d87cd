#!/bin/sh
# The first screen starts at the top, as htop does: the busiest processes
# are the first rows and the selection stays on the first one until the
# user moves (then it follows its process: list-select.sh), not on the
# process that was first when pscope started. The list filtered to two
# busy loops of our own: A, then A stopped and B started; the first row
# and the selection must be B.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }
tmp=$(mktemp -d /tmp/pscope-list-first.XXXXXX)
at_exit "rm -rf $tmp"
N=psfirst$$

busy() { # busy NAME: sets BPID
	cp "$TARGETS/hotloop" "$tmp/$N$1"
	"$tmp/$N$1" >"$tmp/$1.out" 2>&1 &
	BPID=$!
	kill_at_exit $BPID
	wait_until grep -q ready "$tmp/$1.out"
}
busy a || exit 1
APID=$BPID

tui_start 80x24 "env NO_COLOR=1 $PSCOPE -d 5; echo EXIT=\$?; sleep 60"
uptime_now() { tui_screen | grep -oE 'Uptime: [0-9:, a-z]+' | head -1; }
refreshes() { # refreshes N: wait until the uptime clock changed N times
	local seen=0 last u
	last=$(uptime_now)
	for _ in $(seq 1 200); do
		u=$(uptime_now)
		[ "$u" != "$last" ] && { seen=$((seen + 1)); last=$u; }
		[ $seen -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
first_row() { tui_screen | awk '/PID USER/ { t = NR } t && NR == t + 1 { print $1; exit }'; }
first_is() { [ "$(first_row)" = "$1" ]; }
check "list up" tui_wait_for 'PID USER'
tui_keys '\'
tui_keys -l "$N"
tui_keys Enter
check "A on the first row" wait_until first_is $APID
check "two seconds of refreshes went by with A on top" refreshes 2
kill -STOP $APID
busy b || exit 1
# B's CPU% is known at the second scan after it started: wait until it
# is the first row and a few refreshes (the uptime clock) went by.
check "B on the first row once its rate is known" wait_until first_is $BPID
check "two seconds of refreshes went by" refreshes 2

# The row right below the column titles is the selected one.
check "the selection is on the first row (B), not on A" wait_until -t 6 tui_selected_below 'PID USER'
ok $(first_is $BPID; echo $?) "B is still the first row"
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
done_testing
