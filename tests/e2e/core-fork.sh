#!/bin/bash
# pscope core, fork snapshot: the core holds the process as it was
# (shared, MADV_DONTFORK and MADV_WIPEONFORK pages included) and loads in
# gdb and eu-stack; the process runs on correctly (threads in nanosleep,
# futex wait, pipe read and spinning keep going, its SIGCHLD handler and
# waitpid(-1) loop see nothing, SIGTRAP stays ignored, a signal sent
# during the dump arrives once); pscope SIGKILLed at every named step and
# at random instants leaves it untraced, with no child, no zombie and no
# file; the checks fall back (seccomp, vfork, pids limit, memory cgroup).
PSCOPE_HEAVY=1 # runs alone: see tests/lib.sh
. "$top_srcdir/tests/lib.sh"

dir=$(mktemp -d /tmp/pscope-core-fork.XXXXXX)
at_exit "rm -rf $dir"
EXE=$TARGETS/core-fork

json_get() { # json_get FILE EXPR [ARG]: ARG is sys.argv[2]
	local f=$1 e=$2
	shift 2
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($e)" "$f" "$@"
}
field() { # field STATUSFILE NAME
	awk -v k="$2" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$1"
}
no_children() { # no_children PID: no child, live or zombie, of any thread
	[ -z "$(cat /proc/$1/task/*/children 2>/dev/null | tr -d ' \n')" ]
}
no_file() { # no_file: no core and no temporary file in $dir
	! ls -A $dir | grep -qE '^(k|r)$|^\.pscope-core'
}
advancing() { # advancing STATUSFILE: every worker's counter moves
	local f=$1 a b
	a=$(cat $f)
	sleep 0.1
	b=$(cat $f)
	for k in sleep futex pipe spin; do
		[ "$(echo "$b" | field /dev/stdin $k)" -gt "$(echo "$a" | field /dev/stdin $k)" ] || return 1
	done
}
untouched() { # untouched STATUSFILE: no error, no SIGCHLD, nothing reaped
	[ "$(field $1 errors)" = 0 ] && [ "$(field $1 sigchld)" = 0 ] && [ "$(field $1 reaped)" = 0 ]
}
trap_ignored() { # trap_ignored PID: SIGTRAP (5) is in SigIgn
	[ $((0x$(awk '/^SigIgn/{print $2}' /proc/$1/status) & 0x10)) != 0 ]
}
# healthy PID STATUSFILE: all of it, polled (the watchdog may still be
# reaping a snapshot left by a killed pscope).
_healthy() {
	target_runs_on $1 && { [ -n "$VFORK_CHILD" ] || no_children $1; } && advancing $2 && untouched $2 && trap_ignored $1
}
healthy() {
	wait_until _healthy "$1" "$2" && return 0
	diag "pid $1: runs_on=$(target_runs_on $1 && echo y) children='$(cat /proc/$1/task/*/children 2>/dev/null)' status: $(cat $2)"
	return 1
}
start_fork_target() { # start_fork_target NAME [MODE] -> $TPID, status file $dir/status.NAME
	start_target core-fork $dir/status.$1 $2 || { done_testing; exit 1; }
	wait_until [ -s $dir/status.$1 ]
}
addr() { sed -n "s/^$1=//p" /proc/$2/fd/1; }

# 1. A fork snapshot.
start_fork_target a
P=$TPID
S=$dir/status.a
$PSCOPE core $P -o $dir/c1 --json >$dir/j1 2>$dir/e1
ok $? "a fork snapshot core"
sed 's/^/#   /' $dir/e1
check "JSON: method fork" test "$(json_get $dir/j1 'd["method"]')" = fork
check "JSON: sync_ms and wall_without_sync_ms" json_get $dir/j1 'd["sync_ms"] >= 0 and d["wall_without_sync_ms"] > 0 or sys.exit(1)'
check "the process is healthy after it" healthy $P $S
gdb -batch -nx -ex 'info threads' -ex 'thread apply all bt' \
	-ex "print/x *(unsigned char *)$(addr shared $P)@4" \
	-ex "print/x *(unsigned char *)$(addr dontfork $P)@4" \
	-ex "print/x *(unsigned char *)$(addr wipeonfork $P)@4" $EXE $dir/c1 >$dir/gdb1 2>&1
