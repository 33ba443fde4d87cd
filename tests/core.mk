# tests/core.mk
