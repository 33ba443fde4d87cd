#!/bin/sh
# pscope -c CORE [EXE] in tmux: the header (signal, code, fault address,
# crashing thread, command line), the stacks with the crashing thread
# first, the maps and files tabs; a core cut short, a deadlock in pscope's
# own core, a moved program given after the core, and a file that is no
# core (refused before the screen opens).
#
# The crash core is written by gcore from gdb stopped at the SIGSEGV (it
# records the same NT_SIGINFO as the kernel), so core_pattern stays as it is.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
export PSCOPE_DATA
tmp=$(mktemp -d /tmp/pscope-core-tui.XXXXXX)
at_exit "rm -rf $tmp"

if command -v gdb >/dev/null; then
	mkdir -p "$tmp/bin"
	cp "$TARGETS/crash" "$tmp/bin/crash"
	gdb -q -batch -ex run -ex "gcore $tmp/crash.core" "$tmp/bin/crash" >"$tmp/gdb.out" 2>&1
	check "gdb wrote a core at the crash" test -s "$tmp/crash.core"
	tui_start 120x40 "$PSCOPE -c $tmp/crash.core"
	check "the header names the signal, its code, the fault address and the thread" \
		tui_wait_for "^ signal SIGSEGV \(SEGV_MAPERR: address not mapped to object\) at 0x10, in TID [0-9]+"
	T=$(tui_screen | sed -n 's/^ signal SIGSEGV .*, in TID \([0-9]*\).*/\1/p')
	check "the title: PID, program and counts" tui_wait_for "^ Core file $tmp/crash.core: PID [0-9]+ \(crash\) \| 3 threads"
	check "the command line" tui_wait_for "^ command line: $tmp/bin/crash   uid $(id -u)   state t"
	check "the tabs" tui_wait_for "^ 1 Stacks  2 Maps  3 Files"
	check "the crashing thread's group comes first" \
		sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep '^\[' | head -1 | grep -q '^\[-\] TID $T \"crash\": crash_here <- crash_middle <- crash_outer <- crasher'"
	check "its thread row says it received the signal" tui_wait_for "TID $T +crash +\? +running .* received SIGSEGV"
	check "frames with file:line" tui_wait_for "#0 +0x[0-9a-f]+ crash_here\+0x[0-9a-f]+ +\(crash\) +.*crash\.c:[0-9]+"
	tui_keys 2
	check "2: the maps from NT_FILE and PT_LOAD" tui_wait_for "mappings \(VMAs\), .* from the core's NT_FILE and PT_LOAD"
	check "... with the program's mappings" tui_wait_for "r-xp +1000 .* $tmp/bin/crash$"
	tui_keys 3
	check "3: the files and their build-id check" tui_wait_for "^ ok +[0-9a-f]+  $tmp/bin/crash$"
	tui_keys q
	check "q quits" wait_until sh -c "! tmux -L $TMUX_S has-session -t $TMUX_S 2>/dev/null || ! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q '1 Stacks'"

	size=$(stat -c %s "$tmp/crash.core")
	head -c $((size / 2)) "$tmp/crash.core" >"$tmp/half.core"
	tui_start 120x40 "$PSCOPE -c $tmp/half.core"
	# gdb writes its notes at the end: half of its core has none left.
	check "a gdb core cut to half: the title says it is cut short" tui_wait_for "^ Core file .*\| CUT SHORT"
	check "... the warning line says what is lost" \
		tui_wait_for "^ the notes are past the end of the file \(cut short\): no threads or signal"
	tui_keys 3
	check "... 3 Files lists every warning" tui_wait_for "^ the core is cut short: .*ulimit -c"
	tui_keys q

	# A library replaced after the crash: 3 Files says so, with both build-ids.
	mkdir -p "$tmp/lib"
	cp "$TARGETS/hotplugin.so" "$tmp/lib/libplug.so"
	gdb -q -batch -ex run -ex "gcore $tmp/lib.core" --args "$tmp/bin/crash" --lib "$tmp/lib/libplug.so" >"$tmp/gdb2.out" 2>&1
	cp "$(ldd "$TARGETS/crash" | awk '/libc\.so/{print $3}')" "$tmp/lib/libplug.so"
	tui_start 160x40 "$PSCOPE -c $tmp/lib.core"
	check "a replaced library: the header warns" \
		tui_wait_for "^ libplug.so on disk is not the one that was mapped: frames in it may be wrong"
	tui_keys 3
	check "... 3 Files: MISMATCH, with the mapped and the on-disk build-ids" \
		sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -A2 '^ MISMATCH .*  $tmp/lib/libplug.so$' | grep -qE '^ +build-id mapped [0-9a-f]{40}, on disk [0-9a-f]{40}$'"
	tui_keys q

	mv "$tmp/bin/crash" "$tmp/crash.moved"
	tui_start 120x40 "$PSCOPE -c $tmp/crash.core $tmp/crash.moved"
	check "-c CORE EXE: the moved program names the frames" tui_wait_for "#0 +0x[0-9a-f]+ crash_here\+0x[0-9a-f]+ +\(crash.moved\)"
	tui_keys q
else
	skip "gdb not installed: no crash core"
fi

start_quiet_target deadlock || exit 1
D=$TPID
"$PSCOPE" core "$D" -o "$tmp/dl.core" >/dev/null 2>&1
kill -9 "$D"
tui_start 120x40 "$PSCOPE -c $tmp/dl.core"
check "pscope's core of a deadlock: no signal" tui_wait_for "^ no signal recorded: a snapshot of a running process"
check "... the cycle, as live" tui_wait_for "DEADLOCK: 2 threads wait for each other"
check "... with the lock names" sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'waits for lock ledger (0x[0-9a-f]*)' && tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'waits for lock journal (0x[0-9a-f]*)'"
tui_keys q

# systemd-coredump's compressed form: opened through a private temporary
# file under TMPDIR (unnamed: nothing to see in the directory, a deleted
# file among pscope's descriptors).
if command -v zstd >/dev/null; then
	zstd -q -c "$tmp/dl.core" >"$tmp/dl.core.zst"
	mkdir -p "$tmp/tt"
	tui_start 120x40 "TMPDIR=$tmp/tt $PSCOPE -c $tmp/dl.core.zst"
	check "a .zst core: the cycle, as from the plain core" tui_wait_for "DEADLOCK: 2 threads wait for each other"
	pp=$(pgrep -P "$(tmux -L "$TMUX_S" display -p -t "$TMUX_S" '#{pane_pid}')" | head -1)
	check "... decompressed into an unnamed file under TMPDIR" \
		sh -c "test -z \"\$(ls -A '$tmp/tt')\" && ls -l /proc/$pp/fd | grep -q ' -> $tmp/tt/.* (deleted)\$'"
	tui_keys q
else
	skip "zstd is not installed"
fi

"$PSCOPE" -c "$tmp/nonexistent" >"$tmp/out" 2>&1
check "a missing core: exit 1 before any screen" test $? = 1
check "... with the reason" grep -q "^pscope: cannot open the core $tmp/nonexistent" "$tmp/out"
"$PSCOPE" -c "$PSCOPE" >"$tmp/out" 2>&1
check "a program instead of a core: refused" grep -q "an ELF file but not a core" "$tmp/out"

done_testing
