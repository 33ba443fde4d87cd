# Shared by the benchmarks that read a core (core-read.sh, python-core.sh);
# sourced, with $PSCOPE and $tmp set and the caller's trap killing $tpid.

# core_of WHAT CMD...: start CMD (it prints "ready"), write its core to
# $tmp/core with pscope, kill it. WHAT names it in the error.
core_of() {
	local what=$1
	shift
	"$@" >"$tmp/out" 2>&1 &
	tpid=$!
	for _ in $(seq 1 600); do grep -q ready "$tmp/out" && break; sleep 0.05; done
	grep -q ready "$tmp/out" || { echo "$what did not start"; exit 1; }
	"$PSCOPE" core "$tpid" -o "$tmp/core" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
	kill -9 "$tpid"
	wait "$tpid" 2>/dev/null
	tpid=
}

# us CMD...: wall microseconds of one run, output thrown away
us() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
}
# stats RUNS CMD...: "best median" (us)
stats() {
	local n=$1 v=""
	shift
	for _ in $(seq 1 "$n"); do v="$v $(us "$@")"; done
	echo $v | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[1], a[int((NR+1)/2)]}'
}
ms() { awk -v us="$1" 'BEGIN { printf "%9.1f", us / 1000 }'; }
