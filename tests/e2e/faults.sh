#!/bin/sh
# Clear messages and the right exit status for the awkward cases: a zombie,
# a process that used no CPU, a read-only destination, raw JSON strings.
. "$top_srcdir/tests/lib.sh"
T=$(mktemp -d)
at_exit "rm -rf $T"

# A zombie: its parent never reaps it.
start_target zombie || { done_testing; exit 1; }
ZP=$TPID
Z=$(cat /proc/$ZP/task/$ZP/children); Z=${Z% }
"$PSCOPE" show "$Z" --pane all >"$T/out" 2>"$T/err"
ok $? "show --pane all of a zombie exits 0"
check "its fd, maps, mem and time panes say why they are empty" \
	test "$(grep -c "^zombie: it has exited and its parent (PID $ZP) has not reaped it" "$T/out")" = 4
check "nothing on stderr" test ! -s "$T/err"
"$PSCOPE" show "$Z" --pane mem --json >"$T/out" 2>"$T/err"
ok $? "show --json of a zombie exits 0"
"$PSCOPE" stack "$Z" >"$T/out" 2>"$T/err"
check "stack of a zombie exits 1" test $? = 1
check "and names it a zombie of its parent" \
	grep -q "^pscope stack: process $Z is a zombie: it has exited and its parent (PID $ZP) has not reaped it" "$T/err"

# A process that sleeps gives no samples, and pscope top says why.
sleep 300 &
SP=$!
kill_at_exit $SP
"$PSCOPE" top "$SP" --duration 0.5 >"$T/out" 2>"$T/err"
ok $? "top of a sleeping process exits 0"
check "it explains the 0 samples" grep -q "^pscope top: no samples: process $SP used 0.00 s of CPU time" "$T/err"

# A read-only destination is refused for that, not for its free space
# (a private mount namespace: nothing is left mounted).
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	start_target core-big 8 || { done_testing; exit 1; }
	mkdir "$T/ro"
	unshare -m sh -c "mount -t tmpfs -o size=1m tmpfs '$T/ro' && mount -o remount,ro '$T/ro' &&
		'$PSCOPE' core $TPID -o '$T/ro/c'" >"$T/out" 2>"$T/err"
	check "core to a read-only filesystem exits 1" test $? = 1
	check "it names the read-only filesystem" grep -q "cannot create a file in $T/ro: Read-only file system (door: filesystem" "$T/err"
	check "not the free space" sh -c "! grep -q 'space' '$T/err'"
	check "target left running" runs_on_soon "$TPID"
else
	skip "read-only destination: needs root and unshare -m"
fi

# JSON strings are raw: an invalid byte does not turn cmdline into
# display-escaped text.
if command -v bash >/dev/null && command -v python3 >/dev/null; then
	bash -c 'exec -a "$(printf "x\033]2;T\a\377")" sleep 300' &
	BP=$!
	kill_at_exit $BP
	wait_until grep -q 'x' "/proc/$BP/cmdline"
	"$PSCOPE" list --json >"$T/list.json"
	check "list --json: cmdline and command raw" python3 - "$T/list.json" "$BP" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = [p for p in d["processes"] if p["pid"] == int(sys.argv[2])][0]
want = "x\x1b]2;T\x07\ufffd 300"
assert p["cmdline"] == want, repr(p["cmdline"])
assert p["command"].endswith(want), repr(p["command"])
assert p["comm"] == "sleep", repr(p["comm"])
PY
	"$PSCOPE" show "$BP" --json >"$T/show.json"
	check "show --json: cmdline raw" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cmdline"] == "x\x1b]2;T\x07\ufffd 300", repr(d["cmdline"])' "$T/show.json"
else
	skip "raw JSON: needs bash and python3"
fi
done_testing
