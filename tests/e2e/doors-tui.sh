#!/bin/sh
# The Doors screen in the TUI: D opens it, F1 explains it, p probes a PID,
# r probes again (and says so when the process has gone), a resize rewraps
# it, Esc goes back.
. "$top_srcdir/tests/lib.sh"

p=$(cat /proc/sys/kernel/perf_event_paranoid)
start_target lab-fdleak 100 || exit 1
T=$TPID

# Start on the detail screen of our target, so that D probes it (and never
# a process we did not start).
tui_start 100x30 "$PSCOPE -p $T"
tui_wait_for 'lab-fdleak' >/dev/null
ok $? "pscope starts on the target's detail screen"
tui_keys D
tui_wait_for "^ Doors: what the kernel lets pscope do, and PID $T \(lab-fdleak\)" >/dev/null
ok $? "D opens the Doors screen on the process shown"
check "it shows perf_event_paranoid as /proc/sys holds it" tui_wait_for "^  kernel.perf_event_paranoid +$p: "
tui_keys F1
check "F1 explains the Doors screen" tui_wait_for 'pscope help: Doors'
check "the help text is the doors one" tui_wait_for '^ +Doors screen'
tui_keys Escape
check "Esc leaves the help" tui_wait_for '^ Doors: what the kernel'

tui_keys p
check "p asks for a PID" tui_wait_for 'Probe PID \(empty: system only\):'
tui_keys Enter
check "an empty answer: the system only" tui_wait_for '^ Doors: what the kernel lets pscope do *[0-9]*%? *$'
tui_keys p "$T" Enter
check "the title names the probed process" tui_wait_for "^ Doors: what the kernel lets pscope do, and PID $T \(lab-fdleak\)"
tui_keys NPage
check "a page down shows the operations probed" tui_wait_for "^Operations on PID $T \(probed at "
check "root may read its /proc" tui_wait_for '^  read /proc +open$'
check "the target still runs, untraced" runs_on_soon $T

# Narrow: the lines rewrap under the width.
tmux -L "$TMUX_S" resize-window -t "$TMUX_S" -x 60 -y 30 2>/dev/null || tmux -L "$TMUX_S" resize-pane -t "$TMUX_S" -x 60
tui_keys g
wide=$(tui_screen | awk 'length($0) > 60' | wc -l)
ok "$([ "$wide" = 0 ]; echo $?)" "at 60 columns nothing is wider"
check "narrow: a value goes under its key" tui_wait_for '^      2: users may|^      [0-9-]+: '
check "narrow: the key alone on its line" tui_wait_for '^  kernel.perf_event_paranoid$'

# The process goes away: r says so, and falls back to the system.
kill -9 $T
wait $T 2>/dev/null
tui_keys r
check "r on a gone process says so" tui_wait_for "no process with PID $T"
check "and shows the system only" tui_wait_for '^ Doors: what the kernel lets pscope do *[0-9]*%? *$'

tui_keys Escape
check "Esc returns to the detail screen" tui_wait_for 'lab-fdleak'
tui_keys Escape
check "Esc again: the process list" tui_wait_for 'COMMAND'
tui_keys q
check "q quits" wait_until sh -c "! tmux -L $TMUX_S list-panes -t $TMUX_S -F '#{pane_current_command}' 2>/dev/null | grep -q pscope"

done_testing
