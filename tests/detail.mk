# Detail panes: parser unit tests, a target with known content, batch and
# TUI end-to-end tests.
noinst_PROGRAMS += tests/targets/detail-target
tests_targets_detail_target_CFLAGS = $(TARGET_CFLAGS)
tests_targets_detail_target_LDFLAGS = $(TARGET_LDFLAGS)
