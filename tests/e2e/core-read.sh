#!/bin/sh
# pscope stack --core: a kernel core of a program that crashed in a known
# function (signal, fault address, the crashing thread's frames), the same
# core cut to half, gcore and pscope cores of a deadlock (the cycle as
# live), a replaced library (build-id mismatch), --exe, --sysroot, and
# files that are no core at all.
#
# The kernel writes its cores where /proc/sys/kernel/core_pattern says: the
# test points it at a temporary directory for the few moments the targets
# take to crash, under a lock other tests can share, and puts the old value
# back on every way out.
. "$top_srcdir/tests/lib.sh"
tmp=$(mktemp -d /tmp/pscope-core-read.XXXXXX)
at_exit "rm -rf $tmp"
LOCK=/tmp/pscope-core_pattern.lock
CP=/proc/sys/kernel/core_pattern

pyq() { python3 -c "import json,sys; d=json.load(open('$1')); $2"; }

# Let the targets crash with core_pattern pointing at $tmp/k; the old
# value is restored by a trap in the same subshell, whatever happens.
kernel_cores() {
	mkdir -p "$tmp/k" "$tmp/bin" "$tmp/lib"
	cp "$TARGETS/crash" "$tmp/bin/crash"
	cp "$TARGETS/crash" "$tmp/bin/crash2"
	cp "$TARGETS/hotplugin.so" "$tmp/lib/libplug.so"
	(
		touch "$LOCK" && exec 9<"$LOCK" || exit 1
		flock -w 120 9 || exit 1
		old=$(cat "$CP") || exit 1
		trap 'printf "%s\n" "$old" >"$CP"' EXIT
		trap 'exit 1' INT TERM HUP
		printf '%s\n' "$tmp/k/core.%p" >"$CP" || exit 1
		ulimit -c unlimited
		cd "$tmp/k" || exit 1
		"$tmp/bin/crash" >"$tmp/crash.out" 2>&1
		"$tmp/bin/crash2" --lib "$tmp/lib/libplug.so" >"$tmp/crash2.out" 2>&1
		two_cores() { [ "$(ls "$tmp/k" | wc -l)" -ge 2 ]; }
		wait_until two_cores
		# pscope cores reads the live core_pattern.
		"$PSCOPE" cores >"$tmp/cores.txt" 2>&1
		"$PSCOPE" cores --json >"$tmp/cores.json" 2>&1
		# Put it back and check, still under the lock (other tests
		# change it too, under the same lock).
		printf '%s\n' "$old" >"$CP"
		[ "$(cat "$CP")" = "$old" ] && echo yes >"$tmp/cp-back"
	)
}

if [ ! -w "$CP" ]; then
	skip "core_pattern is not writable here: no kernel cores"
	done_testing
	exit 0
fi
kernel_cores
check "core_pattern is back as it was" test -f "$tmp/cp-back"
P1=$(sed -n 's/^ready //p' "$tmp/crash.out")
P2=$(sed -n 's/^ready //p' "$tmp/crash2.out")
C1=$tmp/k/core.$P1
C2=$tmp/k/core.$P2
check "the kernel wrote both cores" test -s "$C1" -a -s "$C2"

# ---- the crash ----
"$PSCOPE" stack --core "$C1" >"$tmp/s1" 2>"$tmp/e1"
ok $? "pscope stack --core exits 0"
check "header: PID and program" grep -qx "core $C1: PID $P1 \"crash\", uid $(id -u), state [A-Z]" "$tmp/s1"
check "header: command line" grep -qx "command line: $tmp/bin/crash" "$tmp/s1"
T=$(sed -n 's/^signal .*, in TID \([0-9]*\)$/\1/p' "$tmp/s1")
check "header: signal, code, fault address and thread" \
	grep -qx "signal SIGSEGV (SEGV_MAPERR: address not mapped to object) at 0x10, in TID $T" "$tmp/s1"
check "header: three threads" grep -qx "3 threads, 3 mapped files" "$tmp/s1"
check "the crashing thread is marked" grep -qx "TID $T \"crash\" (?, running) received SIGSEGV" "$tmp/s1"
# The crashing thread's frames, in order, from the line after its TID line.
awk -v t="TID $T " 'index($0, t) == 1 { on = 1; next } on && /^$/ { exit } on { print $3 }' "$tmp/s1" |
	sed 's/+0x[0-9a-f]*$//' >"$tmp/f1"
