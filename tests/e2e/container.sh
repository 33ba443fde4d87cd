#!/bin/sh
# A process in a container: its own pid and mount namespaces, its program
# at a path that exists only inside (a tmpfs mounted in its namespace).
# Stacks, samples and cores read its files through /proc/PID/root; show,
# the TUI and stack say it is in a container and give its pid there; the
# gdb command pscope core prints works from here.
. "$top_srcdir/tests/lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! unshare --mount --pid --fork true 2>/dev/null; then
	skip "containers: needs root and unshare --mount --pid"
	done_testing
	exit 0
fi
T=$(mktemp -d /tmp/pscope-ct.XXXXXX)
at_exit "rm -rf $T"
mkdir "$T/in"

# ct_start NAME ARGS...: NAME copied into a tmpfs over $T/in in a new mount
# and pid namespace and run there as its PID 1; sets CP (its PID here)
# once it printed "ready".
ct_start() {
	local name=$1; shift
	unshare --mount --pid --fork --mount-proc sh -c \
		"mount -t tmpfs none '$T/in' && cp '$TARGETS/$name' '$T/in/ct-$name' && exec '$T/in/ct-$name' $*" \
		>"$T/$name.out" 2>&1 &
	local up=$!
	kill_at_exit $up
	CP=
	for _ in $(seq 1 200); do
		[ -z "$CP" ] && CP=$(cat /proc/$up/task/$up/children 2>/dev/null) && CP=${CP% }
		[ -n "$CP" ] && grep -q ready "$T/$name.out" && { kill_at_exit $CP; return 0; }
		sleep 0.05
	done
	diag "$name did not start in its container"; sed 's/^/#   /' "$T/$name.out"
	return 1
}

ct_start stack-threads 4 || { done_testing; exit 1; }
P=$CP
check "its program is not at its path here" test ! -e "$T/in/ct-stack-threads"
check "but under /proc/PID/root" test -x "/proc/$P/root$T/in/ct-stack-threads"

# ---- show ----
"$PSCOPE" show "$P" >"$T/show" 2>"$T/err"
ok $? "show exits 0"
check "show says it is in a container, its PID there and where its files are" grep -qxF \
	"Container: PID 1 in its own pid namespace; its own mount namespace: its files are read through /proc/$P/root" "$T/show"
check "status pane: NSpid" grep -qE "^NSpid +$P 1\$" "$T/show"
"$PSCOPE" show "$P" --pane threads --interval 0 >"$T/threads" 2>&1
check "threads pane: each TID here and in the container" \
	sh -c "grep -qE '^ *$P:1 +ct-stack-thread ' '$T/threads' && [ \$(grep -cE '^ *[0-9]+:[0-9]+ ' '$T/threads') = 5 ]"
"$PSCOPE" show "$$" >"$T/self" 2>&1
check "a process beside pscope is not called a container" sh -c "! grep -q -e '^Container' -e '^NSpid' '$T/self'"
if command -v python3 >/dev/null; then
	"$PSCOPE" show --json "$P" >"$T/show.json"
	check "show --json: nspid, container, other namespaces" python3 - "$T/show.json" "$P" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["nspid"] == [int(sys.argv[2]), 1], d["nspid"]
assert d["container"] is True
assert "mnt" in d["other_namespaces"] and "pid" in d["other_namespaces"], d["other_namespaces"]
PY
else
	skip "show --json: no python3"
fi

# ---- stack: symbols from the program only the container sees ----
"$PSCOPE" stack "$P" >"$T/stack" 2>"$T/err"
ok $? "stack exits 0"
check "worker stacks symbolized from the container's program" \
	grep -qE '^4 threads: .*leaf_wait <- level3 <- level2 <- level1 <- worker <- start_thread' "$T/stack"
check "no unknown frame in the program" sh -c "! grep -E '\?\? \\(ct-stack-threads\\)' '$T/stack'"
check "thread line: host TID and its TID in the container" \
	grep -qxF "TID $P \"ct-stack-thread\" [TID 1 in its pid namespace] (S, rt_sigtimedwait)" "$T/stack"
check "target runs on" runs_on_soon "$P"

