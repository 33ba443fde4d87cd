#!/bin/sh
# pscope doors as an unprivileged user (nobody, no capabilities), against a
# root process, against its own process, against its own non-dumpable
# process, and with nowhere to write a core: each operation's result and
# message, exactly.
. "$top_srcdir/tests/lib.sh"

if ! command -v setpriv >/dev/null || [ "$(id -u)" != 0 ]; then
	skip "needs root and setpriv to become nobody"
	done_testing
	exit 0
fi

# nobody must be able to run the binaries: copy them to a 755 directory.
bin=$(mktemp -d /tmp/pscope-doors-np.XXXXXX)
at_exit "rm -rf $bin"
cp "$PSCOPE" "$TARGETS/lab-fdleak" "$TARGETS/lab-nodump" "$bin/"
mkdir "$bin/work" "$bin/out"
chmod 755 "$bin" "$bin/pscope" "$bin/lab-fdleak" "$bin/lab-nodump"
chmod 777 "$bin/work"
out=$bin/out
NP="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all"
np() { $NP "$@"; }
NOBODY=$(id -u nobody)

# Start a target as nobody; sets NPID. start_target runs $TARGETS/NAME: a
# wrapper there execs the target as nobody, keeping the PID.
start_nobody() { # start_nobody NAME ARGS...
	local name=$1; shift
	printf '#!/bin/sh\nexec %s %s "$@"\n' "$NP" "$bin/$name" >"$bin/as-nobody-$name"
	chmod 755 "$bin/as-nobody-$name"
	local targets=$TARGETS r=0
	TARGETS=$bin
	start_target "as-nobody-$name" "$@" || r=1
	TARGETS=$targets
	NPID=$TPID
	return $r
}

p=$(cat /proc/sys/kernel/perf_event_paranoid)
debian=no
uname -v | grep -qE 'Debian|Ubuntu' && debian=yes
perf_closed=no
[ "$p" -ge 3 ] && [ $debian = yes ] && perf_closed=yes

# Exact lines of one operation: line OP WORD [WHY DOOR FIX]
op_line() { printf '  %-26s%s' "$1" "$2"; }
expect_closed() { # expect_closed FILE OP WHY DOOR FIX
	local f=$1 op=$2
	check "$op closed" grep -qx "$(op_line "$op" CLOSED)" "$f"
	check "$op: why" grep -qxF "      why:   $3" "$f"
	check "$op: door" grep -qxF "      door:  $4" "$f"
	check "$op: fix" grep -qxF "      fix:   $5" "$f"
}

# --- A root process.
start_target lab-fdleak 50 || exit 1
R=$TPID
(cd "$bin/work" && np "$bin/pscope" doors $R) >"$out/root.txt" 2>&1
ok $? "nobody: pscope doors ROOT_PID runs"
check "nobody: uid shown" grep -qx "  uid / gid *$NOBODY (nobody) / $(id -g nobody)" "$out/root.txt"
check "nobody: no capabilities" grep -qx "  effective capabilities *none" "$out/root.txt"
check "nobody: perf_event_paranoid is /proc/sys's" grep -qx "  kernel.perf_event_paranoid *$p: .*" "$out/root.txt"
uidfix="run pscope as root or as uid 0, or grant it CAP_SYS_PTRACE (setcap cap_sys_ptrace+ep pscope)"
uidwhy="process $R belongs to uid 0 and we are uid $NOBODY without CAP_SYS_PTRACE"
uiddoor="CAP_SYS_PTRACE (process of another user)"
expect_closed "$out/root.txt" "read /proc" "cannot read /proc/$R/fd: $uidwhy" "$uiddoor" "$uidfix"
expect_closed "$out/root.txt" "read memory" "cannot read the memory of process $R: $uidwhy" "$uiddoor" "$uidfix"
expect_closed "$out/root.txt" "attach (ptrace)" "cannot attach to process $R: $uidwhy" "$uiddoor" "$uidfix"
if [ $perf_closed = yes ]; then
	expect_closed "$out/root.txt" "sample (perf_event_open)" \
		"cannot sample process $R: kernel.perf_event_paranoid is $p (Debian: no perf_event_open for unprivileged users)" \
		"kernel.perf_event_paranoid" \
		"sysctl -w kernel.perf_event_paranoid=2 (user-space sampling of your own processes), or grant CAP_PERFMON, or run as root"
else
	expect_closed "$out/root.txt" "sample (perf_event_open)" "cannot sample process $R: $uidwhy" "$uiddoor" \
		"run pscope as root or as uid 0, or grant it CAP_SYS_PTRACE (perf_event_open on another user's process needs ptrace read access; CAP_PERFMON alone is not enough)"
fi
expect_closed "$out/root.txt" "write a core" "cannot write a core of process $R: $uidwhy" "$uiddoor" "$uidfix"
expect_closed "$out/root.txt" "send a signal" \
	"cannot signal process $R: process $R belongs to uid 0 and we are uid $NOBODY without CAP_KILL" \
	"CAP_KILL (signal to another user's process)" "run pscope as root or as uid 0 (CAP_KILL)"
