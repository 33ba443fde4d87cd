#!/bin/sh
# The Korean phrasing a student reads (doc/ko/glossary.md): a capability
# set named by what it lacks ("cap_sys_resource 외 전부"), the hardware PMU
# line without an errno read as a sentence, a crash core's header that says
# which thread got which signal, the lock a thread waits for and the
# deadlock's owner whole at 80 columns, and the core prompt's cost with its
# verb. The English stays as it was.
. "$top_srcdir/tests/lib.sh"
export PSCOPE_DATA
need_korean "pscope speaks English whatever the locale"
tmp=$(mktemp -d /tmp/pscope-vocab-ko.XXXXXX)
at_exit "rm -rf $tmp"
KO="env LANG=ko_KR.UTF-8 LC_ALL= LANGUAGE="
EN="env LANG=C LC_ALL=C LANGUAGE="

# ---- a capability set that lacks one: named by what it lacks ----
if setpriv --bounding-set=-sys_resource true 2>/dev/null; then
	setpriv --bounding-set=-sys_resource sh -c 'echo ready; exec sleep 600' >"$tmp/sp.out" 2>&1 &
	SP=$!
	kill_at_exit "$SP"
	wait_until grep -q ready "$tmp/sp.out"
	wait_until sh -c "grep -q '^CapBnd:' /proc/$SP/status && ! grep -q '^Name:.sh' /proc/$SP/status"
	$KO "$PSCOPE" show "$SP" --pane status >"$tmp/caps.ko" 2>&1
	$EN "$PSCOPE" show "$SP" --pane status >"$tmp/caps.en" 2>&1
	check "Korean: the bounding set is everything but cap_sys_resource, the list first" \
		grep -qx 'CapBnd  *cap_sys_resource 외 전부' "$tmp/caps.ko"
	check "English: the same set, as before" grep -qx 'CapBnd  *all except cap_sys_resource' "$tmp/caps.en"
else
	skip "setpriv cannot drop from the bounding set here (needs CAP_SETPCAP)"
	skip "setpriv cannot drop from the bounding set here (needs CAP_SETPCAP)"
fi

# ---- the hardware PMU: supported or not, never "no such file" ----
$KO "$PSCOPE" doors >"$tmp/doors.ko" 2>&1
check "Korean doors: the PMU line says whether the cycles event is there" \
	grep -Eq '^  하드웨어 PMU +(있음: perf_event_open\(cycles\)가 열림|없음: cycles 이벤트 미지원 \(perf_event_open: [A-Z]+\); |알 수 없음: )' "$tmp/doors.ko"
check "... and no errno text stands for the reason" sh -c "! grep -q '하드웨어 PMU .*그런 파일이나 디렉터리' '$tmp/doors.ko'"

command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }

# ---- a crash core: which thread got which signal ----
if command -v gdb >/dev/null; then
	mkdir -p "$tmp/bin"
	cp "$TARGETS/crash" "$tmp/bin/crash"
	gdb -q -batch -ex run -ex "gcore $tmp/crash.core" "$tmp/bin/crash" >"$tmp/gdb.out" 2>&1
	tui_start 80x24 "$KO $PSCOPE -c $tmp/crash.core"
	check "Korean core header: TID N: SIGSEGV 받음 (주소, code: meaning)" \
		tui_wait_for '^ TID [0-9]+: SIGSEGV 받음 \(주소 0x10, SEGV_MAPERR: 매핑되지 않음\)' 150
	tui_keys q
else
	skip "gdb not installed: no crash core to read"
fi

# ---- a deadlock at 80 columns: the lock, the owner and where ----
start_target lab-deadlock || { done_testing; exit 1; }
D=$TPID
tui_start 80x24 "$KO $PSCOPE -p $D"
tui_wait_for "^ PID $D " 150 >/dev/null
tui_keys 5
check "80x24 threads pane: the lock a thread waits for, in Korean word order" \
	tui_wait_for '^TID [0-9]+: 락 [^ ]+ 대기 중' 150
tui_keys s
check "80x24 stacks: the deadlock's owner and its function on a line of their own" \
	tui_wait_for '^    보유자 TID [0-9]+, 위치 transfer\+0x[0-9a-f]+ *$' 150
tui_keys Escape
# ---- the core prompt's cost has its verb (a fork snapshot is offered) ----
tui_keys C
tui_wait_for '^코어 덤프를 쓸 곳: ' 150 >/dev/null
tui_keys Enter
tui_wait_for '\[y/N\]' 150 >/dev/null
if tui_screen | tr -d '\n' | grep -q 'fork 스냅숏: '; then
	check "80x24 core prompt: the fork snapshot's cost as a sentence" \
		tui_wait_for_joined '처음 쓸 때마다 약 [0-9.]+µs씩 더 걸립니다' 150
else
	skip "no fork snapshot offered here: $(tui_screen | tr -d '\n' | grep -o 'fork 아님: [^;]*' | head -1)"
fi
tui_keys n
tui_keys q
done_testing
