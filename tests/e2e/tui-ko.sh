#!/bin/sh
# The TUI in Korean (LANG=ko_KR.UTF-8) at 80x24 and at 40x12: the list,
# detail panes, stacks, hot functions, doors, help, setup and core prompt
# show their Korean titles and function bar; no Hangul syllable is ever
# split (no placeholder where a cut fell, no partial function-bar entry);
# columns stay aligned next to Korean thread names.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
command -v python3 >/dev/null || { skip "python3 not installed"; done_testing; exit 0; }
export PSCOPE_DATA
need_korean "the TUI is English whatever the locale"
export LC_ALL=C.UTF-8 # tmux and the checks read UTF-8

# A loaded machine may take a while to start pscope or a dump: a
# generous cap (30 s), polled.
see() { tui_wait_for "$1" 150; }

KO="env LANG=ko_KR.UTF-8 LC_ALL= LANGUAGE= $PSCOPE"

# The screen has no split syllable: no replacement character, no
# placeholder '?' against a Hangul syllable (what a byte cut through a
# syllable draws), and no line wider than the terminal. The function bar
# (where "?" is a key before its label) is bar_whole's.
whole() { # whole COLS
	tui_screen | python3 -c '
import re, sys, unicodedata
cols = int(sys.argv[1])
bad = 0
for n, line in enumerate(sys.stdin.read().rstrip("\n").split("\n")[:-1], 1):
    w = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
    if "\ufffd" in line or re.search("\\?[\uac00-\ud7a3]|[\uac00-\ud7a3]\\?[\uac00-\ud7a3]", line) or w > cols:
        print("line %d (%d columns): %r" % (n, w, line)); bad = 1
sys.exit(bad)' "$1"
}

# The character at display column COL of the lines matching REGEX is
# CHAR on every one of them (at least MIN lines): columns aligned.
aligned() { # aligned REGEX COL CHAR MIN
	tui_screen | python3 -c '
import re, sys, unicodedata
rx, col, ch, least = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
n = 0
for line in sys.stdin.read().split("\n"):
    if not re.search(rx, line):
        continue
    x, at = 0, None
    for c in line:
        if x == col:
            at = c
        x += 2 if unicodedata.east_asian_width(c) in "WF" else 1
    print("%r: column %d is %r" % (line, col, at))
    if at != ch:
        sys.exit(1)
    n += 1
sys.exit(n < least)' "$1" "$2" "$3" "$4"
}

# The function bar (last line) holds whole entries only: KEY then one of
# LABELS or nothing (a label given way), a blank between entries.
bar_whole() { # bar_whole LABEL...
	tui_screen | tail -n 1 | python3 -c '
import re, sys
line = sys.stdin.read().rstrip()
alts = "|".join(re.escape(a) for a in sys.argv[1:])
key = "(F[0-9]+|[a-zA-Z?/]|Esc|Enter|Tab|Spc|Space|1-3|[+]-)(%s)?" % alts
m = re.fullmatch("%s( *%s)*" % (key, key), line)
print(repr(line)); sys.exit(not m)' "$@"
}

start_target korean-threads || exit 1
P=$TPID
LIST_LABELS="도움말 설정 검색 필터 트리 정렬 Nice- Nice+ 킬 스택 핫함수 전체핫 코어 권한 종료"

# --- 80x24 ---
tui_start 80x24 "$KO -s pid"
check "80x24 list: Korean meters" see '프로세스 [0-9]+개, 스레드 [0-9]+,'
# the Tasks line wraps rather than lose its running count at 80 columns
check "80x24 list: the running count on screen" see '커널 스레드 [0-9]+; 실행 중 [0-9]+$'
check "80x24 list: load average (평균 부하)" see ' 평균 부하: [0-9]'
check "80x24 list: every key of the function bar, htop's way (no blank after a label)" \
	see '^F1도움말F2설정F3검색F4필터F5트리F6 F7 F8 F9 s스택h핫함수A전체C코어D권한F10종료 *$'
check "80x24 list: htop's column names kept" see '^ +PID.? USER +PRI +NI'
check "80x24 list: nothing split" whole 80
tui_keys F2
check "80x24 setup: Korean title and items" see '^ 설정   위/아래 고르기'
# the title's key hints wrap onto a second row rather than end in "옮"
check "80x24 setup: the title's hints whole" see '^ 옮기기, / 찾기, Esc 완료'
check "80x24 setup: the colour scheme by its Korean name" see '^ 색 구성 +기본 \(default\)'
check "80x24 setup: the Tasks meter" see '\[x\] 프로세스 수'
check "80x24 setup: item names" see '사용자 스레드 숨김'
check "80x24 setup: function bar" see '^Space바꾸기 +F7위로 +F8아래로 +Esc완료'
check "80x24 setup: nothing split" whole 80
tui_keys Escape
tui_keys F1
check "80x24 help: Korean title" see '^ pscope 도움말: 프로세스 '
check "80x24 help: nothing split" whole 80
tui_keys Escape
tui_keys D
check "80x24 doors: Korean title" see '^ 문: 커널이 pscope에 허락하는 것'
check "80x24 doors: function bar" see '^F1도움말 +r검사 +pPID +E보고서 +/검색 +Esc뒤로 +F10종료'
check "80x24 doors: nothing split" whole 80
tui_keys Escape
tui_keys q

