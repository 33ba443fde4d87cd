# src/core/local.mk: the ELF core writer.
libpscope_a_SOURCES += src/core/core.h src/core/cw.h src/core/writer.c src/core/out.c src/core/mem.c \
	src/core/snap.c src/core/inject.h src/core/inject.c src/core/reaper.h src/core/reaper.c \
	src/core/dest.c src/core/maps.h src/core/maps.c src/core/notes.h src/core/notes.c
nobase_dist_pkgdata_DATA += data/help/core.txt
