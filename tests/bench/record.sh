#!/bin/sh
# Recording size: pscope record and atop side by side in one run, both at
# a 10 s interval with about 300 processes on the machine (the family
# target's sleeping children make up the difference), for
# RECORD_BENCH_SAMPLES samples (default 13: two minutes). Prints each
# one's size per hour and the ratio; the goal is <= 1.5 MB an hour for
# pscope, and smaller than atop's.
#
# pscope's hour is made of what was measured: a key frame every 32 frames
# (the first frame's size) and deltas (the mean of the others), 360 frames
# an hour; atop's is its file size per sample times 360.
set -u
: "${top_builddir:=.}"
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
S=${RECORD_BENCH_SAMPLES:-13}
WANT=${RECORD_BENCH_PROCS:-300}

command -v atop >/dev/null || { echo "record bench: atop is not installed (apt-get install atop)"; exit 1; }
tmp=$(mktemp -d /tmp/pscope-bench-record.XXXXXX)
fpid=
cleanup() {
	[ -n "$fpid" ] && { kill -KILL "-$fpid"; wait "$fpid"; } 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

have=$(ls /proc | grep -c '^[0-9]')
n=$((WANT - have))
if [ $n -gt 0 ]; then
	setsid "$TARGETS/family" "$n" >"$tmp/family.out" 2>&1 &
	fpid=$!
	i=0
	until grep -q ready "$tmp/family.out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 600 ] && { echo "record bench: $n processes did not start"; exit 1; }
		sleep 0.1
	done
fi
echo "processes on the machine: $(ls /proc | grep -c '^[0-9]'), $S samples 10 s apart"

atop -w "$tmp/atop.raw" 10 "$S" >/dev/null 2>&1 &
apid=$!
"$PSCOPE" record -o "$tmp/pscope.rec" -i 10 -d $((S * 10 - 5)) -v 2>"$tmp/pscope.err" &
ppid_=$!
wait $apid $ppid_
frames=$(grep -c written "$tmp/pscope.err")
first=$(awk '/interval 1 written/ { print $(NF - 1) }' "$tmp/pscope.err")
last=$(awk '/written/ { v = $(NF - 1) } END { print v }' "$tmp/pscope.err")
psize=$(stat -c %s "$tmp/pscope.rec")
# On a busy machine the processes that start and exit between two
# intervals (recorded as root) are most of a delta: say how many.
if command -v jq >/dev/null; then
	echo "short-lived processes in the last interval: $("$PSCOPE" list -r "$tmp/pscope.rec" --json 2>/dev/null | jq '.short_lived | length')"
fi
asize=$(stat -c %s "$tmp/atop.raw")
awk -v f="$frames" -v first="$first" -v last="$last" -v ps="$psize" -v as="$asize" -v s="$S" 'BEGIN {
	key = first - 128; delta = f > 1 ? (last - first) / (f - 1) : key
	ph = (key * 360 / 32 + delta * (360 - 360 / 32)) / 1e6
	ah = as / s * 360 / 1e6
	printf "pscope: %d frames, %d bytes (key frame %d, deltas %.0f each): %.2f MB an hour\n", f, ps, key, delta, ph
	printf "atop:   %d samples, %d bytes (%.0f each): %.2f MB an hour\n", s, as, as / s, ah
	printf "ratio pscope/atop: %.2f   goal: <= 1.5 MB an hour (%s), below atop (%s)\n", ph / ah,
		ph <= 1.5 ? "met" : "NOT met", ph < ah ? "met" : "NOT met"
}'
