#!/bin/bash
# The annotated lines in the TUI (a on the hot functions screen): on
# hotline (line_work() has a HOT loop line, a WARM one an eighth as long),
# the function's source lines with each line's share, the hottest marked
# and selected, Tab / Shift-Tab between sampled lines, live in the
# screen's window (w) and frozen by Space, the shares within 5 points of
# perf annotate on the same run; Esc back to the table; a Python function
# by the line numbers of its sampled frames.
. "$top_srcdir/tests/lib.sh"

tmp=$(mktemp -d /tmp/pscope-annot.XXXXXX)
at_exit "rm -rf $tmp"
src="$top_srcdir/tests/targets/hotline.c"
hot=$(grep -n '/\* HOT \*/' "$src" | cut -d: -f1)
warm=$(grep -n '/\* WARM \*/' "$src" | cut -d: -f1)

start_target hotline
perf_ok=
if command -v perf >/dev/null; then
	perf record -q -e cpu-clock -F 499 -p "$TPID" -o "$tmp/perf.data" >"$tmp/perf.out" 2>&1 &
	PERF=$!
	kill_at_exit "$PERF"
	wait_until test -s "$tmp/perf.data" && perf_ok=1
fi

tui_start 220x40 "NO_COLOR=1 $PSCOPE -p $TPID"
tui_wait_for 'hotline' >/dev/null
tui_keys h
check "h: line_work in the hot table" tui_wait_for ' line_work +hotline +hotline\.c:'
tui_keys / line_work Enter
tui_keys a
title="^ Annotate line_work \(hotline\): [0-9]+ samples in its own code"
check "a: the annotated lines of line_work, in the screen's window" \
	tui_wait_for "$title in the last 10 s; hottest hotline\.c:$hot \([0-9.]+%\)"
check "the header" tui_wait_for '^  SHARE%  SAMPLES  LINE +SOURCE$'
check "the hot line: marked, its share and its source text" \
	tui_wait_for "^> +[0-9.]+ +[0-9]+  hotline\.c:$hot +for \(.*/\* HOT \*/$"
check "the hot line is selected first" tui_marked "hotline\.c:$hot +for"
check "the warm line: its share, unmarked" tui_wait_for "^  +[0-9.]+ +[0-9]+  hotline\.c:$warm +for \(.*/\* WARM \*/$"
check "a line without samples between: its text, no share" \
	tui_wait_for "^ +hotline\.c:$((hot - 1)) +sink = a;$"
check "one line marked" test "$(tui_screen | grep -c '^>')" = 1
tui_keys Tab
check "Tab: the next sampled line (the warm one)" tui_marked "hotline\.c:$warm +for"
bold_hot() { tmux -L "$TMUX_S" capture-pane -e -p -t "$TMUX_S" | grep "hotline\.c:$hot " | grep -q $'\e\[1m'; }
check "the hottest line stays highlighted (bold) when not selected" wait_until bold_hot
tui_keys BTab
check "Shift-Tab: back to the hot line" tui_marked "hotline\.c:$hot +for"
tui_keys Tab Tab
check "Tab wraps round to the hot line" tui_marked "hotline\.c:$hot +for"

