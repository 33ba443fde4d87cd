#!/bin/sh
# Detail panes: time to refresh the FDs pane of a process with 10,000 fds
# and the Maps pane of one with 20,000 mappings, next to lsof -p and
# pmap -x on the same targets in the same run. Goal: each refresh under
# 50 ms and faster than the external tool.
#
# "refresh" is the pane's model read (what the screen does every tick:
# readdir + readlink + fdinfo + net/* for fds, reusing the previous read
# as the pane does; maps for mappings), timed
# inside pscope with `show --repeat`; the whole `pscope show` command
# (start, read, print every line) is timed too.
set -e
: "${PSCOPE:=$top_builddir/pscope}" "${TARGETS:=$top_builddir/tests/targets}"
NFDS=${NFDS:-10000}
NMAPS=${NMAPS:-20000}
RUNS=${RUNS:-5}
DIR=$(mktemp -d /tmp/pscope-bench-detail-XXXXXX)
PIDS=""
cleanup() { for p in $PIDS; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$DIR"; }
trap cleanup EXIT

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (figures vary with the load)"
start() { # start NAME ARGS... -> $PID
	"$TARGETS/detail-many" "$@" >"$DIR/out.$1" 2>&1 &
	PID=$!
	PIDS="$PIDS $PID"
	for _ in $(seq 1 200); do grep -q ready "$DIR/out.$1" && return 0; sleep 0.05; done
	echo "target $* did not get ready:"; cat "$DIR/out.$1"; exit 1
}

# Median wall time in ms of RUNS runs of a command (output discarded).
wall_ms() {
	for _ in $(seq 1 "$RUNS"); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s%N)
		echo $(( (t1 - t0) / 1000 ))
	done | sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] / 1000 }'
}

# Model refresh from `pscope show --repeat`: sets MIN and MED (ms).
refresh_ms() {
	line=$("$PSCOPE" show "$@" --repeat 21 2>&1 >/dev/null | head -1)
	MIN=$(echo "$line" | sed -n 's/.*min \([0-9.]*\) ms.*/\1/p')
	MED=$(echo "$line" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
	MAX=$(echo "$line" | sed -n 's/.*max \([0-9.]*\) ms.*/\1/p')
}

verdict() { # verdict PSCOPE_MS ANCHOR_MS
	awk -v p="$1" -v a="$2" 'BEGIN {
		printf "  ratio pscope/anchor %.3f (%.1fx faster); goal < 50 ms: %s; faster than anchor: %s\n",
			p / a, a / p, p < 50 ? "met" : "MISSED", p < a ? "yes" : "NO" }'
}

start fds "$NFDS" "$DIR"
FPID=$PID
n=$(ls /proc/$FPID/fd | wc -l)
echo "FDs pane, target with $n fds (/dev/null, a file, pipes, unix socketpairs)"
refresh_ms "$FPID" --pane fd
r=$MED
w=$(wall_ms "$PSCOPE" show "$FPID" --pane fd)
l=$(wall_ms lsof -n -P -p "$FPID")
echo "  pscope fd refresh (model, 21 reads):      median $r ms, best $MIN ms, worst $MAX ms (the first read: every link)"
echo "  pscope show --pane fd (whole command):    $w ms"
echo "  lsof -n -P -p PID (median of $RUNS):           $l ms"
verdict "$r" "$l"
kill -9 "$FPID"; wait "$FPID" 2>/dev/null || true

start maps "$NMAPS"
MPID=$PID
n=$(wc -l </proc/$MPID/maps)
echo "Maps pane, target with $n mappings"
refresh_ms "$MPID" --pane maps
r=$MED; rmin=$MIN
refresh_ms "$MPID" --pane maps --smaps
s=$MED; smin=$MIN
w=$(wall_ms "$PSCOPE" show "$MPID" --pane maps)
p=$(wall_ms pmap -x "$MPID")
echo "  pscope maps refresh (model, 21 reads):     median $r ms, best $rmin ms"
echo "  pscope maps refresh with smaps (r key):    median $s ms, best $smin ms"
echo "  pscope show --pane maps (whole command):   $w ms"
echo "  pmap -x PID (median of $RUNS):                  $p ms"
verdict "$r" "$p"
echo "  with smaps, like for like with pmap -x:"
verdict "$s" "$p"
