#!/bin/bash
# pscope top --annotate: the lines of a function with a known hot line
# (hotline: line_work() has a HOT loop line, a WARM line an eighth as long
# and cold lines around them), the hottest marked, their shares next to
# perf annotate's on the same run when perf is installed, JSON, and bad
# input.
. "$top_srcdir/tests/lib.sh"

tmp=$(mktemp -d /tmp/pscope-annotate.XXXXXX)
at_exit "rm -rf $tmp"
src="$top_srcdir/tests/targets/hotline.c"
hot=$(grep -n '/\* HOT \*/' "$src" | cut -d: -f1)
warm=$(grep -n '/\* WARM \*/' "$src" | cut -d: -f1)

start_target hotline

# perf record on the same run, around pscope's sampling.
perf_ok=
if command -v perf >/dev/null; then
	perf record -q -e cpu-clock -F 499 -p "$TPID" -o "$tmp/perf.data" >"$tmp/perf.out" 2>&1 &
	PERF=$!
	kill_at_exit "$PERF"
	wait_until test -s "$tmp/perf.data" && perf_ok=1
fi
"$PSCOPE" top "$TPID" --annotate line_work --samples 900 --freq 499 --duration 600 >"$tmp/out" 2>"$tmp/err"
ok $? "pscope top --annotate exits 0"
if [ -n "$perf_ok" ]; then
	kill -INT "$PERF"
	wait "$PERF"
fi
sed 's/^/#   /' "$tmp/out"
check "line 2 names the function, its module and its samples" \
	grep -qxE 'line_work \(hotline\): [0-9]+ samples in its own code' <(sed -n 2p "$tmp/out")
check "line 3 is the header" grep -qxF '  SHARE%  SAMPLES  LINE                     SOURCE' <(sed -n 3p "$tmp/out")
check "the hot line is marked, with its source text" \
	grep -qE "^> +[0-9.]+ +[0-9]+  hotline\.c:$hot +for \(.*/\* HOT \*/$" "$tmp/out"
check "one line marked" test "$(grep -c '^>' "$tmp/out")" = 1
check "the warm line is there, unmarked" grep -qE "^  +[0-9.]+ +[0-9]+  hotline\.c:$warm +for \(.*/\* WARM \*/$" "$tmp/out"
check "lines in source order" python3 -c '
import re, sys
ls = [int(m.group(1)) for m in re.finditer(r"hotline\.c:(\d+)", open(sys.argv[1]).read())]
assert ls == sorted(ls) and len(ls) == len(set(ls)), ls
' "$tmp/out"
share() { sed -nE "s/^.? +([0-9.]+) +[0-9]+  hotline\.c:$1 .*/\1/p" "$tmp/out"; }
hs=$(share "$hot")
ws=$(share "$warm")
check "the hot line has about 8/9 of the samples (got $hs)" python3 -c "assert 75 <= $hs <= 97"
check "the warm line about 1/9 (got $ws)" python3 -c "assert 3 <= $ws <= 25"
check "shares add up to 100" python3 -c '
import re, sys
t = sum(float(m.group(1)) for m in re.finditer(r"^.? +([0-9.]+) +\d+  ", open(sys.argv[1]).read(), re.M))
assert abs(t - 100) < 0.1, t
' "$tmp/out"
if [ -n "$perf_ok" ]; then
	perf annotate --stdio -l -i "$tmp/perf.data" line_work >"$tmp/perf.txt" 2>"$tmp/perf.err"
	ps=$(sed -nE "s/^ +([0-9.]+) +hotline\.c:$hot\$/\1/p" "$tmp/perf.txt" | head -1)
	check "perf annotate names the hot line (got '$ps')" test -n "$ps"
	check "hot line within 5 points of perf annotate ($hs vs $ps)" python3 -c "assert abs($hs - ${ps:-1000}) <= 5"
else
	skip "perf is not installed (Debian: linux-perf): no comparison with perf annotate"
	skip "perf is not installed: no comparison with perf annotate"
fi

# JSON: the documented keys.
"$PSCOPE" top "$TPID" --annotate line_work --samples 60 --duration 600 --json >"$tmp/json" 2>"$tmp/err"
ok $? "--annotate --json exits 0"
check "JSON: the documented keys, the hot line hot" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(d) == ["dropped", "event", "freq", "function", "kind", "lines", "module", "pid", "samples"], sorted(d)
assert d["function"] == "line_work" and d["kind"] == "native" and d["samples"] == sum(l["samples"] for l in d["lines"])
for l in d["lines"]:
    assert sorted(l) == ["file", "hi", "hot", "inlined", "line", "lo", "pct", "samples", "source"], l
hot = [l for l in d["lines"] if l["hot"]]
assert len(hot) == 1 and hot[0]["line"] == int(sys.argv[2]) and hot[0]["file"].endswith("/tests/targets/hotline.c"), hot
assert "/* HOT */" in hot[0]["source"] and hot[0]["lo"] <= hot[0]["hi"]
' "$tmp/json" "$hot"

# Bad input.
"$PSCOPE" top "$TPID" --annotate no_such_function --samples 20 --duration 600 >"$tmp/out" 2>"$tmp/err"
[ $? = 1 ]; ok $? "an unknown function fails"
check "and says so" grep -qF "no samples in the code of a function named 'no_such_function'" "$tmp/err"
"$PSCOPE" top --annotate line_work >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ]; ok $? "--annotate without a PID is a usage error"
check "and says it needs one" grep -qF -- "--annotate needs a PID" "$tmp/err"
"$PSCOPE" top "$TPID" --annotate "" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ]; ok $? "an empty function name is refused"

done_testing
