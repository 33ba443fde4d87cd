#!/bin/bash
# pscope time on every tier this machine allows (forced with --tier): the
# target's threads spend their time in known places (tests/targets/
# time-target.c). The window is fenced by SIGSTOP: the test stops the
# target, reads every thread's schedstat, lets pscope start, resumes the
# target and fires its burst (200 clock_nanosleep of 1 ms, 2000 fresh
# pages), stops it again, reads schedstat, and only then ends pscope
# (SIGINT). Both read the same stretch of the threads' lives, so on-CPU and
# run-queue time compare against Δschedstat, and the burst's counts are
# exact.
. "$top_srcdir/tests/lib.sh"

. "$top_srcdir/tests/e2e/time-lib.sh"

tiers=""
for t in bpf trace; do
	if [ "$(id -u)" = 0 ] && "$PSCOPE" time $TPID --tier $t --duration 0.01 >/dev/null 2>"$tmp/probe.err"; then
		tiers="$tiers $t"
	else
		no_crash_in "$tmp/probe.err" "probe of the $t tier"
		diag "no $t tier here: $(cat "$tmp/probe.err")"
	fi
done
tiers="$tiers proc"

for tier in $tiers; do
	# The tracepoint tier traces every event only below its rate: on a
	# busy machine the exact counts below need it raised.
	TIME_ARGS=$([ "$tier" = trace ] && echo "--rate 10000000") measure "$tier"
	ok $? "$tier: pscope time measured the fenced window"
	check_tier "$tier"
done
if [ "${tiers#*bpf}" != "$tiers" ]; then
	# Without the syscall programs: the same shares and reasons (the
	# syscall a thread blocks in from its saved registers), no table.
	TIME_ARGS=--no-syscalls measure bpf-nosys
	ok $? "bpf --no-syscalls: pscope time measured the fenced window"
	check_tier bpf-nosys
	check "bpf --no-syscalls: no syscall table; the sleeper's sleep still named" python3 - "$tmp/bpf-nosys.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert all(not t["syscalls"] for t in d["threads"]), "syscalls without the syscall programs"
s = [t for t in d["threads"] if t["name"] == "sleeper"][0]
assert s["blocked"]["sleep"] > 0, s["blocked"]
assert "--no-syscalls" in d["source"], d["source"]
EOF
fi

if [ "${tiers#*bpf}" != "$tiers" ]; then
	# A kernel that refuses tp_btf: the raw_tp programs (forced with the
	# test hook), the same figures, and the source line says so and why.
	measure bpf-rawtp env PSCOPE_TEST_BPF_NO_TP_BTF=1
	ok $? "bpf on raw_tp: pscope time measured the fenced window"
	check_tier bpf-rawtp
	check "bpf on raw_tp: the source names raw_tp for the scheduler, and why not tp_btf" python3 - "$tmp/bpf-rawtp.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tier"] == "bpf", d["tier"]
assert d["source"].startswith("BPF: raw_tp (tp_btf refused: PSCOPE_TEST_BPF_NO_TP_BTF=1) sched_switch"), d["source"]
assert "tp_btf sched_switch" not in d["source"], d["source"]
EOF
	check "bpf on tp_btf (no hook): the source says tp_btf" python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['source']; assert s.startswith('BPF: tp_btf sched_switch'), s" "$tmp/bpf.json"
	env PSCOPE_TEST_BPF_NO_TP_BTF=1 "$PSCOPE" time $TPID --tier bpf --duration 0.2 >"$tmp/rawtp.txt" 2>&1
	check "bpf on raw_tp, text: the source line says raw_tp and why" \
		grep -q '^  source: BPF: raw_tp (tp_btf refused: PSCOPE_TEST_BPF_NO_TP_BTF=1) sched_switch' "$tmp/rawtp.txt"
fi

if [ "${tiers#*trace}" != "$tiers" ]; then
	# Above its rate the tracepoint tier traces part of each second: the
	# shares stay exact (schedstat), the counts are scaled, and it says so.
	TIME_ARGS="--rate 50" measure trace-sampled
	ok $? "trace --rate 50: pscope time measured the fenced window"
	check_tier trace-sampled
	check "trace --rate 50: said to be sampled, with the share traced" python3 - "$tmp/trace-sampled.json" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["statistical"]["events"] is True, d["statistical"]
m = re.search(r"traced (\d+)% of the window", d["source"])
assert m and int(m.group(1)) < 100, d["source"]
assert d["samples"] > 0, d["samples"]
EOF
fi

# ---- exact counts where the tier counts ----
[ -f "$tmp/bpf-rawtp.json" ] && tiers="$tiers bpf-rawtp"
for tier in $tiers; do
	[ "$tier" = proc ] && continue # counts need every event: bpf, trace
	check "$tier: the sleeper's $SLEEPS clock_nanosleep calls counted exactly" python3 - "$tmp/$tier.json" $SLEEPS <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
t = [t for t in d["threads"] if t["name"] == "sleeper"][0]
c = [s for s in t["syscalls"] if s["name"] == "clock_nanosleep"]
assert c and c[0]["count"] == int(sys.argv[2]) and c[0]["errors"] == 0, c
assert t["blocked"]["sleep"] > 0, t["blocked"]
EOF
	# The calibration strace's own tests use for -w: a sleep of known
	# length cannot return early, so every latency is at least 1 ms.
	check "$tier: latency calibration: each 1 ms sleep measured >= 1 ms (avg, p50, total)" python3 - "$tmp/$tier.json" $SLEEPS <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
t = [t for t in d["threads"] if t["name"] == "sleeper"][0]
c = [s for s in t["syscalls"] if s["name"] == "clock_nanosleep"][0]
n = int(sys.argv[2])
assert c["total_ns"] >= n * 1000000 and c["avg_ns"] >= 1000000, c
assert 1000000 <= c["p50_ns"] <= c["p99_ns"] <= c["max_ns"] < 10**9, c
EOF
	check "$tier: fdatasync counted and blocked in I/O; futex counted for the lockers" python3 - "$tmp/$tier.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
th = {t["name"]: t for t in d["threads"]}
fs = [s for s in th["io"]["syscalls"] if s["name"] == "fdatasync"]
assert fs and fs[0]["count"] > 0 and fs[0]["blocked_ns"] > 0, fs
for n in ("lock1", "lock2"):
    assert [s for s in th[n]["syscalls"] if s["name"] == "futex" and s["count"] > 0], th[n]["syscalls"]
h = th["burn1"]["runqueue_hist"]
assert h and sum(b["count"] for b in h) > 0, h
EOF
done

check "proc: blocked reasons said to be statistical, syscalls without counts" python3 - "$tmp/proc.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["statistical"]["blocked"] is True and d["samples"] > 0, d["statistical"]
for t in d["threads"]:
    for s in t["syscalls"]:
        assert s["count"] is None and s["samples"] > 0, s
EOF

done_testing
