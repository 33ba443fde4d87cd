#!/bin/bash
# pscope top without a PID: every process on every CPU. Two processes burn
# known functions (mw-hot: hot_work in two threads; mw-leaf: a frameless
# leaf without frame pointers, so its callers need DWARF unwinding); the
# batch text and JSON are checked exactly; --by comm groups by name; a
# process born and killed during sampling is counted under its name; an
# unprivileged user is refused with the door named.
. "$top_srcdir/tests/lib.sh"

tmp=$(mktemp -d /tmp/pscope-mw.XXXXXX)
chmod 755 "$tmp"
at_exit "rm -rf $tmp"
# Names of this run's own (the suite may run in other checkouts at once).
H=mwh$$ L=mwl$$ T=mwt$$
cp "$TARGETS/hotloop" "$tmp/$H"
cp "$TARGETS/hotloop" "$tmp/$T"
cp "$TARGETS/leafchain-nofp" "$tmp/$L"

# start_copy VAR NAME ARGS...: run $tmp/NAME ARGS in the background (a
# little above the others' priority, so it is the machine's busiest on a
# shared box), wait for "ready", set VAR to its PID.
start_copy() {
	local var=$1 name=$2
	shift 2
	nice -n -5 "$tmp/$name" "$@" >"$tmp/$name.$var.out" 2>&1 &
	eval "$var=$!"
	kill_at_exit $!
	wait_until grep -q ready "$tmp/$name.$var.out" && return 0
	diag "$name did not get ready"
	return 1
}
starttime() { awk '{ sub(/.*\) /, ""); split($0, f, " "); print f[20] }' "/proc/$1/stat"; }

start_copy HOT "$H" -w -t 2
start_copy LEAF "$L"
hot_start=$(starttime "$HOT")

# ---- JSON: the processes, the functions with their process, folded ----
"$PSCOPE" top --duration 120 --samples 800 --freq 199 --json --folded "$tmp/all.folded" >"$tmp/all.json" 2>"$tmp/err"
ok $? "pscope top (no PID) --json --folded exits 0"
check "JSON: exactly the documented keys, processes by share" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(d) == ["cpu_proc", "cpu_sampled", "event", "freq", "functions", "idle", "lost", "processes", "samples",
                     "scope", "truncated", "unwind"], sorted(d)
assert d["scope"] == "machine" and d["freq"] == 199 and d["samples"] >= 800, d
for p in d["processes"]:
    assert sorted(p) == ["comm", "cpu_proc", "cpu_sampled", "exited", "kernel", "pid", "samples", "share_pct",
                         "starttime"], p
for f in d["functions"]:
    assert sorted(f) == ["comm", "module", "name", "pid", "processes", "samples", "self_pct", "total_pct"], f
s = [p["share_pct"] for p in d["processes"]]
assert s == sorted(s, reverse=True), "not sorted by share"
assert abs(sum(p["samples"] for p in d["processes"]) - d["samples"]) == 0
' "$tmp/all.json"
# Other users of a shared machine may burn more CPU than the target: it
# ranks first unless /proc (or, for one that has exited, the sampler's own
# share) agrees that those above it used about as much.
check "the busy target is found by name and ranked first (or /proc says why not), with its identity" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ps = d["processes"]
i = [k for k, p in enumerate(ps) if p["pid"] == int(sys.argv[2])][0]
p = ps[i]
assert (p["comm"], p["pid"], p["starttime"], p["exited"]) == (sys.argv[4], int(sys.argv[2]), int(sys.argv[3]), False), p
assert p["cpu_proc"] > 0 and p["cpu_sampled"] > 0, p
for q in ps[:i]:
    # An exited one (a compiler of a build beside us) has no /proc left:
    # its own samples must then be as many.
    if q["exited"]:
        assert q["cpu_sampled"] >= 0.6 * p["cpu_sampled"], ("ranked above mw-hot with fewer samples", q, p)
    else:
        assert q["cpu_proc"] >= 0.6 * p["cpu_proc"], ("ranked above mw-hot with less CPU", q, p)
if i:
    print("# ranked %d: %s" % (i + 1, [(q["comm"], q["cpu_proc"]) for q in ps[:i]]))
