#!/bin/sh
# '/' in the stack screen under LANG=ko_KR.UTF-8 finds the deadlock's rows
# by their English words (DEADLOCK, blocked: what a lab handout says) as
# well as by the Korean the screen shows, and the screen never shows the
# English: the cycle row, and with n the bystander's group blocked behind
# the cycle.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { skip "tmux not installed"; done_testing; exit 0; }
need_korean "the TUI is English whatever the locale"
export LC_ALL=C.UTF-8 # tmux and the checks read UTF-8
export PSCOPE_DATA

# The selected row (reverse video; NO_COLOR, so the bar is reverse video
# alone) holds REGEX; the title row, also in reverse, says the screen's
# name, which none of the regexes here matches.
selected() { # selected REGEX
	for _ in $(seq 1 150); do
		tmux -L "$TMUX_S" capture-pane -e -p -t "$TMUX_S" | grep -E "$(printf '\033')\\[([0-9]+;)*7m" | grep -qE "$1" && return 0
		sleep 0.2
	done
	tui_screen | sed 's/^/#   /'
	return 1
}
no_english() { # nothing on screen says deadlock or blocked (nor "not found: ...")
	tui_idle
	! tui_screen | grep -qiE 'deadlock|blocked'
}
search() { # search TEXT: '/', the last text erased, type, Enter
	tui_keys /
	for _ in $(seq 1 20); do tmux -L "$TMUX_S" send-keys -t "$TMUX_S" BSpace; done
	tui_keys -l "$1"
	tui_keys Enter
}

# The deadlock target under another name, without its debug information:
# its threads and module are named after the file, and its frames have no
# source file, so no row says "deadlock" (which would match the search by
# itself) but for the deadlock's own words.
command -v strip >/dev/null || { skip "strip (binutils) is not installed"; done_testing; exit 0; }
strip -g -o "$_tlinks/dl-target" "$TARGETS/deadlock" || exit 1
start_quiet_target dl-target 3 || exit 1
P=$TPID
tui_start 140x40 "env NO_COLOR=1 LANG=ko_KR.UTF-8 LC_ALL= LANGUAGE= $PSCOPE -p $P; echo EXIT=\$?; sleep 60"
check "detail screen up" tui_wait_for "PID $P" 150
tui_keys s
check "the cycle row, in Korean, selected first" selected "교착 상태: 스레드 3개가 서로를 기다림"
check "no English on the stack screen" no_english

# From the row below the cycle, forward: the group blocked behind the
# cycle, its thread, then (wrapping) the cycle again.
tui_keys Down
search DEADLOCK
check "/DEADLOCK: the group blocked behind the deadlock" selected "TID [0-9]+.*\\[교착 상태 뒤에 막힘\\]"
check "/DEADLOCK: still no English on screen (no 'not found')" no_english
tui_keys n
check "n: its thread, blocked behind deadlock 1" selected "TID [0-9]+ +dl-target .*교착 상태 1 뒤에 막힘"
tui_keys n
check "n: the cycle row again" selected "교착 상태: 스레드 3개가 서로를 기다림"
tui_keys Home Down
search blocked
check "/blocked: the group blocked behind the deadlock" selected "\\[교착 상태 뒤에 막힘\\]"
check "/blocked: no English on screen" no_english
tui_keys Home Down
search 교착
check "/교착 (Korean typed at the prompt): the same group" selected "\\[교착 상태 뒤에 막힘\\]"
tui_keys q
check "q: exit 0" tui_wait_for '^EXIT=0'
done_testing
