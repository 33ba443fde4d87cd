#!/bin/sh
# Stacks that lie (tests/targets/badstack): code without unwind information
# whose frame pointer points at itself or into unmapped memory, and a stack
# pointer into unmapped memory. The live dump and the dump of a core of it
# end (no hang, no crash), show each thread's first frame, never follow a
# loop, and the target runs on. And a command line of 1.5 MB: what the
# list keeps of it is marked as cut in JSON.
. "$top_srcdir/tests/lib.sh"
T=$(mktemp -d /tmp/pscope-badstack.XXXXXX)
at_exit "rm -rf $T"

start_quiet_target badstack || { done_testing; exit 1; }
P=$TPID

# frames_of FILE NAME: the frame lines of thread NAME in a --no-group dump
frames_of() {
	awk -v n="\"$2\"" '/^TID / { on = ($3 == n) } on && /^#[0-9]+ / { print }' "$1"
}

timeout 60 "$PSCOPE" stack --no-group "$P" >"$T/out" 2>"$T/err"
ok $? "the dump ends, exit 0"
frames_of "$T/out" fp-loop >"$T/loop"
check "frame-pointer loop: its function first" grep -qE '^#0 0x[0-9a-f]+ fp_loop_wait\+0x[0-9a-f]+ ' "$T/loop"
check "frame-pointer loop: left once, not followed (its caller, then the thread's start)" \
	sh -c "grep -q ' run+' '$T/loop' && grep -q ' start_thread+' '$T/loop' && [ \$(grep -c ' fp_loop_wait+' '$T/loop') = 1 ]"
frames_of "$T/out" fp-wild >"$T/fpwild"
frames_of "$T/out" sp-wild >"$T/spwild"
check "frame pointer into unmapped memory: one frame" \
	sh -c "[ \$(wc -l <'$T/fpwild') = 1 ] && grep -q ' fp_wild_wait+' '$T/fpwild'"
check "stack pointer into unmapped memory: one frame" \
	sh -c "[ \$(wc -l <'$T/spwild') = 1 ] && grep -q ' sp_wild_wait+' '$T/spwild'"
check "the main thread's stack is whole" grep -q ' main+0x' "$T/out"
check "the target runs on" runs_on_soon "$P"

# The same stacks from a core, read offline.
"$PSCOPE" core "$P" -o "$T/core" >/dev/null 2>"$T/cerr"
ok $? "core of it: exit 0"
timeout 60 "$PSCOPE" stack --no-group --core "$T/core" --exe "$TARGETS/badstack" >"$T/cout" 2>"$T/cerr"
ok $? "stack --core: the dump ends, exit 0"
check "stack --core: the loop left once" sh -c "[ \$(grep -c ' fp_loop_wait+' '$T/cout') = 1 ]"
check "stack --core: each wild thread with its one frame" \
	sh -c "grep -q ' fp_wild_wait+' '$T/cout' && grep -q ' sp_wild_wait+' '$T/cout'"
check "the target runs on after the core" runs_on_soon "$P"

# A command line of 1.5 MB: the list keeps 4 KiB of it, and says so.
if command -v python3 >/dev/null; then
	python3 -c 'import os, sys, time; sys.stdout.write("ready\n"); sys.stdout.flush(); time.sleep(600)' \
		$(a=$(head -c 100000 /dev/zero | tr '\0' x); for _ in $(seq 1 15); do echo "$a"; done) \
		>"$T/big.out" 2>&1 &
	B=$!
	kill_at_exit $B
	wait_until grep -q ready "$T/big.out"
	"$PSCOPE" list --json >"$T/list.json"
	check "list --json: a 1.5 MB command line is marked cut" python3 - "$T/list.json" "$B" "$$" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = [p for p in d["processes"] if p["pid"] == int(sys.argv[2])][0]
assert p.get("cmdline_truncated") is True, p.keys()
assert 0 < len(p["cmdline"]) < 8192, len(p["cmdline"])
me = [p for p in d["processes"] if p["pid"] == int(sys.argv[3])][0]
assert "cmdline_truncated" not in me, "a short command line marked cut"
PY
	"$PSCOPE" show "$B" >"$T/show" 2>&1
	check "show prints the whole command line" test "$(sed -n 's/^Command: //p' "$T/show" | wc -c)" -gt 1500000
else
	skip "a long command line: no python3"
fi
done_testing
