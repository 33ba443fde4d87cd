#!/bin/sh
# Parts and clones of functions (GCC's work.cold, calc.constprop.0) are
# named by their DWARF name, as gdb names them: a cold part says so.
. "$top_srcdir/tests/lib.sh"
tmp=$(mktemp -d /tmp/pscope-dwarf-names-e2e.XXXXXX)
at_exit "rm -rf $tmp"

for mode in cold clone; do
	case $mode in
	cold) sym=work.cold want='report work (cold part) main' ;;
	clone) sym=calc.constprop.0 want='calc main' ;;
	esac
	if ! nm "$TARGETS/clones" | grep -q " $sym\$"; then
		skip "this compiler made no $sym"
		continue
	fi
	start_target clones $mode || exit 1
	P=$TPID
	poll 100 sh -c "grep -q '^State:.*S' /proc/$P/status" || diag "the target did not sleep"
	"$PSCOPE" stack "$P" >"$tmp/s" 2>&1
	# the functions between pause and __libc_start_call_main
	got=$(awk '/^#/ && !/libc.so/ { l = $0; sub(/^#[0-9]+ 0x[0-9a-f]+ /, "", l); sub(/\+0x[0-9a-f]+ \(clones\)$/, "", l); print l }' "$tmp/s" |
		sed '/^_start$/d' | tr '\n' ' ' | sed 's/ $//')
	check "$mode: '$want', not the symbol $sym" test "$got" = "$want"
	[ "$got" = "$want" ] || diag "got: $got"
	if command -v gdb >/dev/null; then
		gdb -batch -nx -p "$P" -ex bt 2>/dev/null | awk '/^#/ && !/libc/ { print ($3 == "in") ? $4 : $2 }' | grep -v '^_start$' |
			tr '\n' ' ' | sed 's/ $//' >"$tmp/gdb"
		check "$mode: the functions gdb names" test "$(cat "$tmp/gdb")" = "$(echo "$want" | sed 's/ (cold part)//')"
	else
		skip "gdb not installed"
	fi
	kill -9 "$P"
done
done_testing
