#!/bin/sh
# Words on the screen that said too little or said it wrong: a count of one
# is singular ("stopped 1 thread"), v on the Stacks screen says which view
# it shows (and that a C program has only one), p on a C program keeps the
# native table and says why there is no Python view, and the core
# question is sentences with their verbs, in English and Korean.
. "$top_srcdir/tests/lib.sh"

tmp=$(mktemp -d /tmp/pscope-words.XXXXXX)
at_exit "rm -rf $tmp"
start_quiet_target lab-fdleak 100 || exit 1
Q=$TPID
start_target hotline || exit 1
H=$TPID

# The screen's rows joined by one blank (a question wrapped at its blanks
# reads back whole), polled for REGEX.
words() { tui_screen | sed 's/^ *//; s/ *$//' | tr '\n' ' ' | tr -s ' ' | grep -qE "$1"; }
joined_for() { wait_until words "$1"; }

# A single-threaded process: one thread, singular.
tui_start 120x30 "$PSCOPE -p $Q"
tui_wait_for 'lab-fdleak' >/dev/null
tui_keys s
check "the Stacks title: 'stopped 1 thread', not '1 threads'" tui_wait_for "^ Stacks of $Q \(lab-fdleak\): stopped 1 thread for [0-9.]+ ms"
check "no '1 threads' anywhere" sh -c "! $(command -v tmux) -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q ' 1 threads'"
tui_keys v
check "v on a C program says it has native frames only" \
	tui_wait_for 'v changes the view of a CPython process only: this one has native frames only'
check "the target was let go" runs_on_soon $Q
tui_keys Escape

# p on a C program: the native table stays, the reason said.
tui_keys Escape
tui_keys q
tui_start 120x30 "$PSCOPE -p $H"
tui_wait_for 'hotline' >/dev/null
tui_keys h
check "the hot table of a C program" tui_wait_for ' line_work +hotline +hotline\.c:'
tui_keys p
check "p: not a CPython process, said" \
	tui_wait_for "PID $H is not a CPython process \(no _PyRuntime\): no Python view, the native table stays"
check "p: the native table is still there" tui_wait_for ' line_work +hotline +hotline\.c:'
check "p: and still sampled by perf" tui_wait_for '^ event (cpu-clock|cycles|task-clock) '
check "no 'sampling could not start'" sh -c "! $(command -v tmux) -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'sampling could not start'"

# The core question: sentences, the destination last.
tui_keys Escape C
tui_wait_for "Write the core to: " >/dev/null
tui_keys C-u "$tmp/c.core" Enter
check "the core question names the PID first, then the size" \
	joined_for "Write the core of PID $H\? It needs about [0-9.]+ ?[KMG]i?B? on disk \([0-9.]+ ?[KMG]i?B? in all\); [0-9.]+ ?[KMGT]i?B? is free\."
check "the method is a sentence with its verb" \
	joined_for "(It is taken by a fork snapshot: until it is written, each first write of the process to a page takes about [0-9.]+ us longer\.|It is written by .*, not by a fork snapshot: .*\.) File: $tmp/c\.core \[y/N\]"
tui_keys n
check "n: no core written" tui_wait_for 'no core written'
check "and no file" test ! -e "$tmp/c.core"
tui_keys q

# Korean: the same question.
if grep -q '^#define ENABLE_NLS 1' "$top_builddir/config.h" && locale -a 2>/dev/null | grep -qi '^ko_KR\.utf-\?8$'; then
	tui_start 120x30 "env LANG=ko_KR.UTF-8 LC_ALL= LANGUAGE= $PSCOPE -p $H"
	tui_wait_for 'hotline' >/dev/null
	tui_keys C
	tui_wait_for "코어 덤프를 쓸 곳: " >/dev/null
	tui_keys C-u "$tmp/k.core" Enter
	check "Korean: the question has its predicate" \
		joined_for "PID $H의 코어 덤프를 쓸까요\? 디스크에 약 .*가 필요합니다\(전체 .*\)\. 남은 공간은 .*입니다\."
	check "Korean: the fork snapshot's cost, a sentence" \
		joined_for "(약 [0-9.]+µs씩 더 걸립니다\.|로 씁니다: .*\.) 파일: $tmp/k\.core"
	tui_keys n
	check "Korean: no core written" test ! -e "$tmp/k.core"
	tui_keys q
else
	skip "Korean: no NLS or no ko_KR.UTF-8 locale"
	skip "Korean: no NLS or no ko_KR.UTF-8 locale"
	skip "Korean: no NLS or no ko_KR.UTF-8 locale"
fi

# v on a CPython process: the view it switched to, said.
py=/usr/bin/python3.11
[ -x $py ] || py=$(ls -d "$(pyenv root 2>/dev/null || echo /root/.pyenv)"/versions/3.1[0-3].*/bin/python3.1? 2>/dev/null | tail -1)
if [ -n "$py" ] && [ -x "$py" ]; then
	cp "$top_srcdir/tests/targets/py-threads.py" "$_tlinks/py-threads.py"
	"$py" "$_tlinks/py-threads.py" >"$tmp/py.out" 2>&1 &
	P=$!
	kill_at_exit $P
	wait_until grep -q ready "$tmp/py.out"
	py_settled "$P"
	tui_start 200x40 "$PSCOPE -p $P"
	tui_wait_for "PID $P" >/dev/null
	tui_keys s
	tui_wait_for "Stacks of $P .*CPython 3\.[0-9.]+, mixed view" >/dev/null
	tui_keys v
	check "v: 'Python view' said on the status line" tui_wait_for 'Python view: Python frames only; v: native only'
	tui_keys v
	check "v: 'native view' said" tui_wait_for 'native view: C frames only, as gdb shows them; v: mixed'
	tui_keys v
	check "v: back to 'mixed view', said" tui_wait_for "mixed view: each Python frame in place of the interpreter's C frames"
	tui_keys Escape q
else
	skip "no CPython 3.9+ here: v's words on a Python process are not checked"
	skip "no CPython 3.9+ here"
	skip "no CPython 3.9+ here"
fi
check "the targets still run, untraced" runs_on_soon $H
done_testing
