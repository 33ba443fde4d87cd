# tests/stack.mk
# Stack dump: targets with known stacks, unit and end-to-end tests, bench.
noinst_PROGRAMS += tests/targets/stack-threads
tests_targets_stack_threads_CFLAGS = $(TARGET_CFLAGS)
tests_targets_stack_threads_LDFLAGS = $(TARGET_LINK_FLAGS)

check_PROGRAMS += tests/unit/test-freeze tests/unit/test-stack
tests_unit_test_freeze_SOURCES = tests/unit/test-freeze.c tests/unit/tap.h
tests_unit_test_freeze_LDADD = $(MODEL_LIBS)
tests_unit_test_stack_SOURCES = tests/unit/test-stack.c tests/unit/tap.h
tests_unit_test_stack_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-freeze tests/unit/test-stack
noinst_PROGRAMS += tests/targets/deadlock
tests_targets_deadlock_CFLAGS = $(TARGET_CFLAGS)
tests_targets_deadlock_LDFLAGS = $(TARGET_LINK_FLAGS)

# Ring and workers: unit tests, and a stress test under ThreadSanitizer
# with its own copy of ring.c/worker.c (per-target flags replace AM_CFLAGS,
# so the ASan flags of a sanitizer build do not mix in).
check_PROGRAMS += tests/unit/test-ring tests/unit/test-ring-stress
tests_unit_test_ring_SOURCES = tests/unit/test-ring.c tests/unit/tap.h
tests_unit_test_ring_LDADD = $(MODEL_LIBS)
tests_unit_test_ring_stress_SOURCES = tests/unit/test-ring-stress.c tests/unit/tap.h \
	src/ring.c src/worker.c
tests_unit_test_ring_stress_CFLAGS = $(WARN_CFLAGS) -pthread -O1 -g -fsanitize=thread
tests_unit_test_ring_stress_LDFLAGS = -pthread -fsanitize=thread
TESTS += tests/unit/test-ring tests/unit/test-ring-stress

# The same known stacks built without frame pointers, without CFI (the
# frame-pointer fallback), and stripped.
noinst_PROGRAMS += tests/targets/stack-threads-nofp tests/targets/stack-threads-nocfi \
	tests/targets/stack-threads-stripped
tests_targets_stack_threads_nofp_SOURCES = tests/targets/stack-threads.c
tests_targets_stack_threads_nofp_CFLAGS = $(TARGET_CFLAGS) -O2 -fomit-frame-pointer
tests_targets_stack_threads_nofp_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_stack_threads_nocfi_SOURCES = tests/targets/stack-threads.c
tests_targets_stack_threads_nocfi_CFLAGS = $(TARGET_CFLAGS) -fno-omit-frame-pointer \
	-fno-asynchronous-unwind-tables -fno-unwind-tables
tests_targets_stack_threads_nocfi_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_stack_threads_stripped_SOURCES = tests/targets/stack-threads.c
tests_targets_stack_threads_stripped_CFLAGS = $(TARGET_CFLAGS)
tests_targets_stack_threads_stripped_LDFLAGS = $(TARGET_LINK_FLAGS) -s

TESTS += tests/e2e/stack.sh
EXTRA_DIST += tests/e2e/stack.sh
TESTS += tests/e2e/stack-tui.sh tests/e2e/keys-back.sh
EXTRA_DIST += tests/e2e/stack-tui.sh tests/e2e/keys-back.sh
TESTS += tests/e2e/stack-search-ko.sh
EXTRA_DIST += tests/e2e/stack-search-ko.sh
# Words on the screens: singular counts, the view said, sentences.
TESTS += tests/e2e/wording.sh
EXTRA_DIST += tests/e2e/wording.sh
BENCHES += tests/bench/stack.sh
EXTRA_DIST += tests/bench/stack.sh

# CPython reader: pure decoders and layouts (unit), the offsets proven
# against each installed interpreter's headers, Python targets under every
# interpreter found, a hostile process faking _PyRuntime.
check_PROGRAMS += tests/unit/test-python
tests_unit_test_python_SOURCES = tests/unit/test-python.c tests/unit/tap.h
tests_unit_test_python_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-python
EXTRA_DIST += tests/fixtures/py-linetables.h tests/fixtures/py-linetables.py tests/targets/py-threads.py
noinst_PROGRAMS += tests/targets/py-hostile
tests_targets_py_hostile_CFLAGS = $(TARGET_CFLAGS)
tests_targets_py_hostile_LDFLAGS = $(TARGET_LINK_FLAGS) -rdynamic
TESTS += tests/e2e/python-layout.sh tests/e2e/python-stack.sh tests/e2e/python-tui.sh tests/e2e/python-top.sh tests/e2e/python-hot80.sh \
	tests/e2e/python-core.sh tests/e2e/python-deadlock.sh tests/e2e/jvm-deadlock.sh tests/e2e/stack-stop-tui.sh
EXTRA_DIST += tests/e2e/stack-stop-tui.sh
EXTRA_DIST += tests/e2e/jvm-deadlock.sh tests/targets/JvmDeadlock.java
EXTRA_DIST += tests/e2e/python-deadlock.sh tests/targets/py-deadlock.py tests/python/check-deadlock.py
EXTRA_DIST += tests/e2e/python-core.sh tests/e2e/python-hot80.sh tests/e2e/python-layout.sh tests/e2e/python-stack.sh tests/e2e/python-tui.sh tests/e2e/python-top.sh tests/python/layout-check.c \
	tests/python/check-stack.py tests/python/check-top.py
BENCHES += tests/bench/python.sh tests/bench/python-core.sh
EXTRA_DIST += tests/bench/python.sh tests/bench/python-core.sh tests/targets/py-work.py
# The Stacks screen's header and a bystander's lock, in the TUI and batch.
TESTS += tests/e2e/stack-header.sh
EXTRA_DIST += tests/e2e/stack-header.sh
