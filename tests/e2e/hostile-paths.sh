#!/bin/bash
# Paths a target or a core names, opened by root: what stands there by the
# time pscope opens it can be a FIFO (an open blocks until a writer comes),
# a device (an open runs its driver) or a link to a file of root's. nobody
# gets there with a mount namespace of its own (a tmpfs over the
# directory of its library, a private /tmp beside the host's jitdump
# path), or by replacing a file a core names. pscope looks every such path
# up without opening it (O_PATH), opens regular files only, reads the
# mapped file itself through /proc/PID/map_files, and says why it did not
# read one. A library grown past the copy cap is named with the cap.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/hostile-lib.sh"

if ! $AS_NOBODY unshare -Urm true 2>/dev/null || ! command -v nsenter >/dev/null; then
	skip "needs user namespaces for nobody (unshare -Urm) and nsenter"
	done_testing
	exit 0
fi

# A blocked open is the failure looked for: a much shorter cap than
# hpscope's.
hpscope_short() { # hpscope_short ARGS...
	timeout 60 "$PSCOPE" "$@" 2>"$HBASE/err"
	RC=$?
}
has_function() { # has_function JSON REGEX: a function's whole name matches
	python3 -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
sys.exit(not any(re.fullmatch(sys.argv[2], f["name"]) for f in d["functions"]))' "$@"
}

cp "$TARGETS/hostile-file" "$TARGETS/jit" "$HD/"
mkdir "$HD/lib" && cp "$TARGETS/hostile-lib.so" "$HD/lib/"
chown -R nobody:nogroup "$HD"

# ---- a library covered, in the target's own mount namespace ----
# The maps still name $HD/lib/hostile-lib.so, which /proc/PID/root now
# resolves to what nobody put on its tmpfs.
cover_case() { # cover_case CASE COMMAND-IN-THE-NAMESPACE
	hostile_start hostile-ns unshare -Urm "$HD/hostile-file" "$HD/lib/hostile-lib.so" --still || { ok 1 "$1: the target started"; return; }
	local ns_pid=$HPID
	nsenter -t "$ns_pid" -m sh -c "mount -t tmpfs -o mode=755 hostile '$HD/lib' && $2"
	hpscope_short stack "$ns_pid" >"$HBASE/stack"
	hostile_end "stack, library covered by $1" "$ns_pid"
	check "stack, library covered by $1: the library's frames named from the mapped file" \
		grep -qE '^#0 .* hostile_work_[0-9]+\+0x[0-9a-f]+ \(hostile-lib\.so\)$' "$HBASE/stack"
	hpscope_short top "$ns_pid" --samples 100 --json >"$HBASE/top.json"
	hostile_end "top, library covered by $1" "$ns_pid"
	check "top, library covered by $1: the library's functions named" \
		has_function "$HBASE/top.json" 'hostile_work_[0-9]+'
	if [ "${3:-}" = tui ]; then
		# The TUI's hot view: its sampler on a worker, never blocked.
		tui_start 140x40 "cd $HBASE && $PSCOPE -p $ns_pid 2>$HBASE/err; echo exit=\$? >$HBASE/tui.rc"
		tui_keys h
		check "TUI hot view, library covered by $1: the library's functions named" \
			tui_wait_for 'hostile_work_[0-9]+ +hostile-lib' 100
		tui_keys Escape Escape q
		poll 100 test -s "$HBASE/tui.rc"
		RC=$(sed 's/exit=//' "$HBASE/tui.rc")
		rm -f "$HBASE/tui.rc"
		hostile_end "TUI hot view, library covered by $1" "$ns_pid"
	fi
	kill -9 "$ns_pid"
	wait "$ns_pid" 2>/dev/null
}
export PSCOPE_DATA="${PSCOPE_DATA:-$top_srcdir/data}"
cover_case "a FIFO" "mkfifo '$HD/lib/hostile-lib.so'" tui
cover_case "a link to a file of root's" "ln -s '$ROOTF/secret' '$HD/lib/hostile-lib.so'"
cover_case "a device (/dev/null bound over it)" \
	"touch '$HD/lib/hostile-lib.so' && mount --bind /dev/null '$HD/lib/hostile-lib.so'"

