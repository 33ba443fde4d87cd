#!/bin/sh
# A Java-level deadlock (tests/targets/JvmDeadlock.java) on OpenJDK: pscope
# names the monitor waits from HotSpot's native frames, counts them, and
# points at `jcmd PID Thread.print` for the monitors and their owners (it
# does not read them), in text, JSON and the Stacks screen; the threads it
# marks are the ones jcmd finds deadlocked. SKIP without a JDK.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8

for c in javac java jcmd; do
	command -v $c >/dev/null || { skip "no $c (a JDK: openjdk-17-jdk-headless)"; done_testing; exit 0; }
done
tmp=$(mktemp -d)
at_exit "rm -rf $tmp"
if ! javac -d "$tmp" "$top_srcdir/tests/targets/JvmDeadlock.java" >"$tmp/javac.log" 2>&1; then
	ok 1 "JvmDeadlock.java compiles"
	sed 's/^/#   /' "$tmp/javac.log"
	done_testing
	exit 0
fi
java -Xmx64m -XX:+UseSerialGC -cp "$tmp" JvmDeadlock >"$tmp/out" 2>&1 &
P=$!
kill_at_exit $P
check "the target is ready" wait_until grep -q ready "$tmp/out"
# The anchor: jcmd sees the deadlock once both threads block in it.
_jcmd_deadlock() { jcmd $P Thread.print >"$tmp/jcmd" 2>&1 && grep -q 'Found one Java-level deadlock' "$tmp/jcmd"; }
check "jcmd reports the Java-level deadlock" wait_until -t 120 _jcmd_deadlock

"$PSCOPE" stack $P >"$tmp/t" 2>"$tmp/err"
ok $? "pscope stack succeeds"
grep -qx 'Java: 2 threads wait to enter a monitor (synchronized); which monitors, their owners and any' "$tmp/t" &&
	grep -qx "Java-level deadlock: jcmd $P Thread.print" "$tmp/t"
ok $? "text: the monitor waits counted, jcmd named for the monitors"
for t in teller-a teller-b; do
	check "text: $t waits to enter a monitor" grep -qE "^TID [0-9]+ \"$t\" \(S, futex\) Java: monitor enter$" "$tmp/t"
done
"$PSCOPE" stack --json $P >"$tmp/j" 2>"$tmp/err"
check "JSON: jvm_wait of the threads jcmd finds deadlocked, the count, the jcmd hint" python3 -c "
import json, re
d = json.load(open('$tmp/j'))
jc = open('$tmp/jcmd').read().split('Found one Java-level deadlock')[1].split('Java stack information')[0]
dead = sorted(set(re.findall(r'^\"([^\"]+)\":', jc, re.M)))
assert dead == ['teller-a', 'teller-b'], dead
mon = sorted(t['name'] for t in d['threads'] if t.get('jvm_wait') == 'monitor enter')
assert mon == dead, (mon, dead)
assert d['jvm'] == {'monitor_waiters': 2, 'monitors_from': 'jcmd $P Thread.print'}, d['jvm']
assert d['deadlocks'] == [], d['deadlocks']
"
check "the target runs on after the dumps" runs_on_soon $P

if command -v tmux >/dev/null; then
	tui_start 200x50 "$PSCOPE -p $P"
	check "TUI: detail screen up" tui_wait_for "PID $P"
	tui_keys s
	check "TUI: the Stacks screen counts the monitor waits and names jcmd" \
		tui_wait_for "Java: 2 threads wait to enter a monitor \(synchronized\): jcmd $P Thread.print names them and their owners"
	tui_keys q
else
	skip "tmux is not installed: no TUI check"
fi
kill -9 $P
done_testing
