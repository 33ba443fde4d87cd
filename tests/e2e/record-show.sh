#!/bin/sh
# pscope show -r FILE [--at TIME] PID: what a recording holds of one
# process, exactly, from the schema-1 file kept in tests/fixtures/record/
# (the panes that are not recorded said to be), its JSON, and the errors:
# a PID not in the interval, a bad time, --at without -r.
. "$top_srcdir/tests/lib.sh"
T=$_tlinks
rec=$top_srcdir/tests/fixtures/record/sleep.rec

TZ=UTC "$PSCOPE" show -r "$rec" 20170 --pane all >"$T/show.txt" 2>"$T/show.err"
ok $? "pscope show -r FILE PID --pane all exits 0"
cat >"$T/want.txt" <<'TXT'
Recorded 2026-12-04 02:11:40 (interval 6 of 6, +1.1 s from the start; asked for 2026-12-04 02:11:40)
PID 20170 (bash)  user root  state S (sleeping)  threads 1  RSS 2.1M  up 1 s
Command: bash /dev/fd/3

== status  (source: the recording's row of the process list; rates over the interval before)
State            S (sleeping)
PPid             20166
Uid              0 (root)
Threads          1
Priority         20  nice 0
VmSize                 6112 kB  6.0M
VmRSS                  2152 kB  2.1M
Shared                 1548 kB  1.5M
Memory           0.0%
Major faults     0
CPU              0.0%  (time 0:00.00)
Last CPU         0
TTY              ?
Context switches 2  (0.0/s)
Storage I/O      read 0/s  write 0/s  (read_bytes 28672, write_bytes 12288)
oom_score        666
Cgroup           /
Started          2026-12-04 02:11:38 (up 1 s)

== children in this interval
(none)
(short-lived children were not recorded: pscope record ran without CAP_NET_ADMIN)

== fd, maps, mem, threads, time: not recorded (a recording holds the process list and the short-lived processes)
TXT
check "the recorded status, children, and the panes not recorded, exactly" diff "$T/want.txt" "$T/show.txt"
check "nothing on stderr" test ! -s "$T/show.err"

TZ=UTC "$PSCOPE" show -r "$rec" --at +0s 20170 >"$T/first.txt"
ok $? "--at +0s exits 0"
check "the first interval is named" grep -qxF 'Recorded 2026-12-04 02:11:39 (interval 1 of 6, +0.0 s from the start; asked for 2026-12-04 02:11:39)' "$T/first.txt"
check "and has no rates yet" grep -qxF 'CPU              - (the first interval: no rates)  (time 0:00.00)' "$T/first.txt"
check "nor rates of its counters" grep -qxF 'Storage I/O      read_bytes 28672, write_bytes 12288' "$T/first.txt"
check "only the status pane by default" sh -c "! grep -q 'not recorded (' '$T/first.txt'"

TZ=UTC "$PSCOPE" show -r "$rec" 20170 --json --pane status,fd >"$T/show.json"
ok $? "--json exits 0"
check "the JSON: the process, the interval, the recorded status, the panes not recorded" sh -c "jq -e '
	.pid == 20170 and .comm == \"bash\" and .cmdline == \"bash /dev/fd/3\" and
	.recording.interval == 6 and .recording.intervals == 6 and .recording.short_lived_recorded == false and
	.panes.status.state == \"S\" and .panes.status.ppid == 20166 and .panes.status.vm_rss_kb == 2152 and
	.panes.status.cpu_pct == 0 and .panes.status.read_bytes == 28672 and .panes.status.children == [] and
	(.panes.status | has(\"short_lived_children\") | not) and .not_recorded == [\"fd\"]' '$T/show.json' >/dev/null"
TZ=UTC "$PSCOPE" show -r "$rec" --at +0s 20170 --json >"$T/first.json"
check "the first interval's cpu_pct is null (no rates), not 0" sh -c "jq -e '.panes.status.cpu_pct == null and (.panes.status | has(\"read_bytes_per_s\") | not)' '$T/first.json' >/dev/null"

TZ=UTC "$PSCOPE" show -r "$rec" 4242 >/dev/null 2>"$T/err"
ok $(($? != 1)) "a PID not in the interval fails (1)"
check "naming the interval" sh -c "grep -qxF 'pscope show: process 4242 is not in the recording'\\''s interval 6 (2026-12-04 02:11:40)' '$T/err'"
"$PSCOPE" show -r "$rec" --at 'noon' 20170 >/dev/null 2>"$T/err"
ok $(($? != 2)) "a bad --at is a usage error (2)"
check "that names the forms" grep -qF "pscope: invalid time 'noon' (HH:MM[:SS]" "$T/err"
"$PSCOPE" show --at +1s $$ >/dev/null 2>"$T/err"
ok $(($? != 2)) "--at without -r is a usage error"
"$PSCOPE" show -r "$T/none.rec" 1 >/dev/null 2>"$T/err"
ok $(($? != 1)) "a missing file fails"
check "naming it" grep -qF "pscope show: $T/none.rec: cannot open: No such file or directory" "$T/err"
done_testing