# ---- core: the gdb command works from here ----
"$PSCOPE" core "$P" -o "$T/core" >"$T/core.out" 2>"$T/err"
ok $? "core exits 0"
want="open it with: gdb -ex 'set sysroot /proc/$P/root' /proc/$P/root$T/in/ct-stack-threads $T/core"
check "the gdb command reads the program and libraries through /proc/PID/root" grep -qxF "$want" "$T/core.out"
check "the pscope command reads the files through /proc/PID/root" grep -qxF "or in pscope: pscope stack --core $T/core --sysroot /proc/$P/root" "$T/core.out"
cmd=$(sed -n 's/^or in pscope: pscope //p' "$T/core.out")
eval "\"\$PSCOPE\" $cmd" >"$T/pstack" 2>&1 </dev/null
check "... pasted: the four workers' frames, named from the container's program" grep -q '^4 threads: leaf_wait <- level3 <- level2 <- level1 <- worker' "$T/pstack"
check "and says how long that holds" grep -qF "(process $P runs in a container: its files are read through /proc/$P/root while it runs;" "$T/core.out"
if command -v gdb >/dev/null; then
	cmd=$(sed -n 's/^open it with: //p' "$T/core.out")
	eval "$cmd -batch -ex 'thread apply all bt'" >"$T/gdb" 2>&1 </dev/null
	check "gdb, as printed, shows the workers' frames" sh -c "[ \$(grep -c ' in level3 ' '$T/gdb') = 4 ]"
	check "and main_wait" grep -q ' in main_wait ' "$T/gdb"
else
	skip "gdb not installed"
fi
"$PSCOPE" stack --core "$T/core" --sysroot "/proc/$P/root" >"$T/cstack" 2>"$T/err"
ok $? "stack --core --sysroot /proc/PID/root exits 0"
check "it symbolizes the core from the container's files" grep -qE '^4 threads: .*leaf_wait <- level3' "$T/cstack"
check "target runs on after the core" runs_on_soon "$P"

# ---- top: samples symbolized from the container's program ----
ct_start hotloop || { done_testing; exit 1; }
H=$CP
# Samples need CPU time: count them (a loaded machine gives the target a
# share of a CPU), with a long cap.
"$PSCOPE" top "$H" --duration 120 --samples 100 --freq 999 >"$T/top" 2>"$T/err"
ok $? "top exits 0"
check "hot_work symbolized" grep -qE 'hot_work' "$T/top"
check "no unknown frame in the program" sh -c "! grep -E '\?\? \\(ct-hotloop\\)' '$T/top'"

# ---- a pid namespace alone (the files are where they are here) ----
unshare --pid --fork sh -c "exec '$TARGETS/stack-threads' 2" >"$T/pidns.out" 2>&1 &
up=$!
kill_at_exit $up
Q=
for _ in $(seq 1 200); do
	[ -z "$Q" ] && Q=$(cat /proc/$up/task/$up/children 2>/dev/null) && Q=${Q% }
	[ -n "$Q" ] && grep -q ready "$T/pidns.out" && break
	sleep 0.05
done
kill_at_exit $Q
wait_quiet "$Q"
"$PSCOPE" show "$Q" >"$T/show" 2>&1
check "pid namespace only: its PID there, no mount namespace named" \
	grep -qxF "Container: PID 1 in its own pid namespace" "$T/show"
"$PSCOPE" stack --no-group "$Q" >"$T/stack" 2>&1
check "pid namespace only: every thread with its TID there" \
	sh -c "[ \$(grep -cE '^TID [0-9]+ \"stack-threads\" \[TID [0-9]+ in its pid namespace\]' '$T/stack') = 3 ]"
"$PSCOPE" core "$Q" -o "$T/pcore" >"$T/core.out" 2>&1
check "pid namespace only: the plain gdb command" grep -qxF "open it with: gdb $TARGETS/stack-threads $T/pcore" "$T/core.out"

# ---- the TUI's status pane ----
tui_start 160x40 "PSCOPE_DATA=$top_srcdir/data $PSCOPE -d 5 -p $P"
check "TUI status pane: NSpid" tui_wait_for "^NSpid +$P 1"
check "TUI status pane: in a container" tui_wait_for "^Container +PID 1 in its own pid namespace; its own mount namespace"
tui_keys q

done_testing
