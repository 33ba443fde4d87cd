#!/bin/sh
# pscope SIGKILLed at random points of a stack dump of 1000 threads, of
# sampling and of the doors probe (20 tries each): every target runs on,
# untraced and not stopped, and nothing is left in the directory pscope ran
# in or in $TMPDIR. KILL_TRIES changes the count; the totals go to tests/figures.sh.
PSCOPE_HEAVY=1 # runs alone: see tests/lib.sh
. "$top_srcdir/tests/lib.sh"
TRIES=${KILL_TRIES:-20}
T=$(mktemp -d)
at_exit "rm -rf $T"
mkdir "$T/cwd" "$T/tmp"
start_target stack-threads 1000 || { done_testing; exit 1; }
S=$TPID
# pscope's temporary files go to $TMPDIR: its own here (/tmp is shared).
export TMPDIR="$T/tmp"
# the threads are up when the target says ready

# A delay of 0-399 ms from the kernel's random bytes (sh has no $RANDOM).
rnd_ms() { od -An -N2 -tu2 /dev/urandom | awk '{ print $1 % 400 }'; }
msleep() { sleep "$(awk -v m="$1" 'BEGIN { printf "%.3f", m / 1000 }')"; }

# runs_on PID: no thread traced or in t/T (one awk over all threads: a
# thousand of them), polled, because the kernel detaches a dead tracer's
# tracees as it reaps it.
untraced() {
	awk 'FNR == 1 && FILENAME ~ /stat$/ { s = $0; sub(/.*\) /, "", s); if (substr(s, 1, 1) ~ /[tT]/) bad = 1 }
	     /^TracerPid:/ && $2 != 0 { bad = 1 }
	     END { exit bad }' /proc/"$1"/task/*/stat /proc/"$1"/task/*/status 2>/dev/null
}
runs_on() { wait_until untraced "$1"; }

for op in stack top doors; do
	left=0
	for i in $(seq 1 "$TRIES"); do
		case $op in
		stack) (cd "$T/cwd" && exec "$PSCOPE" stack "$S") >/dev/null 2>&1 & ;;
		top) (cd "$T/cwd" && exec "$PSCOPE" top "$S" --duration 0.2 --folded "$T/cwd/f") >/dev/null 2>&1 & ;;
		doors) (cd "$T/cwd" && exec "$PSCOPE" doors "$S") >/dev/null 2>&1 & ;;
		esac
		p=$!
		msleep "$(rnd_ms)"
		kill -9 $p 2>/dev/null
		wait $p 2>/dev/null
		runs_on "$S" || left=$((left + 1))
	done
	echo "# kill-figures $op: $left of $TRIES tries left the target stopped or traced"
	check "$op killed $TRIES times: the target runs on untraced every time" test "$left" = 0
done
# The --folded file is whole or absent: never a temporary name beside it.
check "nothing left where pscope ran but the folded file" test -z "$(ls -A "$T/cwd" | grep -vx f)"
check "no temporary file left" test -z "$(ls -A "$T/tmp")"
check "the target still answers" kill -0 "$S"
done_testing
