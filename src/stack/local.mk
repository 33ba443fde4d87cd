# src/stack/local.mk
# Stack dump: freeze (shared with the core writer), snapshot, unwind,
# symbolization, lock graph.
libpscope_a_SOURCES += src/stack/freeze.c src/stack/freeze.h
