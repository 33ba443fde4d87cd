#!/bin/sh
# pscope stack: known stacks in many threads, deadlocks, threads born
# during the attach, no frame pointers, no CFI, stripped; cross-checked
# with eu-stack; the target always runs on, even when pscope is killed.
. "$top_srcdir/tests/lib.sh"
tmp=$(mktemp -d /tmp/pscope-stack-e2e.XXXXXX)
at_exit "rm -rf $tmp"

# JSON checks through python3 (always present with the build deps? not
# guaranteed: skip those cases without it).
have_py=0
command -v python3 >/dev/null && have_py=1
pyq() { python3 -c "import json,sys; d=json.load(open('$1')); $2"; }


# ---- known stacks, grouped ----
start_quiet_target stack-threads 16 || exit 1
P=$TPID
"$PSCOPE" stack "$P" >"$tmp/out" 2>"$tmp/err"
ok $? "pscope stack exits 0"
check "16 identical worker stacks grouped" \
	grep -qE '^16 threads: .*leaf_wait <- level3 <- level2 <- level1 <- worker <- start_thread' "$tmp/out"
check "main thread in main_wait" grep -q 'main_wait+0x' "$tmp/out"
check "frame line format" grep -qE '^#2 0x[0-9a-f]+ leaf_wait\+0x[0-9a-f]+ \(stack-threads\)$' "$tmp/out"
check "thread line format" grep -qE "^TID $P \"stack-threads\" \\(S, rt_sigtimedwait\\)$" "$tmp/out"
check "last stderr line: the pause" sh -c "tail -1 '$tmp/err' | grep -qE '^stopped 17 threads for [0-9]+\\.[0-9]{2} ms$'"
check "no deadlock reported without one" sh -c "! grep -q '^deadlock' '$tmp/out'"
check "target runs on after the dump" runs_on_soon "$P"

"$PSCOPE" stack --no-group --source "$P" >"$tmp/ng" 2>/dev/null
check "--no-group: every worker with its own frames" sh -c "[ \$(grep -c ' leaf_wait+' '$tmp/ng') = 16 ]"
check "--source: file:line of each frame" grep -qE 'level3\+0x[0-9a-f]+ \(stack-threads\) \[.*stack-threads\.c:[0-9]+\]$' "$tmp/ng"
"$PSCOPE" stack --inlines "$P" >"$tmp/inl" 2>/dev/null
check "--inlines: the inlined call is a frame of its own, before its caller" \
	sh -c "grep -A1 -E '^#[0-9]+ 0x[0-9a-f]+ wait_forever \(inlined\) \(stack-threads\) \[.*stack-threads\.c:[0-9]+\]$' '$tmp/inl' | grep -qE '^#[0-9]+ 0x[0-9a-f]+ leaf_wait\+0x[0-9a-f]+ \(stack-threads\) \[.*stack-threads\.c:[0-9]+\]$'"
"$PSCOPE" stack "$P" --max-frames 3 >"$tmp/mf" 2>/dev/null
check "--max-frames 3 cuts the stacks" sh -c "! grep -q '^#3 ' '$tmp/mf' && grep -q 'more frames' '$tmp/mf'"

# Cross-check with eu-stack: the same function names, thread by thread.
xcheck() { # xcheck PID LABEL
	if ! command -v eu-stack >/dev/null; then
		skip "eu-stack not installed"
		return
	fi
	"$PSCOPE" stack --no-group "$1" >"$tmp/xps.txt" 2>/dev/null
	eu-stack -p "$1" 2>/dev/null | awk '/^TID/{t=$2; sub(":","",t)} /^#/{print t, $3}' | sort >"$tmp/eu"
	# (a frame without symbol: "module+0xoffset (module)" here, no name at
	# all in eu-stack)
	awk '/^TID/{t=$2} /^#/{n=$3; m=$4; gsub(/[()]/, "", m); sub(/\+0x[0-9a-f]*$/, "", n); if (n == "??" || n == m) n = ""; print t, n}' "$tmp/xps.txt" | sort >"$tmp/ps"
	[ -s "$tmp/eu" ] || diag "eu-stack printed nothing"
	check "$2: same functions per thread as eu-stack -p" cmp "$tmp/eu" "$tmp/ps"
	cmp -s "$tmp/eu" "$tmp/ps" || diff "$tmp/eu" "$tmp/ps" | head -10 | sed 's/^/#   /'
}
xcheck "$P" "known stacks"

