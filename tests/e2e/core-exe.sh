#!/bin/sh
# The program of a core given with --exe, as users give it: a bare name or
# ./NAME from the current directory names the same frames as eu-stack with
# the same file; an --exe or --sysroot file that is not the program the core
# mapped is an error naming both build-ids, never frames named from it.
# Without --exe, a program no longer where the core says is found by its
# name next to the core; a library missing under --sysroot is the host's
# when its build-id is the core's.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/binaries-lib.sh"
tmp=$(mktemp -d /tmp/pscope-core-exe-e2e.XXXXXX)
at_exit "rm -rf $tmp"

# The program runs from a copy that is then moved away: only --exe finds it.
prog_core "$tmp" "$tmp/c.core"
mkdir "$tmp/moved"
mv "$tmp/prog" "$tmp/moved/prog"
cd "$tmp/moved" || exit 1

for exe in prog ./prog; do
	"$PSCOPE" stack --core ../c.core --exe "$exe" --json >"$tmp/j" 2>"$tmp/e"
	check "--exe $exe: the program is read from the current directory" python3 -c "
import json; d = json.load(open('$tmp/j'))
m = [m for m in d['core']['modules'] if m['path'].endswith('/prog')][0]
assert m['status'] == 'ok' and m['file'] == '$tmp/moved/prog', m"
	same_as_eu "--exe $exe" "$tmp" --core ../c.core --exe "$exe" -- --core ../c.core -e "$exe"
	check "--exe $exe: leaf_wait named" grep -q '"leaf_wait"' "$tmp/j"
done

# No --exe, the program nowhere to be found: its frames are module-relative,
# and what comes after them is not guessed (no stack address as a frame):
# the dump says why the unwinding stops there.
"$PSCOPE" stack --core ../c.core --no-group >"$tmp/m" 2>"$tmp/e"
check "the program missing: its frames as prog+0x..., nothing invented after them" sh -c "
	grep -qE '^#[0-9]+ 0x[0-9a-f]+ prog\+0x[0-9a-f]+ \(prog\)$' '$tmp/m' && ! grep -qE '\[unknown\]|\(\?\)$' '$tmp/m'"
check "... and says why the unwinding stops there" grep -q '^   unwinding stopped: no CFI for this code and no frame-pointer chain from it' "$tmp/m"
check "... and that the program is missing" grep -q 'prog: cannot open .*give the program with --exe' "$tmp/e"

# No --exe: the program by its name next to the core.
cp ../c.core next.core
(cd / && "$PSCOPE" stack --core "$tmp/moved/next.core" --json) >"$tmp/j" 2>/dev/null
check "no --exe: the program found next to the core, by name and build-id" python3 -c "
import json; d = json.load(open('$tmp/j'))
m = [m for m in d['core']['modules'] if m['path'].endswith('/prog')][0]
assert m['status'] == 'ok' and m['file'] == '$tmp/moved/prog', m"
same_as_eu "the program next to the core" "$tmp" --core next.core -- --core next.core -e prog
rm next.core

core_id=$(eu-readelf -n prog | awk '/Build ID:/{print $3}')
other_id=$(eu-readelf -n "$TARGETS/hotloop" | awk '/Build ID:/{print $3}')
cp "$TARGETS/hotloop" other
"$PSCOPE" stack --core ../c.core --exe other >"$tmp/o" 2>"$tmp/e"
rc=$?
check "an --exe that is not the core's program: an error" test "$rc" -ne 0
check "... naming the file and both build-ids" grep -qF "other is not the file the core mapped as $tmp/prog: its build-id is $other_id, the core's is $core_id" "$tmp/e"
check "... and no frames" test ! -s "$tmp/o"
"$PSCOPE" stack --core ../c.core --exe missing >"$tmp/o" 2>"$tmp/e"
check "an --exe that does not exist: an error naming it" sh -c "test $? -ne 0 && grep -q 'missing: cannot open it' '$tmp/e' && test ! -s '$tmp/o'"

mkdir -p "sysroot$tmp"
cp other "sysroot$tmp/prog"
"$PSCOPE" stack --core ../c.core --sysroot sysroot >"$tmp/o" 2>"$tmp/e"
rc=$?
check "a --sysroot whose program is another: an error with both build-ids" sh -c "test $rc -ne 0 && grep -qF 'its build-id is $other_id, the core'\''s is $core_id' '$tmp/e' && test ! -s '$tmp/o'"
cp prog "sysroot$tmp/prog"
"$PSCOPE" stack --core ../c.core --sysroot sysroot >"$tmp/o" 2>"$tmp/e"
check "a relative --sysroot with the right program (libc from the host): its frames" grep -q 'leaf_wait <- level3' "$tmp/o"
done_testing
