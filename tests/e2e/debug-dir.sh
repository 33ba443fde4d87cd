#!/bin/sh
# Separate debug info by build-id: a library stripped of its DWARF, whose
# debug file lives only under a private .build-id directory
# (PSCOPE_DEBUG_DIR), gets its file:line and inlined calls from there --
# the lines gdb gives with the same debug-file-directory -- and none
# without it; libc's frames get theirs from Debian's /usr/lib/debug
# (libc6-dbg) as gdb's do.
. "$top_srcdir/tests/lib.sh"
tmp=$(mktemp -d /tmp/pscope-debug-dir-e2e.XXXXXX)
at_exit "rm -rf $tmp"

cp "$TARGETS/dbgsep-lib.so" "$tmp/libsep.so"
id=$(eu-readelf -n "$tmp/libsep.so" | awk '/Build ID:/{print $3}')
mkdir -p "$tmp/debug/.build-id/$(echo "$id" | cut -c1-2)"
objcopy --only-keep-debug "$tmp/libsep.so" "$tmp/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
strip --strip-debug "$tmp/libsep.so"
check "the library copy has no DWARF of its own" sh -c "! readelf -SW '$tmp/libsep.so' | grep -q '\.debug_info'"

start_target dbgsep "$tmp/libsep.so" || exit 1
P=$TPID
poll 100 sh -c "grep -q '^State:.*S' /proc/$P/status" || diag "the target did not sleep"

PSCOPE_DEBUG_DIR=$tmp/debug "$PSCOPE" stack --source --inlines "$P" >"$tmp/s" 2>&1
# "function file:line" of the frames in the library, innermost first.
lines() { awk '/\(libsep.so\)/ { f = $3; sub(/\+0x[0-9a-f]+$/, "", f); l = "-"
	if (match($0, /\[[^]]*:[0-9]+\]$/)) { l = substr($0, RSTART + 1, RLENGTH - 2); n = split(l, p, "/"); l = p[n] }
	print f, l }' "$1"; }
lines "$tmp/s" >"$tmp/ps"
check "the inlined lib_step, then lib_wait and lib_entry, each with a line of dbgsep-lib.c" sh -c "
	cut -d' ' -f1 '$tmp/ps' | tr '\n' ' ' | grep -qx 'lib_step lib_wait lib_entry ' &&
	test \$(grep -c ' dbgsep-lib.c:[0-9]*$' '$tmp/ps') = 3"
if command -v gdb >/dev/null; then
	gdb -batch -nx -iex "set debug-file-directory $tmp/debug:/usr/lib/debug" -p "$P" -ex bt 2>/dev/null |
		awk '/^#/ && /lib_/ { if ($3 == "in") { f = $4 } else { f = $2 } l = $NF; n = split(l, p, "/"); print f, p[n] }' >"$tmp/gdb"
	check "the same functions and lines as gdb with the same debug directory" cmp "$tmp/gdb" "$tmp/ps"
	cmp -s "$tmp/gdb" "$tmp/ps" || diff "$tmp/gdb" "$tmp/ps" | sed 's/^/#   /'
else
	skip "gdb not installed"
fi

"$PSCOPE" stack --source --inlines "$P" >"$tmp/s0" 2>&1
lines "$tmp/s0" >"$tmp/ps0"
check "without the debug directory: no lines, no inlined frame in the library" sh -c "
	! grep -q 'dbgsep-lib.c' '$tmp/ps0' && ! grep -q '^lib_step' '$tmp/ps0' && grep -q '^lib_wait' '$tmp/ps0'"

libc=$(awk '/libc\.so\.6$/ {print $6; exit}' /proc/$P/maps)
lid=$(eu-readelf -n "$libc" 2>/dev/null | awk '/Build ID:/{print $3}')
if [ -n "$lid" ] && [ -e "/usr/lib/debug/.build-id/$(echo "$lid" | cut -c1-2)/$(echo "$lid" | cut -c3-).debug" ]; then
	gline=$(gdb -batch -nx -p "$P" -ex bt 2>/dev/null | awk '/^#0/ {print $NF}')
	check "libc's frame: its line from /usr/lib/debug/.build-id, gdb's ($gline)" \
		sh -c "grep -E '^#0 .*\(libc.so.6\) \[[^]]*\]$' '$tmp/s0' | grep -qF '$gline]'"
else
	skip "no debug file of libc under /usr/lib/debug/.build-id (Debian: libc6-dbg)"
fi
done_testing
