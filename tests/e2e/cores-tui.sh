#!/bin/sh
# The Cores screen (O): the cores the kernel wrote where core_pattern sends
# them, as `pscope cores` lists them, newest first; Enter opens one as
# `pscope -c` does and Esc comes back; r lists again; a core_pattern that
# keeps nothing says so and what to do. core_pattern is changed under the
# lock every tree shares and put back at the end.
. "$top_srcdir/tests/lib.sh"

CP=/proc/sys/kernel/core_pattern
if [ ! -w "$CP" ]; then
	skip "core_pattern is not writable here: no kernel cores"
	done_testing
	exit 0
fi
tmp=$(mktemp -d /tmp/pscope-cores.XXXXXX)
mkdir -p "$tmp/k" "$tmp/bin"
cp "$TARGETS/crash" "$tmp/bin/crash"
LOCK=/tmp/pscope-core_pattern.lock
touch "$LOCK" && exec 9<"$LOCK" || exit 1
flock -w 300 9 || { ok 1 "the core_pattern lock"; done_testing; exit 1; }
old=$(cat "$CP")
at_exit "printf '%s\n' '$old' >$CP; exec 9<&-; rm -rf $tmp"
printf '%s\n' "$tmp/k/core.%p" >"$CP" || exit 1

crash() { # crash OUT: a crash under ulimit -c unlimited, its PID in OUT
	{ (ulimit -c unlimited; cd "$tmp/k" && exec "$tmp/bin/crash") >"$1" 2>&1; } 2>/dev/null
}
crash "$tmp/c1.out"
P1=$(sed -n 's/^ready //p' "$tmp/c1.out")
wait_until test -s "$tmp/k/core.$P1"
ok $? "the kernel wrote the first core"
"$PSCOPE" cores >"$tmp/batch.txt" 2>&1

tui_start 160x40 "NO_COLOR=1 $PSCOPE"
tui_wait_for 'COMMAND' >/dev/null
tui_keys O
check "O: the Cores screen, where core_pattern sends them" \
	tui_wait_for "^ Cores: 1 in $tmp/k \(core_pattern $tmp/k/core\.%p\)"
check "the header of the list" tui_wait_for '^TIME +SIGNAL +PID +PROGRAM +SIZE +FILE'
check "the core: signal, PID, program, file" tui_wait_for "^[0-9-]+ [0-9:]+ +SIGSEGV +$P1 +crash +[0-9.]+[KMG] +$tmp/k/core\.$P1\$"
check "the same row as pscope cores" grep -qE "^[0-9-]+ [0-9:]+ +SIGSEGV +$P1 +crash +[0-9.]+[KMG] +$tmp/k/core\.$P1\$" "$tmp/batch.txt"
check "the core is selected (the row below the header)" wait_until tui_selected_below "^TIME +SIGNAL"

tui_keys Enter
check "Enter opens the core as pscope -c does" tui_wait_for "^ Core file $tmp/k/core\.$P1: PID $P1 \(crash\)"
check "its signal" tui_wait_for 'SIGSEGV'
tui_keys Escape
check "Esc: back to the Cores screen" tui_wait_for "^ Cores: 1 in $tmp/k"

# A second crash: r lists again, newest first.
crash "$tmp/c2.out"
P2=$(sed -n 's/^ready //p' "$tmp/c2.out")
wait_until test -s "$tmp/k/core.$P2"
tui_keys r
check "r: listed again, said" tui_wait_for 'listed again: 2 cores'
check "two cores now" tui_wait_for "^ Cores: 2 in $tmp/k"
newest_first() { tui_screen | grep -E "core\.($P1|$P2)\$" | head -1 | grep -q "core\.$P2\$"; }
check "the newest first" wait_until newest_first
tui_keys Down Enter
check "Down, Enter: the older core opens" tui_wait_for "^ Core file $tmp/k/core\.$P1: PID $P1"
tui_keys Escape

# A core is replaced under its name after the listing: Enter says so.
cp "$tmp/k/core.$P2" "$tmp/core.copy" && mv "$tmp/core.copy" "$tmp/k/core.$P1"
tui_keys Home Down Enter
check "a file replaced since the listing is another core, and said" tui_wait_for_joined "core\.$P1 is another file now \(replaced since it was read\)"
tui_keys Escape

# A pattern that keeps nothing: said, with what to do.
printf '%s\n' "|/bin/false" >"$CP"
tui_keys r
check "a pipe: none to list" tui_wait_for '^ Cores: none to list \(core_pattern \|/bin/false\)'
check "and what to do" tui_wait_for_joined 'core_pattern pipes every core to /bin/false, which keeps nothing pscope can read'
printf '%s\n' "$old" >"$CP"
check "core_pattern is back as it was" test "$(cat "$CP")" = "$old"
tui_keys q
done_testing
