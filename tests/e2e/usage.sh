#!/bin/bash
# The sort keys wherever they are listed (pscope --help, pscope list --help,
# the error for an unknown key, the manual pages) are every key of the
# table in src/proc/ptable-order.c. Every usage error of every command and
# of the screen's own options: exit 2, "pscope: MESSAGE", then one
# "Try 'pscope [COMMAND] --help' for more information." line.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
tmp=$(mktemp -d /tmp/pscope-usage.XXXXXX)
at_exit "rm -rf $tmp"

# The keys, read from the table's source: [PSORT_X] = { "name", ...
keys=$(grep -o '\[PSORT_[A-Z_]*\] = { "[a-z_]*"' "$top_srcdir/src/proc/ptable-order.c" | sed 's/.*"\(.*\)"/\1/')
check "the table has 31 keys (the test reads it right)" test "$(printf '%s\n' $keys | wc -l)" = 31

"$PSCOPE" --help >"$tmp/help"
"$PSCOPE" list --help >"$tmp/list-help"
"$PSCOPE" list --sort nosuch 2>"$tmp/list-err" >/dev/null
check "list --sort nosuch: exit 2" test $? = 2
# the key lists only (after their heading), as words
sed -n '/^Sort keys/,/^$/p' "$tmp/help" | tr ', ' '\n\n' | grep -v '^$' >"$tmp/help-keys"
sed -n '/^Sort keys/,$p' "$tmp/list-help" | tr ', ' '\n\n' | grep -v '^$' >"$tmp/list-keys"
sed -n 's/.*(one of: \(.*\))$/\1/p' "$tmp/list-err" | tr ', ' '\n\n' | grep -v '^$' >"$tmp/err-keys"
man_keys() { # the words of the paragraph that documents the sort keys
	sed -n "/$2/,/^\\.TP/p" "$1" | tr ',() \n' '\n\n\n\n\n' | grep -v '^$'
}
man_keys "$top_srcdir/doc/pscope.1" 'sort..key =' >"$tmp/man-s"
man_keys "$top_srcdir/doc/pscope.1" 'B pscope list ' >"$tmp/man-list"
man_keys "$top_srcdir/doc/ko/pscope.1" 'sort..key =' >"$tmp/ko-s"
man_keys "$top_srcdir/doc/ko/pscope.1" 'B pscope list ' >"$tmp/ko-list"
for k in $keys; do
	for f in help-keys list-keys err-keys man-s man-list ko-s ko-list; do
		grep -qx -- "$k" "$tmp/$f" || echo "$f: $k" >>"$tmp/missing"
	done
done
check "every key in pscope --help, pscope list --help, the error for an unknown key and both manual pages" \
	sh -c "! cat '$tmp/missing' 2>/dev/null | grep ."
check "pscope list --sort nosuch names the key" grep -q "unknown sort key 'nosuch'" "$tmp/list-err"
# Every key listed sorts: pscope list takes each.
for k in $keys; do
	"$PSCOPE" list --sort "$k" --interval 0 >/dev/null 2>>"$tmp/sort-err" || echo "$k" >>"$tmp/sort-bad"
done
check "pscope list --sort takes every key listed" sh -c "! cat '$tmp/sort-bad' 2>/dev/null | grep ."

# usage_error SUB DESCRIPTION ARGS...: pscope ARGS is a usage error of SUB
# ("" for the screen's options).
usage_error() {
	local sub=$1 what=$2; shift 2
	"$PSCOPE" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	local rc=$? try="Try 'pscope ${sub:+$sub }--help' for more information."
	if [ $rc = 2 ] && head -n 1 "$tmp/err" | grep -q '^pscope: ' &&
		[ "$(grep -cxF "$try" "$tmp/err")" = 1 ] && [ "$(tail -n 1 "$tmp/err")" = "$try" ] &&
		[ "$(wc -l <"$tmp/err")" = 2 ] && [ ! -s "$tmp/out" ]; then
		ok 0 "pscope $*: $what: exit 2, pscope: MESSAGE, then the Try line"
	else
		ok 1 "pscope $*: $what: exit 2, pscope: MESSAGE, then the Try line"
		diag "exit $rc"; sed 's/^/#   /' "$tmp/err"
	fi
}
sleep 600 &
live=$!
kill_at_exit $live
# the screen's own options
usage_error "" "an unknown option" --frobnicate
usage_error "" "an unknown short option" -x
usage_error "" "a missing value" -s
usage_error "" "a missing value (long)" --delay
usage_error "" "a bad delay" -d abc
usage_error "" "a bad PID" -p abc
usage_error "" "a bad sort key" -s nosuch
usage_error "" "an unexpected argument" -t extra
usage_error "" "an unknown command" nosuch
# each command: a bad option, a missing value or argument, a bad value
usage_error list "an unknown option" list --frobnicate
usage_error list "a missing value" list --sort
usage_error list "a bad sort key" list --sort nosuch
usage_error list "a bad interval" list --interval abc
usage_error list "an unexpected argument" list extra
usage_error show "an unknown option" show --frobnicate "$live"
usage_error show "a missing PID" show
usage_error show "a missing value" show "$live" --pane
usage_error show "a bad PID" show abc
usage_error show "a bad pane" show --pane nosuch "$live"
usage_error stack "an unknown option" stack --frobnicate "$live"
usage_error stack "a missing PID" stack
usage_error stack "a missing value" stack "$live" --max-frames
usage_error stack "a bad PID" stack abc
usage_error stack "a bad value" stack --max-frames abc "$live"
usage_error stack "a PID and --core" stack --core /nonexistent "$live"
usage_error top "an unknown option" top --frobnicate
usage_error top "a missing value" top --freq
usage_error top "a bad value" top --freq abc
usage_error top "a bad PID" top abc
usage_error top "--all with a PID" top --all "$live"
usage_error core "an unknown option" core --frobnicate "$live"
usage_error core "a missing PID" core
usage_error core "a missing value" core "$live" --method
usage_error core "a bad value" core --method nosuch "$live"
usage_error core "a bad PID" core abc
usage_error cores "an unknown option" cores --frobnicate
usage_error cores "a missing value" cores --dir
usage_error cores "an unexpected argument" cores extra
usage_error doors "an unknown option" doors --frobnicate
usage_error doors "a missing value" doors --report
usage_error doors "a bad PID" doors abc
# getopt's messages name pscope, not the path it was run by
"$PSCOPE" -s 2>"$tmp/err"
check "a missing value names pscope, not argv[0]" grep -qx "pscope: option '-s' needs a value" "$tmp/err"
"$PSCOPE" list -Z 2>"$tmp/err"
check "an unknown short option named as typed" grep -qx "pscope: unknown option '-Z'" "$tmp/err"

done_testing
