# src/perf/: the one perf_event_open layer (opening with fallbacks, ring
# buffers, one pure decoder per record type, tracepoints, the reader that
# hands records to a consumer's callbacks).
libpscope_a_SOURCES += src/perf/perf.h src/perf/open.c src/perf/ring.c src/perf/poll.c src/perf/decode.c src/perf/tp.c \
	src/perf/reader.c
