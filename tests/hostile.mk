# tests/hostile.mk
# Hostile targets, seen as root: files that change under pscope, symbol
# bombs, hostile perf maps, and races on the paths pscope writes. The
# hostile side runs as nobody; tests/hostile-lib.sh has the common checks.
noinst_PROGRAMS += tests/targets/hostile-file tests/targets/hostile-lib.so tests/targets/hostile-swap \
	tests/targets/hostile-names
# Paths a target or a core names: FIFOs, links and devices put there.
TESTS += tests/e2e/hostile-paths.sh
EXTRA_DIST += tests/e2e/hostile-paths.sh
tests_targets_hostile_file_CFLAGS = $(TARGET_CFLAGS)
tests_targets_hostile_file_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_hostile_file_LDADD = -ldl
tests_targets_hostile_lib_so_SOURCES = tests/targets/hostile-lib.c
tests_targets_hostile_lib_so_CFLAGS = $(TARGET_CFLAGS) -fPIC
tests_targets_hostile_lib_so_LDFLAGS = $(TARGET_LINK_FLAGS) -shared
tests_targets_hostile_swap_CFLAGS = $(TARGET_CFLAGS)
tests_targets_hostile_swap_LDFLAGS = $(TARGET_LINK_FLAGS)
# Depth 24: demangled in full, its one name would be about 500 MB.
tests_targets_hostile_names_SOURCES = tests/targets/hostile-names.cc
tests_targets_hostile_names_CXXFLAGS = -O1 -g -DDEPTH=24
TESTS += tests/e2e/hostile-files.sh tests/e2e/hostile-names.sh tests/e2e/hostile-writes.sh tests/e2e/hostile-bombs.sh
EXTRA_DIST += tests/hostile-lib.sh tests/e2e/hostile-files.sh tests/e2e/hostile-names.sh \
	tests/e2e/hostile-writes.sh tests/e2e/hostile-bombs.sh
