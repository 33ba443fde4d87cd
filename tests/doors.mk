# tests/doors.mk: the doors report and refusals checked as root and as an
# unprivileged user, the help texts of every screen and pane, and the lab's
# own targets.
noinst_PROGRAMS += tests/targets/lab-nodump tests/targets/lab-tracer \
	tests/targets/lab-fdleak tests/targets/lab-faults tests/targets/lab-deadlock \
	tests/targets/lab-seccomp
tests_targets_lab_nodump_CFLAGS = $(TARGET_CFLAGS)
tests_targets_lab_nodump_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_lab_tracer_CFLAGS = $(TARGET_CFLAGS)
tests_targets_lab_tracer_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_lab_fdleak_CFLAGS = $(TARGET_CFLAGS)
tests_targets_lab_fdleak_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_lab_faults_CFLAGS = $(TARGET_CFLAGS)
tests_targets_lab_faults_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_lab_deadlock_CFLAGS = $(TARGET_CFLAGS)
tests_targets_lab_deadlock_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_lab_seccomp_CFLAGS = $(TARGET_CFLAGS)
tests_targets_lab_seccomp_LDFLAGS = $(TARGET_LINK_FLAGS)

check_PROGRAMS += tests/unit/test-doors
tests_unit_test_doors_SOURCES = tests/unit/test-doors.c tests/unit/tap.h
tests_unit_test_doors_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-doors

TESTS += tests/e2e/doors.sh tests/e2e/doors-unpriv.sh tests/e2e/doors-tui.sh tests/e2e/help-texts.sh tests/e2e/help-ko.sh \
	tests/e2e/lab-doc.sh
EXTRA_DIST += tests/e2e/doors.sh tests/e2e/doors-unpriv.sh tests/e2e/doors-tui.sh tests/e2e/help-texts.sh tests/e2e/help-ko.sh \
	tests/e2e/lab-doc.sh

# The doors report (pscope doors --report) in English and Korean, the lab
# in both languages, the Korean manual page.
check_PROGRAMS += tests/unit/test-doors-report
tests_unit_test_doors_report_SOURCES = tests/unit/test-doors-report.c tests/unit/tap.h
tests_unit_test_doors_report_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-doors-report tests/e2e/doors-report.sh tests/e2e/man-ko.sh
EXTRA_DIST += tests/e2e/doors-report.sh tests/e2e/man-ko.sh
TESTS += tests/e2e/doors-io.sh tests/e2e/doors-save.sh
EXTRA_DIST += tests/e2e/doors-io.sh tests/e2e/doors-save.sh
