# src/source/: where every screen's data comes from: the source interface
# and its job, the snapshots and the rates made of two, the live sources
# (the process list, one process and its panes) and a core file.
libpscope_a_SOURCES += src/source/source.h src/source/snap.h src/source/snap.c src/source/hist.h src/source/hist.c src/source/job.c \
	src/source/live-list.c src/source/live-rec.c src/source/live-rec.h src/source/live.h src/source/live-proc.c src/source/live-panes.c src/source/core.c src/source/once.c src/source/replay.c
