#!/bin/bash
# The flame graph of a 10,000-frame profile: the TUI view drawn at 200x50
# (goal <= 20 ms a frame) and the SVG written (goals <= 200 ms, <= 5 MB),
# by tests/bench/flame-bench; then the anchor, flamegraph.pl (or inferno's
# inferno-flamegraph), drawing the same profile's folded lines, when one
# is installed, and the ratio.
set -u
: "${top_builddir:=.}"
tmp=$(mktemp -d /tmp/pscope-bench-flame.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s%N)
"$top_builddir/tests/bench/flame-bench" "$tmp/p.folded"
rc=$?
anchor=$(command -v flamegraph.pl || command -v inferno-flamegraph || true)
if [ -n "$anchor" ]; then
	t0=$(date +%s%N)
	"$anchor" "$tmp/p.folded" >"$tmp/anchor.svg"
	t1=$(date +%s%N)
	echo "anchor $(basename "$anchor"): $(( (t1 - t0) / 1000000 )) ms, $(stat -c %s "$tmp/anchor.svg") bytes for the same folded profile"
else
	echo "anchor: neither flamegraph.pl nor inferno-flamegraph is installed; figures against the goals only"
fi
[ $rc -eq 0 ] && echo "flame: within the goals" || echo "flame: OVER a goal"
exit 0