# ---- a core whose library is now a FIFO ----
hostile_start hostile-file "$HD/hostile-file" "$HD/lib/hostile-lib.so" --still || exit 1
T=$HPID
mkdir -m 700 "$HBASE/cores"
hpscope core "$T" -o "$HBASE/cores/c1" >"$HBASE/core.out"
hostile_end "core" "$T"
kill -9 "$T"
wait "$T" 2>/dev/null
$AS_NOBODY sh -c "rm -f '$HD/lib/hostile-lib.so' && mkfifo '$HD/lib/hostile-lib.so'"
hpscope_short stack --core "$HBASE/cores/c1" >"$HBASE/cstack"
hostile_end "stack --core, the core's library now a FIFO"
check "stack --core, the core's library now a FIFO: says it is not a regular file" \
	grep -q 'hostile-lib.so: cannot open .*/lib/hostile-lib.so (not a regular file): frames in it are not named' "$HBASE/err"
offset_and_stop() { # the library's frame by offset, then why the unwinding stopped there
	grep -A1 -E '^#0 0x[0-9a-f]+ hostile-lib\.so\+0x[0-9a-f]+ \(hostile-lib\.so\)$' "$1" |
		grep -q '^ *unwinding stopped: no CFI'
}
check "stack --core, the core's library now a FIFO: its frame by offset, the stop said" \
	offset_and_stop "$HBASE/cstack"
hpscope_short stack --core "$HBASE/cores/c1" --json >"$HBASE/cstack.json"
hostile_end "stack --core --json, the core's library now a FIFO"
check "stack --core --json: the module's status and the warning" python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
m = [m for m in d["core"]["modules"] if m["path"].endswith("/hostile-lib.so")]
sys.exit(not (m and m[0]["status"] != "ok" and any("not a regular file" in w for w in d["core"]["warnings"])))' "$HBASE/cstack.json"
rm -f "$HD/lib/hostile-lib.so"

# ---- the host's jitdump path, for a target with a /tmp of its own ----
# The jit target maps /tmp/jit-PID.dump on its private tmpfs; pscope finds
# the path in the maps and opens it on the host, where nobody put
# something else.
jit_case() { # jit_case CASE COMMAND EXPECTED-NAME-REGEX
	hostile_start jit-ns unshare -Urm sh -c "cd '$HD' && mount -t tmpfs hostile /tmp && exec ./jit dump" || { ok 1 "$1: the target started"; return; }
	local ns_pid=$HPID dump=/tmp/jit-$HPID.dump
	at_exit "rm -f $dump"
	$AS_NOBODY sh -c "$(printf "$2" "$dump")"
	hpscope_short top "$ns_pid" --samples 100 --json >"$HBASE/jit.json"
	hostile_end "jitdump $1" "$ns_pid"
	check "jitdump $1: the JIT code is named '$3'" has_function "$HBASE/jit.json" "$3"
	kill -9 "$ns_pid"
	wait "$ns_pid" 2>/dev/null
	rm -f "$dump"
}
jit_case "a FIFO" "mkfifo '%s'" '\[anon/JIT\] \(its jitdump is not a regular file: not read\)'
jit_case "a link to a file of root's" "ln -s '$ROOTF/secret' '%s'" \
	'\[anon/JIT\] \(its jitdump is a symbolic link: not read\)'
jit_case "not a jitdump" "yes x | head -c 4096 >'%s'" '\[anon/JIT\] \(its jitdump is not in the jitdump format: not read\)'

# ---- a library its owner grew past the copy cap ----
cp "$TARGETS/hostile-lib.so" "$HD/lib/" && chown nobody:nogroup "$HD/lib/hostile-lib.so"
hostile_start hostile-file "$HD/hostile-file" "$HD/lib/hostile-lib.so" --still || exit 1
T=$HPID
$AS_NOBODY truncate -s 1100M "$HD/lib/hostile-lib.so"
hpscope stack "$T" >"$HBASE/stack"
hostile_end "stack, library over the copy cap" "$T"
check "stack, library over the copy cap: its frames say the cap" \
	grep -qE '^#0 .* hostile-lib\.so\+0x[0-9a-f]+ \(over the 1 GiB cap for copying a file its owner can change\) \(hostile-lib\.so\)$' "$HBASE/stack"
hpscope top "$T" --samples 100 --json >"$HBASE/top.json"
hostile_end "top --json, library over the copy cap" "$T"
check "top --json, library over the copy cap: its functions say the cap" \
	has_function "$HBASE/top.json" 'hostile-lib\.so\+0x[0-9a-f]+ \(over the 1 GiB cap for copying a file its owner can change\)'

done_testing
