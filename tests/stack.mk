# tests/stack.mk
# Stack dump: targets with known stacks, unit and end-to-end tests, bench.
noinst_PROGRAMS += tests/targets/stack-threads
tests_targets_stack_threads_CFLAGS = $(TARGET_CFLAGS)
tests_targets_stack_threads_LDFLAGS = $(TARGET_LDFLAGS)

check_PROGRAMS += tests/unit/test-freeze
tests_unit_test_freeze_SOURCES = tests/unit/test-freeze.c tests/unit/tap.h
tests_unit_test_freeze_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-freeze
