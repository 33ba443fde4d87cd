#!/bin/sh
# pscope doors as root: the values it prints are what /proc/sys holds, each
# operation is probed for real and leaves the target running, and a traced
# target, a kernel thread and a missing PID are explained.
. "$top_srcdir/tests/lib.sh"

# core-read.sh points core_pattern at its own directory for a moment,
# under this lock: hold it shared so the values compared stay put.
touch /tmp/pscope-core_pattern.lock 2>/dev/null
[ -r /tmp/pscope-core_pattern.lock ] && exec 9</tmp/pscope-core_pattern.lock && flock -s 9

out=$(mktemp -d /tmp/pscope-doors.XXXXXX)
at_exit "rm -rf $out"

# The value column of a "  key   value" line of the text report.
value_of() { # value_of KEY FILE
	awk -v k="$1" 'substr($0, 1, length(k) + 3) == "  " k " " { sub(/^  [^ ]+ +/, ""); print; exit }' "$2"
}

$PSCOPE doors >"$out/sys.txt" 2>&1
ok $? "pscope doors runs"

p=$(cat /proc/sys/kernel/perf_event_paranoid)
check "perf_event_paranoid is /proc/sys's ($p)" grep -qx "  kernel.perf_event_paranoid *$p: .*" "$out/sys.txt"
k=$(cat /proc/sys/kernel/kptr_restrict)
check "kptr_restrict is /proc/sys's ($k)" grep -qx "  kernel.kptr_restrict *$k: .*" "$out/sys.txt"
r=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
check "perf_event_max_sample_rate is /proc/sys's ($r)" grep -qx "  kernel.perf_event_max_sample_rate *$r Hz: .*" "$out/sys.txt"
cp=$(cat /proc/sys/kernel/core_pattern)
got=$(value_of kernel.core_pattern "$out/sys.txt")
ok "$([ "$got" = "$cp  (the kernel's own dumps; pscope core writes its file itself)" ]; echo $?)" "core_pattern is /proc/sys's"
if [ -e /proc/sys/kernel/yama/ptrace_scope ]; then
	y=$(cat /proc/sys/kernel/yama/ptrace_scope)
	check "ptrace_scope is /proc/sys's ($y)" grep -qx "  kernel.yama.ptrace_scope *$y: .*" "$out/sys.txt"
else
	check "no Yama: says so" grep -qx "  kernel.yama.ptrace_scope *Yama not present: ptrace is limited by uid, dumpable and capabilities only" "$out/sys.txt"
fi
check "kernel is uname's" grep -qx "  kernel *$(uname -s) $(uname -r) .*$(uname -m)" "$out/sys.txt"
if [ -d /sys/bus/event_source/devices/cpu ] || [ -d /sys/bus/event_source/devices/cpu_core ]; then
	check "hardware PMU found" grep -q "^  hardware PMU *yes: " "$out/sys.txt"
else
	check "no hardware PMU: says so and names the fallback" grep -qx "  hardware PMU *no: perf_event_open(cycles) says .*; sampling falls back to the cpu-clock software event" "$out/sys.txt"
fi
check "our uid" grep -qx "  uid / gid *$(id -u) .*/ $(id -g)" "$out/sys.txt"
sc=$(awk '/^Seccomp:/{print $2}' /proc/self/status)
check "our seccomp mode ($sc)" grep -qx "  seccomp *$sc: .*" "$out/sys.txt"
check "no PID: says how to probe one" grep -q "^No process chosen: " "$out/sys.txt"
check "tool table lists gdb, perf, py-spy and bpftrace" sh -c "grep -q '^  gdb -p PID' '$out/sys.txt' && grep -q '^  perf record -p PID' '$out/sys.txt' && grep -q '^  py-spy' '$out/sys.txt' && grep -q '^  bpftrace' '$out/sys.txt'"

# JSON: the same values, typed.
$PSCOPE doors --json >"$out/sys.json"
ok $? "pscope doors --json runs"
check "JSON values are /proc/sys's" python3 - "$out/sys.json" <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
s = d["system"]
rd = lambda p: open(p).read().rstrip("\n")
assert s["perf_event_paranoid"]["value"] == int(rd("/proc/sys/kernel/perf_event_paranoid")), s
assert s["kptr_restrict"]["value"] == int(rd("/proc/sys/kernel/kptr_restrict")), s
assert s["perf_event_max_sample_rate"] == int(rd("/proc/sys/kernel/perf_event_max_sample_rate")), s
assert s["core_pattern"] == rd("/proc/sys/kernel/core_pattern"), s
y = "/proc/sys/kernel/yama/ptrace_scope"
assert s["yama"] == os.path.exists(y)
assert s["ptrace_scope"]["value"] == (int(rd(y)) if os.path.exists(y) else None)
assert s["hardware_pmu"] == (os.path.isdir("/sys/bus/event_source/devices/cpu") or os.path.isdir("/sys/bus/event_source/devices/cpu_core")), s
assert d["self"]["uid"] == os.getuid()
caps = int([l for l in open("/proc/self/status") if l.startswith("CapEff:")][0].split()[1], 16)
assert len(d["self"]["cap_effective"]) == bin(caps).count("1"), d["self"]
assert "target" not in d and "operations" not in d
assert len(d["tools"]) >= 10 and all(t["syscalls"] and t["permission"] for t in d["tools"])
EOF

# A process of ours (root): every door open, and the target never stopped.
start_target lab-fdleak 50 || exit 1
$PSCOPE doors $TPID >"$out/own.txt" 2>&1
ok $? "pscope doors PID runs"
for w in "read /proc" "read memory" "attach (ptrace)" "write a core" "send a signal"; do
	check "root: $w is open" grep -qx "  $(printf '%-26s' "$w")open" "$out/own.txt"
done
check "root: sampling is open, kernel frames included" grep -qx "  sample (perf_event_open)  open    user and kernel space" "$out/own.txt"
check "the target is named" grep -qx "Target PID $TPID (lab-fdleak)" "$out/own.txt"
check "coredump_filter is /proc's" grep -qx "  coredump_filter *0x$(sed 's/^0*//' /proc/$TPID/coredump_filter): .*" "$out/own.txt"
check "the attach probe left the target running, untraced" runs_on_soon $TPID
# The cgroup and its systemd unit: a unit made for the test in systemd's own
# hierarchy (v1 layout) or the unified one, where root can make one.
cgdir=
for h in /sys/fs/cgroup/systemd /sys/fs/cgroup/unified /sys/fs/cgroup; do
	if [ -w "$h/cgroup.procs" ] && mkdir "$h/pscope-lab-$$.slice" 2>/dev/null; then
		cgdir=$h/pscope-lab-$$.slice
		break
	fi
done
if [ -n "$cgdir" ] && mkdir "$cgdir/lab-doors.service" && echo "$TPID" >"$cgdir/lab-doors.service/cgroup.procs"; then
	at_exit "echo $TPID >${cgdir%/*}/cgroup.procs 2>/dev/null; rmdir $cgdir/lab-doors.service $cgdir 2>/dev/null"
	$PSCOPE doors $TPID >"$out/cg.txt" 2>&1
	check "cgroup: the path and its systemd unit" grep -qx "  cgroup *$(grep -o '/pscope-lab-.*' /proc/$TPID/cgroup | head -1) (systemd unit lab-doors.service, in pscope-lab-$$.slice)" "$out/cg.txt"
	$PSCOPE doors $TPID --json >"$out/cg.json"
	check "... and in JSON" python3 -c "import json; t = json.load(open('$out/cg.json'))['target']; assert t['systemd_unit'] == 'lab-doors.service' and t['systemd_slice'] == 'pscope-lab-$$.slice', t"
	echo "$TPID" >"${cgdir%/*}/cgroup.procs"
else
	[ -n "$cgdir" ] && rmdir "$cgdir" 2>/dev/null
	skip "cgroup: no writable cgroup hierarchy here"
	skip "... and in JSON"
fi
check "the memory probe names its address" grep -q "^      probe: process_vm_readv of 1 byte at 0x[0-9a-f]* (its first readable mapping)$" "$out/own.txt"
$PSCOPE doors $TPID --json >"$out/own.json"
check "JSON: every operation allowed" python3 - "$out/own.json" "$TPID" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["target"]["pid"] == int(sys.argv[2])
assert d["target"]["tracer_pid"] == 0
ops = d["operations"]
assert set(ops) == {"read_proc", "read_io", "read_mem", "attach", "sample", "core", "signal"}, ops
for k, o in ops.items():
    assert o["allowed"] is True and o["state"] == "open" and o["refused"] is None, (k, o)
EOF
# Probing many times never stops or keeps the target.
for i in 1 2 3 4 5 6 7 8 9 10; do $PSCOPE doors $TPID >/dev/null; done
check "ten probes later the target still runs, untraced" runs_on_soon $TPID

# A traced process: the attach and the core name the tracer.
start_target lab-tracer || exit 1
tracer=$TPID
child=$(awk '{print $1}' /proc/$tracer/task/$tracer/children)
$PSCOPE doors "$child" >"$out/traced.txt" 2>&1
check "traced: TracerPid shown" grep -qx "  TracerPid *$tracer (lab-tracer): already traced; no other tracer can attach" "$out/traced.txt"
check "traced: attach closed" grep -qx "  attach (ptrace)           CLOSED" "$out/traced.txt"
check "traced: why" grep -qx "      why:   cannot attach to process $child: process $child is already traced by PID $tracer (lab-tracer)" "$out/traced.txt"
check "traced: door" grep -qx "      door:  already traced" "$out/traced.txt"
check "traced: fix" grep -qx "      fix:   detach the other tracer (quit gdb/strace on PID $tracer) and try again" "$out/traced.txt"
check "traced: the core is refused for the same reason" grep -qx "      why:   cannot write a core of process $child: process $child is already traced by PID $tracer (lab-tracer)" "$out/traced.txt"
check "traced: memory can still be read" grep -qx "  read memory               open" "$out/traced.txt"
check "traced: still traced by its tracer only" sh -c "grep -q '^TracerPid:[[:space:]]*$tracer\$' /proc/$child/status"

# Under a seccomp filter that refuses ptrace, process_vm_readv and
# perf_event_open (as a container's may): the seccomp door.
"$TARGETS/lab-seccomp" "$PSCOPE" doors $tracer >"$out/seccomp.txt" 2>&1
check "seccomp: our mode shown" grep -qx "  seccomp *2: filter (a BPF filter decides each syscall)" "$out/seccomp.txt"
check "seccomp: NoNewPrivs shown" grep -qx "  NoNewPrivs *1: file capabilities (setcap) of programs we run are ignored" "$out/seccomp.txt"
check "seccomp: attach closed" grep -qx "  attach (ptrace)           CLOSED" "$out/seccomp.txt"
check "seccomp: why" grep -qxF "      why:   cannot attach to process $tracer: ptrace refused (Operation not permitted) and pscope runs under a seccomp filter (1 filter, e.g. a container's) that may forbid it" "$out/seccomp.txt"
check "seccomp: door" grep -qx "      door:  seccomp" "$out/seccomp.txt"
check "seccomp: fix" grep -qxF "      fix:   run pscope outside the sandbox, or allow perf_event_open in its seccomp profile (docker: --security-opt seccomp=unconfined)" "$out/seccomp.txt"
check "seccomp: /proc still readable" grep -qx "  read /proc                open" "$out/seccomp.txt"
check "seccomp: the PMU cannot be told" grep -q "^  hardware PMU *cannot tell: perf_event_open(cycles) was refused (Operation not permitted)" "$out/seccomp.txt"

# A kernel thread: nothing in user space.
$PSCOPE doors 2 >"$out/kthread.txt" 2>&1
check "kernel thread: no memory to read" grep -qx "  read memory               n/a" "$out/kthread.txt"
check "kernel thread: why" grep -qx "      why:   no user memory (a kernel thread or a zombie)" "$out/kthread.txt"

# Bad input.
$PSCOPE doors 4194303 >"$out/none.txt" 2>&1
ok "$([ $? = 1 ]; echo $?)" "a missing PID fails with status 1"
check "a missing PID is named" grep -qx "pscope doors: no process with PID 4194303" "$out/none.txt"
$PSCOPE doors 12x >/dev/null 2>"$out/bad.txt"
ok "$([ $? = 2 ]; echo $?)" "a bad PID is a usage error"
check "a bad PID is quoted" grep -qx "pscope: invalid PID '12x'" "$out/bad.txt"
for f in "" --json; do
	$PSCOPE doors $f >/dev/full 2>"$out/full.txt"
	ok "$([ $? = 1 ]; echo $?)" "a full disk fails with status 1 ($f)"
	check "a full disk is said ($f)" grep -q "^pscope doors: cannot write the output" "$out/full.txt"
done
$PSCOPE doors 1 2 >/dev/null 2>&1
ok "$([ $? = 2 ]; echo $?)" "two PIDs are a usage error"

done_testing
