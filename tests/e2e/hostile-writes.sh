#!/bin/bash
# Files pscope writes as root where nobody can play: the core (-o and the
# default path in the current directory), the doors report, the folded
# stacks and the scratch file of a decompressed core, each while nobody
# swaps the destination's name with a symbolic link to a file of root's
# (renameat2 RENAME_EXCHANGE in a loop); directories others can write
# without the sticky bit and paths through nobody's symbolic links are
# refused; compressed cores that expand without end stop at a cap.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/hostile-lib.sh"

cp "$TARGETS/hotloop" "$TARGETS/hostile-swap" "$HD/"
chown nobody:nogroup "$HD/hotloop" "$HD/hostile-swap"
hostile_start hotloop "$HD/hotloop" || exit 1
T=$HPID
OUT=$HD/out
$AS_NOBODY mkdir "$OUT"

# nobody swaps NAME (a file of nobody's) and NAME.link (a link to root's
# file) in $OUT without end; stopped by swap_stop.
swap_start() { # swap_start NAME ROOT-FILE
	$AS_NOBODY sh -c "echo nobody-owned >'$OUT/$1' && ln -s '$2' '$OUT/$1.link'"
	$AS_NOBODY "$HD/hostile-swap" "$OUT" "$1" "$1.link" >"$HBASE/swap.out" &
	SWAP=$!
	kill_at_exit $SWAP
	poll 100 grep -q ready "$HBASE/swap.out"
}
swap_stop() {
	kill "$SWAP"
	wait "$SWAP" 2>/dev/null
	rm -f "$OUT"/*
}

# ---- the doors report and the folded stacks replace the name ----
swap_start report.md "$ROOTF/report.md"
for i in 1 2 3 4 5; do
	hpscope doors "$T" --report "$OUT/report.md" >/dev/null
	hostile_end "doors --report while the name is swapped with a link to root's file, run $i" "$T"
done
swap_stop
check "doors --report: the report is in nobody's directory" sh -c "grep -l '^# ' '$OUT'/* 2>/dev/null || true" 
swap_start x.folded "$ROOTF/secret"
for i in 1 2 3; do
	hpscope top "$T" --samples 50 --folded "$OUT/x.folded" >/dev/null
	hostile_end "top --folded while the name is swapped with a link to root's file, run $i" "$T"
done
swap_stop

# ---- a core never replaces a name: refused while it exists ----
swap_start core "$ROOTF/core"
hpscope core "$T" -o "$OUT/core" >/dev/null
hostile_end "core -o onto a name swapped with a link to root's file" "$T"
check "core -o onto an existing name: refused, and says so" grep -q 'already exists: pscope never overwrites a file' "$HBASE/err"
swap_stop
# A link that comes and goes: the core is linked in only where no name is.
$AS_NOBODY sh -c "while :; do ln -s '$ROOTF/core' '$OUT/core' 2>/dev/null; rm -f '$OUT/core'; done" &
FLIP=$!
kill_at_exit $FLIP
for i in 1 2 3; do
	rm -f "$OUT/core.$i"
	hpscope core "$T" -o "$OUT/core" >/dev/null
	hostile_end "core -o onto a name where a link to root's file comes and goes, run $i" "$T"
done
kill $FLIP
wait $FLIP 2>/dev/null
rm -f "$OUT"/*
# The default path: the current directory, nobody's.
(cd "$OUT" && hpscope core "$T" >/dev/null; echo $RC >"$HBASE/rc")
RC=$(cat "$HBASE/rc")
hostile_end "core with the default path in nobody's directory" "$T"
check "core with the default path: written there" sh -c "ls '$OUT'/core.hotloop.$T.* >/dev/null"
CORE=$(ls "$OUT"/core.hotloop.$T.* | head -1)
mv "$CORE" "$HBASE/c"

# ---- directories that are refused ----
mkdir -m 0777 "$HBASE/open"
hpscope core "$T" -o "$HBASE/open/core" >/dev/null
hostile_end "core -o into a directory anyone can write (no sticky bit)" "$T"
check "... refused, and says why" grep -q 'is writable by other users (mode 0777) without the sticky bit' "$HBASE/err"
check "... nothing written" test -z "$(ls -A "$HBASE/open")"
hpscope doors "$T" --report "$HBASE/open/r.md" >/dev/null
hostile_end "doors --report into a directory anyone can write" "$T"
check "... refused, and says why" grep -q 'without the sticky bit' "$HBASE/err"
$AS_NOBODY ln -s "$ROOTF" "$HD/to-root"
hpscope doors "$T" --report "$HD/to-root/report.md" >/dev/null
hostile_end "doors --report through nobody's link to root's directory" "$T"
check "... refused, and names the link's owner" grep -q "goes through a symbolic link owned by another user (uid $(id -u nobody))" "$HBASE/err"
hpscope core "$T" -o "$HD/to-root/c" >/dev/null
hostile_end "core -o through nobody's link to root's directory" "$T"
check "... refused" grep -q 'goes through a symbolic link owned by another user' "$HBASE/err"
ln -s "$HBASE" "$HBASE/rootlink"
mkdir -m 700 "$HBASE/mine"
hpscope doors "$T" --report "$HBASE/rootlink/mine/r.md" >/dev/null
check "a link of root's is followed" test "$RC" = 0 -a -s "$HBASE/mine/r.md"

# ---- compressed cores: scratch file in nobody's TMPDIR, bombs ----
if command -v zstd >/dev/null; then
	zstd -q -c "$HBASE/c" >"$HBASE/c.zst"
	ntmp=$HD/tmp
	$AS_NOBODY mkdir "$ntmp"
	TMPDIR=$ntmp hpscope stack --core "$HBASE/c.zst" >"$HBASE/zst.out"
	hostile_end "a .zst core decompressed into nobody's TMPDIR"
	check "... read" grep -qE '(hot|cold)_work' "$HBASE/zst.out"
	check "... nothing left there" test -z "$(ls -A "$ntmp")"
	mkdir -m 0777 "$HBASE/opentmp"
	TMPDIR=$HBASE/opentmp hpscope stack --core "$HBASE/c.zst" >/dev/null
	hostile_end "a .zst core with TMPDIR anyone can write"
	check "... refused, and says why" grep -q 'without the sticky bit' "$HBASE/err"
	# A bomb: the core, then 4 GiB of zeros (a few hundred KB compressed).
	(cat "$HBASE/c"; head -c 4G /dev/zero) | zstd -q -1 -c >"$HBASE/tail.zst"
	hpscope stack --core "$HBASE/tail.zst" >"$HBASE/tail.out"
	hostile_end "a .zst core followed by 4 GiB of zeros"
	check "... read, the zeros after the core's end left out" grep -qE '(hot|cold)_work' "$HBASE/tail.out"
	# A bomb that is no core: refused at the first bytes.
	head -c 4G /dev/zero | zstd -q -1 -c >"$HBASE/zeros.zst"
	hpscope stack --core "$HBASE/zeros.zst" >/dev/null
	hostile_end "a .zst of 4 GiB of zeros (no core)"
	check "... refused: not an ELF core" grep -q 'the zstd data is not an ELF core' "$HBASE/err"
	# A core whose headers claim a segment of 1 TiB: refused at the cap.
	python3 - "$HBASE/c" "$HBASE/huge" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
phoff, = struct.unpack_from('<Q', b, 32)
phnum, = struct.unpack_from('<H', b, 56)
for i in range(phnum):
    o = phoff + i * 56
    if struct.unpack_from('<I', b, o)[0] == 1:  # PT_LOAD
        struct.pack_into('<Q', b, o + 32, 1 << 40)  # p_filesz
        break
open(sys.argv[2], 'wb').write(b)
PY
	zstd -q -c "$HBASE/huge" >"$HBASE/huge.zst"
	hpscope stack --core "$HBASE/huge.zst" >/dev/null
	hostile_end "a .zst core whose headers claim 1 TiB"
	check "... refused at the 64 GiB cap, and says so" grep -q 'over the 64G cap for a core pscope copies or decompresses' "$HBASE/err"
	rm -f "$HBASE"/*.zst "$HBASE/huge"
else
	skip "zstd is not installed: no compressed cores"
fi

done_testing
