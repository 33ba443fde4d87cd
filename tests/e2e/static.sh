#!/bin/sh
# Static non-PIE programs, linked as gcc -static links them (no
# .eh_frame_hdr) and with one: every thread's whole chain in the live stack
# dump and in a core of it (the same functions as eu-stack), a signal
# handler's caller through the trampoline, and the sampler's stacks reaching
# start_thread.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/binaries-lib.sh"
tmp=$(mktemp -d /tmp/pscope-static-e2e.XXXXXX)
at_exit "rm -rf $tmp"

settled() { # every thread but the spinner asleep
	for t in /proc/$1/task/*; do
		[ "$(cat $t/comm)" = spinner ] && continue
		case $(sed 's/.*) //' $t/stat | cut -c1) in S) ;; *) return 1 ;; esac
	done
}

for bin in static-prog static-prog-hdr; do
	if readelf -lW "$TARGETS/$bin" | grep -q GNU_EH_FRAME; then hdr=with; else hdr=without; fi
	label="$bin ($hdr .eh_frame_hdr)"
	case $bin:$hdr in static-prog:without | static-prog-hdr:with) ;; *) diag "$bin: $hdr .eh_frame_hdr, not as built" ;; esac
	start_target $bin -s || exit 1
	P=$TPID
	poll 200 settled "$P" || diag "$bin: its threads did not settle"
	"$PSCOPE" stack --no-group "$P" >"$tmp/s" 2>&1
	check "$label: main's whole chain down to _start" \
		sh -c "tr '\n' ' ' <'$tmp/s' | grep -qE 'parse_payload\+0x[0-9a-f]+ \($bin\) #[0-9]+ 0x[0-9a-f]+ handle_request\+0x[0-9a-f]+ \($bin\) #[0-9]+ 0x[0-9a-f]+ serve\+0x[0-9a-f]+ \($bin\) #[0-9]+ 0x[0-9a-f]+ main\+0x[0-9a-f]+ \($bin\) #[0-9]+ 0x[0-9a-f]+ __libc_start_call_main\+0x[0-9a-f]+ \($bin\) #[0-9]+ 0x[0-9a-f]+ __libc_start_main_impl\+0x[0-9a-f]+ \($bin\) #[0-9]+ 0x[0-9a-f]+ _start\+0x[0-9a-f]+ \($bin\)'"
	check "$label: a thread's chain ends in start_thread and clone3" \
		sh -c "tr '\n' ' ' <'$tmp/s' | grep -qE 'worker\+0x[0-9a-f]+ \($bin\) #[0-9]+ 0x[0-9a-f]+ start_thread\+0x[0-9a-f]+ \($bin\) #[0-9]+ 0x[0-9a-f]+ __clone3\+0x[0-9a-f]+ \($bin\)'"
	check "$label: a signal handler, the trampoline by name, then what the signal interrupted" \
		sh -c "tr '\n' ' ' <'$tmp/s' | grep -qE 'on_signal\+0x[0-9a-f]+ \($bin\) #[0-9]+ 0x[0-9a-f]+ __restore_rt\+0x0 \($bin\) #[0-9]+ 0x[0-9a-f]+ [a-z_]+\+0x[0-9a-f]+ \($bin\)'"
	same_as_eu "$label, live" "$tmp" "$P" -- -p "$P"

	"$PSCOPE" core "$P" -o "$tmp/core" >/dev/null 2>&1
	ok $? "$label: pscope core writes its core"
	same_as_eu "$label, its core" "$tmp" --core "$tmp/core" -- --core "$tmp/core" -e "$TARGETS/$bin"

	"$PSCOPE" top "$P" --samples 200 --duration 120 --folded "$tmp/f" --json >"$tmp/top.json" 2>/dev/null
	check "$label: the sampler's stacks of the spinning thread reach start_thread" \
		sh -c "grep -E ';spin_leaf( |;)' '$tmp/f' | grep -v '^spinner-[0-9]*;start_thread;spin_thread;spin_top;spin_mid;spin_leaf[ ;]' | grep -q . && exit 1; grep -qE ';spin_leaf( |;)' '$tmp/f'"
	check "$label: no truncated stacks" python3 -c "
import json; d = json.load(open('$tmp/top.json')); assert d['truncated'] == 0 and d['unwind'] == 'dwarf', d"
	kill -9 "$P"
	rm -f "$tmp/core"
done
done_testing
