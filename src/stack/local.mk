# src/stack/: stack dump: offline unwind, lock graph, the dump itself (over
# src/freeze.c) and its job; the offline half (analyze.c) is shared with
# the core reader.
libpscope_a_SOURCES += src/stack/stack.h src/stack/internal.h src/stack/dump.c \
	src/stack/lockgraph.c src/stack/futex.c \
	src/stack/job.c src/stack/analyze.c src/stack/pyframes.c src/stack/pyframes.h \
	src/stack/pylocks.c src/stack/jvm.c src/stack/goroutines.c
