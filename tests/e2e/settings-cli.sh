#!/bin/bash
# pscoperc and the command line: options apply to this run only (the file
# keeps its values for what the session did not change, byte for byte when
# nothing changed); what the user changes in the session is saved. A
# broken file: F2 says changes will not be saved, and quitting after a
# change says so on stderr. An unknown key: a warning, and kept.
. "$top_srcdir/tests/lib.sh"
export LC_ALL=C.UTF-8
command -v tmux >/dev/null || { skip "tmux is not installed"; done_testing; exit 0; }
tmp=$(mktemp -d /tmp/pscope-settings-cli.XXXXXX)
at_exit "rm -rf $tmp"
rc=$XDG_CONFIG_HOME/pscope/pscoperc
mkdir -p "${rc%/*}"

# A file as an earlier session left it (with a comment of the user's own).
cat >"$rc" <<'EOF'
# my settings
config_version=1
sort_key=mem
sort_direction=desc
tree_view=0
delay=20
EOF
cp "$rc" "$tmp/rc.orig"

# -d 50 -s pid -t, then q at once: in effect for the run, not written.
TUI_KEEP_SETTINGS=1 tui_start 200x50 "$PSCOPE -d 50 -s pid -t; echo EXIT=\$?; sleep 60"
check "options: sorted by PID for this run" tui_wait_for 'PID△'
check "options: tree view for this run" tui_wait_for '(├─|└─) '
tui_keys q
check "options, q: exit 0" tui_wait_for '^EXIT=0'
check "options, nothing changed: pscoperc byte for byte as it was" cmp "$rc" "$tmp/rc.orig"
tmux -L "$TMUX_S" kill-server 2>/dev/null

# A plain start afterwards: the file's settings, not the last options.
TUI_KEEP_SETTINGS=1 tui_start 200x50 "$PSCOPE; echo EXIT=\$?; sleep 60"
check "plain start: the file's sort (MEM%)" tui_wait_for 'MEM%▽'
check "plain start: no tree" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -qE '(├─|└─) '"
tui_keys q
check "plain start, q: exit 0" tui_wait_for '^EXIT=0'
check "plain start, nothing changed: pscoperc as it was" cmp "$rc" "$tmp/rc.orig"
tmux -L "$TMUX_S" kill-server 2>/dev/null

# With the options given, the user sorts by TIME (T): the new sort is
# saved; the delay and tree the options gave, untouched, are not.
TUI_KEEP_SETTINGS=1 tui_start 200x50 "$PSCOPE -d 50 -s pid -t; echo EXIT=\$?; sleep 60"
check "options again: sorted by PID" tui_wait_for 'PID△'
tui_keys T
check "T: sorted by TIME+" tui_wait_for 'TIME\+▽'
tui_keys q
check "T, q: exit 0" tui_wait_for '^EXIT=0'
check "the session's sort saved" grep -qx 'sort_key=time' "$rc"
check "its direction with it" grep -qx 'sort_direction=desc' "$rc"
check "the option's delay not saved: the file's kept" grep -qx 'delay=20' "$rc"
check "the option's tree not saved: the file's kept" grep -qx 'tree_view=0' "$rc"
tmux -L "$TMUX_S" kill-server 2>/dev/null

# The tree turned on in the session with -t given: -t set it, the session
# did not change it, so it is not saved; turned off and on again: the same.
# Turning it on without -t is a change, and is saved.
TUI_KEEP_SETTINGS=1 tui_start 200x50 "$PSCOPE -d 50; echo EXIT=\$?; sleep 60"
tui_wait_for 'Load average' >/dev/null
tui_keys t
check "t: tree view" tui_wait_for '(├─|└─) '
tui_keys q
check "t, q: exit 0" tui_wait_for '^EXIT=0'
check "the session's tree saved" grep -qx 'tree_view=1' "$rc"
check "the delay option still not saved" grep -qx 'delay=20' "$rc"
tmux -L "$TMUX_S" kill-server 2>/dev/null

