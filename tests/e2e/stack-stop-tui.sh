#!/bin/sh
# The Stacks screen says why a stack leaves its unwind information or
# stops, where `pscope stack` does: the switch to frame pointers past JIT
# code without CFI, a JIT frame without a map and why it has no name (a
# live process), and a program whose file is missing from a core (the
# frames are module-relative and the unwinding stopped: why). Both views
# are compared with the batch output of the same dump source.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/binaries-lib.sh"
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }
tmp=$(mktemp -d /tmp/pscope-stack-stop.XXXXXX)
at_exit "rm -rf $tmp"
export LC_ALL=C.UTF-8

case $(uname -m) in
x86_64)
	# JIT code announced in a JDK-style map, then the map taken away: the
	# frame has no name, and its caller is found by frame pointers.
	"$TARGETS/jit" jdk >"$tmp/jit.out" 2>&1 &
	J=$!
	kill_at_exit $J
	at_exit "rm -f /tmp/perf-$J.map"
	check "jit: ready" wait_until grep -q ready "$tmp/jit.out"
	rm -f /tmp/perf-$J.map
	"$PSCOPE" stack $J >"$tmp/jit.stack" 2>&1
	check "batch: the JIT frame says why it has no name, then the switch to frame pointers" \
		sh -c "grep -A1 -E '^#0 0x[0-9a-f]+ \[anon/JIT\] \(no perf map or jitdump\) \(\[anon/JIT\]\)$' '$tmp/jit.stack' |
			grep -qx '   -- no CFI for \[anon/JIT\]: the frames below follow frame pointers --'"
	tui_start 160x50 "$PSCOPE -p $J"
	check "jit, TUI: detail screen up" tui_wait_for "PID $J"
	tui_keys s
	check "jit, TUI: the JIT frame and why it has no name" tui_wait_for "#0 +0x[0-9a-f]+ \[anon/JIT\] \(no perf map or jitdump\)"
	check "jit, TUI: the switch to frame pointers, on its own row" \
		tui_wait_for "^ +-- no CFI for \[anon/JIT\]: the frames below follow frame pointers --$"
	check "jit, TUI: its caller by frame pointers" tui_wait_for "#1 +0x[0-9a-f]+ main\+0x[0-9a-f]+ +\(jit\) fp"
	tui_keys q
	kill -9 $J
	;;
*) skip "the JIT target is x86-64 code" ;;
esac

# A core whose program is gone: module-relative frames, and why the
# unwinding stops there.
prog_core "$tmp" "$tmp/c.core"
rm -f "$tmp/prog"
(cd / && "$PSCOPE" stack --core "$tmp/c.core" --no-group) >"$tmp/core.stack" 2>"$tmp/core.err"
why='unwinding stopped: no CFI for this code and no frame-pointer chain from it: its callers cannot be found'
check "core, batch: why the unwinding stops" grep -qx "   $why" "$tmp/core.stack"
tui_start 200x60 "cd / && $PSCOPE -c $tmp/c.core"
check "core, TUI: the frames of the missing program, module-relative" tui_wait_for "#[0-9]+ +0x[0-9a-f]+ prog\+0x[0-9a-f]+ +\(prog\)"
check "core, TUI: why the unwinding stops, on its own row" tui_wait_for "^ +$why$"
tui_keys q
done_testing
