# src/proc/: /proc readers, one file per source, each a pure parser plus a
# dirfd reader; the process table and the system meters.
libpscope_a_SOURCES += src/proc/cmdline.c src/proc/cmdline.h \
	src/proc/stat.c src/proc/stat.h src/proc/status.c src/proc/status.h \
	src/proc/ptable.c src/proc/ptable-row.c src/proc/ptable-order.c src/proc/ptable-index.c src/proc/ptable.h src/proc/sysinfo.c src/proc/sysinfo.h \
	src/proc/ptable-extra.c src/proc/ptable-cols.c src/proc/ptable-priv.h src/proc/io.c src/proc/io.h \
	src/proc/fd.c src/proc/fd.h src/proc/net.c src/proc/net.h src/proc/sockdiag.c \
	src/proc/maps.c src/proc/maps.h src/proc/rollup.c src/proc/rollup.h \
	src/proc/task.c src/proc/task.h src/proc/info.c src/proc/info.h \
	src/proc/caps.c src/proc/caps.h src/proc/syscalls.c src/proc/syscalls.h \
	src/proc/sched.c src/proc/sched.h src/proc/taskstats.c src/proc/taskstats.h src/proc/psi.c src/proc/psi.h \
	src/proc/cgroup.c src/proc/cgroup.h
