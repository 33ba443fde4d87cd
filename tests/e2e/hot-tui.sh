#!/bin/bash
# The hot functions screen, driven through tmux: open it on a target with a
# known profile, read the table and the status line, callers of hot_work,
# freeze, thread filter, window, export, and Esc stopping the sampler.
. "$top_srcdir/tests/lib.sh"

tmp=$(mktemp -d /tmp/pscope-hot.XXXXXX)
at_exit "rm -rf $tmp"

start_target hotloop -t 2
export PSCOPE_DATA="${PSCOPE_DATA:-$top_srcdir/data}"
tui_start 140x40 "cd $tmp && $PSCOPE -p $TPID"

# Select PID in the process list, whatever its order: find the selected
# row (drawn with the selection colours) and the target's row on screen,
# move between them, page down while the target is not in view.
select_pid() { # select_pid PID
	local want=$1 sel row plain esc=$'\e'
	for _ in $(seq 1 200); do
		sel=$(tmux -L "$TMUX_S" capture-pane -e -p -t "$TMUX_S" | grep -nE "^($esc\\[[0-9;]*m)*$esc\\[[0-9;]*(46|7)m($esc\\[[0-9;]*m)* *[0-9]+ " | head -1)
		[ -n "$sel" ] || { tui_keys Down; continue; }
		plain=$(tui_screen)
		row=$(printf '%s\n' "$plain" | grep -nE "^ *$want " | head -1 | cut -d: -f1)
		local selrow=${sel%%:*}
		local selpid=$(printf '%s\n' "$plain" | sed -n "${selrow}p" | awk '{print $1}')
		[ "$selpid" = "$want" ] && return 0
		if [ -n "$row" ]; then
			if [ "$row" -gt "$selrow" ]; then
				tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -N $((row - selrow)) Down
			else
				tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -N $((selrow - row)) Up
			fi
		else
			tmux -L "$TMUX_S" send-keys -t "$TMUX_S" NPage
		fi
		tui_idle
	done
	return 1
}
# h on the detail screen of the target; else select it in the list.
tui_keys h
if ! tui_wait_for "Hot functions: PID $TPID " 15 >/dev/null; then
	tui_keys Escape Escape Home
	select_pid "$TPID" || diag "could not select $TPID in the list"
	tui_keys h
fi
tui_wait_for "Hot functions: PID $TPID "
ok $? "h opens the hot functions of the target"
pspid=$(pgrep -n -x pscope -P "$(tmux -L "$TMUX_S" list-panes -t "$TMUX_S" -F '#{pane_pid}')")
tui_wait_for '^ +[0-9.]+ +[0-9.]+ +[0-9]+ +hot_work +hotloop' 50
ok $? "hot_work is the first row"
check "status: the event and why" sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -Eq 'event (cycles \(hardware PMU present\)|cpu-clock \(no hardware PMU: cycles not supported\))'"
check "status: requested and achieved rate" sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -Eq '99 Hz requested, [0-9]+ Hz achieved'"
check "status: samples, lost, throttled, truncated, CPU" sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -Eq 'samples [0-9]+ \(window [0-9]+\)  lost [0-9]+  throttled [0-9]+  stacks (fp|dwarf|mixed|none), truncated [0-9.]+%.*CPU sampled [0-9.]+ s vs /proc [0-9.]+ s'"
check "status: kernel included or excluded" sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -Eq 'kernel (included|excluded)'"
[ -n "$pspid" ] && ls -l "/proc/$pspid/fd" 2>/dev/null | grep -q 'perf_event'
ok $? "pscope holds perf events while the view is open"

# '/' selects the function that holds the text. Right scrolls long names,
# and stops where the longest one on screen ends: hotloop's all fit their
# column at 140 columns, so Right moves nothing.
tui_keys /
tui_keys -l cold_work
tui_keys Enter
check "/ cold_work: its row is selected" sh -c "tmux -L $TMUX_S capture-pane -e -p -t $TMUX_S | grep -E \"\$(printf '\\033')\\[[0-9;]*(46|7)m\" | grep -q cold_work"
tui_keys Right
check "Right: every name fits its column, so they stay whole (no scrolling into empty space)" wait_until sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -Eq '^ +[0-9.]+ +[0-9.]+ +[0-9]+ +hot_work +hotloop'"

# Callers and callees of hot_work (the first row is selected).
tui_keys Home Enter
tui_wait_for 'Callers \(calling it\)'
ok $? "Enter shows callers and callees"
tui_wait_for '^ +[0-9.]+% +[0-9]+ +loop +\[hotloop\]'
ok $? "the caller of hot_work is loop"
tui_keys Escape
tui_wait_for 'SELF% +TOTAL% +SAMPLES +FUNCTION'
ok $? "Esc returns to the table"

# Freeze: the sample count stops moving on screen while sampling goes on.
tui_keys Space
tui_wait_for '\[FROZEN\]'
ok $? "Space freezes the view"
a=$(tui_screen | grep -o 'samples [0-9]*' | head -1)
sleep 2.5
b=$(tui_screen | grep -o 'samples [0-9]*' | head -1)
[ -n "$a" ] && [ "$a" = "$b" ]
ok $? "frozen: the numbers stay ($a / $b)"
tui_keys Space
moved() { c=$(tui_screen | grep -o 'samples [0-9]*' | head -1); [ "$c" != "$b" ]; }
wait_until moved
[ "$c" != "$b" ]
ok $? "Space again: live, sampling went on meanwhile ($b -> $c)"

