# The ncursesw front end: the loop, the drawing layer, one file per screen
# and one per pane.
libpsui_a_SOURCES += ui/ui.c ui/ui.h ui/uipriv.h ui/draw.c ui/draw.h \
	ui/screen-list.c ui/screen-help.c ui/screen-detail.c ui/screen-stack.c \
	ui/screen-hot.c ui/screen-core.c ui/screen-doors.c ui/meters.c ui/meters.h \
	ui/screen-text.c ui/screen-setup.c ui/list.h ui/list-view.c ui/list-act.c
# The detail screen's panes (one file each), their shared table, and the
# help texts of the screen and of each pane.
libpsui_a_SOURCES += ui/pane.h ui/table.c ui/pane-status.c ui/pane-fd.c ui/pane-maps.c \
	ui/pane-mem.c ui/pane-threads.c
nobase_dist_pkgdata_DATA += data/help/detail.txt data/help/pane-status.txt \
	data/help/pane-fd.txt data/help/pane-maps.txt data/help/pane-mem.txt \
	data/help/pane-threads.txt