# Live: the counts grow with each snapshot; w changes the window.
n1=$(tui_screen | sed -nE "s/$title.*/\0/p" | sed -nE 's/.*: ([0-9]+) samples in its.*/\1/p')
tui_keys w w
check "w: the window all since sampling started" tui_wait_for "$title since sampling started; hottest hotline\.c:$hot"
# 499 Hz, and enough samples for the comparison with perf.
tui_keys + +
samples_now() { tui_screen | sed -nE 's/^ Annotate line_work \(hotline\): ([0-9]+) samples.*/\1/p'; }
enough() { n=$(samples_now); [ "${n:-0}" -ge 900 ]; }
check "live: the counts grow past 900 samples (were $n1)" wait_until -t 120 enough
tui_keys Space
check "Space freezes the view" tui_wait_for '\[FROZEN\]'
[ -n "$perf_ok" ] && kill -INT "$PERF" && wait "$PERF"
frozen=$(tui_screen_settled | grep -E "^> |^  +[0-9.]+ +[0-9]+  hotline")
sleep 1.5 # two snapshots come meanwhile: the frozen lines must not change
ok "$([ "$frozen" = "$(tui_screen_settled | grep -E "^> |^  +[0-9.]+ +[0-9]+  hotline")" ]; echo $?)" "frozen: the lines stay"
tui_screen | sed 's/^/#   /' | head -12
share() { printf '%s\n' "$frozen" | sed -nE "s/^.? +([0-9.]+) +[0-9]+  hotline\.c:$1 .*/\1/p"; }
hs=$(share "$hot")
ws=$(share "$warm")
check "the hot line has about 8/9 of the samples (got $hs)" python3 -c "assert 75 <= $hs <= 97"
check "the warm line about 1/9 (got $ws)" python3 -c "assert 3 <= $ws <= 25"
check "shares add up to 100" python3 -c "
import re, sys
t = sum(float(m.group(1)) for m in re.finditer(r'^.? +([0-9.]+) +\d+  ', sys.argv[1], re.M))
assert abs(t - 100) < 0.1, t
" "$frozen"
if [ -n "$perf_ok" ]; then
	perf annotate --stdio -l -i "$tmp/perf.data" line_work >"$tmp/perf.txt" 2>"$tmp/perf.err"
	ps=$(sed -nE "s/^ +([0-9.]+) +hotline\.c:$hot\$/\1/p" "$tmp/perf.txt" | head -1)
	check "perf annotate names the hot line (got '$ps')" test -n "$ps"
	check "hot line within 5 points of perf annotate on the same run ($hs vs $ps)" \
		python3 -c "assert abs($hs - ${ps:-1000}) <= 5"
else
	skip "perf is not installed (Debian: linux-perf): no comparison with perf annotate"
	skip "perf is not installed: no comparison with perf annotate"
fi
tui_keys Space Escape
check "Esc: the table of functions again" tui_wait_for ' line_work +hotline +hotline\.c:'
check "Esc left the sampling on (the hot screen stays)" tui_wait_for '^ Hot functions: PID'
tui_keys Escape q

# A Python function: its lines from the sampled frames.
py=/usr/bin/python3.11
[ -x $py ] || py=$(ls -d "$(pyenv root 2>/dev/null || echo /root/.pyenv)"/versions/3.1[0-3].*/bin/python3.1? 2>/dev/null | tail -1)
if [ -n "$py" ] && [ -x "$py" ]; then
	pysrc=$_tlinks/py-threads.py
	cp "$top_srcdir/tests/targets/py-threads.py" "$pysrc"
	"$py" "$pysrc" >"$tmp/py.out" 2>&1 &
	P=$!
	kill_at_exit $P
	wait_until grep -q ready "$tmp/py.out"
	py_settled "$P"
	pl=$(grep -n 'LINE:price_rules' "$pysrc" | cut -d: -f1)
	tui_start 200x40 "$PSCOPE -p $P"
	tui_wait_for "PID $P" >/dev/null
	tui_keys h
	check "Python: price_rules in the hot table" tui_wait_for " price_rules +py-threads\.py +py-threads\.py:$pl" 50
	tui_keys / price_rules Enter a
	check "Python: a annotates price_rules" tui_wait_for "^ Annotate price_rules \(py-threads\.py\): [0-9]+ samples in its own code"
	check "Python: the lines of the sampled frames" tui_wait_for '^ Python: the lines of the sampled frames'
	check "Python: its line with all of its samples and its text" \
		tui_wait_for "^> 100\.00 +[0-9]+  py-threads\.py:$pl +while True: t = \(t \+ 1\) % 1000003  # LINE:price_rules$"
	tui_keys Escape Escape q
else
	skip "no CPython 3.9+ here: the Python annotation is not checked"
fi
check "the targets still run, untraced" runs_on_soon $TPID
done_testing
