#!/bin/sh
# The layering rules of pscope, checked on the source tree: the model never
# draws, the UI never attaches, bytes reach the terminal only via draw.c;
# and the shapes of doc/architecture.md: one list widget, one command
# table, one pane registry, jobs routed to their handler.
. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 1

curses_in_src=$(grep -rlE '#include[[:space:]]*[<"](n?curses|ncursesw/)' src || true)
ok "$([ -z "$curses_in_src" ]; echo $?)" "src/ never includes curses ${curses_in_src:+(found in $curses_in_src)}"

# The /proc readers return errnos; naming the door is their callers' work.
ui_in_src=$(grep -rlE '#include[[:space:]]*"(\.\./)?ui/' src || true)
ok "$([ -z "$ui_in_src" ]; echo $?)" "src/ includes nothing of ui/ ${ui_in_src:+(found in $ui_in_src)}"
doors_in_proc=$(grep -lE '#include[[:space:]]*"doors/' src/proc/*.c src/proc/*.h || true)
ok "$([ -z "$doors_in_proc" ]; echo $?)" "src/proc/ never calls up into the doors ${doors_in_proc:+(found in $doors_in_proc)}"

attach_in_ui=$(grep -rlE '\b(ptrace|perf_event_open|process_vm_readv|syscall)[[:space:]]*\(' ui || true)
ok "$([ -z "$attach_in_ui" ]; echo $?)" "ui/ never calls ptrace, perf_event_open or process_vm_readv ${attach_in_ui:+(found in $attach_in_ui)}"

# Screens draw from snapshots: nothing in ui/ reads the machine. Every
# function that reads /proc, /sys, netlink or a process's memory is
# declared with PS_READS (src/reads.h) and runs in a source or a job; a
# ui/ file that calls one (in a draw, a key, anywhere) fails here.
readers=$(grep -rhoE '^PS_READS [^(;]*\(' src --include=*.h | sed -E 's/.*[ *]([a-z_][a-z0-9_]*)\($/\1/' | sort -u)
nreaders=$(echo "$readers" | grep -c .)
ok "$([ "$nreaders" -ge 40 ]; echo $?)" "the functions that read the machine are marked PS_READS ($nreaders)"
unmarked=$(grep -rnE '^[a-z][a-z_ ]*[ *](proc|sys)_[a-z_]*_read(_at)?\(' src --include=*.h | grep -v PS_READS || true)
ok "$([ -z "$unmarked" ]; echo $?)" "every proc_*_read and sys_*_read is marked ${unmarked:+(not: $unmarked)}"
reads_in_ui=
for f in $readers; do
	hit=$(grep -nE "(^|[^a-z0-9_])$f[[:space:]]*\(" ui/*.c ui/*.h || true)
	[ -n "$hit" ] && reads_in_ui="$reads_in_ui $hit"
done
ok "$([ -z "$reads_in_ui" ]; echo $?)" "ui/ calls no function that reads the machine (PS_READS) ${reads_in_ui:+(found:$reads_in_ui)}"
raw_io=$(grep -nE '(^|[^a-z0-9_>.])((openat|fopen|opendir|pread|preadv|readlinkat|fstatat|stat|lstat|statfs|socket|process_vm_readv)[[:space:]]*\(|open[[:space:]]*\([[:space:]]*")' ui/*.c || true)
ok "$([ -z "$raw_io" ]; echo $?)" "ui/ opens no file of the machine itself ${raw_io:+(found: $raw_io)}"

# Only draw.c may emit text to the terminal with curses' string output.
raw_out=$(grep -lE '\b(mv)?(w)?(addstr|addnstr|addwstr|addnwstr|printw|waddstr|mvprintw|mvwprintw)[[:space:]]*\(' ui/*.c | grep -v '^ui/draw\.c$' || true)
ok "$([ -z "$raw_out" ]; echo $?)" "only ui/draw.c writes strings to the terminal ${raw_out:+(found in $raw_out)}"

# Batch commands print hostile text through out/ writers: no raw %s of a
# struct field straight from /proc without esc() is hard to prove by grep,
# so at least: no printf-family call in src/ writes to the terminal device.
tty_writes=$(grep -rlE '/dev/tty' src ui || true)
ok "$([ -z "$tty_writes" ]; echo $?)" "nothing opens /dev/tty behind the terminal layer ${tty_writes:+(found in $tty_writes)}"

# ---- one shape for each concern (doc/architecture.md) ----

# Navigation is written once, in the list widget.
nav=$(grep -nE 'case[[:space:]]+KEY_(UP|DOWN|PPAGE|NPAGE|HOME|END)\b' ui/*.c | grep -v '^ui/table\.c:' || true)
ok "$([ -z "$nav" ]; echo $?)" "navigation keys are handled only in ui/table.c ${nav:+(found: $nav)}"
# Keys are declared once, in each screen's and pane's key table
# (ui/keys.h): dispatch, the function bar and the help read it. Outside
# the widgets that own their keys (table.c: moving; search.c: '/', n, N;
# prompt.c: editing a line; keys.c: the dispatch), no code tests a key:
# no case label of a character or KEY_ constant, no comparison of a key
# with one (KEY_RESIZE is the terminal's event, not a key).
keysw=$(grep -nE "case[[:space:]]+('([^'\\]|\\.+)'|KEY_[A-Z_]+|27|12)[[:space:]]*[:(]|\b(ch|key)[[:space:]]*[!=<>]=?[[:space:]]*('([^'\\]|\\.+)'|KEY_[A-Z_]+)|switch[[:space:]]*\([[:space:]]*(ch|key)[[:space:]]*\)" ui/*.c |
	grep -vE '^ui/(table|search|prompt|keys)\.c:' | grep -v 'KEY_RESIZE' || true)
ok "$([ -z "$keysw" ]; echo $?)" "keys are dispatched from the key tables only (no key switch in a screen) ${keysw:+(found: $keysw)}"
# The terminal size comes from one place.
size=$(grep -nE '\b(LINES|COLS)\b' ui/*.c | grep -v '^ui/draw\.c:' || true)
ok "$([ -z "$size" ]; echo $?)" "the terminal size is read only in ui/draw.c (draw_rows/draw_cols) ${size:+(found: $size)}"
# Sorting with a context, never through a static one.
qs=$(grep -nE '\bqsort[[:space:]]*\(' ui/*.c || true)
ok "$([ -z "$qs" ]; echo $?)" "ui/ sorts with qsort_r ${qs:+(found: $qs)}"

# Every subcommand is one cmd_entry in the table; only the runner parses.
for f in src/cmd/cmd-*.c; do
	n=$(basename "$f" .c | sed 's/^cmd-//')
	check "$f exports one const struct cmd_entry cmd_${n}_entry" \
		sh -c "[ \$(grep -cE '^const struct cmd_entry cmd_${n}_entry = \\{' '$f') = 1 ]"
	check "src/cli.c lists &cmd_${n}_entry" grep -q "&cmd_${n}_entry" src/cli.c
done
parsers=$(grep -lE '\bgetopt(_long)?[[:space:]]*\(' src/cmd/*.c | grep -v '^src/cmd/run\.c$' || true)
ok "$([ -z "$parsers" ]; echo $?)" "only src/cmd/run.c calls getopt ${parsers:+(found in $parsers)}"

# Jobs are submitted from src/ with their handler; messages are routed by
# job id, never broadcast to the screens.
direct=$(grep -lE '\bworkers_submit[[:space:]]*\(' ui/*.c || true)
ok "$([ -z "$direct" ]; echo $?)" "ui/ submits jobs through the backends' *_submit functions ${direct:+(found in $direct)}"
bcast=$(grep -nE 'ops->message|ui_watch' ui/*.c ui/*.h || true)
ok "$([ -z "$bcast" ]; echo $?)" "ring messages go to their job's handler only ${bcast:+(found: $bcast)}"

# Every pane is described once, in src/pane/, and named once, in the list
# src/pane/panes.h that the registry, the detail screen, pscoperc and
# pscope show are made from.
for f in src/pane/*.c; do
	n=$(basename "$f" .c)
	[ "$n" = pane ] && continue
	check "src/pane/$n.c is in the list of panes (src/pane/panes.h)" grep -qx "PANE($n)" src/pane/panes.h
	check "ui/pane-$n.c shows it on the detail screen" grep -q "&pane_desc_$n\b" "ui/pane-$n.c"
done
dup=$(grep -nE '\.(source|refresh_ms|summary)[[:space:]]*=' ui/*.c || true)
ok "$([ -z "$dup" ]; echo $?)" "no pane describes itself again in ui/ ${dup:+(found: $dup)}"
# No list of the panes written by hand beside the registry's.
names=$(grep -rnE '"status",[[:space:]]*"fd"|"status, fd, maps|&pane_(desc_)?status,[[:space:]]*&pane_' src ui --include=*.c --include=*.h |
	grep -v '^src/pane/panes\.h:' || true)
ok "$([ -z "$names" ]; echo $?)" "the panes are listed once, in src/pane/panes.h ${names:+(found: $names)}"

# Smaller shapes: one PF_KTHREAD, signals through target_signal, the
# freeze shared at src/ level.
kt=$(grep -rnE '0x0*200000' src ui --include=*.c --include=*.h | grep -v '^src/proc/stat\.h:' || true)
ok "$([ -z "$kt" ]; echo $?)" "PF_KTHREAD is defined once (src/proc/stat.h) ${kt:+(found: $kt)}"
sig=$(grep -rlE '\bkill[[:space:]]*\([a-z_]|SYS_pidfd_send_signal' src ui --include=*.c | grep -vE '^src/(target|doors/probe)\.c$' || true)
ok "$([ -z "$sig" ]; echo $?)" "signals are sent through target_signal() ${sig:+(found in $sig)}"
ok "$([ -e src/freeze.c ] && ! [ -e src/stack/freeze.c ]; echo $?)" "the freeze lives at src/ level (shared by stack and core)"

# One perf_event_open layer: the syscall, the event ioctls, the ring
# protocol and the mapping of a perf fd live in src/perf/ only (the
# benchmarks' helpers too).
perf_calls=$(grep -rnE 'SYS_perf_event_open|__NR_perf_event_open|PERF_EVENT_IOC_|data_head|data_tail' \
	src ui tests/bench --include=*.c --include=*.h | grep -v '^src/perf/' || true)
ok "$([ -z "$perf_calls" ]; echo $?)" "perf events are opened, controlled and read only in src/perf/ ${perf_calls:+(found: $perf_calls)}"
perf_mmap=$(grep -rlE '\bmmap[[:space:]]*\(' src ui tests/bench --include=*.c | grep -v '^src/perf/' |
	xargs -r grep -lE '\b(perf|PERF)_' || true)
ok "$([ -z "$perf_mmap" ]; echo $?)" "perf ring buffers are mapped only in src/perf/ ${perf_mmap:+(found in $perf_mmap)}"

# One hash table: no open-addressing probe loop or multiplicative hash
# constant outside src/hmap.[ch].
probe='\([[:space:]]*[a-z_]+[[:space:]]*\+[[:space:]]*1[[:space:]]*\)[[:space:]]*&[[:space:]]*\(?[[:space:]]*[a-z_>.-]+[[:space:]]*-[[:space:]]*1'
consts='0x9e3779b9|2654435761|0x61c88647|0xff51afd7ed558ccd|0xc4ceb9fe1a85ec53'
hashes=$(grep -rniE "$probe|$consts" src ui --include=*.c --include=*.h | grep -vE '^src/hmap\.[ch]:' || true)
ok "$([ -z "$hashes" ]; echo $?)" "one hash table (src/hmap.c): no other probe loop or hash constant ${hashes:+(found: $hashes)}"

done_testing
