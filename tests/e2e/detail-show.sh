#!/bin/sh
# pscope show: every pane of a target with known content, text and JSON.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/e2e/detail-lib.sh"

start_detail_target || { done_testing; exit 1; }
OUT=$DT_DIR/show.txt
"$PSCOPE" show "$TPID" --pane fd >"$OUT" 2>&1
ok $? "show --pane fd succeeds"
has() { grep -qE "$1" "$OUT" || { diag "missing: $1"; sed 's/^/#   /' "$OUT" | head -40; return 1; }; }
check "tcp listener"            has "^ +$DT_listener socket +rw +0  tcp 127\.0\.0\.1:$DT_tcp_port LISTEN$"
check "tcp client end"          has "^ +$DT_client socket .* tcp 127\.0\.0\.1:$DT_client_port -> 127\.0\.0\.1:$DT_tcp_port ESTABLISHED$"
check "tcp server end"          has "^ +$DT_server socket .* tcp 127\.0\.0\.1:$DT_tcp_port -> 127\.0\.0\.1:$DT_client_port ESTABLISHED$"
check "udp socket"              has "^ +$DT_udp socket .* udp 127\.0\.0\.1:$DT_udp_port UNCONN$"
check "socketpair: peer fd"     has "^ +${DT_socketpair%,*} socket .* unix stream CONNECTED -> fd ${DT_socketpair#*,}$"
check "socketpair: other end"   has "^ +${DT_socketpair#*,} socket .* unix stream CONNECTED -> fd ${DT_socketpair%,*}$"
check "pipe read end"           has "^ +$DT_pipe_r pipe +r +0  pipe:\[[0-9]+\]$"
check "eventfd with its count"  has "^ +$DT_eventfd eventfd +rw .*anon_inode:\[eventfd\] count=7$"
check "epoll with its watches"  has "^ +$DT_epoll epoll .*watches=2 \(fd $DT_listener,$DT_eventfd\)$"
check "deleted file, position"  has "^ +$DT_deleted file +rw +5  $DT_DIR/deleted-file \(deleted\)$"
check "counts per type"         has "^[0-9]+ fds:.* socket 6 eventfd 1 epoll 1$"

"$PSCOPE" show "$TPID" --pane maps --smaps >"$OUT" 2>&1
ok $? "show --pane maps --smaps succeeds"
check "mapped file: shared, 12 kB resident" has "^[0-9a-f]{16}-[0-9a-f]{16} rw-s 00000000 .* 12 +12 +[0-9]+ +0  $DT_DIR/mapped-file$"
check "per-file aggregate"      has "^ +1 +12 +12 .* $DT_DIR/mapped-file$"
check "VMA count"               has "^[0-9]+ mappings$"

"$PSCOPE" show "$TPID" --pane threads >"$OUT" 2>&1
ok $? "show --pane threads succeeds"
check "named thread in nanosleep" has "^ +[0-9]+ dt-sleeper +S .* hrtimer_nanosleep +clock_nanosleep\(0x0\)"
check "named thread in read"      has "^ +[0-9]+ dt-reader +S .* read\(0x$DT_pipe_r\)"
check "four threads"              has "^4 threads$"
check "hostile name shown escaped" has '^ +[0-9]+ dt-\\e\[31mred +S'
check "no raw escape byte in the output" sh -c "! grep -q \"\$(printf '\\033')\" '$OUT'"

"$PSCOPE" show "$TPID" --pane status,mem >"$OUT" 2>&1
ok $? "show --pane status,mem succeeds"
check "status: state"           has "^State +S \(sleeping\)$"
check "status: threads"         has "^Threads +4$"
check "status: exe"             has "^Exe +.*/detail-target"
check "status: capabilities"    has "^CapEff +"
check "mem: Pss"                has "^Pss +[0-9]+ kB"

if command -v python3 >/dev/null; then
	"$PSCOPE" show "$TPID" --pane all --json >"$DT_DIR/show.json" 2>&1
	ok $? "show --pane all --json succeeds"
	check "JSON fields" python3 - "$DT_DIR/show.json" "$DT_tcp_port" "$DT_listener" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
port, lis = sys.argv[2], int(sys.argv[3])
p = d["panes"]
fd = {f["fd"]: f for f in p["fd"]["fds"]}
assert fd[lis]["socket"] == {"proto": "tcp", "local": "127.0.0.1:" + port, "peer": "0.0.0.0:0", "state": "LISTEN"}, fd[lis]
assert p["fd"]["by_type"]["socket"] == 6
sp = [f for f in fd.values() if f.get("socket", {}).get("proto") == "unix"]
assert sorted(f["socket"]["peer_fd"] for f in sp) == sorted(f["fd"] for f in sp), sp
assert any(m["path"].endswith("/mapped-file") and m["perms"] == "rw-s" and m["size_kb"] == 12 for m in p["maps"]["maps"])
names = {t["name"]: t for t in p["threads"]}
assert names["dt-sleeper"]["syscall"].startswith("clock_nanosleep(")
assert names["dt-reader"]["syscall_nr"] == 0
assert "dt-\x1b[31mred" in names, names.keys()
assert p["status"]["threads"] == 4 and p["status"]["state"] == "S"
assert "cap_sys_admin" in p["status"]["cap_eff_names"]
assert p["mem"]["rss_kb"] > 0 and "swap_pss_kb" in p["mem"]
ksm = [l for l in open("/proc/self/smaps_rollup") if l.startswith("KSM:")]
assert not ksm or "ksm_kb" in p["mem"], p["mem"]  # the kernel's KSM: line, where it has one
assert d["pid"] > 0 and d["name"] == "detail-target"
PY
else
	skip "python3 not installed: JSON not checked"
	skip "python3 not installed: JSON not checked"
fi

"$PSCOPE" show 2 --pane mem,status >"$OUT" 2>&1
check "kernel thread: no address space, no exe" has "^kernel thread: no user address space$"

# Usage and missing processes.
"$PSCOPE" show "$TPID" --pane nonsense >/dev/null 2>"$OUT"
ok $([ $? = 2 ] && grep -q "unknown pane" "$OUT"; echo $?) "unknown pane is a usage error"
"$PSCOPE" show 4194000 >/dev/null 2>"$OUT"
ok $([ $? = 1 ] && grep -q "no process with PID 4194000" "$OUT"; echo $?) "missing PID says so"

# A main thread that exited while the other threads run: the leader is a
# zombie but the process is alive, and is shown as such.
"$TARGETS/detail-target" "$DT_DIR" exit-main >"$DT_DIR/out3" 2>&1 &
MPID=$!
kill_at_exit $MPID
wait_until grep -q ready "$DT_DIR/out3"
wait_until sh -c "[ \$(ls /proc/$MPID/task | wc -l) -ge 2 ] && grep -q '^State:.*Z' /proc/$MPID/status" # its main thread gone, the others on
"$PSCOPE" show "$MPID" --pane status,threads >"$OUT" 2>&1
ok $? "show works on a process whose main thread exited"
check "its threads are listed" has "dt-sleeper +S .*clock_nanosleep"
kill -9 "$MPID"

# A zombie: its exit status is still readable.
kill -TERM "$TPID"
zombie() { [ "$(awk '{ sub(/.*\) /, ""); print substr($0,1,1) }' /proc/$1/stat 2>/dev/null)" = Z ]; }
wait_until zombie "$TPID"
"$PSCOPE" show "$TPID" >"$OUT" 2>&1
grep -q "state Z (zombie)" "$OUT"
ok $? "a zombie is shown as one"
done_testing
