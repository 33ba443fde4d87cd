# TAP helpers for the end-to-end tests (sourced). Each check is one case.
# Environment from `make check`: PSCOPE, TARGETS, top_srcdir, top_builddir.
: "${PSCOPE:=$top_builddir/pscope}"

# Tests that load the whole machine (thousands of threads or processes, a
# flood of short-lived ones) run alone: they set PSCOPE_HEAVY=1 before
# sourcing this file and take the suite's lock exclusively; every other
# script takes it shared. So `make -j2 check` never starves a test that
# counts samples or waits on a freeze deadline behind such a load.
if [ -z "${_PSCOPE_SUITE_LOCK:-}" ] && [ -n "${top_builddir:-}" ] && command -v flock >/dev/null; then
	_PSCOPE_SUITE_LOCK=1; export _PSCOPE_SUITE_LOCK
	exec flock "$([ -n "${PSCOPE_HEAVY:-}" ] && echo -x || echo -s)" \
		"$top_builddir/tests/.suite.lock" "$(readlink /proc/$$/exe)" "$0" "$@"
fi
# The harness hands the script open files of the build tree (the test's log
# as fd 3, the suite lock, whatever ran make): close them, so the targets a
# test starts do not inherit them and an FDs pane shows only the target's
# own files, whatever the checkout's path (a log under a 200-character path
# was the widest line of the pane). The lock stays held by flock itself.
exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-
_n=0
_failed=0
_cleanups=""

ok() { # ok COND-EXIT-STATUS DESCRIPTION
	_n=$((_n + 1))
	if [ "$1" = 0 ]; then echo "ok $_n - $2"; else echo "not ok $_n - $2"; _failed=$((_failed + 1)); fi
}
check() { # check DESCRIPTION COMMAND...
	local d=$1; shift
	if "$@" >"$_tlinks/check.out" 2>&1; then ok 0 "$d"; else ok 1 "$d"; sed 's/^/#   /' "$_tlinks/check.out" | head -20; fi
	rm -f "$_tlinks/check.out"
}
skip() { _n=$((_n + 1)); echo "ok $_n - # SKIP $1"; }
diag() { echo "# $*"; }
# no_crash_in FILE WHAT: a failure taken to mean "not on this machine"
# (a tier, a door) must not hide a crash: fails if FILE holds a
# sanitizer's report.
no_crash_in() {
	! grep -Eq 'Sanitizer|runtime error:' "$1"
	ok $? "$2: no sanitizer report" || sed 's/^/#   /' "$1"
}
at_exit() { _cleanups="$*; $_cleanups"; }
done_testing() { echo "1..$_n"; }
_finish() { eval "$_cleanups" 2>/dev/null; }
trap _finish EXIT

# pscope keeps its settings in $XDG_CONFIG_HOME/pscope/pscoperc: every test
# gets a scratch one, so no test reads or writes a real configuration.
_xdg=$(mktemp -d /tmp/pscope-xdg.XXXXXX)
export XDG_CONFIG_HOME=$_xdg
chmod 755 "$_xdg" # tests that drop to nobody read it too
at_exit "rm -rf $_xdg"

# Targets start through a short symlink, so their command lines (what the
# TUI tests look for on screen) do not depend on the checkout's path. The
# directory's name is unique on the machine (unlike $$ in a PID namespace):
# the test's scratch files and tmux socket are named after it.
_tlinks=$(mktemp -d /tmp/pst.XXXXXX)
at_exit "rm -rf $_tlinks"

# kill_at_exit PID...: kill -9 each process at the end if it is still the
# same one (its start time unchanged). With a small pid_max a PID comes back
# within seconds on a busy machine; a bare kill of a process that has ended
# would hit another test's, or another suite's.
kill_at_exit() {
	for _p; do at_exit "_kill_same $_p $(_starttime "$_p")"; done
}
_starttime() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }
_kill_same() { [ -n "$2" ] && [ "$(_starttime "$1")" = "$2" ] && kill -9 "$1" 2>/dev/null; }

# Start a target in the background; sets $TPID. Waits until it is running
# (the targets print "ready" on stdout when their state is set up).
start_target() { # start_target NAME ARGS...
	local out
	out=$(mktemp)
	[ -e "$_tlinks/$1" ] || ln -s "$TARGETS/$1" "$_tlinks/$1"
	"$_tlinks/$@" >"$out" 2>&1 &
	TPID=$!
	kill_at_exit "$TPID"
	at_exit "rm -f $out"
	wait_until grep -q ready "$out" && return 0
	diag "target $1 did not get ready"; sed 's/^/#   /' "$out"
	return 1
}

