#!/bin/bash
# Benchmark: `pscope core` next to gdb's `gcore` in the same run.
#   1. 2 GiB resident with a thread rewriting 64 MiB continuously, first
#      with memory as it is (the VM backs RAM lazily: nothing touched
#      beforehand), then pre-touched (a 2x target run and killed first).
#      For each tool: wall time (and pscope's without its fsync), the
#      pause the target saw (its own 1 ms ticker's longest gap), peak RSS,
#      disk use; for pscope, the target's extra write time after the
#      snapshot (its rewriting passes during the dump, minus as many of
#      its fastest pass). Goals: pause <= 50 ms, RSS <= 64 MiB, wall <=
#      0.5x gcore pre-touched and <= 1.0x gcore as it is.
#   2. 64 MiB resident and 2 GiB of mappings barely touched.
#   3. 2 GiB resident, every other page all zeros.
# CORE_BENCH_MB sets the size (8192 for the 8 GiB figures), CORE_BENCH_QUICK=1
# runs case 1 only, CORE_BENCH_QUICK=2 case 1a only (no 2x pre-touch target). Removes the cores and stops the targets.
set -u
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
RESIDENT_MB=${CORE_BENCH_MB:-2048}
DIRTY_MB=${CORE_BENCH_DIRTY_MB:-64}
UNTOUCHED_MB=${CORE_BENCH_UNTOUCHED_MB:-2048}

command -v gcore >/dev/null || { echo "gcore not found (apt-get install gdb)"; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time not found (apt-get install time)"; exit 1; }
dir=$(mktemp -d "${CORE_BENCH_DIR:-$PWD}/pscope-core-bench.XXXXXX")
pids=""
cleanup() {
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$dir"
}
trap cleanup EXIT

start() { # start ARGS... -> $T, its output in $dir/out
	"$TARGETS/core-big" "$@" >"$dir/out" 2>&1 &
	T=$!
	disown $T
	pids="$pids $T"
	for _ in $(seq 1 1200); do grep -q ready "$dir/out" && return 0; sleep 0.1; done
	echo "target did not get ready"; exit 1
}
now() { date +%s.%N; }
sub() { python3 -c "print('%.3f' % ($1 - $2))"; }
du_bytes() { du -B1 "$1" | cut -f1; }
# ticks: the target's ticker line since the previous call.
ticks() {
	local n
	n=$(grep -c maxgap "$dir/out")
	kill -USR1 "$T"
	for _ in $(seq 1 100); do [ "$(grep -c maxgap "$dir/out")" -gt "$n" ] && break; sleep 0.05; done
	grep maxgap "$dir/out" | tail -1
}
val() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# measure LABEL: pscope then gcore on $T; prints a block, sets P_WALL G_WALL.
measure() {
	local label=$1 t0 pw pr pd pp base best during
	sync
	ticks >/dev/null
	sleep 1
	base=$(ticks)
	best=$(val "$base" best_pass_ms)
	t0=$(now)
	/usr/bin/time -f %M -o "$dir/p.rss" "$PSCOPE" core "$T" -o "$dir/p.core" --json >"$dir/p.json" ||
		{ echo "pscope core failed"; exit 1; }
	pw=$(sub "$(now)" "$t0")
	during=$(ticks)
	pr=$(cat "$dir/p.rss")
	pd=$(du_bytes "$dir/p.core")
	rm -f "$dir/p.core"
	sync
	ticks >/dev/null
	t0=$(now)
	/usr/bin/time -f %M -o "$dir/g.rss" gcore -o "$dir/g.core" "$T" >/dev/null 2>&1 || { echo "gcore failed"; exit 1; }
	gw=$(sub "$(now)" "$t0")
	gticks=$(ticks)
	sync "$dir/g.core.$T"
	gsw=$(sub "$(now)" "$t0")
	gd=$(du_bytes "$dir/g.core.$T")
	rm -f "$dir/g.core.$T"
	python3 - "$label" "$dir/p.json" "$pw" "$pr" "$pd" "$best" "$during" "$gw" "$gsw" "$(cat "$dir/g.rss")" "$gd" \
		"$gticks" <<'EOF'
import json, sys
label, pj, pw, pr, pd, best, during, gw, gsw, gr, gd, gticks = sys.argv[1:]
d = json.load(open(pj))
kv = lambda s: dict(x.split("=") for x in s.split())
du, gt = kv(during), kv(gticks)
pw, gw, gsw, best = float(pw), float(gw), float(gsw), float(best)
extra = float(du["pass_ms"]) - int(du["passes"]) * best
print(label)
print("  pscope core  wall %6.2f s (%.2f s without its fsync)  pause %6.1f ms (ticker: %s ms; pscope: %.1f ms)  RSS %5.1f MiB  disk %5d MiB  method %s"
      % (pw, pw - d["sync_ms"] / 1000, float(du["maxgap_ms"]), du["maxgap_ms"], d["pause_ms"], int(pr) / 1024,
         int(pd) >> 20, d["method"]))
print("  gcore        wall %6.2f s (%.2f s with an fsync)        pause %6.1f ms (ticker: the whole run)    RSS %5.1f MiB  disk %5d MiB"
      % (gw, gsw, float(gt["maxgap_ms"]), int(gr) / 1024, int(gd) >> 20))
print("  target's extra write time after the snapshot: %.0f ms over %s passes of its rewriting (fastest pass %.2f ms)"
      % (extra, du["passes"], best))
print("  pause %.1f ms (goal <= 50): %s; RSS %.1f MiB (goal <= 64): %s; wall %.2fx gcore (%.2fx gcore + fsync)"
      % (float(du["maxgap_ms"]), "met" if float(du["maxgap_ms"]) <= 50 else "NOT met", int(pr) / 1024,
         "met" if int(pr) / 1024 <= 64 else "NOT met", pw / gw, pw / gsw))
open(pj + ".ratio", "w").write("%f" % (pw / gw))
EOF
}

echo "pscope core vs gcore ($(gdb --version | head -1)); cores in $dir"
start "$RESIDENT_MB" 0 0 "$DIRTY_MB"
measure "1a. $RESIDENT_MB MiB resident, $DIRTY_MB MiB rewritten continuously, memory as it is"
r=$(cat "$dir/p.json.ratio")
python3 -c "r=$r; print('  wall ratio %.2fx gcore as it is (goal <= 1.0x): %s' % (r, 'met' if r <= 1.0 else 'NOT met'))"
kill -9 "$T"
[ "${CORE_BENCH_QUICK:-0}" = 2 ] && exit 0
# A VM may back its RAM lazily: touch it once so that neither tool pays
# the host's first touch of fresh pages.
start $((RESIDENT_MB * 2))
kill -9 "$T"
start "$RESIDENT_MB" 0 0 "$DIRTY_MB"
measure "1b. $RESIDENT_MB MiB resident, $DIRTY_MB MiB rewritten continuously, memory pre-touched"
r=$(cat "$dir/p.json.ratio")
python3 -c "r=$r; print('  wall ratio %.2fx gcore pre-touched (goal <= 0.5x): %s' % (r, 'met' if r <= 0.5 else 'NOT met'))"
kill -9 "$T"
[ "${CORE_BENCH_QUICK:-0}" = 1 ] && exit 0
start 64 "$UNTOUCHED_MB" 0 1
measure "2. 64 MiB resident + $UNTOUCHED_MB MiB mapped, one page touched per 64 MiB"
kill -9 "$T"
start "$RESIDENT_MB" 0 2 1
measure "3. $RESIDENT_MB MiB resident, every other page all zeros"
kill -9 "$T"
