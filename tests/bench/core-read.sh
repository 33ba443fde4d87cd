#!/bin/sh
# Reading a core: every thread's stack from the core of a 1000-thread
# process, with `pscope stack --core`, `eu-stack --core` and
# `gdb -batch -ex 'thread apply all bt'`, in the same run.
# pscope prints every thread (--no-group), as the anchors do; the frame
# counts are printed next to the times. Goals: wall <= 0.3x eu-stack,
# <= 0.1x gdb. Prints best and median wall
# time of RUNS runs (gdb: GDB_RUNS) and the ratios of the medians.
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
RUNS=${RUNS:-5}
GDB_RUNS=${GDB_RUNS:-3}
N=${CORE_READ_THREADS:-1000}
tmp=$(mktemp -d /tmp/pscope-bench-coreread.XXXXXX)
tpid=
trap '[ -n "$tpid" ] && kill -9 $tpid 2>/dev/null; rm -rf $tmp' EXIT

EXE=$TARGETS/stack-threads
. "$(dirname "$0")/core-lib.sh"
core_of "target with $N threads" "$EXE" "$N"

threads=$("$PSCOPE" stack --core "$tmp/core" 2>&1 >/dev/null | sed -n 's/^\([0-9]*\) threads read from the core.*/\1/p')
frames=$("$PSCOPE" stack --no-group --core "$tmp/core" 2>/dev/null | grep -c '^#')
echo "--- core of stack-threads $N ($((N + 1)) threads, $(du -h "$tmp/core" | cut -f1) on disk): wall ms, best and median"
us "$PSCOPE" stack --no-group --core "$tmp/core" >/dev/null # warm the page cache
set -- $(stats "$RUNS" "$PSCOPE" stack --no-group --core "$tmp/core")
ps_best=$1 ps_med=$2
printf '%-10s %10s %10s   (%s threads, %s frames)\n' pscope "$(ms "$ps_best")" "$(ms "$ps_med")" "$threads" "$frames"
eu_med=0 gdb_med=0
if command -v eu-stack >/dev/null; then
	set -- $(stats "$RUNS" eu-stack --core "$tmp/core" -e "$EXE")
	eu_med=$2
	printf '%-10s %10s %10s   (%s frames)\n' eu-stack "$(ms "$1")" "$(ms "$2")" \
		"$(eu-stack --core "$tmp/core" -e "$EXE" 2>/dev/null | grep -c '^#')"
fi
if command -v gdb >/dev/null; then
	set -- $(stats "$GDB_RUNS" gdb -q -batch -ex 'thread apply all bt' "$EXE" "$tmp/core")
	gdb_med=$2
	printf '%-10s %10s %10s   (%s frames)\n' gdb "$(ms "$1")" "$(ms "$2")" \
		"$(gdb -q -batch -ex 'thread apply all bt' "$EXE" "$tmp/core" 2>/dev/null | grep -c '^#')"
fi
awk -v p="$ps_med" -v e="$eu_med" -v g="$gdb_med" 'BEGIN {
	if (e > 0) printf "wall: pscope / eu-stack = %.3fx, goal <= 0.30x: %s\n", p / e, (p / e <= 0.3 ? "met" : "MISSED")
	if (g > 0) printf "wall: pscope / gdb      = %.3fx, goal <= 0.10x: %s\n", p / g, (p / g <= 0.1 ? "met" : "MISSED")
}'
