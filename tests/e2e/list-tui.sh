#!/bin/sh
# The process list screen driven through tmux: header, search, tree, filter,
# hostile and Korean names, mouse, a 20x5 terminal, clean exits on q and on
# SIGTERM with the terminal restored.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }
tmp=$(mktemp -d /tmp/pscope-list-tui.XXXXXX)
at_exit "rm -rf $tmp"

# a name of our own: other tests may run a family at the same time
PNAME=ps-par-$$
start_target family 1 "$PNAME" || exit 1
FPID=$TPID
CPID=$(awk '{ print $1 }' /proc/$FPID/task/$FPID/children)
start_target hostile || exit 1
HPID=$TPID
start_target korean || exit 1
KPID=$TPID

# The command runs in a shell that reports how pscope ended and whether the
# terminal is back in canonical mode.
tui_start 200x40 "sh -c 'echo \$\$ >$tmp/pid; exec $PSCOPE -d 5'; echo EXIT=\$?; stty -a | grep -o -- '-\\?icanon'; sleep 30"
check "header meters" tui_wait_for 'Load average: [0-9.]+ [0-9.]+ [0-9.]+'
check "CPU and memory bars" tui_wait_for '^ +0\[.*%\].*Tasks: [0-9]+, [0-9]+ thr'
check "column titles, the sort column marked descending" tui_wait_for '^ +PID USER +PRI +NI +VIRT +RES +SHR S +CPU%▽ +MEM% +TIME\+ COMMAND'
check "function key bar" tui_wait_for '^F1Help +F2Setup +F3Search.*F7Nice- +F8Nice\+ +F9Kill.*F10Quit'
PPID_=$(cat "$tmp/pid")

# The list maps no library it does not use: the C++ runtime (demangling)
# and the decompressors of compressed cores are opened when first needed.
for lib in libstdc++ libzstd liblz4; do
	if [ $lib = libstdc++ ] && ldd "$PSCOPE" | grep -qE 'lib(ubsan|asan)\.so'; then
		skip "$lib comes with the sanitizer runtime of this build"
	else
		check "the list has not loaded $lib" sh -c "! grep -q '/$lib\.so' /proc/$PPID_/maps"
	fi
done

# Incremental search finds the parent; F follows what is selected. (The
# selection stays at its row when the list re-sorts, as in htop: pause the
# updates first with Z.)
tui_keys Z
check "Z pauses the updates" tui_wait_for '\[PAUSED\]'
tui_keys /
tui_keys -l "$PNAME"
check "search bar shows what is typed" tui_wait_for "^Search: $PNAME"
tui_keys Enter F
check "search selected the target (followed: PID $FPID)" tui_wait_for "\\[following $FPID\\]"
tui_keys F Z

# Tree view with a filter: the child right below its parent.
tui_keys '\'
tui_keys -l ps-
tui_keys Enter
tui_keys t
check "filter keeps only matching rows" tui_wait_for "^ +$FPID .*$PNAME"
child_under_parent() { # polled: the redraw after t may lag under load
	wait_until sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -A1 -E '^ +$FPID ' | tail -1 | grep -qE '^ +$CPID .*└─ ps-child'" ||
		{ tui_screen | sed 's/^/#   /'; return 1; }
}
check "tree: the child under its parent" child_under_parent
check "filter shown in the header" tui_wait_for '\[filter ps-\]'
tui_keys t
tui_keys '\'
tui_keys Escape

# Hostile title: shown escaped, the terminal title untouched.
tui_keys '\'
tui_keys -l PWNED
tui_keys Enter
check "hostile name shown escaped" tui_wait_for "^ +$HPID .*\\\\e\\]2;PWNED\\\\x07│.*PWNED-ARGV\\\\x07 two\\\\nlines\\\\tand a tab"
title=$(tmux -L "$TMUX_S" display-message -p -t "$TMUX_S" '#{pane_title}')
check "the pane title was not changed by the process name ($title)" sh -c "! printf '%s' \"\$1\" | grep -q PWNED" _ "$title"
tui_keys '\'
tui_keys Escape

# Korean: found by a Korean filter, and every line fits in the terminal.
tui_keys '\'
tui_keys -l 한국어
tui_keys Enter
check "Korean name found and shown" tui_wait_for "^ +$KPID .*한국어이름│.*프로세스-목록 한글\$"
tui_screen >"$tmp/screen.txt"
check "wide characters keep every line within the terminal width (200)" python3 - "$tmp/screen.txt" <<'PY'
import sys, unicodedata
for line in open(sys.argv[1], encoding="utf-8"):
    w = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line.rstrip("\n"))
    assert w <= 200, (w, line)
PY
tui_keys '\'
tui_keys Escape

# Mouse (X10 encoding): with PIDs sorted descending (N, then I), a click on
# the PID title inverts the order, PID 1 first; a click on a row selects it.
# Updates paused, so rows stay put.
tui_keys Z N I
hy=$(tui_screen | grep -nE '^ +PID.? USER' | cut -d: -f1)
hy=$((hy - 1))
click() { # click COL ROW (0-based): an X10 mouse press and release
	local pos
	pos=$(printf "\\$(printf %o $((33 + $1)))\\$(printf %o $((33 + $2)))")
	tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -l "$(printf '\033[M ')$pos"
	tmux -L "$TMUX_S" send-keys -t "$TMUX_S" -l "$(printf '\033[M#')$pos"
	tui_idle
}
first_row_is_pid1() {
	wait_until sh -c "tmux -L $TMUX_S capture-pane -p -t $TMUX_S | sed -n '$((hy + 2))p' | grep -qE '^ +1 '" ||
		{ tui_screen | sed 's/^/#   /'; return 1; }
}
check "N I: PIDs descending, PID 1 not first" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | sed -n '$((hy + 2))p' | grep -qE '^ +1 '"
click 3 "$hy"
tui_keys Home # the selection follows its process through the re-sort
check "click on the PID title inverts the order (first row: PID 1)" first_row_is_pid1
click 3 $((hy + 2))
tui_keys F
second=$(tui_screen | sed -n "$((hy + 3))p" | awk '{ print $1 }')
check "click on a row selects it (followed: $second)" tui_wait_for "\\[following $second\\]"
tui_keys F Z

