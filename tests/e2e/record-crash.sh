#!/bin/sh
# A recorder killed with SIGKILL at several instants: every file opens,
# holds every interval it had written (at most the one being written is
# lost), and a torn tail is said with its offset. A damaged file (a future
# version, a truncated header, a damaged index, a damaged block, no
# recording at all) is a clear error naming the file and the offset.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
out=$(mktemp -d /tmp/pscope-record-crash.XXXXXX)
at_exit "rm -rf $out"

count() { # count FILE: its intervals, as the reader finds them
	"$PSCOPE" list -r "$1" --json 2>/dev/null | sed -n 's/.*"intervals":\([0-9]*\).*/\1/p'
}
for k in 1 2 3 4 5 6; do
	f=$out/k$k.psrec
	"$PSCOPE" record -o "$f" --interval 0.1 --duration 60 2>/dev/null &
	RPID=$!
	# Until it wrote k+1 intervals, then a little later (another instant
	# in the interval each time).
	poll 200 sh -c "n=\$('$PSCOPE' list -r '$f' --json 2>/dev/null | sed -n 's/.*\"intervals\":\([0-9]*\).*/\1/p'); [ \"\${n:-0}\" -ge $((k + 1)) ]"
	seen=$(count "$f")
	sleep "0.0$((k * 15 % 10))"
	kill -9 $RPID
	wait $RPID 2>/dev/null
	after=$(count "$f")
	check "killed after $seen intervals: the file opens with ${after:-none} (none lost)" test "${after:-0}" -ge "${seen:-1}"
	"$PSCOPE" list -r "$f" >/dev/null 2>"$out/k$k.err"
	ok $? "and lists (status 0)"
done

# A torn tail: the last frame cut short.
f=$out/k6.psrec
n=$(count "$f")
truncate -s -7 "$f"
"$PSCOPE" list -r "$f" --json >"$out/torn.json" 2>"$out/torn.err"
ok $? "a torn tail: still lists"
check "one interval less ($n before)" grep -q "\"intervals\":$((n - 1))," "$out/torn.json"
check "the tear said, with the file and offset" grep -qE "warning: .*k6\.psrec: at offset [0-9]+: .*torn tail" "$out/torn.err"

# A closed recording, then damaged in each way.
f=$out/c.psrec
"$PSCOPE" record -o "$f" --interval 0.1 --duration 1.5 2>/dev/null
ok $? "a short recording, closed"
size=$(stat -c %s "$f")
damage() { # damage FILE OFFSET: flip one byte
	python3 -c "import sys; f=open(sys.argv[1],'r+b'); f.seek(int(sys.argv[2])); b=f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0]^0xff]))" "$1" "$2"
}
cp "$f" "$out/ix.psrec"
damage "$out/ix.psrec" $((size - 24 - 5))
"$PSCOPE" list -r "$out/ix.psrec" --json >"$out/ix.json" 2>"$out/ix.err"
ok $? "a damaged index: still lists"
check "the index said damaged, with the file and offset" grep -qE "ix\.psrec: at offset [0-9]+: the index is damaged" "$out/ix.err"
cp "$f" "$out/blk.psrec"
damage "$out/blk.psrec" $((size - 24 - 40 - 24 * $(count "$f") - 20))
"$PSCOPE" list -r "$out/blk.psrec" >/dev/null 2>"$out/blk.err"
ok $(( $? != 1 )) "a damaged block: an error (status 1)"
check "naming the file, the offset and the block" grep -qE "blk\.psrec: at offset [0-9]+: the interval's compressed block is damaged" "$out/blk.err"
cp "$f" "$out/new.psrec"
printf '\002' | dd of="$out/new.psrec" bs=1 seek=10 conv=notrunc 2>/dev/null
"$PSCOPE" list -r "$out/new.psrec" >/dev/null 2>"$out/new.err"
ok $(( $? != 1 )) "a future version: an error (status 1)"
check "by name, with the file and offset" grep -qE "new\.psrec: at offset 0: recorded in format version [0-9]+ by a newer pscope" "$out/new.err"
head -c 50 "$f" >"$out/head.psrec"
"$PSCOPE" list -r "$out/head.psrec" >/dev/null 2>"$out/head.err"
ok $(( $? != 1 )) "a truncated header: an error (status 1)"
check "said" grep -qE "head\.psrec: at offset 0: the header is cut short" "$out/head.err"
"$PSCOPE" list -r /etc/passwd >/dev/null 2>"$out/no.err"
ok $(( $? != 1 )) "not a recording: an error (status 1)"
check "said" grep -q "passwd: at offset 0: not a pscope recording" "$out/no.err"
done_testing
