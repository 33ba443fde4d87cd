# src/: the model (never curses). Errors and doors, target identity, the
# ring and the workers, the freeze (shared by stack and core), text data.
libpscope_a_SOURCES += src/error.c src/error.h src/doors.c src/doors.h \
	src/doors-probe.c src/doors-text.c src/doors-report.c src/doors-report.h \
	src/util.c src/util.h src/hmap.c src/hmap.h src/target.c src/target.h \
	src/ring.c src/ring.h src/worker.c src/worker.h \
	src/freeze.c src/freeze.h \
	src/textdata.c src/textdata.h src/i18n.h src/i18n.c \
	src/settings.c src/settings.h src/theme.c src/theme.h
