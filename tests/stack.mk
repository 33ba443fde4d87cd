# tests/stack.mk
