#!/bin/sh
# A process that execs in the middle of an operation: the stack dump, the
# core, sampling (pscope top and the hot screen) and an open detail screen
# give the old program's results or say "exec'd", never a mix of the two.
# Each exec happens at a known point: pscope waits at a named step
# (PSCOPE_TEST_PAUSE) until the test made the target exec.
. "$top_srcdir/tests/lib.sh"
T=$(mktemp -d /tmp/pscope-exec.XXXXXX)
at_exit "rm -rf $T"
# The program it execs into: the same one under another name (the new comm).
ln -s "$TARGETS/execer" "$T/execed"

# wait_for_text FILE TEXT: polled, 20 s cap
wait_for_text() {
	for _ in $(seq 1 400); do
		grep -qF "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	diag "no '$2' in $1:"; sed 's/^/#   /' "$1"
	return 1
}
# make_exec PID: SIGUSR1, then wait until it runs the new program
make_exec() {
	kill -USR1 "$1"
	for _ in $(seq 1 400); do
		[ "$(cat /proc/$1/comm 2>/dev/null)" = execed ] && return 0
		sleep 0.05
	done
	diag "process $1 did not exec"
	return 1
}
# run_paused STEP OUT ERR PSCOPE-ARGS...: pscope in the background, paused
# at STEP until $T/go exists; sets BG
run_paused() {
	local step=$1 o=$2 e=$3; shift 3
	rm -f "$T/go"
	PSCOPE_TEST_PAUSE=$step PSCOPE_TEST_PAUSE_FILE=$T/go "$PSCOPE" "$@" >"$o" 2>"$e" &
	BG=$!
	kill_at_exit $BG
}

# ---- stack dump: the exec between the open and the freeze ----
start_quiet_target execer --exec-to "$T/execed" || { done_testing; exit 1; }
P=$TPID
run_paused before-freeze "$T/out" "$T/err" stack "$P"
check "stack: paused before the freeze" wait_for_text "$T/err" "pscope: paused at before-freeze"
check "the target execs meanwhile" make_exec "$P"
touch "$T/go"
wait "$BG"
check "stack: exit 1" test $? = 1
printf '%s\n' "pscope stack: process $P exec'd during the stack dump (it now runs execed): nothing is shown, as it would mix two programs; run it again" >"$T/want"
check "stack: the exact message" sh -c "grep -v '^pscope: paused at' '$T/err' | diff '$T/want' -"
check "stack: nothing on stdout" test ! -s "$T/out"
check "target runs on" runs_on_soon "$P"
wait_quiet "$P"
"$PSCOPE" stack "$P" >"$T/out2" 2>/dev/null
check "a dump after the exec shows the new program" grep -qE '^2 threads: .*after_wait <- worker' "$T/out2"
check "and nothing of the old one" sh -c "! grep -q before_wait '$T/out2'"
kill -9 "$P"

# ---- core: the exec between reading the maps and the freeze ----
start_quiet_target execer --exec-to "$T/execed" || { done_testing; exit 1; }
P=$TPID
mkdir "$T/cores"
run_paused before-freeze "$T/out" "$T/err" core "$P" -o "$T/cores/c"
check "core: paused before the freeze" wait_for_text "$T/err" "pscope: paused at before-freeze"
check "the target execs meanwhile" make_exec "$P"
touch "$T/go"
wait "$BG"
check "core: exit 1" test $? = 1
printf '%s\n' "pscope core: process $P exec'd during the core dump (it now runs execed): nothing is shown, as it would mix two programs; run it again" >"$T/want"
check "core: the exact message" sh -c "grep -v '^pscope: paused at' '$T/err' | diff '$T/want' -"
check "core: no file, no temporary file" test -z "$(ls -A "$T/cores")"
check "target runs on" runs_on_soon "$P"
kill -9 "$P"

# ---- pscope top: sampling ends at the exec with the old program's table ----
start_target execer --spin --exec-to "$T/execed" || { done_testing; exit 1; }
P=$TPID
rm -f "$T/go"
PSCOPE_TEST_PAUSE=sampling PSCOPE_TEST_PAUSE_MS=1 "$PSCOPE" top "$P" --duration 60 >"$T/out" 2>"$T/err" &
BG=$!
kill_at_exit $BG
check "top: sampling started" wait_for_text "$T/err" "pscope: paused at sampling"
# Let it sample the old program: until the target used 0.5 s more CPU.
ticks() { awk '{ sub(/.*\) /, ""); split($0, f, " "); print f[12] + f[13] }' /proc/$P/stat; }
t0=$(ticks)
for _ in $(seq 1 600); do [ $(($(ticks) - t0)) -ge 50 ] && break; sleep 0.05; done
check "the target execs while sampled" make_exec "$P"
for _ in $(seq 1 400); do kill -0 "$BG" 2>/dev/null || break; sleep 0.05; done
check "top: ends at the exec, not at --duration" sh -c "! kill -0 $BG 2>/dev/null"
wait "$BG"
ok $? "top: exit 0 (the old program's table)"
check "top: says it exec'd" grep -qE "^pscope top: after [0-9.]+ s, the process exec'd \(it now runs execed\): the table covers the program before$" "$T/err"
check "top: the old program's hot function" grep -q 'before_spin' "$T/out"
check "top: none of the new one's" sh -c "! grep -q 'after_spin' '$T/out'"
kill -9 "$P"

# ---- the TUI: an open detail screen, the hot screen ----
start_quiet_target execer --exec-to "$T/execed" || { done_testing; exit 1; }
P=$TPID
tui_start 140x40 "PSCOPE_DATA=$top_srcdir/data $PSCOPE -d 5 -p $P"
check "TUI: detail screen" tui_wait_for "PID $P execer "
make_exec "$P"
check "TUI: the detail screen says it exec'd and freezes" \
	tui_wait_for "process $P exec'd \(it now runs execed\); showing the last data, frozen"
tui_keys q
kill -9 "$P"

start_target execer --spin --exec-to "$T/execed" || { done_testing; exit 1; }
P=$TPID
tui_start 140x40 "PSCOPE_DATA=$top_srcdir/data $PSCOPE -d 5 -p $P"
check "TUI: detail screen (spinning target)" tui_wait_for "PID $P execer "
tui_keys h
check "TUI hot screen: the old program's hot function" tui_wait_for "before_spin" 100
make_exec "$P"
check "TUI hot screen: sampling stops, saying it exec'd" \
	tui_wait_for_joined "PID $P: the process exec'd \(it now runs execed\): the table covers the program before; sampling stopped" 100
check "TUI hot screen: none of the new program" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q after_spin"
tui_keys Escape q
kill -9 "$P"

done_testing
