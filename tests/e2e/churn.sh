#!/bin/sh
# Churn: short-lived processes (hundreds per second) while the TUI and
# `pscope list --json` keep refreshing, for CHURN_ROUNDS rounds of one list
# and one screen each (20 in a sanitizer build, where it runs by default;
# set CHURN_ROUNDS to run it in any build): no sanitizer report, no crash,
# and no row showing another process's name (each child is named "c<its
# pid>").
PSCOPE_HEAVY=1 # runs alone: see tests/lib.sh
. "$top_srcdir/tests/lib.sh"
san=
grep -q __asan_init "$PSCOPE" 2>/dev/null && san=1
if [ -z "${CHURN_ROUNDS:-}" ] && [ -z "$san" ]; then
	skip "churn: runs in the sanitizer build (or set CHURN_ROUNDS)"
	done_testing
	exit 0
fi
ROUNDS=${CHURN_ROUNDS:-20}
T=$(mktemp -d)
at_exit "rm -rf $T"
start_target churn 3600 || { done_testing; exit 1; }
C=$TPID
tui_start 160x50 "$PSCOPE -d 3 2>$T/tui.err"
tui_keys F4
tui_keys -l "$_tlinks/churn" # the churn target and its children only (not a busy machine's first rows)
bad=0 lists=0 shots=0 seen=0
while kill -0 "$C" 2>/dev/null && [ "$shots" -lt "$ROUNDS" ]; do
	"$PSCOPE" list --interval 0.2 --json >"$T/l.json" 2>>"$T/list.err" || bad=$((bad + 1))
	lists=$((lists + 1))
	if command -v python3 >/dev/null; then
		python3 - "$T/l.json" "$C" >>"$T/wrong" <<'PY' || bad=$((bad + 1))
import json, sys
d = json.load(open(sys.argv[1]))
n = 0
for p in d["processes"]:
    if p["ppid"] == int(sys.argv[2]) and p["comm"].startswith("c") and p["comm"][1:].isdigit():
        n += 1
        if int(p["comm"][1:]) != p["pid"]:
            print("pid %d shown as %s" % (p["pid"], p["comm"]))
            sys.exit(1)
print("rows %d" % n, file=sys.stderr)
PY
	fi 2>>"$T/rows"
	# The TUI: each row naming a child must carry that child's PID.
	tui_screen_settled 0.1 >"$T/screen" # -d 3: a wrong row stays 0.3 s
	shots=$((shots + 1))
	n=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^c[0-9]+(│|$)/) { c = $i; sub(/│.*/, "", c); seen++;
		if ("c" $1 != c) { print "TUI: " $0 > "/dev/stderr"; bad++ } } } END { print bad + 0 }' "$T/screen" 2>>"$T/wrong")
	bad=$((bad + n))
	seen=$((seen + $(grep -cE ' c[0-9]+' "$T/screen")))
done
kill -9 "$C"
diag "$lists list runs ($(awk '{ n += $2 } END { print n + 0 }' "$T/rows") child rows), $shots screens ($seen child rows)"
check "pscope list --json ran throughout" test "$lists" -ge 3
check "no row with another process's name (of $seen child rows on screen)" test "$bad" = 0 -a "$seen" -gt 0
[ -s "$T/wrong" ] && sed 's/^/#   /' "$T/wrong" | head
grep -v '^rows ' "$T/rows" | sed 's/^/#   python: /' | head
sed 's/^/#   list: /' "$T/list.err" | head
check "the TUI is still running" tui_alive
check "no sanitizer report from the TUI" sh -c "! grep -E 'Sanitizer|runtime error' '$T/tui.err'"
check "no sanitizer report from pscope list" sh -c "! grep -E 'Sanitizer|runtime error' '$T/list.err'"
tui_keys q
done_testing