# Help, sort menu and signal menu open and close.
tui_keys F1
check "F1 opens the help" tui_wait_for 'pscope help: Processes'
tui_keys Escape
tui_keys F6
check "F6 opens the sort menu" tui_wait_for '^ Sort by'
tui_keys Escape
tui_keys F9
check "F9 opens the signal menu" tui_wait_for '^ *Send signal'
tui_keys Escape

# q quits: exit 0, terminal back in canonical mode, alternate screen gone.
tui_keys q
check "q exits with status 0" tui_wait_for '^EXIT=0'
check "terminal restored (icanon)" tui_wait_for '^icanon'
check "the list is gone from the screen" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -q 'Load average'"
check "pscope process gone" sh -c "! kill -0 $PPID_ 2>/dev/null"
tmux -L "$TMUX_S" kill-server 2>/dev/null

# SIGTERM: clean exit, terminal restored.
tui_start 100x30 "sh -c 'echo \$\$ >$tmp/pid2; exec $PSCOPE'; echo EXIT=\$?; stty -a | grep -o -- '-\\?icanon'; sleep 30"
tui_wait_for 'Load average' >/dev/null
kill -TERM "$(cat "$tmp/pid2")"
check "SIGTERM: pscope exits" tui_wait_for '^EXIT=0'
check "SIGTERM: terminal restored" tui_wait_for '^icanon'
tmux -L "$TMUX_S" kill-server 2>/dev/null

# A 20x5 terminal: still usable, keys work, q quits.
tui_start 20x5 "$PSCOPE; echo EXIT=\$?; sleep 30"
check "20x5: column titles" tui_wait_for '^ +PID COMMAND'
check "20x5: function keys" tui_wait_for '^F1Help'
tui_keys j j Up t / Escape H H
check "20x5: still running after keys" tui_wait_for '^ +PID COMMAND'
tmux -L "$TMUX_S" resize-window -t "$TMUX_S" -x 90 -y 30 2>/dev/null
check "resize to 90x30: the header appears" tui_wait_for 'Load average'
tmux -L "$TMUX_S" resize-window -t "$TMUX_S" -x 20 -y 5 2>/dev/null
tui_idle # the resize taken in (SIGWINCH), then q
tui_keys q
check "20x5: q exits with status 0" tui_wait_for '^EXIT=0'
tmux -L "$TMUX_S" kill-server 2>/dev/null

# Signals: F9, a menu, a y/N confirmation. "n" sends nothing; "y" does.
tui_start 200x40 "$PSCOPE -d 50; echo EXIT=\$?; sleep 30"
tui_wait_for 'Load average' >/dev/null
tui_keys Z '\'
tui_keys -l "$_tlinks/korean" # ours, not another test's
tui_keys Enter
tui_wait_for "^ +$KPID " >/dev/null
tui_keys F9
check "F9: the signal menu offers SIGTERM first" tui_wait_for '^ *15 SIGTERM'
tui_keys Enter
check "F9: confirmation names the signal and the process" tui_wait_for "Send SIGTERM to PID $KPID \\(한국어이름\\)\\? \\[y/N\\]"
tui_keys n
check "n: nothing sent" tui_wait_for 'no signal sent'
check "n: the process is alive" kill -0 "$KPID"
tui_keys F9 Enter
tui_wait_for 'Send SIGTERM' >/dev/null
tui_keys y
check "y: SIGTERM sent" tui_wait_for "sent SIGTERM to PID $KPID"
exited() { [ "$(awk '{ sub(/.*\) /, ""); print $1 }' /proc/$1/stat 2>/dev/null)" = Z ] || ! kill -0 "$1" 2>/dev/null; }
check "y: the process got it and exited" wait_until exited "$KPID"
tui_keys q
tmux -L "$TMUX_S" kill-server 2>/dev/null

# A refused signal (as nobody, to root's process) names the door.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	bin=$(mktemp -d /tmp/pscope-list-tui-bin.XXXXXX)
	at_exit "rm -rf $bin"
	cp "$PSCOPE" "$bin/pscope" && chmod 755 "$bin" "$bin/pscope"
	tui_start 200x40 "setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all $bin/pscope -d 50; echo EXIT=\$?; sleep 30"
	tui_wait_for 'Load average' >/dev/null
	tui_keys Z '\'
	tui_keys -l "$PNAME"
	tui_keys Enter
	tui_wait_for "^ +$FPID " >/dev/null
	tui_keys F9 Enter
	tui_wait_for 'Send SIGTERM' >/dev/null
	tui_keys y
	check "refused signal: the door and the fix are named" tui_wait_for "cannot send SIGTERM: process $FPID belongs to uid 0 and we are uid $(id -u nobody) without CAP_KILL \\(door: CAP_KILL"
	check "refused signal: the process is untouched" kill -0 "$FPID"
	tui_keys q
	check "as nobody: q exits with status 0" tui_wait_for '^EXIT=0'
else
	skip "needs root and setpriv"
	skip "needs root and setpriv"
	skip "needs root and setpriv"
fi
done_testing
