# data/: help and teaching texts, installed to $(pkgdatadir); one per screen
# (NAME.txt) and one per pane (pane-NAME.txt); the colour schemes.
nobase_dist_pkgdata_DATA += data/help/list.txt data/help/help.txt \
	data/help/detail.txt data/help/pane-status.txt data/help/pane-fd.txt \
	data/help/pane-maps.txt data/help/pane-mem.txt data/help/pane-threads.txt data/help/pane-time.txt data/help/time.txt data/help/timeline.txt \
	data/help/stack.txt data/help/hot.txt data/help/hot-processes.txt data/help/core.txt data/help/doors.txt \
	data/help/coreread.txt data/help/cores.txt data/help/setup.txt \
	data/themes/default.theme data/themes/monochrome.theme data/themes/black-on-white.theme
# The same help texts in Korean (data/help/ko/NAME.txt), chosen by the locale.
nobase_dist_pkgdata_DATA += data/help/ko/list.txt data/help/ko/help.txt \
	data/help/ko/detail.txt data/help/ko/pane-status.txt data/help/ko/pane-fd.txt \
	data/help/ko/pane-maps.txt data/help/ko/pane-mem.txt data/help/ko/pane-threads.txt data/help/ko/pane-time.txt data/help/ko/time.txt data/help/ko/timeline.txt \
	data/help/ko/stack.txt data/help/ko/hot.txt data/help/ko/hot-processes.txt data/help/ko/core.txt data/help/ko/doors.txt \
	data/help/ko/coreread.txt data/help/ko/cores.txt data/help/ko/setup.txt
# The recorder as a systemd service (configure --with-systemdsystemunitdir).
data/pscope-record.service: data/pscope-record.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) data && sed -e 's|@bindir[@]|$(bindir)|g' $(srcdir)/data/pscope-record.service.in >$@.tmp && mv $@.tmp $@
EXTRA_DIST += data/pscope-record.service.in
CLEANFILES += data/pscope-record.service
if HAVE_SYSTEMD_UNITDIR
systemdsystemunit_DATA = data/pscope-record.service
endif
AM_DISTCHECK_CONFIGURE_FLAGS = --with-systemdsystemunitdir='$$(dc_install_base)/lib/systemd/system'
