#!/bin/bash
# Names a target controls: a C++ symbol bomb (a 200-byte mangled name that
# demangles to about 500 MB) under stack and top, and hostile perf maps
# (a symbolic link to a file of root's or to /dev/zero, a FIFO, a 2 GB
# file, names with escape sequences, a name of 4 KiB). Each is refused or
# cut, and the output says which cap or rule it met.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/hostile-lib.sh"

# Peak memory of a command (GNU time), or nothing without it.
maxrss() { # maxrss OUT ARGS...: run ARGS, the peak RSS in KiB in $HBASE/rss
	local out=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$HBASE/rss" timeout 300 "$@" >"$out" 2>"$HBASE/err"
	else
		timeout 300 "$@" >"$out" 2>"$HBASE/err"
	fi
	RC=$?
}

# ---- the symbol bomb ----
cp "$TARGETS/hostile-names" "$HD/" && chown nobody:nogroup "$HD/hostile-names"
hostile_start hostile-names "$HD/hostile-names" || exit 1
B=$HPID
maxrss "$HBASE/bomb.stack" "$PSCOPE" stack "$B"
hostile_end "stack of a symbol bomb" "$B"
check "stack of a symbol bomb: the name is cut at 1 KiB, and says so" grep -q '^#0 .*void spin<void (\*)(.*…\[name cut at 1024 bytes\]+0x[0-9a-f]* (hostile-names)$' "$HBASE/bomb.stack"
check "stack of a symbol bomb: no line over 1200 bytes" awk 'length($0) > 1200 { exit 1 }' "$HBASE/bomb.stack"
if [ -s "$HBASE/rss" ]; then
	diag "stack of the bomb: peak RSS $(cat "$HBASE/rss") KiB"
	check "stack of a symbol bomb: under 150 MiB (whole, the name alone is ~500 MB)" test "$(cat "$HBASE/rss")" -lt 153600
else
	skip "GNU time is not installed: the peak memory is not measured"
fi
maxrss "$HBASE/bomb.top" "$PSCOPE" top "$B" --samples 100 --json
hostile_end "top of a symbol bomb" "$B"
check "top of a symbol bomb: the hot function, cut with the mark" grep -q 'void spin<void (\*)(.*…\[name cut at 1024 bytes\]' "$HBASE/bomb.top"
if [ -s "$HBASE/rss" ]; then
	diag "top of the bomb: peak RSS $(cat "$HBASE/rss") KiB"
	check "top of a symbol bomb: under 200 MiB" test "$(cat "$HBASE/rss")" -lt 204800
fi
kill -9 "$B"

# ---- hostile perf maps: JIT code in a thread of hotloop -j ----
cp "$TARGETS/hotloop" "$HD/" && chown nobody:nogroup "$HD/hotloop"
hostile_start hotloop "$HD/hotloop" -j || exit 1
J=$HPID
MAP=/tmp/perf-$J.map
at_exit "rm -f $MAP"
jit_case() { # jit_case CASE EXPECTED-NAME-REGEX
	hpscope top "$J" --samples 150 --json >"$HBASE/jit.json"
	hostile_end "perf map $1" "$J"
	check "perf map $1: the JIT code is named '$2'" has_function "$HBASE/jit.json" "$2"
}
has_function() { # has_function JSON REGEX: a function's whole name matches
	python3 -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
sys.exit(not any(re.fullmatch(sys.argv[2], f["name"]) for f in d["functions"]))' "$@"
}
$AS_NOBODY ln -s "$ROOTF/secret" "$MAP"
jit_case "a symbolic link to a file of root's" '\[anon/JIT\] \(its perf map is a symbolic link: not read\)'
rm -f "$MAP"
$AS_NOBODY ln -s /dev/zero "$MAP"
jit_case "a symbolic link to /dev/zero" '\[anon/JIT\] \(its perf map is a symbolic link: not read\)'
rm -f "$MAP"
$AS_NOBODY mkfifo "$MAP"
jit_case "a FIFO" '\[anon/JIT\] \(its perf map is not a regular file: not read\)'
rm -f "$MAP"
$AS_NOBODY truncate -s 2G "$MAP"
jit_case "of 2 GB" '\[anon/JIT\] \(its perf map is over the 64 MiB cap: not read\)'
rm -f "$MAP"
# The code's address, from the maps: the anonymous r-x mapping.
CODE=$(awk '$2 == "r-xp" && $6 == "" { split($1, a, "-"); print a[1]; exit }' /proc/$J/maps)
$AS_NOBODY sh -c "printf '%s 1000 \033]2;PWNED\007jit\033[2J\n' $CODE >'$MAP'"
hpscope top "$J" --samples 150 >"$HBASE/jit.txt"
hostile_end "perf map with escape sequences" "$J"
check "perf map with escape sequences: named, the sequences escaped" grep -q 'PWNED.*jit' "$HBASE/jit.txt"
check "perf map with escape sequences: no escape byte reaches the output" sh -c "! grep -q \"\$(printf '\033')\" '$HBASE/jit.txt'"
long=$(head -c 4096 /dev/zero | tr '\0' 'x')
$AS_NOBODY sh -c "printf '%s 1000 %s\n' $CODE $long >'$MAP'"
jit_case "with a 4 KiB name" 'x{1024}…\[name cut at 1024 bytes\]'

done_testing