check "gdb lists every thread" test "$(grep -cE '^[* ] +[0-9]+ +(Thread|LWP)' $dir/gdb1)" = 6
check "gdb: the threads' functions" sh -c "grep -q sleeper $dir/gdb1 && grep -q waiter $dir/gdb1 && grep -q reader $dir/gdb1 && grep -q spinner $dir/gdb1"
check "gdb: the MAP_SHARED page holds the process's bytes" grep -q '^\$1 = {0xa1, 0xa1, 0xa1, 0xa1}' $dir/gdb1
check "gdb: the MADV_DONTFORK page holds the process's bytes" grep -q '^\$2 = {0xb2, 0xb2, 0xb2, 0xb2}' $dir/gdb1
check "gdb: the MADV_WIPEONFORK page holds the process's bytes" grep -q '^\$3 = {0xc3, 0xc3, 0xc3, 0xc3}' $dir/gdb1
grep -q '0xa1, 0xa1' $dir/gdb1 || sed 's/^/#   /' $dir/gdb1 | tail -20
eu-stack --core $dir/c1 --executable $EXE >$dir/eus1 2>&1
check "eu-stack --core loads it" grep -q spinner $dir/eus1
rm -f $dir/c1

# 2. A signal sent while the process is stopped for the snapshot arrives once.
# (The pause holds until the test has sent it: a file, not a time.)
PSCOPE_TEST_PAUSE=clone-ready PSCOPE_TEST_PAUSE_FILE=$dir/go2 $PSCOPE core $P -o $dir/c2 >/dev/null 2>$dir/e2 &
W=$!
wait_until grep -q 'paused at' $dir/e2
kill -USR1 $P
touch $dir/go2
wait $W
ok $? "a dump with a signal sent during the pause"
usr1_once() { [ "$(field $S usr1)" = 1 ]; }
wait_until usr1_once
check "the signal was delivered once" test "$(field $S usr1)" = 1
check "the process is healthy after it" healthy $P $S
rm -f $dir/c2

# 3. pscope SIGKILLed at each named step, then at random instants.
kill_at() { # kill_at STEP
	PSCOPE_TEST_PAUSE=$1 $PSCOPE core $P -o $dir/k >/dev/null 2>$dir/ek &
	W=$!
	wait_until grep -q 'paused at' $dir/ek
	grep -q "paused at $1" $dir/ek || diag "never paused at $1: $(cat $dir/ek)"
	kill -KILL $W
	wait $W 2>/dev/null
}
for step in clone-ready clone-running clone-exit restored read kill-child reap-ready; do
	kill_at $step
	check "SIGKILL at $step: healthy, untraced, no child or zombie" healthy $P $S
	check "SIGKILL at $step: no file left" no_file
done
bad=0
for i in $(seq 1 43); do
	$PSCOPE core $P -o $dir/r >/dev/null 2>&1 &
	W=$!
	sleep "0.0$(printf '%02d' $((RANDOM % 60)))"
	kill -KILL $W 2>/dev/null
	wait $W 2>/dev/null
	# Killed after the link, the core is whole; never a temporary file.
	if ! healthy $P $S || ls -A $dir | grep -q '^\.pscope-core'; then
		bad=$((bad + 1))
		diag "random kill $i left a trace"
	fi
	rm -f $dir/r
done
check "43 SIGKILLs at random instants: every time healthy, no child, no file" test $bad = 0
check "the target is still the same process" test "$(field $S errors)" = 0

# 4. The process exits while the snapshot is read: the core is still whole.
start_fork_target x
X=$TPID
PSCOPE_TEST_PAUSE=read PSCOPE_TEST_PAUSE_FILE=$dir/go4 $PSCOPE core $X -o $dir/c4 --json >$dir/j4 2>$dir/e4 &
W=$!
wait_until grep -q 'paused at' $dir/e4
kill -KILL $X
wait_until sh -c "! kill -0 $X 2>/dev/null || grep -q '^State:.*Z' /proc/$X/status"
touch $dir/go4
wait $W
ok $? "the process exits after the snapshot: the core is written"
check "... and gdb loads it" sh -c "gdb -batch -nx -ex 'thread apply all bt' $EXE $dir/c4 2>&1 | grep -q spinner"
rm -f $dir/c4

# 5. Fallbacks, each named.
fallback() { # fallback LABEL PID STATUSFILE REGEX
	$PSCOPE core $2 -o $dir/f --json >$dir/jf 2>$dir/ef
	ok $? "$1: a core is written"
	check "$1: not by fork, and why" json_get $dir/jf 'd["method"] != "fork" and __import__("re").search(sys.argv[2], d["method_reason"] or "") or sys.exit(1)' "$4"
	check "$1: the process is healthy after it" healthy $2 $3
	rm -f $dir/f
}

