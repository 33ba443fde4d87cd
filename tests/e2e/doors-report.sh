#!/bin/sh
# pscope doors --report FILE: the classroom report, written whole or not at
# all. Its values are this machine's, it names the probed process, it is
# Korean under LANG=ko_KR.UTF-8, --json puts the JSON report in the file,
# and a missing directory, a read-only filesystem or a full disk fail with
# status 1, the cause and the fix, leaving the old file and no temporary
# file behind. (The exact wording is checked by tests/unit/test-doors-report.)
. "$top_srcdir/tests/lib.sh"

out=$(mktemp -d /tmp/pscope-report.XXXXXX)
at_exit "rm -rf $out"

msg=$($PSCOPE doors --report "$out/r.md" 2>&1)
ok $? "pscope doors --report runs"
check "it says where the report went" test "$msg" = "Doors report written to $out/r.md"
check "the report is Markdown with its title" sh -c "head -1 '$out/r.md' | grep -qx '# pscope doors report'"
p=$(cat /proc/sys/kernel/perf_event_paranoid)
check "perf_event_paranoid is /proc/sys's ($p)" grep -q "^| \`kernel.perf_event_paranoid\` | \*\*[a-zA-Z]*\*\*: $p[ ;|]" "$out/r.md"
check "core_pattern is /proc/sys's" grep -qF "| \`kernel.core_pattern\` | " "$out/r.md"
for d in kernel.yama.ptrace_scope kernel.kptr_restrict CAP_SYS_PTRACE CAP_PERFMON CAP_BPF seccomp; do
	check "a row for the door $d" grep -q "^| \`$d\` | \*\*" "$out/r.md"
done
check "the tool table has a pod column" grep -qx '| tool | kernel calls | door | your processes | other users'"'"' | pod without capabilities |' "$out/r.md"
check "in a pod perf is closed, the CPython sampler open" sh -c \
	"grep -q '^| perf record -p PID / perf top -p | .* | CLOSED |\$' '$out/r.md' && grep -q '^| pscope hot functions, CPython | .* | open |\$' '$out/r.md'"
check "every table row has its columns (a '|' in a cell is escaped)" awk -F'(^|[^\\\\])[|]' '
	/^\| (door|tool|operation) \|/ { n = NF } /^\|/ && NF != n { bad = 1; print } END { exit bad }' "$out/r.md"
check "no temporary file is left" test "$(ls -A "$out")" = "r.md"

# Again over the old one, with a process probed.
start_target lab-fdleak 100 || exit 1
$PSCOPE doors $TPID --report "$out/r.md" >/dev/null 2>&1
ok $? "a second report replaces the first"
check "it names the probed process" grep -qx "## Process $TPID (lab-fdleak)" "$out/r.md"
check "each operation has its row" sh -c "[ \$(grep -cE '^\| (read /proc|read memory|attach \(ptrace\)|sample \(perf_event_open\)|write a core|send a signal) \| \*\*' '$out/r.md') = 6 ]"
check "root may attach to it" grep -q '^| attach (ptrace) | \*\*open\*\* ' "$out/r.md"
check "the probes left it running, untraced" runs_on_soon $TPID
check "still no temporary file" test "$(ls -A "$out")" = "r.md"

# JSON in the file: the report `pscope doors --json` prints.
$PSCOPE doors $TPID --json --report "$out/r.json" >/dev/null 2>&1
ok $? "--json --report runs"
check "the file holds the JSON report" python3 - "$out/r.json" "$TPID" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["target"]["pid"] == int(sys.argv[2]), d["target"]
assert set(d) >= {"system", "self", "tools", "operations", "probed_at"}, d.keys()
PY

# Korean.
if grep -q '^#define ENABLE_NLS 1' "$top_builddir/config.h" && locale -a 2>/dev/null | grep -qi '^ko_KR\.utf-\?8$'; then
	msg=$(LANG=ko_KR.UTF-8 LC_ALL= LANGUAGE= $PSCOPE doors --report "$out/ko.md" 2>&1)
	check "Korean: it says where the report went" test "$msg" = "문 보고서를 $out/ko.md에 썼습니다"
	check "Korean: the title" sh -c "head -1 '$out/ko.md' | grep -qx '# pscope 문 보고서'"
	check "Korean: the doors table" grep -qx '| 문 | 이 머신 | 막는 것 | 여는 법 |' "$out/ko.md"
	check "Korean: the pod column" grep -q '| capability 없는 파드 |$' "$out/ko.md"
else
	skip "Korean: no NLS or no ko_KR.UTF-8 locale"
fi

# Failures: status 1, the cause and the fix; the old file stays, nothing
# else is left.
$PSCOPE doors --report "$out/no/such/dir/r.md" >/dev/null 2>"$out/e1"
ok "$([ $? = 1 ]; echo $?)" "a missing directory: status 1"
check "a missing directory: cause and fix" grep -qxF "pscope doors: cannot write $out/no/such/dir/r.md: No such file or directory (door: filesystem; fix: the directory does not exist: create it or choose another)" "$out/e1"
$PSCOPE doors --report "" >/dev/null 2>"$out/e2"
ok "$([ $? = 2 ]; echo $?)" "an empty file name is a usage error"
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	mkdir "$out/mnt"
	# A private mount namespace: the tiny filesystems exist only there.
	unshare -m sh -c "mount -t tmpfs -o size=4k tmpfs '$out/mnt' && echo old >'$out/mnt/r.md' &&
		$PSCOPE doors --report '$out/mnt/r.md' >/dev/null 2>'$out/e3'; echo \$? >'$out/rc3';
		cat '$out/mnt/r.md' >'$out/kept3'; ls -A '$out/mnt' >'$out/ls3';
		mount -o remount,ro '$out/mnt' && $PSCOPE doors --report '$out/mnt/r.md' >/dev/null 2>'$out/e4'; echo \$? >'$out/rc4'"
	check "a full disk: status 1" test "$(cat "$out/rc3")" = 1
	check "a full disk: cause and fix" grep -qxF "pscope doors: cannot write $out/mnt/r.md: No space left on device (door: filesystem; fix: free some space or write to a larger filesystem; df -h shows what is free)" "$out/e3"
	check "a full disk: the old report is kept" test "$(cat "$out/kept3")" = old
	check "a full disk: no temporary file is left" test "$(cat "$out/ls3")" = r.md
	check "a read-only filesystem: status 1" test "$(cat "$out/rc4")" = 1
	check "a read-only filesystem: cause and fix" grep -qxF "pscope doors: cannot write $out/mnt/r.md: Read-only file system (door: filesystem; fix: the filesystem is read-only: write elsewhere)" "$out/e4"
else
	skip "no unshare -m here: the full-disk and read-only cases are not checked"
fi
done_testing
