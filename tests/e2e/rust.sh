#!/bin/sh
# A Rust program as rustc builds it (lld's layout, whose text shares a file
# page with the headers; no frame pointers; CIEs whose personality routine
# is reached through a DW.ref slot in .data): the stack dump names the same
# functions as eu-stack, and the sampler's stacks of the spinning thread
# reach start_thread with every frame between (none truncated).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/binaries-lib.sh"
tmp=$(mktemp -d /tmp/pscope-rust-e2e.XXXXXX)
at_exit "rm -rf $tmp"
RUSTC=${RUSTC:-$(command -v rustc || echo "$HOME/.cargo/bin/rustc")}
if ! [ -x "$RUSTC" ]; then
	skip "rustc is not installed: no Rust program to check"
	done_testing
	exit 0
fi
if ! "$RUSTC" -O -g -o "$tmp/rust-spin" "$top_srcdir/tests/targets/rust-spin.rs" 2>"$tmp/rustc.err"; then
	skip "rustc could not build the Rust target: $(head -1 "$tmp/rustc.err")"
	done_testing
	exit 0
fi
"$tmp/rust-spin" >"$tmp/out" 2>&1 &
P=$!
at_exit "kill -9 $P 2>/dev/null"
poll 100 grep -q ready "$tmp/out" || diag "the Rust target did not get ready"

"$PSCOPE" stack --no-group "$P" >"$tmp/s" 2>&1
check "the spinning thread: leaf <- middle <- outer, named, down to clone3" \
	sh -c "tr '\n' ' ' <'$tmp/s' | grep -qE 'rust_spin::leaf::h[0-9a-f]+\+0x[0-9a-f]+ \(rust-spin\) #1 0x[0-9a-f]+ rust_spin::middle::h[0-9a-f]+\+0x[0-9a-f]+ \(rust-spin\) #2 0x[0-9a-f]+ rust_spin::outer::h[0-9a-f]+\+0x[0-9a-f]+ \(rust-spin\) .* start_thread\+0x[0-9a-f]+ \(libc.so.6\) #[0-9]+ 0x[0-9a-f]+ __clone3'"
# eu-stack names the spinning thread where it is at its own moment: leave
# the spinner out (its chain is checked above), compare the rest.
poll 100 sh -c "grep -q '^State:.*S' /proc/$P/status" || diag "the main thread did not sleep"
eu_functions "$tmp/eu" -p "$P"
ps_functions "$tmp/ps" "$P"
spin=$(awk '/"spinner"/{print $2}' "$tmp/s")
grep "^$P " "$tmp/eu" >"$tmp/eu.main"
grep "^$P " "$tmp/ps" >"$tmp/ps.main"
check "the main thread: the same functions as eu-stack" cmp "$tmp/eu.main" "$tmp/ps.main"
cmp -s "$tmp/eu.main" "$tmp/ps.main" || diff "$tmp/eu.main" "$tmp/ps.main" | head -12 | sed 's/^/#   /'
check "eu-stack names the spinner's outer and middle too" sh -c "grep -q '^$spin rust_spin::outer' '$tmp/eu' && grep -q '^$spin rust_spin::middle' '$tmp/eu'"

"$PSCOPE" top "$P" --samples 200 --duration 120 --folded "$tmp/f" --json >"$tmp/top.json" 2>/dev/null
check "the sampler: every stack in leaf reaches start_thread through outer and middle" \
	sh -c "grep -E 'rust_spin::leaf::h[0-9a-f]+( |;)' '$tmp/f' | grep -vE '^spinner-[0-9]+;start_thread;[^ ]*;rust_spin::outer::h[0-9a-f]+;rust_spin::middle::h[0-9a-f]+;rust_spin::leaf::h[0-9a-f]+[ ;]' | grep -q . && exit 1; grep -qE 'rust_spin::leaf' '$tmp/f'"
check "no truncated stacks, unwound with the CFI" python3 -c "
import json; d = json.load(open('$tmp/top.json')); assert d['truncated'] == 0 and d['unwind'] == 'dwarf' and d['samples'] >= 200, d"
done_testing
