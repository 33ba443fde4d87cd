#!/bin/sh
# The privilege audit: every subcommand and every TUI screen run as nobody
# (no groups, no capabilities) against (a) its own processes and (b) a
# root process. What works works; each refusal is one exact line naming
# the door and how to open it, with exit status 1; nothing refused is
# printed as a partial success (no output, no file), nothing crashes, and
# the targets run on.
. "$top_srcdir/tests/lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip "needs root and setpriv to become nobody"
	done_testing
	exit 0
fi
NP="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all"
NOBODY=$(id -u nobody)
# Copies nobody can run, whatever the permissions of the build tree.
B=$(mktemp -d /tmp/pscope-audit.XXXXXX)
at_exit "rm -rf $B"
cp "$PSCOPE" "$TARGETS/stack-threads" "$TARGETS/hotloop" "$TARGETS/lab-nodump" "$B/"
cp -r "$top_srcdir/data" "$B/data"
mkdir "$B/w"
chmod -R a+rX "$B"
chmod 1777 "$B/w" # sticky: pscope refuses to write where anyone may swap its file
np() { (cd "$B/w" && $NP "$B/pscope" "$@"); }

# (b) a root process; (a) nobody's own, through a wrapper start_target runs.
start_quiet_target stack-threads 2 || { done_testing; exit 1; }
R=$TPID
start_nobody() { # start_nobody NAME ARGS...: sets TPID
	local name=$1 targets=$TARGETS r=0; shift
	printf '#!/bin/sh\nexec %s %s "$@"\n' "$NP" "$B/$name" >"$B/as-nobody-$name"
	chmod 755 "$B/as-nobody-$name"
	TARGETS=$B
	start_target "as-nobody-$name" "$@" || r=1
	TARGETS=$targets
	return $r
}
start_nobody stack-threads 2 && wait_quiet "$TPID" || { done_testing; exit 1; }
O=$TPID
start_nobody hotloop || { done_testing; exit 1; }
H=$TPID
check "the own targets run as nobody" sh -c "[ \$(stat -c %u /proc/$O) = $NOBODY ] && [ \$(stat -c %u /proc/$H) = $NOBODY ]"

# The refusal every operation on another user's process meets.
ptrace_door="process $R belongs to uid 0 and we are uid $NOBODY without CAP_SYS_PTRACE (door: CAP_SYS_PTRACE (process of another user); fix: run pscope as root, or grant it CAP_SYS_PTRACE"
setcap_fix="(setcap cap_sys_ptrace+ep pscope))"

# ---- batch, against the root process ----
np list >"$B/out" 2>"$B/err"
ok $? "list: exit 0"
check "list: the root process is listed" grep -qE "^ *$R +root " "$B/out"

np show "$R" --pane all >"$B/out" 2>"$B/err"
check "show --pane all: exit 1 (some panes refused)" test $? = 1
{
	echo "pscope show: fd pane: cannot read /proc/$R/fd: $ptrace_door $setcap_fix"
	echo "pscope show: maps pane: cannot read /proc/$R/maps: $ptrace_door $setcap_fix"
	echo "pscope show: mem pane: cannot read /proc/$R/smaps_rollup: $ptrace_door $setcap_fix"
	echo "pscope show: time pane: cannot read /proc/$R/task/$R/syscall: $ptrace_door $setcap_fix"
} >"$B/want"
check "show: one exact line per refused pane, naming the door and the fix" diff "$B/want" "$B/err"
check "show: the status pane is shown" grep -qE "^Threads +3$" "$B/out"
check "show: the exe is marked unreadable, not shown empty" grep -qE "^Exe +\(unreadable: needs ptrace-read access\)$" "$B/out"
np show "$R" --pane fd --json >"$B/out" 2>"$B/err"
check "show --json: exit 1" test $? = 1
check "show --json: the pane is an error object with the door" \
	grep -q '"door":"CAP_SYS_PTRACE (process of another user)"' "$B/out"

np stack "$R" >"$B/out" 2>"$B/err"
check "stack: exit 1" test $? = 1
echo "pscope stack: cannot attach: $ptrace_door $setcap_fix" >"$B/want"
check "stack: the exact refusal" diff "$B/want" "$B/err"
check "stack: nothing on stdout" test ! -s "$B/out"
np stack --json "$R" >"$B/out" 2>"$B/err"
check "stack --json: exit 1, no JSON" sh -c "[ $? = 1 ] && [ ! -s '$B/out' ]"

np top "$R" --duration 0.3 --folded "$B/w/folded" >"$B/out" 2>"$B/err"
check "top: exit 1" test $? = 1
echo "pscope top: cannot sample: $ptrace_door (perf_event_open on another user's process needs ptrace read access; CAP_PERFMON alone is not enough))" >"$B/want"
check "top: the exact refusal" diff "$B/want" "$B/err"
check "top: nothing on stdout, no folded file" sh -c "[ ! -s '$B/out' ] && [ ! -e '$B/w/folded' ]"

