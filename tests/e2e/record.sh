#!/bin/sh
# pscope record and pscope list -r: the known workload (burns a CPU for
# 5 s, leaks 2 MiB every 100 ms, forks short children) recorded at 1 s.
# Each replayed interval inside the burn shows the workload's CPU% within
# 5 points of what it measured of itself over the same interval (its own
# CPU clock, noted every 20 ms: on this loaded machine it never gets a
# whole CPU), RSS grows as it leaked, and the interval nearest a time asked
# for is the one used and named.
. "$top_srcdir/tests/lib.sh"
T=$_tlinks
rec=$T/w.rec

command -v python3 >/dev/null || { skip "python3 is needed to compare the intervals"; done_testing; exit 0; }
start_target workload "$T/truth" "$T/go" || exit 1
W=$TPID
"$PSCOPE" record -o "$rec" -i 1 -v 2>"$T/rec.err" &
RP=$!
kill_at_exit $RP
check "the recorder wrote its first intervals" wait_until grep -q 'interval 2 written' "$T/rec.err"
touch "$T/go"
wait $W
ok $? "the workload ran and exited"
n=$(grep -c 'written' "$T/rec.err")
# Two more: the first may be a scan begun before it exited.
check "two intervals recorded after it exited" wait_until sh -c "[ \$(grep -c written '$T/rec.err') -ge $((n + 2)) ]"
kill -INT $RP
wait $RP
ok $? "pscope record exits 0 on SIGINT"
check "it says what it wrote" grep -qE '^pscope record: [0-9]+ intervals, .* in ' "$T/rec.err"

# Every interval, by its offset from the start.
"$PSCOPE" list -r "$rec" --at +0s --json >"$T/first.json"
ok $? "pscope list -r --at +0s exits 0"
check "the first interval has no rates (interval 0)" sh -c "jq -e '.interval == 0 and .recording.interval == 1' '$T/first.json' >/dev/null"
last=$(jq .recording.intervals "$T/first.json")
i=0
while [ $i -lt $((last * 2 + 2)) ]; do
	"$PSCOPE" list -r "$rec" --at "+$(awk -v i=$i 'BEGIN { print i / 2 }')s" --json -o pid,cpu,res,command >"$T/at.$i.json" 2>>"$T/list.err" || break
	i=$((i + 1))
done
check "every offset replays" test $i = $((last * 2 + 2))
check "nothing said on stderr: the file was closed cleanly" test ! -s "$T/list.err"

python3 - "$T" "$W" $i >"$T/cmp.txt" <<'PY'
import json, sys
T, W, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
frames = {}
for i in range(n):
    j = json.load(open("%s/at.%d.json" % (T, i)))
    frames[j["recording"]["interval"]] = j
truth = []
end = None
for line in open(T + "/truth"):
    f = line.split()
    if f[0] == "end":
        end = float(f[1])
    else:
        truth.append((float(f[0]), float(f[1]), int(f[2])))
def at(t, k):
    # linear between the notes around t
    for a, b in zip(truth, truth[1:]):
        if a[0] <= t <= b[0]:
            return a[k] + (b[k] - a[k]) * (t - a[0]) / (b[0] - a[0])
    return None
inside = bad = 0
rss = []
for k in sorted(frames):
    if k - 1 not in frames:
        continue
    # the two reads of the workload's counters the rate is made of
    row0 = [p for p in frames[k - 1]["processes"] if p["pid"] == W]
    row = [p for p in frames[k]["processes"] if p["pid"] == W]
    if not row0 or not row:
        continue
    t0, t1 = row0[0]["read_at"], row[0]["read_at"]
    if t0 < truth[0][0] or t1 > truth[-1][0]:
        continue
    want = (at(t1, 1) - at(t0, 1)) / (t1 - t0) * 100
    got = row[0]["cpu"]
    inside += 1
    # within 5 points, and never 0.0 where it ran (on a busy machine it
    # may get only a few percent: 0.0 would be within 5 points of that)
    ok = got is not None and abs(got - want) <= 5 and (want < 1 or got >= want / 2)
    bad += not ok
    print("interval %d: replay %s%%, measured %.1f%% %s" % (k, got, want, "" if ok else "WRONG"))
    rss.append((row[0]["res_kb"], at(t1, 2)))
print("inside %d bad %d" % (inside, bad))
grow = rss[-1][0] - rss[0][0] if len(rss) > 1 else 0
# the replay's growth against the workload's own over the same reads
near = len(rss) > 1 and grow >= 0.5 * (rss[-1][1] - rss[0][1])
print("rss %s grow %d near %s" % (rss, grow, near))
gone = all(p["pid"] != W for p in frames[max(frames)]["processes"])
print("gone %s" % gone)
kids = {}
for j in frames.values():
    for x in j.get("short_lived", []):
        if x["ppid"] == W:
            kids[x["pid"]] = x
