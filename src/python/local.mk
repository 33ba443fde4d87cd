# src/python/local.mk
# CPython reader: detection, per-version layouts, frame chains, code
# objects; pure decoders (line tables, unicode) in decode.c.
libpscope_a_SOURCES += src/python/python.h src/python/internal.h \
	src/python/layout.h src/python/layout.c src/python/decode.h \
	src/python/decode.c src/python/mem.c src/python/detect.c \
	src/python/walk.c src/python/code.c src/python/threads.c \
	src/python/locks.c
