# tests/list.mk
# The process table, the system meters, `pscope list` and the list screen.
check_PROGRAMS += tests/unit/test-list
tests_unit_test_list_SOURCES = tests/unit/test-list.c tests/unit/tap.h
tests_unit_test_list_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-list

# Sources and snapshots: the rates of two, the source job, the live sources.
check_PROGRAMS += tests/unit/test-source
tests_unit_test_source_SOURCES = tests/unit/test-source.c tests/unit/tap.h
tests_unit_test_source_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-source

noinst_PROGRAMS += tests/targets/hostile tests/targets/korean tests/targets/family
tests_targets_hostile_CFLAGS = $(TARGET_CFLAGS)
tests_targets_hostile_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_korean_CFLAGS = $(TARGET_CFLAGS)
tests_targets_korean_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_family_CFLAGS = $(TARGET_CFLAGS)
tests_targets_family_LDFLAGS = $(TARGET_LINK_FLAGS)

TESTS += tests/e2e/list-batch.sh tests/e2e/list-tui.sh tests/e2e/list-keys.sh tests/e2e/list-select.sh tests/e2e/list-meters.sh tests/e2e/list-first.sh tests/e2e/list-counts.sh tests/e2e/htop-keys.sh
EXTRA_DIST += tests/e2e/list-batch.sh tests/e2e/list-tui.sh tests/e2e/list-keys.sh tests/e2e/list-select.sh tests/e2e/list-meters.sh tests/e2e/list-first.sh tests/e2e/list-counts.sh tests/e2e/htop-keys.sh tests/bench/list.sh
BENCHES += tests/bench/list.sh

# Settings (pscoperc), colour schemes and the parsers of the new columns.
check_PROGRAMS += tests/unit/test-settings
tests_unit_test_settings_SOURCES = tests/unit/test-settings.c tests/unit/tap.h
tests_unit_test_settings_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-settings
TESTS += tests/e2e/hscroll.sh
EXTRA_DIST += tests/e2e/hscroll.sh
TESTS += tests/e2e/text-search.sh
EXTRA_DIST += tests/e2e/text-search.sh
TESTS += tests/e2e/cmdline-long.sh
EXTRA_DIST += tests/e2e/cmdline-long.sh
TESTS += tests/e2e/list-tagged.sh
EXTRA_DIST += tests/e2e/list-tagged.sh
TESTS += tests/e2e/list-wheel.sh
EXTRA_DIST += tests/e2e/list-wheel.sh
TESTS += tests/e2e/nocolor-screens.sh
EXTRA_DIST += tests/e2e/nocolor-screens.sh
TESTS += tests/e2e/list-sortcols.sh tests/e2e/list-ioview.sh
EXTRA_DIST += tests/e2e/list-sortcols.sh tests/e2e/list-ioview.sh
TESTS += tests/e2e/settings-rc.sh tests/e2e/setup-keys.sh
EXTRA_DIST += tests/e2e/settings-rc.sh tests/e2e/setup-keys.sh
# The function-key bar of every screen at widths from 200 down to 20.
TESTS += tests/e2e/fbar.sh
EXTRA_DIST += tests/e2e/fbar.sh
# Hostile and long text on the TUI's text screens, prompts and results.
TESTS += tests/e2e/text-safety.sh
EXTRA_DIST += tests/e2e/text-safety.sh
# pscoperc and the command line, broken files, unknown keys.
TESTS += tests/e2e/settings-cli.sh
EXTRA_DIST += tests/e2e/settings-cli.sh
# Usage: the sort keys listed from their table, usage errors alike everywhere.
TESTS += tests/e2e/usage.sh
EXTRA_DIST += tests/e2e/usage.sh
