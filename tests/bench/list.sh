#!/bin/sh
# Process list benchmark: 2000 sleeping processes, then pscope and htop side
# by side (same moment, same 1 s refresh, same terminal size, each in its own
# tmux session) for 5 + 20 s. Prints each one's CPU time and peak RSS
# (VmHWM), and the ratios against the goals:
#   - over the whole run, start-up included: pscope <= 0.2x htop's CPU;
#   - in the steady state (the 20 s after the first 5): <= 0.03x;
#   - less memory than htop.
# CPU time is the threads' se.sum_exec_runtime (/proc/PID/task/*/sched, to
# the microsecond) where the kernel has it, else utime + stime (10 ms ticks).
# Three runs: the default columns, the new columns read from stat, and the
# columns read per row on screen (/proc/PID/io, status, oom_score, cgroup).
# LIST_BENCH_PROCS and LIST_BENCH_SECONDS change the load and the steady
# window.
set -u
: "${top_builddir:=.}"
: "${PSCOPE:=$top_builddir/pscope}"
: "${TARGETS:=$top_builddir/tests/targets}"
N=${LIST_BENCH_PROCS:-2000}
DUR=${LIST_BENCH_SECONDS:-20}

for t in htop tmux setsid; do
	command -v "$t" >/dev/null || { echo "list bench: $t is not installed (./bootstrap --deps)"; exit 1; }
done
tmp=$(mktemp -d /tmp/pscope-bench-list.XXXXXX)
sock=pscope-bench-list-$$
fpid=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	if [ -n "$fpid" ]; then
		{ kill -KILL "-$fpid"; wait "$fpid"; } 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# The family target: one parent, N children, all asleep in pause(). Its own
# process group, so one kill reaches every child; they also die with the parent.
setsid "$TARGETS/family" "$N" >"$tmp/family.out" 2>&1 &
fpid=$!
i=0
until grep -q ready "$tmp/family.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 600 ] && { echo "list bench: $N processes did not start"; cat "$tmp/family.out"; exit 1; }
	sleep 0.1
done
nproc_total=$(ls /proc | grep -c '^[0-9]')
echo "processes on the machine: $nproc_total ($N sleeping children of PID $fpid)"

# htop keeps its settings in $HOME, pscope in $XDG_CONFIG_HOME: scratch
# ones, so the runs use exactly the settings written below.
mkdir -p "$tmp/home" "$tmp/xdg/pscope"
cpu_s() { # CPU seconds of a process so far (see the top)
	if [ -r "/proc/$1/sched" ] && grep -q sum_exec_runtime "/proc/$1/sched"; then
		cat "/proc/$1"/task/*/sched 2>/dev/null | awk '/^se.sum_exec_runtime/ { ms += $3 } END { printf "%.4f", ms / 1000 }'
	else
		awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.4f", ($12 + $13) / hz }' "/proc/$1/stat"
	fi
}
WARM=5
hwm_kb() { awk '/^VmHWM/ { print $2 }' "/proc/$1/status"; }

# run LABEL COLUMNS: pscope (with those columns) and htop side by side.
run() {
	local label=$1 cols=$2
	printf 'columns=%s\n' "$cols" >"$tmp/xdg/pscope/pscoperc"
	# The previous run's server may still be exiting: retry until a new
	# one holds both sessions.
	ppid_= hpid=
	for _ in $(seq 1 50); do
		tmux -L "$sock" kill-server 2>/dev/null
		tmux -L "$sock" new-session -d -s pscope -x 160 -y 50 "exec env XDG_CONFIG_HOME='$tmp/xdg' TERM=screen '$PSCOPE' -d 10" 2>/dev/null &&
			tmux -L "$sock" new-session -d -s htop -x 160 -y 50 "exec env HOME='$tmp/home' TERM=screen htop -d 10" 2>/dev/null &&
			sleep 0.5 &&
			ppid_=$(tmux -L "$sock" display-message -p -t pscope '#{pane_pid}' 2>/dev/null) &&
			hpid=$(tmux -L "$sock" display-message -p -t htop '#{pane_pid}' 2>/dev/null) &&
			[ -n "$ppid_" ] && [ -n "$hpid" ] && break
		ppid_= hpid=
		sleep 0.2
	done
	[ -n "$ppid_" ] && [ -n "$hpid" ] || { echo "list bench: could not start pscope and htop in tmux"; exit 1; }
	echo "$label: pscope (PID $ppid_) and htop (PID $hpid) for $WARM + $DUR s at a 1 s refresh"
	sleep "$WARM"
	pw=$(cpu_s "$ppid_"); hw=$(cpu_s "$hpid")
	sleep "$DUR"
	for p in "$ppid_" "$hpid"; do
		[ -r "/proc/$p/stat" ] || { echo "list bench: PID $p exited early"; tmux -L "$sock" capture-pane -p -t pscope | tail -3; exit 1; }
	done
	pc=$(cpu_s "$ppid_"); hc=$(cpu_s "$hpid")
	pm=$(hwm_kb "$ppid_"); hm=$(hwm_kb "$hpid")
	tmux -L "$sock" kill-server 2>/dev/null
	awk -v l="$label" -v pw="$pw" -v hw="$hw" -v pc="$pc" -v hc="$hc" -v pm="$pm" -v hm="$hm" -v w="$WARM" -v d="$DUR" 'BEGIN {
		printf "  %-8s %11s %13s %10s\n", "", "CPU s, all", "CPU s, steady", "peak RSS"
		printf "  %-8s %11.3f %13.3f %6d KiB\n", "pscope", pc, pc - pw, pm
		printf "  %-8s %11.3f %13.3f %6d KiB\n", "htop", hc, hc - hw, hm
		r = hc > 0 ? pc / hc : 0
		printf "  %s: CPU ratio pscope/htop over all %d s: %.3f (goal <= 0.2): %s\n", l, w + d, r, r <= 0.2 ? "met" : "NOT met"
		r = hc - hw > 0 ? (pc - pw) / (hc - hw) : 0
		printf "  %s: CPU ratio pscope/htop in the steady state (%d s after the first %d): %.3f (goal <= 0.03): %s\n", l, d, w, r, r <= 0.03 ? "met" : "NOT met"
		printf "  %s: per refresh: pscope %.1f ms, htop %.1f ms\n", l, (pc - pw) * 1000 / d, (hc - hw) * 1000 / d
		m = hm > 0 ? pm / hm : 0
		printf "  %s: peak RSS ratio pscope/htop: %.2f (goal < 1): %s\n", l, m, m < 1 ? "met" : "NOT met"
	}'
}
default="pid user pri ni virt res shr state cpu mem time command"
run "default columns" "$default"
run "new columns (no IO)" "pid ppid pgrp sid tty nlwp processor starttime majflt user cpu mem time command"
run "IO, CTXT/s, OOM, cgroup columns" "pid io_read_rate io_write_rate ctxt oom container cgroup user cpu mem time command"

# Every one of the N processes must be gone afterwards.
{ kill -KILL "-$fpid"; wait "$fpid"; } 2>/dev/null
i=0
while [ "$(grep -l '^[0-9]* (ps-child)' /proc/[0-9]*/stat 2>/dev/null | wc -l)" -gt 0 ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && { echo "list bench: children left behind"; break; }
	sleep 0.1
done
fpid=
echo "cleaned up: $(grep -l '^[0-9]* (ps-child)' /proc/[0-9]*/stat 2>/dev/null | wc -l) ps-child processes left"