check "crashing thread: crash_here <- crash_middle <- crash_outer <- crasher <- start_thread" \
	test "$(head -5 "$tmp/f1" | tr '\n' ' ')" = "crash_here crash_middle crash_outer crasher start_thread "
check "the sleeper is in nap" grep -qE '^#[0-9]+ 0x[0-9a-f]+ nap\+0x[0-9a-f]+ \(crash\)$' "$tmp/s1"
check "main waits in pthread_join from main" grep -qE '^#[0-9]+ 0x[0-9a-f]+ main\+0x[0-9a-f]+ \(crash\)$' "$tmp/s1"
check "stderr: how many threads were read" grep -qE '^3 threads read from the core in [0-9.]+ ms$' "$tmp/e1"
check "no warning for a whole core" test "$(grep -c '^pscope stack:' "$tmp/e1")" = 0
"$PSCOPE" stack --core "$C1" --source >"$tmp/s1s" 2>/dev/null
check "--source: file:line of the crash" grep -qE ' crash_here\+0x[0-9a-f]+ \(crash\) \[.*crash\.c:[0-9]+\]$' "$tmp/s1s"

# Cross-check with gdb: the same functions in the crashing thread.
if command -v gdb >/dev/null; then
	gdb -q -batch -ex bt "$tmp/bin/crash" "$C1" 2>/dev/null |
		sed -n 's/^#[0-9]* *\(0x[0-9a-f]* in \)\{0,1\}\([A-Za-z_][A-Za-z0-9_]*\) .*/\2/p' | uniq | head -4 >"$tmp/gdb"
	check "gdb's bt of the core has the same first four functions" \
		test "$(tr '\n' ' ' <"$tmp/gdb")" = "$(head -4 "$tmp/f1" | tr '\n' ' ')"
else
	skip "gdb not installed"
fi
# ... and eu-stack, thread by thread.
if command -v eu-stack >/dev/null; then
	eu-stack --core "$C1" -e "$tmp/bin/crash" 2>/dev/null | awk '/^TID/{t=$2; sub(":","",t)} /^#/{print t, $3}' | sort >"$tmp/eu"
	"$PSCOPE" stack --core "$C1" --no-group >"$tmp/ng" 2>/dev/null
	awk '/^TID/{t=$2} /^#/{n=$3; sub(/\+0x[0-9a-f]*$/, "", n); if (n == "??") n = ""; print t, n}' "$tmp/ng" | sort >"$tmp/ps"
	check "same functions per thread as eu-stack --core" cmp "$tmp/eu" "$tmp/ps"
	cmp -s "$tmp/eu" "$tmp/ps" || diff "$tmp/eu" "$tmp/ps" | head -10 | sed 's/^/#   /'
else
	skip "eu-stack not installed"
fi

"$PSCOPE" stack --core "$C1" --json >"$tmp/j1" 2>/dev/null
check "--json: the signal, its code and address, the thread" pyq "$tmp/j1" "
s = d['core']['signal']
assert (s['number'], s['name'], s['code'], s['code_name'], s['addr'], s['tid']) == (11, 'SIGSEGV', 1, 'SEGV_MAPERR', '0x10', $T), s
assert d['pid'] == $P1 and d['core']['program'] == 'crash' and d['core']['truncated'] is False
th = {t['tid']: t for t in d['threads']}
assert len(th) == 3 and th[$T]['signal'] == 11
assert [f['function'] for f in th[$T]['frames']][:4] == ['crash_here', 'crash_middle', 'crash_outer', 'crasher']
assert all(m['status'] == 'ok' for m in d['core']['modules']), d['core']['modules']
assert 'pause_ms' not in d and d['deadlocks'] == []"

# ---- cut to half its size ----
size=$(stat -c %s "$C1")
head -c $((size / 2)) "$C1" >"$tmp/half"
"$PSCOPE" stack --core "$tmp/half" >"$tmp/sh" 2>"$tmp/eh"
ok $? "a core cut to half: exit 0"
check "... still names the signal and the thread" \
	grep -qx "signal SIGSEGV (SEGV_MAPERR: address not mapped to object) at 0x10, in TID $T" "$tmp/sh"
