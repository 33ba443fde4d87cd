#!/bin/sh
# The hot screen of a CPython process at 80 columns: the SOURCE column does
# not fit, so each name carries its line (price_rules:LINE) and two hot
# lines of one function stay apart; l visibly hides and shows the lines.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
export PSCOPE_DATA
export LC_ALL=C.UTF-8

src=$_tlinks/py-threads.py
cp "$top_srcdir/tests/targets/py-threads.py" "$src" || exit 1
py=/usr/bin/python3.11
[ -x $py ] || py=$(ls -d "$(pyenv root 2>/dev/null || echo /root/.pyenv)"/versions/3.1[0-3].*/bin/python3.1? 2>/dev/null | tail -1)
if [ -z "$py" ] || [ ! -x "$py" ]; then
	skip "no CPython 3.9+ on this machine (neither /usr/bin/python3.11 nor a pyenv build)"
	done_testing
	exit 0
fi
out=$(mktemp)
"$py" "$src" >"$out" 2>&1 &
P=$!
kill_at_exit $P
at_exit "rm -f $out"
wait_until grep -q ready "$out"
py_settled "$P"
line=$(grep -n 'LINE:price_rules' "$src" | cut -d: -f1)

tui_start 80x24 "$PSCOPE -p $P"
tui_wait_for "PID $P" >/dev/null
tui_keys h
check "80x24: the hot row's name carries its line" tui_wait_for "^ +[0-9.]+ +[0-9.]+ +[0-9]+ +price_rules:$line +py-threads\.py" 150
check "80x24: no SOURCE column" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q SOURCE"
tui_keys l
check "l: says what it did" tui_wait_for "source lines hidden"
check "l: the name alone" tui_wait_for "^ +[0-9.]+ +[0-9.]+ +[0-9]+ +price_rules +py-threads\.py"
check "l: no line after any name" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'price_rules:'"
tui_keys l
check "l again: the line is back, and why it is not a column" tui_wait_for "name:LINE.*100 columns"
check "l again: price_rules:$line" tui_wait_for "price_rules:$line +py-threads\.py"
tui_keys q

tui_start 120x30 "$PSCOPE -p $P"
tui_wait_for "PID $P" >/dev/null
tui_keys h
check "120 columns: the SOURCE column holds file:line, the name stays bare" \
	tui_wait_for "^ +[0-9.]+ +[0-9.]+ +[0-9]+ +price_rules +py-threads\.py +py-threads\.py:$line" 150
tui_keys q
done_testing
