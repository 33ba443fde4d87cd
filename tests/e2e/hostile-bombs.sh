#!/bin/bash
# Compressed cores as bombs and full disks, pscope as root. A .zst, .xz or
# .lz4 core is decompressed into an unnamed file under $TMPDIR: a stream
# that expands without end stops at the core's own end, at the 64 GiB cap
# or at $TMPDIR's free space; a window or dictionary too large for memory
# is refused before anything is decompressed; pscope killed with SIGKILL
# mid-way leaves nothing behind (the file had no name, its space comes
# back). On a full filesystem every kind of file pscope writes fails with
# the cause and leaves nothing under its name.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/hostile-lib.sh"

cp "$TARGETS/hotloop" "$HD/"
chown nobody:nogroup "$HD/hotloop"
hostile_start hotloop "$HD/hotloop" || exit 1
T=$HPID
hpscope core "$T" -o "$HBASE/c" >/dev/null
check "a core of nobody's target to play with" test "$RC" = 0 -a -s "$HBASE/c"
B=$HBASE/bombs
mkdir "$B"

# A copy of the core at $2 whose first PT_LOAD claims $3 bytes.
claim() { # claim CORE OUT BYTES
	python3 - "$@" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
phoff, = struct.unpack_from('<Q', b, 32)
phnum, = struct.unpack_from('<H', b, 56)
for i in range(phnum):
    o = phoff + i * 56
    if struct.unpack_from('<I', b, o)[0] == 1:  # PT_LOAD
        struct.pack_into('<Q', b, o + 32, int(sys.argv[3]))  # p_filesz
        break
open(sys.argv[2], 'wb').write(b)
PY
}
# N bytes of 0xff on stdout (no holes to skip: every byte is written).
ones() { python3 -c "
import sys
b = b'\xff' * (1 << 20)
n = $1
while n > 0:
    k = min(n, len(b)); sys.stdout.buffer.write(b[:k]); n -= k"; }
is_read() { grep -qE '(hot|cold)_work' "$1"; }
mounted() { # mounted DIR SIZE: a tmpfs of SIZE on DIR (unmounted at the end)
	mkdir -p "$1" && mount -t tmpfs -o "size=$2,mode=1777" pscope-hostile "$1" 2>/dev/null || return 1
	at_exit "umount '$1'"
}
used_kb() { df -k --output=used "$1" | tail -1 | tr -d ' '; }

# ---- where the scratch file goes ----
if command -v zstd >/dev/null; then
	zstd -q -c "$HBASE/c" >"$B/c.zst"
	$AS_NOBODY mkdir "$HD/tmp"
	TMPDIR=$HD/tmp hpscope stack --core "$B/c.zst" >/dev/null
	hostile_end "a .zst core with TMPDIR nobody's directory"
	check "... refused, naming the directory's owner" grep -q "cannot make a temporary file in $HD/tmp.*(owner nobody (uid $(id -u nobody)), mode 0755) belongs to another user" "$HBASE/err"
	check "... nothing left there" test -z "$(ls -A "$HD/tmp")"
	mkdir -m 0777 "$HBASE/opentmp"
	TMPDIR=$HBASE/opentmp hpscope stack --core "$B/c.zst" >/dev/null
	hostile_end "a .zst core with TMPDIR anyone can write (no sticky bit)"
	check "... refused, and says why" grep -q 'without the sticky bit' "$HBASE/err"
	$AS_NOBODY ln -s "$ROOTF" "$HD/tmp-link"
	TMPDIR=$HD/tmp-link hpscope stack --core "$B/c.zst" >/dev/null
	hostile_end "a .zst core with TMPDIR nobody's link to a directory of root's"
	check "... refused, naming the link's owner" grep -q 'goes through a symbolic link owned by another user' "$HBASE/err"
	hpscope stack --core "$B/c.zst" >"$HBASE/out"
	hostile_end "a .zst core, TMPDIR sticky like /tmp"
	check "... read" is_read "$HBASE/out"
else
	skip "zstd is not installed"
fi

# ---- bombs in each format: 256 GiB of zeros after the core, zeros only ----
# 64 MiB of zeros compressed once, the stream repeated (each format reads
# concatenated streams): 256 GiB in a few MB of zstd or xz; lz4 holds at
# most 255 bytes per byte, so 4 GiB there.
for z in zst xz lz4; do
	case $z in
	zst) tool="zstd -q -1 -c" n=4096 ;;
	xz) tool="xz -0 -c -T1" n=4096 ;;
	lz4) tool="lz4 -q -1 -c" n=64 ;;
	esac
	if ! command -v "${tool%% *}" >/dev/null; then
		skip "${tool%% *} is not installed"
		continue
	fi
	head -c 64M /dev/zero | $tool >"$B/z64"
	python3 -c "
