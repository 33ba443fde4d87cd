#!/bin/bash
# Rust callers in the sampler: mean user frames per sample and the share of
# truncated stacks of pscope top against perf record --call-graph dwarf on
# the same run (both sampling the same process at once), on ripgrep (if
# installed: a search of a large file in the page cache) and on the Rust
# target (tests/targets/rust-spin.rs, if rustc is). perf's chains are
# counted up to the first root function pscope stops at (start_thread,
# __libc_start_call_main, ...), as pscope shows them, perf's inline
# expansions ("(inlined)") not counted: they are no frames of their own.
# Goals: frames per sample within 10 % of perf's; truncated <= 5 %.
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
: "${PSCOPE:=$top_builddir/pscope}"
SAMPLES=${SAMPLES:-500}
command -v perf >/dev/null || { echo "perf is not installed (linux-perf)"; exit 1; }
tmp=$(mktemp -d /tmp/pscope-bench-rust.XXXXXX)
tpid=
trap '[ -n "$tpid" ] && kill -9 $tpid 2>/dev/null; rm -rf "$tmp"' EXIT

measure() { # measure LABEL PID
	perf record -q -F 99 --call-graph dwarf,16384 -p "$2" -o "$tmp/perf.data" -- sleep 600 >/dev/null 2>&1 &
	local perfp=$!
	"$PSCOPE" top "$2" --samples "$SAMPLES" --duration 600 --folded "$tmp/f" --json >"$tmp/j" 2>/dev/null
	kill -INT "$perfp" 2>/dev/null
	wait "$perfp" 2>/dev/null
	perf script -i "$tmp/perf.data" -F tid,ip,sym,dso 2>/dev/null >"$tmp/script"
	python3 - "$1" "$tmp/f" "$tmp/j" "$tmp/script" <<'PY'
import json, re, sys
label, folded, js, script = sys.argv[1:]
roots = {"_start", "__libc_start_main", "__libc_start_call_main", "__libc_start_main_impl", "start_thread",
         "clone", "clone3", "__clone", "__clone3", "__clone_internal", "thread_start"}
n = frames = 0
for line in open(folded):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    user = [f for f in stack.split(";")[1:] if not f.endswith("_[k]")]
    n += int(count)
    frames += len(user) * int(count)
d = json.load(open(js))
ps_mean = frames / n if n else 0
ps_trunc = 100 * d["truncated"] / d["samples"] if d["samples"] else 100
pn = pf = pt = 0
def done(chain):
    global pn, pf, pt
    if not chain:
        return
    user = [s for s, dso in chain if "kernel" not in dso]
    k = next((i for i, s in enumerate(user) if s.split("@")[0] in roots), None)
    pn += 1
    pf += len(user) if k is None else k + 1
    pt += k is None
chain = []
for line in open(script):
    if not line.strip():
        done(chain); chain = []
        continue
    m = re.match(r"\s+[0-9a-f]+ (.*) \((.*)\)$", line)
    if m and m.group(2) != "inlined":  # perf's inline expansion: one frame
        chain.append((m.group(1).split("+0x")[0], m.group(2)))
done(chain)
pe_mean = pf / pn if pn else 0
pe_trunc = 100 * pt / pn if pn else 100
ratio = ps_mean / pe_mean if pe_mean else 0
ok = abs(ratio - 1) <= 0.10 and ps_trunc <= 5
print("%-10s pscope %.2f frames/sample (%d samples, truncated %.1f %%)  perf --call-graph dwarf %.2f (%d, truncated %.1f %%)"
      "  ratio %.2f  %s" % (label, ps_mean, n, ps_trunc, pe_mean, pn, pe_trunc, ratio, "MET" if ok else "MISSED"))
PY
}

if command -v rg >/dev/null; then
	for _ in $(seq 1 40); do cat "$top_srcdir"/src/*/*.c; done >"$tmp/big.txt"
	files=$(for _ in $(seq 1 5000); do echo "$tmp/big.txt"; done)
	# shellcheck disable=SC2086
	rg -j1 -c -i '\w+\s+\w+q\w*z' $files >/dev/null 2>&1 &
	tpid=$!
	sleep 1
	measure ripgrep "$tpid"
	kill -9 "$tpid" 2>/dev/null
	wait "$tpid" 2>/dev/null
	tpid=
else
	echo "ripgrep      not installed (Debian: ripgrep): skipped"
fi
RUSTC=${RUSTC:-$(command -v rustc || echo "$HOME/.cargo/bin/rustc")}
if [ -x "$RUSTC" ] && "$RUSTC" -O -g -o "$tmp/rust-spin" "$top_srcdir/tests/targets/rust-spin.rs" 2>/dev/null; then
	"$tmp/rust-spin" >"$tmp/out" 2>&1 &
	tpid=$!
	for _ in $(seq 1 100); do grep -q ready "$tmp/out" && break; sleep 0.05; done
	measure rust-spin "$tpid"
else
	echo "rust-spin    rustc not installed: skipped"
fi
