#!/bin/bash
# '/' in a text pane marks the matched text itself, as less does: the line
# holding it stays in the selection bar, the match is drawn apart from the
# bar (bold, out of reverse video), after Korean (wide) text and past the
# right edge (the pane scrolls sideways to show it), also when the search
# text is Korean. And Right stops where the widest line on screen ends, in
# the list, a table pane (FDs) and a text pane (Status): once the end of
# the longest line shows, more Right moves nothing, and one Left moves
# the view back at once. A view that marks the whole line, or scrolls into
# empty space, fails here.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }
command -v python3 >/dev/null || { skip "python3 not installed"; done_testing; exit 0; }

# The attributes of the screen's characters, from the SGR sequences of
# tmux's capture-pane -e. "marked NEEDLE": on the row holding NEEDLE, each
# character of NEEDLE (every occurrence on that row) is bold and not in
# reverse video, and every other non-blank character of the row is in
# reverse video (the bar). "plain NEEDLE": the row holding it is neither.
attrs_py=$(mktemp /tmp/pscope-ts.XXXXXX)
at_exit "rm -f $attrs_py"
cat >"$attrs_py" <<'PY'
import re, sys
mode, needle = sys.argv[1], sys.argv[2]
for raw in sys.stdin.read().split("\n"):
    text, attrs, bold, rev = "", [], False, False
    for part in re.split(r"(\x1b\[[0-9;]*m)", raw):
        m = re.fullmatch(r"\x1b\[([0-9;]*)m", part)
        if not m:
            text += part
            attrs += [(bold, rev)] * len(part)
            continue
        codes = [int(c) if c else 0 for c in m.group(1).split(";")]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0: bold = rev = False
            elif c == 1: bold = True
            elif c == 22: bold = False
            elif c == 7: rev = True
            elif c == 27: rev = False
            elif c in (38, 48): i += 2 if i + 1 < len(codes) and codes[i + 1] == 5 else 4
            i += 1
    if needle not in text:
        continue
    inside = set()
    for m in re.finditer(re.escape(needle), text):
        inside.update(range(m.start(), m.end()))
    if mode == "plain":
        good = not any(attrs[i][0] or attrs[i][1] for i in range(len(text)) if not text[i].isspace())
        if good:
            sys.exit(0)
        print("#   row %r: still marked" % text.rstrip())
        continue
    ok_in = all(attrs[i] == (True, False) for i in inside)
    ok_out = all(attrs[i][1] for i in range(len(text)) if i not in inside and not text[i].isspace())
    if ok_in and ok_out:
        sys.exit(0)
    print("#   row %r: match %s, rest of the row %s" % (text.rstrip(), "marked" if ok_in else "NOT marked",
          "in the bar" if ok_out else "NOT in the bar"))
sys.exit(1)
PY
_attrs_are() { tmux -L "$TMUX_S" capture-pane -e -p -t "$TMUX_S" | python3 "$attrs_py" "$1" "$2" >"$_tlinks/ts.why"; }
attrs_are() { # attrs_are marked|plain NEEDLE (polled)
	wait_until _attrs_are "$1" "$2" && return 0
	cat "$_tlinks/ts.why"
	tui_screen | sed 's/^/#   /'
	return 1
}
search() { # search TEXT: '/', clear the prompt, type, Enter
	tui_keys /
	for _ in $(seq 1 70); do tmux -L "$TMUX_S" send-keys -t "$TMUX_S" BSpace; done
	tui_keys -l "$1"
	tui_keys Enter
}
# Column of the first REGEX on screen, on a row that matches ROW (-1: not
# shown).
col_of() { # col_of REGEX [ROW]
	tui_screen | python3 -c '
import re, sys, unicodedata
for line in sys.stdin.read().split("\n"):
    m = re.search(sys.argv[1], line)
    if m and re.search(sys.argv[2], line):
        print(sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line[:m.start()])); sys.exit(0)
print(-1)' "$1" "${2:-}"; }
_col_at() { [ "$(col_of "$1" "${3:-}")" = "$2" ]; }
col_is() { # col_is REGEX COL [ROW]: REGEX shows at COL (polled)
	[ "$2" -ge 0 ] || { diag "$1 was not on screen to begin with"; return 1; }
	wait_until _col_at "$@" && return 0
	diag "$1 at column $(col_of "$1" "${3:-}"), wanted $2"
	tui_screen | sed 's/^/#   /'
	return 1
}
# The column of REGEX once the keys sent are all taken (keys_n waits for
# that): the same twice in a row, 0.1 s apart (polled, a generous cap).
settled_col() { # settled_col REGEX [ROW]
	local a b
	b=$(col_of "$1" "${2:-}")
	for _ in $(seq 1 600); do
		sleep 0.1
		a=$b
		b=$(col_of "$1" "${2:-}")
		[ "$a" = "$b" ] && [ "$b" != -1 ] && break
	done
	echo "$b"
}
keys_n() { # keys_n KEY N
	for _ in $(seq 1 "$2"); do tmux -L "$TMUX_S" send-keys -t "$TMUX_S" "$1"; done
	tui_idle
}

