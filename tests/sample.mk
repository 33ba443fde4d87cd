# Tests of the sampler: unit tests (ring protocol, record parsing, views,
# folded writer, perf-map and kallsyms parsers) and end-to-end tests on a
# target with a known profile, with and without frame pointers.
noinst_PROGRAMS += tests/targets/hotloop tests/targets/hotloop-nofp
tests_targets_hotloop_SOURCES = tests/targets/hotloop.c
tests_targets_hotloop_CFLAGS = $(TARGET_CFLAGS) -fno-omit-frame-pointer
tests_targets_hotloop_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_hotloop_nofp_SOURCES = tests/targets/hotloop.c
tests_targets_hotloop_nofp_CFLAGS = $(TARGET_CFLAGS) -fomit-frame-pointer
tests_targets_hotloop_nofp_LDFLAGS = $(TARGET_LINK_FLAGS)
BENCHES += tests/bench/sample.sh
EXTRA_DIST += tests/bench/sample.sh
check_PROGRAMS += tests/unit/test-sample
tests_unit_test_sample_SOURCES = tests/unit/test-sample.c tests/unit/tap.h
tests_unit_test_sample_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-sample
TESTS += tests/e2e/top.sh tests/e2e/hot-tui.sh tests/e2e/top-machine.sh tests/e2e/hotprocs-tui.sh tests/e2e/hotprocs-first.sh
EXTRA_DIST += tests/e2e/top.sh tests/e2e/hot-tui.sh tests/e2e/top-machine.sh tests/e2e/hotprocs-tui.sh tests/e2e/hotprocs-first.sh
# A shared object loaded by hotloop -d while it is sampled (built as a
# program linked with -shared).
noinst_PROGRAMS += tests/targets/hotline
tests_targets_hotline_SOURCES = tests/targets/hotline.c
tests_targets_hotline_CFLAGS = $(TARGET_CFLAGS) -fno-omit-frame-pointer
tests_targets_hotline_LDFLAGS = $(TARGET_LINK_FLAGS)
noinst_PROGRAMS += tests/targets/hotplugin.so
tests_targets_hotplugin_so_SOURCES = tests/targets/hotplugin.c
tests_targets_hotplugin_so_CFLAGS = $(TARGET_CFLAGS) -fPIC
tests_targets_hotplugin_so_LDFLAGS = $(TARGET_LINK_FLAGS) -shared

# The symbolizer (src/sym): pure parts and views of the test itself.
check_PROGRAMS += tests/unit/test-sym
tests_unit_test_sym_SOURCES = tests/unit/test-sym.c tests/unit/tap.h
tests_unit_test_sym_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-sym
# A C++ target: demangled names.
noinst_PROGRAMS += tests/targets/hotcpp
tests_targets_hotcpp_SOURCES = tests/targets/hotcpp.cc
tests_targets_hotcpp_CXXFLAGS = -O1 -g
# A frameless leaf two calls deep, with frame pointers (but not in leaves,
# as GCC's -momit-leaf-frame-pointer does) and without any.
noinst_PROGRAMS += tests/targets/leafchain tests/targets/leafchain-nofp
tests_targets_leafchain_SOURCES = tests/targets/leafchain.c
tests_targets_leafchain_CFLAGS = $(TARGET_CFLAGS) -O2 -fno-omit-frame-pointer -momit-leaf-frame-pointer
tests_targets_leafchain_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_leafchain_nofp_SOURCES = tests/targets/leafchain.c
tests_targets_leafchain_nofp_CFLAGS = $(TARGET_CFLAGS) -O2 -fomit-frame-pointer
tests_targets_leafchain_nofp_LDFLAGS = $(TARGET_LINK_FLAGS)
# Any thread count: 10,000 threads, 50 of them busy.
noinst_PROGRAMS += tests/targets/manythreads
tests_targets_manythreads_CFLAGS = $(TARGET_CFLAGS)
tests_targets_manythreads_LDFLAGS = $(TARGET_LINK_FLAGS)
TESTS += tests/e2e/top-threads.sh tests/e2e/annotate.sh tests/e2e/annotate-tui.sh
EXTRA_DIST += tests/e2e/top-threads.sh tests/e2e/annotate.sh tests/e2e/annotate-tui.sh tests/targets/hotline.c
BENCHES += tests/bench/dwarf.sh
EXTRA_DIST += tests/bench/dwarf.sh
# Every process on every CPU against perf top; libdw against libunwind on
# the same stack copies (the sampler's unwinder choice).
BENCHES += tests/bench/machine.sh tests/bench/unwind.sh
EXTRA_DIST += tests/bench/machine.sh tests/bench/unwind.sh
noinst_PROGRAMS += tests/bench/unwind-cmp
tests_bench_unwind_cmp_SOURCES = tests/bench/unwind-cmp.c
tests_bench_unwind_cmp_LDADD = $(MODEL_LIBS)
# The perf layer (src/perf/): decoders, the reader, tracepoint formats
# (tests/fixtures/perf/, this kernel's) and real tracepoints as root; the
# one hash table (src/hmap.c).
check_PROGRAMS += tests/unit/test-perf tests/unit/test-perf-tp tests/unit/test-hmap
tests_unit_test_perf_SOURCES = tests/unit/test-perf.c tests/unit/perf-rec.h tests/unit/tap.h
tests_unit_test_perf_LDADD = $(MODEL_LIBS)
tests_unit_test_perf_tp_SOURCES = tests/unit/test-perf-tp.c tests/unit/perf-rec.h tests/unit/tap.h
tests_unit_test_perf_tp_LDADD = $(MODEL_LIBS)
tests_unit_test_hmap_SOURCES = tests/unit/test-hmap.c tests/unit/tap.h
tests_unit_test_hmap_LDADD = $(MODEL_LIBS)
TESTS += tests/unit/test-perf tests/unit/test-perf-tp tests/unit/test-hmap