if [ $have_py = 1 ]; then
	"$PSCOPE" stack --json "$P" >"$tmp/json" 2>/dev/null
	check "--json parses, pid and pause_ms" pyq "$tmp/json" "assert d['pid'] == $P and d['pause_ms'] > 0"
	check "--json: every thread, worker frames named" pyq "$tmp/json" "
th = d['threads']; assert len(th) == 17, len(th)
w = [t for t in th if t['syscall'] == 'futex']; assert len(w) == 16
for t in w:
    fn = [f['function'] for f in t['frames']]
    assert fn[2:7] == ['leaf_wait', 'level3', 'level2', 'level1', 'worker'], fn
    f = t['frames'][2]; assert f['module'] == 'stack-threads' and f['pc'].startswith('0x') and f['offset'] > 0
assert d['deadlocks'] == []"
else
	skip "python3 missing: JSON checks"
	skip "python3 missing: JSON checks"
fi
kill -9 "$P"

# ---- signals arriving during the freezes are delivered, not lost ----
TOUT=$tmp/sig.out
"$TARGETS/stack-threads" 500 >"$TOUT" 2>&1 &
P=$!
kill_at_exit $P
wait_until grep -q ready "$TOUT"
# Signals that come between the seize and the stop make signal-delivery
# stops: pscope must hand them back when it detaches.
( for _ in $(seq 1 10); do "$PSCOPE" stack "$P" >/dev/null 2>&1; done ) &
D=$!
sent=0
while kill -0 "$D" 2>/dev/null; do
	kill -s RTMIN "$P" && sent=$((sent + 1))
done
wait "$D"
kill -s RTMIN "$P" && sent=$((sent + 1))
got=
for _ in $(seq 1 600); do # polled, at most about 60 s
	kill -s USR2 "$P"
	sleep 0.1
	got=$(grep '^signals' "$TOUT" | tail -1 | awk '{print $2}')
	[ "$got" = "$sent" ] && break
done
ok $([ "$got" = "$sent" ] && [ "$sent" -gt 0 ] && echo 0 || echo 1) "$sent queued signals sent during 10 dumps, $got handled"
check "target runs on after the signal storm" runs_on_soon "$P"
kill -9 "$P"

# ---- a hostile thread name, and a process stopped by job control ----
start_quiet_target stack-threads 2 --hostile || exit 1
P=$TPID
"$PSCOPE" stack --no-group "$P" >"$tmp/h" 2>/dev/null
check "hostile thread name printed escaped" grep -qF '\e]0;pwn' "$tmp/h"
check "no raw escape byte in the text output" sh -c "! grep -q \"\$(printf '\\033')\" '$tmp/h'"
if [ $have_py = 1 ]; then
	"$PSCOPE" stack --json "$P" >"$tmp/hj" 2>/dev/null
	check "hostile name kept as data in JSON" pyq "$tmp/hj" "assert any(t['name'].startswith('\x1b]0;pwn') for t in d['threads'])"
else
	skip "python3 missing"
fi
kill -STOP "$P"
wait_until grep -q '^State:.*T' /proc/$P/status
"$PSCOPE" stack "$P" >"$tmp/stopped" 2>/dev/null
ok $? "a process stopped by SIGSTOP can be dumped"
check "its stacks are there" grep -q 'leaf_wait <- level3' "$tmp/stopped"
check "and it stays stopped as it was (job control), TracerPid 0" sh -c "grep -q '^State:.*T (stopped)' /proc/$P/status && grep -q '^TracerPid:.0' /proc/$P/status"
kill -CONT "$P"
check "after SIGCONT it runs on" runs_on_soon "$P"
kill -9 "$P"

# ---- deadlocks ----
for n in 2 3; do
	start_quiet_target deadlock $n || exit 1
	"$PSCOPE" stack "$TPID" >"$tmp/dl" 2>/dev/null
	check "$n-thread deadlock found" grep -q "^deadlock: $n threads wait for each other" "$tmp/dl"
	check "$n-thread deadlock: lock names and frame" sh -c "grep -q 'waits for lock ledger (0x[0-9a-f]*) held by TID [0-9]*, in transfer+0x' '$tmp/dl' && grep -q 'journal (0x' '$tmp/dl'"
	check "$n-thread deadlock: the bystander is not in the cycle" sh -c "[ \$(grep -c 'waits for lock' '$tmp/dl') = $n ]"
	check "$n-thread deadlock: the bystander is marked blocked behind it, with the lock (ledger's holder)" sh -c "[ \$(grep -c 'blocked behind deadlock 1 (lock ledger (0x[0-9a-f]*) held by TID [0-9]*)' '$tmp/dl') = 1 ]"
	if [ $have_py = 1 ]; then
		"$PSCOPE" stack --json "$TPID" >"$tmp/dlj" 2>/dev/null
		check "$n-thread deadlock in JSON" pyq "$tmp/dlj" "
