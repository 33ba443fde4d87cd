#!/bin/sh
# po/POTFILES.in lists every source with translatable strings: a file that
# writes _("..."), N_("...") or P_("...") but is missing there would have
# its messages left out of po/pscope.pot and po/ko.po, untranslated for good.
. "$top_srcdir/tests/lib.sh"

list=$(mktemp /tmp/pscope-potfiles.XXXXXX)
at_exit "rm -f $list"
sh "$top_srcdir/po/potfiles.sh" "$top_srcdir" | grep -v '^#' >"$list"
ok $? "po/potfiles.sh lists the sources with translatable strings"
check "some sources of src/ and of ui/ are found" sh -c "grep -q '^src/cmd/' $list && grep -q '^ui/' $list"

missing=$(grep -vxF -f "$top_srcdir/po/POTFILES.in" "$list")
check "every source with _() N_() P_() is in po/POTFILES.in (sh po/potfiles.sh > po/POTFILES.in)" \
	test -z "$missing"
[ -z "$missing" ] || diag "missing: $(echo $missing)"

extra=$(grep -v '^#' "$top_srcdir/po/POTFILES.in" | grep -vxF -f "$list")
check "po/POTFILES.in lists no source without translatable strings (stale after a move)" test -z "$extra"
[ -z "$extra" ] || diag "not needed: $(echo $extra)"

gone=$(grep -v '^#' "$top_srcdir/po/POTFILES.in" | while read -r f; do
	[ -z "$f" ] || [ -f "$top_srcdir/$f" ] || echo "$f"; done)
check "every file in po/POTFILES.in exists (xgettext stops at a missing one)" test -z "$gone"
[ -z "$gone" ] || diag "gone: $(echo $gone)"

# The check itself: a file with a translatable string and not listed is caught.
fake=$(mktemp -d /tmp/pscope-potfiles-tree.XXXXXX)
at_exit "rm -rf $fake"
mkdir -p "$fake/src" "$fake/ui"
printf 'static const char *s = N_("x");\n' >"$fake/src/a.c"
printf 'void f(void) { g(_("y")); }\n' >"$fake/ui/b.c"
printf 'int h(int n) { return P_("%%d z", "%%d zs", n) != 0; }\n' >"$fake/ui/c.c"
printf 'int no_(int x) { return some_(x); }\n' >"$fake/ui/d.c"
check "a file with N_(), _() or P_() is found; one with none is not" \
	test "$(sh "$top_srcdir/po/potfiles.sh" "$fake" | grep -v '^#' | tr '\n' ' ')" = "src/a.c ui/b.c ui/c.c "
done_testing