check "root process: dumpable cannot be told" grep -qx "  dumpable *cannot tell from outside: it runs as root, so the files of /proc/$R are root's either way" "$out/root.txt"
check "root process still runs, untraced" runs_on_soon $R
check "tool table: others' stacks closed for nobody" grep -qE "^  pscope stack dump +yours: open +others: closed$" "$out/root.txt"
(cd "$bin/work" && np "$bin/pscope" doors --json $R) >"$out/root.json"
check "JSON: every operation refused, with door and fix" python3 - "$out/root.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for k, o in d["operations"].items():
    assert o["allowed"] is False and o["state"] == "closed", (k, o)
    assert o["refused"]["message"].startswith("cannot "), o
    assert o["refused"]["door"] and o["refused"]["fix"], o
assert d["self"]["cap_effective"] == []
EOF

# --- Its own process.
start_nobody lab-fdleak 50 || exit 1
O=$NPID
(cd "$bin/work" && np "$bin/pscope" doors $O) >"$out/own.txt" 2>&1
ok $? "nobody: pscope doors OWN_PID runs"
check "own: dumpable" grep -qx "  dumpable *yes: the files of /proc/$O belong to its uid $NOBODY" "$out/own.txt"
for w in "read /proc" "read memory" "attach (ptrace)" "write a core" "send a signal"; do
	check "own: $w open" grep -qx "$(op_line "$w" open)" "$out/own.txt"
done
if [ $perf_closed = yes ]; then
	check "own: sampling closed by Debian's paranoid 3" grep -qx "$(op_line "sample (perf_event_open)" CLOSED)" "$out/own.txt"
elif [ "$p" -le 1 ]; then
	check "own: sampling open, kernel frames too" grep -qx "$(op_line "sample (perf_event_open)" open)    user and kernel space" "$out/own.txt"
else
	check "own: sampling open, user space only (paranoid $p)" grep -qx \
		"$(op_line "sample (perf_event_open)" open)    user space only: kernel frames are refused (kernel.perf_event_paranoid)" "$out/own.txt"
fi
check "own process still runs, untraced" runs_on_soon $O

# --- With nowhere to write: the core door is the filesystem.
(cd / && np "$bin/pscope" doors $O) >"$out/ro.txt" 2>&1
expect_closed "$out/ro.txt" "write a core" "cannot create a file in /: Permission denied" "filesystem" \
	"choose a directory you can write to (-o FILE)"
# ... and pscope core itself says the same.
(cd / && np "$bin/pscope" core $O) >/dev/null 2>"$out/core-ro.txt"
check "pscope core there: the same sentence, door and fix" grep -qxF \
	"pscope core: cannot create a file in /: Permission denied (door: filesystem; fix: choose a directory you can write to (-o FILE))" "$out/core-ro.txt"

# --- Its own process, not dumpable.
start_nobody lab-nodump || exit 1
N=$NPID
(cd "$bin/work" && np "$bin/pscope" doors $N) >"$out/nodump.txt" 2>&1
check "nodump: dumpable no" grep -qx "  dumpable *no: the files of /proc/$N belong to root though it runs as uid $NOBODY (setuid/setgid, or prctl(PR_SET_DUMPABLE, 0))" "$out/nodump.txt"
ndwhy="process $N is not dumpable (its /proc/$N files are owned by root: a setuid/setgid program, or prctl(PR_SET_DUMPABLE, 0))"
ndfix="run pscope as root (CAP_SYS_PTRACE), or let the program call prctl(PR_SET_DUMPABLE, 1)"
expect_closed "$out/nodump.txt" "read /proc" "cannot read /proc/$N/fd: $ndwhy" "target not dumpable" "$ndfix"
expect_closed "$out/nodump.txt" "read memory" "cannot read the memory of process $N: $ndwhy" "target not dumpable" "$ndfix"
expect_closed "$out/nodump.txt" "attach (ptrace)" "cannot attach to process $N: $ndwhy" "target not dumpable" "$ndfix"
expect_closed "$out/nodump.txt" "write a core" "cannot write a core of process $N: $ndwhy" "target not dumpable" "$ndfix"
if [ $perf_closed = no ]; then
	expect_closed "$out/nodump.txt" "sample (perf_event_open)" "cannot sample process $N: $ndwhy" "target not dumpable" "$ndfix"
fi
check "nodump: a signal is still allowed" grep -qx "$(op_line "send a signal" open)" "$out/nodump.txt"
# ... and root may: CAP_SYS_PTRACE opens the dumpable door.
$PSCOPE doors $N >"$out/nodump-root.txt" 2>&1
check "nodump as root: attach open" grep -qx "$(op_line "attach (ptrace)" open)" "$out/nodump-root.txt"
check "nodump as root: dumpable seen as no" grep -q "^  dumpable *no: " "$out/nodump-root.txt"

done_testing
