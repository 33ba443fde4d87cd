# Detail panes: parser unit tests, a target with known content, batch and
# TUI end-to-end tests.
noinst_PROGRAMS += tests/targets/detail-target
tests_targets_detail_target_CFLAGS = $(TARGET_CFLAGS)
tests_targets_detail_target_LDFLAGS = $(TARGET_LINK_FLAGS)
check_PROGRAMS += tests/unit/test-detail
tests_unit_test_detail_SOURCES = tests/unit/test-detail.c tests/unit/tap.h
tests_unit_test_detail_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-detail
# The pane registry with a throwaway pane, added as doc/architecture.md's
# recipe says, in this test build only: its file (pane-throwaway.c) and its
# name in a copy of src/pane/panes.h found before the real one.
check_PROGRAMS += tests/unit/test-panes
tests_unit_test_panes_SOURCES = tests/unit/test-panes.c tests/unit/pane-throwaway.c tests/unit/tap.h \
	src/pane/pane.c src/settings.c
tests_unit_test_panes_CPPFLAGS = -I$(top_builddir)/tests/unit/throwaway $(AM_CPPFLAGS)
tests_unit_test_panes_LDADD = $(MODEL_LIBS)
$(tests_unit_test_panes_OBJECTS): tests/unit/throwaway/pane/panes.h
tests/unit/throwaway/pane/panes.h: $(top_srcdir)/src/pane/panes.h
	$(MKDIR_P) tests/unit/throwaway/pane
	(cat $(top_srcdir)/src/pane/panes.h && echo 'PANE(throwaway)') >$@
CLEANFILES += tests/unit/throwaway/pane/panes.h
TESTS += tests/unit/test-panes
TESTS += tests/e2e/detail-show.sh
EXTRA_DIST += tests/e2e/detail-show.sh tests/e2e/detail-lib.sh
TESTS += tests/e2e/detail-tui.sh
EXTRA_DIST += tests/e2e/detail-tui.sh
TESTS += tests/e2e/detail-perm.sh
EXTRA_DIST += tests/e2e/detail-perm.sh
noinst_PROGRAMS += tests/targets/detail-many
tests_targets_detail_many_CFLAGS = $(TARGET_CFLAGS)
tests_targets_detail_many_LDFLAGS = $(TARGET_LINK_FLAGS)
BENCHES += tests/bench/detail.sh
EXTRA_DIST += tests/bench/detail.sh
TESTS += tests/e2e/detail-search.sh
EXTRA_DIST += tests/e2e/detail-search.sh
TESTS += tests/e2e/threads-lock.sh
EXTRA_DIST += tests/e2e/threads-lock.sh