np core "$R" -o "$B/w/core" >"$B/out" 2>"$B/err"
check "core: exit 1" test $? = 1
echo "pscope core: cannot read the memory map (/proc/$R/smaps): $ptrace_door $setcap_fix" >"$B/want"
check "core: the exact refusal" diff "$B/want" "$B/err"
check "core: no file, no temporary file" sh -c "[ -z \"\$(ls -A '$B/w' | grep -v '^pscope\$')\" ]"

np doors "$R" >"$B/out" 2>"$B/err"
ok $? "doors: exit 0"
check "doors: attach CLOSED for the root process" grep -qE "^  attach \(ptrace\) +CLOSED$" "$B/out"
np cores --dir "$B/w" >"$B/out" 2>"$B/err"
ok $? "cores: exit 0"
check "root target runs on" runs_on_soon "$R"

# ---- batch, against its own processes ----
np show "$O" --pane all >"$B/out" 2>"$B/err"
ok $? "own: show --pane all: exit 0"
check "own: nothing refused" test ! -s "$B/err"
np stack "$O" >"$B/out" 2>"$B/err"
ok $? "own: stack: exit 0"
check "own: stack shows the workers" grep -qE '^2 threads: .*leaf_wait <- level3' "$B/out"
perf=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$perf" -le 2 ]; then
	# Samples need CPU time: count them (a loaded machine gives the
	# target a share of a CPU), with a long cap.
	np top "$H" --duration 120 --samples 100 --freq 999 >"$B/out" 2>"$B/err"
	ok $? "own: top: exit 0"
	check "own: top finds hot_work" grep -q 'hot_work' "$B/out"
else
	np top "$H" --duration 1 >"$B/out" 2>"$B/err"
	check "own: top refused (perf_event_paranoid $perf): exit 1" test $? = 1
	check "own: top names kernel.perf_event_paranoid" grep -q "kernel.perf_event_paranoid" "$B/err"
fi
np core "$O" -o "$B/w/own-core" >"$B/out" 2>"$B/err"
ok $? "own: core: exit 0"
check "own: core written, nobody's" sh -c "[ \$(stat -c %u '$B/w/own-core') = $NOBODY ]"
rm -f "$B/w/own-core"
np doors "$O" >"$B/out" 2>"$B/err"
ok $? "own: doors: exit 0"
check "own: attach open" grep -qE "^  attach \(ptrace\) +open$" "$B/out"
check "own target runs on" runs_on_soon "$O"

# ---- its own process made not dumpable (prctl(PR_SET_DUMPABLE, 0)) ----
start_nobody lab-nodump || { done_testing; exit 1; }
N=$TPID
nd_door="process $N is not dumpable (its /proc/$N files are owned by root: a setuid/setgid program, or prctl(PR_SET_DUMPABLE, 0)) (door: target not dumpable; fix: run pscope as root (CAP_SYS_PTRACE), or let the program call prctl(PR_SET_DUMPABLE, 1))"
np stack "$N" >"$B/out" 2>"$B/err"
check "non-dumpable: stack exit 1" test $? = 1
echo "pscope stack: cannot attach: $nd_door" >"$B/want"
check "non-dumpable: stack names the door" diff "$B/want" "$B/err"
np core "$N" -o "$B/w/nd-core" >"$B/out" 2>"$B/err"
check "non-dumpable: core exit 1" test $? = 1
echo "pscope core: cannot read the memory map (/proc/$N/smaps): $nd_door" >"$B/want"
check "non-dumpable: core names the door" diff "$B/want" "$B/err"
check "non-dumpable: no core file" test ! -e "$B/w/nd-core"
np show "$N" --pane fd >"$B/out" 2>"$B/err"
check "non-dumpable: show --pane fd exit 1" test $? = 1
echo "pscope show: fd pane: cannot read /proc/$N/fd: $nd_door" >"$B/want"
check "non-dumpable: the fd pane names the door" diff "$B/want" "$B/err"
np top "$N" --duration 0.3 >"$B/out" 2>"$B/err"
check "non-dumpable: top exit 1" test $? = 1
echo "pscope top: cannot sample: $nd_door" >"$B/want"
check "non-dumpable: top names the door" diff "$B/want" "$B/err"
# As root all of it works.
"$PSCOPE" stack "$N" >"$B/out" 2>&1
check "non-dumpable, as root: stack works" grep -q '^#0 .*pause' "$B/out"
"$PSCOPE" core "$N" -o "$B/nd-root-core" >"$B/out" 2>&1
ok $? "non-dumpable, as root: core works"
check "non-dumpable, as root: the core is root's, mode 0600" test "$(stat -c '%u %a' "$B/nd-root-core")" = "0 600"
"$PSCOPE" show "$N" --pane fd >"$B/out" 2>&1
ok $? "non-dumpable, as root: the fd pane reads"
check "non-dumpable target runs on" runs_on_soon "$N"