' "$tmp/all.json" "$HOT" "$hot_start" "$H"
check "the second busy process is there too" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
l = [p for p in d["processes"] if p["pid"] == int(sys.argv[2])]
assert l and l[0]["comm"] == sys.argv[3] and l[0]["samples"] >= 20, l
' "$tmp/all.json" "$LEAF" "$L"
check "functions name their module and process: hot_work in mw-hot, parse_payload in mw-leaf" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = {(x["name"], x["module"]): x for x in d["functions"]}
H, L = sys.argv[2] + "/" + sys.argv[5], sys.argv[2] + "/" + sys.argv[6]
h, p = f[("hot_work", H)], f[("parse_payload", L)]
assert (h["module"], h["pid"], h["comm"], h["processes"]) == (H, int(sys.argv[3]), sys.argv[5], 1), h
assert (p["module"], p["pid"], p["comm"]) == (L, int(sys.argv[4]), sys.argv[6]), p
assert h["samples"] > f[("cold_work", H)]["samples"], h
' "$tmp/all.json" "$tmp" "$HOT" "$LEAF" "$H" "$L"
check "folded: 'command-PID;...' lines; the frameless leaf's whole chain, unwound from stack copies" \
	grep -qE "^$L-$LEAF;.*;main;serve;handle_request;parse_payload [0-9]+\$" "$tmp/all.folded"
check "folded counts add up to the samples" python3 -c '
import json, re, sys
total = sum(int(re.match(r"^(.+) (\d+)$", l).group(2)) for l in open(sys.argv[1]))
assert total == json.load(open(sys.argv[2]))["samples"]
' "$tmp/all.folded" "$tmp/all.json"

# ---- text ----
"$PSCOPE" top --all --duration 120 --samples 400 >"$tmp/all.txt" 2>"$tmp/err"
ok $? "pscope top --all (text) exits 0"
check "text: the header lines" python3 -c '
import re, sys
l = open(sys.argv[1]).read().split("\n")
assert re.fullmatch(r"all processes, [0-9.]+ s, event (cycles|cpu-clock) \(.+\), 99 Hz requested, [0-9]+ Hz achieved per busy CPU-second", l[0]), l[0]
assert re.fullmatch(r"samples [0-9]+ \(idle [0-9]+ more\), lost [0-9]+, throttled [0-9]+, kernel (included|excluded)[^,]*, truncated stacks [0-9.]+%, CPU sampled [0-9.]+ s vs /proc [0-9.]+ s", l[1]), l[1]
assert re.fullmatch(r"call stacks: (fp|dwarf|mixed) \(frame pointers [0-9]+%, DWARF [0-9]+%\), 16384-byte stack copies", l[2]), l[2]
assert l[3] == "SHARE%  SAMPLES  SAMPLED    /PROC      PID  COMMAND", repr(l[3])
' "$tmp/all.txt"
check "text: the busy target's row, in the columns" grep -qE "^ *[0-9.]+ +[0-9]+ +[0-9.]+s +[0-9.]+s +$HOT  $H\$" "$tmp/all.txt"
check "text: the function table with each function's process" sh -c "
grep -qxE ' SELF% TOTAL%  SAMPLES  FUNCTION +MODULE +PROCESS' '$tmp/all.txt' &&
grep -qE '^ *[0-9.]+ +[0-9.]+ +[0-9]+  hot_work +$H +$H-$HOT\$' '$tmp/all.txt'"

# ---- --by comm: samples by process name (bpftrace's @[comm] = count()) ----
start_copy HOT2 "$H" -w
"$PSCOPE" top --by comm --duration 120 --samples 400 --json >"$tmp/comm.json" 2>"$tmp/err"
ok $? "--by comm --json exits 0"
check "--by comm: one row per name, two mw-hot processes in one row" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert "functions" not in d and "processes" not in d, sorted(d)
for c in d["commands"]:
    assert sorted(c) == ["comm", "processes", "samples", "share_pct"], c
