#!/bin/bash
# pscope time against its references, in one run; prints ratios.
#   accuracy   a time-target window fenced by SIGSTOP (as tests/e2e/time.sh):
#              on-CPU and run-queue time of the bpf and proc tiers against
#              Δschedstat, and of bpf against perf sched timehist recorded
#              over the same window; system call counts and latency totals
#              against strace -c -w -f attached over the same window
#   overhead   a pipe ping-pong (a context switch per hop) and a getppid
#              loop: their rate and CPU per unit of work alone, under
#              pscope time (bpf, trace), perf sched record, perf trace -s
#              and strace -f / -c
#   cost       the BPF programs' run time per event (bpf_enable_stats)
#   own CPU    pscope's CPU on an idle target and under the ping-pong
# Goals (issue "where the time goes"): on CPU within 2% of schedstat, run
# queue within 5% of schedstat and timehist; syscall counts equal to strace
# -c, latency totals within 5% of strace -w; ping-pong slowdown <= 20% on
# the bpf tier; BPF cost <= 0.5 us per event; pscope <= 1% of a core idle,
# <= 5% under load.
set -u
: "${top_builddir:=.}"
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
SECS=${SECS:-5}
TCK=$(getconf CLK_TCK)

[ "$(id -u)" = 0 ] || { echo "needs root (the bpf tier, perf sched record, strace -p)"; exit 1; }
for t in perf strace python3; do command -v $t >/dev/null || { echo "$t is not installed"; exit 1; }; done
"$PSCOPE" time $$ --tier bpf --duration 0.01 >/dev/null 2>&1 || { echo "no bpf tier here: $("$PSCOPE" time $$ --tier bpf --duration 0.01 2>&1 >/dev/null)"; exit 1; }
tmp=$(mktemp -d "$top_builddir/tests/pscope-bench-time.XXXXXX")
pids=""
trap 'for p in $pids; do kill -9 $p 2>/dev/null; done; wait 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }

