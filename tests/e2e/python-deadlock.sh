#!/bin/sh
# A deadlock over two threading.Lock objects (tests/targets/py-deadlock.py)
# under every interpreter found: the Lock each thread waits on (matched by
# the futex it sleeps on), named and at the address id() gives, the holder
# (the thread inside `with` it), the cycle in text and JSON, the bystander
# blocked behind it; and the cycle in the TUI. Before 3.11 the Lock is not
# named and no cycle is claimed, which the output says.
. "$top_srcdir/tests/lib.sh"

root=$(pyenv root 2>/dev/null || echo /root/.pyenv)
tmp=$(mktemp -d)
at_exit "rm -rf $tmp"
# Its path is on the screen: run it from a copy of a known length.
src=$_tlinks/py-deadlock.py
cp "$top_srcdir/tests/targets/py-deadlock.py" "$src"
line=$(grep -n 'LINE:transfer' "$src" | cut -d: -f1)

start_py() { # start_py PYTHON: sets TPID once it printed ready
	rm -f "$tmp/out"
	"$1" "$src" >"$tmp/out" 2>&1 &
	TPID=$!
	kill_at_exit $TPID
	wait_until grep -q ready "$tmp/out" && return 0
	sed 's/^/#   /' "$tmp/out"
	return 1
}
# Both tellers and the bystander in futex() without a timeout (a Lock
# acquire; a GIL wait has one), the main thread in its sleep.
_blocked() {
	cat /proc/"$1"/task/*/syscall 2>/dev/null | awk '
		$1 == 202 && $5 == "0x0" { f++ }
		$1 == 230 || $1 == 23 || $1 == 270 { s++ }
		END { exit !(f >= 3 && s >= 1) }'
}

interp() { # interp LABEL PYTHON [old]
	label=$1 py=$2 old=$3
	if [ ! -x "$py" ]; then
		skip "$label: $py is not installed"
		return
	fi
	if ! start_py "$py" || ! wait_until _blocked "$TPID"; then
		ok 1 "$label: the target started and its threads blocked"
		return
	fi
	for _ in 1 2 3; do
		"$PSCOPE" stack --json "$TPID" >"$tmp/j" 2>"$tmp/err"
		rc=$?
		grep -q '"skipped"' "$tmp/j" || break
		diag "$label: a thread was not stopped in time; again"
	done
	ok $rc "$label: pscope stack --json succeeds"
	check "$label: JSON: $([ -n "$old" ] && echo 'no cycle claimed, why the Lock is not named' ||
		echo 'the cycle, the locks by name and id(), holders, file:line, the bystander')" \
		python3 "$top_srcdir/tests/python/check-deadlock.py" "$tmp/j" "$tmp/out" "$src" $old
	"$PSCOPE" stack "$TPID" >"$tmp/t" 2>&1
	if [ -z "$old" ]; then
		ledger=$(sed -n 's/.*ledger \(0x[0-9a-f]*\).*/\1/p' "$tmp/out")
		journal=$(sed -n 's/.*journal \(0x[0-9a-f]*\).*/\1/p' "$tmp/out")
		grep -q '^deadlock: 2 threads wait for each other$' "$tmp/t" &&
			grep -qE "^  TID [0-9]+ \".*\" waits for threading.Lock journal \($journal\) held by TID [0-9]+ \(inside \`with\` it\), in transfer \($src:$line\)$" "$tmp/t" &&
			grep -qE "^  TID [0-9]+ \".*\" waits for threading.Lock ledger \($ledger\) held by TID [0-9]+ \(inside \`with\` it\), in transfer \($src:$line\)$" "$tmp/t" &&
			grep -qE "^TID [0-9]+ .*\[bystander\] .* waits for threading.Lock ledger \($ledger\) held by TID [0-9]+ \(inside \`with\` it\), blocked behind deadlock 1$" "$tmp/t"
		ok $? "$label: text: the cycle's two waits, and the bystander behind it"
	else
		grep -qE '\[teller-a\] .*idle: lock acquire \(the Lock is named from CPython 3.11 on\)$' "$tmp/t" &&
			! grep -q '^deadlock' "$tmp/t"
		ok $? "$label: text: says why the Lock is not named, claims no cycle"
	fi
	[ -n "$old" ] || [ -z "$tui" ] || tui_check "$label"
	tui=
	check "$label: the target runs on after the dump" runs_on_soon "$TPID"
	kill -9 "$TPID"
}

tui_check() {
	tui_start 200x50 "$PSCOPE -p $TPID"
	check "$1, TUI: detail screen up" tui_wait_for "PID $TPID"
	tui_keys s
	check "$1, TUI: the cycle's title" tui_wait_for "DEADLOCK: 2 threads wait for each other"
	check "$1, TUI: a wait names its threading.Lock" tui_wait_for "TID [0-9]+ \".*\" waits for threading.Lock (ledger|journal) \(0x[0-9a-f]+\)"
	check "$1, TUI: its holder and where the waiter waits" tui_wait_for "held by TID [0-9]+ \(inside \`with\` it\), in transfer \(.*py-deadlock\.py:$line\)"
	tui_keys q
}

tui=
command -v tmux >/dev/null && tui=1 || skip "tmux is not installed: no TUI check"
python_wanted 3.11d "Debian python3.11" && interp "Debian python3.11 (stripped, non-PIE)" /usr/bin/python3.11
for minor in 9 10 11 12 13; do
	python_wanted 3.$minor "pyenv 3.$minor" || continue
	py=$(ls -d "$root"/versions/3."$minor".*/bin/python3."$minor" 2>/dev/null | tail -1)
	interp "pyenv 3.$minor" "${py:-$root/versions/3.$minor/bin/python3.$minor}" $([ "$minor" -lt 11 ] && echo old)
done
done_testing