import sys
z = open('$B/z64', 'rb').read()
sys.stdout.buffer.write(z * $n)" >"$B/zeros.$z"
	$tool <"$HBASE/c" >"$B/tail.$z"
	cat "$B/zeros.$z" >>"$B/tail.$z"
	gib=$((n / 16))
	hpscope stack --core "$B/tail.$z" >"$HBASE/out"
	hostile_end "a .$z core followed by $gib GiB of zeros ($(stat -c %s "$B/tail.$z") bytes)"
	check "... read, the zeros after the core's end left out" is_read "$HBASE/out"
	hpscope stack --core "$B/zeros.$z" >/dev/null
	hostile_end "a .$z of $gib GiB of zeros, no core ($(stat -c %s "$B/zeros.$z") bytes)"
	check "... refused at the first bytes: not an ELF core" grep -q "data is not an ELF core" "$HBASE/err"
	claim "$HBASE/c" "$B/huge" $((1 << 40))
	$tool <"$B/huge" >"$B/huge.$z"
	hpscope stack --core "$B/huge.$z" >/dev/null
	hostile_end "a .$z core whose headers claim 1 TiB"
	check "... refused at the 64 GiB cap, and says so" grep -q 'over the 64G cap for a core pscope copies or decompresses' "$HBASE/err"
	rm -f "$B"/*."$z" "$B/huge" "$B/z64"
done

# ---- a window or dictionary too large for memory ----
if command -v zstd >/dev/null; then
	# From a pipe (no size known), --long=31 keeps its 2 GiB window.
	zstd -q --long=31 -c <"$HBASE/c" >"$B/win.zst"
	/usr/bin/time -f %M -o "$HBASE/rss" timeout 300 "$PSCOPE" stack --core "$B/win.zst" >/dev/null 2>"$HBASE/err"
	RC=$?
	hostile_end "a .zst core with a 2 GiB window"
	check "... refused: more memory than the cap" grep -q 'the zstd data needs more than 256M of memory to decompress, the cap' "$HBASE/err"
	check "... pscope's memory stayed small (under 64 MiB: $(tail -1 "$HBASE/rss") KiB)" test "$(tail -1 "$HBASE/rss")" -lt 65536
fi
if command -v xz >/dev/null; then
	# An xz encoder would need ~20 GiB for a 2 GiB dictionary: the block
	# header's dictionary byte is set to it (and its CRC32 fixed).
	xz -0 -c -T1 "$HBASE/c" >"$B/dict.xz"
	python3 - "$B/dict.xz" <<'PY'
import struct, sys, zlib
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
h = 12                      # the block header, after the stream header
size = (b[h] + 1) * 4
flags = b[h + 1]
o = h + 2
def varint(o):
    while b[o] & 0x80:
        o += 1
    return o + 1
if flags & 0x40: o = varint(o)
if flags & 0x80: o = varint(o)
assert b[o] == 0x21 and b[o + 1] == 1, 'LZMA2 filter expected'
b[o + 2] = 38               # 2 GiB
struct.pack_into('<I', b, h + size - 4, zlib.crc32(bytes(b[h:h + size - 4])))
open(p, 'wb').write(b)
PY
	/usr/bin/time -f %M -o "$HBASE/rss" timeout 300 "$PSCOPE" stack --core "$B/dict.xz" >/dev/null 2>"$HBASE/err"
	RC=$?
	hostile_end "a .xz core with a 2 GiB dictionary"
	check "... refused: more memory than the cap" grep -q 'the xz data needs more than 256M of memory to decompress, the cap' "$HBASE/err"
	check "... pscope's memory stayed small (under 64 MiB: $(tail -1 "$HBASE/rss") KiB)" test "$(tail -1 "$HBASE/rss")" -lt 65536
	rm -f "$B/dict.xz"
fi

# ---- TMPDIR's free space ----
if command -v zstd >/dev/null && mounted "$HBASE/small" 16m; then
	# The headers claim 30 GiB, 200 MiB of data that is no hole follow.
	claim "$HBASE/c" "$B/big" $((30 << 30))
	(cat "$B/big"; ones $((200 << 20))) | zstd -q -1 -c >"$B/big.zst"
	TMPDIR=$HBASE/small hpscope stack --core "$B/big.zst" >/dev/null
	hostile_end "a .zst core of 30 GiB, TMPDIR a 16 MiB tmpfs"
	check "... stopped at the free space, and says what to do" \
		grep -q "decompressing $B/big.zst needs more than .* free in $HBASE/small: set TMPDIR" "$HBASE/err"
	check "... its space given back (used: $(used_kb "$HBASE/small") KiB)" test "$(used_kb "$HBASE/small")" -lt 64
	umount "$HBASE/small"
else
	skip "a tmpfs for TMPDIR: needs root, mount and zstd"
fi

# ---- SIGKILL mid-decompression ----
if command -v zstd >/dev/null && command -v strace >/dev/null && mounted "$HBASE/kill" 256m; then
	# Slowed down (every write delayed by 2 ms, through strace) so it is
	# surely mid-way when killed: once 1 MiB is out.
	claim "$HBASE/c" "$B/big" $((30 << 30))
	(cat "$B/big"; ones $((200 << 20))) | zstd -q -1 -c >"$B/big.zst"
	TMPDIR=$HBASE/kill strace -o /dev/null -e trace=write -e inject=write:delay_enter=2000 \
		"$PSCOPE" stack --core "$B/big.zst" >/dev/null 2>"$HBASE/err" &
	ST=$!
	kill_at_exit $ST
	# pscope's descriptor of the unnamed file, and its size.
	scratch_size() {
		local p f
		p=$(pgrep -P "$ST" | head -1)
		[ -n "$p" ] || return 1
		for f in /proc/$p/fd/*; do
			case $(readlink "$f") in "$HBASE/kill/"*" (deleted)") ;; *) continue ;; esac
			[ "$(stat -L -c %s "$f")" -ge $((1 << 20)) ] && { echo "$p"; return 0; }
		done
		return 1
	}
	check "pscope is decompressing into an unnamed file" poll 600 scratch_size
	P=$(scratch_size)
	check "... no name for it in TMPDIR meanwhile" test -z "$(ls -A "$HBASE/kill")"
	check "... while it holds $(used_kb "$HBASE/kill") KiB there" test "$(used_kb "$HBASE/kill")" -ge 1024
	[ -n "$P" ] && kill -9 "$P"
	wait "$ST" 2>/dev/null
	check "killed with SIGKILL: nothing left in TMPDIR" test -z "$(ls -A "$HBASE/kill")"
	check "... and its space given back (used: $(used_kb "$HBASE/kill") KiB)" wait_until sh -c "[ \$(df -k --output=used '$HBASE/kill' | tail -1) -lt 64 ]"
	check "... no sanitizer report before it" sh -c "! grep -qE 'Sanitizer|runtime error' '$HBASE/err'"
	umount "$HBASE/kill"
	rm -f "$B/big" "$B/big.zst"
else
	skip "SIGKILL mid-decompression: needs root, mount, zstd and strace"
fi

# ---- SIGKILL while a file is being written ----
if command -v strace >/dev/null; then
	for k in svg json; do
		case $k in
		svg) set -- top "$T" --samples 20 --svg "$HS/k.$k" ;;
		json) set -- doors "$T" --json --report "$HS/k.$k" ;;
		esac
		# Every write delayed by 2 s: killed once the unnamed file is open.
		strace -o /dev/null -e trace=write -e inject=write:delay_enter=2000000 "$PSCOPE" "$@" \
			>/dev/null 2>"$HBASE/err" &
		ST=$!
		kill_at_exit $ST
		# pscope's descriptor of an unnamed file in $HS (find: one process,
		# however many descriptors pscope holds).
		unnamed_open() {
			local p
			p=$(pgrep -P "$ST" | head -1)
			[ -n "$p" ] && [ -n "$(find "/proc/$p/fd" -lname "$HS/#* (deleted)" 2>/dev/null | head -1)" ] && echo "$p"
		}
		check "$k: pscope writes into an unnamed file" poll 300 unnamed_open
		P=$(unnamed_open)
		[ -n "$P" ] && kill -9 "$P"
		wait "$ST" 2>/dev/null
		check "... killed with SIGKILL mid-write: nothing under its name, nothing else left" \
			sh -c "ls -lA '$HS'; test -z \"\$(ls -A '$HS')\""
		RC=0
		hostile_end "$k killed mid-write" "$T"
	done
else
	skip "SIGKILL mid-write: needs strace"
fi

# ---- a full disk, for every kind of file pscope writes ----
if mounted "$HBASE/full" 1m; then
	F=$HBASE/full
	head -c 2M /dev/zero >"$F/fill" 2>/dev/null
	check "the tmpfs is full" test "$(df -k --output=avail "$F" | tail -1 | tr -d ' ')" = 0
	for k in core report json folded svg pprof speedscope record; do
		case $k in
		core) hpscope core "$T" -o "$F/x.$k" ;;
		report) hpscope doors "$T" --report "$F/x.$k" ;;
		json) hpscope doors "$T" --report "$F/x.$k" --json ;;
		record) hpscope record -o "$F/x.$k" -i 0.2 -d 0.4 -p "$T" ;;
		*) hpscope top "$T" --samples 20 --"$k" "$F/x.$k" ;;
		esac >/dev/null
		hostile_end "$k onto a full filesystem" "$T"
		check "... fails (exit 1), naming the lack of space" sh -c \
			"test $RC = 1 && grep -qE 'No space left on device|not enough space' '$HBASE/err'"
		check "... nothing under its name" test "$(ls -A "$F")" = fill
	done
	(cd "$F" && hpscope core "$T" >/dev/null; echo $RC >"$HBASE/rc")
	RC=$(cat "$HBASE/rc")
	hostile_end "core with the default path, a full filesystem the current one" "$T"
	check "... refused, nothing left" sh -c "grep -q 'not enough space' '$HBASE/err' && test \"\$(ls -A '$F')\" = fill"
	hpscope core "$T" -o "$F/forced" --force >/dev/null
	hostile_end "core --force onto a full filesystem (fails midway)" "$T"
	check "... names the lack of space, nothing left" sh -c "grep -q 'No space left on device' '$HBASE/err' && test \"\$(ls -A '$F')\" = fill"
	if command -v zstd >/dev/null; then
		zstd -q -c "$HBASE/c" >"$B/c.zst"
		TMPDIR=$F hpscope stack --core "$B/c.zst" >/dev/null
		hostile_end "a .zst core with TMPDIR a full filesystem"
		check "... refused, naming the space and TMPDIR" grep -qE "decompressing $B/c.zst (needs more than|into $F failed)" "$HBASE/err"
		check "... nothing left" test "$(ls -A "$F")" = fill
	fi
	# A recording that fills the disk as it goes: ends with the cause, the
	# file keeps its whole intervals and replays.
	rm -f "$F/fill"
	head -c 900K /dev/zero >"$F/fill"
	hpscope record -o "$F/r.rec" -i 0.1 -d 120
	hostile_end "a recording that fills the filesystem"
	check "... ends (exit 1) naming the lack of space" sh -c "test $RC = 1 && grep -q 'No space left on device' '$HBASE/err'"
	timeout 60 "$PSCOPE" list -r "$F/r.rec" --at -0s >"$HBASE/replay" 2>"$HBASE/rerr"
	check "... the file replays, up to its last whole interval" sh -c "test $? = 0 && grep -q hotloop '$HBASE/replay'"
	rm -f "$F/r.rec"
	umount "$F"
else
	skip "full disk: cannot mount a tmpfs"
fi

done_testing
