#!/bin/bash
# The flame graph view of the hot functions screen, driven through tmux at
# 80x24 and 200x50 on a target with a known two-branch profile (hotloop -w:
# loop calls cold_work 25% and hot_work 75%): both branches drawn, each
# as wide as its share (within 2 columns), distinct fill characters
# without colour (NO_COLOR), zoom into loop showing its two callees
# across the whole width and Esc back out, / reporting the share matched,
# Space freezing it; g on the function bar at 80 columns; and Hangul
# thread and function names (flame-ko)
# never cut through a character; and the Status pane's CPU% and RSS
# graphs of the last minute.
. "$top_srcdir/tests/lib.sh"

tmp=$(mktemp -d /tmp/pscope-flame.XXXXXX)
at_exit "rm -rf $tmp"
export PSCOPE_DATA="${PSCOPE_DATA:-$top_srcdir/data}"

# The hot functions of $TPID in a WxH terminal, then g.
open_flame() { # open_flame WxH
	tui_start "$1" "cd $tmp && NO_COLOR=1 $PSCOPE -p $TPID"
	tui_keys h
	tui_wait_for "Hot functions: PID $TPID " 50 >/dev/null || return 1
	tui_wait_for '^ +[0-9.]+ +[0-9.]+ +[0-9]+ +[^ ]' 100 >/dev/null || return 1
	tui_keys g
	tui_wait_for ' flame graph: all' 30 >/dev/null
}

# The screen's row holding both callees of loop, and the checks on it.
widths() { # widths W: cold_work at 0, hot_work where cold_work's share ends
	python3 -c '
import re, sys
w = int(sys.argv[1])
rows = [l for l in sys.stdin.read().split("\n") if l.startswith("cold_work") and "hot_work" in l]
assert rows, "no row with cold_work then hot_work"
row = rows[0]
hot_at = row.index("hot_work")
end = len(row.rstrip(" "))
c = re.match(r"cold_work ([0-9.]+)%", row)
h = re.search(r"hot_work ([0-9.]+)%", row)
assert c or h, "no share on either label"
if c:  # cold_work ends (hot_work starts) where its share ends
    assert abs(hot_at - float(c.group(1)) * w / 100) <= 2, ("hot_work starts at", hot_at, "cold share", c.group(1))
    assert 10 < float(c.group(1)) < 45, c.group(1)
if h:  # hot_work as wide as its share (with the blank that ends it)
    assert abs((end + 1 - hot_at) - float(h.group(1)) * w / 100) <= 2, ("hot_work width", end + 1 - hot_at, h.group(1))
assert end >= w - 3, ("hot_work ends at", end)
' "$1"
}

start_target hotloop -w
for size in 80x24 200x50; do
	W=${size%x*}
	open_flame "$size"
	ok $? "$size: g shows the flame graph of the hot functions"
	if [ "$W" = 80 ]; then
		check "80x24: the function bar holds every key, g with its label, within 80 columns" python3 -c '
