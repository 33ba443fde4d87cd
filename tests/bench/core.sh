#!/bin/bash
# Benchmark: `pscope core` next to gdb's `gcore` in the same run.
#   1. a target with 2 GiB resident (data on every page)
#   2. a target with 64 MiB resident and 2 GiB of mappings barely touched
#   3. a target with 2 GiB resident, every other page all zeros
# Prints wall time, pause and disk usage (du) of both, and the ratios
# against the goals: wall <= 0.25x gcore, disk <= gcore. Removes the cores.
set -u
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
RESIDENT_MB=${CORE_BENCH_MB:-2048}
UNTOUCHED_MB=${CORE_BENCH_UNTOUCHED_MB:-2048}

command -v gcore >/dev/null || { echo "gcore not found (apt-get install gdb)"; exit 1; }
dir=$(mktemp -d "${CORE_BENCH_DIR:-$PWD}/pscope-core-bench.XXXXXX")
pids=""
cleanup() {
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$dir"
}
trap cleanup EXIT

start() { # start ARGS... -> $T
	"$TARGETS/core-big" "$@" >"$dir/out" 2>&1 &
	T=$!
	disown $T
	pids="$pids $T"
	for _ in $(seq 1 600); do grep -q ready "$dir/out" && return 0; sleep 0.1; done
	echo "target did not get ready"; exit 1
}
now() { date +%s.%N; }
sub() { python3 -c "print('%.3f' % ($1 - $2))"; }
du_bytes() { du -B1 "$1" | cut -f1; }

run_case() { # run_case LABEL
	local label=$1 t0 t1 pw pp pd gw gd
	sync
	t0=$(now)
	"$PSCOPE" core "$T" -o "$dir/p.core" --json >"$dir/p.json" || { echo "pscope core failed"; exit 1; }
	t1=$(now)
	pw=$(sub "$t1" "$t0")
	pp=$(python3 -c "import json; print('%.1f' % json.load(open('$dir/p.json'))['pause_ms'])")
	pd=$(du_bytes "$dir/p.core")
	ps=$(stat -c %s "$dir/p.core")
	rm -f "$dir/p.core"
	sync
	t0=$(now)
	gcore -o "$dir/g.core" "$T" >/dev/null 2>&1 || { echo "gcore failed"; exit 1; }
	t1=$(now)
	gw=$(sub "$t1" "$t0")
	# gcore leaves its file in the page cache; pscope syncs before the rename.
	sync "$dir/g.core.$T"
	gsw=$(sub "$(now)" "$t0")
	gd=$(du_bytes "$dir/g.core.$T")
	gs=$(stat -c %s "$dir/g.core.$T")
	rm -f "$dir/g.core.$T"
	printf '%s\n' "$label"
	printf '  %-12s wall %7.2f s   pause %8.1f ms   file %6d MiB   disk %6d MiB\n' \
		"pscope core" "$pw" "$pp" $((ps >> 20)) $((pd >> 20))
	printf '  %-12s wall %7.2f s   pause %8s      file %6d MiB   disk %6d MiB   (%.2f s with an fsync like pscope)\n' \
		"gcore" "$gw" "(=wall)" $((gs >> 20)) $((gd >> 20)) "$gsw"
	python3 - "$pw" "$gw" "$pd" "$gd" "$pp" "$gsw" <<'EOF'
import sys
pw, gw, pd, gd, pp, gsw = map(float, sys.argv[1:])
wr = pw / gw if gw else 0
dr = pd / gd if gd else 0
print("  wall ratio %.2fx gcore (goal <= 0.25x): %s" % (wr, "met" if wr <= 0.25 else "NOT met"))
print("  wall ratio %.2fx gcore + fsync (both durable)" % (pw / gsw if gsw else 0))
print("  disk ratio %.2fx gcore (goal <= 1.00x): %s" % (dr, "met" if dr <= 1.0 else "NOT met"))
print("  pause: %.0f ms stopped vs gcore stopped for its whole %.2f s (%.1fx shorter)" % (pp, gw, gw * 1000 / pp if pp else 0))
EOF
}

echo "pscope core vs gcore ($(gdb --version | head -1)); cores in $dir"
# A VM may back its RAM lazily: touch it once so that neither tool pays
# the host's first touch of fresh pages.
start $((RESIDENT_MB * 2))
kill -9 "$T"
start "$RESIDENT_MB"
run_case "1. $RESIDENT_MB MiB resident, data on every page"
kill -9 "$T"
start 64 "$UNTOUCHED_MB"
run_case "2. 64 MiB resident + $UNTOUCHED_MB MiB mapped, one page touched per 64 MiB"
kill -9 "$T"
start "$RESIDENT_MB" 0 2
run_case "3. $RESIDENT_MB MiB resident, every other page all zeros"
kill -9 "$T"
