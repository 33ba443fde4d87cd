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

# Static non-PIE programs: gcc -static links without .eh_frame_hdr unless
# asked for one (-Wl,--eh-frame-hdr).
noinst_PROGRAMS += tests/targets/static-prog tests/targets/static-prog-hdr
tests_targets_static_prog_SOURCES = tests/targets/static-prog.c
tests_targets_static_prog_CFLAGS = $(TARGET_CFLAGS) -O2 -fno-pie
tests_targets_static_prog_LDFLAGS = $(TARGET_LINK_FLAGS) -static -no-pie
tests_targets_static_prog_hdr_SOURCES = tests/targets/static-prog.c
tests_targets_static_prog_hdr_CFLAGS = $(TARGET_CFLAGS) -O2 -fno-pie
tests_targets_static_prog_hdr_LDFLAGS = $(TARGET_LINK_FLAGS) -static -no-pie -Wl,--eh-frame-hdr
TESTS += tests/e2e/static.sh
EXTRA_DIST += tests/binaries-lib.sh
EXTRA_DIST += tests/e2e/static.sh

# Cores read with the program given as users give it (--exe, --sysroot).
TESTS += tests/e2e/core-exe.sh
EXTRA_DIST += tests/e2e/core-exe.sh

# Rust: built by the test with rustc when it is there.
TESTS += tests/e2e/rust.sh
EXTRA_DIST += tests/e2e/rust.sh tests/targets/rust-spin.rs
BENCHES += tests/bench/rust.sh
EXTRA_DIST += tests/bench/rust.sh

# Inlined calls, three nested.
noinst_PROGRAMS += tests/targets/inlines
tests_targets_inlines_SOURCES = tests/targets/inlines.c
tests_targets_inlines_CFLAGS = $(TARGET_CFLAGS) -O2
TESTS += tests/e2e/inlines.sh
EXTRA_DIST += tests/e2e/inlines.sh

# Separate debug info: a library whose DWARF the test moves under a private
# .build-id directory (PSCOPE_DEBUG_DIR), and Debian's /usr/lib/debug.
noinst_PROGRAMS += tests/targets/dbgsep tests/targets/dbgsep-lib.so
tests_targets_dbgsep_CFLAGS = $(TARGET_CFLAGS)
tests_targets_dbgsep_LDFLAGS = $(TARGET_LINK_FLAGS)
tests_targets_dbgsep_LDADD = -ldl
tests_targets_dbgsep_lib_so_SOURCES = tests/targets/dbgsep-lib.c
tests_targets_dbgsep_lib_so_CFLAGS = $(TARGET_CFLAGS) -O2 -fPIC
tests_targets_dbgsep_lib_so_LDFLAGS = $(TARGET_LINK_FLAGS) -shared -Wl,--build-id
TESTS += tests/e2e/debug-dir.sh
EXTRA_DIST += tests/e2e/debug-dir.sh

# Functions GCC splits (.cold) and clones (.constprop.0): DWARF names.
noinst_PROGRAMS += tests/targets/clones
tests_targets_clones_CFLAGS = $(TARGET_CFLAGS) -O2
TESTS += tests/e2e/dwarf-names.sh
EXTRA_DIST += tests/e2e/dwarf-names.sh

# Cores without NT_FILE: the dynamic linker's list.
TESTS += tests/e2e/core-nofile.sh
EXTRA_DIST += tests/e2e/core-nofile.sh
# Go: built by the test with go when it is there.
TESTS += tests/e2e/go.sh
EXTRA_DIST += tests/e2e/go.sh tests/targets/go-target.go
