#!/bin/sh
# architecture.sh must be able to fail: each rule it checks is broken once,
# in a copy of the tree, and the copy's run must report that rule (and only
# a "not ok" there counts). The unchanged copy must pass.
. "$top_srcdir/tests/lib.sh"

tree=$(mktemp -d /tmp/pscope-arch.XXXXXX)
_cleanups="$_cleanups rm -rf '$tree';"
(cd "$top_srcdir" && { find src ui tests/bench -name '*.[ch]'; echo tests/lib.sh; echo tests/e2e/architecture.sh; } |
	tar -cf - -T -) | tar -C "$tree" -xf - || { echo "Bail out! cannot copy the tree"; exit 1; }
for d in tests/targets; do mkdir -p "$tree/$d"; done

# run: architecture.sh on the copy; its output in $tree/out
run() {
	(cd "$tree" && _PSCOPE_SUITE_LOCK=1 top_srcdir="$tree" top_builddir="$tree" sh tests/e2e/architecture.sh) >"$tree/out" 2>&1
}
# broken DESCRIPTION PATTERN FILE: the copy's run reports a failure whose
# line matches PATTERN and names FILE; then FILE is restored
broken() {
	run
	if grep '^not ok' "$tree/out" | grep -E "$2" | grep -qF "$3"; then
		ok 0 "$1"
	else
		ok 1 "$1"
		grep -E '^(not ok|ok)' "$tree/out" | sed 's/^/#   /' | cut -c1-200 | head -40
	fi
	cp "$top_srcdir/$3" "$tree/$3" 2>/dev/null || rm -f "$tree/$3"
}
# inject FILE TEXT: TEXT appended to the copy's FILE (created if new)
inject() { printf '%s\n' "$2" >>"$tree/$1"; }

run
nfail=$(grep -c '^not ok' "$tree/out")
ok "$([ "$nfail" = 0 ] && grep -q '^1\.\.' "$tree/out"; echo $?)" "the unchanged copy passes ($nfail failed)"
[ "$nfail" = 0 ] || sed 's/^/#   /' "$tree/out" | grep '^#   not ok' | head

# A function marked PS_READS, called from a draw.
reader=$(grep -rhoE '^PS_READS [^(;]*\(' "$tree/src" --include=*.h | sed -E 's/.*[ *]([a-z_][a-z0-9_]*)\($/\1/' | sort -u | head -1)
inject ui/list-view.c "static void injected_draw(void) { (void)$reader(0); }"
broken "a draw that reads the machine ($reader) fails" 'reads the machine' ui/list-view.c

inject ui/pane-fd.c 'static void injected_open(void) { (void)fopen("/proc/self/fdinfo/0", "r"); }'
broken "a pane that opens a file of the machine fails" 'opens no file' ui/pane-fd.c

inject ui/pane-threads.c 'static long injected_peek(int t) { return ptrace(PTRACE_PEEKDATA, t, 0, 0); }'
broken "ptrace called from ui/ fails" 'never calls ptrace' ui/pane-threads.c

inject src/proc/stat.h 'int proc_injected_read(int pid);'
broken "a reader declared without PS_READS fails" 'is marked' src/proc/stat.h

inject src/sample/agg.c 'static long injected_open(void *a) { return syscall(SYS_perf_event_open, a, 0, -1, -1, 0); }'
broken "a second perf_event_open path fails" 'only in src/perf/' src/sample/agg.c

inject src/time/procfs.c 'static void *injected_ring(int fd) { return mmap(0, 4096, 1, 1, fd, 0); /* a perf_ ring */ }'
broken "a perf ring mapped outside src/perf/ fails" 'mapped only in src/perf/' src/time/procfs.c

inject src/sym/proc.c 'static unsigned injected_probe(unsigned i, unsigned cap) { return (i + 1) & (cap - 1); }'
broken "a hand-written probe loop fails" 'one hash table' src/sym/proc.c

inject src/sample/agg.c 'static unsigned injected_hash(unsigned k) { return k * 2654435761u; }'
broken "a multiplicative hash constant outside src/hmap.c fails" 'one hash table' src/sample/agg.c

inject src/util.c '#include <ncursesw/curses.h>'
broken "curses included in src/ fails" 'never includes curses' src/util.c

inject ui/screen-list.c "static int injected_key(int c) { switch (c) { case 'Q': return 1; } return 0; }"
broken "a key switch in a screen fails" 'key tables only' ui/screen-list.c

inject src/util.c '#include "../ui/ui.h"'
broken "src/ including ui/ fails" 'includes nothing of ui/' src/util.c

done_testing
