# Base unit tests and the ring/worker tests.
check_PROGRAMS += tests/unit/test-base
tests_unit_test_base_SOURCES = tests/unit/test-base.c tests/unit/tap.h
tests_unit_test_base_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-base
# The key tables of the screens and panes (ui/keys.h).
check_PROGRAMS += tests/unit/test-keys
tests_unit_test_keys_SOURCES = tests/unit/test-keys.c tests/unit/tap.h
tests_unit_test_keys_LDADD = libpsui.a $(MODEL_LIBS) $(NCURSESW_LIBS)
TESTS += tests/unit/test-keys
EXTRA_DIST += tests/lib.sh tests/fixtures tests/README
TESTS += tests/e2e/architecture.sh tests/e2e/architecture-inject.sh
EXTRA_DIST += tests/e2e/architecture.sh tests/e2e/architecture-inject.sh
TESTS += tests/e2e/ui-hangup.sh tests/e2e/ui-reuse.sh
EXTRA_DIST += tests/e2e/ui-hangup.sh tests/e2e/ui-reuse.sh
TESTS += tests/e2e/i18n.sh tests/e2e/i18n-batch.sh tests/e2e/potfiles.sh tests/e2e/tui-ko.sh tests/e2e/vocab-ko.sh
EXTRA_DIST += tests/e2e/i18n.sh tests/e2e/i18n-batch.sh tests/e2e/potfiles.sh tests/e2e/tui-ko.sh tests/e2e/vocab-ko.sh
noinst_PROGRAMS += tests/targets/korean-threads
tests_targets_korean_threads_CFLAGS = $(TARGET_CFLAGS)
tests_targets_korean_threads_LDFLAGS = $(TARGET_LINK_FLAGS)
# The TUI tests' wait for a pane's program to take its keys in (tests/lib.sh).
noinst_PROGRAMS += tests/tui-idle
tests_tui_idle_SOURCES = tests/tui-idle.c
tests_tui_idle_CFLAGS = $(TARGET_CFLAGS)
tests_tui_idle_LDFLAGS = $(TARGET_LINK_FLAGS)
