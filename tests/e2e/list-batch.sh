#!/bin/sh
# pscope list: exact content of the text and JSON snapshots, hostile and
# Korean names, tree and thread rows, sorting, exit statuses.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
out=$(mktemp -d /tmp/pscope-list-batch.XXXXXX)
at_exit "rm -rf $out"

start_target hostile || exit 1
HPID=$TPID
start_target korean || exit 1
KPID=$TPID
start_target family || exit 1
FPID=$TPID
CPID=$(awk '{ print $1 }' /proc/$FPID/task/$FPID/children)

"$PSCOPE" list --interval 0.2 >"$out/list.txt" 2>"$out/err.txt"
ok $? "pscope list exits 0"
check "header line is exact" grep -qx '    PID USER      PRI  NI  VIRT   RES   SHR S  CPU%  MEM%     TIME+ COMMAND' "$out/list.txt"
check "summary lines" grep -qE '^Tasks: [0-9]+, [0-9]+ thr, [0-9]+ kthr; [0-9]+ running   Load average: [0-9.]+ [0-9.]+ [0-9.]+   Uptime: ' "$out/list.txt"
check "memory and CPU summary" grep -qE '^Mem: .* used of .*   Swap: .*   CPU: [0-9.]+% busy over [0-9]+\.[0-9] s \([0-9]+ CPUs\)$' "$out/list.txt"
check "nothing on stderr" test ! -s "$out/err.txt"
check "no raw escape byte in the text output" sh -c "! grep -q \"$(printf '\033')\" '$out/list.txt'"
check "no raw BEL byte in the text output" sh -c "! grep -q \"$(printf '\007')\" '$out/list.txt'"
hline=$(grep -E "^ *$HPID " "$out/list.txt")
check "hostile comm shown escaped" sh -c "printf '%s' '$hline' | grep -qF '\\e]2;PWNED\\x07'"
check "hostile argv shown escaped, on one line" sh -c "printf '%s\n' \"\$1\" | grep -qF 'hostile --hostile \\e]2;PWNED-ARGV\\x07 two\\nlines\\tand a tab'" _ "$hline"
kline=$(grep -E "^ *$KPID " "$out/list.txt")
check "Korean comm and argv kept" sh -c "printf '%s\n' \"\$1\" | grep -qF '한국어이름│' && printf '%s\n' \"\$1\" | grep -qF -- '--korean 프로세스-목록 한글'" _ "$kline"
fline=$(grep -E "^ *$FPID " "$out/list.txt")
check "family parent: exact columns" sh -c "printf '%s\n' \"\$1\" | awk -v p=$FPID -v u=$(id -un) -v ni=$(nice) '\$1 == p && \$2 == u && \$3 == 20 + ni && \$4 == ni && \$8 == \"S\" && \$12 ~ /^ps-parent│.*family\$/ { f = 1 } END { exit !f }'" _ "$fline"
res=$(awk -v k=$(($(getconf PAGESIZE) / 1024)) '{ print $2 * k }' /proc/$FPID/statm)
shown=$(printf '%s\n' "$fline" | awk '{ print $6 }')
check "RES of the parent matches the resident of /proc/PID/statm ($shown vs $res kB)" test "$shown" -ge $((res - 8)) -a "$shown" -le $((res + 8))

# Tree: the child right below its parent, with the tree branch.
"$PSCOPE" list --tree --interval 0 >"$out/tree.txt"
ok $? "pscope list --tree exits 0"
check "tree: the child comes right after its parent" sh -c "grep -A1 -E '^ *$FPID ' '$out/tree.txt' | tail -1 | grep -qE '^ *$CPID .*└─ ps-child│'"
pdepth=$(grep -E "^ *$FPID " "$out/tree.txt" | sed 's/[└├│─]/x/g' | awk '{ print index($0, "ps-parent") }')
cdepth=$(grep -E "^ *$CPID " "$out/tree.txt" | sed 's/[└├│─]/x/g' | awk '{ print index($0, "ps-child") }')
check "tree: the child is indented 3 more columns" test "$cdepth" = "$((pdepth + 3))"

# Threads: the two named worker threads of the parent.
"$PSCOPE" list --threads --interval 0 >"$out/threads.txt"
ok $? "pscope list --threads exits 0"
nworkers=0
for t in /proc/$FPID/task/*; do
	tid=${t##*/}
	grep -qE "^ *$tid .* ps-worker\$" "$out/threads.txt" && nworkers=$((nworkers + 1))
done
check "threads: both ps-worker threads listed by TID" test "$nworkers" = 2
check "no thread rows without --threads" sh -c "! grep -q ' ps-worker\$' '$out/list.txt'"

