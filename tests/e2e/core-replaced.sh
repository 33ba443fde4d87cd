#!/bin/sh
# pscope -c CORE: the core is read once by its source, which then checks
# on every tick that the file is still the one read (device, inode, size,
# mtime). A core replaced under the screen is said in the header; r reads
# the new one and the warning goes.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
command -v gdb >/dev/null || { skip "gdb not installed"; done_testing; exit 0; }
export PSCOPE_DATA
tmp=$(mktemp -d /tmp/pscope-core-replaced.XXXXXX)
at_exit "rm -rf $tmp"

mkdir -p "$tmp/bin"
cp "$TARGETS/crash" "$tmp/bin/crash"
gdb -q -batch -ex run -ex "gcore $tmp/crash.core" "$tmp/bin/crash" >"$tmp/gdb.out" 2>&1
check "gdb wrote a core at the crash" test -s "$tmp/crash.core"
tui_start 140x40 "$PSCOPE -c $tmp/crash.core -d 3"
check "the core is shown" tui_wait_for "^ Core file $tmp/crash.core: PID [0-9]+ \(crash\) \| 3 threads"
check "no warning while it is the file read" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'changed on disk'"
# Another file under the same name (a copy: a new inode, the same core).
cp "$tmp/crash.core" "$tmp/new.core"
mv "$tmp/new.core" "$tmp/crash.core"
check "replaced: the header says so" tui_wait_for "crash\.core changed on disk since it was read \(replaced or rewritten\): this is the old one" 60
check "... and still shows what was read" tui_wait_for "^ Core file $tmp/crash.core: PID [0-9]+ \(crash\) \| 3 threads"
tui_keys r
reread() { # the core shown again, the warning gone
	local s
	s=$(tui_screen)
	printf '%s\n' "$s" | grep -qE '^ Core file .*crash.core: PID [0-9]+ \(crash\) \| 3 threads' && ! printf '%s\n' "$s" | grep -q 'changed on disk'
}
check "r: the new file read, the warning gone" wait_until reread
tui_keys q
done_testing
