#!/bin/sh
# pscope's CPython field offsets, proven against the headers installed with
# each interpreter on this machine (pyenv builds carry include/python3.X/
# internal). A version that is not installed is a SKIP, never a pass.
. "$top_srcdir/tests/lib.sh"

root=$(pyenv root 2>/dev/null || echo /root/.pyenv)
tmp=$(mktemp -d)
at_exit "rm -rf $tmp"
for minor in 9 10 11 12 13; do
	dir=$(ls -d "$root"/versions/3."$minor".* 2>/dev/null | tail -1)
	inc=$dir/include/python3.$minor
	if [ -z "$dir" ] || [ ! -d "$inc/internal" ]; then
		skip "3.$minor: no interpreter with headers under $root/versions"
		continue
	fi
	libs=""
	[ "$minor" -ge 13 ] && libs="-L$dir/lib -Wl,-rpath,$dir/lib -lpython3.$minor"
	# shellcheck disable=SC2086
	if ! cc -std=gnu11 -I"$inc" -I"$inc/internal" -I"$top_srcdir/src" -o "$tmp/check$minor" \
		"$top_srcdir/tests/python/layout-check.c" "$top_srcdir/src/python/layout.c" $libs >"$tmp/cc.log" 2>&1; then
		ok 1 "3.$minor: the offsetof checks compile against $inc"
		sed 's/^/#   /' "$tmp/cc.log" | head -20
		continue
	fi
	ok 0 "3.$minor: the offsetof checks compile against $inc"
	"$tmp/check$minor" >"$tmp/out$minor"
	rc=$?
	grep -v '^ok ' "$tmp/out$minor" | sed 's/^/#   /'
	ok $rc "3.$minor: every field pscope reads sits where $(basename "$dir")'s headers put it ($(grep -c '^ok ' "$tmp/out$minor") fields)"
done
done_testing
