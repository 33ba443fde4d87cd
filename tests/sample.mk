# tests/sample.mk