# start_target on a copy of the program in the same short directory: for a
# test that shows the program's own path (/proc/PID/exe) on the screen, such
# as the gdb command of the core screen, so its rows do not depend on the
# checkout's path. Sets $TPID.
start_copied_target() { # start_copied_target NAME ARGS...
	[ -e "$_tlinks/$1" ] || cp "$TARGETS/$1" "$_tlinks/$1" || return 1
	start_target "$@"
}

# A copy of the family target in a directory whose path is longer than a
# screen is wide (under /tmp: the same length wherever the checkout is),
# started as BIN with its output in OUT there; sets DP (its pid) and DEEP
# (the directory). For the long paths of the FDs and Maps panes.
start_deep_family() { # start_deep_family BIN OUT ARGS...
	local bin=$1 out=$2
	shift 2
	DEEP=$(mktemp -d /tmp/pscope-deep.XXXXXX)
	at_exit "rm -rf $DEEP"
	DEEP=$DEEP/$(printf 'p%.0s' $(seq 1 120))
	mkdir -p "$DEEP" && cp "$TARGETS/family" "$DEEP/$bin" || return 1
	"$DEEP/$bin" "$@" >"$DEEP/$out" 2>&1 &
	DP=$!
	kill_at_exit "$DP"
	wait_until grep -q ready "$DEEP/$out"
}

# The Korean tests need NLS built in and the ko_KR.UTF-8 locale; without
# either, one SKIP that says which (and what stays English) ends the script.
need_korean() { # need_korean WHAT-STAYS-ENGLISH
	if ! grep -q '^#define ENABLE_NLS 1' "$top_builddir/config.h"; then
		skip "built with --disable-nls: $1"
		done_testing; exit 0
	fi
	if ! locale -a 2>/dev/null | grep -qi '^ko_KR\.utf-\?8$'; then
		skip "the ko_KR.UTF-8 locale is not generated here (./bootstrap --deps makes it)"
		done_testing; exit 0
	fi
}

# wait_until [-t SECONDS] COMMAND...: the one way a test waits. Runs
# COMMAND (its stderr dropped) every 0.05 s until it succeeds; fails after
# SECONDS (default 60: a cap for a machine that is busy, reached only when
# the check fails).
# Wait for what the check asserts, never sleep a fixed time before a
# positive check (tests/README).
wait_until() {
	local cap=60 i=0 n
	if [ "$1" = -t ]; then cap=$2; shift 2; fi
	n=$(awk -v c="$cap" 'BEGIN { printf "%d", c * 20 }')
	while :; do
		"$@" 2>/dev/null && return 0
		i=$((i + 1))
		[ "$i" -lt "$n" ] || return 1
		sleep 0.05
	done
}
# poll TRIES COMMAND...: wait_until with a cap of TRIES tenths of a second,
# at least the default cap.
poll() {
	local n=$1; shift
	wait_until -t "$(awk -v n="$n" 'BEGIN { print (n / 10 > 60 ? n / 10 : 60) }')" "$@"
}

