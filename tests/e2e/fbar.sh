#!/bin/sh
# The function-key bar of every screen: each entry a key and its label with
# a blank between entries; when the labels do not all fit, the brief labels
# (Find for Search), then htop's own look at 80 columns: no blank after a
# label (the colours tell key from label), then F-key labels give way
# (right to left), then the other labels, so every key stays on screen
# while the keys alone fit; the way out (F10 Quit, Esc Back) always shows.
# English and Korean, 200 down to 20 columns: at 80 every key of the list
# keeps a label and nothing is cut.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
export PSCOPE_DATA
export LC_ALL=C.UTF-8 # tmux and the checks read UTF-8

see() { tui_wait_for "$1" 150; }
EN="env LANG=C.UTF-8 LC_ALL= LANGUAGE= $PSCOPE"

# The last line holds KEY... in this order, each KEY followed by its label
# (LABEL, given as KEY=LABEL) and nothing else.
keys_in_order() { # keys_in_order KEY=LABEL...
	tui_screen | tail -n 1 | python3 -c '
import re, sys
line = sys.stdin.read().rstrip()
rx = "".join(re.escape(k) + re.escape(l) for k, l in (a.split("=", 1) for a in sys.argv[1:]))
print(repr(line)); sys.exit(not re.fullmatch(rx, line))' "$@"
}

start_quiet_target stack-threads 3 || exit 1
P=$TPID

# --- the process list, English ---
tui_start 80x24 "$EN -s pid"
check "80x24: every key with its brief label, htop's way (no blank after a label)" \
	see '^F1HelpF2SetF3FindF4FiltF5TreeF6SortF7Ni-F8Ni\+F9KillsStkhHotAAllCCoreDDoorF10Quit *$'
check "80x24: all of F1..F10 and s h A C D, in order, each labelled, within 80 columns" keys_in_order \
	F1=Help F2=Set F3=Find F4=Filt F5=Tree F6=Sort F7=Ni- F8=Ni+ F9=Kill s=Stk h=Hot A=All C=Core D=Door F10=Quit
tui_keys q

tui_start 100x30 "$EN -s pid"
check "100x30: the brief labels, a blank between entries" \
	see '^F1Help F2Set F3Find F4Filt F5Tree F6Sort F7Ni- F8Ni\+ F9Kill sStk hHot AAll CCore DDoor F10Quit *$'
tui_keys q

tui_start 120x30 "$EN -s pid"
check "120x30: every label as it is" \
	see '^F1Help F2Setup F3Search F4Filter F5Tree F6SortBy F7Nice- F8Nice\+ F9Kill sStack hHot AAllHot CCore DDoors F10Quit *$'
tui_keys q

tui_start 200x40 "$EN -s pid"
check "200x40: labels padded as in htop, and a blank after a six-column one" \
	see '^F1Help +F2Setup +F3Search F4Filter F5Tree +F6SortBy F7Nice- +F8Nice\+ +F9Kill +sStack +hHot +AAllHot CCore +DDoors +F10Quit *$'
tui_keys q

tui_start 40x12 "$EN -s pid"
check "40x12: the keys alone do not fit: whole entries from the left, then Quit" \
	see '^F1Help F2Setup F3Search F4Filter F10Quit *$'
tui_keys q

tui_start 20x5 "$EN -s pid"
check "20x5: Help and Quit" see '^F1Help F10Quit *$'
tui_keys q

# --- other screens share the bar ---
tui_start 40x12 "$EN -p $P"
check "40x12 detail: every key, labels dropped (F-keys first), Quit kept" \
	see '^F1 \?KeysTabPanesStkhHotC F5 Esc F10Quit *$'
tui_keys q

tui_start 80x24 "$EN -p $P"
see "PID $P" >/dev/null
tui_keys s
check "80x24 stacks: padded labels, each entry apart" \
	see '^F1Help +EnterOpen +eAll +lLines +iInl +vView +GGoroutines +rAgain +EscBack *$'
tui_keys q

# --- Korean ---
if ! grep -q '^#define ENABLE_NLS 1' "$top_builddir/config.h" || ! locale -a 2>/dev/null | grep -qi '^ko_KR\.utf-\?8$'; then
	skip "Korean: built with --disable-nls or no ko_KR.UTF-8 locale"
	done_testing; exit 0
fi
KO="env LANG=ko_KR.UTF-8 LC_ALL= LANGUAGE= $PSCOPE"

tui_start 80x24 "$KO -s pid"
check "Korean 80x24: every key, the labels of F6..F9 given way, Korean labels measured wide" \
	see '^F1도움말F2설정F3검색F4필터F5트리F6 F7 F8 F9 s스택h핫함수A전체C코어D권한F10종료 *$'
check "Korean 80x24: all of F1..F10 and s h A C D, in order" keys_in_order \
	F1=도움말 F2=설정 F3=검색 F4=필터 F5=트리 "F6= " "F7= " "F8= " "F9= " s=스택 h=핫함수 A=전체 C=코어 D=권한 F10=종료
check "Korean 80x24: the bar is at most 80 columns wide" sh -c \
	"tmux -L $TMUX_S capture-pane -p -t $TMUX_S | tail -n 1 | python3 -c 'import sys, unicodedata; l = sys.stdin.read().rstrip(); sys.exit(sum(2 if unicodedata.east_asian_width(c) in \"WF\" else 1 for c in l) > 80)'"
tui_keys q

tui_start 100x30 "$KO -s pid"
check "Korean 100x30: every key labelled, the short labels, entries apart" \
	see '^F1도움말 F2설정 F3검색 F4필터 F5트리 F6정렬 F7Ni- F8Ni\+ F9킬 s스택 h핫함수 A전체 C코어 D권한 F10종료 *$'
tui_keys q

tui_start 80x24 "$KO -p $P"
see "PID $P" >/dev/null
tui_keys s
check "Korean 80x24 stacks: a six-column label is followed by a blank (i인라인 v보기, G고루틴 r다시)" \
	see '^F1도움말 +Enter펼침 +e전체 +l줄 +i인라인 v보기 +G고루틴 r다시 +Esc뒤로 *$'
tui_keys q

LANGUAGE=ko tui_start 80x24 "env LANGUAGE=ko LANG=ko_KR.UTF-8 LC_ALL= $PSCOPE -s pid"
check "LANGUAGE=ko: the same Korean bar" \
	see '^F1도움말F2설정F3검색F4필터F5트리F6 F7 F8 F9 s스택h핫함수A전체C코어D권한F10종료 *$'
tui_keys q
done_testing
