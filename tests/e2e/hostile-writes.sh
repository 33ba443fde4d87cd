#!/bin/bash
# Files pscope writes as root where nobody can play, for every kind pscope
# writes (a core, the doors report in Markdown and JSON, folded stacks, a
# flame graph, pprof, speedscope, a recording): into nobody's own
# directory (refused: its owner can swap anything there); into a sticky
# directory like /tmp where nobody swaps the destination's name with a
# symbolic link to a file of root's (renameat2 RENAME_EXCHANGE in a loop:
# refused, the name is nobody's) or makes and removes such a link (written
# or refused, never through the link). Directories others can write without
# the sticky bit and paths through nobody's symbolic links are refused; the
# TUI's save key says so. Compressed cores and full disks:
# hostile-bombs.sh.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/hostile-lib.sh"

cp "$TARGETS/hotloop" "$TARGETS/hostile-swap" "$HD/"
chown nobody:nogroup "$HD/hotloop" "$HD/hostile-swap"
hostile_start hotloop "$HD/hotloop" || exit 1
T=$HPID
OUT=$HD/out
$AS_NOBODY mkdir "$OUT"
KINDS="core report json folded svg pprof speedscope record"

# write_one KIND PATH: pscope writes a file of KIND at PATH (sets RC,
# stderr in $HBASE/err).
write_one() {
	case $1 in
	core) hpscope core "$T" -o "$2" ;;
	report) hpscope doors "$T" --report "$2" ;;
	json) hpscope doors "$T" --report "$2" --json ;;
	record) hpscope record -o "$2" -i 0.2 -d 0.4 -p "$T" ;;
	*) hpscope top "$T" --samples 20 --"$1" "$2" ;;
	esac >/dev/null
}

# nobody swaps NAME (a file of nobody's) and NAME.link (a link to root's
# file) in DIR without end; stopped by swap_stop.
swap_start() { # swap_start DIR NAME ROOT-FILE
	$AS_NOBODY sh -c "echo nobody-owned >'$1/$2' && ln -s '$3' '$1/$2.link'"
	$AS_NOBODY "$HD/hostile-swap" "$1" "$2" "$2.link" >"$HBASE/swap.out" &
	SWAP=$!
	kill_at_exit $SWAP
	poll 100 grep -q ready "$HBASE/swap.out"
}
swap_stop() {
	kill "$SWAP"
	wait "$SWAP" 2>/dev/null
}
# Both names still nobody's, as nobody left them: one the file, one the link.
swapped_intact() { # swapped_intact DIR NAME
	local a=$1/$2 b=$1/$2.link
	[ "$(stat -c %U "$a" "$b" | sort -u)" = nobody ] || return 1
	if [ -L "$a" ]; then set -- "$b" "$a"; else set -- "$a" "$b"; fi
	[ "$(cat "$1")" = nobody-owned ] && [ -L "$2" ] && [ "$(readlink "$2")" = "$ROOTF/secret" ]
}

# ---- nobody's own directory: refused for every kind, naming its owner ----
for k in $KINDS; do
	write_one $k "$OUT/x.$k"
	hostile_end "$k into nobody's directory" "$T"
	check "... refused, naming the directory's owner and mode" \
		grep -q "$OUT (owner nobody (uid $(id -u nobody)), mode 0755) belongs to another user" "$HBASE/err"
	check "... nothing written there" test -z "$(ls -A "$OUT")"
done
(cd "$OUT" && hpscope core "$T" >/dev/null; echo $RC >"$HBASE/rc")
RC=$(cat "$HBASE/rc")
hostile_end "core with the default path, nobody's directory the current one" "$T"
check "... refused" grep -q "owner nobody (uid $(id -u nobody)), mode 0755) belongs to another user" "$HBASE/err"

# ---- a sticky directory, the name swapped with a link to root's file ----
# Every run is refused (the name is nobody's: a core or a recording never
# replaces a name, a report never replaces another user's) and both names
# stay nobody's, the file unread into and the link not followed.
for k in $KINDS; do
	swap_start "$HS" "x.$k" "$ROOTF/secret"
	for i in 1 2 3 4 5; do
		write_one $k "$HS/x.$k"
		hostile_end "$k onto a name swapped with a link to root's file, run $i" "$T"
	done
	swap_stop
	case $k in
	core|record) want="already exists: pscope never overwrites" ;;
	*) want="$HS/x.$k exists and belongs to nobody (uid $(id -u nobody)) in a directory others can write" ;;
	esac
	check "$k onto a swapped name: refused, and says why" grep -q "$want" "$HBASE/err"
	check "... nobody's file and link untouched" swapped_intact "$HS" "x.$k"
	rm -f "$HS/x.$k" "$HS/x.$k.link"
