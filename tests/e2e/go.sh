#!/bin/sh
# A Go program (tests/targets/go-target.go, built by the test when go is
# installed): file:line from Go's compressed DWARF (no .debug_aranges),
# stacks that end at Go's roots (runtime.goexit, mstart) counted whole by
# the sampler, and the goroutines from the runtime's allgs (pscope stack
# --goroutines, and G on the Stacks screen): count, state, wait reason,
# top frames with file:line.
. "$top_srcdir/tests/lib.sh"
tmp=$(mktemp -d /tmp/pscope-go-e2e.XXXXXX)
at_exit "rm -rf $tmp"
GO=${GO:-$(command -v go)}
if [ -z "$GO" ]; then
	skip "go is not installed (golang-go): no Go program to check"
	done_testing
	exit 0
fi
src=$tmp/main.go
cp "$top_srcdir/tests/targets/go-target.go" "$src"
if ! (cd "$tmp" && GO111MODULE=off "$GO" build -o go-target main.go) >"$tmp/build.log" 2>&1; then
	ok 1 "go builds the Go target"
	sed 's/^/#   /' "$tmp/build.log"
	done_testing
	exit 0
fi
line() { grep -n "LINE:$1\$" "$src" | cut -d: -f1; }
"$tmp/go-target" >"$tmp/out" 2>&1 &
P=$!
kill_at_exit $P
check "the Go target is ready" wait_until grep -q ready "$tmp/out"

"$PSCOPE" stack --source --no-group $P >"$tmp/s" 2>&1
check "stack --source: the spinning frame has its file:line from Go's DWARF" \
	grep -qE "^#0 0x[0-9a-f]+ main\.spinLeaf\+0x[0-9a-f]+ \(go-target\) \[$src:[0-9]+\]$" "$tmp/s"
check "stack --source: the runtime's own frames have theirs" \
	grep -qE "runtime\.goexit\.abi0\+0x1 \(go-target\) \[.*/runtime/asm_amd64\.s:[0-9]+\]$" "$tmp/s"

"$PSCOPE" top $P --samples 150 --duration 120 --json >"$tmp/top.json" 2>"$tmp/top.err"
ok $? "top: 150 samples"
check "top: the stacks reach Go's roots (none counted truncated)" python3 -c "
import json
d = json.load(open('$tmp/top.json'))
t = d['totals'] if 'totals' in d else d
tr, n = t.get('truncated'), t.get('samples')
assert n and tr is not None and tr <= 0.05 * n, (tr, n)
"

"$PSCOPE" stack --goroutines --source --json $P >"$tmp/g.json" 2>"$tmp/g.err"
ok $? "stack --goroutines --json"
check "goroutines: the counts, states, wait reasons and top frames with file:line" python3 -c "
import json, os
d = json.load(open('$tmp/g.json'))
g = d['goroutines']
tids = {int(t) for t in os.listdir('/proc/$P/task')}
gs = g['list']
assert g['count'] == len(gs) >= 27, g['count']
def fn(x, name): return [f for f in x['frames'] if f['function'] == name]
parked = [x for x in gs if fn(x, 'main.parked')]
assert len(parked) == 20, len(parked)
for x in parked:
    assert x['state'] == 'waiting' and x['wait_reason'] == 'chan receive', x
    f = fn(x, 'main.parked')[0]
    assert (f['file'], f['line']) == ('$src', $(line parked)), f
    assert x['frames'][-1]['function'] == 'runtime.goexit.abi0', x['frames'][-1]
lock = [x for x in gs if fn(x, 'main.locker')]
assert len(lock) == 5 and all(x['wait_reason'] == 'semacquire' for x in lock), lock
m = [x for x in gs if x['goid'] == 1][0]
assert m['state'] == 'waiting' and m['wait_reason'] == 'sleep' and fn(m, 'main.main'), m
spin = [x for x in gs if fn(x, 'main.spinner') or x['state'] in ('running', 'runnable')]
assert spin, 'no spinning goroutine'
for x in gs:
    if x['state'] == 'running':
        assert x['tid'] in tids, x
assert g['by_state'].get('waiting', 0) >= 26, g['by_state']
"
"$PSCOPE" stack --goroutines $P >"$tmp/g.txt" 2>&1
check "goroutines, text: the header with the counts" grep -qE '^[0-9]+ goroutines \(running [0-9]+, runnable [0-9]+, waiting [0-9]+, in a syscall [0-9]+; [0-9]+ dead not shown\), read from$' "$tmp/g.txt"
check "goroutines, text: the 20 parked ones as one group" grep -qE '^20 goroutines \[waiting: chan receive\] \([0-9 .]+\)$' "$tmp/g.txt"
sleep 600 &
S=$!
kill_at_exit $S
"$PSCOPE" stack --goroutines --json $S >"$tmp/n.json" 2>"$tmp/n.err"
check "not a Go program: says so, no goroutines" python3 -c "
import json; d = json.load(open('$tmp/n.json'))
assert d['goroutines'] is None and d['goroutines_error'] == 'not a Go program (no runtime.allgs)', d.get('goroutines_error')"
if command -v tmux >/dev/null; then
	tui_start 200x60 "$PSCOPE -p $P"
	check "TUI: detail screen up" tui_wait_for "PID $P"
	tui_keys s
	check "TUI: the Stacks screen" tui_wait_for "Stacks of $P"
	tui_keys G
	check "TUI, G: the goroutines' header with the counts" \
		tui_wait_for_joined "Goroutines: [0-9]+ \(running [0-9]+, runnable [0-9]+, waiting [0-9]+, in a syscall [0-9]+\), read after the freeze"
	tui_keys /
	tui_keys "chan receive" Enter
	check "TUI: the 20 parked goroutines as one group, their chain" \
		tui_wait_for "^20 goroutines \[waiting: chan receive\]: runtime.gopark <- runtime.chanrecv <- runtime.chanrecv1 <- main.parked"
	tui_keys q
else
	skip "tmux is not installed: no TUI check"
fi
"$PSCOPE" stack --goroutines --core "$tmp/none.core" >"$tmp/c.out" 2>&1
rc=$?
ok "$([ $rc = 2 ] && grep -q -- '--goroutines reads a live Go process, not a core' "$tmp/c.out"; echo $?)" \
	"--goroutines with --core: a usage error that says why"
check "the target runs on after the dumps" runs_on_soon $P
kill -9 $P
done_testing
