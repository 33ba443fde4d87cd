#!/bin/sh
# Panes an unprivileged user may not read name the missing permission:
# pscope runs as nobody against a root process.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/e2e/detail-lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip "needs root and setpriv"; done_testing; exit 0
fi
start_detail_target || { done_testing; exit 1; }
# A copy nobody can run, whatever the permissions of the build tree.
BIN=$(mktemp -d /tmp/pscope-perm-XXXXXX)
at_exit "rm -rf $BIN"
cp "$PSCOPE" "$BIN/pscope"
cp -r "$top_srcdir/data" "$BIN/data"
chmod -R a+rX "$BIN"
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all"
OUT=$BIN/out.txt

$AS_NOBODY "$BIN/pscope" show "$TPID" --pane fd >"$OUT" 2>&1
ok $([ $? = 1 ]; echo $?) "show --pane fd as nobody fails"
check "fd: names the missing door" grep -q "refused: cannot read /proc/$TPID/fd: process $TPID belongs to uid 0 and we are uid [0-9]* without CAP_SYS_PTRACE (door: CAP_SYS_PTRACE" "$OUT"
check "fd: says how to open it"    grep -q "fix: run pscope as root" "$OUT"
$AS_NOBODY "$BIN/pscope" show "$TPID" --pane status,maps,mem,threads >"$OUT" 2>&1
check "status still readable"      grep -q "^Threads  *4$" "$OUT"
check "cwd/exe marked unreadable"  grep -q "^Exe  *(unreadable: needs ptrace-read access)" "$OUT"
check "maps refused with door"     grep -q "refused: cannot read /proc/$TPID/maps: .*CAP_SYS_PTRACE" "$OUT"
check "mem refused with door"      grep -q "refused: cannot read /proc/$TPID/smaps_rollup: .*CAP_SYS_PTRACE" "$OUT"
check "threads shown, syscall unknown" grep -qE "dt-sleeper +S .* \?" "$OUT"
$AS_NOBODY "$BIN/pscope" show "$TPID" --pane fd --json >"$OUT" 2>&1
check "JSON error object names the door" grep -q '"door":"CAP_SYS_PTRACE (process of another user)"' "$OUT"

tui_start 150x40 "PSCOPE_DATA=$BIN/data $AS_NOBODY $BIN/pscope -p $TPID"
check "TUI opens as nobody"        tui_wait_for "PID $TPID detail-target"
tui_keys 2
check "FDs pane: refusal sentence" tui_wait_for "cannot read /proc/$TPID/fd: process $TPID belongs to uid 0"
check "FDs pane: missing permission" tui_wait_for "Permission missing: CAP_SYS_PTRACE \(process of another user\)"
check "FDs pane: how to open it"   tui_wait_for "To open it: run pscope as root"
tui_keys 3
check "Maps pane refused too"      tui_wait_for "cannot read /proc/$TPID/maps"
tui_keys 1
tui_keys G
check "Status pane: exe refusal"   tui_wait_for "^Exe +cannot read /proc/$TPID/exe"
done_testing
