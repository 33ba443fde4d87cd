#!/bin/sh
# The teaching layer: every screen (ui/screen-*.c) and every pane (its
# description in src/pane/*.c) names a help text (`.help = "NAME"`),
# data/help/NAME.txt exists, is installed (listed in a make fragment) and
# fits an 80-column terminal. New screens and panes are found from the
# code, so one without help fails here.
. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 1

# Every screen (struct screen_ops) and every pane (struct pane_desc) names
# its help: `.help = "NAME"` -> data/help/NAME.txt; a pane's is
# pane-<its .name>.
for f in ui/screen-*.c; do
	[ -e "$f" ] || continue
	grep -qE 'struct screen_ops [a-z_0-9]+ *= *\{' "$f" || continue
	check "$f names its help text (.help = \"...\")" grep -qE '\.help[[:space:]]*=[[:space:]]*"[^"]+"' "$f"
done
for f in src/pane/*.c; do
	[ -e "$f" ] || continue
	grep -qE 'struct pane_desc [a-z_0-9]+ *= *\{' "$f" || continue
	d=$(sed -n '/struct pane_desc [a-z_0-9]* *= *{/,/^};/p' "$f")
	n=$(echo "$d" | grep -oE '\.name[[:space:]]*=[[:space:]]*"[^"]+"' | head -1 | sed 's/.*"\(.*\)"/\1/')
	h=$(echo "$d" | grep -oE '\.help[[:space:]]*=[[:space:]]*"[^"]+"' | head -1 | sed 's/.*"\(.*\)"/\1/')
	ok "$([ -n "$n" ] && [ "$h" = "pane-$n" ]; echo $?)" "$f: pane '$n' names its help pane-$n (.help = \"$h\")"
done
# Every TUI pane (struct pane_ops) is one of the registry's.
for f in ui/pane-*.c; do
	[ -e "$f" ] || continue
	grep -qE 'struct pane_ops [a-z_0-9]+ *= *\{' "$f" || continue
	check "$f takes its description from src/pane/ (.desc = &pane_desc_...)" grep -qE '\.desc[[:space:]]*=[[:space:]]*&pane_desc_[a-z_0-9]+' "$f"
done

names=$(grep -hoE '\.help[[:space:]]*=[[:space:]]*"[^"]+"' ui/*.c src/pane/*.c | sed 's/.*"\(.*\)"/\1/' | sort -u)
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
