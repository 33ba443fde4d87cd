#!/bin/sh
# pscope record killed with SIGKILL at random instants, 20 times: every
# file opens, every interval the recorder said was on disk is there (at
# most the one being written is lost), and a file left unfinished says so
# (a torn tail, or not closed).
. "$top_srcdir/tests/lib.sh"
T=$_tlinks

bad_open=0 lost=0 unsaid=0 torn=0
i=0
while [ $i -lt 20 ]; do
	f=$T/k$i.rec
	"$PSCOPE" record -o "$f" -i 0.1 -v 2>"$T/k$i.err" &
	p=$!
	kill_at_exit $p
	if ! wait_until grep -q 'interval 1 written' "$T/k$i.err"; then
		diag "k$i: $(cat "$T/k$i.err")"
		bad_open=$((bad_open + 1))
		i=$((i + 1))
		continue
	fi
	# A random instant within the next half second: within a frame's
	# write, its fdatasync, an index block, a checkpoint, or a sleep.
	sleep "$(awk -v s=$i 'BEGIN { srand(s * 7919 + 1); printf "%.3f", rand() * 0.5 }')"
	kill -9 $p
	wait $p 2>/dev/null
	said=$(grep -c 'written' "$T/k$i.err")
	if "$PSCOPE" list -r "$f" --json >"$T/k$i.json" 2>"$T/k$i.list.err"; then
		n=$(jq .recording.intervals "$T/k$i.json")
		[ "$n" -ge "$said" ] || { lost=$((lost + 1)); diag "k$i: $n intervals, the recorder said $said"; }
		grep -qE "torn tail at offset [0-9]+|not closed" "$T/k$i.list.err" || { unsaid=$((unsaid + 1)); diag "k$i: nothing said"; }
		grep -q "torn tail" "$T/k$i.list.err" && torn=$((torn + 1))
	else
		bad_open=$((bad_open + 1))
		diag "k$i: $(cat "$T/k$i.list.err")"
	fi
	i=$((i + 1))
done
diag "$torn of 20 files had a torn tail"
ok $bad_open "every one of 20 killed recordings opens"
ok $lost "every interval the recorder said was on disk is there"
ok $unsaid "each says it was not closed, or where its torn tail is"
f=$T/k0.rec
check "the tear or the unclosed file is named with the file" grep -qF "$f: " "$T/k0.list.err"
done_testing
