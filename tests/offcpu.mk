# Off-CPU stacks and the timeline: a target with known blocking, built with and without
# frame pointers, and the end-to-end tests of pscope top --off-cpu.
noinst_PROGRAMS += tests/targets/offcpu-fp tests/targets/offcpu-nofp
tests_targets_offcpu_fp_SOURCES = tests/targets/offcpu-target.c
tests_targets_offcpu_fp_CFLAGS = $(TARGET_CFLAGS) -fno-omit-frame-pointer
tests_targets_offcpu_fp_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_offcpu_nofp_SOURCES = tests/targets/offcpu-target.c
tests_targets_offcpu_nofp_CFLAGS = $(TARGET_CFLAGS) -fomit-frame-pointer
tests_targets_offcpu_nofp_LDFLAGS = $(TARGET_LINK_FLAGS)
TESTS += tests/e2e/offcpu.sh tests/e2e/offcpu-tui.sh tests/e2e/timeline.sh tests/e2e/timeline-tui.sh tests/e2e/offcpu-python.sh tests/e2e/offcpu-proc.sh
EXTRA_DIST += tests/e2e/offcpu.sh tests/e2e/offcpu-tui.sh tests/e2e/timeline.sh tests/e2e/timeline-tui.sh tests/e2e/offcpu-python.sh \
	tests/e2e/offcpu-proc.sh tests/targets/py-offcpu.py
check_PROGRAMS += tests/unit/test-timeline
tests_unit_test_timeline_SOURCES = tests/unit/test-timeline.c tests/unit/tap.h
tests_unit_test_timeline_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-timeline
BENCHES += tests/bench/offcpu.sh tests/bench/timeline.sh
EXTRA_DIST += tests/bench/offcpu.sh tests/bench/timeline.sh tests/bench/slowdown-lib.sh
check_PROGRAMS += tests/unit/test-offcpu
tests_unit_test_offcpu_SOURCES = tests/unit/test-offcpu.c tests/unit/tap.h
tests_unit_test_offcpu_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-offcpu
