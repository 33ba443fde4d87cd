# tests/core.mk: the core writer.
check_PROGRAMS += tests/unit/test-core
tests_unit_test_core_SOURCES = tests/unit/test-core.c tests/unit/tap.h
tests_unit_test_core_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-core

noinst_PROGRAMS += tests/targets/core-threads tests/targets/core-big tests/targets/core-fork
tests_targets_core_threads_CFLAGS = $(TARGET_CFLAGS)
tests_targets_core_threads_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_core_big_CFLAGS = $(TARGET_CFLAGS)
tests_targets_core_big_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_core_fork_CFLAGS = $(TARGET_CFLAGS)
tests_targets_core_fork_LDFLAGS = $(TARGET_LINK_FLAGS)

TESTS += tests/e2e/core.sh tests/e2e/core-tui.sh tests/e2e/core-fork.sh tests/e2e/core-data.sh
EXTRA_DIST += tests/e2e/core.sh tests/e2e/core-tui.sh tests/e2e/core-fork.sh tests/e2e/core-data.sh tests/fixtures/core-smaps.txt
BENCHES += tests/bench/core.sh
EXTRA_DIST += tests/bench/core.sh

# The core reader: a target that crashes in a known function.
noinst_PROGRAMS += tests/targets/crash
tests_targets_crash_CFLAGS = $(TARGET_CFLAGS)
tests_targets_crash_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_crash_LDADD = -ldl
TESTS += tests/e2e/core-read.sh tests/e2e/cores-tui.sh
EXTRA_DIST += tests/e2e/core-read.sh tests/e2e/cores-tui.sh
check_PROGRAMS += tests/unit/test-core-read
tests_unit_test_core_read_SOURCES = tests/unit/test-core-read.c tests/unit/tap.h
tests_unit_test_core_read_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-core-read
TESTS += tests/e2e/core-read-tui.sh tests/e2e/core-replaced.sh
EXTRA_DIST += tests/e2e/core-read-tui.sh tests/e2e/core-replaced.sh
BENCHES += tests/bench/core-read.sh
EXTRA_DIST += tests/bench/core-read.sh tests/bench/core-lib.sh
