# src/: the model (never curses). Errors and doors, target identity, the
# ring and the workers, text data.
libpscope_a_SOURCES += src/error.c src/error.h src/doors.c src/doors.h \
	src/doors-probe.c src/doors-text.c \
	src/util.c src/util.h src/target.c src/target.h \
	src/ring.c src/ring.h src/worker.c src/worker.h \
	src/textdata.c src/textdata.h src/i18n.h src/i18n.c
