# Shared by the pscope time tests (sourced after tests/lib.sh): a
# time-target started in a scratch directory on disk, and one window fenced
# by SIGSTOP (see time.sh) with the checks of a tier's JSON against the
# test's own readings of schedstat and status.
tmp=$(mktemp -d "$top_builddir/tests/pscope-time.XXXXXX") # on disk: fdatasync waits for it
time_target=$TARGETS/time-target
if [ -n "${TIME_TARGET_AS:-}" ]; then
	# Another user runs the target and pscope: copies in a directory it can
	# reach whatever the permissions of the build tree (on disk as well),
	# and writable, for the target writes its file there.
	rm -rf "$tmp"
	tmp=$(mktemp -d /var/tmp/pscope-time.XXXXXX)
	cp "$PSCOPE" "$tmp/pscope" && cp "$TARGETS/time-target" "$tmp/time-target" || exit 1
	PSCOPE=$tmp/pscope time_target=$tmp/time-target
	chmod 777 "$tmp"
	chmod 755 "$tmp/pscope" "$tmp/time-target"
fi
at_exit "rm -rf $tmp"

SLEEPS=200
PAGES=2000
${TIME_TARGET_AS:-} "$time_target" "$tmp" -1 $SLEEPS $PAGES >"$tmp/target.out" 2>&1 &
TPID=$!
at_exit "kill -9 $TPID 2>/dev/null"
poll 100 grep -q ready "$tmp/target.out"
ok $? "the target is ready"

# schedstat and switches of every thread: "tid name run_ns wait_ns vol invol" lines.
schedstat() {
	for t in /proc/$TPID/task/*; do
		echo "${t##*/} $(cat "$t/comm") $(cut -d' ' -f1,2 "$t/schedstat")" \
			"$(awk '/^voluntary_ctxt/ { v = $2 } /^nonvoluntary_ctxt/ { n = $2 } END { print v, n }' "$t/status")"
	done
}

# SIGSTOP takes effect when each thread next runs (one in fdatasync only
# after its I/O): wait until every thread is stopped.
stop_target() {
	kill -STOP $TPID
	poll 300 sh -c 'cat /proc/$1/task/*/stat | sed "s/.*) //" | cut -c1 | sort -u | tr -d "\n" | grep -qx T' - $TPID
}

bursts=0
# measure NAME [COMMAND...]: one fenced window on the tier NAME starts
# with (bpf-nosys: bpf); pscope's JSON in $tmp/NAME.json. COMMAND runs
# pscope (setpriv ... to drop privileges); $TIME_ARGS are more options.
measure() {
	local tier=$1 go=$tmp/$1.go pp
	shift
	rm -f "$go" "$tmp/$tier.err"
	stop_target || return 1
	schedstat >"$tmp/$tier.s0"
	head -1 /proc/stat >"$tmp/$tier.c0"
	PSCOPE_TEST_PAUSE=time-window PSCOPE_TEST_PAUSE_FILE=$go \
		"$@" "$PSCOPE" time $TPID --tier "${tier%%-*}" ${TIME_ARGS:-} --duration 600 --json >"$tmp/$tier.json" 2>"$tmp/$tier.err" &
	pp=$!
	poll 300 grep -q "paused at time-window" "$tmp/$tier.err" || { kill -CONT $TPID; kill $pp; return 1; }
	kill -CONT $TPID
	kill -USR1 $TPID
	bursts=$((bursts + 1))
	touch "$go"
	poll 300 grep -q "^burst $bursts " "$tmp/target.out" || { kill $pp; return 1; }
	sleep 1 # the workload runs a while: on CPU, run queue, futex, I/O
	stop_target || return 1
	schedstat >"$tmp/$tier.s1"
	head -1 /proc/stat >"$tmp/$tier.c1"
	kill -INT $pp
	wait $pp
	local rc=$?
	kill -CONT $TPID
	return $rc
}

# against_snapshots PREFIX KEY COLUMN FRACTION SLACK PER_WAKEUP [STOLEN]:
# each thread's KEY (a.b: t["a"]["b"]) in PREFIX.json within FRACTION
# (+SLACK, +PER_WAKEUP a voluntary switch) of the difference of COLUMN in
# the test's snapshots PREFIX.s0 and .s1 (tid, name, on CPU, run queue,
# voluntary and involuntary switches). STOLEN=1: also + the machine's
# steal, irq and softirq time over the window (/proc/stat, PREFIX.c0 and
# .c1): schedstat's on-CPU time runs on the run queue's task clock, which
# stops while the hypervisor runs another guest or an interrupt is served,
# where the tracers' switch timestamps (the monotonic clock) go on; on a
# loaded host that is several percent of a busy thread's window.
against_snapshots() {
	python3 - "$@" <<'EOF'
import json, os, sys
p, key, col = sys.argv[1], sys.argv[2], int(sys.argv[3])
frac, slack, per_wake = (float(x) for x in sys.argv[4:7])
if len(sys.argv) > 7 and sys.argv[7] == "1":
    c0, c1 = (open(p + e).read().split() for e in (".c0", ".c1"))
    # cpu user nice system idle iowait irq softirq steal: 6, 7, 8
    stolen = sum(int(c1[i]) - int(c0[i]) for i in (6, 7, 8)) * 1e9 / os.sysconf("SC_CLK_TCK")
    print("# steal + irq + softirq over the window: %.1f ms" % (stolen / 1e6))
    slack += stolen
d = json.load(open(p + ".json"))
s0 = {l.split()[0]: l.split() for l in open(p + ".s0")}
s1 = {l.split()[0]: l.split() for l in open(p + ".s1")}
th = {str(t["tid"]): t for t in d["threads"]}
bad = []
for tid, a in s1.items():
    want = int(a[col]) - int(s0[tid][col])
    wakes = int(a[4]) - int(s0[tid][4])
    got = th[tid]
    for k in key.split("."):
        got = got[k]
    if abs(got - want) > frac * want + slack + per_wake * wakes:
        bad.append((a[1], key, got, want))
assert not bad, bad
EOF
}

