# src/cmd/: batch subcommands, one file each (a `const struct cmd_entry`),
# and their one runner.
libpscope_a_SOURCES += src/cmd/cmd.h src/cmd/run.c \
	src/cmd/cmd-list.c src/cmd/cmd-show.c src/cmd/cmd-stack.c src/cmd/stack-go.c src/cmd/stack-go.h \
	src/cmd/cmd-top.c src/cmd/top.h src/cmd/top-machine.c src/cmd/top-annotate.c src/cmd/top-offcpu.c src/cmd/cmd-core.c src/cmd/cmd-doors.c src/cmd/core-out.c src/cmd/core-out.h src/cmd/cmd-cores.c \
	src/cmd/cmd-record.c src/cmd/rec-check.c src/cmd/rec-out.c src/cmd/rec-out.h src/cmd/show-rec.c src/cmd/cmd-time.c src/cmd/time-out.c src/cmd/time-out.h src/cmd/time-machine.c
