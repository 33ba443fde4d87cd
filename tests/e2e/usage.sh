#!/bin/bash
# The sort keys wherever they are listed (pscope --help, pscope list --help,
# the error for an unknown key, the manual pages) are every key of the
# table in src/proc/ptable-order.c.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
tmp=$(mktemp -d /tmp/pscope-usage.XXXXXX)
at_exit "rm -rf $tmp"

# The keys, read from the table's source: [PSORT_X] = { "name", ...
keys=$(grep -o '\[PSORT_[A-Z_]*\] = { "[a-z_]*"' "$top_srcdir/src/proc/ptable-order.c" | sed 's/.*"\(.*\)"/\1/')
check "the table has 26 keys (the test reads it right)" test "$(printf '%s\n' $keys | wc -l)" = 26

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

done_testing
