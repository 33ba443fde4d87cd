# src/doors/: what the kernel lets pscope do and why not: the wording of
# every refusal (doors.c), the probes (probe.c), the tool table and the
# report's lines (text.c), the Markdown handout (report.c).
libpscope_a_SOURCES += src/doors/doors.c src/doors/doors.h src/doors/probe.c src/doors/text.c \
	src/doors/report.c src/doors/report.h