# F2 with an option given: changing that very setting in F2 saves it.
TUI_KEEP_SETTINGS=1 tui_start 200x50 "$PSCOPE -d 50; echo EXIT=\$?; sleep 60"
tui_wait_for 'Load average' >/dev/null
tui_keys F2
check "F2: the delay the option gave" tui_wait_for '^ Refresh delay +5\.0 s'
tui_keys Down Down Down Down Down Space
check "F2: delay up" tui_wait_for '^ Refresh delay +5\.5 s'
tui_keys Escape q
check "F2, q: exit 0" tui_wait_for '^EXIT=0'
check "the delay changed in F2 saved" grep -qx 'delay=55' "$rc"
tmux -L "$TMUX_S" kill-server 2>/dev/null

# No file yet: the first quit writes one, with the defaults where the
# options stood in.
rm -f "$rc"
TUI_KEEP_SETTINGS=1 tui_start 200x50 "$PSCOPE -d 50 -s pid -t; echo EXIT=\$?; sleep 60"
tui_wait_for 'PID△' >/dev/null
tui_keys q
check "no file, q: exit 0" tui_wait_for '^EXIT=0'
check "no file: written" test -f "$rc"
check "no file: the default delay, not the option's" grep -qx 'delay=15' "$rc"
check "no file: the default sort, not the option's" grep -qx 'sort_key=cpu' "$rc"
check "no file: no tree" grep -qx 'tree_view=0' "$rc"
tmux -L "$TMUX_S" kill-server 2>/dev/null

# A broken file: F2 says so (file, line, what) and that changes will not
# be saved; q after a change leaves the file and says so once on stderr.
printf 'sort_key=zzz\n' >"$rc"
cp "$rc" "$tmp/rc.orig"
TUI_KEEP_SETTINGS=1 tui_start 200x50 "$PSCOPE 2>$tmp/err; echo EXIT=\$?; sleep 60"
check "broken: reported at start" tui_wait_for "settings not read .*pscoperc line 1: unknown sort key 'zzz'"
tui_keys F2
check "broken, F2: the file and its error" tui_wait_for_joined "pscoperc has an error: pscoperc line 1: unknown sort key 'zzz'"
check "broken, F2: changes will not be saved" tui_wait_for_joined "Changes made here will not be saved until it is fixed"
tui_keys Down Down Space
check "broken, F2: the tree still turns on (for this run)" tui_wait_for '^ Tree view +on'
tui_keys Escape q
check "broken, q: exit 0" tui_wait_for '^EXIT=0'
check "broken: the file never overwritten" cmp "$rc" "$tmp/rc.orig"
check "broken: one line on stderr" test "$(wc -l <"$tmp/err")" = 1
check "broken: it names the file and the error" \
	grep -qF "pscope: settings changed in this session not saved: $rc: pscoperc line 1: unknown sort key 'zzz'" "$tmp/err"
tmux -L "$TMUX_S" kill-server 2>/dev/null

# Broken, nothing changed: nothing lost, nothing said on quit.
TUI_KEEP_SETTINGS=1 tui_start 200x50 "$PSCOPE -t 2>$tmp/err; echo EXIT=\$?; sleep 60"
tui_wait_for 'Load average' >/dev/null
tui_keys q
check "broken, no change, q: exit 0" tui_wait_for '^EXIT=0'
check "broken, no change: stderr empty" test ! -s "$tmp/err"
check "broken, no change: the file as it was" cmp "$rc" "$tmp/rc.orig"
tmux -L "$TMUX_S" kill-server 2>/dev/null

# An unknown key (a newer pscope's): a warning with its line, the other
# settings apply, and a save keeps the line as it was.
printf 'sort_key=mem\nunknown_key=5\n' >"$rc"
TUI_KEEP_SETTINGS=1 tui_start 200x50 "$PSCOPE 2>$tmp/err; echo EXIT=\$?; sleep 60"
check "unknown key: warned with its line" tui_wait_for "pscoperc line 2: unknown setting 'unknown_key' \\(ignored, kept in the file\\)"
check "unknown key: the other settings apply (MEM%)" tui_wait_for 'MEM%▽'
tui_keys t
tui_keys q
check "unknown key, q: exit 0" tui_wait_for '^EXIT=0'
check "unknown key: the session's change saved" grep -qx 'tree_view=1' "$rc"
check "unknown key: its line kept" grep -qx 'unknown_key=5' "$rc"
check "unknown key: the file's sort kept" grep -qx 'sort_key=mem' "$rc"
check "unknown key: nothing on stderr" test ! -s "$tmp/err"
tmux -L "$TMUX_S" kill-server 2>/dev/null

done_testing
