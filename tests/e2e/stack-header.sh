#!/bin/sh
# The Stacks screen says what it shows: its header counts the groups and
# the frames of their stacks (each group's once, as the batch dump prints
# them), then the options on, with no separator left dangling. A thread
# blocked behind a deadlock names its lock as the cycle's lines and the
# Threads pane do ("ledger (0x...)"), in the TUI, in batch text and JSON.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
export PSCOPE_DATA
export LC_ALL=C.UTF-8
tmp=$(mktemp -d /tmp/pscope-stack-header.XXXXXX)
at_exit "rm -rf $tmp"

see() { tui_wait_for "$1" 150; }
EN="env LANG=C.UTF-8 LC_ALL= LANGUAGE= $PSCOPE"

# ---- the header ----
start_quiet_target stack-threads 3 || exit 1
P=$TPID
"$PSCOPE" stack "$P" >"$tmp/grouped" 2>/dev/null
ok $? "pscope stack: a grouped dump"
F=$(grep -c '^#[0-9]' "$tmp/grouped")
G=$(awk '/^$/ { if (b) n++; b = 0; next } { b = 1 } END { if (b) n++; print n }' "$tmp/grouped")
check "the dump has 2 groups (3 workers, main) and some frames" sh -c "[ '$G' = 2 ] && [ '$F' -gt 4 ]"
diag "groups $G, frames $F"
H="^ Stacks of $P \\(stack-threads\\): stopped 4 threads for [0-9.]+ ms \\| 2 groups, $F frames"
tui_start 140x40 "$EN -p $P"
see "PID $P" >/dev/null
tui_keys s
check "header: threads, groups, each group's frames once, nothing after" see "$H *\$"
tui_keys l
check "l: file:line, its own separator" see "$H \\| file:line *\$"
tui_keys i
check "i: inlines after it" see "$H \\| file:line \\| inlines *\$"
tui_keys l
check "l again: inlines alone" see "$H \\| inlines *\$"
tui_keys q
kill -9 "$P"

# ---- the bystander's lock ----
start_quiet_target deadlock 2 || exit 1
D=$TPID
"$PSCOPE" stack "$D" >"$tmp/dl" 2>/dev/null
ok $? "pscope stack: the deadlock"
# the cycle's ledger line: "waits for lock ledger (0xADDR) held by TID H, in ..."
L=$(sed -nE 's/.* waits for lock (ledger \(0x[0-9a-f]+\) held by TID [0-9]+), in transfer\+0x.*/\1/p' "$tmp/dl")
check "the cycle names ledger as the Threads pane does: ledger (0x...) held by TID N" test -n "$L"
diag "ledger: $L"
check "text: the bystander names the same lock the same way" \
	sh -c "[ \$(grep -cF ' blocked behind deadlock 1 (lock $L)' '$tmp/dl') = 1 ]"
check "text: no bare address left on a bystander line" sh -c "! grep -q 'blocked behind deadlock 1 (lock 0x' '$tmp/dl'"
if command -v python3 >/dev/null; then
	"$PSCOPE" stack --json "$D" >"$tmp/dlj" 2>/dev/null
	check "JSON: the bystander carries the edge's keys, for the same lock and holder" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
edge = [e for e in d["deadlocks"][0] if e["lock_name"] == "ledger"]
assert len(edge) == 1, edge
by = [t for t in d["threads"] if "behind_deadlock" in t]
assert len(by) == 1, by
t = by[0]
assert t["behind_deadlock"] == 1 and t["lock_name"] == "ledger", t
assert t["lock_addr"] == edge[0]["lock_addr"] and t["waits_for_tid"] == edge[0]["waits_for_tid"], (t, edge)
cyc = {e["tid"] for e in d["deadlocks"][0]}
assert t["tid"] not in cyc
' "$tmp/dlj"
else
	skip "python3 missing"
fi

tui_start 200x40 "$EN -p $D"
see "PID $D" >/dev/null
tui_keys s
addr=$(echo "$L" | sed -nE 's/^ledger \((0x[0-9a-f]+)\) held by TID ([0-9]+)$/\1/p')
holder=$(echo "$L" | sed -nE 's/^ledger \((0x[0-9a-f]+)\) held by TID ([0-9]+)$/\2/p')
check "TUI: the cycle names ledger" see "waits for lock ledger \\($addr\\)\$"
check "TUI: its holder on a line of its own" see "^ +held by TID $holder, in transfer\\+0x"
check "TUI: the bystander names it the same way" see "blocked behind deadlock 1 \\(lock $(echo "$L" | sed 's/[()]/\\&/g')\\)"
tui_keys q

if grep -q '^#define ENABLE_NLS 1' "$top_builddir/config.h" && locale -a 2>/dev/null | grep -qi '^ko_KR\.utf-\?8$'; then
	tui_start 200x40 "env LANG=ko_KR.UTF-8 LC_ALL= LANGUAGE= $PSCOPE -p $D"
	see "PID $D" >/dev/null
	tui_keys s
	check "Korean TUI: the bystander names ledger" see "교착 상태 1 뒤에 막힘 \\(TID $holder 소유 락 ledger \\($addr\\)\\)"
	tui_keys q
	LANG=ko_KR.UTF-8 LC_ALL= LANGUAGE= "$PSCOPE" stack "$D" >"$tmp/dlko" 2>/dev/null
	check "Korean text: the bystander names ledger" grep -qF " 교착 1 뒤에서 막힘 (락 ledger ($addr), TID $holder이(가) 보유)" "$tmp/dlko"
else
	skip "Korean: built with --disable-nls or no ko_KR.UTF-8 locale"
	skip "Korean: built with --disable-nls or no ko_KR.UTF-8 locale"
fi
done_testing