start_fork_target s seccomp
Q=$TPID
$PSCOPE core $Q -o $dir/c5 --json >$dir/j5 2>$dir/e5
ok $? "seccomp filter that kills on clone: a core is written"
check "seccomp: by fork with the filter suspended, and said so" json_get $dir/j5 'd["method"] == "fork" and "seccomp" in d["method_reason"] or sys.exit(1)'
check "seccomp: the process survives and is healthy" healthy $Q $dir/status.s
rm -f $dir/c5
if command -v setpriv >/dev/null; then
	setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin $PSCOPE core $Q -o $dir/f --json >$dir/jf 2>$dir/ef
	ok $? "seccomp without CAP_SYS_ADMIN: a core is written"
	check "seccomp without CAP_SYS_ADMIN: not by fork, and why" json_get $dir/jf 'd["method"] != "fork" and "seccomp" in d["method_reason"] or sys.exit(1)'
	check "seccomp without CAP_SYS_ADMIN: the process survives" healthy $Q $dir/status.s
	rm -f $dir/f
else
	skip "setpriv missing"; skip "-"; skip "-"
fi
$PSCOPE core $Q -o $dir/f --method stop --json >$dir/jf 2>/dev/null
check "--method stop is obeyed" test "$(json_get $dir/jf 'd["method"]')" = stop
rm -f $dir/f
$PSCOPE core $Q -o $dir/f --method copy --json >$dir/jf 2>/dev/null
check "--method copy is obeyed" test "$(json_get $dir/jf 'd["method"]')" = copy
rm -f $dir/f
kill -9 $Q

start_fork_target v vfork
V=$TPID
has_children() { ! no_children "$1"; }
wait_until has_children $V
VFORK_CHILD=1 # the vfork child stays
fallback "a thread in vfork" $V $dir/status.v 'vfork'
VFORK_CHILD=
$PSCOPE core $V -o $dir/f --method fork >/dev/null 2>$dir/ef
rc=$?
check "--method fork with a thread in vfork: refused, says why, no file" sh -c "test $rc = 1 && grep -q vfork $dir/ef && ! test -e $dir/f"
kids=$(cat /proc/$V/task/*/children 2>/dev/null)
kill -9 $V $kids 2>/dev/null

# Limits: cgroups made for the test and removed after.
cg_v1=/sys/fs/cgroup
pids_dir=""; mem_dir=""
if [ -w $cg_v1/pids/cgroup.procs ]; then
	pids_dir=$cg_v1/pids$(awk -F: '$2=="pids"{print $3}' /proc/self/cgroup)/pscope-test-$$
	pids_home=$(dirname $pids_dir)
elif [ -f $cg_v1/cgroup.controllers ] && grep -q pids $cg_v1/cgroup.subtree_control 2>/dev/null; then
	pids_dir=$cg_v1$(awk -F: '$1=="0"{print $3}' /proc/self/cgroup)/pscope-test-$$
	pids_home=$(dirname $pids_dir)
fi
if [ -n "$pids_dir" ] && mkdir -p $pids_dir 2>/dev/null; then
	at_exit "rmdir $pids_dir"
	start_fork_target p
	L=$TPID
	echo $L >$pids_dir/cgroup.procs
	cat $pids_dir/pids.current >$pids_dir/pids.max
	fallback "pids limit reached" $L $dir/status.p 'pids limit'
	echo $L >$pids_home/cgroup.procs
	kill -9 $L
else
	skip "no pids cgroup to make"; skip "-"; skip "-"
fi
if [ -w $cg_v1/memory/cgroup.procs ]; then
	mem_home=$cg_v1/memory$(awk -F: '$2=="memory"{print $3}' /proc/self/cgroup)
	mem_dir=$mem_home/pscope-test-$$
	lim=memory.limit_in_bytes
elif [ -f $cg_v1/cgroup.controllers ] && grep -q memory $cg_v1/cgroup.subtree_control 2>/dev/null; then
	mem_home=$cg_v1$(awk -F: '$1=="0"{print $3}' /proc/self/cgroup)
	mem_dir=$mem_home/pscope-test-$$
	lim=memory.max
fi
if [ -n "$mem_dir" ] && mkdir -p $mem_dir 2>/dev/null; then
	at_exit "rmdir $mem_dir"
	start_fork_target m
	M=$TPID
	echo $M >$mem_dir/cgroup.procs
	echo $((8 << 20)) >$mem_dir/$lim
	fallback "a tight memory cgroup" $M $dir/status.m 'memory cgroup'
	echo $M >$mem_home/cgroup.procs
	kill -9 $M
else
	skip "no memory cgroup to make"; skip "-"; skip "-"
fi

check "the first target is healthy after all" healthy $P $S
done_testing
