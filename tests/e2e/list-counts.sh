#!/bin/bash
# The header's counts, as htop counts them, against /proc read just before
# and just after: Tasks N (user processes), "thr" the threads besides each
# main thread, "kthr" kernel threads, "running" the tasks in state R, at
# most one per CPU; memory sizes written as htop writes them (23.5G).
# Batch (pscope list) and the screen.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
tmp=$(mktemp -d /tmp/pscope-list-counts.XXXXXX)
at_exit "rm -rf $tmp"

# procs thr kthr, from /proc now (a task that goes away mid-read is skipped)
proc_counts() {
	python3 - <<'PY'
import os
procs = thr = kthr = 0
for d in os.listdir('/proc'):
    if not d.isdigit():
        continue
    try:
        s = open('/proc/%s/stat' % d, 'rb').read().decode('latin-1')
    except OSError:
        continue
    f = s[s.rindex(')') + 2:].split()
    flags, nlwp = int(f[6]), int(f[17])
    if flags & 0x00200000:
        kthr += 1
    else:
        procs += 1
        thr += nlwp - 1
print(procs, thr, kthr)
PY
}
# htop's size: KiB, then M G T with 2 decimals under 10, 1 under 100
htop_size() {
	python3 -c '
import sys
v = int(sys.argv[1]); u = "KMGTPE"; i = 0; d = 1
while i < 5 and v // 1024 >= d:
    d *= 1024; i += 1
p = 0 if i == 0 else (2 if v // d < 10 else 1 if v // d < 100 else 0)
print("%.*f%s" % (p, v / d, u[i]))' "$1"
}
# within: A lies between B and C (either order), give or take 2 for tasks
# born or gone between the reads
within() { python3 -c 'import sys; a, b, c = map(int, sys.argv[1:]); sys.exit(not (min(b, c) - 2 <= a <= max(b, c) + 2))' "$@"; }

# A process of four threads: three of them are "thr"
start_quiet_target stack-threads 3 || exit 1
NCPU=$(grep -c '^cpu[0-9]' /proc/stat)

# Batch: the Tasks line against /proc before and after it (polled: on a
# busy machine the counts move; a miscount by every main thread, about a
# hundred here, does not come within 2).
batch_agrees() {
	set -- $(proc_counts)
	"$PSCOPE" list --interval 0.1 >"$tmp/list.txt" 2>&1 || return 1
	local after; after=$(proc_counts)
	set -- "$@" $after
	read -r _ n _ t _ k _ r _ < <(sed -n '1s/^Tasks: \([0-9]*\), \([0-9]*\) thr, \([0-9]*\) kthr; \([0-9]*\) running.*/x \1 x \2 x \3 x \4 x/p' "$tmp/list.txt")
	[ -n "$n" ] || return 1
	echo "pscope $n $t $k $r; /proc before $1 $2 $3, after $4 $5 $6" >"$tmp/why"
	within "$n" "$1" "$4" && within "$t" "$2" "$5" && within "$k" "$3" "$6" &&
		[ "$r" -ge 1 ] && [ "$r" -le "$NCPU" ]
}
wait_until -t 60 batch_agrees
ok $? "pscope list: processes, thr (besides main threads), kthr as /proc counts them; 1 <= running <= $NCPU CPUs"
diag "$(cat "$tmp/why")"

mem_total=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
T=$(htop_size "$mem_total")
check "pscope list: Mem total written as htop writes it ($T)" grep -qE "^Mem: [0-9.]+[KMGT] used of $T " "$tmp/list.txt"

# The screen: the same counts in the Tasks meter, the Mem bar's total
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }
tui_start 120x30 "$PSCOPE -d 3"
tui_wait_for 'Tasks: ' >/dev/null
screen_agrees() {
	set -- $(proc_counts)
	local line; line=$(tui_screen | grep -o 'Tasks: [0-9]*, [0-9]* thr, [0-9]* kthr; [0-9]* running' | head -1)
	set -- "$@" $(proc_counts)
	read -r n t k r < <(echo "$line" | sed 's/Tasks: \([0-9]*\), \([0-9]*\) thr, \([0-9]*\) kthr; \([0-9]*\) running/\1 \2 \3 \4/')
	[ -n "$r" ] || return 1
	echo "screen $n $t $k $r; /proc before $1 $2 $3, after $4 $5 $6" >"$tmp/why"
	within "$n" "$1" "$4" && within "$t" "$2" "$5" && within "$k" "$3" "$6" &&
		[ "$r" -ge 1 ] && [ "$r" -le "$NCPU" ]
}
wait_until -t 60 screen_agrees
ok $? "the screen's Tasks meter: the same counts"
diag "$(cat "$tmp/why")"
check "the Mem bar's total as htop writes it ($T)" tui_wait_for "Mem\[.*[0-9.]+[KMGT]/$T\]"
tui_keys q
done_testing
