#!/bin/bash
# pscope core: the core of a live process loads in gdb and eu-stack, holds
# the right notes, honours MADV_DONTDUMP, is private, never overwrites,
# fails cleanly on a full disk or a vanishing process, and the target runs
# on after every case.
. "$top_srcdir/tests/lib.sh"

dir=$(mktemp -d /tmp/pscope-core-test.XXXXXX)
at_exit "rm -rf $dir"
EXE=$TARGETS/core-threads
NT=24

start_target core-threads $NT || { done_testing; exit 1; }
P=$TPID
DD=$(sed -n 's/^dontdump=//p' /proc/$P/fd/1 2>/dev/null)
EOFADDR=$(sed -n 's/^past_eof=//p' /proc/$P/fd/1 2>/dev/null)

json_get() { # json_get FILE EXPR
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# 1. A core of a threaded process.
$PSCOPE core $P -o $dir/c1 --json >$dir/j1 2>$dir/e1
ok $? "pscope core writes a core"
sed 's/^/#   /' $dir/e1
check "the target runs on" runs_on_soon $P
check "JSON names the file" test "$(json_get $dir/j1 'd["path"]')" = "$dir/c1"
check "JSON: one thread per task" test "$(json_get $dir/j1 'd["threads"]')" = $((NT + 1))
check "JSON: bytes, disk_bytes, pause_ms, mappings, skipped" \
	json_get $dir/j1 'all(k in d for k in ("bytes","disk_bytes","pause_ms","mappings","skipped")) and d["bytes"] > 0 and d["mappings"] > 5 and isinstance(d["skipped"], list) or sys.exit(1)'
check "JSON bytes is the file size" test "$(json_get $dir/j1 'd["bytes"]')" = "$(stat -c %s $dir/c1)"
check "the core is mode 0600" test "$(stat -c %a $dir/c1)" = 600
check "no temporary file is left" sh -c "! ls -A $dir | grep -q '^\.pscope-core'"
check "the untouched 1 GiB mapping is not in the file" test "$(stat -c %s $dir/c1)" -lt $((512 << 20))
check "the file is sparse: thread stacks are mostly holes" test "$(json_get $dir/j1 'd["disk_bytes"]')" -lt $((64 << 20))
check "unreadable pages (a file mapping past EOF) are reported" \
	json_get $dir/j1 'any(int(s["start"], 16) == '"$EOFADDR"' and int(s["end"], 16) - int(s["start"], 16) == 3 * 4096 for s in d["skipped"]) or sys.exit(1)'
check "... and recorded with no data" sh -c \
	"eu-readelf -l $dir/c1 | awk '\$1==\"LOAD\" && \$3==\"$(printf '0x%016x' $EOFADDR)\" { print \$5 }' | grep -qE '^0x0+\$'"

# 2. gdb: every thread, the known functions, the known global.
gdb -batch -nx -ex 'info threads' -ex 'thread apply all bt' -ex 'print the_global' -ex 'print the_string' \
	"$EXE" $dir/c1 >$dir/gdb1 2>&1
check "gdb lists every thread" test "$(grep -cE '^[* ] +[0-9]+ +(Thread|LWP)' $dir/gdb1)" = $((NT + 1))
check "gdb: each worker parked in core_park_leaf" test "$(grep -c 'core_park_leaf' $dir/gdb1)" -ge $NT
check "gdb: the call chain core_park_middle" grep -q 'core_park_middle' $dir/gdb1
check "gdb: the main thread in core_main_waits" grep -q 'core_main_waits' $dir/gdb1
check "gdb: the_global = 271828" grep -q '^\$1 = 271828' $dir/gdb1
check "gdb: the_string" grep -q 'pscope core target' $dir/gdb1
grep -q 'core_park_leaf' $dir/gdb1 || sed 's/^/#   /' $dir/gdb1 | head -40

# 3. The notes.
eu-readelf -n $dir/c1 >$dir/notes1 2>&1
check "eu-readelf: one NT_PRSTATUS per thread" test "$(grep -c 'PRSTATUS' $dir/notes1)" = $((NT + 1))
check "eu-readelf: NT_PRPSINFO" grep -q 'PRPSINFO' $dir/notes1
check "eu-readelf: NT_AUXV" grep -q 'AUXV' $dir/notes1
check "eu-readelf: NT_FILE" grep -q 'FILE' $dir/notes1
check "eu-readelf: NT_SIGINFO" grep -q 'SIGINFO' $dir/notes1
check "eu-readelf: FP registers and xstate" sh -c "grep -q FPREGSET $dir/notes1 && grep -q X86_XSTATE $dir/notes1"
check "kernel order: PRSTATUS, PRPSINFO, SIGINFO, AUXV, FILE, FPREGSET first" \
	sh -c "grep -oE 'PRSTATUS|PRPSINFO|SIGINFO|AUXV|FILE|FPREGSET' $dir/notes1 | head -6 | tr '\n' ' ' | grep -q '^PRSTATUS PRPSINFO SIGINFO AUXV FILE FPREGSET'"
check "eu-readelf: an ELF core" sh -c "eu-readelf -h $dir/c1 | grep -q 'CORE (Core file)'"

# 4. eu-stack reads it.
eu-stack --core $dir/c1 --executable "$EXE" >$dir/eus1 2>&1
check "eu-stack --core shows the parked threads" test "$(grep -c 'core_park_leaf' $dir/eus1)" -ge $NT

# 5. MADV_DONTDUMP is honoured, --all-mappings dumps it.
if [ -n "$DD" ]; then
	check "the MADV_DONTDUMP range has no data" sh -c \
		"eu-readelf -l $dir/c1 | awk '\$1==\"LOAD\" && \$3==\"$(printf '0x%016x' $DD)\" { print \$5 }' | grep -qE '^0x0+\$'"
	$PSCOPE core $P -o $dir/c2 --all-mappings --json >$dir/j2 2>$dir/e2
	ok $? "--all-mappings writes a core"
	check "--all-mappings includes the MADV_DONTDUMP range" sh -c \
		"gdb -batch -nx -ex 'print/x *(unsigned char *)$DD' $EXE $dir/c2 2>&1 | grep -q '= 0x5a'"
	check "--all-mappings: the 1 GiB untouched mapping is a hole" \
		test "$(json_get $dir/j2 'd["disk_bytes"]')" -lt $((200 << 20))
	rm -f $dir/c2
else
	skip "dontdump address unknown"; skip "-"; skip "-"; skip "-"
fi
check "the target runs on" runs_on_soon $P

# 6. An existing destination is never overwritten.
sum=$(md5sum <$dir/c1)
$PSCOPE core $P -o $dir/c1 >$dir/o3 2>$dir/e3
check "existing destination: refused" test $? = 1
check "existing destination: says so" grep -q 'already exists' $dir/e3
check "existing destination: unchanged" test "$(md5sum <$dir/c1)" = "$sum"
check "the target runs on" runs_on_soon $P

# 7. Text output.
$PSCOPE core $P -o $dir >$dir/o4 2>$dir/e4
ok $? "a directory as destination: default name inside"
check "text output: path, size, pause and the gdb command" sh -c \
	"grep -q '^core written: $dir/core.core-threads.$P.' $dir/o4 && grep -q 'pause' $dir/o4 && grep -q '^open it with: gdb $EXE $dir/core.core-threads' $dir/o4"
rm -f $dir/core.core-threads.*

# 7b. A destination with a space and a quote: the gdb line is still one
# command to paste (each path quoted), and gdb opens the core with it.
odd="$dir/a b'c"
mkdir -p "$odd"
$PSCOPE core $P -o "$odd/core" >$dir/o5 2>$dir/e5
ok $? "a destination with a space and a quote"
gdbline=$(sed -n 's/^open it with: //p' $dir/o5)
check "the gdb line quotes the core's path" test "$gdbline" = "gdb $EXE '$dir/a b'\\''c/core'"
psline=$(sed -n 's/^or in pscope: //p' $dir/o5)
check "... and so does the pscope line" test "$psline" = "pscope -c '$dir/a b'\\''c/core'"
check "pasted into a shell, the gdb line opens the core" sh -c \
	"$gdbline -batch -nx -ex 'print the_global' 2>&1 | grep -q '= 271828'"
rm -rf "$odd"
check "the target runs on" runs_on_soon $P

# 8. Bad PIDs.
sh -c 'exit 0' & dead=$!; wait $dead
$PSCOPE core $dead -o $dir/c5 >/dev/null 2>$dir/e5
check "a PID with no process: refused" test $? = 1
check "a PID with no process: clear message, no file" sh -c "grep -qi 'no process\|exited' $dir/e5 && ! test -e $dir/c5"
$PSCOPE core notapid >/dev/null 2>&1
check "a malformed PID: usage error" test $? = 2

# 9. A full disk: a 1 MiB tmpfs.
start_target core-big 16 || { done_testing; exit 1; }
B=$TPID
mkdir -p $dir/small
if mount -t tmpfs -o size=1m pscope-core-test $dir/small 2>/dev/null; then
	at_exit "umount $dir/small"
	$PSCOPE core $B -o $dir/small/c6 >/dev/null 2>$dir/e6
	check "full disk: refused before stopping anything" test $? = 1
	check "full disk: says how much is needed and free" grep -q 'not enough space' $dir/e6
	check "full disk: no file left" test -z "$(ls -A $dir/small)"
	$PSCOPE core $B -o $dir/small/c7 --force >/dev/null 2>$dir/e7
	check "full disk with --force: fails midway" test $? = 1
	check "full disk with --force: names ENOSPC and the cleanup" sh -c \
		"grep -q 'No space left on device' $dir/e7 && grep -q 'partial file was removed' $dir/e7"
	check "full disk with --force: no file left" test -z "$(ls -A $dir/small)"
	check "full disk: the target runs on" runs_on_soon $B
	umount $dir/small
else
	for i in 1 2 3 4 5 6 7; do skip "cannot mount a tmpfs (not root?)"; done
fi

# 10. The process exits mid-dump (the stop method: it is stopped while its
# memory is written): slow the copy down with strace's delay injection,
# kill the target while it is stopped.
# slow_core TARGET OUT ERR: `pscope core` with every memory read delayed,
# in the background (S = strace's PID); returns once TARGET is frozen.
slow_core() {
	ASAN_OPTIONS=detect_leaks=0 strace -f -o /dev/null -e trace=process_vm_readv \
		-e inject=process_vm_readv:delay_enter=200000 $PSCOPE core $1 -o $2 --method stop >/dev/null 2>$3 &
	S=$!
	for _ in $(seq 1 200); do
		[ "$(awk '/^TracerPid/{print $2}' /proc/$1/status 2>/dev/null)" != 0 ] && break
		sleep 0.05
	done
	sleep 0.3
}
if command -v strace >/dev/null; then
	start_target core-big 128 || { done_testing; exit 1; }
	X=$TPID
	slow_core $X $dir/c8 $dir/e8
	kill -9 $X
	wait $S
	check "exit mid-dump: fails" test $? = 1
	check "exit mid-dump: says the process exited" grep -q 'exited' $dir/e8
	check "exit mid-dump: no file left" sh -c "! test -e $dir/c8 && ! ls -A $dir | grep -q '^\.pscope-core'"
	sed 's/^/#   /' $dir/e8

	# Ctrl-C mid-dump: cancelled cleanly.
	start_target core-big 128 || { done_testing; exit 1; }
	Y=$TPID
	slow_core $Y $dir/c10 $dir/e10
	kill -INT $(pgrep -P $S) 2>/dev/null
	wait $S
	check "Ctrl-C mid-dump: fails" test $? = 1
	check "Ctrl-C mid-dump: says it was cancelled" grep -q 'cancelled: no file written' $dir/e10
	check "Ctrl-C mid-dump: no file left" sh -c "! test -e $dir/c10 && ! ls -A $dir | grep -q '^\.pscope-core'"
	check "Ctrl-C mid-dump: the target runs on" runs_on_soon $Y

	# SIGKILL mid-dump: no cleanup code runs, and still no file is left
	# (the core is an unnamed O_TMPFILE until it is complete).
	slow_core $Y $dir/c11 /dev/null
	kill -KILL $(pgrep -P $S) 2>/dev/null
	wait $S
	check "SIGKILL mid-dump: no file left" sh -c "! test -e $dir/c11 && ! ls -A $dir | grep -q '^\.pscope-core'"
	wait_until target_runs_on $Y
	check "SIGKILL mid-dump: the target runs on" runs_on_soon $Y
else
	for i in 1 2 3 4 5 6 7 8 9; do skip "strace missing"; done
fi

# 11. Without ptrace rights: the door is named.
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	bin=$(mktemp -d /tmp/pscope-core-bin.XXXXXX)
	at_exit "rm -rf $bin"
	cp $PSCOPE $bin/pscope && chmod 755 $bin $bin/pscope
	chmod 777 $dir
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all $bin/pscope core $P -o $dir/c9 \
		>/dev/null 2>$dir/e9
	check "unprivileged: refused" test $? = 1
	check "unprivileged: names the door" grep -q 'door:' $dir/e9
	check "unprivileged: no file" test ! -e $dir/c9
else
	skip "not root"; skip "-"; skip "-"
fi
check "the target runs on after all" runs_on_soon $P

done_testing
