#!/bin/bash
# pscope top PID --off-cpu on a target with known blocking (offcpu-target.c),
# built with frame pointers and without: the sleeper's stack two calls
# deep and its weight against the 20 ms sleeps and the window, the reader
# woken through a pipe by the thread named "waker" from wake_reader, the
# weights net of the wait for a CPU once woken (the machine is shared: a
# block ends when the thread runs again), the
# folded lines as offcputime -f writes them (microseconds, the same run's
# weights), --min-block, bad arguments, and the refusal without the door.
. "$top_srcdir/tests/lib.sh"
tmp=$(mktemp -d)
at_exit "rm -rf $tmp"

if [ "$(id -u)" != 0 ]; then
	"$PSCOPE" top $$ --off-cpu --duration 0.1 >/dev/null 2>"$tmp/err"
	check "without CAP_PERFMON: exit 1 and the door named" sh -c "[ $? = 1 ] && grep -q 'CAP_PERFMON' '$tmp/err'"
	done_testing
	exit
fi

# The frames of the JSON's stacks, without the kernel's: "name,name,...".
cat >"$tmp/stacks.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def user(fr): return ",".join(f["name"] for f in fr if f["kind"] != "kernel")
def top(thread):
    st = [s for s in d["stacks"] if s["thread"] == thread]
    assert st, "no stack of thread " + thread
    return max(st, key=lambda s: s["weight"])
PY

for build in fp nofp; do
	start_target offcpu-$build || { ok 1 "offcpu-$build starts"; continue; }
	T=$TPID
	"$PSCOPE" top $T --off-cpu --duration 2 --json --folded "$tmp/$build.folded" >"$tmp/$build.json" 2>"$tmp/$build.err"
	ok $? "$build: pscope top --off-cpu --json --folded exits 0"
	no_crash_in "$tmp/$build.err" "$build: the run"
	check "$build: the JSON names the unit and the event" python3 - "$tmp/$build.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["unit"] == "ns-blocked" and d["weight_unit"] == "ns" and d["event"] == "sched:sched_switch", d
assert d["min_block_ns"] == 1000000 and d["blocks"] > 0 and d["unwind"] in ("fp", "dwarf", "mixed"), d
PY
	check "$build: the sleeper's top stack is inner_sleep <- outer <- sleeper_main" python3 - "$tmp/$build.json" <<PY
exec(open("$tmp/stacks.py").read())
s = top("sleeper")
assert user(s["frames"]) == "inner_sleep,outer,sleeper_main,start_thread", user(s["frames"])
assert any(f["name"] == "do_nanosleep" for f in s["frames"] if f["kind"] == "kernel"), s["frames"]
PY
	check "$build: its weight: 20 ms a block asleep (within 10%), and the whole window but the blocks cut at its ends" python3 - "$tmp/$build.json" <<PY
exec(open("$tmp/stacks.py").read())
s = top("sleeper")
mean = (s["weight"] - s["runq_ns"]) / s["blocks"] / 1e6
win = d["elapsed_s"] * 1e9
assert 0 <= s["runq_ns"] < s["weight"], s
assert 18 <= mean <= 22, (mean, s["blocks"], s["runq_ns"])
assert 0.9 * win <= s["weight"] <= win, (s["weight"], win)
PY
	check "$build: the reader blocks in wait_for_token, woken by 'waker' from wake_reader" python3 - "$tmp/$build.json" <<PY
exec(open("$tmp/stacks.py").read())
s = top("reader")
assert user(s["frames"]) == "wait_for_token,reader_main,start_thread", user(s["frames"])
w = s["wakers"][0]
assert w["comm"] == "waker" and not w["interrupt"], w
assert user(w["frames"]) == "wake_reader,waker_main,start_thread", user(w["frames"])
assert any(f["name"] == "try_to_wake_up" for f in w["frames"]), w["frames"]
assert w["weight"] >= 0.9 * s["weight"] and w["blocks"] >= 0.9 * s["blocks"], (w, s["weight"], s["blocks"])
mean = (s["weight"] - s["runq_ns"]) / s["blocks"] / 1e6
assert 45 <= mean <= 75, mean  # the waker's 50 ms pause, and the waker's own waits for a CPU
PY
	check "$build: the sleeper is woken by an interrupt (its timer)" python3 - "$tmp/$build.json" <<PY
