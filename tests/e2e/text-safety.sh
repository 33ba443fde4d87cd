#!/bin/bash
# Hostile text on the TUI's text screens, and text laid out whole: the
# environment (e) and whole command line (w) show one variable / argument
# list per logical row with every control character escaped (a newline in
# a value never passes for another variable); confirmations wrap whole
# with their [y/N] visible; the line editor's Ctrl-U / Ctrl-W and long
# input; result screens wrapped at spaces with a copyable gdb line.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }

filter() { # filter TEXT: show only the rows matching TEXT
	tui_keys '\'
	tui_keys -l "$1"
	tui_keys Enter
}
# no_row REGEX: no row of the settled screen matches
no_row() { ! tui_screen_settled | grep -qE "$1"; }

# 1. e and w on a hostile process.
long=$(printf 'v%.0s' $(seq 1 250))
EVIL=$(printf 'a\033]2;PWNENV\007b\nnextline')
EVIL2=$(printf 'x\nPATH=/evil')
EVIL="$EVIL" EVIL2="$EVIL2" LONGV="$long-END-OF-VALUE" start_target hostile || exit 1
HPID=$TPID

tui_start 80x40 "$PSCOPE -d 5; echo EXIT=\$?; sleep 60"
check "list up" tui_wait_for 'Load average'
# its argv[0] is under a directory of this run: not another run's target
filter "$(tr '\0' '\n' </proc/$HPID/cmdline | head -1) --hostile"
check "the hostile target is listed" tui_wait_for "^ +$HPID "
tui_keys e
check "e: the environment of the hostile target" tui_wait_for "Environment of PID $HPID"
check "e: a value's control characters and newline escaped, on one row" \
	tui_wait_for '^EVIL=a\\e\]2;PWNENV\\x07b\\nnextline *$'
check "e: no row starts with the text after an embedded newline" no_row '^nextline'
check "e: x\\nPATH=/evil stays one variable" tui_wait_for '^EVIL2=x\\nPATH=/evil *$'
check "e: no row passes for a PATH=/evil variable" no_row '^PATH=/evil'
check "e: a long value still wraps (its end on a later row)" tui_wait_for_joined "LONGV=$long-END-OF-VALUE"
check "e: the long value's first row is cut at the width" tui_wait_for "^LONGV=v{70,}\$"
tui_keys Escape
tui_keys w
check "w: the whole command line" tui_wait_for "Command line of PID $HPID"
check "w: argv's newline and tab escaped, on one logical row" \
	tui_wait_for_joined 'hostile --hostile \\e\]2;PWNED-ARGV\\x07 two\\nlines\\tand a tab'
check "w: no row starts with the text after the newline" no_row '^lines'
tui_keys Escape
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
tmux -L "$TMUX_S" kill-server 2>/dev/null

# 2 and 3. A copy of core-threads under a short /tmp path (the gdb line's
# length must not depend on the checkout's path), its cores written there.
dir=$(mktemp -d /tmp/pst.XXXXXX)
at_exit "rm -rf $dir"
cp "$TARGETS/core-threads" "$dir/ct" || exit 1
"$dir/ct" 2 >"$dir/out" 2>&1 &
CP=$!
kill_at_exit $CP
poll 100 grep -q ready "$dir/out" || { diag "ct did not get ready"; exit 1; }
# joined TEXT...: the settled screen's rows, leading blanks dropped, joined
# by one blank (a row broken at a blank joins back to the text; a word
# split across rows does not).
joined() { tui_screen_settled | sed 's/^ *//; s/ *$//' | tr '\n' ' ' | tr -s ' '; }
has_joined() { joined | grep -qF -- "$1"; }

tui_start 80x30 "cd $dir && $PSCOPE -p $CP; echo EXIT=\$?; sleep 60"
tui_keys C
check "C: the destination prompt" tui_wait_for "Write the core to: .*core\.ct\.$CP\."
tui_keys Enter
check "80 columns: the whole confirmation wraps, [y/N] visible" tui_wait_for '\[y/N\] *$' 20
check "80 columns: the question's rows join back to the whole question, the destination included" \
	sh -c "$(declare -f tui_screen tui_screen_settled joined); TMUX_S=$TMUX_S; joined | grep -qE 'Write the core of PID $CP\? It needs about .* on disk \(.* in all\); .* is free\. It is taken by a fork snapshot: until it is written, each first write of the process to a page takes about 2\.9 us longer\. File: $dir/core\.ct\.$CP\.[^ ]+ \[y/N\]'"
