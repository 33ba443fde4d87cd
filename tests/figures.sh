#!/bin/sh
# The hardening figures, measured here and now (make figures):
#   fuzzing      executions and crashes per harness (make fuzz-check)
#   kill tests   targets left stopped or traced, temporary files left
#   scale        peak fds and RSS of pscope list with FIG_PROCS processes
#                (default 10000) and of pscope stack on a FIG_THREADS-thread
#                target (default 10000)
# Big targets run only here; everything is cleaned up on exit.
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}"
: "${PSCOPE:=$top_builddir/pscope}" "${TARGETS:=$top_builddir/tests/targets}"
PROCS=${FIG_PROCS:-10000}
THREADS=${FIG_THREADS:-10000}
tmp=$(mktemp -d /tmp/pscope-figures.XXXXXX)
kids=
cleanup() { for k in $kids; do kill -9 "$k" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM

echo "== fuzzing (${FUZZ_RUNS:-20000} inputs per harness, -seed=1)"
if make -s -C "$top_builddir" fuzz >/dev/null 2>&1; then
	fz=$(sed -n 's/^FUZZERS = //p' "$top_srcdir/tests/fuzz/fuzz.mk")
	# shellcheck disable=SC2086
	sh "$top_srcdir/tests/fuzz/run.sh" "$top_builddir/fuzz-build" "$top_srcdir" -runs="${FUZZ_RUNS:-20000}" -- $fz
else
	echo "fuzzing: not built (make fuzz needs clang)"
fi

echo "== kill tests (pscope SIGKILLed at random points, ${KILL_TRIES:-20} tries each)"
top_srcdir=$top_srcdir top_builddir=$top_builddir PSCOPE=$PSCOPE TARGETS=$TARGETS \
	sh "$top_srcdir/tests/e2e/kill.sh" | sed -n 's/^# kill-figures /  /p; s/^\(not \)\{0,1\}ok [0-9]* - \(no.*left.*\)/  \1\2/p'

# peak PID_TO_WATCH: the most fds and the VmHWM seen while it runs.
peak() {
	pf=0
	while kill -0 "$1" 2>/dev/null; do
		n=$(ls "/proc/$1/fd" 2>/dev/null | wc -l)
		[ "$n" -gt "$pf" ] && pf=$n
		hwm=$(awk '/^VmHWM/{print $2}' "/proc/$1/status" 2>/dev/null)
		[ -n "$hwm" ] && ph=$hwm
		sleep 0.05
	done
	echo "peak fds $pf, peak RSS $((${ph:-0} / 1024)) MiB"
}

echo "== $PROCS processes: pscope list --interval 2"
"$TARGETS/family" "$PROCS" >"$tmp/fam" 2>&1 &
kids="$kids $!"
for _ in $(seq 1 600); do grep -q ready "$tmp/fam" && break; sleep 0.1; done
"$PSCOPE" list --interval 2 >"$tmp/list" 2>&1 &
lp=$!
echo "  pscope list: $(peak $lp) ($(grep -c ps-child "$tmp/list") children listed)"
kill -9 $kids 2>/dev/null
kids=

echo "== a $THREADS-thread target: pscope stack"
"$TARGETS/stack-threads" "$THREADS" >"$tmp/st" 2>&1 &
kids="$!"
for _ in $(seq 1 600); do grep -q ready "$tmp/st" && break; sleep 0.1; done
S=$(awk '/ready/{print $2}' "$tmp/st")
if [ -n "$S" ]; then
	"$PSCOPE" stack "$S" >"$tmp/stack" 2>&1 &
	sp=$!
	echo "  pscope stack: $(peak $sp) ($(awk '/^TID/{n++} END{print n+0}' "$tmp/stack") threads listed, $(grep -c ' threads: ' "$tmp/stack") groups)"
else
	echo "  the $THREADS-thread target did not start (thread limit?)"
fi
