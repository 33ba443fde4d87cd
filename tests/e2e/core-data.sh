#!/bin/bash
# pscope core: the memory in the file is the process's, byte for byte,
# whichever way it was written: the fork snapshot with direct writes (the
# default), the same through the page cache (the path of filesystems
# without O_DIRECT), and the stop and copy methods. The target's pages hold
# a known pattern, every other page is all zeros, and a barely touched
# mapping must come out as holes.
. "$top_srcdir/tests/lib.sh"

dir=$(mktemp -d /tmp/pscope-core-data.XXXXXX)
at_exit "rm -rf $dir"
MB=32

start_target core-big $MB 256 2 || { done_testing; exit 1; }
P=$TPID
MEM=$(sed -n 's/^mem=//p' /proc/$P/fd/1)

# verify CORE: the resident mapping at MEM holds the pattern, in full.
verify() {
	python3 - "$1" "$MEM" $MB <<'EOF'
import struct, sys
path, mem, mb = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3])
f = open(path, "rb")
eh = f.read(64)
phoff, phentsize, phnum = struct.unpack_from("<Q", eh, 32)[0], struct.unpack_from("<H", eh, 54)[0], struct.unpack_from("<H", eh, 56)[0]
size = mb << 20
for i in range(phnum):
    f.seek(phoff + i * phentsize)
    ptype, flags, off, vaddr, paddr, filesz, memsz, align = struct.unpack("<IIQQQQQQ", f.read(56))
    if ptype == 1 and vaddr <= mem < vaddr + memsz:
        break
else:
    sys.exit("no PT_LOAD holds 0x%x" % mem)
if mem + size > vaddr + filesz:
    sys.exit("the segment at 0x%x has %d bytes of data, not the %d needed" % (vaddr, filesz, mem + size - vaddr))
f.seek(off + mem - vaddr)
data = f.read(size)
zero = bytes(4096)
for pg in range(size // 4096):
    got = data[pg * 4096:(pg + 1) * 4096]
    if pg % 2 == 0:
        want = zero
    else:
        b = bytearray(4096)
        for j in range(0, 4096, 64):
            b[j] = ((pg * 131 + j) | 1) & 0xff
        want = bytes(b)
    if got != want:
        k = next(j for j in range(4096) if got[j] != want[j])
        sys.exit("page %d differs at byte %d: %d, not %d" % (pg, k, got[k], want[k]))
EOF
}

json_get() { # json_get FILE EXPR
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

run() { # run NAME [ENV=VALUE] -- ARGS...
	local name=$1 envs=()
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" $PSCOPE core $P -o $dir/$name --json "$@" >$dir/$name.json 2>$dir/$name.err
	ok $? "$name: pscope core writes a core"
	sed 's/^/#   /' $dir/$name.err
	check "$name: the target runs on" runs_on_soon $P
	local err
	err=$(verify $dir/$name 2>&1)
	ok $? "$name: the resident memory is in the file, byte for byte"
	[ -n "$err" ] && diag "$err"
	check "$name: the barely touched 256 MiB mapping is holes" \
		test "$(json_get $dir/$name.json 'd["disk_bytes"]')" -lt $(((MB + 64) << 20))
	check "$name: gdb reads the pattern" sh -c \
		"gdb -batch -nx -ex 'print/x *(unsigned char *)($MEM + 4096 + 64)' $TARGETS/core-big $dir/$name 2>&1 | grep -q '= 0xc3'"
	rm -f $dir/$name
}

run fork-direct -- --method fork
check "fork-direct: the method is fork" test "$(json_get $dir/fork-direct.json 'd["method"]')" = fork
check "fork-direct: the pause is split into its parts" \
	json_get $dir/fork-direct.json '0 < sum(d["pause_parts_ms"].values()) <= d["pause_ms"] + 1 and d["pause_parts_ms"]["clone"] > 0 or sys.exit(1)'
run fork-cache PSCOPE_TEST_CORE_BUFFERED=1 -- --method fork
run stop -- --method stop
run copy -- --method copy
done_testing
