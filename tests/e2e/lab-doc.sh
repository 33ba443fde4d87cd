#!/bin/sh
# doc/lab.md stays true: every program it runs from tests/targets is built,
# every pscope command it uses exists, and the lab's own targets do what the
# lab says (the fd leak grows, major faults happen, the deadlock holds).
. "$top_srcdir/tests/lib.sh"
lab=$top_srcdir/doc/lab.md

for t in $(grep -oE '\$T/[a-z0-9-]+' "$lab" | sed 's|\$T/||' | sort -u); do
	if [ ! -e "$top_srcdir/tests/targets/$t.c" ] && [ ! -x "$TARGETS/$t" ]; then
		skip "lab program $t: not in this tree yet"
		continue
	fi
	check "lab program $t is built" test -x "$TARGETS/$t"
done
# The commands of the code blocks (indented lines).
help=$($PSCOPE --help)
for c in $(grep -E '^    ' "$lab" | grep -oE '(^|[ /(])pscope [a-z]+' | awk '{print $2}' | sort -u); do
	ok "$(echo "$help" | grep -q "^  pscope $c "; echo $?)" "lab command 'pscope $c' exists"
done

start_target lab-fdleak 20 || exit 1
n1=$(ls /proc/$TPID/fd | wc -l)
for _ in $(seq 1 50); do
	[ "$(ls /proc/$TPID/fd | wc -l)" -gt $((n1 + 5)) ] && break
	sleep 0.1
done
ok "$([ "$(ls /proc/$TPID/fd | wc -l)" -gt $((n1 + 5)) ]; echo $?)" "lab-fdleak leaks descriptors"

start_target lab-faults 4 || exit 1
maj() { awk '{print $12}' /proc/$TPID/stat; }
m1=$(maj)
for _ in $(seq 1 60); do
	[ "$(maj)" -gt "$m1" ] && break
	sleep 0.1
done
ok "$([ "$(maj)" -gt "$m1" ]; echo $?)" "lab-faults makes major faults"

start_target lab-deadlock || exit 1
check "lab-deadlock: both threads wait in futex()" sh -c \
	"[ \$(grep -l '^202 ' /proc/$TPID/task/*/syscall | wc -l) -ge 2 ]"

start_target lab-nodump || exit 1
check "lab-nodump is not dumpable: its /proc files are root's" sh -c "[ \$(stat -c %u /proc/$TPID/stat) = 0 ]"

done_testing
