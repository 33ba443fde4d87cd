# src/core/: the ELF core writer, and the core reader (read*.c, where.c).
libpscope_a_SOURCES += src/core/core.h src/core/writer.c \
	src/core/dest.c src/core/job.c src/core/maps.h src/core/maps.c src/core/notes.h src/core/notes.c \
	src/core/read.h src/core/read-parse.c src/core/read.c src/core/read-modules.c \
	src/core/read-text.c src/core/read-stack.c src/core/read-job.c \
	src/core/where.h src/core/where.c