import re, sys
bar = sys.argv[1].rstrip()
keys = [re.match(r"(F1|Enter|Spc|Esc|\+-|[a-zA-Z])", e).group(1) for e in bar.split()]
assert keys == ["F1", "Enter", "a", "Spc", "w", "s", "p", "g", "E", "Esc"], (bar, keys)
assert "gFlame" in bar.split() and len(bar) <= 80, bar' "$(tui_screen | tail -n 1)"
	fi
	for _ in $(seq 1 30); do
		tui_screen_settled | widths "$W" 2>/dev/null && break
		sleep 0.3
	done
	tui_screen_settled >"$tmp/screen"
	widths "$W" <"$tmp/screen" 2>&1 | sed 's/^/#   /'
	ok "${PIPESTATUS[0]}" "$size: cold_work and hot_work side by side, each as wide as its share" ||
		sed 's/^/#   /' "$tmp/screen"
	check "$size: without colour, native frames filled with '=' and the thread with '.'" sh -c \
		"tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -Eq '^loop [0-9.]+%=+ ?\$' &&
		 tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -Eq '^hotloop-$TPID [0-9.]+%\\.+ ?\$'"
	check "$size: the detail line names the frame under the cursor" sh -c \
		"tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -Eq '^ all  self 0 \\(0\\.0%\\)  total [0-9]+ \\(100\\.0%\\) samples'"
	# Down four times: the heaviest callee each time, from the root to
	# loop; Enter zooms into it.
	tui_keys Down Down Down Down
	where='hotloop'
	[ "$W" -ge 120 ] && where='hotloop  .*hotloop\.c:[0-9]+' # the file is past 80 columns
	tui_wait_for "^ loop  self 0 \\(0\\.0%\\)  total [0-9]+ \\(100\\.0%\\) samples  $where" >/dev/null
	ok $? "$size: Down follows the heaviest callees to loop (the detail line: self, total, module, file:line)"
	tui_keys Enter
	tui_wait_for ' flame graph: all .* loop' >/dev/null
	ok $? "$size: Enter zooms into loop (its path on top)"
	# The window rolls on: a screen where cold_work's share is too narrow
	# for its label may come by on a busy machine; the next ones do not.
	zoomed() {
		tui_screen_settled >"$tmp/zoomed"
		sed -n 5p "$tmp/zoomed" | grep -Eq '^loop 100\.0%=+ ?$' &&
			sed -n 6p "$tmp/zoomed" | grep -Eq '^cold_work [0-9.]+%=* +hot_work'
	}
	poll 30 zoomed
	ok $? "$size: zoomed, loop fills the width and its callees share it" || sed 's/^/#   /' "$tmp/zoomed"
	tui_keys Escape
	tui_wait_for ' flame graph: all *$' >/dev/null
	ok $? "$size: Esc zooms back out"
	# / cold_work: the matched share is cold_work's.
	tui_keys /
	tui_keys BSpace BSpace BSpace BSpace
	tui_keys -l cold_work
	tui_keys Enter
	tui_wait_for '"cold_work": matched [0-9.]+%' >/dev/null
	# The matched share is the sum of the cold_work frames, when each is
	# wide enough for its label (a screen with a narrow one may come by).
	searched() {
		tui_screen_settled >"$tmp/search"
		python3 -c '
import re, sys
t = open(sys.argv[1]).read()
m = float(re.search(r"\"cold_work\": matched ([0-9.]+)%", t).group(1))
frames = [float(x) for x in re.findall(r"cold_work ([0-9.]+)%", t)]
assert frames and abs(m - sum(frames)) <= 0.1 * len(frames) + 0.05, (m, frames)' "$tmp/search" 2>"$tmp/search.why"
	}
	poll 30 searched
	ok $? "$size: / cold_work reports the share of cold_work" || sed 's/^/#   /' "$tmp/search.why" "$tmp/search"
	tui_keys Space
	tui_wait_for 'FROZEN' >/dev/null
	a=$(tui_screen | sed -n "4,$(( ${size#*x} - 3 ))p")
	sleep 2.5
	b=$(tui_screen | sed -n "4,$(( ${size#*x} - 3 ))p")
	[ -n "$a" ] && [ "$a" = "$b" ]
	ok $? "$size: Space freezes the flame graph"
	tui_keys Space
	if [ "$W" = 200 ]; then
		# G: the window as an SVG, under the name offered.
		tui_keys G
		tui_wait_for "Write the flame graph \\(SVG\\) to: pscope-$TPID-10s\\.svg" >/dev/null
		ok $? "G offers pscope-PID-10s.svg"
		tui_keys Enter
		tui_wait_for "wrote the flame graph of window 10 s \\([0-9]+ samples\\) to pscope-$TPID-10s\\.svg" >/dev/null
		ok $? "G writes it and says so"
		check "the SVG written is well-formed and holds loop" sh -c \
			"xmllint --noout '$tmp/pscope-$TPID-10s.svg' && grep -q '<title>loop</title>' '$tmp/pscope-$TPID-10s.svg'"
	fi
	tui_keys g
	tui_wait_for '^ +[0-9.]+ +[0-9.]+ +[0-9]+ +[^ ]' >/dev/null
	ok $? "$size: g goes back to the table"
	tmux -L "$TMUX_S" kill-server 2>/dev/null
done
kill -9 "$TPID" 2>/dev/null

# ---- Hangul names: cut between characters only ----
if locale -a 2>/dev/null | grep -qi '^C\.utf-\?8$'; then
	export LANG=C.UTF-8 LC_ALL=C.UTF-8
fi
start_target flame-ko
open_flame 80x24
ok $? "flame-ko: the flame graph"
tui_wait_for '계산' 50 >/dev/null
ok $? "the Hangul function 계산함수 is drawn (cut to its frame)"
check "the Hangul thread name is drawn whole" sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q '^한글스레드-$TPID'"
tui_screen_settled >"$tmp/ko.txt"
check "no row is cut through a wide character: every row is exactly 80 columns" python3 -c '
import sys, unicodedata
for n, line in enumerate(open(sys.argv[1], encoding="utf-8").read().split("\n")[:24]):
    cols = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
    assert cols <= 80 and "\ufffd" not in line, (n, cols, line)
rows = [l for l in open(sys.argv[1], encoding="utf-8") if "계산" in l and "다른일" in l]
assert rows, "no row with both callees of 반복"
' "$tmp/ko.txt"
# ---- history: CPU% and RSS over the last minute in the Status pane ----
tmux -L "$TMUX_S" kill-server 2>/dev/null
start_target hotloop -w
tui_start 120x30 "cd $tmp && $PSCOPE -p $TPID"
tui_wait_for '^CPU, 1 min +[▁▂▃▄▅▆▇█ ]*[▁▂▃▄▅▆▇█]{3}[▁▂▃▄▅▆▇█ ]* +[0-9.]+%  \(max [0-9.]+%\)' 100 >/dev/null
ok $? "the Status pane graphs CPU% over the last minute (a busy target: three seconds of it)"
tui_wait_for '^RSS, 1 min +[▁▂▃▄▅▆▇█ ]+ [0-9.]+[KMG]  \(max [0-9.]+[KMG]\)' 30 >/dev/null
ok $? "and RSS"
done_testing