good = [x for x in kids.values() if x["comm"] == "workload" and x.get("exit_code") == 7 and 0.09 <= x["lifetime"] <= 2]
print("children %d good %d recorded %s" % (len(kids), len(good), frames[max(frames)]["recording"]["short_lived_recorded"]))
PY
sed 's/^/# /' "$T/cmp.txt"
check "at least two whole intervals inside the burn" sh -c "awk '/^inside/ { exit !(\$2 >= 2) }' '$T/cmp.txt'"
check "each one's CPU% within 5 points of the workload's own measure, none 0.0" sh -c "awk '/^inside/ { exit !(\$4 == 0) }' '$T/cmp.txt'"
check "RSS grows with the leak: more than 20 MiB, and at least half what the workload noted over the same reads" \
	sh -c "awk '/^rss/ { exit !(\$(NF - 2) > 20480 && \$NF == \"True\") }' '$T/cmp.txt'"
check "the workload is gone from the last interval" grep -qx 'gone True' "$T/cmp.txt"
# The children live 100 ms: most start and exit between two scans.
if [ "$(id -u)" = 0 ]; then
	check "at least 5 of its 10 short-lived children, each with its command, lifetime (0.09 to 2 s) and exit code 7" \
		sh -c "awk '/^children/ { exit !(\$4 >= 5 && \$6 == \"True\") }' '$T/cmp.txt'"
else
	check "short-lived processes: said not recorded (no CAP_NET_ADMIN)" grep -q 'children .* recorded False' "$T/cmp.txt"
fi

# pscope show -r: the workload's own recorded status in each interval.
i=1 burning=0 kids=0 seen=
while [ $i -le $last ]; do
	# (each interval once: two offsets may name the same one)
	if "$PSCOPE" show -r "$rec" --at "+$((i - 1)).0s" "$W" --json >"$T/show.$i.json" 2>/dev/null &&
		k=$(jq .recording.interval "$T/show.$i.json") && ! echo " $seen " | grep -q " $k "; then
		seen="$seen $k"
		jq -e '.panes.status.cpu_pct > 20 and .panes.status.vm_rss_kb > 0' "$T/show.$i.json" >/dev/null && burning=$((burning + 1))
		kids=$((kids + $(jq '[.panes.status.short_lived_children // [] | .[] | select(.exit_code == 7)] | length' "$T/show.$i.json")))
	fi
	i=$((i + 1))
done
check "pscope show -r: the workload above 20 % CPU in at least two intervals" test $burning -ge 2
if [ "$(id -u)" = 0 ]; then
	check "and its short-lived children (exit code 7) under it: at least 5" test $kids -ge 5
fi

# The interval nearest a time asked for, named: a clock time and an ISO
# date-time of the third interval (its wall clock, rounded to the second).
w3=$(jq .recording.wall "$T/at.4.json")
hms=$(date -d "@$w3" +%H:%M:%S)
iso=$(date -d "@$w3" +%Y-%m-%dT%H:%M:%S)
"$PSCOPE" list -r "$rec" --at "$hms" -o pid >"$T/hms.txt"
ok $? "--at HH:MM:SS exits 0"
check "the nearest interval is named with the time asked for" \
	sh -c "head -1 '$T/hms.txt' | grep -qE '^Recorded [0-9-]+ [0-9:]+ \\(interval [0-9]+ of $last, \\+[0-9.]+ s from the start; asked for [0-9-]+ $hms\\)\$'"
"$PSCOPE" list -r "$rec" --at "$iso" --json >"$T/iso.json"
ok $? "--at ISO exits 0"
nearest() {
	python3 - "$T" "$1" <<'PY'
import glob, json, sys
got = json.load(open(sys.argv[2]))["recording"]
walls = {}
for f in glob.glob(sys.argv[1] + "/at.*.json"):
    r = json.load(open(f))["recording"]
    walls[r["interval"]] = r["wall"]
best = min(walls, key=lambda k: abs(walls[k] - got["asked"]))
sys.exit(0 if best == got["interval"] else 1)
PY
}
check "the ISO time picks the nearest interval" nearest "$T/iso.json"
"$PSCOPE" list -r "$rec" --at -0s --json >"$T/end.json"
check "-0s is the last interval" sh -c "jq -e '.recording.interval == $last' '$T/end.json' >/dev/null"

# Usage errors.
"$PSCOPE" list -r "$rec" --at 'yesterday' >/dev/null 2>"$T/bad.err"
ok $(($? != 2)) "a bad --at is a usage error (2)"
check "that names the forms" grep -qF "invalid time 'yesterday' (HH:MM[:SS]" "$T/bad.err"
"$PSCOPE" list --at +1s >/dev/null 2>"$T/bad.err"
ok $(($? != 2)) "--at without -r is a usage error"
"$PSCOPE" list -r "$T/nope.rec" >/dev/null 2>"$T/bad.err"
ok $(($? != 1)) "a missing file fails (1)"
check "naming the file" grep -qF "pscope list: $T/nope.rec: cannot open: No such file or directory" "$T/bad.err"
"$PSCOPE" record -o "$rec" -d 1 2>"$T/bad.err"
ok $(($? != 1)) "record never overwrites a file"
check "and says so" grep -qF "$rec already exists: pscope never overwrites it" "$T/bad.err"
done_testing