# Sorting.
"$PSCOPE" list --sort pid --interval 0 | awk 'NR > 3 { print $1 }' >"$out/pids.txt"
check "--sort pid: ascending PIDs" sh -c "sort -n '$out/pids.txt' | cmp -s - '$out/pids.txt'"
"$PSCOPE" list --sort mem --interval 0 | awk 'NR > 3 { print $10 }' >"$out/mem.txt"
check "--sort mem: MEM% descending" sh -c "sort -rn '$out/mem.txt' | cmp -s - '$out/mem.txt'"

# JSON, parsed by a real parser.
"$PSCOPE" list --json --tree --interval 0.2 >"$out/list.json"
ok $? "pscope list --json exits 0"
check "JSON: parses, hostile and Korean strings exact, tree depth" python3 - "$out/list.json" "$HPID" "$KPID" "$FPID" "$CPID" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h, k, f, c = (int(x) for x in sys.argv[2:6])
procs = {p["pid"]: p for p in d["processes"]}
assert d["tree"] is True and d["interval"] > 0, d["interval"]
assert d["cpus"] >= 1 and d["memory"]["total_kb"] > 0 and len(d["load"]) == 3
assert d["tasks"]["processes"] >= 4
assert procs[h]["comm"] == "\x1b]2;PWNED\x07", procs[h]["comm"]
assert procs[h]["cmdline"].endswith("--hostile \x1b]2;PWNED-ARGV\x07 two\nlines\tand a tab"), procs[h]["cmdline"]
assert procs[k]["comm"] == "한국어이름", procs[k]["comm"]
assert procs[c]["ppid"] == f and procs[c]["depth"] == procs[f]["depth"] + 1
assert procs[f]["nlwp"] == 3 and procs[f]["state"] == "S" and procs[f]["res_kb"] > 0
for key in ("pid", "ppid", "user", "uid", "priority", "nice", "virt_kb", "res_kb", "shr_kb", "state",
            "cpu", "mem", "time", "comm", "cmdline", "command", "thread", "kernel_thread"):
    assert key in procs[f], key
PY

# Kernel threads: hidden by default, as on the screen, and counted.
check "kernel threads hidden: no kthreadd row" sh -c "! grep -qE '^ +2 root .* kthreadd\$' '$out/list.txt'"
check "the Tasks line says how many are hidden (the kthr count)" sh -c \
	"grep -qE '^Tasks: [0-9]+, [0-9]+ thr, ([0-9]+) kthr; .*   \(\\1 kernel threads? hidden: --kthreads\)\$' '$out/list.txt'"
"$PSCOPE" list --kthreads --interval 0 >"$out/k.txt"
check "--kthreads: kthreadd listed" grep -qE '^ +2 root .* kthreadd$' "$out/k.txt"
check "--kthreads: nothing said hidden" sh -c "! grep -q 'hidden' '$out/k.txt'"
"$PSCOPE" list --json --interval 0 >"$out/k.json"
check "JSON: kernel threads left out and counted" python3 -c "
import json
d = json.load(open('$out/k.json'))
assert not any(p['kernel_thread'] for p in d['processes'])
assert d['tasks']['kernel_threads_hidden'] == d['tasks']['kernel_threads'] > 0
assert d['columns'] == ['pid', 'user', 'pri', 'ni', 'virt', 'res', 'shr', 'state', 'cpu', 'mem', 'time', 'command'], d['columns']
"

# Columns, like ps -o: names or titles, the header exact, the cells exact.
"$PSCOPE" list --interval 0 -o pid,ppid,pgrp,sid,nlwp,tty,state,command >"$out/o.txt" 2>"$out/o.err"
ok $? "-o: exit 0"
check "-o: the header is exact" grep -qx '    PID    PPID    PGRP     SID NLWP TTY     S COMMAND' "$out/o.txt"
read -r fpgrp fsid <<EOF2
$(python3 -c "import os; print(os.getpgid($FPID), os.getsid($FPID))")
EOF2
fppid=$(awk '{ sub(/.*\) /, ""); print $2 }' /proc/$FPID/stat)
check "-o: the family parent's cells exact" grep -qE "^ +$FPID +$fppid +$fpgrp +$fsid +3 [^ ]+ +S ps-parent│.*family\$" "$out/o.txt"
"$PSCOPE" list --interval 0 --columns 'PID,CPU%,TIME+' >"$out/o2.txt"
check "--columns takes the titles too" grep -qx '    PID  CPU%     TIME+' "$out/o2.txt"
"$PSCOPE" list --interval 0.2 -o pid,majflt,ctxt,oom,io_read_rate,io_write_rate,cgroup,container,starttime,processor --json >"$out/o.json"
check "-o --json: the chosen columns' fields" python3 -c "
import json
d = json.load(open('$out/o.json'))
assert d['columns'] == ['pid', 'majflt', 'ctxt', 'oom', 'io_read_rate', 'io_write_rate', 'cgroup', 'container', 'starttime', 'processor'], d['columns']
f = [p for p in d['processes'] if p['pid'] == $FPID][0]
for k in ('majflt', 'ctxt_per_s', 'oom_score', 'io_read_bps', 'io_write_bps', 'cgroup', 'start_epoch', 'processor'):
    assert k in f, k