# screen_has TEXT: the screen, its rows joined with one space (text that
# wraps at a space), holds TEXT; polled
_screen_has() { tui_screen | sed 's/^ *//; s/ *$//' | tr '\n' ' ' | grep -qF "$1"; }
screen_has() {
	wait_until _screen_has "$1" && return 0
	tui_screen | sed 's/^/#   /'
	return 1
}

# ---- every TUI screen, against the root process ----
rc=$B/w/tui-rc
tui_start 120x40 "cd $B/w && PSCOPE_DATA=$B/data $NP $B/pscope -p $R; echo \$? >$rc"
check "TUI: detail screen of the root process" tui_wait_for "PID $R stack-threads +user root"
tui_keys 2
check "TUI FDs pane: the door" tui_wait_for "Permission missing: CAP_SYS_PTRACE \(process of another user\)"
check "TUI FDs pane: the fix" tui_wait_for "To open it: run pscope as root"
tui_keys s
check "TUI stack screen: refused, the door" screen_has "cannot attach: process $R belongs to uid 0 and we are uid $NOBODY without CAP_SYS_PTRACE (door: CAP_SYS_PTRACE (process of another user);"
check "TUI stack screen: the fix, not cut at the edge" screen_has "fix: run pscope as root, or grant it CAP_SYS_PTRACE (setcap cap_sys_ptrace+ep pscope))"
tui_keys Escape
tui_keys h
check "TUI hot screen: refused" tui_wait_for "sampling could not start:"
check "TUI hot screen: the door" tui_wait_for "door: CAP_SYS_PTRACE \(process of another user\)"
check "TUI hot screen: the fix" tui_wait_for "fix: run pscope as root"
tui_keys Escape
tui_keys C
check "TUI core: refused, the door" screen_has "cannot read the memory map (/proc/$R/smaps): process $R belongs to uid 0 and we are uid $NOBODY without CAP_SYS_PTRACE (door: CAP_SYS_PTRACE (process of another user);"
check "TUI core: the message wraps to show the fix" screen_has "fix: run pscope as root, or grant it CAP_SYS_PTRACE (setcap cap_sys_ptrace+ep pscope))"
check "TUI core: no core file" sh -c "[ -z \"\$(ls -A '$B/w' | grep -vx -e pscope -e tui-rc)\" ]"
tui_keys D
check "TUI doors screen: the root process" tui_wait_for "Doors: what the kernel lets pscope do, and PID $R \(stack-threads\)"
tui_keys NPage
check "TUI doors screen: attach closed" tui_wait_for "^  attach \(ptrace\) +CLOSED"
tui_keys Escape
tui_keys F1
check "TUI help screen" tui_wait_for "pscope help: "
tui_keys Escape Escape
check "TUI list screen" tui_wait_for "PID +USER"
tui_keys F2
check "TUI setup screen" tui_wait_for "Setup"
tui_keys Escape
tui_keys q
wait_until [ -s "$rc" ]
check "TUI: q exits with status 0" test "$(cat "$rc" 2>/dev/null)" = 0
check "root target runs on after the TUI" runs_on_soon "$R"

# ---- the list's environment view (e) of the root process ----
rm -f "$rc"
tui_start 140x40 "cd $B/w && PSCOPE_DATA=$B/data $NP $B/pscope -u root; echo \$? >$rc"
check "TUI list of root's processes" tui_wait_for "PID +USER"
tui_keys F3
tui_keys "$_tlinks/stack-threads" Enter
tui_keys e
check "TUI environment of the root process: refused, the door" \
	screen_has "cannot read /proc/$R/environ: process $R belongs to uid 0 and we are uid $NOBODY without CAP_SYS_PTRACE (door: CAP_SYS_PTRACE (process of another user);"
check "TUI environment: the fix" \
	screen_has "fix: run pscope as root, or grant it CAP_SYS_PTRACE (setcap cap_sys_ptrace+ep pscope))"
tui_keys q
wait_until [ -s "$rc" ]
check "TUI list: q exits with status 0" test "$(cat "$rc" 2>/dev/null)" = 0

# ---- the TUI against its own process: the same screens work ----
rm -f "$rc"
tui_start 120x40 "cd $B/w && PSCOPE_DATA=$B/data $NP $B/pscope -p $O; echo \$? >$rc"
check "own TUI: detail screen" tui_wait_for "PID $O stack-threads +user nobody"
tui_keys s
check "own TUI: stacks" tui_wait_for "Stacks of $O \(stack-threads\): stopped 3 threads"
tui_keys Escape
tui_keys C
check "own TUI: the core prompt" tui_wait_for "Write the core to: "
tui_keys Escape
tui_keys q
wait_until [ -s "$rc" ]
check "own TUI: q exits with status 0" test "$(cat "$rc" 2>/dev/null)" = 0
check "own target runs on after the TUI" runs_on_soon "$O"
done_testing
