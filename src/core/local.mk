# src/core/: the ELF core writer.
libpscope_a_SOURCES += src/core/core.h src/core/writer.c \
	src/core/dest.c src/core/job.c src/core/maps.h src/core/maps.c src/core/notes.h src/core/notes.c
