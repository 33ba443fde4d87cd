#!/bin/sh
# The recording's schemas: a file of schema 1 (written by the first pscope
# that recorded, kept in tests/fixtures/record/) replays exactly as it did
# then; a file recorded now is of schema 2 and replays the same process
# list as the live one.
. "$top_srcdir/tests/lib.sh"
T=$_tlinks
old=$top_srcdir/tests/fixtures/record/sleep.rec

TZ=UTC "$PSCOPE" list -r "$old" >"$T/old.txt" 2>"$T/old.err"
ok $? "a schema-1 file replays"
cat >"$T/want.txt" <<'TXT'
Recorded 2026-12-04 02:11:40 (interval 6 of 6, +1.1 s from the start; asked for 2026-12-04 02:11:40)
Tasks: 116, 1161 thr, 60 kthr; 2 running   Load average: 14.31 16.71 12.97   Uptime: 00:19:26   (60 kernel threads hidden: --kthreads)
Mem: 510M used of 23.5G   Swap: 0K used of 0K   CPU: 100.0% busy over 0.2 s (2 CPUs)
    PID USER      PRI  NI  VIRT   RES   SHR S  CPU%  MEM%     TIME+ COMMAND
  20170 root       20   0  6112  2152  1548 S   0.0   0.0   0:00.00 bash /dev/fd/3
(short-lived processes were not recorded: pscope record ran without CAP_NET_ADMIN)
TXT
check "exactly as the pscope that wrote it showed it" diff "$T/want.txt" "$T/old.txt"
check "nothing said on stderr" test ! -s "$T/old.err"
check "its header says schema 1" sh -c "[ \"\$(od -An -tu2 -j10 -N2 '$old' | tr -d ' ')\" = 1 ]"
TZ=UTC "$PSCOPE" list -r "$old" --at +0s --json >"$T/old0.json"
check "its first interval too (no rates), in JSON" \
	sh -c "jq -e '.recording.interval == 1 and .interval == 0 and (.processes | length) == 1 and .processes[0].pid == 20170' '$T/old0.json' >/dev/null"

# A file recorded now: schema 2, the rows of a known target as written.
sleep 1000 &
S=$!
kill_at_exit $S
"$PSCOPE" record -o "$T/new.rec" -i 0.2 -d 1 --pid "$S" 2>"$T/rec.err"
ok $? "pscope record --pid exits 0"
check "its header says schema 2" sh -c "[ \"\$(od -An -tu2 -j10 -N2 '$T/new.rec' | tr -d ' ')\" = 2 ]"
"$PSCOPE" list -r "$T/new.rec" --json -o pid,ppid,user,state,nice,command >"$T/new.json" 2>"$T/new.err"
ok $? "it replays"
"$PSCOPE" list -i 0 --json -o pid,ppid,user,state,nice,command >"$T/live.json"
keys='{pid,starttime,comm,user,cmdline,ppid,tgid,thread,kernel_thread,uid,priority,nice,virt_kb,res_kb,shr_kb,state,nlwp,command}'
jq -c ".processes[] | select(.pid == $S) | $keys" "$T/new.json" >"$T/new.row"
jq -c ".processes[] | select(.pid == $S) | $keys" "$T/live.json" >"$T/live.row"
check "the replayed row is the live one (every field but the times it was read)" sh -c "test -s '$T/new.row' && diff '$T/live.row' '$T/new.row'"
done_testing
