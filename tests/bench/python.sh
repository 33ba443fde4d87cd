#!/bin/sh
# Python benchmarks, each next to its anchor in the same run:
#  1. the CPython sampler (pscope top on a 10-thread py-work.py, 20 s) at
#     100 Hz and 1000 Hz: the target's work rate vs an unsampled run of the
#     same length (goal at 100 Hz: within 1%), and pscope's CPU time as a
#     share of one core (goal at 100 Hz: under 2%);
#  2. the stack dump of a 200-thread Python process: the pause with the
#     Python frame chains read vs the native-only dump of the same process
#     (PSCOPE_NO_PYTHON=1), and the part of the pause spent reading chains
#     (goal: no more than 5 ms more).
# Interpreter: /usr/bin/python3.11, else the newest pyenv build; none: skip.
: "${PSCOPE:=$top_builddir/pscope}"
src=${top_srcdir:-.}/tests/targets/py-work.py
RUNS=${RUNS:-3}
SECS=${SECS:-20}
py=/usr/bin/python3.11
[ -x $py ] || py=$(ls -d "$(pyenv root 2>/dev/null || echo /root/.pyenv)"/versions/3.1[0-3].*/bin/python3.1? 2>/dev/null | tail -1)
if [ -z "$py" ] || [ ! -x "$py" ]; then
	echo "python bench: SKIP (no CPython 3.9+ on this machine)"
	exit 0
fi
tmp=$(mktemp -d /tmp/pscope-bench-python.XXXXXX)
tpid=
trap '[ -n "$tpid" ] && kill -9 $tpid 2>/dev/null; rm -rf $tmp' EXIT

# work [HZ]: one run of the work target, sampled at HZ when given.
# Prints "WORK PSCOPE_CPU_SECONDS".
work() {
	"$py" "$src" work 10 "$SECS" >"$tmp/w" 2>&1 &
	tpid=$!
	for _ in $(seq 1 200); do grep -q ready "$tmp/w" && break; sleep 0.05; done
	cpu=0
	if [ -n "${1:-}" ]; then
		/usr/bin/time -f "%U %S" -o "$tmp/time" "$PSCOPE" top "$tpid" --freq "$1" --duration "$SECS" >/dev/null 2>&1
		cpu=$(awk '{print $1 + $2}' "$tmp/time")
	fi
	wait "$tpid"
	tpid=
	echo "$(awk '/^work/{print $2}' "$tmp/w") $cpu"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "python bench: $py, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for hz in 100 1000; do
	: >"$tmp/ratios"
	: >"$tmp/cpus"
	for _ in $(seq 1 "$RUNS"); do
		base=$(work | cut -d' ' -f1)
		set -- $(work "$hz")
		echo "$1 $base" | awk '{ printf "%.4f\n", $1 / $2 }' >>"$tmp/ratios"
		echo "$2" | awk -v s="$SECS" '{ printf "%.3f\n", 100 * $1 / s }' >>"$tmp/cpus"
	done
	printf "sampler %4d Hz, 10 threads, %s s: work sampled/unsampled median %s (runs: %s); pscope CPU %% of one core median %s (runs: %s)\n" \
		"$hz" "$SECS" "$(median <"$tmp/ratios")" "$(tr '\n' ' ' <"$tmp/ratios")" \
		"$(median <"$tmp/cpus")" "$(tr '\n' ' ' <"$tmp/cpus")"
done

"$py" "$src" idle 200 >"$tmp/i" 2>&1 &
tpid=$!
for _ in $(seq 1 400); do grep -q ready "$tmp/i" && break; sleep 0.05; done
sleep 1
: >"$tmp/py"
: >"$tmp/nat"
: >"$tmp/read"
for _ in $(seq 1 $((RUNS * 2 + 1))); do
	"$PSCOPE" stack --json "$tpid" 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["pause_ms"], d["python"]["read_ms"])' >"$tmp/one"
	cut -d' ' -f1 "$tmp/one" >>"$tmp/py"
	cut -d' ' -f2 "$tmp/one" >>"$tmp/read"
	PSCOPE_NO_PYTHON=1 "$PSCOPE" stack --json "$tpid" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["pause_ms"])' >>"$tmp/nat"
done
p=$(median <"$tmp/py")
n=$(median <"$tmp/nat")
r=$(median <"$tmp/read")
printf "stack dump, 201 Python threads: pause median %.2f ms with Python frames vs %.2f ms native only (+%.2f ms; reading the chains: %.2f ms of the pause)\n" "$p" "$n" "$(echo "$p $n" | awk '{print $1 - $2}')" "$r"
