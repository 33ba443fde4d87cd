# /proc readers of the detail panes: one file per source, each a pure
# parser plus a dirfd reader.
libpscope_a_SOURCES += src/proc/fd.c src/proc/fd.h src/proc/net.c src/proc/net.h \
	src/proc/maps.c src/proc/maps.h src/proc/rollup.c src/proc/rollup.h \
	src/proc/task.c src/proc/task.h src/proc/info.c src/proc/info.h \
	src/proc/caps.c src/proc/caps.h src/proc/syscalls.c src/proc/syscalls.h