exec(open("$tmp/stacks.py").read())
w = top("sleeper")["wakers"][0]
assert w["interrupt"] and w["tid"] == 0 and any(f["name"] == "hrtimer_wakeup" for f in w["frames"]), w
PY
	check "$build: folded lines as offcputime -f writes them, microseconds of the same run" python3 - "$tmp/$build.json" "$tmp/$build.folded" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
assert lines[0] == "# pscope: counts are microseconds off CPU, not samples", lines[0]
want = {
    "sleeper": r"sleeper;start_thread;sleeper_main;outer;inner_sleep;entry_SYSCALL_64_after_hwframe;do_syscall_64;(__x64_sys_nanosleep;)?hrtimer_nanosleep;do_nanosleep;schedule;__schedule",
    "reader": r"reader;start_thread;reader_main;wait_for_token;entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_read;vfs_read;(anon_)?pipe_read;schedule;__schedule",
    "waker": r"waker;start_thread;waker_main;waker_pause;entry_SYSCALL_64_after_hwframe;do_syscall_64;(__x64_sys_nanosleep;)?hrtimer_nanosleep;do_nanosleep;schedule;__schedule",
}
for t, rx in want.items():
    top = max((s for s in d["stacks"] if s["thread"] == t), key=lambda s: s["weight"])
    line = "%s %d" % (rx, top["weight"] // 1000)
    assert [l for l in lines if re.fullmatch(line, l)], (t, line, lines)
assert all(re.fullmatch(r"[^ ;]+(;[^ ;]+)+ [0-9]+", l) for l in lines[1:]), lines
PY

	"$PSCOPE" top $T --off-cpu --min-block 40 --duration 1 --json >"$tmp/$build-mb.json" 2>&1
	check "$build: --min-block 40: the 20 ms sleeps are counted short (all but the late), the 50 ms waits weighed" python3 - "$tmp/$build-mb.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["min_block_ns"] == 40000000 and d["short_blocks"] >= 20, d
blocks = {}
for s in d["stacks"]:
    blocks[s["thread"]] = blocks.get(s["thread"], 0) + s["blocks"]
assert blocks.get("sleeper", 0) <= d["short_blocks"] / 10 and blocks.get("reader", 0) >= 10, blocks
PY
	"$PSCOPE" top $T --off-cpu --duration 0.5 >"$tmp/$build.txt" 2>&1
	check "$build: the text report: blocks, the table weighed in time, the stacks and their wakers" sh -c "
		grep -qE '^PID $T \\(offcpu-$build\\), [0-9.]+ s off CPU: [0-9]+ blocks of at least 1.0ms, ' '$tmp/$build.txt' &&
		grep -qE '^ SELF% TOTAL%   BLOCKED  FUNCTION ' '$tmp/$build.txt' &&
		grep -qE '^  woken by waker \\([0-9]+\\): ' '$tmp/$build.txt' &&
		grep -qE '^      wake_reader  offcpu-$build \\(offcpu-target.c:[0-9]+\\)$' '$tmp/$build.txt'"
	kill -9 $T; wait $T 2>/dev/null
done

# ---- bad arguments: exit 2 ----
start_target offcpu-fp
for args in "--min-block 5" "--off-cpu --min-block x" "--off-cpu --min-block -1" "--off-cpu --python" "--off-cpu --freq 99"; do
	# shellcheck disable=SC2086
	"$PSCOPE" top $TPID $args --duration 0.1 >/dev/null 2>"$tmp/bad.err"
	check "'$args': usage error (exit 2)" test $? = 2
done
"$PSCOPE" top --off-cpu --duration 0.1 >/dev/null 2>"$tmp/bad.err"
check "--off-cpu without a PID: usage error" sh -c "[ $? = 2 ] && grep -q -- '--off-cpu needs a PID' '$tmp/bad.err'"

# ---- the door: as nobody, refused and named ----
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$PSCOPE" top $TPID --off-cpu --duration 0.1 \
	>/dev/null 2>"$tmp/nobody.err"
check "as nobody: exit 1 and the door named" sh -c "[ $? = 1 ] && grep -qE 'CAP_PERFMON|permission|door' '$tmp/nobody.err'"
check "the target is left running" sh -c "grep -q '^State:.*[SR]' /proc/$TPID/status"
done_testing
