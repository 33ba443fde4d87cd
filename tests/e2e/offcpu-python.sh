#!/bin/sh
# pscope top PID --off-cpu on a Python process (tests/targets/py-offcpu.py)
# under every interpreter the Python tests use: the blocks' stacks carry
# the Python frames read while the thread was off CPU -- time.sleep under
# handle (py-offcpu.py:LINE) under serve, the socket read under
# handle_read woken by the "writer" thread from write_all -- where the
# interpreter's eval loop is in the native stack; the 20 ms sleeps
# weighed within 10 %; the folded lines; the text report's count.
. "$top_srcdir/tests/lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "not root: the off-CPU tracer needs CAP_PERFMON (tests/e2e/offcpu.sh checks the refusal)"
	done_testing
	exit 0
fi
src=$top_srcdir/tests/targets/py-offcpu.py
root=$(pyenv root 2>/dev/null || echo /root/.pyenv)
tmp=$(mktemp -d)
at_exit "rm -rf $tmp"
line() { grep -n "LINE:$1\$" "$src" | cut -d: -f1; }

interp() { # interp LABEL PYTHON
	label=$1 py=$2
	if [ ! -x "$py" ]; then
		skip "$label: $py is not installed"
		return
	fi
	rm -f "$tmp/out"
	"$py" "$src" >"$tmp/out" 2>&1 &
	TPID=$!
	kill_at_exit $TPID
	wait_until grep -q ready "$tmp/out" || { ok 1 "$label: the target started"; return; }
	"$PSCOPE" top $TPID --off-cpu --duration 2 --json --folded "$tmp/f" >"$tmp/j" 2>"$tmp/err"
	ok $? "$label: pscope top --off-cpu --json exits 0"
	no_crash_in "$tmp/err" "$label: the run"
	check "$label: handle (sleep) and handle_read (socket read) carry their Python callers, weights right" \
		python3 - "$tmp/j" "$src" "$(line handle)" "$(line serve)" "$(line handle_read)" "$(line serve_reads)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
src, l_handle, l_serve, l_read, l_reads = sys.argv[2], *map(int, sys.argv[3:])
assert d["python"] and d["python_blocks"] > 0, d
# Most blocks are read in time; a loaded machine may run a thread again first.
assert d["python_unread"] <= d["python_blocks"], (d["python_blocks"], d["python_unread"])
def py(fr): return [(f["name"], f["line"]) for f in fr if f["kind"] == "python" and f["file"] == src]
def top(inner):
    st = [s for s in d["stacks"] if py(s["frames"])[:1] == [inner]]
    assert st, ("no stack under", inner, [py(s["frames"]) for s in d["stacks"]])
    return max(st, key=lambda s: s["weight"])
s = top(("handle", l_handle))
assert py(s["frames"]) == [("handle", l_handle), ("serve", l_serve)], py(s["frames"])
# Leafward of handle: the C of time.sleep (named where the interpreter
# has its symbols: time_sleep), its system call, the scheduler.
names = [f["name"] for f in s["frames"]]
at = names.index("handle")
assert any(f["kind"] == "native" for f in s["frames"][:at]), names
assert names[:2] == ["__schedule", "schedule"], names
assert "time_sleep" not in names or names.index("time_sleep") < at, names
mean = (s["weight"] - s["runq_ns"]) / s["blocks"] / 1e6
assert 18 <= mean <= 22 and s["blocks"] >= 10, (mean, s["blocks"])
s = top(("handle_read", l_read))
assert py(s["frames"]) == [("handle_read", l_read), ("serve_reads", l_reads)], py(s["frames"])
w = s["wakers"][0]
assert py(w["frames"]) == [] and any(f["name"] == "sock_sendmsg" or f["name"].startswith("unix_stream_sendmsg") for f in w["frames"]), w["frames"]
PY
	check "$label: a folded line runs serve;...;handle;...;schedule;__schedule (outermost first)" \
		python3 - "$tmp/f" "$src" "$(line serve)" "$(line handle)" <<'PY'
import re, sys
src, ls, lh = sys.argv[2:]
rx = r"[^;]+;(.*;)?serve \(%s:%s\);([^;]+;)*handle \(%s:%s\);.*;schedule;__schedule [0-9]+" % (
    re.escape(src), ls, re.escape(src), lh)
lines = open(sys.argv[1]).read().splitlines()
assert [l for l in lines if re.fullmatch(rx, l)], lines
PY
	"$PSCOPE" top $TPID --off-cpu --duration 0.5 >"$tmp/t" 2>&1
	grep -qE '^CPython 3\.[0-9]+(\.[0-9]+)?[^:]*: Python frames in [0-9]+ blocks; [0-9]+ blocks with native frames only' "$tmp/t"
	ok $? "$label: the text report counts the blocks with Python frames"
	kill -9 $TPID
	wait $TPID 2>/dev/null
}

python_wanted 3.11d "Debian python3.11" && interp "Debian python3.11 (stripped, non-PIE)" /usr/bin/python3.11
for minor in 9 10 11 12 13; do
	python_wanted 3.$minor "pyenv 3.$minor" || continue
	py=$(ls -d "$root"/versions/3."$minor".*/bin/python3."$minor" 2>/dev/null | tail -1)
	interp "pyenv 3.$minor" "${py:-$root/versions/3.$minor/bin/python3.$minor}"
done
done_testing
