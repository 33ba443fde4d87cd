# The ncursesw front end: the loop, the drawing layer, one file per screen
# and one per pane.
libpsui_a_SOURCES += ui/ui.c ui/ui.h ui/uipriv.h ui/draw.c ui/draw.h \
	ui/screen-list.c ui/screen-help.c ui/screen-detail.c ui/screen-stack.c \
	ui/screen-hot.c ui/screen-core.c ui/screen-doors.c ui/meters.c ui/meters.h
