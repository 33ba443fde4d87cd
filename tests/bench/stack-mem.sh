#!/bin/sh
# Stack dump memory: peak RSS of `pscope stack` on targets of 1000 and
# 10,000 shallow threads (stack-threads: every worker blocked 6 frames
# deep), against `eu-stack -p` (and gdb at 1000 threads) in the same run.
# The README's bound comes from here: the dump's memory grows with the
# stacks shown (from each thread's stack pointer to the top of its stack),
# not with a fixed buffer per thread.
#
# Peak RSS is the kernel's count for the finished child (getrusage
# ru_maxrss), not a sampled one.
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
RUNS=${RUNS:-3}
tmp=$(mktemp -d /tmp/pscope-bench-stackmem.XXXXXX)
tpid=
trap '[ -n "$tpid" ] && kill -9 $tpid 2>/dev/null; rm -rf $tmp' EXIT

command -v python3 >/dev/null || { echo "stack-mem bench needs python3 (getrusage of a child)"; exit 0; }

# peak_kib CMD...: peak RSS in KiB of CMD (its output thrown away); its
# last stderr line is kept in $tmp/err.
peak_kib() {
	python3 -c '
import resource, subprocess, sys
with open(sys.argv[1], "w") as err:
    subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$tmp/err" "$@"
}

# median of RUNS peaks
median_peak() {
	for _ in $(seq 1 "$RUNS"); do peak_kib "$@"; done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

start() { # start N: a target with N blocked workers; sets tpid once all block
	: >"$tmp/out"
	"$TARGETS/stack-threads" "$1" >"$tmp/out" 2>&1 &
	tpid=$!
	for _ in $(seq 1 1200); do grep -q ready "$tmp/out" && break; sleep 0.05; done
	grep -q ready "$tmp/out" || { echo "target with $1 threads did not start (thread limit?)"; exit 1; }
	for _ in $(seq 1 1200); do # every thread blocked (none runnable)
		cat /proc/$tpid/task/*/stat 2>/dev/null | sed 's/.*) //' | cut -c1 | grep -q R || break
		sleep 0.05
	done
}

printf '%-8s %-10s %14s %16s   %s\n' threads tool "peak RSS MiB" "KiB per thread" "note"
for n in 1000 10000; do
	start "$n"
	ps=$(median_peak "$PSCOPE" stack "$tpid")
	self=$(tail -1 "$tmp/err")
	eval "ps_$n=$ps"
	printf '%-8s %-10s %14.1f %16.1f   %s\n' "$n" pscope "$(echo "$ps" | awk '{print $1/1024}')" \
		"$(echo "$ps $n" | awk '{print $1/$2}')" "median of $RUNS; $self"
	if command -v eu-stack >/dev/null; then
		eu=$(peak_kib eu-stack -p "$tpid")
		eval "eu_$n=$eu"
		printf '%-8s %-10s %14.1f %16.1f   %s\n' "$n" eu-stack "$(echo "$eu" | awk '{print $1/1024}')" \
			"$(echo "$eu $n" | awk '{print $1/$2}')" "1 run"
	fi
	if [ "$n" = 1000 ] && command -v gdb >/dev/null; then
		g=$(peak_kib gdb -q -batch -ex 'thread apply all bt' -p "$tpid")
		printf '%-8s %-10s %14.1f %16.1f   %s\n' "$n" gdb "$(echo "$g" | awk '{print $1/1024}')" \
			"$(echo "$g $n" | awk '{print $1/$2}')" "1 run"
	fi
	kill -9 "$tpid"
	wait "$tpid" 2>/dev/null
	tpid=
done
# The cost of one more thread: what 9000 more threads added.
awk -v a="$ps_1000" -v b="$ps_10000" -v ea="${eu_1000:-0}" -v eb="${eu_10000:-0}" 'BEGIN {
	per = (b - a) / 9000
	printf "pscope stack: %.1f KiB per additional thread (1000 -> 10,000 threads: %.1f -> %.1f MiB)\n", per, a / 1024, b / 1024
	if (eb > 0) printf "eu-stack:     %.1f KiB per additional thread; pscope / eu-stack peak at 10,000 threads = %.2fx\n", (eb - ea) / 9000, b / eb
}'
