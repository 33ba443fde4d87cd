#!/bin/sh
# The /proc/PID/io door (the list's IO_READ_RATE and IO_WRITE_RATE columns)
# in pscope doors, its JSON and the Doors screen: open as root; closed for
# nobody without capabilities against a root process, with why, the door
# and how to open it.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8

if ! command -v setpriv >/dev/null || [ "$(id -u)" != 0 ]; then
	skip "needs root and setpriv to become nobody"
	done_testing
	exit 0
fi
# nobody must be able to run the binary: copy it to a 755 directory.
bin=$(mktemp -d /tmp/pscope-doors-io.XXXXXX)
at_exit "rm -rf $bin"
cp "$PSCOPE" "$bin/" && chmod 755 "$bin" "$bin/pscope"
NP="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all"

start_target family 0 ps-io-$$ || exit 1
P=$TPID
check "the target is root's" test "$(stat -c %u /proc/$P)" = 0

"$PSCOPE" doors "$P" >"$bin/root.txt" 2>&1
ok $? "pscope doors PID as root exits 0"
check "root: read I/O counters is open" grep -qx "  read I/O counters         open" "$bin/root.txt"
check "root: the probe names /proc/PID/io and the columns" \
	grep -qx "      probe: read /proc/$P/io (the list's IO_READ_RATE and IO_WRITE_RATE columns)" "$bin/root.txt"
check "the tool table lists the I/O rate columns' door" \
	grep -qx "      syscalls:   read /proc/PID/io" "$bin/root.txt"

cd "$bin" || exit 1
$NP "$bin/pscope" doors "$P" >"$bin/np.txt" 2>&1
check "pscope doors PID as nobody exits 0" test $? = 0
check "nobody: read I/O counters is CLOSED" grep -qx "  read I/O counters         CLOSED" "$bin/np.txt"
check "nobody: why names /proc/PID/io and the uids" \
	grep -qx "      why:   cannot read /proc/$P/io: process $P belongs to uid 0 and we are uid $(id -u nobody) without CAP_SYS_PTRACE" "$bin/np.txt"
check "nobody: the door" sh -c "grep -A3 -x '  read I/O counters         CLOSED' '$bin/np.txt' | grep -qx '      door:  CAP_SYS_PTRACE (process of another user)'"
check "nobody: how to open it" sh -c "grep -A4 -x '  read I/O counters         CLOSED' '$bin/np.txt' | grep -qx '      fix:   run pscope as root, or grant it CAP_SYS_PTRACE (setcap cap_sys_ptrace+ep pscope)'"
check "nobody: the tool table says closed for others' processes" \
	grep -qE "^  pscope I/O rate columns +yours: open +others: closed$" "$bin/np.txt"
$NP "$bin/pscope" doors "$P" --json >"$bin/np.json" 2>&1
check "JSON: operations.read_io refused, with its door and fix" python3 - "$bin/np.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["operations"]["read_io"]
assert o["allowed"] is False and o["state"] == "closed", o
assert "/io" in o["refused"]["message"] and o["refused"]["door"] and o["refused"]["fix"], o
PY

# The Doors screen (D) says the same, as nobody.
if command -v tmux >/dev/null; then
	tui_start 160x50 "env NO_COLOR=1 $NP $bin/pscope -p $P; echo EXIT=\$?; sleep 60"
	check "detail screen up (nobody)" tui_wait_for "PID $P"
	tui_keys D
	check "doors screen up" tui_wait_for 'Doors: what the kernel lets pscope do'
	check "the Doors screen: read I/O counters CLOSED" tui_wait_for "read I/O counters +CLOSED"
	check "the Doors screen: the probe of /proc/$P/io" tui_wait_for "probe: read /proc/$P/io"
	tui_keys Escape Escape
	tui_keys q
	check "q: exit 0" tui_wait_for '^EXIT=0'
else
	skip "tmux is not installed"
fi
done_testing
