# pscope time: a target whose threads spend their time in known places, the
# model's and parsers' unit tests, end-to-end tests per tier, benchmarks.
noinst_PROGRAMS += tests/targets/time-target
tests_targets_time_target_CFLAGS = $(TARGET_CFLAGS)
tests_targets_time_target_LDFLAGS = $(TARGET_LINK_FLAGS)
TESTS += tests/e2e/time.sh
EXTRA_DIST += tests/e2e/time.sh
check_PROGRAMS += tests/unit/test-time
tests_unit_test_time_SOURCES = tests/unit/test-time.c tests/unit/tap.h
tests_unit_test_time_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-time
EXTRA_DIST += tests/fixtures/time
TESTS += tests/e2e/time-perm.sh
EXTRA_DIST += tests/e2e/time-perm.sh tests/e2e/time-lib.sh
TESTS += tests/e2e/time-misc.sh tests/e2e/time-tui.sh
EXTRA_DIST += tests/e2e/time-misc.sh tests/e2e/time-tui.sh
noinst_PROGRAMS += tests/targets/pingpong
tests_targets_pingpong_CFLAGS = $(TARGET_CFLAGS)
tests_targets_pingpong_LDFLAGS = $(TARGET_LINK_FLAGS)
BENCHES += tests/bench/time.sh
EXTRA_DIST += tests/bench/time.sh
