#!/bin/sh
# JIT code: a tiny JIT (tests/targets/jit) copies code into anonymous
# executable memory and announces it in a JDK-style perf map (0x, rewritten
# whole), a Node-style one (bare hex, appended to) and a jitdump; a second
# function is compiled while pscope samples. Both are named, in top and in
# the stack dump; code no map names says why.
. "$top_srcdir/tests/lib.sh"
tmp=$(mktemp -d /tmp/pscope-jit-e2e.XXXXXX)
at_exit "rm -rf $tmp"
case $(uname -m) in
x86_64) ;;
*) skip "the JIT target is x86-64 code"; done_testing; exit 0 ;;
esac

# jit_run STYLE: start the target, sample it, compile jit_beta once pscope
# samples (its perf events are open), then wait for pscope.
jit_run() {
	"$TARGETS/jit" "$1" >"$tmp/$1.out" 2>&1 &
	JP=$!
	at_exit "kill -9 $JP 2>/dev/null; rm -f /tmp/perf-$JP.map /tmp/jit-$JP.dump"
	poll 100 grep -q ready "$tmp/$1.out" || diag "jit $1 did not get ready"
	"$PSCOPE" stack "$JP" >"$tmp/$1.stack" 2>&1
	"$PSCOPE" top "$JP" --samples 400 --duration 300 --json >"$tmp/$1.json" 2>"$tmp/$1.err" &
	pp=$!
	poll 300 sh -c "ls -l /proc/$pp/fd 2>/dev/null | grep -q perf_event" || diag "pscope top did not start sampling"
	kill -USR1 "$JP"
	poll 100 grep -q beta "$tmp/$1.out" || diag "jit $1 did not compile jit_beta"
	wait "$pp"
	"$PSCOPE" stack "$JP" >"$tmp/$1.stack2" 2>&1
	kill -9 "$JP"
}

# share FILE NAME-REGEX: the self share of the functions matching
share() {
	python3 -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
print(round(sum(f["self_pct"] for f in d["functions"] if re.fullmatch(sys.argv[2], f["name"])), 2))' "$@"
}

for style in jdk node dump; do
	case $style in
	node) a='LazyCompile:\*jit_alpha /srv/app.js:1' b='LazyCompile:\*jit_beta /srv/app.js:1' ;;
	*) a=jit_alpha b=jit_beta ;;
	esac
	jit_run $style
	check "$style: the stack dump names the JIT frame and the caller past it" \
		grep -qE "^#0 0x[0-9a-f]+ $a \(\[anon/JIT\]\)$" "$tmp/$style.stack"
	check "$style: main is the JIT frame's caller, by frame pointers, and the switch is said" \
		sh -c "grep -A2 -E '^#0 .* $a ' '$tmp/$style.stack' | tr '\n' ' ' | grep -qE '^#0 [^#]* -- no CFI for \[anon/JIT\]: the frames below follow frame pointers -- #1 0x[0-9a-f]+ main\+0x'"
	check "$style: the function compiled mid-run is named in the same sampling run" \
		python3 -c "import sys; sys.exit(0 if $(share "$tmp/$style.json" "$b") > 30 else 1)"
	check "$style: no JIT code left unnamed (under 5 % of the samples)" \
		python3 -c "import sys; sys.exit(0 if $(share "$tmp/$style.json" '\[anon/JIT\].*') < 5 else 1)"
	check "$style: a new stack dump names jit_beta" grep -qE "^#0 0x[0-9a-f]+ $b \(\[anon/JIT\]\)$" "$tmp/$style.stack2"
done

# Without any map: the frame says why it has no name.
"$TARGETS/jit" none >/dev/null 2>&1
check "jit: a bad style is refused" test $? = 2
"$TARGETS/hotloop" -j >"$tmp/plain.out" 2>&1 &
HP=$!
at_exit "kill -9 $HP 2>/dev/null"
poll 100 grep -q ready "$tmp/plain.out"
"$PSCOPE" stack "$HP" >"$tmp/plain.stack" 2>&1
check "code no map names: [anon/JIT] (no perf map or jitdump)" \
	grep -qE '^#0 0x[0-9a-f]+ \[anon/JIT\] \(no perf map or jitdump\) \(\[anon/JIT\]\)$' "$tmp/plain.stack"
kill -9 "$HP"
done_testing
