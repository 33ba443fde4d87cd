# ui/: the ncursesw front end: the loop, the drawing layer, one file per
# screen, one per pane of the detail screen, and the list table.
libpsui_a_SOURCES += ui/ui.c ui/ui-settings.c ui/prompt.c ui/ui.h ui/uipriv.h ui/term.c ui/draw.c ui/draw.h ui/fbar.c \
	ui/screen-list.c ui/screen-help.c ui/screen-detail.c ui/screen-stack.c \
	ui/screen-hot.c ui/screen-hotprocs.c ui/hot.h ui/hot-draw.c ui/flame-view.c ui/flame-view.h ui/hot-rel.c ui/hot-rel.h ui/annot-view.c ui/annot-view.h ui/screen-core.c ui/screen-cores.c ui/screen-doors.c ui/meters.c ui/meters.h \
	ui/screen-text.c ui/screen-setup.c ui/list.h ui/list-view.c ui/list-act.c ui/list-keys.c ui/list-replay.c ui/list-record.c ui/list-htop.c \
	ui/pane.h ui/table.h ui/table.c ui/textview.h ui/textview.c ui/search.c ui/job.h ui/job.c ui/samp-keys.c ui/keys.h ui/keys.c ui/pane-status.c ui/pane-fd.c ui/pane-maps.c \
	ui/pane-mem.c ui/pane-threads.c ui/pane-time.c ui/screen-time.c ui/screen-timeline.c ui/time-view.c ui/time-view.h ui/stack-view.h ui/stack-view.c ui/stack-rows.h ui/stack-words.c ui/screen-coreread.c
