#!/bin/sh
# The batch commands in Korean: headings, messages and refusals translated,
# columns still lined up by display width (a Hangul syllable takes two
# columns), real plurals; LANG=C keeps them English.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/e2e/detail-lib.sh"

need_korean "no translations"
KO="env LANG=ko_KR.UTF-8 LC_ALL= LANGUAGE="
EN="env LANG=C LC_ALL=C LANGUAGE="
tmp=$(mktemp -d /tmp/pscope-i18n-XXXXXX)
chmod 755 "$tmp"
at_exit "rm -rf $tmp"

# col LINE TEXT: the display column (from 0) where TEXT first starts in LINE.
col() {
	python3 -c 'import sys, unicodedata as u
line, t = sys.argv[1], sys.argv[2]
print(sum(2 if u.east_asian_width(c) in "WF" else 1 for c in line[:line.index(t)]))' "$1" "$2"
}
# line FILE REGEX: the first line of FILE that matches.
line() { grep -m1 -- "$2" "$1"; }

start_detail_target || { done_testing; exit 1; }

# ---- list: the summary in Korean, htop's column names kept ----
$KO "$PSCOPE" list --interval 0 >"$tmp/list.ko" 2>&1
ok $? "list runs under LANG=ko_KR.UTF-8"
check "list: the summary line is Korean" grep -q '^프로세스 [0-9]*개, 스레드 [0-9]*, 커널 스레드 [0-9]*; 실행 중 [0-9]*   평균 부하: ' "$tmp/list.ko"
$EN "$PSCOPE" list --interval 0 >"$tmp/list.en" 2>&1
check "list: the column names stay htop's" test "$(sed -n 3p "$tmp/list.ko")" = "$(sed -n 3p "$tmp/list.en")"
check "list: LANG=C keeps English" grep -q '^Tasks: ' "$tmp/list.en"

# ---- show: Korean labels padded to the same column as the English ones ----
$KO "$PSCOPE" show "$TPID" --pane status >"$tmp/show.ko" 2>&1
ok $? "show --pane status runs in Korean"
check "show: the header line is Korean" grep -q "^PID $TPID (detail-target)  사용자 root  상태 S (잠듦)  스레드 4 " "$tmp/show.ko"
bad=""
for label in 상태 PPid 스레드 '자발적 전환' '비자발적 전환' '마이너 폴트' '메이저 폴트' CapEff Seccomp TracerPid '허용 CPU' '시작 시각'; do
	l=$(line "$tmp/show.ko" "^$label ")
	v=$(printf '%s\n' "$l" | sed "s/^$label  *//")
	[ -n "$l" ] && [ "$(col "$l" "$v")" = 17 ] || bad="$bad [$label: $l]"
done
check "show: every value starts at column 17 after a Korean or English label$bad" test -z "$bad"
check "show: a plural in Korean (Seccomp filters)" grep -q '^Seccomp          0 (꺼짐), 필터 0개$' "$tmp/show.ko"

# ---- cores: the table's Korean header lines up with its rows ----
mkdir -p "$tmp/cores"
$EN "$PSCOPE" core "$TPID" -o "$tmp/cores/core.detail-target.$TPID" >"$tmp/core.en" 2>&1
ok $? "core writes a core to list"
check "core: English text under LANG=C" grep -q '^core written: ' "$tmp/core.en"
$KO "$PSCOPE" cores --pattern "$tmp/cores/core.%e.%p" >"$tmp/cores.ko" 2>&1
ok $? "cores runs in Korean"
h=$(line "$tmp/cores.ko" '^시각 ')
r=$(line "$tmp/cores.ko" "core.detail-target.$TPID")
check "cores: the PID column ends where its heading ends" \
	test "$(($(col "$h" PID) + 3))" = "$(($(col "$r" "$TPID") + ${#TPID}))"
check "cores: the program column starts under 프로그램" test "$(col "$h" 프로그램)" = "$(col "$r" detail-target)"
check "cores: the file column starts under 파일" test "$(col "$h" 파일)" = "$(col "$r" "$tmp/cores/")"
check "cores: the size column ends where 크기 ends" \
	test "$(($(col "$h" 크기) + 4))" = "$(($(col "$r" "$tmp/cores/") - 2))"

