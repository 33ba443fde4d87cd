#!/bin/sh
# pscope record and list -r: a known workload (tests/targets/workload: idle,
# 2 CPU seconds of burning while its RSS grows by 48 MiB and three
# children come and go, idle, exit) recorded every 0.5 s; the replay at
# given times shows it, its CPU% within 5 points of what it logged, its
# RSS growth, its children, its exit; the nearest interval is named.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
out=$(mktemp -d /tmp/pscope-record.XXXXXX)
at_exit "rm -rf $out"
f=$out/r.psrec

"$PSCOPE" record -o "$f" --interval 0.5 --duration 120 2>"$out/rec.err" &
RPID=$!
at_exit "kill -9 $RPID 2>/dev/null"
check "the recorder writes its first interval" poll 100 sh -c "'$PSCOPE' list -r '$f' --json >/dev/null 2>&1"
start_target workload "$out/wl.log" 2 1.5 || exit 1
WPID=$TPID
check "the workload ran to its end (polled, 60 s cap)" poll 600 grep -q exit "$out/wl.log"
# Until an interval without it is recorded.
check "an interval after its exit is recorded" poll 100 sh -c "'$PSCOPE' list -r '$f' --json 2>/dev/null | grep -q '\"intervals\"' && ! '$PSCOPE' list -r '$f' --json 2>/dev/null | grep -q '\"pid\":$WPID,'"
kill -INT $RPID
wait $RPID
ok $? "the recorder stops on SIGINT with status 0"
check "and says what it wrote" grep -qE 'pscope record: [0-9]+ intervals in .*r\.psrec' "$out/rec.err"

python3 - "$PSCOPE" "$f" "$WPID" "$out/wl.log" <<'PY' >"$out/py.out" 2>&1
import json, subprocess, sys
pscope, f, wpid, log = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def at(spec):
    r = subprocess.run([pscope, "list", "-r", f, "--at", spec, "--json", "--kthreads"], capture_output=True, text=True)
    if r.returncode:
        print("FAIL list -r --at", spec, r.stderr); sys.exit(1)
    return json.loads(r.stdout)
last = at("-0s")
first, end, n = last["recording"]["first"], last["recording"]["last"], last["recording"]["intervals"]
seen = {}
off = 0.0
while off <= end - first + 0.3:
    j = at("+%.3f" % off)
    seen[j["recording"]["index"]] = j
    off += 0.2
print("intervals", n, "seen", len(seen))
if len(seen) != n: print("FAIL not every interval reachable"); sys.exit(1)
pts = [(float(a), float(b), c) for a, b, c in (l.split() for l in open(log))]
def cpu_at(t):  # its CPU seconds at wall t, from the log
    for (t0, c0, _), (t1, c1, _) in zip(pts, pts[1:]):
        if t0 <= t <= t1:
            return c0 + (c1 - c0) * ((t - t0) / (t1 - t0) if t1 > t0 else 0)
    return None
burn = [p[0] for p in pts if p[2] == "burn"]
b0, b1 = burn[0], max(p[0] for p in pts if p[2] in ("burn", "rest"))
checked = 0
res = {}
kids = set()
for i in sorted(seen):
    j = seen[i]
    t, iv = j["recording"]["time"], j["interval"]
    w = [p for p in j["processes"] if p["pid"] == wpid]
    for p in j["processes"]:
        if p["comm"] == "wl-child" and p["ppid"] == wpid: kids.add(p["pid"])
    if w: res[i] = w[0]["res_kb"]
    if w and iv > 0 and b0 + 0.05 <= t - iv and t <= b1:
        want = (cpu_at(t) - cpu_at(t - iv)) / iv * 100
        got = w[0]["cpu"]
        print("interval %d at +%.2f s: CPU %.1f%% recorded, %.1f%% logged" % (i, t - first, got, want))
        if abs(got - want) > 5: print("FAIL CPU off by more than 5 points"); sys.exit(1)
        checked += 1
if checked < 1: print("FAIL no interval inside the burn"); sys.exit(1)
grow = max(res.values()) - min(res.values())
print("RSS grew by %d kB" % grow)
if grow < 40 * 1024: print("FAIL RSS growth under 40 MiB"); sys.exit(1)
if len(kids) < 1: print("FAIL no wl-child seen"); sys.exit(1)
print("children seen", len(kids))
if any(p["pid"] == wpid for p in last["processes"]): print("FAIL still there at the end"); sys.exit(1)
print("PASS")
PY
rc=$?
sed 's/^/#   /' "$out/py.out"
ok $rc "the replay: every interval, CPU% within 5 points while it burned, RSS growth, children, its exit"

"$PSCOPE" list -r "$f" --at +1 >"$out/t.txt" 2>"$out/t.err"
ok $? "list -r --at +1 exits 0"
check "the interval used is named first, with its time" grep -qE '^Recorded [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} \(interval [0-9]+ of [0-9]+, .*r\.psrec\)$' "$out/t.txt"
check "then the list as live" grep -qx '    PID USER      PRI  NI  VIRT   RES   SHR S  CPU%  MEM%     TIME+ COMMAND' "$out/t.txt"
check "a closed recording: nothing said on stderr" test ! -s "$out/t.err"
hm=$(date -d @"$(python3 -c "import json,sys; print(int(json.load(open(sys.argv[1]))['recording']['first']))" /dev/stdin <<EOF2
$("$PSCOPE" list -r "$f" --json)
EOF2
)" +%H:%M:%S)
"$PSCOPE" list -r "$f" --at "$hm" --json >"$out/hm.json"
check "--at HH:MM:SS takes the nearest interval" grep -q '"index":[01],' "$out/hm.json"
"$PSCOPE" list -r "$f" --at soon >/dev/null 2>"$out/bad.err"
ok $(( $? != 1 )) "a bad --at is an error (status 1)"
check "which says the forms" grep -q "invalid time 'soon' (HH:MM" "$out/bad.err"
"$PSCOPE" record -o "$f" --duration 1 2>"$out/exists.err"
ok $(( $? != 1 )) "record never writes over a file"
check "and says so" grep -q 'exists: pscope record never writes over a file' "$out/exists.err"
chmod 0777 "$out"
"$PSCOPE" record -o "$out" --duration 1 2>"$out/dir.err"
ok $(( $? != 1 )) "record refuses a directory others can write without the sticky bit"
check "naming the door" grep -q 'without the sticky bit' "$out/dir.err"
chmod 0700 "$out"
done_testing
