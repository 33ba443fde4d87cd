# src/sample/: the perf_event_open sampler, its aggregation and views, and
# its job.
libpscope_a_SOURCES += src/sample/sample.h src/sample/local.h src/sample/agg.h \
	src/sample/session.h src/sample/source.h src/sample/source.c src/sample/agg.c src/sample/perf.c src/sample/events.c src/sample/record.c src/sample/lines.c src/sample/machine.c \
	src/sample/view.c src/sample/view-annotate.c src/sample/view-machine.c src/sample/flame.c src/sample/flame.h src/sample/job.c src/sample/pysamp.c \
	src/sample/offcpu.c src/sample/offcpu-rec.c src/sample/offcpu-py.c src/sample/offcpu-proc.c src/sample/offcpu.h
