#!/bin/sh
# Python frames from cores of a CPython process of known shape
# (tests/targets/py-threads.py), written by pscope core, by gcore and by
# the kernel, for Debian's /usr/bin/python3.11 and each pyenv 3.9-3.13:
# `pscope stack --core` in the three views gives what the live dump gives
# (names, files, lines, threading names, the GIL, idle marks; checked by
# tests/python/check-stack.py), and `pscope -c` shows them in the TUI. A
# core of a process faking _PyRuntime says "not a readable CPython".
#
# Pairwise, not the full product: every interpreter's core is written by
# all three writers, and the four reads (the three JSON views and the text)
# are spread over them so that every pair of interpreter and view and of
# writer and view is read once (24 reads, not 72).
#
# The kernel writes its cores where /proc/sys/kernel/core_pattern says: the
# test points it at a temporary directory only while a target dies, under
# the lock the other core tests share, and puts the old value back on every
# way out (trap).
. "$top_srcdir/tests/lib.sh"

# Run from a copy under /tmp: the core screen shows the script's path,
# which must not depend on the checkout's (a long one pushed file:line off
# the screen).
src=$_tlinks/py-threads.py
cp "$top_srcdir/tests/targets/py-threads.py" "$src" || exit 1
root=$(pyenv root 2>/dev/null || echo /root/.pyenv)
tmp=$(mktemp -d /tmp/pscope-pycore.XXXXXX)
at_exit "rm -rf $tmp"
LOCK=/tmp/pscope-core_pattern.lock
CP=/proc/sys/kernel/core_pattern
line=$(grep -n 'LINE:price_rules' "$src" | cut -d: -f1)

# start_py PYTHON ARGS...: with `ulimit -c unlimited` (the kernel's core);
# sets TPID once it printed ready.
start_py() {
	# The background shell opens the output itself: the last target's
	# "ready" must be gone before, not after, the first look.
	rm -f "$tmp/out"
	(ulimit -c unlimited && exec "$@") >"$tmp/out" 2>&1 &
	TPID=$!
	kill_at_exit $TPID
	wait_until grep -q ready "$tmp/out" && return 0
	sed 's/^/#   /' "$tmp/out"
	return 1
}

# kernel_core PID FILE: SIGQUIT (dumps core) with core_pattern pointing at
# $tmp/k for the moment it takes; the core is moved to FILE.
kernel_core() {
	pid=$1
	mkdir -p "$tmp/k"
	(
		touch "$LOCK" && exec 9<"$LOCK" || exit 1
		flock -w 120 9 || exit 1
		old=$(cat "$CP") || exit 1
		trap 'printf "%s\n" "$old" >"$CP"' EXIT
		trap 'exit 1' INT TERM HUP
		printf '%s\n' "$tmp/k/core.%p" >"$CP" || exit 1
		kill -QUIT "$pid"
		# The core is whole once the process is a zombie (or gone).
		wait_until sh -c "st=\$(sed 's/.*) //' /proc/$pid/stat 2>/dev/null | cut -c1); [ -z \"\$st\" ] || [ \"\$st\" = Z ]"
		# Put it back and check, still under the lock (the other core
		# tests change it too, under the same lock).
		printf '%s\n' "$old" >"$CP"
		[ "$(cat "$CP")" = "$old" ] && echo yes >"$tmp/cp-back"
	)
	# Never wait on a process the subshell did not end (lock not taken,
	# core_pattern not writable): no core then, said by check_core.
	kill -0 "$pid" 2>/dev/null && [ "$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1)" != Z ] &&
		{ diag "kernel core: PID $pid did not die from SIGQUIT"; kill -9 "$pid"; }
	wait "$pid" 2>/dev/null
	mv "$tmp/k/core.$pid" "$2" 2>/dev/null
}

# check_core LABEL CORE VIEW...: the views (mixed, python, native: the
# JSON against the live checks; text) of the core.
check_core() {
	cl=$1 c=$2
	shift 2
	[ $# -gt 0 ] || return 0
	if [ ! -s "$c" ]; then
		ok 1 "$cl: the core was written"
		return
	fi
	for view; do
		[ "$view" = text ] && continue
		"$PSCOPE" stack --core "$c" --json --"$view" >"$tmp/j" 2>"$tmp/err"
		ok $? "$cl: pscope stack --core --json --$view succeeds"
		check "$cl --$view: names, files, lines, thread names, GIL, idle" \
			python3 "$top_srcdir/tests/python/check-stack.py" "$tmp/j" "$src" "$view"
	done
	case " $* " in *" text "*) ;; *) return 0 ;; esac
	"$PSCOPE" stack --core "$c" --python >"$tmp/t" 2>"$tmp/err"
	check "$cl: text names the interpreter" grep -qxE "CPython 3\.$minor(\.[0-9]+)?" "$tmp/t"
	check "$cl: text shows 'price_rules (file:line)' as frame 0" grep -qx "#0 price_rules ($src:$line)" "$tmp/t"
	check "$cl: nothing said on stderr but the count" \
		grep -qxE "[0-9]+ threads read from the core in [0-9.]+ ms" "$tmp/err"
	grep -qxE "[0-9]+ threads read from the core in [0-9.]+ ms" "$tmp/err" && test "$(wc -l <"$tmp/err")" = 1 ||
		sed 's/^/#   /' "$tmp/err"
}

