#!/bin/sh
# The teaching layer: every screen and every pane names a help text (its
# `.help = "NAME"` in ui/), data/help/NAME.txt exists, is installed (listed
# in a make fragment) and fits an 80-column terminal. New screens and panes
# are found from the code, so one without help fails here.
. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 1

# Every screen (struct screen_ops) names its help: `.help = "NAME"` ->
# data/help/NAME.txt. Every pane (struct pane_ops) has a name:
# `.name = "NAME"` -> data/help/pane-NAME.txt.
for f in ui/screen-*.c; do
	[ -e "$f" ] || continue
	grep -qE 'struct screen_ops [a-z_0-9]+ *= *\{' "$f" || continue
	check "$f names its help text (.help = \"...\")" grep -qE '\.help[[:space:]]*=[[:space:]]*"[^"]+"' "$f"
done
panes=""
for f in ui/pane-*.c; do
	[ -e "$f" ] || continue
	grep -qE 'struct pane_ops [a-z_0-9]+ *= *\{' "$f" || continue
	n=$(sed -n '/struct pane_ops [a-z_0-9]* *= *{/,/^};/p' "$f" | grep -oE '\.name[[:space:]]*=[[:space:]]*"[^"]+"' | head -1 | sed 's/.*"\(.*\)"/\1/')
	ok "$([ -n "$n" ]; echo $?)" "$f names its pane (.name = \"...\")"
	[ -n "$n" ] && panes="$panes pane-$n"
done

names=$( (grep -hoE '\.help[[:space:]]*=[[:space:]]*"[^"]+"' ui/*.c | sed 's/.*"\(.*\)"/\1/'; for p in $panes; do echo "$p"; done) | sort -u)
ok "$([ -n "$names" ]; echo $?)" "help names found in ui/ ($(echo $names | wc -w))"
for n in $names; do
	f=data/help/$n.txt
	check "data/help/$n.txt exists and is not empty" test -s "$f"
	check "data/help/$n.txt is installed (nobase_dist_pkgdata_DATA)" \
		sh -c "cat Makefile.am */*.mk */*/*.mk 2>/dev/null | grep -q 'data/help/$n\.txt'"
	[ -s "$f" ] || continue
	wide=$(awk 'length($0) > 79 { print FILENAME ":" NR ": " length($0) " columns" }' "$f" | head -3)
	ok "$([ -z "$wide" ]; echo $?)" "data/help/$n.txt fits 80 columns"
	[ -z "$wide" ] || diag "$wide"
	check "data/help/$n.txt has no tabs or control characters" sh -c "! LC_ALL=C grep -q '[[:cntrl:]]' '$f'"
done

# Every help file shipped is used by some screen or pane.
for f in data/help/*.txt; do
	n=$(basename "$f" .txt)
	check "data/help/$n.txt is used by a screen or pane" sh -c "echo '$names' | grep -qx '$n'"
done

done_testing