# The checks of one tier's JSON against the test's own readings.
check_tier() {
	local tier=$1
	# schedstat takes the clock the wakeup read when the scheduler skips its
	# own update right after (rq_clock_skip_update): the few microseconds
	# a woken thread waits for the CPU to come back from idle count there as
	# on CPU, on the context switch (BPF, tracepoints) as run queue. So 20
	# us more per voluntary switch.
	check "$tier: on-CPU time of each thread within 5% (+2 ms, +20 us a wakeup) of Δschedstat" \
		against_snapshots "$tmp/$tier" on_cpu_ns 2 0.05 2e6 20000 1
	check "$tier: run-queue time of each thread within 5% (+2 ms, +20 us a wakeup) of Δschedstat" \
		against_snapshots "$tmp/$tier" runqueue_ns 3 0.05 2e6 20000
	check "$tier: JSON has the documented keys" python3 - "$tmp/$tier.json" "$TPID" "$tier" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("tier", "window_s", "threads", "process"):
    assert k in d, k
assert d["tier"] == sys.argv[3].split("-")[0] and d["pid"] == int(sys.argv[2]), (d["tier"], d["pid"])
keys = ["tid", "name", "on_cpu_pct", "runqueue_pct", "blocked_pct", "blocked", "switches", "faults", "syscalls", "runqueue_hist"]
for t in d["threads"]:
    for k in keys:
        assert k in t, (k, t)
    assert sorted(t["blocked"]) == sorted(["lock", "sleep", "poll", "io", "pipe_socket", "fault", "other"]), t["blocked"]
    assert sorted(t["switches"]) == ["involuntary", "voluntary"] and sorted(t["faults"]) == ["major", "minor", "ns"]
    for s in t["syscalls"]:
        assert {"name", "count", "errors", "total_ns", "avg_ns", "p50_ns", "p99_ns", "max_ns"} <= set(s), s
for k in keys[2:]:
    assert k in d["process"], k
m = d["psi"]["machine"]
assert sorted(m) == ["cpu", "io", "memory"], m
for r, v in m.items():
    assert 0 <= v["some_pct"] <= 100.5, (r, v)
assert len(d["threads"]) == 8, len(d["threads"])
EOF
	check "$tier: the faulter counted its $PAGES fresh pages (minor faults)" python3 - "$tmp/$tier.json" "$PAGES" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
f = [t for t in d["threads"] if t["name"] == "faulter"][0]["faults"]
n = int(sys.argv[2])
assert n <= f["minor"] <= n + 64 and f["major"] == 0, f
EOF
	check "$tier: reasons named: io in I/O, the lockers in futex/lock" python3 - "$tmp/$tier.json" "${tier%%-*}" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
th = {t["name"]: t for t in d["threads"]}
b = th["io"]["blocked"]
assert max(b, key=b.get) == "io", b
# Each locker waits on the futex while the other holds the mutex. A
# traced tier sees every wait of both; the /proc tier samples states, and
# on a busy machine one of the two may be caught only running or runnable.
lk = [th[n]["blocked"]["lock"] for n in ("lock1", "lock2")]
if sys.argv[2] == "proc":
    assert sum(lk) > 0, lk
else:
    assert min(lk) > 0, lk
assert th["burn1"]["runqueue_pct"] > 0 and th["burn2"]["runqueue_pct"] > 0
EOF
	# Two burners pinned to one CPU: preempted, never blocked. Whatever
	# else shares their CPU, each is on it or waiting for it (or stopped
	# by the fence), on every tier.
	check "$tier: preemption is run-queue wait: the pinned burners are never blocked" python3 - "$tmp/$tier.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
th = {t["name"]: t for t in d["threads"]}
for n in ("burn1", "burn2"):
    t = th[n]
    assert t["blocked_pct"] <= 1.0 and sum(t["blocked"].values()) <= 1.0, (n, t["blocked_pct"], t["blocked"])
    assert t["runqueue_pct"] >= 20, (n, t["runqueue_pct"])
    # The /proc tier reads each thread's counters at its own moment: the
    # window's edges move by the reads' time (ms under a sanitizer).
    assert t["on_cpu_pct"] + t["runqueue_pct"] + t["stopped_pct"] >= (97 if d["tier"] == "proc" else 98.5), (n, t)
    assert t["switches"]["involuntary"] > 0, (n, t["switches"])
EOF
	check "$tier: voluntary switches of each thread within 5% (+3) of /proc status" \
		against_snapshots "$tmp/$tier" switches.voluntary 4 0.05 3 0
	check "$tier: involuntary switches of each thread within 5% (+3) of /proc status" \
		against_snapshots "$tmp/$tier" switches.involuntary 5 0.05 3 0
}

