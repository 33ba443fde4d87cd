#!/bin/sh
# Sockets resolve from sock_diag, and from the /proc/net text files when
# sock_diag is not used, even while another process binds unix names made to
# break or forge lines of /proc/net/unix.
. "$top_srcdir/tests/lib.sh"
D=$(mktemp -d)
at_exit "rm -rf $D"

start_target sockname victim "$D" || { done_testing; exit 1; }
V=$TPID
# The victim's listener: its socket inode is what the forged line claims.
INO=$(readlink /proc/$V/fd/40 | tr -dc 0-9)
start_target sockname evil "$D" "$INO" || { done_testing; exit 1; }
E=$TPID
check "the forged line is in /proc/net/unix" grep -q " $INO /run/EVIL.sock" /proc/net/unix

for mode in sock_diag text; do
	if [ $mode = text ]; then export PSCOPE_NO_SOCK_DIAG=1; fi
	"$PSCOPE" show "$V" --pane fd >"$D/v.txt" 2>&1
	ok $? "$mode: show the victim's fds"
	if [ $mode = sock_diag ]; then
		check "$mode: the listener is the victim's own path" \
			grep -qE "^ +40 socket .* unix stream $D/good\.sock LISTEN$" "$D/v.txt"
	else
		# The text has two lines for its inode: which is the kernel's
		# cannot be told, so neither is believed.
		check "$mode: the listener's forged inode is called ambiguous" \
			grep -qE "^ +40 socket .* socket:\[$INO\] \(ambiguous: /proc/net/unix lists this inode twice" "$D/v.txt"
	fi
	check "$mode: its socketpair ends resolved" sh -c \
		"grep -qE '^ +41 socket .* unix stream CONNECTED -> fd 42$' '$D/v.txt' && grep -qE '^ +42 socket .* unix stream CONNECTED -> fd 41$' '$D/v.txt'"
	check "$mode: no forged name" sh -c "! grep -q EVIL '$D/v.txt'"
	"$PSCOPE" show "$E" --pane fd >"$D/e.txt" 2>&1
	ok $? "$mode: show the attacker's fds"
	if [ $mode = sock_diag ]; then
		check "$mode: the newline in a path is shown escaped" grep -qF "unix stream $D/a\\nb.sock LISTEN" "$D/e.txt"
		check "$mode: the abstract names are exact" sh -c \
			"grep -qF 'unix stream @\\n0000000000000000: 00000002 00000000 00010000 0001 01 $INO /run/EVIL.sock LISTEN' '$D/e.txt' &&
			 grep -qF 'unix stream @\\nnot a line $E\\n\\n\\n UNCONNECTED' '$D/e.txt'"
	fi
	"$PSCOPE" show "$V" --pane fd --json >"$D/v.json" 2>&1
	if command -v python3 >/dev/null; then
		[ $mode = sock_diag ] && check "$mode: JSON: the listener's path" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
fd = {f["fd"]: f for f in d["panes"]["fd"]["fds"]}
assert fd[40]["socket"]["local"] == sys.argv[2] + "/good.sock", fd[40]
assert fd[40]["socket"]["state"] == "LISTEN", fd[40]' "$D/v.json" "$D"
	fi
done
unset PSCOPE_NO_SOCK_DIAG

# A process in another network namespace: sock_diag is asked there.
if [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
	mkdir "$D/ns2"
	unshare -n sh -c "exec '$TARGETS/sockname' victim '$D/ns2' >'$D/ns.out' 2>&1" &
	N=$!
	kill_at_exit $N
	wait_until grep -q ready "$D/ns.out"
	check "another network namespace" test "$(readlink /proc/$N/ns/net)" != "$(readlink /proc/self/ns/net)"
	"$PSCOPE" show "$N" --pane fd >"$D/n.txt" 2>&1
	check "there: the listener resolved" grep -qE "^ +40 socket .* unix stream $D/ns2/good\.sock LISTEN$" "$D/n.txt"
	check "there: the socketpair's peers too" grep -qE "^ +41 socket .* unix stream CONNECTED -> fd 42$" "$D/n.txt"
else
	skip "another network namespace: needs root and unshare -n"
fi
done_testing
