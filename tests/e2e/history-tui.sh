#!/bin/bash
# History graphs drawn from what the sources keep: the CPU_HIST column of
# the process list (added in F2 setup), a glyph a tick whose newest is the
# CPU% beside it; the meters as graphs (F2: Meter style) and back to bars,
# the style kept in pscoperc; the Threads pane's CPU_HIST of each thread.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
export PSCOPE_DATA="${PSCOPE_DATA:-$top_srcdir/data}"

tmp=$(mktemp -d /tmp/pscope-hist.XXXXXX)
chmod 755 "$tmp"
at_exit "rm -rf $tmp"
N=hst$$ # this run's own name
cp "$TARGETS/hotloop" "$tmp/$N"
"$tmp/$N" -w >"$tmp/out" 2>&1 &
TPID=$!
kill_at_exit $TPID
wait_until grep -q ready "$tmp/out"

search() { # search TEXT: '/', clear the prompt, type, Enter
	tui_keys /
	tmux -L "$TMUX_S" send-keys -t "$TMUX_S" C-u
	tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -l "$1"
	tui_keys Enter
}

# The row of PID on the screen: its CPU% and CPU_HIST cells agree (the
# newest glyph is the CPU% beside it, on a scale of one CPU), with at least
# MIN glyphs; MAXLVL: no glyph above that level (0: the lowest only).
graph_ok() { # graph_ok PID MIN [MAXLVL]
	tui_screen | python3 -c '
import re, sys
pid, least = sys.argv[1], int(sys.argv[2])
maxlvl = int(sys.argv[3]) if len(sys.argv) > 3 else 7
glyphs = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"
for line in sys.stdin.read().split("\n"):
    m = re.match(r"^ *" + pid + r" +\S+ +([0-9.]+) ([" + glyphs + r" ]{12}) ", line)
    if not m:
        continue
    cpu, g = float(m.group(1)), m.group(2).rstrip()
    shown = g.lstrip()
    lvl = min(7, max(0, int(cpu / 100 * 7.999)))
    # CPU% is printed to one decimal: a value at a level boundary may round across it
    ok = glyphs.index(shown[-1]) in (lvl, min(7, int((cpu + 0.05) / 100 * 7.999)), max(0, int((cpu - 0.05) / 100 * 7.999)))
    sys.exit(0 if len(shown) >= least and " " not in shown and ok and max(glyphs.index(c) for c in shown) <= maxlvl else 1)
sys.exit(1)' "$@"
}

mkdir -p "$XDG_CONFIG_HOME/pscope"
printf 'columns=pid user cpu command\n' >"$XDG_CONFIG_HOME/pscope/pscoperc"
TUI_KEEP_SETTINGS=1 tui_start 140x40 "env NO_COLOR=1 $PSCOPE -d 5; echo EXIT=\$?; sleep 60"
check "list up" tui_wait_for 'Load average'
tui_keys F2
check "F2: the setup screen" tui_wait_for 'Setup '
search cpu_hist
check "/cpu_hist: the CPU_HIST column, hidden" tui_marked '\[ \] CPU_HIST'
tui_keys Space
check "Space shows it" tui_marked '\[x\] CPU_HIST'
tui_keys Escape
check "the list has the CPU_HIST column" tui_wait_for '^ +PID USER +CPU%.? CPU_HIST +COMMAND'
# Only the busy target.
tui_keys F4
tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -l "$N"
tui_keys Enter
check "the busy target's row: CPU_HIST grows a glyph a tick, the newest its CPU%" \
	wait_until graph_ok "$TPID" 4
tui_screen | grep -E "^ *$TPID " | sed 's/^/#   /'
tui_wait_change
check "and still after the next tick" wait_until graph_ok "$TPID" 5
tui_keys F4
tmux -L "$TMUX_S" send-keys -t "$TMUX_S" C-u
tui_keys Escape
# The meters: bars of '|', then graphs of block glyphs.
check "the CPU meters are bars" tui_wait_for '^ +0\[\|*[ |]*[0-9.]+%\]'
tui_keys F2
search 'meter style'
check "F2: Meter style: bars" tui_marked 'bars'
tui_keys Space
check "Space: graphs" tui_marked 'graphs'
tui_keys Escape
check "the CPU meter is a graph of the last ticks" tui_wait_for '^ +0\[ *[▁▂▃▄▅▆▇█]{3,} [0-9.]+%\]'
check "the memory meter too" tui_wait_for '^Mem\[ *[▁▂▃▄▅▆▇█]{3,} [0-9.]+[KMGT]?B?/[0-9.]+[KMGT]?B?\]'
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
check "pscoperc keeps the style and the column" sh -c \
	"grep -qx 'meter_style=graph' '$XDG_CONFIG_HOME/pscope/pscoperc' && grep -q '^columns=.*cpu_hist' '$XDG_CONFIG_HOME/pscope/pscoperc'"
tmux -L "$TMUX_S" kill-server 2>/dev/null

# Started again with it: graphs at once; F2 back to bars.
TUI_KEEP_SETTINGS=1 tui_start 140x40 "env NO_COLOR=1 $PSCOPE -d 5; echo EXIT=\$?; sleep 60"
check "restarted: graphs" tui_wait_for '^ +0\[ *[▁▂▃▄▅▆▇█]+ [0-9.]+%\]'
tui_keys F2
search 'meter style'
tui_keys Space
check "F2: back to bars" tui_marked 'bars'
tui_keys Escape
check "the CPU meters are bars again" tui_wait_for '^ +0\[\|*[ |]*[0-9.]+%\]'
tui_keys q
tmux -L "$TMUX_S" kill-server 2>/dev/null

# The Threads pane: each thread's CPU_HIST, the newest its CPU%.
threads_ok() { # threads_ok TID MIN
	tui_screen | python3 -c '
import re, sys
tid, least = sys.argv[1], int(sys.argv[2])
glyphs = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"
for line in sys.stdin.read().split("\n"):
    m = re.match(r"^ *" + tid + r" +\S+ +[A-Z] +([0-9.]+) ([" + glyphs + r" ]{10}) ", line)
    if not m:
        continue
    cpu, shown = float(m.group(1)), m.group(2).strip()
    lv = {min(7, max(0, int((cpu + d) / 100 * 7.999))) for d in (-0.05, 0, 0.05)}
    sys.exit(0 if len(shown) >= least and " " not in shown and glyphs.index(shown[-1]) in lv else 1)
sys.exit(1)' "$@"
}
tui_start 160x30 "env NO_COLOR=1 $PSCOPE -d 5 -p $TPID"
tui_keys 5
check "Threads pane: the CPU_HIST column" tui_wait_for '^ +TID.? +NAME +S +CPU% CPU_HIST +CPU '
check "the thread's CPU_HIST grows a glyph a read, the newest its CPU%" wait_until threads_ok "$TPID" 4
tui_screen | grep -E "^ *$TPID " | sed 's/^/#   /'
done_testing
