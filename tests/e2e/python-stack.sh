#!/bin/sh
# pscope stack on a Python process of known shape (tests/targets/py-threads.py)
# under every interpreter found: Debian's /usr/bin/python3.11 and each pyenv
# build of 3.9-3.13. Checks names, files, lines, the GIL mark and idle
# markers in the three views; unsupported versions get their one-line
# reason; a hostile process faking _PyRuntime gets "not a readable CPython".
. "$top_srcdir/tests/lib.sh"

src=$top_srcdir/tests/targets/py-threads.py
root=$(pyenv root 2>/dev/null || echo /root/.pyenv)
tmp=$(mktemp -d)
at_exit "rm -rf $tmp"

start_py() { # start_py PYTHON ARGS...: sets TPID once it printed ready
	rm -f "$tmp/out" # the last target's "ready" must not count for this one
	"$@" >"$tmp/out" 2>&1 &
	TPID=$!
	kill_at_exit $TPID
	wait_until grep -q ready "$tmp/out" && return 0
	sed 's/^/#   /' "$tmp/out"
	return 1
}

interp() { # interp LABEL PYTHON
	label=$1 py=$2
	if [ ! -x "$py" ]; then
		skip "$label: $py is not installed"
		return
	fi
	if ! start_py "$py" "$src" || ! py_settled "$TPID"; then
		ok 1 "$label: the target started"
		return
	fi
	for view in mixed python native; do
		# A thread the freeze could not stop in time (a loaded machine) is
		# reported as skipped, without frames: take the dump again then.
		for _ in 1 2 3; do
			"$PSCOPE" stack --json --"$view" "$TPID" >"$tmp/j" 2>"$tmp/err"
			rc=$?
			grep -q '"skipped"' "$tmp/j" || break
			diag "$label --$view: a thread was not stopped in time; again"
		done
		ok $rc "$label: pscope stack --json --$view succeeds"
		check "$label --$view: names, files, lines, GIL, idle markers" python3 "$top_srcdir/tests/python/check-stack.py" "$tmp/j" "$src" "$view"
	done
	"$PSCOPE" stack --python "$TPID" >"$tmp/t" 2>&1
	grep -q "^#0 price_rules ($src:$(grep -n 'LINE:price_rules' "$src" | cut -d: -f1))$" "$tmp/t"
	ok $? "$label: text shows 'price_rules (file:line)' as frame 0"
	grep -q "holds the GIL" "$tmp/t" && grep -q "idle: lock acquire" "$tmp/t"
	ok $? "$label: text marks the GIL holder and the idle threads"
	check "$label: the target runs on after the dump" runs_on_soon "$TPID"
	kill -9 "$TPID"
}

python_wanted 3.11d "Debian python3.11" && interp "Debian python3.11 (stripped, non-PIE)" /usr/bin/python3.11
for minor in 9 10 11 12 13; do
	python_wanted 3.$minor "pyenv 3.$minor" || continue
	py=$(ls -d "$root"/versions/3."$minor".*/bin/python3."$minor" 2>/dev/null | tail -1)
	interp "pyenv 3.$minor" "${py:-$root/versions/3.$minor/bin/python3.$minor}"
done

# Through an explicit dynamic loader: the exe is ld.so, python a mapping.
ld=/lib64/ld-linux-x86-64.so.2
if [ -x /usr/bin/python3.11 ] && [ -x $ld ] && start_py $ld /usr/bin/python3.11 "$src" && py_settled "$TPID"; then
	"$PSCOPE" stack --json "$TPID" >"$tmp/j" 2>"$tmp/err"
	check "started through $ld: Python frames found" python3 "$top_srcdir/tests/python/check-stack.py" "$tmp/j" "$src" mixed
	kill -9 "$TPID"
else
	skip "no /usr/bin/python3.11 or $ld"
fi

# Unsupported versions: a one-line reason, native frames, exit 0.
for v in 3.8 2.7; do
	py=$(ls -d "$root"/versions/"$v".*/bin/python"$v" 2>/dev/null | tail -1)
	if [ -z "$py" ]; then
		skip "CPython $v: not installed"
		continue
	fi
	start_py "$py" -c 'import sys, time; sys.stdout.write("ready\n"); sys.stdout.flush(); time.sleep(600)'
	"$PSCOPE" stack "$TPID" >"$tmp/t" 2>"$tmp/err"
	ok $? "CPython $v: the dump succeeds"
	grep -q "^pscope stack: CPython $v is not supported: native frames only$" "$tmp/err"
	ok $? "CPython $v: 'not supported: native frames only'"
	grep -q "^#0 0x" "$tmp/t"
	ok $? "CPython $v: native frames shown"
	kill -9 "$TPID"
done

# Hostile: _PyRuntime over garbage and loops.
for mode in garbage tloop floop deep debug; do
	start_target py-hostile "$mode" || { ok 1 "hostile $mode: started"; continue; }
	timeout 60 "$PSCOPE" stack "$TPID" >"$tmp/t" 2>"$tmp/err"
	ok $? "hostile $mode: the dump ends normally"
	grep -q "^pscope stack: not a readable CPython: " "$tmp/err"
	ok $? "hostile $mode: 'not a readable CPython: ...'"
	sed 's/^/#   /' "$tmp/err" | head -3
	check "hostile $mode: runs on" runs_on_soon "$TPID"
	kill -9 "$TPID"
done
done_testing