c = d['deadlocks']; assert len(c) == 1 and len(c[0]) == $n, c
tids = {e['tid'] for e in c[0]}; assert {e['waits_for_tid'] for e in c[0]} == tids
assert all(e['function'] == 'transfer' and e['lock_addr'].startswith('0x') for e in c[0])
assert 'ledger' in {e['lock_name'] for e in c[0]}"
	else
		skip "python3 missing"
	fi
	check "deadlocked target runs on (still deadlocked, not stopped)" runs_on_soon "$TPID"
	kill -9 "$TPID"
done
start_quiet_target deadlock 3 --robust || exit 1
"$PSCOPE" stack "$TPID" >"$tmp/dl" 2>/dev/null
check "robust mutexes: deadlock found through the lock word" grep -q '^deadlock: 3 threads' "$tmp/dl"
kill -9 "$TPID"

# ---- threads born during the attach ----
start_target stack-threads 4 --churn || exit 1
P=$TPID
good=0
for i in 1 2 3 4 5; do
	"$PSCOPE" stack --no-group "$P" >"$tmp/ch" 2>"$tmp/cherr" || break
	# every thread listed was frozen and unwound (none without frames)
	awk '/^TID/{if (t && !f) bad=1; t=1; f=0} /^#0 /{f=1} END{exit bad || (t && !f)}' "$tmp/ch" || break
	good=$((good + 1))
done
ok $([ $good = 5 ] && echo 0 || echo 1) "churning target: 5 dumps, every thread with a stack"
check "churning target runs on" runs_on_soon "$P"
kill -9 "$P"

# ---- without frame pointers, without CFI, stripped ----
start_quiet_target stack-threads-nofp 4 || exit 1
"$PSCOPE" stack "$TPID" >"$tmp/nofp" 2>/dev/null
check "-fomit-frame-pointer: CFI unwinds the known stack" grep -q 'leaf_wait <- level3 <- level2 <- level1 <- worker <- start_thread' "$tmp/nofp"
xcheck "$TPID" "-fomit-frame-pointer"
kill -9 "$TPID"
start_quiet_target stack-threads-nocfi 4 || exit 1
"$PSCOPE" stack "$TPID" >"$tmp/nocfi" 2>/dev/null
check "no CFI: the frame-pointer chain still gives the known stack" grep -q 'leaf_wait <- level3 <- level2 <- level1 <- worker <- start_thread' "$tmp/nocfi"
kill -9 "$TPID"
start_quiet_target stack-threads-stripped 4 || exit 1
"$PSCOPE" stack "$TPID" >"$tmp/strip" 2>/dev/null
ok $? "stripped target: dump succeeds"
check "stripped target: frames of the binary as module+0xoffset, libc named" sh -c "grep -qE ' stack-threads-stripped\+0x[0-9a-f]+ \(stack-threads-stripped\)' '$tmp/strip' && grep -q 'start_thread+0x' '$tmp/strip'"
xcheck "$TPID" "stripped"
check "stripped target runs on" runs_on_soon "$TPID"
kill -9 "$TPID"

# ---- a thread that will not stop (D state, in vfork) ----
start_quiet_target stack-threads 2 --dstate || exit 1
P=$TPID
"$PSCOPE" stack "$P" >"$tmp/d" 2>"$tmp/derr"
ok $? "D-state thread: the dump still succeeds"
check "D-state thread reported and skipped" grep -q 'not stopped: did not stop before the deadline' "$tmp/derr"
# Its vfork child is killed: the thread leaves D state, must not stop for
# a tracer that is gone, and goes round its loop (a new child appears).
C1=$(cat /proc/$P/task/*/children | tr -s ' ' '\n' | grep . | head -1)
kill -9 "$C1"
new_child() { c=$(cat /proc/$P/task/*/children | tr -s ' ' '\n' | grep . | grep -vx "$C1"); [ -n "$c" ]; }
check "D-state thread wakes and vforks again" poll 100 new_child
check "D-state thread runs on once it wakes" runs_on_soon "$P"
kill -9 "$P"