check "... and every thread" test "$(grep -c '^TID ' "$tmp/sh")" = 3
check "... the crashing thread still has its function" grep -qE '^#0 0x[0-9a-f]+ crash_here\+0x[0-9a-f]+ \(crash\)$' "$tmp/sh"
check "... and says it is cut short" grep -qE '^pscope stack: the core is cut short: .* memory segments are missing or partial' "$tmp/eh"
"$PSCOPE" stack --core "$tmp/half" --json >"$tmp/jh" 2>/dev/null
check "... JSON: truncated, with the warning" pyq "$tmp/jh" "
assert d['core']['truncated'] is True and any('cut short' in w for w in d['core']['warnings']), d['core']"
head -c 2000 "$C1" >"$tmp/tiny"
"$PSCOPE" stack --core "$tmp/tiny" >"$tmp/st" 2>"$tmp/et"
ok $? "a core cut inside its notes: exit 0, what is left is shown"
check "... the signal is still named" grep -q "^signal SIGSEGV, in TID $T" "$tmp/st"
check "... the registers lost are said" grep -q "^pscope stack: thread $T: NT_PRSTATUS has [0-9]* bytes, not 336: its registers are lost" "$tmp/et"

# ---- a replaced library ----
"$PSCOPE" stack --core "$C2" >"$tmp/s2" 2>"$tmp/e2"
check "the library of a core is a module" grep -q "4 mapped files" "$tmp/s2"
check "no mismatch while the library is the same" sh -c "! grep -q 'not the one' '$tmp/e2'"
libc=$(ldd "$TARGETS/crash" | awk '/libc\.so/{print $3}')
cp "$libc" "$tmp/lib/libplug.so"
"$PSCOPE" stack --core "$C2" >"$tmp/s3" 2>"$tmp/e3"
ok $? "a replaced library: exit 0"
check "the build-id mismatch is reported" \
	grep -qx "pscope stack: libplug.so on disk is not the one that was mapped: frames in it may be wrong" "$tmp/e3"
"$PSCOPE" stack --core "$C2" --json >"$tmp/j3" 2>/dev/null
check "... JSON: status mismatch, both build-ids" pyq "$tmp/j3" "
m = [m for m in d['core']['modules'] if m['path'].endswith('/libplug.so')][0]
assert m['status'] == 'mismatch' and m['build_id'] and m['file_build_id'] and m['build_id'] != m['file_build_id'], m"

# ---- --exe and --sysroot ----
mkdir -p "$tmp/moved" "$tmp/root$tmp/bin"
mv "$tmp/bin/crash" "$tmp/moved/crash"
"$PSCOPE" stack --core "$C1" >"$tmp/s4" 2>"$tmp/e4"
check "a missing program is said, with --exe as the way out" \
	grep -q "^pscope stack: crash: cannot open $tmp/bin/crash (No such file or directory): frames in it are not named; give the program with --exe$" "$tmp/e4"
check "... and its frames are module-relative addresses" grep -qE '^#0 0x[0-9a-f]+ crash\+0x[0-9a-f]+ \(crash\)$' "$tmp/s4"
"$PSCOPE" stack --core "$C1" --exe "$tmp/moved/crash" >"$tmp/s5" 2>"$tmp/e5"
check "--exe: named again" grep -qE '^#0 0x[0-9a-f]+ crash_here\+0x[0-9a-f]+ \(crash\)$' "$tmp/s5"
mv "$tmp/moved/crash" "$tmp/root$tmp/bin/crash"
"$PSCOPE" stack --core "$C1" --sysroot "$tmp/root" >"$tmp/s6" 2>"$tmp/e6"
check "--sysroot: the program is found under it" grep -qE '^#0 0x[0-9a-f]+ crash_here\+0x[0-9a-f]+ \(crash\)$' "$tmp/s6"
"$PSCOPE" stack --core "$C1" --sysroot "$tmp/root" --json >"$tmp/j6" 2>/dev/null
check "--sysroot: a library not under it is the host's, of the same build-id, and nothing is said" python3 -c "
import json; d = json.load(open('$tmp/j6'))
m = [m for m in d['core']['modules'] if '/libc.so' in m['path']][0]
assert m['status'] == 'ok' and m['file'] == m['path'], m
assert 'libc' not in open('$tmp/e6').read(), open('$tmp/e6').read()"

