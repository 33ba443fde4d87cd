#!/bin/bash
# The process list as a htop user drives it, through tmux: K (kernel
# threads hidden by default, still counted), H, Space/c/U tags, k/F9 on
# the tagged set, F7/F8 nice, a affinity, i I/O priority, e environment,
# w the whole command line, Left/Right, tree folding, the selection kept
# on its process, F2 settings that persist in pscoperc (and a broken file
# reported and left alone), NO_COLOR and -C, LANG=C, exit statuses.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }
tmp=$(mktemp -d /tmp/pscope-list-keys.XXXXXX)
at_exit "rm -rf $tmp"
rc=$XDG_CONFIG_HOME/pscope/pscoperc

PNAME=ps-keys-$$
PSCOPE_KEYS_MARK=here start_target family 1 "$PNAME" || exit 1
FPID=$TPID
CPID=$(awk '{ print $1 }' /proc/$FPID/task/$FPID/children)

filter() { # filter TEXT: show only the rows matching TEXT
	tui_keys '\'
	tui_keys -l "$1"
	tui_keys Enter
}
unfilter() { tui_keys '\' Escape; }

tui_start 200x50 "$PSCOPE -d 5; echo EXIT=\$?; sleep 60"
check "list up" tui_wait_for 'Load average'

# K: kernel threads hidden by default, counted in the header all the same.
filter kthreadd
check "kernel threads hidden by default" tui_wait_for 'no process matches the filter'
check "the header still counts them" tui_wait_for 'Tasks: [0-9]+, [0-9]+ thr, [1-9][0-9]* kthr'
tui_keys K
check "K shows them (kthreadd, PID 2)" tui_wait_for '^ +2 root .*kthreadd'
check "K: said in the header" tui_wait_for '\[kernel threads\]'
tui_keys K
check "K again hides them" tui_wait_for 'no process matches the filter'
unfilter

# H: userland threads (the parent's two ps-worker threads).
TID=$(ls /proc/$FPID/task | grep -vx "$FPID" | head -1)
filter ps-worker
tui_keys H
check "H shows the userland threads (TID $TID)" tui_wait_for "^ +$TID .* ps-worker"
tui_keys H
check "H again hides them" tui_wait_for 'no process matches the filter'
unfilter
filter "$PNAME"
check "our family" tui_wait_for "^ +$FPID .*$PNAME"

# F8 / F7: nice up and down (root may lower it again), from whatever nice
# the suite runs at.
nice0=$(awk '{ sub(/.*\) /, ""); print $17 }' /proc/$FPID/stat)
tui_keys Home
tui_keys F8
check "F8: nice +1, said on the status line" tui_wait_for "PID $FPID: nice $((nice0 + 1))([^0-9]|$)"
check "F8: the kernel has nice $((nice0 + 1))" sh -c "[ \"\$(awk '{ sub(/.*\\) /, \"\"); print \$17 }' /proc/$FPID/stat)\" = $((nice0 + 1)) ]"
tui_keys F7
check "F7: nice back to $nice0" tui_wait_for "PID $FPID: nice $nice0([^0-9]|$)"

# a: CPU affinity; i: I/O priority.
tui_keys a
check "a asks for the CPUs, prefilled with the current set" tui_wait_for "CPUs for PID $FPID \\(0-[0-9]+, e.g. 0,2-3\\): [0-9,-]+"
tui_keys BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace
tui_keys -l 0
tui_keys Enter
check "a: the status line confirms, in words (not 'CPUs 0 for 1 process')" tui_wait_for "PID $FPID now runs on CPU 0\$"
check "a: every thread runs on CPU 0 only" sh -c "for t in /proc/$FPID/task/*; do grep -q '^Cpus_allowed_list:.0\$' \$t/status || exit 1; done"
tui_keys i
check "i asks for the I/O priority" tui_wait_for "I/O priority of PID $FPID \\(be0-be7, rt0-rt7, idle, none\\): "
tui_keys BSpace BSpace BSpace BSpace BSpace BSpace
tui_keys -l idle
tui_keys Enter
check "i: the status line confirms" tui_wait_for "PID $FPID: I/O priority idle"
if command -v ionice >/dev/null; then
	check "i: the kernel has class idle" sh -c "ionice -p $FPID | grep -q '^idle'"
else
	skip "ionice is not installed"
fi

# e: the environment, whole.
tui_keys e
check "e shows the environment of the process" tui_wait_for "Environment of PID $FPID"
check "e: its variables" tui_wait_for '^PSCOPE_KEYS_MARK=here$'
tui_keys Escape

# Tags: Space tags and moves down, U untags, c tags the children too.
tui_keys Home Space
check "Space tags one" tui_wait_for '\[1 tagged\]'
tui_keys U
untagged() { ! tui_screen | grep -q 'tagged\]'; }
check "U untags all" wait_until untagged
tui_keys Home c
check "c tags the process and its child" tui_wait_for '\[2 tagged\]'
tui_keys k
check "k opens the signal menu for the tagged set" tui_wait_for '^ *Signal 2 tagged'
tui_keys Enter
check "the confirmation counts them" tui_wait_for 'Send SIGTERM to the 2 tagged processes\? \[y/N\]'
tui_keys n
tui_keys Escape
unfilter

# Tree folding: - folds the family under its parent, + unfolds, * expands all.
filter "$PNAME"
tui_keys t Home
check "tree: the child under its parent" tui_wait_for "^ +$CPID .*ps-child"
tui_keys -- -
folded() { # the child's row gone, the parent's marked +
	local s
	s=$(tui_screen)
	! printf '%s\n' "$s" | grep -qE "^ +$CPID " && printf '%s\n' "$s" | grep -qE "^ +$FPID .*\+ "
}
check "- folds: the child is hidden, the parent marked +" wait_until folded
tui_keys +
check "+ unfolds" tui_wait_for "^ +$CPID .*ps-child"
tui_keys -- - '*'
check "* expands everything" tui_wait_for "^ +$CPID .*ps-child"
tui_keys t
unfilter
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
check "settings written on quit" test -s "$rc"
tmux -L "$TMUX_S" kill-server 2>/dev/null

# A long command line: w shows it wrapped, Right scrolls the list to its end.
long=$(printf 'x%.0s' $(seq 1 300))
sh -c 'sleep 1000; :' "ps-long-$$" "$long" "END-OF-LINE-$$" </dev/null >/dev/null 2>&1 &
LPID=$!
kill_long() { # the shell and its sleep
	local c
	c=$(cat /proc/$LPID/task/$LPID/children 2>/dev/null)
	kill $LPID $c 2>/dev/null
}
at_exit kill_long
tui_start 120x30 "$PSCOPE -d 5; echo EXIT=\$?; sleep 60"
tui_wait_for 'Load average' >/dev/null
filter "ps-long-$$"
check "the long command is cut at the edge" sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q ps-long-$$ && ! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q END-OF-LINE-$$"
tui_keys w
check "w shows the whole command line, wrapped" tui_wait_for "END-OF-LINE-$$"
check "w: its title names the process" tui_wait_for "Command line of PID $LPID"
tui_keys Escape
for _ in $(seq 1 40); do tmux -L "$TMUX_S" send-keys -t "$TMUX_S" Right; done
check "Right scrolls the command to its end" tui_wait_for "END-OF-LINE-$$"
check "the scroll is shown" tui_wait_for '\[scrolled [0-9]+\]'
for _ in $(seq 1 60); do tmux -L "$TMUX_S" send-keys -t "$TMUX_S" Left; done
check "Left scrolls back" tui_wait_for "^ +$LPID .* sh -c sleep 1000"
tui_keys q
tmux -L "$TMUX_S" kill-server 2>/dev/null

# F2: tree view and the PPID column set, quit, start again: still set.
tui_start 200x50 "$PSCOPE -d 5; echo EXIT=\$?; sleep 60"
tui_wait_for 'Load average' >/dev/null
tui_keys F2
check "F2 opens the setup screen" tui_wait_for '^ Setup '
check "F2: the tree is off" tui_wait_for '^ Tree view +off'
tui_keys Down Down Space
check "F2: Space turns the tree on" tui_wait_for '^ Tree view +on'
tui_keys -N 30 Down
check "F2: PPID, the first hidden column" tui_wait_for '^ +\[ \] PPID'
tui_keys Space
check "F2: Space shows PPID" tui_wait_for '^ +\[x\] PPID'
tui_keys Escape
check "PPID in the list, before COMMAND" tui_wait_for '^ +PID USER .* PPID COMMAND'
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
check "pscoperc: tree_view=1" grep -qx 'tree_view=1' "$rc"
check "pscoperc: the ppid column" grep -qx 'columns=pid user pri ni virt res shr state cpu mem time ppid command' "$rc"
tmux -L "$TMUX_S" kill-server 2>/dev/null
TUI_KEEP_SETTINGS=1 tui_start 200x50 "$PSCOPE -d 5; echo EXIT=\$?; sleep 60"
check "restart: PPID still shown" tui_wait_for '^ +PID USER .* PPID COMMAND'
filter "$PNAME"
check "restart: still a tree" tui_wait_for "^ +$CPID .*└─ ps-child"
check "restart: PPID of the child is the parent" tui_wait_for "^ +$CPID .* +$FPID .*ps-child"
tui_keys q
tmux -L "$TMUX_S" kill-server 2>/dev/null

# A broken pscoperc: reported on the status line, used as defaults, and
# left exactly as it was.
printf 'sort_key=cpu\nthis line is broken\n' >"$rc"
cp "$rc" "$tmp/rc.orig"
TUI_KEEP_SETTINGS=1 tui_start 200x50 "$PSCOPE -d 5; echo EXIT=\$?; sleep 60"
check "broken file: reported with its line" tui_wait_for "settings not read \\(the file is left as it is\\): pscoperc line 2: no '='"
check "broken file: pscope runs with the defaults" tui_wait_for 'CPU%▽'
tui_keys t q
check "broken file: q exits 0" tui_wait_for '^EXIT=0'
check "broken file: never overwritten" cmp "$rc" "$tmp/rc.orig"
tmux -L "$TMUX_S" kill-server 2>/dev/null
rm -f "$rc"

# Colours: present by default; none with NO_COLOR or -C.
header_reversed() { tmux -L "$TMUX_S" capture-pane -e -p -t "$TMUX_S" | grep -E ' PID ' | grep -qE $'\e\\[([0-9]+;)*7m'; }
colours() { tmux -L "$TMUX_S" capture-pane -e -p -t "$TMUX_S" | grep -cE $'\e\\[([0-9;]*;)?(3[0-7]|4[0-7]|9[0-7]|10[0-7]|38;5;[0-9]+|48;5;[0-9]+)(;[0-9;]*)?m'; }
tui_start 120x30 "$PSCOPE; sleep 60"
tui_wait_for 'Load average' >/dev/null
check "colour escapes by default" sh -c "[ $(colours) -gt 0 ]"
tmux -L "$TMUX_S" kill-server 2>/dev/null
for how in "env NO_COLOR=1 $PSCOPE" "$PSCOPE -C" "$PSCOPE --no-color"; do
	tui_start 120x30 "$how; sleep 60"
	tui_wait_for 'Load average' >/dev/null
	check "$how: no colour escapes" sh -c "[ $(colours) -eq 0 ]"
	check "$how: the header still stands out (reverse video)" header_reversed
	tmux -L "$TMUX_S" kill-server 2>/dev/null
done
tui_start 120x30 "env NO_COLOR= $PSCOPE; sleep 60"
tui_wait_for 'Load average' >/dev/null
check "an empty NO_COLOR does not turn colour off (no-color.org)" sh -c "[ $(colours) -gt 0 ]"
tmux -L "$TMUX_S" kill-server 2>/dev/null

# LANG=C: separators and marks in ASCII.
tui_start 200x50 "env LC_ALL=C $PSCOPE -t; sleep 60"
tui_wait_for 'Load average' >/dev/null
check "LANG=C: the sort mark in ASCII" tui_wait_for 'CPU%v '
check "LANG=C: tree lines in ASCII" tui_wait_for '^ +[0-9]+ .*(`-|\|-) '
check "LANG=C: no box-drawing placeholder" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -qE '\\?- |\\?  '"
tmux -L "$TMUX_S" kill-server 2>/dev/null

# Terminals pscope cannot draw on.
tui_start 120x10 "env TERM=dumb $PSCOPE; echo EXIT=\$?; sleep 60"
check "TERM=dumb: a clear message" tui_wait_for_joined "terminal type 'dumb' cannot move the cursor"
check "TERM=dumb: exit 1" tui_wait_for '^EXIT=1'
tmux -L "$TMUX_S" kill-server 2>/dev/null
tui_start 120x10 "env TERM=no-such-term $PSCOPE; echo EXIT=\$?; sleep 60"
check "unknown TERM: a clear message" tui_wait_for_joined "unknown terminal type 'no-such-term'"
check "unknown TERM: exit 1" tui_wait_for '^EXIT=1'
tmux -L "$TMUX_S" kill-server 2>/dev/null

# Bad options: exit status 2 and a message, before any screen.
bad() { # bad DESCRIPTION REGEX ARGS...
	local d=$1 re=$2 st
	shift 2
	"$PSCOPE" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	st=$?
	ok $([ $st = 2 ] && echo 0 || echo 1) "$d: exit 2 (got $st)"
	check "$d: message" grep -qE "$re" "$tmp/err"
}
bad "-s nosuch" "unknown sort key 'nosuch'" -s nosuch
bad "-u nosuchuser" "no user 'nosuchuser-$$'" -u "nosuchuser-$$"
bad "-p of no process" "no process with PID 2147483" -p 2147483
bad "-p garbage" "invalid PID" -p 12x
bad "-d 0" "invalid delay" -d 0
bad "an unknown option" "Try 'pscope --help'" --frobnicate
for c in list show stack top core cores doors; do
	bad "pscope $c --frobnicate" "pscope $c --help|Usage: pscope $c" "$c" --frobnicate
	"$PSCOPE" "$c" --help >"$tmp/out" 2>&1
	ok $? "pscope $c --help: exit 0"
	check "pscope $c --help: its usage line" grep -q "^Usage: pscope $c " "$tmp/out"
done
"$PSCOPE" --help >"$tmp/help" 2>&1
for o in -d, --delay -p, --pid -u, --user -t, --tree -s, --sort-key -C, --no-color -h, --help -V, --version; do
	check "pscope --help lists $o" grep -q -- "$o" "$tmp/help"
done
# pscope show: the whole command line (59,000 bytes), text and JSON.
big=$(head -c 59000 /dev/zero | tr '\0' A)
sh -c 'sleep 1000; :' ps-big "$big" "BIG-END-$$" </dev/null >/dev/null 2>&1 &
BPID=$!
at_exit "kill \$(cat /proc/$BPID/task/$BPID/children 2>/dev/null) $BPID 2>/dev/null"
has_child() { [ -n "$(cat /proc/$1/task/$1/children 2>/dev/null)" ]; }
wait_until has_child $BPID
"$PSCOPE" show $BPID >"$tmp/show.txt" 2>&1
check "show: the whole command line in text, no cut" sh -c "grep '^Command: ' $tmp/show.txt | grep -q 'A BIG-END-$$\$' && [ \$(grep '^Command: ' $tmp/show.txt | wc -c) -gt 59000 ]"
"$PSCOPE" show $BPID --json >"$tmp/show.json" 2>&1
check "show --json: the whole command line" python3 -c "import json,sys; j=json.load(open('$tmp/show.json')); c=j['cmdline']; assert c.endswith('BIG-END-$$') and len(c) > 59000, len(c); assert j['panes']['status']['cmdline'] == c"

"$PSCOPE" --sort-key=help >"$tmp/keys"
check "--sort-key=help lists every column" sh -c "grep -q '^io_read_rate  *IO_READ_RATE' $tmp/keys && grep -q '^io_priority  *IO\$' $tmp/keys && [ \$(wc -l <$tmp/keys) -eq 31 ]"
done_testing