tui_start 80x24 "$KO -p $P"
check "80x24 detail: Korean header, the state in Korean" see "^ PID $P 한글스레드  사용자 [^ ]+  S 잠듦 "
check "80x24 detail: Korean pane tabs" see ' 1 상태 \| 2 FD \| 3 맵 \| 4 메모리 \| 5 스레드 '
check "80x24 detail: function bar" see '^F1도움말 +\?키 +Tab창 +s스택 +h핫함수 +C코어 +F5읽기 +Esc뒤로 +F10종료'
check "80x24 status pane: Korean labels" see '^자발적 전환 +[0-9]'
check "80x24 status pane: the state in Korean" see '^상태 +S \(잠듦\)'
check "80x24 detail: nothing split" whole 80
tui_keys 5
check "80x24 threads pane: Korean summary" see '^스레드 4개, 실행 중 [0-9]+개'
check "80x24 threads pane: Korean names" see '작업자-일'
# TID(7) NAME(16) S: the state at column 25 on every row, Korean or not
check "80x24 threads pane: columns aligned after Korean names" \
	aligned '^ +[0-9]+ (한글스레드|작업자-일|작업자-이|ascii-worker) ' 25 S 4
check "80x24 threads pane: nothing split" whole 80
tui_keys s
check "80x24 stacks: Korean title" see "^ $P \\(한글스레드\\)의 스택: 스레드 4개를 [0-9.]+ ms 멈춤"
check "80x24 stacks: function bar" see '^F1도움말 +Enter펼침 +e전체 +l줄 +i인라인 +v보기 +G고루틴 +r다시 +Esc뒤로'
# open the count of the three workers sharing a stack
ty=$(tui_screen | grep -n '이 스택의 스레드 3개' | cut -d: -f1)
tui_keys Home
for _ in $(seq 1 $((${ty:-2} - 2))); do tmux -L "$TMUX_S" send-keys -t "$TMUX_S" Down; done
tui_keys Enter
check "80x24 stacks: thread rows listed" see '^ +TID [0-9]+ +작업자-일'
# "    TID %-7d %-16s %c": the state at column 33 on every thread row
check "80x24 stacks: thread rows aligned after Korean names" \
	aligned '^    TID [0-9]+ ' 33 S 4
check "80x24 stacks: nothing split" whole 80
tui_keys Escape
tui_keys h
check "80x24 hot: Korean title, the sort key by its column" see "^ 핫 함수: PID $P 한글스레드 +구간 10초  정렬: SELF%"
check "80x24 hot: column titles all English, as in the list" see '^ SELF% TOTAL%  SAMPLES  FUNCTION +MODULE +SELF% LAST'
check "80x24 hot: function bar" see '^F1도움말 +Enter호출자 +a소스 +Spc멈춤 +w구간 +s정렬'
check "80x24 hot: a Korean status (an idle target: no samples)" \
	see '(아직 표본 없음|표본 수집을 시작할 수 없음|첫 스냅숏은 1초 뒤에)'
check "80x24 hot: nothing split" whole 80
tui_keys Escape
tui_keys C
check "80x24 core: Korean prompt" see '^코어 덤프를 쓸 곳: '
tui_keys Escape
check "80x24 core: Korean status when declined" see '코어 덤프를 쓰지 않음'
tui_keys q

# --- 40x12 ---
tui_start 40x12 "$KO -s pid"
check "40x12 list: function bar of whole entries" see '^F1도움말'
check "40x12 list: no entry cut at the edge" bar_whole $LIST_LABELS
check "40x12 list: nothing split" whole 40
tui_keys F2
check "40x12 setup: Korean title" see '^ 설정 '
check "40x12 setup: nothing split" whole 40
tui_keys Escape
tui_keys F1
check "40x12 help: Korean title" see '^ pscope 도움말:'
check "40x12 help: nothing split" whole 40
tui_keys Escape
tui_keys D
check "40x12 doors: Korean title" see '^ 문: 커널이'
check "40x12 doors: nothing split" whole 40
tui_keys q

tui_start 40x12 "$KO -p $P"
check "40x12 detail: Korean header" see "^ PID $P 한글스레드  사용자"
check "40x12 detail: no function-bar entry cut at the edge" \
	bar_whole 도움말 키 창 스택 핫함수 코어 읽기 뒤로 종료
check "40x12 detail: nothing split" whole 40
tui_keys 5
check "40x12 threads pane: Korean summary" see '^스레드 4개'
check "40x12 threads pane: columns aligned after Korean names" \
	aligned '^ +[0-9]+ (한글스레드|작업자-일|작업자-이|ascii-worker) ' 25 S 3
check "40x12 threads pane: nothing split" whole 40
tui_keys s
check "40x12 stacks: Korean title" see "^ $P \\(한글스레드\\)의 스택"
check "40x12 stacks: nothing split" whole 40
tui_keys Escape
tui_keys h
check "40x12 hot: Korean title" see '^ 핫 함수: PID'
check "40x12 hot: nothing split" whole 40
tui_keys Escape
tui_keys q

# LANG=C: the same screens in English.
tui_start 120x24 "env LANG=C LC_ALL= LANGUAGE= $PSCOPE -p $P"
check "LANG=C: the detail screen in English" see '^F1Help +\?Keys +TabPane'
check "LANG=C: English pane tabs" see ' 1 Status \| 2 FDs '
tui_keys q
done_testing