# ---- gcore and pscope core of a deadlock: the cycle as live ----
start_quiet_target deadlock || exit 1
D=$TPID
"$PSCOPE" stack "$D" >"$tmp/live" 2>/dev/null
sed -n '/^deadlock:/,/^$/p' "$tmp/live" >"$tmp/live.dl"
check "live: a cycle with ledger and journal" sh -c "grep -q 'ledger (0x[0-9a-f]*) held by' '$tmp/live.dl' && grep -q 'journal (0x[0-9a-f]*) held by' '$tmp/live.dl'"
"$PSCOPE" core "$D" -o "$tmp/ps.core" >/dev/null 2>&1
if command -v gcore >/dev/null; then
	gcore -o "$tmp/g" "$D" >/dev/null 2>&1
	"$PSCOPE" stack --core "$tmp/g.$D" >"$tmp/gs" 2>"$tmp/ge"
	ok $? "gcore's core: exit 0"
	sed -n '/^deadlock:/,/^$/p' "$tmp/gs" >"$tmp/g.dl"
	check "gcore's core: the same cycle as live (threads, locks, functions)" cmp "$tmp/live.dl" "$tmp/g.dl"
	check "gcore's core: no fatal signal" grep -qx "no fatal signal: a snapshot written while a debugger held it stopped (gcore)" "$tmp/gs"
else
	skip "gcore not installed"
	skip "gcore not installed"
	skip "gcore not installed"
fi
kill -9 "$D"
"$PSCOPE" stack --core "$tmp/ps.core" >"$tmp/pss" 2>/dev/null
sed -n '/^deadlock:/,/^$/p' "$tmp/pss" >"$tmp/ps.dl"
check "pscope's core: the same cycle as live" cmp "$tmp/live.dl" "$tmp/ps.dl"
check "pscope's core: no signal" grep -qx "no signal recorded: a snapshot of a running process (gcore, pscope core)" "$tmp/pss"

# ---- pscope cores ----
check "pscope cores: the pattern and its directory" sh -c "grep -qx 'core_pattern: $tmp/k/core.%p' '$tmp/cores.txt' && grep -qx 'cores go to: $tmp/k (files named core.\*)' '$tmp/cores.txt'"
check "pscope cores: both cores, newest first, with signal, PID and program" \
	sh -c "grep -E '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}  SIGSEGV +[0-9]+  crash2? ' '$tmp/cores.txt' | awk '{print \$4, \$NF}' | tr '\n' ' ' | grep -qx '$P2 $C2 $P1 $C1 '"
check "pscope cores --json: the same" pyq "$tmp/cores.json" "
assert d['kind'] == 'file' and d['dir'] == '$tmp/k' and d['core_pattern'] == '$tmp/k/core.%p', d
c = d['cores']; assert [x['pid'] for x in c] == [$P2, $P1], c
assert [x['program'] for x in c] == ['crash2', 'crash'], c
assert all(x['signal'] == 11 and x['signal_name'] == 'SIGSEGV' for x in c), c"
"$PSCOPE" cores --pattern "$tmp/k/core.%p" >"$tmp/cores2.txt"
check "pscope cores --pattern: the same list" sh -c "grep -c SIGSEGV '$tmp/cores2.txt' | grep -qx 2"
cp "$tmp/half" "$tmp/k/core.99999"
"$PSCOPE" cores --pattern "core.%p" --dir "$tmp/k" >"$tmp/cores3.txt"
check "a relative pattern with --dir; a cut core is marked" sh -c "grep -q 'core_pattern is relative' '$tmp/cores3.txt' && grep -q ' (cut short)\$' '$tmp/cores3.txt'"
"$PSCOPE" cores --pattern "|/usr/bin/nosuch-handler %p" >"$tmp/cores4.txt"
check "a pipe to a handler that keeps nothing: said, with how to change it" \
	grep -q "^core_pattern pipes every core to /usr/bin/nosuch-handler, which keeps nothing pscope can read. To keep cores as files: sysctl -w kernel.core_pattern=/var/tmp/core.%e.%p (and the same line in a file of /etc/sysctl.d/ to keep it after a reboot), then \`ulimit -c unlimited\` in the shell that starts the program.$" "$tmp/cores4.txt"