# ---- accuracy ----
"$TARGETS/time-target" "$tmp" -1 200 2000 >"$tmp/target.out" 2>&1 &
T=$!
pids="$pids $T"
for _ in $(seq 1 100); do grep -q ready "$tmp/target.out" && break; sleep 0.05; done
stopped() { for _ in $(seq 1 300); do s=$(cat /proc/$T/task/*/stat | sed 's/.*) //' | cut -c1 | sort -u | tr -d '\n'); [ "$s" = T ] && return 0; sleep 0.02; done; return 1; }
snap() { for t in /proc/$T/task/*; do echo "${t##*/} $(cut -d' ' -f1,2 "$t/schedstat")"; done; }
# ref_ready PID TOOL: the reference runs (perf: its events opened on every
# CPU; strace: every thread of the target traced), polled with a cap.
ref_ready() {
	local n=$(nproc)
	for _ in $(seq 1 600); do
		case $2 in
		perf) [ "$(ls -l /proc/$1/fd 2>/dev/null | grep -c 'perf_event')" -ge $((2 * n)) ] && { sleep 0.5; return 0; } ;;
		strace) ! grep -q '^TracerPid:[[:space:]]*0$' /proc/$T/task/*/status && { sleep 0.2; return 0; } ;;
		esac
		sleep 0.05
	done
	echo "reference $2 did not start"
}
bursts=0
# fence TIER NAME [REFERENCE...]: one window; pscope's JSON in NAME.json,
# schedstat before and after in NAME.s0/.s1; REFERENCE runs in the
# background over the same window and gets SIGINT at its end.
fence() {
	local tier=$1 name=$2 pp rp=""
	shift 2
	kill -STOP $T; stopped
	snap >"$tmp/$name.s0"
	rm -f "$tmp/go" "$tmp/$name.err"
	PSCOPE_TEST_PAUSE=time-window PSCOPE_TEST_PAUSE_FILE=$tmp/go \
		"$PSCOPE" time $T --tier "$tier" ${TIME_ARGS:-} --duration 600 --json >"$tmp/$name.json" 2>"$tmp/$name.err" &
	pp=$!
	for _ in $(seq 1 300); do grep -q "paused at" "$tmp/$name.err" && break; sleep 0.05; done
	if [ $# -gt 0 ]; then
		"$@" >"$tmp/$name.ref.out" 2>"$tmp/$name.ref.err" &
		rp=$!
		ref_ready $rp $1
	fi
	kill -CONT $T
	kill -USR1 $T
	bursts=$((bursts + 1))
	touch "$tmp/go"
	for _ in $(seq 1 300); do grep -q "^burst $bursts " "$tmp/target.out" && break; sleep 0.05; done
	sleep "$SECS"
	kill -STOP $T; stopped
	snap >"$tmp/$name.s1"
	[ -n "$rp" ] && { kill -INT $rp; wait $rp; }
	kill -INT $pp
	wait $pp
	kill -CONT $T
}

fence bpf acc perf sched record -q -o "$tmp/perf.data"
perf sched timehist -i "$tmp/perf.data" --pid $T --state 2>/dev/null >"$tmp/timehist.txt"
fence proc accp
TIME_ARGS="--rate 10000000" fence trace acct
echo "accuracy: time-target (8 threads, 2 burners on one CPU), ${SECS} s fenced windows"
python3 - "$tmp" <<'EOF'
import json, re, sys
p = sys.argv[1]
def sums(name):
    s0 = {l.split()[0]: l.split() for l in open(f"{p}/{name}.s0")}
    s1 = {l.split()[0]: l.split() for l in open(f"{p}/{name}.s1")}
    run = sum(int(a[1]) - int(s0[t][1]) for t, a in s1.items())
    wait = sum(int(a[2]) - int(s0[t][2]) for t, a in s1.items())
    return run, wait
def tier(name):
    d = json.load(open(f"{p}/{name}.json"))
    return d["process"]["on_cpu_ns"], d["process"]["runqueue_ns"]
run, wait = sums("acc")
b_run, b_wait = tier("acc")
# timehist: each switch-in of a task, with the wait since its last
# switch-out, the scheduling delay since its wakeup and the state it left
# in: run queue = the delays after a wakeup, the whole wait after a
# preemption (state R).
th_run = th_delay = 0
last = {}
for l in open(f"{p}/timehist.txt"):
    m = re.match(r"^\s*[0-9.]+\s+\[\d+\]\s+.*\[(\d+)/\d+\]\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+(\S+)", l)
    if m:
        tid, wait_ms, delay_ms, run_ms, state = m.groups()
        th_delay += float(wait_ms if last.get(tid) == "R" else delay_ms) * 1e6
        th_run += float(run_ms) * 1e6
        last[tid] = state
prun, pwait = sums("accp")
p_run, p_wait = tier("accp")
trun, twait = sums("acct")
t_run, t_wait = tier("acct")
r = lambda a, b: "%.3f" % (a / b) if b else "n/a"
print(f"  on CPU     bpf/schedstat {r(b_run, run)}  bpf/timehist {r(b_run, th_run)}  trace/schedstat {r(t_run, trun)}  proc/schedstat {r(p_run, prun)}   ({run/1e6:.0f} ms)")
print(f"  run queue  bpf/schedstat {r(b_wait, wait)}  bpf/timehist {r(b_wait, th_delay)}  trace/schedstat {r(t_wait, twait)}  proc/schedstat {r(p_wait, pwait)}   ({wait/1e6:.0f} ms; timehist/schedstat {r(th_delay, wait)})")
d = json.load(open(f"{p}/acct.json"))
s = {x["name"]: x for x in d["process"]["syscalls"]}
e = json.load(open(f"{p}/acc.json"))
b = {x["name"]: x for x in e["process"]["syscalls"]}
n = "clock_nanosleep"
if n in s and n in b:
    print(f"  {n} (the burst of 200): bpf count {b[n]['count']} total {b[n]['total_ns']/1e6:.1f} ms; trace count {s[n]['count']} total {s[n]['total_ns']/1e6:.1f} ms")
EOF

fence bpf sys strace -c -w -f -q -p $T -o "$tmp/strace.txt"
python3 - "$tmp" <<'EOF'
import json, re, sys
p = sys.argv[1]
d = json.load(open(f"{p}/sys.json"))
ps = {s["name"]: s for s in d["process"]["syscalls"]}
st = {}
for l in open(f"{p}/strace.txt"):
    f = l.split()
    if len(f) >= 5 and re.match(r"^[0-9.]+$", f[0]) and f[-1] not in ("total",):
        calls = int(f[3]); errs = int(f[4]) if len(f) == 6 else 0
        st[f[-1]] = (float(f[1]), calls)
print("syscalls: pscope (bpf) and strace -c -w -f over the same window")
for name in ("clock_nanosleep", "fdatasync", "pwrite64", "futex"):
    if name in ps and name in st:
        c, t = ps[name]["count"], ps[name]["total_ns"] / 1e9
        print(f"  {name:16} count {c:7} strace {st[name][1]:7} ratio {c / st[name][1] if st[name][1] else 0:.3f}   "
              f"total {t:8.3f} s strace -w {st[name][0]:8.3f} s ratio {t / st[name][0] if st[name][0] else 0:.3f}")
EOF
kill -9 $T; wait $T 2>/dev/null

# ---- overhead ----
. "$(dirname "$0")/slowdown-lib.sh" # rate, slowdown
# start_target OUT ARGS...: a pingpong in the background, its output in OUT;
# its pid in $started once it is ready and has run 2 s.
start_target() {
	local out=$1
	shift
	"$TARGETS/pingpong" "$@" >"$out" 2>&1 &
	started=$!
	pids="$pids $started"
	for _ in $(seq 1 100); do grep -q ready "$out" && break; sleep 0.05; done
	sleep 2
}
start_target "$tmp/pp.out" pipe
PP=$started
alone=$(rate "$tmp/pp.out" sleep "$SECS")
echo "overhead: pipe ping-pong, $(echo "$alone" | awk '{ printf "%d round trips/s, %.0f ns CPU each", $1, $2 }') alone; extra per round trip under:"
echo "  pscope time bpf --no-syscalls $(slowdown "$tmp/pp.out" "$PSCOPE" time $PP --tier bpf --no-syscalls --duration "$SECS") (goal <= +20%)"
echo "  pscope time bpf               $(slowdown "$tmp/pp.out" "$PSCOPE" time $PP --tier bpf --duration "$SECS")"
echo "  pscope time trace             $(slowdown "$tmp/pp.out" "$PSCOPE" time $PP --tier trace --duration "$SECS") (samples above 20000 records/s)"
echo "  pscope time trace, every event $(slowdown "$tmp/pp.out" "$PSCOPE" time $PP --tier trace --rate 10000000 --duration "$SECS")"
echo "  perf sched record             $(slowdown "$tmp/pp.out" perf sched record -q -o "$tmp/pp.data" -- sleep "$SECS")"
echo "  strace -f                     $(slowdown "$tmp/pp.out" timeout -s INT "$SECS" strace -f -q -o /dev/null -p $PP)"
# The programs' own run time (bpf_enable_stats) over the round trips made
# meanwhile: what they add to each, whatever else loads the machine (the
# wall figures above swing with the other work on a busy machine).
during=$(rate "$tmp/pp.out" sh -c '"$1" time $2 --tier bpf --bpf-stats --no-syscalls --duration "$3" --json >"$4"' - "$PSCOPE" $PP "$SECS" "$tmp/pp-nosys.json")
during_sys=$(rate "$tmp/pp.out" /usr/bin/time -o "$tmp/pp.time" -f '%U %S %e' sh -c '"$1" time $2 --tier bpf --bpf-stats --duration "$3" --json >"$4"' - "$PSCOPE" $PP "$SECS" "$tmp/pp.json")
python3 - "$tmp/pp.json" "$tmp/pp-nosys.json" "$SECS" "$alone" "$during_sys" "$during" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
c = d.get("bpf_cost", [])
ns = sum(x["run_ns"] for x in c)
n = sum(x["run_count"] for x in c)
print("cost: BPF run time per event %.0f ns mean over %d events (goal <= 500):" % (ns / n if n else 0, n),
      " ".join("%s %.0f ns" % (x["program"], x["run_ns"] / x["run_count"] if x["run_count"] else 0) for x in c))
print("  (every task's events run the programs; those of other processes stop at the tgid test)")
secs = float(sys.argv[3])
cpu_alone = float(sys.argv[4].split()[1])
for name, f, w in (("bpf --no-syscalls", sys.argv[2], sys.argv[6]), ("bpf", sys.argv[1], sys.argv[5])):
    c = json.load(open(f)).get("bpf_cost", [])
    trips = float(w.split()[0]) * secs
    per = sum(x["run_ns"] for x in c) / trips if trips else 0
    print("  %-17s BPF run time per round trip %5.0f ns = %+5.1f%% of a round trip's CPU alone (%.0f ns; every task's events counted)"
          % (name, per, 100 * per / cpu_alone if cpu_alone else 0, cpu_alone))
EOF
ppcpu=$(awk '{ printf "%.2f", 100 * ($1 + $2) / $3 }' "$tmp/pp.time")
pprate=$(rate "$tmp/pp.out" sleep 2 | cut -d" " -f1)
kill -9 $PP; wait $PP 2>/dev/null

start_target "$tmp/sc.out" syscall
SC=$started
echo "overhead: getppid loop, $(rate "$tmp/sc.out" sleep "$SECS" | awk '{ printf "%d calls/s, %.0f ns CPU each", $1, $2 }') alone; extra per call under:"
echo "  pscope time bpf  $(slowdown "$tmp/sc.out" "$PSCOPE" time $SC --tier bpf --duration "$SECS")"
echo "  perf trace -s    $(slowdown "$tmp/sc.out" timeout -s INT "$SECS" perf trace -s -p $SC -o /dev/null)"
echo "  strace -c        $(slowdown "$tmp/sc.out" timeout -s INT "$SECS" strace -c -f -q -o /dev/null -p $SC)"
kill -9 $SC; wait $SC 2>/dev/null

# ---- pscope's own CPU ----
sleep 600 &
S=$!
pids="$pids $S"
for tier in bpf proc; do
	/usr/bin/time -o "$tmp/idle.time" -f '%U %S %e' "$PSCOPE" time $S --tier $tier --duration 10 >/dev/null 2>&1
	echo "own CPU: $tier tier on an idle target, 10 s: $(awk '{ printf "%.2f", 100 * ($1 + $2) / $3 }' "$tmp/idle.time")% of a core (goal <= 1%)"
done
echo "own CPU: bpf tier under the ping-pong (about $(awk -v r="$pprate" 'BEGIN { printf "%.0f", 10 * r }') events/s): ${ppcpu}% of a core (goal <= 5%)"
