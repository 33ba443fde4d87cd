#!/bin/bash
# The Hot processes screen (A on the process list): a busy
# target found by name in the process table, its function in the function
# table with its process, the command-name table, Enter on the process
# opening its own hot view, and Esc stopping the sampler.
. "$top_srcdir/tests/lib.sh"

tmp=$(mktemp -d /tmp/pscope-mwtui.XXXXXX)
chmod 755 "$tmp"
at_exit "rm -rf $tmp"
N=mwu$$ # this run's own name (the suite may run in other checkouts at once)
cp "$TARGETS/hotloop" "$tmp/$N"
"$tmp/$N" -w >"$tmp/out" 2>&1 &
TPID=$!
kill_at_exit $TPID
wait_until grep -q ready "$tmp/out"

export PSCOPE_DATA="${PSCOPE_DATA:-$top_srcdir/data}"
tui_start 140x40 "cd $tmp && $PSCOPE"
tui_wait_for "AllHot" >/dev/null
ok $? "the process list names the key (A AllHot)"
tui_keys A
tui_wait_for "Hot processes: every process +\[by process\] +window 10 s" 30
ok $? "A opens the Hot processes screen"
pspid=$(pgrep -n -x pscope -P "$(tmux -L "$TMUX_S" list-panes -t "$TMUX_S" -F '#{pane_pid}')")
tui_wait_for "^SHARE%v? +SAMPLES +SAMPLED +/PROC +PID +COMMAND" 50
ok $? "the process table's header"
check "status: event, rate, idle, lost, stacks, CPU sampled vs /proc" sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -Eq 'samples [0-9]+ \(window [0-9]+\)  idle [0-9]+%  lost [0-9]+  stacks (fp|dwarf|mixed|none), truncated [0-9.]+%  CPU sampled [0-9.]+ s vs /proc [0-9.]+ s'"
[ -n "$pspid" ] && [ "$(ls -l "/proc/$pspid/fd" 2>/dev/null | grep -c perf_event)" -ge 2 ]
ok $? "pscope holds per-CPU perf events while the view is open"

# '/' searches (the prompt holds the last text: erase it first).
search() {
	tui_keys /
	tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -N 40 BSpace
	tui_keys "$1" Enter
}
# Find the target by name, whatever the machine's other load.
search "$N"
tui_wait_for "^ +[0-9.]+ +[0-9]+ +[0-9.]+s +[0-9.]+s +$TPID $N" 50
ok $? "the busy target has its row: share, samples, CPU, PID, name"

tui_keys Tab
tui_wait_for "^SELF%v? +TOTAL% +SAMPLES +FUNCTION +MODULE +PROCESS" 20
ok $? "Tab: the function table"
search "$N-$TPID"
tui_wait_for "^ +[0-9.]+ +[0-9.]+ +[0-9]+ +(hot|cold)_work +$N +$N-$TPID" 20
ok $? "the target's function, its module and process"
# Right scrolls the last column sideways when it does not fit: at 84
# columns the PROCESS column (from column 79) shows 5 characters of
# NAME-PID; Right shows them from the 9th on, Left from the first again.
T="$N-$TPID"
tmux -L "$TMUX_S" resize-window -t "$TMUX_S" -x 84 -y 40
tui_wait_for "^ +[0-9.]+ +[0-9.]+ +[0-9]+ +(hot|cold)_work +$N +${T:0:5}\$" 20 >/dev/null
tui_keys Right
tui_wait_for "^ +[0-9.]+ +[0-9.]+ +[0-9]+ +(hot|cold)_work +$N +${T:8:3}" 20
ok $? "Right scrolls the function table's process column"
tui_keys Left
tui_wait_for "^ +[0-9.]+ +[0-9.]+ +[0-9]+ +(hot|cold)_work +$N +${T:0:5}\$" 20
ok $? "Left scrolls it back"
tmux -L "$TMUX_S" resize-window -t "$TMUX_S" -x 140 -y 40

tui_keys Tab c
tui_wait_for "Hot processes: every process +\[by command\]" 20 && tui_wait_for "^SHARE%v? +SAMPLES +PROCS +COMMAND" 10
ok $? "c: samples by command name"
tui_wait_for "^ +[0-9.]+ +[0-9]+ +1 $N *$" 20
ok $? "the target's command row"
tui_keys c
tui_wait_for "\[by process\]" 10 >/dev/null
search "$N"
# The selection stays on the process while the rows are sorted again.
tui_wait_change
tui_wait_for "^ +[0-9.]+ +[0-9]+ +[0-9.]+s +[0-9.]+s +$TPID $N" 10 >/dev/null
tui_keys Enter
tui_wait_for "Hot functions: PID $TPID $N" 20
ok $? "Enter on the process opens its own hot view"
tui_wait_for "^ +[0-9.]+ +[0-9.]+ +[0-9]+ +hot_work +$N" 50
ok $? "with its functions"
tui_keys Escape
tui_wait_for "Hot processes: every process" 10
ok $? "Esc comes back to the Hot processes screen"
perf_fds() { ls -l "/proc/$pspid/fd" 2>/dev/null | grep -c perf_event; }
perf_fds_at_least() { [ "$(perf_fds)" -ge "$1" ]; }
perf_fds_none() { [ "$(perf_fds)" = 0 ]; }
wait_until perf_fds_at_least 2
ok $? "and samples every process again"
tui_keys Escape
tui_wait_for "AllHot" 10 >/dev/null
wait_until perf_fds_none
ok $? "Esc stops sampling: no perf events left open"
runs_on_soon "$TPID"
ok $? "the target runs on"
tui_keys q
done_testing
