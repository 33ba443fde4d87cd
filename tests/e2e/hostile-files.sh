#!/bin/bash
# Files that change under pscope: nobody runs a target that keeps cutting
# short, filling with junk and restoring the part of its library that is
# not mapped (symbol tables, DWARF, section headers), and replaces its
# executable by a new file, while root runs top, stack, core, the TUI's
# hot view and reads a core nobody keeps cutting short. A file mapped by a
# reader that shrinks raises SIGBUS: pscope reads such files from private
# copies (src/sym/file.c) and never crashes.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/hostile-lib.sh"

cp "$TARGETS/hostile-file" "$TARGETS/hostile-lib.so" "$HD/"
chown nobody:nogroup "$HD"/hostile-file "$HD"/hostile-lib.so
hostile_start hostile-file "$HD/hostile-file" "$HD/hostile-lib.so" --exe || exit 1
T=$HPID

# The kernel refuses to rewrite an executable while it runs (ETXTBSY): the
# executable can only be replaced by a new file.
check "the kernel refuses to rewrite the running executable (text file busy)" grep -q "exe: Text file busy" "$HD/hostile-file.out"

for i in 1 2 3; do
	hpscope top "$T" --samples 300 --freq 999 >"$HBASE/top.$i"
	hostile_end "top, run $i" "$T"
done
check "top: the library's functions are named" grep -qE 'hostile_work_[0-9]+ +hostile-lib\.so' "$HBASE/top.1"

for i in 1 2 3 4 5; do
	hpscope stack "$T" >"$HBASE/stack.$i"
	hostile_end "stack, run $i" "$T"
done
check "stack: the thread's frames, from the library to main" grep -qE '^#1 .* main\+0x[0-9a-f]+ \(hostile-file\)' "$HBASE/stack.1"

# The executable replaced by a new file (a new inode) while it runs.
$AS_NOBODY sh -c "cp '$HD/hostile-file' '$HD/x.new' && mv -f '$HD/x.new' '$HD/hostile-file'"
hpscope stack "$T" >"$HBASE/stack.r"
hostile_end "stack, executable replaced" "$T"
check "stack, executable replaced: still named, the module marked deleted" grep -qE "main\+0x[0-9a-f]+ \(hostile-file \(deleted\)\)" "$HBASE/stack.r"

mkdir -m 700 "$HBASE/cores"
hpscope core "$T" -o "$HBASE/cores/c1" >"$HBASE/core.out"
hostile_end "core" "$T"
check "core: written" test -s "$HBASE/cores/c1"

# The TUI's hot view on the target.
export PSCOPE_DATA="${PSCOPE_DATA:-$top_srcdir/data}"
tui_start 140x40 "cd $HBASE && $PSCOPE -p $T 2>$HBASE/err; echo exit=\$? >$HBASE/tui.rc"
tui_keys h
check "TUI: the hot view names the library's functions" tui_wait_for 'hostile_work_[0-9]+ +hostile-lib' 100
tui_keys Escape Escape q
poll 100 test -s "$HBASE/tui.rc"
RC=$(sed 's/exit=//' "$HBASE/tui.rc")
hostile_end "TUI hot view" "$T"

# A core nobody owns and keeps cutting short and restoring while root
# reads it: read from a private copy.
cp "$HBASE/cores/c1" "$HD/core" && cp "$HBASE/cores/c1" "$HD/core.orig"
chown nobody:nogroup "$HD/core" "$HD/core.orig"
$AS_NOBODY sh -c "while :; do truncate -s 65536 '$HD/core'; cat '$HD/core.orig' >'$HD/core'; done" &
CUT=$!
kill_at_exit $CUT
for i in 1 2 3; do
	hpscope stack --core "$HD/core" >"$HBASE/cstack.$i"
	hostile_end "stack --core of a core being cut short, run $i"
done
kill $CUT
wait $CUT 2>/dev/null
# The loop may have stopped between its truncate and its copy: the core
# whole again before the read that names the library's frames.
cat "$HD/core.orig" >"$HD/core"
hpscope stack --core "$HD/core" >"$HBASE/cstack.w"
check "stack --core of nobody's core: the library's frames named" grep -qE 'hostile_work_[0-9]+\+0x[0-9a-f]+ \(hostile-lib\.so\)' "$HBASE/cstack.w"
hostile_end "stack --core of nobody's core"

done_testing