# views_of N W: the views read from the core of writer W (0 pscope core,
# 1 gcore, 2 the kernel) for the Nth interpreter: view V goes to writer
# (N + V) mod 3, so each writer reads each view for two interpreters and
# each interpreter reads each view once.
views_of() {
	_v=0
	for _name in mixed python native text; do
		[ $((($1 + _v) % 3)) = "$2" ] && printf '%s ' "$_name"
		_v=$((_v + 1))
	done
}

interp() { # interp N LABEL PYTHON
	n=$1 label=$2 py=$3
	if [ ! -x "$py" ]; then
		skip "$label: $py is not installed"
		return
	fi
	minor=$("$py" -c 'import sys; print(sys.version_info[1])')
	# py_settled: every thread in its blocking call before the core (the
	# main thread prints "ready" on its way to its sleep)
	if ! start_py "$py" "$src" || ! py_settled "$TPID"; then
		ok 1 "$label: the target started"
		return
	fi
	# A thread the freeze could not stop in time (a loaded machine) has
	# no registers in the core: take the core again then.
	for _ in 1 2 3; do
		rm -f "$tmp/pscope.core"
		"$PSCOPE" core "$TPID" -o "$tmp/pscope.core" >"$tmp/cout" 2>&1
		rc=$?
		grep -q "could not be stopped" "$tmp/cout" || break
		diag "$label: pscope core could not stop a thread in time; again"
	done
	ok $rc "$label: pscope core wrote a core"
	_f=$_failed
	check_core "$label, pscope core" "$tmp/pscope.core" $(views_of "$n" 0)
	[ "$_f" = "$_failed" ] || sed 's/^/#   pscope core: /' "$tmp/cout"
	if [ "$label" = "$TUI_ON" ]; then
		tui_start 160x50 "$PSCOPE -c $tmp/pscope.core"
		check "$label, pscope -c: CPython named in the title" tui_wait_for "^ Core file .*\| CPython 3\.$minor\.[0-9]+, mixed view \(v\)"
		check "$label, pscope -c: the hot group's chain is its Python functions" tui_wait_for "price_rules <- handle <- worker_hot"
		tui_keys e
		check "$label, pscope -c: Python frames with file:line" tui_wait_for "py +price_rules +\(.*py-threads\.py:$line\)"
		check "$label, pscope -c: threading names" tui_wait_for "\[MainThread\]"
		tui_keys v
		check "$label, pscope -c: v, the Python view" tui_wait_for "CPython 3\.[0-9.]+, Python view"
		tui_keys q
	fi
	rm -f "$tmp/pscope.core"
	if command -v gcore >/dev/null; then
		gcore -o "$tmp/g" "$TPID" >/dev/null 2>&1
		mv "$tmp/g.$TPID" "$tmp/gcore.core" 2>/dev/null
		check_core "$label, gcore" "$tmp/gcore.core" $(views_of "$n" 1)
		rm -f "$tmp/gcore.core"
	else
		skip "$label, gcore: gdb is not installed"
	fi
	if [ -w "$CP" ]; then
		rm -f "$tmp/cp-back"
		kernel_core "$TPID" "$tmp/kernel.core"
		check "core_pattern is back as it was" test -f "$tmp/cp-back"
		check_core "$label, kernel core" "$tmp/kernel.core" $(views_of "$n" 2)
		rm -f "$tmp/kernel.core"
	else
		skip "$label, kernel core: core_pattern is not writable here"
	fi
	kill -9 "$TPID" 2>/dev/null
}

TUI_ON=
command -v tmux >/dev/null && TUI_ON="Debian python3.11"
python_wanted 3.11d "Debian python3.11" && interp 0 "Debian python3.11" /usr/bin/python3.11
for m in 9 10 11 12 13; do
	python_wanted 3.$m "pyenv 3.$m" || continue
	py=$(ls -d "$root"/versions/3."$m".*/bin/python3."$m" 2>/dev/null | tail -1)
	interp $((m - 8)) "pyenv 3.$m" "${py:-$root/versions/3.$m/bin/python3.$m}"
done

# Hostile: a core of a process whose _PyRuntime is garbage or loops.
for mode in garbage tloop floop deep debug; do
	start_target py-hostile "$mode" || { ok 1 "hostile $mode: started"; continue; }
	"$PSCOPE" core "$TPID" -o "$tmp/h.core" >/dev/null 2>&1
	kill -9 "$TPID"
	timeout 60 "$PSCOPE" stack --core "$tmp/h.core" >"$tmp/t" 2>"$tmp/err"
	ok $? "hostile $mode core: the dump ends normally"
	check "hostile $mode core: 'not a readable CPython: ...'" grep -q "^pscope stack: not a readable CPython: " "$tmp/err"
	check "hostile $mode core: native frames shown" grep -q "^#0 0x" "$tmp/t"
	rm -f "$tmp/h.core"
done
done_testing
