# tests/binaries.mk
# Binaries none of us wrote the way users build them: JIT code announced in
# perf maps and jitdumps, static programs, inlines, separate debug info.
noinst_PROGRAMS += tests/targets/jit
tests_targets_jit_CFLAGS = $(TARGET_CFLAGS) -fno-omit-frame-pointer
tests_targets_jit_LDFLAGS = $(TARGET_LINK_FLAGS)
TESTS += tests/e2e/jit.sh
EXTRA_DIST += tests/e2e/jit.sh
BENCHES += tests/bench/jit.sh
EXTRA_DIST += tests/bench/jit.sh
