# src/core/: the ELF core writer (writer.c, plan.c, out.c, mem.c, snap.c, inject.c,
# reaper.c), and the core reader (read*.c, where.c).
libpscope_a_SOURCES += src/core/core.h src/core/cw.h src/core/writer.c src/core/plan.c src/core/out.c src/core/mem.c \
	src/core/snap.c src/core/inject.h src/core/inject.c src/core/reaper.h src/core/reaper.c \
	src/core/dest.c src/core/job.c src/core/maps.h src/core/maps.c src/core/notes.h src/core/notes.c \
	src/core/read.h src/core/read-parse.c src/core/read.c src/core/read-modules.c src/core/read-linkmap.c \
	src/core/read-text.c src/core/read-stack.c src/core/read-python.h src/core/read-python.c src/core/unpack.c src/core/read-view.c \
	src/core/where.h src/core/where.c