# A target whose threads all block once set up (stack-threads without
# --probe/--churn, deadlock...): "ready" is printed just before the last
# threads reach their blocking call, so on a loaded machine a dump right
# after it may catch one on its way. Wait until no thread is runnable: every one sits where the test expects it.
wait_quiet() { # wait_quiet PID
	wait_until _quiet "$1" && return 0
	diag "process $1 did not settle (thread states: $(_states "$1"))"
	return 1
}
_states() { cat /proc/$1/task/*/stat 2>/dev/null | sed 's/.*) //' | cut -c1 | sort -u | tr -d '\n'; }
_quiet() { case $(_states "$1") in *R*|"") return 1 ;; esac; }
start_quiet_target() { # start_quiet_target NAME ARGS...: start_target, then wait_quiet
	start_target "$@" && wait_quiet "$TPID"
}

# python_wanted TOKEN LABEL: whether the Python tests run under that
# interpreter (TOKEN 3.9 ... 3.13 for the pyenv builds, 3.11d for Debian's
# /usr/bin/python3.11). All of them, unless PSCOPE_TEST_PYTHONS lists the
# tokens to keep (the sanitizer run of .ci/run keeps one interpreter per
# code path of src/python: 3.11d 3.9 3.12 3.13); one left out is a SKIP.
python_wanted() {
	case " ${PSCOPE_TEST_PYTHONS:-$1} " in
	*" $1 "*) return 0 ;;
	esac
	skip "$2: not in PSCOPE_TEST_PYTHONS ($PSCOPE_TEST_PYTHONS)"
	return 1
}

# tests/targets/py-threads.py prints "ready" once its hot worker runs; on a loaded machine
# the other threads may still be on their way to their blocking calls (or
# waiting for the GIL there). Wait until they are in them, as the kernel
# shows: main, sleeper and selector in a sleep or select (clock_nanosleep,
# select, pselect6, poll) and the locked one in futex() with no timeout (a
# GIL wait has one).
py_settled() { # py_settled PID
	wait_until _py_blocked "$1" && return 0
	diag "the Python threads of $1 did not reach their blocking calls:"
	sed 's/^/#   /' /proc/"$1"/task/*/syscall
	return 1
}
_py_blocked() {
	cat /proc/"$1"/task/*/syscall 2>/dev/null | awk '
		$1 == 7 || $1 == 23 || $1 == 230 || $1 == 270 { s++ }
		$1 == 202 && $5 == "0x0" { f++ }
		END { exit !(s >= 3 && f >= 1) }'
}

# wait_cpu PID TICKS: wait until the process has run TICKS more clock ticks
# (1/100 s each here) on a CPU from now: "sampled long enough for N
# samples" on a machine where it gets only a share of a CPU.
wait_cpu() {
	local t0
	t0=$(_cpu_ticks "$1") || return 1
	wait_until -t 120 sh -c "[ \$((\$(sed 's/.*) //' /proc/$1/stat | cut -d' ' -f12-13 | tr ' ' '+'))) -ge $((t0 + $2)) ]"
}
_cpu_ticks() { # utime + stime
	local f
	f=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f12-13) || return 1
	[ -n "$f" ] && echo $((${f% *} + ${f#* }))
}

# A target's threads all running on: none in t/T, TracerPid 0 for every thread.
target_runs_on() { # target_runs_on PID
	local p=$1
	[ -d /proc/$p/task ] || return 1
	for t in /proc/$p/task/*; do
		tp=$(awk '/^TracerPid/{print $2}' "$t/status" 2>/dev/null) || continue
		[ -n "$tp" ] || continue # the thread exited meanwhile
		[ "$tp" = 0 ] || return 1
		s=$(awk '{ sub(/.*\) /, ""); print substr($0,1,1) }' "$t/stat" 2>/dev/null)
		case $s in t|T) return 1 ;; esac
	done
	return 0
}

# runs_on_soon PID: target_runs_on, polled. Right after a detach a thread
# still shows t until its CPU takes the wakeup (a busy machine, a VM).
runs_on_soon() { wait_until target_runs_on "$1"; }

# tmux session for TUI tests: TMUX_S is the session name; TUI_PANE_PID and
# TUI_PANE_TTY its pane's first process and terminal. Returns once the
# command has drawn something and waits for keys (tui_idle).
tui_start() { # tui_start COLSxROWS COMMAND...
	local size=$1; shift
	# each session starts from the defaults unless the test keeps them
	[ -n "${TUI_KEEP_SETTINGS:-}" ] || rm -f "$XDG_CONFIG_HOME/pscope/pscoperc"
	_tui_n=$((${_tui_n:-0} + 1)) # (sh has no $RANDOM)
	TMUX_S=pscope-test-${_tlinks##*.}-$_tui_n
	tmux -L "$TMUX_S" new-session -d -s "$TMUX_S" -x "${size%x*}" -y "${size#*x}" "$*; sleep 0.5"
	at_exit "tmux -L $TMUX_S kill-server 2>/dev/null"
	set -- $(tmux -L "$TMUX_S" display-message -p -t "$TMUX_S" '#{pane_pid} #{pane_tty}')
	TUI_PANE_PID=$1 TUI_PANE_TTY=$2
	wait_until -t 30 _tui_drawn || diag "tui_start: nothing on the screen after 30 s"
	tui_idle
}
_tui_drawn() { [ -n "$(tui_screen | tr -d ' \n')" ] || ! tui_alive; } # (or it has ended)
# tui_idle [CAP-MS]: wait until the pane's program has read every key sent
# and waits for more (tests/tui-idle.c): what it drew for them is on its
# way to the screen. Before a negative check ("X does not appear") this is
# the wait that proves the keys were taken; a positive check still polls
# (tui_wait_for).
tui_idle() {
	"$top_builddir/tests/tui-idle" "$TUI_PANE_PID" "$TUI_PANE_TTY" "${1:-20000}" 2>&1 | sed 's/^/# /'
}
# tui_keys KEYS...: tmux send-keys, then tui_idle.
tui_keys() { tmux -L "$TMUX_S" send-keys -t "$TMUX_S" "$@"; tui_idle; }
tui_screen() { tmux -L "$TMUX_S" capture-pane -p -t "$TMUX_S"; }
# The screen between two redraws: a capture can land while tmux has taken in
# only part of a redraw (a row's first columns new, the rest old), so take
# captures GAP seconds apart (default 0.1; under the refresh interval) until
# two agree. A row that is wrong on the screen, not just caught mid-draw,
# stays for the whole refresh and is kept.
tui_screen_settled() { # tui_screen_settled [GAP]
	local a b
	[ -z "${TUI_PANE_PID:-}" ] || tui_idle >&2
	a=$(tui_screen)
	for _ in $(seq 1 20); do
		sleep "${1:-0.1}"
		b=$(tui_screen)
		[ "$a" = "$b" ] && break
		a=$b
	done
	printf '%s\n' "$a"
}
# tui_wait_change: wait until the screen differs from what it shows now
# (a refresh has drawn new figures): for "X still holds after a refresh",
# in place of a sleep longer than the refresh interval.
tui_wait_change() { _tui_was=$(tui_screen); wait_until _tui_changed; }
_tui_changed() { [ "$(tui_screen)" != "$_tui_was" ]; }
# The checks on the screen: each polls (wait_until) until what it asserts
# shows, and on failure prints the screen. TRIES, where given, is a cap in
# fifths of a second, raised to the default cap.
_tui_cap() { awk -v n="${1:-0}" 'BEGIN { print (n / 5 > 60 ? n / 5 : 60) }'; }
_tui_fail() { tui_screen | sed 's/^/#   /'; return 1; }
_tui_has() { tui_screen | grep -qE "$1"; }
_tui_has_joined() { tui_screen | sed 's/^ *//' | tr -d '\n' | grep -qE "$1"; }
_tui_has_marked() {
	tmux -L "$TMUX_S" capture-pane -e -p -t "$TMUX_S" | grep -E "$(printf '\033')\\[([0-9]+;)*7m" |
		sed 's/\x1b\[[0-9;]*m//g' | grep -qE "$1"
}
# Is the row right below the line matching REGEX the selected one (drawn in
# reverse video from its first column: run pscope with NO_COLOR=1)?
# capture-pane -e carries attributes over line ends: they are followed.
tui_selected_below() { # tui_selected_below REGEX
	tmux -L "$TMUX_S" capture-pane -e -p -t "$TMUX_S" | RE=$1 perl -ne '
		my $first;
		while (/\G(?:\e\[([0-9;]*)m|(.))/gs) {
			if (defined $1) {
				for my $a (split /;/, $1 eq "" ? "0" : $1) {
					$rev = 0 if $a == 0 || $a == 27;
					$rev = 1 if $a == 7;
				}
			} elsif (!defined $first) {
				$first = $rev;
			}
		}
		(my $t = $_) =~ s/\e\[[0-9;]*m//g;
		if ($below) { $ok = $first; last }
		$below = 1 if $t =~ /$ENV{RE}/;
		END { exit($ok ? 0 : 1) }'
}
tui_marked() { # tui_marked REGEX: a reverse-video (selected) row holds it, its other attributes aside
	wait_until _tui_has_marked "$1" || _tui_fail
}
tui_wait_for() { # tui_wait_for REGEX [TRIES]
	wait_until -t "$(_tui_cap "${2:-}")" _tui_has "$1" || _tui_fail
}
# Same, on the screen's text with each line's leading blanks dropped and
# the lines joined: for text that wraps onto the next rows.
tui_wait_for_joined() { # tui_wait_for_joined REGEX [TRIES]
	wait_until -t "$(_tui_cap "${2:-}")" _tui_has_joined "$1" || _tui_fail
}
# Left, one at a time, until REGEX shows (at most 40): back to the start
# of a view scrolled sideways, and not one Left more.
tui_left_until() { # tui_left_until REGEX
	for _ in $(seq 1 40); do
		_tui_has "$1" && return 0
		tui_keys Left
	done
	_tui_fail
}
tui_alive() { tmux -L "$TMUX_S" has-session -t "$TMUX_S" 2>/dev/null; }
