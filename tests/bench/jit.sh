#!/bin/sh
# JIT benchmark: the share of samples of the tiny JIT (tests/targets/jit)
# that pscope top names, in each announcement style, with a function
# compiled mid-run. Goal: >= 95 % named.
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
SAMPLES=${SAMPLES:-1000}
tmp=$(mktemp -d /tmp/pscope-bench-jit.XXXXXX)
jp=
trap '[ -n "$jp" ] && kill -9 $jp 2>/dev/null; rm -rf $tmp /tmp/perf-$jp.map /tmp/jit-$jp.dump' EXIT
for style in jdk node dump; do
	"$TARGETS/jit" $style >"$tmp/out" 2>&1 &
	jp=$!
	for _ in $(seq 1 100); do grep -q ready "$tmp/out" && break; sleep 0.05; done
	"$PSCOPE" top "$jp" --samples "$SAMPLES" --duration 600 --json >"$tmp/j.json" 2>/dev/null &
	pp=$!
	for _ in $(seq 1 300); do ls -l /proc/$pp/fd 2>/dev/null | grep -q perf_event && break; sleep 0.1; done
	kill -USR1 "$jp"
	wait "$pp"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
jit = [f for f in d["functions"] if f["module"] == "[anon/JIT]"]
total = sum(f["self_pct"] for f in jit)
named = sum(f["self_pct"] for f in jit if not f["name"].startswith("[anon/JIT]"))
pct = 100 * named / total if total else 0
print("%-5s JIT samples named %.1f %% (of %.1f %% in JIT code)  %s" % (sys.argv[2], pct, total,
      "ok" if pct >= 95 else "BELOW the 95 % goal"))' "$tmp/j.json" $style
	kill -9 "$jp"
	rm -f /tmp/perf-$jp.map /tmp/jit-$jp.dump
done
