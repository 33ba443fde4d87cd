# src/proc/list.mk
# The process table (list screen and `pscope list`) and the system meters.
libpscope_a_SOURCES += src/proc/ptable.c src/proc/ptable.h src/proc/sysinfo.c src/proc/sysinfo.h
