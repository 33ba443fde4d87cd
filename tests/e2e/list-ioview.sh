#!/bin/bash
# Tab in the process list: the I/O view (htop's I/O tab) and back. Its
# columns (IO priority, IO_RATE, the read and write rates, the bytes read
# and written from 100 columns), the header saying which view is shown,
# its own sort (IO_RATE first; the main view's comes back with it), the
# selection kept on its process. `pscope list` has the same columns.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/pscope-ioview.XXXXXX")
at_exit "rm -rf $tmp"

# A writer at the idle I/O class, its writes reaching the disk (dsync):
# IO "id", bytes written growing. ($tmp is not a tmpfs: /proc/PID/io's
# write_bytes counts block I/O.)
ionice -c 3 dd if=/dev/zero of="$tmp/f" bs=4k count=1000000 oflag=dsync status=none &
W=$!
kill_at_exit "$W"
check "the writer's write_bytes grow" wait_until sh -c "awk '/^write_bytes/ { exit !(\$2 > 0) }' /proc/$W/io"

# --- pscope list: the columns, text and JSON ---
"$PSCOPE" list --interval 0.3 -o pid,io_priority,io_rate,io_rbytes,io_wbytes,command >"$tmp/l.txt"
check "list -o: the titles" grep -qE '^ +PID IO +IO_RATE IO_RBYTES IO_WBYTES COMMAND' "$tmp/l.txt"
check "list -o: the writer's IO is id (the idle class)" grep -qE "^ *$W id " "$tmp/l.txt"
"$PSCOPE" list --interval 0.3 -o pid,io_priority,io_rate,io_wbytes --json >"$tmp/l.json"
check "list --json: io_priority, io_bps and io_write_bytes of the writer" python3 - "$tmp/l.json" "$W" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = [p for p in d['processes'] if p['pid'] == int(sys.argv[2])][0]
assert p['io_priority'] == 'id', p
assert p['io_write_bytes'] > 0 and p['io_bps'] >= 0, p
one = [p for p in d['processes'] if p['pid'] == 1][0]
assert one['io_priority'][0] in 'BR' or one['io_priority'] == 'id', one
EOF

command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }

# --- the screen, 200 columns: every I/O column ---
tui_start 200x30 "env NO_COLOR=1 $PSCOPE -s pid"
check "the main columns first" tui_wait_for '^ +PID△ USER +PRI +NI +VIRT +RES +SHR S +CPU% +MEM% +TIME\+ +COMMAND'
tui_keys $(echo "$W" | sed 's/./& /g')
check "digits: the writer selected" tui_marked "^ *$W "
tui_keys Tab
check "Tab: the I/O view's titles, sorted by IO_RATE" \
	tui_wait_for '^ +PID USER +IO +IO_RATE▽ ?IO_READ_RATE IO_WRITE_RATE IO_RBYTES IO_WBYTES COMMAND'
check "Tab: the header says which view" tui_wait_for '\[I/O view: Tab back\]'
check "Tab: the main columns are gone" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -qE 'PRI +NI +VIRT'"
check "Tab: the selection stays on the writer" tui_marked "^ *$W "
check "the writer's row: IO id, bytes written" tui_wait_for "^ *$W root +id +[0-9.]+[KMG]? +[0-9.]+[KMG]? +[0-9.]+[KMG]? +[0-9.]+[KMG]? +[0-9.]+[KMG] +dd "
# A sort of its own: PID in the I/O view (N), kept across Tab Tab.
tui_keys N
check "N in the I/O view: sorted by PID" tui_wait_for '^ +PID△ USER +IO +IO_RATE '
tui_keys Tab
check "Tab again: the main columns back, with their sort" \
	tui_wait_for '^ +PID△ USER +PRI +NI +VIRT +RES +SHR S +CPU% +MEM% +TIME\+ +COMMAND'
check "Tab again: the I/O note is gone" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'I/O view'"
check "Tab again: the selection still on the writer" tui_marked "^ *$W "
tui_keys P
check "P: the main view by CPU%" tui_wait_for '^ +PID USER .* CPU%▽ '
tui_keys Tab
check "Tab: the I/O view kept its own sort (PID)" tui_wait_for '^ +PID△ USER +IO +IO_RATE '
tui_keys Tab
check "Tab: the main view kept CPU%" tui_wait_for '^ +PID USER .* CPU%▽ '
tui_keys Tab
tui_wait_for '\[I/O view' >/dev/null
tui_keys q
check "q in the I/O view: pscope quit" wait_until sh -c "! tmux -L $TMUX_S has-session -t $TMUX_S 2>/dev/null"
check "the main view's sort is what pscoperc keeps" grep -qx 'sort_key=cpu' "$XDG_CONFIG_HOME/pscope/pscoperc"

# --- 80 columns: the rates, COMMAND still shown ---
tui_start 80x24 "env NO_COLOR=1 $PSCOPE"
tui_keys Tab
check "80 columns: IO, the three rates and COMMAND" \
	tui_wait_for '^ +PID USER +IO +IO_RATE▽ ?IO_READ_RATE IO_WRITE_RATE COMMAND$'
tui_keys Tab
check "80 columns, Tab again: the main columns" tui_wait_for '^ +PID USER +PRI +NI .*CPU%▽'

done_testing