"$PSCOPE" cores --pattern "$tmp/k/core.%e" >"$tmp/cores6.txt"
"$PSCOPE" cores --pattern "$tmp/k/core.%e" --json >"$tmp/cores6.json"
cores_uses_pid=$(cat /proc/sys/kernel/core_uses_pid)
if [ "$cores_uses_pid" = 0 ]; then
	check "a fixed core name with core_uses_pid 0: the overwrite is said, with the fix" \
		grep -qx "warning: every core gets the same name (kernel.core_uses_pid is 0 and the pattern has no %p, %i or %t): each crash overwrites the last core. sysctl -w kernel.core_uses_pid=1 keeps them apart." "$tmp/cores6.txt"
	check "... and in JSON" pyq "$tmp/cores6.json" "assert d['overwrites'] is True, d"
else
	skip "kernel.core_uses_pid is $cores_uses_pid here: no core is overwritten"
	skip "... and in JSON"
fi
check "a name with the PID: no overwrite warning" sh -c "! grep -q 'overwrites the last core' '$tmp/cores.txt'"
mkdir -p "$tmp/sd"
cp "$C1" "$tmp/sd/core.crash.0.0123abcd.$P1.1700000000000000"
: >"$tmp/sd/core.other.0.0123abcd.4242.1700000000000000.zst"
"$PSCOPE" cores --pattern "|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h" --dir "$tmp/sd" --json >"$tmp/cores5.json"
check "systemd-coredump's store: a plain core read, a compressed one named from its file name" pyq "$tmp/cores5.json" "
assert d['kind'] == 'systemd-coredump' and 'coredumpctl dump' in d['advice'], d
c = {x['pid']: x for x in d['cores']}
assert c[$P1]['signal'] == 11 and not c[$P1]['compressed'], c
assert c[4242]['compressed'] and c[4242]['program'] == 'other' and c[4242]['signal'] is None, c"

# ---- compressed cores (systemd-coredump's .zst, .xz, .lz4) ----
"$PSCOPE" stack --core "$C1" >"$tmp/plain" 2>/dev/null
n=4
for z in zst xz lz4; do
	case $z in
	zst) tool=zstd ;;
	xz) tool=xz ;;
	lz4) tool=lz4 ;;
	esac
	if ! command -v $tool >/dev/null; then
		skip "$z: $tool is not installed"
		continue
	fi
	n=$((n + 1))
	Z=$tmp/sd/core.crash.0.0123abcd.$P1.170000000000000$n.$z
	$tool -q -c "$C1" >"$Z"
	mkdir -p "$tmp/tmpdir.$z"
	TMPDIR=$tmp/tmpdir.$z "$PSCOPE" stack --core "$Z" >"$tmp/z.$z" 2>"$tmp/ze.$z"
	ok $? "a $z core: pscope stack --core exits 0"
	check "... its header says it was decompressed" \
		grep -qE "^decompressed from $tool \([0-9.]+[BKMG]\) into a temporary file \([0-9.]+[KMG]\)$" "$tmp/z.$z"
	check "... the same stacks as the plain core" \
		sh -c "sed 1d '$tmp/plain' >'$tmp/a.$z'; sed '1d;/^decompressed from /d' '$tmp/z.$z' | cmp - '$tmp/a.$z'"
	check "... nothing left in TMPDIR (an unnamed private file)" test -z "$(ls -A "$tmp/tmpdir.$z")"
done
if command -v zstd >/dev/null; then
	"$PSCOPE" cores --pattern "|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h" --dir "$tmp/sd" --json >"$tmp/cores6.json"
	check "pscope cores: the compressed cores with their signal, PID and program from their notes" pyq "$tmp/cores6.json" "
