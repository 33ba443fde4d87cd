# Tests of the pictures of a profile: the flame graph tree and the SVG,
# pprof and speedscope writers (unit), pscope top writing them and their
# own readers opening them, the TUI flame graph through tmux (e2e), and
# the flame graph's drawing and SVG speed (bench).
check_PROGRAMS += tests/unit/test-pictures
tests_unit_test_pictures_SOURCES = tests/unit/test-pictures.c tests/unit/tap.h
tests_unit_test_pictures_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-pictures
# The sources' bounded histories (the graphs of the list, threads, meters).
check_PROGRAMS += tests/unit/test-hist
tests_unit_test_hist_SOURCES = tests/unit/test-hist.c tests/unit/tap.h
tests_unit_test_hist_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-hist
TESTS += tests/e2e/pictures.sh
EXTRA_DIST += tests/e2e/pictures.sh
# Hangul thread and function names in a known 10/90 profile.
noinst_PROGRAMS += tests/targets/flame-ko
tests_targets_flame_ko_SOURCES = tests/targets/flame-ko.c
tests_targets_flame_ko_CFLAGS = $(TARGET_CFLAGS) -fno-omit-frame-pointer
tests_targets_flame_ko_LDFLAGS = $(TARGET_LINK_FLAGS)
TESTS += tests/e2e/flame-tui.sh
EXTRA_DIST += tests/e2e/flame-tui.sh
# History graphs: the list's CPU_HIST column, the meters as graphs, the
# Threads pane's CPU_HIST.
TESTS += tests/e2e/history-tui.sh
EXTRA_DIST += tests/e2e/history-tui.sh
# The machine-wide hot view's flame graph: every process, zoomed to one.
TESTS += tests/e2e/flame-hotprocs.sh
EXTRA_DIST += tests/e2e/flame-hotprocs.sh
# make bench: the flame graph's drawing and SVG speed on 10,000 frames.
noinst_PROGRAMS += tests/bench/flame-bench
tests_bench_flame_bench_SOURCES = tests/bench/flame-bench.c
tests_bench_flame_bench_LDADD = libpsui.a $(MODEL_LIBS) $(NCURSESW_LIBS)
BENCHES += tests/bench/flame.sh
EXTRA_DIST += tests/bench/flame.sh