tui_keys t
tui_wait_for 'thread [0-9]+ worker'
ok $? "t filters one thread"
tui_keys T w
tui_wait_for 'window 60 s +sort self +all threads'
ok $? "T: all threads again; w: next window"
tui_keys s
tui_wait_for 'sort total'
ok $? "s: sort by total"
tui_keys +
tui_wait_for '199 Hz requested' 40
ok $? "+ raises the frequency"

# Export the window as folded stacks.
tui_keys E
tui_wait_for 'Export folded stacks to: pscope-'"$TPID"'-60s.folded'
ok $? "E asks where to export"
tui_keys Enter
tui_wait_for 'wrote [0-9]+ samples'
ok $? "export done"
check "the export parses as folded stacks" python3 -c '
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines
for l in lines:
    assert re.match(r"^(.+) (\d+)$", l), repr(l)
assert any(";loop;hot_work " in l for l in lines)
' "$tmp/pscope-$TPID-60s.folded"

# A result longer than the screen wraps instead of being cut.
long=$tmp/$(printf 'd%.0s' $(seq 1 150))
mkdir -p "$long"
tui_keys E
tui_wait_for 'Export folded stacks to:'
for _ in $(seq 1 40); do tmux -L "$TMUX_S" send-keys -t "$TMUX_S" BSpace; done
tui_keys -l "$long/x.folded"
tui_keys Enter
check "the export result wraps: the whole path shows" tui_wait_for_joined "wrote [0-9]+ samples .* to ?$long/x\.folded"
check "that export was written" test -s "$long/x.folded"

tui_keys F1
tui_wait_for 'Callers and callees|callers and callees'
ok $? "F1 shows the help of the screen"
tui_keys Escape

tui_keys Escape
! tui_screen | grep -q 'Hot functions: PID'
ok $? "Esc leaves the hot view"
wait_until sh -c "! ls -l /proc/$pspid/fd 2>/dev/null | grep -q perf_event"
[ -n "$pspid" ] && [ -d "/proc/$pspid/fd" ] && ! ls -l "/proc/$pspid/fd" 2>/dev/null | grep -q perf_event
ok $? "Esc stops sampling: pscope ($pspid) runs with no perf event left open"
tui_alive
ok $? "pscope still runs"
runs_on_soon "$TPID"
ok $? "the target runs on"
tui_keys q

# The target exits while it is watched: the last snapshot stays, marked.
start_target hotloop
tui_start 140x30 "cd $tmp && $PSCOPE -p $TPID"
tui_keys h
tui_wait_for '^ +[0-9.]+ +[0-9.]+ +[0-9]+ +hot_work' 50 >/dev/null
kill -9 "$TPID"
tui_wait_for "Hot functions: PID $TPID .*\\[ENDED\\]" 50
ok $? "the target exits: the view says [ENDED]"
tui_screen | grep -Eq '^ +[0-9.]+ +[0-9.]+ +[0-9]+ +hot_work'
ok $? "and keeps its last table"
tui_keys Escape
tui_alive
ok $? "pscope runs on"
tui_keys q

# Quitting while sampling: a clean exit, no event left on the target.
start_target hotloop
tui_start 140x30 "cd $tmp && $PSCOPE -p $TPID; echo \$? >$tmp/quit.rc"
tui_keys h
tui_wait_for '^ +[0-9.]+ +[0-9.]+ +[0-9]+ +hot_work' 50 >/dev/null
tui_keys q
wait_until test -s "$tmp/quit.rc"
[ "$(cat "$tmp/quit.rc" 2>/dev/null)" = 0 ]
ok $? "q while sampling: pscope exits 0 (got $(cat "$tmp/quit.rc" 2>/dev/null))"
runs_on_soon "$TPID"
ok $? "the target runs on"

# An unprivileged user against a root process: the screen names the door.
cp "$PSCOPE" "$tmp/pscope"
chmod 755 "$tmp" "$tmp/pscope"
start_target hotloop
tui_start 140x30 "cd / && PSCOPE_DATA=$PSCOPE_DATA setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all $tmp/pscope -p $TPID"
tui_keys h
tui_wait_for 'sampling could not start'
ok $? "unprivileged: sampling refused on screen"
if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 3 ] && uname -v | grep -qE 'Debian|Ubuntu'; then
	want="cannot sample: kernel.perf_event_paranoid is"
	door="door: kernel.perf_event_paranoid"
else
	want="cannot sample: process $TPID belongs to uid 0 and we are uid $(id -u nobody) without CAP_SYS_PTRACE"
	door="door: CAP_SYS_PTRACE (process of another user)"
fi
tui_screen | grep -qF "$want"
ok $? "the refusal says why"
tui_screen | grep -qF "$door" && tui_screen | grep -qF "fix: run pscope as root"
ok $? "and names the door and the fix"
tui_screen | tr -s " \n" "  " | grep -qF "CAP_PERFMON alone is not enough)" || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 3 ]
ok $? "a long fix is wrapped, not cut"
tui_keys Escape
tui_alive
ok $? "Esc goes back, pscope runs on"
tui_keys q
done_testing
