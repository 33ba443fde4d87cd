# src/stack/: stack dump: freeze (shared with the core writer), offline
# unwind, symbolization, lock graph, the dump itself and its job.
libpscope_a_SOURCES += src/stack/freeze.c src/stack/freeze.h \
	src/stack/stack.h src/stack/internal.h src/stack/dump.c \
	src/stack/unwind.c src/stack/lockgraph.c \
	src/stack/job.c
