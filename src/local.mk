# The model: errors, doors, identity, ring and workers.
libpscope_a_SOURCES += src/error.c src/error.h src/doors.c src/doors.h \
	src/util.c src/util.h src/target.c src/target.h \
	src/ring.c src/ring.h src/worker.c src/worker.h \
	src/textdata.c src/textdata.h src/i18n.h src/settings.c src/settings.h src/theme.c src/theme.h
