# tests/list.mk
