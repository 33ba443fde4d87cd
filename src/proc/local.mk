# /proc readers: one file per source, pure parser + dirfd reader.
libpscope_a_SOURCES += src/proc/cmdline.c src/proc/cmdline.h \
	src/proc/stat.c src/proc/stat.h src/proc/status.c src/proc/status.h
