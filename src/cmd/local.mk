# Batch subcommands, one file each.
libpscope_a_SOURCES += src/cmd/cmd.h src/cmd/common.c \
	src/cmd/cmd-list.c src/cmd/cmd-show.c src/cmd/cmd-stack.c \
	src/cmd/cmd-top.c src/cmd/cmd-core.c src/cmd/cmd-doors.c src/cmd/core-out.c
