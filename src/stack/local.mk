# src/stack/local.mk
