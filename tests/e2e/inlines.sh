#!/bin/sh
# Inlined calls: three nested (deep in middle in outer, in entry), each
# frame with its own line, the function they are inlined into with the
# line of the outermost call -- the frames and lines gdb's backtrace gives
# on the same process. And no line for code no DWARF unit covers (_start).
. "$top_srcdir/tests/lib.sh"
tmp=$(mktemp -d /tmp/pscope-inlines-e2e.XXXXXX)
at_exit "rm -rf $tmp"

start_target inlines || exit 1
P=$TPID
poll 100 sh -c "grep -q '^State:.*S' /proc/$P/status" || diag "the target did not sleep"
"$PSCOPE" stack --inlines --source "$P" >"$tmp/s" 2>&1
"$PSCOPE" stack --inlines --source --json "$P" >"$tmp/j" 2>/dev/null
# "function file:line" of each frame from deep to main.
awk '/^#/ { f = $3; if ($4 == "(inlined)") f = $3; sub(/\+0x[0-9a-f]+$/, "", f)
	if (match($0, /\[[^]]*:[0-9]+\]$/)) { l = substr($0, RSTART + 1, RLENGTH - 2); n = split(l, p, "/"); print f, p[n] } }' "$tmp/s" |
	sed -n '/^deep /,/^main /p' >"$tmp/ps"
if command -v gdb >/dev/null; then
	gdb -batch -nx -p "$P" -ex bt 2>/dev/null |
		awk '/^#/ { if ($3 == "in") { f = $4 } else { f = $2 } l = $NF; n = split(l, p, "/"); print f, p[n] }' |
		sed -n '/^deep /,/^main /p' >"$tmp/gdb"
	[ -s "$tmp/gdb" ] || diag "gdb printed no backtrace"
	check "deep <- middle <- outer <- entry <- main, each with its line, as gdb gives them" cmp "$tmp/gdb" "$tmp/ps"
	cmp -s "$tmp/gdb" "$tmp/ps" || diff "$tmp/gdb" "$tmp/ps" | sed 's/^/#   /'
else
	skip "gdb not installed"
fi
check "the three inlined frames in order" sh -c "head -3 '$tmp/ps' | cut -d' ' -f1 | tr '\n' ' ' | grep -qx 'deep middle outer '"
check "... and their lines are three different lines" sh -c "head -4 '$tmp/ps' | cut -d' ' -f2 | sort -u | wc -l | grep -qx 4"
check "JSON: three frames marked inlined, at one pc" python3 -c "
import json; d = json.load(open('$tmp/j'))
fr = d['threads'][0]['frames']
inl = [f for f in fr if f.get('inlined')]
assert [f['function'] for f in inl] == ['deep', 'middle', 'outer'], inl
assert len({f['pc'] for f in inl}) == 1, inl"
check "_start has no line (no DWARF unit covers it)" sh -c "grep -E ' _start\+0x[0-9a-f]+ \(inlines\)' '$tmp/s' | grep -qv '\['"
done_testing