# A process whose command line is Korean (60 syllables, 120 columns) and
# then a marked word, past the right edge of a 100-column terminal; it
# ends with TAILMARK, and MIDMARK stands 13 columns before that (in view
# whenever the end is, and 8 columns further right still in view, even in
# the list's command column).
HAN=$(python3 -c 'print("가나다라마바사아자차" * 6)')
ARG="ps-ts-$$-$HAN-NEEDLE-끝말잇기-MIDMARK-xxxx-TAILMARK"
start_target family 0 "$ARG" || exit 1 # no child: one row in the list
P=$TPID

# 70 rows: the whole Status pane in view, so Up (which ends the search)
# scrolls nothing away.
tui_start 100x70 "env NO_COLOR=1 $PSCOPE -p $P; echo EXIT=\$?; sleep 60"
check "detail screen up (Status pane)" tui_wait_for "PID $P"
check "the Status pane fits: its first line and its command line both show" wait_until sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q '^State ' && tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q '^Command .*ps-ts-$$'"
check "the marked word is past the right edge" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q NEEDLE"
search NEEDLE
check "/NEEDLE: the pane scrolls sideways to the match, after the Korean text" tui_wait_for "차가나다라마바사아자차-NEEDLE-끝말"
check "/NEEDLE: the match itself is marked, the rest of its line in the bar" attrs_are marked NEEDLE
search 끝말잇기
check "/ with Korean text: the match is found and marked" attrs_are marked 끝말잇기
search mARK
check "/ is case-insensitive; only the matched letters are marked" attrs_are marked MARK
tui_keys Up
check "a key that moves: the marks are gone" attrs_are plain NEEDLE

# Right in the text pane stops where its longest line ends.
check "Left: back to the line starts" tui_left_until "^State +S"
check "the header at its start too" tui_wait_for "^ PID $P"
keys_n Right 60
check "text pane: many Right, the end of the longest line still shows" tui_wait_for "TAILMARK"
c=$(settled_col MIDMARK)
keys_n Right 5
check "text pane: more Right moves nothing" col_is MIDMARK "$c"
tui_keys Left
check "text pane: one Left moves the view back at once" col_is MIDMARK "$((c + 8))"
check "Left: back to the start" tui_left_until "^State +S"
tui_keys Escape
check "back on the list" tui_wait_for 'PID USER'

# The list: the same on the command column.
tui_keys '\'
tui_keys -l "ps-ts-$$"
tui_keys Enter
check "filtered to the long one" tui_wait_for "^ +$P "
tui_keys Left
check "list: Left at the left edge changes nothing" wait_until sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'PID USER' && ! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'scrolled'"
keys_n Right 60
check "list: many Right, the end of the command line still shows" tui_wait_for "TAILMARK"
c=$(settled_col MIDMARK "^ +$P ")
keys_n Right 5
check "list: more Right moves nothing" col_is MIDMARK "$c" "^ +$P "
tui_keys Left
check "list: one Left moves the view back at once" col_is MIDMARK "$((c + 8))" "^ +$P "
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'

# A table pane: the FDs of a process whose output file has a path longer
# than the screen.
start_deep_family fam o-FDMID-xxxxxxxxxxxx-FDEND 0 "ps-tsd-$$"
tui_start 100x40 "env NO_COLOR=1 $PSCOPE -p $DP; echo EXIT=\$?; sleep 60"
check "detail screen up (deep paths)" tui_wait_for "PID $DP"
tui_keys 2
check "FDs pane up" tui_wait_for 'pppppppp'
keys_n Right 60
check "FDs pane: many Right, the end of the longest path still shows" tui_wait_for "xxxx-FDEND"
c=$(settled_col FDMID)
keys_n Right 5
check "FDs pane: more Right moves nothing" col_is FDMID "$c"
tui_keys Left
check "FDs pane: one Left moves the view back at once" col_is FDMID "$((c + 8))"
tui_keys q
check "q: exit 0 (deep paths)" tui_wait_for '^EXIT=0'
done_testing
