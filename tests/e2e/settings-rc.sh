#!/bin/bash
# pscoperc round trip: the sort key and direction, hidden kernel and
# userland threads, the refresh delay, the header meters, the colour scheme
# and the order of the detail panes, set in F2, are written on quit and
# still set when pscope starts again (the tree view and the columns:
# tests/e2e/list-keys.sh).
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }
rc=$XDG_CONFIG_HOME/pscope/pscoperc
tmp=$(mktemp -d /tmp/pscope-settings-rc.XXXXXX)
at_exit "rm -rf $tmp"

start_target family 0 ps-rc-$$ || exit 1
P=$TPID
item() { # item NAME VALUE: the F2 line of that setting shows that value
	tui_wait_for "^ $1 +$2( |\$)"
}
down() { tui_keys -N "$1" Down; }

tui_start 140x50 "env NO_COLOR=1 $PSCOPE; echo EXIT=\$?; sleep 60"
check "list up (defaults)" tui_wait_for 'Load average'
check "defaults: sorted by CPU%, descending" tui_wait_for ' CPU%▽ '
tui_keys F2
check "F2: the settings" item 'Sort by' 'CPU%'
tui_keys Home Right
check "F2 Sort by: MEM%" item 'Sort by' 'MEM%'
down 1; tui_keys Space
check "F2 Sort direction: ascending" item 'Sort direction' ascending
down 2; tui_keys Space
check "F2 Hide kernel threads: off" item 'Hide kernel threads' off
down 1; tui_keys Space
check "F2 Hide userland threads: off" item 'Hide userland threads' off
down 1; tui_keys Right
check "F2 Refresh delay: 2.0 s" item 'Refresh delay' '2\.0 s'
down 1; tui_keys Right
check "F2 Colour scheme: monochrome" item 'Colour scheme' monochrome
down 1
check "F2 Meter style: bars" item 'Meter style' bars
down 3; tui_keys Space # the Swap bar
check "F2 Header meters: no Swap bar" tui_wait_for '^ +\[ \] Swap bar'
down 5; tui_keys F7 # FDs first
check "F2 Detail panes: FDs first" sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -A1 'Detail panes' | tr -s ' ' | tr '\n' '|' | grep -q '^ Detail panes (order) 1 FDs| 2 Status|'"
tui_keys Escape
check "the list: sorted by MEM%, ascending" tui_wait_for ' MEM%△ '
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
tmux -L "$TMUX_S" kill-server 2>/dev/null
check "pscoperc: sort_key=mem" grep -qx 'sort_key=mem' "$rc"
check "pscoperc: sort_direction=asc" grep -qx 'sort_direction=asc' "$rc"
check "pscoperc: hide_kernel_threads=0" grep -qx 'hide_kernel_threads=0' "$rc"
check "pscoperc: hide_userland_threads=0" grep -qx 'hide_userland_threads=0' "$rc"
check "pscoperc: delay=20" grep -qx 'delay=20' "$rc"
check "pscoperc: header_meters without swap" grep -qx 'header_meters=cpus memory tasks load uptime' "$rc"
check "pscoperc: color_scheme=monochrome" grep -qx 'color_scheme=monochrome' "$rc"
check "pscoperc: meter_style=bar" grep -qx 'meter_style=bar' "$rc"
check "pscoperc: pane_order=fd status maps mem threads time" grep -qx 'pane_order=fd status maps mem threads time' "$rc"
cp "$rc" "$tmp/first"

# Again, the file kept: everything as it was set.
TUI_KEEP_SETTINGS=1 tui_start 140x50 "env NO_COLOR=1 $PSCOPE; echo EXIT=\$?; sleep 60"
check "restart: list up" tui_wait_for 'Load average'
check "restart: sorted by MEM%, ascending" tui_wait_for ' MEM%△ '
check "restart: userland and kernel threads shown" tui_wait_for '\[threads\] \[kernel threads\]'
check "restart: no Swp meter" wait_until sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q '^ *Mem\\[' && ! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'Swp\\['"
tui_keys F2
check "restart F2: Sort by MEM%" item 'Sort by' 'MEM%'
check "restart F2: ascending" item 'Sort direction' ascending
check "restart F2: Hide kernel threads off" item 'Hide kernel threads' off
check "restart F2: Hide userland threads off" item 'Hide userland threads' off
check "restart F2: Refresh delay 2.0 s" item 'Refresh delay' '2\.0 s'
check "restart F2: Colour scheme monochrome" item 'Colour scheme' monochrome
check "restart F2: Meter style bars" item 'Meter style' bars
check "restart F2: no Swap bar" tui_wait_for '^ +\[ \] Swap bar'
tui_keys Escape
tui_keys '\'
tui_keys -l "ps-rc-$$"
tui_keys Enter
check "restart: the target listed" tui_wait_for "^ +$P "
tui_keys Enter
check "restart: the detail screen's panes in the order set (FDs first)" tui_wait_for '^ 1 FDs \| 2 Status \| 3 Maps'
tui_keys Escape
tui_keys q
check "restart: q: exit 0" tui_wait_for '^EXIT=0'
check "the settings written again unchanged" cmp -s "$tmp/first" "$rc"
done_testing