names = [c["comm"] for c in d["commands"]]
assert len(names) == len(set(names)), names
h = [c for c in d["commands"] if c["comm"] == sys.argv[2]]
assert h and h[0]["processes"] == 2, d["commands"][:3]
s = [c["share_pct"] for c in d["commands"]]
assert s == sorted(s, reverse=True), "not sorted by share"
' "$tmp/comm.json" "$H"
"$PSCOPE" top --by comm --duration 120 --samples 200 >"$tmp/comm.txt" 2>"$tmp/err"
check "--by comm text: its header, and mw-hot's row with 2 processes" sh -c "
sed -n 4p '$tmp/comm.txt' | grep -qx 'SHARE%  SAMPLES  PROCS  COMMAND' &&
grep -qE '^ *[0-9.]+ +[0-9]+ +2  $H\$' '$tmp/comm.txt'"
kill -9 "$HOT2" "$LEAF"

# ---- a process born (and killed) while sampling is counted under its name ----
"$PSCOPE" top --duration 300 --json >"$tmp/late.json" 2>"$tmp/late.err" &
ppid=$!
for _ in $(seq 1 200); do
	[ "$(ls -l "/proc/$ppid/fd" 2>/dev/null | grep -c perf_event)" -ge 2 ] && break
	sleep 0.1
done
"$tmp/$T" -w >"$tmp/late.out" 2>&1 &
late=$!
# Let it burn 0.4 s of CPU (however long that takes on a loaded machine).
for _ in $(seq 1 600); do
	t=$(awk '{ sub(/.*\) /, ""); split($0, f, " "); print f[12] + f[13] }' "/proc/$late/stat" 2>/dev/null)
	[ "${t:-0}" -ge 40 ] && break
	sleep 0.1
done
late_start=$(starttime "$late")
kill -9 "$late"
wait "$late" 2>/dev/null
kill -INT "$ppid"
wait "$ppid"
ok $? "Ctrl-C ends machine-wide sampling with the report (exit 0)"
check "the process started during sampling is counted, by name, as exited" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
l = [p for p in d["processes"] if p["pid"] == int(sys.argv[2])]
assert l, "not in the table"
p = l[0]
assert (p["comm"], p["exited"], p["starttime"]) == (sys.argv[4], True, int(sys.argv[3])) and p["samples"] >= 10, p
' "$tmp/late.json" "$late" "$late_start" "$T"
kill -9 "$HOT"

# ---- doors: unprivileged machine-wide sampling ----
cp "$PSCOPE" "$tmp/pscope"
chmod 755 "$tmp/pscope"
(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$tmp/pscope" top --duration 1) \
	>"$tmp/door.out" 2>"$tmp/door.err"
rc=$?
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
[ $rc = 1 ] && [ ! -s "$tmp/door.out" ]
ok $? "nobody: refused, exit 1, nothing on stdout (got $rc)"
want="pscope top: cannot sample every process: perf events for every task on a CPU need kernel.perf_event_paranoid <= 0 or CAP_PERFMON; it is $paranoid and pscope lacks CAP_PERFMON (door: kernel.perf_event_paranoid; fix: sysctl -w kernel.perf_event_paranoid=0, or grant CAP_PERFMON (setcap cap_perfmon+ep on pscope), or run as root)"
if [ "$paranoid" -le 0 ]; then
	skip "perf_event_paranoid is $paranoid: users may sample every process"
else
	[ "$(cat "$tmp/door.err")" = "$want" ]
	ok $? "the refusal names the door and how to open it, exactly"
	[ "$(cat "$tmp/door.err")" = "$want" ] || diag "got: $(cat "$tmp/door.err")"
fi

# ---- bad input ----
"$PSCOPE" top 1 --all 2>"$tmp/e"; [ $? = 2 ] && grep -qx "pscope: --all samples every process: give it no PID" "$tmp/e"
ok $? "--all with a PID: usage error"
"$PSCOPE" top 1 --by comm 2>"$tmp/e"; [ $? = 2 ] && grep -qx "pscope: --by is for every process (no PID, or --all)" "$tmp/e"
ok $? "--by with a PID: usage error"
"$PSCOPE" top --by thread 2>"$tmp/e"; [ $? = 2 ] && grep -q "invalid --by 'thread' (comm or pid)" "$tmp/e"
ok $? "--by with an unknown key: usage error"
"$PSCOPE" top --python 2>"$tmp/e"; [ $? = 2 ] && grep -qx "pscope: --python, --native, --idle and --events need a PID" "$tmp/e"
ok $? "--python without a PID: usage error"

done_testing