z = [x for x in d['cores'] if x['path'].endswith(('.zst', '.xz', '.lz4')) and x['pid'] == $P1]
assert len(z) == $((n - 4)), z
assert all(x['compressed'] and x['signal'] == 11 and x['program'] == 'crash' and x['error'] is None for x in z), z"
	Z=$tmp/crash.zst
	zstd -q -c "$C1" >"$Z"
	size=$(stat -c %s "$Z")
	head -c $((size / 2)) "$Z" >"$tmp/half.zst"
	"$PSCOPE" stack --core "$tmp/half.zst" >"$tmp/zh" 2>"$tmp/zhe"
	ok $? "a .zst cut to half: exit 0"
	check "... it says the data ends early" grep -q "^pscope stack: the zstd data of the core ends early" "$tmp/zhe"
	check "... and still names the signal and the thread" \
		grep -qx "signal SIGSEGV (SEGV_MAPERR: address not mapped to object) at 0x10, in TID $T" "$tmp/zh"
	python3 -c "
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
for i in range(len(b) // 3, len(b) // 3 + 64):
    b[i] ^= 0x5a
open(sys.argv[2], 'wb').write(b)" "$Z" "$tmp/bad.zst"
	"$PSCOPE" stack --core "$tmp/bad.zst" >/dev/null 2>"$tmp/zbe"
	check "a damaged .zst: exit 1, said" sh -c "[ $? = 1 ] && grep -q '^pscope stack: $tmp/bad.zst: the zstd data is damaged (.*): it cannot be decompressed$' '$tmp/zbe'"
	# No room in TMPDIR: a 256 KiB tmpfs in a mount namespace of our own
	# (the machine's mounts are not touched).
	mkdir -p "$tmp/small"
	if unshare -m sh -c "mount -t tmpfs -o size=256k none '$tmp/small'" 2>/dev/null; then
		unshare -m sh -c "mount -t tmpfs -o size=256k none '$tmp/small' && TMPDIR='$tmp/small' '$PSCOPE' stack --core '$Z'" >/dev/null 2>"$tmp/zse"
		check "no room in TMPDIR: exit 1, said with the way out" sh -c "[ $? = 1 ] && grep -q '^pscope stack: decompressing $Z needs more than the .* free in $tmp/small: set TMPDIR to a directory with more room' '$tmp/zse'"
	else
		skip "no mount namespace here: the no-room case is not checked"
	fi
	# libzstd is opened when a .zst core is opened, not linked: one that
	# cannot be loaded (an empty file bound over it in a mount namespace
	# of our own) is said, with the way out.
	zso=$(ldconfig -p | awk '$1 == "libzstd.so.1" { print $NF; exit }')
	zso=$(readlink -f "$zso")
	: >"$tmp/empty.so"
	if [ -f "$zso" ] && unshare -m sh -c "mount --bind '$tmp/empty.so' '$zso'" 2>/dev/null; then
		unshare -m sh -c "mount --bind '$tmp/empty.so' '$zso' && exec '$PSCOPE' stack --core '$Z'" >/dev/null 2>"$tmp/zle"
		check "libzstd that cannot be loaded: exit 1, said with the way out" sh -c "[ $? = 1 ] && grep -q '^pscope stack: $Z is compressed with zstd and libzstd.so.1 cannot be loaded (.*): decompress it by hand (zstd -d -o core $Z) and open that, or install libzstd1$' '$tmp/zle'"
	else
		skip "no mount namespace here: a libzstd that cannot be loaded is not checked"
	fi
else
	skip "zstd is not installed"
fi

# ---- not cores ----
: >"$tmp/empty"
"$PSCOPE" stack --core "$tmp/empty" >/dev/null 2>"$tmp/ee"
check "an empty file: exit 1, said" sh -c "[ $? = 1 ] && grep -q 'is empty: the core was not written' '$tmp/ee'"
"$PSCOPE" stack --core "$PSCOPE" >/dev/null 2>"$tmp/ee"
check "a program instead of a core: exit 1, said" sh -c "[ $? = 1 ] && grep -q 'an ELF file but not a core' '$tmp/ee'"
"$PSCOPE" stack --core "$tmp/nonexistent" >/dev/null 2>"$tmp/ee"
check "a missing core: exit 1, said" sh -c "[ $? = 1 ] && grep -q 'cannot open the core' '$tmp/ee'"
"$PSCOPE" stack --core "$C1" 1 >/dev/null 2>&1
check "--core with a PID: usage error" test $? = 2
"$PSCOPE" stack 1 --exe /bin/true >/dev/null 2>&1
check "--exe without --core: usage error" test $? = 2

done_testing
