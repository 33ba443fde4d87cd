#!/bin/sh
# The function-key bar of every screen: each entry a key and its label with
# a blank between entries; when the labels do not all fit, F-key labels give
# way first (right to left), then the other labels, so every key stays on
# screen while the keys alone fit; the way out (F10 Quit, Esc Back) always
# shows. English and Korean, 200 down to 20 columns.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
export PSCOPE_DATA
export LC_ALL=C.UTF-8 # tmux and the checks read UTF-8

see() { tui_wait_for "$1" 150; }
EN="env LANG=C.UTF-8 LC_ALL= LANGUAGE= $PSCOPE"

# The last line holds KEY... in this order, each KEY followed by its label
# or nothing, one blank between entries, nothing else.
keys_in_order() { # keys_in_order KEY...
	tui_screen | tail -n 1 | python3 -c '
import re, sys
line = sys.stdin.read().rstrip()
rx = " ".join(re.escape(k) + "[^ ]*" for k in sys.argv[1:])
print(repr(line)); sys.exit(not re.fullmatch(rx, line))' "$@"
}
LIST_KEYS="F1 F2 F3 F4 F5 F6 F7 F8 F9 s h A C D F10"

start_quiet_target stack-threads 3 || exit 1
P=$TPID

# --- the process list, English ---
tui_start 80x24 "$EN -s pid"
check "80x24: every key, F-key labels dropped right to left, a blank between entries" \
	see '^F1Help F2Setup F3 F4 F5 F6 F7 F8 F9 sStack hHot AAllHot CCore DDoors F10Quit *$'
check "80x24: all of F1..F10 and s h A C D, in order" keys_in_order $LIST_KEYS
tui_keys q

tui_start 100x30 "$EN -s pid"
check "100x30: three F-key labels dropped" \
	see '^F1Help F2Setup F3Search F4Filter F5Tree F6SortBy F7 F8 F9 sStack hHot AAllHot CCore DDoors F10Quit *$'
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
	see '^F1 \?Keys TabPane s h C F5 Esc F10Quit *$'
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
check "Korean 80x24: every key, a blank between entries, Korean labels measured wide" \
	see '^F1도움말 F2설정 F3 F4 F5 F6 F7 F8 F9 s스택 h핫함수 A전체핫 C코어 D권한 F10종료 *$'
check "Korean 80x24: all of F1..F10 and s h A C D, in order" keys_in_order $LIST_KEYS
tui_keys q

tui_start 100x30 "$KO -s pid"
check "Korean 100x30: every label but the F-keys' that give way (F8, F9)" \
	see '^F1도움말 F2설정 F3검색 F4필터 F5트리 F6정렬 F7Nice- F8 F9 s스택 h핫함수 A전체핫 C코어 D권한 F10종료 *$'
tui_keys q

tui_start 80x24 "$KO -p $P"
see "PID $P" >/dev/null
tui_keys s
check "Korean 80x24 stacks: a six-column label is followed by a blank (i인라인 v보기, G고루틴 r다시)" \
	see '^F1도움말 +Enter펼침 +e전체 +l줄 +i인라인 v보기 +G고루틴 r다시 +Esc뒤로 *$'
tui_keys q

LANGUAGE=ko tui_start 80x24 "env LANGUAGE=ko LANG=ko_KR.UTF-8 LC_ALL= $PSCOPE -s pid"
check "LANGUAGE=ko: the same Korean bar" \
	see '^F1도움말 F2설정 F3 F4 F5 F6 F7 F8 F9 s스택 h핫함수 A전체핫 C코어 D권한 F10종료 *$'
tui_keys q
done_testing
