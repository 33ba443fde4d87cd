# src/pane/: the detail panes described once (name, sources, door, help,
# batch output), for the detail screen and `pscope show`.
libpscope_a_SOURCES += src/pane/pane.h src/pane/panes.h src/pane/pane.c src/pane/status.c src/pane/fd.c \
	src/pane/maps.c src/pane/mem.c src/pane/threads.c src/pane/time.c
