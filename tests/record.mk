# tests/record.mk
# Recordings: the file format, pscope record, the replay.
check_PROGRAMS += tests/unit/test-record
tests_unit_test_record_SOURCES = tests/unit/test-record.c tests/unit/tap.h
tests_unit_test_record_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-record

noinst_PROGRAMS += tests/targets/workload
tests_targets_workload_CFLAGS = $(TARGET_CFLAGS)
tests_targets_workload_LDFLAGS = $(TARGET_LINK_FLAGS)

TESTS += tests/e2e/record.sh tests/e2e/record-kill.sh tests/e2e/record-tui.sh tests/e2e/record-format.sh tests/e2e/record-show.sh tests/e2e/record-live.sh tests/e2e/record-dir.sh tests/e2e/record-service.sh
EXTRA_DIST += tests/e2e/record.sh tests/e2e/record-kill.sh tests/e2e/record-tui.sh tests/e2e/record-format.sh tests/e2e/record-show.sh tests/e2e/record-live.sh tests/e2e/record-dir.sh tests/e2e/record-service.sh tests/fixtures/record doc/record-format.md
BENCHES += tests/bench/record.sh
EXTRA_DIST += tests/bench/record.sh
