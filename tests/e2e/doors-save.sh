#!/bin/sh
# E on the Doors screen writes the report shown as `pscope doors --report
# FILE` does (through src/out/save.c), says where it went, asks before
# overwriting, and says clearly why it could not: a missing directory, a
# directory others can write (refused), a full disk (the old file kept,
# nothing left behind). The screen stays usable after each failure.
. "$top_srcdir/tests/lib.sh"

tmp=$(mktemp -d /tmp/pscope-dsave.XXXXXX)
at_exit "rm -rf $tmp"
start_target lab-fdleak 100 || exit 1
T=$TPID

tui_start 200x40 "cd $tmp && exec $PSCOPE -p $T"
tui_wait_for 'lab-fdleak' >/dev/null
tui_keys D
tui_wait_for "^ Doors: what the kernel lets pscope do, and PID $T \(lab-fdleak\)" >/dev/null
ok $? "D opens the Doors screen on the process shown"
check "the function bar offers E" tui_wait_for 'E *Report'
tui_keys E
check "E asks for a file, named after the PID" tui_wait_for "Write the doors report \(Markdown\) to: pscope-doors-$T\.md"
tui_keys Enter
check "it says where the report went, as a whole path" tui_wait_for "Doors report written to $tmp/pscope-doors-$T\.md"
f=$tmp/pscope-doors-$T.md
check "the file is the report's Markdown" sh -c "head -1 '$f' | grep -qx '# pscope doors report'"
check "it names the probed process" grep -qx "## Process $T (lab-fdleak)" "$f"
$PSCOPE doors $T --report "$tmp/batch.md" >/dev/null 2>&1
check "the same sections as pscope doors --report" sh -c \
	"[ \"\$(grep '^#' '$f')\" = \"\$(grep '^#' '$tmp/batch.md')\" ]"
check "the same doors table as pscope doors --report" sh -c \
	"[ \"\$(grep '^| \`' '$f')\" = \"\$(grep '^| \`' '$tmp/batch.md')\" ]"
check "no temporary file is left" test "$(ls -A "$tmp" | sort | tr '\n' ' ')" = "batch.md pscope-doors-$T.md "

# Overwriting: asked; n keeps the old file.
echo old >"$f"
tui_keys E Enter
check "an existing file: asked before overwriting" tui_wait_for 'File exists\. Overwrite\? \[y/N\]'
tui_keys n
check "n: the old file is kept" test "$(cat "$f")" = old
tui_keys E Enter
tui_wait_for 'File exists\. Overwrite\? \[y/N\]' >/dev/null
tui_keys y
check "y: the report replaces it" wait_until sh -c "head -1 '$f' | grep -qx '# pscope doors report'"

# Failures: the cause and the fix on the status line, nothing written.
tui_keys E C-u "$tmp/no/such/dir/r.md" Enter
check "a missing directory: cause and fix" tui_wait_for_joined \
	"cannot write $tmp/no/such/dir/r\.md: No such file or directory \(door: filesystem; fix: the directory does not exist"
mkdir "$tmp/open" && chmod 0777 "$tmp/open"
tui_keys E C-u "$tmp/open/r.md" Enter
check "a directory others can write: refused, and why" tui_wait_for_joined \
	"$tmp/open \(owner root \(uid 0\), mode 0777\) is writable by other users without the sticky bit"
check "nothing was written there" test -z "$(ls -A "$tmp/open")"
tui_keys g
check "the screen still shows the report" tui_wait_for "^ Doors: what the kernel lets pscope do, and PID $T"
tui_keys Escape Escape q

# A full disk, in a private mount namespace of pscope's own.
if command -v unshare >/dev/null && command -v nsenter >/dev/null && unshare -m true 2>/dev/null; then
	mkdir "$tmp/mnt"
	tui_start 200x40 "unshare -m sh -c 'mount -t tmpfs -o size=4k tmpfs $tmp/mnt && echo old >$tmp/mnt/r.md && cd $tmp && echo \$\$ >$tmp/ns.pid && exec $PSCOPE -p $T'"
	tui_wait_for 'lab-fdleak' >/dev/null
	tui_keys D
	tui_wait_for "^ Doors: what the kernel lets pscope do, and PID $T" >/dev/null
	tui_keys E C-u "$tmp/mnt/r.md" Enter
	tui_wait_for 'File exists\. Overwrite\? \[y/N\]' >/dev/null
	tui_keys y
	check "a full disk: cause and fix" tui_wait_for_joined \
		"cannot write $tmp/mnt/r\.md: No space left on device \(door: filesystem; fix: free some space"
	ns=$(cat "$tmp/ns.pid")
	check "a full disk: the old report is kept" test "$(nsenter -t "$ns" -m cat "$tmp/mnt/r.md")" = old
	check "a full disk: no temporary file is left" test "$(nsenter -t "$ns" -m ls -A "$tmp/mnt")" = r.md
	tui_keys r
	check "the screen still works (r probes again)" tui_wait_for "probed PID $T again"
	tui_keys Escape Escape q
else
	skip "no unshare -m / nsenter here: the full-disk case is not checked"
fi
check "the target still runs, untraced" runs_on_soon $T
done_testing
