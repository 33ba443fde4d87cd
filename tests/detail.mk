# Detail panes: parser unit tests, a target with known content, batch and
# TUI end-to-end tests.
noinst_PROGRAMS += tests/targets/detail-target
tests_targets_detail_target_CFLAGS = $(TARGET_CFLAGS)
tests_targets_detail_target_LDFLAGS = $(TARGET_LINK_FLAGS)
check_PROGRAMS += tests/unit/test-detail
tests_unit_test_detail_SOURCES = tests/unit/test-detail.c tests/unit/tap.h
tests_unit_test_detail_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-detail
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
