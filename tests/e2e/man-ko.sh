#!/bin/sh
# The Korean manual page: doc/ko/pscope.1 renders with man -l (and groff)
# without a warning, has the English page's sections, commands and
# options, and `make install` puts it under $(mandir)/ko/man1, where
# `man -L ko` finds it; the Korean help texts are installed beside the
# English ones.
. "$top_srcdir/tests/lib.sh"
ko=$top_srcdir/doc/ko/pscope.1
en=$top_srcdir/doc/pscope.1

check "doc/ko/pscope.1 exists" test -s "$ko"
check "doc/ko/pscope.1 is valid UTF-8" iconv -f UTF-8 -t UTF-8 -o /dev/null "$ko"
check "doc/ko/pscope.1 is Korean" grep -q '스택' "$ko"
if ! command -v groff >/dev/null || ! command -v man >/dev/null; then
	skip "groff or man is not installed (./bootstrap --deps installs groff-base and man-db)"
	done_testing; exit 0
fi
for f in "$ko" "$en"; do
	n=doc/${f#"$top_srcdir/doc/"}
	w=$(LC_ALL=C.UTF-8 groff -k -Tutf8 -man -ww -z "$f" 2>&1)
	ok "$([ -z "$w" ]; echo $?)" "$n: groff -ww renders it without a warning"
	[ -z "$w" ] || diag "$w"
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$f" 2>&1 >/dev/null)
	ok "$([ -z "$out" ]; echo $?)" "$n: man -l renders it without a warning"
	[ -z "$out" ] || diag "$out"
done
page=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$ko" 2>/dev/null)
check "man -l shows the Korean title and sections" sh -c "printf '%s\n' \"\$1\" | grep -q '^이름' && printf '%s\n' \"\$1\" | grep -q '^설명'" _ "$page"
ok "$([ "$(grep -c '^\.SH' "$ko")" = "$(grep -c '^\.SH' "$en")" ]; echo $?)" "the Korean page has the English page's $(grep -c '^\.SH' "$en") sections"
# Every command pscope has and every long option the English page documents.
for c in $($PSCOPE --help | grep -oE '^  pscope [a-z]+' | awk '{print $2}' | sort -u); do
	check "the Korean page documents pscope $c" grep -qE "(pscope $c|^\\\\fB$c\\\\fR)" "$ko"
done
for o in $(grep -oE '\\-\\-[a-z]([a-z]|\\-)*' "$en" | sed 's/\\//g' | sort -u); do
	check "the Korean page documents $o" grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" "$ko"
done

# Installed: the man pages and the help texts, into a scratch DESTDIR.
dest=$(mktemp -d /tmp/pscope-install.XXXXXX)
at_exit "rm -rf $dest"
(cd "$top_builddir" && unset MAKEFLAGS MFLAGS MAKELEVEL &&
	make install-man install-dist_mankoDATA install-nobase_dist_pkgdataDATA DESTDIR="$dest" prefix=/usr) >"$dest.log" 2>&1
ok $? "make install of the pages and the data into DESTDIR"
[ $? = 0 ] || diag "$(tail -5 "$dest.log")"
rm -f "$dest.log"
check "installed: share/man/ko/man1/pscope.1" cmp "$ko" "$dest/usr/share/man/ko/man1/pscope.1"
check "installed: share/man/man1/pscope.1" cmp "$en" "$dest/usr/share/man/man1/pscope.1"
found=$(MANPATH="$dest/usr/share/man" man -L ko -w pscope 2>/dev/null)
check "man -L ko finds the Korean page" test "$found" = "$dest/usr/share/man/ko/man1/pscope.1"
found=$(MANPATH="$dest/usr/share/man" LANG=C LC_ALL= man -w pscope 2>/dev/null)
check "LANG=C man finds the English page" test "$found" = "$dest/usr/share/man/man1/pscope.1"
for f in "$top_srcdir"/data/help/*.txt; do
	n=$(basename "$f")
	check "installed: the Korean help $n" cmp "$top_srcdir/data/help/ko/$n" "$dest/usr/share/pscope/data/help/ko/$n"
done
done_testing
