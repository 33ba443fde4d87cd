# src/: the model (never curses). Errors, target identity, the ring and
# the workers, the freeze (shared by stack and core), text data.
libpscope_a_SOURCES += src/error.c src/error.h \
	src/util.c src/util.h src/hmap.c src/hmap.h src/target.c src/target.h src/actions.c src/actions.h \
	src/cli.c src/cli.h src/clock.c src/clock.h src/reads.h \
	src/ring.c src/ring.h src/worker.c src/worker.h \
	src/freeze.c src/freeze.h \
	src/textdata.c src/textdata.h src/i18n.h src/i18n.c \
	src/settings.c src/settings.h src/theme.c src/theme.h