done

# ---- a sticky directory, a link to root's file that comes and goes ----
# pscope writes when the name is free and refuses when the link is there;
# the link is never followed, so root's file never changes.
for k in $KINDS; do
	$AS_NOBODY sh -c "while :; do ln -s '$ROOTF/secret' '$HS/y.$k' 2>/dev/null; rm -f '$HS/y.$k'; done" &
	FLIP=$!
	kill_at_exit $FLIP
	wrote=0
	for i in 1 2 3 4; do
		write_one $k "$HS/y.$k"
		hostile_end "$k onto a name where a link to root's file comes and goes, run $i" "$T"
		if [ "$RC" = 0 ]; then
			check "... written: a file of root's, not a link" \
				test -f "$HS/y.$k" -a ! -L "$HS/y.$k" -a "$(stat -c %U "$HS/y.$k")" = root
			wrote=$((wrote + 1))
			rm -f "$HS/y.$k"
		fi
	done
	diag "$k: written $wrote of 4 times, refused the others"
	kill $FLIP
	wait $FLIP 2>/dev/null
	rm -f "$HS/y.$k"
done
# The default core path: the sticky directory the current one.
(cd "$HS" && hpscope core "$T" >/dev/null; echo $RC >"$HBASE/rc")
RC=$(cat "$HBASE/rc")
hostile_end "core with the default path, a sticky directory the current one" "$T"
check "... written there, root's" sh -c "test \"\$(stat -c %U '$HS'/core.hotloop.$T.*)\" = root"
rm -f "$HS"/core.hotloop.*

# ---- a report replaces root's own older one, never another user's ----
echo old >"$HS/mine.md"
hpscope doors "$T" --report "$HS/mine.md" >/dev/null
hostile_end "doors --report over root's own older report in a sticky directory" "$T"
check "... replaced" grep -q '^# ' "$HS/mine.md"
rm -f "$HS/mine.md"

# ---- directories that are refused ----
mkdir -m 0777 "$HBASE/open"
for k in core report; do
	write_one $k "$HBASE/open/x"
	hostile_end "$k into a directory anyone can write (no sticky bit)" "$T"
	check "... refused, naming its owner and mode" \
		grep -q "$HBASE/open (owner root (uid 0), mode 0777) is writable by other users without the sticky bit" "$HBASE/err"
	check "... nothing written" test -z "$(ls -A "$HBASE/open")"
done
$AS_NOBODY ln -s "$ROOTF" "$HD/to-root"
for k in report core svg record; do
	write_one $k "$HD/to-root/x"
	hostile_end "$k through nobody's link to root's directory" "$T"
	check "... refused, and names the link's owner" \
		grep -q "goes through a symbolic link owned by another user (uid $(id -u nobody))" "$HBASE/err"
done
ln -s "$HBASE" "$HBASE/rootlink"
mkdir -m 700 "$HBASE/mine"
hpscope doors "$T" --report "$HBASE/rootlink/mine/r.md" >/dev/null
check "a link of root's is followed" test "$RC" = 0 -a -s "$HBASE/mine/r.md"

# ---- the TUI: the doors screen's save key into nobody's directory ----
tui_start 200x40 "cd $HBASE && exec $PSCOPE -p $T 2>$HBASE/tui.err"
tui_wait_for hotloop >/dev/null
tui_keys D
tui_wait_for "^ Doors: what the kernel lets pscope do, and PID $T" >/dev/null
tui_keys E C-u "$OUT/r.md" Enter
check "TUI doors report into nobody's directory: refused, naming the owner" \
	tui_wait_for_joined "$OUT \(owner nobody \(uid $(id -u nobody)\), mode 0755\) belongs to another user"
tui_keys E C-u "$HS/r.md" Enter
check "TUI doors report into the sticky directory: written" tui_wait_for_joined "Doors report written to $HS/r\.md"
tui_keys q
check "TUI: nothing in nobody's directory" test -z "$(ls -A "$OUT")"
rm -f "$HS/r.md"
hostile_end "TUI doors report" "$T"

done_testing
