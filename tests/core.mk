# tests/core.mk: the core writer.
check_PROGRAMS += tests/unit/test-core
tests_unit_test_core_SOURCES = tests/unit/test-core.c tests/unit/tap.h
tests_unit_test_core_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-core

noinst_PROGRAMS += tests/targets/core-threads tests/targets/core-big tests/targets/core-fork
tests_targets_core_threads_CFLAGS = $(TARGET_CFLAGS)
tests_targets_core_threads_LDFLAGS = $(TARGET_LDFLAGS)
tests_targets_core_big_CFLAGS = $(TARGET_CFLAGS)
tests_targets_core_big_LDFLAGS = $(TARGET_LDFLAGS)
tests_targets_core_fork_CFLAGS = $(TARGET_CFLAGS)
tests_targets_core_fork_LDFLAGS = $(TARGET_LDFLAGS)

TESTS += tests/e2e/core.sh tests/e2e/core-tui.sh tests/e2e/core-fork.sh
EXTRA_DIST += tests/e2e/core.sh tests/e2e/core-tui.sh tests/e2e/core-fork.sh tests/fixtures/core-smaps.txt
BENCHES += tests/bench/core.sh
EXTRA_DIST += tests/bench/core.sh
