# tests/detail.mk
