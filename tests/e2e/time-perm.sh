#!/bin/bash
# pscope time without privileges: as nobody, its own process is measured on
# the /proc tier (on CPU and run queue exactly as schedstat, switches as
# status) with the BPF tier's refusal named; another user's process and a
# forced BPF or tracepoint tier are refused, each naming its door.
. "$top_srcdir/tests/lib.sh"
if [ "$(id -u)" != 0 ]; then
	skip "needs root to drop to nobody"
	done_testing
	exit 0
fi
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all"
TIME_TARGET_AS=$NOBODY
. "$top_srcdir/tests/e2e/time-lib.sh"

measure proc $NOBODY
ok $? "as nobody: pscope time measured its own process"
check_tier proc
# Without --tier: the doors choose, and say why the tiers above were refused.
$NOBODY "$PSCOPE" time $TPID --duration 0.2 >"$tmp/auto.txt" 2>&1
ok $? "as nobody: pscope time PID picks a tier by itself"
check "as nobody: the text names the tier and the refused ones with their doors" sh -c "
	grep -q '^PID $TPID (time-target), [0-9.]* s, tier proc$' '$tmp/auto.txt' &&
	grep -q '^  tiers refused: bpf: .*(door: CAP_BPF and CAP_PERFMON (BPF programs).*; trace: .*(door: tracefs' '$tmp/auto.txt'"
$NOBODY "$PSCOPE" time $TPID --duration 0.2 --json >"$tmp/auto.json"
check "as nobody: the JSON too: tier proc, tiers_refused with the doors" python3 - "$tmp/auto.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tier"] == "proc", d["tier"]
r = d["tiers_refused"]
assert "bpf: " in r and "CAP_BPF and CAP_PERFMON" in r and "trace: " in r and "tracefs" in r, r
PY

$NOBODY "$PSCOPE" time $TPID --tier bpf --duration 0.2 >"$tmp/bpf.out" 2>"$tmp/bpf.err"
ok $([ $? = 1 ] && echo 0 || echo 1) "as nobody: --tier bpf fails (exit 1)"
check "as nobody: --tier bpf names the door CAP_BPF and CAP_PERFMON" grep -q "door: CAP_BPF and CAP_PERFMON (BPF programs)" "$tmp/bpf.err"

$NOBODY "$PSCOPE" time $TPID --tier trace --duration 0.2 >/dev/null 2>"$tmp/trace.err"
ok $([ $? = 1 ] && echo 0 || echo 1) "as nobody: --tier trace fails (exit 1)"
check "as nobody: --tier trace names the tracefs door" grep -q "door: tracefs (/sys/kernel/tracing, root only)" "$tmp/trace.err"

# A root process: nobody may read its schedstat but not its syscall file.
sleep 300 &
ROOTP=$!
at_exit "kill $ROOTP 2>/dev/null"
$NOBODY "$PSCOPE" time $ROOTP --duration 0.2 >"$tmp/other.out" 2>"$tmp/other.err"
ok $([ $? = 1 ] && echo 0 || echo 1) "as nobody: another user's process is refused (exit 1)"
check "as nobody: the refusal names the door CAP_SYS_PTRACE" grep -q "door: CAP_SYS_PTRACE (process of another user)" "$tmp/other.err"
check "as nobody: nothing printed on stdout for a refusal" test ! -s "$tmp/other.out"

done_testing
