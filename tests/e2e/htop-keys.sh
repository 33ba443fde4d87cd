#!/bin/bash
# What an htop user's fingers do, in pscope's list: -p PID,PID shows only
# those processes (one PID still opens its detail screen), -F/--filter sets
# the filter, digits jump to a PID, u offers a menu of users, a signal's
# number typed in the F9 menu selects it, l opens the FDs pane, x the
# Threads pane sorted by the lock waited on, and the first press of h, s, C
# (which mean something else in htop) says so, once.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
tmp=$(mktemp -d /tmp/pscope-htop-keys.XXXXXX)
at_exit "rm -rf $tmp"

# --- the command line ---
"$PSCOPE" -p 1,x >"$tmp/out" 2>&1
check "-p 1,x: exit status 2" test $? = 2
check "-p 1,x: says what a PID list is" grep -q "invalid PID '1,x' (a PID, or PIDs separated by commas)" "$tmp/out"
"$PSCOPE" -p 1,0 >"$tmp/out" 2>&1
check "-p 1,0: refused" grep -q "invalid PID '1,0'" "$tmp/out"
"$PSCOPE" --filter >"$tmp/out" 2>&1
check "--filter without a value: exit 2, named" sh -c "grep -q \"option '--filter' needs a value\" '$tmp/out'"
"$PSCOPE" -F "$(printf '%070d' 0)" >"$tmp/out" 2>&1
check "-F longer than the filter line: refused" grep -q "filter too long (at most 63 bytes)" "$tmp/out"
check "--help lists -p PID,PID... and -F" sh -c "'$PSCOPE' --help | grep -q -- '-p, --pid=PID,PID\.\.\.' && '$PSCOPE' --help | grep -q -- '-F, --filter=TEXT'"

command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }
start_quiet_target stack-threads 3 || exit 1
A=$TPID
start_target deadlock 2 || exit 1
B=$TPID
start_target family || exit 1
C=$TPID

# --- -p A,B: only those two ---
tui_start 200x30 "env NO_COLOR=1 $PSCOPE -s pid -p $A,$B"
check "-p A,B: A listed" tui_wait_for "^ *$A "
check "-p A,B: B listed" tui_wait_for "^ *$B "
check "-p A,B: the header says why the list is short" tui_wait_for '\[2 PIDs: -p\]'
check "-p A,B: nothing else (C, PID 1)" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -qE '^ *($C|1) '"

# --- digits: the PID typed so far ---
tui_keys $(echo "$B" | sed 's/./& /g')
check "digits of B: B selected" tui_marked "^ *$B "
tui_keys Up $(echo "$A" | sed 's/./& /g')
# A is the first row (sorted by PID): its reverse video starts on the titles' line
check "digits of A: A selected" wait_until tui_selected_below '^ +PID.* USER'

check "the status line says which PID" tui_wait_for "PID $A \(digits go on typing it"

# --- F9 and a signal's number (Esc: nothing is sent) ---
tui_keys F9
tui_wait_for 'Send signal' >/dev/null
tui_keys 9
check "F9 then 9: SIGKILL selected" tui_marked ' 9 SIGKILL'
tui_keys 1 5
# SIGTERM is the menu's first row: its reverse video starts on the title's line
check "then 1 5: SIGTERM selected" wait_until tui_selected_below 'Send signal'
check "SIGTERM is that row" tui_wait_for '^ 15 SIGTERM'
tui_keys Escape
check "Esc: no signal sent, A still there" kill -0 "$A"

# --- u: a menu of the users listed ---
tui_keys u
check "u: a menu of users" tui_wait_for 'Show user'
check "u: All users first, selected" wait_until tui_selected_below 'Show user'
check "All users is that row" tui_wait_for '^ All users'
# The first user after All users: whoever sorts first on this machine (root,
# or another user's process that is running beside the suite).
first=$(tui_screen | sed -n '/^ All users/{n;p;q}' | awk '{print $1}')
diag "the menu's first user: ${first:-none}"
tui_keys Down Enter
check "Down, Enter: the first user's processes only ($first)" tui_wait_for "\\[user ${first:-?}\\]"
tui_keys u
check "u again: the menu on $first" tui_marked "${first:-?}"
tui_keys Up Enter
check "All users: the user note is gone" wait_until sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q '\[user '"

# --- l: the FDs pane; x: the Threads pane by lock ---
tui_keys $(echo "$B" | sed 's/./& /g')
tui_marked "^ *$B " >/dev/null
tui_keys l
check "l: the FDs pane of B" tui_wait_for "Source: /proc/$B/fd"
tui_keys Escape
tui_marked "^ *$B " >/dev/null
tui_keys x
check "x: the Threads pane of B" tui_wait_for "Source: /proc/$B/task/TID"
check "x: sorted by LOCK, said so" tui_wait_for 'x: threads sorted by the lock they wait on'
check "x: the LOCK title carries the sort mark" tui_wait_for 'LOCK(▽|v)'
check "x: the first thread is one waiting on a lock" sh -c \
	"tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -A1 -E '^ +TID ' | tail -1 | grep -q 'held by TID'"
tui_keys Escape

# --- h, s, C: the first press says how they differ from htop's, once ---
tui_keys $(echo "$A" | sed 's/./& /g')
wait_until tui_selected_below '^ +PID.* USER'
tui_keys h
check "first h: what it is and where htop's help is" tui_wait_for "h samples the hot functions \(htop's h, help: F1 or \?\); said once"
tui_keys Escape Z
tui_wait_for 'updates paused' >/dev/null
tui_keys Z
tui_wait_for 'updates resumed' >/dev/null
tui_keys h
tui_wait_for 'Hot functions: PID' >/dev/null
check "second h: not again" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'said once'"
tui_keys Escape
wait_until tui_selected_below '^ +PID.* USER'
tui_keys s
check "first s: what it is, strace's place" tui_wait_for "s dumps every thread's stack \(htop's s, strace: W"
tui_keys Escape
wait_until tui_selected_below '^ +PID.* USER'
tui_keys C
check "C: the path prompt" tui_wait_for "^Write the core to: "
tui_keys Escape
check "first C, once the prompt is answered: a core; htop's setup is F2" \
	tui_wait_for "no core written; C writes a core file \(htop's C, setup: F2\); said once"
tui_keys Z
tui_wait_for 'updates paused' >/dev/null
tui_keys Z C
tui_wait_for "^Write the core to: " >/dev/null
tui_keys Escape
tui_wait_for "no core written" >/dev/null
check "second C: not again" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'said once'"
tui_keys q
check "A was left running" runs_on_soon "$A"

# --- -F: the filter from the start ---
tui_start 200x30 "$PSCOPE -s pid -F stack-threads"
check "-F stack-threads: A listed" tui_wait_for "^ *$A "
check "-F: the filter is in the header" tui_wait_for '\[filter stack-threads\]'
check "-F: the others are not" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -qE '^ *($B|$C|1) '"
tui_keys q
done_testing
