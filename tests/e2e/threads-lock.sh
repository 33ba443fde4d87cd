#!/bin/bash
# The threads pane names the lock a thread waits on in futex(): the global
# mutex's symbol and the TID holding it, in `pscope show` (text, JSON) and
# in the TUI pane, for normal and robust mutexes (owner in the lock word).
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8

# holders OUT: "TID LOCKNAME OWNER" for each thread waiting on a named lock
holders() {
	sed -nE 's/^ *([0-9]+) .* (ledger|journal) \(0x[0-9a-f]+\) held by TID ([0-9]+)$/\1 \2 \3/p' "$1"
}
# The cycle as the pane shows it: the journal waiter holds ledger, and every
# ledger waiter (the other teller, the bystander) waits for it.
cycle_named() { # cycle_named FILE
	local h j jowner
	h=$(holders "$1")
	echo "$h"
	j=$(echo "$h" | awk '$2 == "journal" { print $1 }')
	jowner=$(echo "$h" | awk '$2 == "journal" { print $3 }')
	[ -n "$j" ] && [ "$(echo "$h" | grep -c ' ledger ')" = 2 ] || return 1
	echo "$h" | awk -v j="$j" '$2 == "ledger" && $3 != j { exit 1 }' || return 1
	# the journal's holder is the teller among the ledger waiters
	echo "$h" | awk -v o="$jowner" '$2 == "ledger" && $1 == o { f = 1 } END { exit !f }'
}

tmp=$(mktemp -d)
at_exit "rm -rf $tmp"
for kind in normal --robust; do
	start_target deadlock 2 $([ $kind = normal ] || echo $kind) || exit 1
	P=$TPID
	"$PSCOPE" show $P --pane threads >"$tmp/out" 2>&1
	check "show ($kind): each waiter names its lock and the holder" cycle_named "$tmp/out"
	check "show ($kind): a thread outside futex shows no lock" grep -qE "^ *$P .* -$" "$tmp/out"
	"$PSCOPE" show $P --pane threads --json >"$tmp/json" 2>&1
	check "show --json ($kind): lock name and owner" python3 -c "
import json, sys
d = json.load(open('$tmp/json'))
th = d['panes']['threads']
locks = [t['lock'] for t in th if 'lock' in t]
names = sorted(l['name'] for l in locks if l.get('name'))
assert names == ['journal', 'ledger', 'ledger'], names
tids = {t['tid'] for t in th}
assert all(l['owner_tid'] in tids for l in locks), locks
assert all(l['addr'].startswith('0x') for l in locks)
"
	kill -9 $P
done

command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }
start_target deadlock 2 || exit 1
P=$TPID
tui_start 200x30 "env NO_COLOR=1 $PSCOPE -p $P; echo EXIT=\$?; sleep 60"
check "detail screen up" tui_wait_for "PID $P"
tui_keys 5
check "threads pane: the LOCK column" tui_wait_for ' LOCK'
check "threads pane: journal and its holder" tui_wait_for 'journal \(0x[0-9a-f]+\) held by TID [0-9]+'
check "threads pane: ledger and its holder" tui_wait_for 'ledger \(0x[0-9a-f]+\) held by TID [0-9]+'
tui_screen >"$tmp/screen"
check "the TUI names the same holders as show" cycle_named "$tmp/screen"
# Narrower (LOCK 25 columns wide): LOCK is cut after the address; Right
# scrolls that column.
tmux -L "$TMUX_S" resize-window -t "$TMUX_S" -x 151 -y 30
check "at 151 columns the LOCK column's holder is cut" wait_until sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -E '^ *[0-9]+ ' | grep -q 'journal (0x' && ! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -E '^ *[0-9]+ ' | grep -q 'held by'"
tui_keys Right Right
check "Right: the holder shows" tui_wait_for '^ *[0-9]+ .*\) held by TID [0-9]+'
tui_keys Left Left
# At 80 columns LOCK is off the screen: the selected thread's lock (else
# the first waiter's) and its holder have a line of their own.
tmux -L "$TMUX_S" resize-window -t "$TMUX_S" -x 80 -y 24
check "at 80 columns: the LOCK column is gone" wait_until sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q ' LOCK'"
check "... and a line names a waiter, its lock and the holder" tui_wait_for '^TID [0-9]+ waits for lock (ledger|journal) \(0x[0-9a-f]+\) held by TID [0-9]+'
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
done_testing
