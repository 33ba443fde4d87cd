# src/doors.mk: doors (what the kernel lets pscope do), the report's probes
# and its text; the doors command and screen are listed in src/cmd and ui.
libpscope_a_SOURCES += src/doors-probe.c src/doors-text.c
nobase_dist_pkgdata_DATA += data/help/doors.txt
