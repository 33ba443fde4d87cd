#!/bin/bash
# A command line longer than the 4 KiB the list keeps: the list's COMMAND
# column and `pscope list` end it with a mark that gives its whole length;
# the detail screen's header and Status pane, and the `w` screen, show it
# whole (its last word can be reached).
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }
out=$(mktemp -d /tmp/pscope-cmdl.XXXXXX)
at_exit "rm -rf $out"

# ~59,000 bytes: "family 0 NAME w00001 ... w08400 ENDMARK"
NAME=ps-cl-$$
start_target family 0 "$NAME" $(seq -f 'w%05g' 1 8400) "ENDMARK$$" || exit 1
P=$TPID
whole=$(tr '\0' ' ' </proc/$P/cmdline | sed 's/ $//')
len=${#whole}
check "the command line is longer than 4 KiB ($len bytes)" test "$len" -gt 50000
grouped=$(printf '%d' "$len" | sed ':a; s/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta')
mark=" …[$grouped bytes]"

# pscope list: the first 4095 bytes, then the mark (exactly).
"$PSCOPE" list --columns pid,command --interval 0 >"$out/list.txt" 2>"$out/err.txt"
ok $? "pscope list --columns pid,command exits 0"
line=$(grep -E "^ *$P " "$out/list.txt")
want="$(printf '%7d' "$P") ${whole:0:4095}$mark"
same_line() { # says where the row differs, if it does
	[ "$line" = "$want" ] && return 0
	echo "row of $P: ${#line} characters, want ${#want}; $(grep -cE "^ *$P " "$out/list.txt") rows with that PID"
	printf '%s\n' "$line" | cut -c1-120
	printf '%s\n' "$line" | rev | cut -c1-80 | rev
	return 1
}
check "pscope list: the kept 4095 bytes end with '$mark'" same_line
"$PSCOPE" list --columns pid,command --interval 0 --json >"$out/list.json"
check "pscope list --json: cmdline_truncated and cmdline_bytes" \
	python3 -c "import json,sys; p=[x for x in json.load(open('$out/list.json'))['processes'] if x['pid']==$P]; assert p, 'no row'; p=p[0]; assert p['cmdline_truncated'] is True and p['cmdline_bytes']==$len and len(p['cmdline'])==4095, (p.get('cmdline_truncated'), p.get('cmdline_bytes'), len(p['cmdline']))"
"$PSCOPE" show "$P" >"$out/show.txt"
check "pscope show: the whole command line" grep -qF "Command: $whole" "$out/show.txt"

right() { # right N: N presses of Right, sent in batches
	local n=$1 k
	while [ "$n" -gt 0 ]; do
		k=$((n > 500 ? 500 : n))
		# shellcheck disable=SC2046
		tmux -L "$TMUX_S" send-keys -t "$TMUX_S" $(printf 'Right %.0s' $(seq 1 $k))
		n=$((n - k))
	done
	tui_idle
}

# The list: filtered to the target, Right to the end of its command line.
tui_start 120x30 "env NO_COLOR=1 $PSCOPE; echo EXIT=\$?; sleep 60"
check "list up" tui_wait_for 'PID USER'
tui_keys '\'
tui_keys -l "$NAME"
tui_keys Enter
check "filtered to the long one" tui_wait_for "^ +$P "
check "the mark is not in view before scrolling" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -qF '$mark'"
right 600
check "Right to the end: the list's command line ends with '$mark'" tui_wait_for "${grouped} bytes\]\$"
check "... after the kept bytes (w0058x words), not the marker word" sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -E '^ *$P ' | grep -qE 'w005[0-9]{2}.* …\\[$grouped bytes\\]'"
check "the list never shows the marker word (past 4 KiB)" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q ENDMARK$$"

# w: the whole command line in the text screen (wrapped); End shows its end.
tui_keys w
check "w: the command line screen" tui_wait_for "Command line of PID $P"
tui_keys End
check "w: End shows the marker word at its end (the whole command line)" tui_wait_for "w08400 ENDMARK$$"
tui_keys Escape
check "back on the list" tui_wait_for 'PID USER'

# The detail screen: Enter opens it for the selected (only) row.
tui_keys Enter
check "detail screen up" tui_wait_for "PID $P"
check "the header's command line starts in view" tui_wait_for "family 0 $NAME w00001"
tui_keys /
tui_keys -l "ENDMARK$$"
tui_keys Enter
check "Status pane: '/' marks its Command line and scrolls to the marker word" tui_marked "w08400 ENDMARK$$"
right 7600
check "Right to the end: the header's command line ends with the marker word" tui_wait_for "w08400 ENDMARK$$ *\$"
check "Right to the end: the Status pane's Command row too (two rows)" \
	sh -c "[ \$(tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -c 'w08400 ENDMARK$$') -ge 2 ]"
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
done_testing
