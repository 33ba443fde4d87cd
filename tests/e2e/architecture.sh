#!/bin/sh
# The layering rules of pscope, checked on the source tree: the model never
# draws, the UI never attaches, bytes reach the terminal only via draw.c.
. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 1

curses_in_src=$(grep -rlE '#include[[:space:]]*[<"](n?curses|ncursesw/)' src || true)
ok "$([ -z "$curses_in_src" ]; echo $?)" "src/ never includes curses ${curses_in_src:+(found in $curses_in_src)}"

attach_in_ui=$(grep -rlE '\b(ptrace|perf_event_open|process_vm_readv|syscall)[[:space:]]*\(' ui || true)
ok "$([ -z "$attach_in_ui" ]; echo $?)" "ui/ never calls ptrace, perf_event_open or process_vm_readv ${attach_in_ui:+(found in $attach_in_ui)}"

# Only draw.c may emit text to the terminal with curses' string output.
raw_out=$(grep -lE '\b(mv)?(w)?(addstr|addnstr|addwstr|addnwstr|printw|waddstr|mvprintw|mvwprintw)[[:space:]]*\(' ui/*.c | grep -v '^ui/draw\.c$' || true)
ok "$([ -z "$raw_out" ]; echo $?)" "only ui/draw.c writes strings to the terminal ${raw_out:+(found in $raw_out)}"

# Batch commands print hostile text through out/ writers: no raw %s of a
# struct field straight from /proc without esc() is hard to prove by grep,
# so at least: no printf-family call in src/ writes to the terminal device.
tty_writes=$(grep -rlE '/dev/tty' src ui || true)
ok "$([ -z "$tty_writes" ]; echo $?)" "nothing opens /dev/tty behind the terminal layer ${tty_writes:+(found in $tty_writes)}"

done_testing
