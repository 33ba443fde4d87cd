#!/bin/sh
# A core without an NT_FILE note (a pscope core with the note taken out):
# its files come from the dynamic linker's list in the core's memory
# (r_debug, link_map), the program by its name next to the core; every
# thread names the same functions as eu-stack on the same core, which
# reads the same list. The header says where the files came from.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/binaries-lib.sh"
tmp=$(mktemp -d /tmp/pscope-core-nofile-e2e.XXXXXX)
at_exit "rm -rf $tmp"

prog_core "$tmp" "$tmp/full.core"
python3 - "$tmp/full.core" "$tmp/c.core" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
phoff = struct.unpack_from('<Q', b, 32)[0]; phnum = struct.unpack_from('<H', b, 56)[0]
for i in range(phnum):
    t, fl, off, va, pa, fs, ms, al = struct.unpack_from('<IIQQQQQQ', b, phoff + 56 * i)
    o = off
    while t == 4 and o + 12 <= off + fs:
        nsz, dsz, typ = struct.unpack_from('<III', b, o)
        if typ == 0x46494c45:  # NT_FILE: a type no reader knows
            struct.pack_into('<I', b, o + 8, 0x7fff0000)
        o += 12 + ((nsz + 3) & ~3) + ((dsz + 3) & ~3)
open(sys.argv[2], 'wb').write(b)
PY
check "the copy has no NT_FILE note" sh -c "! eu-readelf -n '$tmp/c.core' | grep -q 'FILE'"

cd / || exit 1
"$PSCOPE" stack --core "$tmp/c.core" --json >"$tmp/j" 2>"$tmp/e"
check "the modules from the dynamic linker's list, the program next to the core" python3 -c "
import json; d = json.load(open('$tmp/j'))
m = {x['path'].rsplit('/', 1)[-1]: x for x in d['core']['modules']}
assert m['prog']['status'] == 'ok' and m['prog']['file'] == '$tmp/prog', m['prog']
assert any(k.startswith('libc.so') and v['status'] == 'ok' for k, v in m.items()), m
assert any('dynamic linker' in w for w in d['core']['warnings']), d['core']['warnings']"
"$PSCOPE" stack --core "$tmp/c.core" >/dev/null 2>"$tmp/e"
check "the header says the core had no NT_FILE note" grep -q "no NT_FILE note: its files were found from the dynamic linker's list" "$tmp/e"
same_as_eu "no NT_FILE" "$tmp" --core "$tmp/c.core" -- --core "$tmp/c.core" -e "$tmp/prog"
check "leaf_wait named, as with the note" sh -c "'$PSCOPE' stack --core '$tmp/c.core' 2>/dev/null | grep -q 'leaf_wait <- level3 <- level2 <- level1 <- worker <- start_thread'"
done_testing
