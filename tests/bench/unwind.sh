#!/bin/bash
# libdw against libunwind on the same copied-stack samples (the choice of
# the sampler's DWARF unwinder): tests/bench/unwind-cmp samples a busy
# target without frame pointers (perf_event_open, REGS_USER|STACK_USER),
# then unwinds every sample with pscope's unwinder (libunwind) and with
# libdw's dwfl_getthread_frames over a Dwfl kept for the process, and
# prints the CPU cost per sample of each, cold and warm, and whether they
# found the same frames. Targets: leafchain-nofp (a frameless leaf two
# calls deep) and a CPython process (deep stacks in a Debian libpython
# without frame pointers).
set -u
: "${top_builddir:=.}"
: "${TARGETS:=$top_builddir/tests/targets}"
SECS=${SECS:-5}
CMP=$top_builddir/tests/bench/unwind-cmp

tmp=$(mktemp -d /tmp/pscope-bench-unwind.XXXXXX)
"$TARGETS/leafchain-nofp" >"$tmp/out" 2>&1 &
t1=$!
python3 -c '
def f(n):
    return n if n < 2 else f(n - 1) + f(n - 2)
print("ready", flush=True)
while True:
    f(20)
' >"$tmp/py.out" 2>&1 &
t2=$!
trap 'kill -9 $t1 $t2 2>/dev/null; wait $t1 $t2 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 1 100); do grep -q ready "$tmp/out" && grep -q ready "$tmp/py.out" && break; sleep 0.05; done

echo "== leafchain-nofp"
"$CMP" "$t1" "$SECS"
echo "== python3 (recursive fib)"
"$CMP" "$t2" "$SECS"
echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