# ---- doors: the refusal, its door and fix in Korean, as nobody ----
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	bin=$tmp/bin
	mkdir -p "$bin"
	cp "$PSCOPE" "$bin/pscope"
	cp -r "$top_builddir/po/locale" "$bin/locale"
	chmod -R a+rX "$bin"
	nobody="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all"
	$KO PSCOPE_LOCALEDIR="$bin/locale" $nobody "$bin/pscope" doors "$TPID" >"$tmp/doors.ko" 2>&1
	ok $? "doors PID as nobody runs in Korean"
	check "doors: why, in Korean" grep -q "^      이유:  /proc/$TPID/fd 읽기 불가: 프로세스 ${TPID}은(는) uid 0 소유이고, pscope는 CAP_SYS_PTRACE 없는 uid [0-9]* 권한으로 실행 중$" "$tmp/doors.ko"
	check "doors: the door, in Korean" grep -q '^      문:    CAP_SYS_PTRACE (다른 사용자의 프로세스)$' "$tmp/doors.ko"
	check "doors: the fix, in Korean" grep -q '^      해결:  pscope를 root로 실행하거나, CAP_SYS_PTRACE' "$tmp/doors.ko"
	bad=""
	for op in '/proc 읽기' '메모리 읽기' 'attach (ptrace)' '표본 (perf_event_open)' '코어 덤프 쓰기' '시그널 보내기'; do
		l=$(line "$tmp/doors.ko" "^  $op ")
		[ -n "$l" ] && [ "$(col "$l" 닫힘)" = 28 ] || bad="$bad [$op: $l]"
	done
	check "doors: every operation's state word at column 28$bad" test -z "$bad"
	l=$(line "$tmp/doors.ko" '^  소유자 ')
	check "doors: a Korean key's value at column 37 ($l)" test "$(col "$l" 'uid 0')" = 37
	l=$(line "$tmp/doors.ko" '^  kernel.kptr_restrict ')
	check "doors: an English key's value at column 37 too" test "$(col "$l" ': ')" = 38
	$EN PSCOPE_LOCALEDIR="$bin/locale" $nobody "$bin/pscope" doors "$TPID" >"$tmp/doors.en" 2>&1
	check "doors: LANG=C keeps the English refusal" grep -q "^      why:   cannot read /proc/$TPID/fd: process $TPID belongs to uid 0" "$tmp/doors.en"
else
	skip "doors as nobody: needs root and setpriv"
fi

# ---- stack: real plurals, in both languages ----
$KO "$PSCOPE" stack "$TPID" >/dev/null 2>"$tmp/stack.ko"
check "stack: the pause said with a Korean counter" grep -q '^스레드 4개를 [0-9.]* ms 동안 멈췄습니다$' "$tmp/stack.ko"
sleep 600 &
one=$!
kill_at_exit $one
execed() { [ "$(readlink /proc/$1/exe)" != "$(readlink /proc/$$/exe)" ]; }
wait_until execed $one
$EN "$PSCOPE" stack "$one" >/dev/null 2>"$tmp/stack1.en"
check "stack: English singular for one thread" grep -q '^stopped 1 thread for [0-9.]* ms$' "$tmp/stack1.en"
$EN "$PSCOPE" stack "$TPID" >/dev/null 2>"$tmp/stack.en"
check "stack: English plural for four" grep -q '^stopped 4 threads for [0-9.]* ms$' "$tmp/stack.en"

# ---- usage errors ----
err=$($KO "$PSCOPE" top "$TPID" --freq 5000 2>&1)
check "a bad option value is Korean" test "$err" = "pscope: 잘못된 주파수 '5000' (Hz, 49..3999; Python은 1..1000)
자세한 내용은 'pscope top --help'를 참고하세요."
err=$($EN "$PSCOPE" top "$TPID" --freq 5000 2>&1)
check "... and English under LANG=C" test "$err" = "pscope: invalid frequency '5000' (Hz, 49..3999; 1..1000 for Python)
Try 'pscope top --help' for more information."
done_testing
