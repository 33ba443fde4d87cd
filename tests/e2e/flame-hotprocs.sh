#!/bin/bash
# The flame graph of every process (A on the process list, then g), at
# 80x24 and 200x50, whatever else runs on the machine: the root and a frame
# per process under it; / finding the target's process frame and reporting
# its share; Enter zooming into it (its path on top, the process across
# the whole width, under it the target's known two branches: loop calls
# cold_work 25% and hot_work 75%, each as wide as its share of the
# process); Esc back out; g back to the tables.
. "$top_srcdir/tests/lib.sh"

tmp=$(mktemp -d /tmp/pscope-mflame.XXXXXX)
chmod 755 "$tmp"
at_exit "rm -rf $tmp"
N=mfl$$ # this run's own name (the suite may run in other checkouts at once)
cp "$TARGETS/hotloop" "$tmp/$N"
"$tmp/$N" -w >"$tmp/out" 2>&1 &
TPID=$!
kill_at_exit $TPID
wait_until grep -q ready "$tmp/out"
export PSCOPE_DATA="${PSCOPE_DATA:-$top_srcdir/data}"

# The zoomed screen: the process frame across the width, then a row with
# cold_work and hot_work, each as wide as its share of the process.
zoomed() { # zoomed W
	python3 -c '
import re, sys
w, name = int(sys.argv[1]), sys.argv[2]
lines = sys.stdin.read().split("\n")
top = [l for l in lines if l.startswith(name + " ")]
assert top, "no row starts with the process frame"
m = re.match(re.escape(name) + r" ([0-9.]+)%", top[0])
assert m and len(top[0].rstrip()) >= w - 1, ("the process frame does not fill the width", top[0])
proc = float(m.group(1))
rows = [l for l in lines if l.startswith("cold_work") and "hot_work" in l]
assert rows, "no row with cold_work then hot_work"
row = rows[0]
hot_at = row.index("hot_work")
c = re.match(r"cold_work ([0-9.]+)%", row)
assert c, row
# The labels show shares of everything to one decimal: allow that rounding.
slack = 2 + 0.05 / max(proc, 0.1) * w
want = float(c.group(1)) / proc * w
assert abs(hot_at - want) <= slack, ("hot_work starts at", hot_at, "cold_work share", c.group(1), "of", proc)
assert 0.1 < hot_at / w < 0.45, ("cold_work is not about a quarter", hot_at, w)
assert len(row.rstrip(" ")) >= w - 3, ("hot_work does not reach the right edge", row)
' "$1" "$N-$TPID"
}

for size in 80x24 200x50; do
	W=${size%x*}
	tui_start "$size" "cd $tmp && NO_COLOR=1 $PSCOPE"
	tui_keys A
	tui_wait_for "Hot processes: every process" 50 >/dev/null
	tui_wait_for "^SHARE%v? +SAMPLES" 50 >/dev/null
	tui_keys g
	tui_wait_for ' flame graph: all *$' 50 >/dev/null
	ok $? "$size: g on the Hot processes screen shows the flame graph of every process"
	tui_wait_for '^all 100\.0%\.' 50 >/dev/null
	ok $? "$size: its root frame fills the width"
	# The target has run a while: its process frame has samples.
	wait_cpu "$TPID" 300
	tui_keys /
	tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -N 40 BSpace
	tui_keys -l "$N-$TPID"
	tui_keys Enter
	tui_wait_for "\"$N-$TPID\": matched [0-9.]+% \\([0-9]+ of [0-9]+ samples\\)" 50 >/dev/null
	ok $? "$size: / finds the target's process frame and reports its share"
	check "$size: the detail line names that frame" tui_wait_for "^ $N-$TPID  self 0 \\(0\\.0%\\)  total [0-9]+" 20
	tui_keys Enter
	tui_wait_for " flame graph: all › $N-$TPID " 30 >/dev/null
	ok $? "$size: Enter zooms into the process (its path on top)"
	ok=1
	for _ in $(seq 1 30); do
		tui_screen_settled | zoomed "$W" 2>/dev/null && { ok=0; break; }
		sleep 0.3
	done
	tui_screen_settled >"$tmp/screen"
	[ $ok = 0 ] || zoomed "$W" <"$tmp/screen" 2>&1 | sed 's/^/#   /'
	ok $ok "$size: zoomed, the process fills the width, cold_work and hot_work each as wide as their share" ||
		sed 's/^/#   /' "$tmp/screen"
	tui_keys Escape
	tui_wait_for ' flame graph: all *$' 30 >/dev/null
	ok $? "$size: Esc zooms back out"
	tui_keys g
	tui_wait_for "^SHARE%v? +SAMPLES" 30 >/dev/null
	ok $? "$size: g goes back to the tables"
	tmux -L "$TMUX_S" kill-server 2>/dev/null
done
done_testing