assert f['oom_score'] == int(open('/proc/$FPID/oom_score').read())
assert f['cgroup'] in [l.split(':', 2)[2] for l in open('/proc/$FPID/cgroup').read().splitlines()], f['cgroup']
"
"$PSCOPE" list -o pid,nosuch >/dev/null 2>"$out/e5"
ok $([ $? = 2 ] && echo 0 || echo 1) "-o unknown column: exit 2"
check "-o unknown column: the names are listed" grep -q "invalid column list 'pid,nosuch' (each once, of: pid, user," "$out/e5"
"$PSCOPE" list -o pid,pid >/dev/null 2>&1
ok $([ $? = 2 ] && echo 0 || echo 1) "-o a column twice: exit 2"
# pscoperc: the screen's columns and kernel-thread choice are the default.
mkdir -p "$XDG_CONFIG_HOME/pscope"
printf 'columns=pid ppid command\nhide_kernel_threads=0\n' >"$XDG_CONFIG_HOME/pscope/pscoperc"
"$PSCOPE" list --interval 0 >"$out/rc.txt" 2>"$out/rc.err"
check "pscoperc: its columns" grep -qx '    PID    PPID COMMAND' "$out/rc.txt"
check "pscoperc: its kernel threads shown" grep -qE '^ +2 +0 kthreadd$' "$out/rc.txt"
printf 'columns=pid nosuch\n' >"$XDG_CONFIG_HOME/pscope/pscoperc"
"$PSCOPE" list --interval 0 >"$out/rc2.txt" 2>"$out/rc2.err"
ok $? "a broken pscoperc: still exit 0"
check "a broken pscoperc: said on stderr, defaults used" sh -c "grep -q '(ignored)' '$out/rc2.err' && grep -qx '    PID USER      PRI  NI  VIRT   RES   SHR S  CPU%  MEM%     TIME+ COMMAND' '$out/rc2.txt'"
rm -f "$XDG_CONFIG_HOME/pscope/pscoperc"

# Exit statuses and messages.
"$PSCOPE" list --sort bogus >/dev/null 2>"$out/e1"
ok $([ $? = 2 ] && echo 0 || echo 1) "unknown sort key: exit 2"
check "unknown sort key: message names the keys, all of them" grep -q "unknown sort key 'bogus' (one of: pid, user, .*, oom, cgroup, container, cpu_hist)" "$out/e1"
"$PSCOPE" list --interval -1 >/dev/null 2>"$out/e2"
ok $([ $? = 2 ] && echo 0 || echo 1) "negative interval: exit 2"
"$PSCOPE" list extra >/dev/null 2>"$out/e3"
ok $([ $? = 2 ] && echo 0 || echo 1) "stray argument: exit 2"
"$PSCOPE" list --help >"$out/help"
ok $? "--help: exit 0"
check "--help describes the options" grep -q -- '--interval=SEC' "$out/help"
if [ -w /dev/full ]; then
	"$PSCOPE" list --interval 0 >/dev/full 2>"$out/e4"
	ok $([ $? = 1 ] && echo 0 || echo 1) "full disk: exit 1"
	check "full disk: message" grep -q "pscope list: cannot write the output" "$out/e4"
else
	skip "no /dev/full"
	skip "no /dev/full"
fi

# Unprivileged: another user's processes are listed too (stat is public).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	bin=$(mktemp -d /tmp/pscope-list-bin.XXXXXX)
	at_exit "rm -rf $bin"
	cp "$PSCOPE" "$bin/pscope" && chmod 755 "$bin" "$bin/pscope"
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$bin/pscope" list --interval 0 >"$out/nobody.txt" 2>&1
	ok $? "as nobody: exit 0"
	check "as nobody: root's processes are listed" grep -qE "^ *$FPID root " "$out/nobody.txt"
else
	skip "needs root and setpriv"
	skip "needs root and setpriv"
fi
done_testing
