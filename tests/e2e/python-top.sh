#!/bin/sh
# pscope top on a Python process (tests/targets/py-threads.py) under every
# interpreter found: the CPython sampler's ranking, lines and idle filter in
# --json, py-spy's raw folded format, --native and --python, and the hot
# screen's Python view with p (native) and i (idle) in tmux.
. "$top_srcdir/tests/lib.sh"

src=$top_srcdir/tests/targets/py-threads.py
root=$(pyenv root 2>/dev/null || echo /root/.pyenv)
tmp=$(mktemp -d)
at_exit "rm -rf $tmp"
line() { grep -n "LINE:$1" "$src" | cut -d: -f1; }

start_py() {
	rm -f "$tmp/out" # the last target's "ready" must not count for this one
	"$@" >"$tmp/out" 2>&1 &
	TPID=$!
	kill_at_exit $TPID
	wait_until grep -q ready "$tmp/out"
}

interp() { # interp LABEL PYTHON
	label=$1 py=$2
	if [ ! -x "$py" ]; then
		skip "$label: $py is not installed"
		return
	fi
	{ start_py "$py" "$src" && py_settled "$TPID"; } || { ok 1 "$label: the target started"; return; }
	"$PSCOPE" top "$TPID" --samples 100 --duration 120 --json --folded "$tmp/f" >"$tmp/j" 2>"$tmp/err"
	ok $? "$label: pscope top --json succeeds"
	check "$label: price_rules ranks first, lines exact, idle threads left out" \
		python3 "$top_srcdir/tests/python/check-top.py" "$tmp/j" "$src" busy
	bad=$(grep -cvE '^[^;]+ \([0-9]+\)(;[^;]+ \([^;]+:[0-9]+\))+ [0-9]+$' "$tmp/f")
	ok "$bad" "$label: every folded line is 'thread (tid);qualname (file:line);... count' ($bad not)"
	grep -qE "^hot-worker \([0-9]+\);.*;worker_hot \($src:$(line worker_hot)\);handle \($src:$(line handle)\);price_rules \($src:$(line price_rules)\) [0-9]+$" "$tmp/f"
	ok $? "$label: the hot thread's folded stack, outermost first, with its threading name"
	"$PSCOPE" top "$TPID" --samples 100 --duration 120 --idle --json >"$tmp/j" 2>"$tmp/err"
	check "$label --idle: every thread counted" python3 "$top_srcdir/tests/python/check-top.py" "$tmp/j" "$src" idle
	kill -9 "$TPID"
}

python_wanted 3.11d "Debian python3.11" && interp "Debian python3.11 (stripped, non-PIE)" /usr/bin/python3.11
for minor in 9 10 11 12 13; do
	python_wanted 3.$minor "pyenv 3.$minor" || continue
	py=$(ls -d "$root"/versions/3."$minor".*/bin/python3."$minor" 2>/dev/null | tail -1)
	interp "pyenv 3.$minor" "${py:-$root/versions/3.$minor/bin/python3.$minor}"
done

py=/usr/bin/python3.11
[ -x $py ] || py=$(ls -d "$root"/versions/3.1[0-3].*/bin/python3.1? 2>/dev/null | tail -1)
if [ -z "$py" ] || [ ! -x "$py" ]; then
	skip "no CPython 3.9+ here: --native, --freq and the hot screen not checked"
	done_testing
	exit 0
fi
{ start_py "$py" "$src" && py_settled "$TPID"; } || exit 1
P=$TPID
"$PSCOPE" top "$P" --samples 20 --duration 120 --native --json >"$tmp/j" 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit("python" in d or d["event"] == "python")' "$tmp/j"
ok $? "--native: perf samples a CPython process"
"$PSCOPE" top "$P" --samples 20 --duration 120 --freq 1000 --json >"$tmp/j" 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["freq"] != 1000)' "$tmp/j"
ok $? "--freq 1000: the Python sampler at 1000 Hz"
"$PSCOPE" top "$P" --duration 1 --freq 2000 >"$tmp/t" 2>&1
[ $? = 2 ] && grep -q "1 to 1000 Hz" "$tmp/t"
ok $? "--freq 2000 on CPython: a usage error naming the Python range"
start_target hotloop || exit 1
"$PSCOPE" top "$TPID" --duration 1 --python >"$tmp/t" 2>&1
[ $? = 1 ] && grep -q "not a CPython process" "$tmp/t"
ok $? "--python on a C program: 'not a CPython process', exit 1"
sed 's/^/#   /' "$tmp/t" | head -3

command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
export PSCOPE_DATA
tui_start 150x30 "$PSCOPE -p $P"
check "detail screen up" tui_wait_for "PID $P"
tui_keys h
check "h: the Python view, no perf" tui_wait_for "CPython 3\.[0-9.]+ frames read from its memory \(no perf\)"
check "price_rules at the top, with file:line" tui_wait_for "^ +(9[5-9]|100)\.[0-9] +[0-9.]+ +[0-9]+ +price_rules +py-threads\.py +py-threads\.py:$(line price_rules)" 50
check "idle threads left out by default" tui_wait_for "idle threads left out \(i\)"
tui_keys i
check "i: idle threads counted" tui_wait_for "idle threads counted \(i\)"
check "i: the sleeping thread's function appears" tui_wait_for " nap +py-threads\.py" 50
tui_keys p
check "p: the native view (perf)" tui_wait_for "event (cpu-clock|cycles|task-clock)" 50
tui_keys p
check "p again: back to Python" tui_wait_for "CPython 3\.[0-9.]+ frames read" 50
# + and - step through the Python sampler's rates (100 -> 200 -> 100 Hz),
# not the perf ones.
tui_keys +
check "+ in the Python view: 200 Hz" tui_wait_for "sampling at 200 Hz from the next snapshot"
tui_keys -
check "- in the Python view: back to 100 Hz" tui_wait_for "sampling at 100 Hz from the next snapshot"
tui_keys Escape
tui_keys q
done_testing
