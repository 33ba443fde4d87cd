#!/bin/sh
# data/pscope-record.service: make install DESTDIR=... puts it in the
# systemd unit directory with the installed pscope's path, and
# systemd-analyze verify accepts it (skipped, saying so, where there is no
# systemd-analyze).
. "$top_srcdir/tests/lib.sh"
T=$_tlinks
B=${top_builddir:-.}

make -C "$B" install-systemdsystemunitDATA install-binPROGRAMS DESTDIR="$T/dest" >"$T/install.log" 2>&1
ok $? "make install DESTDIR=... (the unit and pscope)"
unitdir=$(sed -n 's/^systemdsystemunitdir = //p' "$B/Makefile")
u=$T/dest$unitdir/pscope-record.service
check "the unit is in the unit directory ($unitdir)" test -f "$u"
check "it records every 10 s into /var/log/pscope, 7 days and 512M kept" \
	grep -qE '^ExecStart=/[^ ]*/pscope record -o /var/log/pscope --interval 10 --keep 7 --max-size 512M$' "$u"
exe=$(sed -n 's/^ExecStart=\([^ ]*\) .*/\1/p' "$u")
check "ExecStart names the installed pscope" test -x "$T/dest$exe"
check "it may write /var/log/pscope only" grep -qx 'ReadWritePaths=/var/log/pscope' "$u"
check "every process stays visible (no ProtectProc/ProcSubset)" sh -c "! grep -qE '^(ProtectProc|ProcSubset)=' '$u'"
if command -v systemd-analyze >/dev/null 2>&1; then
	# The ExecStart made to name the pscope built here (verify wants an
	# executable there).
	sed "s|^ExecStart=$exe |ExecStart=$T/dest$exe |" "$u" >"$T/pscope-record.service"
	systemd-analyze verify --man=no "$T/pscope-record.service" >"$T/verify.log" 2>&1
	ok $? "systemd-analyze verify accepts it"
	check "  without a word" test ! -s "$T/verify.log"
else
	skip "systemd-analyze is not installed: the unit is not verified"
	skip "systemd-analyze is not installed"
fi
done_testing
