#!/bin/bash
# pscope top --off-cpu against its anchors, in one run; prints ratios.
#   overhead   a pipe ping-pong (a context switch per hop, every block far
#              under 1 ms): its extra time and CPU per round trip under
#              pscope top --off-cpu (frame pointers only, and with 16 KiB
#              stack copies), bcc's offcputime (when bpfcc-tools is
#              installed) and perf record of sched_switch with call chains
#   own CPU    pscope's CPU under the ping-pong and on the quiet offcpu
#              target
#   agreement  the top-10 stacks of pscope and of offcputime -f on the
#              offcpu target over the same run: the share of the lines
#              that are the same (function names, outermost first)
# Goals (issue "off-CPU stacks"): slowdown <= the bcc tool's; top-10 stacks
# overlapping >= 90% with its. pscope's tracepoint tier takes a record per
# switch (the bcc tool aggregates in the kernel), so expect it above.
set -u
: "${top_builddir:=.}"
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
SECS=${SECS:-5}
TCK=$(getconf CLK_TCK)

[ "$(id -u)" = 0 ] || { echo "needs root (the tracepoints of every CPU)"; exit 1; }
command -v perf >/dev/null || { echo "perf is not installed"; exit 1; }
BCC=$(command -v offcputime-bpfcc || command -v offcputime || true)
BCC_WHY="not installed (bpfcc-tools)"
tmp=$(mktemp -d)
# bcc compiles its programs against the running kernel's headers: probe it.
if [ -n "$BCC" ] && ! timeout 60 "$BCC" -p $$ -f 1 >/dev/null 2>"$tmp/bcc-probe"; then
	BCC_WHY="cannot run here: $(grep -m1 -iE 'kernel headers|unable' "$tmp/bcc-probe" || tail -1 "$tmp/bcc-probe")"
	BCC=""
fi
pids=""
trap 'for p in $pids; do kill -9 $p 2>/dev/null; done; wait 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

. "$(dirname "$0")/slowdown-lib.sh" # rate, slowdown
# own_cpu CMD...: the command's CPU as % of a core over its run.
own_cpu() {
	local t0 t1 c
	t0=$(date +%s.%N)
	/usr/bin/time -o "$tmp/time" -f '%U %S' "$@" >/dev/null 2>&1
	c=$(tail -1 "$tmp/time")
	t1=$(date +%s.%N)
	echo "$c $t0 $t1" | awk '{ printf "%.1f", 100 * ($1 + $2) / ($4 - $3) }'
}

"$TARGETS/pingpong" pipe >"$tmp/pp.out" 2>&1 &
PP=$!
pids="$pids $PP"
for _ in $(seq 1 100); do grep -q ready "$tmp/pp.out" && break; sleep 0.05; done
sleep 2
echo "overhead: pipe ping-pong, $(rate "$tmp/pp.out" sleep "$SECS" | awk '{ printf "%d round trips/s, %.0f ns CPU each", $1, $2 }') alone; extra per round trip under:"
echo "  pscope top --off-cpu, frame pointers   $(slowdown "$tmp/pp.out" "$PSCOPE" top $PP --off-cpu --stack-copy 0 --duration "$SECS")"
echo "  pscope top --off-cpu, 16 KiB copies    $(slowdown "$tmp/pp.out" "$PSCOPE" top $PP --off-cpu --duration "$SECS")"
if [ -n "$BCC" ]; then
	echo "  offcputime (bcc)                       $(slowdown "$tmp/pp.out" "$BCC" -p $PP -f "$SECS")"
else
	echo "  offcputime (bcc)                       $BCC_WHY"
fi
echo "  perf record sched_switch -g            $(slowdown "$tmp/pp.out" perf record -q -e sched:sched_switch -g -p $PP -o "$tmp/pp.data" -- sleep "$SECS")"
echo "own CPU: pscope top --off-cpu under the ping-pong: $(own_cpu "$PSCOPE" top $PP --off-cpu --duration "$SECS")% of a core"
kill -9 $PP
wait $PP 2>/dev/null

"$TARGETS/offcpu-nofp" >"$tmp/oc.out" 2>&1 &
OC=$!
pids="$pids $OC"
for _ in $(seq 1 100); do grep -q ready "$tmp/oc.out" && break; sleep 0.05; done
echo "own CPU: pscope top --off-cpu on the quiet offcpu target: $(own_cpu "$PSCOPE" top $OC --off-cpu --duration "$SECS")% of a core"
if [ -n "$BCC" ]; then
	"$BCC" -p $OC -f "$SECS" >"$tmp/bcc.folded" 2>"$tmp/bcc.err" &
	bp=$!
	"$PSCOPE" top $OC --off-cpu --duration "$SECS" --folded "$tmp/ps.folded" >/dev/null 2>&1
	wait $bp
	python3 - "$tmp/ps.folded" "$tmp/bcc.folded" <<'PY'
import re, sys
def top10(path):
    st = {}
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#") or " " not in line:
            continue
        stack, w = line.rsplit(" ", 1)
        # bcc names the frames of a module it cannot resolve "[unknown]";
        # compare the thread and the named frames.
        key = ";".join(f for f in stack.split(";") if f != "[unknown]")
        st[key] = st.get(key, 0) + int(w)
    return [k for k, _ in sorted(st.items(), key=lambda kv: -kv[1])[:10]], st
a, sa = top10(sys.argv[1])
b, sb = top10(sys.argv[2])
same = len(set(a) & set(b))
print("agreement: top-10 stacks in both pscope's and offcputime's: %d of %d (goal >= 90%%)" % (same, max(len(a), 1)))
for k in a[:3]:
    print("  pscope %8d us, offcputime %8s us  %s" % (sa[k], sb.get(k, "-"), k[:100]))
PY
else
	echo "agreement: offcputime (bcc) $BCC_WHY: not compared"
fi