# ---- pscope killed while the target is frozen ----
start_quiet_target stack-threads 8 || exit 1
P=$TPID
has_tracer() { [ "$(awk '/^TracerPid/{print $2}' /proc/$1/status)" != 0 ]; }
for sig in KILL INT TERM SEGV; do
	# A shell starts background jobs with SIGINT ignored: restore it.
	PSCOPE_STACK_HOLD_MS=20000 env --default-signal=INT "$PSCOPE" stack "$P" >/dev/null 2>&1 &
	D=$!
	check "SIG$sig: target frozen by pscope first" wait_until has_tracer "$P"
	kill -$sig "$D"
	wait "$D" 2>/dev/null
	st=$?
	# The signal arrived and ended pscope (128+N), before its 20 s hold
	# (under AddressSanitizer a SIGSEGV becomes its abort: 128+SIGABRT).
	want=$((128 + $(kill -l $sig)))
	[ "$sig" = SEGV ] && [ "$st" = $((128 + $(kill -l ABRT))) ] && want=$st
	ok $([ "$st" = "$want" ] && echo 0 || echo 1) "SIG$sig ends pscope mid-dump (exit status $st)"
	check "SIG$sig of pscope mid-dump: every thread runs on, TracerPid 0" runs_on_soon "$P"
done

# ---- refusals name the door ----
"$PSCOPE" stack --bogus 1 >/dev/null 2>"$tmp/e0"
ok $([ $? = 2 ] && grep -q "unknown option '--bogus'" "$tmp/e0" && echo 0 || echo 1) "unknown option: usage error naming it"
"$PSCOPE" stack 999999999 >/dev/null 2>"$tmp/e1"
ok $([ $? = 2 ] && echo 0 || echo 1) "invalid PID: usage error"
"$PSCOPE" stack 4000000 >/dev/null 2>"$tmp/e2"
check "no such process: clear error" grep -q 'no process with PID 4000000' "$tmp/e2"
"$PSCOPE" stack 2 >/dev/null 2>"$tmp/e6"
check "kernel thread: says so, not a permission door" grep -q 'process 2 is a kernel thread: it has no user-space stack' "$tmp/e6"
if command -v gdb >/dev/null; then
	gdb -q -batch -p "$P" -ex 'shell sleep 4' >/dev/null 2>&1 &
	G=$!
	wait_until has_tracer "$P"
	"$PSCOPE" stack "$P" >/dev/null 2>"$tmp/e3"
	check "already traced: names the tracer" grep -qE "already traced by PID [0-9]+ \\(gdb\\)" "$tmp/e3"
	wait "$G" 2>/dev/null
else
	skip "gdb not installed"
fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	cp "$PSCOPE" "$tmp/pscope" && chmod 755 "$tmp" "$tmp/pscope"
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$tmp/pscope" stack "$P" >/dev/null 2>"$tmp/e4"
	check "unprivileged against root: door CAP_SYS_PTRACE named" grep -q 'CAP_SYS_PTRACE' "$tmp/e4"
	check "unprivileged: the target was not touched" runs_on_soon "$P"
	# Same user, no privilege: allowed unless kernel.yama.ptrace_scope says no.
	cp "$TARGETS/stack-threads" "$tmp/st" && chmod 755 "$tmp/st"
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$tmp/st" 3 >"$tmp/nb.out" 2>&1 &
	NB=$!
	kill_at_exit $NB
	wait_until grep -q ready "$tmp/nb.out"
	scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo none)
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$tmp/pscope" stack "$NB" >"$tmp/nb" 2>"$tmp/e5"
	rc=$?
	case $scope in
	none|0) ok $rc "unprivileged, own process (no Yama restriction): dump works"
		check "unprivileged dump: known stack" grep -q 'leaf_wait <- level3' "$tmp/nb" ;;
	*) check "ptrace_scope $scope: the door is named" grep -q 'kernel.yama.ptrace_scope' "$tmp/e5"
		skip "dump refused by ptrace_scope" ;;
	esac
	check "unprivileged: own target runs on" runs_on_soon "$NB"
	kill -9 "$NB"
else
	skip "needs root and setpriv"
	skip "needs root and setpriv"
	skip "needs root and setpriv"
	skip "needs root and setpriv"
	skip "needs root and setpriv"
fi
kill -9 "$P"
done_testing
