#!/bin/sh
# The Stacks screen on a CPython process (tests/targets/py-threads.py):
# Python frames with file:line, the GIL and idle marks, `v` cycles the
# mixed, Python and native views.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
export PSCOPE_DATA

# Run from a copy under /tmp: the frames show the script's path, which must
# not depend on the checkout's (a long one pushed file:line off the screen).
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

tui_start 160x50 "$PSCOPE -p $P"
check "detail screen up" tui_wait_for "PID $P"
tui_keys s
check "s: CPython named in the title, mixed view" tui_wait_for "Stacks of $P .*CPython 3\.[0-9.]+, mixed view"
check "the hot group's chain is its Python functions" tui_wait_for "price_rules <- handle <- worker_hot"
tui_keys e
check "Python frames with file:line" tui_wait_for "py +price_rules +\(.*py-threads\.py:$line\)"
check "threading names shown" tui_wait_for "\[MainThread\]"
check "the GIL holder is marked" tui_wait_for "TID [0-9]+ .* GIL"
check "idle threads are marked" tui_wait_for "idle: time.sleep"
tui_keys v
check "v: Python view" tui_wait_for "CPython 3\.[0-9.]+, Python view"
check "Python view: no native frames" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q '(libc.so.6)\|_PyEval_EvalFrameDefault'"
tui_keys v
check "v: native view" tui_wait_for "CPython 3\.[0-9.]+, native view"
check "native view: the eval frames are back" tui_wait_for "_PyEval_EvalFrameDefault"
check "native view: no Python frames" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'py  *price_rules'"
tui_keys q
done_testing
