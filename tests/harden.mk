# Hardening: faults, awkward processes, hostile input.
TESTS += tests/e2e/faults.sh
EXTRA_DIST += tests/e2e/faults.sh
noinst_PROGRAMS += tests/targets/zombie
tests_targets_zombie_CFLAGS = $(TARGET_CFLAGS)
tests_targets_zombie_LDFLAGS = $(TARGET_LINK_FLAGS)
noinst_PROGRAMS += tests/targets/sockname
tests_targets_sockname_CFLAGS = $(TARGET_CFLAGS)
tests_targets_sockname_LDFLAGS = $(TARGET_LINK_FLAGS)
TESTS += tests/e2e/sockets.sh
EXTRA_DIST += tests/e2e/sockets.sh
TESTS += tests/e2e/fds.sh
EXTRA_DIST += tests/e2e/fds.sh
TESTS += tests/e2e/kill.sh
EXTRA_DIST += tests/e2e/kill.sh
EXTRA_DIST += tests/figures.sh
# `make figures`: the hardening figures (fuzzing, kill tests, scale).
figures: all $(noinst_PROGRAMS)
	@top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' PSCOPE='$(abs_top_builddir)/pscope' \
		TARGETS='$(abs_top_builddir)/tests/targets' $(SHELL) $(top_srcdir)/tests/figures.sh
.PHONY: figures
noinst_PROGRAMS += tests/targets/churn
tests_targets_churn_CFLAGS = $(TARGET_CFLAGS)
tests_targets_churn_LDFLAGS = $(TARGET_LINK_FLAGS)
TESTS += tests/e2e/churn.sh
EXTRA_DIST += tests/e2e/churn.sh
TESTS += tests/e2e/container.sh
EXTRA_DIST += tests/e2e/container.sh
noinst_PROGRAMS += tests/targets/execer
tests_targets_execer_CFLAGS = $(TARGET_CFLAGS)
tests_targets_execer_LDFLAGS = $(TARGET_LINK_FLAGS)
TESTS += tests/e2e/exec.sh
EXTRA_DIST += tests/e2e/exec.sh
TESTS += tests/e2e/priv-audit.sh
EXTRA_DIST += tests/e2e/priv-audit.sh
BENCHES += tests/bench/stack-mem.sh
EXTRA_DIST += tests/bench/stack-mem.sh
noinst_PROGRAMS += tests/targets/badstack
tests_targets_badstack_CFLAGS = $(TARGET_CFLAGS)
tests_targets_badstack_LDFLAGS = $(TARGET_LINK_FLAGS)
TESTS += tests/e2e/badstack.sh
EXTRA_DIST += tests/e2e/badstack.sh
