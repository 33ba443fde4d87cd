# src/proc/list.mk
# The process table (list screen and `pscope list`) and the system meters.
libpscope_a_SOURCES += src/proc/ptable.c src/proc/ptable.h src/proc/sysinfo.c src/proc/sysinfo.h \
	src/proc/ptable-extra.c src/proc/ptable-priv.h src/proc/io.c src/proc/io.h src/proc/actions.c src/proc/actions.h
