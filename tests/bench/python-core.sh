#!/bin/sh
# Python frames from a core: the core of a CPython process of known shape
# (tests/targets/py-threads.py, pyenv 3.13: its python3.13-gdb.py gives
# gdb the py-bt command), read by `pscope stack --core --python` and by
# `gdb -batch -ex 'thread apply all py-bt'`, in the same run; then the same
# core compressed by zstd, xz and lz4 (systemd-coredump's forms) against
# the plain one. Prints best and median wall time of RUNS runs (gdb:
# GDB_RUNS) and the ratios of the medians. No goal: figures for the README.
: "${PSCOPE:=$top_builddir/pscope}"
: "${top_srcdir:=.}"
RUNS=${RUNS:-7}
GDB_RUNS=${GDB_RUNS:-3}
root=$(pyenv root 2>/dev/null || echo /root/.pyenv)
PY=${BENCH_PYTHON:-$(ls -d "$root"/versions/3.13.*/bin/python3.13 2>/dev/null | tail -1)}
tmp=$(mktemp -d /tmp/pscope-bench-pycore.XXXXXX)
tpid=
trap '[ -n "$tpid" ] && kill -9 $tpid 2>/dev/null; rm -rf $tmp' EXIT

if [ -z "$PY" ] || [ ! -x "$PY" ]; then
	echo "no CPython 3.13 (pyenv) here: BENCH_PYTHON=/path/to/python3.X runs it with another"
	exit 0
fi
. "$(dirname "$0")/core-lib.sh"
core_of "the Python target" "$PY" "$top_srcdir/tests/targets/py-threads.py"

pyframes=$("$PSCOPE" stack --no-group --python --core "$tmp/core" 2>/dev/null | grep -c '^#')
echo "--- core of py-threads.py under $("$PY" -V 2>&1) ($(du -h "$tmp/core" | cut -f1) on disk): wall ms, best and median"
us "$PSCOPE" stack --no-group --python --core "$tmp/core" >/dev/null
set -- $(stats "$RUNS" "$PSCOPE" stack --no-group --python --core "$tmp/core")
ps_med=$2
printf '%-10s %10s %10s   (%s Python frames)\n' pscope "$(ms "$1")" "$(ms "$2")" "$pyframes"
gdbpy=${PY}-gdb.py
gdb_med=0
if command -v gdb >/dev/null && [ -f "$gdbpy" ]; then
	set -- $(stats "$GDB_RUNS" gdb -q -batch -ex "source $gdbpy" -ex 'thread apply all py-bt' "$PY" "$tmp/core")
	gdb_med=$2
	printf '%-10s %10s %10s   (%s Python frames)\n' "gdb py-bt" "$(ms "$1")" "$(ms "$2")" \
		"$(gdb -q -batch -ex "source $gdbpy" -ex 'thread apply all py-bt' "$PY" "$tmp/core" 2>/dev/null | grep -c '^  File ')"
	awk -v p="$ps_med" -v g="$gdb_med" 'BEGIN { printf "wall: pscope / gdb py-bt = %.3fx\n", p / g }'
else
	echo "gdb or $gdbpy missing: no gdb figure"
fi

echo "--- the same core compressed (systemd-coredump's forms): wall ms, best and median"
for z in zstd xz lz4; do
	command -v $z >/dev/null || { echo "$z: not installed"; continue; }
	$z -q -c "$tmp/core" >"$tmp/core.$z"
	us "$PSCOPE" stack --no-group --python --core "$tmp/core.$z" >/dev/null
	set -- $(stats "$RUNS" "$PSCOPE" stack --no-group --python --core "$tmp/core.$z")
	printf '%-10s %10s %10s   (%s compressed) = %.2fx the plain core\n' "$z" "$(ms "$1")" "$(ms "$2")" \
		"$(du -h "$tmp/core.$z" | cut -f1)" "$(awk -v a="$2" -v b="$ps_med" 'BEGIN { print a / b }')"
done