tui_keys y
check "the result: written" tui_wait_for "Written +$dir/core\.ct\.$CP\." 60
f=$(ls $dir/core.ct.$CP.* 2>/dev/null | head -1)
check "the core file exists" test -n "$f"
check "80 columns: the gdb command starts a row of its own, unindented" tui_wait_for "^gdb $dir/ct( |\$)"
gdbline="gdb $dir/ct $f"
if [ ${#gdbline} -le 80 ]; then
	check "80 columns: gdb EXE CORE whole on one row (it fits)" tui_wait_for "^gdb $dir/ct ${f//./\\.}\$"
else
	check "80 columns: the core path whole on one row" tui_wait_for "^${f//./\\.}\$"
fi
check "80 columns: no word of the Method row split (rows join back at blanks)" \
	has_joined "by a fork snapshot (a pause of milliseconds; until it is written, each first write to a page costs the process a copy-on-write fault, about 2.9 us)"
check "80 columns: the estimate sentence whole" has_joined "on disk: zero pages are holes),"
check "gdb loads the core" sh -c "gdb -batch -nx -ex 'print the_global' $dir/ct '$f' 2>&1 | grep -q '= 271828'"
rm -f $dir/core.*
tui_keys Escape

# A screen too small for the whole question: its end stays visible.
tmux -L "$TMUX_S" resize-window -t "$TMUX_S" -x 40 -y 7 2>/dev/null ||
	tmux -L "$TMUX_S" resize-pane -t "$TMUX_S" -x 40 -y 7
tui_keys C
tui_wait_for "Write the core to:" >/dev/null
tui_keys Enter
check "40x7: the question's end, [y/N], is visible" tui_wait_for '\[y/N\] *$' 20
check "40x7: its cut start is marked" tui_wait_for '^(…|<)'
tui_keys n
check "40x7: n answers no" tui_wait_for 'no core written'
check "no core was written" sh -c "! ls $dir/core.* 2>/dev/null"
tmux -L "$TMUX_S" resize-window -t "$TMUX_S" -x 80 -y 30 2>/dev/null ||
	tmux -L "$TMUX_S" resize-pane -t "$TMUX_S" -x 80 -y 30

# A resize while a prompt or a confirmation waits: the screen under it is
# drawn again at the new size, the prompt keeps its text, and a resize is
# no answer.
resize() { tmux -L "$TMUX_S" resize-window -t "$TMUX_S" -x "$1" -y "$2" 2>/dev/null ||
	tmux -L "$TMUX_S" resize-pane -t "$TMUX_S" -x "$1" -y "$2"; tui_idle; }
tui_keys C
tui_wait_for "Write the core to:" >/dev/null
tui_keys -l "xyz"
resize 100 35
check "resized prompt: the screen under it drawn at the new size (function bar)" tui_wait_for 'F10'
check "resized prompt: the typed text kept" tui_wait_for "Write the core to: .*core\.ct\.$CP\.[^ ]*xyz *\$"
tui_keys BSpace BSpace BSpace Enter
check "the confirmation" tui_wait_for '\[y/N\] *$' 20
resize 90 30
check "resized confirmation: still asked" tui_wait_for '\[y/N\] *$' 20
check "resized confirmation: the screen under it drawn at the new size" tui_wait_for 'F10'
tui_keys n
check "then n answers no" tui_wait_for 'no core written'
check "still no core written" sh -c "! ls $dir/core.* 2>/dev/null"
tui_keys Escape
tui_keys q
tmux -L "$TMUX_S" kill-server 2>/dev/null

# The line editor: Ctrl-U clears a prefilled value, Ctrl-W the word before
# the cursor; input wider than the screen shows its end.
tui_start 80x30 "$PSCOPE -d 5; echo EXIT=\$?; sleep 60"
tui_wait_for 'Load average' >/dev/null
filter "$dir/ct"
check "the ct target is listed" tui_wait_for "^ +$CP "
tui_keys a
check "a: prefilled with the current CPUs" tui_wait_for "CPUs for PID $CP .*: [0-9][0-9,-]*\$"
tui_keys C-u
check "Ctrl-U clears the prefilled value" tui_wait_for "CPUs for PID $CP \\(0-[0-9]+, e.g. 0,2-3\\): *\$"
tui_keys -l "0 1 2"
tui_keys C-w
check "Ctrl-W deletes the word before the cursor" tui_wait_for "e.g. 0,2-3\\): 0 1 *\$"
tui_keys C-w C-w
check "Ctrl-W again, twice: the line is empty" tui_wait_for "e.g. 0,2-3\\): *\$"
tui_keys -l "$(printf '0,%.0s' $(seq 1 60))0"
tui_keys -l "0END"
check "input wider than the screen: its end shown after a mark" tui_wait_for "CPUs for PID $CP .*: (…|<),?0,0,0.*,00END *\$"
tui_keys C-u
tui_keys -l 0
tui_keys Enter
check "Ctrl-U, 0, Enter: the affinity is set" tui_wait_for "PID $CP now runs on CPU 0"
check "the kernel has CPU 0 only" grep -q '^Cpus_allowed_list:.0$' /proc/$CP/status
tui_keys i
tui_keys C-u
tui_keys -l idle
tui_keys Enter
check "i: Ctrl-U then a new value" tui_wait_for "PID $CP: I/O priority idle"
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
tmux -L "$TMUX_S" kill-server 2>/dev/null

done_testing
